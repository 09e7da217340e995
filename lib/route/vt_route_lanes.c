/* SPDX-License-Identifier: MIT */
/*
 * Split cores whose leaves' line ASIC sets overlap unevenly (issue 23 goal
 * 2): cores 2,18,9,40,10 deals each leaf's 10 up-links over 10 of 36 line
 * ASICs, so two leaves share 0 to 9 of them. Shortest routes between two
 * leaves that share lines must cross those: in the stage that sends a
 * leaf's 10 hosts to a leaf it shares 2 lines with, 5 flows a link, and
 * Algorithms 2-4 routed 5/3.00 (cut bound 1/1.00; cores 2,8,4,24,10 3/2.58).
 * A shift stage sends a leaf's hosts to a window of consecutive ranks, so
 * a leaf's up-link carries one flow a stage only if the destination at rank
 * offset o (in its leaf) goes up the o-th up-link (its lane) from every
 * leaf, and one flow comes down a leaf's link only if it comes down the
 * destination leaf's lane o. Where every leaf's lane o lies in one chassis,
 * the destination's traffic climbs from each source leaf's lane-o line to a
 * spine ASIC of that chassis and down to the destination leaf's lane-o line
 * (four switch hops where two leaves share a line elsewhere: the audit counts
 * them non-minimal), and only the spine and parallel link each line takes
 * are left to choose: first each destination's colour, one spine and link
 * for all its lines (vt_route_lanes_colour.c; cores 2,8,4,24,10 2/1.77 ->
 * 1/1.00, the greedy below stalled at 2 whatever its rounds); where a stage
 * still loads a link past one flow, and again without colours, destination
 * by destination in rank order, each line the spine and link the modelled
 * shift stages load least, then again with every other choice made (a few
 * rounds); the better plan is kept. Routes stay up*-down*; the
 * spines of the destination's chassis all go down its lane, the other
 * chassis' entries stay as routed. Where lane o's chassis differs between
 * leaves (three chassis, ten up-links a leaf: 4-3-3 in turn), a leaf climbs
 * into the destination's lane's chassis over its own lanes there
 * (vt_route_lanes_climb; cores 3,8,4,24,10 5/2.41 -> 2/1.77, cut bound
 * 2/1.07). Only where leaves' line sets differ (an
 * even deal, cores 2,36,18,84,18, is at the bound already); compute nodes'
 * LIDs of LMC 0 only. A damaged core takes them lane by lane: a leaf that
 * lost lane o takes another of its lanes into o's chassis, a lost spine or
 * line-spine link leaves the choices that need it out, and the lanes are
 * kept only where the tables' shift, walked, is better with them
 * (cores 2,18,9,40,10 --drop-switches 1@1 10/4.10 -> 2/1.99, bound 2/1.95).
 */
#include <stdlib.h>
#include <string.h>

#include "route/vt_route_lanes_int.h"

/* The model's size past which lanes are left out (stages x lines x spines x links). */
#define LANES_MAX_CELLS (1u << 24)
/* Rounds of choices made again with every other one made. */
#define LANES_ROUNDS 8
/*
 * The work (ranks^2 x spines x links^2 per pass: every flow scored on every
 * choice) past which fewer rounds run, and past which one pass is too many:
 * cores 2,36,18,100,20 (2000 hosts) took 45 s CPU for 9 passes; cores
 * 2,18,9,40,10 takes 6e6 a pass, 0.15 s for all 9.
 */
#define LANES_MAX_WORK (1ull << 28)

static uint8_t *up_cell(struct lanes *ln, uint32_t k, uint32_t x, uint32_t s, uint32_t l)
{
	return &ln->up[(((size_t)k * ln->nl + x) * ln->ns + s) * ln->q + l];
}

static uint8_t *dn_cell(struct lanes *ln, uint32_t k, uint32_t y, uint32_t s, uint32_t l)
{
	return &ln->dn[(((size_t)k * ln->nl + y) * ln->ns + s) * ln->q + l];
}

/*
 * Spine slots: a spine's place among its chassis' spines (the deg.grp of
 * the lines it links to, every one of them at level 1); ns the most.
 */
