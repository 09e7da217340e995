/* SPDX-License-Identifier: MIT */
/*
 * The plan of a destination switch x: the routes towards x that the main
 * route (Algorithms 4 and 3) does not set, made once per switch and reused by
 * every LID attached to it. Ancestors of x (x is below them) go down to a
 * child that is an ancestor; every other switch with an up*-down* route goes
 * up to a parent one hop closer; switches with none take a detour
 * (vt_route_detour.c). Up candidates are found once per switch class
 * (vt_route_class.c), down candidates from the ancestors' up-links, and
 * taken in turn, one per LID (write_fill), so the LIDs of a switch spread
 * over every shortest way.
 */
#include "route/vt_route_int.h"

/*
 * Each ancestor's down candidates, its children that are ancestors too, found
 * from those children's up-links (every parent of an ancestor is one) rather
 * than by scanning every ancestor's down-links: a top switch has one or two
 * links into the destination's pod among 64. Positions ascending, as in the
 * ancestor's dn_port[] run; queue[0 .. nq) holds the ancestors, an[] their
 * numbers of such links.
 */
static void plan_down_candidates(struct router *r, uint32_t nq)
{
	const vt_tree *t = r->t;
	struct route_plan *pl = &r->plan;
	const uint32_t *queue = pl->queue, *up_start = t->up_start, *up_peer = t->up_peer;
	const uint8_t *up_rpos = r->links.up_rpos;
	uint32_t *aoff = pl->aoff, *an = pl->an;
	uint8_t *cpos = r->fill.cpos;

	for (uint32_t q = 0; q < nq; q++) {
		aoff[queue[q]] = r->fill.npos;
		r->fill.npos += an[queue[q]];
		an[queue[q]] = 0;
	}
	for (uint32_t q = 0; q < nq; q++)
		for (uint32_t j = up_start[queue[q]]; j < up_start[queue[q] + 1]; j++) {
			uint32_t p = up_peer[j], i = aoff[p] + an[p]++;

			for (; i > aoff[p] && cpos[i - 1] > up_rpos[j]; i--) /* insertion sort */
				cpos[i] = cpos[i - 1];
			cpos[i] = up_rpos[j];
		}
}

/* Ancestors of x (x is below them), upwards from x: h counts the hops down. */
static void plan_ancestors(struct router *r, uint32_t x)
{
	const vt_tree *t = r->t;
	struct route_plan *pl = &r->plan;
	uint32_t nq = 0;

	pl->anc[x] = pl->stamp;
	pl->h[x] = 0;
	pl->an[x] = 0;
	pl->queue[nq++] = x;
	for (uint32_t q = 0; q < nq; q++) {
		uint32_t s = pl->queue[q];

		for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++) {
			uint32_t p = t->up_peer[j];

			if (!is_anc(r, p)) {
				pl->anc[p] = pl->stamp;
				pl->h[p] = pl->h[s] + 1;
				pl->an[p] = 0;
				pl->queue[nq++] = p;
			}
			pl->an[p]++;
		}
	}
	plan_down_candidates(r, nq);
}

/*
 * Hops of the nearest and farthest parent of parent set p, once per plan
 * (many up classes share one: the same parents, other links), in one
 * branch-free pass.
 */
static const struct cls *parent_set(struct router *r, uint32_t p)
{
	struct cls *ps = &r->cls.parent_sets[p];
	const uint32_t *h = r->plan.h, *pp = r->cls.ppeer;
	uint32_t lo = VT_NONE, hi = 0;

	if (ps->at == r->plan.stamp)
		return ps;
	for (uint32_t j = r->cls.pstart[ps->rep]; j < r->cls.pstart[ps->rep + 1]; j++) {
		lo = h[pp[j]] < lo ? h[pp[j]] : lo;
		hi = h[pp[j]] > hi ? h[pp[j]] : hi;
	}
	ps->at = r->plan.stamp;
	ps->lo = lo;
	ps->hi = hi;
	return ps;
}

/*
 * The candidates of the up class c's members that are not ancestors: one hop
 * more than their nearest parent, up to every parent that near (their parents
 * are one level up, done already). Where all are as near (their parent
 * set's nearest and farthest), the list is every position (cpos's first).
 */
static struct cls *up_class(struct router *r, uint32_t c)
{
	const vt_tree *t = r->t;
	struct cls *k = &r->cls.up_classes[c];
	const uint32_t *h = r->plan.h, *peer;
	const struct cls *ps;
	uint32_t n;

