/* SPDX-License-Identifier: MIT */
/*
 * Irregular two-level trees, beyond the paper (issue 23 goal 2): a narrow
 * leaf, linked to fewer tops than the others, sends and receives all its
 * traffic over those few tops, and Algorithm 4's least-loaded choice,
 * destination by destination, cannot see that coming: a destination routed
 * early takes a top that the narrow leaf's later traffic needs in the same
 * shift stage. So once the plane is routed, the tops are chosen again,
 * destination by destination in rank order, on a model of every shift
 * stage's link loads in which the flows still to come stand where they are
 * bound to go (the look-ahead): a narrow leaf's destinations on their
 * regular lanes, a narrow leaf's own flows spread over the tops it shares
 * with the destination. The best plan (or the tables' choice) is then
 * improved by moves (vt_route_lookahead_search.c). Where the model's shift
 * is better than the tables' (vt_route_look_better_plan), the leaves'
 * entries for the compute nodes' base LIDs are rewritten; on two levels
 * every route stays up-down (a leaf only ever takes a top linked to the
 * destination's leaf) and the tops' entries stay as they are.
 */
#include <stdlib.h>
#include <string.h>

#include "route/vt_route_look_int.h"

/* The model's size past which the look-ahead is left out (ranks x leaves x tops). */
#define LOOK_MAX_CELLS (1u << 21)
/* ... and the work past which fewer starts are tried (ranks^2 x tops x starts) */
#define LOOK_MAX_WORK (1ull << 24)
/*
 * ... and one start's choices (look_affordable) past which it is left out:
 * fat 36,2 leaf-uplinks=12:18 (1296 hosts, twelve narrow leaves) took 2.2 s
 * against 0.1 s for the routing, for no better shift (2/1.97, the bound).
 */
#define LOOK_MAX_CHOICES (1ull << 24)

/* vt_route_look_int.h */
void vt_route_look_add_flows(struct router *r, uint32_t d, const uint32_t *c, int32_t w)
{
	const vt_tree *t = r->t;
	struct route_look *lk = &r->look;
	uint32_t n = t->order.n, y = leaf_of(r, d);

	for (uint32_t x = 0; x < lk->nl; x++) {
		uint32_t nk = 0;

		if (x == y || (!c && !lk->narrow[x]))
			continue;
		for (uint32_t k = 0; k < lk->ns; k++) {
			int on = c ? c[x] == k : linked(lk, x, k) && linked(lk, y, k);

			nk += (uint32_t)on;
			lk->mark[k] = (uint8_t)on;
		}
		for (uint32_t i = lk->first[x]; nk && i < lk->first[x] + lk->nranks[x]; i++) {
			uint32_t s = (d + n - i) % n;

			for (uint32_t k = 0; t->order.port[i] != VT_NONE && k < lk->ns; k++)
				if (lk->mark[k]) {
					*up_cell(lk, s, x, k) += (uint32_t)(w / (int32_t)nk);
					*dn_cell(lk, s, k, y) += (uint32_t)(w / (int32_t)nk);
				}
		}
	}
}

/* Adds to key the flows to rank d (on leaf y) from leaf x over top k. */
static void leaf_keys(const struct router *r, uint32_t d, uint32_t y, uint32_t x, uint32_t k,
		      struct look_keys *key)
{
	const vt_tree *t = r->t;
	const struct route_look *lk = &r->look;
	uint32_t n = t->order.n;

	for (uint32_t i = lk->first[x]; i < lk->first[x] + lk->nranks[x]; i++) {
		uint32_t s = (d + n - i) % n;

		if (t->order.port[i] == VT_NONE)
			continue;
		vt_route_look_count(key, *up_cell(lk, s, x, k) + VT_LOOK_Q);
		vt_route_look_count(key, *dn_cell(lk, s, k, y) + VT_LOOK_Q);
	}
}

/*
 * The keys of the flows to rank d from leaf x over top k, or, x VT_NONE,
 * from every leaf, leaf l over top c[l].
 */
static void flow_keys(const struct router *r, uint32_t d, uint32_t x, uint32_t k, const uint32_t *c,
		      struct look_keys *key)
{
	const struct route_look *lk = &r->look;
	uint32_t y = leaf_of(r, d);

	*key = (struct look_keys){0};
	if (x != VT_NONE) {
		leaf_keys(r, d, y, x, k, key);
		return;
	}
	for (uint32_t l = 0; l < lk->nl; l++)
		if (l != y && c[l] != VT_NONE)
			leaf_keys(r, d, y, l, c[l], key);
}

/*
 * c[] for rank d (leaf y) over top k: the leaves linked to k go up to it
 * (Algorithm 3's descent finds them), the others to the top they share with
 * y that the policy ranks first for their own flows to d.
 */
