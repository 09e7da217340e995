/* SPDX-License-Identifier: MIT */
/*
 * The up*-down* bound (vt_bound.h): a bound for routes that climb, then
 * descend, the tree's levels (no hop to a higher level after a hop to a
 * lower one; a switch outside the tree counts as above every level), as
 * vartree's CA-to-CA routes and ftree's do, and minhop's, updn's and
 * dfsssp's where the shortest paths they pick are such. The cut and
 * leaf-pair bounds hold for any route; the leaf-pair bound's relays (down
 * into a leaf and up again) are no such routes, and where a subtree's
 * switches taper this bound says more.
 *
 * Proof, for such routes with max load L in a stage. S a level-l subtree,
 * l >= 1: the component of its switches over levels 0..l, so every cable
 * out of S leads to a higher level or outside the tree, and leaving S is a
 * climb. A route from a host of S to a host outside leaves S, so it has not
 * descended before: every hop before is a climb, or along a level, inside
 * S. The stage's flows out of S are then a flow over S's climbing cables
 * (capacity L each) from its leaves (supply f(u): the flows of leaf u's
 * ranks to ranks outside S) to the cables out of S, so the max flow of that
 * network is sum f(u); the flows into S, reversed (they enter by a descent
 * and never climb again), the same with their receivers. The bound is the
 * least L at which every subtree passes both (Dinic per stage).
 *
 * Skipped, as adding nothing: a subtree where every switch above level 0
 * has as many cables up as down and none has a cable along its level. Each
 * of its switches passes on upward all it takes from below, so from any set
 * A of leaves L x (A's up-links) reaches the cables out; and f(u) <= L x
 * (u's up-links) once L passes u's own cut. So the cut bound passes there.
 *
 * cores 2,6,3,12,6 --drop-switches 1: chassis 0 lost a spine and its line
 * ASICs keep 4 of 6 up-links. The first 36 ranks (six leaves) are a level-1
 * subtree whose leaves have 3 links into each chassis, leaving it over 12
 * cables of chassis 0 and 18 of chassis 1. In stage 28 ranks 0..7 stay and
 * the leaves send 0, 4, 6, 6, 6, 6 out: 28 flows on 30 cables, load 1 by
 * every cut; but at load 1 a leaf puts at most its 3 into chassis 1, 15 in
 * all, so 13 climb chassis 0's 12: load 2. Stages 28..44 carry 2, 2/1.24
 * where the cuts give 2/1.15 (31..41); vartree routes 2/1.28 (20 stages).
 * There the relay test (relay_free_fails) makes 2/1.24 the cut bound too:
 * the 13th flow could reach chassis 1 only through another leaf, whose 6
 * cables already carry the 6 flows to its own hosts.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/vt_bound.h"
#include "analysis/vt_bound_int.h"
#include "base/vt_maxflow.h"

/* More runs of ranks than this per leaf: shifts would cost n per stage, the bound stays off. */
#define CLIMB_RUNS_PER_LEAF 8

void vt_cut_climb_free(struct vt_cut_climb *cl)
{
	free(cl->tap);
	free(cl->loc);
	free(cl->noff);
	free(cl->aoff);
	free(cl->afrom);
	free(cl->ato);
	free(cl->relay);
	free(cl->lup);
	memset(cl, 0, sizeof(*cl));
}

/* A switch's level, outside the tree above every level: a cable into it leaves a subtree. */
static uint32_t level_of(const vt_tree *t, uint32_t s)
{
	return t->level[s] == VT_TREE_OUTSIDE ? UINT32_MAX : t->level[s];
}

/* Has switch s a cable to another switch of its level? */
static int along(const vt_tree *t, uint32_t s)
{
	const vt_fabric *f = t->f;
	uint32_t node = f->switches[s];

	for (unsigned pn = 1; pn <= f->nodes[node].nports; pn++) {
		uint32_t y = vt_peer_switch(f, vt_port_index(f, node, pn));
		if (y != VT_NONE && level_of(t, y) == level_of(t, s))
			return 1;
	}
	return 0;
}