static int lanes_spines(struct lanes *ln, const struct router *r, const vt_tree *t)
{
	uint32_t *cnt = calloc(t->nsw + 1, sizeof(*cnt));
	int ok = cnt != NULL;

	ln->ns = 0;
	for (uint32_t i = t->lvl_start[2]; ok && i < t->lvl_start[3]; i++) {
		uint32_t p = t->by_level[i], g;

		ok = t->dn_start[p] < t->dn_start[p + 1];
		g = ok ? r->deg.grp[t->dn_peer[t->dn_start[p]]] : 0;
		for (uint32_t k = t->dn_start[p]; ok && k < t->dn_start[p + 1]; k++)
			ok = r->deg.grp[t->dn_peer[k]] == g && t->level[t->dn_peer[k]] == 1;
		if (ok) {
			ln->idx[p] = cnt[g]++;
			ln->ns = cnt[g] > ln->ns ? cnt[g] : ln->ns;
		}
	}
	free(cnt);
	return ok && ln->ns;
}

/* The l-th of switch s's links to switch p (entries a .. j of peer[] before j). */
static uint32_t nth_link(const uint32_t *peer, uint32_t a, uint32_t j)
{
	uint32_t l = 0;

	for (uint32_t k = a; k < j; k++)
		l += peer[k] == peer[j];
	return l;
}

/*
 * The lines' up-links by spine slot and link (sup, VT_NONE where a spine or
 * link is down) and the spines' links down to each line (dport,
 * VT_LFT_NONE); q the most parallel links a line has to a spine. Two or
 * more chassis (a damaged var-ary-n-tree is one: its lines all share
 * spines), every line linked up only to spines of its own. 0 when not so.
 */
static int lanes_lines(struct lanes *ln, const struct router *r, const vt_tree *t)
{
	uint32_t g0 = r->deg.grp[t->by_level[t->lvl_start[1]]];
	int split = 0;
	size_t cells;

	ln->nl = t->lvl_start[2] - t->lvl_start[1];
	ln->q = 0;
	for (uint32_t i = 0; i < ln->nl; i++) {
		uint32_t x = t->by_level[t->lvl_start[1] + i], a = t->up_start[x];

		ln->idx[x] = i;
		split |= r->deg.grp[x] != g0;
		for (uint32_t j = a; j < t->up_start[x + 1]; j++) {
			uint32_t p = t->up_peer[j], l = nth_link(t->up_peer, a, j);

			if (t->level[p] != 2 || t->dn_start[p] == t->dn_start[p + 1] ||
			    r->deg.grp[t->dn_peer[t->dn_start[p]]] != r->deg.grp[x])
				return 0;
			ln->q = l + 1 > ln->q ? l + 1 : ln->q;
		}
	}
	if (!split || !ln->q || !lanes_spines(ln, r, t))
		return 0;
	cells = (size_t)ln->nl * ln->ns * ln->q;
	ln->sup = malloc(cells * sizeof(*ln->sup));
	ln->dport = malloc(cells);
	if (!ln->sup || !ln->dport)
		return 0;
	memset(ln->dport, VT_LFT_NONE, cells);
	for (size_t c = 0; c < cells; c++)
		ln->sup[c] = VT_NONE;
	for (uint32_t i = 0; i < ln->nl; i++) {
		uint32_t x = t->by_level[t->lvl_start[1] + i], a = t->up_start[x];

		for (uint32_t j = a; j < t->up_start[x + 1]; j++)
			ln->sup[((size_t)i * ln->ns + ln->idx[t->up_peer[j]]) * ln->q +
				nth_link(t->up_peer, a, j)] = j;
	}
	for (uint32_t i = t->lvl_start[2]; i < t->lvl_start[3]; i++) {
		uint32_t p = t->by_level[i], a = t->dn_start[p];

		for (uint32_t k = a; k < t->dn_start[p + 1]; k++) {
			uint32_t l = nth_link(t->dn_peer, a, k);

			if (l < ln->q)
				ln->dport[((size_t)ln->idx[t->dn_peer[k]] * ln->ns + ln->idx[p]) *
						  ln->q +
					  l] = t->dn_port[k];
		}
	}
	return 1;
}

static int lanes_apply(struct lanes *ln, const struct router *r, const vt_tree *t)
{
	const vt_fabric *f = r->f;

	if (t->nlevels != 3 || !t->order.n || t->lvl_start[0] || !t->lvl_start[1])
		return 0;
	for (uint32_t d = 0; d < t->order.n; d++)
		if (t->order.port[d] != VT_NONE && f->ports[t->order.port[d]].lmc)
			return 0;
	ln->n = t->order.n;
	return 1;
}

static int lanes_alloc(struct lanes *ln, const vt_tree *t)
{
	ln->idx = calloc(t->nsw + 1, sizeof(*ln->idx));
	ln->first = calloc(t->lvl_start[1] + 1, sizeof(*ln->first));
	ln->nranks = calloc(t->lvl_start[1] + 1, sizeof(*ln->nranks));
	return !ln->idx || !ln->first || !ln->nranks;
}

