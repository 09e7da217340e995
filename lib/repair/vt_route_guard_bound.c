/* SPDX-License-Identifier: MIT */
/*
 * The guard's yardstick without a count of the fresh tables (vt_route_guard.h):
 * the cut bound per shift stage (vt_bound.h) over the subtrees the switch
 * levels give, each subtree's links its cables out of it. Fewer cables may
 * separate its hosts from the rest (vt_cuts_tree counts those by a max-flow
 * per subtree, 7 ms on pruned 36,12 and 70 ms on pruned 36,36), so this
 * bound may be lower, never higher: every flow out of a subtree leaves over
 * one of its cables. The leaf-pair bound is left out too (split cores; on the
 * six faults of tests/bench/fault.sh it adds nothing and costs 18 ms).
 */
#include "repair/vt_route_guard.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/vt_bound.h"
#include "base/vt_uf.h"
#include "tree/vt_tree.h"

/* Is switch s inside the level-l subtrees (its level l or below)? */
static int below(const uint8_t *level, uint32_t s, uint32_t l)
{
	return level[s] != VT_TREE_OUTSIDE && level[s] <= l;
}

/*
 * The level-l cuts from id *next on: the switches at level l or below joined
 * by their cables (up[]: union-find), each part's cables out of it into
 * c->links, and the ranks on its switches into c->member's level-l row.
 */
static void level_cuts(vt_cuts *c, const vt_routes *r, const uint8_t *level, uint32_t l,
		       uint32_t *up, uint32_t *id, uint32_t *next)
{
	const vt_fabric *f = r->f;

	vt_uf_init(up, r->nsw);
	for (uint32_t s = 0; s < r->nsw; s++)
		id[s] = VT_NONE;
	for (uint32_t s = 0; s < r->nsw; s++) {
		const struct vt_node *nd = &f->nodes[f->switches[s]];

		for (unsigned p = 1; below(level, s, l) && p <= nd->nports; p++) {
			uint32_t q = vt_peer_switch(f, nd->first_port + p);

			if (q != VT_NONE && below(level, q, l))
				vt_uf_union_into(up, s, q);
		}
	}
	for (uint32_t s = 0; s < r->nsw; s++) {
		const struct vt_node *nd = &f->nodes[f->switches[s]];
		uint32_t root;

		if (!below(level, s, l))
			continue;
		root = vt_uf_find(up, s);
		if (id[root] == VT_NONE)
			id[root] = (*next)++;
		for (unsigned p = 1; p <= nd->nports; p++) {
			uint32_t q = vt_peer_switch(f, nd->first_port + p);

			if (q != VT_NONE && !below(level, q, l))
				c->links[id[root]]++;
		}
	}
	for (uint32_t a = 0; a < r->n; a++) {
		uint32_t s = r->rank_sw[a];

		if (s != VT_NONE && below(level, s, l))
			c->member[(size_t)l * r->n + a] = id[vt_uf_find(up, s)];
	}
}

/* The cuts of every level below the top; -1 when out of memory. */
static int guard_cuts(vt_cuts *c, const vt_routes *r, const uint8_t *level)
{
	uint32_t top = 0, next = 0, *up = malloc(((size_t)r->nsw + 1) * sizeof(*up)),
		 *id = malloc(((size_t)r->nsw + 1) * sizeof(*id));

	for (uint32_t s = 0; s < r->nsw; s++)
		if (level[s] != VT_TREE_OUTSIDE && level[s] > top)
			top = level[s];
	memset(c, 0, sizeof(*c));
	c->n = r->n;
	c->nlevels = top ? top : 1;
	c->ncuts = c->nlevels * r->nsw; /* at most a cut per switch and level */
	c->member = malloc(((size_t)r->n * c->nlevels + 1) * sizeof(*c->member));
	c->links = calloc((size_t)c->ncuts + 1, sizeof(*c->links));
	if (!up || !id || !c->member || !c->links) {
		free(up);
		free(id);
		return -1;
	}
	memset(c->member, 0xff, (size_t)r->n * c->nlevels * sizeof(*c->member));
	for (uint32_t l = 0; l < c->nlevels; l++)
		level_cuts(c, r, level, l, up, id, &next);
	c->ncuts = next;
	free(up);
	free(id);
	return 0;
}

int vt_repair_guard_bound(const vt_fabric *f, const vt_order *o, const uint8_t *level,
			  uint32_t *bound, vt_err *e)
{
	vt_routes r;
	vt_cuts c;
	int rc;

	if (o->n)
		bound[0] = 0;
	if (o->n < 2)
		return 0;
	if (vt_routes_ranks(&r, f, o, e))
		return -1;
	if (guard_cuts(&c, &r, level))
		rc = vt_err_nomem(e, "out of memory for the cut bound of %u ranks", o->n);
	else
		rc = vt_bound_shift(&c, &r, 1, o->n - 1, bound + 1, e);
	vt_cuts_free(&c);
	vt_routes_free(&r);
	return rc;
}
