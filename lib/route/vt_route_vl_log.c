/* SPDX-License-Identifier: MIT */
/*
 * The log lines of a routing with a second VL (vt_route_vl): which routes
 * use which VL, which are not covered and why, and how many VLs the routes
 * use of those the fabric has (vt_fabric_vls).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analysis/vt_audit.h"
#include "route/vt_route.h"
#include "route/vt_route_int.h"

/* A line of this function's own, with its name (__func__), for o->log. */
#define ROUTE_LOG(o, level, msg) (o)->log((o)->log_ctx, (level), __func__, (msg))

/* How many VLs the routes use, of how many the fabric has (or is assumed to). */
static void log_vls(const vt_fabric *f, const struct vt_route_opts *o, const vt_vl_split *vl)
{
	char line[400];
	size_t n;

	if (!o || !o->log || o->log_level < VT_LOG_INFO)
		return;
	if (vl->nvls > vt_fabric_vls(f)) /* one data VL: the split's own count is 2 */
		n = (size_t)snprintf(line, sizeof(line),
				     "VLs: the routes need %u data VLs, and the fabric has %u: the "
				     "%" PRIu64 " routes off VL 0 are not covered",
				     vl->nvls, vt_fabric_vls(f), vl->nvl1);
	else
		n = (size_t)snprintf(line, sizeof(line),
				     "VLs: the routes use %u of the %u data VLs %s", vl->nvls,
				     vl->cap,
				     f->vls ? "the fabric has"
					    : "assumed (a topology file does not say how many its "
					      "links run; --vls N sets it)");
	for (unsigned v = 1; v < vl->nvls && n < sizeof(line); v++)
		n += (size_t)snprintf(line + n, sizeof(line) - n,
				      "%s VL %u: %" PRIu64 " routes from %u switches",
				      v == 1 ? ":" : ";", v, vl->nvl[v], vl->nsrcs[v]);
	ROUTE_LOG(o, VT_LOG_INFO, line);
}

void vt_route_log_split(const vt_fabric *f, const struct vt_route_opts *o, const vt_vl_split *vl,
			const char *first, const struct vt_audit_item *loop1)
{
	char line[2 * VT_ERR_MAX + 1600], tail[VT_ERR_MAX + 1000] = "each VL has no credit loop";
	char nm[VT_NODE_NAME_MAX], vls[16] = " 1", more[40] = "";

	if (vl->nvls > 2) { /* VL 1's routes closed a loop among themselves: VL 2 and on */
		snprintf(vls, sizeof(vls), "s 1-%u", vl->nvls - 1);
		snprintf(more, sizeof(more), ", else VL 2 and on");
	}

	if (!o || !o->log || o->log_level < VT_LOG_INFO)
		return;
	if (vl->nopen)
		snprintf(tail, sizeof(tail),
			 "VL 0 has no credit loop; %" PRIu64 " routes that start at %u switches "
			 "(the first: %s to LID %u) close one on %s VL with the routes placed "
			 "before them, so VL %u has one (%.600s): those routes are not covered "
			 "(they "
			 "stay on VL %u, apart from every CA-to-CA route); the fabric has %u data "
			 "VLs%s",
			 vl->nopen, vl->nopen_src,
			 vt_node_name(f, f->switches[vl->open_sw], nm, sizeof(nm)), vl->open_lid,
			 vl->nvls > 2 ? "every" : "either", vl->nvls - 1,
			 loop1->count ? strchr(loop1->detail, ':') + 2 : "", vl->nvls - 1, vl->cap,
			 vl->need ? "" : ", and two more would not cover them either");
	else if (loop1->count)
		snprintf(tail, sizeof(tail),
			 "VL 0 has no credit loop, but %.*s has (%.600s): the routes on it "
			 "are not covered (not deadlock-free among themselves)",
			 (int)(strchr(loop1->detail, ':') - loop1->detail), loop1->detail,
			 strchr(loop1->detail, ':') + 2);
	if (vl->nopen && vl->need)
		snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail), " (%u would cover them)",
			 vl->need);
	if (vl->placed == 2)
		snprintf(line, sizeof(line),
			 "routed with a second VL: no routing of every source on one VL passed the "
			 "audit (the first: %s); the CA-to-CA routes turn down-up themselves "
			 "(leaves with no up*-down* path between them), so every route, placed one "
			 "by one, uses VL 0 where it closes no credit loop there, else VL 1%s "
			 "(their "
			 "own SL; CA-to-CA routes among them: OpenSM needs QoS on): %" PRIu64
			 " routes that start at %u switches use VL%s; %s",
			 first, more, vl->nvl1, vl->nsrc, vls, tail);
	else if (vl->placed)
		snprintf(
			line, sizeof(line),
			"routed with a second VL: no routing of every source on one VL passed the "
			"audit (the first: %s); the leaves' routes to CA LIDs (every CA-to-CA "
			"route, up*-down*) use VL 0, and every other route, placed one by one, VL "
			"0 "
			"where it closes no credit loop there, else VL 1%s (their own SL): %" PRIu64
			" routes that start at %u switches use VL%s; %s",
			first, more, vl->nvl1, vl->nsrc, vls, tail);
	else
		snprintf(
			line, sizeof(line),
			"routed with a second VL: no routing of every source on one VL passed the "
			"audit (the first: %s); %" PRIu64 " routes that start at %u switches other "
			"than leaves use VL 1 (their own SL), where they would close a credit loop "
			"with the leaves' routes; every other route, CA-to-CA up*-down* among "
			"them, "
			"uses VL 0; %s",
			first, vl->nvl1, vl->nsrc, tail);
	ROUTE_LOG(o, VT_LOG_INFO, line);
	log_vls(f, o, vl);
}

void vt_route_log_minimal(const vt_fabric *f, const struct vt_route_opts *o, const vt_vl_split *vl)
{
	char line[600];

	if (!o || !o->log || o->log_level < VT_LOG_INFO)
		return;
	if (vl->nvl1 && vl->placed)
		snprintf(line, sizeof(line),
			 "routed with a second VL: switches with no up*-down* route to a "
			 "destination take a shortest way over any link; the leaves' routes to CA "
			 "LIDs (every CA-to-CA route, up*-down*) use VL 0, and every other route, "
			 "placed one by one, VL 0 where it closes no credit loop there, else VL 1 "
			 "(their own SL): %" PRIu64 " routes that start at %u switches use VL 1; "
			 "each VL has no credit loop",
			 vl->nvl1, vl->nsrc);
	else if (vl->nvl1)
		snprintf(line, sizeof(line),
			 "routed with a second VL: switches with no up*-down* route to a "
			 "destination take a shortest way over any link; %" PRIu64 " routes that "
			 "start at %u switches other than leaves use VL 1 (their own SL), where "
			 "they would close a credit loop with the leaves' routes; every other "
			 "route, CA-to-CA up*-down* among them, uses VL 0; each VL has no credit "
			 "loop",
			 vl->nvl1, vl->nsrc);
	else
		snprintf(line, sizeof(line),
			 "routed on one VL: switches with no up*-down* route to a destination "
			 "take a shortest way over any link, and close no credit loop");
	ROUTE_LOG(o, VT_LOG_INFO, line);
	if (vl->nvls > 2)
		log_vls(f, o, vl);
}
