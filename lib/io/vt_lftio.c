/* SPDX-License-Identifier: MIT */
/*
 * Forwarding-table files. Two grammars:
 *  - "Unicast lids [...] of switch ... guid 0x<guid> (...):" headers, each
 *    followed by "0x<lid> <port> <comment>" lines (port in decimal): what
 *    OpenSM writes to opensm-lfts.dump and what ibroute / dump_fts print;
 *  - "dump_ucast_routes: Switch 0x<guid>" headers, each followed by
 *    "0x<LID> : <port>  : ..." or "0x<LID> : UNREACHABLE": opensm.fdbs, and
 *    ibdiagnet2.fdbs, whose headers read "osm_ucast_mgr_dump_ucast_routes:"
 *    and may be followed by "PLFT_NUM: n": only pLFT 0 (the LFT) is read.
 * Lines of libibmad's warnings ("ibwarn: ...") and dump_lfts's closing
 * "*** WARNING ***" line are skipped in both.
 */
#include "io/vt_lftio.h"
#include "io/vt_lftbin.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/vt_io.h"

static const char *node_type_str(uint8_t type)
{
	/* the words OpenSM's ib_get_node_type_str() gives */
	switch (type) {
	case VT_CA:
		return "Channel Adapter";
	case VT_SWITCH:
		return "Switch";
	case VT_ROUTER:
		return "Router";
	}
	return "UNKNOWN";
}

struct guid_ord {
	uint64_t guid;
	uint32_t sw;
};

