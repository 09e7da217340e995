/* SPDX-License-Identifier: MIT */
/*
 * Split cores where a line lost a link to a spine (issue 23 goal 2): cores
 * 2,6,3,12,6 --drop-links 1@1, two chassis, the line L1-S0002 left with 5
 * up-links under 6 leaves. The leaves route by rank classes (destination
 * rank mod 6 to one up-link each, a class a stage run of 6 flows per
 * up-link), so in the 6 stages where every leaf of that line sends its
 * line's class across the chassis, 6 flows climb its 5 links: 2/1.08, where
 * the cut bound is 2/1.01 (only stage 36, every flow across, needs 2). One
 * entry at a time (vt_route_stage_search.c) cannot leave this: a leaf's
 * up-link carries one class, a run of 6 stages per destination, in every
 * stage, so any one move loads some up-link twice.
 *
 * A stage that is at 2 anyway can absorb a change of classes: here every
 * leaf's up-links p and q exchange their classes for the flows after stage
 * b (a flow across b goes to q, which then carries two in b, p none), so the
 * cut line carries, after b, the class whose flows turn at it. The levels
 * above the leaves are then routed again for those tables, greedily: each
 * line's flows to a destination (their stages known from the leaves'
 * entries) take the up-link, spine, down-link and line whose links are the
 * least loaded in those stages (stage b not priced), else a line the
 * destination's flows already arrive by (it takes one flow a stage, so its
 * own flows never meet), the descents with fewest choices first. Every
 * route stays minimal and up*-down*; a candidate is kept only where the
 * shift model's worst stage maximum, else their sum, is lower, and the
 * tables are audited after (deg.unsure). Candidates: b the first or the
 * last stage of each run at 2 or more, p and q each ordered pair of the
 * first leaf's up-links (a class named by a destination the leaf sends
 * there; first those to a line short of links), until SWAP_MAX_WORK, the
 * best kept. cores 2,6,3,12,6 --drop-links 1@1: 2/1.08 -> 2/1.01, the cut
 * bound (b stage 36).
 *
 * Only three-level trees whose level 1 falls into groups (a split core)
 * and lost an up-link while no leaf did (vt_route_stage_search.c covers
 * those), each port number's up-links in one group on every leaf
 * (ports_alike), compute LIDs of LMC 0, a model of at most SWAP_MAX_CELLS.
 */
#include <stdlib.h>
#include <string.h>

#include "route/vt_route_int.h"

/* The model's size past which the pass is left out (stages x channels). */
#define SWAP_MAX_CELLS (1u << 20)
/*
 * Work (flow hops walked, ways priced) of all candidates, at most: they stop
 * there, the same place on every run. cores 4,6,3,16,6 --drop-links 1@1
 * walks it all in about 0.015 s a routing; cores 2,6,3,12,6 --drop-links 1@1
 * finds its 2/1.01 within.
 */
#define SWAP_MAX_WORK (1ull << 23)

struct swap {
	const struct router *r;
	const vt_tree *t;
	uint32_t n, nsw, nch, nleaf;
	uint32_t *rk, *rfirst;	/* compute ranks by leaf: rk[rfirst[s] .. rfirst[s + 1]) */
	uint32_t *leaves;	/* switches with compute ranks */
	uint32_t *lid;		/* per rank: its LID, 0 for none */
	uint8_t *col, *cand;	/* per switch * n + rank: the port (tables; candidate) */
	uint8_t *set;		/* per switch * n + rank: chosen in this rebuild */
	uint8_t *load;		/* per stage * nch + channel */
	uint8_t *st;		/* per stage: a flow of the current line and rank */
	uint32_t *stl, nst;	/* those stages, listed */
	uint32_t *pmark, stamp; /* per switch: stamp where a parent of the current rank's leaf */
	uint32_t b;		/* the candidate's stage, at load 2 anyway: not priced */
	uint64_t work;
};

/* Switch s's far switch through port p (channel *c); VT_NONE: none or a CA. */
static uint32_t far_sw(const struct swap *g, uint32_t s, unsigned p, uint32_t *c)
{
	const vt_fabric *f = g->r->f;
	uint32_t q;

	if (!p || p == VT_LFT_NONE || p > f->nodes[f->switches[s]].nports)
		return VT_NONE;
	*c = swport(g->r, s, p);
	q = f->ports[*c].peer;
	if (q == VT_NONE || f->nodes[f->ports[q].node].type != VT_SWITCH)
		return VT_NONE;
	return f->nodes[f->ports[q].node].sw;
}

