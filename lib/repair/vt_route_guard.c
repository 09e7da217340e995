/* SPDX-License-Identifier: MIT */
/* The repair's quality guard (vt_route_guard.h). */
#include "repair/vt_route_guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/vt_audit.h"
#include "analysis/vt_shift_count.h"
#include "analysis/vt_routes.h"
#include "route/vt_route.h"

/*
 * A split core: the fresh tables close a credit loop on one VL and need
 * vartree's second VL (vt_route_vl), so t is split as the plugin splits
 * repaired tables and each VL audited apart: 1 (why) when one has a credit
 * loop, 0, -1.
 */
static int two_vls_worse(const vt_fabric *f, const vt_lfts *t, char *why, size_t len, vt_err *e)
{
	struct vt_audit_opts ao = {.threads = 1, .every_source = 1, .skip_minimal = 1};
	vt_vl_split vl = {0};
	vt_audit a;
	int rc;

	if (vt_route_vl_split(f, NULL, t, &vl, e)) {
		snprintf(why, len, "repaired tables cannot be split over two VLs: %s", e->msg);
		return 1; /* the tree refused (or out of memory): the fresh tables stay */
	}
	ao.vl = &vl;
	rc = vt_audit_run_opts(f, t, &ao, &a, e);
	vt_vl_split_free(&vl);
	if (rc)
		return -1;
	if (!a.item[VT_AUDIT_CREDIT_LOOP].count)
		return 0;
	snprintf(why, len, "repaired tables fail the every-source audit on two VLs: %s: %s",
		 vt_audit_name(VT_AUDIT_CREDIT_LOOP), a.item[VT_AUDIT_CREDIT_LOOP].detail);
	return 1;
}

int vt_repair_audit_worse(const vt_fabric *f, const vt_lfts *t, const vt_lfts *fresh, char *why,
			  size_t len, vt_err *e)
{
	struct vt_audit_opts ao = {.threads = 1, .every_source = 1, .skip_minimal = 1};
	vt_audit a, b;
	int have_b = 0;

	if (vt_audit_run_opts(f, t, &ao, &a, e))
		return -1;
	for (int k = 0; k < VT_AUDIT_NKINDS; k++) {
		if (k == VT_AUDIT_NONMINIMAL || !a.item[k].count)
			continue;
		if (!have_b && vt_audit_run_opts(f, fresh, &ao, &b, e))
			return -1;
		have_b = 1;
		if (b.item[k].count && k == VT_AUDIT_CREDIT_LOOP) {
			int bad = two_vls_worse(f, t, why, len, e);

			if (bad)
				return bad;
		}
		if (b.item[k].count)
			continue;
		snprintf(why, len, "repaired tables fail the every-source audit: %s: %s",
			 vt_audit_name((enum vt_audit_kind)k), a.item[k].detail);
		return 1;
	}
	return 0;
}

/*
 * Average shift loads this close count as equal: kept entries move a few
 * flows between equally loaded links (fat 8,3, the last leaf's up-link down:
 * repaired 1.9843 against fresh 1.9824, both 1.98 as vartree-analyze prints).
 */
#define SHIFT_AVG_NOISE 0.0025

/*
 * Shift congestion of tables t over the ranks of g->order (plane 0's hosts):
 * the routes model and the count (vt_shift_count.h) built once, for the first
 * tables measured, then brought up to date for the columns where t differs
 * from the tables measured last (g->last; successive candidates differ in a
 * few hundred of pruned 36,36's 13285 columns), so a candidate costs the
 * paths its changed columns take and the channels they cross, not a count
 * of the whole fabric.
 */
static int shift_load(struct repair_guard *g, const vt_lfts *t, uint32_t *worst, double *avg,
		      vt_err *e)
{
	size_t n = (size_t)t->nsw * t->nlid;

	if (!g->have_rt) {
		if (vt_routes_build(&g->rt, g->f, t, g->order, e))
			return -1;
		g->have_rt = 1;
		if (!(g->count = vt_shift_count_new(&g->rt, e)))
			return -1;
		/* optional: without it every column counts as changed */
		g->last = malloc(n ? n : 1);
		g->changed = malloc((size_t)t->nlid + 1);
	} else {
		vt_lfts last = *t;
		const uint8_t *changed = NULL;

		if (g->last && g->changed) {
			last.port = g->last;
			vt_lfts_differ(&last, t, g->changed);
			changed = g->changed;
		}
		if (vt_shift_count_update(g->count, &g->rt, t, changed, e))
			return -1;
	}
	if (g->last)
		memcpy(g->last, t->port, n);
	vt_shift_count_figures(g->count, worst, avg);
	return 0;
}

void vt_repair_guard_free(struct repair_guard *g)
{
	if (g->have_rt)
		vt_routes_free(&g->rt);
	free(g->last);
	free(g->changed);
	vt_shift_count_free(g->count);
	g->count = NULL;
	g->have_rt = 0;
	g->last = g->changed = NULL;
}

int vt_repair_guard_worse(struct repair_guard *g, const vt_lfts *t, char *why, size_t len,
			  vt_err *e)
{
	uint32_t wt;
	double at;

	if (!g->order || g->order->n < 2)
		return 0;
	if (!g->have_fresh) {
		if (shift_load(g, g->fresh, &g->fresh_worst, &g->fresh_avg, e))
			return -1;
		g->have_fresh = 1;
	}
	if (shift_load(g, t, &wt, &at, e))
		return -1;
	if (wt <= g->fresh_worst && at <= g->fresh_avg * (1 + SHIFT_AVG_NOISE))
		return 0;
	snprintf(why, len,
		 "the repaired tables congest shift more than the fresh ones: worst/avg %u/%.4f "
		 "against %u/%.4f",
		 wt, at, g->fresh_worst, g->fresh_avg);
	return 1;
}
