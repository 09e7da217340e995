/* SPDX-License-Identifier: MIT */
/*
 * The OpenSM adapter's internals: the plugin context, its options, and the
 * translation of OpenSM's discovered subnet into a vt_fabric. Only the
 * plugin's own .c files include this (they need OpenSM's headers).
 */
#ifndef VTP_H
#define VTP_H

#include <opensm/osm_opensm.h>

#include "vt_err.h"
#include "vt_fabric.h"
#include "vt_lft.h"
#include "vt_route.h"

#define VTP_ORDER_FILE "opensm-vartree-ca-order.dump"

/* Who builds OpenSM's min-hop matrices (vartree.hops=). */
enum vtp_hops_mode {
	VTP_HOPS_VARTREE, /* the plugin fills them, OpenSM skips its own */
	VTP_HOPS_OPENSM,  /* OpenSM's osm_ucast_mgr_build_lid_matrices, as before */
};

/* Settings from event_plugin_options ("vartree.KEY=VALUE" tokens). */
struct vtp_opts {
	enum vtp_hops_mode hops;
	int order_dump;		 /* write the ca-order dump (default 1) */
	char order_file[256];	 /* its name in dump_files_dir, or an absolute path */
	enum vt_log_level level; /* most detailed core message passed on */
	int level_set;		 /* level given explicitly, else OpenSM's log level decides */
	int repair; /* keep the last sweep's entries where they serve (vartree.repair) */
	enum vt_repair_policy repair_policy;
};

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
};

/*
 * Parses opt (may be NULL). Unknown or malformed vartree.* tokens are written
 * to bad (one message) and skipped; tokens of other plugins are ignored.
 * Returns the number of bad tokens.
 */
int vtp_opts_parse(struct vtp_opts *o, const char *opt, char *bad, size_t badlen);

/* Builds a finished vt_fabric from OpenSM's current subnet (LIDs as OpenSM assigned them). */
int vtp_fabric_from_subnet(const osm_subn_t *subn, unsigned lmc, vt_fabric **out, vt_err *e);

/*
 * Fills every switch's hops rows (OpenSM's min-hop matrices) with the values
 * osm_ucast_mgr_build_lid_matrices computes when no hop_weights_file is set.
 * Needs the rows OpenSM's ucast_mgr_setup_all_switches prepared for this sweep.
 */
int vtp_hops_fill(osm_subn_t *subn, vt_err *e);

/* Resets every row to OSM_NO_PATH, as OpenSM's osm_switch_clear_hops does. */
void vtp_hops_clear(osm_subn_t *subn);

#endif
