/* SPDX-License-Identifier: MIT */
/*
 * vartree routing's entry point (Zahavi et al., Algorithms 1-4), plane by
 * plane: extract the tree (vt_tree.c, vt_tuple.c), set up the router's
 * per-plane tables, route every LID (vt_route_mainloop.c). The files of the
 * routing and the paper's step each implements: vt_route_int.h.
 */
#include "route/vt_route.h"

#include "analysis/vt_audit.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "route/vt_route_int.h"
#include "tree/vt_tree.h"

struct log_ctx {
	const struct vt_route_opts *o;
	uint32_t plane, nplanes;
};

/* A line of this function's own, with its name (__func__), for o->log. */
#define ROUTE_LOG(o, level, msg) (o)->log((o)->log_ctx, (level), __func__, (msg))

static void log_line(void *ctx, const char *func, const char *s)
{
	const struct log_ctx *c = ctx;
	char buf[400];

	if (c->nplanes < 2) {
		c->o->log(c->o->log_ctx, VT_LOG_INFO, func, s);
		return;
	}
	snprintf(buf, sizeof(buf), "plane %u: %s", c->plane, s);
	c->o->log(c->o->log_ctx, VT_LOG_INFO, func, buf);
}

/*
 * Under ASan, a poisoned gap after each table, so an overrun into the next
 * table of the one block is still caught, as with a malloc() per table.
 */
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#define ARENA_GAP 32u
#else
#define ARENA_GAP			  0u
#define ASAN_POISON_MEMORY_REGION(p, n)	  ((void)(p), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#endif

static void router_free(struct router *r)
{
	ASAN_UNPOISON_MEMORY_REGION(r->mem, r->mem_size);
	free(r->mem);
	r->mem = NULL;
	free(r->use.by_key);
	r->use.by_key = NULL;
}

/* The next n elements of size bytes in a's block (NULL while a only counts). */
static void *carve(struct route_arena *a, size_t size, size_t n)
{
	size_t at = (a->used + 15) & ~(size_t)15; /* any element type's alignment */

	a->used = at + size * n + ARENA_GAP;
	if (!a->base)
		return NULL;
	ASAN_POISON_MEMORY_REGION(a->base + at + size * n, ARENA_GAP);
	return a->base + at;
}

#define CARVE(a, ptr, n) ((ptr) = carve((a), sizeof(*(ptr)), (n)))

/*
 * Where each of the router's tables lies in its working memory. Sized by
 * the fabric, so every plane fits: a plane's up_port[] and dn_port[] entries
 * are ports of its switches, at most nports together.
 */
