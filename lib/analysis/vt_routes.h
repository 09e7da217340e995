/* SPDX-License-Identifier: MIT */
/*
 * The routes model: a routing (forwarding tables plus the compute-node
 * order) seen from the ranks. Per destination rank and switch, the channel
 * the flow leaves on (next[]), kept only where the whole path from that
 * switch delivers to the rank's port, so every user of it (the congestion
 * counts of vt_congest.h, the bounds of vt_bound.h, the paths of vt_path.h)
 * sees a flow either follow a good path or stay unrouted. A channel is named
 * by the ports[] index of the port it leaves from.
 */
#ifndef VT_ROUTES_H
#define VT_ROUTES_H

#include <stdint.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "model/vt_lft.h"
#include "model/vt_order.h"

/* The routing seen from the ranks: built once, shared read-only by every thread. */
typedef struct vt_routes {
	const vt_fabric *f;
	const vt_lfts *t;
	const vt_order *o;
	uint32_t n;	    /* ranks */
	uint32_t nsw;	    /* switches */
	uint32_t nchan;	    /* f->nports: a channel per port */
	uint32_t *rank_lid; /* per rank: destination LID, VT_NONE for a place-keeper */
	uint32_t *rank_sw;  /* per rank: switch ordinal its CA port attaches to, or VT_NONE */
	uint32_t *rank_up;  /* per rank: channel CA -> switch, or VT_NONE */
	uint32_t *chan_sw;  /* per channel: switch ordinal it leads to, VT_NONE for a CA */
	uint8_t *counted;   /* per channel: 1 when a load is kept for it */
	uint32_t *next;	    /* next[r * nsw + sw]: channel out of sw toward rank r, or VT_NONE */
	uint32_t *sw_chan;  /* sw_chan[sw * stride + port]: its channel, VT_NONE if unlinked */
	uint32_t stride;    /* ports per switch in sw_chan */
	/* runs of consecutive active ranks on one switch, by first rank */
	uint32_t nruns;
	uint32_t *run_first, *run_len, *run_sw;
} vt_routes;

int vt_routes_build(vt_routes *r, const vt_fabric *f, const vt_lfts *t, const vt_order *o,
		    vt_err *e);
/*
 * r as vt_routes_build makes it but next NULL: for the counts that walk the
 * tables from the leaves themselves (the interval method of vt_congest.h,
 * vt_shift_count.h), at the cost of the ranks and channels, not of ranks x
 * switches (75 MB at 11664 hosts). Freed with vt_routes_free.
 */
int vt_routes_build_walked(vt_routes *r, const vt_fabric *f, const vt_lfts *t, const vt_order *o,
			   vt_err *e);
/*
 * r with the ranks alone (n, nsw, rank_lid, rank_sw, rank_up, the runs; t,
 * chan_sw, counted and next NULL): for what reads only where the ranks are,
 * as the cut bounds (vt_bound.h) do, at the cost of the order, not of a
 * model of the tables (ranks x switches). Freed with vt_routes_free.
 */
int vt_routes_ranks(vt_routes *r, const vt_fabric *f, const vt_order *o, vt_err *e);
/*
 * r (built) for other tables t of the same fabric and ranks, reusing its
 * memory (a repair measures many candidates). changed: per LID, does t's
 * column differ from the tables r was built for (only those ranks' rows are
 * filled again), or NULL (every row); without next, r only takes t. -1
 * with e when out of memory.
 */
int vt_routes_retable(vt_routes *r, const vt_lfts *t, const uint8_t *changed, vt_err *e);
void vt_routes_free(vt_routes *r);

#endif
