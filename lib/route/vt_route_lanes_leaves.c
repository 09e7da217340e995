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
	/* lane, then cpos, cbase and ctot where mixed (struct lanes) */
	ln->lane = malloc((size_t)ln->nleaf * ln->nu * 4 * sizeof(*ln->lane) + ln->n + 1);
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

/* Lane o of leaf b: its chassis, VT_NONE where b lost it. */
static uint32_t lane_grp(const struct lanes *ln, uint32_t b, uint32_t o)
{
	uint32_t j = ln->lane[(size_t)b * ln->nu + o];

	return j == VT_NONE ? VT_NONE : ln->grp[ln->t->up_peer[j]];
}

/* Leaf b's lane destinations into the chains of their chassis (cnt: per chassis). */
static void chain_leaf(struct lanes *ln, const vt_tree *t, uint32_t b, uint32_t *cnt)
{
	size_t at = (size_t)b * ln->nu;
	uint32_t g;

	for (uint32_t o = 0; o < ln->nranks[b]; o++)
		if (t->order.port[ln->first[b] + o] != VT_NONE &&
		    (g = lane_grp(ln, b, o)) != VT_NONE)
			ln->cpos[at + o] = cnt[g]++;
	for (uint32_t o = 0; o < ln->nu; o++)
		if ((g = lane_grp(ln, b, o)) != VT_NONE)
			ln->cbase[at + o] = cnt[g];
}

/*
 * ln->cpos: each lane destination's place in its chassis' chain (the lane
 * destinations of that chassis in rank order); cbase, ctot: the places
 * before the end of the leaf's ranks, and all, in lane o's chassis. A
 * shift stage sends a leaf's hosts to consecutive ranks, whose
 * destinations in one chassis are consecutive in its chain, counted on
 * from the leaf's own: climbing to that count mod the leaf's up-links into
 * the chassis sends them up distinct ones wherever they are no more than
 * those (vt_route_lanes_climb). 0 when out of memory.
 */
static int lanes_chain(struct lanes *ln, const vt_tree *t)
{
	size_t cells = (size_t)ln->nleaf * ln->nu;
	uint32_t *cnt = calloc((size_t)t->nsw + 1, sizeof(*cnt));
	uint32_t *at = malloc(((size_t)ln->n + 1) * sizeof(*at)), g;

	if (!cnt || !at) {
		free(cnt);
		free(at);
		return 0;
	}
	for (size_t k = 0; k < cells; k++)
		ln->cpos[k] = ln->cbase[k] = ln->ctot[k] = 0;
	for (uint32_t d = 0; d < ln->n; d++)
		at[d] = VT_NONE;
	for (uint32_t b = 0; b < ln->nleaf; b++)
		if (ln->nranks[b] && ln->first[b] < ln->n)
			at[ln->first[b]] = b;
	for (uint32_t d = 0; d < ln->n; d++) /* the leaves in rank order */
		if (at[d] != VT_NONE)
			chain_leaf(ln, t, at[d], cnt);
	for (size_t k = 0; k < cells; k++)
		if ((g = lane_grp(ln, (uint32_t)(k / ln->nu), (uint32_t)(k % ln->nu))) != VT_NONE)
			ln->ctot[k] = cnt[g];
	free(cnt);
	free(at);
	return 1;
}

/* Leaf a's lanes into chassis g (up_port[] entries, in lane order) into in[]; how many. */
static uint32_t lanes_into(const struct lanes *ln, uint32_t a, uint32_t g, uint32_t *in)
{
	const uint32_t *la = &ln->lane[(size_t)a * ln->nu];
	uint32_t m = 0;

	for (uint32_t k = 0; k < ln->nu; k++)
		if (la[k] != VT_NONE && ln->grp[ln->t->up_peer[la[k]]] == g)
			in[m++] = la[k];
	return m;
}

/* Leaf b's lane o counted in its chassis' chain on from leaf a's own destinations. */
static uint32_t chain_place(const struct lanes *ln, uint32_t a, uint32_t b, uint32_t o)
{
	size_t ka = (size_t)a * ln->nu, kb = (size_t)b * ln->nu + o;
	uint32_t g = lane_grp(ln, b, o), k = 0;

	while (k < ln->nu && lane_grp(ln, a, k) != g)
		k++;
	if (k == ln->nu || !ln->ctot[ka + k])
		return ln->cpos[kb];
	return (ln->cpos[kb] + ln->ctot[ka + k] - ln->cbase[ka + k]) % ln->ctot[ka + k];
}

