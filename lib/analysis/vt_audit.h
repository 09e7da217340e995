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
 * their own: OpenSM's path_sl and SL2VL tables), and where the routes on VL
 * 1 close a credit loop among themselves, some on VL 2 and further, as many
 * as the fabric has (vt_audit_vl_fix.c). A route belongs to the switch it
 * starts at: a CA's routes are its switch's.
 */
/* Why at most 15: VL 15 is the management VL, data VLs are 0-14 (IBA 7.6.1). */
#define VT_VL_MAX 15
/* Bit planes of a route's VL: 4 hold 0-14. */
#define VT_VL_PLANES 4

typedef struct vt_vl_split {
	uint32_t nsw, nlid; /* switches; LIDs per switch (max_lid + 1) */
	/*
	 * nplanes bit planes of nsw * nlid bits, plane p at bits + p * words
	 * (vt_vl_split_words): bit sw * nlid + lid of plane p is bit p of the VL
	 * of switch sw's route to lid. One plane while two VLs do.
	 */
	uint64_t *bits;
	unsigned nplanes;
	unsigned nvls;		   /* VLs the routes use: 1 + the highest (1: no split) */
	unsigned cap;		   /* data VLs assumed of the fabric (vt_fabric_vls), 2 at least */
	uint64_t nvl1;		   /* routes on a VL other than 0 */
	uint32_t nsrc;		   /* switches with a route on a VL other than 0 */
	uint64_t nvl[VT_VL_MAX];   /* routes per VL (nvl[0]: not counted) */
	uint32_t nsrcs[VT_VL_MAX]; /* switches with a route per VL */
	/*
	 * placed: the rule's split left a credit loop, so the routes were placed
	 * again one by one (vt_audit_vl_fix.c; a leaf's routes to switch LIDs
	 * may then be on VL 1); 2: the CA-to-CA routes themselves close one
	 * (they turn down-up), so they were placed too and some are on VL 1. Routes not covered: on
	 * every VL of cap they would close a credit loop with the routes placed before them (they
	 * are on the last, cap - 1, left out of the checks); the switches
	 * they start at, and the first (switch ordinal, LID). need: the VLs that
	 * would cover them (more than cap; 0: not two more).
	 */
	int placed;
	uint64_t nopen, nopen_ca; /* nopen_ca: of them, a leaf's to a CA LID (placed 2) */
	uint32_t nopen_src, open_sw, open_lid;
	unsigned need;
} vt_vl_split;

/*
 * The split of tables t: level[] per switch ordinal, the tree's (0: a leaf,
 * whose routes are VL 0's base; VT_TREE_OUTSIDE (tree/vt_tree.h): outside
 * the tree). Every LID the every-source audit follows is split, on as few
 * VLs as cover the routes, at most vt_fabric_vls(f) (2 at least: with one,
 * the routes off VL 0 are the ones a fabric of more would need). -1 with e
 * only when out of memory; caller frees s.
 */
int vt_vl_split_compute(const vt_fabric *f, const vt_lfts *t, const uint8_t *level, vt_vl_split *s,
			vt_err *e);
void vt_vl_split_free(vt_vl_split *s);
/*
 * The split's last step (vt_vl_split_compute calls it): where the split
 * leaves a cycle on a VL, the routes are placed again one by one, each VL
 * kept free of cycles (vt_audit_vl_fix.c); nopen counts those that fit on
 * none. -1 with e only when out of memory.
 */
int vt_vl_split_fix(const vt_fabric *f, const vt_lfts *t, const uint8_t *level, vt_vl_split *s,
		    vt_err *e);
/* Words of one bit plane. */
static inline size_t vt_vl_split_words(const vt_vl_split *s)
{
	return (size_t)(((uint64_t)s->nsw * s->nlid) / 64 + 1);
}

/* The VL of switch sw's route to lid (0 outside the split). */
static inline unsigned vt_vl_split_get(const vt_vl_split *s, uint32_t sw, uint32_t lid)
{
	uint64_t b;
	unsigned v = 0;

	if (!s || !s->bits || sw >= s->nsw || lid >= s->nlid)
		return 0;
	b = (uint64_t)sw * s->nlid + lid;
	for (unsigned p = 0; p < s->nplanes; p++)
		v |= (unsigned)(s->bits[p * vt_vl_split_words(s) + b / 64] >> (b % 64) & 1) << p;
	return v;
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
	 * The routes vl puts on VLs other than 0 are audited apart, each VL's
	 * channel dependencies for a cycle of their own (a credit loop on VL k
	 * names "VL k" first; count is the VLs with a cycle). NULL: one VL. Without
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
