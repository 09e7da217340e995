/* SPDX-License-Identifier: MIT */
/*
 * The turn switch, vt_route's third try (deg.turn_switch): a Z for the
 * detours (vt_route_turn.c) that need not be a leaf. On a slender tree every
 * leaf and level-1 switch reaches the tops by two up-paths (a diamond), so
 * the turn leaf's argument does not hold, and a top that lost a link makes
 * it fail: its level-2 switch A, cut off from that top, turns down-up at its
 * child M (A down to M up to A's sibling B up to the top), and B's own route
 * to A's LID over a shared top T closes M -> B -> T -> A -> M with the CA
 * routes through M, B, T and A (slender 4:2,4 --drop-links 1@2 --seed 2).
 *
 * A switch Z that reaches each of its ancestors by one up-path and every
 * switch of the plane up-then-down (below the tops of a slender tree: one
 * linked to every top) gives the turn leaf's argument back: every detour
 * turns at Z (the tops come down into it and it goes up to the top that
 * has the way), and a chain of dependencies that leaves Z upwards comes
 * back down into it only by retracing its own steps.
 */
#include "route/vt_route_int.h"
#include "route/vt_route_policy.h"

#include <string.h>

/* Does s reach every switch of the tree by an up*-then-down* path? */
static int reaches_all(const vt_tree *t, uint32_t s)
{
	const uint64_t *row = &t->ureach[(size_t)s * t->bw];
	uint32_t n = 0;

	for (uint32_t w = 0; w < t->bw; w++)
		n += (uint32_t)__builtin_popcountll(row[w]);
	return n == t->lvl_start[t->nlevels];
}

/*
 * Does s reach each of its ancestors by one up-path only (parallel links
 * count as one)? seen and q: room for every switch, seen zeroed.
 */
static int one_up_path(const vt_tree *t, uint32_t s, uint8_t *seen, uint32_t *q)
{
	uint32_t nq = 0;
	int ok = 1;

	seen[s] = 1;
	q[nq++] = s;
	for (uint32_t h = 0; h < nq && ok; h++)
		for (uint32_t j = t->up_start[q[h]]; j < t->up_start[q[h] + 1] && ok; j++) {
			uint32_t p = t->up_peer[j];

			if (j > t->up_start[q[h]] && p == t->up_peer[j - 1])
				continue; /* parallel links: one up-path */
			ok = !seen[p];
			seen[p] = 1;
			q[nq++] = p;
		}
	for (uint32_t h = 0; h < nq; h++)
		seen[q[h]] = 0;
	return ok;
}

/*
 * The turn switch of plane t, of those that qualify the one the policy
 * ranks first (vt_route_turn_switch_better); VT_NONE when none does.
 * seen and q: room for every switch, seen zeroed.
 */
uint32_t vt_route_turn_switch(const vt_tree *t, uint8_t *seen, uint32_t *q)
{
	uint32_t best = VT_NONE;

	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[t->nlevels]; i++) {
		uint32_t s = t->by_level[i];

		if ((best == VT_NONE || vt_route_turn_switch_better(t, s, best)) &&
		    reaches_all(t, s) && one_up_path(t, s, seen, q))
			best = s;
	}
	return best;
}