static void router_layout(struct router *r, const vt_fabric *f, struct route_arena *a)
{
	size_t nsw = (size_t)f->nswitches + 1, np = (size_t)f->nports + 1;

	/* VT_ROUTE_BATCH columns, and a place-keeper's, written and never read */
	CARVE(a, r->batch.cols, (VT_ROUTE_BATCH + 1) * (size_t)f->nswitches + 1);
	CARVE(a, r->use.dn, np);
	CARVE(a, r->use.up, np);
	CARVE(a, r->plan.h, nsw);
	CARVE(a, r->plan.anc, nsw);
	CARVE(a, r->plan.hup, nsw);
	CARVE(a, r->plan.queue, nsw);
	CARVE(a, r->plan.dist, nsw);
	CARVE(a, r->plan.urank, nsw);
	CARVE(a, r->plan.urank_at, nsw);
	CARVE(a, r->plan.aoff, nsw);
	CARVE(a, r->plan.an, nsw);
	CARVE(a, r->fill.fsw, nsw);
	CARVE(a, r->fill.fcand, nsw);
	CARVE(a, r->fill.fbase, nsw);
	CARVE(a, r->fill.rstart, nsw);
	CARVE(a, r->fill.rn, nsw);
	/* each class's hop list once; detours: per switch a class list and a filtered one */
	r->fill.cap = 3 * np + VT_MAX_PORTS + 1;
	CARVE(a, r->fill.cpos, r->fill.cap);
	CARVE(a, r->cls.up_class_of, nsw);
	CARVE(a, r->cls.down_class_of, nsw);
	CARVE(a, r->cls.up_classes, nsw);
	CARVE(a, r->cls.down_classes, nsw);
	CARVE(a, r->cls.parent_set_of, nsw);
	CARVE(a, r->cls.pstart, nsw + 1);
	CARVE(a, r->cls.ppeer, np);
	CARVE(a, r->cls.parent_sets, nsw);
	CARVE(a, r->main.mark, nsw);
	CARVE(a, r->main.found, nsw);
	CARVE(a, r->main.cur, nsw);
	CARVE(a, r->main.next, nsw);
	CARVE(a, r->main.mul, nsw);
	CARVE(a, r->main.via, nsw);
	CARVE(a, r->links.dn_rport, np);
	CARVE(a, r->links.dn_ridx, np);
	CARVE(a, r->links.up_rpos, np);
	CARVE(a, r->links.swfirst, nsw);
	CARVE(a, r->links.upos, np);
	CARVE(a, r->deg.rank, nsw);
	CARVE(a, r->deg.sib, nsw);
	CARVE(a, r->deg.nasc, nsw);
	CARVE(a, r->deg.minpar, nsw);
	CARVE(a, r->deg.own, nsw);
	CARVE(a, r->deg.lane0, nsw);
	CARVE(a, r->deg.far, nsw);
	CARVE(a, r->deg.pcnt, nsw);
	CARVE(a, r->deg.spread_seq, np);
	CARVE(a, r->deg.grp, nsw);
	CARVE(a, r->deg.gwhole, np);
	CARVE(a, r->deg.gsplit, nsw);
	CARVE(a, r->deg.stage_few, nsw);
	CARVE(a, r->deg.charge, np);
	CARVE(a, r->deg.lane_seq, np);
	CARVE(a, r->deg.last_up, nsw);
	CARVE(a, r->deg.last_from, nsw);
	CARVE(a, r->deg.corder, nsw);
	CARVE(a, r->deg.cseq, np);
	CARVE(a, r->deg.clost, nsw);
	CARVE(a, r->deg.inz, nsw);
	CARVE(a, r->deg.hz, nsw);
	CARVE(a, r->deg.zfirst, nsw);
	CARVE(a, r->deg.zpos, np);
	CARVE(a, r->deg.tturn, nsw);
	CARVE(a, r->deg.tup, np);
	CARVE(a, r->deg.tw, nsw);
	CARVE(a, r->batch.at, f->max_lid + 1);
	CARVE(a, r->flow_memo, VT_FLOW_MEMO);
}

/* The router's working memory, every table of every plane: one block, zeroed. */
static int router_alloc(struct router *r, const vt_fabric *f, vt_err *e)
{
	struct route_arena a = {0};

	router_layout(r, f, &a); /* counts */
	r->mem_size = a.used;
	a.base = r->mem = calloc(1, a.used);
	if (!r->mem)
		return vt_err_nomem(e, "out of memory");
	a.used = 0;
	router_layout(r, f, &a);
	vt_route_batch_init(r);
	for (uint32_t s = 0; s < f->nswitches; s++)
		r->links.swfirst[s] = vt_port_index(f, f->switches[s], 0);
	return 0;
}

/*
 * The two ends of every link of plane t: per dn_port[] entry the child's port
 * (number and ports[] index), per up_port[] entry the link's position in the
 * parent's dn_port[] run.
 */
static void link_ends(struct router *r, const vt_tree *t)
{
	const vt_fabric *f = r->f;
	struct route_links *lk = &r->links;
	uint32_t *upos = lk->upos;

	for (uint32_t s = 0; s < t->nsw; s++)
		for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++)
			upos[swport(r, s, t->up_port[j])] = j;
	for (uint32_t s = 0; s < t->nsw; s++)
		for (uint32_t k = t->dn_start[s]; k < t->dn_start[s + 1]; k++) {
			lk->dn_ridx[k] = f->ports[swport(r, s, t->dn_port[k])].peer;
			lk->dn_rport[k] = f->ports[lk->dn_ridx[k]].num;
			lk->up_rpos[upos[lk->dn_ridx[k]]] = (uint8_t)(k - t->dn_start[s]);
		}
}

