/* SPDX-License-Identifier: MIT */
/*
 * Shared by the counting methods of vt_congest.c (vt_congest_walk.c,
 * vt_congest_interval.c) and no one else: the per-thread accumulators and
 * the thread pool. Every figure is a sum or a maximum over the threads'
 * accumulators, so the split of the work over threads does not show.
 */
#ifndef VT_CONGEST_INT_H
#define VT_CONGEST_INT_H

#include <stdint.h>

#include "analysis/vt_congest.h"

/* One thread's figures, merged by vt_congest_run. */
struct acc {
	uint32_t *chan_max;
	uint64_t *chan_sum;
	uint64_t *hist; /* loads >= 1; hist[0] is derived at the merge */
	uint32_t hist_len;
	uint64_t nflows, unrouted, hops;
	int oom;
};

int acc_init(struct acc *a, uint32_t nchan);
void acc_free(struct acc *a);
int acc_grow(struct acc *a, uint32_t load);

/* Channel c carries load (>= 1) during len stages. */
static inline void acc_run(struct acc *a, uint32_t c, uint32_t load, uint32_t len)
{
	if (load >= a->hist_len && acc_grow(a, load))
		return;
	a->hist[load] += len;
	if (load > a->chan_max[c])
		a->chan_max[c] = load;
	a->chan_sum[c] += (uint64_t)load * len;
	a->hops += (uint64_t)load * len;
}

static inline int active(const vt_routes *r, uint32_t a)
{
	return r->rank_sw[a] != VT_NONE;
}

/* A worker's argument: the job and its thread number (0: the calling thread). */
struct wctx {
	void *j;
	unsigned tid;
};

/* Reports progress from thread 0 only (the calling thread). */
void congest_progress(const struct vt_congest_opts *o, unsigned tid, uint64_t done, uint64_t total);
/* Runs fn on nt threads (the calling one included), each with its wctx. */
int run_threads(void *job, void *(*fn)(void *), unsigned nt);

/* The walk and naive methods: stage maxima, bounds and per-stage ebb sums into res. */
void vt_congest_walk(const vt_routes *r, const vt_pattern *p, const struct vt_congest_opts *o,
		     vt_congest *res, struct acc *accs, double *stage_ebb);
/* The interval method (shift patterns). */
int vt_congest_interval(const vt_routes *r, const vt_pattern *p, const struct vt_congest_opts *o,
			vt_congest *res, struct acc *accs, vt_err *e);

#endif
