/* SPDX-License-Identifier: MIT */
/*
 * The leaf-pair bound (vt_bound.h): where the switches above the leaves fall
 * apart into parts that reach each other only through leaves (the chassis of
 * a split core), a leaf pair can only use the parts both reach, and no cut
 * sees it. cores 3,4,2,12,4: leaf u has 2 links into chassis 0 and 1 into
 * each other, leaf v 2 into chassis 1; in stage 4 u's 4 hosts send to v's,
 * every leaf sends and receives 4 on 4 links, and u reaches v inside one
 * chassis over at most min(2,1) + min(1,2) + min(1,1) = 3 links: a load of 1
 * leaves the fourth flow no way (through another leaf it needs a fifth link
 * of that leaf), so the stage needs 2, where every cut allows 1.
 *
 * Proof, for any routing with max load L in the stage (paths per flow, not
 * per destination). Parts: the components of the switches that hold no rank,
 * and each leaf-to-leaf cable alone; a(w,X) is leaf w's links into part X,
 * deg(w) all of w's switch links. Follow a flow from leaf u to leaf v != u
 * through the leaves it meets: with no leaf between, it goes up a link u->X
 * and down X->v of one part X, and these carry at most L flows each, so at
 * most L * cap(u,v) flows, cap(u,v) = sum over X of min(a(u,X), a(v,X)). Every
 * other flow meets some leaf w between, entering it over a switch link and
 * leaving over another; w's links out already carry its out(w) flows that
 * leave it, its links in its in(w) that enter, so w has room for at most
 * spare(w) = min(L deg(w) - out(w), L deg(w) - in(w)) such visits. Hence
 *   sum over leaf pairs of max(0, D(u,v) - L cap(u,v)) <= sum over w of spare(w),
 * D(u,v) the flows from u's ranks to v's; the left side falls and the right
 * rises with L, and the bound is the least L where it holds.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/vt_bound.h"
#include "analysis/vt_bound_int.h"

/* More runs of ranks than this per leaf: shifts would cost n per stage, the bound stays off. */
#define PAIR_RUNS_PER_LEAF 8

void vt_cut_pairs_free(struct vt_cut_pairs *p)
{
	free(p->rank_sw);
	free(p->deg);
	free(p->leaves);
	free(p->off);
	free(p->part);
	free(p->cnt);
	free(p->cls);
	free(p->ccap);
	memset(p, 0, sizeof(*p));
}

