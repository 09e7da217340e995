/* SPDX-License-Identifier: MIT */
/*
 * Switch classes (struct cls): switches of one level with the same parents
 * in the same order (up classes) or the same children (down classes). Their
 * candidates towards any destination are the same, so a plan
 * (vt_route_plan.c) and a detour (vt_route_detour.c) find them once per class.
 */
#include "vt_route_internal.h"

#include <stdlib.h>
#include <string.h>

static int same_run(const vt_tree *t, const uint32_t *start, const uint32_t *peer, uint32_t a,
		    uint32_t b)
{
	uint32_t n = start[a + 1] - start[a];

	return t->level[a] == t->level[b] && start[b + 1] - start[b] == n &&
	       !memcmp(&peer[start[a]], &peer[start[b]], n * sizeof(*peer));
}

/*
 * Groups the switches of tree t by level and peer run (up_peer[] or dn_peer[]
 * with its start[] offsets): cls[s] per switch, k[] the classes' first
 * members, found through a hash table. Returns the number of classes, VT_NONE
 * when out of memory.
 */
static uint32_t classify(const vt_tree *t, const uint32_t *start, const uint32_t *peer,
			 uint32_t *cls, struct cls *k)
{
	uint32_t cap = 2, nk = 0, *slot;

	while (cap < 2 * t->nsw)
		cap *= 2;
	slot = malloc(cap * sizeof(*slot));
	if (!slot)
		return VT_NONE;
	memset(slot, 0xFF, cap * sizeof(*slot));
	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[t->nlevels]; i++) {
		uint32_t s = t->by_level[i], hv = 2166136261u * 16777619u ^ t->level[s], q;

		for (uint32_t j = start[s]; j < start[s + 1]; j++)
			hv = (hv ^ peer[j]) * 16777619u;
		for (q = hv & (cap - 1); slot[q] != VT_NONE; q = (q + 1) & (cap - 1))
			if (same_run(t, start, peer, k[slot[q]].rep, s))
				break;
		if (slot[q] == VT_NONE) {
			slot[q] = nk;
			k[nk] = (struct cls){.rep = s};
			nk++;
		}
		cls[s] = slot[q];
	}
	free(slot);
	return nk;
}

/* The up and down classes of plane t. */
int vt_route_classes(struct router *r, const vt_tree *t, vt_err *e)
{
	struct route_classes *c = &r->cls;

	if (classify(t, t->up_start, t->up_peer, c->ucls, c->ucl) == VT_NONE ||
	    classify(t, t->dn_start, t->dn_peer, c->dcls, c->dcl) == VT_NONE)
		return vt_err_set(e, "out of memory");
	return 0;
}