/* A pass's work: see LANES_MAX_WORK. */
static uint64_t lanes_pass_work(const struct lanes *ln)
{
	return (uint64_t)ln->n * ln->n * ln->ns * ln->q * ln->q;
}

/* Is the model small enough (LANES_MAX_CELLS, a choice in a uint16_t, one pass's work)? */
static int lanes_fit(const struct lanes *ln)
{
	return (uint64_t)ln->n * ln->nl * ln->ns * ln->q <= LANES_MAX_CELLS &&
	       ln->ns * ln->q < VT_LANE_NONE && lanes_pass_work(ln) <= LANES_MAX_WORK / 2;
}

static int lanes_model_alloc(struct lanes *ln)
{
	size_t cells = (size_t)ln->n * ln->nl * ln->ns * ln->q;

	ln->up = calloc(cells, 1);
	ln->dn = calloc(cells, 1);
	ln->choice = malloc((size_t)ln->n * ln->nl * sizeof(*ln->choice));
	ln->dlane = calloc((size_t)ln->n * ln->ns, 1);
	ln->dcount = calloc((size_t)ln->n * ln->ns, sizeof(*ln->dcount));
	ln->xs = calloc(ln->nl + 2, sizeof(*ln->xs));
	ln->fill = calloc(ln->nl + 1, sizeof(*ln->fill));
	ln->ks = calloc(ln->n + 1, sizeof(*ln->ks));
	ln->over = calloc(ln->n + 1, sizeof(*ln->over));
	ln->tmax = malloc((size_t)2 * ln->ns * ln->q);
	ln->tcnt = malloc(((size_t)4 + ln->q) * ln->ns * ln->q * sizeof(*ln->tcnt));
	if (!ln->tmax || !ln->tcnt || !ln->up || !ln->dn || !ln->choice || !ln->dlane ||
	    !ln->dcount || !ln->xs || !ln->fill || !ln->ks || !ln->over)
		return 1;
	for (size_t i = 0; i < (size_t)ln->n * ln->nl; i++)
		ln->choice[i] = VT_LANE_NONE;
	return 0;
}

static void lanes_free(struct lanes *ln)
{
	free(ln->idx);
	free(ln->lane);
	free(ln->first);
	free(ln->nranks);
	free(ln->sup);
	free(ln->dport);
	free(ln->up);
	free(ln->dn);
	free(ln->choice);
	free(ln->dlane);
	free(ln->dcount);
	free(ln->xs);
	free(ln->fill);
	free(ln->ks);
	free(ln->over);
	free(ln->cl);
	free(ln->tmax);
	free(ln->tcnt);
	free(ln->col);
}

/* The model emptied, no choice made: for another plan. */
static void lanes_model_reset(struct lanes *ln)
{
	size_t cells = (size_t)ln->n * ln->nl * ln->ns * ln->q;

	memset(ln->up, 0, cells);
	memset(ln->dn, 0, cells);
	memset(ln->dlane, 0, (size_t)ln->n * ln->ns);
	memset(ln->dcount, 0, (size_t)ln->n * ln->ns * sizeof(*ln->dcount));
	memset(ln->over, 0, ((size_t)ln->n + 1) * sizeof(*ln->over));
	for (size_t i = 0; i < (size_t)ln->n * ln->nl; i++)
		ln->choice[i] = VT_LANE_NONE;
}

/* Leaf a's lane line for lane offset o (its place among the lines), VT_NONE: none. */
static uint32_t lane_line(const struct lanes *ln, uint32_t a, uint32_t o)
{
	uint32_t j = ln->lane[(size_t)a * ln->nu + o];

	return j == VT_NONE ? VT_NONE : ln->idx[ln->t->up_peer[j]];
}

/* Leaf a's climb line (its place among the lines) for leaf b's lane o, VT_NONE: none. */
static uint32_t climb_walk(const struct lanes *ln, uint32_t a, uint32_t b, uint32_t o)
{
	uint32_t j = vt_route_lanes_climb(ln, a, b, o);

	return j == VT_NONE ? VT_NONE : ln->idx[ln->t->up_peer[j]];
}

/* climb_walk, from the memo where there is one (lanes_climbs). */
static uint32_t climb_line(const struct lanes *ln, uint32_t a, uint32_t b, uint32_t o)
{
	if (ln->cl)
		return ln->cl[((size_t)b * ln->nu + o) * ln->nleaf + a];
	return climb_walk(ln, a, b, o);
}