/*
 * Does a subtree holding switch s need its network? Not where s passes up at
 * least what it takes from below and has no cable along its level (the
 * proof's skip); leaves (level 0) only for cables along their level.
 */
static int tapers(const vt_tree *t, uint32_t s)
{
	const vt_fabric *f = t->f;
	uint32_t node = f->switches[s], ls = level_of(t, s), up = 0, down = 0;

	if (along(t, s))
		return 1;
	for (unsigned pn = 1; pn <= f->nodes[node].nports; pn++) {
		uint32_t y = vt_peer_switch(f, vt_port_index(f, node, pn));
		if (y != VT_NONE && level_of(t, y) > ls)
			up++;
		else if (y != VT_NONE)
			down++;
	}
	return ls > 0 && up < down;
}

/* Is switch y in level-l subtree id? */
static int inside(const vt_tree *t, uint32_t l, uint32_t id, uint32_t y)
{
	return level_of(t, y) <= l && t->sub[(size_t)l * t->nsw + y] == id;
}

/*
 * Switch x's climbing cables in level-l subtree id, as arcs from its node
 * (loc[x]) to their far ends' nodes, or to nn (out of the subtree); with arc
 * NULL only counted. Returns how many.
 */
static uint32_t climb_arcs(const vt_tree *t, struct vt_cut_climb *cl, uint32_t l, uint32_t id,
			   uint32_t x, uint32_t nn, uint32_t arc)
{
	const vt_fabric *f = t->f;
	uint32_t node = f->switches[x], m = 0, lx = level_of(t, x);

	for (unsigned pn = 1; pn <= f->nodes[node].nports; pn++) {
		uint32_t y = vt_peer_switch(f, vt_port_index(f, node, pn)), to;
		if (y == VT_NONE)
			continue;
		if (inside(t, l, id, y)) {
			if (level_of(t, y) < lx)
				continue; /* a descent: no route leaving the subtree takes it */
			to = cl->loc[(size_t)l * t->nsw + y];
		} else {
			to = nn;
		}
		if (cl->afrom) {
			cl->afrom[arc + m] = cl->loc[(size_t)l * t->nsw + x];
			cl->ato[arc + m] = to;
		}
		m++;
	}
	return m;
}

/* Subtree k (level l, id)'s arcs from aoff[k]; counted only while cl->afrom is NULL. */
static void subtree_arcs(const vt_tree *t, struct vt_cut_climb *cl, uint32_t l, uint32_t id,
			 uint32_t k)
{
	uint32_t nn = cl->noff[k + 1] - cl->noff[k], m = 0;

	for (uint32_t s = 0; s < t->nsw; s++)
		if (inside(t, l, id, s))
			m += climb_arcs(t, cl, l, id, s, nn, cl->aoff[k] + m);
	if (!cl->afrom)
		cl->aoff[k + 1] = cl->aoff[k] + m;
	if (nn > cl->maxn)
		cl->maxn = nn;
	if (m > cl->maxa)
		cl->maxa = m;
}

/* Switch x's links to switch y; with y == VT_NONE, its links up (more, or outside the tree). */
static uint32_t links_to(const vt_tree *t, uint32_t x, uint32_t y)
{
	const vt_fabric *f = t->f;
	uint32_t node = f->switches[x], m = 0;

	for (unsigned pn = 1; pn <= f->nodes[node].nports; pn++) {
		uint32_t z = vt_peer_switch(f, vt_port_index(f, node, pn));
		if (z != VT_NONE)
			m += y == VT_NONE ? level_of(t, z) > level_of(t, x) : z == y;
	}
	return m;
}

/*
 * A level-1 subtree with no cable along a level, whose every leaf has m
 * links to every level-1 switch of it (a pod), passes its stages at the cut
 * bound where m (e_min / m + 1) >= e_max, e the level-1 switches' up-links:
 * the proof's skip, for a pod. There a set A of leaves reaches the cables
 * out over sum over x of min(m |A|, e(x)), below min(up(A), sum e) only
 * where m |A| > e(x) for some x and m |A| < e(x') for another: no |A| here.
 */