/* Stage of the flow from rank a to rank d. */
static uint32_t stage_of(const struct swap *g, uint32_t a, uint32_t d)
{
	return (d + g->n - a) % g->n;
}

/*
 * Every flow of the candidate tables into the model; the sum of the stage
 * maxima into *sum and the worst returned, 0 where a route breaks or the
 * work runs out.
 */
static uint32_t evaluate(struct swap *g, uint64_t *sum)
{
	uint32_t worst = 1;

	memset(g->load, 0, (size_t)g->n * g->nch);
	for (uint32_t d = 0; d < g->n; d++) {
		uint32_t dl = g->t->rank_leaf[d];

		if (!g->lid[d])
			continue;
		for (uint32_t i = 0; i < g->nleaf; i++) {
			uint32_t x = g->leaves[i], hops = 0, c;

			for (uint32_t s = x; s != dl; hops++) {
				if (hops > 2 * VT_TREE_MAX_LEVELS ||
				    (s = far_sw(g, s, g->cand[(size_t)s * g->n + d], &c)) ==
					    VT_NONE)
					return 0;
				for (uint32_t a = g->rfirst[x]; a < g->rfirst[x + 1]; a++) {
					size_t k = stage_of(g, g->rk[a], d);

					g->load[k * g->nch + c] +=
						g->load[k * g->nch + c] < UINT8_MAX;
				}
			}
			g->work += (uint64_t)hops * (g->rfirst[x + 1] - g->rfirst[x]);
		}
	}
	*sum = 0;
	for (uint32_t k = 1; k < g->n; k++) {
		uint32_t m = 1;

		const uint8_t *l = &g->load[(size_t)k * g->nch];

		for (uint32_t c = 0; c < g->nch; c++)
			m = l[c] > m ? l[c] : m;
		*sum += m;
		worst = m > worst ? m : worst;
	}
	return g->work > SWAP_MAX_WORK ? 0 : worst;
}

/*
 * Leaf x's classes on ports p and q exchanged after stage b in the candidate
 * (see the top): a destination whose flows from x all come after b moves
 * from p to q or back, one whose flows straddle b goes to q.
 */
static void swap_leaf(struct swap *g, uint32_t x, unsigned p, unsigned q, uint32_t b)
{
	for (uint32_t d = 0; d < g->n; d++) {
		uint8_t *e = &g->cand[(size_t)x * g->n + d];
		uint32_t lo = g->n, hi = 0;

		if (!g->lid[d] || g->t->rank_leaf[d] == x || (*e != p && *e != q))
			continue;
		for (uint32_t a = g->rfirst[x]; a < g->rfirst[x + 1]; a++) {
			uint32_t k = stage_of(g, g->rk[a], d);

			lo = k < lo ? k : lo;
			hi = k > hi ? k : hi;
		}
		if (lo > b)
			*e = *e == p ? (uint8_t)q : (uint8_t)p;
		else if (hi > b)
			*e = (uint8_t)q;
	}
}

/* The first rank (not below leaf ref nor leaf x) that leaf ref sends out of port p; VT_NONE: none.
 */
static uint32_t class_rank(const struct swap *g, uint32_t ref, unsigned p, uint32_t x)
{
	for (uint32_t d = 0; d < g->n; d++)
		if (g->lid[d] && g->t->rank_leaf[d] != ref && g->t->rank_leaf[d] != x &&
		    g->col[(size_t)ref * g->n + d] == p)
			return d;
	return VT_NONE;
}

/* Every leaf's classes of the first leaf's ports p and q exchanged after stage b; -1: none moved.
 */
static int swap_leaves(struct swap *g, unsigned p, unsigned q, uint32_t b)
{
	const uint32_t ref = g->leaves[0];
	int moved = -1;

	for (uint32_t i = 0; i < g->nleaf; i++) {
		uint32_t x = g->leaves[i], dp = class_rank(g, ref, p, x), dq, c;
		unsigned px, qx;

		dq = dp == VT_NONE ? VT_NONE : class_rank(g, ref, q, x);
		if (dq == VT_NONE)
			continue;
		px = g->col[(size_t)x * g->n + dp];
		qx = g->col[(size_t)x * g->n + dq];
		if (px == qx || far_sw(g, x, px, &c) == VT_NONE || far_sw(g, x, qx, &c) == VT_NONE)
			continue;
		swap_leaf(g, x, px, qx, b);
		moved = 0;
	}
	return moved;
}

