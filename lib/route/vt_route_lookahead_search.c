/* SPDX-License-Identifier: MIT */
/* The look-ahead's plan improved by moves (vt_route_look_int.h). */
#include <stdlib.h>
#include <string.h>

#include "base/vt_rand.h"
#include "route/vt_route_look_int.h"

/*
 * The plan improved by single moves (look_search): one source leaf's flows
 * to one rank over another top they share, kept where the shift's worst
 * stage or the sum of the stages' highest loads drops. Greedy plans fix
 * each rank's tops seeing only the ranks before it; a move sees them all
 * (uneven 12,10,8,8,3,0:6,6,6,6,2,6:6: 2/1.845 planned, 2/1.831 = the cut
 * bound moved; uneven 20,18,16,14,12,10:10,10,8,8,6,6:10: 3/2.66 routed,
 * 3/2.39 moved, 3/2.07 with swaps (swap_pass), bound 2/1.83; uneven
 * 16,16,16,8,0,4:8,8,8,4,8,2:8: 3/2.35 moved, 3/2.05 with swaps, bound
 * 2/1.92: a local minimum may stay above the bound). Loads count whole flows here; per stage a
 * histogram of the links' loads keeps its highest load, and per load the stages at it keep the
 * worst.
 */
struct look_search {
	uint32_t levels; /* load levels per stage: 0 .. levels - 1 */
	uint32_t *hist;	 /* hist[s * levels + l]: links of stage s carrying l flows */
	uint32_t *smax;	 /* per stage: its highest load, at least 1 (a host's link) */
	uint32_t *whist; /* per load: the stages whose highest load it is */
	struct look_figures fg;
	uint64_t crowd; /* links at their stage's highest load, summed over stages */
	uint64_t sq;	/* loads squared, summed over links and stages */
	/* the walk's (walk_bound): per stage its cut bound, NULL outside the walk */
	uint32_t *cap;
	uint32_t gcap;	       /* ... and their worst */
	uint64_t over;	       /* loads above gcap, summed over links and stages */
	uint32_t *oset, nover; /* the link-stages above their cap: ids, up cells then down */
	uint32_t *opos;	       /* per id: its place in oset plus 1, 0 when not there */
	uint32_t cells;	       /* up cells (as many down cells) */
};

/*
 * Is the search's state a better than b: the shift figures, then fewer links
 * at their stage's highest load (a stage's highest load drops only once
 * every link at it has moved), then the loads spread more evenly.
 */
static int search_better(const struct look_search *a, const struct look_search *b)
{
	if (a->fg.worst != b->fg.worst || a->fg.sum != b->fg.sum)
		return vt_route_look_better_plan(&a->fg, &b->fg);
	if (a->crowd != b->crowd)
		return a->crowd < b->crowd;
	return a->sq < b->sq;
}

/*
 * Leaf ranks visited by moves past which the search stops: oversub
 * 36,24,12,12 --drop-links 5@0 (864 hosts) routes in 0.20 s CPU against 0.12
 * s without the search (3.01 -> 2.98 average, bound 2.92).
 */
#define LOOK_SEARCH_WORK (1ull << 20)

static void set_smax(struct look_search *ls, uint32_t s, uint32_t v)
{
	uint32_t old = ls->smax[s];

	ls->whist[old]--;
	ls->whist[v]++;
	ls->fg.sum = ls->fg.sum + v - (uint64_t)old;
	ls->smax[s] = v;
	if (v > ls->fg.worst)
		ls->fg.worst = v;
	while (!ls->whist[ls->fg.worst])
		ls->fg.worst--;
}

