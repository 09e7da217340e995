/* SPDX-License-Identifier: MIT */
/* Forwarding-table audits (see vt_audit.h). */
#include "vt_audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[VT_AUDIT_NKINDS] = {"unreachable", "loop", "misdelivery",
						   "non-minimal", "credit-loop"};

const char *vt_audit_name(enum vt_audit_kind k)
{
	return k < VT_AUDIT_NKINDS ? names[k] : "?";
}

unsigned vt_audit_failed(const vt_audit *a)
{
	unsigned n = 0;
	for (int k = 0; k < VT_AUDIT_NKINDS; k++)
		n += a->item[k].count != 0;
	return n;
}

struct ctx {
	const vt_fabric *f;
	const vt_lfts *t;
	vt_audit *a;
	uint32_t nsw;
	uint32_t *out;	   /* per switch: channel toward the LID, VT_NONE */
	uint32_t *chan_sw; /* per port: switch ordinal it leads to, VT_NONE */
	uint8_t *state;	   /* 0 unknown, 1 on stack, 2 good, 3 bad */
	uint32_t *stack;
	uint16_t *dist; /* per destination switch, BFS hop distances (lazily) */
	uint8_t *have_dist;
	uint32_t *queue;
	uint64_t *edges; /* per port: 4 words, bit p = dependency on port p of the next switch */
	uint8_t *seen;
};

static const char *sw_desc(const vt_fabric *f, uint32_t sw)
{
	return f->nodes[f->switches[sw]].desc;
}

static void report(struct ctx *c, enum vt_audit_kind k, uint32_t sw, uint32_t lid, const char *what)
{
	struct vt_audit_item *it = &c->a->item[k];

	if (!it->count++) {
		it->sw = sw;
		it->lid = lid;
		snprintf(it->detail, sizeof(it->detail), "%s, LID %u: %s", sw_desc(c->f, sw), lid,
			 what);
	}
}

static const uint16_t *distances(struct ctx *c, uint32_t dsw)
{
	const vt_fabric *f = c->f;
	uint16_t *d = c->dist + (size_t)dsw * c->nsw;
	uint32_t h = 0, tl = 0;

	if (c->have_dist[dsw])
		return d;
	for (uint32_t s = 0; s < c->nsw; s++)
		d[s] = UINT16_MAX;
	d[dsw] = 0;
	c->queue[tl++] = dsw;
	while (h < tl) {
		uint32_t s = c->queue[h++], node = f->switches[s];
		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t v = c->chan_sw[vt_port_index(f, node, p)];
			if (v != VT_NONE && d[v] == UINT16_MAX) {
				d[v] = d[s] + 1;
				c->queue[tl++] = v;
			}
		}
	}
	c->have_dist[dsw] = 1;
	return d;
}

static void fill_out(struct ctx *c, uint32_t lid)
{
	const vt_fabric *f = c->f;

	for (uint32_t s = 0; s < c->nsw; s++) {
		uint32_t node = f->switches[s];
		uint8_t p = vt_lft_get(c->t, s, lid);
		c->out[s] = VT_NONE;
		if (p == 0 || p == VT_LFT_NONE || p > f->nodes[node].nports)
			continue;
		uint32_t ch = vt_port_index(f, node, p);
		if (f->ports[ch].peer != VT_NONE)
			c->out[s] = ch;
	}
}

static int has_ca(const vt_fabric *f, uint32_t node)
{
	for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
		uint32_t q = vt_port(f, node, p)->peer;

		if (q != VT_NONE && f->nodes[f->ports[q].node].type != VT_SWITCH)
			return 1;
	}
	return 0;
}

/* Adds the dependencies that paths toward the current LID create; with want set, stops
 * and returns the switch where the dependency want_from -> port want_port arises. */
static uint32_t add_edges(struct ctx *c, uint32_t want_from, unsigned want_port)
{
	const vt_fabric *f = c->f;

	memset(c->seen, 0, c->nsw);
	for (uint32_t s0 = 0; s0 < c->nsw; s0++) {
		if (c->state[s0] != 2 || c->seen[s0] || !has_ca(f, f->switches[s0]))
			continue;
		c->seen[s0] = 1;
		for (uint32_t w = s0;;) {
			uint32_t ch = c->out[w], u = c->chan_sw[ch];
			if (u == VT_NONE)
				break;
			uint32_t ch2 = c->out[u];
			if (c->chan_sw[ch2] != VT_NONE) {
				unsigned pn = f->ports[ch2].num;
				if (want_from == ch && want_port == pn)
					return u;
				c->edges[(size_t)ch * 4 + pn / 64] |= 1ull << (pn % 64);
			}
			if (c->seen[u])
				break;
			c->seen[u] = 1;
			w = u;
		}
	}
	return VT_NONE;
}

