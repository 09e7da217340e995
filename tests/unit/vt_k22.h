/* SPDX-License-Identifier: MIT */
/*
 * A 2-ary-2-tree for table tests (hosts 0,1 on leaf A, 2,3 on leaf B, spines
 * X and Y) with minimal tables written by hand, every up-going flow on X:
 * tests break one entry and check what the code under test makes of it.
 */
#ifndef VT_K22_H
#define VT_K22_H

#include <stdint.h>

#include "model/vt_fabric.h"
#include "model/vt_lft.h"
#include "model/vt_order.h"

struct vt_k22 {
	vt_fabric *f;
	vt_lfts t;
	vt_order o;
	uint32_t leaf[2], spine[2], host[4]; /* node indices; hosts in leaf order */
};

void vt_k22_setup(struct vt_k22 *x);
void vt_k22_teardown(struct vt_k22 *x);
/* LID of host h (0..3). */
uint32_t vt_k22_lid(const struct vt_k22 *x, int h);
/* Sets node's entry for host h's LID to the port towards node `to`. */
void vt_k22_set(struct vt_k22 *x, uint32_t node, int h, uint32_t to);

#endif
