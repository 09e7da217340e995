/* SPDX-License-Identifier: MIT */
/* Cut lower bounds per stage (see vt_bound.h). */
#include "analysis/vt_bound.h"

#include "analysis/vt_bound_int.h"

#include <stdlib.h>
#include <string.h>

void vt_cuts_free(vt_cuts *c)
{
	free(c->member);
	free(c->links);
	vt_cut_pairs_free(&c->pairs);
	vt_cut_climb_free(&c->climb);
	memset(c, 0, sizeof(*c));
}

static int cuts_alloc(vt_cuts *c, uint32_t n, uint32_t nlevels, uint32_t ncuts, vt_err *e)
{
	memset(c, 0, sizeof(*c));
	c->n = n;
	c->nlevels = nlevels;
	c->ncuts = ncuts;
	c->member = malloc(((size_t)n * nlevels + 1) * sizeof(*c->member));
	c->links = calloc((size_t)ncuts + 1, sizeof(*c->links));
	if (!c->member || !c->links) {
		vt_cuts_free(c);
		return vt_err_nomem(e, "out of memory");
	}
	memset(c->member, 0xff, ((size_t)n * nlevels) * sizeof(*c->member));
	return 0;
}

int vt_cuts_leaf(vt_cuts *c, const vt_routes *r, vt_err *e)
{
	const vt_fabric *f = r->f;

	if (cuts_alloc(c, r->n, 1, r->nsw, e))
		return -1;
	if (vt_cut_pairs_init(&c->pairs, r)) {
		vt_cuts_free(c);
		return vt_err_nomem(e, "out of memory");
	}
	for (uint32_t s = 0; s < r->nsw; s++) {
		uint32_t node = f->switches[s];
		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t q = vt_port(f, node, p)->peer;
			if (q != VT_NONE && f->nodes[f->ports[q].node].type == VT_SWITCH &&
			    f->ports[q].node != node)
				c->links[s]++;
		}
	}
	for (uint32_t a = 0; a < r->n; a++)
		c->member[a] = r->rank_sw[a];
	return 0;
}

/*
 * Each subtree's links: its up-links, or fewer where fewer cables separate
 * its hosts from the others (vt_bound_flow.c).
 */
static int cut_links(vt_cuts *c, const vt_routes *r, const vt_tree *t, vt_err *e)
{
	const vt_fabric *f = r->f;
	struct vt_cut_flow cf;
	uint8_t *has = calloc((size_t)t->nsw + 1, 1);

	if (!has || vt_cut_flow_init(&cf, f)) {
		free(has);
		return vt_err_nomem(e, "out of memory for the cut bound");
	}
	for (uint32_t a = 0; a < r->n; a++)
		if (r->rank_sw[a] != VT_NONE)
			has[r->rank_sw[a]] = 1;
	for (uint32_t i = 0; i < t->nsubs; i++) {
		uint32_t l = t->subs[i].level;

		for (uint32_t s = 0; s < t->nsw; s++)
			cf.side[s] = has[s] ? 1 + (t->sub[(size_t)l * t->nsw + s] != i) : 0;
		c->links[i] = vt_bound_cut_links(f, t->subs[i].nup, &cf);
	}
	vt_cut_flow_free(&cf);
	free(has);
	return 0;
}

int vt_cuts_tree(vt_cuts *c, const vt_routes *r, const vt_tree *t, vt_err *e)
{
	uint32_t nl = t->nlevels > 1 ? t->nlevels - 1 : 1;

	if (cuts_alloc(c, r->n, nl, t->nsubs, e))
		return -1;
	if (cut_links(c, r, t, e)) {
		vt_cuts_free(c);
		return -1;
	}
	if (vt_cut_pairs_init(&c->pairs, r) || vt_cut_climb_init(&c->climb, r, t)) {
		vt_cuts_free(c);
		return vt_err_nomem(e, "out of memory for the cut bound");
	}
	for (uint32_t l = 0; l < nl; l++)
		for (uint32_t a = 0; a < r->n; a++) {
			uint32_t sw = r->rank_sw[a];
			if (sw != VT_NONE && t->level[sw] <= l)
				c->member[(size_t)l * r->n + a] = t->sub[(size_t)l * t->nsw + sw];
		}
	return 0;
}

static uint32_t ceil_div(uint32_t a, uint32_t b)
{
	return (a + b - 1) / b;
}