static int even_pod(const vt_tree *t, uint32_t id)
{
	uint32_t m = VT_NONE, emin = UINT32_MAX, emax = 0, e;

	for (uint32_t x = 0; x < t->nsw; x++) {
		if (!inside(t, 1, id, x))
			continue;
		if (along(t, x))
			return 0;
		if (level_of(t, x) != 1)
			continue;
		for (uint32_t u = 0; u < t->nsw; u++) {
			if (!inside(t, 1, id, u) || level_of(t, u) != 0)
				continue;
			uint32_t k = links_to(t, u, x);
			if (m == VT_NONE)
				m = k;
			if (k != m || !k)
				return 0;
		}
		e = links_to(t, x, VT_NONE);
		emin = e < emin ? e : emin;
		emax = e > emax ? e : emax;
	}
	return m != VT_NONE && (uint64_t)m * (emin / m + 1) >= emax;
}

/*
 * Number the tapered subtrees (tapk per subtree id, VT_NONE for the others)
 * and their switches (tap, loc); noff[k + 1] - noff[k]: subtree k's switches.
 */
static uint32_t number_tapered(const vt_tree *t, struct vt_cut_climb *cl, uint32_t *tapk,
			       uint32_t *lvl, uint32_t *ids)
{
	uint32_t nk = 0;

	for (uint32_t i = 0; i < t->nsubs; i++)
		tapk[i] = VT_NONE;
	for (uint32_t l = 1; l < cl->nl; l++)
		for (uint32_t s = 0; s < t->nsw; s++)
			if (level_of(t, s) <= l && tapers(t, s))
				tapk[t->sub[(size_t)l * t->nsw + s]] = 0;
	for (uint32_t i = 0; i < t->nsubs; i++)
		if (tapk[i] != VT_NONE && t->subs[i].level >= 1 &&
		    (t->subs[i].level > 1 || !even_pod(t, i))) {
			lvl[nk] = t->subs[i].level;
			ids[nk] = i;
			tapk[i] = nk++;
		} else {
			tapk[i] = VT_NONE;
		}
	for (uint32_t l = 1; l < cl->nl; l++)
		for (uint32_t s = 0; s < t->nsw; s++) {
			size_t at = (size_t)l * t->nsw + s;
			uint32_t k = level_of(t, s) <= l ? tapk[t->sub[at]] : VT_NONE;
			cl->tap[at] = k;
			if (k != VT_NONE)
				cl->loc[at] = cl->noff[k + 1]++; /* counted from 0, offset below */
		}
	return nk;
}

/*
 * What the relay test needs (cl->relay, cl->lup): the level-1 subtrees with
 * no cable along a level, where a route that leaves the subtree and is not
 * in the network passes through a leaf of it (down a leaf's cable and up
 * another), and the leaves' cables up. -1 when out of memory.
 */
static int relay_tests(struct vt_cut_climb *cl, const vt_tree *t, const uint32_t *lvl)
{
	cl->relay = calloc((size_t)cl->ntap + 1, 1);
	cl->lup = malloc(((size_t)t->nsw + 1) * sizeof(*cl->lup));
	if (!cl->relay || !cl->lup)
		return -1;
	for (uint32_t k = 0; k < cl->ntap; k++)
		cl->relay[k] = lvl[k] == 1;
	for (uint32_t s = 0; s < t->nsw; s++) {
		uint32_t k = cl->tap[(size_t)t->nsw + s];

		cl->lup[s] = level_of(t, s) ? VT_NONE : links_to(t, s, VT_NONE);
		if (k != VT_NONE && along(t, s))
			cl->relay[k] = 0;
	}
	return 0;
}

