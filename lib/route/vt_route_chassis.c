/* SPDX-License-Identifier: MIT */
/*
 * Split cores whose groups (deg.grp: a director chassis' line ASICs, which
 * share its spines) differ in what they carry upward: one chassis lost a
 * spine, or a line ASIC an up-link. A leaf that takes its up-links in turn
 * sends every chassis an equal share of each run of destinations, so in a
 * shift stage the line ASICs of the weaker chassis get as many flows from
 * below as the others, on fewer up-links (cores 2,6,3,12,6 --drop-switches
 * 1: 2/1.31 against a bound of 2/1.15). Here such a leaf's destinations
 * take the stronger groups' up-links first in rank order, the weaker ones'
 * last: a leaf's share per chassis stays as it was (its links down to its
 * hosts keep one destination each), but the partial runs at the edges of a
 * stage's window, the destinations only some of a leaf's hosts send to,
 * fall on the stronger chassis (there 2/1.28: 20 stages at 2, not 22). The
 * order is a property of the tree, set once per plane; the ascent
 * (vt_route_downgoing.c) follows it.
 *
 * Why the bound is 1.24 there, not the cuts' 1.15: a stage whose window
 * covers m >= 28 of the other half's hosts sends at least 13 of them up
 * the weaker chassis' 12 up-links of a half (a leaf has 3 links into each
 * chassis, so the stronger one takes at most 3 a leaf), so 17 stages carry
 * 2 whatever the up*-down* routes; and a non-minimal relay down into a
 * leaf and up again, which the cuts alone allow, finds the leaf's 6 cables
 * full with its own 6 flows (vt_bound_climb.c's relay test). The 3 stages
 * more (1.28, +3 %): with one chassis per destination, as
 * Algorithms 2-4 route, a half's order repeats every leaf, so the partial
 * runs of the stages after the middle fall on the weaker chassis: 3 more.
 *
 * Lost lanes (deg.clost): where leaves deal their up-links unevenly over
 * the chassis (cores 4,6,3,16,6: 2, 2, 1 and 1 links), a line ASIC that
 * lost one of its parallel links to a spine ASIC went on taking that spine
 * for every destination whose main route came down from it, on the one link
 * left: cores 4,6,3,16,6 --drop-links 1@1 loaded it 5 (4 leaves below, 5
 * up-links kept; 5/2.77, dfsssp 4/3.00). The descent lets such a switch go
 * up any parent of its chassis as near the destination, the one the shift
 * stages load least first (vt_route_upgoing.c, vt_route_policy.c's
 * stage_load), then the least used: 3/1.94 (3/2.16 by least used alone;
 * cores 3,4,2,12,4 --drop-links 1@1 4/2.30 to 3/2.13, dfsssp 3/2.66).
 * Only where leaves are uneven: on even cores the lanes already keep those
 * destinations apart (cores 2,6,3,12,6 --drop-links 1@1 2/1.08, 3/1.96
 * with the rule).
 */
#include "route/vt_route_int.h"

/*
 * Group g's weight (deg.grp: a chassis), what its switches at level l carry
 * upward, as *num / *den: their up-links per switch.
 */
static void group_weight(const struct router *r, uint32_t l, uint32_t g, uint64_t *num,
			 uint64_t *den)
{
	const vt_tree *t = r->t;

	*num = *den = 0;
	for (uint32_t i = t->lvl_start[l]; i < t->lvl_start[l + 1]; i++)
		if (r->deg.grp[t->by_level[i]] == g) {
			*num += vt_route_up_capacity(t, t->by_level[i]);
			++*den;
		}
}

/*
 * Has leaf s as many links into each group of its parents, two or more (a
 * leaf cabled to several line ASICs of each chassis)? With one a group, as
 * a fat tree's leaf to its pod's level-1 switches (level 1 falls into groups
 * by index there), the order is the groups' alone and only moved the load
 * (fat 8,3 --drop-links 3@1 --seed 2: 2/1.87 to 2/1.89).
 */
static int even_links(const struct router *r, uint32_t s)
{
	const vt_tree *t = r->t;
	uint32_t a = t->up_start[s], b = t->up_start[s + 1], n0 = 0;

	for (uint32_t i = a; i < b; i++) {
		uint32_t g = r->deg.grp[t->up_peer[i]], n = 0;

		for (uint32_t k = a; k < b; k++)
			n += r->deg.grp[t->up_peer[k]] == g;
		if (n < 2 || (i > a && n != n0))
			return 0;
		n0 = n;
	}
	return 1;
}

/*
 * deg.cseq and deg.corder of leaf s: its up-links stably sorted by their
 * group's weight (group_weight), strongest first (insertion sort: a leaf
 * has at most VT_MAX_PORTS up-links). Every leaf follows the same order of
 * groups, so a leaf's destinations at one rank offset take lines of one
 * chassis on either side of the core, and the routes of a shift window
 * that climb to a chassis and those that turn below it keep to different
 * links of their source leaf. Only leaves that kept every up-link and have
 * as many into each group (a leaf that lost some spreads by group shares,
 * spread_pick; cores 3,4,2,12,4 deals a leaf's 4 links over 3 chassis,
 * and there the order only moved the load: --drop-switches 1 4/2.96 to
 * 4/3.04).
 */
