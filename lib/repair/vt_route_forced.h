/* SPDX-License-Identifier: MIT */
/*
 * The forced minimum of table changes after a fault: the previous sweep's
 * entries that no repair may keep, because the link their port used is gone
 * or because no deadlock-free route starts with that port any more.
 *
 * Legal routes (the rule vartree's routing follows, vt_route_turn.c): up*-
 * down* between tree levels, with down-up turns only at turn switches. The
 * turn switches here are those at which the previous or the fresh tables turn
 * some route down and then up (vartree's turn leaf and those of its ancestors
 * its detours use). An entry of switch s for LID d, port p to switch n, must
 * change iff p's link is gone (or leads to a CA that is not d's), or
 *   - s->n goes down and n, entered from above, can reach d going only down,
 *     turning up again only at a turn switch, and then up*-down*; or
 *   - s->n goes up and n can reach d legally from there
 * fail. Every entry carries the switch's own traffic (the every-source audit),
 * so each such entry changes whatever else does: the count is a lower bound
 * on the changes of any repair that turns only where one of the two routings
 * turns. Entries whose switch or next switch lies outside the tree levels, or
 * that cross a link between switches of one level, are never counted forced.
 *
 * It is no bound for a repair that keeps shift: a kept entry counts as legal
 * however long the route it starts. Pruned 36,12 with a level-1 switch down
 * (forced 6228): the dead switch's six tops lost their only link into its
 * pod, so every other pod's leaves send 18 of that pod's LIDs each up a
 * column that reaches them only down to the turn leaf and up again (8
 * switch hops for 4); counted legal, those 3564 entries stay in --repair
 * fewest (6606 entries, shift 19/17.5 against the fresh 3/2.03). With CA
 * routes kept shortest, 9378 CA entries must change (no shortest route from
 * the previous port, or the link lost; counted with an independent walk of
 * the tables), 324 more at the turn leaf's sibling of the dead switch, whose
 * tops must now send the pod's LIDs down through it, and some 400 switch
 * LIDs' entries: about 10100, 1.62 times this count (the repair: 10586).
 */
#ifndef VT_ROUTE_FORCED_H
#define VT_ROUTE_FORCED_H

#include <stdint.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "model/vt_lft.h"

struct vt_forced {
	/* entries (and 64-LID blocks holding one) whose port lost its link */
	uint64_t lost, lost_blocks;
	/* those and the entries with no legal continuation: the forced minimum */
	uint64_t forced, forced_blocks;
};

/*
 * prev: the previous tables mapped onto f; fresh: f's fresh routing (its turns
 * count as allowed); level: per switch ordinal, its tree level (VT_TREE_OUTSIDE outside
 * the tree). Counts only LIDs still in f. -1 when out of memory.
 */
int vt_route_forced(const vt_fabric *f, const vt_lfts *prev, const vt_lfts *fresh,
		    const uint8_t *level, struct vt_forced *out, vt_err *e);

#endif
