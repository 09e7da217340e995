/* SPDX-License-Identifier: MIT */
/*
 * Host order: the index i that every communication pattern uses. Rank i is a
 * CA port (ports[] index) or a place-keeper (VT_NONE) for a compute node that
 * is missing, so a pattern keeps its shape and the missing rank stays idle.
 * File form is OpenSM's opensm-ftree-ca-order.dump: "0x%04x\t<desc>" per rank,
 * "0xFFFF\tDUMMY" for a place-keeper.
 */
#ifndef VT_ORDER_H
#define VT_ORDER_H

#include <stdint.h>
#include <stdio.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"

typedef struct vt_order {
	uint32_t n;	/* ranks, place-keepers included */
	uint32_t *port; /* ports[] index per rank, VT_NONE for a place-keeper */
} vt_order;

void vt_order_free(vt_order *o);
/*
 * Leaf-then-port order: switches with at least one CA in natural order of node
 * description (digit runs compared as numbers, ties by GUID), their CA-facing
 * ports in port order. SHArP aggregation nodes (vt_node_is_agg) are not hosts.
 */
int vt_order_leaf(vt_order *o, const vt_fabric *f, vt_err *e);
/* Sorts node indices into that natural order of descriptions. */
int vt_order_sort_nodes(const vt_fabric *f, uint32_t *nodes, uint32_t n, vt_err *e);
/* Writes the ca-order dump form. */
int vt_order_write(const vt_order *o, const vt_fabric *f, FILE *fp, vt_err *e);
/*
 * Reads an order file: the ca-order dump form (LIDs, DUMMY kept as place-keepers),
 * or one node per line given by id, description or GUID (0x...).
 */
int vt_order_read(vt_order *o, const vt_fabric *f, const char *path, vt_err *e);
/* Seeded random placement of the CA ports of o over its ranks (Fisher-Yates). */
void vt_order_shuffle(vt_order *o, uint64_t seed);

#endif
