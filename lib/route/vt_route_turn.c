/* SPDX-License-Identifier: MIT */
/*
 * Deadlock freedom for every source, beyond the paper. Traffic that starts
 * above the leaves (aggregation nodes on every switch, storage and management
 * CAs on spines, the switches themselves) needs routes the up*-down* rule
 * cannot give: a top switch reaches another top only by going down and up
 * again. Two such turns at different switches can close a credit loop with
 * the leaves' own up*-down* routes (top A down to leaf 1 up to top B, top B
 * down to leaf 2 up to top A, and leaves 1 and 2 talking through A and B).
 *
 * So every detour turns down-up inside one set of switches: the turn leaf Z
 * and its ancestors. A switch with no up*-down* route to the destination
 * climbs (by its up*-down* route towards Z) until it is an ancestor of Z,
 * then descends towards Z, through children that have no route either while
 * it can, and turns up where it first meets one that has (on a k-ary-n-tree,
 * Z itself or one of its parents).
 *
 * Why no cycle: where Z reaches each ancestor by one up-path only (k-ary-n-
 * trees, pruned and 2-level trees), a dependency chain that leaves a turn
 * switch m1 upwards and comes down into another turn switch m2 climbs and
 * descends along up-paths of Z (m1, m2 and their parents on the way are all
 * ancestors of Z), so it would retrace its own steps, which no minimal route
 * does. Between turns there are only up*-down* routes, which form no cycle.
 * Where Z reaches an ancestor by two up-paths (a diamond), or a destination
 * has to take the turn order's detours instead, deg.unsure is set and
 * vt_route audits the finished tables (every source); on a credit loop it
 * routes once more with deg.one_way (turn_child), then, if that fails the
 * audit too, with Z the turn switch (deg.turn_switch, vt_route_turn_switch.c:
 * a switch that reaches its ancestors by one up-path each), then with the
 * tops' detours turning at the turn switches of a top tree
 * (vt_route_top_tree.c), and refuses the fabric if that fails as well.
 *
 * Why detours are not shortened to minimal routes elsewhere: a switch M of
 * group a (the level-1 switches under one set of tops) in pod p reaches a top
 * T of group b in 3 hops by turning at a leaf l of its pod: M, l, M' (group b),
 * T. Group b reaches group a through Z (M'' of b, Z, M0 of a). With the CA
 * routes these two turns chain: l up to M', M' up to T, T down to Z's
 * level-1 switch of b and into Z (CA traffic from pod p to Z's hosts), Z up to
 * M0 (the detour b -> a), M0 up to a top of a, down to M and into l (CA
 * traffic from Z's pod to l's hosts), l up to M': a credit loop. The CA routes
 * spread over every top and parallel link, so each link of that chain is some
 * route's: on vartree-gen gpu each of the 36 such 3-hop entries alone closes
 * one (tests/cli/route_turn_leaf.sh). In general one leaf per pair of groups
 * can take down-up turns both ways, and Z is that leaf for every pair, so
 * only Z's pod reaches other groups minimally; more needs virtual lanes:
 * vt_route_opts.shortest_detours (vt_route_detour.c's minimal_detours) routes
 * every detour on a shortest way and puts the turns into lower groups on
 * VL 1 (vt_vl_split), kept where each VL passes the every-source audit.
 */
#include "route/vt_route_int.h"

#include <stdlib.h>
#include <string.h>

/* Leaves: the one that reaches the most switches up*-down*, first in tree order. */
static uint32_t turn_leaf(const vt_tree *t)
{
	uint32_t best = VT_NONE, bestn = 0;

	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++) {
		uint32_t s = t->by_level[i], n = 0;
		const uint64_t *row = &t->ureach[(size_t)s * t->bw];

		for (uint32_t w = 0; w < t->bw; w++)
			n += (uint32_t)__builtin_popcountll(row[w]);
		if (n > bestn) {
			bestn = n;
			best = s;
		}
	}
	return best;
}

/*
 * The one child of ancestor s that its detours descend into: of those one hop
 * closer to Z, the first in tree order. Where Z reaches s by one up-path it
 * is the only one; in a diamond (a director's spine ASICs above its line
 * ASICs) every top then turns at the same switches, where turning at two
 * (top A down to line ASIC 1 up to top B, B down to line ASIC 2 up to A)
 * closes a credit loop with the line ASICs' own routes through the tops.
 */
static uint32_t turn_child(const struct route_degraded *d, const vt_tree *t, uint32_t s)
{
	uint32_t best = VT_NONE;

	for (uint32_t j = t->dn_start[s]; j < t->dn_start[s + 1]; j++) {
		uint32_t c = t->dn_peer[j];

		if (!d->one_way && d->inz[c])
			return VT_NONE; /* each child in inz, as before */
		if (d->inz[c] && d->hz[c] + 1 == d->hz[s] &&
		    (best == VT_NONE || t->pos[c] < t->pos[best]))
			best = c;
	}
	return best;
}

