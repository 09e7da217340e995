/* SPDX-License-Identifier: MIT */
/*
 * Zahavi et al., Algorithm 4, assign-down-going-port-by-ascending: the main
 * route of a destination, from its leaf switch up to a top switch.
 *
 *     find the least loaded port of all the groups (in indexing order)
 *     assign the LFT(LID) of the remote switch to that port
 *     track that port usage
 *
 * "Least loaded" counts the destinations each parent already sends down the
 * link (usage.dn at the parent's end). The scan starts at the LID's offset in
 * its LMC range (rot), so the LIDs of one port take different parents. On a
 * degraded tree a switch that lost up-links first follows its complete
 * sibling's lane (deg.sib), so destinations stay in their regular lanes.
 */
#include "route/vt_route_int.h"
#include "route/vt_route_policy.h"

#include <string.h>

/*
 * Switch s's up-link (up_port[] entry) to the parent its sibling takes on
 * this ascent, else the first s has from vt_route_far_lane's lanes on (half
 * the sibling's run, or where one link of the level is lost the lane of the
 * destination furthest away in s's subtree): fewer shift stages hold both
 * than with a neighbour, and switches that lost different parents fall back
 * to different ones. A switch with no sibling but lanes another child of
 * their parent lacks (deg.own) follows its own run the same way; a lane
 * lacked (vt_route_lane_lost) falls back to the lanes before it, from the
 * cycle's last on; the cycle starts at the first lacked lane (deg.lane0), so
 * the displaced destination and the one it shares with are the cycle's
 * first and last, the furthest apart in rank order. VT_NONE: s has
 * no such run or none of those parents. *rq: the parent's port, least used
 * first.
 */
static uint32_t sibling_lane(const struct router *r, uint32_t s, uint32_t rot, uint32_t *rq)
{
	const vt_tree *t = r->t;
	uint32_t a = t->up_start[s], nu = t->up_start[s + 1] - a, sb = r->deg.sib[s];
	uint32_t best = VT_NONE, bu = UINT32_MAX;

	if (sb == VT_NONE && r->deg.own[s]) /* its own run, the lanes others lack left out */
		sb = s;

	for (uint32_t k = 0, sn = 0, lost = 0; sb != VT_NONE && best == VT_NONE && k <= sn; k++) {
		uint32_t sa = t->up_start[sb], e, want;

		sn = t->up_start[sb + 1] - sa;
		e = sa + (r->deg.nasc[s] + rot + r->deg.lane0[s] +
			  (!k	  ? 0
			   : lost ? sn - k
				  : vt_route_far_lane(r, s, sn) + k - 1)) %
				 sn;
		want = t->up_peer[e];
		if (!k && vt_route_lane_lost(r, sb, e)) {
			lost = 1;
			continue;
		}
		for (uint32_t i = 0; i < nu; i++) {
			uint32_t j = a + (i + rot) % nu;
			uint32_t q = r->f->ports[swport(r, s, t->up_port[j])].peer;

			if (t->up_peer[j] == want && r->use.dn[q] < bu) {
				bu = r->use.dn[q];
				best = j;
				*rq = q;
			}
		}
	}
	return best;
}

/*
 * Destinations parent p sends down its links to s so far; *nl: how many
 * links s has to p.
 */
static uint32_t parent_load(const struct router *r, uint32_t s, uint32_t p, uint32_t *nl)
{
	const vt_tree *t = r->t;
	uint32_t sum = 0;

	*nl = 0;
	for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++)
		if (t->up_peer[j] == p) {
			sum += r->use.dn[r->f->ports[swport(r, s, t->up_port[j])].peer];
			++*nl;
		}
	return sum;
}

/* A leaf's destinations so far over a group of its parents (deg.grp). */
struct group_share {
	int64_t behind; /* the group's share (as whole) less its load, scaled */
	int64_t n;	/* 1 + the group's destinations so far */
	uint32_t nu;	/* the leaf's links into the group */
};

/*
 * Leaf s's share of group g: gw[i] the weight of its up-link a + i's group
 * (vt_route_group_weights) on the group's first link, else 0. A leaf that
 * lost up-links so keeps the destinations its siblings send into a group
 * there, and the other leaves' routes towards them, which follow their own
 * lanes, stay in step.
 */