/*
 * Hops that are not one closer to the destination, on the paths CA traffic
 * takes (from every switch with a CA to the LID). Entries no CA path uses
 * (a detour from a switch that lost its down path) carry no traffic and are
 * not counted. Switches are visited in ordinal order, so the first offence
 * reported does not depend on the walk.
 */
static void nonminimal_on_ca_paths(struct ctx *c, uint32_t lid, const uint16_t *dist)
{
	const vt_fabric *f = c->f;

	memset(c->seen, 0, c->nsw);
	for (uint32_t s0 = 0; s0 < c->nsw; s0++) {
		if (c->state[s0] != 2 || c->seen[s0] || !has_ca(f, f->switches[s0]))
			continue;
		for (uint32_t w = s0; w != VT_NONE && !c->seen[w];) {
			c->seen[w] = 1;
			w = c->chan_sw[c->out[w]];
		}
	}
	for (uint32_t s = 0; s < c->nsw; s++) {
		uint32_t v;

		if (!c->seen[s])
			continue;
		v = c->chan_sw[c->out[s]];
		if (v != VT_NONE && dist[v] + 1 != dist[s]) {
			char why[192];

			snprintf(why, sizeof(why),
				 "non-minimal hop to %s (%u switch hops where %u would do)",
				 sw_desc(f, v), dist[v] + 1, dist[s]);
			report(c, VT_AUDIT_NONMINIMAL, s, lid, why);
		}
	}
}

static void walk_lid(struct ctx *c, uint32_t lid, uint32_t dp)
{
	const vt_fabric *f = c->f;
	uint32_t dq = f->ports[dp].peer;
	uint32_t dsw = f->nodes[f->ports[dq].node].sw;
	const uint16_t *dist = distances(c, dsw);

	memset(c->state, 0, c->nsw);
	for (uint32_t s0 = 0; s0 < c->nsw; s0++) {
		uint32_t sp = 0, sw = s0, good = 0;

		/* another plane of a multi-rail fabric: no cable leads there */
		if (dist[s0] == UINT16_MAX)
			continue;
		while (1) {
			if (c->state[sw] >= 2) {
				good = c->state[sw] == 2;
				break;
			}
			if (c->state[sw] == 1) {
				report(c, VT_AUDIT_LOOP, sw, lid, "forwarding loop");
				break;
			}
			uint32_t ch = c->out[sw];
			c->state[sw] = 1;
			c->stack[sp++] = sw;
			if (ch == VT_NONE) {
				uint8_t p = vt_lft_get(c->t, sw, lid);
				char why[64];
				if (p == VT_LFT_NONE)
					snprintf(why, sizeof(why), "no route (no LFT entry)");
				else
					snprintf(why, sizeof(why),
						 "no route (port %u is not linked)", p);
				report(c, VT_AUDIT_UNREACHABLE, sw, lid, why);
				break;
			}
			uint32_t nx = c->chan_sw[ch];
			if (nx == VT_NONE) {
				uint32_t q = f->ports[ch].peer;
				good = q == dp;
				if (!good) {
					char why[192];
					snprintf(why, sizeof(why), "delivered to %s port %u",
						 f->nodes[f->ports[q].node].desc, f->ports[q].num);
					report(c, VT_AUDIT_MISDELIVERY, sw, lid, why);
				}
				break;
			}
			sw = nx;
		}
		while (sp) {
			uint32_t x = c->stack[--sp];
			c->state[x] = good ? 2 : 3;
		}
	}
	nonminimal_on_ca_paths(c, lid, dist);
	add_edges(c, VT_NONE, 0);
}

/* Depth-first search for a cycle among switch-to-switch channels; fills cyc, returns its length. */
static uint32_t find_cycle(struct ctx *c, uint32_t *cyc)
{
	const vt_fabric *f = c->f;
	uint32_t np = f->nports;
	uint8_t *color = calloc(np + 1, 1);
	uint32_t *stk = malloc((np + 1) * sizeof(*stk)), *it = malloc((np + 1) * sizeof(*it));
	uint32_t len = 0;

	if (!color || !stk || !it)
		goto out;
	for (uint32_t r = 0; r < np && !len; r++) {
		if (color[r] || c->chan_sw[r] == VT_NONE ||
		    f->nodes[f->ports[r].node].type != VT_SWITCH)
			continue;
		uint32_t sp = 0;
		stk[sp] = r;
		it[sp++] = 0;
		color[r] = 1;
		while (sp && !len) {
			uint32_t ch = stk[sp - 1], u = c->chan_sw[ch], pn = it[sp - 1]++;
			if (pn > 255) {
				color[ch] = 2;
				sp--;
				continue;
			}
			if (!(c->edges[(size_t)ch * 4 + pn / 64] >> (pn % 64) & 1))
				continue;
			uint32_t nx = vt_port_index(f, f->switches[u], pn);
			if (color[nx] == 1) {
				uint32_t k = sp;
				while (stk[k - 1] != nx)
					k--;
				for (uint32_t i = k - 1; i < sp; i++)
					cyc[len++] = stk[i];
			} else if (!color[nx]) {
				color[nx] = 1;
				stk[sp] = nx;
				it[sp++] = 0;
			}
		}
	}
out:
	free(color);
	free(stk);
	free(it);
	return len;
}

