/* SPDX-License-Identifier: MIT */
/*
 * The top tree, vt_route's fourth try (deg.top_tree): where no switch is
 * linked to every top (vt_route_turn_switch.c finds none), detours between
 * tops turn at several switches just below them, the turn switches, chosen
 * so that tops and turn switches form a tree: a turn switch's tops were
 * joined by no chain of turn switches before it (slender 8:4,3
 * --drop-links 12@1 --seed 6: no level-1 switch keeps all four tops).
 *
 * A detour switch climbs to a top; a top with no way down to the destination
 * descends into a turn switch one step closer, in that tree, to a top that
 * has one, and the turn switch goes up to one of its tops closer still, or
 * with the way down. So down-up turns happen at turn switches only, between
 * two of their tops, and the tops have no parents: a chain of dependencies
 * between two turns goes from a turn switch up to a top and straight down
 * into the next turn switch. Around a cycle it would walk a closed path in
 * the tree, which retraces some step at once: up from a turn switch to a top
 * and down into it again, or down into a turn switch and up to the same top
 * again, which no route does (the steps to the way down shrink along it).
 * vt_route audits the tables all the same.
 */
#include "vt_route_internal.h"
#include "vt_route_policy.h"

#include <string.h>

#include "vt_uf.h"

/* Are m's distinct parents, two or more, in as many sets of uf (joining them makes no cycle)? */
static int joins_apart(const vt_tree *t, uint32_t m, uint32_t *uf)
{
	uint32_t a = t->up_start[m], b = t->up_start[m + 1], n = 0;

	for (uint32_t j = a; j < b; j++) {
		uint32_t i = a, c = vt_uf_find(uf, t->up_peer[j]);

		while (vt_uf_find(uf, t->up_peer[i]) != c)
			i++; /* the first up-link into j's set */
		if (t->up_peer[i] != t->up_peer[j])
			return 0; /* two parents in one set */
		n += i == j;
	}
	return n > 1;
}

/* The turn switch the policy ranks first among those joining parents apart. */
static uint32_t next_turn(struct router *r, const vt_tree *t, uint32_t *uf)
{
	uint32_t top = t->nlevels - 1, best = VT_NONE;

	for (uint32_t i = t->lvl_start[top - 1]; i < t->lvl_start[top]; i++) {
		uint32_t m = t->by_level[i];

		if (!r->deg.tturn[m] && (best == VT_NONE || vt_route_top_tree_better(t, m, best)) &&
		    joins_apart(t, m, uf))
			best = m;
	}
	return best;
}

/*
 * deg.tturn: turn switches one by one, the policy's choice first
 * (vt_route_top_tree_better) each round, until none joins more tops.
 * Returns 0 when every top is then in one tree; uf: room for every switch.
 */
int vt_route_top_tree(struct router *r, const vt_tree *t, uint32_t *uf)
{
	uint32_t top = t->nlevels - 1, nsets, m;

	memset(r->deg.tturn, 0, t->nsw);
	if (t->nlevels < 2)
		return -1;
	nsets = t->lvl_start[top + 1] - t->lvl_start[top];
	vt_uf_init(uf, t->nsw);
	while ((m = next_turn(r, t, uf)) != VT_NONE) {
		uint32_t a = t->up_start[m], b = t->up_start[m + 1];

		r->deg.tturn[m] = 1;
		for (uint32_t j = a + 1; j < b; j++)
			if (vt_uf_find(uf, t->up_peer[j]) != vt_uf_find(uf, t->up_peer[a])) {
				vt_uf_union_min(uf, t->up_peer[j], t->up_peer[a]);
				nsets--;
			}
	}
	return nsets == 1 ? 0 : -1;
}

/* The least deg.tw among s's parents (VT_NONE: none). */
static uint32_t parents_tw(const struct router *r, uint32_t s)
{
	const vt_tree *t = r->t;
	uint32_t w = VT_NONE;

	for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++)
		w = r->deg.tw[t->up_peer[j]] < w ? r->deg.tw[t->up_peer[j]] : w;
	return w;
}

/*
 * deg.tw of the tops: tree steps (turn switches crossed) to the nearest top
 * with a way down to px, 0 for those; breadth first over the turn
 * switches. Returns -1 when some top has none.
 */
static int top_steps(struct router *r)
{
	const vt_tree *t = r->t;
	uint32_t top = t->nlevels - 1, *q = r->main.next, nq = 0, *tw = r->deg.tw;
	uint32_t a = t->lvl_start[top], b = t->lvl_start[top + 1];

	for (uint32_t i = a; i < b; i++) {
		uint32_t s = t->by_level[i];

		tw[s] = r->plan.h[s] == VT_NONE ? VT_NONE : 0;
		if (!tw[s])
			q[nq++] = s;
	}
	for (uint32_t h = 0; h < nq; h++)
		for (uint32_t k = t->dn_start[q[h]]; k < t->dn_start[q[h] + 1]; k++) {
			uint32_t m = t->dn_peer[k];

			for (uint32_t j = t->up_start[m]; r->deg.tturn[m] && j < t->up_start[m + 1];
			     j++)
				if (tw[t->up_peer[j]] == VT_NONE) {
					tw[t->up_peer[j]] = tw[q[h]] + 1;
					q[nq++] = t->up_peer[j];
				}
		}
	return nq == b - a ? 0 : -1;
}

/*
 * Detour switch s's fill route: a top down to its turn switches one tree
 * step closer; any other switch (a turn switch too) up to its parents with
 * the fewest steps.
 */
static void tree_fill(struct router *r, uint32_t s)
{
	const vt_tree *t = r->t;
	struct route_fill *fl = &r->fill;
	uint32_t off = fl->npos, tw = r->deg.tw[s];

	if (t->level[s] == t->nlevels - 1) {
		for (uint32_t k = t->dn_start[s]; k < t->dn_start[s + 1]; k++) {
			uint32_t m = t->dn_peer[k];

			if (r->deg.tturn[m] && parents_tw(r, m) + 1 == tw)
				fl->cpos[fl->npos++] = (uint8_t)(k - t->dn_start[s]);
		}
		add_fill(r, s, &t->dn_port[t->dn_start[s]], &fl->cpos[off], fl->npos - off);
		return;
	}
	for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++)
		if (r->deg.tw[t->up_peer[j]] == tw)
			fl->cpos[fl->npos++] = (uint8_t)(j - t->up_start[s]);
	add_fill(r, s, &t->up_port[t->up_start[s]], &fl->cpos[off], fl->npos - off);
}

/*
 * The plan's nd detour switches (queue[], top level first) by the top tree;
 * -1 (nothing written, deg.unsure set) where the plane has none, or a top or
 * detour switch has no way to a top with the way down.
 */
int vt_route_top_tree_detours(struct router *r, uint32_t nd)
{
	const uint32_t *q = r->plan.queue;
	const vt_tree *t = r->t;

	if (r->deg.no_tree || top_steps(r)) {
		r->deg.unsure = 1;
		return -1;
	}
	for (uint32_t i = 0; i < nd; i++)
		if (t->level[q[i]] != t->nlevels - 1 &&
		    (r->deg.tw[q[i]] = parents_tw(r, q[i])) == VT_NONE) {
			r->deg.unsure = 1;
			return -1;
		}
	for (uint32_t i = 0; i < nd; i++)
		tree_fill(r, q[i]);
	return 0;
}
