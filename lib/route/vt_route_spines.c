/* SPDX-License-Identifier: MIT */
/*
 * Split cores (director chassis as the core, issue 23 goal 2): the line
 * ASICs' spine per destination, chosen again on a model of every shift
 * stage. Algorithm 4 picks a destination's top by the links' use so far,
 * and Algorithm 3 sends every line of the chassis up to it; where a leaf
 * lost a line (a line ASIC down: 17 up-links for 18 hosts) its
 * destinations' tops drift one a leaf, and lines gather three flows of one
 * stage on a link to a spine (cores 2,36,18,84,18 --drop-switches 1@1
 * --seed 2: 3/2.28 where the cut bound is 2/1.98); where a line lost a link
 * to a spine the others' routes to that spine bunch (cores 4,6,3,16,6
 * --drop-links 1@1: 3/1.94).
 *
 * Once the plane is routed: every flow of every shift stage stands on its
 * links as the tables send it (leaves' up-links and lines' down-links as
 * they are); then, destination by destination in rank order, each line that
 * sends the destination up takes the link to a spine of its chassis that
 * the modelled stages load least (the most a link would carry, then the
 * stages whose most loaded link it would raise, then the load already
 * there), the spine going down as its table says, a few rounds. The new
 * entries are kept only where the model's shift is better (worst, then the
 * sum of the stages' most loaded links): the model is the tables' own shift
 * in the tree's order. Routes stay up*-down* and as long (leaf, line,
 * spine, line, leaf); compute nodes' LIDs of LMC 0 only. vt_route_lanes runs
 * after it and keeps its lanes only where they beat these tables.
 */
#include <stdlib.h>
#include <string.h>

#include "route/vt_route_int.h"

/* The model's size past which the pass is left out (stages x modelled links). */
#define SPINES_MAX_CELLS (1u << 24)
/* Rounds of choices made again. */
#define SPINES_ROUNDS 2
/*
 * Work of a round (ranks^2 x a line's up-links: every flow scored on every
 * choice) past which fewer rounds run; past it once, none: cores
 * 2,36,18,84,18 (1512 hosts) is 8.5e7 a round, one round; the pass there
 * costs about 0.6 s CPU, once a vt_route call (its audit's retries route it
 * 5 times and reuse the pass: the passes' memo, vt_route_mainloop.c).
 */
#define SPINES_MAX_WORK (1ull << 27)

struct spines {
	const vt_tree *t;
	const vt_fabric *f;
	vt_lfts *lfts;
	uint32_t n, ncol, nl;
	uint32_t *col;	 /* per ports[] index: its column of the model, VT_NONE */
	uint32_t *lidx;	 /* per switch: its place among the lines, VT_NONE */
	uint16_t *load;	 /* per column * stages + stage: flows (a line's flows to a rank: runs of
			    stages) */
	uint16_t *smax;	 /* per stage: its most loaded link (may stay high after a move) */
	uint8_t *choice; /* per rank * nl + line: its port up, 0 none */
	uint32_t *xs, *ks, *fill; /* one rank's movable flows per line: stages */
};

/* The switch behind switch s's port p, VT_NONE when none. */
static uint32_t next_sw(const struct spines *sp, uint32_t s, uint8_t p)
{
	if (p == VT_LFT_NONE || !p || p > sp->f->nodes[sp->f->switches[s]].nports)
		return VT_NONE;
	return vt_peer_switch(sp->f, vt_port_index(sp->f, sp->f->switches[s], p));
}

static uint32_t col_of(const struct spines *sp, uint32_t s, uint8_t p)
{
	return sp->col[vt_port_index(sp->f, sp->f->switches[s], p)];
}

/* Columns: every link between switches of the tree, either way. */
static int spines_alloc(struct spines *sp)
{
	const vt_tree *t = sp->t;

	sp->col = malloc(((size_t)sp->f->nports + 1) * sizeof(*sp->col));
	sp->lidx = malloc(((size_t)t->nsw + 1) * sizeof(*sp->lidx));
	if (!sp->col || !sp->lidx)
		return 1;
	memset(sp->col, 0xff, ((size_t)sp->f->nports + 1) * sizeof(*sp->col));
	for (uint32_t s = 0; s < t->nsw; s++) {
		sp->lidx[s] = t->level[s] == 1 ? sp->nl++ : VT_NONE;
		for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++)
			sp->col[vt_port_index(sp->f, sp->f->switches[s], t->up_port[j])] =
				sp->ncol++;
		for (uint32_t k = t->dn_start[s]; k < t->dn_start[s + 1]; k++)
			sp->col[vt_port_index(sp->f, sp->f->switches[s], t->dn_port[k])] =
				sp->ncol++;
	}
	if ((uint64_t)sp->n * sp->ncol > SPINES_MAX_CELLS)
		return 1;
	sp->load = calloc((size_t)sp->n * sp->ncol + 1, sizeof(*sp->load));
	sp->smax = calloc((size_t)sp->n + 1, sizeof(*sp->smax));
	sp->choice = calloc((size_t)sp->n * sp->nl + 1, 1);
	sp->xs = calloc((size_t)sp->nl + 2, sizeof(*sp->xs));
	sp->fill = calloc((size_t)sp->nl + 1, sizeof(*sp->fill));
	sp->ks = calloc((size_t)sp->n + 1, sizeof(*sp->ks));
	return !sp->load || !sp->smax || !sp->choice || !sp->xs || !sp->fill || !sp->ks;
}