/* The networks of the tapered subtrees (cl->tap .. maxa); -1 when out of memory. */
static int build_networks(struct vt_cut_climb *cl, const vt_tree *t)
{
	size_t nts = (size_t)t->nsubs + 1;
	uint32_t *tapk = malloc(nts * sizeof(*tapk)), *lvl = malloc(nts * sizeof(*lvl));
	uint32_t *ids = malloc(nts * sizeof(*ids));
	int rc = -1;

	cl->noff = calloc(nts + 1, sizeof(*cl->noff));
	cl->aoff = calloc(nts + 1, sizeof(*cl->aoff));
	if (!tapk || !lvl || !ids || !cl->noff || !cl->aoff)
		goto out;
	cl->ntap = number_tapered(t, cl, tapk, lvl, ids);
	for (uint32_t k = 0; k < cl->ntap; k++)
		cl->noff[k + 1] += cl->noff[k];
	for (uint32_t k = 0; k < cl->ntap; k++)
		subtree_arcs(t, cl, lvl[k], ids[k], k);
	cl->afrom = malloc(((size_t)cl->aoff[cl->ntap] + 1) * sizeof(*cl->afrom));
	cl->ato = malloc(((size_t)cl->aoff[cl->ntap] + 1) * sizeof(*cl->ato));
	if (!cl->afrom || !cl->ato)
		goto out;
	for (uint32_t k = 0; k < cl->ntap; k++)
		subtree_arcs(t, cl, lvl[k], ids[k], k);
	rc = relay_tests(cl, t, lvl);
out:
	free(tapk);
	free(lvl);
	free(ids);
	return rc;
}

int vt_cut_climb_init(struct vt_cut_climb *cl, const vt_routes *r, const vt_tree *t)
{
	size_t cells;
	uint32_t nleaves = 0;

	memset(cl, 0, sizeof(*cl));
	cl->nl = t->nlevels > 1 ? t->nlevels - 1 : 1;
	cl->nsw = t->nsw;
	for (uint32_t s = 0; s < t->nsw; s++)
		nleaves += t->level[s] == 0;
	if (cl->nl < 2 || (uint64_t)r->nruns > (uint64_t)CLIMB_RUNS_PER_LEAF * (nleaves + 1))
		return 0;
	cells = (size_t)cl->nl * t->nsw + 1;
	cl->tap = malloc(cells * sizeof(*cl->tap));
	cl->loc = malloc(cells * sizeof(*cl->loc));
	if (!cl->tap || !cl->loc) {
		vt_cut_climb_free(cl);
		return -1;
	}
	memset(cl->tap, 0xff, cells * sizeof(*cl->tap));
	if (build_networks(cl, t)) {
		vt_cut_climb_free(cl);
		return -1;
	}
	cl->on = cl->ntap > 0;
	return 0;
}

/* Can subtree k pass supplies sup (per node, summing to total) out at load L? */
static int passes(const struct vt_cut_climb *cl, vt_maxflow *g, uint32_t k, const uint64_t *sup,
		  uint64_t total, uint64_t L)
{
	uint32_t ns = cl->noff[k + 1] - cl->noff[k], src = ns, snk = ns + 1;

	vt_maxflow_reset(g, ns + 2);
	for (uint32_t x = 0; x < ns; x++)
		if (sup[x])
			vt_maxflow_arc(g, src, x, sup[x], 0);
	for (uint32_t a = cl->aoff[k]; a < cl->aoff[k + 1]; a++)
		vt_maxflow_arc(g, cl->afrom[a], cl->ato[a] == ns ? snk : cl->ato[a], L, 0);
	return vt_maxflow_run(g, src, snk, total) == total;
}

/*
 * Supplies that passed last at load *passL (VT_NONE: none yet): supplies no
 * larger anywhere pass at a load no smaller, without a flow (shift stages
 * repeat: a subtree's leaves send all their flows out in most). Else a flow,
 * and sup kept when it passes.
 */
static int passes_kept(const struct vt_cut_climb *cl, vt_maxflow *g, uint32_t k,
		       const uint64_t *sup, uint64_t total, uint32_t L, uint64_t *passed,
		       uint32_t *passL)
{
	uint32_t ns = cl->noff[k + 1] - cl->noff[k], x = 0;

	if (*passL != VT_NONE && *passL <= L)
		while (x < ns && sup[x] <= passed[x])
			x++;
	if (*passL != VT_NONE && *passL <= L && x == ns)
		return 1;
	if (!passes(cl, g, k, sup, total, L))
		return 0;
	memcpy(passed, sup, ns * sizeof(*sup));
	*passL = L;
	return 1;
}