/*
 * Per-plane tables: the turn order, the links' ends, the sibling lanes, the
 * classes and room for a plan's candidates.
 */
static int plane_setup(struct router *r, const vt_tree *t, vt_err *e)
{
	/* router_layout sized the per-link tables by this */
	assert(t->up_start[t->nsw] + t->dn_start[t->nsw] <= r->f->nports);
	r->t = t;
	/* the keyed counters by the plane's most parents (route_usage.by_key) */
	free(r->use.by_key);
	r->use.nkeys = vt_route_key_count(t);
	r->use.by_key = calloc((size_t)t->up_start[t->nsw] * r->use.nkeys + 1, sizeof(uint32_t));
	if (!r->use.by_key)
		return vt_err_nomem(e, "out of memory");
	r->plan.px = VT_NONE;
	r->main.crank = VT_NONE;
	if (vt_route_turn_ranks(r, t, e))
		return -1;
	vt_route_turn_leaf(r, t);
	if (r->deg.top_tree) { /* the plan's dist is free: the top tree's union-find */
		r->deg.no_tree = vt_route_top_tree(r, t, r->plan.dist) != 0;
		r->deg.no_z |= r->deg.no_tree;
	}
	link_ends(r, t);
	for (unsigned j = 0; j <= VT_MAX_PORTS; j++) /* the list of every position */
		r->fill.cpos[j] = (uint8_t)j;
	vt_route_siblings(r, t);
	vt_route_chassis_order(r, t);
	return vt_route_classes(r, t, e);
}

/* The passes a vt_route call's routings kept for the next (vt_route_mainloop.c). */
struct route_memos {
	struct vt_passes_memo *passes;
};

/* What the every-source audit found in one routing's tables. */
struct audit_finding {
	int kind;		   /* enum vt_audit_kind of the first broken route, -1: none */
	struct vt_audit_item item; /* where it is, and what */
};

/*
 * Where the turn leaf's argument (vt_route_turn.c) does not cover the fabric,
 * the finished tables are audited with every switch and CA as a source: a
 * credit loop (or any broken route) refuses the fabric, so OpenSM falls back
 * to an engine that routes it deadlock-free rather than vartree trading
 * deadlock freedom for balance. -1 with e only when the audit cannot run.
 */
static int audit_every_source(const vt_fabric *f, const vt_lfts *lfts, struct audit_finding *fd,
			      vt_err *e)
{
	struct vt_audit_opts ao = {.threads = 1, .every_source = 1};
	vt_audit a;

	fd->kind = -1;
	if (vt_audit_run_opts(f, lfts, &ao, &a, e))
		return -1;
	for (int k = 0; k < VT_AUDIT_NKINDS && fd->kind < 0; k++)
		if (k != VT_AUDIT_NONMINIMAL && a.item[k].count) {
			fd->kind = k;
			fd->item = a.item[k];
		}
	return 0;
}

/*
 * The refusal for a broken route fd found; returns -1. apart (not NULL after
 * the fourth routing found no top tree) names, before the audit's finding,
 * the top that no switch below the tops joins to the others: the turn
 * switches' routings had nothing to turn at.
 */
static int refuse(const vt_fabric *f, const struct audit_finding *fd, const uint32_t *apart,
		  vt_err *e)
{
	char tops[VT_NODE_NAME_MAX + 100] = "", nm[VT_NODE_NAME_MAX];

	if (apart && apart[0] != VT_NONE) {
		vt_node_name(f, apart[0], nm, sizeof(nm));
		if (apart[1] == 1)
			snprintf(tops, sizeof(tops),
				 "top %s shares no switch below it with another top; ", nm);
		else
			snprintf(tops, sizeof(tops),
				 "tops %s and %u more share no switch below them with the others; ",
				 nm, apart[1] - 1);
	}
	return vt_err_node(e, f, f->switches[fd->item.sw], 0,
			   "no deadlock-free tree routing for every source: %s%s: %s", tops,
			   vt_audit_name((enum vt_audit_kind)fd->kind), fd->item.detail);
}

