/* SPDX-License-Identifier: MIT */
/*
 * Split cores where a leaf lost a parent (issue 23 goal 2): a line or spine
 * down, so the leaves of its rail or chassis reach the other groups over
 * the switches left. Algorithms 2-4 choose such a switch's up-link for a
 * destination in two ways: by the descent's usage counters where the main
 * route came down through it, by the plan's fill turn (rot % n) where it
 * did not, and the two do not see each other. superpod 3,2,8,2,2
 * --drop-switches 1@1: the rail that lost its spine sends rail 0's 24
 * destinations up 12 links of its last spine, 10 to one top and 14 to the
 * other, three on one link; 3/2.21 where the cut bound is 2/1.83 (ftree,
 * falling back to minhop, 2/1.83). cores 4,4,2,16,4 --drop-switches 1@1:
 * 3/2.22, bound 2/1.90, updn 2/2.00.
 *
 * Here, once the plane is routed, the compute destinations' routes are
 * searched again against a model of the shift pattern: per stage (source
 * rank a reaches destination d in stage d - a mod n) and link, the flows it
 * carries. One destination at one switch at a time, the switch's entry may
 * move to another port whose far switch is as many hops from the
 * destination, in the same direction (up to another parent, or down to
 * another child whose route only descends); a move stays when it lowers the
 * worst stage maximum, else their sum, else the sum of squared loads (a
 * spread the next moves can build on), and is undone otherwise. So every
 * route keeps its length and stays up*-down*; the turn leaf and its
 * ancestors (deg.inz), where detours turn, keep their entries, and the
 * tables are audited after (deg.unsure), as vt_route_lanes.c's are. A
 * switch is tried for a destination only where one of the flows through it
 * crosses a link its stage loads most (with two flows or more).
 *
 * Only where the level below the tops lost a switch (its groups differ in
 * size; fat, pruned and var-ary trees with a level-1 switch down are such
 * split cores too), compute LIDs of LMC 0, and a model of at most
 * STAGE_MAX_CELLS; where leaves lost links only, the lanes of Algorithms
 * 2-4 are kept (tests/cli/route_irregular.sh's damaged-leaf rows).
 */
#include <stdlib.h>
#include <string.h>

#include "route/vt_route_int.h"

/* The model's size past which the search is left out (stages x channels). */
#define STAGE_MAX_CELLS (1u << 22)
/* Passes over every destination and switch, at most. */
#define STAGE_ROUNDS 4
/*
 * Flow hops the search walks, at most: it stops there (the same place on
 * every run). cores 2,20,10,44,10 --drop-switches 1@1 --seed 2 (440 ranks,
 * a 2.2M-cell model) walks 59M flow hops, about 1 s.
 */
#define STAGE_MAX_WORK (1ull << 28)
/* Hops of a path the model follows, at most (up and down the tree, twice over). */
#define STAGE_MAX_HOPS (4 * VT_TREE_MAX_LEVELS)

struct stage {
	const struct router *r;
	const vt_tree *t;
	vt_lfts *lfts;
	uint32_t n, nsw, nch, vmax;
	uint32_t *rk, *rfirst; /* ranks by leaf: rk[rfirst[s] .. rfirst[s + 1]) */
	uint32_t *leaves, nleaf;
	uint8_t *load;	       /* per stage * nch + channel */
	uint32_t *vcnt;	       /* per stage * (vmax + 1) + v: channels at load v */
	uint32_t *smax, *mcnt; /* per stage its maximum; per v the stages whose maximum is v */
	uint64_t sum, sq;      /* stage maxima summed; loads squared, summed */
	uint64_t work;	       /* flow hops walked so far, against STAGE_MAX_WORK */
	/* the destination being searched */
	uint32_t lid, dleaf;
	uint32_t *nx, *ch, *len; /* per switch: next switch, channel out, hops (VT_NONE: none) */
	uint8_t *down;		 /* per switch: its route only descends */
	uint32_t *path;		 /* per leaf index: its path, STAGE_MAX_HOPS switches */
	uint32_t *npath;
};

static uint32_t worst(const struct stage *g)
{
	uint32_t v = g->vmax;

	while (v > 1 && !g->mcnt[v])
		v--;
	return v;
}