static void spines_free(struct spines *sp)
{
	free(sp->col);
	free(sp->lidx);
	free(sp->load);
	free(sp->smax);
	free(sp->choice);
	free(sp->xs);
	free(sp->fill);
	free(sp->ks);
}

static void bump(struct spines *sp, uint32_t k, uint32_t c, int w)
{
	uint16_t *v = &sp->load[(size_t)c * sp->n + k];

	*v = (uint16_t)(*v + w);
	if (*v > sp->smax[k])
		sp->smax[k] = *v;
}

/*
 * Line x's route up for lid through port p: the spine's link down and the
 * line's link down to leaf b, as columns (*cs, *cy). 0 when p does not lead
 * so (a spine, then a line, then b).
 */
static int way_down(const struct spines *sp, uint32_t x, uint8_t p, uint32_t lid, uint32_t b,
		    uint32_t *cu, uint32_t *cs, uint32_t *cy)
{
	uint32_t s = next_sw(sp, x, p), y;
	uint8_t ps, py;

	if (s == VT_NONE || sp->t->level[s] != 2)
		return 0;
	ps = vt_lft_get(sp->lfts, s, lid);
	y = next_sw(sp, s, ps);
	if (y == VT_NONE || sp->t->level[y] != 1)
		return 0;
	py = vt_lft_get(sp->lfts, y, lid);
	if (next_sw(sp, y, py) != b)
		return 0;
	*cu = col_of(sp, x, p);
	*cs = col_of(sp, s, ps);
	*cy = col_of(sp, y, py);
	return *cu != VT_NONE && *cs != VT_NONE && *cy != VT_NONE;
}

/*
 * Leaf a's flows to rank d (lid, leaf b): counted per line that sends them
 * up (pass 0), or their stages listed (pass 1); with w, every link they
 * take loaded in the model by w, the lines' up-links as choice[] says.
 */
static void leaf_flows(struct spines *sp, uint32_t d, uint32_t lid, uint32_t b, uint32_t a,
		       int pass, int w)
{
	const vt_tree *t = sp->t;
	uint32_t id = t->sub[a], x, cu = 0, cs = 0, cy = 0, li;
	uint8_t pa = vt_lft_get(sp->lfts, a, lid), px, pd;
	int up;

	if (a == b || id == VT_NONE || (x = next_sw(sp, a, pa)) == VT_NONE ||
	    (li = sp->lidx[x]) == VT_NONE)
		return;
	px = sp->choice[(size_t)d * sp->nl + li];
	pd = vt_lft_get(sp->lfts, x, lid);
	up = px && way_down(sp, x, px, lid, b, &cu, &cs, &cy);
	if (!up && next_sw(sp, x, pd) != b)
		return; /* neither up nor straight down: not modelled */
	for (uint32_t r = t->subs[id].first_rank; r < t->subs[id].first_rank + t->subs[id].nranks;
	     r++) {
		uint32_t k = (d + sp->n - r) % sp->n;

		if (t->order.port[r] == VT_NONE)
			continue;
		if (w) {
			bump(sp, k, col_of(sp, a, pa), w);
			if (up) {
				bump(sp, k, cu, w);
				bump(sp, k, cs, w);
				bump(sp, k, cy, w);
			} else {
				bump(sp, k, col_of(sp, x, pd), w);
			}
		}
		if (up && !pass)
			sp->xs[li + 1]++;
		else if (up)
			sp->ks[sp->xs[li] + sp->fill[li]++] = k;
	}
}

