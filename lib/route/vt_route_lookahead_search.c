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
	uint32_t cap;	/* the walk's: the cut bound's worst (walk_bound) */
	uint64_t over;	/* loads above cap, summed over links and stages */
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
	ls->over = ls->over + (nl > ls->cap ? nl - ls->cap : 0) - (l > ls->cap ? l - ls->cap : 0);
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

/* Leaf x's flows to rank d (on leaf y) moved from top k to top kk. */
static void move_flows(struct router *r, struct look_search *ls, uint32_t d, uint32_t x, uint32_t k,
		       uint32_t kk)
{
	const vt_tree *t = r->t;
	struct route_look *lk = &r->look;
	uint32_t n = t->order.n, y = leaf_of(r, d);

	for (uint32_t i = lk->first[x]; i < lk->first[x] + lk->nranks[x]; i++) {
		uint32_t s = (d + n - i) % n;

		if (t->order.port[i] == VT_NONE)
			continue;
		cell_move(ls, s, up_cell(lk, s, x, k), -1);
		cell_move(ls, s, dn_cell(lk, s, k, y), -1);
		cell_move(ls, s, up_cell(lk, s, x, kk), 1);
		cell_move(ls, s, dn_cell(lk, s, kk, y), 1);
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
 * The walk (after the moves and swaps stall): random moves and swaps kept
 * unless they raise the loads above the cut bound's worst (weighed
 * WALK_OVER each) or the sum of the stages' highest loads. Kept sideways
 * moves let the plan drift across plateaus the strict descent cannot
 * leave: uneven 16,16,16,8,0,4:8,8,8,4,8,2:8 3/2.05 -> 2/1.92, the cut
 * bound (0.7 s CPU). Seeded, so the tables stay deterministic; it stops at
 * the cut bound or after LOOK_WALK_WORK leaf ranks (about 1 s CPU: uneven
 * 20,18,16,14,12,10:10,10,8,8,6,6:10 3/2.07 -> 3/1.96, never at the bound),
 * and small models only: oversub 36,24,12,12 --drop-links 5@0 (864 hosts)
 * took 6 s for no better shift.
 */
#define WALK_OVER	20u
#define LOOK_WALK_WORK	(1ull << 25)
#define LOOK_WALK_CELLS (1u << 14) /* ranks x leaves x tops */

static uint64_t walk_cost(const struct look_search *ls)
{
	return WALK_OVER * ls->over + ls->fg.sum;
}

/*
 * The model's cut bound (per stage, each leaf's flows out and in over its
 * links to tops) into *b, in whole flows; the loads must be whole flows.
 */
static void walk_bound(const struct route_look *lk, uint32_t n, struct look_figures *b)
{
	*b = (struct look_figures){0};
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
		b->worst = m > b->worst ? m : b->worst;
		b->sum += m;
	}
}

/* A random top other than k that leaf x shares with leaf y, VT_NONE when none. */
static uint32_t walk_top(const struct route_look *lk, vt_rand *g, uint32_t x, uint32_t y,
			 uint32_t k)
{
	uint32_t kk = (uint32_t)vt_rand_below(g, lk->ns);

	for (uint32_t j = 0; j < lk->ns; j++, kk = (kk + 1) % lk->ns)
		if (kk != k && linked(lk, x, kk) && linked(lk, y, kk))
			return kk;
	return VT_NONE;
}

/*
 * One step: a random leaf x with hosts (src[]) sends its flows to a random
 * rank d over another top kk, and half
 * the time, where a random rank e takes kk from x and may take d's top, e's
 * flows the other way (a swap). Kept unless the cost rises; 1 when kept.
 */
static int walk_step(struct router *r, struct look_search *ls, vt_rand *g, const uint32_t *src,
		     uint32_t nsrc, uint64_t *work)
{
	const vt_tree *t = r->t;
	struct route_look *lk = &r->look;
	uint32_t n = t->order.n, d = (uint32_t)vt_rand_below(g, n);
	uint32_t x = src[vt_rand_below(g, nsrc)], y = leaf_of(r, d), k, kk, e;
	uint64_t before = walk_cost(ls);

	if (t->order.port[d] == VT_NONE || x == y || (k = tops_of(lk, d)[x]) == VT_NONE ||
	    (kk = walk_top(lk, g, x, y, k)) == VT_NONE)
		return 0;
	e = (uint32_t)vt_rand_below(g, n);
	if (!(vt_rand_next(g) & 1) || e == d || t->order.port[e] == VT_NONE || leaf_of(r, e) == x ||
	    tops_of(lk, e)[x] != kk || !linked(lk, leaf_of(r, e), k))
		e = VT_NONE;
	*work += (e == VT_NONE ? 2u : 4u) * lk->nranks[x];
	move_flows(r, ls, d, x, k, kk);
	if (e != VT_NONE)
		move_flows(r, ls, e, x, kk, k);
	if (walk_cost(ls) <= before)
		return 1;
	if (e != VT_NONE)
		move_flows(r, ls, e, x, k, kk);
	move_flows(r, ls, d, x, kk, k);
	return 0;
}

/*
 * The walk from the searched plan; the best plan it passes (by the shift
 * figures) into the best rows. 1 when that is better than *fg, which it
 * then holds.
 */
static int walk(struct router *r, struct look_search *ls, struct look_figures *fg)
{
	struct route_look *lk = &r->look;
	uint32_t n = r->t->order.n;
	struct look_figures bound;
	uint64_t work = 0;
	uint32_t *src, nsrc = 0;
	vt_rand g;
	int got = 0;

	if ((uint64_t)n * lk->nl * lk->ns > LOOK_WALK_CELLS)
		return 0;
	walk_bound(lk, n, &bound);
	if (!vt_route_look_better_plan(&bound, fg) || !(src = malloc(lk->nl * sizeof(*src))))
		return 0; /* at the bound, or out of memory */
	for (uint32_t x = 0; x < lk->nl; x++)
		for (uint32_t i = lk->first[x]; i < lk->first[x] + lk->nranks[x]; i++)
			if (r->t->order.port[i] != VT_NONE) {
				src[nsrc++] = x;
				break;
			}
	ls->cap = bound.worst;
	ls->over = 0;
	for (size_t i = 0; i < (size_t)n * lk->nl * lk->ns; i++)
		ls->over += (lk->up[i] > ls->cap ? lk->up[i] - ls->cap : 0) +
			    (lk->dn[i] > ls->cap ? lk->dn[i] - ls->cap : 0);
	vt_rand_seed(&g, 23);
	while (work < LOOK_WALK_WORK && vt_route_look_better_plan(&bound, fg)) {
		if (!walk_step(r, ls, &g, src, nsrc, &work) ||
		    !vt_route_look_better_plan(&ls->fg, fg))
			continue;
		*fg = ls->fg;
		memcpy(lk->best, lk->c, (size_t)n * lk->nl * sizeof(*lk->c));
		got = 1;
	}
	free(src);
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