/* A link's load in stage s (*cell, whole flows) changed by delta (+1 or -1). */
static void cell_move(struct look_search *ls, uint32_t s, uint32_t *cell, int delta)
{
	uint32_t l = *cell, nl = (uint32_t)((int32_t)l + delta),
		 *h = ls->hist + (size_t)s * ls->levels;

	ls->crowd -= h[ls->smax[s]];
	ls->sq = ls->sq + (uint64_t)nl * nl - (uint64_t)l * l;
	*cell = nl;
	if (l)
		h[l]--;
	if (nl)
		h[nl]++;
	if (nl > ls->smax[s])
		set_smax(ls, s, nl);
	else if (delta < 0 && l == ls->smax[s] && !h[l])
		set_smax(ls, s, l > 1 ? l - 1 : 1);
	ls->crowd += h[ls->smax[s]];
}

/* Link-stage id (up cells, then down cells) joins or leaves the walk's set above the bounds. */
static void walk_track(struct look_search *ls, uint32_t id, int above)
{
	uint32_t p;

	if (above) {
		ls->oset[ls->nover] = id;
		ls->opos[id] = ++ls->nover;
		return;
	}
	p = ls->opos[id] - 1;
	ls->oset[p] = ls->oset[--ls->nover];
	ls->opos[ls->oset[p]] = p + 1;
	ls->opos[id] = 0;
}

/* cell_move of link-stage id (its load: cell), and in the walk its load above the bounds. */
static void flow_cell(struct look_search *ls, uint32_t s, uint32_t *cell, uint32_t id, int delta)
{
	uint32_t l = *cell, c;

	cell_move(ls, s, cell, delta);
	if (!ls->cap)
		return;
	c = ls->cap[s];
	ls->over = ls->over + (*cell > ls->gcap ? *cell - ls->gcap : 0) -
		   (l > ls->gcap ? l - ls->gcap : 0);
	if ((l > c) != (*cell > c))
		walk_track(ls, id, *cell > c);
}

/* Leaf x's flows to rank d (on leaf y) moved from top k to top kk. */
static void move_flows(struct router *r, struct look_search *ls, uint32_t d, uint32_t x, uint32_t k,
		       uint32_t kk)
{
	const vt_tree *t = r->t;
	struct route_look *lk = &r->look;
	uint32_t n = t->order.n, y = leaf_of(r, d);
	size_t cells = (size_t)n * lk->nl * lk->ns;

	for (uint32_t i = lk->first[x]; i < lk->first[x] + lk->nranks[x]; i++) {
		uint32_t s = (d + n - i) % n, *u = up_cell(lk, s, x, k), *v = dn_cell(lk, s, k, y);

		if (t->order.port[i] == VT_NONE)
			continue;
		flow_cell(ls, s, u, (uint32_t)(u - lk->up), -1);
		flow_cell(ls, s, v, (uint32_t)(cells + (size_t)(v - lk->dn)), -1);
		u = up_cell(lk, s, x, kk);
		v = dn_cell(lk, s, kk, y);
		flow_cell(ls, s, u, (uint32_t)(u - lk->up), 1);
		flow_cell(ls, s, v, (uint32_t)(cells + (size_t)(v - lk->dn)), 1);
	}
	tops_of(lk, d)[x] = kk;
}

/* The histograms of the model as it stands (loads in whole flows from here on). */
static void search_init(struct route_look *lk, uint32_t n, struct look_search *ls)
{
	size_t cells = (size_t)lk->nl * lk->ns;

	ls->fg = (struct look_figures){0};
	ls->crowd = ls->sq = 0;
	for (uint32_t s = 0; s < n; s++) {
		uint32_t *h = ls->hist + (size_t)s * ls->levels, m = 1;

		for (size_t i = 0; i < cells; i++) {
			uint32_t *u = &lk->up[s * cells + i], *w = &lk->dn[s * cells + i];

			*u /= VT_LOOK_Q;
			*w /= VT_LOOK_Q;
			h[*u] += *u != 0;
			h[*w] += *w != 0;
			ls->sq += (uint64_t)*u * *u + (uint64_t)*w * *w;
			m = *u > m ? *u : m;
			m = *w > m ? *w : m;
		}
		ls->smax[s] = m;
		ls->crowd += h[m];
		ls->whist[m]++;
		if (s) { /* stage 0 sends nowhere: no figure (its highest load stays 1) */
			ls->fg.sum += m;
			ls->fg.worst = m > ls->fg.worst ? m : ls->fg.worst;
		}
	}
}