/* Rank d's movable flows per line: ks[xs[x] .. xs[x + 1]) their stages; loaded by w. */
static void dest_flows(struct spines *sp, uint32_t d, uint32_t lid, uint32_t b, int w)
{
	const vt_tree *t = sp->t;

	memset(sp->xs, 0, ((size_t)sp->nl + 2) * sizeof(*sp->xs));
	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++)
		leaf_flows(sp, d, lid, b, t->by_level[i], 0, w);
	for (uint32_t l = 0; l < sp->nl; l++)
		sp->xs[l + 1] += sp->xs[l];
	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++)
		leaf_flows(sp, d, lid, b, t->by_level[i], 1, 0);
	memset(sp->fill, 0, (size_t)sp->nl * sizeof(*sp->fill));
}

/* A choice's score for a line's flows: see the file's comment. */
struct spine_score {
	uint32_t m, nb, c;
};

static int better(const struct spine_score *a, const struct spine_score *b)
{
	if (a->m != b->m)
		return a->m < b->m;
	return a->nb != b->nb ? a->nb < b->nb : a->c < b->c;
}

/*
 * Past flows already counted, a score only grows in each of its figures, so
 * once it is not better than bound (NULL: none) the choice cannot win: the
 * count stops there.
 */
static struct spine_score score(const struct spines *sp, uint32_t li, const uint32_t *cols,
				const struct spine_score *bound)
{
	struct spine_score sc = {0, 0, 0};

	for (uint32_t i = sp->xs[li]; i < sp->xs[li + 1]; i++) {
		uint32_t k = sp->ks[i], raise = 0;

		for (int e = 0; e < 3; e++) {
			uint32_t v = sp->load[(size_t)cols[e] * sp->n + k] + 1u;

			sc.m = v > sc.m ? v : sc.m;
			raise |= v > sp->smax[k];
			sc.c += v - 1;
		}
		sc.nb += raise;
		if (bound && !better(&sc, bound))
			break;
	}
	return sc;
}

/* Loads line li's flows for rank d on the way through port p by w. */
static void move(struct spines *sp, uint32_t li, const uint32_t *cols, int w)
{
	for (uint32_t i = sp->xs[li]; i < sp->xs[li + 1]; i++)
		for (int e = 0; e < 3; e++)
			bump(sp, sp->ks[i], cols[e], w);
}

/* Line x (li) takes its least loaded way up for rank d; returns whether it moved. */
static int pick(struct spines *sp, uint32_t d, uint32_t lid, uint32_t b, uint32_t x, uint32_t li)
{
	const vt_tree *t = sp->t;
	uint8_t was = sp->choice[(size_t)d * sp->nl + li], bp = was;
	uint32_t cols[3], bc[3];
	struct spine_score best;

	if (!way_down(sp, x, was, lid, b, &bc[0], &bc[1], &bc[2]))
		return 0;
	move(sp, li, bc, -1);
	best = score(sp, li, bc, NULL);
	for (uint32_t j = t->up_start[x]; j < t->up_start[x + 1]; j++) {
		struct spine_score sc;

		if (t->up_port[j] == was ||
		    !way_down(sp, x, t->up_port[j], lid, b, &cols[0], &cols[1], &cols[2]))
			continue;
		sc = score(sp, li, cols, &best);
		if (better(&sc, &best)) {
			best = sc;
			bp = t->up_port[j];
			memcpy(bc, cols, sizeof(bc));
		}
	}
	move(sp, li, bc, 1);
	sp->choice[(size_t)d * sp->nl + li] = bp;
	return bp != was;
}

/* The compute LID of rank d, 0 for none (a place-keeper, or LMC > 0: left as routed). */
static uint32_t rank_lid(const struct spines *sp, uint32_t d)
{
	uint32_t q = sp->t->order.port[d];

	if (q == VT_NONE || sp->f->ports[q].lmc)
		return 0;
	return sp->f->ports[q].lid;
}

/* Shift in the model: its worst and the sum of its stages' most loaded links. */
static void model_shift(struct spines *sp, uint32_t *worst, uint64_t *sum)
{
	memset(sp->smax, 0, (size_t)sp->n * sizeof(*sp->smax));
	for (uint32_t c = 0; c < sp->ncol; c++)
		for (uint32_t k = 1; k < sp->n; k++)
			if (sp->load[(size_t)c * sp->n + k] > sp->smax[k])
				sp->smax[k] = sp->load[(size_t)c * sp->n + k];
	*worst = 0;
	*sum = 0;
	for (uint32_t k = 1; k < sp->n; k++) {
		*worst = sp->smax[k] > *worst ? sp->smax[k] : *worst;
		*sum += sp->smax[k];
	}
}

