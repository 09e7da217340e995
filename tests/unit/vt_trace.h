/* SPDX-License-Identifier: MIT */
/*
 * Reference path tracer for tests: walks every shift flow hop by hop through
 * the LFTs, counts per-direction link loads, and checks the channel
 * dependency graph for cycles. Slow and independent of vt_tree/vt_route on
 * purpose: it is the yardstick the routing and the analyzer are checked by.
 */
#ifndef VT_TRACE_H
#define VT_TRACE_H

#include <stdint.h>

#include "model/vt_fabric.h"
#include "model/vt_lft.h"
#include "model/vt_order.h"

struct vt_trace_shift {
	uint32_t stages;      /* shift stages traced: 1 .. order->n - 1 */
	uint32_t worst;	      /* max over stages of the stage's max link load */
	double avg;	      /* mean over stages of the stage's max link load */
	uint32_t bound_worst; /* same two figures for the cut lower bound */
	double bound_avg;
	uint32_t over_bound; /* stages whose max load exceeds their cut bound */
	uint32_t bad_paths;  /* flows that loop, dead-end or miss their destination */
	uint32_t *max_load;  /* per ports[] index (sending end): max load over stages */
};

/*
 * Traces every stage s = 1 .. n-1 of the shift i -> (i + s) mod n over the
 * ranks of o (place-keepers stay idle). The cut bound of a stage is the max,
 * over every subtree (a connected component of the switches up to some
 * distance from the hosts, found here from scratch), of ceil(flows leaving
 * or entering its hosts / links out of it). Caller frees r->max_load.
 */
int vt_trace_shift(const vt_fabric *f, const vt_lfts *t, const vt_order *o,
		   struct vt_trace_shift *r);
void vt_trace_shift_free(struct vt_trace_shift *r);

/* 1 when the channel dependency graph of the routes to every LID is acyclic. */
int vt_trace_cdg_acyclic(const vt_fabric *f, const vt_lfts *t);

/* Hops from CA port a to LID dlid, or -1 if the walk fails. */
int vt_trace_path(const vt_fabric *f, const vt_lfts *t, uint32_t a, uint32_t dlid);

#endif
