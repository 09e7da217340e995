/* SPDX-License-Identifier: MIT */
/*
 * When a repair candidate needs no every-source audit (vt_repair.h): where
 * the fresh routing was sure (vt_route_proof), the candidate keeps the
 * argument of vt_route_turn.c, checked at the entries it changed.
 *
 * The argument, for any destination-based tables t on the tree's levels:
 *  (a) every route through an entry that differs from the fresh tables
 *      arrives (no forwarding loop, nothing lost);
 *  (b) no such entry crosses a link between switches of one level or outside
 *      the tree;
 *  (c) every down-up turn such an entry makes, into a switch x from a switch
 *      above it and out of x to one above it, is at x in the turn set: the
 *      turn leaf Z or an ancestor of Z (vt_route_proof.turn), and no other
 *      turn (down-side, side-up) is made.
 * The entries t shares with the fresh tables give them these too: the fresh
 * routing's proof is (b) and (c) for all of its entries, and its tables have
 * no forwarding loop (one would be a credit loop). A credit loop in t is a
 * cycle of channel dependencies; with no side hop every dependency is up-up,
 * up-down, down-down or down-up, and a cycle needs a down-up one: a turn,
 * hence at some x1 in the turn set. From x1 the cycle goes up (x1's parents
 * are ancestors of Z too) to a highest switch T, then down into the next turn
 * x2 from its parent p2: every switch on that way down is an ancestor of p2,
 * so of Z. Z reaches T by one up-path only (the proof's condition), and both
 * the climb from x1 and the reversed descent to x2 are parts of it, so the
 * dependency at T comes from a route that enters T from a switch y and leaves
 * it back down to y: a route that visits y twice, in destination-based
 * tables a forwarding loop, which (a) and the fresh tables exclude. So t has
 * no credit loop, and no route t changed is broken: the audit's findings
 * (credit loop, loop, unreachable, misdelivery) are at most the fresh
 * tables', which it forgives. Routes may be longer than fresh (the audit
 * skips non-minimal hops too).
 *
 * Cost: two compares of the tables with the fresh ones (a few bytes per
 * entry), then per differing entry its route (each switch followed once per
 * LID) and, for an entry leading up, the switches linked to it: the work of
 * what the repair changed, against the audit's walk of every source to every
 * LID.
 */
#include "repair/vt_route_repair_int.h"

#include <stdlib.h>
#include <string.h>

static int inside(const struct vt_route_proof *pf, uint32_t s)
{
	return s != VT_NONE && pf->level[s] != VT_TREE_OUTSIDE;
}

/* Does switch s's route to lid under t arrive (switches seen arriving: ok[] == stamp)? */
static int arrives(struct repair *r, const vt_lfts *t, uint32_t s, uint32_t lid)
{
	const vt_fabric *f = r->f;
	uint32_t dst = f->lid_port[lid], n = 0, x = s;

	while (r->sure_ok[x] != r->sure_stamp) {
		const struct vt_node *nd = sw_node(r, x);
		unsigned p = vt_lft_get(t, x, lid);
		uint32_t q;

		if (n >= f->nswitches)
			return 0; /* a forwarding loop */
		r->sure_path[n++] = x;
		if (p == 0) {
			if (dst != nd->first_port)
				return 0;
			break;
		}
		if (p > nd->nports || (q = f->ports[nd->first_port + p].peer) == VT_NONE)
			return 0;
		if (f->nodes[f->ports[q].node].type != VT_SWITCH) {
			if (q != dst)
				return 0;
			break;
		}
		x = f->nodes[f->ports[q].node].sw;
	}
	while (n)
		r->sure_ok[r->sure_path[--n]] = r->sure_stamp;
	return 1;
}

/*
 * (a)-(c) for switch s's entry for lid under t, which differs from the fresh
 * one, but for an entry leading up the routes coming into s (up_sure, asked
 * of every such entry while the tables are compared).
 */
static int entry_sure(struct repair *r, const struct vt_route_proof *pf, const vt_lfts *t,
		      uint32_t s, uint32_t lid)
{
	unsigned p = vt_lft_get(t, s, lid);
	uint32_t x, ls = pf->level[s];

	if (!arrives(r, t, s, lid))
		return 0;
	if (p == 0 || (x = sw_peer(r, s, p)) == VT_NONE)
		return 1; /* delivered here or to the CA (arrives checked which) */
	if (!inside(pf, s) || !inside(pf, x) || pf->level[x] == ls)
		return 0;
	if (pf->level[x] < ls) { /* down into x: x's way on turns there if not down */
		unsigned px = vt_lft_get(t, x, lid);
		uint32_t y = px == 0 ? VT_NONE : sw_peer(r, x, px);

		return y == VT_NONE || (inside(pf, y) && pf->level[y] < pf->level[x]) ||
		       (pf->turn[x] && inside(pf, y) && pf->level[y] > pf->level[x]);
	}
	return 1; /* up: up_sure */
}

