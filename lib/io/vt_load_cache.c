/* SPDX-License-Identifier: MIT */
/*
 * libibnetdisc cache files, read by the library's own ibnd_load_fabric() and
 * converted by vt_load_ibnd() (lib/io/vt_load_ibnd.c, shared with live capture).
 */
#include "io/vt_load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/ibnetdisc.h>

#include "base/vt_io.h"

#define CACHE_MAGIC   0x8FE7832Bu /* libibnetdisc's, stored little-endian */
#define CACHE_VERSION 1u

#if defined(__SANITIZE_ADDRESS__)
#define VT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VT_ASAN 1
#endif
#endif
#ifdef VT_ASAN
/*
 * libibnetdisc 44 leaks 64 bytes per cached port inside ibnd_load_fabric()
 * (ibnetdiscover --load-cache shows the same under valgrind), and libotf2 3.0
 * its half-opened archive when OTF2_Reader_Open() fails on a damaged anchor
 * file (vt_otf2.c); keep LeakSanitizer quiet about those libraries only, so
 * our own leaks still fail the tests.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libibnetdisc.so\nleak:libopen-trace-format2.so\n";
}
#endif

/* Magic and version checked here, since ibnd_load_fabric() only says NULL. */
static int check_header(const char *path, vt_err *e)
{
	unsigned char h[8] = {0};
	FILE *fp = fopen(path, "rb");
	size_t r;
	uint32_t magic, version;

	if (!fp)
		return vt_err_set(e, "%s: cannot open: %s", path, strerror(errno));
	r = fread(h, 1, sizeof(h), fp);
	fclose(fp);
	magic = h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
	version = h[4] | (uint32_t)h[5] << 8 | (uint32_t)h[6] << 16 | (uint32_t)h[7] << 24;
	if (r < 4 || magic != CACHE_MAGIC)
		return vt_err_set(e, "%s: not a libibnetdisc cache file", path);
	if (r < 8 || version != CACHE_VERSION)
		return vt_err_set(e, "%s: unsupported libibnetdisc cache version %u", path,
				  r < 8 ? 0 : version);
	return 0;
}

/*
 * libibnetdisc trusts its cache: counts beyond the file, a port number past its
 * node's ports or a port listed twice make it write out of bounds or allocate
 * without end. So the whole file is walked here first (layout as libibnetdisc
 * writes it, little-endian) and handed over only when it is consistent.
 */
#define SMP  64		    /* IB_SMP_DATA_SIZE */
#define HDR  28		    /* magic, version, counts, from-node GUID, hops */
#define NODE (15 + 3 * SMP) /* a node record before its port keys */
#define KEY  9		    /* port GUID, port number */
#define PORT (31 + SMP)	    /* a port record */

struct cport {
	uint64_t guid;
	uint8_t num;
	uint8_t used; /* claimed by a node's key */
	uint64_t node;
};

struct cnode {
	uint64_t guid;
	uint8_t nports;
};