/* Every line's choice for every rank again, rounds times or until none moves. */
static void rounds(struct spines *sp, uint32_t nr)
{
	const vt_tree *t = sp->t;

	for (uint32_t round = 0, moved = 1; moved && round < nr; round++) {
		moved = 0;
		for (uint32_t d = 0; d < sp->n; d++) {
			uint32_t lid = rank_lid(sp, d), b = t->rank_leaf[d];

			if (!lid)
				continue;
			dest_flows(sp, d, lid, b, 0);
			for (uint32_t i = t->lvl_start[1]; i < t->lvl_start[2]; i++) {
				uint32_t x = t->by_level[i], li = sp->lidx[x];

				if (sp->xs[li + 1] > sp->xs[li])
					moved |= (uint32_t)pick(sp, d, lid, b, x, li);
			}
		}
	}
}

/*
 * A split core of director chassis: the level below the tops falls into
 * groups (deg.grp: a chassis' line ASICs) and some leaf reaches two line
 * ASICs of one group. A fat tree's level 1 falls into groups by index too,
 * but a leaf reaches one switch of each (its pod's): left as routed.
 */
int vt_route_spines_applies(const struct router *r, const vt_tree *t)
{
	int split = 0, two = 0;

	if (t->nlevels != 3 || t->lvl_start[0] || !t->order.n)
		return 0;
	for (uint32_t i = t->lvl_start[1]; i < t->lvl_start[2]; i++)
		split |= r->deg.grp[t->by_level[i]] != r->deg.grp[t->by_level[t->lvl_start[1]]];
	for (uint32_t i = t->lvl_start[0]; split && !two && i < t->lvl_start[1]; i++) {
		uint32_t s = t->by_level[i];

		for (uint32_t j = t->up_start[s]; !two && j < t->up_start[s + 1]; j++)
			for (uint32_t k = t->up_start[s]; !two && k < j; k++)
				two = t->up_peer[k] != t->up_peer[j] &&
				      r->deg.grp[t->up_peer[k]] == r->deg.grp[t->up_peer[j]];
	}
	return split && two;
}

/*
 * The pass on plane t; 1 where it set the lines' entries anew, 0 where it
 * left them (no gain, too large), -1 out of memory.
 */
static int spines_pass(struct router *r, const vt_tree *t)
{
	struct spines sp = {.t = t, .f = r->f, .lfts = r->lfts, .n = t->order.n};
	uint32_t w0, w1, maxup = 0;
	uint64_t s0, s1, work;
	int set = 0;

	if (spines_alloc(&sp)) {
		spines_free(&sp);
		return (uint64_t)sp.n * sp.ncol > SPINES_MAX_CELLS ? 0 : -1;
	}
	for (uint32_t i = t->lvl_start[1]; i < t->lvl_start[2]; i++) {
		uint32_t x = t->by_level[i];

		if (t->up_start[x + 1] - t->up_start[x] > maxup)
			maxup = t->up_start[x + 1] - t->up_start[x];
		for (uint32_t d = 0; d < sp.n; d++)
			if (rank_lid(&sp, d))
				sp.choice[(size_t)d * sp.nl + sp.lidx[x]] =
					vt_lft_get(r->lfts, x, rank_lid(&sp, d));
	}
	work = (uint64_t)sp.n * sp.n * (maxup + 1);
	for (uint32_t d = 0; d < sp.n; d++)
		if (rank_lid(&sp, d))
			dest_flows(&sp, d, rank_lid(&sp, d), t->rank_leaf[d], 1);
	model_shift(&sp, &w0, &s0);
	if (work > SPINES_MAX_WORK || w0 <= 1) {
		spines_free(&sp);
		return 0;
	}
	rounds(&sp, SPINES_MAX_WORK / work < SPINES_ROUNDS ? (uint32_t)(SPINES_MAX_WORK / work)
							   : SPINES_ROUNDS);
	model_shift(&sp, &w1, &s1);
	if (w1 < w0 || (w1 == w0 && s1 < s0)) {
		for (uint32_t i = t->lvl_start[1]; i < t->lvl_start[2]; i++) {
			uint32_t x = t->by_level[i];

			for (uint32_t d = 0; d < sp.n; d++)
				if (rank_lid(&sp, d))
					vt_lft_set(r->lfts, x, rank_lid(&sp, d),
						   sp.choice[(size_t)d * sp.nl + sp.lidx[x]]);
		}
		set = 1;
	}
	spines_free(&sp);
	return set;
}

void vt_route_spines(struct router *r, const vt_tree *t)
{
	if (vt_route_spines_applies(r, t))
		r->deg.unsure |= spines_pass(r, t) > 0;
}