static void load_inc(struct stage *g, uint32_t k, uint32_t c)
{
	uint8_t *l = &g->load[(size_t)k * g->nch + c];
	uint32_t *vc = &g->vcnt[(size_t)k * (g->vmax + 1)], v = (*l)++;

	assert(v < g->vmax);
	vc[v]--;
	vc[v + 1]++;
	g->sq += 2 * v + 1;
	if (v + 1 > g->smax[k]) {
		g->mcnt[g->smax[k]]--;
		g->smax[k] = v + 1;
		g->mcnt[v + 1]++;
		g->sum++;
	}
}

static void load_dec(struct stage *g, uint32_t k, uint32_t c)
{
	uint8_t *l = &g->load[(size_t)k * g->nch + c];
	uint32_t *vc = &g->vcnt[(size_t)k * (g->vmax + 1)], v = (*l)--;

	assert(v > 0);
	vc[v]--;
	vc[v - 1]++;
	g->sq -= 2 * v - 1;
	/* a stage's maximum is at least 1: its flows' links to and from their CAs */
	if (v == g->smax[k] && !vc[v] && v > 1) {
		g->mcnt[v]--;
		g->smax[k] = v - 1;
		g->mcnt[v - 1]++;
		g->sum--;
	}
}

/* Switch s's next switch towards lid through port p; VT_NONE: a CA or nothing. */
static uint32_t far_switch(const struct stage *g, uint32_t s, unsigned p, uint32_t *c)
{
	const vt_fabric *f = g->r->f;
	uint32_t q;

	*c = swport(g->r, s, p);
	q = f->ports[*c].peer;
	if (q == VT_NONE || f->nodes[f->ports[q].node].type != VT_SWITCH)
		return VT_NONE;
	return f->nodes[f->ports[q].node].sw;
}

/*
 * Switch s's route to the current destination, found once (len[s] set),
 * by the tables: VT_NONE where it does not reach the destination's leaf,
 * loops, or climbs after descending.
 */
static uint32_t route_of(struct stage *g, uint32_t s, uint32_t depth)
{
	const vt_tree *t = g->t;
	unsigned p;
	uint32_t u;

	if (g->len[s] != VT_NONE - 1)
		return g->len[s];
	g->len[s] = VT_NONE;
	if (s == g->dleaf) {
		g->len[s] = 0;
		g->down[s] = 1;
		return 0;
	}
	p = vt_lft_get(g->lfts, s, g->lid);
	if (depth >= STAGE_MAX_HOPS || p == VT_LFT_NONE || !p ||
	    p > g->r->f->nodes[g->r->f->switches[s]].nports)
		return VT_NONE;
	u = far_switch(g, s, p, &g->ch[s]);
	if (u == VT_NONE || t->level[u] == VT_TREE_OUTSIDE || route_of(g, u, depth + 1) == VT_NONE)
		return VT_NONE;
	if (t->level[u] > t->level[s] ? 0 : !g->down[u]) /* descends, then climbs */
		return VT_NONE;
	g->nx[s] = u;
	g->down[s] = t->level[u] < t->level[s];
	g->len[s] = g->len[u] + 1;
	return g->len[s];
}

/* Leaf index i's path to the current destination into path[]. */
static void leaf_path(struct stage *g, uint32_t i)
{
	uint32_t *p = &g->path[(size_t)i * STAGE_MAX_HOPS], n = 0;

	for (uint32_t s = g->leaves[i]; s != g->dleaf && n < STAGE_MAX_HOPS; s = g->nx[s])
		p[n++] = s;
	g->npath[i] = n;
}

/* Position of s on leaf index i's path, npath[i] when it is not on it. */
static uint32_t path_pos(const struct stage *g, uint32_t i, uint32_t s)
{
	const uint32_t *p = &g->path[(size_t)i * STAGE_MAX_HOPS];
	uint32_t h = 0;

	while (h < g->npath[i] && p[h] != s)
		h++;
	return h;
}

/*
 * The flows to the current destination rank d whose route crosses s, one at
 * a time: a rank below a leaf (not d's) whose path holds s. Each gives its
 * shift stage (*k) and counts its hops from s on as work; the callers stop
 * where they like.
 */
struct crossing {
	uint32_t i, a, end; /* leaf index, its rank now, past its last */
};

static void crossing_init(struct crossing *it)
{
	it->i = 0;
	it->a = it->end = 0;
}

static int crossing_next(struct stage *g, uint32_t d, uint32_t s, struct crossing *it, uint32_t *k)
{
	while (it->a == it->end) {
		uint32_t x;

		if (it->i == g->nleaf)
			return 0;
		x = g->leaves[it->i];
		if (x != g->dleaf && path_pos(g, it->i, s) != g->npath[it->i]) {
			it->a = g->rfirst[x];
			it->end = g->rfirst[x + 1];
		}
		it->i++;
	}
	*k = (d + g->n - g->rk[it->a++]) % g->n;
	g->work += g->len[s];
	return 1;
}