static uint64_t le(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static int cmp_cport(const void *a, const void *b)
{
	const struct cport *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return (x->num > y->num) - (x->num < y->num);
}

static int cmp_cnode(const void *a, const void *b)
{
	const struct cnode *x = a, *y = b;

	return (x->guid > y->guid) - (x->guid < y->guid);
}

static struct cport *find_cport(struct cport *p, size_t n, uint64_t guid, uint8_t num)
{
	struct cport k = {.guid = guid, .num = num};

	return bsearch(&k, p, n, sizeof(*p), cmp_cport);
}

static struct cnode *find_cnode(struct cnode *v, size_t n, uint64_t guid)
{
	struct cnode k = {.guid = guid};

	return bsearch(&k, v, n, sizeof(*v), cmp_cnode);
}

/* Node and port records: sizes against the file, then every cross-reference. */
static const char *check_records(const unsigned char *b, size_t len, struct cnode *nd, size_t nn,
				 struct cport *pt, size_t np)
{
	size_t off = HDR, keys_at;

	for (size_t i = 0; i < nn; i++) {
		if (len - off < NODE)
			return "node records run past the end of the file";
		nd[i].guid = le(b + off + 4 + SMP, 8);
		if (b[off + 12 + SMP] < 1 || b[off + 12 + SMP] > 3)
			return "node of unknown type";
		nd[i].nports = b[off + 13 + SMP];
		off += NODE + (size_t)b[off + NODE - 1] * KEY;
		if (off > len)
			return "node records run past the end of the file";
	}
	if ((len - off) / PORT < np || len - off != np * PORT)
		return "port count does not match the file size";
	for (size_t i = 0; i < np; i++, off += PORT) {
		pt[i].guid = le(b + off, 8);
		pt[i].num = b[off + 8];
		if (b[off + 12] > 7)
			return "port LMC over 7";
		pt[i].node = le(b + off + 13 + SMP, 8);
	}
	qsort(nd, nn, sizeof(*nd), cmp_cnode);
	qsort(pt, np, sizeof(*pt), cmp_cport);
	for (size_t i = 1; i < nn; i++)
		if (nd[i].guid == nd[i - 1].guid)
			return "node GUID listed twice";
	for (size_t i = 1; i < np; i++)
		if (!cmp_cport(&pt[i], &pt[i - 1]))
			return "port listed twice";
	if (!find_cnode(nd, nn, le(b + 16, 8)))
		return "the discovering node is not in the file";
	for (size_t i = 0; i < np; i++) {
		const struct cnode *n = find_cnode(nd, nn, pt[i].node);

		if (!n)
			return "port of a node not in the file";
		if (pt[i].num > n->nports)
			return "port number beyond its node's ports";
	}
	off = HDR;
	for (size_t i = 0; i < nn; i++) {
		unsigned nk = b[off + NODE - 1];

		keys_at = off + NODE;
		for (unsigned k = 0; k < nk; k++) {
			const unsigned char *q = b + keys_at + (size_t)k * KEY;
			struct cport *c = find_cport(pt, np, le(q, 8), q[8]);

			if (!c)
				return "node lists a port not in the file";
			if (c->used++)
				return "port claimed twice";
		}
		off = keys_at + (size_t)nk * KEY;
	}
	for (size_t i = 0, at = len - np * PORT; i < np; i++, at += PORT)
		if (b[at + 21 + SMP] &&
		    !find_cport(pt, np, le(b + at + 22 + SMP, 8), b[at + 30 + SMP]))
			return "port linked to a port not in the file";
	return NULL;
}

static int check_cache(const char *path, vt_err *e)
{
	unsigned char *b;
	char *buf;
	size_t len, nn, np;
	struct cnode *nd = NULL;
	struct cport *pt = NULL;
	const char *why = NULL;

	if (vt_read_file(path, &buf, &len, e))
		return -1;
	b = (unsigned char *)buf;
	if (len < HDR) {
		free(buf);
		return vt_err_set(e, "%s: truncated libibnetdisc cache file (header)", path);
	}
	nn = (size_t)le(b + 8, 4);
	np = (size_t)le(b + 12, 4);
	/* counts checked against the size before anything is allocated for them */
	if (nn > (len - HDR) / NODE || np > (len - HDR) / PORT)
		why = "node or port count larger than the file holds";
	else if (!(nd = calloc(nn + 1, sizeof(*nd))) || !(pt = calloc(np + 1, sizeof(*pt))))
		why = "out of memory";
	else
		why = check_records(b, len, nd, nn, pt, np);
	free(nd);
	free(pt);
	free(buf);
	if (why)
		return vt_err_set(e, "%s: corrupt libibnetdisc cache file: %s", path, why);
	return 0;
}

int vt_load_cache(const char *path, vt_fabric **out, vt_err *e)
{
	ibnd_fabric_t *ib;
	int rc;

	*out = NULL;
	if (check_header(path, e) || check_cache(path, e))
		return -1;
	ib = ibnd_load_fabric(path, 0);
	if (!ib)
		return vt_err_set(e, "%s: corrupt or truncated libibnetdisc cache file", path);
	rc = vt_load_ibnd(ib, path, out, e);
	ibnd_destroy_fabric(ib);
	return rc;
}

int vt_load_is_cache(const char *buf, size_t len)
{
	return len >= 4 && ((unsigned char)buf[0] | (uint32_t)(unsigned char)buf[1] << 8 |
			    (uint32_t)(unsigned char)buf[2] << 16 |
			    (uint32_t)(unsigned char)buf[3] << 24) == CACHE_MAGIC;
}