/*
 * Does one of leaf x's flows to rank d (on leaf y, over top k) cross a link
 * at its stage's highest load? Only such a move can lower the figures.
 */
static int at_max(struct router *r, const struct look_search *ls, uint32_t d, uint32_t x,
		  uint32_t k)
{
	const vt_tree *t = r->t;
	const struct route_look *lk = &r->look;
	uint32_t n = t->order.n, y = leaf_of(r, d);

	for (uint32_t i = lk->first[x]; i < lk->first[x] + lk->nranks[x]; i++) {
		uint32_t s = (d + n - i) % n;

		if (t->order.port[i] != VT_NONE &&
		    (*up_cell(lk, s, x, k) == ls->smax[s] || *dn_cell(lk, s, k, y) == ls->smax[s]))
			return 1;
	}
	return 0;
}

/* One pass of moves over every rank and leaf: 1 when one was kept. */
static int search_pass(struct router *r, struct look_search *ls, uint64_t *work)
{
	const vt_tree *t = r->t;
	struct route_look *lk = &r->look;
	int kept = 0;

	for (uint32_t d = 0; d < t->order.n && *work < LOOK_SEARCH_WORK; d++) {
		uint32_t y = leaf_of(r, d), *c = tops_of(lk, d);

		for (uint32_t x = 0; t->order.port[d] != VT_NONE && x < lk->nl; x++) {
			for (uint32_t kk = 0; x != y && c[x] != VT_NONE && kk < lk->ns; kk++) {
				struct look_search before = *ls;
				uint32_t k = c[x];

				if (kk == k || !linked(lk, x, kk) || !linked(lk, y, kk))
					continue;
				*work += lk->nranks[x];
				if (!at_max(r, ls, d, x, k))
					break; /* no other top helps either */
				move_flows(r, ls, d, x, k, kk);
				if (search_better(ls, &before))
					kept = 1;
				else
					move_flows(r, ls, d, x, kk, k);
			}
		}
	}
	return kept;
}

/*
 * Leaf x's flows to rank d (over top k, at a stage's highest load) swapped
 * with its flows to a rank e near d (over another top ke), whose stages
 * overlap d's: one move alone may raise a stage the other lowers. 1 when a
 * swap was kept.
 */
static int swap_near(struct router *r, struct look_search *ls, uint32_t d, uint32_t x,
		     uint64_t *work)
{
	const vt_tree *t = r->t;
	struct route_look *lk = &r->look;
	uint32_t n = t->order.n, y = leaf_of(r, d), w = lk->nranks[x], k = tops_of(lk, d)[x];

	for (uint32_t j = 1; j < 2 * w && j < n; j++) {
		uint32_t e = (d + n + j - w) % n, ye = leaf_of(r, e), ke;
		struct look_search before = *ls;

		if (e == d || t->order.port[e] == VT_NONE || ye == x)
			continue;
		ke = tops_of(lk, e)[x];
		if (ke == VT_NONE || ke == k || !linked(lk, y, ke) || !linked(lk, ye, k))
			continue;
		*work += 2 * (uint64_t)w;
		move_flows(r, ls, d, x, k, ke);
		move_flows(r, ls, e, x, ke, k);
		if (search_better(ls, &before))
			return 1;
		move_flows(r, ls, e, x, k, ke);
		move_flows(r, ls, d, x, ke, k);
	}
	return 0;
}