static void leaf_order(struct router *r, uint32_t s, int *differ)
{
	const vt_tree *t = r->t;
	uint32_t a = t->up_start[s], nu = t->up_start[s + 1] - a;
	uint64_t num[VT_MAX_PORTS + 1], den[VT_MAX_PORTS + 1];
	uint32_t *seq = r->deg.cseq + a;

	r->deg.corder[s] = 0;
	if (!nu || nu < t->lv[0].up_links || !even_links(r, s))
		return;
	for (uint32_t i = 0; i < nu; i++) {
		uint32_t k = i, p = t->up_peer[a + i];

		group_weight(r, t->level[p], r->deg.grp[p], &num[i], &den[i]);
		*differ |= i && num[i] * den[0] != num[0] * den[i];
		while (k && num[seq[k - 1] - a] * den[i] < num[i] * den[seq[k - 1] - a]) {
			seq[k] = seq[k - 1];
			k--;
		}
		seq[k] = a + i;
	}
	r->deg.corder[s] = 1;
}

/* Links from switch c up to p. */
static uint32_t links_to(const vt_tree *t, uint32_t c, uint32_t p)
{
	uint32_t n = 0;

	for (uint32_t j = t->up_start[c]; j < t->up_start[c + 1]; j++)
		n += t->up_peer[j] == p;
	return n;
}

/* Has full leaf s more links into some group of its parents than into another? */
static int uneven_leaf(const struct router *r, uint32_t s)
{
	const vt_tree *t = r->t;
	uint32_t a = t->up_start[s], b = t->up_start[s + 1], n0 = 0;

	if (b - a < t->lv[0].up_links)
		return 0;
	for (uint32_t i = a; i < b; i++) {
		uint32_t n = 0;

		for (uint32_t k = a; k < b; k++)
			n += r->deg.grp[t->up_peer[k]] == r->deg.grp[t->up_peer[i]];
		if (i > a && n != n0)
			return 1;
		n0 = n;
	}
	return 0;
}

/*
 * deg.clost of the switches above the leaves, on a split core: c lost a
 * lane to a parent, it has fewer links to it than another child has
 * (deg.pcnt, scratch after vt_route_siblings: per parent, the most).
 */
static void lost_lanes(struct router *r, const vt_tree *t)
{
	int uneven = 0;

	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++)
		uneven |= uneven_leaf(r, t->by_level[i]);
	if (!uneven)
		return;
	for (uint32_t s = 0; s < t->nsw; s++)
		r->deg.pcnt[s] = 0;
	for (uint32_t i = t->lvl_start[1]; i < t->lvl_start[t->nlevels]; i++) {
		uint32_t c = t->by_level[i];

		for (uint32_t j = t->up_start[c]; j < t->up_start[c + 1]; j++) {
			uint32_t p = t->up_peer[j], n = links_to(t, c, p);

			r->deg.pcnt[p] = n > r->deg.pcnt[p] ? n : r->deg.pcnt[p];
		}
	}
	for (uint32_t i = t->lvl_start[1]; i < t->lvl_start[t->nlevels]; i++) {
		uint32_t c = t->by_level[i];

		for (uint32_t j = t->up_start[c]; j < t->up_start[c + 1]; j++)
			r->deg.clost[c] |=
				links_to(t, c, t->up_peer[j]) < r->deg.pcnt[t->up_peer[j]];
	}
	if (!r->deg.leaf_dmg) /* else vt_route_siblings found them */
		vt_route_stage_few(r, t);
}

int vt_route_chassis_lost_lane(const struct router *r, uint32_t c, uint32_t p)
{
	return r->deg.clost[c] && r->plan.anc[p] == r->plan.stamp;
}

void vt_route_chassis_order(struct router *r, const vt_tree *t)
{
	int split = 0, differ = 0;

	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++)
		r->deg.corder[t->by_level[i]] = 0;
	for (uint32_t s = 0; s < t->nsw; s++)
		r->deg.clost[s] = 0;
	/* the level below the tops falls into groups: a split core */
	for (uint32_t i = t->nlevels >= 3 ? t->lvl_start[t->nlevels - 2] : 0;
	     t->nlevels >= 3 && i < t->lvl_start[t->nlevels - 1]; i++)
		split |= r->deg.grp[t->by_level[i]] !=
			 r->deg.grp[t->by_level[t->lvl_start[t->nlevels - 2]]];
	if (!split)
		return;
	lost_lanes(r, t);
	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++)
		leaf_order(r, t->by_level[i], &differ);
	for (uint32_t i = t->lvl_start[0]; !differ && i < t->lvl_start[1]; i++)
		r->deg.corder[t->by_level[i]] = 0;
}

uint32_t vt_route_chassis_pick(const struct router *r, uint32_t s, uint32_t rot)
{
	const vt_tree *t = r->t;
	uint32_t d = r->main.crank, a = t->up_start[s], nu = t->up_start[s + 1] - a, id;

	if (!r->deg.corder[s] || d == VT_NONE || t->rank_leaf[d] != s ||
	    (id = t->sub[s]) == VT_NONE)
		return VT_NONE;
	return r->deg.cseq[a + (d - t->subs[id].first_rank + rot) % nu];
}