/*
 * Every flow from a rank below a leaf whose route to destination rank d
 * crosses s, into the model (sign > 0) or out of it, from s on: out of
 * channel c to switch u, then along the tables.
 */
static void flows(struct stage *g, uint32_t d, uint32_t s, uint32_t u, uint32_t c, int sign)
{
	struct crossing it;
	uint32_t k;

	crossing_init(&it);
	while (crossing_next(g, d, s, &it, &k))
		for (uint32_t w = u, cc = c;; cc = g->ch[w], w = g->nx[w]) {
			if (sign > 0)
				load_inc(g, k, cc);
			else
				load_dec(g, k, cc);
			if (w == g->dleaf)
				break;
		}
}

/*
 * Would a flow through s, moved out of channel c to switch u, load some
 * link past w (the worst stage maximum)? Each flow adds at most one to a
 * link of its stage, and only until its new route meets its old one.
 */
static int past_worst(struct stage *g, uint32_t d, uint32_t s, uint32_t u, uint32_t c, uint32_t w)
{
	uint32_t old[STAGE_MAX_HOPS], nold = 0, k;
	struct crossing it;

	for (uint32_t v = g->nx[s]; nold < STAGE_MAX_HOPS; v = g->nx[v]) {
		old[nold++] = v;
		if (v == g->dleaf)
			break;
	}
	crossing_init(&it);
	while (crossing_next(g, d, s, &it, &k)) {
		const uint8_t *l = &g->load[(size_t)k * g->nch];

		for (uint32_t v = u, cc = c;; cc = g->ch[v], v = g->nx[v]) {
			uint32_t j = 0;

			if (l[cc] + 1u > w)
				return 1;
			while (j < nold && old[j] != v)
				j++;
			if (j < nold) /* met: the same links from here on */
				break;
		}
	}
	return 0;
}

/*
 * Destination rank d's routes found from the tables (len, nx, ch, down and
 * the leaves' paths). -1 where some leaf with ranks has none the model
 * follows: d is then left as routed, and out of the model.
 */
static int dest_routes(struct stage *g, uint32_t d)
{
	const vt_tree *t = g->t;

	g->lid = g->r->f->ports[t->order.port[d]].lid;
	g->dleaf = t->rank_leaf[d];
	for (uint32_t s = 0; s < g->nsw; s++)
		g->len[s] = VT_NONE - 1; /* not found yet */
	for (uint32_t s = 0; s < g->nsw; s++)
		if (t->level[s] != VT_TREE_OUTSIDE)
			route_of(g, s, 0);
	for (uint32_t i = 0; i < g->nleaf; i++) {
		if (g->len[g->leaves[i]] == VT_NONE)
			return -1;
		leaf_path(g, i);
	}
	return 0;
}

/* Every flow to d along the tables into the model's loads (no counts yet). */
static void count_dest(struct stage *g, uint32_t d)
{
	for (uint32_t i = 0; i < g->nleaf; i++) {
		uint32_t x = g->leaves[i];

		if (x == g->dleaf)
			continue;
		for (uint32_t a = g->rfirst[x]; a < g->rfirst[x + 1]; a++) {
			uint8_t *l = &g->load[(size_t)((d + g->n - g->rk[a]) % g->n) * g->nch];

			for (uint32_t w = x; w != g->dleaf; w = g->nx[w])
				if (l[g->ch[w]] < UINT8_MAX)
					l[g->ch[w]]++;
		}
	}
}

/* The per-load counts, stage maxima and sums from the loads; -1 when too loaded or no memory. */
static int count_model(struct stage *g)
{
	uint32_t m = 1;

	for (size_t i = 0; i < (size_t)g->n * g->nch; i++)
		m = g->load[i] > m ? g->load[i] : m;
	if (m >= UINT8_MAX)
		return -1;
	g->vmax = m;
	g->vcnt = calloc((size_t)g->n * (m + 1), sizeof(*g->vcnt));
	g->mcnt = calloc(m + 1, sizeof(*g->mcnt));
	if (!g->vcnt || !g->mcnt)
		return -1;
	for (uint32_t k = 1; k < g->n; k++) {
		const uint8_t *l = &g->load[(size_t)k * g->nch];

		g->smax[k] = 1;
		for (uint32_t c = 0; c < g->nch; c++) {
			g->vcnt[(size_t)k * (m + 1) + l[c]]++;
			g->sq += (uint64_t)l[c] * l[c];
			g->smax[k] = l[c] > g->smax[k] ? l[c] : g->smax[k];
		}
		g->mcnt[g->smax[k]]++;
		g->sum += g->smax[k];
	}
	return 0;
}