static void group_share(const struct router *r, uint32_t s, uint32_t g, const uint32_t *gw,
			struct group_share *gs)
{
	const vt_tree *t = r->t;
	uint32_t a = t->up_start[s];
	int64_t n = 1, w = 0, wg = 0;

	*gs = (struct group_share){.n = 1};
	for (uint32_t j = a; j < t->up_start[s + 1]; j++) {
		uint32_t u = r->use.dn[r->f->ports[swport(r, s, t->up_port[j])].peer];

		n += u;
		w += gw[j - a];
		if (r->deg.grp[t->up_peer[j]] != g)
			continue;
		gs->n += u;
		gs->nu++;
		wg += gw[j - a];
	}
	gs->behind = wg * n - w * (gs->n - 1);
}

/*
 * Leaf s's up-link where leaves have different numbers of parallel links to
 * a parent (deg.leaf_spread), or s lost up-links into a group of parents
 * (deg.gsplit): a smooth weighted round robin, first over the groups of its
 * parents (deg.grp: parents that share a parent of their own; a split
 * core's tops reach their group's only), then over the group's parents,
 * each weighted by its links to s. The group and then the parent furthest
 * behind its share of s's destinations so far (this one included) goes
 * first, then its least-loaded link, scanned from rot on. A run of
 * consecutive destinations so spreads over the parents, each parent's
 * spaced evenly: up-links are listed parent by parent, and a leaf cabled
 * with one link to each parent would otherwise share it among a run on one
 * parent.
 */
static uint32_t spread_pick(const struct router *r, uint32_t s, uint32_t rot, uint32_t *rq)
{
	const vt_tree *t = r->t;
	uint32_t a = t->up_start[s], nu = t->up_start[s + 1] - a, best = VT_NONE, bu = UINT32_MAX;
	uint32_t bgrp = VT_NONE, gw[VT_MAX_PORTS + 1];
	int64_t bg = 0, bd = 0;

	assert(nu <= VT_MAX_PORTS);
	vt_route_group_weights(r, s, gw);
	for (uint32_t i = 0; i < nu; i++) {
		uint32_t j = a + (i + rot) % nu, nl, g = r->deg.grp[t->up_peer[j]];
		uint32_t q = r->f->ports[swport(r, s, t->up_port[j])].peer;
		uint32_t pl = parent_load(r, s, t->up_peer[j], &nl);
		struct group_share gs;

		group_share(r, s, g, gw, &gs);
		/* the parent's share (nl / gs.nu of its group's gs.n) less its load, times gs.nu */
		int64_t d = (int64_t)nl * gs.n - (int64_t)gs.nu * pl;

		/* parents of different groups as far behind: the least-loaded link */
		if (best == VT_NONE || gs.behind > bg || (gs.behind == bg && g == bgrp && d > bd) ||
		    (gs.behind == bg && (g != bgrp || d == bd) && r->use.dn[q] < bu)) {
			bgrp = g;
			bg = gs.behind;
			bd = d;
			bu = r->use.dn[q];
			best = j;
			*rq = q;
		}
	}
	return best;
}

/*
 * Oversubscribed leaf s whose parents differ in up-links
 * (vt_route_weighted_leaf): the parent whose destinations so far, pod-wide
 * (all its children's), this one included, are the fewest per up-link it
 * kept goes first, then s's least-loaded link to it, scanned from rot on; a
 * parent with no up-link is left out. Spread evenly, a parent that kept one
 * of two up-links carried half its pod's destinations on that one link
 * (thin 4:2,3 --drop-links 1@1: 8 flows a shift stage, the pod's 3 links
 * carrying 16).
 */
