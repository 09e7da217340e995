/* SPDX-License-Identifier: MIT */
/*
 * The text loader: ibnetdiscover output and ibsim net files (rules in
 * vt_load.h). One pass over the lines builds the nodes and records every port
 * line; a second pass resolves the remote ids and links the ports, so a link
 * may be listed from either end or both. Everything is linear in the input.
 */
#include "io/vt_load.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vt_hash.h"
#include "base/vt_io.h"
#include "io/vt_load_text_int.h"

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
	int ibdiag;			 /* the file carries ibdiagnet's header */
	uint64_t paren[MAX_GUIDT];	 /* B of the last "switchguid=A(B)", 0 when none */
	char nm[3][VT_NODE_NAME_MAX];	 /* node names for messages */
	char cur_name[VT_NODE_NAME_MAX]; /* the current node's, made once for its port lines */
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

/* "lid N" / "lmc M" in [s, e); absent values leave *lid and *lmc alone. */
static int parse_lid_lmc(struct parser *ps, const char *s, const char *e, const char *who,
			 unsigned long *lid, unsigned long *lmc)
{
	const char *w = vt_lex_find_word(s, e, "lid");

	unsigned long v;

	/* the words may also appear in free text: only a number after them counts */
	if (w && vt_lex_dec(skip_ws(w + 3, e), e, &v)) {
		if (v > VT_MAX_UC_LID)
			return fail(ps, "%s: LID %lu out of range 0..%u", who, v, VT_MAX_UC_LID);
		*lid = v;
	}
	w = vt_lex_find_word(s, e, "lmc");
	if (w && vt_lex_dec(skip_ws(w + 3, e), e, &v)) {
		if (v > 7)
			return fail(ps, "%s: LMC %lu out of range 0..7", who, v);
		*lmc = v;
	}
	return 0;
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
			if (!vt_lex_dec(p + 1, e, &v) || v < 1 || v > 31)
				return fail(ps, "%s: bad width option (expected w=1..31)", who);
			*w = (uint8_t)v;
			break;
		case 's':
			if (!vt_lex_dec(p + 1, e, &v) || v > 7)
				return fail(ps, "%s: bad speed option (expected s=0..7)", who);
			*sp = (uint16_t)((*sp & ~S_LEGACY) | vt_lex_legacy_bits(v ? v : 4));
			break;
		case 'e':
			if (!vt_lex_dec(p + 1, e, &v) || v > 15)
				return fail(ps, "%s: bad extended speed option (expected e=0..15)",
					    who);
			*sp = (uint16_t)((*sp & ~S_EXT) | vt_lex_ext_bits(v));
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
 * "switchguid=A(B)": ibnetdiscover writes the node GUID A and port GUID B,
 * ibdiagnet the system image GUID A and node GUID B. The record's id
 * ("S-<guid>") tells which when it holds one; else the file's header does.
 */
static int paren_is_node_guid(const struct parser *ps, unsigned t, const char *id, size_t idlen)
{
	uint64_t g;

	if (idlen > 2 && id[1] == '-' && vt_lex_hex(id + 2, id + idlen, &g) == id + idlen) {
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
	if (!(c = vt_lex_dec(s, e, &nports)))
		return fail(ps, "node header: bad port count (expected TYPE N \"id\")");
	c = skip_ws(c, e);
	if (c >= e || *c != '"')
		return fail(ps, "node header: missing quoted node id");
	if (!(rest = vt_lex_quoted(c, e, &id, &idlen)))
		return fail(ps, "node header: unterminated quote in node id");
	if (ps->paren[t] && ps->paren[t] != guid && paren_is_node_guid(ps, t, id, idlen)) {
		/* ibdiagnet: "switchguid=SYSIMGGUID(NODEGUID)" */
		if (!ps->sysguid)
			ps->sysguid = guid;
		guid = ps->paren[t];
	}
	ps->paren[t] = 0;
	c = memchr(rest, '#', (size_t)(e - rest));
	if (c && vt_lex_header_desc(c + 1, e, &desc, &dlen, &rest))
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
	vt_node_name(ps->f, idx, ps->cur_name, sizeof(ps->cur_name));
	return 0;
}

/* A port line's own "[n](guid)" (in *p, *guid); *cp moves past it. */
static int local_port(struct parser *ps, const char **cp, const char *e, const char *id,
		      unsigned long *p, uint64_t *guid)
{
	const struct vt_node *n = &ps->f->nodes[ps->cur];
	const char *s = *cp, *c;
	int bad;

	c = vt_lex_port_ref(s, e, p, guid, &bad);
	if (!c && bad) {
		const char *t = s + 1;

		while (t < e && *t != ']' && !is_ws(*t) && t - s < 21)
			t++;
		return fail(ps, "%s: bad port number \"%.*s\"", id, (int)(t - s - 1), s + 1);
	}
	if (!c)
		return fail(ps, "%s: truncated port line", id);
	if (*p < 1 || *p > n->nports)
		return fail(ps, "%s: port %lu out of range 1..%u", id, *p, n->nports);
	*cp = c;
	return 0;
}

/*
 * The remote end: the quoted node id (*rid, *rlen), then an optional "[n]"
 * (*rp) and remote port GUID; *cp moves past them.
 */
static int remote_port(struct parser *ps, const char **cp, const char *e, const char *who,
		       const char **rid, size_t *rlen, unsigned long *rp)
{
	const char *c = skip_ws(*cp, e);
	uint64_t rguid = 0;
	int bad;

	if (c >= e)
		return fail(ps, "%s: truncated port line (no remote node)", who);
	if (*c != '"')
		return fail(ps, "%s: expected a quoted remote node id", who);
	if (!(c = vt_lex_quoted(c, e, rid, rlen)))
		return fail(ps, "%s: unterminated quote in remote node id", who);
	if (c < e && *c == '[') {
		const char *d = vt_lex_port_ref(c, e, rp, &rguid, &bad);

		if (!d && bad)
			return fail(ps, "%s: bad remote port number", who);
		if (!d)
			return fail(ps, "%s: truncated port line (remote port)", who);
		if (*rp < 1 || *rp > VT_MAX_PORTS)
			return fail(ps, "%s: remote port %lu out of range 1..%u", who, *rp,
				    VT_MAX_PORTS);
		c = d;
	}
	c = skip_ws(c, e);
	if (c < e && *c == '(') { /* the remote port GUID after a blank, as CA lines print it */
		const char *d = vt_lex_hex(c + 1, e, &rguid);

		if (!d || d >= e || *d != ')')
			return fail(ps, "%s: truncated port line (remote port GUID)", who);
		c = d + 1;
	}
	*cp = c;
	return 0;
}

/*
 * A port line's comment from its '#' at cm: a CA port's "lid N lmc M" before
 * the remote description, and the rate token ("4xQDR") after it, which sets
 * the enables of port pi.
 */
static int port_comment(struct parser *ps, uint32_t pi, const char *cm, const char *e,
			const char *who, unsigned long *lid, unsigned long *lmc)
{
	const struct vt_node *n = &ps->f->nodes[ps->cur];
	const char *q = memchr(cm, '"', (size_t)(e - cm)), *last = cm, *t;

	if (n->type != VT_SWITCH && parse_lid_lmc(ps, cm + 1, q ? q : e, who, lid, lmc))
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
		if (w > t && vt_lex_rate_token(t, w, &ps->pw[pi], &ps->ps[pi]))
			break;
		t = w;
	}
	return 0;
}

/* Records port p (index pi) of the current node for the second pass to link. */
static int add_entry(struct parser *ps, uint32_t pi, unsigned long p, const char *rid, size_t rlen,
		     unsigned long rp)
{
	struct entry *en;

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

static int port_line(struct parser *ps, const char *s, const char *e)
{
	struct vt_node *n = &ps->f->nodes[ps->cur];
	const char *id = ps->cur_name, *c = s, *rid, *cm;
	unsigned long p, rp = 1, lid = 0, lmc = 0;
	uint64_t guid = 0;
	size_t rlen;
	uint32_t pi;
	char who[VT_NODE_NAME_MAX + 16];

	if (local_port(ps, &c, e, id, &p, &guid))
		return -1;
	snprintf(who, sizeof(who), "%s port %lu", id, p);
	pi = n->first_port + (uint32_t)p;
	if (ps->pent[pi] != VT_NONE)
		return fail(ps, "%s listed twice (first at line %u)", who,
			    ps->ent[ps->pent[pi]].line);
	if (remote_port(ps, &c, e, who, &rid, &rlen, &rp))
		return -1;
	if (parse_options(ps, c, e, who, &ps->pw[pi], &ps->ps[pi]))
		return -1;
	cm = memchr(c, '#', (size_t)(e - c));
	if (cm && port_comment(ps, pi, cm, e, who, &lid, &lmc))
		return -1;
	if (n->type != VT_SWITCH) {
		if (guid)
			ps->f->ports[pi].guid = guid;
		ps->f->ports[pi].lid = (uint16_t)lid;
		ps->f->ports[pi].lmc = (uint8_t)lmc;
	}
	return add_entry(ps, pi, p, rid, rlen, rp);
}

/* "switchguid=0x..", "caguid+0x..": ibsim's GUID base, absolute or relative. */
static int guid_base(struct parser *ps, unsigned t, const char *s, const char *e)
{
	uint64_t v;
	const char *c = skip_ws(s, e);

	if (c >= e || (*c != '=' && *c != '+'))
		return fail(ps, "GUID assignment: missing '=' or '+'");
	if (!(s = vt_lex_num(skip_ws(c + 1, e), e, &v)))
		return fail(ps, "GUID assignment: bad number");
	ps->paren[t] = 0;
	if (*c == '=' && s < e && *s == '(') {
		uint64_t b;
		const char *q = vt_lex_hex(s + 1, e, &b);

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

	if (!c || !vt_lex_num(skip_ws(c + 1, e), e, v))
		return fail(ps, "%s: expected '=' and a number", what);
	return 0;
}

/*
 * ibnetdiscover's other reports, which hold no topology: the node lists of
 * -l, -H, -S and -R ("Switch\t : 0xGUID ports 36 ...") and the port report of
 * -p ("SW     3    1 0xGUID 4x QDR - CA ..."), which lists CA ports without
 * the node records that group them, and --diff's changes ("< Switch ...",
 * "> [3] ...").
 */
static int other_report(struct parser *ps, const char *s, const char *e)
{
	static const char *const lists[] = {"Switch", "Ca", "Router"};
	static const char *const types[] = {"SW", "CA", "RT", "??"};
	unsigned long n;
	const char *c;

	for (unsigned i = 0; i < 3; i++)
		if (starts(s, e, lists[i])) {
			c = skip_ws(s + strlen(lists[i]), e);
			if (c < e && *c == ':' && starts(skip_ws(c + 1, e), e, "0x"))
				return fail(
					ps,
					"a node list (ibnetdiscover -l, -H, -S or -R) has no "
					"links: give ibnetdiscover's topology output (no option)");
		}
	if ((*s == '<' || *s == '>') && s + 1 < e && s[1] == ' ')
		return fail(ps, "a --diff report lists changes, not a topology: give "
				"ibnetdiscover's topology output (no option)");
	for (unsigned i = 0; i < 4; i++)
		if (starts(s, e, types[i]) && (c = skip_ws(s + 2, e)) > s + 2 &&
		    (c = vt_lex_dec(c, e, &n)) && (c = vt_lex_dec(skip_ws(c, e), e, &n)) &&
		    starts(skip_ws(c, e), e, "0x"))
			return fail(
				ps,
				"a port report (ibnetdiscover -p) does not say which ports "
				"form a node: give ibnetdiscover's topology output (no option)");
	return 0;
}

static int top_line(struct parser *ps, const char *s, const char *e)
{
	uint64_t v;

	if (other_report(ps, s, e))
		return -1;
	if (vt_lex_keyword(s, e, "Switch"))
		return header(ps, VT_SWITCH, s + 6, e);
	if (vt_lex_keyword(s, e, "Hca"))
		return header(ps, VT_CA, s + 3, e);
	if (vt_lex_keyword(s, e, "Ca"))
		return header(ps, VT_CA, s + 2, e);
	if (vt_lex_keyword(s, e, "Rt"))
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
		ps->def_s = (uint16_t)((ps->def_s & ~S_EXT) | vt_lex_ext_bits(v));
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
		ps->def_s = (uint16_t)((ps->def_s & ~S_LEGACY) | vt_lex_legacy_bits(v));
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

static int parse_lines(struct parser *ps)
{
	ps->next = vt_lex_skip_bom(ps->next, ps->end);
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
			if (vt_lex_find_word(s, e, "IBDIAG") || vt_lex_find_word(s, e, "IBDIAGNET"))
				ps->ibdiag = 1;
			continue;
		}
		if (vt_lex_is_noise(s, e))
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
	uint32_t a = vt_port_index(f, en->node, en->port), b;
	unsigned w, s;

	/* names are made only for a message: this runs once per cable */
	ps->line = en->line;
	if (en->rport > f->nodes[en->rnode].nports)
		return fail(ps, "%s port %u: %s has no port %u (it has %u)", nm(ps, en->node, 0),
			    en->port, nm(ps, en->rnode, 1), en->rport, f->nodes[en->rnode].nports);
	b = vt_port_index(f, en->rnode, en->rport);
	if (a == b)
		return fail(ps, "%s port %u is linked to itself", nm(ps, en->node, 0), en->port);
	if (f->ports[a].peer == b)
		return 0; /* listed from the other end first */
	if (ps->pent[b] != VT_NONE) {
		const struct entry *o = &ps->ent[ps->pent[b]];

		if (o->rnode != en->node || o->rport != en->port)
			return fail(ps,
				    "%s port %u links to %s port %u, but line %u links it to %s "
				    "port %u",
				    nm(ps, en->node, 0), en->port, nm(ps, en->rnode, 1), en->rport,
				    o->line, nm(ps, o->rnode, 2), o->rport);
	}
	if (f->ports[b].peer != VT_NONE) {
		const struct vt_port *q = &f->ports[f->ports[b].peer];
		uint32_t o = ps->pent[f->ports[b].peer];

		return fail(ps,
			    "%s port %u links to %s port %u, but line %u links it to %s port %u",
			    nm(ps, en->node, 0), en->port, nm(ps, en->rnode, 1), en->rport,
			    o != VT_NONE ? ps->ent[o].line : 0, nm(ps, q->node, 2), q->num);
	}
	/* both ends listed: what both enable (ibsim); one end: what it says */
	w = ps->pw[a];
	s = ps->ps[a];
	if (ps->pent[b] != VT_NONE) {
		w = vt_lex_both_ends(w, ps->pw[b], W_UNNAMED);
		s = vt_lex_both_ends(s, ps->ps[b], S_UNNAMED);
	}
	w &= ~W_UNNAMED;
	s &= ~S_UNNAMED;
	if (!vt_lex_width(w) || vt_lex_speed(s) == VT_SPEED_UNKNOWN)
		return fail(ps, "%s port %u and %s port %u enable no common %s",
			    nm(ps, en->node, 0), en->port, nm(ps, en->rnode, 1), en->rport,
			    vt_lex_width(w) ? "speed" : "width");
	if (vt_fabric_connect(f, en->node, en->port, en->rnode, en->rport, vt_lex_width(w),
			      vt_lex_speed(s), ps->e))
		return fail(ps, "%s", ps->e->msg);
	return 0;
}

/* Each port's link line for later messages: its own port line, else the far end's. */
static int link_lines(struct parser *ps)
{
	vt_fabric *f = ps->f;

	f->link_line = calloc((size_t)f->nports + 1, sizeof(*f->link_line));
	if (!f->link_line)
		return vt_err_nomem(ps->e, "%s: out of memory", ps->name);
	for (uint32_t i = 0; i < f->nports; i++) {
		uint32_t k = ps->pent[i];

		if (k == VT_NONE && f->ports[i].peer != VT_NONE)
			k = ps->pent[f->ports[i].peer];
		f->link_line[i] = k == VT_NONE ? 0 : ps->ent[k].line;
	}
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
	return link_lines(ps);
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
		return vt_err_nomem(e, "%s: out of memory", name);
	if (parse_lines(&ps))
		goto out;
	if (!ps.f->nnodes) {
		const char *what = vt_load_table_kind(buf, len, &ps.line);

		ps.line = ps.line ? ps.line : 1;
		if (what)
			fail(&ps,
			     "no node records: %s, not a topology: give it to --lfts, and "
			     "ibnetdiscover's output as the topology",
			     what);
		else
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