/* One pass of swaps over every rank at a stage's highest load: 1 when one was kept. */
static int swap_pass(struct router *r, struct look_search *ls, uint64_t *work)
{
	const vt_tree *t = r->t;
	struct route_look *lk = &r->look;
	int kept = 0;

	for (uint32_t d = 0; d < t->order.n && *work < LOOK_SEARCH_WORK; d++) {
		uint32_t y = leaf_of(r, d), *c = tops_of(lk, d);

		for (uint32_t x = 0; t->order.port[d] != VT_NONE && x < lk->nl; x++)
			if (x != y && c[x] != VT_NONE && at_max(r, ls, d, x, c[x]))
				kept |= swap_near(r, ls, d, x, work);
	}
	return kept;
}

/*
 * The walk (after the moves and swaps stall), directed at the cut bound: a
 * link-stage loaded above its stage's cut bound (walk_bound) is drawn, one
 * flow crossing it (a leaf's flows to one rank) moves to another top drawn
 * from those it may take, and half the time a rank near it takes its old
 * top back from that one (a swap: the leaf's up-links keep their loads in
 * the stages both cross). Kept unless the loads above the bound's worst
 * (weighed WALK_OVER) plus the sum of the stages' highest loads rise, so
 * the plan drifts across plateaus the strict descent cannot leave; the best
 * plan passed is kept. Drawn from every flow instead (as first landed), the
 * moves mostly touched no overloaded link: uneven 16,16,16,8,0,4:8,8,8,4,8,2:8
 * reached the cut bound after 2^24.9 leaf ranks of work (0.78 s CPU), now
 * after 2^18.3 (0.04 s). Seeded, so the tables stay deterministic; it stops
 * at the bound, after LOOK_WALK_STALL work without a better plan, or after
 * LOOK_WALK_WORK (about 0.6 s CPU: oversub 8,12,4,4 --drop-links 2@0 --seed 9
 * improves at 2^23.2 and stops there), and on small models only: oversub
 * 36,24,12,12 --drop-links 5@0 (864 hosts) took 6 s for no better shift.
 * Where the bound is out of reach the figures depend on the seed (trials
 * of seeds 1-3 without the stall: uneven 20,18,16,14,12,10:10,10,8,8,6,6:10
 * stage sums 232-234, the oversub above 390-391). The uneven one's worst 3
 * (cut bound 2) was not forced: walks of 2^28 work (seeds 11-16) ended at
 * worst 3, sums 232-235, where the weighed walk below reaches 2/1.83, the
 * cut bound.
 */
#define WALK_OVER	20u
#define WALK_SEED	3u
#define LOOK_WALK_STALL (1ull << 23)
#define LOOK_WALK_WORK	(1ull << 24)
#define LOOK_WALK_CELLS (1u << 14) /* ranks x leaves x tops */

/*
 * The model's cut bound per stage (each leaf's flows out and in over its
 * links to tops) into cap[], its figures into *b; the loads in whole flows.
 */
static void walk_bound(const struct route_look *lk, uint32_t n, uint32_t *cap,
		       struct look_figures *b)
{
	*b = (struct look_figures){0};
	cap[0] = 1;
	for (uint32_t s = 1; s < n; s++) {
		uint32_t m = 1;

		for (uint32_t x = 0; x < lk->nl; x++) {
			uint32_t out = 0, in = 0, nu = 0;

			for (uint32_t k = 0; k < lk->ns; k++) {
				out += *up_cell(lk, s, x, k);
				in += *dn_cell(lk, s, k, x);
				nu += linked(lk, x, k);
			}
			out = nu ? (out > in ? out : in) : 0;
			m = nu && (out + nu - 1) / nu > m ? (out + nu - 1) / nu : m;
		}
		cap[s] = m;
		b->worst = m > b->worst ? m : b->worst;
		b->sum += m;
	}
}

/* Link-stage id decoded: its stage s, top k, leaf l (x up, y down) and direction. */
struct link_stage {
	uint32_t s, k, l;
	int dn;
};

static struct link_stage link_stage_of(const struct route_look *lk, uint32_t cells, uint32_t id)
{
	uint32_t c = id % cells;
	int dn = id >= cells;