uint32_t vt_bound_stage(const vt_cuts *c, const struct vt_flow *fl, uint32_t nfl, uint32_t *scratch)
{
	uint32_t n = c->n, m = c->ncuts > n ? c->ncuts : n, best = nfl ? 1 : 0;
	uint32_t *out = scratch, *in = scratch + m;

	/* a host is a cut of one link each way */
	memset(scratch, 0, 2 * (size_t)m * sizeof(*scratch));
	for (uint32_t i = 0; i < nfl; i++) {
		out[fl[i].src]++;
		in[fl[i].dst]++;
	}
	for (uint32_t a = 0; a < n; a++) {
		if (out[a] > best)
			best = out[a];
		if (in[a] > best)
			best = in[a];
	}
	for (uint32_t l = 0; l < c->nlevels; l++) {
		const uint32_t *mem = c->member + (size_t)l * n;
		memset(scratch, 0, 2 * (size_t)m * sizeof(*scratch));
		for (uint32_t i = 0; i < nfl; i++) {
			uint32_t x = mem[fl[i].src], y = mem[fl[i].dst];
			if (x == y)
				continue;
			if (x != VT_NONE)
				out[x]++;
			if (y != VT_NONE)
				in[y]++;
		}
		for (uint32_t k = 0; k < c->ncuts; k++) {
			if (!c->links[k])
				continue;
			uint32_t b = ceil_div(out[k] > in[k] ? out[k] : in[k], c->links[k]);
			if (b > best)
				best = b;
		}
	}
	return c->pairs.on && nfl ? vt_pair_bound_flows(&c->pairs, fl, nfl, best) : best;
}

uint32_t vt_bound_all2all(const vt_cuts *c, const vt_routes *r)
{
	uint64_t nact = 0, best;
	uint32_t *act = calloc((size_t)c->ncuts + 1, sizeof(*act));

	for (uint32_t a = 0; a < r->n; a++)
		nact += r->rank_sw[a] != VT_NONE;
	if (nact < 2 || !act) {
		free(act);
		return 0;
	}
	best = nact - 1; /* every host sends and receives nact - 1 flows over its one link */
	for (uint32_t l = 0; l < c->nlevels; l++) {
		const uint32_t *mem = c->member + (size_t)l * c->n;
		memset(act, 0, (size_t)c->ncuts * sizeof(*act));
		for (uint32_t a = 0; a < c->n; a++)
			if (mem[a] != VT_NONE)
				act[mem[a]]++;
		for (uint32_t k = 0; k < c->ncuts; k++) {
			if (!c->links[k])
				continue;
			/* flows out = flows in = hosts inside x hosts outside */
			uint64_t fl = (uint64_t)act[k] * (nact - act[k]);
			uint64_t b = (fl + c->links[k] - 1) / c->links[k];
			if (b > best)
				best = b;
		}
	}
	free(act);
	best = best > UINT32_MAX ? UINT32_MAX : best;
	return c->pairs.on ? vt_pair_bound_all2all(&c->pairs, (uint32_t)best) : (uint32_t)best;
}

/*
 * corr(X, Y)(t) = #{i in X : (i + t) mod n in Y} is, for rank intervals
 * I of X and J of Y, a sum of trapezoids in t; their second differences are
 * +1, -1, -1, +1 at four points. dd covers t in [-n, 2n] (index t + n).
 */
static void corr_pair(int64_t *dd, uint64_t n, uint64_t a1, uint64_t b1, uint64_t a2, uint64_t b2)
{
	for (int k = 0; k < 2; k++, a2 += n, b2 += n) {
		dd[a2 + n - b1]++;
		dd[a2 + n - a1]--;
		dd[b2 + n - b1]--;
		dd[b2 + n - a1]++;
	}
}

/* runs are [lo, hi) pairs; out[t] for t in [0, n). */
static void corr(const uint32_t *rx, uint32_t nx, const uint32_t *ry, uint32_t ny, uint32_t n,
		 int64_t *dd, int64_t *out)
{
	int64_t d = 0, f = 0;

	memset(dd, 0, (3 * (size_t)n + 2) * sizeof(*dd));
	for (uint32_t i = 0; i < nx; i++)
		for (uint32_t k = 0; k < ny; k++)
			corr_pair(dd, n, rx[2 * i], rx[2 * i + 1], ry[2 * k], ry[2 * k + 1]);
	for (size_t x = 0; x < 2 * (size_t)n; x++) {
		if (x >= n)
			out[x - n] = f;
		d += dd[x];
		f += d;
	}
}

