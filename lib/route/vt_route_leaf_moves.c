/* SPDX-License-Identifier: MIT */
/*
 * Leaves that reach unevenly, on trees of three levels and more (issue 23
 * goal 2): where links were lost, a leaf may reach some destinations over
 * only some of its up-links as short (varary 6,3,2:3,2 --hostless-leaves 2
 * --drop-links 6@0 --seed 3: leaf L0-S0000 kept 2 of its 3 up-links and
 * reaches L0-S0003, which kept one, over one of them only). Algorithm 4
 * spreads the other destinations by usage, one at a time, and cannot see
 * that in a shift stage a leaf's forced flows and its free ones meet on the
 * same up-link: there 5 flows where 3 do, 6/4.83 against minhop's 6/4.70
 * (6/4.69 with the moves; cut bound 6/4.66).
 * So once the plane is routed, each leaf's entry for each compute node's
 * LID is chosen again among the up-links over which the route stays as
 * short and up*-down* (the rest of it is the parent's own route), by moves
 * on an exact model of every shift stage's link loads: a move stands where
 * it lowers the stages' summed maxima, or keeps them and lowers the links
 * at their stage's maximum (the way to the next lower sum). The tables take
 * the moves only where the summed maxima fell, and the every-source audit
 * then checks them (deg.unsure): the CA routes stay up*-down* and as short.
 * Where every destination has several up-links, Algorithm 4's spread by
 * usage misses the same way: it balances each up-link's destinations, not
 * the flows a stage puts on it (superpod 2,2,18,9,2,1 --drop-links 2@0
 * --seed 3, a leaf that lost up-links: 2/1.72 where the moves give the cut
 * bound's 2/1.55; fat 6,3 --drop-links 3@0 --seed 1: 3/2.06 -> 2/1.97). So
 * the moves run wherever some leaf has a choice and some modelled stage
 * loads a link with two flows or more; a plane whose every stage is at one
 * flow a link (an even tree) keeps its tables. Kept only where the summed
 * maxima fell and the worst did not rise. Compute nodes' LIDs of LMC 0 only.
 */
#include <stdlib.h>
#include <string.h>

#include "route/vt_route_int.h"

/* The model's size past which the moves are left out (stages x ports). */
#define MOVES_MAX_CELLS (1u << 24)
/*
 * ... and the work of all rounds (a round: flows x candidates x hops), so
 * fewer rounds run on larger planes, none past half of it: fat 8,3
 * --drop-links 150@0 (512 ranks) 0.17 s CPU for 9/7.19 -> 9/6.63, where
 * 2^27 a round took 2.8 s for 9/6.60 (the routing alone: 0.02 s).
 */
#define MOVES_MAX_WORK (1ull << 26)
#define MOVES_ROUNDS   8
/* Loads the model counts (a uint8_t per link and stage); past it the moves are left out. */
#define MOVES_MAX_LOAD 255u
/* Hops of a route past which the walk gives up (a loop). */
#define MOVES_MAX_HOPS 32u

struct leaf_moves {
	const vt_fabric *f;
	const vt_tree *t;
	vt_lfts *lfts;
	uint32_t n, np;	 /* ranks, ports (a link is the ports[] index it leaves by) */
	uint8_t *load;	 /* per stage * np */
	uint32_t *hist;	 /* per stage * (MOVES_MAX_LOAD + 1): links at each load */
	uint32_t *smax;	 /* per stage: the most loaded link's load */
	uint8_t *saved;	 /* per leaf place * n + rank: the entry as routed */
	uint32_t *place; /* per switch: its place among the leaves, VT_NONE */
	uint32_t nleaf;
	int over; /* a load past MOVES_MAX_LOAD: the model is no good */
};

/*
 * The route from switch sw to leaf y for lid: the ports it leaves by into
 * ch (MOVES_MAX_HOPS), *ud 0 where it climbs after it descended. Hops, or
 * VT_NONE where it has no entry, loops or leaves the tree.
 */