	return (struct link_stage){c / (lk->nl * lk->ns), dn ? c / lk->nl % lk->ns : c % lk->ns,
				   dn ? c % lk->nl : c / lk->ns % lk->nl, dn};
}

/*
 * Does leaf rank j's flow of link-stage ls cross it? Its destination rank
 * into *e, its source leaf into *xi.
 */
static int flow_crosses(const struct router *r, const struct link_stage *ls, uint32_t j,
			uint32_t *e, uint32_t *xi)
{
	const vt_tree *t = r->t;
	uint32_t n = t->order.n, i = ls->dn ? (j + n - ls->s) % n : j;

	*e = ls->dn ? j : (j + ls->s) % n;
	*xi = leaf_of(r, i);
	return t->order.port[i] != VT_NONE && t->order.port[*e] != VT_NONE &&
	       leaf_of(r, *e) != *xi && tops_of(&r->look, *e)[*xi] == ls->k;
}

/*
 * Draws one of the flows crossing link-stage id (up cells, then down
 * cells): its rank into *d, its source leaf into *x; 0 when none. *work
 * counts the leaf ranks visited.
 */
static int walk_flow(struct router *r, vt_rand *g, uint32_t id, uint32_t *d, uint32_t *x,
		     uint64_t *work)
{
	const struct route_look *lk = &r->look;
	struct link_stage at = link_stage_of(lk, r->t->order.n * lk->nl * lk->ns, id);
	uint32_t got = 0, l = at.l;

	*work += lk->nranks[l];
	for (uint32_t j = lk->first[l]; j < lk->first[l] + lk->nranks[l]; j++) {
		uint32_t e, xi;

		if (!flow_crosses(r, &at, j, &e, &xi))
			continue;
		if (!vt_rand_below(g, ++got)) {
			*d = e;
			*x = xi;
		}
	}
	return got != 0;
}

/*
 * A rank near d (as swap_near's) whose flows from leaf x go over top kk and
 * could go over k; VT_NONE when none.
 */
static uint32_t walk_partner(struct router *r, vt_rand *g, uint32_t d, uint32_t x, uint32_t k,
			     uint32_t kk)
{
	const vt_tree *t = r->t;
	const struct route_look *lk = &r->look;
	uint32_t n = t->order.n, w = lk->nranks[x], got = 0, pick = VT_NONE;

	for (uint32_t j = 1; j < 2 * w && j < n; j++) {
		uint32_t e = (d + n + j - w) % n;

		if (e == d || t->order.port[e] == VT_NONE || leaf_of(r, e) == x ||
		    tops_of(lk, e)[x] != kk || !linked(lk, leaf_of(r, e), k))
			continue;
		if (!vt_rand_below(g, ++got))
			pick = e;
	}
	return pick;
}

static uint64_t walk_cost(const struct look_search *ls)
{
	return WALK_OVER * ls->over + ls->fg.sum;
}

/* One step from a link-stage above its bound; *work counts the leaf ranks visited. */
static void walk_step(struct router *r, struct look_search *ls, vt_rand *g, uint64_t *work)
{
	struct route_look *lk = &r->look;
	uint32_t d = 0, x = 0, y, k, kk = VT_NONE, e = VT_NONE, ties = 0;
	uint64_t before = walk_cost(ls);

	if (!walk_flow(r, g, ls->oset[vt_rand_below(g, ls->nover)], &d, &x, work))
		return;
	y = leaf_of(r, d);
	k = tops_of(lk, d)[x];
	for (uint32_t j = 0; j < lk->ns; j++)
		if (j != k && linked(lk, x, j) && linked(lk, y, j) && !vt_rand_below(g, ++ties))
			kk = j;
	if (kk == VT_NONE)
		return;
	if (vt_rand_next(g) & 1)
		e = walk_partner(r, g, d, x, k, kk);
	*work += (e == VT_NONE ? 2u : 6u) * lk->nranks[x];
	move_flows(r, ls, d, x, k, kk);
	if (e != VT_NONE)
		move_flows(r, ls, e, x, kk, k);
	if (walk_cost(ls) <= before)
		return;
	if (e != VT_NONE)
		move_flows(r, ls, e, x, k, kk);
	move_flows(r, ls, d, x, kk, k);
}