/*
 * The least load >= L0 at which subtree k passes sup; L0 where none does (a
 * leaf cannot climb out). passed, passL: as passes_kept keeps them.
 */
static uint32_t least_load(const struct vt_cut_climb *cl, vt_maxflow *g, uint32_t k,
			   const uint64_t *sup, uint32_t L0, uint64_t *passed, uint32_t *passL)
{
	uint64_t total = 0, lo, hi;
	uint32_t ns = cl->noff[k + 1] - cl->noff[k];

	for (uint32_t x = 0; x < ns; x++)
		total += sup[x];
	if (!total || !L0 || passes_kept(cl, g, k, sup, total, L0, passed, passL))
		return L0;
	lo = L0;
	hi = 2 * (uint64_t)L0;
	while (!passes(cl, g, k, sup, total, hi)) {
		if (hi >= total)
			return L0; /* every cable carries it all and it does not pass: no such route
				    */
		lo = hi;
		hi *= 2;
	}
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (passes(cl, g, k, sup, total, mid))
			hi = mid;
		else
			lo = mid;
	}
	return hi > UINT32_MAX ? UINT32_MAX : (uint32_t)hi;
}

struct climb_shift {
	const struct vt_cut_climb *cl;
	uint32_t *bound, *climb;
	uint8_t *full_in, *full_out; /* per tapered subtree: its leaves' cables full (relay test) */
	/* per node of every network: flows leaving, entering its subtree there */
	uint64_t *out, *in;
	/* the same, of the last stage that passed (passes_kept), and per subtree its load */
	uint64_t *pout, *pin;
	uint32_t *poutL, *pinL; /* VT_NONE before one passed */
	vt_maxflow g;
};

/*
 * Can no routing at all pass the stage at load 1 (vt_bound.h)? A level-1
 * subtree S (cl->relay) whose network fails at load 1 sends (or receives)
 * some flow by a route that is not in the network. Such a route, before it
 * first leaves S (after it last enters), keeps inside S, whose cables lead
 * from leaves to level-1 switches only: it passes through a leaf v of S,
 * down one of v's cables and up another. At load 1 each cable carries one
 * flow, and v's own flows from (to) other leaves take as many of its cables
 * down (up): where they take every one on each leaf of S, no route passes
 * through a leaf and load 1 fails. cores 2,6,3,12,6 --drop-switches 1
 * (leaves of 6 hosts on 6 cables): stages 28..30 and 42..44 (the cuts
 * pass them at 1: a relay down into a leaf and up again would carry the
 * 13th flow of stage 28 from chassis 0 into chassis 1, but every leaf
 * receives 6 flows on its 6 cables). Leaves with more cables than flows
 * (room for a relay) leave the cut bound as it is.
 */
static int relay_free_fails(struct climb_shift *cs, const struct vt_pair_work *w)
{
	const struct vt_cut_climb *cl = cs->cl;

	memset(cs->full_in, 1, cl->ntap);
	memset(cs->full_out, 1, cl->ntap);
	for (uint32_t s = 0; s < cl->nsw; s++) {
		uint32_t k = cl->tap[(size_t)cl->nsw + s];

		if (k == VT_NONE || cl->lup[s] == VT_NONE)
			continue;
		cs->full_in[k] &= w->in[s] >= cl->lup[s];
		cs->full_out[k] &= w->out[s] >= cl->lup[s];
	}
	for (uint32_t k = 0; k < cl->ntap; k++) {
		uint32_t o = cl->noff[k], ns = cl->noff[k + 1] - o;
		uint64_t tout = 0, tin = 0;

		if (!cl->relay[k])
			continue;
		for (uint32_t x = 0; x < ns; x++) {
			tout += cs->out[o + x];
			tin += cs->in[o + x];
		}
		if ((cs->full_in[k] && tout && !passes(cl, &cs->g, k, cs->out + o, tout, 1)) ||
		    (cs->full_out[k] && tin && !passes(cl, &cs->g, k, cs->in + o, tin, 1)))
			return 1;
	}
	return 0;
}

