/* SPDX-License-Identifier: MIT */
/*
 * A repair candidate (vt_route_repair.c): the CA LIDs' entries that a fault
 * forces off a shortest up*-down* route moved to one, every other previous
 * entry kept. Internal to lib/repair.
 */
#ifndef VT_ROUTE_REPAIR_FORCED_LIDS_H
#define VT_ROUTE_REPAIR_FORCED_LIDS_H

#include "repair/vt_route_repair_int.h"

/*
 * Into r->t (holding the fresh tables): per CA LID, every switch with an
 * up*-down* route to it keeps its previous entry where that starts a
 * shortest one and CA traffic to the LID crossed it before if it does now;
 * else it takes the port of such a route whose CA LIDs' ranks are farthest
 * from the LID's, up to r->how.forced_lids ranks, then that carries the
 * fewest CA LIDs (a LID outside the ranks: vt_forced_any_length). The other
 * switches keep the fresh entry (the caller then
 * keeps previous ones where they serve; with VT_FORCED_FAR only where
 * r->fixed, set here, does not hold the entry). Uses r->used_now. -1 when
 * out of memory.
 */
int vt_repair_forced_lids(struct repair *r);

/*
 * r->how.forced_lids for no rank limit: the farthest port, and where a lost
 * link leaves its switch on a shortest route (one of parallel links), the
 * farthest of the links into the switch's children (the far lane), its
 * entries kept from the caller's keep_lid.
 */
#define VT_FORCED_FAR 255u

/*
 * r->how.forced_lids for a rank limit of 2 where a switch that CA traffic to a
 * LID crosses going up now and did not before takes the port it takes for
 * the LID's leaf's other CA LIDs (vt_route_repair_forced_lids.c), its
 * entries kept from the caller's keep_lid.
 */
#define VT_FORCED_SIBLING 254u

/* Does candidate r->how leave keep_lid the entries r->fixed holds? */
static inline int vt_forced_fixes(const struct repair *r)
{
	return r->how.forced_lids == VT_FORCED_FAR || r->how.forced_lids == VT_FORCED_SIBLING;
}

/*
 * May a forced-lids candidate keep a previous route to CA LID lid that is
 * longer than the fresh one, as a switch LID's: a LID outside the
 * compute-node order (aggregation nodes, I/O), whose traffic the shift guard
 * does not count, under VT_REPAIR_GUARDED (VT_REPAIR_MINIMAL keeps every CA
 * route no longer). vt_repair_forced_lids then moves only its entries whose
 * link is lost and leaves the others to keep_lid: real-shaped pruned 36,6,
 * the first level-1 switch down, 37127 -> 9818 entries (forced 6195), shift
 * over the ranks 2/1.98 (fresh 2/1.99), the every-source audit clean.
 */
static inline int vt_forced_any_length(const struct repair *r, uint32_t lid)
{
	return r->how.forced_lids && r->policy == VT_REPAIR_GUARDED && r->nrank &&
	       r->rank_of_lid[lid] == VT_NONE;
}

/*
 * Can VT_FORCED_FAR move a destination to the far link: has a switch that
 * still starts a shortest up*-down* route down to a CA LID lost the link its
 * previous entry for it took? 1, 0, -1 when out of memory.
 */
int vt_repair_far_applies(const struct repair *r);

#endif