/* The climb lines' memo (ln->cl): none past LANES_MAX_CELLS or out of memory. */
static void lanes_climbs(struct lanes *ln)
{
	size_t cells = (size_t)ln->nleaf * ln->nleaf * ln->nu;

	ln->cl = cells <= LANES_MAX_CELLS ? malloc((cells + 1) * sizeof(*ln->cl)) : NULL;
	for (uint32_t b = 0; ln->cl && b < ln->nleaf; b++)
		for (uint32_t o = 0; o < ln->nu; o++)
			for (uint32_t a = 0; a < ln->nleaf; a++)
				ln->cl[((size_t)b * ln->nu + o) * ln->nleaf + a] =
					climb_walk(ln, a, b, o);
}

/* Rank d's leaf (its place among the leaves), lane offset and lane line y (VT_NONE: none). */
static void dest_of(const struct lanes *ln, uint32_t d, uint32_t *b, uint32_t *o, uint32_t *y)
{
	const vt_tree *t = ln->t;

	*b = ln->idx[t->rank_leaf[d]];
	*o = d - ln->first[*b];
	*y = lane_line(ln, *b, *o);
}

/* Rank i's flow to rank d modelled: in a stage sfree keeps, where sfilter is 2? */
static int stage_free(const struct lanes *ln, uint32_t d, uint32_t i)
{
	return ln->sfilter < 2 || ln->sfree[(d + ln->n - i) % ln->n];
}

/*
 * Rank d's flows per line: ks[xs[x] .. xs[x + 1]) the stages in which a host
 * of a leaf other than d's whose lane line for d is x (not d's own lane
 * line) sends to d.
 */
static void dest_flows(struct lanes *ln, uint32_t d)
{
	const vt_tree *t = ln->t;
	uint32_t b, o, y;

	dest_of(ln, d, &b, &o, &y);
	for (uint32_t x = 0; x <= ln->nl; x++)
		ln->xs[x] = 0;
	for (uint32_t a = 0; a < ln->nleaf; a++) {
		uint32_t x = climb_line(ln, a, b, o);

		for (uint32_t i = ln->first[a];
		     a != b && x != y && x != VT_NONE && i < ln->first[a] + ln->nranks[a]; i++)
			ln->xs[x + 1] += t->order.port[i] != VT_NONE && stage_free(ln, d, i);
	}
	for (uint32_t x = 0; x < ln->nl; x++)
		ln->xs[x + 1] += ln->xs[x];
	for (uint32_t a = 0; a < ln->nleaf; a++) {
		uint32_t x = climb_line(ln, a, b, o);

		for (uint32_t i = ln->first[a];
		     a != b && x != y && x != VT_NONE && i < ln->first[a] + ln->nranks[a]; i++)
			if (t->order.port[i] != VT_NONE && stage_free(ln, d, i))
				ln->ks[ln->xs[x] + ln->fill[x]++] = (d + ln->n - i) % ln->n;
	}
	for (uint32_t x = 0; x < ln->nl; x++)
		ln->fill[x] = 0;
	ln->y = y;
}

/* Adds w to line x's flows to rank d on choice (s, l) up and dl down. */
static void add(struct lanes *ln, uint32_t x, uint32_t s, uint32_t l, uint32_t dl, int w)
{
	for (uint32_t i = ln->xs[x]; i < ln->xs[x + 1]; i++) {
		uint8_t *u = up_cell(ln, ln->ks[i], x, s, l),
			*v = dn_cell(ln, ln->ks[i], ln->y, s, dl);

		uint32_t k = ln->ks[i];

		ln->over[k] -= (*u > 1) + (*v > 1);
		*u = (uint8_t)(*u + w);
		*v = (uint8_t)(*v + w);
		ln->over[k] += (*u > 1) + (*v > 1);
	}
}

/*
 * Choice (s, l, dl)'s score for line x's flows: the most a link would carry
 * in a stage, the stages it would load past one flow that carry none so far
 * (the average counts each stage's most loaded link: a second flow where a
 * stage has one already costs it nothing), and the links already loaded.
 */
struct lane_score {
	uint32_t m, nb, c;
};

/* tally's terms for cells [0, w) of one flow's rows u (up) and v (down); fs: its stage unloaded. */
static inline void tally_cells(uint8_t *restrict mu, uint8_t *restrict mv, uint16_t *restrict cu,
			       uint16_t *restrict bu, uint16_t *restrict cv, uint16_t *restrict bv,
			       const uint8_t *restrict u, const uint8_t *restrict v, uint16_t fs,
			       uint32_t w)
{
	for (uint32_t j = 0; j < w; j++) {
		uint16_t pu = u[j] > 0, pv = v[j] > 0;

		mu[j] = u[j] > mu[j] ? u[j] : mu[j];
		mv[j] = v[j] > mv[j] ? v[j] : mv[j];
		cu[j] += pu;
		bu[j] += (uint16_t)(pu & fs);
		cv[j] += pv;
		bv[j] += (uint16_t)(pv & fs);
	}
}