/* Is switch s's move to u (channel c, port p) for destination rank d better? Kept if so. */
static int try_move(struct stage *g, uint32_t d, uint32_t s, uint32_t u, uint32_t c, unsigned p)
{
	uint32_t w = worst(g), w2;
	uint64_t sum = g->sum, sq = g->sq;

	if (past_worst(g, d, s, u, c, w))
		return 0;
	flows(g, d, s, g->nx[s], g->ch[s], -1);
	flows(g, d, s, u, c, 1);
	w2 = worst(g);
	if (w2 < w || (w2 == w && (g->sum < sum || (g->sum == sum && g->sq < sq)))) {
		vt_lft_set(g->lfts, s, g->lid, (uint8_t)p);
		g->nx[s] = u;
		g->ch[s] = c;
		for (uint32_t i = 0; i < g->nleaf; i++)
			leaf_path(g, i);
		return 1;
	}
	flows(g, d, s, u, c, -1);
	flows(g, d, s, g->nx[s], g->ch[s], 1);
	return 0;
}

/*
 * Does a flow to destination rank d through s cross, from s on, a link its
 * stage loads most, and with two flows or more? Only there can a move at s
 * lower a stage's maximum; elsewhere the search does not try (and the
 * tables stay as routed).
 */
static int hot(struct stage *g, uint32_t d, uint32_t s)
{
	struct crossing it;
	uint32_t k;

	crossing_init(&it);
	while (crossing_next(g, d, s, &it, &k)) {
		const uint8_t *l = &g->load[(size_t)k * g->nch];

		for (uint32_t w = s; w != g->dleaf; w = g->nx[w])
			if (g->smax[k] >= 2 && l[g->ch[w]] == g->smax[k])
				return 1;
	}
	return 0;
}

/*
 * Switch s's other ports towards destination rank d as near, in the same
 * direction, each tried (try_move); returns the moves kept.
 */
static uint32_t search_switch(struct stage *g, uint32_t d, uint32_t s)
{
	const vt_tree *t = g->t;
	const unsigned np = g->r->f->nodes[g->r->f->switches[s]].nports;
	const int up = t->level[g->nx[s]] > t->level[s];
	uint32_t kept = 0;

	if (!hot(g, d, s))
		return 0;
	for (unsigned p = 1; p <= np; p++) {
		uint32_t c, u = far_switch(g, s, p, &c);

		if (u == VT_NONE || c == g->ch[s] || t->level[u] == VT_TREE_OUTSIDE ||
		    g->len[u] + 1 != g->len[s] || (t->level[u] > t->level[s]) != up ||
		    (!up && !g->down[u]))
			continue;
		kept += (uint32_t)try_move(g, d, s, u, c, p);
	}
	return kept;
}

/* One pass over every destination and switch, top level first; returns the moves kept. */
static uint32_t search_pass(struct stage *g)
{
	const vt_tree *t = g->t;
	uint32_t kept = 0;

	for (uint32_t d = 0; d < g->n; d++) {
		if (t->order.port[d] == VT_NONE || !g->r->f->ports[t->order.port[d]].lid ||
		    dest_routes(g, d))
			continue;
		for (uint32_t i = t->lvl_start[t->nlevels]; i-- > 0;) {
			uint32_t s = t->by_level[i];

			if (s == g->dleaf || g->len[s] == VT_NONE ||
			    (g->r->deg.inz && g->r->deg.inz[s]) || g->work > STAGE_MAX_WORK)
				continue;
			kept += search_switch(g, d, s);
		}
	}
	return kept;
}