static void choose_tops(struct router *r, uint32_t d, uint32_t y, uint32_t k, uint32_t *c)
{
	const struct route_look *lk = &r->look;

	for (uint32_t x = 0; x < lk->nl; x++) {
		struct look_keys best = {0}, key;

		c[x] = x == y || linked(lk, x, k) ? k : VT_NONE;
		for (uint32_t kk = 0; c[x] != k && kk < lk->ns; kk++) {
			if (!linked(lk, x, kk) || !linked(lk, y, kk))
				continue;
			flow_keys(r, d, x, kk, c, &key);
			if (c[x] == VT_NONE || vt_route_look_better(&key, &best)) {
				best = key;
				c[x] = kk;
			}
		}
	}
}

/*
 * Rank d's tops (the choice whose flows the policy ranks first) into its
 * row; the model adds them.
 */
static void route_rank(struct router *r, uint32_t d)
{
	struct route_look *lk = &r->look;
	uint32_t y = leaf_of(r, d), *c = lk->tmp, *bc = tops_of(lk, d);
	struct look_keys best = {0}, key;
	int any = 0;

	for (uint32_t k = 0; k < lk->ns; k++) {
		if (!linked(lk, y, k))
			continue;
		choose_tops(r, d, y, k, c);
		flow_keys(r, d, VT_NONE, 0, c, &key);
		if (!any || vt_route_look_better(&key, &best)) {
			best = key;
			any = 1;
			memcpy(bc, c, lk->nl * sizeof(*c));
		}
	}
	if (any)
		vt_route_look_add_flows(r, d, bc, VT_LOOK_Q);
}

/*
 * A narrow leaf's rank d on its regular lane: its leaf's parents in turn, by
 * its place in the leaf; the leaves not linked to that top as if nothing
 * were loaded (the first top they share with d's leaf). Into d's row.
 */
static void regular_lane(struct router *r, uint32_t d)
{
	const vt_tree *t = r->t;
	struct route_look *lk = &r->look;
	uint32_t y = leaf_of(r, d), L = t->rank_leaf[d], a = t->up_start[L];
	uint32_t nu = t->up_start[L + 1] - a, off = d - t->subs[t->sub[L]].first_rank;
	uint32_t k = lk->idx[t->up_peer[a + off % nu]], *c = tops_of(lk, d);

	for (uint32_t x = 0; x < lk->nl; x++) {
		c[x] = linked(lk, x, k) ? k : VT_NONE;
		for (uint32_t kk = 0; c[x] == VT_NONE && kk < lk->ns; kk++)
			if (linked(lk, x, kk) && linked(lk, y, kk))
				c[x] = kk;
	}
}

/* vt_route_look_int.h */
int vt_route_look_table_tops(struct router *r, uint32_t d)
{
	const vt_tree *t = r->t;
	const vt_fabric *f = r->f;
	struct route_look *lk = &r->look;
	uint32_t *c = tops_of(lk, d), lid = f->ports[t->order.port[d]].lid, y = leaf_of(r, d);

	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++) {
		uint32_t s = t->by_level[i], x = lk->idx[s], e = vt_lft_get(r->lfts, s, lid), q;

		c[x] = VT_NONE;
		if (x == y || !lid || e == VT_LFT_NONE || !e)
			continue;
		q = f->ports[swport(r, s, e)].peer;
		if (q == VT_NONE || f->nodes[f->ports[q].node].type != VT_SWITCH)
			return 0;
		q = f->nodes[f->ports[q].node].sw;
		if (t->level[q] != 1)
			return 0;
		c[x] = lk->idx[q];
	}
	return 1;
}

/* The model's shift figures: the worst stage's highest load and the sum over stages. */
static void model_figures(const struct route_look *lk, uint32_t n, struct look_figures *fg)
{
	size_t cells = (size_t)lk->nl * lk->ns;

	*fg = (struct look_figures){0};
	for (uint32_t s = 1; s < n; s++) {
		uint32_t m = VT_LOOK_Q; /* a host link's */

		for (size_t i = 0; i < cells; i++) {
			m = lk->up[s * cells + i] > m ? lk->up[s * cells + i] : m;
			m = lk->dn[s * cells + i] > m ? lk->dn[s * cells + i] : m;
		}
		fg->worst = m > fg->worst ? m : fg->worst;
		fg->sum += m;
	}
}

/*
 * Can the look-ahead apply to plane t (two levels, a model of bounded
 * size)? Sets nl, ns, idx[] (leaves' and tops' indices) and the leaves'
 * runs of ranks (first[], nranks[]) on the way.
 */
