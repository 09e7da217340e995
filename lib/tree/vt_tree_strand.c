/* SPDX-License-Identifier: MIT */
/*
 * A switch stranded between levels: a failed top took every up-link of a
 * switch whose switches below keep theirs (a level-1 switch of a pruned tree
 * whose one top, over parallel links, is gone; or its up-links cut). Counted down from the roots it
 * lands below its own leaves, which then read as hanging off level 1: the
 * refusal names the stranded switch instead. Routing it is no option: giving
 * it its level from the leaves closes a credit loop towards its own LID.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree/vt_tree_int.h"

/* Hops from the leaves over switch links into dist (VT_NONE: unreached); q is scratch. */
static void leaf_hops(const vt_tree *t, const uint8_t *is_leaf, uint32_t *dist, uint32_t *q)
{
	uint32_t nq = 0;

	memset(dist, 0xff, t->nsw * sizeof(*dist));
	for (uint32_t s = 0; s < t->nsw; s++)
		if (is_leaf[s]) {
			dist[s] = 0;
			q[nq++] = s;
		}
	vt_tree_bfs(t->f, q, nq, dist);
}

/* The switches the roots (top level) reach going down only (one hop nearer the leaves each). */
static void down_from_roots(const vt_tree *t, const uint32_t *dist, uint8_t *down, uint32_t *q)
{
	const vt_fabric *f = t->f;
	uint32_t nq = 0;

	for (uint32_t s = 0; s < t->nsw; s++)
		if (t->level[s] == t->nlevels - 1) {
			down[s] = 1;
			q[nq++] = s;
		}
	for (uint32_t h = 0; h < nq; h++) {
		uint32_t x = q[h], node = f->switches[x];

		for (unsigned p = 1; dist[x] != VT_NONE && p <= f->nodes[node].nports; p++) {
			uint32_t r = vt_tree_peer_sw(f, vt_port_index(f, node, p));

			if (r != VT_NONE && !down[r] && dist[r] + 1 == dist[x]) {
				down[r] = 1;
				q[nq++] = r;
			}
		}
	}
}

/*
 * Is s stranded: no root reaches it going down, every switch link of s goes
 * down (towards the leaves) to a switch the roots reach, or to a leaf they
 * do not (its other up-links failed too, or lead to stranded switches), at
 * least one the former, and counted from the roots it lies below every leaf
 * they reach? *orphan: the first such leaf, VT_NONE when none.
 */
static int stranded(const vt_tree *t, const uint8_t *is_leaf, const uint32_t *dist,
		    const uint8_t *down, uint32_t lowest, uint32_t s, uint32_t *orphan)
{
	const vt_fabric *f = t->f;
	uint32_t node = f->switches[s], kept = 0;

	*orphan = VT_NONE;
	if (is_leaf[s] || down[s] || t->level[s] == VT_TREE_OUTSIDE || t->level[s] >= lowest ||
	    dist[s] == VT_NONE || !dist[s])
		return 0;
	for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
		uint32_t r = vt_tree_peer_sw(f, vt_port_index(f, node, p));

		if (r == VT_NONE)
			continue;
		if (dist[r] + 1 != dist[s] || !(down[r] || is_leaf[r]))
			return 0;
		kept += down[r];
		if (!down[r] && *orphan == VT_NONE)
			*orphan = r;
	}
	return kept > 0;
}

/*
 * The stranded switch to name, into *orphan its leaf with no other way up:
 * the first with such a leaf (that leaf made the levels skew), else the
 * first; VT_NONE when none is stranded.
 */
static uint32_t first_stranded(const vt_tree *t, const uint8_t *is_leaf, const uint32_t *dist,
			       const uint8_t *down, uint32_t lowest, uint32_t *orphan)
{
	uint32_t found = VT_NONE, leaf;

	*orphan = VT_NONE;
	for (uint32_t s = 0; s < t->nsw && *orphan == VT_NONE; s++)
		if (stranded(t, is_leaf, dist, down, lowest, s, &leaf) &&
		    (found == VT_NONE || leaf != VT_NONE)) {
			found = s;
			*orphan = leaf;
		}
	return found;
}

int vt_tree_refuse_stranded(vt_tree *t, const uint8_t *is_leaf, vt_err *e)
{
	uint32_t *dist = malloc((t->nsw + 1) * sizeof(*dist)),
		 *q = malloc((t->nsw + 1) * sizeof(*q));
	uint8_t *down = calloc(t->nsw + 1, 1);
	uint32_t lowest = VT_TREE_OUTSIDE, s, leaf;
	char a[300], nm[VT_NODE_NAME_MAX], b[VT_NODE_NAME_MAX + 40] = "";

	if (!dist || !q || !down) {
		free(dist);
		free(q);
		free(down);
		return vt_err_nomem(e, "out of memory");
	}
	leaf_hops(t, is_leaf, dist, q);
	down_from_roots(t, dist, down, q);
	for (uint32_t x = 0; x < t->nsw; x++)
		if (is_leaf[x] && down[x] && t->level[x] < lowest)
			lowest = t->level[x];
	s = first_stranded(t, is_leaf, dist, down, lowest, &leaf);
	free(dist);
	free(q);
	free(down);
	if (s == VT_NONE)
		return 0;
	if (leaf != VT_NONE)
		snprintf(b, sizeof(b), ", and its leaf %s has no other way up",
			 vt_node_name(t->f, t->f->switches[leaf], nm, sizeof(nm)));
	return vt_err_node(
		e, t->f, t->f->switches[s], 0,
		"switch %s has no up-link left but switches below it have others: a "
		"failed top (or its failed up-links) cut it off%s; vartree routes no tree "
		"with a switch stranded between levels",
		vt_node_name(t->f, t->f->switches[s], a, sizeof(a)), b);
}