/* The walk's loads above the bounds (ls->cap, ls->gcap) as the model stands. */
static void walk_init(const struct route_look *lk, struct look_search *ls)
{
	ls->nover = 0;
	ls->over = 0;
	for (uint32_t id = 0; id < 2 * ls->cells; id++) {
		uint32_t l = id < ls->cells ? lk->up[id] : lk->dn[id - ls->cells];

		ls->over += l > ls->gcap ? l - ls->gcap : 0;
		if (l > ls->cap[id % ls->cells / (lk->nl * lk->ns)])
			walk_track(ls, id, 1);
	}
}

/*
 * The weighed walk, where the walk stalls one above the cut bound's worst: a
 * breakout search (Morris 1993) over the same moves. Every link-stage
 * carries a weight, 1 at first; a step draws a link-stage above its cap,
 * tries every flow crossing it on every other top both leaves reach, and
 * takes the one that lowers the weighed loads above the caps most (not the
 * move that undid one within the last 5-14 steps); where none lowers them,
 * every link-stage above its cap weighs 1 more, so a local minimum fills up
 * until the walk leaves it. The caps: the bound's worst everywhere, then,
 * once no link passes it, each stage's own bound. uneven
 * 20,18,16,14,12,10:10,10,8,8,6,6:10 (walk: 3/1.95, bound 2/1.83): 2/1.83
 * after 214734 steps, 2^26.2 leaf ranks of work, 0.82 -> 1.28 s CPU for the
 * whole route. Only one above the worst: oversub 8,12,4,4 --drop-links 2@0
 * --seed 9 (6/4.11, bound 4/3.62) went to 6/4.05 for 0.53 -> 3.38 s CPU.
 */
#define WEIGH_WORK (1ull << 27)

struct weigh {
	uint32_t *w;	/* per link-stage id: its weight */
	uint64_t *tabu; /* per (rank, leaf, top): the step from which it may be taken again */
	uint64_t step;
};

/* The weighed change of the loads above the caps were (d, x)'s flows to move from top k to kk. */
static int64_t weigh_delta(struct router *r, const struct look_search *ls, const struct weigh *wt,
			   uint32_t d, uint32_t x, uint32_t k, uint32_t kk)
{
	const struct route_look *lk = &r->look;
	uint32_t n = r->t->order.n, y = leaf_of(r, d);
	int64_t dl = 0;

	for (uint32_t i = lk->first[x]; i < lk->first[x] + lk->nranks[x]; i++) {
		uint32_t s = (d + n - i) % n, c = ls->cap[s];
		uint32_t *a = up_cell(lk, s, x, k), *b = dn_cell(lk, s, k, y);
		uint32_t *e = up_cell(lk, s, x, kk), *f = dn_cell(lk, s, kk, y);

		if (r->t->order.port[i] == VT_NONE)
			continue;
		dl -= *a > c ? wt->w[a - lk->up] : 0;
		dl -= *b > c ? wt->w[ls->cells + (b - lk->dn)] : 0;
		dl += *e >= c ? wt->w[e - lk->up] : 0;
		dl += *f >= c ? wt->w[ls->cells + (f - lk->dn)] : 0;
	}
	return dl;
}