/* Is switch s a parent of leaf x (a down-link to it)? */
static int parent_of(const vt_tree *t, uint32_t s, uint32_t x)
{
	for (uint32_t k = t->dn_start[s]; k < t->dn_start[s + 1]; k++)
		if (t->dn_peer[k] == x)
			return 1;
	return 0;
}

/*
 * The stages of the flows to rank d that leaf entries send to line l, into
 * st[] and stl[] (stage b left out of stl: not priced); the parents of d's
 * leaf marked. Returns the flows.
 */
static uint32_t line_stages(struct swap *g, uint32_t l, uint32_t d)
{
	const vt_tree *t = g->t;
	uint32_t m = 0, c, dl = t->rank_leaf[d];

	for (uint32_t i = 0; i < g->nst; i++)
		g->st[g->stl[i]] = 0;
	g->st[g->b] = 0;
	g->nst = 0;
	for (uint32_t i = 0; i < g->nleaf; i++) {
		uint32_t x = g->leaves[i];

		if (x == dl || far_sw(g, x, g->cand[(size_t)x * g->n + d], &c) != l)
			continue;
		for (uint32_t a = g->rfirst[x]; a < g->rfirst[x + 1]; a++) {
			uint32_t k = stage_of(g, g->rk[a], d);

			if (!g->st[k] && k != g->b)
				g->stl[g->nst++] = k;
			g->st[k] = 1;
		}
		m += g->rfirst[x + 1] - g->rfirst[x];
	}
	g->stamp++;
	for (uint32_t j = t->up_start[dl]; j < t->up_start[dl + 1]; j++)
		g->pmark[t->up_peer[j]] = g->stamp;
	g->work += g->nleaf + m;
	return m;
}

/* Channels c[0..nc) in the stages st[]: the most loaded, and (*sum) their loads summed. */
static uint32_t cost(const struct swap *g, const uint32_t *c, uint32_t nc, uint64_t *sum)
{
	uint32_t m = 0;

	*sum = 0;
	for (uint32_t j = 0; j < g->nst; j++)
		for (uint32_t i = 0; i < nc; i++) {
			uint32_t v = g->load[(size_t)g->stl[j] * g->nch + c[i]];

			m = v > m ? v : m;
			*sum += v;
		}
	return m;
}

struct way {
	unsigned port[3]; /* at the line, the spine, the line above the leaf */
	uint32_t sw[3], ch[3], nc, d;
	uint32_t m;
	int fresh; /* the last line's entry not chosen yet: d's flows do not arrive through it */
	uint64_t sum;
};

/* Way w (its first nc hops set) priced, and kept in *best if cheaper. */
static void consider(struct swap *g, struct way *w, struct way *best)
{
	w->m = cost(g, w->ch, w->nc, &w->sum);
	g->work += (uint64_t)g->nst * w->nc;
	w->fresh = !g->set[(size_t)w->sw[w->nc - 1] * g->n + w->d];
	if (best->nc == 0 || w->m < best->m ||
	    (w->m == best->m &&
	     (w->fresh < best->fresh || (w->fresh == best->fresh && w->sum < best->sum))))
		*best = *w;
}

/* Ways down from switch h (w's hop i) to rank d's leaf, each considered. */
static void ways_down(struct swap *g, uint32_t h, uint32_t d, struct way *w, uint32_t i,
		      struct way *best)
{
	const vt_tree *t = g->t;
	uint32_t dl = t->rank_leaf[d];

	w->sw[i] = h;
	w->nc = i + 1;
	if (g->set[(size_t)h * g->n + d]) {
		w->port[i] = g->cand[(size_t)h * g->n + d];
		if (far_sw(g, h, w->port[i], &w->ch[i]) == dl)
			consider(g, w, best);
		return;
	}
	for (uint32_t k = t->dn_start[h]; k < t->dn_start[h + 1]; k++)
		if (t->dn_peer[k] == dl) {
			w->port[i] = t->dn_port[k];
			far_sw(g, h, w->port[i], &w->ch[i]);
			consider(g, w, best);
		}
}

/* Ways from top s (w's hop i) down through a parent of rank d's leaf. */
static void ways_top(struct swap *g, uint32_t s, uint32_t d, struct way *w, uint32_t i,
		     struct way *best)
{
	const vt_tree *t = g->t;

