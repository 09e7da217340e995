/* SPDX-License-Identifier: MIT */
/* Static congestion counting (see vt_congest.h for the model and the two methods). */
#include "vt_congest.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vt_bound.h"

/* ---- routes */

void vt_routes_free(vt_routes *r)
{
	free(r->rank_lid);
	free(r->rank_sw);
	free(r->rank_up);
	free(r->chan_sw);
	free(r->counted);
	free(r->next);
	free(r->run_first);
	free(r->run_len);
	free(r->run_sw);
	memset(r, 0, sizeof(*r));
}

/*
 * Keeps next[r][sw] only where the whole path from sw delivers to r's port:
 * a flow either follows a good path or is unrouted, in every method alike.
 */
static void prune_bad(vt_routes *r, uint32_t rank, uint32_t dst_port, uint8_t *state,
		      uint32_t *stack)
{
	uint32_t nsw = r->nsw, *row = r->next + (uint64_t)rank * nsw;

	memset(state, 0, nsw); /* 0 unknown, 1 on stack, 2 good, 3 bad */
	for (uint32_t s0 = 0; s0 < nsw; s0++) {
		uint32_t sp = 0, sw = s0, good;
		while (1) {
			if (state[sw] >= 2) {
				good = state[sw] == 2;
				break;
			}
			if (state[sw] == 1) { /* loop */
				good = 0;
				break;
			}
			uint32_t ch = row[sw];
			if (ch == VT_NONE) {
				good = 0;
				state[sw] = 3;
				break;
			}
			state[sw] = 1;
			stack[sp++] = sw;
			if (r->chan_sw[ch] == VT_NONE) {
				good = r->f->ports[ch].peer == dst_port;
				break;
			}
			sw = r->chan_sw[ch];
		}
		while (sp) {
			uint32_t x = stack[--sp];
			state[x] = good ? 2 : 3;
			if (!good)
				row[x] = VT_NONE;
		}
	}
}

static int build_runs(vt_routes *r, vt_err *e)
{
	uint32_t cap = 0;

	r->nruns = 0;
	for (uint32_t a = 0; a < r->n; a++) {
		if (r->rank_sw[a] == VT_NONE)
			continue;
		if (r->nruns && r->run_sw[r->nruns - 1] == r->rank_sw[a] &&
		    r->run_first[r->nruns - 1] + r->run_len[r->nruns - 1] == a) {
			r->run_len[r->nruns - 1]++;
			continue;
		}
		if (r->nruns == cap) {
			cap = cap ? 2 * cap : 64;
			uint32_t *a1 = realloc(r->run_first, cap * sizeof(*a1));
			if (a1)
				r->run_first = a1;
			uint32_t *a2 = realloc(r->run_len, cap * sizeof(*a2));
			if (a2)
				r->run_len = a2;
			uint32_t *a3 = realloc(r->run_sw, cap * sizeof(*a3));
			if (a3)
				r->run_sw = a3;
			if (!a1 || !a2 || !a3)
				return vt_err_set(e, "out of memory");
		}
		r->run_first[r->nruns] = a;
		r->run_len[r->nruns] = 1;
		r->run_sw[r->nruns] = r->rank_sw[a];
		r->nruns++;
	}
	return 0;
}