static uint32_t capacity_pick(const struct router *r, uint32_t s, uint32_t rot, uint32_t *rq)
{
	const vt_tree *t = r->t;
	uint32_t a = t->up_start[s], nu = t->up_start[s + 1] - a, best = VT_NONE;
	uint64_t bl = 0, bc = 0;
	uint32_t bu = UINT32_MAX;

	for (uint32_t i = 0; i < nu; i++) {
		uint32_t j = a + (i + rot) % nu, p = t->up_peer[j];
		uint32_t q = r->f->ports[swport(r, s, t->up_port[j])].peer;
		uint32_t u = r->use.dn[q] + r->deg.charge[j];
		uint64_t l = (uint64_t)vt_route_down_load(r, p) + 1, c = vt_route_up_capacity(t, p);

		if (!c)
			continue;
		if (best == VT_NONE || l * bc < bl * c || (l * bc == bl * c && u < bu)) {
			bl = l;
			bc = c;
			bu = u;
			best = j;
			*rq = q;
		}
	}
	return best;
}

/*
 * Does switch s scan its up-links from the destination's serial on (the
 * turn the plan's fill routes take, write_fill) rather than from its LMC
 * offset (least_loaded)? Only above the leaves, over parallel links to a
 * parent, where leaves lost some parallel links but no parent
 * (deg.lanes_dmg) and the tops share the level below them (not split_dmg:
 * a SuperPOD of one core group). From the offset (0 without LMC) ties went
 * to the first least-used link: superpod 2,2,18,9,2,1 --drop-links 2@0
 * --seed 3 3/1.82, from the serial 2/1.72 (cut bound 2/1.55, OpenSM's
 * minhop 2/1.80). Measured, not derived: where a leaf lost a parent (a
 * spine down, superpod 2,4,18,9,3,1 --drop-switches 1@1) it was worse,
 * 3/1.83 to 3/2.10; on every switch above the leaves of the split
 * cores and SuperPODs, 77 rows of 455 better and 128 worse.
 */
static int serial_turn(const struct router *r, uint32_t s)
{
	return r->t->level[s] && r->deg.lanes_dmg && !r->deg.split_dmg &&
	       vt_route_parallel_up(r->t, s);
}

/* Switch s's least-loaded up-link, scanned from rot on; *rq its parent's port. */
static uint32_t least_loaded(const struct router *r, uint32_t s, uint32_t rot, uint32_t *rq)
{
	const vt_tree *t = r->t;
	uint32_t a = t->up_start[s], nu = t->up_start[s + 1] - a, best = VT_NONE;
	uint32_t bu = UINT32_MAX;

	if ((r->deg.leaf_spread || r->deg.gsplit[s]) && !t->level[s])
		return spread_pick(r, s, rot, rq);
	if (!t->level[s] && nu && vt_route_weighted_leaf(t, s) &&
	    (best = capacity_pick(r, s, rot, rq)) != VT_NONE)
		return best;
	if (!t->level[s] && (best = vt_route_chassis_pick(r, s, rot)) != VT_NONE) {
		*rq = r->f->ports[swport(r, s, t->up_port[best])].peer;
		return best;
	}
	if (serial_turn(r, s))
		rot = r->main.serial;
	for (uint32_t i = 0; i < nu; i++) {
		uint32_t j = a + (i + rot) % nu;
		uint32_t q = r->f->ports[swport(r, s, t->up_port[j])].peer;
		uint32_t u = r->use.dn[q] + (t->level[s] ? 0 : r->deg.charge[j]);

		if (u < bu) {
			bu = u;
			best = j;
			*rq = q;
		}
	}
	return best;
}

/*
 * Level-1 switch s on the ascent from leaf x that kept only its first
 * up-links (vt_route_prefix_short): the current destination's regular lane
 * (its complete sibling's up-link at the destination's offset in x's ranks)
 * goes to a parent x lacks, so it came up another lane.
 * It takes the up-link s's last ascent from x took, that of x's destination
 * before it, rather than the least-used one: that would move every later
 * destination of s one top on, and where two short leaves do so in different
 * pods a top gathers three destinations of one shift window (fat 4,3
 * --leaf-uplinks 2:2: 3/2.11, cut bound 2/1.94). Only where s has one link
 * to each parent (pruned 12,3 --leaf-uplinks 2:3, parallel links: 3/2.06
 * without, 3/2.19 with) and where the plane's only damage is such leaves
 * (deg.prefix_dmg; fat 4,3 --drop-links 2@0 --seed 3, a leaf that lost its
 * last link and one that lost another: 2/1.92 without, 3/2.00 with).
 * Only where x has one link to s: where x kept parallel links to one
 * switch, all its displaced destinations come up to s and would follow one
 * top (superpod 2,4,8,4,4,4 --leaf-uplinks 1:2, 7 of a leaf's 8 down one
 * top: 7/6.03, 4/3.62 without, the cut bound).
 * VT_NONE: not such a case.
 */