/* The best move of the flows crossing link-stage id, into *bd .. *bk; *best its change. */
static void weigh_best(struct router *r, const struct look_search *ls, const struct weigh *wt,
		       vt_rand *g, uint32_t id, uint32_t *bd, uint32_t *bx, uint32_t *bk,
		       int64_t *best, uint64_t *work)
{
	const struct route_look *lk = &r->look;
	struct link_stage cell = link_stage_of(lk, ls->cells, id);
	uint32_t ties = 0, l = cell.l, k = cell.k;

	*best = INT64_MAX;
	for (uint32_t j = lk->first[l]; j < lk->first[l] + lk->nranks[l]; j++) {
		uint32_t e, xi;

		if (!flow_crosses(r, &cell, j, &e, &xi))
			continue;
		for (uint32_t kk = 0; kk < lk->ns; kk++) {
			size_t at = ((size_t)e * lk->nl + xi) * lk->ns + kk;
			if (kk == k || !linked(lk, xi, kk) || !linked(lk, leaf_of(r, e), kk) ||
			    wt->tabu[at] > wt->step)
				continue;
			int64_t dl = weigh_delta(r, ls, wt, e, xi, k, kk);
			*work += lk->nranks[xi];
			if (dl < *best)
				ties = 0;
			if (dl <= *best && !vt_rand_below(g, ++ties)) {
				*best = dl;
				*bd = e;
				*bx = xi;
				*bk = kk;
			}
		}
	}
}

/* One step of the weighed walk. */
static void weigh_step(struct router *r, struct look_search *ls, struct weigh *wt, vt_rand *g,
		       uint64_t *work)
{
	struct route_look *lk = &r->look;
	uint32_t d = 0, x = 0, kk = 0, k;
	int64_t best;

	wt->step++;
	weigh_best(r, ls, wt, g, ls->oset[vt_rand_below(g, ls->nover)], &d, &x, &kk, &best, work);
	if (best == INT64_MAX)
		return;
	if (best >= 0) {
		for (uint32_t i = 0; i < ls->nover; i++)
			wt->w[ls->oset[i]]++;
		if (best > 0 && (vt_rand_next(g) & 1))
			return;
	}
	k = tops_of(lk, d)[x];
	wt->tabu[((size_t)d * lk->nl + x) * lk->ns + k] = wt->step + 5 + vt_rand_below(g, 10);
	move_flows(r, ls, d, x, k, kk);
}

/*
 * The weighed walk from the walk's plan, caps as above; the best plan passed
 * into the best rows and *fg. 1 when one was better.
 */
static int weigh_walk(struct router *r, struct look_search *ls, struct look_figures *fg, vt_rand *g)
{
	struct route_look *lk = &r->look;
	uint32_t n = r->t->order.n;
	struct weigh wt = {0};
	struct look_figures bound;
	uint64_t work = 0;
	int got = 0, phase = 0;

	wt.w = malloc(2 * (size_t)ls->cells * sizeof(*wt.w));
	wt.tabu = calloc((size_t)ls->cells, sizeof(*wt.tabu));
	if (!wt.w || !wt.tabu)
		goto out;
	for (size_t i = 0; i < 2 * (size_t)ls->cells; i++)
		wt.w[i] = 1;
	for (uint32_t s = 0; s < n; s++)
		ls->cap[s] = ls->gcap;
	memset(ls->opos, 0, 2 * (size_t)ls->cells * sizeof(*ls->opos));
	walk_init(lk, ls);
	while (work < WEIGH_WORK && (ls->nover || !phase)) {
		if (!ls->nover) { /* the worst reached: now each stage's bound */
			phase = 1;
			walk_bound(lk, n, ls->cap, &bound);
			memset(ls->opos, 0, 2 * (size_t)ls->cells * sizeof(*ls->opos));
			walk_init(lk, ls);
			continue;
		}
		weigh_step(r, ls, &wt, g, &work);
		if (!vt_route_look_better_plan(&ls->fg, fg))
			continue;
		*fg = ls->fg;
		memcpy(lk->best, lk->c, (size_t)n * lk->nl * sizeof(*lk->c));
		got = 1;
	}
out:
	free(wt.w);
	free(wt.tabu);
	return got;
}

/*
 * The walk from the searched plan; the best plan it passes (by the shift
 * figures) into the best rows. 1 when that is better than *fg, which it
 * then holds. Out of memory the searched plan stands.
 */
