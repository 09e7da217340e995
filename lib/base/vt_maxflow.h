/* SPDX-License-Identifier: MIT */
/*
 * The one max flow of the core (Dinic's), over a flat arc list whose arcs
 * come in pairs (a, a ^ 1): the generators' bisection and the analyzer's
 * up*-down* bound build their networks on it.
 */
#ifndef VT_MAXFLOW_H
#define VT_MAXFLOW_H

#include <stddef.h>
#include <stdint.h>

typedef struct vt_maxflow {
	uint32_t nn, na; /* nodes in use, arcs added */
	uint32_t *head, *next, *to, *level, *queue, *it;
	uint64_t *cap; /* per arc: room left */
} vt_maxflow;

/* Room for nodes nodes and arcs arcs (both arcs of each pair); 0, -1 out of memory. */
int vt_maxflow_init(vt_maxflow *g, size_t nodes, size_t arcs);
void vt_maxflow_free(vt_maxflow *g);
/* An empty network of nn nodes. */
void vt_maxflow_reset(vt_maxflow *g, uint32_t nn);
/* An arc a -> b with room ab and its reverse with room ba. */
void vt_maxflow_arc(vt_maxflow *g, uint32_t a, uint32_t b, uint64_t ab, uint64_t ba);
/* Pushes up to most from src to snk; how much went. */
uint64_t vt_maxflow_run(vt_maxflow *g, uint32_t src, uint32_t snk, uint64_t most);

#endif