int vt_routes_build(vt_routes *r, const vt_fabric *f, const vt_lfts *t, const vt_order *o,
		    vt_err *e)
{
	uint32_t n = o->n, nsw = f->nswitches;

	memset(r, 0, sizeof(*r));
	r->f = f;
	r->t = t;
	r->o = o;
	r->n = n;
	r->nsw = nsw;
	r->nchan = f->nports;
	r->rank_lid = malloc((n + 1) * sizeof(uint32_t));
	r->rank_sw = malloc((n + 1) * sizeof(uint32_t));
	r->rank_up = malloc((n + 1) * sizeof(uint32_t));
	r->chan_sw = malloc((f->nports + 1) * sizeof(uint32_t));
	r->counted = calloc(f->nports + 1, 1);
	r->next = malloc(((uint64_t)n * nsw + 1) * sizeof(uint32_t));
	uint8_t *state = malloc(nsw + 1);
	uint32_t *stack = malloc((nsw + 1) * sizeof(*stack));
	if (!r->rank_lid || !r->rank_sw || !r->rank_up || !r->chan_sw || !r->counted || !r->next ||
	    !state || !stack) {
		free(state);
		free(stack);
		vt_routes_free(r);
		return vt_err_set(e, "out of memory for the routes of %u ranks and %u switches", n,
				  nsw);
	}
	for (uint32_t c = 0; c < f->nports; c++) {
		uint32_t q = f->ports[c].peer;
		r->chan_sw[c] = VT_NONE;
		if (q == VT_NONE)
			continue;
		uint32_t a = f->ports[c].node, b = f->ports[q].node;
		r->chan_sw[c] = f->nodes[b].type == VT_SWITCH ? f->nodes[b].sw : VT_NONE;
		r->counted[c] = f->nodes[a].type == VT_SWITCH || f->nodes[b].type == VT_SWITCH;
	}
	for (uint32_t a = 0; a < n; a++) {
		uint32_t p = o->port[a], q;
		r->rank_lid[a] = r->rank_sw[a] = r->rank_up[a] = VT_NONE;
		if (p == VT_NONE || p >= f->nports)
			continue;
		r->rank_lid[a] = f->ports[p].lid;
		q = f->ports[p].peer;
		if (q != VT_NONE && f->nodes[f->ports[q].node].type == VT_SWITCH) {
			r->rank_sw[a] = f->nodes[f->ports[q].node].sw;
			r->rank_up[a] = p;
		}
	}
	for (uint32_t d = 0; d < n; d++) {
		uint32_t *row = r->next + (uint64_t)d * nsw, lid = r->rank_lid[d];
		for (uint32_t s = 0; s < nsw; s++) {
			uint32_t node = f->switches[s];
			uint8_t p = lid == VT_NONE ? VT_LFT_NONE : vt_lft_get(t, s, lid);
			row[s] = VT_NONE;
			if (p == 0 || p == VT_LFT_NONE || p > f->nodes[node].nports)
				continue;
			uint32_t c = vt_port_index(f, node, p);
			if (f->ports[c].peer != VT_NONE)
				row[s] = c;
		}
		if (lid != VT_NONE)
			prune_bad(r, d, o->port[d], state, stack);
	}
	free(state);
	free(stack);
	if (build_runs(r, e)) {
		vt_routes_free(r);
		return -1;
	}
	return 0;
}

/* ---- per-thread accumulation */

struct acc {
	uint32_t *chan_max;
	uint64_t *chan_sum;
	uint64_t *hist;
	uint32_t hist_len;
	uint64_t nflows, unrouted, hops;
	int oom;
};

static int acc_init(struct acc *a, uint32_t nchan, uint32_t hist_len)
{
	memset(a, 0, sizeof(*a));
	a->chan_max = calloc(nchan + 1, sizeof(*a->chan_max));
	a->chan_sum = calloc(nchan + 1, sizeof(*a->chan_sum));
	a->hist_len = hist_len + 1;
	a->hist = calloc(a->hist_len, sizeof(*a->hist));
	return a->chan_max && a->chan_sum && a->hist ? 0 : -1;
}

static void acc_free(struct acc *a)
{
	free(a->chan_max);
	free(a->chan_sum);
	free(a->hist);
}

static inline void acc_load(struct acc *a, uint32_t c, uint32_t load, uint32_t *stage_max)
{
	if (load >= a->hist_len) {
		uint32_t nl = load * 2 + 1;
		uint64_t *h = realloc(a->hist, (size_t)nl * sizeof(*h));
		if (!h) {
			a->oom = 1;
			return;
		}
		memset(h + a->hist_len, 0, (size_t)(nl - a->hist_len) * sizeof(*h));
		a->hist = h;
		a->hist_len = nl;
	}
	a->hist[load]++;
	if (load > a->chan_max[c])
		a->chan_max[c] = load;
	a->chan_sum[c] += load;
	if (load > *stage_max)
		*stage_max = load;
}

/* ---- the walk method */

struct job {
	const vt_routes *r;
	const vt_pattern *p;
	const struct vt_congest_opts *o;
	vt_congest *res;
	uint32_t nstages;
	_Atomic uint32_t next_unit;
	_Atomic uint64_t done;
	uint64_t total;
	double *stage_ebb; /* per stage: sum of 1/max load over its flows */
	/* interval method */
	uint32_t *clist; /* counted channels */
	uint32_t *cidx;	 /* channel -> position in clist, VT_NONE if not counted */
	uint32_t ncl, group, ngroups;
	struct acc *accs;
	uint32_t **stage_max_t; /* interval: per thread per stage */
	int failed;
};

