/* SPDX-License-Identifier: MIT */
/*
 * Static congestion counting (see vt_congest.h for the model and the
 * methods): the entry point, which picks the method, runs it over threads
 * (vt_congest_walk.c, vt_congest_interval.c) and merges their figures; and
 * the reporting helpers.
 */
#include "analysis/vt_congest.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/vt_bound.h"
#include "analysis/vt_congest_int.h"

int acc_init(struct acc *a, uint32_t nchan)
{
	memset(a, 0, sizeof(*a));
	a->chan_max = calloc(nchan + 1, sizeof(*a->chan_max));
	a->chan_sum = calloc(nchan + 1, sizeof(*a->chan_sum));
	a->hist_len = 64;
	a->hist = calloc(a->hist_len, sizeof(*a->hist));
	return a->chan_max && a->chan_sum && a->hist ? 0 : -1;
}

void acc_free(struct acc *a)
{
	free(a->chan_max);
	free(a->chan_sum);
	free(a->hist);
}

int acc_grow(struct acc *a, uint32_t load)
{
	uint32_t nl = load * 2 + 1;
	uint64_t *h = realloc(a->hist, (size_t)nl * sizeof(*h));

	if (!h) {
		a->oom = 1;
		return -1;
	}
	memset(h + a->hist_len, 0, (size_t)(nl - a->hist_len) * sizeof(*h));
	a->hist = h;
	a->hist_len = nl;
	return 0;
}

void congest_progress(const struct vt_congest_opts *o, unsigned tid, uint64_t done, uint64_t total)
{
	if (tid == 0 && o->progress)
		o->progress(o->progress_ctx, done, total);
}

