/* SPDX-License-Identifier: MIT */
/*
 * Degraded trees, beyond the paper: switches with no up*-down* route towards
 * a destination switch (a top switch towards another top's LID, a switch cut
 * off by a missing link) take a shortest path to the switches that have one,
 * over any link. Such a detour may turn down and then up again; the turns
 * follow one global order of switch classes (deg.rank, vt_route_turn_ranks),
 * so, with the up*-down* routes from CA ports, they close no credit loop.
 */
#include "route/vt_route_int.h"

#include <stdlib.h>

#include "base/vt_uf.h"

/*
 * The lowest turn rank among the parents c's own route may go up to (one hop
 * closer to px); computed once per plan and up class, as every detour switch
 * above c asks (c routes up, so it has its class's parents and hop count).
 */
static uint32_t up_rank(struct router *r, uint32_t c)
{
	const vt_tree *t = r->t;
	struct route_plan *pl = &r->plan;
	uint32_t m = UINT32_MAX, u = r->cls.up_class_of[c];

	if (pl->urank_at[u] == pl->stamp)
		return pl->urank[u];
	for (uint32_t j = t->up_start[c]; j < t->up_start[c + 1]; j++)
		if (pl->h[t->up_peer[j]] + 1 == pl->h[c] && r->deg.rank[t->up_peer[j]] < m)
			m = r->deg.rank[t->up_peer[j]];
	pl->urank_at[u] = pl->stamp;
	pl->urank[u] = m;
	return m;
}

/*
 * May a detour come down from s into c and follow c's route? c's route is
 * up*-down*; where it goes up the detour turns down-up at c, which is safe
 * when s ranks below every parent c may go up to (the turn order): the turn
 * is allowed when turn_key(c) > rank[s].
 */
static uint32_t turn_key(struct router *r, uint32_t c)
{
	return r->plan.dist[c] || is_anc(r, c) ? UINT32_MAX : up_rank(r, c);
}

/* The parents at distance d - 1 of up class c's members, those of the lowest turn rank. */
static struct cls *detour_up(struct router *r, uint32_t c, uint32_t d)
{
	const vt_tree *t = r->t;
	struct cls *k = &r->cls.up_classes[c];
	uint32_t a = t->up_start[k->rep], n = t->up_start[k->rep + 1] - a, br = UINT32_MAX;

	if (k->detour_at == r->plan.stamp && k->detour_dist == d)
		return k;
	k->detour_at = r->plan.stamp;
	k->detour_dist = d;
	k->detour_off = r->fill.npos;
	k->detour_n = 0;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t p = t->up_peer[a + j];

		if (r->plan.dist[p] + 1 != d || r->deg.rank[p] > br)
			continue;
		if (r->deg.rank[p] < br) {
			br = r->deg.rank[p];
			k->detour_n = 0;
		}
		r->fill.cpos[k->detour_off + k->detour_n++] = (uint8_t)j;
	}
	r->fill.npos += k->detour_n;
	return k;
}

/* The children at distance d - 1 of down class c's members, and their turn keys' range. */
static struct cls *detour_down(struct router *r, uint32_t c, uint32_t d)
{
	const vt_tree *t = r->t;
	struct cls *k = &r->cls.down_classes[c];
	uint32_t a = t->dn_start[k->rep], n = t->dn_start[k->rep + 1] - a;

	if (k->detour_at == r->plan.stamp && k->detour_dist == d)
		return k;
	k->detour_at = r->plan.stamp;
	k->detour_dist = d;
	k->detour_off = r->fill.npos;
	k->detour_n = 0;
	k->turn_key_min = UINT32_MAX;
	k->turn_key_max = 0;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t ch = t->dn_peer[a + j], key;

		if (r->plan.dist[ch] + 1 != d)
			continue;
		key = turn_key(r, ch);
		k->turn_key_min = key < k->turn_key_min ? key : k->turn_key_min;
		k->turn_key_max = key > k->turn_key_max ? key : k->turn_key_max;
		r->fill.cpos[k->detour_off + k->detour_n++] = (uint8_t)j;
	}
	r->fill.npos += k->detour_n;
	return k;
}