static inline int active(const vt_routes *r, uint32_t a)
{
	return r->rank_sw[a] != VT_NONE;
}

/* Flows of stage s (chunk by chunk for big stages); place-keepers dropped. */
#define CHUNK (1u << 20)

static uint32_t stage_chunk(const struct job *j, uint32_t s, uint64_t first, struct vt_flow *fl,
			    uint32_t cap)
{
	uint32_t m = vt_pattern_stage_part(j->p, s, first, cap, fl);
	return m;
}

static uint32_t keep_active(const vt_routes *r, struct vt_flow *fl, uint32_t m)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < m; i++)
		if (active(r, fl[i].src) && active(r, fl[i].dst))
			fl[k++] = fl[i];
	return k;
}

static void walk_stage_flows(const vt_routes *r, const struct vt_flow *fl, uint32_t m,
			     uint32_t *load, struct acc *a)
{
	uint32_t nsw = r->nsw;

	for (uint32_t i = 0; i < m; i++) {
		uint32_t src = fl[i].src, sw = r->rank_sw[src];
		const uint32_t *row = r->next + (uint64_t)fl[i].dst * nsw;
		uint32_t ch = row[sw];
		if (ch == VT_NONE) {
			a->unrouted++;
			continue;
		}
		a->nflows++;
		load[r->rank_up[src]]++;
		while (1) {
			load[ch]++;
			sw = r->chan_sw[ch];
			if (sw == VT_NONE)
				break;
			ch = row[sw];
		}
	}
}

static double ebb_stage(const vt_routes *r, const struct vt_flow *fl, uint32_t m,
			const uint32_t *load)
{
	double sum = 0;

	for (uint32_t i = 0; i < m; i++) {
		uint32_t src = fl[i].src, sw = r->rank_sw[src];
		const uint32_t *row = r->next + (uint64_t)fl[i].dst * r->nsw;
		uint32_t ch = row[sw], mx;
		if (ch == VT_NONE)
			continue;
		mx = load[r->rank_up[src]];
		while (1) {
			if (load[ch] > mx)
				mx = load[ch];
			sw = r->chan_sw[ch];
			if (sw == VT_NONE)
				break;
			ch = row[sw];
		}
		sum += 1.0 / mx;
	}
	return sum;
}

/* The reference: per flow and hop through the fabric model and the LFT rows. */
static void naive_stage_flows(const vt_routes *r, const struct vt_flow *fl, uint32_t m,
			      uint32_t *load, struct acc *a, uint32_t *path)
{
	const vt_fabric *f = r->f;

	for (uint32_t i = 0; i < m; i++) {
		uint32_t sp = r->o->port[fl[i].src], dp = r->o->port[fl[i].dst];
		uint32_t lid = f->ports[dp].lid, np = 0, ok = 0, cur = sp;
		for (uint32_t h = 0; h <= r->nsw + 1; h++) {
			path[np++] = cur;
			uint32_t q = f->ports[cur].peer;
			if (q == VT_NONE)
				break;
			const struct vt_node *nd = &f->nodes[f->ports[q].node];
			if (nd->type != VT_SWITCH) {
				ok = q == dp;
				break;
			}
			uint8_t out = vt_lft_get(r->t, nd->sw, lid);
			if (out == 0 || out == VT_LFT_NONE || out > nd->nports)
				break;
			cur = vt_port_index(f, f->ports[q].node, out);
		}
		if (!ok) {
			a->unrouted++;
			continue;
		}
		a->nflows++;
		for (uint32_t k = 0; k < np; k++)
			load[path[k]]++;
	}
}

struct wctx {
	struct job *j;
	unsigned tid;
};