static uint32_t walk(const struct leaf_moves *lm, uint32_t sw, uint32_t lid, uint32_t y,
		     uint32_t *ch, int *ud)
{
	const vt_fabric *f = lm->f;
	const vt_tree *t = lm->t;
	uint32_t h = 0;
	int down = 0;

	*ud = 1;
	while (sw != y) {
		uint32_t node = f->switches[sw], q, nx;
		uint8_t port = vt_lft_get(lm->lfts, sw, lid);

		if (port == VT_LFT_NONE || !port || port > f->nodes[node].nports ||
		    h == MOVES_MAX_HOPS)
			return VT_NONE;
		q = vt_port_index(f, node, port);
		nx = vt_peer_switch(f, q);
		if (nx == VT_NONE || t->level[nx] == VT_TREE_OUTSIDE)
			return VT_NONE;
		if (t->level[nx] < t->level[sw])
			down = 1;
		else if (down)
			*ud = 0;
		ch[h++] = q;
		sw = nx;
	}
	return h;
}

/* Rank d's base LID, 0 for a place-keeper. */
static uint32_t lid_of(const struct leaf_moves *lm, uint32_t d)
{
	uint32_t p = lm->t->order.port[d];

	return p == VT_NONE ? 0 : lm->f->ports[p].lid;
}

/* One link's load in stage k by w (+1 or -1), its stage's maximum kept. */
static void bump(struct leaf_moves *lm, uint32_t k, uint32_t c, int w)
{
	uint8_t *l = &lm->load[(size_t)k * lm->np + c];
	uint32_t *h = &lm->hist[(size_t)k * (MOVES_MAX_LOAD + 1)];

	if (w > 0 && *l == MOVES_MAX_LOAD) {
		lm->over = 1;
		return;
	}
	h[*l]--;
	*l = (uint8_t)(*l + w);
	h[*l]++;
	if (*l > lm->smax[k])
		lm->smax[k] = *l;
	while (lm->smax[k] && !h[lm->smax[k]])
		lm->smax[k]--;
}

/* Adds w to the flows from leaf x's ranks to rank d over the hops ch[0 .. nh). */
static void flows(struct leaf_moves *lm, uint32_t x, uint32_t d, const uint32_t *ch, uint32_t nh,
		  int w)
{
	const vt_tree *t = lm->t;
	const struct vt_subtree *sub = &t->subs[t->sub[x]];

	for (uint32_t s = sub->first_rank; s < sub->first_rank + sub->nranks; s++)
		if (t->order.port[s] != VT_NONE)
			for (uint32_t i = 0; i < nh; i++)
				bump(lm, (d + lm->n - s) % lm->n, ch[i], w);
}

/* The stages leaf x's flows to d fall in: their summed maxima, and links at them (max >= 2). */
static void stage_cost(const struct leaf_moves *lm, uint32_t x, uint32_t d, uint64_t *sum,
		       uint64_t *at)
{
	const vt_tree *t = lm->t;
	const struct vt_subtree *sub = &t->subs[t->sub[x]];

	*sum = *at = 0;
	for (uint32_t s = sub->first_rank; s < sub->first_rank + sub->nranks; s++) {
		uint32_t k = (d + lm->n - s) % lm->n, m = lm->smax[k];

		if (t->order.port[s] == VT_NONE)
			continue;
		*sum += m;
		*at += m >= 2 ? lm->hist[(size_t)k * (MOVES_MAX_LOAD + 1) + m] : 0;
	}
}

/* Every stage's maxima summed; *worst the largest. */
static uint64_t total(const struct leaf_moves *lm, uint32_t *worst)
{
	uint64_t s = 0;

	*worst = 0;
	for (uint32_t k = 1; k < lm->n; k++) {
		s += lm->smax[k];
		*worst = lm->smax[k] > *worst ? lm->smax[k] : *worst;
	}
	return s;
}

/*
 * Leaf x's entry for rank d tried on each other up-link over which the route
 * is as short and up*-down*, kept where the model's stages do better (apply
 * 0: only counted). *nc: the up-links that qualify, the routed one among
 * them; 0 where the routed route is no such route. Returns 1 where it moved.
 */