/* Per switch with no rank: its part, numbered from 0 (BFS over cables between such switches). */
static uint32_t parts_above(const vt_fabric *f, const uint8_t *leaf, uint32_t *part, uint32_t *q)
{
	uint32_t npart = 0;

	for (uint32_t s = 0; s < f->nswitches; s++)
		part[s] = VT_NONE;
	for (uint32_t s0 = 0; s0 < f->nswitches; s0++) {
		uint32_t nq = 0;

		if (leaf[s0] || part[s0] != VT_NONE)
			continue;
		part[s0] = npart;
		q[nq++] = s0;
		for (uint32_t h = 0; h < nq; h++) {
			uint32_t node = f->switches[q[h]];
			for (unsigned pn = 1; pn <= f->nodes[node].nports; pn++) {
				uint32_t r = vt_peer_switch(f, vt_port_index(f, node, pn));
				if (r != VT_NONE && !leaf[r] && part[r] == VT_NONE) {
					part[r] = npart;
					q[nq++] = r;
				}
			}
		}
		npart++;
	}
	return npart;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * Leaf s's parts, sorted, with its links into each, appended at p->part +
 * p->off[s]; tmp holds its ports. A leaf-to-leaf cable is a part of its own,
 * numbered npart + the lower port index of its two ends.
 */
static void leaf_parts(const vt_fabric *f, struct vt_cut_pairs *p, uint32_t s, const uint8_t *leaf,
		       const uint32_t *above, uint32_t npart, uint32_t *tmp)
{
	uint32_t node = f->switches[s], m = 0, k = p->off[s];

	for (unsigned pn = 1; pn <= f->nodes[node].nports; pn++) {
		uint32_t qi = vt_port_index(f, node, pn), r = vt_peer_switch(f, qi);
		if (r == VT_NONE)
			continue;
		if (leaf[r]) {
			uint32_t peer = f->ports[qi].peer;
			tmp[m++] = npart + (qi < peer ? qi : peer);
		} else {
			tmp[m++] = above[r];
		}
	}
	p->deg[s] = m;
	qsort(tmp, m, sizeof(*tmp), cmp_u32);
	for (uint32_t i = 0; i < m; i++) {
		if (i && tmp[i] == tmp[i - 1]) {
			p->cnt[k - 1]++;
			continue;
		}
		p->part[k] = tmp[i];
		p->cnt[k++] = 1;
	}
	p->off[s + 1] = k;
}

/* cap(u,v): links of the parts both reach, the fewer of the two in each. */
static uint32_t pair_cap_lists(const struct vt_cut_pairs *p, uint32_t u, uint32_t v)
{
	uint32_t i = p->off[u], j = p->off[v], c = 0;

	while (i < p->off[u + 1] && j < p->off[v + 1]) {
		if (p->part[i] < p->part[j]) {
			i++;
		} else if (p->part[i] > p->part[j]) {
			j++;
		} else {
			c += p->cnt[i] < p->cnt[j] ? p->cnt[i] : p->cnt[j];
			i++;
			j++;
		}
	}
	return c;
}

/* Do leaves u and v reach the same parts over as many links each? */
static int same_parts(const struct vt_cut_pairs *p, uint32_t u, uint32_t v)
{
	uint32_t m = p->off[u + 1] - p->off[u];

	return m == p->off[v + 1] - p->off[v] &&
	       !memcmp(p->part + p->off[u], p->part + p->off[v], m * sizeof(*p->part)) &&
	       !memcmp(p->cnt + p->off[u], p->cnt + p->off[v], m * sizeof(*p->cnt));
}

/*
 * Leaves that reach the same parts over as many links form a class (cls per
 * switch): cap depends on the two classes alone. hk: per leaf, a hash of its
 * parts << 32 | its index in leaves. Returns the classes.
 */
static uint32_t leaf_classes(struct vt_cut_pairs *p, uint64_t *hk, uint32_t *rep)
{
	uint32_t ncls = 0;

	for (uint32_t i = 0; i < p->nleaves; i++) {
		uint32_t s = p->leaves[i], h = 2166136261u;
		for (uint32_t k = p->off[s]; k < p->off[s + 1]; k++)
			h = (h ^ p->part[k]) * 16777619u ^ p->cnt[k] * 2654435761u;
		hk[i] = (uint64_t)h << 32 | i;
	}
	qsort(hk, p->nleaves, sizeof(*hk), cmp_u64);
	for (uint32_t i = 0, run = 0; i < p->nleaves; i++) {
		uint32_t s = p->leaves[(uint32_t)hk[i]], c = VT_NONE;
		if (i && hk[i] >> 32 != hk[i - 1] >> 32)
			run = ncls; /* classes of this hash start here */
		for (uint32_t k = run; k < ncls && c == VT_NONE; k++)
			if (same_parts(p, rep[k], s))
				c = k;
		if (c == VT_NONE) {
			rep[ncls] = s;
			c = ncls++;
		}
		p->cls[s] = c;
	}
	return ncls;
}

/* cap of every two classes (p->ccap), where there are few; 0 when out of memory. */
static int class_caps(struct vt_cut_pairs *p, const uint32_t *rep)
{
	if ((uint64_t)p->ncls * p->ncls > (1u << 22))
		return 0; /* computed per pair then */
	p->ccap = malloc(((size_t)p->ncls * p->ncls + 1) * sizeof(*p->ccap));
	if (!p->ccap)
		return -1;
	for (uint32_t i = 0; i < p->ncls; i++)
		for (uint32_t k = 0; k < p->ncls; k++)
			p->ccap[(size_t)i * p->ncls + k] = pair_cap_lists(p, rep[i], rep[k]);
	return 0;
}

/*
 * On where leaves differ in the parts they reach (one class: a pair's cap is
 * its leaves' links, and the leaf cuts say as much) and their ranks are not
 * scattered.
 */
static int pairs_on(const struct vt_cut_pairs *p, const vt_routes *r)
{
	return p->ncls > 1 && (uint64_t)r->nruns <= (uint64_t)PAIR_RUNS_PER_LEAF * p->nleaves;
}

int vt_cut_pairs_init(struct vt_cut_pairs *p, const vt_routes *r)
{
	const vt_fabric *f = r->f;
	size_t nsw = (size_t)f->nswitches + 1;
	uint8_t *leaf = calloc(nsw, 1);
	uint32_t *above = malloc(nsw * sizeof(*above)), *tmp = malloc(nsw * sizeof(*tmp));
	uint32_t *tports = malloc(((size_t)f->nports + 1) * sizeof(*tports));
	uint64_t *hk = malloc(nsw * sizeof(*hk));
	int rc = -1;

	memset(p, 0, sizeof(*p));
	p->n = r->n;
	p->nsw = f->nswitches;
	p->rank_sw = malloc(((size_t)r->n + 1) * sizeof(*p->rank_sw));
	p->deg = calloc(nsw, sizeof(*p->deg));
	p->leaves = malloc(nsw * sizeof(*p->leaves));
	p->off = calloc(nsw + 1, sizeof(*p->off));
	p->part = malloc(((size_t)f->nports + 1) * sizeof(*p->part));
	p->cnt = malloc(((size_t)f->nports + 1) * sizeof(*p->cnt));
	p->cls = malloc(nsw * sizeof(*p->cls));
	if (!leaf || !above || !tmp || !tports || !hk || !p->rank_sw || !p->deg || !p->leaves ||
	    !p->off || !p->part || !p->cnt || !p->cls)
		goto out;
	memcpy(p->rank_sw, r->rank_sw, (size_t)r->n * sizeof(*p->rank_sw));
	for (uint32_t a = 0; a < r->n; a++)
		if (r->rank_sw[a] != VT_NONE)
			leaf[r->rank_sw[a]] = 1;
	uint32_t npart = parts_above(f, leaf, above, tmp);
	for (uint32_t s = 0; s < f->nswitches; s++) {
		p->off[s + 1] = p->off[s];
		if (leaf[s]) {
			p->leaves[p->nleaves++] = s;
			leaf_parts(f, p, s, leaf, above, npart, tports);
		}
	}
	p->ncls = leaf_classes(p, hk, above); /* above: the classes' first leaves now */
	if (class_caps(p, above))
		goto out;
	p->on = pairs_on(p, r);
	rc = 0;
out:
	if (rc)
		vt_cut_pairs_free(p);
	free(leaf);
	free(above);
	free(tmp);
	free(tports);
	free(hk);
	return rc;
}

/* cap(u,v), by class. */
static uint32_t pair_cap(const struct vt_cut_pairs *p, uint32_t u, uint32_t v)
{
	if (p->ccap)
		return p->ccap[(size_t)p->cls[u] * p->ncls + p->cls[v]];
	return pair_cap_lists(p, u, v);
}

/* Does load L pass: flows that cannot go direct <= the leaves' room for visits? */
static int pair_passes(const struct vt_cut_pairs *p, const struct vt_pair_work *w, uint64_t L)
{
	uint64_t excess = 0, room = 0;

	for (uint32_t i = 0; i < w->np; i++)
		if (w->d[i] > L * w->cap[i])
			excess += w->d[i] - L * w->cap[i];
	if (!excess)
		return 1;
	for (uint32_t i = 0; i < p->nleaves && room < excess; i++) {
		uint32_t s = p->leaves[i], busy = w->out[s] > w->in[s] ? w->out[s] : w->in[s];
		if (L * p->deg[s] > busy)
			room += L * p->deg[s] - busy;
	}
	return excess <= room;
}

uint32_t vt_pair_bound(const struct vt_cut_pairs *p, struct vt_pair_work *w, uint32_t L0)
{
	uint64_t lo, hi, total = 0;

	for (uint32_t i = 0; i < w->np; i++) {
		w->cap[i] = pair_cap(p, w->u[i], w->v[i]);
		total += w->d[i];
	}
	if (!L0 || pair_passes(p, w, L0))
		return L0;
	/* L0 fails; the least L that passes lies in (lo, hi] */
	lo = L0;
	hi = 2 * (uint64_t)L0;
	while (!pair_passes(p, w, hi)) {
		if (hi > L0 + total)
			return L0; /* no part joins some pair, nor leaves between: nothing to say */
		lo = hi;
		hi *= 2;
	}
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (pair_passes(p, w, mid))
			hi = mid;
		else
			lo = mid;
	}
	return hi > UINT32_MAX ? UINT32_MAX : (uint32_t)hi;
}

