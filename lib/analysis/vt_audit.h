/* SPDX-License-Identifier: MIT */
/*
 * Audits of forwarding tables against the fabric, for every switch and every
 * LID of a CA port: unreachable destinations (no entry, or a port that is
 * down), forwarding loops, wrong deliveries (the path ends at another CA),
 * non-minimal hops on the paths CA traffic takes (a switch forwards to a
 * neighbour that is not one hop closer to the destination's switch; a detour
 * entry that no CA's path reaches is not counted), and credit loops (a cycle in the
 * channel dependency graph of the switch-to-switch channels that routes
 * between CA LIDs use). Each kind reports its count and the first offence:
 * the switch and the LID, in LID order then switch order. Switches with no
 * cable path to a LID (another plane of a multi-rail fabric) are skipped.
 * Each LID's routes are followed once from every switch (walks end where an
 * earlier one passed), dependencies are collected per LID on the CA paths
 * only, and the channel dependency graph is searched for a cycle once, at the
 * end. Results do not depend on the number of threads.
 */
#ifndef VT_AUDIT_H
#define VT_AUDIT_H

#include <stdint.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "model/vt_lft.h"

enum vt_audit_kind {
	VT_AUDIT_UNREACHABLE,
	VT_AUDIT_LOOP,
	VT_AUDIT_MISDELIVERY,
	VT_AUDIT_NONMINIMAL,
	VT_AUDIT_CREDIT_LOOP,
	VT_AUDIT_NKINDS
};

struct vt_audit_item {
	uint64_t count; /* (switch, LID) entries; credit loops: cycles found (0 or 1) */
	uint32_t sw;	/* first offending switch ordinal, VT_NONE when count is 0 */
	uint32_t lid;
	char detail[1024]; /* one line saying what is wrong there */
};

typedef struct vt_audit {
	struct vt_audit_item item[VT_AUDIT_NKINDS];
} vt_audit;

/*
 * vartree's second VL (vt_audit_vl.c). Where the routes that start at
 * switches (management traffic, and CAs on spines) would close a credit loop
 * with the others, VL 0 keeps the routes of the leaves (where compute CAs'
 * traffic starts), every route of another switch that makes only channel
 * dependencies those make, and those whose one down-up turn leads into a
 * higher core group; the other routes of that switch go on VL 1 (an SL of
 * their own: OpenSM's path_sl and SL2VL tables). A route belongs to the
 * switch it starts at: a CA's routes are its switch's.
 */
typedef struct vt_vl_split {
	uint32_t nsw, nlid; /* switches; LIDs per switch (max_lid + 1) */
	uint64_t *bits;	    /* bit sw * nlid + lid: switch sw's route to lid is on VL 1 */
	uint64_t nvl1;	    /* routes on VL 1 */
	uint32_t nsrc;	    /* switches with a route on VL 1 */
	/*
	 * placed: the rule's split left a credit loop, so the routes were placed
	 * again one by one (vt_audit_vl_fix.c; a leaf's routes to switch LIDs
	 * may then be on VL 1); 2: the CA-to-CA routes themselves close one
	 * (they turn down-up), so they were placed too and some are on VL 1. Routes not covered: on
	 * either VL they would close a credit loop with the routes placed before them; the switches
	 * they start at, and the first (switch ordinal, LID).
	 */
	int placed;
	uint64_t nopen, nopen_ca; /* nopen_ca: of them, a leaf's to a CA LID (placed 2) */
	uint32_t nopen_src, open_sw, open_lid;
} vt_vl_split;

/*
 * The split of tables t: level[] per switch ordinal, the tree's (0: a leaf,
 * whose routes are VL 0's base; VT_TREE_OUTSIDE (tree/vt_tree.h): outside
 * the tree). Every LID the every-source audit follows is split. -1 with e
 * only when out of memory; caller frees s.
 */
int vt_vl_split_compute(const vt_fabric *f, const vt_lfts *t, const uint8_t *level, vt_vl_split *s,
			vt_err *e);
void vt_vl_split_free(vt_vl_split *s);
/*
 * The split's last step (vt_vl_split_compute calls it): where the split
 * leaves a cycle on a VL, the routes are placed again one by one, each VL
 * kept free of cycles (vt_audit_vl_fix.c); nopen counts those that fit on
 * neither. -1 with e only when out of memory.
 */
int vt_vl_split_fix(const vt_fabric *f, const vt_lfts *t, const uint8_t *level, vt_vl_split *s,
		    vt_err *e);

static inline int vt_vl_split_get(const vt_vl_split *s, uint32_t sw, uint32_t lid)
{
	uint64_t b;

	if (!s || !s->bits || sw >= s->nsw || lid >= s->nlid)
		return 0;
	b = (uint64_t)sw * s->nlid + lid;
	return (int)(s->bits[b / 64] >> (b % 64) & 1);
}

/* Whether the audit follows routes to lid: CA LIDs cabled to a switch; with every, switch LIDs. */
int vt_audit_lid(const vt_fabric *f, uint32_t lid, int every);

struct vt_audit_opts {
	unsigned threads; /* LIDs split into 1 or 2 ranges, audited at the same time */
	/*
	 * Every switch is a source too (traffic a switch or an aggregation node
	 * on it starts), and switch LIDs are audited destinations: the credit
	 * loop check then covers every route of the fabric, not only CA to CA.
	 */
	int every_source;
	/*
	 * The routes vl puts on VL 1 are audited apart, each VL's channel
	 * dependencies for a cycle of their own (a credit loop on VL 1 names
	 * "VL 1" first; count is the VLs with a cycle). NULL: one VL. Without
	 * every_source, the routes of CAs on switches above the leaves
	 * (aggregation nodes, management CAs) are their switch's, split alike.
	 */
	const vt_vl_split *vl;
	/*
	 * Non-minimal hops not looked for (their count stays 0): no hop distances
	 * from every destination switch, a search over the fabric each, for a
	 * caller that ignores them (the repair's audit).
	 */
	int skip_minimal;
};

int vt_audit_run_opts(const vt_fabric *f, const vt_lfts *t, const struct vt_audit_opts *o,
		      vt_audit *a, vt_err *e);
/* Uses 2 threads. */
int vt_audit_run(const vt_fabric *f, const vt_lfts *t, vt_audit *a, vt_err *e);
/* The LIDs split into nthreads (1 or 2) ranges, audited at the same time. */
int vt_audit_run_threads(const vt_fabric *f, const vt_lfts *t, unsigned nthreads, vt_audit *a,
			 vt_err *e);
/* "unreachable", "loop", "misdelivery", "non-minimal", "credit-loop". */
const char *vt_audit_name(enum vt_audit_kind k);
/* Number of kinds with a nonzero count that make tables wrong. Non-minimal hops
 * do not: deadlock freedom can need them (vartree's turn-leaf detours, up/down). */
unsigned vt_audit_failed(const vt_audit *a);

#endif
