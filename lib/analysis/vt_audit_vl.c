/* SPDX-License-Identifier: MIT */
/*
 * vartree's second VL (see vt_audit.h): which routes that start at a switch
 * other than a leaf travel on VL 1. The routes from the leaves (where the
 * CAs' traffic starts) make VL 0's base of channel dependencies; a route
 * from another switch stays on VL 0 when every dependency it makes is one
 * of the base's (it adds no edge). Otherwise it turns down-up somewhere
 * (a split core's spine reaching another core group through a leaf). The
 * core groups: the switches above the leaves, joined by their links. A
 * route whose one down-up turn at a level-l switch leads into a higher
 * group above level l than it comes from stays on VL 0 too (above the
 * leaves the groups are the core groups; above level 1 of a split core every
 * top is a group of its own), one that turns into a lower group (or several
 * times, or inside a group) goes to VL 1. Why that is deadlock-free where
 * the leaves' routes are up*-down* (split cores): apart from the turns every
 * dependency stays inside a group and is up*-down*, so a cycle would have to
 * climb through groups by its turns and come back, which takes a turn each
 * way; VL 0 has only the upward ones, VL 1 the others. The audit checks each
 * VL whatever the fabric. Each (switch, LID) is settled once: a
 * route that reaches a switch settled for the LID takes over its verdict.
 */
#include "analysis/vt_audit.h"

#include <stdlib.h>
#include <string.h>

#include "base/vt_uf.h"
#include "tree/vt_tree.h"

enum { TURN_NONE, TURN_UP, TURN_OTHER }; /* no turn, one into a higher group, others */

struct split_ctx {
	const vt_fabric *f;
	const vt_lfts *t;
	const uint8_t *level; /* per switch: tree level, VT_TREE_OUTSIDE outside */
	uint32_t nsw;
	unsigned nlev;	   /* levels: 1 + the highest */
	uint32_t *group;   /* per level and switch: group above the level (groups()), VT_NONE */
	uint32_t *chan_sw; /* per port: switch it leads to, VT_NONE */
	uint32_t *out;	   /* per switch: its channel toward the LID, VT_NONE */
	uint8_t *state;	   /* per switch: 0 unknown, 1 on the walk, 2 VL 0, 3 VL 1 */
	uint8_t *sub;	   /* per switch: its route makes base dependencies only */
	uint8_t *turn;	   /* per switch: its route's turns, TURN_ */
	uint32_t *stack;
	uint64_t *base; /* per port: 4 words, bit p = dependency on port p of the next switch */
};

static int has_dep(const struct split_ctx *c, const uint64_t *e, uint32_t ch, uint32_t ch2)
{
	unsigned pn = c->f->ports[ch2].num;

	return (int)(e[(size_t)ch * 4 + pn / 64] >> (pn % 64) & 1);
}

static void add_dep(const struct split_ctx *c, uint64_t *e, uint32_t ch, uint32_t ch2)
{
	unsigned pn = c->f->ports[ch2].num;

	e[(size_t)ch * 4 + pn / 64] |= 1ull << (pn % 64);
}

/* The next switch's channel after channel ch, VT_NONE where the route ends. */
static uint32_t next_chan(const struct split_ctx *c, uint32_t ch)
{
	uint32_t u = ch == VT_NONE ? VT_NONE : c->chan_sw[ch];

	return u == VT_NONE || c->out[u] == VT_NONE || c->chan_sw[c->out[u]] == VT_NONE ? VT_NONE
											: c->out[u];
}

static void fill_out(struct split_ctx *c, uint32_t lid)
{
	for (uint32_t x = 0; x < c->nsw; x++) {
		uint8_t p = vt_lft_get(c->t, x, lid);
		uint32_t ch = vt_port_index(c->f, c->f->switches[x], 0) + p;

		c->out[x] = p && p != VT_LFT_NONE && p <= c->f->nodes[c->f->switches[x]].nports &&
					    c->f->ports[ch].peer != VT_NONE
				    ? ch
				    : VT_NONE;
	}
}