/* The cause of fd's refusal, past its "SOURCE:LINE: ", for a log line (in *buf). */
static const char *refusal_cause(const vt_fabric *f, const struct audit_finding *fd, vt_err *buf)
{
	refuse(f, fd, NULL, buf);
	return buf->msg + (buf->cause < VT_ERR_MAX ? buf->cause : 0);
}

/* vt_route's routings, tried in this order (see vt_route) */
enum route_try { TRY_SPREAD, TRY_ONE_WAY, TRY_TURN_SWITCH, TRY_TOP_TREE, NTRIES };
/*
 * What a routing tells vt_route: its tables need the every-source audit; a
 * plane had no turn switch or top tree (the third or fourth try's detours
 * fell back to the turn order's)
 */
#define ROUTED_UNSURE  1
#define ROUTED_NO_Z    2
#define ROUTED_DETOURS 4 /* some switch had no up*-down* route to some destination */
#define ROUTED_STRAND  8 /* some plane had a stranded switch: no proof for the repair */

/* The tree options of the routing's options (none: o NULL). */
static void tree_opts(const struct vt_route_opts *o, struct vt_tree_opts *to)
{
	if (!o)
		return;
	to->root_guids = o->root_guids;
	to->nroots = o->nroots;
	to->cn_guids = o->cn_guids;
	to->ncns = o->ncns;
	to->io_guids = o->io_guids;
	to->nios = o->nios;
	to->root_file = o->root_file;
	to->cn_file = o->cn_file;
	to->io_file = o->io_file;
	to->root_lines = o->root_lines;
}

/*
 * Plane p of np (0: the whole fabric) routed into r's tables: its tree built
 * with to, its levels into level (if given), and plane 0's host order into
 * order. -1 with e (the tree's refusal names the plane where there are several).
 */
static int route_plane(struct router *r, struct vt_tree_opts *to, const struct vt_route_opts *o,
		       uint32_t p, uint32_t np, uint8_t *level, vt_order *order, vt_err *e)
{
	struct log_ctx lc = {o, p, np};
	vt_tree t;

	to->plane = p;
	if (vt_tree_build(&t, r->f, to, e)) {
		if (np > 1) { /* after the refusal's "SOURCE:LINE: " */
			char buf[VT_ERR_MAX];
			unsigned c = e->cause < sizeof(buf) ? e->cause : 0;
			uint32_t in = vt_route_plane_cas(r->f, to->plane_of, p);
			uint32_t all = vt_route_plane_cas(r->f, to->plane_of, VT_NONE);

			memcpy(buf, e->msg, sizeof(buf));
			if (in < all) /* pieces, not rails: say so before the tree's rule */
				snprintf(e->msg + c, sizeof(e->msg) - c,
					 "the fabric falls into %u parts no cable joins "
					 "(planes of a multi-rail fabric, or pieces): "
					 "part %u, with %u of the %u CAs: %.340s",
					 np, p, in, all, buf + c);
			else
				snprintf(e->msg + c, sizeof(e->msg) - c, "plane %u: %.480s", p,
					 buf + c);
		}
		return -1;
	}
	if (o && o->log && o->log_level >= VT_LOG_INFO)
		vt_tree_describe(&t, log_line, &lc);
	for (uint32_t s = 0; level && s < r->f->nswitches; s++)
		if (t.level[s] != VT_TREE_OUTSIDE)
			level[s] = t.level[s];
	if (plane_setup(r, &t, e)) {
		vt_tree_free(&t);
		return -1;
	}
	vt_route_mainloop(r, &t);
	if (vt_route_strand(r, &t, e)) {
		vt_tree_free(&t);
		return -1;
	}
	r->deg.unsure |= t.ca_detours > 0;
	for (uint32_t s = 0; r->proof && s < r->f->nswitches; s++)
		if (t.level[s] != VT_TREE_OUTSIDE) { /* the plane's levels and turn switches */
			r->proof->level[s] = t.level[s];
			r->proof->turn[s] = r->deg.inz[s];
		}
	r->strand |= t.strand != NULL;
	if (!p) {
		order->port = malloc((t.order.n + 1) * sizeof(*order->port));
		if (!order->port) {
			vt_tree_free(&t);
			return vt_err_nomem(e, "out of memory");
		}
		memcpy(order->port, t.order.port, t.order.n * sizeof(*order->port));
		order->n = t.order.n;
	}
	vt_tree_free(&t);
	return 0;
}