	if (k->at == r->plan.stamp)
		return k;
	ps = parent_set(r, r->cls.parent_set_of[k->rep]);
	peer = &t->up_peer[t->up_start[k->rep]];
	n = t->up_start[k->rep + 1] - t->up_start[k->rep];
	k->at = r->plan.stamp;
	k->h = ps->lo == VT_NONE ? VT_NONE : ps->lo + 1;
	k->off = 0; /* every parent as near (a leaf's parents in another pod): cpos's 0, 1, ... */
	k->n = ps->lo == VT_NONE ? 0 : n;
	if (ps->lo == ps->hi)
		return k;
	k->off = r->fill.npos;
	k->n = 0;
	for (uint32_t j = 0; j < n; j++)
		if (h[peer[j]] == ps->lo)
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

	for (uint32_t l = t->nlevels; l-- > 0;) {
		r->fill.leaf0 = r->fill.n; /* the leaves' from here on, at l = 0 */
		for (uint32_t i = t->lvl_start[l]; i < t->lvl_start[l + 1]; i++) {
			uint32_t s = t->by_level[i];
			const struct cls *k;

			pl->dist[s] = 0; /* detours: a switch with a route */
			pl->hup[s] = VT_NONE;
			if (is_anc(r, s)) {
				if (s == x)
					continue;
				add_fill(r, s, &t->dn_port[t->dn_start[s]],
					 &r->fill.cpos[pl->aoff[s]], pl->an[s]);
				continue;
			}
			k = up_class(r, r->cls.up_class_of[s]);
			pl->h[s] = k->h;
			pl->hup[s] = k->h;
			if (k->h == VT_NONE) {
				pl->dist[s] = VT_NONE;
				pl->queue[nd++] = s;
				continue;
			}
			pl->nreach0 += !l;
			add_fill(r, s, &t->up_port[t->up_start[s]], &r->fill.cpos[k->off], k->n);
		}
	}
	r->fill.leaf1 = r->fill.n;
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
	assert(x < r->t->nsw && r->t->level[x] != VT_TREE_OUTSIDE);
	r->fill.npos = VT_MAX_PORTS + 1; /* after the list of every position */
	plan_ancestors(r, x);
	vt_route_plan_detours(r, plan_hops(r, x));
	assert(r->fill.npos <= r->fill.cap); /* plane_setup's bound: three lists per link */
}

/*
 * Fill routes lo .. hi - 1, candidates taken in turn (rot); where keep, only
 * switches nothing wrote yet. Locals, not r->...: the byte stores may alias
 * anything, so the compiler would reload every field per entry.
 */
static void write_fill_range(struct router *r, uint32_t rot, uint32_t lo, uint32_t hi, int keep)
{
	uint8_t *col = r->batch.col;
	const struct route_fill *fl = &r->fill;
	const uint32_t *rstart = fl->rstart, *rn = fl->rn, nrun = fl->nrun, n = fl->n;
	const uint32_t *fsw = fl->fsw;
	const uint8_t *const *fcand = fl->fcand;
	const uint8_t *const *fbase = fl->fbase;

	/* counts repeat in runs: divide once per run */
	for (uint32_t g = 0; g < nrun && rstart[g] < hi; g++) {
		uint32_t b = rstart[g] > lo ? rstart[g] : lo, e = g + 1 < nrun ? rstart[g + 1] : n;
		uint32_t m;

		if (e <= lo)
			continue;
		m = rot % rn[g];
		e = e < hi ? e : hi;
		if (keep) {
			for (; b < e; b++)
				if (col[fsw[b]] == VT_LFT_NONE)
					col[fsw[b]] = fbase[b][fcand[b][m]];
		} else {
			for (; b < e; b++)
				col[fsw[b]] = fbase[b][fcand[b][m]];
		}
	}
}

/*
 * Every switch of the plan but the leaves that route up gets its fill route
 * before the main route: the descent (vt_route_upgoing.c) writes those
 * leaves, all of them unless some lost their link (vt_route_write_leaf_fill).
 */
void vt_route_write_fill(struct router *r, uint32_t rot)
{
	write_fill_range(r, rot, 0, r->fill.leaf0, 0);
	write_fill_range(r, rot, r->fill.leaf1, r->fill.n, 0);
}

/* After the main route: the leaves that route up and that nothing wrote get their fill route. */
void vt_route_write_leaf_fill(struct router *r, uint32_t rot)
{
	write_fill_range(r, rot, r->fill.leaf0, r->fill.leaf1, 1);
}