static void credit_loops(struct ctx *c)
{
	const vt_fabric *f = c->f;
	uint32_t *cyc = malloc((f->nports + 1) * sizeof(*cyc));
	uint32_t len;

	if (!cyc)
		return;
	len = find_cycle(c, cyc);
	if (len) {
		/* find the first LID whose routes make the cycle's first turn */
		uint32_t nx = cyc[1 % len];
		unsigned pn = f->ports[nx].num;
		struct vt_audit_item *it = &c->a->item[VT_AUDIT_CREDIT_LOOP];
		it->count = 1;
		it->sw = c->chan_sw[cyc[0]];
		it->lid = 0;
		for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
			uint32_t dp = f->lid_port[lid];
			if (dp == VT_NONE || f->nodes[f->ports[dp].node].type == VT_SWITCH ||
			    f->ports[dp].peer == VT_NONE ||
			    f->nodes[f->ports[f->ports[dp].peer].node].type != VT_SWITCH)
				continue;
			fill_out(c, lid);
			walk_lid(c, lid, dp); /* state only; counts already taken are kept */
			if (add_edges(c, cyc[0], pn) != VT_NONE) {
				it->lid = lid;
				break;
			}
		}
		size_t o = (size_t)snprintf(it->detail, sizeof(it->detail),
					    "%s: a cycle of %u channel dependencies (LID %u):",
					    sw_desc(f, it->sw), len, it->lid);
		for (uint32_t i = 0; i < len && o < sizeof(it->detail) - 1; i++)
			o += (size_t)snprintf(it->detail + o, sizeof(it->detail) - o, " %s/%u",
					      f->nodes[f->ports[cyc[i]].node].desc,
					      f->ports[cyc[i]].num);
	}
	free(cyc);
}

int vt_audit_run(const vt_fabric *f, const vt_lfts *t, vt_audit *a, vt_err *e)
{
	struct ctx c = {.f = f, .t = t, .a = a, .nsw = f->nswitches};
	int rc = 0;

	memset(a, 0, sizeof(*a));
	for (int k = 0; k < VT_AUDIT_NKINDS; k++)
		a->item[k].sw = VT_NONE;
	c.out = malloc((c.nsw + 1) * sizeof(*c.out));
	c.chan_sw = malloc((f->nports + 1) * sizeof(*c.chan_sw));
	c.state = malloc(c.nsw + 1);
	c.seen = malloc(c.nsw + 1);
	c.stack = malloc((c.nsw + 1) * sizeof(*c.stack));
	c.queue = malloc((c.nsw + 1) * sizeof(*c.queue));
	c.dist = malloc(((size_t)c.nsw * c.nsw + 1) * sizeof(*c.dist));
	c.have_dist = calloc(c.nsw + 1, 1);
	c.edges = calloc((size_t)f->nports * 4 + 1, sizeof(*c.edges));
	if (!c.out || !c.chan_sw || !c.state || !c.seen || !c.stack || !c.queue || !c.dist ||
	    !c.have_dist || !c.edges) {
		rc = vt_err_set(e, "out of memory auditing %u switches", c.nsw);
		goto out;
	}
	for (uint32_t p = 0; p < f->nports; p++) {
		uint32_t q = f->ports[p].peer;
		c.chan_sw[p] = VT_NONE;
		if (q != VT_NONE && f->nodes[f->ports[q].node].type == VT_SWITCH)
			c.chan_sw[p] = f->nodes[f->ports[q].node].sw;
	}
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint32_t dp = f->lid_port[lid];
		if (dp == VT_NONE || f->nodes[f->ports[dp].node].type == VT_SWITCH ||
		    f->ports[dp].peer == VT_NONE ||
		    f->nodes[f->ports[f->ports[dp].peer].node].type != VT_SWITCH)
			continue;
		fill_out(&c, lid);
		walk_lid(&c, lid, dp);
	}
	/* the rescan in credit_loops must not count offences twice */
	vt_audit saved = *a;
	credit_loops(&c);
	for (int k = 0; k < VT_AUDIT_CREDIT_LOOP; k++)
		a->item[k] = saved.item[k];
out:
	free(c.out);
	free(c.chan_sw);
	free(c.state);
	free(c.seen);
	free(c.stack);
	free(c.queue);
	free(c.dist);
	free(c.have_dist);
	free(c.edges);
	return rc;
}