int vt_pair_work_init(struct vt_pair_work *w, const struct vt_cut_pairs *p, uint32_t maxpairs)
{
	size_t nsw = (size_t)p->nsw + 1, mp = (size_t)maxpairs + 1;

	memset(w, 0, sizeof(*w));
	w->maxpairs = maxpairs;
	w->out = calloc(nsw, sizeof(*w->out));
	w->in = calloc(nsw, sizeof(*w->in));
	w->at = malloc(nsw * sizeof(*w->at));
	w->u = malloc(mp * sizeof(*w->u));
	w->v = malloc(mp * sizeof(*w->v));
	w->d = malloc(mp * sizeof(*w->d));
	w->cap = malloc(mp * sizeof(*w->cap));
	if (w->out && w->in && w->at && w->u && w->v && w->d && w->cap) {
		for (size_t s = 0; s < nsw; s++)
			w->at[s] = VT_NONE;
		return 0;
	}
	vt_pair_work_free(w);
	return -1;
}

void vt_pair_work_free(struct vt_pair_work *w)
{
	free(w->out);
	free(w->in);
	free(w->at);
	free(w->u);
	free(w->v);
	free(w->d);
	free(w->cap);
	memset(w, 0, sizeof(*w));
}

/*
 * Count d flows from leaf u to leaf v; pairs of one u must come together
 * (w->at[v]: v's pair for the current u), then vt_pair_end_src.
 */
