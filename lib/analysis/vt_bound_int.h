/* SPDX-License-Identifier: MIT */
/* Private to lib/analysis: the cut bound's link counts (vt_bound_flow.c). */
#ifndef VT_BOUND_INT_H
#define VT_BOUND_INT_H

#include <stdint.h>

#include "analysis/vt_bound.h"
#include "analysis/vt_routes.h"
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

/* The leaf-pair bound (vt_bound_pair.c). */
int vt_cut_pairs_init(struct vt_cut_pairs *p, const vt_routes *r);
void vt_cut_pairs_free(struct vt_cut_pairs *p);

/* One stage's flows between leaves, as pairs (u, v, d flows), and per leaf out and in. */
struct vt_pair_work {
	uint32_t *out, *in; /* per switch */
	uint32_t *at;	    /* per switch v: the pair (u, v) of the u counted last, or VT_NONE */
	uint32_t np, maxpairs, *u, *v, *d, *cap;
};

/* Room for maxpairs pairs; -1 when out of memory. */
int vt_pair_work_init(struct vt_pair_work *w, const struct vt_cut_pairs *p, uint32_t maxpairs);
void vt_pair_work_free(struct vt_pair_work *w);
/* d more flows from leaf u to leaf v (none when u == v); a u's pairs counted together merge. */
void vt_pair_add(struct vt_pair_work *w, uint32_t u, uint32_t v, uint32_t d);
void vt_pair_reset(struct vt_pair_work *w);
/* The least L >= L0 at which the counted flows pass (L0 when they pass at L0). */
uint32_t vt_pair_bound(const struct vt_cut_pairs *p, struct vt_pair_work *w, uint32_t L0);
/* max(L0, the bound) for one stage's flows (L0 when out of memory). */
uint32_t vt_pair_bound_flows(const struct vt_cut_pairs *p, const struct vt_flow *fl, uint32_t nfl,
			     uint32_t L0);
/* max(L0, the bound) for all2all (L0 past 2^22 leaf pairs or out of memory). */
uint32_t vt_pair_bound_all2all(const struct vt_cut_pairs *p, uint32_t L0);
/* Called per stage with its leaf pairs counted; i: the stage's index from first. */
typedef void (*vt_pair_stage_fn)(void *ctx, struct vt_pair_work *w, uint32_t i);
/* Shifts first .. first + K - 1, their leaf pairs counted from the rank runs; -1 out of memory. */
int vt_pair_shift_each(const struct vt_cut_pairs *p, const vt_routes *r, uint32_t first, uint32_t K,
		       vt_pair_stage_fn fn, void *ctx);
/* bound[s - first] raised to the bound of shift s, s in first .. first + K - 1; -1 out of memory.
 */
int vt_pair_bound_shift(const struct vt_cut_pairs *p, const vt_routes *r, uint32_t first,
			uint32_t K, uint32_t *bound);

/* The up*-down* bound's networks (vt_bound_climb.c); -1 when out of memory. */
int vt_cut_climb_init(struct vt_cut_climb *cl, const vt_routes *r, const vt_tree *t);
void vt_cut_climb_free(struct vt_cut_climb *cl);

#endif