/*
 * Every choice's score terms for line x's flows at once, flow by flow (a
 * flow's cells of all choices lie side by side): the up link's and the down
 * link's apart, and for the stages loading no link past one flow, the flows
 * both would carry (counted twice in nb otherwise). tmax: per up choice
 * s * q + l the most a link carries, then per down choice s * q + dl; tcnt:
 * per up choice the flows loaded, those of unloaded stages, then the same
 * per down choice, then both per (s * q + l) * q + dl. Counts fit 16 bits:
 * LANES_MAX_WORK keeps n below 2^14.
 */
static void tally(struct lanes *ln, uint32_t x)
{
	uint32_t nc = ln->ns * ln->q, q = ln->q, c;
	uint16_t *both = ln->tcnt + 4 * nc;
	uint8_t *mu = ln->tmax, *mv = mu + nc;
	uint16_t *cu = ln->tcnt, *bu = cu + nc, *cv = bu + nc, *bv = cv + nc;

	memset(ln->tmax, 0, (size_t)2 * nc);
	memset(ln->tcnt, 0, ((size_t)4 * nc + (size_t)nc * q) * sizeof(*ln->tcnt));
	for (uint32_t i = ln->xs[x]; i < ln->xs[x + 1]; i++) {
		uint32_t k = ln->ks[i];
		uint16_t fs = !ln->over[k];
		const uint8_t *u = up_cell(ln, k, x, 0, 0), *v = dn_cell(ln, k, ln->y, 0, 0);

		if (ln->sfilter == 1 && !ln->sfree[k]) { /* two a link anyway: a third costs */
			for (c = 0; c < nc; c++) {
				mu[c] = u[c] > mu[c] + 1 ? u[c] - 1 : mu[c];
				mv[c] = v[c] > mv[c] + 1 ? v[c] - 1 : mv[c];
			}
			continue;
		}

		/* 16 and 8 cells at a time: fixed counts the compiler vectorizes */
		for (c = 0; c + 16 <= nc; c += 16)
			tally_cells(mu + c, mv + c, cu + c, bu + c, cv + c, bv + c, u + c, v + c,
				    fs, 16);
		for (; c + 8 <= nc; c += 8)
			tally_cells(mu + c, mv + c, cu + c, bu + c, cv + c, bv + c, u + c, v + c,
				    fs, 8);
		tally_cells(mu + c, mv + c, cu + c, bu + c, cv + c, bv + c, u + c, v + c, fs,
			    nc - c);
		for (c = 0; fs && c < nc; c++) {
			uint32_t s0 = c - c % q;

			for (uint32_t dl = 0; u[c] && dl < q; dl++)
				both[(size_t)c * q + dl] += v[s0 + dl] > 0;
		}
	}
}

static int better(const struct lane_score *a, const struct lane_score *b)
{
	if (a->m != b->m)
		return a->m < b->m;
	return a->nb != b->nb ? a->nb < b->nb : a->c < b->c;
}

static void place(struct lanes *ln, uint32_t d, uint32_t x, uint32_t s, uint32_t l, uint32_t dl,
		  int w)
{
	uint8_t *dla = &ln->dlane[(size_t)d * ln->ns + s];
	uint16_t *dc = &ln->dcount[(size_t)d * ln->ns + s];

	if (w > 0)
		*dla = (uint8_t)dl;
	add(ln, x, s, l, *dla, w);
	*dc = (uint16_t)(*dc + w);
	ln->choice[(size_t)d * ln->nl + x] = w > 0 ? (uint16_t)(s * ln->q + l) : VT_LANE_NONE;
}

/*
 * Line x's spine and link for rank d (dest_flows), the modelled stages' least
 * loaded of those whose links are up; placed (none where no spine of the
 * chassis links to both lines: x's entry stays as routed).
 */