/*
 * One routing of every plane (minimal: deg.minimal's detours); *got: ROUTED_
 * flags. memo: the passes after the main loop of the call's routings so far.
 */
static int route_planes(const vt_fabric *f, const struct vt_route_opts *o, enum route_try try,
			int minimal, struct route_memos *memo, vt_lfts *lfts, vt_order *order,
			int *got, uint32_t *apart, uint8_t *level, vt_err *e)
{
	struct vt_tree_opts to = {0};
	struct router r = {.deg.one_way = try >= TRY_ONE_WAY,
			   .deg.turn_switch = try == TRY_TURN_SWITCH,
			   .deg.top_tree = try == TRY_TOP_TREE,
			   .deg.minimal = minimal,
			   .deg.apart = VT_NONE};
	uint32_t *plane = NULL, np;

	memset(lfts, 0, sizeof(*lfts));
	memset(order, 0, sizeof(*order));
	tree_opts(o, &to);
	plane = malloc((f->nswitches + 1) * sizeof(*plane));
	if (!plane || (np = vt_route_planes(f, plane)) == VT_NONE) {
		free(plane);
		return vt_err_nomem(e, "out of memory");
	}
	if (np > 1)
		to.plane_of = plane;
	r.f = f;
	r.lfts = lfts;
	r.passes_memo = &memo->passes;
	if ((r.proof = o ? o->proof : NULL)) { /* this routing's, filled plane by plane */
		r.proof->sure = 0;
		memset(r.proof->level, VT_TREE_OUTSIDE, f->nswitches);
		memset(r.proof->turn, 0, f->nswitches);
	}
	if (vt_lfts_init(lfts, f, e) || router_alloc(&r, f, e))
		goto fail;
	for (uint32_t p = 0; p < (np ? np : 1); p++)
		if (route_plane(&r, &to, o, p, np, level, order, e))
			goto fail;
	/* switches outside every tree still answer for their own LID */
	for (uint32_t s = 0; s < f->nswitches; s++) {
		const struct vt_port *p0 = vt_port(f, f->switches[s], 0);

		if (p0->lid && vt_lft_get(lfts, s, p0->lid) == VT_LFT_NONE)
			vt_lft_set(lfts, s, p0->lid, 0);
	}
	*got = (r.deg.unsure ? ROUTED_UNSURE : 0) | (r.deg.no_z ? ROUTED_NO_Z : 0) |
	       (r.deg.detours ? ROUTED_DETOURS : 0) | (r.strand ? ROUTED_STRAND : 0);
	apart[0] = r.deg.apart;
	apart[1] = r.deg.napart;
	router_free(&r);
	free(plane);
	return 0;
fail:
	router_free(&r);
	free(plane);
	vt_order_free(order);
	vt_lfts_free(lfts);
	return -1;
}

/*
 * The administrator sees which routing the switches got, and why: the
 * causes of the failed audits (found).
 */
