/* SPDX-License-Identifier: MIT */
/*
 * The walk method (vt_congest.h): per flow, the path from the source's switch
 * through the routes' table of next channels, threads over stages; and the
 * naive reference, hop by hop through the fabric model and the LFTs.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "analysis/vt_bound.h"
#include "analysis/vt_congest_int.h"

struct job {
	const vt_routes *r;
	const vt_pattern *p;
	const struct vt_congest_opts *o;
	vt_congest *res;
	uint32_t nstages;
	_Atomic uint32_t next_unit;
	_Atomic uint64_t done;
	uint64_t total;	    /* stages, or with big stages flows (at most maxf a stage) */
	int big;	    /* stages walked in chunks: progress in flows, from any thread */
	pthread_mutex_t mu; /* one progress call at a time when big */
	double *stage_ebb;  /* per stage: sum of 1/max load over its flows */
	struct acc *accs;
};

/* Loads of one stage: only the channels some flow used are touched and reset. */
struct stage_load {
	uint32_t *load;
	uint32_t *touched;
	uint32_t nt;
	uint32_t max;
};

static inline void bump(struct stage_load *sl, uint32_t c)
{
	uint32_t v = ++sl->load[c];

	if (v == 1)
		sl->touched[sl->nt++] = c;
	if (v > sl->max)
		sl->max = v;
}

static void stage_flush(const vt_routes *r, struct stage_load *sl, struct acc *a)
{
	for (uint32_t i = 0; i < sl->nt; i++) {
		uint32_t c = sl->touched[i];
		if (r->counted[c])
			acc_run(a, c, sl->load[c], 1);
		sl->load[c] = 0;
	}
	sl->nt = 0;
	sl->max = 0;
}

/* Flows of big stages (all2all at scale) come in chunks of this many. */
#define CHUNK (1u << 20)

static uint32_t keep_active(const vt_routes *r, struct vt_flow *fl, uint32_t m)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < m; i++)
		if (active(r, fl[i].src) && active(r, fl[i].dst))
			fl[k++] = fl[i];
	return k;
}

static void walk_stage_flows(const vt_routes *r, const struct vt_flow *fl, uint32_t m,
			     struct stage_load *sl, struct acc *a)
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
		bump(sl, r->rank_up[src]);
		while (1) {
			bump(sl, ch);
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

/*
 * The reference: per flow, hop by hop through the fabric model and the LFTs
 * (no precomputed table), loads kept as it goes. A path is checked before it
 * is counted, so a flow that dead-ends or loops adds nothing.
 */
static void naive_stage_flows(const vt_routes *r, const struct vt_flow *fl, uint32_t m,
			      struct stage_load *sl, struct acc *a, uint32_t *path)
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
			bump(sl, path[k]);
	}
}

/*
 * A big stage (all2all: one stage of n(n-1) flows) takes one thread for its
 * whole run, maybe not thread 0, which reports the other patterns' progress:
 * its chunks report, from whichever thread walks them, one call at a time.
 */
static void walk_progress(struct job *j, unsigned tid, uint64_t add)
{
	uint64_t done = atomic_fetch_add(&j->done, add) + add;

	if (!j->big) {
		congest_progress(j->o, tid, done, j->total);
	} else if (j->o->progress && !pthread_mutex_lock(&j->mu)) {
		j->o->progress(j->o->progress_ctx, done, j->total);
		pthread_mutex_unlock(&j->mu);
	}
}

static void *walk_worker(void *arg)
{
	struct wctx *w = arg;
	struct job *j = w->j;
	const vt_routes *r = j->r;
	struct acc *a = &j->accs[w->tid];
	uint32_t maxf = vt_pattern_max_flows(j->p), cap = maxf < CHUNK ? maxf : CHUNK;
	struct vt_flow *fl = malloc(((size_t)cap + 1) * sizeof(*fl));
	struct stage_load sl = {0};
	uint32_t *path = malloc((r->nsw + 3) * sizeof(*path));
	uint32_t *scratch = NULL;
	const struct vt_cuts *cuts = j->o->cuts;
	int naive = j->o->method == VT_CONGEST_NAIVE;
	int big = maxf > cap, a2a = j->p->kind == VT_PAT_ALL2ALL;
	/* all2all and shifts have their bound without flows (vt_bound_all2all, _shift) */
	int per_stage_bound = cuts && !a2a && j->p->kind != VT_PAT_SHIFT;

	sl.load = calloc(r->nchan + 1, sizeof(*sl.load));
	sl.touched = malloc((r->nchan + 1) * sizeof(*sl.touched));
	if (per_stage_bound)
		scratch = malloc(2 * ((size_t)(cuts->ncuts > r->n ? cuts->ncuts : r->n) + 1) *
				 sizeof(*scratch));
	if (!fl || !sl.load || !sl.touched || !path || (per_stage_bound && !scratch)) {
		a->oom = 1;
		goto out;
	}
	while (1) {
		uint32_t s = atomic_fetch_add(&j->next_unit, 1);
		if (s >= j->nstages)
			break;
		uint32_t bound = 0, k = 0;
		double ebb = 0;
		for (uint64_t first = 0;; first += cap) {
			uint32_t m = big ? vt_pattern_stage_part(j->p, s, first, cap, fl)
					 : vt_pattern_stage(j->p, s, fl);
			k = keep_active(r, fl, m);
			if (naive)
				naive_stage_flows(r, fl, k, &sl, a, path);
			else
				walk_stage_flows(r, fl, k, &sl, a);
			if (big)
				walk_progress(j, w->tid, m);
			if (!big || m < cap)
				break;
		}
		if (per_stage_bound)
			bound = vt_bound_stage(cuts, fl, k, scratch);
		else if (cuts && a2a)
			bound = vt_bound_all2all(cuts, r);
		if (j->res->has_ebb) /* bisection stages are never chunked */
			ebb = ebb_stage(r, fl, k, sl.load);
		j->res->stage_max[s] = sl.max;
		stage_flush(r, &sl, a);
		if (j->res->stage_bound && j->p->kind != VT_PAT_SHIFT)
			j->res->stage_bound[s] = bound;
		if (j->stage_ebb)
			j->stage_ebb[s] = ebb;
		if (!big)
			walk_progress(j, w->tid, 1);
	}
out:
	free(fl);
	free(sl.load);
	free(sl.touched);
	free(path);
	free(scratch);
	return NULL;
}

void vt_congest_walk(const vt_routes *r, const vt_pattern *p, const struct vt_congest_opts *o,
		     vt_congest *res, struct acc *accs, double *stage_ebb)
{
	struct job j = {.r = r,
			.p = p,
			.o = o,
			.res = res,
			.nstages = res->nstages,
			.total = res->nstages,
			.stage_ebb = stage_ebb,
			.accs = accs};
	uint64_t maxf = vt_pattern_max_flows(p);

	j.big = maxf > CHUNK;
	if (j.big)
		j.total = res->nstages * maxf;
	pthread_mutex_init(&j.mu, NULL);
	run_threads(&j, walk_worker, o->threads);
	pthread_mutex_destroy(&j.mu);
}