int run_threads(void *job, void *(*fn)(void *), unsigned nt)
{
	pthread_t th[64];
	struct wctx w[64];
	unsigned started = 1;

	for (unsigned i = 0; i < nt; i++)
		w[i] = (struct wctx){job, i};
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

void vt_congest_free(vt_congest *res)
{
	free(res->stage_max);
	free(res->hist);
	free(res->chan_max);
	free(res->chan_sum);
	free(res->stage_bound);
	free(res->stage_climb);
	memset(res, 0, sizeof(*res));
}

/*
 * Merges the threads' accumulators into res: sums and maxima, so the result
 * is deterministic. -1 when a thread or the merge ran out of memory.
 */
static int merge_accs(const vt_routes *r, vt_congest *res, const struct acc *accs, unsigned nt)
{
	for (unsigned i = 0; i < nt; i++)
		if (accs[i].oom)
			return -1;
	for (uint32_t s = 0; s < res->nstages; s++)
		if (res->stage_max[s] > res->worst)
			res->worst = res->stage_max[s];
	res->hist = calloc((size_t)res->worst + 1, sizeof(*res->hist));
	if (!res->hist)
		return -1;
	for (unsigned i = 0; i < nt; i++) {
		const struct acc *a = &accs[i];
		res->nflows += a->nflows;
		res->unrouted += a->unrouted;
		res->hops += a->hops;
		for (uint32_t k = 1; k < a->hist_len && k <= res->worst; k++)
			res->hist[k] += a->hist[k];
		for (uint32_t c = 0; c < r->nchan; c++) {
			if (a->chan_max[c] > res->chan_max[c])
				res->chan_max[c] = a->chan_max[c];
			res->chan_sum[c] += a->chan_sum[c];
		}
	}
	return 0;
}

/* The pattern's figures from the per-stage ones; ncounted: channels with a load kept. */
static void summarise(const vt_routes *r, vt_congest *res, const double *stage_ebb)
{
	uint32_t nst = res->nstages, ncounted = 0;
	double sum = 0, ebb = 0, bsum = 0, csum = 0;

	for (uint32_t c = 0; c < r->nchan; c++)
		ncounted += r->counted[c];
	/* the (channel, stage) pairs no flow crossed */
	res->hist[0] = (uint64_t)ncounted * nst;
	for (uint32_t k = 1; k <= res->worst; k++)
		res->hist[0] -= res->hist[k];
	for (uint32_t s = 0; s < nst; s++) {
		sum += res->stage_max[s];
		if (stage_ebb)
			ebb += stage_ebb[s];
		if (res->stage_bound) {
			bsum += res->stage_bound[s];
			if (res->stage_bound[s] > res->bound_worst)
				res->bound_worst = res->stage_bound[s];
		}
		if (res->stage_climb) {
			csum += res->stage_climb[s];
			if (res->stage_climb[s] > res->climb_worst)
				res->climb_worst = res->stage_climb[s];
		}
	}
	res->avg = nst ? sum / nst : 0;
	res->bound_avg = nst ? bsum / nst : 0;
	res->climb_avg = nst ? csum / nst : 0;
	if (res->has_ebb)
		res->ebb = res->nflows ? ebb / (double)res->nflows : 0;
}

/* res's arrays for nst stages; -1 when out of memory. */
static int result_alloc(const vt_routes *r, const vt_pattern *p, const struct vt_congest_opts *o,
			uint32_t nst, vt_congest *res)
{
	memset(res, 0, sizeof(*res));
	snprintf(res->pattern, sizeof(res->pattern), "%s", p->name);
	res->nstages = nst;
	res->stage_max = calloc(nst + 1, sizeof(*res->stage_max));
	res->chan_max = calloc(r->nchan + 1, sizeof(*res->chan_max));
	res->chan_sum = calloc(r->nchan + 1, sizeof(*res->chan_sum));
	res->has_ebb = p->kind == VT_PAT_BISECTION;
	if (o->cuts)
		res->stage_bound = calloc(nst + 1, sizeof(*res->stage_bound));
	if (o->cuts && o->cuts->climb.on && p->kind == VT_PAT_SHIFT &&
	    !(res->stage_climb = calloc(nst + 1, sizeof(*res->stage_climb))))
		return -1;
	return res->stage_max && res->chan_max && res->chan_sum && (!o->cuts || res->stage_bound)
		       ? 0
		       : -1;
}

/* Runs the method o asks for (or AUTO picks); -1 with e set on failure. */
static int count(const vt_routes *r, const vt_pattern *p, const struct vt_congest_opts *o,
		 vt_congest *res, struct acc *accs, double *stage_ebb, vt_err *e)
{
	uint32_t nst = res->nstages;
	/* the interval method's cost does not grow with the stages: worth it beyond a few */
	int interval =
		o->method == VT_CONGEST_INTERVAL ||
		(o->method == VT_CONGEST_AUTO && p->kind == VT_PAT_SHIFT && r->nruns && nst >= 8);

	if (interval) {
		res->method = VT_CONGEST_INTERVAL;
		return vt_congest_interval(r, p, o, res, accs, e);
	}
	res->method = o->method == VT_CONGEST_NAIVE ? VT_CONGEST_NAIVE : VT_CONGEST_WALK;
	if (p->kind == VT_PAT_SHIFT && o->cuts &&
	    vt_bound_shift(o->cuts, r, p->first, nst, res->stage_bound, e))
		return -1;
	if (res->stage_climb &&
	    vt_bound_shift_climb(o->cuts, r, p->first, nst, res->stage_bound, res->stage_climb))
		return vt_err_nomem(e, "out of memory for the up*-down* bound");
	vt_congest_walk(r, p, o, res, accs, stage_ebb);
	return 0;
}

int vt_congest_run(const vt_routes *r, const vt_pattern *p, const struct vt_congest_opts *o_in,
		   vt_congest *res, vt_err *e)
{
	struct vt_congest_opts o = *o_in;
	struct acc *accs = NULL;
	double *stage_ebb = NULL;
	uint32_t nst = vt_pattern_nstages(p);
	int rc = 0;

	if (!o.threads)
		o.threads = 2;
	if (o.threads > 64)
		o.threads = 64;
	if (o.method == VT_CONGEST_NAIVE || o.on_run)
		o.threads = 1;
	if (o.stage_limit && o.stage_limit < nst)
		nst = o.stage_limit;
	if (p->nranks != r->n)
		return vt_err_set(e, "pattern '%s' is for %u ranks, the order has %u", p->name,
				  p->nranks, r->n);
	if (o.method == VT_CONGEST_INTERVAL && p->kind != VT_PAT_SHIFT)
		return vt_err_set(e, "pattern '%s': the interval method counts shifts only",
				  p->name);
	if (result_alloc(r, p, &o, nst, res))
		goto oom;
	accs = calloc(o.threads, sizeof(*accs));
	if (res->has_ebb)
		stage_ebb = calloc(nst + 1, sizeof(*stage_ebb));
	if (!accs || (res->has_ebb && !stage_ebb))
		goto oom;
	for (unsigned i = 0; i < o.threads; i++)
		if (acc_init(&accs[i], r->nchan))
			goto oom;
	if (count(r, p, &o, res, accs, stage_ebb, e)) {
		rc = -1;
		goto done;
	}
	if (merge_accs(r, res, accs, o.threads))
		goto oom;
	summarise(r, res, stage_ebb);
	goto done;
oom:
	rc = vt_err_nomem(e, "out of memory counting pattern '%s'", p->name);
done:
	if (accs)
		for (unsigned i = 0; i < o.threads; i++)
			acc_free(&accs[i]);
	free(accs);
	free(stage_ebb);
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
	char a[VT_PORT_NAME_MAX], b[VT_PORT_NAME_MAX];

	vt_port_name(f, c, a, sizeof(a));
	if (f->ports[c].peer == VT_NONE)
		snprintf(buf, len, "%s", a);
	else
		snprintf(buf, len, "%s -> %s", a, vt_port_name(f, f->ports[c].peer, b, sizeof(b)));
}