/*
 * A detour switch s goes one hop closer to a switch with a route: up to the
 * parents of the lowest turn rank if it can, else down where the turn is
 * allowed (turn_key), else (none allowed) down anywhere closer.
 */
static void detour_cands(struct router *r, uint32_t s)
{
	const vt_tree *t = r->t;
	struct route_fill *fl = &r->fill;
	uint32_t d = r->plan.dist[s], rk = r->deg.rank[s], off;
	const struct cls *k = detour_up(r, r->cls.up_class_of[s], d);
	const uint8_t *dn = &t->dn_port[t->dn_start[s]];

	if (k->detour_n) {
		add_fill(r, s, &t->up_port[t->up_start[s]], &fl->cpos[k->detour_off], k->detour_n);
		return;
	}
	k = detour_down(r, r->cls.down_class_of[s], d);
	if (k->turn_key_min > rk || k->turn_key_max <= rk) { /* all allowed, or none */
		add_fill(r, s, dn, &fl->cpos[k->detour_off], k->detour_n);
		return;
	}
	off = fl->npos;
	for (uint32_t i = 0; i < k->detour_n; i++) {
		uint8_t j = fl->cpos[k->detour_off + i];

		if (turn_key(r, t->dn_peer[t->dn_start[s] + j]) > rk)
			fl->cpos[fl->npos++] = j;
	}
	add_fill(r, s, dn, &fl->cpos[off], fl->npos - off);
}

/* Is some peer[a .. b) at distance d? */
static inline int any_at(const uint32_t *dist, const uint32_t *peer, uint32_t a, uint32_t b,
			 uint32_t d)
{
	for (; a < b; a++)
		if (dist[peer[a]] == d)
			return 1;
	return 0;
}

/* Hops from s to px: its route's, or its shortest detour's (dist, 0: s has a route). */
static inline uint32_t hops_to(const struct router *r, uint32_t s)
{
	return r->plan.dist[s] ? r->plan.dist[s] : r->plan.h[s];
}

/* The fewest hops to px through the neighbours peer[a .. b), plus one (VT_NONE: none). */
static uint32_t via(const struct router *r, const uint32_t *peer, uint32_t a, uint32_t b)
{
	uint32_t best = VT_NONE;

	for (; a < b; a++) {
		uint32_t hn = hops_to(r, peer[a]);

		if (hn != VT_NONE && hn + 1 < best)
			best = hn + 1;
	}
	return best;
}

/* Positions in peer[a .. b) of the neighbours hd - 1 hops from px, into cpos; their number. */
static uint32_t closer(struct router *r, const uint32_t *peer, uint32_t a, uint32_t b, uint32_t hd)
{
	uint32_t n = 0;

	for (uint32_t j = a; j < b; j++)
		if (hops_to(r, peer[j]) + 1 == hd)
			r->fill.cpos[r->fill.npos + n++] = (uint8_t)(j - a);
	return n;
}

/*
 * deg.minimal: each detour switch takes a shortest way to px over any link
 * (through switches with a route, their hops as routed), down to children
 * where one is as short (the route turns down-up once, at the first switch
 * with a route: down then a leaf's own route), else up. No turn order: the
 * routes that close a credit loop with the leaves' go on VL 1, which
 * vt_route_vl's split finds and its audit checks, each VL apart.
 */