static void *walk_worker(void *arg)
{
	struct wctx *w = arg;
	struct job *j = w->j;
	const vt_routes *r = j->r;
	struct acc *a = &j->accs[w->tid];
	uint32_t maxf = vt_pattern_max_flows(j->p), cap = maxf < CHUNK ? maxf : CHUNK;
	struct vt_flow *fl = malloc(((size_t)cap + 1) * sizeof(*fl));
	uint32_t *load = calloc(r->nchan + 1, sizeof(*load));
	uint32_t *path = malloc((r->nsw + 3) * sizeof(*path));
	uint32_t *scratch = NULL;
	const struct vt_cuts *cuts = j->o->cuts;
	int naive = j->o->method == VT_CONGEST_NAIVE;
	int big = maxf > cap;

	if (cuts)
		scratch = malloc(2 * ((size_t)(cuts->ncuts > r->n ? cuts->ncuts : r->n) + 1) *
				 sizeof(*scratch));
	if (!fl || !load || !path || (cuts && !scratch)) {
		a->oom = 1;
		goto out;
	}
	while (1) {
		uint32_t s = atomic_fetch_add(&j->next_unit, 1);
		if (s >= j->nstages)
			break;
		uint32_t smax = 0, bound = 0;
		double ebb = 0;
		memset(load, 0, (size_t)r->nchan * sizeof(*load));
		for (uint64_t first = 0;; first += cap) {
			uint32_t m = stage_chunk(j, s, first, fl, cap);
			if (!m)
				break;
			uint32_t k = keep_active(r, fl, m);
			if (naive)
				naive_stage_flows(r, fl, k, load, a, path);
			else
				walk_stage_flows(r, fl, k, load, a);
			/* big stages (all2all) come in chunks: bound and EBB need whole stages */
			if (cuts && !big)
				bound = vt_bound_stage(cuts, fl, k, scratch);
			if (m < cap || !big)
				break;
		}
		for (uint32_t c = 0; c < r->nchan; c++)
			if (r->counted[c]) {
				a->hops += load[c];
				acc_load(a, c, load[c], &smax);
			}
		if (j->res->has_ebb) {
			uint32_t m = vt_pattern_stage(j->p, s, fl);
			uint32_t k = keep_active(r, fl, m);
			ebb = ebb_stage(r, fl, k, load);
		}
		j->res->stage_max[s] = smax;
		if (j->res->stage_bound)
			j->res->stage_bound[s] = bound;
		if (j->stage_ebb)
			j->stage_ebb[s] = ebb;
		atomic_fetch_add(&j->done, 1);
		if (w->tid == 0 && j->o->progress)
			j->o->progress(j->o->progress_ctx, atomic_load(&j->done), j->total);
	}
out:
	free(fl);
	free(load);
	free(path);
	free(scratch);
	return NULL;
}

/* ---- the interval method (shift patterns) */

static void add_range(int32_t *diff, uint32_t n, uint32_t x, uint32_t len)
{
	uint32_t y = x + len; /* exclusive */

	diff[x]++;
	if (y <= n) {
		diff[y]--;
	} else {
		diff[n]--;
		diff[0]++;
		diff[y - n]--;
	}
}

static void interval_group(struct job *j, unsigned tid, uint32_t g, int32_t *diff)
{
	const vt_routes *r = j->r;
	uint32_t n = r->n, nsw = r->nsw, G = j->group;
	uint32_t g0 = g * G, g1 = g0 + G < j->ncl ? g0 + G : j->ncl;
	uint32_t first = j->p->first, K = j->nstages;
	struct acc *a = &j->accs[tid];
	uint32_t *smax = j->stage_max_t[tid];

	memset(diff, 0, (size_t)(g1 - g0) * (n + 1) * sizeof(*diff));
	for (uint32_t d = 0; d < n; d++) {
		if (!active(r, d))
			continue;
		const uint32_t *row = r->next + (uint64_t)d * nsw;
		for (uint32_t k = 0; k < r->nruns; k++) {
			uint32_t ch = row[r->run_sw[k]];
			if (ch == VT_NONE)
				continue;
			/* sources lo .. hi reach d in stages d - hi .. d - lo (mod n) */
			uint32_t hi = r->run_first[k] + r->run_len[k] - 1;
			uint32_t x = d >= hi ? d - hi : d + n - hi;
			while (1) {
				uint32_t ci = j->cidx[ch] - g0;
				if (ci < g1 - g0)
					add_range(diff + (uint64_t)ci * (n + 1), n, x,
						  r->run_len[k]);
				uint32_t sw = r->chan_sw[ch];
				if (sw == VT_NONE)
					break;
				ch = row[sw];
			}
		}
	}
	/* CA -> switch channels: rank a sends in stage s when a + s is reachable */
	for (uint32_t src = 0; src < n; src++) {
		if (!active(r, src))
			continue;
		uint32_t ci = j->cidx[r->rank_up[src]] - g0;
		if (ci >= g1 - g0)
			continue;
		int32_t *df = diff + (uint64_t)ci * (n + 1);
		for (uint32_t s = first; s < first + K; s++) {
			uint32_t d = src + s < n ? src + s : src + s - n;
			if (active(r, d) &&
			    r->next[(uint64_t)d * nsw + r->rank_sw[src]] != VT_NONE) {
				df[s]++;
				df[s + 1]--;
			}
		}
	}
	for (uint32_t ci = 0; ci < g1 - g0; ci++) {
		const int32_t *df = diff + (uint64_t)ci * (n + 1);
		uint32_t c = j->clist[g0 + ci];
		int32_t run = 0;
		for (uint32_t s = 0; s < first; s++)
			run += df[s];
		for (uint32_t s = first; s < first + K; s++) {
			run += df[s];
			a->hops += (uint32_t)run;
			acc_load(a, c, (uint32_t)run, &smax[s - first]);
		}
	}
}