/*
 * Leaf a's climbs in every stage: sfree[k] cleared where two of its flows
 * take one up-link (up: per rank, the up_port[] entry a climbs, VT_NONE
 * for none). Those stages carry two flows a link whatever the lines do.
 */
static void lanes_stages_of(struct lanes *ln, const vt_tree *t, uint32_t a, uint32_t *up)
{
	uint32_t s = t->by_level[a], mark[VT_MAX_PORTS + 1];

	for (uint32_t d = 0; d < ln->n; d++) {
		uint32_t b = 0, o = ln->nu;

		if (t->order.port[d] != VT_NONE) {
			b = ln->idx[t->rank_leaf[d]];
			o = d - ln->first[b];
		}
		up[d] = b != a && o < ln->nu ? vt_route_lanes_climb(ln, a, b, o) : VT_NONE;
	}
	for (uint32_t j = 0; j <= VT_MAX_PORTS; j++)
		mark[j] = 0;
	for (uint32_t k = 1; k < ln->n; k++)
		for (uint32_t i = ln->first[a]; i < ln->first[a] + ln->nranks[a]; i++) {
			uint32_t j = t->order.port[i] == VT_NONE ? VT_NONE : up[(i + k) % ln->n];

			if (j == VT_NONE || j - t->up_start[s] > VT_MAX_PORTS)
				continue;
			if (mark[j - t->up_start[s]] == k)
				ln->sfree[k] = 0;
			mark[j - t->up_start[s]] = k;
		}
}

/* Mixed chassis: ln->cpos, cbase, ctot; NULL (climbs by leaf) when out of memory. */
static void lanes_mixed(struct lanes *ln, const vt_tree *t)
{
	size_t cells = (size_t)ln->nleaf * ln->nu;

	ln->cpos = ln->lane + cells;
	ln->cbase = ln->cpos + cells;
	ln->ctot = ln->cbase + cells;
	if (!lanes_chain(ln, t))
		ln->cpos = ln->cbase = ln->ctot = NULL;
}

int vt_route_lanes_stages(struct lanes *ln)
{
	uint32_t *up;

	if (ln->sfree || !ln->cpos)
		return ln->sfree != NULL;
	if (!(up = malloc(((size_t)ln->n + 1) * sizeof(*up))))
		return 0;
	ln->sfree = (uint8_t *)(ln->ctot + (size_t)ln->nleaf * ln->nu);
	memset(ln->sfree, 1, ln->n);
	for (uint32_t a = 0; a < ln->nleaf; a++)
		lanes_stages_of(ln, ln->t, a, up);
	free(up);
	return 1;
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
	if (ln->mixed)
		lanes_mixed(ln, t);
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
 * r-th of a's lanes into it (mod a's count), r b's lane o's place in the
 * chassis' chain counted on from a's own destinations (chain_place), so a
 * stage's destinations in one chassis climb distinct up-links of a where
 * they are no more than a's (on 931c967's r, the place among b's lanes
 * alone, the two leaves of a stage's window climbed one up-link twice).
 * A stage still loads a leaf's link twice where the window's count in a
 * chassis exceeds the leaf's: cores 3,8,4,24,10 (4-3-3 in turn) at least
 * two stages in three, the others at one wherever the lines' choices allow.
 * A destination's one descent lane makes its chassis the same from every
 * source leaf; the cut bound (2/1.07) treats each stage apart. On cores
 * 3,1,1,3,4, where every route is leaf, line, leaf, an exhaustive search
 * finds no destination-based up*-down* routing with more than 7 of its 11
 * stages at one flow a link: average 15/11 = 1.36 at best, against the
 * bound's 1.18 (vartree 1.45): the bound is weak on such deals.
 */
uint32_t vt_route_lanes_climb(const struct lanes *ln, uint32_t a, uint32_t b, uint32_t o)
{
	const uint32_t *lb = &ln->lane[(size_t)b * ln->nu];
	uint32_t g, r = 0, m, in[VT_MAX_PORTS + 1];

	if (!ln->mixed || lb[o] == VT_NONE)
		return ln->lane[(size_t)a * ln->nu + o];
	g = ln->grp[ln->t->up_peer[lb[o]]];
	if (!(m = lanes_into(ln, a, g, in)))
		return VT_NONE;
	if (ln->cpos)
		r = chain_place(ln, a, b, o);
	for (uint32_t k = 0; k < o && !ln->cpos; k++)
		r += lb[k] != VT_NONE && ln->grp[ln->t->up_peer[lb[k]]] == g;
	return in[r % m];
}