	w->sw[i] = s;
	if (g->set[(size_t)s * g->n + d]) {
		uint32_t h = far_sw(g, s, w->port[i] = g->cand[(size_t)s * g->n + d], &w->ch[i]);

		if (h != VT_NONE)
			ways_down(g, h, d, w, i + 1, best);
		return;
	}
	for (uint32_t k = t->dn_start[s]; k < t->dn_start[s + 1]; k++)
		if (g->pmark[t->dn_peer[k]] == g->stamp) {
			w->port[i] = t->dn_port[k];
			far_sw(g, s, w->port[i], &w->ch[i]);
			ways_down(g, t->dn_peer[k], d, w, i + 1, best);
		}
}

/* Line l's flows to rank d routed on the least loaded way (see the top); -1: no way. */
static int route_pair(struct swap *g, uint32_t l, uint32_t d)
{
	const vt_tree *t = g->t;
	struct way w = {.d = d}, best = {.nc = 0};

	if (!line_stages(g, l, d))
		return 0;
	if (g->pmark[l] == g->stamp)
		ways_down(g, l, d, &w, 0, &best);
	else
		for (uint32_t j = t->up_start[l]; j < t->up_start[l + 1]; j++) {
			w.sw[0] = l;
			w.port[0] = t->up_port[j];
			far_sw(g, l, w.port[0], &w.ch[0]);
			ways_top(g, t->up_peer[j], d, &w, 1, &best);
		}
	if (!best.nc)
		return -1;
	for (uint32_t i = 0; i < best.nc; i++) {
		g->cand[(size_t)best.sw[i] * g->n + d] = (uint8_t)best.port[i];
		g->set[(size_t)best.sw[i] * g->n + d] = 1;
		for (uint32_t k = 1; k < g->n; k++) {
			uint8_t *v = &g->load[(size_t)k * g->nch + best.ch[i]];

			*v += g->st[k] && *v < UINT8_MAX;
		}
		g->work += g->n;
	}
	return 0;
}

/* A (line, rank) pair of the rebuild, in its order: the forced descents first, then by flows. */
struct pair {
	uint32_t up, flows, d, l;
};

static int pair_cmp(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->up != y->up)
		return x->up < y->up ? -1 : 1;
	if (x->flows != y->flows)
		return x->flows > y->flows ? -1 : 1;
	if (x->d != y->d)
		return x->d < y->d ? -1 : 1;
	return x->l < y->l ? -1 : x->l > y->l;
}

/*
 * The levels above the leaves routed again for the candidate's leaf
 * entries (see the top); -1 where a flow found no way or a leaf's entry
 * does not lead to level 1.
 */
static int rebuild(struct swap *g, struct pair *pr)
{
	const vt_tree *t = g->t;
	uint32_t np = 0, c;

	memset(g->set, 0, (size_t)g->nsw * g->n);
	memset(g->load, 0, (size_t)g->n * g->nch);
	for (uint32_t d = 0; d < g->n; d++) {
		uint32_t first = np;

		for (uint32_t i = 0; g->lid[d] && i < g->nleaf; i++) {
			uint32_t x = g->leaves[i], l, k;

			if (x == t->rank_leaf[d])
				continue;
			l = far_sw(g, x, g->cand[(size_t)x * g->n + d], &c);
			if (l == VT_NONE || t->level[l] != 1)
				return -1;
			for (k = first; k < np && pr[k].l != l; k++)
				;
			if (k == np)
				pr[np++] =
					(struct pair){!parent_of(t, l, t->rank_leaf[d]), 0, d, l};
			pr[k].flows += g->rfirst[x + 1] - g->rfirst[x];
		}
	}
	qsort(pr, np, sizeof(*pr), pair_cmp);
	for (uint32_t i = 0; i < np; i++)
		if (route_pair(g, pr[i].l, pr[i].d) || g->work > SWAP_MAX_WORK)
			return -1;
	return 0;
}

/* Is stage k's maximum 2 or more (after evaluate)? */
static int stage_bad(const struct swap *g, uint32_t k)
{
	for (uint32_t c = 0; k && k < g->n && c < g->nch; c++)
		if (g->load[(size_t)k * g->nch + c] >= 2)
			return 1;
	return 0;
}

/*
 * The first and last stage of each run of stages at 2 or more into bad[];
 * their count. The stage at 2 anyway ends such a run (it needs 2 whatever
 * the leaves' classes; the classes' window of 6 stages lies on one side).
 */
static uint32_t bad_stages(const struct swap *g, uint32_t *bad)
{
	uint32_t nb = 0;

	for (uint32_t k = 1; k < g->n; k++)
		if (stage_bad(g, k) && (!stage_bad(g, k - 1) || !stage_bad(g, k + 1)))
			bad[nb++] = k;
	return nb;
}