static void log_tries(const struct vt_route_opts *o, const vt_fabric *f, enum route_try try,
		      const struct audit_finding *found)
{
	char line[NTRIES * VT_ERR_MAX + 400];
	vt_err e0, e1;
	const char *first = "", *second = "";

	if (!o || !o->log || o->log_level < VT_LOG_INFO)
		return;
	if (try > TRY_SPREAD)
		first = refusal_cause(f, &found[TRY_SPREAD], &e0);
	if (try == TRY_TURN_SWITCH)
		second = refusal_cause(f, &found[TRY_ONE_WAY], &e1);
	if (try == TRY_TOP_TREE)
		snprintf(line, sizeof(line),
			 "routed four times: the first three tables failed the audit (the first: "
			 "%s); the fourth, with the tops' detours turning at the turn switches of "
			 "a top tree, has no credit loop",
			 first);
	else if (try == TRY_TURN_SWITCH)
		snprintf(line, sizeof(line),
			 "routed three times: the first tables failed the audit (%s); the "
			 "second, with every detour turning at one child of each turn-leaf "
			 "ancestor, too (%s); the third, with every detour turning at the turn "
			 "switch (one that reaches each of its ancestors by one up-path), has no "
			 "credit loop",
			 first, second);
	else if (try == TRY_ONE_WAY)
		snprintf(line, sizeof(line),
			 "routed twice: the first tables failed the audit (%s); the second, with "
			 "every detour turning at one child of each turn-leaf ancestor, has no "
			 "credit loop",
			 first);
	else
		snprintf(line, sizeof(line),
			 "detours do not all turn at the turn leaf: every route audited, no "
			 "credit loop");
	ROUTE_LOG(o, VT_LOG_INFO, line);
}

/*
 * The split serves where VL 0 is clean: no broken route, no credit loop but
 * one on another VL (named first, "VL k: ", when VL 0 has none). A credit loop
 * there alone is left to routes that start at switches, which never refuse a
 * fabric; the log line says they are not covered.
 */
static int vl0_clean(const vt_audit *a)
{
	const struct vt_audit_item *cl = &a->item[VT_AUDIT_CREDIT_LOOP];

	return !a->item[VT_AUDIT_UNREACHABLE].count && !a->item[VT_AUDIT_LOOP].count &&
	       !a->item[VT_AUDIT_MISDELIVERY].count &&
	       (!cl->count || (cl->count == 1 && !strncmp(cl->detail, "VL ", 3)));
}

/*
 * The end of a try with a second VL: a failed one leaves nothing allocated,
 * and a split the caller did not ask for (own) is dropped. Returns rc.
 */
static int try_done(int rc, vt_vl_split *vl, int own, vt_lfts *lfts, vt_order *order)
{
	if (rc || own)
		vt_vl_split_free(vl);
	if (rc) {
		vt_order_free(order);
		vt_lfts_free(lfts);
	}
	return rc;
}

/*
 * The second VL (vt_audit.h, vt_vl_split): the first routing's tables (lfts
 * and order, kept by the caller), the routes of the switches that are not
 * leaves split off where they add a channel dependency the leaves' routes do
 * not make, and the result audited with every source, each VL apart. 0 with
 * vl (NULL: split and dropped) filled; 1 where the split leaves a credit loop
 * or a broken route (lfts and order freed; the caller refuses as before); -1
 * out of memory (freed too).
 */
static int route_split(const vt_fabric *f, const struct vt_route_opts *o, const uint8_t *level,
		       const char *first, vt_lfts *lfts, vt_order *order, vt_vl_split *vl,
		       vt_err *e)
{
	struct vt_audit_opts ao = {.threads = 1, .every_source = 1};
	vt_vl_split own;
	vt_audit a;
	int rc = -1;

	if (!vl)
		vl = &own;
	memset(vl, 0, sizeof(*vl));
	ao.vl = vl;
	if (!vt_vl_split_compute(f, lfts, level, vl, e) && !vt_audit_run_opts(f, lfts, &ao, &a, e))
		rc = vl0_clean(&a) && !vl->nopen_ca ? 0 : 1; /* CA-to-CA: never uncovered */
	if (!rc)
		vt_route_log_split(f, o, vl, first, &a.item[VT_AUDIT_CREDIT_LOOP]);
	return try_done(rc, vl, vl == &own, lfts, order);
}

/*
 * The try with a second VL (vt_route_vl): detours at their shortest
 * (deg.minimal), the routes of switches other than leaves that then close a
 * credit loop with the leaves' put on VL 1 (vt_vl_split). 0 with lfts,
 * order and vl (NULL: split and dropped) filled, where every VL passes the
 * every-source audit; 1 where an audit failed (nothing allocated: the one-VL
 * routings follow); 2 where no switch took a detour: lfts and order are the
 * first one-VL routing's (*got its flags), vl empty; -1 on error.
 */
