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
 * fewest CA LIDs. The other switches keep the fresh entry (the caller then
 * keeps previous ones where they serve). Uses r->used_now. -1 when out of
 * memory.
 */
int vt_repair_forced_lids(struct repair *r);

#endif
