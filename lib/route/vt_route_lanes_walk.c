/* SPDX-License-Identifier: MIT */
/*
 * The lanes' guard (vt_route_lanes.c): plane t's tables walked through a
 * shift, and its compute LIDs' entries saved and restored, so that lanes
 * are kept only where they beat the tables as routed.
 */
#include <stdlib.h>

#include "route/vt_route_int.h"

/* Switch-to-switch hops a route of a three-level tree takes, with room: the guard's walk. */
#define LANES_MAX_HOPS 8

/*
 * The shift figures of plane t's tables for its compute nodes (the worst
 * stage's most loaded link, and the sum of the stages' most loaded links),
 * walked through the tables: the guard that keeps lanes only where they
 * beat the tables as routed (a chassis that lost half its spines takes half
 * the lanes on half the links: cores 2,6,2,12,10 --drop-switches 1 went
 * 3/2.13 -> 3/2.82). 0 when out of memory.
 */
int vt_route_lanes_shift(const struct router *r, const vt_tree *t, uint32_t *worst, uint64_t *sum)
{
	const vt_fabric *f = r->f;
	uint32_t n = t->order.n;
	uint16_t *load = calloc(f->nports + 1, sizeof(*load));
	uint32_t *hit = malloc(((size_t)n * LANES_MAX_HOPS + 1) * sizeof(*hit));

	*worst = 0;
	*sum = 0;
	for (uint32_t k = 1; load && hit && k < n; k++) {
		uint32_t m = 1, nh = 0; /* a host link's */

		for (uint32_t i = 0; i < n; i++) {
			uint32_t d = (i + k) % n, s = t->rank_leaf[i], lid;

			if (t->order.port[i] == VT_NONE || t->order.port[d] == VT_NONE)
				continue;
			lid = f->ports[t->order.port[d]].lid;
			for (uint32_t h = 0; lid && h < LANES_MAX_HOPS; h++) {
				uint8_t p = vt_lft_get(r->lfts, s, lid);
				uint32_t q, peer;

				if (p == VT_LFT_NONE || !p)
					break;
				q = swport(r, s, p);
				peer = f->ports[q].peer;
				if (peer == VT_NONE ||
				    f->nodes[f->ports[peer].node].type != VT_SWITCH)
					break;
				m = ++load[q] > m ? load[q] : m;
				hit[nh++] = q;
				s = f->nodes[f->ports[peer].node].sw;
			}
		}
		while (nh)
			load[hit[--nh]] = 0;
		*worst = m > *worst ? m : *worst;
		*sum += m;
	}
	free(hit);
	free(load);
	return *worst != 0;
}

/* Every entry of plane t's switches for the compute nodes' LIDs, saved (w) or restored. */
void vt_route_lanes_keep(struct router *r, const vt_tree *t, uint8_t *old, int w)
{
	uint32_t nsw = t->lvl_start[t->nlevels];

	for (uint32_t d = 0; d < t->order.n; d++) {
		uint32_t lid = t->order.port[d] == VT_NONE ? 0 : r->f->ports[t->order.port[d]].lid;

		for (uint32_t i = 0; lid && i < nsw; i++) {
			uint8_t *o = &old[(size_t)d * nsw + i];

			if (w)
				*o = vt_lft_get(r->lfts, t->by_level[i], lid);
			else
				vt_lft_set(r->lfts, t->by_level[i], lid, *o);
		}
	}
}
