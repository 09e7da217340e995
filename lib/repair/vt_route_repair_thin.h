/* SPDX-License-Identifier: MIT */
/*
 * The repair's last pass over a candidate that stood (vt_route_repair_thin.c):
 * its CA LIDs' columns given back their previous entries where the shift
 * guard still passes. Internal to lib/repair.
 */
#ifndef VT_ROUTE_REPAIR_THIN_H
#define VT_ROUTE_REPAIR_THIN_H

#include "repair/vt_route_guard.h"
#include "repair/vt_route_repair_int.h"
#include "repair/vt_repair.h"

/*
 * r->t stood (the guard and the audit passed it) with *changed entries in
 * *blocks. Per CA LID, the entries r->t moved off a previous port that is
 * still linked go back to it where vt_repair_try_port_at lets them (the
 * route whole, no longer, no new turn) and the guard g still passes the
 * tables; the result is then proved or audited once more, and where that
 * fails r->t is the candidate that stood. Only under VT_REPAIR_GUARDED and
 * where *changed is over 1.5 times st->minimum (as fewer_forced asks), so
 * the candidates that stand close to the lost entries cost nothing more.
 * A step "thin" in st. 0, -1 with e.
 */
int vt_repair_thin(struct repair *r, struct repair_guard *g, struct vt_repair_stats *st,
		   uint64_t *changed, uint64_t *blocks, vt_err *e);

#endif