static int route_minimal(const vt_fabric *f, const struct vt_route_opts *o,
			 struct route_memos *memo, uint8_t *level, vt_lfts *lfts, vt_order *order,
			 vt_vl_split *vl, int *got, vt_err *e)
{
	struct vt_audit_opts ao = {.threads = 1, .every_source = 1};
	uint32_t apart[2];
	vt_vl_split own;
	vt_audit a;
	int rc = -1;

	if (!vl)
		vl = &own;
	memset(vl, 0, sizeof(*vl));
	if (route_planes(f, o, TRY_SPREAD, 1, memo, lfts, order, got, apart, level, e))
		return -1;
	ao.vl = vl;
	if (!(*got & ROUTED_DETOURS))
		return 2; /* deg.minimal changed nothing */
	if (!vt_vl_split_compute(f, lfts, level, vl, e) && !vt_audit_run_opts(f, lfts, &ao, &a, e))
		rc = vt_audit_failed(&a) || vl->placed == 2 ? 1
							    : 0; /* CA-to-CA on VL 1: not here */
	if (!rc)
		vt_route_log_minimal(f, o, vl);
	return try_done(rc, vl, vl == &own, lfts, order);
}

/*
 * Where the audit finds a credit loop, the fabric is routed once more with
 * every ancestor of the turn leaf descending into one child only (deg.one_way):
 * less spread for the few detour routes, kept only where it is needed, so
 * tables the audit passes stay as they were. Where that fails the audit too,
 * a third time with every detour turning at the turn switch
 * (vt_route_turn_switch.c), which slender trees with a top's link cut need,
 * and where that fails, a fourth with the tops' detours turning at the turn
 * switches of a top tree (vt_route_top_tree.c), for when no switch is linked
 * to every top. The refusal names the credit loop of the last routing that
 * had its turn switches (the others took the turn order's detours again).
 */
int vt_route(const vt_fabric *f, const struct vt_route_opts *o, vt_lfts *lfts, vt_order *order,
	     vt_err *e)
{
	return vt_route_vl(f, o, lfts, order, NULL, e);
}

/*
 * The first routing's tables (lfts, order), kept where its audit failed:
 * the second VL splits them if the other routings fail too (route_split),
 * where they were routed again before (the same options, so the same tables).
 */
struct first_tables {
	vt_lfts lfts;
	vt_order order;
};

static void first_free(struct first_tables *k)
{
	vt_lfts_free(&k->lfts);
	vt_order_free(&k->order);
}

/* The routings after the first (see vt_route); level: the planes' levels, filled by the first. */
static int route_retries(const vt_fabric *f, const struct vt_route_opts *o,
			 const struct vt_route_opts *quiet, struct route_memos *memo,
			 uint8_t *level, int got, vt_lfts *lfts, vt_order *order, vt_vl_split *vl,
			 vt_err *e)
{
	enum route_try try = TRY_SPREAD, shown = TRY_SPREAD;
	struct audit_finding found[NTRIES];
	struct first_tables k = {{0}, {0}};
	uint32_t apart[2] = {VT_NONE, 0};
	vt_err first;
	int rc;

	for (;;) {
		if (audit_every_source(f, lfts, &found[try], e)) {
			first_free(&k);
			vt_order_free(order);
			vt_lfts_free(lfts);
			return -1;
		}
		if (found[try].kind < 0)
			break;
		shown = got & ROUTED_NO_Z ? shown : try;
		if (try == TRY_SPREAD) {
			k.lfts = *lfts;
			k.order = *order;
		} else {
			vt_order_free(order);
			vt_lfts_free(lfts);
		}
		if (++try == NTRIES) {
			*lfts = k.lfts;
			*order = k.order;
			rc = route_split(f, o, level, refusal_cause(f, &found[TRY_SPREAD], &first),
					 lfts, order, vl, e);
			return rc <= 0 ? rc : refuse(f, &found[shown], apart, e);
		}
		if (route_planes(f, quiet, try, 0, memo, lfts, order, &got, apart, NULL, e)) {
			first_free(&k);
			return -1;
		}
	}
	first_free(&k);
	log_tries(o, f, try, found);
	return 0;
}

