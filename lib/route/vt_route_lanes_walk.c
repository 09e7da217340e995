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
 * The memo's size (leaves x ranks x hops) past which the guard walks each
 * flow itself: every host of a leaf takes the leaf's route to a rank, so one
 * walk a leaf and rank serves all of them (cores 3,24,12,80,16: 16 hosts a
 * leaf).
 */
#define LANES_MAX_PATHS (1u << 23)

/* Switch s's route to lid through the tables: its ports (f->ports) in hop[], their count. */
static uint32_t walk_lid(const struct router *r, uint32_t s, uint32_t lid, uint32_t *hop)
{
	const vt_fabric *f = r->f;
	uint32_t nh = 0;

	for (uint32_t h = 0; lid && h < LANES_MAX_HOPS; h++) {
		uint8_t p = vt_lft_get(r->lfts, s, lid);
		uint32_t q, peer;

		if (p == VT_LFT_NONE || !p)
			break;
		q = swport(r, s, p);
		peer = f->ports[q].peer;
		if (peer == VT_NONE || f->nodes[f->ports[peer].node].type != VT_SWITCH)
			break;
		hop[nh++] = q;
		s = f->nodes[f->ports[peer].node].sw;
	}
	return nh;
}

/*
 * Every leaf's route to every compute rank (walk_lid; ends at VT_NONE), the
 * leaves numbered in lx[] (per switch); NULL past LANES_MAX_PATHS or out of
 * memory.
 */
static uint32_t *walk_paths(const struct router *r, const vt_tree *t, uint32_t *lx)
{
	uint32_t n = t->order.n, nleaf = 0, *path;

	for (uint32_t i = 0; i < n; i++)
		if (t->order.port[i] != VT_NONE && lx[t->rank_leaf[i]] == VT_NONE)
			lx[t->rank_leaf[i]] = nleaf++;
	if ((uint64_t)nleaf * n * (LANES_MAX_HOPS + 1) > LANES_MAX_PATHS)
		return NULL;
	path = malloc(((size_t)nleaf * n * (LANES_MAX_HOPS + 1) + 1) * sizeof(*path));
	for (uint32_t s = 0; path && s < r->f->nswitches; s++)
		for (uint32_t d = 0; lx[s] != VT_NONE && d < n; d++) {
			uint32_t *hop = &path[((size_t)lx[s] * n + d) * (LANES_MAX_HOPS + 1)];
			uint32_t lid =
				t->order.port[d] == VT_NONE ? 0 : r->f->ports[t->order.port[d]].lid;

			hop[walk_lid(r, s, lid, hop)] = VT_NONE;
		}
	return path;
}

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
	uint32_t n = t->order.n, *lx = malloc(((size_t)f->nswitches + 1) * sizeof(*lx)), *path;
	uint16_t *load = calloc(f->nports + 1, sizeof(*load));
	uint32_t *hit = malloc(((size_t)n * LANES_MAX_HOPS + 1) * sizeof(*hit));

	*worst = 0;
	*sum = 0;
	for (uint32_t s = 0; lx && s <= f->nswitches; s++)
		lx[s] = VT_NONE;
	path = lx ? walk_paths(r, t, lx) : NULL;
	for (uint32_t k = 1; load && hit && k < n; k++) {
		uint32_t m = 1, nh = 0; /* a host link's */

		for (uint32_t i = 0; i < n; i++) {
			uint32_t d = (i + k) % n, s = t->rank_leaf[i], lid,
				 mine[LANES_MAX_HOPS + 1];
			const uint32_t *hop = mine;

			if (t->order.port[i] == VT_NONE || t->order.port[d] == VT_NONE)
				continue;
			lid = f->ports[t->order.port[d]].lid;
			if (path)
				hop = &path[((size_t)lx[s] * n + d) * (LANES_MAX_HOPS + 1)];
			else
				mine[walk_lid(r, s, lid, mine)] = VT_NONE;
			for (uint32_t h = 0; hop[h] != VT_NONE; h++) {
				m = ++load[hop[h]] > m ? load[hop[h]] : m;
				hit[nh++] = hop[h];
			}
		}
		while (nh)
			load[hit[--nh]] = 0;
		*worst = m > *worst ? m : *worst;
		*sum += m;
	}
	free(path);
	free(lx);
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
