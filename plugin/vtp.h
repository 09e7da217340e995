/* SPDX-License-Identifier: MIT */
/*
 * The OpenSM adapter's internals: the plugin context, its options, and the
 * translation of OpenSM's discovered subnet into a vt_fabric. Only the
 * plugin's own .c files include this (they need OpenSM's headers).
 */
#ifndef VTP_H
#define VTP_H

#include <time.h>

/* before osm_opensm.h: osm_opensm_t's layout depends on ENABLE_OSM_PERF_MGR */
#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "model/vt_lft.h"
#include "model/vt_order.h"
#include "route/vt_route.h"
#include "repair/vt_repair.h"
#include "vtp_opts.h"

/*
 * One sweep's result, held from build_lid_matrices to ucast_build_fwd_tables,
 * and the last tables vartree gave the switches, which the next sweep repairs
 * (vt_route_repair) instead of replacing.
 */
struct vtp {
	osm_opensm_t *osm;
	vt_fabric *fab;
	vt_lfts lfts;
	int routed;
	vt_fabric *prev_fab; /* NULL: no tables of vartree's on the switches */
	vt_lfts prev_lfts;
	vt_vl_split vl, prev_vl; /* routes on VL 1: this sweep's, the switches' */
	int vl_on, prev_vl_on;	 /* VL 1 set up (vtp_vl_check found room for it) */
	vt_order order;		 /* this sweep's ranks, for the count kept (vtp_keep.c) */
	int keep_wanted;	 /* the repair has a shift guard: keep the count */
	struct vtp_keep *keep;	 /* the switches' tables being counted, NULL: none */
};

/*
 * The shift count of the switches' tables (p->prev_fab, p->prev_lfts, over
 * p->order, which it takes) started on a thread, where p->keep_wanted; the
 * one before cleared.
 */
void vtp_keep_start(struct vtp *p);
/*
 * That count, joined, for vt_route_repair_kept (the caller frees it, before
 * p->prev_fab goes); NULL where none was made.
 */
struct vt_guard_kept *vtp_keep_take(struct vtp *p);
/* The count's thread joined and what it made freed (before p->prev_fab goes). */
void vtp_keep_clear(struct vtp *p);

/* The SL of the routes on VL 1 (path_sl), which update_sl2vl maps to VL 1; VL v's take SL v. */
#define VTP_SL 1

/*
 * The data VLs every link of a switch runs (the lower VLCap of its two
 * ends, at most max_op_vls: what OpenSM sets as OperVLs); the port with the
 * fewest into where[len] ("" when max_op_vls is the least).
 */
unsigned vtp_vl_links(const osm_subn_t *subn, char *where, size_t len);
/* Why the fabric cannot carry VL 1 ("" when it can), into why[len]. */
void vtp_vl_room(const struct vtp *p, char *why, size_t len);
/* Whether the fabric can carry this sweep's VL 1 (p->vl_on), with a log line either way. */
void vtp_vl_check(struct vtp *p);
/* OpenSM's path_sl and update_sl2vl hooks (vtp_vl.c). */
uint8_t vtp_path_sl(void *ctx, uint8_t hint, const ib_net16_t slid, const ib_net16_t dlid);
void vtp_update_sl2vl(void *ctx, osm_physp_t *port, uint8_t in, uint8_t out, ib_slvl_table_t *t);

/* Builds a finished vt_fabric from OpenSM's current subnet (LIDs as OpenSM assigned them). */
int vtp_fabric_from_subnet(const osm_subn_t *subn, unsigned lmc, vt_fabric **out, vt_err *e);

/* Monotonic milliseconds, for the plugin's timing lines. */
static inline double vtp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* This thread's CPU milliseconds, beside vtp_now_ms on a shared machine. */
static inline double vtp_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* What filling the min-hop tables cost, for the log. */
struct vtp_hops_stats {
	uint64_t rows;	   /* rows written (switch x switch LID) */
	uint64_t new_rows; /* of them allocated now (a switch's first sweep) */
	double dist_ms;	   /* switch graph and switch-to-switch distances */
	double alloc_ms;   /* the new rows' mallocs */
	double fill_ms;	   /* writing the rows, the min-hop thread's share */
};

/*
 * Every switch's hops rows (OpenSM's min-hop matrices) with the values
 * osm_ucast_mgr_build_lid_matrices computes when no hop_weights_file is set,
 * in two steps: vtp_hops_prepare builds the switch graph and distances and
 * allocates the rows (OpenSM's ucast_mgr_setup_all_switches prepared this
 * sweep's row tables), into *w, which the caller frees with
 * vtp_hops_work_free (-1 with e, *w NULL: nothing to free); then
 * vtp_hops_fill_share writes them, from one thread or two at once (the
 * switches are shared out), and returns how many switches this caller filled.
 */
struct vtp_hops_work;
int vtp_hops_prepare(osm_subn_t *subn, struct vtp_hops_work **w, struct vtp_hops_stats *st,
		     vt_err *e);
uint32_t vtp_hops_fill_share(struct vtp_hops_work *w);
void vtp_hops_work_free(struct vtp_hops_work *w);

/* Resets every row to OSM_NO_PATH, as OpenSM's osm_switch_clear_hops does. */
void vtp_hops_clear(osm_subn_t *subn);

#endif