static int move(struct leaf_moves *lm, uint32_t x, uint32_t d, int apply, uint32_t *nc)
{
	const vt_tree *t = lm->t;
	uint32_t lid = lid_of(lm, d), y = t->rank_leaf[d], node = lm->f->switches[x], nh;
	uint32_t cur[MOVES_MAX_HOPS + 1], alt[MOVES_MAX_HOPS + 1];
	uint8_t port = vt_lft_get(lm->lfts, x, lid);
	int ud, moved = 0;

	*nc = 0;
	nh = walk(lm, x, lid, y, cur, &ud);
	if (nh == VT_NONE || !ud)
		return 0;
	for (uint32_t j = t->up_start[x]; j < t->up_start[x + 1]; j++) {
		uint64_t s0, a0, s1, a1;
		uint32_t na;

		if (t->up_port[j] == port) {
			++*nc;
			continue;
		}
		alt[0] = vt_port_index(lm->f, node, t->up_port[j]);
		na = walk(lm, t->up_peer[j], lid, y, alt + 1, &ud);
		if (na == VT_NONE || !ud || na + 1 != nh)
			continue;
		++*nc;
		if (!apply)
			continue;
		stage_cost(lm, x, d, &s0, &a0);
		flows(lm, x, d, cur, nh, -1);
		flows(lm, x, d, alt, nh, 1);
		stage_cost(lm, x, d, &s1, &a1);
		if (s1 < s0 || (s1 == s0 && a1 < a0)) {
			vt_lft_set(lm->lfts, x, lid, t->up_port[j]);
			memcpy(cur, alt, nh * sizeof(*cur));
			port = t->up_port[j];
			moved = 1;
			continue;
		}
		flows(lm, x, d, alt, nh, -1);
		flows(lm, x, d, cur, nh, 1);
	}
	return moved;
}

/* Leaf x's place among the leaves with ranks, VT_NONE for other switches. */
static int places(struct leaf_moves *lm)
{
	const vt_tree *t = lm->t;

	lm->place = malloc(((size_t)t->nsw + 1) * sizeof(*lm->place));
	if (!lm->place)
		return -1;
	for (uint32_t s = 0; s < t->nsw; s++)
		lm->place[s] = VT_NONE;
	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++) {
		uint32_t x = t->by_level[i];

		if (t->sub[x] != VT_NONE && t->subs[t->sub[x]].nranks)
			lm->place[x] = lm->nleaf++;
	}
	return 0;
}

/*
 * Has some leaf a choice: two up-links or more that qualify for some
 * destination? *work: one round's moves, counted.
 */
static int choices(struct leaf_moves *lm, uint64_t *work)
{
	const vt_tree *t = lm->t;
	int any = 0;

	*work = 0;
	for (uint32_t x = 0; x < t->nsw; x++) {
		uint32_t nr;

		if (lm->place[x] == VT_NONE)
			continue;
		nr = t->subs[t->sub[x]].nranks;
		for (uint32_t d = 0; d < lm->n; d++) {
			uint32_t nc;

			if (!lid_of(lm, d) || t->rank_leaf[d] == x)
				continue;
			move(lm, x, d, 0, &nc);
			any |= nc >= 2;
			/* a try: two costs and four passes of nr flows (a few hops) */
			*work += (uint64_t)nc * (nr * 2 * (1 + 2 * 4) + MOVES_MAX_HOPS);
		}
	}
	return any;
}

/* The model of every shift stage, and the leaves' entries as routed; -1 where it cannot be. */
static int model(struct leaf_moves *lm)
{
	const vt_tree *t = lm->t;
	uint32_t ch[MOVES_MAX_HOPS + 1], nh;
	int ud;

	lm->load = calloc((size_t)lm->n * lm->np, 1);
	lm->hist = calloc((size_t)lm->n * (MOVES_MAX_LOAD + 1), sizeof(*lm->hist));
	lm->smax = calloc(lm->n, sizeof(*lm->smax));
	lm->saved = malloc((size_t)lm->nleaf * lm->n + 1);
	if (!lm->load || !lm->hist || !lm->smax || !lm->saved)
		return -1;
	for (uint32_t k = 0; k < lm->n; k++)
		lm->hist[(size_t)k * (MOVES_MAX_LOAD + 1)] = lm->np;
	for (uint32_t x = 0; x < t->nsw; x++)
		for (uint32_t d = 0; lm->place[x] != VT_NONE && d < lm->n; d++) {
			uint32_t lid = lid_of(lm, d);

			if (!lid || t->rank_leaf[d] == x)
				continue;
			lm->saved[(size_t)lm->place[x] * lm->n + d] = vt_lft_get(lm->lfts, x, lid);
			if ((nh = walk(lm, x, lid, t->rank_leaf[d], ch, &ud)) == VT_NONE)
				return -1;
			flows(lm, x, d, ch, nh, 1);
		}
	return lm->over ? -1 : 0;
}