static void pick(struct lanes *ln, uint32_t d, uint32_t x)
{
	struct lane_score best = {UINT32_MAX, 0, 0};
	uint32_t bs = 0, bl = 0, bd = 0, nc = ln->ns * ln->q, q = ln->q;
	const uint8_t *mu = ln->tmax, *mv = mu + nc;
	const uint16_t *cu = ln->tcnt, *bu = cu + nc, *cv = bu + nc, *bv = cv + nc, *both = bv + nc;

	tally(ln, x);
	for (uint32_t s = 0; s < ln->ns; s++)
		for (uint32_t l = 0; l < q; l++) {
			int fixed = ln->dcount[(size_t)d * ln->ns + s] > 0;
			uint32_t cup = s * q + l;

			if (ln->sup[((size_t)x * ln->ns + s) * q + l] == VT_NONE)
				continue;
			for (uint32_t dl = 0; dl < q; dl++) {
				uint32_t cdn = s * q + dl;
				struct lane_score sc;

				if ((fixed && dl != ln->dlane[(size_t)d * ln->ns + s]) ||
				    ln->dport[((size_t)ln->y * ln->ns + s) * q + dl] == VT_LFT_NONE)
					continue;
				sc.m = (mu[cup] > mv[cdn] ? mu[cup] : mv[cdn]) + 1u;
				sc.nb = bu[cup] + bv[cdn] - both[(size_t)cup * q + dl];
				sc.c = cu[cup] + cv[cdn];
				if (better(&sc, &best)) {
					best = sc;
					bs = s;
					bl = l;
					bd = dl;
				}
			}
		}
	if (best.m != UINT32_MAX)
		place(ln, d, x, bs, bl, bd, 1);
}

/* Rank d is a compute node's whose leaf has a lane line for it. */
static int lane_dest(const struct lanes *ln, uint32_t d)
{
	uint32_t b, o, y;

	if (ln->t->order.port[d] == VT_NONE)
		return 0;
	dest_of(ln, d, &b, &o, &y);
	return y != VT_NONE;
}

/* Rank i's flow to rank d: the lane line it climbs to a spine from, VT_NONE: none. */
static uint32_t climb(const struct lanes *ln, uint32_t i, uint32_t d)
{
	uint32_t a = ln->idx[ln->t->rank_leaf[i]], b, o, y, x;

	if (ln->t->order.port[i] == VT_NONE || !lane_dest(ln, d))
		return VT_NONE;
	dest_of(ln, d, &b, &o, &y);
	x = climb_line(ln, a, b, o);
	return a == b || x == y ? VT_NONE : x;
}

/*
 * The colouring's graph: lane destinations adjacent where a shift stage
 * brings both up one line, or where they share their lane line (both come
 * down its spine links in most stages). st[], fill[] room for nl + 1
 * entries, v[] and xof[] for n.
 */
static void lanes_graph(struct lanes *ln, uint64_t *adj, uint32_t words, uint32_t *st,
			uint32_t *fill, uint32_t *v, uint32_t *xof)
{
	uint32_t n = ln->n;

	for (uint32_t k = 0; k < n; k++) {
		if (k && ln->sfilter && !ln->sfree[k])
			continue;
		memset(st, 0, (ln->nl + 1) * sizeof(*st));
		memset(fill, 0, (ln->nl + 1) * sizeof(*fill));
		for (uint32_t i = 0; i < n; i++) {
			uint32_t b, o;

			if (k)
				xof[i] = climb(ln, i, (i + k) % n);
			else if (lane_dest(ln, i))
				dest_of(ln, i, &b, &o,
					&xof[i]); /* stage 0 stands for the lane lines */
			else
				xof[i] = VT_NONE;
			st[xof[i] + 1] += xof[i] != VT_NONE;
		}
		for (uint32_t x = 0; x < ln->nl; x++)
			st[x + 1] += st[x];
		for (uint32_t i = 0; i < n; i++)
			if (xof[i] != VT_NONE)
				v[st[xof[i]] + fill[xof[i]]++] = k ? (i + k) % n : i;
		for (uint32_t x = 0; x < ln->nl; x++)
			vt_route_lanes_clique(adj, words, &v[st[x]], st[x + 1] - st[x]);
	}
}

/* Every lane destination's colour (ln->col): 0 when out of memory. */
static int lanes_colour(struct lanes *ln)
{
	uint32_t n = ln->n, words = (n + 63) / 64, ncol = ln->ns * ln->q, b, o, y;
	uint64_t *adj = calloc((size_t)n * words + 1, sizeof(*adj));
	uint8_t *ok = calloc((size_t)n * ncol + 1, 1);
	uint32_t *st = calloc(ln->nl + 2, sizeof(*st)), *fill = calloc(ln->nl + 2, sizeof(*fill));
	uint32_t *v = calloc((size_t)n + 1, sizeof(*v)), *xof = calloc((size_t)n + 1, sizeof(*xof));
	int done = 0;

	ln->col = malloc(((size_t)n + 1) * sizeof(*ln->col));
	if (adj && ok && st && fill && v && xof && ln->col && ncol < VT_COLOUR_TODO) {
		lanes_graph(ln, adj, words, st, fill, v, xof);
		for (uint32_t d = 0; d < n; d++) {
			if (!lane_dest(ln, d))
				continue;
			dest_of(ln, d, &b, &o, &y);
			for (uint32_t c = 0; c < ncol; c++)
				ok[(size_t)d * ncol + c] =
					ln->dport[(size_t)y * ncol + c] != VT_LFT_NONE;
		}
		done = vt_route_lanes_colour(n, words, adj, ncol, ok, ln->col) != VT_NONE;
	}
	free(adj);
	free(ok);
	free(st);
	free(fill);
	free(v);
	free(xof);
	return done;
}

