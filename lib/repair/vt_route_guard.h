/* SPDX-License-Identifier: MIT */
/*
 * The repair's quality guard (policy; vt_route_repair.c is the mechanism): a
 * repaired candidate stands only where it passes every audit the fresh tables
 * pass and congests shift, the pattern the spreading makes congestion-free on
 * full trees, no more than they do.
 *
 * The fresh tables' figures cost a whole count (a routes model of ranks x
 * switches and the interval count: pruned 36,12 27-35 ms against a fresh
 * route's 19-26; pruned 36,36 270-550 ms against 136-250), so a candidate
 * is held against the cut bound first (vt_repair_guard_bound: per stage the
 * flows some link carries whatever the routing, from where the ranks are,
 * 0.3 and 1.2 ms): no higher than the fresh figures, so a candidate at it
 * passes as it would against them (vt_route_guard.c). They are counted,
 * once, where a candidate misses it; each candidate's own count is brought
 * up to date from the tables measured before it. Measured on the six faults
 * of tests/bench/fault.sh (pruned 36,12) and left:
 * - refusing needs the fresh figures, and four of the six refuse candidates
 *   before one stands (top: worst 4 against 2; L1-uplink: average 1.9123
 *   against 1.8382, bound 1.8338); a wider margin over the bound, or
 *   refusing far over it uncounted, changes tables (vt_route_guard.c);
 * - the exact loads of only the links a candidate changes (commit 390317f,
 *   removed unused since) cost 22-350 ms: every destination's paths cross
 *   them;
 * - a candidate counted from the previous tables' count costs 3-30 ms
 *   (144-1062 changed columns), but that count is a whole one, made on a
 *   second thread as well as the fresh one (vt_route_guard_ahead.c): 28-60
 *   ms more CPU, for an update that cost a whole count where the top switch
 *   went down. A second thread counts the fresh tables alone, and the first
 *   candidate's count is an update from theirs (vt_repair_guard_ahead).
 * The plugin now keeps the installed tables' count from one sweep to the
 * next (vt_route_guard_kept.h: counted after the sweep, moved onto the
 * degraded fabric by switch GUID and port, the ranks checked the same), so
 * where it is given no thread counts ahead: a candidate's count is an
 * update of it, the fresh tables are counted only where a candidate misses
 * the bound, and each later candidate is counted from whichever of the two
 * counts lies fewer ranks' columns from it. vartree-route --previous -v,
 * CPU min of 5, main -> kept (the count itself 18-27 ms, outside): pruned
 * 36,12 leaf-uplink 48 -> 34 ms, L1-uplink 101 -> 90, L1 198 -> 176,
 * L1-turn 257 -> 226, top 102 -> 99 (fresh 34-75 ms). Where a candidate
 * lies more than n / VT_SHIFT_COUNT_WHOLE ranks' columns from the kept
 * count (top: 684 of 3888) a whole count is cheaper than the update, and
 * it is made instead; L1, L1-turn and top need the fresh figures (their
 * first candidates miss the bound), a whole count each.
 */
#ifndef VT_ROUTE_GUARD_H
#define VT_ROUTE_GUARD_H

#include <stddef.h>
#include <stdint.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "model/vt_lft.h"
#include "model/vt_order.h"
#include "analysis/vt_routes.h"

struct repair_guard {
	const vt_fabric *f;
	const vt_lfts *fresh;
	const vt_order *order; /* the fresh routing's ranks; NULL or < 2: no shift guard */
	const uint8_t *level;  /* per switch, the tree's levels (the cut bound's subtrees) */
	int have_fresh;	       /* the fresh tables' shift figures below are known */
	uint32_t fresh_worst;
	double fresh_avg;
	/* the cut bound's worst and average stage (vt_repair_guard_bound): known (1), none (-1) */
	int have_bound;
	uint32_t bound_worst, *bound; /* bound: per stage (n entries), where have_bound > 0 */
	double bound_avg;
	vt_routes rt; /* the last tables measured, where have_rt (vt_repair_guard_free) */
	int have_rt;
	uint8_t *last;		      /* a copy of those tables (NULL: not kept) */
	uint8_t *changed;	      /* per LID: scratch for vt_lfts_differ */
	struct vt_shift_count *count; /* the shift count of the tables measured last */
	/*
	 * quick (the caller's): a refusal need not say t's figures, so a shift
	 * stage already worse than the fresh tables' worst refuses t before the
	 * count (stage_load); load, path: its scratch per channel and switch;
	 * hot: the stage that refused last, tried first; chan: per switch and
	 * port (stride per switch), the channel it sends on; scratch: those
	 * allocated (1), out of memory (-1), not yet (0); quick_refused: the last
	 * refusal was so (the caller clears it)
	 */
	int quick, scratch, quick_refused;
	uint32_t *load, *path, hot, *chan, stride;
	vt_routes ranks; /* the ranks alone (vt_routes_ranks), where have_ranks */
	int have_ranks;
	uint32_t *chan_sw; /* per channel: the switch it leads to, VT_NONE for a CA */
	double fresh_s;	   /* CPU seconds the fresh tables' count took (0: not counted) */
	int fresh_ahead;   /* that count ran on the counting thread (vt_route_guard_ahead.c) */
	uint8_t *rank_lid; /* per LID: some rank's (same_rank_columns), NULL: not yet */
	struct vt_guard_ahead *ahead; /* the counts made ahead, NULL: none (guard_ahead.c) */
	/* the previous tables' count kept between sweeps (the caller's; its count taken) */
	struct vt_guard_kept *kept;
	/*
	 * a second count beside rt and count, where have_alt: the fresh tables'
	 * once counted (vt_route_guard.c, count_apart), last the tables it
	 * counted; a candidate is counted from whichever of the two lies nearer
	 */
	struct guard_count {
		vt_routes rt;
		struct vt_shift_count *count;
		uint8_t *last;
	} alt;
	int have_alt;
};