static int cmp_guid(const void *a, const void *b)
{
	const struct guid_ord *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/*
 * The writer formats by hand into a large buffer: a pruned 36-port fabric has
 * 21 M entry lines, and fprintf took most of the run. Every line of LID l is
 * "0x%04x %03u # <what owns l>\n", the same on every switch but for the port,
 * so each LID's line is built once (port digits left blank) and copied.
 */
#define OUT_BUF (1u << 20)

struct lft_writer {
	FILE *fp;
	char *buf;
	size_t len;
	int bad;
	char *tpl;   /* every LID's line, port digits at offset 7 */
	size_t *off; /* per LID: its line is tpl[off[l] .. off[l + 1]) */
};

static void w_flush(struct lft_writer *w)
{
	if (w->len && fwrite(w->buf, 1, w->len, w->fp) != w->len)
		w->bad = 1;
	w->len = 0;
}

static void w_put(struct lft_writer *w, const char *s, size_t n)
{
	if (w->len + n > OUT_BUF) {
		w_flush(w);
		if (n > OUT_BUF) {
			if (fwrite(s, 1, n, w->fp) != n)
				w->bad = 1;
			return;
		}
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

static int w_printf(struct lft_writer *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int w_printf(struct lft_writer *w, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if (w->len + (size_t)n + 1 > OUT_BUF)
		w_flush(w);
	if ((size_t)n + 1 > OUT_BUF) {
		va_start(ap, fmt);
		if (vfprintf(w->fp, fmt, ap) < 0)
			w->bad = 1;
		va_end(ap);
		return 0;
	}
	va_start(ap, fmt);
	vsnprintf(w->buf + w->len, OUT_BUF - w->len, fmt, ap);
	va_end(ap);
	w->len += (size_t)n;
	return 0;
}

/* Builds every LID's line; the port digits "000" are patched per switch. */
static int build_templates(struct lft_writer *w, const vt_fabric *f, uint32_t nlid)
{
	size_t cap = 0, len = 0;

	w->off = malloc(((size_t)nlid + 1) * sizeof(*w->off));
	if (!w->off)
		return -1;
	/* first pass sizes, second writes */
	for (int pass = 0; pass < 2; pass++) {
		len = 0;
		for (uint32_t lid = 0; lid < nlid; lid++) {
			uint32_t dst = vt_fabric_port_by_lid(f, lid);
			char *at = pass ? w->tpl + len : NULL;
			size_t room = pass ? cap - len : 0;
			int n;

			if (dst != VT_NONE) {
				const struct vt_node *d = &f->nodes[f->ports[dst].node];

				n = snprintf(at, room,
					     "0x%04x 000 # %s portguid 0x%016" PRIx64 ": '%s'\n",
					     lid, node_type_str(d->type), f->ports[dst].guid,
					     d->desc);
			} else {
				n = snprintf(at, room, "0x%04x 000 # unknown node and type\n", lid);
			}
			if (n < 0)
				return -1;
			w->off[lid] = len;
			len += (size_t)n;
		}
		w->off[nlid] = len;
		if (!pass) {
			cap = len + 1; /* snprintf's NUL after the last line */
			w->tpl = malloc(cap);
			if (!w->tpl)
				return -1;
		}
	}
	return 0;
}

static void write_switch(struct lft_writer *w, const vt_lfts *t, const vt_fabric *f, uint32_t sw)
{
	const struct vt_node *n = &f->nodes[f->switches[sw]];
	const uint8_t *row = vt_lft_row(t, sw);
	uint32_t max_lid = t->nlid - 1;

	w_printf(w, "Unicast lids [0-%u] of switch Lid %u guid 0x%016" PRIx64 " ('%s'):\n", max_lid,
		 vt_port(f, f->switches[sw], 0)->lid, n->guid, n->desc);
	for (uint32_t lid = 0; lid <= max_lid; lid++) {
		unsigned port = row[lid];
		size_t k = w->off[lid + 1] - w->off[lid];
		char *p;

		if (port > n->nports)
			continue;
		if (w->len + k > OUT_BUF) {
			w_flush(w);
			if (k > OUT_BUF) { /* a description longer than the buffer */
				w_put(w, w->tpl + w->off[lid], 7);
				w_printf(w, "%03u", port);
				w_put(w, w->tpl + w->off[lid] + 10, k - 10);
				continue;
			}
		}
		p = w->buf + w->len;
		memcpy(p, w->tpl + w->off[lid], k);
		p[7] = (char)('0' + port / 100);
		p[8] = (char)('0' + port / 10 % 10);
		p[9] = (char)('0' + port % 10);
		w->len += k;
	}
	w_printf(w, "%u lids dumped\n", max_lid);
}

int vt_lfts_write(const vt_lfts *t, const vt_fabric *f, FILE *fp, vt_err *e)
{
	struct lft_writer w = {.fp = fp};
	struct guid_ord *ord;
	int rc = 0;

	if (t->nsw != f->nswitches || t->nlid == 0)
		return vt_err_set(e,
				  "forwarding tables do not match the fabric (%u of %u switches)",
				  t->nsw, f->nswitches);
	ord = malloc(((size_t)t->nsw + 1) * sizeof(*ord));
	w.buf = malloc(OUT_BUF);
	if (!ord || !w.buf || build_templates(&w, f, t->nlid)) {
		rc = vt_err_nomem(e, "out of memory");
		goto out;
	}
	/* OpenSM dumps its GUID-keyed switch map in GUID order */
	for (uint32_t i = 0; i < t->nsw; i++) {
		ord[i].guid = f->nodes[f->switches[i]].guid;
		ord[i].sw = i;
	}
	qsort(ord, t->nsw, sizeof(*ord), cmp_guid);
	for (uint32_t i = 0; i < t->nsw && !w.bad; i++)
		write_switch(&w, t, f, ord[i].sw);
	w_flush(&w);
	if (w.bad || ferror(fp))
		rc = vt_err_set(e, "write error");
out:
	free(w.tpl);
	free(w.off);
	free(w.buf);
	free(ord);
	return rc;
}

/* ---- reading */

struct lft_parse {
	vt_lfts *t;
	const vt_fabric *f;
	const char *name;
	unsigned line;
	uint32_t sw;   /* current switch ordinal, VT_NONE outside a unicast section */
	int mcast;     /* inside a multicast section of dump_fts -M: skipped */
	uint8_t *seen; /* per switch ordinal: a section was read */
	int plft;      /* inside an ibdiagnet pLFT section other than 0: skipped */
	int prev;      /* tables of an earlier sweep: gone switches and LIDs skipped */
	int gone;      /* inside the section of a switch the fabric no longer holds */
	vt_err *e;
};

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

static int starts(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(end - p) >= n && !memcmp(p, word, n);
}

/* Parses hex (base 16) or decimal digits; returns the end, or NULL when there are none or too many.
 */
static const char *parse_num(const char *p, const char *end, unsigned base, uint64_t *v)
{
	const char *s = p;
	uint64_t x = 0;

	for (; p < end; p++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		if (p - s >= 16)
			return NULL;
		x = x * base + d;
	}
	if (p == s)
		return NULL;
	*v = x;
	return p;
}

static int at_end_or_space(const char *p, const char *end)
{
	return p == end || *p == ' ' || *p == '\t' || *p == '\r';
}

static int err(struct lft_parse *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int err(struct lft_parse *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vt_err_vat(s->e, s->name, s->line, fmt, ap);
	va_end(ap);
	return -1;
}

/* Starts the section of the switch with node GUID text at p ("0x..." expected). */
static int begin_switch(struct lft_parse *s, const char *p, const char *end)
{
	uint64_t guid;
	uint32_t node;
	const char *q;

	if (!starts(p, end, "0x") || !(q = parse_num(p + 2, end, 16, &guid)) ||
	    (q < end && !at_end_or_space(q, end)))
		return err(s, "cannot parse switch GUID");
	node = vt_fabric_node_by_guid(s->f, guid);
	s->gone = 0;
	if (s->prev && (node == VT_NONE || s->f->nodes[node].type != VT_SWITCH)) {
		s->gone = 1;
		s->sw = VT_NONE;
		return 0;
	}
	if (node == VT_NONE || s->f->nodes[node].type != VT_SWITCH)
		return err(s, "switch GUID 0x%016" PRIx64 " is not a switch of the fabric", guid);
	s->sw = s->f->nodes[node].sw;
	if (s->seen[s->sw])
		return err(s, "switch GUID 0x%016" PRIx64 " listed twice", guid);
	s->seen[s->sw] = 1;
	s->mcast = 0;
	return 0;
}

/* One table entry; port 255 is OpenSM's "no path". */
static int set_entry(struct lft_parse *s, uint64_t lid, uint64_t port)
{
	const struct vt_node *n;

	if (s->gone || (s->prev && lid > s->f->max_lid))
		return 0;
	if (s->sw == VT_NONE)
		return err(s, "LID entry outside a switch section");
	n = &s->f->nodes[s->f->switches[s->sw]];
	if (port == VT_LFT_NONE)
		return 0;
	if (port > n->nports) {
		char nm[VT_NODE_NAME_MAX];

		return err(s, "port %" PRIu64 " beyond the %u ports of switch %s", port, n->nports,
			   vt_node_name(s->f, s->f->switches[s->sw], nm, sizeof(nm)));
	}
	if (lid > s->f->max_lid)
		return err(s, "LID 0x%04" PRIx64 " beyond the fabric's top LID 0x%04x%s", lid,
			   s->f->max_lid,
			   vt_fabric_has_lmc(s->f) ? ""
						   : " (another fabric's tables, or an LMC the "
						     "fabric file does not name)");
	if (vt_lft_get(s->t, s->sw, (uint32_t)lid) != VT_LFT_NONE) {
		char nm[VT_NODE_NAME_MAX];

		/* last-wins would hide a corrupt or concatenated dump */
		return err(s, "LID 0x%04" PRIx64 " listed twice for switch %s", lid,
			   vt_node_name(s->f, s->f->switches[s->sw], nm, sizeof(nm)));
	}
	vt_lft_set(s->t, s->sw, (uint32_t)lid, (uint8_t)port);
	return 0;
}

/* "N lids dumped" (OpenSM) or "N valid lids dumped" (ibroute, dump_fts) */
static int is_footer(const char *p, const char *end)
{
	uint64_t n;

	p = parse_num(p, end, 10, &n);
	if (!p)
		return 0;
	p = skip_space(p, end);
	if (starts(p, end, "valid "))
		p += 6;
	return starts(p, end, "lids dumped") || starts(p, end, "mlids dumped");
}

static int dump_line(struct lft_parse *s, const char *p, const char *end)
{
	uint64_t lid, port;
	const char *q;

	if (starts(p, end, "Unicast lids")) {
		const char *g = p;

		/* the GUID follows " guid "; the description after it may hold anything */
		while (g < end && !starts(g, end, " guid 0x"))
			g++;
		if (g == end)
			return err(s, "cannot parse switch definition");
		return begin_switch(s, g + 6, end);
	}
	if (starts(p, end, "Multicast mlids")) {
		s->mcast = 1;
		s->sw = VT_NONE;
		return 0;
	}
	if (s->mcast)
		return 0;
	if (starts(p, end, "0x")) {
		q = parse_num(p + 2, end, 16, &lid);
		if (!q || !at_end_or_space(q, end))
			return err(s, "cannot parse LID");
		q = skip_space(q, end);
		p = parse_num(q, end, 10, &port);
		if (!p || !at_end_or_space(p, end))
			return err(s, "cannot parse port");
		return set_entry(s, lid, port);
	}
	/* ibroute's and dump_fts's column titles, and the closing count */
	if (starts(p, end, "Lid  Out") || starts(p, end, "Port     Info") || is_footer(p, end))
		return 0;
	return err(s, "malformed line");
}

static int fdbs_line(struct lft_parse *s, const char *p, const char *end)
{
	uint64_t lid, port;
	const char *q;

	if (starts(p, end, "osm_ucast_mgr_"))
		p += 14;
	if (starts(p, end, "dump_ucast_routes:")) {
		p = skip_space(p + 18, end);
		if (!starts(p, end, "Switch"))
			return err(s, "cannot parse switch definition");
		s->plft = 0;
		return begin_switch(s, skip_space(p + 6, end), end);
	}
	if (starts(p, end, "PLFT_NUM:") && s->sw != VT_NONE) {
		uint64_t n;

		if (!(q = parse_num(skip_space(p + 9, end), end, 10, &n)))
			return err(s, "cannot parse PLFT_NUM");
		s->plft = n != 0;
		return 0;
	}
	if (starts(p, end, "LID ") && s->sw != VT_NONE)
		return 0;
	if (s->plft)
		return 0;
	if (!starts(p, end, "0x"))
		return err(s, "malformed line");
	q = parse_num(p + 2, end, 16, &lid);
	if (!q)
		return err(s, "cannot parse LID");
	q = skip_space(q, end);
	if (q == end || *q != ':')
		return err(s, "cannot parse LID");
	q = skip_space(q + 1, end);
	if (starts(q, end, "UNREACHABLE"))
		port = VT_LFT_NONE;
	else if (!(p = parse_num(q, end, 10, &port)) || !at_end_or_space(p, end))
		return err(s, "cannot parse port");
	return set_entry(s, lid, port);
}

static int read_mem(vt_lfts *t, const vt_fabric *f, const char *buf, size_t len, const char *name,
		    int prev, vt_err *e)
{
	struct lft_parse s = {.t = t, .f = f, .name = name, .sw = VT_NONE, .prev = prev, .e = e};
	const char *p = buf, *end = buf + len;
	int fdbs = -1, rc = 0;

	if (len >= 8 && !memcmp(buf, VT_LFTBIN_MAGIC, 8))
		return vt_lfts_read_bin_mem_opt(t, f, buf, len, name, prev, e);
	if (vt_lfts_init(t, f, e))
		return -1;
	s.seen = calloc((size_t)f->nswitches + 1, 1);
	if (!s.seen) {
		vt_lfts_free(t);
		return vt_err_nomem(e, "out of memory");
	}
	while (p < end && !rc) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *q;

		s.line++;
		q = skip_space(p, le);
		p = nl ? nl + 1 : end;
		/*
		 * libibmad's warnings where stderr went into the file too, and the
		 * trailer of dump_lfts (the script calling dump_fts) say nothing of
		 * the tables
		 */
		if (q == le || *q == '#' || starts(q, le, "ibwarn:") ||
		    starts(q, le, "*** WARNING ***"))
			continue;
		if (memchr(q, '\0', (size_t)(le - q))) {
			rc = err(&s, "NUL byte in line");
			break;
		}
		if (fdbs < 0) {
			/* the first line that says something decides the grammar */
			if (starts(q, le, "dump_ucast_routes:") ||
			    starts(q, le, "osm_ucast_mgr_dump_ucast_routes:"))
				fdbs = 1;
			else if (starts(q, le, "Unicast lids") || starts(q, le, "Multicast mlids"))
				fdbs = 0;
			else {
				rc = err(
					&s,
					"not a forwarding-table dump (expected \"Unicast lids\" or "
					"\"dump_ucast_routes:\")");
				break;
			}
		}
		rc = fdbs ? fdbs_line(&s, q, le) : dump_line(&s, q, le);
	}
	if (!rc && fdbs < 0)
		rc = vt_err_at(e, name, 0, "no forwarding tables in the file");
	free(s.seen);
	if (rc)
		vt_lfts_free(t);
	return rc;
}

int vt_lfts_read_mem(vt_lfts *t, const vt_fabric *f, const char *buf, size_t len, const char *name,
		     vt_err *e)
{
	return read_mem(t, f, buf, len, name, 0, e);
}

static int read_path(vt_lfts *t, const vt_fabric *f, const char *path, int prev, vt_err *e)
{
	char *buf;
	size_t len;
	int rc;

	if (vt_read_file(path, &buf, &len, e))
		return -1;
	rc = read_mem(t, f, buf, len, path, prev, e);
	free(buf);
	return rc;
}

int vt_lfts_read(vt_lfts *t, const vt_fabric *f, const char *path, vt_err *e)
{
	return read_path(t, f, path, 0, e);
}

int vt_lfts_read_prev(vt_lfts *t, const vt_fabric *f, const char *path, vt_err *e)
{
	return read_path(t, f, path, 1, e);
}

/* The CA port an entry line names by port GUID; VT_NONE when none. */
static uint32_t entry_port(const vt_fabric *f, const char *line)
{
	const char *g = strstr(line, "portguid 0x"), *end = line + strlen(line);
	uint64_t lid, guid;
	uint32_t pi;

	if (!g || !starts(line, end, "0x") || !parse_num(line + 2, end, 16, &lid) ||
	    !parse_num(g + 11, end, 16, &guid))
		return VT_NONE;
	pi = vt_fabric_port_by_guid(f, guid);
	if (pi == VT_NONE || f->nodes[f->ports[pi].node].type == VT_SWITCH)
		return VT_NONE;
	return pi;
}

/*
 * Counts the LIDs naming each CA port rather than their offset past the
 * port's LID in the fabric file: tables routed with LIDs assigned anew
 * (vartree-route --lmc) give the file's LIDs no meaning.
 */
unsigned vt_lfts_lmc(const vt_fabric *f, const char *path)
{
	FILE *fp = fopen(path, "r");
	uint32_t *count = calloc(f->nports ? f->nports : 1, sizeof(*count));
	char *line = NULL;
	size_t cap = 0;
	uint32_t most = 0;
	int sections = 0;
	unsigned lmc = 0;

	if (!fp || !count) {
		if (fp)
			fclose(fp);
		free(count);
		return 0;
	}
	/* the first switch's section lists every LID; stop at the second */
	while (getline(&line, &cap, fp) > 0 && sections < 2) {
		const char *p = line;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!strncmp(p, "Unicast lids", 12))
			sections++;
		else if (!sections && *p && *p != '#' && *p != '\n' && *p != '\r')
			break; /* another grammar: no port GUIDs */
		else if (sections == 1) {
			uint32_t pi = entry_port(f, p);

			if (pi != VT_NONE && ++count[pi] > most && count[pi] <= 128)
				most = count[pi];
		}
	}
	free(line);
	free(count);
	fclose(fp);
	while ((1u << lmc) < most)
		lmc++;
	return lmc;
}

int vt_lfts_check(const vt_lfts *t, const vt_fabric *f, const char *name, vt_err *e)
{
	uint32_t missing = 0, first = VT_NONE;
	char nm[VT_NODE_NAME_MAX];

	for (uint32_t sw = 0; sw < t->nsw && sw < f->nswitches; sw++) {
		const uint8_t *row = vt_lft_row(t, sw);
		uint32_t l = 0;

		while (l < t->nlid && row[l] == VT_LFT_NONE)
			l++;
		if (l == t->nlid && !missing++)
			first = f->switches[sw];
	}
	if (missing)
		return vt_err_set(e, "%u of %u switches have no table in %s: first %s", missing,
				  f->nswitches, name, vt_node_name(f, first, nm, sizeof(nm)));
	for (uint32_t sw = 0; sw < t->nsw && sw < f->nswitches; sw++) {
		uint32_t n = f->switches[sw], lid = vt_port(f, n, 0)->lid;
		uint8_t p = vt_lft_get(t, sw, lid);

		if (lid && p == VT_LFT_NONE)
			return vt_err_set(
				e,
				"LIDs in %s do not match the topology: first %s, whose own "
				"LID %u has no entry",
				name, vt_node_name(f, n, nm, sizeof(nm)), lid);
		if (lid && p != 0)
			return vt_err_set(
				e,
				"LIDs in %s do not match the topology: first %s, whose own "
				"LID %u leads to port %u, not to port 0",
				name, vt_node_name(f, n, nm, sizeof(nm)), lid, p);
	}
	return 0;
}