void vt_pair_add(struct vt_pair_work *w, uint32_t u, uint32_t v, uint32_t d)
{
	if (u == v || !d)
		return;
	if (w->np == w->maxpairs &&
	    (w->at[v] == VT_NONE || w->at[v] >= w->np || w->u[w->at[v]] != u))
		return; /* no room (never with the room asked): fewer flows, a lower bound still */
	w->out[u] += d;
	w->in[v] += d;
	if (w->at[v] == VT_NONE || w->at[v] >= w->np || w->u[w->at[v]] != u) {
		w->at[v] = w->np;
		w->u[w->np] = u;
		w->v[w->np] = v;
		w->d[w->np++] = 0;
	}
	w->d[w->at[v]] += d;
}

/* Clear the counts of the last stage. */
void vt_pair_reset(struct vt_pair_work *w)
{
	for (uint32_t i = 0; i < w->np; i++) {
		w->out[w->u[i]] = 0;
		w->in[w->v[i]] = 0;
		w->at[w->v[i]] = VT_NONE;
	}
	w->np = 0;
}

uint32_t vt_pair_bound_flows(const struct vt_cut_pairs *p, const struct vt_flow *fl, uint32_t nfl,
			     uint32_t L0)
{
	struct vt_pair_work w;
	uint64_t *key = malloc(((size_t)nfl + 1) * sizeof(*key));
	uint32_t b = L0;

	if (!key || vt_pair_work_init(&w, p, nfl)) {
		free(key);
		return L0; /* out of memory: the cuts' bound stands */
	}
	/* sorted by source leaf, so each leaf pair is counted once */
	for (uint32_t i = 0; i < nfl; i++)
		key[i] = (uint64_t)p->rank_sw[fl[i].src] << 32 | p->rank_sw[fl[i].dst];
	qsort(key, nfl, sizeof(*key), cmp_u64);
	for (uint32_t i = 0; i < nfl; i++)
		vt_pair_add(&w, (uint32_t)(key[i] >> 32), (uint32_t)key[i], 1);
	b = vt_pair_bound(p, &w, L0);
	vt_pair_work_free(&w);
	free(key);
	return b;
}

