/* SPDX-License-Identifier: MIT */
/* Private to lib/analysis: the cut bound's link counts (vt_bound_flow.c). */
#ifndef VT_BOUND_INT_H
#define VT_BOUND_INT_H

#include <stdint.h>

#include "model/vt_fabric.h"

/* Scratch for vt_bound_cut_links, sized for one fabric. */
struct vt_cut_flow {
	uint8_t *side;	/* per switch: 1 holds the cut's hosts, 2 other hosts, 0 neither */
	int8_t *flow;	/* per port: net flow out of it over its cable */
	uint32_t *q;	/* per switch: BFS queue */
	uint32_t *via;	/* per switch: its BFS level from the cut's switches */
	unsigned *next; /* per switch: the port a path tries next */
};

int vt_cut_flow_init(struct vt_cut_flow *cf, const vt_fabric *f);
void vt_cut_flow_free(struct vt_cut_flow *cf);
/*
 * The fewest cables (counted up to most) that separate the switches of
 * side 1 from those of side 2 in cf->side: as many as there are
 * cable-disjoint paths (one flow per cable and direction) between them.
 */
uint32_t vt_bound_cut_links(const vt_fabric *f, uint32_t most, struct vt_cut_flow *cf);

#endif
