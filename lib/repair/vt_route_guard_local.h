/* SPDX-License-Identifier: MIT */
/*
 * Exact shift loads of a few links (mechanism for the repair's local guard,
 * vt_route_guard.c). The shift pattern over the ranks of an order: in stage
 * s (1 .. n-1) rank a sends to rank a + s mod n, so the flow from a to d
 * belongs to stage d - a, and the sources lo .. hi whose paths to d cross a
 * link add 1 to its load in stages d - hi .. d - lo. A repair candidate
 * differs from the previous tables in a few entries: the flows whose path
 * differs cross only the links downstream of a differing entry (in either
 * tables), and every other link carries under the candidate exactly what it
 * carried under the previous tables. So the guard counts those links alone:
 * per destination rank, each run of consecutive ranks on one switch walks its
 * path, but only until it meets a switch whose way on is known to cross none
 * of the links counted (the paths to one destination form a tree), so the
 * cost is about ranks x runs plus the flows the counted links carry, never a
 * routes model (vt_routes: ranks x switches) nor a whole-fabric count.
 *
 * Not the guard's (vt_route_guard.h says why): its walks cost about ranks x
 * runs per call whatever the links, and a count of a candidate's changed
 * links on pruned 36,12 (196-6077 of them after one fault) took 22-350 ms,
 * a whole count 27-35; a candidate's loads elsewhere are the previous
 * tables', which the tables alone do not tell.
 */
#ifndef VT_ROUTE_GUARD_LOCAL_H
#define VT_ROUTE_GUARD_LOCAL_H

#include <stdint.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "model/vt_lft.h"
#include "model/vt_order.h"

/* A channel is named by the ports[] index of the switch port it leaves from. */
typedef struct vt_link_loads {
	const vt_fabric *f;
	uint32_t n, nsw, nlid;
	uint32_t *rank_lid; /* per rank: its LID, VT_NONE for a place-keeper or none */
	uint8_t *lid_rank;  /* per LID < nlid: some rank's (the shift pattern reads its column) */
	uint32_t nruns;	    /* runs of consecutive ranks on one switch */
	uint32_t *run_lo, *run_hi, *run_sw;
	/* scratch */
	uint32_t *of_chan; /* per channel: its slot among those counted, or VT_NONE */
	uint32_t *mark;	   /* per switch: a stamp, its way on crosses no counted link */
	uint32_t stamp;	   /* the current walk's */
	uint32_t *path;	   /* per switch: a walk's switches */
	uint32_t *open_d, *open_lo,
		*open_hi; /* per slot: the open run of sources (d + 1, 0: none) */
	uint32_t nslot;
	uint8_t *seen_a, *seen_b; /* vt_link_loads_changed: bits per switch and LID */
} vt_link_loads;

/* The ranks of o over fabric f, tables of nlid LIDs. -1 with e when out of memory. */
int vt_link_loads_init(vt_link_loads *ll, const vt_fabric *f, const vt_order *o, uint32_t nlid,
		       vt_err *e);
void vt_link_loads_free(vt_link_loads *ll);

/*
 * The channels whose shift load may differ between tables a and b (same
 * fabric): those crossed, under either tables, downstream of a switch whose
 * entries for a rank's LID differ; a walk stops at a link that is down.
 * *chan (allocated, the caller frees it) holds *nc of them in channel order.
 * -1 with e when out of memory.
 */
int vt_link_loads_changed(vt_link_loads *ll, const vt_lfts *a, const vt_lfts *b, uint32_t **chan,
			  uint32_t *nc, vt_err *e);

/*
 * Loads under tables x of the channels chan[0 .. nc): load[i * n + s] the
 * flows channel chan[i] carries in stage s (stage 0 left 0). A flow is
 * counted on every link it crosses up to where its path ends (at its
 * destination, at a link that is down, or after as many hops as switches):
 * the previous tables' flows on the links still up are what those links
 * carried before the fault. -1 with e when out of memory.
 */
int vt_link_loads_count(vt_link_loads *ll, const vt_lfts *x, const uint32_t *chan, uint32_t nc,
			uint32_t *load, vt_err *e);

#endif