static void *interval_worker(void *arg)
{
	struct wctx *w = arg;
	struct job *j = w->j;
	int32_t *diff = malloc((size_t)j->group * (j->r->n + 1) * sizeof(*diff));

	if (!diff) {
		j->accs[w->tid].oom = 1;
		return NULL;
	}
	while (1) {
		uint32_t g = atomic_fetch_add(&j->next_unit, 1);
		if (g >= j->ngroups)
			break;
		interval_group(j, w->tid, g, diff);
		atomic_fetch_add(&j->done, 1);
		if (w->tid == 0 && j->o->progress)
			j->o->progress(j->o->progress_ctx, atomic_load(&j->done), j->total);
	}
	free(diff);
	return NULL;
}

/* Flow counts and the bound per stage for the interval method (cheap: O(n) per stage). */
static void *shift_stats_worker(void *arg)
{
	struct wctx *w = arg;
	struct job *j = w->j;
	const vt_routes *r = j->r;
	struct acc *a = &j->accs[w->tid];
	const struct vt_cuts *cuts = j->o->cuts;
	struct vt_flow *fl = malloc(((size_t)r->n + 1) * sizeof(*fl));
	uint32_t *scratch = NULL;

	if (cuts)
		scratch = malloc(2 * ((size_t)(cuts->ncuts > r->n ? cuts->ncuts : r->n) + 1) *
				 sizeof(*scratch));
	if (!fl || (cuts && !scratch)) {
		a->oom = 1;
		goto out;
	}
	for (uint32_t s = w->tid; s < j->nstages; s += j->o->threads) {
		uint32_t m = keep_active(r, fl, vt_pattern_stage(j->p, s, fl));
		for (uint32_t i = 0; i < m; i++) {
			if (r->next[(uint64_t)fl[i].dst * r->nsw + r->rank_sw[fl[i].src]] ==
			    VT_NONE)
				a->unrouted++;
			else
				a->nflows++;
		}
		if (cuts)
			j->res->stage_bound[s] = vt_bound_stage(cuts, fl, m, scratch);
	}
out:
	free(fl);
	free(scratch);
	return NULL;
}

static int run_threads(struct job *j, void *(*fn)(void *), unsigned nt)
{
	pthread_t th[64];
	struct wctx w[64];
	unsigned started = 1;

	for (unsigned i = 0; i < nt; i++)
		w[i] = (struct wctx){j, i};
	for (unsigned i = 1; i < nt; i++) {
		if (pthread_create(&th[i], NULL, fn, &w[i]))
			break;
		started++;
	}
	/* threads that failed to start leave their share to the others (work is pulled) */
	fn(&w[0]);
	for (unsigned i = 1; i < started; i++)
		pthread_join(th[i], NULL);
	return 0;
}

static int choose_interval(const vt_routes *r, const vt_pattern *p, uint32_t nstages, unsigned nt,
			   uint32_t ncl, uint32_t group)
{
	if (p->kind != VT_PAT_SHIFT || r->nruns == 0)
		return 0;
	/* both scan every counted channel in every stage; they differ in the path work */
	double walk = (double)nstages * r->n * 6.0;
	double passes = (ncl + group - 1) / group;
	double iv = passes * (double)r->n * r->nruns * 6.0 + (double)r->n * nstages;
	return iv < walk;
}

