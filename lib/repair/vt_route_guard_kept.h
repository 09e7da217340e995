/* SPDX-License-Identifier: MIT */
/*
 * The shift count of the tables a sweep installed, kept for the next sweep's
 * repair guard (vt_route_guard.h): the guard's first count is then an update
 * of it by the columns a candidate changes, not a whole count (pruned 36,12:
 * 18-30 ms, about a fresh route). The plugin makes it after its routing
 * returns (off the path the administrator waits for) and, after a fault,
 * moves it onto the degraded fabric (vt_guard_kept_remap): channels by
 * switch node GUID and port number, ranks by the order, which must be the
 * same (vt_order.h keeps a missing host's rank as a place-keeper; a rank
 * that moved or vanished leaves the guard counting as without it).
 */
#ifndef VT_ROUTE_GUARD_KEPT_H
#define VT_ROUTE_GUARD_KEPT_H

#include "analysis/vt_routes.h"
#include "analysis/vt_shift_count.h"
#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "model/vt_lft.h"
#include "model/vt_order.h"

typedef struct vt_guard_kept {
	const vt_fabric *f;    /* the fabric counted (not owned: the caller's, kept alive) */
	vt_lfts t;	       /* the tables counted, a copy */
	vt_order o;	       /* the ranks counted over, a copy */
	vt_routes rt;	       /* their routes model (walked), where count */
	vt_shift_count *count; /* NULL: taken by the guard, or none */
	double count_s;	       /* CPU seconds of the whole count (vt_guard_kept_new) */
	double remap_s;	       /* CPU seconds of vt_guard_kept_remap (0: none) */
} vt_guard_kept;

/*
 * The shift count of tables t of fabric f over the ranks of o (a whole
 * count: call it where nobody waits). f must stay alive and unchanged
 * while k is kept; t and o are copied. NULL with e (out of memory, or fewer
 * than 2 ranks: nothing to count).
 */
vt_guard_kept *vt_guard_kept_new(const vt_fabric *f, const vt_lfts *t, const vt_order *o,
				 vt_err *e);
/*
 * k moved onto fabric f (a sweep later: a link or switch gone) for ranks o:
 * its paths cut where they leave on a channel f lost (the count updated for
 * the LIDs they serve, at the cost of those), then the channels renumbered
 * and the tables mapped by switch GUID and LID: k counts what its tables,
 * mapped onto f, count there. f and o must outlive k. 0; 1 where k cannot
 * serve (the ranks moved, their LIDs or leaves changed, a lost channel
 * still loaded): free it; -1 with e when out of memory (free it).
 */
int vt_guard_kept_remap(vt_guard_kept *k, const vt_fabric *f, const vt_order *o, vt_err *e);
/*
 * The cost vt_guard_kept_remap pays in the plugin, paid again where k was
 * counted on the degraded fabric itself (vartree-route --previous has no
 * other): the LIDs whose entries in k->t leave by a port with no link in
 * k->f walked before and after, as remapping cuts them (here nothing
 * changes: every path cancels). The guard calls it before it starts from
 * k. 0, -1 with e.
 */
int vt_guard_kept_settle(vt_guard_kept *k, vt_err *e);
/* Does k count over fabric f, the ranks of o and tables of t's shape? */
int vt_guard_kept_fits(const vt_guard_kept *k, const vt_fabric *f, const vt_order *o,
		       const vt_lfts *t);
void vt_guard_kept_free(vt_guard_kept *k);

#endif