/* The leaves' entries back as routed. */
static void restore(struct leaf_moves *lm)
{
	const vt_tree *t = lm->t;

	for (uint32_t x = 0; x < t->nsw; x++)
		for (uint32_t d = 0; lm->place[x] != VT_NONE && d < lm->n; d++)
			if (lid_of(lm, d) && t->rank_leaf[d] != x)
				vt_lft_set(lm->lfts, x, lid_of(lm, d),
					   lm->saved[(size_t)lm->place[x] * lm->n + d]);
}

static int moves_apply(struct leaf_moves *lm)
{
	const vt_tree *t = lm->t;

	if (t->nlevels < 3 || t->order.n < 2 ||
	    (uint64_t)t->order.n * lm->f->nports > MOVES_MAX_CELLS)
		return 0;
	for (uint32_t d = 0; d < t->order.n; d++)
		if (t->order.port[d] != VT_NONE && lm->f->ports[t->order.port[d]].lmc)
			return 0;
	lm->n = t->order.n;
	lm->np = lm->f->nports;
	return 1;
}

/*
 * The moves on plane t: 1 where the tables took them, 0 where they stay as
 * routed (no choice, no gain, past the work), -1 where the model could not
 * be made (out of memory, a route it cannot walk).
 */
static int moves_run(struct leaf_moves *lm)
{
	const vt_tree *t = lm->t;
	uint64_t work, start;
	uint32_t rounds, w0, w1;
	int moved = 1;

	if (places(lm))
		return -1;
	if (!choices(lm, &work) || !work || work > MOVES_MAX_WORK / 2)
		return 0;
	if (model(lm))
		return -1;
	start = total(lm, &w0);
	if (w0 <= 1) /* every stage at one flow a link: nothing to gain */
		return 0;
	rounds = MOVES_MAX_WORK / work < MOVES_ROUNDS ? (uint32_t)(MOVES_MAX_WORK / work)
						      : MOVES_ROUNDS;
	for (uint32_t round = 0; moved && !lm->over && round < rounds; round++) {
		moved = 0;
		for (uint32_t d = 0; d < lm->n; d++)
			for (uint32_t x = 0; lid_of(lm, d) && x < t->nsw; x++) {
				uint32_t nc;

				if (lm->place[x] != VT_NONE && t->rank_leaf[d] != x)
					moved |= move(lm, x, d, 1, &nc);
			}
	}
	if (lm->over || total(lm, &w1) >= start || w1 > w0) {
		restore(lm);
		return 0;
	}
	return 1;
}

int vt_route_leaf_moves_applies(const struct router *r, const vt_tree *t)
{
	struct leaf_moves lm = {.f = r->f, .t = t};

	return moves_apply(&lm);
}

/*
 * After plane t's tables are written: the leaves' entries for the compute
 * nodes' LIDs moved while the modelled shift stages do better; kept where
 * their summed maxima fell. Out of memory, or past MOVES_MAX_CELLS or the
 * work, the tables stay as routed. The audit's retries route the plane
 * again with the same compute entries: the pass's result is kept for them
 * (the passes' memo, vt_route_mainloop.c; cores 4,6,3,16,6 --drop-links
 * 1@1: four passes, one run).
 */
void vt_route_leaf_moves(struct router *r, const vt_tree *t)
{
	struct leaf_moves lm = {.f = r->f, .t = t, .lfts = r->lfts};

	if (!moves_apply(&lm))
		return;
	r->deg.unsure |= moves_run(&lm) > 0;
	free(lm.load);
	free(lm.hist);
	free(lm.smax);
	free(lm.saved);
	free(lm.place);
}