static int route_vl(const vt_fabric *f, const struct vt_route_opts *o, struct route_memos *memo,
		    vt_lfts *lfts, vt_order *order, vt_vl_split *vl, vt_err *e)
{
	struct vt_route_opts quiet = {0};
	uint8_t *level = malloc(f->nswitches + 1);
	uint32_t apart[2];
	int got = 0, rc = 0;

	if (vl)
		memset(vl, 0, sizeof(*vl));
	if (!level)
		return vt_err_nomem(e, "out of memory");
	memset(level, VT_TREE_OUTSIDE, f->nswitches + 1);
	if (o)
		quiet = *o;
	quiet.log = NULL; /* the tree is described once */
	if (o && o->shortest_detours &&
	    (rc = route_minimal(f, o, memo, level, lfts, order, vl, &got, e)) <= 0)
		goto out;
	if (rc != 2 && route_planes(f, rc == 1 ? &quiet : o, TRY_SPREAD, 0, memo, lfts, order, &got,
				    apart, level, e)) {
		rc = -1;
		goto out;
	}
	rc = 0;
	if (!(got & ROUTED_UNSURE)) {
		if (o &&
		    o->proof) /* vt_route_turn.c's argument holds: the repair may build on it */
			o->proof->sure = !(got & ROUTED_STRAND);
		goto out;
	}
	rc = route_retries(f, o, &quiet, memo, level, got, lfts, order, vl, e);
out:
	free(level);
	return rc;
}

int vt_route_vl(const vt_fabric *f, const struct vt_route_opts *o, vt_lfts *lfts, vt_order *order,
		vt_vl_split *vl, vt_err *e)
{
	struct vt_route_proof *pf = o ? o->proof : NULL;
	struct route_memos memo = {NULL};
	int rc;

	if (pf) {
		*pf = (struct vt_route_proof){0};
		pf->level = malloc((size_t)f->nswitches + 1);
		pf->turn = malloc((size_t)f->nswitches + 1);
		if (!pf->level || !pf->turn) {
			vt_route_proof_free(pf);
			if (vl)
				memset(vl, 0, sizeof(*vl));
			return vt_err_nomem(e, "out of memory");
		}
	}
	rc = route_vl(f, o, &memo, lfts, order, vl, e);
	vt_route_passes_memo_free(&memo.passes);
	if (rc && pf)
		vt_route_proof_free(pf);
	return rc;
}

void vt_route_proof_free(struct vt_route_proof *p)
{
	free(p->level);
	free(p->turn);
	*p = (struct vt_route_proof){0};
}

int vt_route_vl_split(const vt_fabric *f, const struct vt_route_opts *o, const vt_lfts *lfts,
		      vt_vl_split *vl, vt_err *e)
{
	struct vt_tree_opts to = {0};
	uint8_t *level = malloc(f->nswitches + 1);
	uint32_t *plane = malloc((f->nswitches + 1) * sizeof(*plane)), np;
	int rc = -1;
	vt_tree t;

	memset(vl, 0, sizeof(*vl));
	if (!level || !plane || (np = vt_route_planes(f, plane)) == VT_NONE) {
		vt_err_nomem(e, "out of memory");
		goto out;
	}
	memset(level, VT_TREE_OUTSIDE, f->nswitches + 1);
	tree_opts(o, &to);
	if (np > 1)
		to.plane_of = plane;
	for (uint32_t p = 0; p < (np ? np : 1); p++) {
		to.plane = p;
		if (vt_tree_build(&t, f, &to, e))
			goto out;
		for (uint32_t s = 0; s < f->nswitches; s++)
			if (t.level[s] != VT_TREE_OUTSIDE)
				level[s] = t.level[s];
		vt_tree_free(&t);
	}
	rc = vt_vl_split_compute(f, lfts, level, vl, e);
out:
	free(level);
	free(plane);
	return rc;
}