static int walk(struct router *r, struct look_search *ls, struct look_figures *fg)
{
	struct route_look *lk = &r->look;
	uint32_t n = r->t->order.n;
	struct look_figures bound;
	uint64_t work = 0, kept = 0;
	vt_rand g;
	int got = 0;

	if ((uint64_t)n * lk->nl * lk->ns > LOOK_WALK_CELLS)
		return 0;
	ls->cells = n * lk->nl * lk->ns;
	ls->cap = malloc(n * sizeof(*ls->cap));
	ls->oset = malloc(2 * (size_t)ls->cells * sizeof(*ls->oset));
	ls->opos = calloc(2 * (size_t)ls->cells, sizeof(*ls->opos));
	if (!ls->cap || !ls->oset || !ls->opos)
		goto out;
	walk_bound(lk, n, ls->cap, &bound);
	ls->gcap = bound.worst;
	walk_init(lk, ls);
	vt_rand_seed(&g, WALK_SEED);
	while (work < LOOK_WALK_WORK && work - kept < LOOK_WALK_STALL && ls->nover) {
		walk_step(r, ls, &g, &work);
		if (!vt_route_look_better_plan(&ls->fg, fg))
			continue;
		*fg = ls->fg;
		memcpy(lk->best, lk->c, (size_t)n * lk->nl * sizeof(*lk->c));
		kept = work;
		got = 1;
	}
	if (ls->nover && fg->worst == bound.worst + 1)
		got |= weigh_walk(r, ls, fg, &g);
out:
	free(ls->cap);
	free(ls->oset);
	free(ls->opos);
	ls->cap = NULL;
	return got;
}

/* vt_route_look_int.h */
int vt_route_look_search(struct router *r, struct look_figures *best, int got)
{
	const vt_tree *t = r->t;
	struct route_look *lk = &r->look;
	uint32_t n = t->order.n, most = 0;
	size_t cells = (size_t)n * lk->nl * lk->ns;
	struct look_search ls = {0};
	struct look_figures searched;
	uint64_t work = 0;
	int rc = -1;

	for (uint32_t x = 0; x < lk->nl; x++)
		most = lk->nranks[x] > most ? lk->nranks[x] : most;
	ls.levels = most + 2;
	ls.hist = calloc((size_t)n * ls.levels, sizeof(*ls.hist));
	ls.smax = calloc(n, sizeof(*ls.smax));
	ls.whist = calloc(ls.levels, sizeof(*ls.whist));
	if (!ls.hist || !ls.smax || !ls.whist)
		goto out;
	memset(lk->up, 0, cells * sizeof(*lk->up));
	memset(lk->dn, 0, cells * sizeof(*lk->dn));
	for (uint32_t d = 0; d < n; d++) {
		if (t->order.port[d] == VT_NONE)
			continue;
		if (got)
			memcpy(tops_of(lk, d), lk->best + (size_t)d * lk->nl,
			       lk->nl * sizeof(*lk->c));
		else if (!vt_route_look_table_tops(r, d)) {
			rc = 0; /* cannot happen: routed_figures read the same tables */
			goto out;
		}
		vt_route_look_add_flows(r, d, tops_of(lk, d), VT_LOOK_Q);
	}
	search_init(lk, n, &ls);
	while (search_pass(r, &ls, &work) || swap_pass(r, &ls, &work))
		;
	searched = (struct look_figures){ls.fg.worst * VT_LOOK_Q, ls.fg.sum * VT_LOOK_Q};
	rc = vt_route_look_better_plan(&searched, best);
	if (rc)
		memcpy(lk->best, lk->c, cells / lk->ns * sizeof(*lk->c));
	/* no worse than best: what the walk passes that is better, is better than best */
	searched = ls.fg;
	rc |= walk(r, &ls, &searched);
	if (rc)
		*best = (struct look_figures){searched.worst * VT_LOOK_Q, searched.sum * VT_LOOK_Q};
out:
	free(ls.hist);
	free(ls.smax);
	free(ls.whist);
	return rc;
}
