/* SPDX-License-Identifier: MIT */
/* The repair's quality guard (vt_route_guard.h). */
#include "repair/vt_route_guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/vt_audit.h"
#include "analysis/vt_shift_count.h"
#include "analysis/vt_routes.h"
#include "base/vt_mem.h"
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
		g->last = vt_alloc_big(n);
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

/*
 * The most flows one channel carries in shift stage k (source rank a to rank
 * a + k) under tables t, counted as vt_shift_count counts them: a flow whose
 * path does not deliver (vt_routes' pruning) loads nothing. Each flow walked
 * once: a few hundred thousand instructions against a count of every stage.
 * g->path holds a path, then the channels loaded (touched).
 */
static uint32_t stage_load(struct repair_guard *g, const vt_lfts *t, uint32_t k)
{
	const vt_routes *r = &g->rt;
	uint32_t n = r->n, nlid = t->nlid, worst = 0, nt = 0, *touched = g->path + r->nsw + 1;

	for (uint32_t a = 0; a < n; a++) {
		uint32_t d = a + k < n ? a + k : a + k - n, lid = r->rank_lid[d], x = r->rank_sw[a];
		uint32_t np = 0, c = VT_NONE;

		if (x == VT_NONE || r->rank_sw[d] == VT_NONE || lid >= nlid)
			continue;
		while (np <= r->nsw) { /* longer: a forwarding loop */
			uint8_t p = t->port[(size_t)x * nlid + lid];

			if (p == VT_LFT_NONE || p >= g->stride ||
			    (c = g->chan[(size_t)x * g->stride + p]) == VT_NONE)
				break;
			g->path[np++] = c;
			if ((x = r->chan_sw[c]) == VT_NONE)
				break;
		}
		if (x != VT_NONE || g->f->ports[c].peer != g->order->port[d])
			continue; /* not delivered */
		g->path[np++] = r->rank_up[a];
		for (uint32_t i = 0; i < np; i++) {
			uint32_t v = ++g->load[g->path[i]];

			if (v == 1)
				touched[nt++] = g->path[i];
			worst = v > worst ? v : worst;
		}
	}
	while (nt) /* cleared for the next stage */
		g->load[touched[--nt]] = 0;
	return worst;
}

#define QUICK_STAGES 8 /* stages tried before a count: spread over the pattern */

/*
 * A stage of t worse than the fresh tables' worst (0: none of those tried):
 * the one that refused last, then QUICK_STAGES spread evenly. Refused
 * candidates mostly crowd a link in most stages (pruned 36,12, a level-1
 * switch down: worst 19 against 3), and a count costs as much as routing.
 */
static uint32_t quick_stage(struct repair_guard *g, const vt_lfts *t, uint32_t *worst)
{
	uint32_t n = g->rt.n;

	if (!g->scratch) {
		g->load = calloc((size_t)g->f->nports + 1, sizeof(*g->load));
		/* a path (nsw + 1 channels), then the channels loaded */
		g->path = malloc(((size_t)g->rt.nsw + 2 + g->f->nports) * sizeof(*g->path));
		g->scratch =
			g->load && g->path && (g->chan = vt_fabric_chan_table(g->f, &g->stride))
				? 1
				: -1;
	}
	if (g->scratch < 0)
		return 0; /* out of memory: the count decides */
	for (uint32_t i = 0; i <= QUICK_STAGES; i++) {
		uint32_t k = i == 0 ? g->hot
				    : 1 + (uint32_t)((uint64_t)(i - 1) * (n - 1) / QUICK_STAGES);

		if (k == 0 || k >= n || (i && k == g->hot))
			continue;
		if ((*worst = stage_load(g, t, k)) > g->fresh_worst)
			return g->hot = k;
	}
	return 0;
}

void vt_repair_guard_free(struct repair_guard *g)
{
	if (g->have_rt)
		vt_routes_free(&g->rt);
	free(g->last);
	free(g->changed);
	free(g->load);
	free(g->path);
	free(g->chan);
	free(g->rank_lid);
	g->rank_lid = NULL;
	g->load = g->path = g->chan = NULL;
	g->scratch = 0;
	vt_shift_count_free(g->count);
	g->count = NULL;
	g->have_rt = 0;
	g->last = g->changed = NULL;
}

int vt_repair_guard_fresh(struct repair_guard *g, vt_err *e)
{
	if (g->have_fresh || !g->order || g->order->n < 2)
		return 0;
	if (shift_load(g, g->fresh, &g->fresh_worst, &g->fresh_avg, e))
		return -1;
	g->have_fresh = 1;
	return 0;
}

/*
 * Do t and the fresh tables route every rank's LID alike (no switch's entry
 * for it differs)? Then the routes model, hence every shift figure, is the
 * fresh tables' own. Rows compared 64 LIDs at a time, done at the first rank
 * LID that differs (a candidate's first rows mostly). Pruned 36,12 with a
 * leaf down: the previous tables whole differ from fresh in 96373 entries,
 * in no rank's column, and the guard counted both whole.
 */
static int same_rank_columns(struct repair_guard *g, const vt_lfts *t)
{
	uint32_t nlid = t->nlid;

	if (!g->rank_lid) { /* per LID: some rank's (built once) */
		if (!(g->rank_lid = calloc((size_t)nlid + 1, 1)))
			return 0;
		for (uint32_t a = 0; a < g->order->n; a++) {
			uint32_t p = g->order->port[a], lid;

			if (p != VT_NONE && p < g->f->nports && (lid = g->f->ports[p].lid) < nlid)
				g->rank_lid[lid] = 1;
		}
	}
	for (uint32_t s = 0; s < t->nsw; s++) {
		const uint8_t *a = vt_lft_row(t, s), *b = vt_lft_row(g->fresh, s);

		for (uint32_t l0 = 0; l0 < nlid; l0 += 64) {
			uint32_t k = nlid - l0 < 64 ? nlid - l0 : 64;

			if (!memcmp(a + l0, b + l0, k))
				continue;
			for (uint32_t lid = l0; lid < l0 + k; lid++)
				if (a[lid] != b[lid] && g->rank_lid[lid])
					return 0;
		}
	}
	return 1;
}

int vt_repair_guard_worse(struct repair_guard *g, const vt_lfts *t, char *why, size_t len,
			  vt_err *e)
{
	uint32_t wt, k;
	double at;

	if (g->order && g->order->n >= 2 && t->nsw == g->fresh->nsw && t->nlid == g->fresh->nlid &&
	    same_rank_columns(g, t))
		return 0; /* shift figures the fresh tables' exactly */

	if (vt_repair_guard_fresh(g, e))
		return -1;
	if (!g->have_fresh)
		return 0; /* no ranks: no shift guard */
	if (g->quick && (k = quick_stage(g, t, &wt))) {
		snprintf(why, len,
			 "the repaired tables congest shift more than the fresh ones: worst %u in "
			 "shift %u against %u",
			 wt, k, g->fresh_worst);
		g->quick_refused = 1;
		return 1;
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