/* The base's dependencies of one LID: along the routes of every leaf. */
static void base_deps(struct split_ctx *c)
{
	memset(c->state, 0, c->nsw);
	for (uint32_t s = 0; s < c->nsw; s++) {
		uint32_t n = 0;

		if (c->level[s])
			continue;
		for (uint32_t w = s; w != VT_NONE && !c->state[w] && n++ <= c->nsw;) {
			uint32_t ch = c->out[w], ch2 = next_chan(c, ch);

			c->state[w] = 2;
			if (ch2 != VT_NONE)
				add_dep(c, c->base, ch, ch2);
			w = ch == VT_NONE ? VT_NONE : c->chan_sw[ch];
		}
	}
}

/* The turns of a route whose first hop is ch then ch2 (VT_NONE: none), given the rest's. */
static uint8_t turns(const struct split_ctx *c, uint32_t x, uint32_t ch, uint32_t ch2, uint8_t rest)
{
	uint32_t y = c->chan_sw[ch], z = ch2 == VT_NONE ? VT_NONE : c->chan_sw[ch2];
	const uint32_t *g;

	if (z == VT_NONE || c->level[y] >= c->level[x] || c->level[y] >= c->level[z] ||
	    c->level[y] >= c->nlev)
		return rest;
	g = c->group + (size_t)c->level[y] * c->nsw;
	if (rest != TURN_NONE || g[x] == VT_NONE || g[z] == VT_NONE || g[x] >= g[z])
		return TURN_OTHER;
	return TURN_UP;
}

/*
 * Settles every switch's route to lid: the leaves' routes are VL 0 (state 2,
 * sub 1, no turn), a walk stops at a settled switch or where the route ends
 * (a loop: the route is broken anyway, the audit says so) and settles its
 * switches backwards.
 */
static void settle(struct split_ctx *c, vt_vl_split *s, uint32_t lid)
{
	for (uint32_t s0 = 0; s0 < c->nsw; s0++) {
		uint32_t sp = 0, w = s0;
		uint8_t sub = 1, tn = TURN_NONE;

		while (w != VT_NONE && !c->state[w]) {
			c->state[w] = 1;
			c->stack[sp++] = w;
			w = c->out[w] == VT_NONE ? VT_NONE : c->chan_sw[c->out[w]];
		}
		if (w != VT_NONE && c->state[w] >= 2) {
			sub = c->sub[w];
			tn = c->turn[w];
		}
		while (sp) {
			uint32_t x = c->stack[--sp], ch = c->out[x], ch2 = next_chan(c, ch);

			if (ch2 != VT_NONE) {
				sub &= (uint8_t)has_dep(c, c->base, ch, ch2);
				tn = turns(c, x, ch, ch2, tn);
			}
			c->sub[x] = sub;
			c->turn[x] = tn;
			c->state[x] = sub || tn == TURN_UP ? 2 : 3;
			if (c->state[x] == 3) {
				uint64_t b = (uint64_t)x * s->nlid + lid;

				s->bits[b / 64] |= 1ull << (b % 64);
			}
		}
	}
}

static int above(const struct split_ctx *c, uint32_t x, unsigned l)
{
	return c->level[x] != VT_TREE_OUTSIDE && c->level[x] > l;
}

/*
 * The groups above each level l (c->group[l * nsw + x]): the switches above
 * level l joined by their links, numbered in switch order of their first
 * member; above the leaves, a split core's core groups.
 */
static void groups(struct split_ctx *c)
{
	const vt_fabric *f = c->f;

	for (unsigned l = 0; l < c->nlev; l++) {
		uint32_t n = 0, *g = c->group + (size_t)l * c->nsw;

		vt_uf_init(c->stack, c->nsw);
		for (uint32_t p = 0; p < f->nports; p++) {
			uint32_t a = f->nodes[f->ports[p].node].sw, b = c->chan_sw[p];

			if (a != VT_NONE && b != VT_NONE && above(c, a, l) && above(c, b, l))
				vt_uf_union_into(c->stack, a, b);
		}
		for (uint32_t x = 0; x < c->nsw; x++)
			g[x] = VT_NONE;
		for (uint32_t x = 0; x < c->nsw; x++) {
			uint32_t r = vt_uf_find(c->stack, x);

			if (!above(c, x, l))
				continue;
			if (g[r] == VT_NONE)
				g[r] = n++;
			g[x] = g[r];
		}
	}
}

