/* SPDX-License-Identifier: MIT */
/*
 * A switch stranded between levels: a failed top took every up-link of a
 * switch whose switches below keep theirs (a level-1 switch of a pruned tree
 * whose one top, over parallel links, is gone; or its up-links cut). Counted down from the roots it
 * lands below its own leaves, which then read as hanging off level 1: the
 * refusal names the stranded switch instead. Routing it is no option: giving
 * it its level from the leaves closes a credit loop towards its own LID.
 */
#include <stdlib.h>
#include <string.h>

#include "vt_tree.h"

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
 * down (towards the leaves) to a switch the roots do reach, and counted from
 * the roots it lies below every leaf?
 */
static int stranded(const vt_tree *t, const uint8_t *is_leaf, const uint32_t *dist,
		    const uint8_t *down, uint32_t lowest, uint32_t s)
{
	const vt_fabric *f = t->f;
	uint32_t node = f->switches[s], links = 0;

	if (is_leaf[s] || down[s] || t->level[s] == 0xFF || t->level[s] >= lowest ||
	    dist[s] == VT_NONE || !dist[s])
		return 0;
	for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
		uint32_t r = vt_tree_peer_sw(f, vt_port_index(f, node, p));

		if (r == VT_NONE)
			continue;
		if (dist[r] + 1 != dist[s] || !down[r])
			return 0;
		links++;
	}
	return links > 0;
}

int vt_tree_refuse_stranded(vt_tree *t, const uint8_t *is_leaf, vt_err *e)
{
	uint32_t *dist = malloc((t->nsw + 1) * sizeof(*dist)),
		 *q = malloc((t->nsw + 1) * sizeof(*q));
	uint8_t *down = calloc(t->nsw + 1, 1);
	uint32_t lowest = 0xFF, s = 0;
	char a[300];

	if (!dist || !q || !down) {
		free(dist);
		free(q);
		free(down);
		return vt_err_nomem(e, "out of memory");
	}
	for (uint32_t x = 0; x < t->nsw; x++)
		if (is_leaf[x] && t->level[x] < lowest)
			lowest = t->level[x];
	leaf_hops(t, is_leaf, dist, q);
	down_from_roots(t, dist, down, q);
	while (s < t->nsw && !stranded(t, is_leaf, dist, down, lowest, s))
		s++;
	free(dist);
	free(q);
	free(down);
	if (s == t->nsw)
		return 0;
	return vt_err_node(e, t->f, t->f->switches[s], 0,
			   "switch %s has no up-link left but switches below it have others: a "
			   "failed top (or its failed up-links) cut it off; vartree routes no tree "
			   "with a switch stranded between levels",
			   vt_node_name(t->f, t->f->switches[s], a, sizeof(a)));
}
