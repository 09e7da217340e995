/* SPDX-License-Identifier: MIT */
/*
 * The plan of a destination switch x: the routes towards x that the main
 * route (Algorithms 4 and 3) does not set, made once per switch and reused by
 * every LID attached to it. Ancestors of x (x is below them) go down to a
 * child that is an ancestor; every other switch with an up*-down* route goes
 * up to a parent one hop closer; switches with none take a detour
 * (vt_route_detour.c). Candidates are found once per switch class
 * (vt_route_class.c) and taken in turn, one per LID (write_fill), so the
 * LIDs of a switch spread over every shortest way.
 */
#include "vt_route_internal.h"

/* Ancestors of x (x is below them), upwards from x: h counts the hops down. */
static void plan_ancestors(struct router *r, uint32_t x)
{
	const vt_tree *t = r->t;
	struct route_plan *pl = &r->plan;
	uint32_t nq = 0;

	pl->anc[x] = pl->stamp;
	pl->h[x] = 0;
	pl->queue[nq++] = x;
	for (uint32_t q = 0; q < nq; q++) {
		uint32_t s = pl->queue[q];

		for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++) {
			uint32_t p = t->up_peer[j];

			if (!is_anc(r, p)) {
				pl->anc[p] = pl->stamp;
				pl->h[p] = pl->h[s] + 1;
				pl->queue[nq++] = p;
			}
		}
	}
}

/*
 * The candidates of the up class c's members that are not ancestors: one hop
 * more than their nearest parent, up to every parent that near (their parents
 * are one level up, done already).
 */
static struct cls *up_class(struct router *r, uint32_t c)
{
	const vt_tree *t = r->t;
	struct cls *k = &r->cls.ucl[c];
	uint32_t a, n, best = VT_NONE;

	if (k->at == r->plan.stamp)
		return k;
	a = t->up_start[k->rep];
	n = t->up_start[k->rep + 1] - a;
	k->at = r->plan.stamp;
	k->off = r->fill.npos;
	k->n = 0;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t v = r->plan.h[t->up_peer[a + j]];

		if (v < best) {
			best = v;
			k->n = 0;
		}
		if (v == best && v != VT_NONE)
			r->fill.cpos[k->off + k->n++] = (uint8_t)j;
	}
	k->h = best == VT_NONE ? VT_NONE : best + 1;
	r->fill.npos += k->n;
	return k;
}

/* The candidates of the down class c's members that are ancestors: the children that are. */
static struct cls *down_class(struct router *r, uint32_t c)
{
	const vt_tree *t = r->t;
	struct cls *k = &r->cls.dcl[c];
	uint32_t a = t->dn_start[k->rep], n = t->dn_start[k->rep + 1] - a;

	if (k->at == r->plan.stamp)
		return k;
	k->at = r->plan.stamp;
	k->off = r->fill.npos;
	k->n = 0;
	for (uint32_t j = 0; j < n; j++)
		if (is_anc(r, t->dn_peer[a + j]))
			r->fill.cpos[k->off + k->n++] = (uint8_t)j;
	r->fill.npos += k->n;
	return k;
}

/*
 * Top level first, so every parent is done before its children: ancestors
 * go down to a child that is an ancestor, the others up to their nearest
 * parents. Returns the switches left without a route, put in queue[].
 */
static uint32_t plan_hops(struct router *r, uint32_t x)
{
	const vt_tree *t = r->t;
	struct route_plan *pl = &r->plan;
	uint32_t nd = 0;

	for (uint32_t l = t->nlevels; l-- > 0;)
		for (uint32_t i = t->lvl_start[l]; i < t->lvl_start[l + 1]; i++) {
			uint32_t s = t->by_level[i];
			const struct cls *k;

			pl->dist[s] = 0; /* detours: a switch with a route */
			if (is_anc(r, s)) {
				if (s == x)
					continue;
				k = down_class(r, r->cls.dcls[s]);
				add_fill(r, s, &t->dn_port[t->dn_start[s]], &r->fill.cpos[k->off],
					 k->n);
				continue;
			}
			k = up_class(r, r->cls.ucls[s]);
			pl->h[s] = k->h;
			if (k->h == VT_NONE) {
				pl->dist[s] = VT_NONE;
				pl->queue[nd++] = s;
				continue;
			}
			pl->nreach0 += !l;
			add_fill(r, s, &t->up_port[t->up_start[s]], &r->fill.cpos[k->off], k->n);
		}
	return nd;
}

/*
 * The plan of destination switch x. Host traffic only ever enters switches
 * that route down (ancestors) or up one hop closer, and only leaves them up or
 * down as ranked, so the routes from CA ports stay up*-then-down*: the
 * detours close no credit loop for them.
 */
void vt_route_make_plan(struct router *r, uint32_t x)
{
	r->plan.px = x;
	r->plan.stamp++;
	r->plan.nreach0 = 0;
	r->fill.n = 0;
	r->fill.nrun = 0;
	r->fill.lastn = 0;
	r->fill.npos = 0;
	plan_ancestors(r, x);
	vt_route_plan_detours(r, plan_hops(r, x));
}

/*
 * Every switch of the plan gets its fill route, candidates taken in turn
 * (rot). Locals, not r->...: the byte stores may alias anything, so the
 * compiler would reload every field per entry.
 */
void vt_route_write_fill(struct router *r, uint32_t rot)
{
	uint8_t *col = r->batch.col;
	const struct route_fill *fl = &r->fill;
	const uint32_t *rstart = fl->rstart, *rn = fl->rn, nrun = fl->nrun, n = fl->n;
	const uint32_t *fsw = fl->fsw;
	const uint8_t *const *fcand = fl->fcand;
	const uint8_t *const *fbase = fl->fbase;

	/* counts repeat in runs: divide once per run */
	for (uint32_t g = 0, i = 0; g < nrun; g++) {
		uint32_t m = rot % rn[g], e = g + 1 < nrun ? rstart[g + 1] : n;

		for (; i < e; i++)
			col[fsw[i]] = fbase[i][fcand[i][m]];
	}
}
