/* SPDX-License-Identifier: MIT */
/*
 * The text loader: ibnetdiscover output and ibsim net files (rules in
 * vt_load.h). One pass over the lines builds the nodes and records every port
 * line; a second pass resolves the remote ids and links the ports, so a link
 * may be listed from either end or both. Everything is linear in the input.
 */
#include "vt_load.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vt_hash.h"
#include "vt_io.h"

/* ibsim's LinkWidthEnabled bits */
#define W_1X  1u
#define W_4X  2u
#define W_8X  4u
#define W_12X 8u
#define W_2X  16u

#define SBIT(s)	  (1u << (s))
#define S_LEGACY  (SBIT(VT_SDR) | SBIT(VT_DDR) | SBIT(VT_QDR))
#define S_EXT	  (SBIT(VT_FDR) | SBIT(VT_EDR) | SBIT(VT_HDR) | SBIT(VT_NDR))
#define MAX_GUIDT 4 /* node types indexed as ibsim does: CA 1, switch 2, router 3 */

/* One port line: node's port `port` leads to the node named rid, port rport. */
struct entry {
	uint32_t node;
	uint32_t rnode; /* resolved in the second pass */
	size_t rid_off;
	uint32_t rid_len;
	unsigned line;
	uint8_t port, rport;
};

struct parser {
	const char *name;
	const char *buf, *end, *next;
	unsigned line;
	vt_fabric *f;
	vt_err *e;
	/* ibsim's GUID counters and per-record settings */
	uint64_t guid_abs[MAX_GUIDT], guid_next[MAX_GUIDT];
	uint64_t sysguid;
	uint8_t def_w;
	uint16_t def_s;
	uint32_t cur; /* node of the record being read, VT_NONE outside records */
	/* per port of f->ports: enabled widths/speeds, the entry listing it */
	uint8_t *pw;
	uint16_t *ps;
	uint32_t *pent;
	uint32_t pcap;
	struct entry *ent;
	uint32_t nent, cap_ent;
	vt_hidx ids; /* node index by id, grown as nodes come */
	char *tmp;
	size_t tmp_cap;
	int ibdiag;		      /* the file carries ibdiagnet's header */
	uint64_t paren[MAX_GUIDT];    /* B of the last "switchguid=A(B)", 0 when none */
	char nm[3][VT_NODE_NAME_MAX]; /* node names for messages */
};

/* A node as messages name it: `"DESC" (0xGUID)`; slot 0..2, for several in one message. */
static const char *nm(struct parser *ps, uint32_t node, int slot)
{
	return vt_node_name(ps->f, node, ps->nm[slot], sizeof(ps->nm[slot]));
}

static int fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vt_err_vat(ps->e, ps->name, ps->line, fmt, ap);
	va_end(ap);
	return -1;
}