/* One stage: each tapered subtree's flows out and in per leaf, then its least load. */
static void climb_stage(void *ctx, struct vt_pair_work *w, uint32_t i)
{
	struct climb_shift *cs = ctx;
	const struct vt_cut_climb *cl = cs->cl;
	uint32_t L = cs->climb[i];

	memset(cs->out, 0, cl->noff[cl->ntap] * sizeof(*cs->out));
	memset(cs->in, 0, cl->noff[cl->ntap] * sizeof(*cs->in));
	for (uint32_t j = 0; j < w->np; j++)
		for (uint32_t l = 1; l < cl->nl; l++) {
			size_t au = (size_t)l * cl->nsw + w->u[j],
			       av = (size_t)l * cl->nsw + w->v[j];
			uint32_t ku = cl->tap[au], kv = cl->tap[av];
			if (ku == kv)
				continue; /* inside one subtree, or neither tapers */
			if (ku != VT_NONE)
				cs->out[cl->noff[ku] + cl->loc[au]] += w->d[j];
			if (kv != VT_NONE)
				cs->in[cl->noff[kv] + cl->loc[av]] += w->d[j];
		}
	for (uint32_t k = 0; k < cl->ntap; k++) {
		uint32_t o = cl->noff[k];
		L = least_load(cl, &cs->g, k, cs->out + o, L, cs->pout + o, cs->poutL + k);
		L = least_load(cl, &cs->g, k, cs->in + o, L, cs->pin + o, cs->pinL + k);
	}
	cs->climb[i] = L;
	if (cs->bound[i] == 1 && L >= 2 && relay_free_fails(cs, w))
		cs->bound[i] = 2;
}

static void climb_shift_free(struct climb_shift *cs)
{
	free(cs->out);
	free(cs->in);
	free(cs->pout);
	free(cs->pin);
	free(cs->poutL);
	free(cs->pinL);
	free(cs->full_in);
	free(cs->full_out);
	vt_maxflow_free(&cs->g);
}

int vt_bound_shift_climb(const vt_cuts *c, const vt_routes *r, uint32_t first, uint32_t K,
			 uint32_t *bound, uint32_t *climb)
{
	const struct vt_cut_climb *cl = &c->climb;
	struct climb_shift cs = {.cl = cl, .bound = bound, .climb = climb};
	size_t nodes, nn, na;
	int rc = -1;

	memcpy(climb, bound, (size_t)K * sizeof(*climb));
	if (!cl->on)
		return 0;
	nodes = (size_t)cl->noff[cl->ntap] + 1;
	nn = (size_t)cl->maxn + 2;
	na = 2 * ((size_t)cl->maxa + cl->maxn) + 2;
	cs.out = calloc(nodes, sizeof(*cs.out));
	cs.in = calloc(nodes, sizeof(*cs.in));
	cs.pout = calloc(nodes, sizeof(*cs.pout));
	cs.pin = calloc(nodes, sizeof(*cs.pin));
	cs.poutL = malloc(((size_t)cl->ntap + 1) * sizeof(*cs.poutL));
	cs.pinL = malloc(((size_t)cl->ntap + 1) * sizeof(*cs.pinL));
	cs.full_in = malloc((size_t)cl->ntap + 1);
	cs.full_out = malloc((size_t)cl->ntap + 1);
	if (cs.out && cs.in && cs.pout && cs.pin && cs.poutL && cs.pinL && cs.full_in &&
	    cs.full_out && !vt_maxflow_init(&cs.g, nn, na)) {
		memset(cs.poutL, 0xff, ((size_t)cl->ntap + 1) * sizeof(*cs.poutL));
		memset(cs.pinL, 0xff, ((size_t)cl->ntap + 1) * sizeof(*cs.pinL));
		rc = vt_pair_shift_each(&c->pairs, r, first, K, climb_stage, &cs);
	}
	climb_shift_free(&cs);
	return rc;
}
