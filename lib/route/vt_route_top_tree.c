/* SPDX-License-Identifier: MIT */
/*
 * The top tree, vt_route's fourth try (deg.top_tree): where no switch is
 * linked to every top (vt_route_turn_switch.c finds none), detours between
 * tops turn at several switches just below them, the turn switches, chosen
 * so that tops and turn switches form a tree: a turn switch's tops were
 * joined by no chain of turn switches before it (slender 8:4,3
 * --drop-links 12@1 --seed 6: no level-1 switch keeps all four tops).
 * They are taken in the policy's order; where that leaves tops apart (seed
 * 13: the first, linked to tops 0, 1, 2, leaves top 3 only on switches that
 * would join 0 and 1 again), a search tries the later candidates instead;
 * where no set of whole switches makes a tree (seed 6 of --drop-links 10@1),
 * turn switches join only some of their tops, and turn between those only.
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
#include "route/vt_route_int.h"
#include "route/vt_route_policy.h"

#include <string.h>

#include "base/vt_uf.h"

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

/* Steps (a check of what the candidates left can still join) before the search gives up. */
#define TOP_TREE_STEPS 4096u

/* The search for a top tree: tturn marks the turn switches taken so far. */
struct top_search {
	struct router *r;
	const vt_tree *t;
	uint32_t *uf;
	uint32_t steps;
};

/*
 * Joins in uf switch m's tops (only those deg.tup marks, when marked) to its
 * first top's set; returns nsets less the joins.
 */
static uint32_t join_tops(struct top_search *ts, uint32_t m, int marked, uint32_t nsets)
{
	const vt_tree *t = ts->t;
	uint32_t a = t->up_start[m];

	for (uint32_t j = a + 1; j < t->up_start[m + 1]; j++)
		if ((!marked || ts->r->deg.tup[j]) &&
		    vt_uf_find(ts->uf, t->up_peer[j]) != vt_uf_find(ts->uf, t->up_peer[a])) {
			vt_uf_union_min(ts->uf, t->up_peer[j], t->up_peer[a]);
			nsets--;
		}
	return nsets;
}

/* Joins in uf the tops of the switches marked mark in tturn; returns nsets less the joins. */
static uint32_t join_marked(struct top_search *ts, uint8_t mark, uint32_t nsets)
{
	const vt_tree *t = ts->t;
	uint32_t top = t->nlevels - 1;

	for (uint32_t i = t->lvl_start[top - 1]; i < t->lvl_start[top]; i++)
		if (ts->r->deg.tturn[t->by_level[i]] == mark)
			nsets = join_tops(ts, t->by_level[i], 0, nsets);
	return nsets;
}

/* uf: the tops joined by the turn switches taken; returns the number of sets. */
static uint32_t forest(struct top_search *ts)
{
	const vt_tree *t = ts->t;
	uint32_t top = t->nlevels - 1;

	for (uint32_t i = t->lvl_start[top]; i < t->lvl_start[top + 1]; i++)
		ts->uf[t->by_level[i]] = t->by_level[i];
	return join_marked(ts, 1, t->lvl_start[top + 1] - t->lvl_start[top]);
}

/*
 * The candidate after `after` (VT_NONE: the first) in the policy's order
 * (vt_route_top_tree_better) that joins parents apart in uf, or VT_NONE.
 */
static uint32_t next_turn(struct top_search *ts, uint32_t after)
{
	const vt_tree *t = ts->t;
	uint32_t top = t->nlevels - 1, best = VT_NONE;

	for (uint32_t i = t->lvl_start[top - 1]; i < t->lvl_start[top]; i++) {
		uint32_t m = t->by_level[i];

		if (!ts->r->deg.tturn[m] &&
		    (after == VT_NONE || vt_route_top_tree_better(t, after, m)) &&
		    (best == VT_NONE || vt_route_top_tree_better(t, m, best)) &&
		    joins_apart(t, m, ts->uf))
			best = m;
	}
	return best;
}

/*
 * Can the turn switches taken, with those from `first` on that join parents
 * apart now, hold every top in one set? (Those that do not join apart now
 * never will.) uf: as forest() makes it, before and after.
 */
static int can_span(struct top_search *ts, uint32_t first)
{
	uint8_t *tturn = ts->r->deg.tturn;
	uint32_t m = first, nsets;

	do
		tturn[m] = 2;
	while ((m = next_turn(ts, m)) != VT_NONE);
	nsets = join_marked(ts, 2, forest(ts));
	for (m = 0; m < ts->t->nsw; m++)
		tturn[m] = tturn[m] == 2 ? 0 : tturn[m];
	forest(ts);
	return nsets == 1;
}

/*
 * Takes turn switches after `after` in the policy's order until every top
 * is in one tree; 0 when that worked, tturn marking them. Each switch taken
 * joins sets of tops apart, so at most one fewer than the tops are taken;
 * where a choice leaves tops no later candidate can join, the next is
 * tried instead.
 */
static int search(struct top_search *ts, uint32_t after)
{
	uint32_t m = after;

	if (forest(ts) == 1)
		return 0;
	while ((m = next_turn(ts, m)) != VT_NONE && ts->steps++ < TOP_TREE_STEPS &&
	       can_span(ts, m)) {
		ts->r->deg.tturn[m] = 1;
		if (!search(ts, m))
			return 0;
		ts->r->deg.tturn[m] = 0;
		forest(ts);
	}
	return -1;
}

/* The first of m's up-links into the set of up-link j's parent. */
static uint32_t first_in_set(struct top_search *ts, uint32_t m, uint32_t j)
{
	uint32_t i = ts->t->up_start[m], c = vt_uf_find(ts->uf, ts->t->up_peer[j]);

	while (vt_uf_find(ts->uf, ts->t->up_peer[i]) != c)
		i++;
	return i;
}