/* all2all: hosts(u) x hosts(v) flows per leaf pair; not above 2^22 pairs (memory), L0 then. */
uint32_t vt_pair_bound_all2all(const struct vt_cut_pairs *p, uint32_t L0)
{
	struct vt_pair_work w;
	uint64_t np = (uint64_t)p->nleaves * p->nleaves;
	uint32_t b, *hosts = calloc((size_t)p->nsw + 1, sizeof(*hosts));

	if (!hosts || np > (1u << 22) || vt_pair_work_init(&w, p, (uint32_t)np)) {
		free(hosts);
		return L0;
	}
	for (uint32_t a = 0; a < p->n; a++)
		if (p->rank_sw[a] != VT_NONE)
			hosts[p->rank_sw[a]]++;
	for (uint32_t i = 0; i < p->nleaves; i++)
		for (uint32_t k = 0; k < p->nleaves; k++) {
			uint32_t u = p->leaves[i], v = p->leaves[k];
			vt_pair_add(&w, u, v, hosts[u] * hosts[v]);
		}
	b = vt_pair_bound(p, &w, L0);
	vt_pair_work_free(&w);
	free(hosts);
	return b;
}

/* Flows of leaf u's ranks [x, y) to the ranks they reach in stage s, at x + s, counted. */
static void shift_piece(const vt_routes *r, const uint32_t *run_of, struct vt_pair_work *w,
			uint32_t u, uint32_t x, uint32_t y)
{
	for (uint32_t j = run_of[x]; j < r->nruns && r->run_first[j] < y; j++) {
		uint32_t lo = r->run_first[j] > x ? r->run_first[j] : x,
			 hi = r->run_first[j] + r->run_len[j];
		if (hi > y)
			hi = y;
		if (hi > lo)
			vt_pair_add(w, u, r->run_sw[j], hi - lo);
	}
}

int vt_pair_shift_each(const struct vt_cut_pairs *p, const vt_routes *r, uint32_t first, uint32_t K,
		       vt_pair_stage_fn fn, void *ctx)
{
	struct vt_pair_work w;
	uint32_t n = r->n, *roff = calloc((size_t)p->nsw + 2, sizeof(*roff));
	uint32_t *rl = malloc(((size_t)r->nruns + 1) * sizeof(*rl));
	uint32_t *run_of = malloc(((size_t)n + 1) * sizeof(*run_of));

	if (!roff || !rl || !run_of || vt_pair_work_init(&w, p, 3 * r->nruns + 4)) {
		free(roff);
		free(rl);
		free(run_of);
		return -1;
	}
	/* per rank: the run holding it, or the last before it (0 before the first) */
	for (uint32_t x = 0, j = 0; x < n; x++) {
		while (j + 1 < r->nruns && r->run_first[j + 1] <= x)
			j++;
		run_of[x] = j;
	}
	/* each leaf's runs together (rl[roff[s] .. roff[s + 1])), so its pairs merge */
	for (uint32_t j = 0; j < r->nruns; j++)
		roff[r->run_sw[j] + 2]++;
	for (uint32_t s = 0; s < p->nsw; s++)
		roff[s + 2] += roff[s + 1];
	for (uint32_t j = 0; j < r->nruns; j++)
		rl[roff[r->run_sw[j] + 1]++] = j;
	for (uint32_t s = first; s < first + K; s++) {
		for (uint32_t i = 0; i < p->nleaves; i++) {
			uint32_t u = p->leaves[i];
			for (uint32_t k = roff[u]; k < roff[u + 1]; k++) {
				uint32_t j = rl[k], x = r->run_first[j] + s;
				uint64_t y = (uint64_t)x + r->run_len[j];
				x = x >= n ? x - n : x;
				y = y > n ? y - n : y;
				if (y > x) {
					shift_piece(r, run_of, &w, u, x, (uint32_t)y);
				} else {
					shift_piece(r, run_of, &w, u, x, n);
					shift_piece(r, run_of, &w, u, 0, (uint32_t)y);
				}
			}
		}
		fn(ctx, &w, s - first);
		vt_pair_reset(&w);
	}
	vt_pair_work_free(&w);
	free(roff);
	free(rl);
	free(run_of);
	return 0;
}

struct pair_shift {
	const struct vt_cut_pairs *p;
	uint32_t *bound;
};

static void pair_stage(void *ctx, struct vt_pair_work *w, uint32_t i)
{
	struct pair_shift *ps = ctx;

	ps->bound[i] = vt_pair_bound(ps->p, w, ps->bound[i]);
}

int vt_pair_bound_shift(const struct vt_cut_pairs *p, const vt_routes *r, uint32_t first,
			uint32_t K, uint32_t *bound)
{
	struct pair_shift ps = {p, bound};

	return vt_pair_shift_each(p, r, first, K, pair_stage, &ps);
}
