/* SPDX-License-Identifier: MIT */
/*
 * After a heal (policy; vt_route_repair.c calls it when the fabric gained
 * something since the previous tables): do the previous tables stay?
 */
#ifndef VT_ROUTE_HEAL_H
#define VT_ROUTE_HEAL_H

#include "model/vt_fabric.h"
#include "model/vt_lft.h"
#include "model/vt_order.h"
#include "repair/vt_repair.h"

/*
 * The fabric gained a link or switch since prev, and lfts holds its fresh
 * tables. Where prev still routes every LID on every switch, passes every
 * every-source audit the fresh tables pass and congests shift over order's
 * ranks no more than they do (VT_REPAIR_MINIMAL: and no CA route is longer),
 * the part that came back is not needed: a link that flapped back while
 * another fault stays. Else the same for prev with the fresh routes that
 * cross what came back (from the first switch whose fresh route crosses it
 * on to the LID). lfts then takes the tables that passed (st->mode
 * VT_REPAIR_KEPT) and 1 is returned. Where the latter are no nearer prev
 * than the fresh tables (told before any shift count) the heal is whole, and
 * a whole heal gives the fresh tables, which on the whole tree congest less
 * than tables routed around the fault (fat 8,3: shift 1/1.00 against
 * 2/1.98): 0, lfts unchanged, the reason added to st->why. Without
 * order (no shift to compare) the fresh tables stay. -1 when out of memory.
 */
int vt_repair_heal_keep(const vt_fabric *f, const vt_lfts *prev, vt_lfts *lfts,
			const vt_order *order, enum vt_repair_policy policy,
			struct vt_repair_stats *st, vt_err *e);

/*
 * Nothing a previous entry uses was lost and nothing was gained: 1 when prev
 * stands whole (lfts then holds it, st counted), 0 when the repair must run
 * (also where a CA left and prev congests shift over order's ranks more than
 * the fresh tables), -1 (vt_route_repair.c, which calls it before its
 * candidates).
 */
int vt_repair_keep_unchanged(const vt_fabric *f, const vt_lfts *prev, vt_lfts *lfts,
			     const vt_order *order, enum vt_repair_policy policy,
			     struct vt_repair_stats *st, vt_err *e);

#endif