/* The candidate after `after` in the policy's order whose parents lie in two or more sets. */
static uint32_t next_partial(struct top_search *ts, uint32_t after)
{
	const vt_tree *t = ts->t;
	uint32_t top = t->nlevels - 1, best = VT_NONE;

	for (uint32_t i = t->lvl_start[top - 1]; i < t->lvl_start[top]; i++) {
		uint32_t m = t->by_level[i], a = t->up_start[m], n = 0;

		for (uint32_t j = a; j < t->up_start[m + 1]; j++)
			n += first_in_set(ts, m, j) == j;
		if (n > 1 && (after == VT_NONE || vt_route_top_tree_better(t, after, m)) &&
		    (best == VT_NONE || vt_route_top_tree_better(t, m, best)))
			best = m;
	}
	return best;
}

/*
 * Where no set of whole turn switches makes a tree (slender 8:4,3
 * --drop-links 10@1 --seed 6: every switch below the tops that has two or
 * more of them has three of the four, and any two such share two), turn
 * switches join only some of their tops: in the policy's order, each switch
 * whose parents lie in two or more sets takes the first parent of each set
 * (tup marks those links, parallel ones too). Returns the sets left.
 */
static uint32_t partial_tree(struct top_search *ts)
{
	const vt_tree *t = ts->t;
	uint32_t nsets = forest(ts), m = VT_NONE;

	while (nsets > 1 && (m = next_partial(ts, m)) != VT_NONE) {
		uint32_t a = t->up_start[m], b = t->up_start[m + 1];

		ts->r->deg.tturn[m] = 1;
		for (uint32_t j = a; j < b; j++) {
			uint32_t i = first_in_set(ts, m, j);

			ts->r->deg.tup[j] = t->up_peer[i] == t->up_peer[j];
		}
		nsets = join_tops(ts, m, 1, nsets);
	}
	return nsets;
}

/* deg.apart: the first top of the smallest set partial_tree left (uf), deg.napart its size. */
static void fewest_apart(struct top_search *ts)
{
	const vt_tree *t = ts->t;
	uint32_t top = t->nlevels - 1, a = t->lvl_start[top], b = t->lvl_start[top + 1];

	for (uint32_t i = a; i < b; i++) {
		uint32_t c = vt_uf_find(ts->uf, t->by_level[i]), n = 0;

		for (uint32_t k = a; k < b; k++)
			n += vt_uf_find(ts->uf, t->by_level[k]) == c;
		if (ts->r->deg.apart == VT_NONE || n < ts->r->deg.napart) {
			ts->r->deg.apart = t->f->switches[t->by_level[i]];
			ts->r->deg.napart = n;
		}
	}
}

/*
 * deg.tturn: the first set of turn switches, in the policy's order
 * (vt_route_top_tree_better: the greedy choice where that makes a tree),
 * that holds every top in one tree, else partial_tree's; deg.tup their
 * links in it. Returns 0 when one was found; -1 when none exists, or the
 * search gave up after TOP_TREE_STEPS steps and partial_tree found none.
 * uf: room for every switch.
 */
int vt_route_top_tree(struct router *r, const vt_tree *t, uint32_t *uf)
{
	struct top_search ts = {.r = r, .t = t, .uf = uf};

	memset(r->deg.tturn, 0, t->nsw);
	memset(r->deg.tup, 1, t->up_start[t->nsw]);
	if (t->nlevels < 2)
		return -1;
	if (!search(&ts, VT_NONE))
		return 0;
	memset(r->deg.tturn, 0, t->nsw);
	if (partial_tree(&ts) == 1)
		return 0;
	memset(r->deg.tturn, 0, t->nsw);
	if (r->deg.apart == VT_NONE)
		fewest_apart(&ts);
	return -1;
}

/* May s's up-link j carry detours: any of a switch's, a turn switch's in the tree only. */
static inline int tree_up(const struct router *r, uint32_t s, uint32_t j)
{
	return !r->deg.tturn[s] || r->deg.tup[j];
}

/* The least deg.tw among s's parents it may climb to (VT_NONE: none). */
static uint32_t parents_tw(const struct router *r, uint32_t s)
{
	const vt_tree *t = r->t;
	uint32_t w = VT_NONE;

	for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++)
		if (tree_up(r, s, j) && r->deg.tw[t->up_peer[j]] < w)
			w = r->deg.tw[t->up_peer[j]];
	return w;
}

/* Is top p linked to turn switch m in the tree? */
static int tree_link(const struct router *r, uint32_t m, uint32_t p)
{
	const vt_tree *t = r->t;

	for (uint32_t j = t->up_start[m]; r->deg.tturn[m] && j < t->up_start[m + 1]; j++)
		if (t->up_peer[j] == p && r->deg.tup[j])
			return 1;
	return 0;
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

			for (uint32_t j = t->up_start[m];
			     tree_link(r, m, q[h]) && j < t->up_start[m + 1]; j++)
				if (r->deg.tup[j] && tw[t->up_peer[j]] == VT_NONE) {
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

			if (tree_link(r, m, s) && parents_tw(r, m) + 1 == tw)
				fl->cpos[fl->npos++] = (uint8_t)(k - t->dn_start[s]);
		}
		add_fill(r, s, &t->dn_port[t->dn_start[s]], &fl->cpos[off], fl->npos - off);
		return;
	}
	for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++)
		if (tree_up(r, s, j) && r->deg.tw[t->up_peer[j]] == tw)
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