/*
 * The first audit kind (every source) t fails and fresh passes: 1, with why;
 * 0; -1. Where fresh closes a credit loop on one VL (a split core, which
 * vartree routes over two), t split as vt_route_vl_split splits it must have
 * none on either VL.
 */
int vt_repair_audit_worse(const vt_fabric *f, const vt_lfts *t, const vt_lfts *fresh, char *why,
			  size_t len, vt_err *e);
/*
 * The fresh tables' shift figures counted (g->have_fresh), unless known or
 * without ranks: the first guard's fixed cost (a whole count). 0, -1 with e.
 */
int vt_repair_guard_fresh(struct repair_guard *g, vt_err *e);
/*
 * Does t congest shift more than the fresh tables (worst stage, or average
 * beyond noise)? With g->quick, why may name one stage instead of t's figures.
 */
int vt_repair_guard_worse(struct repair_guard *g, const vt_lfts *t, char *why, size_t len,
			  vt_err *e);
/*
 * The guard's quick look alone (g->quick's, whatever its value): does a
 * stage of t carry more flows on a link than the fresh tables' worst? 1
 * (why), 0 undecided (t is not counted), -1 with e. A cheap refusal where
 * one is likely, before a dearer candidate (vt_route_repair_candidates.c).
 */
int vt_repair_guard_quick(struct repair_guard *g, const vt_lfts *t, char *why, size_t len,
			  vt_err *e);
/*
 * The cut bound of every shift stage over the ranks of o (bound[s], s in
 * 1 .. o->n - 1; bound[0] = 0): no routing that delivers every flow of
 * stage s loads its busiest link with fewer. The cuts are the parts the
 * switches at each level and below form (level: per switch, the tree's,
 * VT_TREE_OUTSIDE outside it), each with its cables out of it; no routes
 * model, no max-flow: a few passes over the cables and the ranks. bound
 * holds o->n entries. 0, -1 with e when out of memory.
 */
int vt_repair_guard_bound(const vt_fabric *f, const vt_order *o, const uint8_t *level,
			  uint32_t *bound, vt_err *e);
/* Frees what the guard keeps between candidates, the thread counting ahead joined. */
void vt_repair_guard_free(struct repair_guard *g);
/*
 * The count made ahead (vt_route_guard_ahead.c): a second thread counts
 * g->fresh (of g->f, for g->order) while the caller builds its first
 * candidates, so the fresh figures are ready when needed and the guard's
 * first count is an update from the fresh tables'. Without a thread (no
 * ranks, no memory) nothing starts and the guard counts as before; the
 * figures are the same either way. g->fresh must stay unchanged until
 * vt_repair_guard_free.
 */
void vt_repair_guard_ahead(struct repair_guard *g);
/* The fresh figures into g (fresh_worst, fresh_avg, fresh_s), once counted: 1, 0 none. */
int vt_repair_guard_ahead_fresh(struct repair_guard *g);
/*
 * The fresh tables' routes model and count, handed over once (*from: their
 * tables; g->fresh_s its CPU, g->fresh_ahead set): 1, 0 none.
 */
int vt_repair_guard_ahead_take(struct repair_guard *g, vt_routes *rt, struct vt_shift_count **count,
			       const vt_lfts **from);
/* The thread joined and what it kept freed (vt_repair_guard_free calls it). */
void vt_repair_guard_ahead_end(struct repair_guard *g);

#endif
