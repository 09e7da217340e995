/* SPDX-License-Identifier: MIT */
/*
 * The repair's figures (vt_route_repair.c is the mechanism): changes against
 * the previous tables, the entries that must change, a heal, the tree levels.
 */
#ifndef VT_ROUTE_REPAIR_STATS_H
#define VT_ROUTE_REPAIR_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "model/vt_lft.h"
#include "route/vt_route.h"
#include "repair/vt_repair.h"

/* Is port p of switch s the switch itself (0) or linked? */
static inline int vt_repair_port_up(const vt_fabric *f, uint32_t s, unsigned p)
{
	const struct vt_node *n = &f->nodes[f->switches[s]];

	return p == 0 || (p <= n->nports && f->ports[n->first_port + p].peer != VT_NONE);
}

/*
 * down[p] for every port number p (256): is an entry of switch s with port p
 * one whose link is gone (not VT_LFT_NONE, not port 0, not linked)? The
 * per-entry vt_repair_port_up looked up the fabric's records at every entry.
 */
static inline void vt_repair_ports_down(const vt_fabric *f, uint32_t s, uint8_t *down)
{
	for (unsigned p = 0; p < 256; p++)
		down[p] = p != VT_LFT_NONE && !vt_repair_port_up(f, s, p);
}

/*
 * Entries and 64-LID blocks of t that differ from prev, for the LIDs still in
 * the fabric (those that left change alike under any routing).
 */
void vt_repair_count_changes(const vt_fabric *f, const vt_lfts *prev, const vt_lfts *t,
			     uint64_t *changed, uint64_t *blocks);
/* Entries that must change: prev's port lost its link (LIDs still in the fabric). */
uint64_t vt_repair_forced_lost(const vt_fabric *f, const vt_lfts *prev);
/*
 * Did the fabric gain something since prev: a switch prev has no table for,
 * a LID the fresh tables t route and prev does not, or a port t uses that no
 * previous entry of its switch used? Says which in why.
 */
int vt_repair_gained(const vt_fabric *f, const vt_lfts *prev, const vt_lfts *t, char *why,
		     size_t len);
/* Switch levels of every plane's tree (VT_TREE_OUTSIDE outside): -1 with e. */
int vt_repair_tree_levels(const vt_fabric *f, uint8_t *level, vt_err *e);

#endif
