/* SPDX-License-Identifier: MIT */
/*
 * Zahavi et al., Algorithm 3, assign-up-going-port-by-descending: from the
 * switches of the main route (found by Algorithm 4), every switch below them
 * that is not an ancestor of the destination goes up towards it.
 *
 *     foreach down-going-port-group (in indexing order)
 *         find the least loaded port of the group
 *         assign the remote switch node LFT(LID) to r-port
 *         increase r-port usage counter
 *         assign-up-going-port-by-descending r-port node
 *
 * Here level-synchronous rather than recursive: round hh handles the
 * switches hh + 1 hops from the destination, below the main-route switches
 * reached so far. A switch one main-route link found takes that link (the
 * paper's r-port: the group's only link to it on a tree of single links);
 * one found by several (slender trees, parallel links) spreads over all of
 * them, least used first, counting apart per key (struct route_usage). So
 * does a switch that lost a lane of a split core (deg.clost,
 * vt_route_chassis.c), over its parents as near the destination, on the
 * main route or not (those route down to it as ancestors).
 */
#include "route/vt_route_int.h"
#include "route/vt_route_policy.h"

/*
 * Switch c, which several main-route links found in round hh - 1, goes up
 * the least-used of them.
 */
static void up_by_least_used(struct router *r, uint32_t c, uint32_t hh, uint8_t *col)
{
	const vt_tree *t = r->t;
	const uint32_t serial = r->main.serial, *first = r->links.swfirst;
	const uint32_t key = r->use.key[t->level[c]];
	uint32_t best = VT_NONE, bu = UINT32_MAX, bw = UINT32_MAX, q, memo[VT_MAX_PORTS];

	assert(key < r->use.nkeys); /* vt_route_key_count: a key per parent */
	memo[0] = VT_NONE;
	for (uint32_t j = t->up_start[c]; j < t->up_start[c + 1]; j++) {
		uint32_t p = t->up_peer[j];

		if ((r->main.mark[p] != serial && !vt_route_chassis_lost_lane(r, c, p)) ||
		    r->plan.h[p] + 1 != hh)
			continue;
		q = j * r->use.nkeys + key;
		uint32_t w = vt_route_found_window(r, c, j, memo);

		if (w < bw || (w == bw && r->use.by_key[q] < bu)) {
			bw = w;
			bu = r->use.by_key[q];
			best = j;
		}
	}
	assert(best != VT_NONE); /* several main-route links found c */
	r->use.by_key[best * r->use.nkeys + key]++;
	r->use.up[first[c] + t->up_port[best]]++;
	col[c] = t->up_port[best];
}

/*
 * The main route's descent for the current LID (a place-keeper's only
 * moves the usage counters). A switch one main-route link found goes
 * up that link, written when found; one found again takes that back and
 * chooses among its links in the next round (up_by_least_used). Returns the
 * leaves it found: only missed leaves leave work for the stragglers
 * (vt_route_straggler.c).
 */
uint32_t vt_route_upgoing_by_descending(struct router *r, const uint32_t *path, uint32_t npath)
{
	/* locals: the table's byte stores may alias the router's fields */
	const vt_tree *t = r->t;
	const uint32_t serial = r->main.serial, *hup = r->plan.hup;
	const uint32_t *dn_start = t->dn_start, *dn_peer = t->dn_peer, *dn_ridx = r->links.dn_ridx;
	const uint8_t *dn_rport = r->links.dn_rport, *level = t->level;
	uint32_t *mark = r->main.mark, *found = r->main.found, *via = r->main.via;
	uint32_t *mul = r->main.mul, *use_up = r->use.up;
	uint8_t *col = r->batch.col;
	uint32_t ncur = 0, nnext = 0, *cur = r->main.cur, *next = r->main.next, nf = 0;

	assert(npath >= 1 && npath <= VT_TREE_MAX_LEVELS); /* the destination's switch first */

	for (uint32_t hh = 0, nmul = 0; hh < npath || ncur || nmul; hh++) {
		for (uint32_t i = 0; i < nmul; i++)
			up_by_least_used(r, mul[i], hh, col);
		if (hh < npath)
			cur[ncur++] = path[hh];
		nnext = 0;
		nmul = 0;
		for (uint32_t i = 0; i < ncur; i++) {
			uint32_t s = cur[i], n0 = nnext;

			mark[s] = serial;
			for (uint32_t k = dn_start[s]; k < dn_start[s + 1]; k++) {
				uint32_t c = dn_peer[k];

				if (hup[c] != hh + 1) /* an ancestor, or not one hop further */
					continue;
				if (found[c] == serial) { /* found again */
					if (via[c] != VT_NONE) {
						use_up[dn_ridx[via[c]]]--;
						via[c] = VT_NONE;
						mul[nmul++] = c;
					}
					continue;
				}
				found[c] = serial;
				if (r->deg.clost[c]) { /* a lost lane: chosen among its parents */
					via[c] = VT_NONE;
					mul[nmul++] = c;
					next[nnext++] = c;
					continue;
				}
				via[c] = k;
				use_up[dn_ridx[k]]++;
				col[c] = dn_rport[k];
				next[nnext++] = c;
			}
			if (level[s] == 1) { /* its children are leaves: nothing below */
				nf += nnext - n0;
				nnext = n0;
			}
		}
		uint32_t *tmp = cur;

		cur = next;
		next = tmp;
		ncur = nnext;
	}
	return nf;
}
