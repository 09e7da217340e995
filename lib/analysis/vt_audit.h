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

struct vt_audit_opts {
	unsigned threads; /* LIDs split into 1 or 2 ranges, audited at the same time */
	/*
	 * Every switch is a source too (traffic a switch or an aggregation node
	 * on it starts), and switch LIDs are audited destinations: the credit
	 * loop check then covers every route of the fabric, not only CA to CA.
	 */
	int every_source;
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