static int is_ws(char c)
{
	return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static const char *skip_ws(const char *s, const char *e)
{
	while (s < e && is_ws(*s))
		s++;
	return s;
}

/* NUL-terminated copy of [s, s+n) in the scratch buffer. */
static char *scratch(struct parser *ps, const char *s, size_t n)
{
	if (n + 1 > ps->tmp_cap) {
		size_t c = ps->tmp_cap ? ps->tmp_cap : 256;
		char *t;

		while (c < n + 1)
			c *= 2;
		t = realloc(ps->tmp, c);
		if (!t)
			return NULL;
		ps->tmp = t;
		ps->tmp_cap = c;
	}
	memcpy(ps->tmp, s, n);
	ps->tmp[n] = 0;
	return ps->tmp;
}

/* ---- the id table */

/* The slot of id [s, s+n): the node's index, or the free slot to put it in. */
static uint32_t *id_slot(struct parser *ps, const char *s, size_t n)
{
	vt_hidx *h = &ps->ids;
	uint32_t i = vt_hidx_start(h, vt_hash_bytes(s, n));

	for (; h->slot[i] != VT_HASH_EMPTY; i = vt_hidx_next(h, i)) {
		const char *id = ps->f->nodes[h->slot[i]].id;

		if (!strncmp(id, s, n) && !id[n])
			break;
	}
	return &h->slot[i];
}

/* Doubles the table (1024 slots at first) before it is half full. */
static int id_grow(struct parser *ps)
{
	vt_hidx old = ps->ids;

	if (ps->f->nnodes * 2 < old.cap)
		return 0;
	if (vt_hidx_init(&ps->ids, old.cap ? old.cap : 512)) {
		ps->ids = old;
		return -1;
	}
	for (uint32_t i = 0; i < old.cap; i++)
		if (old.slot[i] != VT_HASH_EMPTY) {
			const char *id = ps->f->nodes[old.slot[i]].id;

			*id_slot(ps, id, strlen(id)) = old.slot[i];
		}
	vt_hidx_free(&old);
	return 0;
}

/* ---- lexing helpers; each works on [s, e) of one line */

/* A number as strtoull(…, 0) reads it, with overflow detection. */
static const char *parse_num(const char *s, const char *e, uint64_t *v)
{
	unsigned base = 10;
	uint64_t x = 0;
	const char *start;

	if (s + 1 < e && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, s += 2;
	else if (s < e && s[0] == '0')
		base = 8;
	start = s;
	for (; s < e; s++) {
		unsigned d;

		if (is_digit(*s))
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			break;
		if (d >= base)
			break;
		if (x > (UINT64_MAX - d) / base)
			return NULL;
		x = x * base + d;
	}
	if (s == start && base != 8)
		return NULL;
	*v = x;
	return s;
}

static const char *parse_hex(const char *s, const char *e, uint64_t *v)
{
	uint64_t x = 0;
	const char *start = s;

	for (; s < e; s++) {
		unsigned d;

		if (is_digit(*s))
			d = (unsigned)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (*s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			break;
		if (x >> 60)
			return NULL;
		x = x * 16 + d;
	}
	if (s == start)
		return NULL;
	*v = x;
	return s;
}

/* Decimal digits, saturating at 1e6 so huge numbers stay out of range. */
static const char *parse_dec(const char *s, const char *e, unsigned long *v)
{
	unsigned long x = 0;
	const char *start = s;

	for (; s < e && is_digit(*s); s++)
		x = x >= 100000 ? 1000000 : x * 10 + (unsigned long)(*s - '0');
	if (s == start)
		return NULL;
	*v = x;
	return s;
}

/* A quoted string starting at s (which must be '"'): its body and the rest. */
static const char *parse_quoted(const char *s, const char *e, const char **body, size_t *len)
{
	const char *q;

	if (s >= e || *s != '"')
		return NULL;
	q = memchr(s + 1, '"', (size_t)(e - s - 1));
	if (!q)
		return NULL;
	*body = s + 1;
	*len = (size_t)(q - s - 1);
	return q + 1;
}

/* First occurrence of the word w (delimited by blanks or the ends) in [s, e). */
static const char *find_word(const char *s, const char *e, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = s; p + n <= e; p++)
		if (!memcmp(p, w, n) && (p == s || is_ws(p[-1])) && (p + n == e || is_ws(p[n])))
			return p;
	return NULL;
}

/* "lid N" / "lmc M" in [s, e); absent values leave *lid and *lmc alone. */
static int parse_lid_lmc(struct parser *ps, const char *s, const char *e, const char *who,
			 unsigned long *lid, unsigned long *lmc)
{
	const char *w = find_word(s, e, "lid");

	unsigned long v;

	/* the words may also appear in free text: only a number after them counts */
	if (w && parse_dec(skip_ws(w + 3, e), e, &v)) {
		if (v > VT_MAX_UC_LID)
			return fail(ps, "%s: LID %lu out of range 0..%u", who, v, VT_MAX_UC_LID);
		*lid = v;
	}
	w = find_word(s, e, "lmc");
	if (w && parse_dec(skip_ws(w + 3, e), e, &v)) {
		if (v > 7)
			return fail(ps, "%s: LMC %lu out of range 0..7", who, v);
		*lmc = v;
	}
	return 0;
}

/* ---- width and speed, as ibsim enables them */

static unsigned width_of(unsigned w)
{
	return w & W_12X ? 12 : w & W_8X ? 8 : w & W_4X ? 4 : w & W_2X ? 2 : w & W_1X ? 1 : 0;
}

static enum vt_speed speed_of(unsigned s)
{
	for (unsigned i = VT_NDR; i >= VT_SDR; i--)
		if (s & SBIT(i))
			return (enum vt_speed)i;
	return VT_SPEED_UNKNOWN;
}

/* A "4xQDR" token: the enables ibsim derives from it. */
static int parse_rate_token(const char *s, const char *e, uint8_t *w, uint16_t *sp)
{
	unsigned long n;
	const char *p = parse_dec(s, e, &n);
	enum vt_speed v;

	if (!p || p >= e || *p != 'x')
		return 0;
	v = vt_speed_parse(p + 1, (unsigned)(e - p - 1));
	if (v == VT_SPEED_UNKNOWN)
		return 0;
	switch (n) {
	case 1:
		*w = W_1X;
		break;
	case 2:
		*w = W_2X;
		break;
	case 4:
		*w = W_1X | W_4X;
		break;
	case 8:
		*w = W_8X;
		break;
	case 12:
		*w = W_1X | W_4X | W_12X;
		break;
	default:
		return 0;
	}
	/* every speed up to the named one, as the ibsim enables it */
	*sp = (uint16_t)((SBIT(v) << 1) - SBIT(VT_SDR));
	return 1;
}

static uint16_t legacy_bits(unsigned long v)
{
	return (uint16_t)((v & 1 ? SBIT(VT_SDR) : 0) | (v & 2 ? SBIT(VT_DDR) : 0) |
			  (v & 4 ? SBIT(VT_QDR) : 0));
}

static uint16_t ext_bits(unsigned long v)
{
	return (uint16_t)((v & 1 ? SBIT(VT_FDR) : 0) | (v & 2 ? SBIT(VT_EDR) : 0) |
			  (v & 4 ? SBIT(VT_HDR) : 0) | (v & 8 ? SBIT(VT_NDR) : 0));
}

/* ibsim's w=, s=, e= options: any '=' outside quotes, named by the letter before it. */
static int parse_options(struct parser *ps, const char *s, const char *e, const char *who,
			 uint8_t *w, uint16_t *sp)
{
	int quoted = 0;

	for (const char *p = s; p < e; p++) {
		unsigned long v;

		if (*p == '"')
			quoted = !quoted;
		if (quoted || *p != '=' || p == s)
			continue;
		switch (p[-1]) {
		case 'w':
			if (!parse_dec(p + 1, e, &v) || v < 1 || v > 31)
				return fail(ps, "%s: bad width option (expected w=1..31)", who);
			*w = (uint8_t)v;
			break;
		case 's':
			if (!parse_dec(p + 1, e, &v) || v > 7)
				return fail(ps, "%s: bad speed option (expected s=0..7)", who);
			*sp = (uint16_t)((*sp & ~S_LEGACY) | legacy_bits(v ? v : 4));
			break;
		case 'e':
			if (!parse_dec(p + 1, e, &v) || v > 15)
				return fail(ps, "%s: bad extended speed option (expected e=0..15)",
					    who);
			*sp = (uint16_t)((*sp & ~S_EXT) | ext_bits(v));
			break;
		default:
			break;
		}
	}
	return 0;
}

/* ---- records */

static int ensure_ports(struct parser *ps, uint32_t need)
{
	uint32_t c = ps->pcap ? ps->pcap : 1024;
	void *a, *b, *d;

	if (need <= ps->pcap)
		return 0;
	while (c < need)
		c *= 2;
	a = realloc(ps->pw, c * sizeof(*ps->pw));
	if (a)
		ps->pw = a;
	b = realloc(ps->ps, c * sizeof(*ps->ps));
	if (b)
		ps->ps = b;
	d = realloc(ps->pent, c * sizeof(*ps->pent));
	if (d)
		ps->pent = d;
	if (!a || !b || !d)
		return -1;
	ps->pcap = c;
	return 0;
}

/*
 * The description in a header's comment: a quoted string, which runs to the
 * last quote of the line since ibnetdiscover does not escape quotes inside it,
 * or ibsim's unquoted form, which ends where the port 0 words start. *rest is
 * what follows it.
 */
static int header_desc(const char *c, const char *e, const char **desc, size_t *dlen,
		       const char **rest)
{
	c = skip_ws(c, e);
	if (c < e && *c == '"') {
		const char *q = e;

		while (q > c + 1 && q[-1] != '"')
			q--;
		if (q <= c + 1)
			return -1;
		*desc = c + 1;
		*dlen = (size_t)(q - 1 - (c + 1));
		*rest = q;
		return 0;
	}
	{
		const char *stop = e;
		const char *const ends[] = {"enhanced", "base", "lid", "lmc"};

		for (unsigned i = 0; i < 4; i++) {
			const char *w = find_word(c, stop, ends[i]);

			if (w && w > c)
				stop = w - 1;
		}
		*desc = c;
		*dlen = (size_t)(stop - c);
		*rest = stop;
	}
	return 0;
}

/*
 * "switchguid=A(B)": ibnetdiscover writes the node GUID A and port GUID B,
 * ibdiagnet the system image GUID A and node GUID B. The record's id
 * ("S-<guid>") tells which when it holds one; else the file's header does.
 */
static int paren_is_node_guid(const struct parser *ps, unsigned t, const char *id, size_t idlen)
{
	uint64_t g;

	if (idlen > 2 && id[1] == '-' && parse_hex(id + 2, id + idlen, &g) == id + idlen) {
		if (g == ps->paren[t])
			return 1;
		if (g == ps->guid_next[t])
			return 0;
	}
	return ps->ibdiag;
}

static int header(struct parser *ps, enum vt_node_type type, const char *s, const char *e)
{
	const char *id, *desc = NULL, *c, *rest;
	size_t idlen, dlen = 0;
	unsigned long nports, lid = 0, lmc = 0;
	unsigned t = type == VT_CA ? 1 : type == VT_SWITCH ? 2 : 3;
	uint64_t guid = ps->guid_next[t];
	uint32_t idx, *slot;
	struct vt_node *n;
	char *ids, *descs, who[VT_NODE_NAME_MAX + 8];

	s = skip_ws(s, e);
	if (!(c = parse_dec(s, e, &nports)))
		return fail(ps, "node header: bad port count (expected TYPE N \"id\")");
	c = skip_ws(c, e);
	if (c >= e || *c != '"')
		return fail(ps, "node header: missing quoted node id");
	if (!(rest = parse_quoted(c, e, &id, &idlen)))
		return fail(ps, "node header: unterminated quote in node id");
	if (ps->paren[t] && ps->paren[t] != guid && paren_is_node_guid(ps, t, id, idlen)) {
		/* ibdiagnet: "switchguid=SYSIMGGUID(NODEGUID)" */
		if (!ps->sysguid)
			ps->sysguid = guid;
		guid = ps->paren[t];
	}
	ps->paren[t] = 0;
	c = memchr(rest, '#', (size_t)(e - rest));
	if (c && header_desc(c + 1, e, &desc, &dlen, &rest))
		return fail(ps, "node \"%.*s\" (0x%016llx): unterminated quote in description",
			    (int)(idlen < 64 ? idlen : 64), id, (unsigned long long)guid);
	if (!desc || !dlen)
		desc = id, dlen = idlen;
	/* the node as messages name it, before it exists */
	snprintf(who, sizeof(who), "\"%.*s\" (0x%016llx)", (int)(dlen < 64 ? dlen : 64), desc,
		 (unsigned long long)guid);
	if (nports < 1 || nports > VT_MAX_PORTS)
		return fail(ps, "%s: port count %lu out of range 1..%u", who, nports, VT_MAX_PORTS);
	if (id_grow(ps))
		return fail(ps, "out of memory");
	slot = id_slot(ps, id, idlen);
	if (*slot != VT_NONE)
		return fail(ps, "%s: node id \"%.*s\" defined twice (first at line %u, %s)", who,
			    (int)idlen, id, ps->f->nodes[*slot].line, nm(ps, *slot, 0));
	if (c && type == VT_SWITCH && parse_lid_lmc(ps, rest, e, who, &lid, &lmc))
		return -1;
	ids = malloc(idlen + 1);
	descs = scratch(ps, desc, dlen);
	if (!ids || !descs) {
		free(ids);
		return fail(ps, "out of memory");
	}
	memcpy(ids, id, idlen);
	ids[idlen] = 0;
	if (ensure_ports(ps, ps->f->nports + (uint32_t)nports + 1) ||
	    vt_fabric_add_node(ps->f, type, (unsigned)nports, guid, ids, descs, &idx, ps->e)) {
		free(ids);
		return fail(ps, "out of memory");
	}
	free(ids);
	*slot = idx;
	n = &ps->f->nodes[idx];
	n->line = ps->line;
	n->sysguid = ps->sysguid ? ps->sysguid : guid;
	ps->sysguid = 0;
	/* ibsim: a switch takes one GUID, other nodes one per port plus the node's */
	ps->guid_next[t] += type == VT_SWITCH ? 1 : nports + 1;
	for (unsigned p = 0; p <= nports; p++) {
		uint32_t pi = n->first_port + p;

		if (type != VT_SWITCH && p)
			ps->f->ports[pi].guid = guid + p;
		ps->pw[pi] = ps->def_w;
		ps->ps[pi] = ps->def_s;
		ps->pent[pi] = VT_NONE;
	}
	ps->f->ports[n->first_port].lid = (uint16_t)lid;
	ps->f->ports[n->first_port].lmc = (uint8_t)lmc;
	ps->cur = idx;
	return 0;
}

/*
 * "[n]" followed by an optional "[ext n]" and "(guid)". ibdiagnet writes the
 * port's label in the parentheses ("[1](1)", "[5](1/5)"): one equal to the
 * port number or not a hex number is no GUID, and *guid is left alone.
 */
static const char *port_ref(const char *s, const char *e, unsigned long *num, uint64_t *guid,
			    int *bad)
{
	const char *c, *digits = s + 1;

	*bad = 0;
	if (s >= e || *s != '[')
		return NULL;
	c = parse_dec(s + 1, e, num);
	if (!c || c >= e || *c != ']') {
		*bad = s + 1 < e; /* else the line just ends: truncated */
		return NULL;
	}
	s = c + 1;
	c = skip_ws(s, e);
	if (e - c >= 5 && !memcmp(c, "[ext", 4)) {
		const char *q = memchr(c, ']', (size_t)(e - c));

		if (!q)
			return NULL;
		s = q + 1;
		c = skip_ws(s, e);
	}
	if (c < e && *c == '(') {
		const char *close = memchr(c, ')', (size_t)(e - c)), *q;
		size_t nd = strspn(digits, "0123456789");
		uint64_t g;

		if (!close)
			return NULL;
		q = parse_hex(c + 1, close, &g);
		if (q == close && !((size_t)(close - c - 1) == nd && !memcmp(c + 1, digits, nd)))
			*guid = g;
		else if (!q && c + 1 < close && is_digit(c[1]) &&
			 !memchr(c, '/', (size_t)(close - c)))
			return NULL; /* a number too long for a GUID */
		s = close + 1;
	}
	return s;
}

static int port_line(struct parser *ps, const char *s, const char *e)
{
	struct vt_node *n = &ps->f->nodes[ps->cur];
	const char *id = nm(ps, ps->cur, 0), *c, *rid, *cm;
	unsigned long p, rp = 1, lid = 0, lmc = 0;
	uint64_t guid = 0, rguid = 0;
	size_t rlen;
	uint32_t pi;
	char who[VT_NODE_NAME_MAX + 16];
	int bad;
	struct entry *en;

	c = port_ref(s, e, &p, &guid, &bad);
	if (!c && bad) {
		const char *t = s + 1;

		while (t < e && *t != ']' && !is_ws(*t) && t - s < 21)
			t++;
		return fail(ps, "%s: bad port number \"%.*s\"", id, (int)(t - s - 1), s + 1);
	}
	if (!c)
		return fail(ps, "%s: truncated port line", id);
	if (p < 1 || p > n->nports)
		return fail(ps, "%s: port %lu out of range 1..%u", id, p, n->nports);
	snprintf(who, sizeof(who), "%s port %lu", id, p);
	pi = n->first_port + (uint32_t)p;
	if (ps->pent[pi] != VT_NONE)
		return fail(ps, "%s listed twice (first at line %u)", who,
			    ps->ent[ps->pent[pi]].line);
	c = skip_ws(c, e);
	if (c >= e)
		return fail(ps, "%s: truncated port line (no remote node)", who);
	if (*c != '"')
		return fail(ps, "%s: expected a quoted remote node id", who);
	if (!(c = parse_quoted(c, e, &rid, &rlen)))
		return fail(ps, "%s: unterminated quote in remote node id", who);
	if (c < e && *c == '[') {
		const char *d = port_ref(c, e, &rp, &rguid, &bad);

		if (!d && bad)
			return fail(ps, "%s: bad remote port number", who);
		if (!d)
			return fail(ps, "%s: truncated port line (remote port)", who);
		if (rp < 1 || rp > VT_MAX_PORTS)
			return fail(ps, "%s: remote port %lu out of range 1..%u", who, rp,
				    VT_MAX_PORTS);
		c = d;
	}
	c = skip_ws(c, e);
	if (c < e && *c == '(') { /* the remote port GUID after a blank, as CA lines print it */
		const char *d = parse_hex(c + 1, e, &rguid);

		if (!d || d >= e || *d != ')')
			return fail(ps, "%s: truncated port line (remote port GUID)", who);
		c = d + 1;
	}
	if (parse_options(ps, c, e, who, &ps->pw[pi], &ps->ps[pi]))
		return -1;
	cm = memchr(c, '#', (size_t)(e - c));
	if (cm) {
		const char *q = memchr(cm, '"', (size_t)(e - cm)), *last = cm, *t;

		if (n->type != VT_SWITCH && parse_lid_lmc(ps, cm + 1, q ? q : e, who, &lid, &lmc))
			return -1;
		/* the rate token follows the remote description */
		for (const char *x = cm; x < e; x++)
			if (*x == '"')
				last = x + 1;
		for (t = last; t < e;) {
			const char *w;

			t = skip_ws(t, e);
			for (w = t; w < e && !is_ws(*w);)
				w++;
			if (w > t && parse_rate_token(t, w, &ps->pw[pi], &ps->ps[pi]))
				break;
			t = w;
		}
	}
	if (n->type != VT_SWITCH) {
		if (guid)
			ps->f->ports[pi].guid = guid;
		ps->f->ports[pi].lid = (uint16_t)lid;
		ps->f->ports[pi].lmc = (uint8_t)lmc;
	}
	if (ps->nent == ps->cap_ent) {
		uint32_t cap = ps->cap_ent ? ps->cap_ent * 2 : 1024;
		struct entry *ne = realloc(ps->ent, cap * sizeof(*ne));

		if (!ne)
			return fail(ps, "out of memory");
		ps->ent = ne;
		ps->cap_ent = cap;
	}
	en = &ps->ent[ps->nent];
	en->node = ps->cur;
	en->rnode = VT_NONE;
	en->rid_off = (size_t)(rid - ps->buf);
	en->rid_len = (uint32_t)rlen;
	en->line = ps->line;
	en->port = (uint8_t)p;
	en->rport = (uint8_t)rp;
	ps->pent[pi] = ps->nent++;
	return 0;
}

/* "switchguid=0x..", "caguid+0x..": ibsim's GUID base, absolute or relative. */
static int guid_base(struct parser *ps, unsigned t, const char *s, const char *e)
{
	uint64_t v;
	const char *c = skip_ws(s, e);

	if (c >= e || (*c != '=' && *c != '+'))
		return fail(ps, "GUID assignment: missing '=' or '+'");
	if (!(s = parse_num(skip_ws(c + 1, e), e, &v)))
		return fail(ps, "GUID assignment: bad number");
	ps->paren[t] = 0;
	if (*c == '=' && s < e && *s == '(') {
		uint64_t b;
		const char *q = parse_hex(s + 1, e, &b);

		if (!q || q >= e || *q != ')')
			return fail(ps, "GUID assignment: bad number in parentheses");
		ps->paren[t] = b;
	}
	if (*c == '=') {
		ps->guid_abs[t] = v;
		ps->guid_next[t] = v;
	} else {
		ps->guid_next[t] = ps->guid_abs[t] + v;
	}
	return 0;
}

static int assignment(struct parser *ps, const char *s, const char *e, const char *what,
		      uint64_t *v)
{
	const char *c = memchr(s, '=', (size_t)(e - s));

	if (!c || !parse_num(skip_ws(c + 1, e), e, v))
		return fail(ps, "%s: expected '=' and a number", what);
	return 0;
}

static int starts(const char *s, const char *e, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(e - s) >= n && !memcmp(s, w, n);
}

/* A record keyword: the word, then a blank or the port count. */
static int keyword(const char *s, const char *e, const char *w)
{
	size_t n = strlen(w);

	return starts(s, e, w) && (size_t)(e - s) > n && (is_ws(s[n]) || is_digit(s[n]));
}

static int top_line(struct parser *ps, const char *s, const char *e)
{
	uint64_t v;

	if (keyword(s, e, "Switch"))
		return header(ps, VT_SWITCH, s + 6, e);
	if (keyword(s, e, "Hca"))
		return header(ps, VT_CA, s + 3, e);
	if (keyword(s, e, "Ca"))
		return header(ps, VT_CA, s + 2, e);
	if (keyword(s, e, "Rt"))
		return header(ps, VT_ROUTER, s + 2, e);
	if (starts(s, e, "switchguid"))
		return guid_base(ps, 2, s + 10, e);
	if (starts(s, e, "hcaguids"))
		return guid_base(ps, 1, s + 8, e);
	if (starts(s, e, "caguid"))
		return guid_base(ps, 1, s + 6, e);
	if (starts(s, e, "rtguid"))
		return guid_base(ps, 3, s + 6, e);
	if (starts(s, e, "sysimgguid"))
		return assignment(ps, s, e, "sysimgguid", &ps->sysguid);
	if (starts(s, e, "extspeed")) {
		if (assignment(ps, s, e, "extspeed", &v) || v > 15)
			return fail(ps, "extspeed: expected a value 0..15");
		ps->def_s = (uint16_t)((ps->def_s & ~S_EXT) | ext_bits(v));
		return 0;
	}
	if (starts(s, e, "width")) {
		if (assignment(ps, s, e, "width", &v) || v < 1 || v > 31)
			return fail(ps, "width: expected a value 1..31");
		ps->def_w = (uint8_t)v;
		return 0;
	}
	if (starts(s, e, "speed")) {
		if (assignment(ps, s, e, "speed", &v) || v < 1 || v > 7)
			return fail(ps, "speed: expected a value 1..7");
		ps->def_s = (uint16_t)((ps->def_s & ~S_LEGACY) | legacy_bits(v));
		return 0;
	}
	if (starts(s, e, "include"))
		return fail(ps, "include is not supported (concatenate the files)");
	if (starts(s, e, "module"))
		return fail(ps, "module prefixes are not supported");
	if (*s == '[' || *s == '@')
		return fail(ps, "port line outside a node record");
	/* vendid=, devid=, do, chassis lines, -s progress lines: nothing to keep */
	return 0;
}

/*
 * Lines that are not the topology but get captured with it: the error lines
 * ibnetdiscover and libibmad print ("ibwarn: [123] ...", "src/query_smp.c:195;
 * umad ... bad status 110"), and a shell prompt ("[root@h ~]# ibnetdiscover",
 * "user@h:~$ ibnetdiscover"). Skipped, also inside a record.
 */
static int is_noise(const char *s, const char *e)
{
	const char *w = s, *c;
	static const char *const pre[] = {
		"ibwarn:", "ibpanic:", "iberror:", "ibdebug:", "ibinfo:", "ibnetdiscover:"};

	for (unsigned i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (starts(s, e, pre[i]))
			return 1;
	while (w < e && !is_ws(*w))
		w++;
	/* "file.c:LINE;" */
	for (c = s; c + 3 < w; c++)
		if (c[0] == '.' && c[1] == 'c' && c[2] == ':' && is_digit(c[3]) && w[-1] == ';')
			return 1;
	/* a prompt: "[user@host dir]#" or "user@host:dir$" before a command */
	if (memchr(s, '@', (size_t)(w - s)) &&
	    (memchr(s, '$', (size_t)(e - s)) || memchr(s, '#', (size_t)(e - s)) ||
	     memchr(s, '>', (size_t)(e - s))))
		return *s == '[' || !memchr(s, '"', (size_t)(e - s));
	return 0;
}

static int parse_lines(struct parser *ps)
{
	/* a UTF-8 byte-order mark, as Windows editors save the file */
	if (ps->end - ps->next >= 3 && !memcmp(ps->next, "\xEF\xBB\xBF", 3))
		ps->next += 3;
	while (ps->next < ps->end) {
		const char *s = ps->next, *nl = memchr(s, '\n', (size_t)(ps->end - s)), *e;
		size_t n = nl ? (size_t)(nl - s) : (size_t)(ps->end - s);

		ps->next = s + n + (nl != NULL);
		ps->line++;
		if (n && s[n - 1] == '\r')
			n--;
		if (memchr(s, 0, n))
			return fail(ps, "NUL byte in text");
		e = s + n;
		s = skip_ws(s, e);
		if (s == e) {
			ps->cur = VT_NONE;
			continue;
		}
		if (*s == '#') {
			if (find_word(s, e, "IBDIAG") || find_word(s, e, "IBDIAGNET"))
				ps->ibdiag = 1;
			continue;
		}
		if (is_noise(s, e))
			continue;
		if (*s == '@' && ps->cur != VT_NONE)
			return fail(ps, "%s: port aliases ('@') are not supported",
				    nm(ps, ps->cur, 0));
		if (*s == '[' && ps->cur != VT_NONE) {
			if (port_line(ps, s, e))
				return -1;
			continue;
		}
		ps->cur = VT_NONE;
		if (top_line(ps, s, e))
			return -1;
	}
	return 0;
}

/* ---- linking */

static int link_entry(struct parser *ps, const struct entry *en)
{
	vt_fabric *f = ps->f;
	const char *id = nm(ps, en->node, 0), *rid = nm(ps, en->rnode, 1);
	uint32_t a = vt_port_index(f, en->node, en->port), b;
	unsigned w, s;

	ps->line = en->line;
	if (en->rport > f->nodes[en->rnode].nports)
		return fail(ps, "%s port %u: %s has no port %u (it has %u)", id, en->port, rid,
			    en->rport, f->nodes[en->rnode].nports);
	b = vt_port_index(f, en->rnode, en->rport);
	if (a == b)
		return fail(ps, "%s port %u is linked to itself", id, en->port);
	if (f->ports[a].peer == b)
		return 0; /* listed from the other end first */
	if (ps->pent[b] != VT_NONE) {
		const struct entry *o = &ps->ent[ps->pent[b]];

		if (o->rnode != en->node || o->rport != en->port)
			return fail(ps,
				    "%s port %u links to %s port %u, but line %u links it to %s "
				    "port %u",
				    id, en->port, rid, en->rport, o->line, nm(ps, o->rnode, 2),
				    o->rport);
	}
	if (f->ports[b].peer != VT_NONE) {
		const struct vt_port *q = &f->ports[f->ports[b].peer];
		uint32_t o = ps->pent[f->ports[b].peer];

		return fail(ps,
			    "%s port %u links to %s port %u, but line %u links it to %s port %u",
			    id, en->port, rid, en->rport, o != VT_NONE ? ps->ent[o].line : 0,
			    nm(ps, q->node, 2), q->num);
	}
	/* both ends listed: what both enable (ibsim); one end: what it says */
	w = ps->pw[a];
	s = ps->ps[a];
	if (ps->pent[b] != VT_NONE) {
		w &= ps->pw[b];
		s &= ps->ps[b];
	}
	if (!width_of(w) || speed_of(s) == VT_SPEED_UNKNOWN)
		return fail(ps, "%s port %u and %s port %u enable no common %s", id, en->port, rid,
			    en->rport, width_of(w) ? "speed" : "width");
	if (vt_fabric_connect(f, en->node, en->port, en->rnode, en->rport, width_of(w), speed_of(s),
			      ps->e))
		return fail(ps, "%s", ps->e->msg);
	return 0;
}

static int link_all(struct parser *ps)
{
	for (uint32_t i = 0; i < ps->nent; i++) {
		struct entry *en = &ps->ent[i];
		uint32_t m = *id_slot(ps, ps->buf + en->rid_off, en->rid_len);

		if (m == VT_NONE) {
			ps->line = en->line;
			return fail(ps, "%s port %u: node \"%.*s\" is never defined",
				    nm(ps, en->node, 0), en->port, (int)en->rid_len,
				    ps->buf + en->rid_off);
		}
		en->rnode = m;
	}
	for (uint32_t i = 0; i < ps->nent; i++)
		if (link_entry(ps, &ps->ent[i]))
			return -1;
	/* dumps do not list down ports, so their GUIDs would be guesses: drop them */
	for (uint32_t i = 0; i < ps->f->nports; i++)
		if (ps->f->ports[i].peer == VT_NONE &&
		    ps->f->nodes[ps->f->ports[i].node].type != VT_SWITCH)
			ps->f->ports[i].guid = 0;
	return 0;
}

int vt_load_text_mem(const char *buf, size_t len, const char *name, vt_fabric **out, vt_err *e)
{
	struct parser ps = {0};
	int rc = -1;

	*out = NULL;
	if (!name)
		name = "(text)";
	ps.name = name;
	ps.buf = buf;
	ps.end = buf + len;
	ps.next = buf;
	ps.e = e;
	ps.cur = VT_NONE;
	/* ibsim's starting GUIDs and default link enables (4x, SDR) */
	ps.guid_abs[1] = ps.guid_next[1] = 0x100000;
	ps.guid_abs[2] = ps.guid_next[2] = 0x200000;
	ps.def_w = W_4X;
	ps.def_s = SBIT(VT_SDR);
	ps.f = vt_fabric_new(name);
	if (!ps.f)
		return vt_err_set(e, "%s: out of memory", name);
	if (parse_lines(&ps))
		goto out;
	if (!ps.f->nnodes) {
		ps.line = ps.line ? ps.line : 1;
		fail(&ps, "no node records (Switch, Ca, Hca or Rt)");
		goto out;
	}
	if (link_all(&ps) || vt_fabric_finish(ps.f, 0, e))
		goto out;
	*out = ps.f;
	ps.f = NULL;
	rc = 0;
out:
	vt_fabric_free(ps.f);
	free(ps.pw);
	free(ps.ps);
	free(ps.pent);
	free(ps.ent);
	vt_hidx_free(&ps.ids);
	free(ps.tmp);
	return rc;
}

int vt_load_text_file(const char *path, vt_fabric **out, vt_err *e)
{
	char *buf;
	size_t len;
	int rc;

	*out = NULL;
	if (vt_read_file(path, &buf, &len, e))
		return -1;
	rc = vt_load_text_mem(buf, len, path, out, e);
	free(buf);
	return rc;
}