static int look_applies(struct router *r, const vt_tree *t)
{
	struct route_look *lk = &r->look;

	if (t->nlevels != 2 || !t->order.n)
		return 0;
	lk->nl = t->lvl_start[1] - t->lvl_start[0];
	lk->ns = t->lvl_start[2] - t->lvl_start[1];
	if ((uint64_t)t->order.n * lk->nl * lk->ns > LOOK_MAX_CELLS)
		return 0;
	lk->first = calloc(lk->nl, sizeof(*lk->first));
	lk->nranks = calloc(lk->nl, sizeof(*lk->nranks));
	if (!lk->first || !lk->nranks)
		return 0;
	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[2]; i++)
		lk->idx[t->by_level[i]] = i - t->lvl_start[i < t->lvl_start[1] ? 0 : 1];
	for (uint32_t d = 0; d < t->order.n; d++) {
		uint32_t x = leaf_of(r, d);

		if (!lk->nranks[x]++)
			lk->first[x] = d;
	}
	return 1;
}

/*
 * Marks the links in has[] and the narrow leaves (vt_route_look_narrow) in
 * narrow[]: how many are narrow; -1 when a leaf has parallel links to a top.
 * Without a narrow leaf the look-ahead is left out, its moves too: the model
 * alone costs 0.08 s CPU on fat 36,2 and oversub 36,24,12,12, whose tables
 * it leaves as they are.
 */
static int look_links(struct router *r, const vt_tree *t)
{
	struct route_look *lk = &r->look;
	uint32_t most = 0, narrow = 0;

	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++) {
		uint32_t s = t->by_level[i], nu = t->up_start[s + 1] - t->up_start[s];

		for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++) {
			uint8_t *h = &lk->has[(size_t)lk->idx[s] * lk->ns + lk->idx[t->up_peer[j]]];

			if (*h)
				return -1;
			*h = 1;
		}
		if (vt_tree_leaf_ca(t, s) != VT_NONE)
			most = nu > most ? nu : most;
	}
	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++) {
		uint32_t s = t->by_level[i], nu = t->up_start[s + 1] - t->up_start[s];
		uint8_t *w = &lk->narrow[lk->idx[s]];

		*w = vt_route_look_narrow(nu, most) && vt_tree_leaf_ca(t, s) != VT_NONE;
		narrow += *w;
	}
	return (int)narrow;
}

/* Room for the model of plane t; 0, or -1 when out of memory. */
static int look_alloc(struct route_look *lk, const vt_tree *t)
{
	size_t n = t->order.n, cells = n * lk->nl * lk->ns;

	lk->up = calloc(cells, sizeof(*lk->up));
	lk->dn = calloc(cells, sizeof(*lk->dn));
	lk->has = calloc((size_t)lk->nl * lk->ns, 1);
	lk->narrow = calloc(lk->nl, 1);
	lk->mark = calloc(lk->ns, 1);
	lk->c = calloc(n * lk->nl, sizeof(*lk->c));
	lk->best = calloc(n * lk->nl, sizeof(*lk->best));
	lk->tmp = calloc(lk->nl, sizeof(*lk->tmp));
	if (!lk->up || !lk->dn || !lk->has || !lk->narrow || !lk->mark || !lk->c || !lk->best)
		return -1;
	return lk->tmp ? 0 : -1;
}

static void look_free(struct route_look *lk)
{
	free(lk->up);
	free(lk->dn);
	free(lk->has);
	free(lk->narrow);
	free(lk->mark);
	free(lk->c);
	free(lk->best);
	free(lk->tmp);
	free(lk->idx);
	free(lk->first);
	free(lk->nranks);
	memset(lk, 0, sizeof(*lk));
}

/* The model's figures of the tables as routed; 0 when they do not fit it. */
static int routed_figures(struct router *r, struct look_figures *fg)
{
	const vt_tree *t = r->t;
	uint32_t n = t->order.n;

	for (uint32_t d = 0; d < n; d++) {
		if (t->order.port[d] == VT_NONE)
			continue;
		if (!vt_route_look_table_tops(r, d))
			return 0;
		vt_route_look_add_flows(r, d, tops_of(&r->look, d), VT_LOOK_Q);
	}
	model_figures(&r->look, n, fg);
	return 1;
}

/*
 * The look-ahead's choice, rank by rank from rank start on (round the
 * order), into the rows; its figures into fg.
 */
