/* SPDX-License-Identifier: MIT */
#include "analysis/vt_path.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void vt_path_free(struct vt_path *p)
{
	free(p->hop);
	memset(p, 0, sizeof(*p));
}

const char *vt_path_end_name(enum vt_path_end end)
{
	static const char *const names[] = {"delivered", "no table entry", "port out of range",
					    "port down", "loop",	   "misdelivered"};
	return names[end];
}

/* At a switch: the entry for dlid, or the reason the walk ends there (port 0 delivers). */
static int switch_step(const vt_fabric *f, const vt_lfts *t, uint32_t node, uint32_t dlid,
		       struct vt_path *p, uint32_t *next)
{
	const struct vt_node *nd = &f->nodes[node];
	uint8_t out = vt_lft_get(t, nd->sw, dlid);

	p->end_node = node;
	p->end_port = out;
	if (out == VT_LFT_NONE) {
		p->end = VT_PATH_NO_ENTRY;
		return 1;
	}
	if (out == 0) {
		p->end = vt_fabric_port_by_lid(f, dlid) == nd->first_port ? VT_PATH_OK
									  : VT_PATH_MISDELIVERY;
		return 1;
	}
	if (out > nd->nports) {
		p->end = VT_PATH_BAD_PORT;
		return 1;
	}
	*next = vt_port_index(f, node, out);
	return 0;
}

int vt_path_walk(const vt_fabric *f, const vt_lfts *t, uint32_t src, uint32_t dlid,
		 struct vt_path *p, vt_err *e)
{
	uint32_t cur = src, max = f->nswitches + 2;

	memset(p, 0, sizeof(*p));
	p->hop = malloc((size_t)max * sizeof(*p->hop));
	if (!p->hop)
		return vt_err_nomem(e, "out of memory");
	if (f->nodes[f->ports[src].node].type == VT_SWITCH &&
	    switch_step(f, t, f->ports[src].node, dlid, p, &cur)) {
		p->hop[0] = src;
		return 0;
	}
	for (;;) {
		uint32_t q = f->ports[cur].peer;
		p->hop[p->nhops] = cur;
		p->end_node = f->ports[cur].node;
		p->end_port = f->ports[cur].num;
		if (q == VT_NONE) {
			p->end = VT_PATH_DOWN;
			return 0;
		}
		p->nhops++;
		uint32_t b = f->ports[q].node;
		if (f->nodes[b].type != VT_SWITCH) {
			p->end_node = b;
			p->end = vt_fabric_port_by_lid(f, dlid) == q ? VT_PATH_OK
								     : VT_PATH_MISDELIVERY;
			return 0;
		}
		if (switch_step(f, t, b, dlid, p, &cur))
			return 0;
		/* a minimal path crosses each switch once: more hops than switches loop */
		if (p->nhops >= max - 1) {
			p->end = VT_PATH_LOOP;
			return 0;
		}
	}
}

/* via for one destination rank, memoised over switches: 0 unknown, 1 no, 2 yes, 3 on stack. */
static void via_rank(const vt_routes *r, uint32_t chan, const uint32_t *row, uint8_t *st,
		     uint32_t *stack)
{
	for (uint32_t s0 = 0; s0 < r->nsw; s0++) {
		uint32_t sp = 0, sw = s0;
		uint8_t v;
		for (;;) {
			if (st[sw]) { /* known, or on the stack (a loop: pruned, never crosses) */
				v = st[sw] == 2 ? 2 : 1;
				break;
			}
			uint32_t ch = row[sw];
			st[sw] = 3;
			stack[sp++] = sw;
			if (ch == chan || ch == VT_NONE || r->chan_sw[ch] == VT_NONE) {
				v = ch == chan ? 2 : 1;
				break;
			}
			sw = r->chan_sw[ch];
		}
		while (sp)
			st[stack[--sp]] = v;
	}
}

int vt_path_via(const vt_routes *r, uint32_t chan, uint8_t **via, vt_err *e)
{
	uint64_t n = (uint64_t)r->n * r->nsw;
	uint8_t *v = calloc(n + 1, 1);
	uint32_t *stack = malloc(((size_t)r->nsw + 1) * sizeof(*stack));

	if (!v || !stack) {
		free(v);
		free(stack);
		return vt_err_nomem(e, "out of memory for %u ranks x %u switches", r->n, r->nsw);
	}
	for (uint32_t d = 0; d < r->n; d++) {
		uint8_t *st = v + (uint64_t)d * r->nsw;
		via_rank(r, chan, r->next + (uint64_t)d * r->nsw, st, stack);
		for (uint32_t s = 0; s < r->nsw; s++)
			st[s] = st[s] == 2;
	}
	free(stack);
	*via = v;
	return 0;
}

/* ---- addressing */

static int parse_u64(const char *s, int base, uint64_t *v)
{
	char *end;

	errno = 0;
	if (!*s || *s == '-' || *s == '+')
		return -1;
	*v = strtoull(s, &end, base);
	return errno || *end ? -1 : 0;
}

/* Port a node is reached by: a switch's port 0, a CA's first connected port. */
static uint32_t node_port(const vt_fabric *f, uint32_t n)
{
	const struct vt_node *nd = &f->nodes[n];

	if (nd->type == VT_SWITCH)
		return nd->first_port;
	for (unsigned p = 1; p <= nd->nports; p++)
		if (vt_port(f, n, p)->peer != VT_NONE)
			return vt_port_index(f, n, p);
	return VT_NONE;
}

