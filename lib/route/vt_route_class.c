/* SPDX-License-Identifier: MIT */
/*
 * Switch classes (struct cls): switches of one level with the same parents
 * in the same order (up classes) or the same children (down classes). Their
 * candidates towards any destination are the same, so a plan
 * (vt_route_plan.c) and a detour (vt_route_detour.c) find them once per class.
 */
#include "route/vt_route_int.h"

#include "base/vt_hash.h"

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
 * members, numbered in tree order. Returns the number of classes, VT_NONE
 * when out of memory.
 */
static uint32_t classify(const vt_tree *t, const uint32_t *start, const uint32_t *peer,
			 uint32_t *cls, struct cls *k)
{
	vt_hidx h;
	uint32_t nk = 0;

	if (vt_hidx_init(&h, t->nsw))
		return VT_NONE;
	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[t->nlevels]; i++) {
		uint32_t s = t->by_level[i], q;
		uint64_t hv =
			vt_hash_bytes(&peer[start[s]], (start[s + 1] - start[s]) * sizeof(*peer)) ^
			vt_hash_u64(t->level[s]);

		for (q = vt_hidx_start(&h, hv); h.slot[q] != VT_HASH_EMPTY; q = vt_hidx_next(&h, q))
			if (same_run(t, start, peer, k[h.slot[q]].rep, s))
				break;
		if (h.slot[q] == VT_HASH_EMPTY) {
			h.slot[q] = nk;
			k[nk++] = (struct cls){.rep = s};
		}
		cls[s] = h.slot[q];
	}
	vt_hidx_free(&h);
	return nk;
}

/*
 * Each switch's distinct parents: its up_peer[] run without repeats (a run
 * lists each parent's links together), into pstart/ppeer.
 */
static void distinct_parents(struct route_classes *c, const vt_tree *t)
{
	uint32_t n = 0;

	for (uint32_t s = 0; s < t->nsw; s++) {
		c->pstart[s] = n;
		for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++)
			if (j == t->up_start[s] || t->up_peer[j] != t->up_peer[j - 1])
				c->ppeer[n++] = t->up_peer[j];
	}
	c->pstart[t->nsw] = n;
}

/* The up and down classes and the parent sets of plane t. */
int vt_route_classes(struct router *r, const vt_tree *t, vt_err *e)
{
	struct route_classes *c = &r->cls;

	distinct_parents(c, t);
	if (classify(t, t->up_start, t->up_peer, c->up_class_of, c->up_classes) == VT_NONE ||
	    classify(t, t->dn_start, t->dn_peer, c->down_class_of, c->down_classes) == VT_NONE ||
	    classify(t, c->pstart, c->ppeer, c->parent_set_of, c->parent_sets) == VT_NONE)
		return vt_err_nomem(e, "out of memory");
	return 0;
}
