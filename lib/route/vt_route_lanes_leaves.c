/* SPDX-License-Identifier: MIT */
/*
 * The lanes' leaves (vt_route_lanes.c): each leaf's o-th up-link by port
 * number, a damaged leaf's substitutes, and the up-link a leaf climbs for
 * another leaf's lane where lane o's chassis differs between leaves.
 */
#include <stdlib.h>
#include <string.h>

#include "route/vt_route_lanes_int.h"

/*
 * A leaf that lost lane o (its link to that line, or the line) sends up the
 * next of its lanes into the same chassis: that up-link carries two flows a
 * stage where o's would carry one, as it must where a leaf has fewer
 * up-links than hosts. VT_NONE where it has no other lane into the chassis.
 */
static void lanes_substitute(struct lanes *ln, const uint32_t *ref, uint32_t i)
{
	uint32_t *lane = &ln->lane[(size_t)i * ln->nu], own[VT_MAX_PORTS + 1];

	memcpy(own, lane, ln->nu * sizeof(*own));
	for (uint32_t o = 0; o < ln->nu; o++)
		for (uint32_t k = 1; own[o] == VT_NONE && k < ln->nu; k++) {
			uint32_t o2 = (o + k) % ln->nu;

			if (own[o2] != VT_NONE && ref[o2] == ref[o]) {
				lane[o] = own[o2];
				break;
			}
		}
}

/*
 * The lanes: the leaves' up-link port numbers, in order (pos); nu of them,
 * as many as the most up-links a leaf has (else the leaves use different
 * ports, and the o-th port means nothing across them). 0 when not so.
 */
static int lanes_ports(struct lanes *ln, const vt_tree *t, uint32_t *pos)
{
	uint32_t most = 0;

	for (uint32_t p = 0; p <= VT_LFT_NONE; p++)
		pos[p] = VT_NONE;
	for (uint32_t i = 0; i < ln->nleaf; i++) {
		uint32_t s = t->by_level[i];

		for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++)
			pos[t->up_port[j]] = 0;
		if (t->up_start[s + 1] - t->up_start[s] > most)
			most = t->up_start[s + 1] - t->up_start[s];
	}
	ln->nu = 0;
	for (uint32_t p = 0; p <= VT_LFT_NONE; p++)
		if (pos[p] != VT_NONE)
			pos[p] = ln->nu++;
	if (!ln->nu || ln->nu != most)
		return 0;
	ln->lane = malloc((size_t)ln->nleaf * ln->nu * sizeof(*ln->lane));
	return ln->lane != NULL;
}

/*
 * Mixed chassis (climb_lane): a lost lane has no chassis to substitute in.
 * Where a line is gone, every leaf still climbs to each chassis over the
 * lanes left; where a leaf lost a link to a line that lives (a line with
 * fewer down-links than another), it reaches unevenly and
 * vt_route_leaf_moves.c does better than the lanes (cores 3,4,2,12,4
 * --drop-links 2@0 --seed 2 on 931c967: 4/2.26 without the lanes, 4/2.28 with).
 */
static int lanes_lost_link(const struct lanes *ln, const vt_tree *t)
{
	uint32_t most = 0, least = UINT32_MAX, lost = 0;

	for (size_t k = 0; k < (size_t)ln->nleaf * ln->nu; k++)
		lost += ln->lane[k] == VT_NONE;
	for (uint32_t i = t->lvl_start[1]; lost && i < t->lvl_start[2]; i++) {
		uint32_t x = t->by_level[i], dn = t->dn_start[x + 1] - t->dn_start[x];

		most = dn > most ? dn : most;
		least = dn < least ? dn : least;
	}
	return lost && least < most;
}

/*
 * The leaves' lanes: the o-th up-link port number of the leaves (as many as
 * their level's up-links), each lane in one chassis (deg.grp) on every leaf
 * that has it, no leaf with more ranks than lanes; leaves' line sets not all
 * alike where they meet. A leaf that lost a lane takes a substitute. 0 when
 * not so.
 */