/* deg.zfirst and zpos from inz and hz (see struct route_degraded). */
static void turn_ways(struct route_degraded *d, const vt_tree *t)
{
	uint32_t n = 0;

	for (uint32_t s = 0; s < t->nsw; s++) {
		uint32_t a = t->up_start[s], m = t->up_start[s + 1] - a;

		d->zfirst[s] = n;
		if (d->inz[s]) {
			uint32_t c = turn_child(d, t, s);

			a = t->dn_start[s];
			m = t->dn_start[s + 1] - a;
			for (uint32_t j = 0; j < m; j++)
				if (c == VT_NONE ? d->inz[t->dn_peer[a + j]]
						 : t->dn_peer[a + j] == c)
					d->zpos[n++] = (uint8_t)j; /* parallel links too */
		} else if (d->hz[s] != VT_NONE) {
			for (uint32_t j = 0; j < m; j++)
				if (d->hz[t->up_peer[a + j]] + 1 == d->hz[s])
					d->zpos[n++] = (uint8_t)j;
		}
	}
	d->zfirst[t->nsw] = n;
}

void vt_route_turn_leaf(struct router *r, const vt_tree *t)
{
	struct route_degraded *d = &r->deg;
	uint32_t nq = 0, *q = r->plan.queue;

	memset(d->inz, 0, t->nsw);
	d->z = d->turn_switch ? vt_route_turn_switch(t, d->inz, q) : turn_leaf(t);
	d->no_z |= d->turn_switch && d->z == VT_NONE;
	for (uint32_t s = 0; s < t->nsw; s++)
		d->hz[s] = VT_NONE;
	if (d->z == VT_NONE) {
		turn_ways(d, t);
		return;
	}
	/* ancestors of Z: hz counts the hops down to it; one met again is a diamond */
	d->inz[d->z] = 1;
	d->hz[d->z] = 0;
	q[nq++] = d->z;
	for (uint32_t h = 0; h < nq; h++)
		for (uint32_t j = t->up_start[q[h]]; j < t->up_start[q[h] + 1]; j++) {
			uint32_t p = t->up_peer[j];

			if (j > t->up_start[q[h]] && p == t->up_peer[j - 1])
				continue; /* parallel links: one up-path */
			if (d->inz[p]) {
				d->unsure = 1;
				continue;
			}
			d->inz[p] = 1;
			d->hz[p] = d->hz[q[h]] + 1;
			q[nq++] = p;
		}
	/* the others go up towards them, top level first */
	for (uint32_t l = t->nlevels; l-- > 0;)
		for (uint32_t i = t->lvl_start[l]; i < t->lvl_start[l + 1]; i++) {
			uint32_t s = t->by_level[i];

			for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1] && !d->inz[s];
			     j++) {
				uint32_t hp = d->hz[t->up_peer[j]];

				if (hp != VT_NONE && hp + 1 < d->hz[s])
					d->hz[s] = hp + 1;
			}
		}
	turn_ways(d, t);
}

/*
 * Detour switch s's fill route, positions in its own port run: an ancestor
 * of Z goes down to the children on the way to Z, those without a route
 * first; any other switch up to its parents one hop closer to Z (its way,
 * deg.zpos, as it is).
 */
static void turn_fill(struct router *r, uint32_t s)
{
	const vt_tree *t = r->t;
	const struct route_degraded *d = &r->deg;
	struct route_fill *fl = &r->fill;
	const uint8_t *way = &d->zpos[d->zfirst[s]];
	uint32_t m = d->zfirst[s + 1] - d->zfirst[s], a = t->dn_start[s], off = fl->npos;

	if (!d->inz[s]) {
		add_fill(r, s, &t->up_port[t->up_start[s]], way, m);
		return;
	}
	for (uint32_t i = 0; i < m; i++)
		if (r->plan.h[t->dn_peer[a + way[i]]] == VT_NONE)
			fl->cpos[fl->npos++] = way[i];
	if (fl->npos > off)
		add_fill(r, s, &t->dn_port[a], &fl->cpos[off], fl->npos - off);
	else
		add_fill(r, s, &t->dn_port[a], way, m);
}

int vt_route_turn_detours(struct router *r, uint32_t nd)
{
	const uint32_t *q = r->plan.queue;
	uint32_t z = r->deg.z;

	if (z == VT_NONE || r->plan.h[z] == VT_NONE) {
		r->deg.unsure = 1; /* Z has no route there itself: the turn order's detours */
		return -1;
	}
	for (uint32_t i = 0; i < nd; i++)
		if (!r->deg.inz[q[i]] && r->deg.hz[q[i]] == VT_NONE) {
			r->deg.unsure = 1;
			return -1;
		}
	for (uint32_t i = 0; i < nd; i++)
		turn_fill(r, q[i]);
	return 0;
}
