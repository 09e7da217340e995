/* SPDX-License-Identifier: MIT */
/*
 * vartree routing, the entry point that vartree-route, the analyzer's
 * --route vartree, the simulator and the OpenSM plugin all call: extract the
 * var-ary-n-tree (vt_tree) and fill every switch's LFT by usage-balanced
 * spreading (Zahavi et al., Algorithms 1-4).
 *
 * Where each step lives: Algorithm 1 vt_tuple.c (tree extraction vt_tree.c),
 * Algorithm 2 vt_route_mainloop.c, Algorithm 3 vt_route_upgoing.c,
 * Algorithm 4 vt_route_downgoing.c; the rest of the routing's files are
 * listed in vt_route_int.h.
 */
#ifndef VT_ROUTE_H
#define VT_ROUTE_H

#include <stdint.h>

#include "analysis/vt_audit.h"
#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "model/vt_lft.h"
#include "model/vt_order.h"

enum vt_log_level { VT_LOG_ERROR = 0, VT_LOG_INFO = 1, VT_LOG_VERBOSE = 2, VT_LOG_DEBUG = 3 };

/*
 * Where the core reports what it found; the plugin maps it onto OpenSM's log,
 * which names func, the core function the line comes from.
 */
typedef void (*vt_log_fn)(void *ctx, enum vt_log_level level, const char *func, const char *msg);

/*
 * What a routing proved of the tables it gave (vt_route_opts.proof), for the
 * repair after a fault (vt_route_repair), which audits its own tables only
 * where they leave the proof (vt_repair.h).
 */
struct vt_route_proof {
	/*
	 * The tables needed no audit (vt_route_turn.c): routes to CA LIDs
	 * up*-down*; every down-up turn at the turn leaf Z of its plane or an
	 * ancestor of Z, which Z reaches by one up-path each; no route crosses a
	 * link between switches of one level or outside the tree (no stranded
	 * switch). 0: the routing audited them, or could not say.
	 */
	int sure;
	uint8_t *level; /* per switch: its tree level (vt_tree.h), VT_TREE_OUTSIDE outside */
	uint8_t *turn;	/* per switch: 1 for Z and its ancestors */
};

/* Frees what vt_route_vl filled in p (a zeroed p too). */
void vt_route_proof_free(struct vt_route_proof *p);

struct vt_route_opts {
	const uint64_t *root_guids; /* node GUIDs of the top switches (root_guid_file), or NULL */
	uint32_t nroots;
	const uint64_t *cn_guids; /* port GUIDs of compute nodes (cn_guid_file); NULL: every CA */
	uint32_t ncns;
	const uint64_t *io_guids; /* port GUIDs of I/O nodes (io_guid_file), or NULL */
	uint32_t nios;
	/* the files they were read from and each root's line, for errors; NULL: none (vt_tree.h) */
	const char *root_file, *cn_file, *io_file;
	const unsigned *root_lines;
	/*
	 * vt_route_vl first tries detours at their shortest (any link), the
	 * routes of switches above the leaves that then close a credit loop on
	 * VL 1; kept where each VL passes the every-source audit. Needs a
	 * second VL (OpenSM: QoS on) wherever such a route exists; 0: detours
	 * turn at the turn leaf on one VL, as before.
	 */
	int shortest_detours;
	/*
	 * Where not NULL, filled with what the routing proved of its tables
	 * (caller frees with vt_route_proof_free; nothing allocated on refusal).
	 */
	struct vt_route_proof *proof;
	vt_log_fn log; /* may be NULL */
	void *log_ctx;
	enum vt_log_level log_level;
};

/*
 * Routes fabric f (finished, LIDs assigned; LMC taken from the CA ports).
 * Every switch gets an entry for every LID of its plane (multi-rail fabrics:
 * each plane is routed as its own tree; order is plane 0's). Routes from CA
 * ports to CA LIDs are up*-down*: their channel dependencies (the ones the
 * analyzer's audit and tests/unit/vt_trace count: routes that start at CA
 * ports) have no cycle. Switch-LID routes from a leaf with no up*-down* path
 * take a detour with one down-up turn, chosen in a global turn order so that
 * they add no cycle either (every LID, CA and switch, from every CA port).
 * On success fills lfts (initialised here; caller frees) and order (the
 * compute-node order with place-keepers; caller frees). On refusal returns -1
 * with e naming the node and the rule it breaks, and leaves nothing allocated.
 */
int vt_route(const vt_fabric *f, const struct vt_route_opts *o, vt_lfts *lfts, vt_order *order,
	     vt_err *e);

/*
 * vt_route, and where no routing of every source (switches count as sources:
 * management traffic) is free of credit loops on one VL, as split cores need
 * (tops in groups that share no switch below them), the first routing's
 * tables with the routes of non-leaf switches that would close a credit loop
 * put on VL 1 (vt_vl_split, vt_audit.h), each VL then audited apart: vl
 * filled (caller frees; empty when one VL does). vt_route() is this with the
 * split dropped: its tables are the same.
 */
int vt_route_vl(const vt_fabric *f, const struct vt_route_opts *o, vt_lfts *lfts, vt_order *order,
		vt_vl_split *vl, vt_err *e);

/*
 * The split vt_route_vl gives tables lfts (routed by vartree: the same
 * trees, built with o), for auditing tables read back (vartree-analyze
 * --vl-split). Caller frees vl; -1 with e where the tree is refused.
 */
int vt_route_vl_split(const vt_fabric *f, const struct vt_route_opts *o, const vt_lfts *lfts,
		      vt_vl_split *vl, vt_err *e);

/*
 * Planes of a multi-rail fabric: the connected components of the switches
 * that have a CA attached, numbered in the order their first CA port is met
 * (CA nodes in record order, ports in port order), so plane 0 holds port 1 of
 * the first host. Fills plane[] per switch ordinal (VT_NONE for switches of
 * no plane) and returns the number of planes (VT_NONE when out of memory).
 */
uint32_t vt_route_planes(const vt_fabric *f, uint32_t *plane);

/*
 * The host order of plane `plane`: rank i is the port of the same CA node as
 * rank i of o (plane 0's order, as vt_route() returns it) that is attached to
 * that plane, VT_NONE when the node has none. Caller frees out.
 */
int vt_route_plane_order(const vt_fabric *f, const vt_order *o, uint32_t plane, vt_order *out,
			 vt_err *e);

/*
 * CA nodes with a port on a switch of plane p (plane[] as vt_route_planes
 * fills it; p VT_NONE: of any plane). Fewer in a plane than in all: the
 * fabric is in pieces, not planes of one multi-rail fabric.
 */
uint32_t vt_route_plane_cas(const vt_fabric *f, const uint32_t *plane, uint32_t p);

#endif