void vt_congest_free(vt_congest *res)
{
	free(res->stage_max);
	free(res->hist);
	free(res->chan_max);
	free(res->chan_sum);
	free(res->stage_bound);
	memset(res, 0, sizeof(*res));
}

int vt_congest_run(const vt_routes *r, const vt_pattern *p, const struct vt_congest_opts *o_in,
		   vt_congest *res, vt_err *e)
{
	struct vt_congest_opts o = *o_in;
	struct job j;
	uint32_t nst = vt_pattern_nstages(p);
	int rc = 0;

	if (!o.threads)
		o.threads = 2;
	if (o.threads > 64)
		o.threads = 64;
	if (o.method == VT_CONGEST_NAIVE)
		o.threads = 1;
	if (o.stage_limit && o.stage_limit < nst)
		nst = o.stage_limit;
	if (p->nranks != r->n)
		return vt_err_set(e, "pattern '%s' is for %u ranks, the order has %u", p->name,
				  p->nranks, r->n);
	memset(res, 0, sizeof(*res));
	memset(&j, 0, sizeof(j));
	snprintf(res->pattern, sizeof(res->pattern), "%s", p->name);
	res->nstages = nst;
	res->stage_max = calloc(nst + 1, sizeof(*res->stage_max));
	res->chan_max = calloc(r->nchan + 1, sizeof(*res->chan_max));
	res->chan_sum = calloc(r->nchan + 1, sizeof(*res->chan_sum));
	res->has_ebb = p->kind == VT_PAT_BISECTION;
	if (o.cuts)
		res->stage_bound = calloc(nst + 1, sizeof(*res->stage_bound));
	j.r = r;
	j.p = p;
	j.o = &o;
	j.res = res;
	j.nstages = nst;
	j.accs = calloc(o.threads, sizeof(*j.accs));
	j.clist = malloc((r->nchan + 1) * sizeof(*j.clist));
	j.cidx = malloc((r->nchan + 1) * sizeof(*j.cidx));
	if (res->has_ebb)
		j.stage_ebb = calloc(nst + 1, sizeof(*j.stage_ebb));
	if (!res->stage_max || !res->chan_max || !res->chan_sum || !j.accs || !j.clist || !j.cidx ||
	    (o.cuts && !res->stage_bound) || (res->has_ebb && !j.stage_ebb))
		goto oom;
	for (unsigned i = 0; i < o.threads; i++)
		if (acc_init(&j.accs[i], r->nchan, r->n))
			goto oom;
	for (uint32_t c = 0; c < r->nchan; c++) {
		j.cidx[c] = VT_NONE;
		if (r->counted[c]) {
			j.cidx[c] = j.ncl;
			j.clist[j.ncl++] = c;
		}
	}
	/* interval groups: diff arrays of about 64 MiB per thread */
	j.group = (uint32_t)((64u << 20) / (4ull * (r->n + 1)));
	if (j.group < 1)
		j.group = 1;
	if (j.group > j.ncl)
		j.group = j.ncl ? j.ncl : 1;
	int interval = o.method == VT_CONGEST_INTERVAL ||
		       (o.method == VT_CONGEST_AUTO &&
			choose_interval(r, p, nst, o.threads, j.ncl, j.group));
	if (o.method == VT_CONGEST_INTERVAL && p->kind != VT_PAT_SHIFT) {
		rc = vt_err_set(e, "pattern '%s': the interval method counts shifts only", p->name);
		goto done;
	}
	if (interval) {
		res->method = VT_CONGEST_INTERVAL;
		j.ngroups = (j.ncl + j.group - 1) / j.group;
		j.total = j.ngroups;
		j.stage_max_t = calloc(o.threads, sizeof(*j.stage_max_t));
		if (!j.stage_max_t)
			goto oom;
		for (unsigned i = 0; i < o.threads; i++)
			if (!(j.stage_max_t[i] = calloc(nst + 1, sizeof(uint32_t))))
				goto oom;
		run_threads(&j, interval_worker, o.threads);
		run_threads(&j, shift_stats_worker, o.threads);
		for (unsigned i = 0; i < o.threads; i++)
			for (uint32_t s = 0; s < nst; s++)
				if (j.stage_max_t[i][s] > res->stage_max[s])
					res->stage_max[s] = j.stage_max_t[i][s];
	} else {
		res->method = o.method == VT_CONGEST_NAIVE ? VT_CONGEST_NAIVE : VT_CONGEST_WALK;
		j.total = nst;
		run_threads(&j, walk_worker, o.threads);
	}
	/* merge the threads' accumulators: sums and maxima, so the result is deterministic */
	uint32_t hl = 0;
	for (unsigned i = 0; i < o.threads; i++) {
		if (j.accs[i].oom)
			goto oom;
		if (j.accs[i].hist_len > hl)
			hl = j.accs[i].hist_len;
	}
	for (uint32_t s = 0; s < nst; s++)
		if (res->stage_max[s] > res->worst)
			res->worst = res->stage_max[s];
	res->hist = calloc((size_t)res->worst + 1, sizeof(*res->hist));
	if (!res->hist)
		goto oom;
	for (unsigned i = 0; i < o.threads; i++) {
		struct acc *a = &j.accs[i];
		res->nflows += a->nflows;
		res->unrouted += a->unrouted;
		res->hops += a->hops;
		for (uint32_t k = 0; k < a->hist_len && k <= res->worst; k++)
			res->hist[k] += a->hist[k];
		for (uint32_t c = 0; c < r->nchan; c++) {
			if (a->chan_max[c] > res->chan_max[c])
				res->chan_max[c] = a->chan_max[c];
			res->chan_sum[c] += a->chan_sum[c];
		}
	}
	double sum = 0, ebb = 0, bsum = 0;
	for (uint32_t s = 0; s < nst; s++) {
		sum += res->stage_max[s];
		if (j.stage_ebb)
			ebb += j.stage_ebb[s];
		if (res->stage_bound) {
			bsum += res->stage_bound[s];
			if (res->stage_bound[s] > res->bound_worst)
				res->bound_worst = res->stage_bound[s];
		}
	}
	res->avg = nst ? sum / nst : 0;
	res->bound_avg = nst ? bsum / nst : 0;
	if (res->has_ebb)
		res->ebb = res->nflows ? ebb / (double)res->nflows : 0;
	goto done;
oom:
	rc = vt_err_set(e, "out of memory counting pattern '%s'", p->name);
done:
	if (j.accs)
		for (unsigned i = 0; i < o.threads; i++)
			acc_free(&j.accs[i]);
	if (j.stage_max_t)
		for (unsigned i = 0; i < o.threads; i++)
			free(j.stage_max_t[i]);
	free(j.stage_max_t);
	free(j.accs);
	free(j.clist);
	free(j.cidx);
	free(j.stage_ebb);
	if (rc)
		vt_congest_free(res);
	return rc;
}