/* Runs of consecutive ranks of a sorted list, as [lo, hi) pairs; returns their number. */
static uint32_t to_runs(const uint32_t *rk, uint32_t m, uint32_t *runs)
{
	uint32_t nr = 0;

	for (uint32_t i = 0; i < m; i++) {
		if (nr && runs[2 * nr - 1] == rk[i]) {
			runs[2 * nr - 1]++;
			continue;
		}
		runs[2 * nr] = rk[i];
		runs[2 * nr + 1] = rk[i] + 1;
		nr++;
	}
	return nr;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Level l's cuts as lists: cut k holds list[off[k] .. off[k + 1]) in rank order. */
static void cut_members(const vt_cuts *c, uint32_t l, uint32_t n, uint32_t *off, uint32_t *list)
{
	const uint32_t *mem = c->member + (size_t)l * n;

	memset(off, 0, ((size_t)c->ncuts + 2) * sizeof(*off));
	for (uint32_t a = 0; a < n; a++)
		if (mem[a] != VT_NONE)
			off[mem[a] + 2]++;
	for (uint32_t k = 0; k < c->ncuts; k++)
		off[k + 2] += off[k + 1];
	for (uint32_t a = 0; a < n; a++)
		if (mem[a] != VT_NONE)
			list[off[mem[a] + 1]++] = a;
}

/*
 * The bound of cuts that are one interval of L ranks among n all-active ones
 * (shape: L << 32 | links), each shape once: it depends on L and links alone.
 */
static void shapes_bound(uint64_t *shape, uint32_t nshape, uint32_t n, uint32_t first, uint32_t K,
			 uint32_t *bound)
{
	qsort(shape, nshape, sizeof(*shape), cmp_u64);
	for (uint32_t i = 0; i < nshape; i++) {
		if (i && shape[i] == shape[i - 1])
			continue;
		int64_t L = (int64_t)(shape[i] >> 32), links = (uint32_t)shape[i];
		for (uint32_t s = first; s < first + K; s++) {
			/* flows out = in = L minus those that stay: (L - s)+ + (L - n + s)+ */
			int64_t stay = (L > s ? L - s : 0) + (L + s > n ? L + s - n : 0);
			uint32_t b = (uint32_t)((L - stay + links - 1) / links);
			if (b > bound[s - first])
				bound[s - first] = b;
		}
	}
}

int vt_bound_shift(const vt_cuts *c, const vt_routes *r, uint32_t first, uint32_t K,
		   uint32_t *bound, vt_err *e)
{
	uint32_t n = r->n, na = 0, nshape = 0;
	uint32_t *act = malloc((size_t)n * sizeof(*act)), *arun = malloc(2 * ((size_t)n + 1) * 4);
	uint32_t *list = malloc(((size_t)n + 1) * sizeof(*list)),
		 *crun = malloc(2 * ((size_t)n + 1) * 4);
	uint32_t *off = malloc(((size_t)c->ncuts + 2) * sizeof(*off));
	uint64_t *shape = malloc(((size_t)c->ncuts + 1) * sizeof(*shape));
	int64_t *dd = malloc((3 * (size_t)n + 2) * sizeof(*dd));
	int64_t *g = malloc(((size_t)n + 1) * sizeof(*g)),
		*h = malloc(((size_t)n + 1) * sizeof(*h));
	int rc = 0;

	if (!act || !arun || !list || !crun || !off || !shape || !dd || !g || !h) {
		rc = vt_err_nomem(e, "out of memory for the shift bound");
		goto out;
	}
	for (uint32_t a = 0; a < n; a++)
		if (r->rank_sw[a] != VT_NONE)
			act[na++] = a;
	uint32_t nar = to_runs(act, na, arun);
	int full = na == n;
	/* a host is a cut of one link: 1 in every stage that has a flow */
	corr(arun, nar, arun, nar, n, dd, g);
	for (uint32_t s = 0; s < K; s++)
		bound[s] = g[first + s] > 0;
	for (uint32_t l = 0; l < c->nlevels; l++) {
		cut_members(c, l, n, off, list);
		for (uint32_t k = 0; k < c->ncuts; k++) {
			uint32_t m = off[k + 1] - off[k], nr;
			if (!c->links[k] || !m)
				continue;
			nr = to_runs(list + off[k], m, crun);
			if (full && nr == 1) {
				/* one interval among all-active ranks: depends on its length only
				 */
				shape[nshape++] = (uint64_t)m << 32 | c->links[k];
				continue;
			}
			corr(crun, nr, arun, nar, n, dd, g);
			corr(crun, nr, crun, nr, n, dd, h);
			for (uint32_t s = first; s < first + K; s++) {
				int64_t o = g[s] - h[s], i = g[n - s] - h[s], x = o > i ? o : i;
				uint32_t b = (uint32_t)((x + c->links[k] - 1) / c->links[k]);
				if (b > bound[s - first])
					bound[s - first] = b;
			}
		}
	}
	shapes_bound(shape, nshape, n, first, K, bound);
	if (c->pairs.on && vt_pair_bound_shift(&c->pairs, r, first, K, bound))
		rc = vt_err_nomem(e, "out of memory for the shift bound");
out:
	free(act);
	free(arun);
	free(list);
	free(crun);
	free(off);
	free(shape);
	free(dd);
	free(g);
	free(h);
	return rc;
}

int vt_bound_shift_ranks(const vt_fabric *f, const vt_order *o, const vt_tree *t, uint32_t *bound,
			 vt_err *e)
{
	vt_routes r;
	vt_cuts c;
	int rc;

	if (o->n)
		bound[0] = 0;
	if (o->n < 2)
		return 0;
	if (vt_routes_ranks(&r, f, o, e))
		return -1;
	rc = t ? vt_cuts_tree(&c, &r, t, e) : vt_cuts_leaf(&c, &r, e);
	if (!rc) {
		rc = vt_bound_shift(&c, &r, 1, o->n - 1, bound + 1, e);
		vt_cuts_free(&c);
	}
	vt_routes_free(&r);
	return rc;
}