/*
 * Do the leaves' up-links of one port number lie in one group (chassis) on
 * every leaf? Where they do not (three chassis or more, the leaves dealt to
 * them unlike: cores 3,4,2,12,4 deals leaf l's up-link u to chassis
 * (l + u) mod 3), the first leaf's two classes are two other chassis'
 * classes on the next leaf: on cores 4,6,3,16,6 and 3,4,2,12,4,
 * --drop-links 1@1 and 2@1, seeds 1-3, no candidate beat the tables, and
 * the candidates took the whole SWAP_MAX_WORK.
 */
static int ports_alike(const struct router *r, const vt_tree *t)
{
	uint32_t grp[VT_LFT_NONE + 1];

	for (uint32_t p = 0; p <= VT_LFT_NONE; p++)
		grp[p] = VT_NONE;
	for (uint32_t i = 0; i < t->lvl_start[1]; i++) {
		uint32_t s = t->by_level[i];

		for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++) {
			uint32_t *g = &grp[t->up_port[j]], x = r->deg.grp[t->up_peer[j]];

			if (*g != VT_NONE && *g != x)
				return 0;
			*g = x;
		}
	}
	return 1;
}

/*
 * Does plane t have the rows' structure: three levels, level 1 in two
 * groups or more (a split core) with a switch short of its level's
 * up-links, no leaf short of its own, compute LIDs of LMC 0, a model small
 * enough?
 */
int vt_route_stage_swap_applies(const struct router *r, const vt_tree *t)
{
	const vt_fabric *f = r->f;
	int split = 0, cut = 0;

	if (t->nlevels != 3 || r->deg.leaf_dmg || t->order.n < 2 ||
	    (uint64_t)t->order.n * f->nports > SWAP_MAX_CELLS ||
	    (uint64_t)t->order.n * t->nsw > SWAP_MAX_CELLS)
		return 0;
	for (uint32_t i = t->lvl_start[1]; i < t->lvl_start[2]; i++) {
		uint32_t s = t->by_level[i];

		split |= r->deg.grp[s] != r->deg.grp[t->by_level[t->lvl_start[1]]];
		cut |= t->up_start[s + 1] - t->up_start[s] < t->lv[1].up_links;
	}
	if (!split || !cut || !ports_alike(r, t))
		return 0;
	for (uint32_t d = 0; d < t->order.n; d++)
		if (t->order.port[d] != VT_NONE && f->ports[t->order.port[d]].lmc)
			return 0;
	return 1;
}

/* The ranks by leaf, the tables' columns and the scratch; -1 when out of memory. */
static int swap_alloc(struct swap *g, vt_lfts *lfts)
{
	const vt_tree *t = g->t;
	const vt_fabric *f = g->r->f;
	uint32_t n = g->n, nsw = g->nsw;
	size_t cells = (size_t)nsw * n;
	uint32_t *next;

	g->rk = malloc(n * sizeof(*g->rk));
	g->rfirst = calloc(nsw + 1, sizeof(*g->rfirst));
	g->leaves = malloc(nsw * sizeof(*g->leaves));
	g->lid = calloc(n, sizeof(*g->lid));
	g->col = malloc(cells);
	g->cand = malloc(cells);
	g->set = malloc(cells);
	g->load = malloc((size_t)n * g->nch);
	g->st = calloc(n, 1);
	g->stl = malloc(n * sizeof(*g->stl));
	g->pmark = calloc(nsw, sizeof(*g->pmark));
	if (!g->rk || !g->rfirst || !g->leaves || !g->lid || !g->col || !g->cand || !g->set ||
	    !g->load || !g->st || !g->stl || !g->pmark)
		return -1;
	for (uint32_t d = 0; d < n; d++) /* counting sort of the compute ranks by leaf */
		if (t->order.port[d] != VT_NONE && (g->lid[d] = f->ports[t->order.port[d]].lid))
			g->rfirst[t->rank_leaf[d] + 1]++;
	for (uint32_t s = 0; s < nsw; s++) {
		if (g->rfirst[s + 1])
			g->leaves[g->nleaf++] = s;
		g->rfirst[s + 1] += g->rfirst[s];
	}
	next = malloc(nsw * sizeof(*next)); /* each leaf's next slot */
	if (!next)
		return -1;
	memcpy(next, g->rfirst, nsw * sizeof(*next));
	for (uint32_t d = 0; d < n; d++)
		if (g->lid[d])
			g->rk[next[t->rank_leaf[d]]++] = d;
	free(next);
	for (uint32_t s = 0; s < nsw; s++)
		for (uint32_t d = 0; d < n; d++)
			g->col[(size_t)s * n + d] = g->lid[d] ? vt_lft_get(lfts, s, g->lid[d]) : 0;
	return 0;
}

