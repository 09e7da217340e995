/* SPDX-License-Identifier: MIT */
/* Dinic's max flow (vt_maxflow.h). */
#include "base/vt_maxflow.h"

#include <stdlib.h>
#include <string.h>

#define NO_ARC UINT32_MAX

int vt_maxflow_init(vt_maxflow *g, size_t nodes, size_t arcs)
{
	memset(g, 0, sizeof(*g));
	g->head = malloc((nodes + 1) * sizeof(*g->head));
	g->level = malloc((nodes + 1) * sizeof(*g->level));
	g->queue = malloc((nodes + 1) * sizeof(*g->queue));
	g->it = malloc((nodes + 1) * sizeof(*g->it));
	g->next = malloc((arcs + 1) * sizeof(*g->next));
	g->to = malloc((arcs + 1) * sizeof(*g->to));
	g->cap = malloc((arcs + 1) * sizeof(*g->cap));
	if (g->head && g->level && g->queue && g->it && g->next && g->to && g->cap)
		return 0;
	vt_maxflow_free(g);
	return -1;
}

void vt_maxflow_free(vt_maxflow *g)
{
	free(g->head);
	free(g->level);
	free(g->queue);
	free(g->it);
	free(g->next);
	free(g->to);
	free(g->cap);
	memset(g, 0, sizeof(*g));
}

void vt_maxflow_reset(vt_maxflow *g, uint32_t nn)
{
	g->nn = nn;
	g->na = 0;
	for (uint32_t x = 0; x < nn; x++)
		g->head[x] = NO_ARC;
}

void vt_maxflow_arc(vt_maxflow *g, uint32_t a, uint32_t b, uint64_t ab, uint64_t ba)
{
	g->to[g->na] = b;
	g->cap[g->na] = ab;
	g->next[g->na] = g->head[a];
	g->head[a] = g->na++;
	g->to[g->na] = a;
	g->cap[g->na] = ba;
	g->next[g->na] = g->head[b];
	g->head[b] = g->na++;
}

/* BFS levels from src over arcs with room; 1 when snk is reached. */
static int levels(vt_maxflow *g, uint32_t src, uint32_t snk)
{
	uint32_t nq = 0;

	for (uint32_t x = 0; x < g->nn; x++)
		g->level[x] = UINT32_MAX;
	g->level[src] = 0;
	g->queue[nq++] = src;
	for (uint32_t h = 0; h < nq; h++)
		for (uint32_t a = g->head[g->queue[h]]; a != NO_ARC; a = g->next[a])
			if (g->cap[a] && g->level[g->to[a]] == UINT32_MAX) {
				g->level[g->to[a]] = g->level[g->queue[h]] + 1;
				g->queue[nq++] = g->to[a];
			}
	return g->level[snk] != UINT32_MAX;
}

/* Up to lim more from x down the levels to snk; how much went. Paths are short (tree heights). */
static uint64_t push(vt_maxflow *g, uint32_t x, uint32_t snk, uint64_t lim)
{
	if (x == snk)
		return lim;
	for (; g->it[x] != NO_ARC; g->it[x] = g->next[g->it[x]]) {
		uint32_t a = g->it[x], y = g->to[a];
		uint64_t got;

		if (!g->cap[a] || g->level[y] != g->level[x] + 1)
			continue;
		got = push(g, y, snk, lim < g->cap[a] ? lim : g->cap[a]);
		if (got) {
			g->cap[a] -= got;
			g->cap[a ^ 1] += got;
			return got;
		}
	}
	return 0;
}

uint64_t vt_maxflow_run(vt_maxflow *g, uint32_t src, uint32_t snk, uint64_t most)
{
	uint64_t got = 0, f;

	while (got < most && levels(g, src, snk)) {
		memcpy(g->it, g->head, g->nn * sizeof(*g->it));
		while (got < most && (f = push(g, src, snk, most - got)))
			got += f;
	}
	return got;
}