/*
 * (c) for switch s's entry for lid under t where it leads up: a route coming
 * down into s turns there, so s must be in the turn set and no route may come
 * in sideways. Asked row by row (differing), where entry_sure asks LID by
 * LID: it reads the entries of s's neighbours for lid, which a walk down the
 * LIDs finds in another cache line each time (pruned 36,36 with a top switch
 * down: half of vt_repair_sure's 0.09 s, some 400,000 differing entries).
 */
static int up_sure(struct repair *r, const struct vt_route_proof *pf, const vt_lfts *t, uint32_t s,
		   uint32_t lid)
{
	const struct vt_node *n = sw_node(r, s);
	unsigned p = vt_lft_get(t, s, lid);
	uint32_t x, ls = pf->level[s];

	if (p == 0 || (x = sw_peer(r, s, p)) == VT_NONE || !inside(pf, s) || !inside(pf, x) ||
	    pf->level[x] <= ls)
		return 1; /* not up: entry_sure */
	for (unsigned q = 1; q <= n->nports; q++) {
		uint32_t w = sw_peer(r, s, q), wp;

		if (w == VT_NONE)
			continue;
		wp = r->f->ports[r->f->ports[n->first_port + q].peer].num;
		if (vt_lft_get(t, w, lid) != wp || (inside(pf, w) && pf->level[w] < ls))
			continue; /* not w's way, or w's route comes up: no turn */
		if (!inside(pf, w) || pf->level[w] == ls || !pf->turn[s])
			return 0;
	}
	return 1;
}

/*
 * The entries where t differs from the fresh tables, by LID: row by row (a
 * walk down each LID's column misses the cache at every switch), counted,
 * then listed: LID l's switches are sure_sw[sure_at[l] .. sure_at[l + 1]);
 * while listed, each is asked up_sure. 0; 1 where up_sure refused one; -1
 * when out of memory.
 */
static int differing(struct repair *r, const vt_lfts *t)
{
	uint32_t nsw = t->nsw, nlid = t->nlid, *at = r->sure_at;
	size_t n = 0;

	memset(at, 0, ((size_t)nlid + 2) * sizeof(*at));
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t s = 0; s < nsw; s++) {
			const uint8_t *a = vt_lft_row(t, s), *b = vt_lft_row(r->fresh, s);

			for (uint32_t l = 0; l < nlid; l += 8) {
				uint64_t x = 0, y = 0;

				if (l + 8 <= nlid) { /* eight entries at once: most are the same */
					memcpy(&x, a + l, 8);
					memcpy(&y, b + l, 8);
					if (x == y)
						continue;
				}
				for (uint32_t k = l; k < l + 8 && k < nlid; k++) {
					if (a[k] == b[k])
						continue;
					if (!pass) {
						at[k + 2]++;
						continue;
					}
					if (!up_sure(r, r->proof, t, s, k))
						return 1;
					r->sure_sw[at[k + 1]++] = s;
				}
			}
		}
		if (pass)
			break;
		for (uint32_t l = 2; l <= nlid + 1; l++)
			at[l] += at[l -
				    1]; /* at[l + 1]: where l's list starts, moved on in pass 2 */
		n = at[nlid + 1];
		if (n > r->sure_cap) {
			free(r->sure_sw);
			r->sure_cap = 0;
			if (!(r->sure_sw = malloc(n * sizeof(*r->sure_sw))))
				return -1;
			r->sure_cap = n;
		}
	}
	return 0;
}

int vt_repair_sure(struct repair *r, const vt_lfts *t)
{
	const struct vt_route_proof *pf = r->proof;
	uint32_t nsw = t->nsw, nlid = t->nlid;

	if (!pf || !pf->sure)
		return 0;
	if (!r->sure_ok) {
		r->sure_ok = calloc((size_t)nsw + 1, sizeof(*r->sure_ok));
		r->sure_path = malloc(((size_t)nsw + 1) * sizeof(*r->sure_path));
		r->sure_at = malloc(((size_t)nlid + 2) * sizeof(*r->sure_at));
		if (!r->sure_ok || !r->sure_path || !r->sure_at)
			return 0; /* out of memory: the audit decides */
	}
	if (differing(r, t))
		return 0; /* not sure, or out of memory: the audit decides */
	for (uint32_t lid = 0; lid < nlid; lid++) {
		if (r->sure_at[lid] == r->sure_at[lid + 1])
			continue;
		if (lid == 0 || r->f->lid_port[lid] == VT_NONE)
			return 0; /* no longer in the fabric, yet routed otherwise than fresh */
		if (++r->sure_stamp == 0) { /* wrapped: forget every switch seen */
			memset(r->sure_ok, 0, ((size_t)nsw + 1) * sizeof(*r->sure_ok));
			r->sure_stamp = 1;
		}
		for (uint32_t i = r->sure_at[lid]; i < r->sure_at[lid + 1]; i++)
			if (!entry_sure(r, pf, t, r->sure_sw[i], lid))
				return 0;
	}
	return 1;
}
