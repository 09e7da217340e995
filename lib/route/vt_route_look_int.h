/* SPDX-License-Identifier: MIT */
/*
 * The look-ahead's model of irregular two-level trees (struct route_look in
 * vt_route_int.h), shared by the plans (vt_route_lookahead.c) and the moves
 * that improve them (vt_route_lookahead_search.c).
 */
#ifndef VT_ROUTE_LOOK_INT_H
#define VT_ROUTE_LOOK_INT_H

#include "route/vt_route_int.h"
#include "route/vt_route_policy.h"

/* Leaf x linked to top k (indices)? */
static inline int linked(const struct route_look *lk, uint32_t x, uint32_t k)
{
	return lk->has[(size_t)x * lk->ns + k];
}

/* Leaf index of rank d's leaf. */
static inline uint32_t leaf_of(const struct router *r, uint32_t d)
{
	return r->look.idx[r->t->rank_leaf[d]];
}

/* The load cells of stage s: leaf x's up-link to top k, top k's down-link to leaf y. */
static inline uint32_t *up_cell(const struct route_look *lk, uint32_t s, uint32_t x, uint32_t k)
{
	return &lk->up[((size_t)s * lk->nl + x) * lk->ns + k];
}

static inline uint32_t *dn_cell(const struct route_look *lk, uint32_t s, uint32_t k, uint32_t y)
{
	return &lk->dn[((size_t)s * lk->ns + k) * lk->nl + y];
}

/* Rank d's choice of tops: per leaf, the top it goes up to (VT_NONE: none modelled). */
static inline uint32_t *tops_of(const struct route_look *lk, uint32_t d)
{
	return lk->c + (size_t)d * lk->nl;
}

/*
 * Adds w (a flow: VT_LOOK_Q; negative takes back) for every flow to rank d,
 * leaf x taking top c[x]; where c is NULL, only the narrow leaves' flows,
 * w spread over the tops each shares with d's leaf.
 */
void vt_route_look_add_flows(struct router *r, uint32_t d, const uint32_t *c, int32_t w);
/*
 * Rank d's tops as the tables have them (its base LID's entries at the
 * leaves) into its row; 0 when some leaf's entry is not a link to a top.
 */
int vt_route_look_table_tops(struct router *r, uint32_t d);
/*
 * The plan in the best rows (the tables' choice where got is 0) improved by
 * moves (vt_route_lookahead_search.c); where it then models a better shift
 * than *best, the best rows take it: 1; 0; -1 when out of memory.
 */
int vt_route_look_search(struct router *r, struct look_figures *best, int got);

#endif