static int first_word_is(const char *desc, const char *s)
{
	size_t n = strcspn(desc, " \t");
	return n == strlen(s) && !strncmp(desc, s, n);
}

static uint32_t node_by_name(const vt_fabric *f, const char *s, vt_err *e)
{
	uint32_t hit = VT_NONE, nhit = 0;
	char list[256] = "";

	for (int pass = 0; pass < 3 && !nhit; pass++) {
		if (pass == 1) {
			hit = vt_fabric_node_by_id(f, s);
			nhit = hit != VT_NONE;
			continue;
		}
		for (uint32_t n = 0; n < f->nnodes; n++) {
			const char *d = f->nodes[n].desc;
			if (pass == 0 ? strcmp(d, s) : !first_word_is(d, s))
				continue;
			size_t l = strlen(list);
			if (nhit < 3)
				snprintf(list + l, sizeof(list) - l, "%s\"%s\" (0x%016" PRIx64 ")",
					 nhit ? ", " : "", d, f->nodes[n].guid);
			hit = n;
			nhit++;
		}
	}
	if (!nhit) {
		vt_err_set(e, "no node named \"%s\" in %s", s, f->source);
		return VT_NONE;
	}
	if (nhit > 1) {
		vt_err_set(e, "\"%s\" names %u nodes: %s%s; give a GUID (-G) or LID (-L)", s, nhit,
			   list, nhit > 3 ? ", ..." : "");
		return VT_NONE;
	}
	return hit;
}

/*
 * The node part of a link list's `"DESC" (0xGUID, lid L)` (vt_port_name): its
 * GUID, so a port copied from any vartree output names the node exactly.
 */
static int printed_guid(const char *s, uint64_t *g)
{
	const char *q = strrchr(s, '"');
	char hex[17];
	size_t n;

	if (*s != '"' || q == s || strncmp(q, "\" (0x", 5))
		return -1;
	n = strspn(q + 5, "0123456789abcdefABCDEF");
	if (!n || n > 16 || (strcmp(q + 5 + n, ")") && strncmp(q + 5 + n, ", lid ", 6)))
		return -1;
	memcpy(hex, q + 5, n);
	hex[n] = 0;
	return parse_u64(hex, 16, g);
}

uint32_t vt_addr_node(const vt_fabric *f, const char *s, vt_err *e)
{
	uint64_t g;

	if ((!strncmp(s, "0x", 2) && !parse_u64(s + 2, 16, &g)) || !printed_guid(s, &g)) {
		uint32_t n = vt_fabric_node_by_guid(f, g);
		if (n == VT_NONE) {
			uint32_t p = vt_fabric_port_by_guid(f, g);
			n = p == VT_NONE ? VT_NONE : f->ports[p].node;
		}
		if (n == VT_NONE)
			vt_err_set(e, "no node or port GUID 0x%016" PRIx64 " in %s", g, f->source);
		return n;
	}
	return node_by_name(f, s, e);
}

static int resolve_guid(const vt_fabric *f, const char *s, uint32_t *port, vt_err *e)
{
	uint64_t g;

	if (parse_u64(!strncmp(s, "0x", 2) ? s + 2 : s, 16, &g))
		return vt_err_set(e, "'%s': expected a GUID (hexadecimal)", s);
	*port = vt_fabric_port_by_guid(f, g);
	if (*port != VT_NONE)
		return 0;
	uint32_t n = vt_fabric_node_by_guid(f, g);
	if (n == VT_NONE)
		return vt_err_set(e, "no node or port GUID 0x%016" PRIx64 " in %s", g, f->source);
	*port = node_port(f, n);
	return 0;
}

int vt_addr_resolve(const vt_fabric *f, const vt_order *o, enum vt_addr_kind k, const char *s,
		    uint32_t *port, uint32_t *lid, vt_err *e)
{
	uint64_t v;
	uint32_t n;

	*port = VT_NONE;
	switch (k) {
	case VT_ADDR_LID:
		if (parse_u64(s, 0, &v) || v == 0 || v > VT_MAX_UC_LID)
			return vt_err_set(e, "'%s': expected a unicast LID (1 .. 0xbfff)", s);
		*port = vt_fabric_port_by_lid(f, (uint32_t)v);
		if (*port == VT_NONE)
			return vt_err_set(e, "no port has LID %s in %s", s, f->source);
		*lid = (uint32_t)v;
		return 0;
	case VT_ADDR_RANK:
		if (parse_u64(s, 10, &v) || v >= o->n)
			return vt_err_set(e, "'%s': expected a rank 0 .. %u", s, o->n - 1);
		*port = o->port[v];
		if (*port == VT_NONE)
			return vt_err_set(e, "rank %s is a place-keeper (no host)", s);
		break;
	case VT_ADDR_GUID:
		if (resolve_guid(f, s, port, e))
			return -1;
		break;
	case VT_ADDR_NAME:
		n = node_by_name(f, s, e);
		if (n == VT_NONE)
			return -1;
		*port = node_port(f, n);
		break;
	}
	if (*port == VT_NONE)
		return vt_err_set(e, "\"%s\" has no connected port", s);
	*lid = f->ports[*port].lid;
	if (!*lid)
		return vt_err_set(e, "\"%s\" has no LID", s);
	return 0;
}