/*
 * Line x takes rank d's colour (spine slot and link, up and down) where its
 * link is up and the spine's link down is the one d's other lines take;
 * else the modelled least loaded choice.
 */
static void seed(struct lanes *ln, uint32_t d, uint32_t x)
{
	uint32_t c = ln->col[d], s = c / ln->q, l = c % ln->q;

	if (c != VT_COLOUR_NONE && ln->sup[(size_t)x * ln->ns * ln->q + c] != VT_NONE &&
	    (!ln->dcount[(size_t)d * ln->ns + s] || ln->dlane[(size_t)d * ln->ns + s] == l))
		place(ln, d, x, s, l, l, 1);
	else
		pick(ln, d, x);
}

/*
 * Every line's choice for every rank: rank order (each rank's colour where
 * coloured), then again with the others made, unless the model loads no
 * link past one flow.
 */
static void plan(struct lanes *ln, uint32_t rounds, int coloured)
{
	uint64_t over = 0;

	for (uint32_t d = 0; d < ln->n; d++) {
		if (!lane_dest(ln, d))
			continue;
		dest_flows(ln, d);
		for (uint32_t x = 0; x < ln->nl; x++)
			if (ln->xs[x + 1] > ln->xs[x] && coloured)
				seed(ln, d, x);
			else if (ln->xs[x + 1] > ln->xs[x])
				pick(ln, d, x);
	}
	for (uint32_t k = 0; k < ln->n; k++)
		over += ln->over[k];
	for (uint32_t round = 0, moved = !coloured || over > 0; moved && round < rounds; round++) {
		moved = 0;
		for (uint32_t d = 0; d < ln->n; d++) {
			if (!lane_dest(ln, d))
				continue;
			dest_flows(ln, d);
			for (uint32_t x = 0; x < ln->nl; x++) {
				uint16_t was = ln->choice[(size_t)d * ln->nl + x];

				if (was == VT_LANE_NONE)
					continue;
				place(ln, d, x, was / ln->q, was % ln->q, 0, -1);
				pick(ln, d, x);
				moved |= ln->choice[(size_t)d * ln->nl + x] != was;
			}
		}
	}
}

/* Spine p's port of its l-th link down to line y. */
static uint8_t down_port(const vt_tree *t, uint32_t p, uint32_t y, uint32_t l)
{
	for (uint32_t k = t->dn_start[p]; k < t->dn_start[p + 1]; k++)
		if (t->dn_peer[k] == y && !l--)
			return t->dn_port[k];
	return VT_LFT_NONE;
}

/* Rank d's entries: the leaves up their lane, its chassis' lines and spines as planned. */
static void rewrite(struct router *r, struct lanes *ln, uint32_t d)
{
	const vt_tree *t = ln->t;
	uint32_t lid = r->f->ports[t->order.port[d]].lid, b, o, y, ysw;
	uint32_t g;

	dest_of(ln, d, &b, &o, &y);
	ysw = t->up_peer[ln->lane[b * ln->nu + o]];
	g = r->deg.grp[ysw];
	for (uint32_t a = 0; a < ln->nleaf; a++)
		if (a != b && vt_route_lanes_climb(ln, a, b, o) != VT_NONE)
			vt_lft_set(r->lfts, t->by_level[a], lid,
				   t->up_port[vt_route_lanes_climb(ln, a, b, o)]);
	for (uint32_t i = t->lvl_start[2]; i < t->lvl_start[3]; i++) {
		uint32_t p = t->by_level[i], s = ln->idx[p], dl = 0;

		if (r->deg.grp[t->dn_peer[t->dn_start[p]]] != g)
			continue;
		if (ln->dcount[(size_t)d * ln->ns + s])
			dl = ln->dlane[(size_t)d * ln->ns + s];
		if (down_port(t, p, ysw, dl) != VT_LFT_NONE)
			vt_lft_set(r->lfts, p, lid, down_port(t, p, ysw, dl));
	}
	for (uint32_t x = 0; x < ln->nl; x++) {
		uint16_t c = ln->choice[(size_t)d * ln->nl + x];

		if (c != VT_LANE_NONE)
			vt_lft_set(r->lfts, t->by_level[t->lvl_start[1] + x], lid,
				   t->up_port[ln->sup[(size_t)x * ln->ns * ln->q + c]]);
	}
}