int vt_route_lanes_leaves(struct lanes *ln, const struct router *r, const vt_tree *t)
{
	uint32_t pos[VT_LFT_NONE + 1], ref[VT_LFT_NONE + 1];
	int uneven = 0;

	ln->nleaf = t->lvl_start[1];
	if (!lanes_ports(ln, t, pos))
		return 0;
	for (uint32_t o = 0; o < ln->nu; o++)
		ref[o] = VT_NONE;
	for (uint32_t i = 0; i < ln->nleaf; i++) {
		uint32_t s = t->by_level[i], id = t->sub[s], prev = VT_NONE;

		ln->idx[s] = i;
		if (id == VT_NONE || t->subs[id].nranks > ln->nu)
			return 0;
		ln->first[i] = t->subs[id].first_rank;
		ln->nranks[i] = t->subs[id].nranks;
		for (uint32_t o = 0; o < ln->nu; o++)
			ln->lane[(size_t)i * ln->nu + o] = VT_NONE;
		for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++)
			ln->lane[(size_t)i * ln->nu + pos[t->up_port[j]]] = j;
		for (uint32_t o = 0; o < ln->nu; o++) {
			uint32_t j = ln->lane[(size_t)i * ln->nu + o], p;

			if (j == VT_NONE)
				continue;
			p = t->up_peer[j];
			ref[o] = ref[o] == VT_NONE ? r->deg.grp[p] : ref[o];
			if (p == prev)
				return 0;
			ln->mixed |= r->deg.grp[p] != ref[o];
			prev = p;
		}
	}
	if (ln->mixed && lanes_lost_link(ln, t))
		return 0;
	for (uint32_t i = 0; i < ln->nleaf && !ln->mixed; i++)
		lanes_substitute(ln, ref, i);
	/* some line's children differ in their parents: the line sets overlap unevenly */
	for (uint32_t i = t->lvl_start[1]; !uneven && i < t->lvl_start[2]; i++) {
		uint32_t x = t->by_level[i], c0 = t->dn_peer[t->dn_start[x]];

		for (uint32_t k = t->dn_start[x]; !uneven && k < t->dn_start[x + 1]; k++)
			for (uint32_t j = t->up_start[c0]; !uneven && j < t->up_start[c0 + 1];
			     j++) {
				uint32_t c = t->dn_peer[k], hit = 0;

				for (uint32_t m = t->up_start[c]; m < t->up_start[c + 1]; m++)
					hit |= t->up_peer[m] == t->up_peer[j];
				uneven = !hit;
			}
	}
	return uneven;
}

/*
 * Leaf a's up-link (up_port[] entry) for leaf b's lane o, VT_NONE: none.
 * Lane o itself where every leaf's lane o lies in one chassis. Else (three
 * chassis dealt ten up-links each: leaf l's up-link u in chassis (l + u) mod
 * 3, so the leaves hold 4-3-3 up-links a chassis in turn) lane o's chassis
 * differs between leaves and a's climb must reach b's lane o's chassis: the
 * r-th of a's lanes into it where lane o is the r-th of b's (mod a's count),
 * lane o itself between leaves dealt alike. A shift stage then loads a
 * leaf's link with two flows at most where its 4-3-3 meets another's
 * (cores 3,8,4,24,10: the cut bound's worst, 2, in the stages that send a
 * leaf to the next; most of the others could do with one, but a
 * destination's one descent lane per chassis cannot serve both of the source
 * leaves a stage sends it from).
 */
uint32_t vt_route_lanes_climb(const struct lanes *ln, uint32_t a, uint32_t b, uint32_t o)
{
	const vt_tree *t = ln->t;
	const uint32_t *la = &ln->lane[(size_t)a * ln->nu], *lb = &ln->lane[(size_t)b * ln->nu];
	uint32_t g, r = 0, m = 0, pick;

	if (!ln->mixed || lb[o] == VT_NONE)
		return la[o];
	g = ln->grp[t->up_peer[lb[o]]];
	for (uint32_t k = 0; k < o; k++)
		r += lb[k] != VT_NONE && ln->grp[t->up_peer[lb[k]]] == g;
	for (uint32_t k = 0; k < ln->nu; k++)
		m += la[k] != VT_NONE && ln->grp[t->up_peer[la[k]]] == g;
	if (!m)
		return VT_NONE;
	pick = r % m;
	for (uint32_t k = 0; k < ln->nu; k++)
		if (la[k] != VT_NONE && ln->grp[t->up_peer[la[k]]] == g && !pick--)
			return la[k];
	return VT_NONE;
}