/* ---- reporting helpers */

uint32_t vt_congest_top(const vt_routes *r, const vt_congest *res, uint32_t n, uint32_t *out)
{
	uint32_t m = 0;

	/* insertion into a sorted top-n list: n is small */
	for (uint32_t c = 0; c < r->nchan; c++) {
		if (!r->counted[c] || !res->chan_max[c])
			continue;
		uint32_t i = m < n ? m : n;
		while (i > 0) {
			uint32_t b = out[i - 1];
			int better = res->chan_max[c] > res->chan_max[b] ||
				     (res->chan_max[c] == res->chan_max[b] &&
				      res->chan_sum[c] > res->chan_sum[b]);
			if (!better)
				break;
			if (i < n)
				out[i] = b;
			i--;
		}
		if (i < n) {
			out[i] = c;
			if (m < n)
				m++;
		}
	}
	return m;
}

void vt_chan_name(const vt_fabric *f, uint32_t c, char *buf, unsigned len)
{
	const struct vt_port *p = &f->ports[c];
	const struct vt_node *a = &f->nodes[p->node];

	if (p->peer == VT_NONE) {
		snprintf(buf, len, "%s/%u", a->desc, p->num);
		return;
	}
	const struct vt_port *q = &f->ports[p->peer];
	snprintf(buf, len, "%s/%u -> %s/%u", a->desc, p->num, f->nodes[q->node].desc, q->num);
}