/* The ranks by leaf and the scratch; -1 when out of memory. */
static int stage_alloc(struct stage *g)
{
	const vt_tree *t = g->t;
	uint32_t n = g->n, nsw = g->nsw;

	g->rk = malloc(n * sizeof(*g->rk));
	g->rfirst = calloc(nsw + 1, sizeof(*g->rfirst));
	g->leaves = malloc(nsw * sizeof(*g->leaves));
	g->load = calloc((size_t)n * g->nch, 1);
	g->smax = calloc(n, sizeof(*g->smax));
	g->nx = malloc(nsw * sizeof(*g->nx));
	g->ch = malloc(nsw * sizeof(*g->ch));
	g->len = malloc(nsw * sizeof(*g->len));
	g->down = malloc(nsw);
	g->path = malloc((size_t)nsw * STAGE_MAX_HOPS * sizeof(*g->path));
	g->npath = malloc(nsw * sizeof(*g->npath));
	if (!g->rk || !g->rfirst || !g->leaves || !g->load || !g->smax || !g->nx || !g->ch ||
	    !g->len || !g->down || !g->path || !g->npath)
		return -1;
	for (uint32_t d = 0; d < n; d++) /* counting sort of the compute ranks by leaf */
		if (t->order.port[d] != VT_NONE && g->r->f->ports[t->order.port[d]].lid)
			g->rfirst[t->rank_leaf[d] + 1]++;
	for (uint32_t s = 0; s < nsw; s++) {
		if (g->rfirst[s + 1])
			g->leaves[g->nleaf++] = s;
		g->rfirst[s + 1] += g->rfirst[s];
	}
	memcpy(g->len, g->rfirst,
	       nsw * sizeof(*g->len)); /* len as scratch: each leaf's next slot */
	for (uint32_t d = 0; d < n; d++)
		if (t->order.port[d] != VT_NONE && g->r->f->ports[t->order.port[d]].lid)
			g->rk[g->len[t->rank_leaf[d]]++] = d;
	return 0;
}

static void stage_free(struct stage *g)
{
	free(g->rk);
	free(g->rfirst);
	free(g->leaves);
	free(g->load);
	free(g->vcnt);
	free(g->smax);
	free(g->mcnt);
	free(g->nx);
	free(g->ch);
	free(g->len);
	free(g->down);
	free(g->path);
	free(g->npath);
}

/*
 * Do the groups of the level below the tops (deg.grp) differ in size: one
 * lost a switch (a line ASIC or spine down), or fell apart? Not on a whole
 * level whose leaves lost links only: there the lanes of Algorithms 2-4 are
 * kept (route_irregular's fat, pruned and cores rows of damaged leaves).
 */
static int groups_uneven(const struct router *r, const vt_tree *t)
{
	uint32_t l = t->nlevels - 2, n0 = 0;

	for (uint32_t i = t->lvl_start[l]; i < t->lvl_start[l + 1]; i++) {
		uint32_t g = r->deg.grp[t->by_level[i]], n = 0;

		for (uint32_t k = t->lvl_start[l]; k < t->lvl_start[l + 1]; k++)
			n += r->deg.grp[t->by_level[k]] == g;
		if (n0 && n != n0)
			return 1;
		n0 = n;
	}
	return 0;
}

/*
 * Does plane t have the rows' structure: a split core (deg.split_dmg) where
 * leaves lost a parent (not deg.lanes_dmg) as the level below the tops lost
 * a switch; compute nodes of LMC 0; a model small enough?
 */
int vt_route_stage_applies(const struct router *r, const vt_tree *t)
{
	if (!r->deg.split_dmg || r->deg.lanes_dmg || t->nlevels < 3 || t->order.n < 2 ||
	    (uint64_t)t->order.n * r->f->nports > STAGE_MAX_CELLS || !groups_uneven(r, t))
		return 0;
	for (uint32_t d = 0; d < t->order.n; d++)
		if (t->order.port[d] != VT_NONE && r->f->ports[t->order.port[d]].lmc)
			return 0;
	return 1;
}

void vt_route_stage_search(struct router *r, const vt_tree *t)
{
	struct stage g = {.r = r, .t = t, .lfts = r->lfts};
	uint32_t kept = 0;

	vt_route_stage_swap(r, t); /* where level 1 lost a link (no leaf did): its own pass */
	if (!vt_route_stage_applies(r, t))
		return;
	g.n = t->order.n;
	g.nsw = r->f->nswitches;
	g.nch = r->f->nports;
	if (stage_alloc(&g))
		goto out;
	for (uint32_t d = 0; d < g.n; d++)
		if (t->order.port[d] != VT_NONE && r->f->ports[t->order.port[d]].lid &&
		    !dest_routes(&g, d))
			count_dest(&g, d);
	if (count_model(&g))
		goto out;
	for (uint32_t round = 0, k = 1; round < STAGE_ROUNDS && k; round++)
		kept += k = search_pass(&g);
	if (kept)
		r->deg.unsure = 1; /* the tables are audited (vt_route.c) */
out:
	stage_free(&g);
}