static void planned_figures(struct router *r, uint32_t start, struct look_figures *fg)
{
	const vt_tree *t = r->t;
	struct route_look *lk = &r->look;
	size_t cells = (size_t)t->order.n * lk->nl * lk->ns;
	uint32_t n = t->order.n;

	memset(lk->up, 0, cells * sizeof(*lk->up));
	memset(lk->dn, 0, cells * sizeof(*lk->dn));
	for (uint32_t d = 0; d < n; d++) {
		if (t->order.port[d] == VT_NONE)
			continue;
		if (lk->narrow[leaf_of(r, d)]) {
			regular_lane(r, d);
			vt_route_look_add_flows(r, d, tops_of(lk, d), VT_LOOK_Q);
		} else {
			vt_route_look_add_flows(r, d, NULL, VT_LOOK_Q);
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t d = (start + i) % n;

		if (t->order.port[d] == VT_NONE)
			continue;
		if (lk->narrow[leaf_of(r, d)])
			vt_route_look_add_flows(r, d, tops_of(lk, d), -(int32_t)VT_LOOK_Q);
		else
			vt_route_look_add_flows(r, d, NULL, -(int32_t)VT_LOOK_Q);
		route_rank(r, d);
	}
	model_figures(lk, n, fg);
}

/*
 * The plans from VT_LOOK_STARTS starting ranks (fewer on large planes:
 * LOOK_MAX_WORK), spread evenly over the compute nodes: a greedy choice
 * depends on where it starts (the first ranks are chosen seeing only the
 * look-ahead). The best, where better than the tables' (best holds their
 * figures), into the best rows; 0 when none is.
 */
static int best_plan(struct router *r, struct look_figures *best)
{
	const vt_tree *t = r->t;
	struct route_look *lk = &r->look;
	uint32_t n = t->order.n, ncn = 0, starts = VT_LOOK_STARTS, got = 0;
	uint64_t work = (uint64_t)n * n * lk->ns;
	struct look_figures fg;

	for (uint32_t d = 0; d < n; d++)
		ncn += t->order.port[d] != VT_NONE;
	while (starts > 1 && work * starts > LOOK_MAX_WORK)
		starts--;
	for (uint32_t j = 0, k = 0, d = 0; j < starts && ncn; j++) {
		uint32_t want = (uint32_t)((uint64_t)j * ncn / starts);

		for (; d < n && (t->order.port[d] == VT_NONE || k < want); d++)
			k += t->order.port[d] != VT_NONE;
		if (d == n)
			break;
		planned_figures(r, d, &fg);
		if (vt_route_look_better_plan(&fg, best)) {
			*best = fg;
			memcpy(lk->best, lk->c, (size_t)n * lk->nl * sizeof(*lk->c));
			got = 1;
		}
	}
	return got;
}

/* The leaves' entries for each compute node's base LID, as the best rows have them. */
static void rewrite(struct router *r)
{
	const vt_tree *t = r->t;
	const struct route_look *lk = &r->look;

	for (uint32_t d = 0; d < t->order.n; d++) {
		uint32_t lid = t->order.port[d] == VT_NONE ? 0 : r->f->ports[t->order.port[d]].lid;
		const uint32_t *c = lk->best + (size_t)d * lk->nl;

		for (uint32_t i = t->lvl_start[0]; lid && i < t->lvl_start[1]; i++) {
			uint32_t s = t->by_level[i], x = lk->idx[s];

			for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++)
				if (x != leaf_of(r, d) && c[x] == lk->idx[t->up_peer[j]])
					vt_lft_set(r->lfts, s, lid, t->up_port[j]);
		}
	}
}

/*
 * Is one start affordable? Each rank tries every top of its leaf, and then
 * every leaf not linked to that top tries each top it shares with the
 * rank's leaf over its own ranks: ranks x tops x the sum over leaves of
 * their ranks times the tops they miss.
 */
static int look_affordable(const struct route_look *lk, uint32_t n)
{
	uint64_t miss = 0;

	for (uint32_t x = 0; x < lk->nl; x++) {
		uint32_t linked_to = 0;

		for (uint32_t k = 0; k < lk->ns; k++)
			linked_to += linked(lk, x, k);
		miss += (uint64_t)lk->nranks[x] * (lk->ns - linked_to);
	}
	return (uint64_t)n * lk->ns * miss <= LOOK_MAX_CHOICES;
}

/*
 * After plane t's tables are written: where the look-ahead applies and its
 * choice of tops models a better shift than the tables', the leaves take
 * it. Out of memory the tables stay as routed.
 */
void vt_route_lookahead(struct router *r, const vt_tree *t)
{
	struct route_look *lk = &r->look;
	struct look_figures best;
	int narrow = -1, got;

	memset(lk, 0, sizeof(*lk));
	lk->idx = calloc(t->nsw + 1, sizeof(*lk->idx));
	if (lk->idx && look_applies(r, t) && !look_alloc(lk, t) &&
	    (narrow = look_links(r, t)) > 0 && look_affordable(lk, t->order.n) &&
	    routed_figures(r, &best)) {
		got = best_plan(r, &best);
		/* a model at one flow per link is the bound: nothing to improve */
		if ((best.worst > VT_LOOK_Q && vt_route_look_search(r, &best, got) > 0) || got)
			rewrite(r);
	}
	look_free(lk);
}