/*
 * Plans and writes the lanes, seeded with the colouring, and again without
 * where that leaves a stage past one flow a link (the line-by-line choice
 * alone does better on some damaged cores); where lane o's chassis differs
 * between leaves, instead coloured again for the stages whose leaf links
 * the climbs load with one flow each alone (sfree: in the others some leaf
 * climbs two flows up one link whatever the lines do, and their conflicts
 * cost colours the others need), planned twice: with the other stages'
 * loads counted one less (a third flow a link costs there, a second not;
 * cores 3,8,4,24,10 2/1.86 -> 2/1.77), and without them (cores 3,12,6,36,8
 * 2/1.70 -> 2/1.64; the line-by-line pass they replace decided no figure
 * on 33 such fabrics); keeps the better only where
 * its shift figures beat the tables': worst stage, then the stages' sum
 * (the lanes' detours cost switch hops, so a tie keeps the tables).
 */
static int lanes_run(struct router *r, struct lanes *ln, uint32_t rounds)
{
	const vt_tree *t = ln->t;
	size_t size = (size_t)ln->n * t->lvl_start[t->nlevels] + 1;
	uint8_t *old = malloc(size), *best = malloc(size);
	uint32_t w0, w1;
	uint64_t s0, s1;
	int took = 0, coloured = lanes_colour(ln), recoloured = 0;

	if (!old || !best || !vt_route_lanes_shift(r, t, &w0, &s0)) {
		free(old);
		free(best);
		return 0;
	}
	vt_route_lanes_keep(r, t, old, 1);
	for (int pass = !coloured; pass < 2 + !!ln->sfree && (w0 > 1 || s0 > ln->n - 1); pass++) {
		int seeded = !pass;

		if (pass == 1 && vt_route_lanes_stages(ln)) { /* mixed chassis: see above */
			free(ln->col);
			ln->col = NULL;
			ln->sfilter = 1;
			seeded = recoloured = lanes_colour(ln);
		} else if (pass == 2) {
			ln->sfilter = 2;
			seeded = recoloured;
		}
		lanes_model_reset(ln);
		plan(ln, rounds, seeded);
		vt_route_lanes_keep(r, t, old, 0);
		for (uint32_t d = 0; d < ln->n; d++)
			if (lane_dest(ln, d) && r->f->ports[t->order.port[d]].lid)
				rewrite(r, ln, d);
		if (vt_route_lanes_shift(r, t, &w1, &s1) && (w1 < w0 || (w1 == w0 && s1 < s0))) {
			vt_route_lanes_keep(r, t, best, 1);
			w0 = w1;
			s0 = s1;
			took = 1;
		}
	}
	vt_route_lanes_keep(r, t, took ? best : old, 0);
	r->deg.unsure |= took;
	free(old);
	free(best);
	return took;
}

/*
 * Do the lanes apply to plane t, decided without reading the tables (a split
 * core dealing unevenly, a model small enough)? ln set up as far as that.
 */
static int lanes_ready(struct lanes *ln, const struct router *r, const vt_tree *t)
{
	return lanes_apply(ln, r, t) && !lanes_alloc(ln, t) && lanes_lines(ln, r, t) &&
	       vt_route_lanes_leaves(ln, r, t) && lanes_fit(ln);
}

int vt_route_lanes_applies(const struct router *r, const vt_tree *t)
{
	struct lanes ln = {.t = t, .grp = r->deg.grp};
	int ok = lanes_ready(&ln, r, t);

	lanes_free(&ln);
	return ok;
}

/*
 * After plane t's tables are written: on a split core whose leaves' line
 * sets overlap unevenly, the compute nodes' LIDs take the lanes where they
 * model a better shift than the tables. Out of memory, or past
 * LANES_MAX_CELLS or LANES_MAX_WORK, the tables stay as routed. Returns
 * whether the lanes were kept.
 */
int vt_route_lanes(struct router *r, const vt_tree *t)
{
	struct lanes ln = {.t = t, .grp = r->deg.grp};
	int took = 0;

	if (lanes_ready(&ln, r, t) && !lanes_model_alloc(&ln)) {
		uint64_t rounds = LANES_MAX_WORK / lanes_pass_work(&ln) - 1;

		lanes_climbs(&ln);
		took = lanes_run(r, &ln, rounds < LANES_ROUNDS ? (uint32_t)rounds : LANES_ROUNDS);
	}
	lanes_free(&ln);
	return took;
}
