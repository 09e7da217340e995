/* SPDX-License-Identifier: MIT */
/*
 * The plugin's parts that need no OpenSM: its options and the wording of its
 * ERR lines. Apart from vtp.h so that unit tests build them without OpenSM's
 * headers.
 */
#ifndef VTP_OPTS_H
#define VTP_OPTS_H

#include <stddef.h>

#include "base/vt_err.h"
#include "route/vt_route.h"
#include "repair/vt_repair.h"

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
	/* vartree.detours=shortest: vt_route_opts.shortest_detours where VL 1 can be set up */
	int shortest_detours;
};

/* A bad vartree.* token (len bytes, not NUL-terminated) and why it cannot be used. */
typedef void (*vtp_bad_fn)(void *ctx, const char *tok, int len, const char *why);

/*
 * Parses opt (may be NULL). Each unknown or malformed vartree.* token is
 * passed to bad (may be NULL) and skipped; tokens of other plugins are
 * ignored. Returns the number of bad tokens.
 */
int vtp_opts_parse(struct vtp_opts *o, const char *opt, vtp_bad_fn bad, void *ctx);

/* ERR VT10: memory ran out, in whichever step. */
#define VTP_ERR_NOMEM "VT10"

/*
 * The text after "ERR " of a failed step's log line: "CODE: WHAT: cause", or
 * "VT10: out of memory while STEP: cause" when e says memory ran out (e->kind), so
 * that a lack of memory is not reported as a refused fabric.
 */
void vtp_err_text(char *buf, size_t n, const char *code, const char *what, const char *step,
		  const vt_err *e);

#endif