static void swap_free(struct swap *g)
{
	free(g->rk);
	free(g->rfirst);
	free(g->leaves);
	free(g->lid);
	free(g->col);
	free(g->cand);
	free(g->set);
	free(g->load);
	free(g->st);
	free(g->stl);
	free(g->pmark);
}

/* The best candidate so far: its worst stage maximum, their sum, its columns. */
struct kept {
	uint32_t worst;
	uint64_t sum;
	uint8_t *col;
};

/* Candidate (b, p, q) built and evaluated, kept in *k if better; -1 when the work ran out. */
static int try_candidate(struct swap *g, struct pair *pr, uint32_t b, unsigned p, unsigned q,
			 struct kept *k)
{
	uint64_t sum;
	uint32_t w;

	memcpy(g->cand, g->col, (size_t)g->nsw * g->n);
	g->b = b;
	if (swap_leaves(g, p, q, b) || rebuild(g, pr))
		return g->work > SWAP_MAX_WORK ? -1 : 0;
	if (!(w = evaluate(g, &sum)))
		return g->work > SWAP_MAX_WORK ? -1 : 0;
	if (w < k->worst || (w == k->worst && sum < k->sum)) {
		k->worst = w;
		k->sum = sum;
		memcpy(k->col, g->cand, (size_t)g->nsw * g->n);
	}
	return 0;
}

/* Is the line behind up_port[] entry j short of its level's up-links (the cut)? */
static int short_line(const vt_tree *t, uint32_t j)
{
	uint32_t l = t->up_peer[j];

	return t->up_start[l + 1] - t->up_start[l] < t->lv[1].up_links;
}

/*
 * Every candidate (see the top) tried against the tables' own figures in
 * *k: p first an up-link to a line short of links (pass 0), where the
 * classes have to change, then the others.
 */
static void search(struct swap *g, struct pair *pr, const uint32_t *bad, uint32_t nb,
		   struct kept *k)
{
	const vt_tree *t = g->t;
	const uint32_t ref = g->leaves[0], a0 = t->up_start[ref], a1 = t->up_start[ref + 1];

	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < nb; i++)
			for (uint32_t a = a0; a < a1; a++)
				for (uint32_t b = a0; b < a1; b++)
					if (a != b && short_line(t, a) == !pass &&
					    try_candidate(g, pr, bad[i], t->up_port[a],
							  t->up_port[b], k))
						return;
}

/* The kept columns into the tables where they differ; deg.unsure so vt_route.c audits them. */
static void write_kept(struct swap *g, struct router *r, const struct kept *k)
{
	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t d = 0; d < g->n; d++) {
			size_t i = (size_t)s * g->n + d;

			if (g->lid[d] && k->col[i] != g->col[i])
				vt_lft_set(r->lfts, s, g->lid[d], k->col[i]);
		}
	r->deg.unsure = 1;
}

void vt_route_stage_swap(struct router *r, const vt_tree *t)
{
	struct swap g = {.r = r, .t = t};
	struct kept k = {0};
	struct pair *pr = NULL;
	uint32_t *bad = NULL, w0;
	uint64_t sum0;

	if (!vt_route_stage_swap_applies(r, t))
		return;
	g.n = t->order.n;
	g.nsw = r->f->nswitches;
	g.nch = r->f->nports;
	pr = malloc((size_t)g.n * (t->lvl_start[2] - t->lvl_start[1]) * sizeof(*pr));
	bad = malloc(g.n * sizeof(*bad));
	k.col = malloc((size_t)g.nsw * g.n);
	if (!pr || !bad || !k.col || swap_alloc(&g, r->lfts) || !g.nleaf)
		goto out;
	memcpy(g.cand, g.col, (size_t)g.nsw * g.n);
	if (!(k.worst = w0 = evaluate(&g, &k.sum)))
		goto out;
	sum0 = k.sum;
	search(&g, pr, bad, bad_stages(&g, bad), &k);
	if (k.worst < w0 || k.sum < sum0)
		write_kept(&g, r, &k);
out:
	free(pr);
	free(bad);
	free(k.col);
	swap_free(&g);
}