void vt_vl_split_free(vt_vl_split *s)
{
	free(s->bits);
	memset(s, 0, sizeof(*s));
}

int vt_vl_split_compute(const vt_fabric *f, const vt_lfts *t, const uint8_t *level, vt_vl_split *s,
			vt_err *e)
{
	struct split_ctx c = {.f = f, .t = t, .level = level, .nsw = f->nswitches};
	uint64_t nbits = (uint64_t)f->nswitches * (f->max_lid + 1);
	int rc = 0;

	memset(s, 0, sizeof(*s));
	s->nsw = f->nswitches;
	s->nlid = f->max_lid + 1;
	s->nplanes = 1;
	s->cap = vt_fabric_vls(f) < 2		? 2
		 : vt_fabric_vls(f) > VT_VL_MAX ? VT_VL_MAX
						: vt_fabric_vls(f);
	s->bits = calloc(nbits / 64 + 1, sizeof(*s->bits));
	c.chan_sw = malloc((f->nports + 1) * sizeof(*c.chan_sw));
	c.out = malloc((c.nsw + 1) * sizeof(*c.out));
	c.state = malloc(c.nsw + 1);
	c.sub = malloc(c.nsw + 1);
	c.turn = malloc(c.nsw + 1);
	for (uint32_t x = 0; x < c.nsw; x++)
		if (level[x] != VT_TREE_OUTSIDE && level[x] >= c.nlev)
			c.nlev = level[x] + 1u;
	c.group = malloc(((size_t)c.nlev * c.nsw + 1) * sizeof(*c.group));
	c.stack = malloc((c.nsw + 1) * sizeof(*c.stack));
	c.base = calloc((size_t)f->nports * 4 + 1, sizeof(*c.base));
	if (!s->bits || !c.chan_sw || !c.out || !c.state || !c.sub || !c.turn || !c.group ||
	    !c.stack || !c.base) {
		rc = vt_err_nomem(e, "out of memory splitting the routes of %u switches", c.nsw);
		goto out;
	}
	for (uint32_t p = 0; p < f->nports; p++)
		c.chan_sw[p] = vt_peer_switch(f, p);
	groups(&c);
	/* every dependency of the base first: a route checked against part of it would
	 * go to VL 1 for a dependency a later LID's leaf routes make */
	for (uint32_t lid = 1; lid <= f->max_lid; lid++)
		if (vt_audit_lid(f, lid, 1)) {
			fill_out(&c, lid);
			base_deps(&c);
		}
	for (uint32_t lid = 1; lid <= f->max_lid; lid++)
		if (vt_audit_lid(f, lid, 1)) {
			fill_out(&c, lid);
			memset(c.state, 0, c.nsw);
			for (uint32_t x = 0; x < c.nsw; x++)
				if (!level[x]) /* base_deps' marks, without the dependencies again
						*/
					for (uint32_t w = x, n = 0;
					     w != VT_NONE && c.state[w] != 2 && n++ <= c.nsw;
					     w = c.out[w] == VT_NONE ? VT_NONE
								     : c.chan_sw[c.out[w]]) {
						c.state[w] = 2;
						c.sub[w] = 1;
						c.turn[w] = TURN_NONE;
					}
			settle(&c, s, lid);
		}
	rc = vt_vl_split_fix(f, t, level, s, e);
out:
	if (rc)
		vt_vl_split_free(s);
	free(c.chan_sw);
	free(c.out);
	free(c.state);
	free(c.sub);
	free(c.turn);
	free(c.group);
	free(c.stack);
	free(c.base);
	return rc;
}