static void minimal_detours(struct router *r, uint32_t nd)
{
	const vt_tree *t = r->t;
	const uint32_t *q = r->plan.queue;
	uint32_t *dist = r->plan.dist;

	for (int changed = 1; changed;) { /* shortest first: a few rounds, one per detour hop */
		changed = 0;
		for (uint32_t i = 0; i < nd; i++) {
			uint32_t s = q[i];
			uint32_t dn = via(r, t->dn_peer, t->dn_start[s], t->dn_start[s + 1]);
			uint32_t up = via(r, t->up_peer, t->up_start[s], t->up_start[s + 1]);
			uint32_t hd = dn < up ? dn : up;

			if (hd < dist[s]) {
				dist[s] = hd;
				changed = 1;
			}
		}
	}
	for (uint32_t i = 0; i < nd; i++) {
		uint32_t s = q[i], n;

		if (dist[s] == VT_NONE)
			continue; /* cut off from every route */
		n = closer(r, t->dn_peer, t->dn_start[s], t->dn_start[s + 1], dist[s]);
		if (n) {
			add_fill(r, s, &t->dn_port[t->dn_start[s]], &r->fill.cpos[r->fill.npos], n);
		} else {
			n = closer(r, t->up_peer, t->up_start[s], t->up_start[s + 1], dist[s]);
			add_fill(r, s, &t->up_port[t->up_start[s]], &r->fill.cpos[r->fill.npos], n);
		}
		r->fill.npos += n;
	}
}

/*
 * The nd switches without a route are queue[0 .. nd), dist VT_NONE; rounds
 * pull distance k onto those next to a switch at k - 1 (a hit ends a
 * switch's scan), then each gets its candidates.
 */
void vt_route_plan_detours(struct router *r, uint32_t nd)
{
	const vt_tree *t = r->t;
	uint32_t *q = r->plan.queue, *got = r->main.cur, ngot = 0; /* the descent's cur is free */
	uint32_t *dist = r->plan.dist;

	r->deg.detours += nd > 0;
	if (nd && r->deg.minimal) {
		minimal_detours(r, nd);
		return;
	}
	if (!nd ||
	    !(r->deg.top_tree ? vt_route_top_tree_detours(r, nd) : vt_route_turn_detours(r, nd)))
		return;
	for (uint32_t k = 1, left = nd; left; k++) {
		uint32_t n = 0;

		for (uint32_t i = 0; i < left; i++) {
			uint32_t s = q[i];

			if (any_at(dist, t->dn_peer, t->dn_start[s], t->dn_start[s + 1], k - 1) ||
			    any_at(dist, t->up_peer, t->up_start[s], t->up_start[s + 1], k - 1))
				dist[got[ngot++] = s] = k;
			else
				q[n++] = s; /* still far: keep for the next round */
		}
		if (n == left)
			break; /* the rest are cut off from every route */
		left = n;
	}
	/* in any order: a switch's candidates depend on the distances alone */
	for (uint32_t i = 0; i < ngot; i++)
		detour_cands(r, got[i]);
}

/* deg.rank: see struct route_degraded. Classes ranked by their first switch in tree order. */
int vt_route_turn_ranks(struct router *r, const vt_tree *t, vt_err *e)
{
	uint32_t nsw = t->nsw, *uf = malloc((nsw + 1) * sizeof(*uf));
	uint8_t *lost = calloc(nsw + 1, 1);

	if (!uf || !lost) {
		free(uf);
		free(lost);
		return vt_err_nomem(e, "out of memory");
	}
	/* classes: the children of one switch, each named by its least member */
	vt_uf_init(uf, nsw);
	for (uint32_t s = 0; s < nsw; s++)
		for (uint32_t j = t->dn_start[s]; j + 1 < t->dn_start[s + 1]; j++)
			vt_uf_union_min(uf, t->dn_peer[j], t->dn_peer[j + 1]);
	for (uint32_t s = 0; s < nsw; s++)
		if (t->level[s] != VT_TREE_OUTSIDE && t->level[s] &&
		    t->dn_start[s + 1] - t->dn_start[s] < t->lv[t->level[s]].down_links)
			lost[vt_uf_find(uf, s)] = 1;
	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[t->nlevels]; i++) {
		uint32_t s = t->by_level[i], c = vt_uf_find(uf, s);

		r->deg.rank[s] = lost[c] * nsw + t->pos[c];
	}
	free(uf);
	free(lost);
	return 0;
}
