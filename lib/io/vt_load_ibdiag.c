/* SPDX-License-Identifier: MIT */
/*
 * Link lists of ibdiagnet and OpenSM: ibdiagnet2.lst and opensm-subnet.lst (one
 * grammar, "{ NODE } { NODE } PHY=4x LOG=ACT SPD=10" per port, each link from
 * both ends), and ibdiagnet2.db_csv (its NODES, PORTS and LINKS sections). Nodes
 * are keyed by node GUID and take ibnetdiscover's ids ("S-<guid>", "H-<guid>",
 * "R-<guid>"), so every loader names a node alike. Rules in vt_load.h.
 */
#include "io/vt_load.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vt_io.h"

struct ld {
	const char *name;
	unsigned line;
	vt_fabric *f;
	vt_err *e;
	uint64_t *keys; /* node GUID -> node index (open addressing) */
	uint32_t *vals, cap;
	uint32_t *pline; /* per port of f->ports: line that linked it, 0 when none */
	uint32_t pcap;
	char nm[2][VT_NODE_NAME_MAX];
};

static int fail(struct ld *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct ld *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vt_err_vat(l->e, l->name, l->line, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *nm(struct ld *l, uint32_t node, int slot)
{
	return vt_node_name(l->f, node, l->nm[slot], sizeof(l->nm[slot]));
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ull;
	return x ^ (x >> 29);
}

static uint32_t *slot(struct ld *l, uint64_t guid)
{
	uint32_t m = l->cap - 1, i = (uint32_t)mix(guid) & m;

	while (l->vals[i] != VT_NONE && l->keys[i] != guid)
		i = (i + 1) & m;
	return &l->vals[i];
}

static uint32_t find(struct ld *l, uint64_t guid)
{
	return l->cap ? *slot(l, guid) : VT_NONE;
}

static int grow_map(struct ld *l)
{
	uint32_t oc = l->cap, *ov = l->vals;
	uint64_t *ok = l->keys;

	if (l->f->nnodes * 2 < l->cap)
		return 0;
	l->cap = oc ? oc * 2 : 256;
	l->keys = malloc(l->cap * sizeof(*l->keys));
	l->vals = malloc(l->cap * sizeof(*l->vals));
	if (!l->keys || !l->vals) {
		free(l->keys);
		free(l->vals);
		l->keys = ok, l->vals = ov, l->cap = oc;
		return -1;
	}
	memset(l->vals, 0xff, l->cap * sizeof(*l->vals));
	for (uint32_t i = 0; i < oc; i++)
		if (ov[i] != VT_NONE) {
			uint32_t *s = slot(l, ok[i]);

			l->keys[s - l->vals] = ok[i];
			*s = ov[i];
		}
	free(ok);
	free(ov);
	return 0;
}

/* What a record says about one node. */
struct rec {
	enum vt_node_type type;
	unsigned nports;
	uint64_t sysguid, guid, portguid;
	const char *desc;
	size_t dlen;
	unsigned long lid; /* ULONG_MAX when not given */
};

/* The node of r, made on first sight; later sightings must agree on type and ports. */
static int node_of(struct ld *l, const struct rec *r, uint32_t *out)
{
	uint32_t n = find(l, r->guid), *s;
	char id[24], *desc;
	const char *tn = r->type == VT_SWITCH ? "S" : r->type == VT_CA ? "H" : "R";

	if (n != VT_NONE) {
		if (l->f->nodes[n].type != r->type || l->f->nodes[n].nports != r->nports)
			return fail(
				l,
				"%s: listed with %u ports as a %s at line %u, now %u ports as a %s",
				nm(l, n, 0), l->f->nodes[n].nports,
				l->f->nodes[n].type == VT_SWITCH ? "switch" : "CA",
				l->f->nodes[n].line, r->nports,
				r->type == VT_SWITCH ? "switch" : "CA");
		*out = n;
		return 0;
	}
	if (r->nports < 1 || r->nports > VT_MAX_PORTS)
		return fail(l, "\"%.*s\" (0x%016llx): port count %u out of range 1..%u",
			    (int)(r->dlen < 64 ? r->dlen : 64), r->desc,
			    (unsigned long long)r->guid, r->nports, VT_MAX_PORTS);
	if (!r->guid)
		return fail(l, "\"%.*s\": node GUID 0", (int)(r->dlen < 64 ? r->dlen : 64),
			    r->desc);
	snprintf(id, sizeof(id), "%s-%016llx", tn, (unsigned long long)r->guid);
	desc = malloc(r->dlen + 1);
	if (!desc || grow_map(l))
		return free(desc), fail(l, "out of memory");
	memcpy(desc, r->desc, r->dlen);
	desc[r->dlen] = 0;
	if (vt_fabric_add_node(l->f, r->type, r->nports, r->guid, id, r->dlen ? desc : id, &n,
			       l->e)) {
		free(desc);
		return fail(l, "%s", l->e->msg);
	}
	free(desc);
	l->f->nodes[n].line = l->line;
	l->f->nodes[n].sysguid = r->sysguid ? r->sysguid : r->guid;
	s = slot(l, r->guid);
	l->keys[s - l->vals] = r->guid;
	*s = n;
	if (l->f->nports > l->pcap) {
		uint32_t c = l->pcap ? l->pcap : 1024, *p;

		while (c < l->f->nports)
			c *= 2;
		p = realloc(l->pline, c * sizeof(*p));
		if (!p)
			return fail(l, "out of memory");
		memset(p + l->pcap, 0, (c - l->pcap) * sizeof(*p));
		l->pline = p;
		l->pcap = c;
	}
	*out = n;
	return 0;
}

/* Port p of node n: its GUID and LID (switches: port 0's LID) from r. */
static int port_facts(struct ld *l, uint32_t n, unsigned p, const struct rec *r)
{
	struct vt_port *pt;

	if (p < 1 || p > l->f->nodes[n].nports)
		return fail(l, "%s: port %u out of range 1..%u", nm(l, n, 0), p,
			    l->f->nodes[n].nports);
	pt = l->f->nodes[n].type == VT_SWITCH ? vt_port(l->f, n, 0) : vt_port(l->f, n, p);
	if (r->lid != (unsigned long)-1) {
		if (r->lid > VT_MAX_UC_LID)
			return fail(l, "%s port %u: LID %lu out of range 0..%u", nm(l, n, 0), p,
				    r->lid, VT_MAX_UC_LID);
		pt->lid = (uint16_t)r->lid;
	}
	if (l->f->nodes[n].type != VT_SWITCH && r->portguid)
		pt->guid = r->portguid;
	return 0;
}

/* A link's rate for messages, "4x EDR"; "??" and "???" for the parts left unnamed. */
static const char *rate_name(char *buf, size_t n, unsigned w, enum vt_speed s)
{
	char wb[12] = "??";

	if (w)
		snprintf(wb, sizeof(wb), "%ux", w);
	snprintf(buf, n, "%s %s", wb, s == VT_SPEED_UNKNOWN ? "???" : vt_speed_name(s));
	return buf;
}

/*
 * The one rate of a link that two lines (lst: its two ends' lines) or two
 * ends (db_csv: their PORTS rows) give as *w, *s and w2, s2, 0 for a part
 * one leaves unnamed: each part as either names it. FDR10 and QDR agree on
 * FDR10, QDR being what a port says of an FDR10 link without Mellanox's
 * extended PortInfo. -1, *w and *s kept, when they name different rates: a
 * link runs at one (a dump taken while it retrained, or corrupted).
 */
static int one_rate(unsigned *w, enum vt_speed *s, unsigned w2, enum vt_speed s2)
{
	int fdr10 = (*s == VT_QDR && s2 == VT_FDR10) || (*s == VT_FDR10 && s2 == VT_QDR);

	if ((*w && w2 && *w != w2) ||
	    (*s != VT_SPEED_UNKNOWN && s2 != VT_SPEED_UNKNOWN && *s != s2 && !fdr10))
		return -1;
	*w = *w ? *w : w2;
	*s = fdr10 ? VT_FDR10 : *s != VT_SPEED_UNKNOWN ? *s : s2;
	return 0;
}

/* x - y listed again at w, s: what the first line did not name is this one's. */
static int link_again(struct ld *l, uint32_t x, uint32_t y, unsigned w, enum vt_speed s)
{
	vt_fabric *f = l->f;
	unsigned w1 = f->ports[x].width;
	enum vt_speed s1 = (enum vt_speed)f->ports[x].speed;
	char r1[24], r2[24];

	if (one_rate(&w1, &s1, w, s))
		return fail(
			l,
			"%s port %u links to %s port %u at %s, but line %u lists that link at %s",
			nm(l, f->ports[x].node, 0), f->ports[x].num, nm(l, f->ports[y].node, 1),
			f->ports[y].num, rate_name(r2, sizeof(r2), w, s), l->pline[x],
			rate_name(r1, sizeof(r1), f->ports[x].width,
				  (enum vt_speed)f->ports[x].speed));
	f->ports[x].width = f->ports[y].width = (uint8_t)w1;
	f->ports[x].speed = f->ports[y].speed = (uint8_t)s1;
	return 0;
}

/*
 * Links a/pa with b/pb at width w and speed s, 0 for what the line does not
 * name; a link listed again from its other end must agree, in its rate too,
 * and names what the first line did not (load_with() puts 4x SDR where
 * neither did).
 */
static int link_ports(struct ld *l, uint32_t a, unsigned pa, uint32_t b, unsigned pb, unsigned w,
		      enum vt_speed s)
{
	vt_fabric *f = l->f;
	uint32_t x = vt_port_index(f, a, pa), y = vt_port_index(f, b, pb);

	if (x == y)
		return fail(l, "%s port %u is linked to itself", nm(l, a, 0), pa);
	if (f->ports[x].peer == y)
		return link_again(l, x, y, w, s);
	if (f->ports[x].peer != VT_NONE || f->ports[y].peer != VT_NONE) {
		uint32_t busy = f->ports[x].peer != VT_NONE ? x : y;
		const struct vt_port *q = &f->ports[f->ports[busy].peer];

		return fail(l, "%s port %u links to %s port %u, but line %u links %s port %u to %s",
			    nm(l, a, 0), pa, nm(l, b, 1), pb, l->pline[busy],
			    vt_node_name(f, f->ports[busy].node, l->nm[busy == x ? 0 : 1],
					 VT_NODE_NAME_MAX),
			    f->ports[busy].num,
			    vt_node_name(f, q->node, l->nm[busy == x ? 1 : 0], VT_NODE_NAME_MAX));
	}
	if (vt_fabric_connect(f, a, pa, b, pb, w, s, l->e))
		return fail(l, "%s", l->e->msg);
	l->pline[x] = l->pline[y] = l->line;
	return 0;
}

/* ---- lexing on [s, e) */

static const char *ws(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

static int starts(const char *s, const char *e, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(e - s) >= n && !memcmp(s, w, n);
}

/* Digits in base 16 (hex) or as C writes them (0x.. hex, else decimal). */
static const char *num(const char *s, const char *e, int hex, uint64_t *v)
{
	const char *st;
	uint64_t x = 0;

	if (!hex && e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2, hex = 1;
	for (st = s; s < e; s++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (hex && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (hex && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			break;
		if (x > (UINT64_MAX - d) / (hex ? 16 : 10))
			return NULL;
		x = x * (hex ? 16 : 10) + d;
	}
	if (s == st)
		return NULL;
	*v = x;
	return s;
}

/* "KEY:HEX" at s (blanks first); the end, or NULL. */
static const char *field(const char *s, const char *e, const char *key, uint64_t *v)
{
	s = ws(s, e);
	if (!starts(s, e, key))
		return NULL;
	return num(s + strlen(key), e, 1, v);
}

/* ---- ibdiagnet2.lst, opensm-subnet.lst */

/* "{ SW Ports:24 SystemGUID:.. NodeGUID:.. PortGUID:.. VenID:.. DevID:.. Rev:.. {DESC} LID:.. PN:..
 * }" */
static const char *lst_node(struct ld *l, const char *s, const char *e, struct rec *r, unsigned *pn)
{
	static const char *const keys[] = {
		"Ports:", "SystemGUID:", "NodeGUID:", "PortGUID:", "VenID:", "DevID:", "Rev:"};
	uint64_t v[7], lid, p;
	const char *d, *q;

	s = ws(s, e);
	if (s >= e || *s != '{')
		return NULL;
	s = ws(s + 1, e);
	if (starts(s, e, "SW"))
		r->type = VT_SWITCH;
	else if (starts(s, e, "CA"))
		r->type = VT_CA;
	else if (starts(s, e, "Rt") || starts(s, e, "RT"))
		r->type = VT_ROUTER;
	else
		return NULL;
	s += 2;
	if (starts(s, e, "-SM"))
		s += 3;
	for (unsigned i = 0; i < 7; i++)
		if (!(s = field(s, e, keys[i], &v[i])))
			return NULL;
	s = ws(s, e);
	if (s >= e || *s != '{')
		return NULL;
	/* the description runs to "} LID:": braces inside it are kept */
	for (d = s + 1, q = d; q < e && !starts(q, e, "} LID:"); q++)
		;
	if (q >= e || !(s = field(q + 1, e, "LID:", &lid)) || !(s = field(s, e, "PN:", &p)))
		return NULL;
	s = ws(s, e);
	if (s >= e || *s != '}')
		return NULL;
	r->nports = v[0] > 1000 ? 1000 : (unsigned)v[0];
	r->sysguid = v[1];
	r->guid = v[2];
	r->portguid = v[3];
	r->desc = d;
	r->dlen = (size_t)(q - d);
	r->lid = lid > 0xffff ? 0xffff : (unsigned long)lid;
	*pn = p > 1000 ? 1000 : (unsigned)p;
	return s + 1;
}

/* "PHY=4x LOG=ACT SPD=10": width and speed of the link. */
static int lst_rate(const char *s, const char *e, unsigned *w, enum vt_speed *sp)
{
	static const struct {
		const char *t;
		enum vt_speed s;
	} spd[] = {{"2.5", VT_SDR}, {"5", VT_DDR},   {"10", VT_QDR},  {"FDR10", VT_FDR10},
		   {"14", VT_FDR},  {"25", VT_EDR},  {"50", VT_HDR},  {"100", VT_NDR},
		   {"200", VT_XDR}, {"SDR", VT_SDR}, {"DDR", VT_DDR}, {"QDR", VT_QDR},
		   {"FDR", VT_FDR}, {"EDR", VT_EDR}, {"HDR", VT_HDR}, {"NDR", VT_NDR},
		   {"XDR", VT_XDR}};
	const char *p;
	uint64_t v;

	*w = 0;
	*sp = VT_SPEED_UNKNOWN;
	for (p = s; p + 4 <= e; p++) {
		const char *t = p + 4, *te = t;

		while (te < e && *te != ' ' && *te != '\t')
			te++;
		if (starts(p, e, "PHY=") && num(t, te, 0, &v) && te > t && te[-1] == 'x')
			*w = v == 1 || v == 2 || v == 4 || v == 8 || v == 12 ? (unsigned)v : 0;
		if (starts(p, e, "SPD="))
			for (unsigned i = 0; i < sizeof(spd) / sizeof(spd[0]); i++)
				if ((size_t)(te - t) == strlen(spd[i].t) &&
				    !memcmp(t, spd[i].t, (size_t)(te - t)))
					*sp = spd[i].s;
	}
	return 0;
}

static int lst_line(struct ld *l, const char *s, const char *e)
{
	struct rec a, b;
	unsigned pa, pb, w;
	enum vt_speed sp;
	uint32_t na, nb;
	const char *c;

	if (!(c = lst_node(l, s, e, &a, &pa)))
		return fail(l, "cannot parse the first node (expected \"{ SW|CA Ports:N "
			       "SystemGUID:G NodeGUID:G PortGUID:G VenID:V DevID:D Rev:R {DESC} "
			       "LID:L PN:P }\")");
	if (!(c = lst_node(l, c, e, &b, &pb)))
		return fail(l, "cannot parse the second node");
	lst_rate(c, e, &w, &sp);
	if (node_of(l, &a, &na) || node_of(l, &b, &nb) || port_facts(l, na, pa, &a) ||
	    port_facts(l, nb, pb, &b))
		return -1;
	return link_ports(l, na, pa, nb, pb, w, sp);
}

static int lst_parse(struct ld *l, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
		const char *s = ws(p, e);

		l->line++;
		p = nl ? nl + 1 : end;
		if (e > s && e[-1] == '\r')
			e--;
		if (s == e || *s == '#')
			continue;
		if (memchr(s, 0, (size_t)(e - s)))
			return fail(l, "NUL byte in text");
		if (lst_line(l, s, e))
			return -1;
	}
	return 0;
}

/* ---- ibdiagnet2.db_csv: sections START_X .. END_X, a header row, then CSV rows */

#define MAX_COLS 160

struct row {
	const char *s[MAX_COLS];
	uint32_t n[MAX_COLS];
	unsigned nf;
};

/*
 * Splits one CSV line. A quoted field ends at a quote followed by a comma or
 * the line's end ("" inside it is one quote), so an unescaped quote inside a
 * node description stays part of it.
 */
static void csv_split(const char *s, const char *e, struct row *r)
{
	r->nf = 0;
	while (r->nf < MAX_COLS) {
		const char *st = s, *q;

		if (s < e && *s == '"') {
			for (q = s + 1; q < e && !(*q == '"' && (q + 1 == e || q[1] == ','));)
				q++;
			r->s[r->nf] = s + 1;
			r->n[r->nf++] = (uint32_t)(q - s - 1);
			s = q < e ? q + 1 : e;
		} else {
			while (s < e && *s != ',')
				s++;
			r->s[r->nf] = st;
			r->n[r->nf++] = (uint32_t)(s - st);
		}
		if (s >= e || *s != ',')
			break;
		s++;
	}
}

/* Index of the column named name in the header row, or -1. */
static int col(const struct row *h, const char *name)
{
	for (unsigned i = 0; i < h->nf; i++)
		if (strlen(name) == h->n[i] && !memcmp(h->s[i], name, h->n[i]))
			return (int)i;
	return -1;
}

/* The number in column c ("N/A" and absent columns read as 0); -1 when malformed. */
static int cnum(const struct row *r, int c, uint64_t *v)
{
	const char *s, *e;

	*v = 0;
	if (c < 0 || (unsigned)c >= r->nf)
		return 0;
	s = r->s[c];
	e = s + r->n[c];
	s = ws(s, e);
	if (s == e || (e - s == 3 && !memcmp(s, "N/A", 3)))
		return 0;
	s = num(s, e, 0, v);
	return s && ws(s, e) == e ? 0 : -1;
}

struct csv {
	struct ld *l;
	const char *buf, *end;
	uint8_t *pw, *psp; /* per port: width, speed from PORTS */
};

/*
 * Calls fn for each row of section sec (header in h); returns -1 on failure,
 * 1 when the file has no such section.
 */
static int each_row(struct csv *c, const char *sec, struct row *h,
		    int (*fn)(struct csv *, const struct row *, const struct row *))
{
	const char *p = c->buf;
	int in = 0, have_h = 0;
	size_t sl = strlen(sec);
	struct row r;

	c->l->line = 0;
	while (p < c->end) {
		const char *nl = memchr(p, '\n', (size_t)(c->end - p)), *e = nl ? nl : c->end;
		const char *s = ws(p, e);

		c->l->line++;
		p = nl ? nl + 1 : c->end;
		if (e > s && e[-1] == '\r')
			e--;
		if (!in) {
			in = starts(s, e, "START_") && (size_t)(e - s) == 6 + sl &&
			     !memcmp(s + 6, sec, sl);
			continue;
		}
		if (starts(s, e, "END_"))
			return have_h ? 0 : fail(c->l, "%s section without a header row", sec);
		if (s == e || *s == '#')
			continue;
		if (memchr(s, 0, (size_t)(e - s)))
			return fail(c->l, "NUL byte in text");
		if (!have_h) {
			csv_split(s, e, h);
			have_h = 1;
			continue;
		}
		csv_split(s, e, &r);
		if (fn(c, h, &r))
			return -1;
	}
	if (in)
		return fail(c->l, "%s section not closed by END_%s", sec, sec);
	return 1;
}

static int need(struct ld *l, const struct row *h, const char *sec, const char *const *names,
		int *cols, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if ((cols[i] = col(h, names[i])) < 0)
			return fail(l, "%s section has no %s column", sec, names[i]);
	return 0;
}

static int csv_node(struct csv *c, const struct row *h, const struct row *r)
{
	static const char *const names[] = {"NodeDesc",	       "NumPorts", "NodeType",
					    "SystemImageGUID", "NodeGUID", "PortGUID"};
	int k[6];
	uint64_t v[6];
	struct rec x;
	uint32_t n;

	if (need(c->l, h, "NODES", names, k, 6))
		return -1;
	for (unsigned i = 1; i < 6; i++)
		if (cnum(r, k[i], &v[i]))
			return fail(c->l, "NODES: bad %s", names[i]);
	if (v[2] < 1 || v[2] > 3)
		return fail(c->l, "NODES: node type %llu is not 1 (CA), 2 (switch) or 3 (router)",
			    (unsigned long long)v[2]);
	x.type = v[2] == 2 ? VT_SWITCH : v[2] == 1 ? VT_CA : VT_ROUTER;
	x.nports = v[1] > 1000 ? 1000 : (unsigned)v[1];
	x.sysguid = v[3];
	x.guid = v[4];
	x.portguid = 0; /* each port's comes from PORTS */
	x.desc = (unsigned)k[0] < r->nf ? r->s[k[0]] : "";
	x.dlen = (unsigned)k[0] < r->nf ? r->n[k[0]] : 0;
	x.lid = (unsigned long)-1;
	if (find(c->l, x.guid) != VT_NONE)
		return fail(c->l, "%s listed twice in NODES", nm(c->l, find(c->l, x.guid), 0));
	return node_of(c->l, &x, &n);
}

static int csv_port(struct csv *c, const struct row *h, const struct row *r)
{
	static const char *const names[] = {"NodeGuid", "PortGuid", "PortNum", "LID"};
	int k[4], kw = col(h, "LinkWidthActv"), ks = col(h, "LinkSpeedActv");
	int kx = col(h, "LinkSpeedExtActv");
	uint64_t v[4], w, sa, sx;
	struct rec x = {0};
	uint32_t n, pi;

	if (need(c->l, h, "PORTS", names, k, 4))
		return -1;
	for (unsigned i = 0; i < 4; i++)
		if (cnum(r, k[i], &v[i]))
			return fail(c->l, "PORTS: bad %s", names[i]);
	if (cnum(r, kw, &w) || cnum(r, ks, &sa) || cnum(r, kx, &sx))
		return fail(c->l, "PORTS: bad link width or speed");
	n = find(c->l, v[0]);
	if (n == VT_NONE)
		return fail(c->l, "PORTS: node GUID 0x%016llx is not in NODES",
			    (unsigned long long)v[0]);
	if (v[2] > c->l->f->nodes[n].nports)
		return fail(c->l, "%s: port %llu out of range 0..%u", nm(c->l, n, 0),
			    (unsigned long long)v[2], c->l->f->nodes[n].nports);
	/* a switch's LID is port 0's; its other ports repeat it or say 0 */
	if (c->l->f->nodes[n].type == VT_SWITCH && v[2])
		v[3] = (uint64_t)-1;
	x.lid = v[3] == (uint64_t)-1 ? (unsigned long)-1 : (unsigned long)v[3];
	x.portguid = v[1];
	if (v[2] && port_facts(c->l, n, (unsigned)v[2], &x))
		return -1;
	if (!v[2] && x.lid != (unsigned long)-1)
		vt_port(c->l->f, n, 0)->lid = (uint16_t)(x.lid > VT_MAX_UC_LID ? 0 : x.lid);
	pi = vt_port_index(c->l->f, n, (unsigned)v[2]);
	c->pw[pi] = (uint8_t)vt_width_from_ib((unsigned)w);
	c->psp[pi] = (uint8_t)vt_speed_from_ib((unsigned)sa, (unsigned)sx, 0);
	return 0;
}

static int csv_link(struct csv *c, const struct row *h, const struct row *r)
{
	static const char *const names[] = {"NodeGuid1", "PortNum1", "NodeGuid2", "PortNum2"};
	int k[4];
	uint64_t v[4];
	uint32_t a, b, pa, pb;
	unsigned w;
	enum vt_speed s;
	char ra[24], rb[24];

	if (need(c->l, h, "LINKS", names, k, 4))
		return -1;
	for (unsigned i = 0; i < 4; i++)
		if (cnum(r, k[i], &v[i]))
			return fail(c->l, "LINKS: bad %s", names[i]);
	a = find(c->l, v[0]);
	b = find(c->l, v[2]);
	if (a == VT_NONE || b == VT_NONE)
		return fail(c->l, "LINKS: node GUID 0x%016llx is not in NODES",
			    (unsigned long long)(a == VT_NONE ? v[0] : v[2]));
	if (!v[1] || v[1] > c->l->f->nodes[a].nports)
		return fail(c->l, "%s: port %llu out of range 1..%u", nm(c->l, a, 0),
			    (unsigned long long)v[1], c->l->f->nodes[a].nports);
	if (!v[3] || v[3] > c->l->f->nodes[b].nports)
		return fail(c->l, "%s: port %llu out of range 1..%u", nm(c->l, b, 0),
			    (unsigned long long)v[3], c->l->f->nodes[b].nports);
	/* what one end's PORTS row cannot name (0, N/A) the other's may */
	pa = vt_port_index(c->l->f, a, (unsigned)v[1]);
	pb = vt_port_index(c->l->f, b, (unsigned)v[3]);
	w = c->pw[pa];
	s = (enum vt_speed)c->psp[pa];
	if (one_rate(&w, &s, c->pw[pb], (enum vt_speed)c->psp[pb]))
		return fail(c->l, "%s port %u at %s links to %s port %u at %s (their PORTS rows)",
			    nm(c->l, a, 0), (unsigned)v[1], rate_name(ra, sizeof(ra), w, s),
			    nm(c->l, b, 1), (unsigned)v[3],
			    rate_name(rb, sizeof(rb), c->pw[pb], (enum vt_speed)c->psp[pb]));
	return link_ports(c->l, a, (unsigned)v[1], b, (unsigned)v[3], w, s);
}

static int csv_parse(struct ld *l, const char *buf, size_t len)
{
	struct csv c = {.l = l, .buf = buf, .end = buf + len};
	struct row h;
	int rc;

	rc = each_row(&c, "NODES", &h, csv_node);
	if (rc)
		return rc < 0 ? -1 : (l->line = 0, fail(l, "no NODES section"));
	c.pw = calloc(l->f->nports + 1, 1);
	c.psp = calloc(l->f->nports + 1, 1);
	rc = !c.pw || !c.psp ? fail(l, "out of memory") : each_row(&c, "PORTS", &h, csv_port);
	if (rc > 0)
		rc = (l->line = 0, fail(l, "no PORTS section"));
	if (!rc && (rc = each_row(&c, "LINKS", &h, csv_link)) > 0)
		rc = (l->line = 0, fail(l, "no LINKS section"));
	free(c.pw);
	free(c.psp);
	return rc;
}

/* ---- entry points */

static int load_with(int (*parse)(struct ld *, const char *, size_t), const char *buf, size_t len,
		     const char *name, vt_fabric **out, vt_err *e)
{
	struct ld l = {.name = name ? name : "(text)", .e = e};
	int rc = -1;

	*out = NULL;
	if (len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3))
		buf += 3, len -= 3;
	l.f = vt_fabric_new(l.name);
	if (!l.f)
		return vt_err_nomem(e, "%s: out of memory", l.name);
	if (parse(&l, buf, len))
		goto out;
	if (!l.f->nnodes) {
		vt_err_at(e, l.name, 0, "no links listed");
		goto out;
	}
	/* ports nothing links carry no GUID, as in ibnetdiscover's dumps; a rate
	 * neither end named is 4x SDR, as the text loader has it */
	for (uint32_t i = 0; i < l.f->nports; i++) {
		struct vt_port *pt = &l.f->ports[i];

		if (pt->peer == VT_NONE && l.f->nodes[pt->node].type != VT_SWITCH)
			pt->guid = 0;
		if (pt->peer != VT_NONE && !pt->width)
			pt->width = 4;
		if (pt->peer != VT_NONE && pt->speed == VT_SPEED_UNKNOWN)
			pt->speed = VT_SDR;
	}
	if (vt_fabric_finish(l.f, 0, e))
		goto out;
	l.f->link_line = l.pline; /* for later messages; at least nports entries */
	l.pline = NULL;
	*out = l.f;
	l.f = NULL;
	rc = 0;
out:
	vt_fabric_free(l.f);
	free(l.keys);
	free(l.vals);
	free(l.pline);
	return rc;
}

int vt_load_lst_mem(const char *buf, size_t len, const char *name, vt_fabric **out, vt_err *e)
{
	return load_with(lst_parse, buf, len, name, out, e);
}

int vt_load_csv_mem(const char *buf, size_t len, const char *name, vt_fabric **out, vt_err *e)
{
	return load_with(csv_parse, buf, len, name, out, e);
}
