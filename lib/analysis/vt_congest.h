/* SPDX-License-Identifier: MIT */
/*
 * Static congestion of a pattern under given forwarding tables (Zahavi et al.
 * §4.1, Table I): every flow of a stage follows the LFTs from its source CA
 * port to its destination LID; the load of a directed link in a stage is the
 * number of flows crossing it. Per stage the maximum link load; per pattern
 * the worst (max over stages) and the average (mean over stages) of it.
 *
 * Links counted: every directed channel with a switch at either end (switch
 * to switch, switch to CA, CA to switch). A channel is named by the ports[]
 * index of the port it leaves from.
 *
 * Two counting methods give identical results:
 * - walk: per flow, the path from the source's switch through a table of
 *   next channels per (destination rank, switch), threads over stages;
 * - interval (shift patterns): per destination rank r, the source ranks whose
 *   path to r crosses a channel form runs of consecutive ranks (the hosts of a
 *   switch in index order), and stage s takes source r - s, so a run adds 1 to
 *   a contiguous range of stages. Per channel that is a difference array over
 *   the stages: O(destinations x runs x hops + channels x stages) instead of
 *   O(stages x flows x hops).
 */
#ifndef VT_CONGEST_H
#define VT_CONGEST_H

#include <stdint.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "model/vt_lft.h"
#include "model/vt_order.h"
#include "model/vt_pattern.h"
#include "analysis/vt_routes.h"

enum vt_congest_method {
	VT_CONGEST_AUTO = 0, /* interval for long shifts when runs are long enough, else walk */
	VT_CONGEST_WALK,
	VT_CONGEST_INTERVAL, /* shift only */
	VT_CONGEST_NAIVE,    /* reference: one thread, per flow and hop through the fabric model */
};

/* Called from the calling thread with work done so far out of total. */
typedef void (*vt_progress_fn)(void *ctx, uint64_t done, uint64_t total);

struct vt_cuts;

struct vt_congest_opts {
	unsigned threads; /* 0: 2 */
	enum vt_congest_method method;
	uint32_t stage_limit; /* >0: only the first stage_limit stages (naive sampling) */
	vt_progress_fn progress;
	void *progress_ctx;
	const struct vt_cuts *cuts; /* non-NULL: the cut lower bound per stage (vt_bound.h) */
	/*
	 * Shift by the interval method on one thread: called for every run of
	 * constant load (>= 1) of a counted channel, shifts p0 .. p1-1 within the
	 * pattern's, each channel's in shift order (vt_shift_count.h keeps them).
	 */
	void (*on_run)(void *ctx, uint32_t chan, uint32_t load, uint32_t p0, uint32_t p1);
	void *on_run_ctx;
};

typedef struct vt_congest {
	char pattern[128];
	enum vt_congest_method method; /* the one used */
	uint32_t nstages;
	uint64_t nflows;     /* flows counted (place-keepers dropped) */
	uint64_t unrouted;   /* flows that met no LFT entry, a dead port or a loop */
	uint64_t hops;	     /* channel crossings, host channels included */
	uint32_t *stage_max; /* per stage: max link load */
	uint32_t worst;
	double avg;
	uint64_t *hist; /* hist[k]: (counted channel, stage) pairs with load k, k = 0 .. worst */
	uint32_t *chan_max; /* per channel: max load over stages */
	uint64_t *chan_sum; /* per channel: load summed over stages */
	int has_ebb;
	double ebb; /* bisection patterns: mean over flows of 1 / max load on its path */
	/* cut lower bound (opts cuts) */
	uint32_t *stage_bound;
	uint32_t bound_worst;
	double bound_avg;
	/* shifts: the up*-down* bound (vt_bound_shift_climb), NULL where no subtree tapers */
	uint32_t *stage_climb;
	uint32_t climb_worst;
	double climb_avg;
} vt_congest;

int vt_congest_run(const vt_routes *r, const vt_pattern *p, const struct vt_congest_opts *o,
		   vt_congest *res, vt_err *e);
void vt_congest_free(vt_congest *res);

/*
 * The n most loaded counted channels (by max load, then summed load, then
 * index) into out; returns how many were written.
 */
uint32_t vt_congest_top(const vt_routes *r, const vt_congest *res, uint32_t n, uint32_t *out);
/* Channel c and its far end as vt_port_name() names ports: "A -> B". */
void vt_chan_name(const vt_fabric *f, uint32_t c, char *buf, unsigned len);

#endif
