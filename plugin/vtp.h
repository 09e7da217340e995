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
};

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