static uint32_t displaced_lane(const struct router *r, uint32_t s, uint32_t x, uint32_t *rq)
{
	const vt_tree *t = r->t;
	uint32_t d = r->main.crank, sb, id, sa, want, j;

	if (!r->deg.prefix_dmg || t->level[s] != 1 || t->level[x] || d == VT_NONE ||
	    t->rank_leaf[d] != x || r->deg.last_from[s] != x || (id = t->sub[x]) == VT_NONE ||
	    vt_route_parallel_up(t, s) || (sb = vt_route_prefix_short(t, x)) == VT_NONE ||
	    !vt_route_single_up(t, x, s))
		return VT_NONE;
	/* the regular lane: the sibling's up-link at the destination's offset */
	sa = t->up_start[sb];
	want = t->up_peer[sa + (d - t->subs[id].first_rank) % (t->up_start[sb + 1] - sa)];
	for (j = t->up_start[x]; j < t->up_start[x + 1]; j++)
		if (t->up_peer[j] == want)
			return VT_NONE;
	j = r->deg.last_up[s];
	*rq = r->f->ports[swport(r, s, t->up_port[j])].peer;
	return j;
}

/*
 * The usage key of the level above s: which parent (port group, not port:
 * parallel links to one parent share counters) up-link j of s goes to,
 * 1 .. its port groups (below use.nkeys: vt_route_key_count).
 */
static uint32_t parent_key(const vt_tree *t, uint32_t s, uint32_t j)
{
	uint32_t g = 0;

	for (uint32_t i = t->up_start[s] + 1; i <= j; i++)
		g += t->up_peer[i] != t->up_peer[i - 1];
	return g + 1;
}

uint32_t vt_route_key_count(const vt_tree *t)
{
	uint32_t most = 0;

	for (uint32_t s = 0; s < t->nsw; s++)
		if (t->up_start[s + 1] > t->up_start[s]) {
			uint32_t k = parent_key(t, s, t->up_start[s + 1] - 1);

			most = k > most ? k : most;
		}
	return most + 1;
}

/*
 * From x up to a top switch, each switch's parent setting its entry for the
 * current LID (none for a place-keeper) down towards it. Fills path[] (x first) and pn[l], the
 * port number taken at level l; returns the path's length.
 */
uint32_t vt_route_downgoing_by_ascending(struct router *r, uint32_t x, uint32_t rot, uint32_t *path,
					 uint8_t *pn)
{
	const vt_tree *t = r->t;
	uint32_t n = 0, s = x;

	assert(x < t->nsw && t->level[x] != VT_TREE_OUTSIDE);
	memset(r->use.key, 0, sizeof(r->use.key));
	path[n++] = x;
	for (;;) {
		uint32_t rq = VT_NONE, best = sibling_lane(r, s, rot, &rq);

		r->deg.nasc[s]++;
		if (best == VT_NONE && n >= 2)
			best = displaced_lane(r, s, path[n - 2], &rq);
		if (best == VT_NONE) {
			uint32_t lb = least_loaded(r, s, rot, &rq);

			best = vt_route_leaf_lane(r, s, rot, lb);
			if (best != lb) /* lb keeps its turn (deg.charge) */
				r->deg.charge[lb]++;
			if (best != VT_NONE)
				rq = r->f->ports[swport(r, s, t->up_port[best])].peer;
		}
		if (best == VT_NONE)
			break;
		if (t->level[s] == 1 && n >= 2) {
			r->deg.last_up[s] = best;
			r->deg.last_from[s] = path[n - 2];
		}
		r->use.dn[rq]++;
		pn[t->level[s]] = t->up_port[best];
		r->use.key[t->level[s] + 1] = parent_key(t, s, best);
		s = t->up_peer[best];
		set_entry(r, s, r->f->ports[rq].num);
		assert(n < VT_TREE_MAX_LEVELS); /* one switch per level: path[] holds them all */
		path[n++] = s;
	}
	return n;
}
