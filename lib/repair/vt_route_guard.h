/* SPDX-License-Identifier: MIT */
/*
 * The repair's quality guard (policy; vt_route_repair.c is the mechanism): a
 * repaired candidate stands only where it passes every audit the fresh tables
 * pass and congests shift, the pattern the spreading makes congestion-free on
 * full trees, no more than they do.
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
	int have_fresh;	       /* the fresh tables' shift figures below are known */
	uint32_t fresh_worst;
	double fresh_avg;
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
	uint8_t *rank_lid; /* per LID: some rank's (same_rank_columns), NULL: not yet */
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
/* Frees what the guard keeps between candidates. */
void vt_repair_guard_free(struct repair_guard *g);

#endif
