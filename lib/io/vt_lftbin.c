/* SPDX-License-Identifier: MIT */
/*
 * vartree's binary forwarding-table file (vt_lftbin.h gives the layout): one
 * byte per entry, so a 40K-host fabric's 141 M entries take 141 MB instead of
 * gigabytes of opensm-lfts.dump text, and read back with one copy per switch.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "io/vt_lftbin.h"

#define HEADER 16u

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

struct sw_ord {
	uint64_t guid;
	uint32_t sw;
};

static int cmp_ord(const void *a, const void *b)
{
	uint64_t x = ((const struct sw_ord *)a)->guid, y = ((const struct sw_ord *)b)->guid;

	return x < y ? -1 : x > y;
}

int vt_lfts_write_bin(const vt_lfts *t, const vt_fabric *f, FILE *fp, vt_err *e)
{
	unsigned char head[HEADER];
	struct sw_ord *ord;

	if (t->nsw != f->nswitches || t->nlid == 0)
		return vt_err_set(e,
				  "forwarding tables do not match the fabric (%u of %u switches)",
				  t->nsw, f->nswitches);
	ord = malloc(((size_t)t->nsw + 1) * sizeof(*ord));
	if (!ord)
		return vt_err_nomem(e, "out of memory");
	/* GUID order, as in opensm-lfts.dump, so equal tables give equal files */
	for (uint32_t i = 0; i < t->nsw; i++)
		ord[i] = (struct sw_ord){f->nodes[f->switches[i]].guid, i};
	qsort(ord, t->nsw, sizeof(*ord), cmp_ord);
	memcpy(head, VT_LFTBIN_MAGIC, 8);
	put32(head + 8, t->nsw);
	put32(head + 12, t->nlid);
	fwrite(head, 1, HEADER, fp);
	for (uint32_t i = 0; i < t->nsw; i++) {
		unsigned char g[8];

		put64(g, ord[i].guid);
		fwrite(g, 1, 8, fp);
		fwrite(vt_lft_row(t, ord[i].sw), 1, t->nlid, fp);
	}
	free(ord);
	if (ferror(fp))
		return vt_err_set(e, "write error");
	return 0;
}

/* One switch's record at off: its GUID must name a switch of f listed once. */
static int read_record(vt_lfts *t, const vt_fabric *f, const unsigned char *rec, uint32_t nlid,
		       uint8_t *seen, const char *name, size_t off, int prev, vt_err *e)
{
	uint64_t guid = get64(rec);
	uint32_t node = vt_fabric_node_by_guid(f, guid);
	const struct vt_node *n;
	const unsigned char *row = rec + 8;
	uint8_t *dst;

	if (prev && (node == VT_NONE || f->nodes[node].type != VT_SWITCH))
		return 0;
	if (prev && nlid > t->nlid)
		nlid = t->nlid;
	if (node == VT_NONE || f->nodes[node].type != VT_SWITCH)
		return vt_err_set(e,
				  "%s: byte %zu: switch GUID 0x%016" PRIx64
				  " is not a switch of the fabric",
				  name, off, guid);
	n = &f->nodes[node];
	if (seen[n->sw])
		return vt_err_set(e, "%s: byte %zu: switch GUID 0x%016" PRIx64 " listed twice",
				  name, off, guid);
	seen[n->sw] = 1;
	dst = t->port + (uint64_t)n->sw * t->nlid;
	for (uint32_t lid = 0; lid < nlid; lid++) {
		unsigned port = row[lid];

		if (port == VT_LFT_NONE)
			continue;
		if (port > n->nports)
			return vt_err_set(e,
					  "%s: byte %zu: LID 0x%04x: port %u beyond the %u ports "
					  "of switch '%s' (0x%016" PRIx64 ")",
					  name, off + 8 + lid, lid, port, n->nports, n->desc, guid);
		if (lid >= t->nlid)
			return vt_err_set(
				e, "%s: byte %zu: LID 0x%04x beyond the fabric's top LID 0x%04x%s",
				name, off + 8 + lid, lid, f->max_lid,
				vt_fabric_has_lmc(f) ? ""
						     : " (another fabric's tables, or an LMC the "
						       "fabric file does not name)");
		dst[lid] = (uint8_t)port;
	}
	return 0;
}

int vt_lfts_read_bin_mem(vt_lfts *t, const vt_fabric *f, const char *buf, size_t len,
			 const char *name, vt_err *e)
{
	return vt_lfts_read_bin_mem_opt(t, f, buf, len, name, 0, e);
}

int vt_lfts_read_bin_mem_opt(vt_lfts *t, const vt_fabric *f, const char *buf, size_t len,
			     const char *name, int prev, vt_err *e)
{
	const unsigned char *p = (const unsigned char *)buf;
	uint32_t nsw, nlid;
	uint64_t want;
	uint8_t *seen;
	int rc = 0;

	if (len < HEADER || memcmp(p, VT_LFTBIN_MAGIC, 8))
		return vt_err_set(e, "%s: not a vartree binary table file", name);
	nsw = get32(p + 8);
	nlid = get32(p + 12);
	want = HEADER + (uint64_t)nsw * (8u + (uint64_t)nlid);
	if (nlid == 0 || want != len)
		return vt_err_set(e,
				  "%s: %zu bytes, but its header announces %u switches x %u LIDs "
				  "(%" PRIu64 " bytes): truncated or not a table file",
				  name, len, nsw, nlid, want);
	if (vt_lfts_init(t, f, e))
		return -1;
	seen = calloc((size_t)f->nswitches + 1, 1);
	if (!seen) {
		vt_lfts_free(t);
		return vt_err_nomem(e, "out of memory");
	}
	for (uint32_t i = 0; i < nsw && !rc; i++) {
		size_t off = HEADER + (size_t)i * (8u + nlid);

		rc = read_record(t, f, p + off, nlid, seen, name, off, prev, e);
	}
	free(seen);
	if (rc)
		vt_lfts_free(t);
	return rc;
}
