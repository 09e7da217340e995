/* SPDX-License-Identifier: MIT */
/*
 * Degraded trees, beyond the paper: switches below the main route that its
 * descent (Algorithm 3, vt_route_upgoing.c) missed because they lost their
 * link towards it still carry host traffic, so each goes up to a parent one
 * hop closer, chosen by the tie-break policy (vt_route_policy.c). Also the
 * sibling lanes (deg.sib) that the ascent (vt_route_downgoing.c) and the
 * stragglers fall back on when a switch lost up-links.
 */
#include <string.h>

#include "base/vt_uf.h"
#include "route/vt_route_int.h"
#include "route/vt_route_policy.h"

/*
 * How many lanes on from the current destination's own lane (of sn) the
 * destination of switch s's subtree furthest from it in rank order takes:
 * the sn lanes go round in rank order, so a destination that must share a
 * lane shares it with that one, and the fewest shift stages send both from
 * outside (half the run, the fallback, where the rank is not a host's or s
 * is not deg.far).
 */
uint32_t vt_route_far_lane(const struct router *r, uint32_t s, uint32_t sn)
{
	const vt_tree *t = r->t;
	uint32_t d = r->main.crank, l = t->level[s], leaf, id, i0;

	if (!r->deg.far[s] || d == VT_NONE || !sn || (leaf = t->rank_leaf[d]) == VT_NONE ||
	    (id = t->sub[(size_t)l * t->nsw + leaf]) == VT_NONE || !t->subs[id].nranks)
		return sn / 2;
	i0 = (uint32_t)((uint64_t)(d - t->subs[id].first_rank) * sn / t->subs[id].nranks);
	return i0 < (sn + 1) / 2 ? sn - 1 - i0 : (sn - i0) % sn;
}

/*
 * A straggler c with a complete sibling lost the parent behind port pn (in
 * the sibling's run): it takes the first parent it has from
 * vt_route_far_lane's lanes on, a fixed lane away from the lost one (as the
 * ascent falls back), rather than the least-used one.
 */
static uint32_t straggler_pref(const struct router *r, uint32_t c, uint8_t pn)
{
	const vt_tree *t = r->t;
	uint32_t sb = r->deg.sib[c], sa, sn, i;

	if (sb == VT_NONE)
		return VT_NONE;
	sa = t->up_start[sb];
	sn = t->up_start[sb + 1] - sa;
	for (i = 0; i < sn && t->up_port[sa + i] != pn; i++)
		;
	if (i == sn)
		return VT_NONE;
	uint32_t far = vt_route_far_lane(r, c, sn);
	for (uint32_t k = 1; k < sn; k++) {
		uint32_t p = t->up_peer[sa + (i + far + k - 1) % sn];

		for (uint32_t j = t->up_start[c]; j < t->up_start[c + 1]; j++)
			if (t->up_peer[j] == p && r->plan.h[p] + 1 == r->plan.h[c])
				return p;
	}
	return VT_NONE;
}

/* Straggler c's up-link (up_port[] entry) to a parent one hop closer that the policy ranks first.
 */
static uint32_t straggler_uplink(const struct router *r, uint32_t c, const uint8_t *pn)
{
	const vt_tree *t = r->t;
	uint32_t best = VT_NONE, sib_parent, n = 0, memo[VT_MAX_PORTS];
	struct straggler_keys bk = {0}, k;

	/*
	 * One way up, or a switch no host traffic starts from (a host-less
	 * leaf): the shift-window policy has nothing to balance, the least-used
	 * link serves
	 */
	for (uint32_t j = t->up_start[c]; j < t->up_start[c + 1]; j++)
		if (r->plan.h[t->up_peer[j]] + 1 == r->plan.h[c] &&
		    (best == VT_NONE || r->use.up[swport(r, c, t->up_port[j])] <
						r->use.up[swport(r, c, t->up_port[best])]))
			best = j, n++;
		else if (r->plan.h[t->up_peer[j]] + 1 == r->plan.h[c])
			n++;
	if (n == 1 || (!t->level[c] && vt_tree_leaf_ca(t, c) == VT_NONE))
		return best;
	best = VT_NONE;
	memo[0] = VT_NONE;
	sib_parent = straggler_pref(r, c, pn[t->level[c]]);
	for (uint32_t j = t->up_start[c]; j < t->up_start[c + 1]; j++) {
		if (r->plan.h[t->up_peer[j]] + 1 != r->plan.h[c])
			continue;
		vt_route_straggler_keys(r, c, j, sib_parent, pn, memo, &k);
		if (best == VT_NONE || vt_route_straggler_better(&k, &bk)) {
			bk = k;
			best = j;
		}
	}
	return best;
}

/*
 * Missed leaves, then only the missed switches they (transitively) feed, go
 * up to the parent the policy names; pn[l] is the port number the main route
 * took at level l.
 */
void vt_route_stragglers(struct router *r, const uint8_t *pn)
{
	const vt_tree *t = r->t;
	const uint32_t serial = r->main.serial;
	uint32_t n = 0, *list = r->main.next, *found = r->main.found;

	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++) {
		uint32_t c = t->by_level[i];

		if (is_anc(r, c) || found[c] == serial || r->plan.h[c] == VT_NONE)
			continue;
		found[c] = serial | VT_ROUTE_STRAGGLER;
		list[n++] = c;
	}
	for (uint32_t k = 0; k < n; k++) {
		uint32_t c = list[k], best = straggler_uplink(r, c, pn), p;

		r->use.up[swport(r, c, t->up_port[best])]++;
		set_entry(r, c, t->up_port[best]);
		p = t->up_peer[best];
		if (!is_anc(r, p) && (found[p] & ~VT_ROUTE_STRAGGLER) != serial) {
			found[p] = serial | VT_ROUTE_STRAGGLER;
			list[n++] = p;
		}
	}
}

/* Is every parent of s also a parent of c? */
static int parents_within(const vt_tree *t, uint32_t s, uint32_t c)
{
	for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++) {
		uint32_t k = t->up_start[c];

		while (k < t->up_start[c + 1] && t->up_peer[k] != t->up_peer[j])
			k++;
		if (k == t->up_start[c + 1])
			return 0;
	}
	return 1;
}

/* deg.leaf_spread: see struct route_degraded. */
static int leaf_spread(const vt_tree *t)
{
	uint32_t lo = UINT32_MAX, hi = 0;

	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++) {
		uint32_t s = t->by_level[i], a = t->up_start[s], b = t->up_start[s + 1];

		for (uint32_t j = a, w = 1; j < b; j++, w++)
			if (j + 1 == b || t->up_peer[j + 1] != t->up_peer[j]) {
				lo = w < lo ? w : lo;
				hi = w > hi ? w : hi;
				w = 0;
			}
	}
	return lo < hi;
}

/*
 * deg.spread_seq of leaf L: vt_route_downgoing.c's smooth weighted round
 * robin (spread_pick) replayed for nu ascents, its tie-breaks included. The
 * round repeats every nu ascents: each parent has had its share then, and
 * each link one more destination.
 */
static void spread_round(struct router *r, const vt_tree *t, uint32_t L)
{
	uint32_t a = t->up_start[L], nu = t->up_start[L + 1] - a, best = 0;
	uint32_t load[VT_MAX_PORTS + 1], g[VT_MAX_PORTS + 1], gn[VT_MAX_PORTS + 1];
	uint32_t gl[VT_MAX_PORTS + 1];

	assert(nu <= VT_MAX_PORTS);
	/* g[i]: the first link of link i's parent (parallel links are listed together) */
	for (uint32_t i = 0; i < nu; i++) {
		load[i] = gn[i] = gl[i] = 0;
		g[i] = i && t->up_peer[a + i] == t->up_peer[a + i - 1] ? g[i - 1] : i;
		gn[g[i]]++;
	}
	for (uint32_t n = 1; n <= nu; n++) {
		int64_t bd = 0;

		for (uint32_t j = 0; j < nu; j++) {
			int64_t dj = (int64_t)gn[g[j]] * n - (int64_t)nu * gl[g[j]];

			if (!j || dj > bd || (dj == bd && load[j] < load[best])) {
				bd = dj;
				best = j;
			}
		}
		load[best]++;
		gl[g[best]]++;
		r->deg.spread_seq[a + n - 1] = t->up_peer[a + best];
	}
}

/* Did switch s of the tree lose up-links (has fewer than its level's)? */
static uint32_t lost_up(const vt_tree *t, uint32_t s)
{
	uint32_t l = t->level[s], nu = t->up_start[s + 1] - t->up_start[s];

	return l == VT_TREE_OUTSIDE || !l || !nu || nu >= t->lv[l].up_links
		       ? 0
		       : t->lv[l].up_links - nu;
}

/* deg.far: see struct route_degraded. */
static void far_lanes(struct router *r, const vt_tree *t)
{
	memset(r->deg.pcnt, 0, t->nsw * sizeof(*r->deg.pcnt));
	for (uint32_t s = 0; s < t->nsw; s++) {
		if (!lost_up(t, s))
			continue;
		for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++)
			r->deg.pcnt[t->up_peer[j]]++;
	}
	for (uint32_t s = 0; s < t->nsw; s++) {
		r->deg.far[s] = lost_up(t, s) == 1;
		for (uint32_t j = t->up_start[s]; r->deg.far[s] && j < t->up_start[s + 1]; j++)
			r->deg.far[s] = r->deg.pcnt[t->up_peer[j]] == 1;
	}
}

/* The port number s's first child reaches it by (its lane there), VT_NONE: no child. */
static uint32_t down_lane(const struct router *r, const vt_tree *t, uint32_t s)
{
	return t->dn_start[s] < t->dn_start[s + 1] ? r->links.dn_rport[t->dn_start[s]] : VT_NONE;
}

/*
 * Does a child of p with at most m links to it reach its own children by the
 * lane s does (down_lane)?
 */
static int lacked_in_step(const struct router *r, const vt_tree *t, uint32_t s, uint32_t p,
			  uint32_t m)
{
	uint32_t ls = down_lane(r, t, s);

	for (uint32_t k = t->dn_start[p]; k < t->dn_start[p + 1]; k++) {
		uint32_t c = t->dn_peer[k], n = 0;

		if (c == s || down_lane(r, t, c) != ls)
			continue;
		for (uint32_t j = t->up_start[c]; j < t->up_start[c + 1]; j++)
			n += t->up_peer[j] == p;
		if (n <= m)
			return 1;
	}
	return 0;
}

/* deg.minpar and deg.own (see struct route_degraded), after deg.sib. */
static void own_lanes(struct router *r, const vt_tree *t)
{
	for (uint32_t s = 0; s < t->nsw; s++)
		r->deg.minpar[s] = UINT32_MAX;
	for (uint32_t s = 0; s < t->nsw; s++)
		for (uint32_t j = t->up_start[s], w = 1; j < t->up_start[s + 1]; j++, w++)
			if (j + 1 == t->up_start[s + 1] || t->up_peer[j + 1] != t->up_peer[j]) {
				uint32_t *m = &r->deg.minpar[t->up_peer[j]];

				*m = w < *m ? w : *m;
				w = 0;
			}
	for (uint32_t s = 0; s < t->nsw; s++) {
		uint32_t l = t->level[s];

		r->deg.own[s] = 0;
		if (l == VT_TREE_OUTSIDE || !l || r->deg.sib[s] != VT_NONE)
			continue;
		for (uint32_t j = t->up_start[s], m = 0; j < t->up_start[s + 1]; j++) {
			m = j > t->up_start[s] && t->up_peer[j] == t->up_peer[j - 1] ? m + 1 : 0;
			r->deg.own[s] |= m >= r->deg.minpar[t->up_peer[j]] &&
					 lacked_in_step(r, t, s, t->up_peer[j], m);
		}
	}
}

/* deg.lane0 (see struct route_degraded), after deg.sib and deg.own. */
static void lane_starts(struct router *r, const vt_tree *t)
{
	for (uint32_t s = 0; s < t->nsw; s++) {
		uint32_t sb = r->deg.sib[s] != VT_NONE ? r->deg.sib[s]
			      : r->deg.own[s]	       ? s
						       : VT_NONE;

		r->deg.lane0[s] = 0;
		for (uint32_t e = sb == VT_NONE ? 0 : t->up_start[sb];
		     sb != VT_NONE && e < t->up_start[sb + 1]; e++)
			if (vt_route_lane_lost(r, sb, e)) {
				r->deg.lane0[s] = e - t->up_start[sb];
				break;
			}
	}
}

/* Links of switch c into group g (deg.grp). */
static uint32_t links_into(const struct router *r, const vt_tree *t, uint32_t c, uint32_t g)
{
	uint32_t n = 0;

	for (uint32_t j = t->up_start[c]; j < t->up_start[c + 1]; j++)
		n += r->deg.grp[t->up_peer[j]] == g;
	return n;
}

/*
 * The weight of each up-link's group in leaf s's shares (spread_pick), on
 * the group's first link, 0 on the others: the group's links whole
 * (deg.gwhole) where s has two or more parents in it, which can take the
 * destinations lost links would have carried; else the links s has into it.
 */
void vt_route_group_weights(const struct router *r, uint32_t s, uint32_t *gw)
{
	const vt_tree *t = r->t;
	uint32_t a = t->up_start[s], nu = t->up_start[s + 1] - a;

	for (uint32_t i = 0; i < nu; i++) {
		uint32_t g = r->deg.grp[t->up_peer[a + i]], np = 0, n = 0, w = 0, k;

		for (k = 0; k < i && r->deg.grp[t->up_peer[a + k]] != g; k++)
			;
		gw[i] = 0;
		if (k < i)
			continue; /* not the group's first link */
		for (k = i; k < nu; k++) {
			if (r->deg.grp[t->up_peer[a + k]] != g)
				continue;
			n++;
			np += k == i || t->up_peer[a + k] != t->up_peer[a + k - 1];
			w = r->deg.gwhole[a + k] > w ? r->deg.gwhole[a + k] : w;
		}
		gw[i] = np > 1 ? w : n;
	}
}

/* A leaf's compute ranks that have a port (place-keepers left out). */
static uint32_t leaf_ranks(const vt_tree *t, uint32_t L)
{
	uint32_t id = t->sub[L], m = 0;

	for (uint32_t k = 0; id != VT_NONE && k < t->subs[id].nranks; k++)
		m += t->order.port[t->subs[id].first_rank + k] != VT_NONE;
	return m;
}

/*
 * deg.stage_few: without it stage_load walked every leaf on each call to
 * learn that a level-1 switch of a large pruned tree has too many hosts
 * below (pruned 36,12, a leaf's up-link down: 350 M instructions of a
 * 550 M route).
 */
void vt_route_stage_few(struct router *r, const vt_tree *t)
{
	for (uint32_t c = 0; c < t->nsw; c++) {
		uint32_t m = 0;

		for (uint32_t i = t->lvl_start[0]; t->level[c] && i < t->lvl_start[1]; i++) {
			uint32_t L = t->by_level[i];

			if (vt_tree_bit(t, t->desc, c, L) && (m += leaf_ranks(t, L)) > VT_STAGE_SRC)
				break;
		}
		r->deg.stage_few[c] = t->level[c] && m <= VT_STAGE_SRC;
	}
}

/* deg.grp, deg.gwhole and deg.gsplit: see struct route_degraded. */
static void parent_groups(struct router *r, const vt_tree *t)
{
	vt_uf_init(r->deg.grp, t->nsw);
	for (uint32_t p = 0; p < t->nsw; p++)
		for (uint32_t k = t->dn_start[p] + 1; k < t->dn_start[p + 1]; k++)
			vt_uf_union_min(r->deg.grp, t->dn_peer[k], t->dn_peer[t->dn_start[p]]);
	for (uint32_t s = 0; s < t->nsw; s++)
		r->deg.grp[s] =
			t->up_start[s] == t->up_start[s + 1] ? t->nsw : vt_uf_find(r->deg.grp, s);
	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++) {
		uint32_t s = t->by_level[i], a = t->up_start[s], nu = t->up_start[s + 1] - a;
		uint32_t gw[VT_MAX_PORTS + 1], w = 0, ng = 0;

		for (uint32_t j = a; j < a + nu; j++) {
			uint32_t p = t->up_peer[j], m = 0;

			if (j > a && p == t->up_peer[j - 1]) {
				r->deg.gwhole[j] = r->deg.gwhole[j - 1];
				continue;
			}
			for (uint32_t k = t->dn_start[p]; k < t->dn_start[p + 1]; k++) {
				uint32_t n = links_into(r, t, t->dn_peer[k], r->deg.grp[p]);

				m = n > m ? n : m;
			}
			r->deg.gwhole[j] = m;
		}
		assert(nu <= VT_MAX_PORTS);
		vt_route_group_weights(r, s, gw);
		for (uint32_t k = 0; k < nu; k++) {
			w += gw[k];
			ng += gw[k] > 0;
		}
		r->deg.gsplit[s] = ng > 1 && nu < w;
	}
	r->deg.leaf_dmg = 0;
	r->deg.split_dmg = 0;
	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++) {
		uint32_t s = t->by_level[i], nu = t->up_start[s + 1] - t->up_start[s];

		r->deg.leaf_dmg |= nu && nu < t->lv[0].up_links;
	}
	if (!r->deg.leaf_dmg)
		return;
	vt_route_stage_few(r, t);
	for (uint32_t i = t->nlevels < 2 ? 0 : t->lvl_start[t->nlevels - 2];
	     t->nlevels >= 2 && i < t->lvl_start[t->nlevels - 1]; i++)
		r->deg.split_dmg |= r->deg.grp[t->by_level[i]] !=
				    r->deg.grp[t->by_level[t->lvl_start[t->nlevels - 2]]];
}

/* deg.prefix_dmg: see struct route_degraded. */
static int prefix_damage(const vt_tree *t)
{
	int some = 0;

	for (uint32_t s = 0; s < t->nsw; s++) {
		uint32_t l = t->level[s], nu = t->up_start[s + 1] - t->up_start[s];

		if (l == VT_TREE_OUTSIDE || l + 1 >= t->nlevels || nu == t->lv[l].up_links)
			continue;
		if (l || vt_route_prefix_short(t, s) == VT_NONE)
			return 0;
		some = 1;
	}
	return some;
}

/* Distinct parents of switch s (its up-links are listed parent by parent). */
static uint32_t parents_of(const vt_tree *t, uint32_t s)
{
	uint32_t n = t->up_start[s + 1] > t->up_start[s];

	for (uint32_t j = t->up_start[s] + 1; j < t->up_start[s + 1]; j++)
		n += t->up_peer[j] != t->up_peer[j - 1];
	return n;
}

/* deg.lanes_dmg: see struct route_degraded. */
static int lanes_damage(const struct router *r, const vt_tree *t)
{
	uint32_t most = 0;

	if (!r->deg.leaf_dmg)
		return 0;
	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++) {
		uint32_t n = parents_of(t, t->by_level[i]);

		most = n > most ? n : most;
	}
	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++)
		if (parents_of(t, t->by_level[i]) != most)
			return 0;
	return 1;
}

/* deg.sib: see struct route_degraded; a sibling is looked for among the first parent's children. */
void vt_route_siblings(struct router *r, const vt_tree *t)
{
	r->deg.leaf_spread = leaf_spread(t);
	r->deg.prefix_dmg = prefix_damage(t);
	parent_groups(r, t);
	r->deg.lanes_dmg = lanes_damage(r, t);
	memset(r->deg.charge, 0, t->up_start[t->nsw] * sizeof(*r->deg.charge));
	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++)
		if (r->deg.leaf_spread)
			spread_round(r, t, t->by_level[i]);
		else
			vt_route_leaf_lanes(r, t->by_level[i]);
	for (uint32_t s = 0; s < t->nsw; s++) {
		uint32_t l = t->level[s], p;

		r->deg.last_from[s] = VT_NONE;
		r->deg.sib[s] = VT_NONE;
		if (!lost_up(t, s))
			continue;
		p = t->up_peer[t->up_start[s]];
		for (uint32_t k = t->dn_start[p]; k < t->dn_start[p + 1]; k++) {
			uint32_t c = t->dn_peer[k];

			if (t->up_start[c + 1] - t->up_start[c] == t->lv[l].up_links &&
			    parents_within(t, s, c)) {
				r->deg.sib[s] = c;
				break;
			}
		}
	}
	far_lanes(r, t);
	own_lanes(r, t);
	lane_starts(r, t);
}

/* Up-links of switch p: what it can still carry upward. */
uint32_t vt_route_up_capacity(const vt_tree *t, uint32_t p)
{
	return t->up_start[p + 1] - t->up_start[p];
}

/*
 * Is leaf s's choice among its parents weighted by what each can carry
 * upward: its leaves are oversubscribed (more hosts than the level's
 * up-links), its parents differ in up-links, and one kept at most half its
 * level's? On a tree without oversubscription every destination keeps a
 * lane of its own, the sibling lanes (deg.sib) keep it there, and weights
 * would only move it (fat 4,3 --drop-links 1@1: shift 2/1.57, weighted
 * 2/1.90); where a parent kept more than half, the sibling lanes serve
 * better too (thin 8:4,3 --drop-links 3@1, a level-1 switch keeping 3 of
 * 4: seeds 2, 3, 4, 6 at 6/5.42, weighted 7-8/5.59).
 */
int vt_route_weighted_leaf(const vt_tree *t, uint32_t s)
{
	uint32_t a = t->up_start[s], c0;
	int uneven = 0, half = 0;

	if (a == t->up_start[s + 1] || t->hosts_per_leaf <= t->lv[0].up_links)
		return 0;
	c0 = vt_route_up_capacity(t, t->up_peer[a]);
	for (uint32_t j = a; j < t->up_start[s + 1]; j++) {
		uint32_t p = t->up_peer[j], c = vt_route_up_capacity(t, p);

		uneven |= c != c0;
		half |= 2 * c <= t->lv[t->level[p]].up_links;
	}
	return uneven && half;
}

/* Destinations switch p sends down to its children so far: its subtree's, pod-wide. */
uint32_t vt_route_down_load(const struct router *r, uint32_t p)
{
	const vt_tree *t = r->t;
	uint32_t sum = 0;

	for (uint32_t k = t->dn_start[p]; k < t->dn_start[p + 1]; k++)
		sum += r->use.dn[swport(r, p, t->dn_port[k])];
	return sum;
}

/* Destinations switch p sends up so far, pod-wide. */
uint32_t vt_route_up_load(const struct router *r, uint32_t p)
{
	const vt_tree *t = r->t;
	uint32_t sum = 0;

	for (uint32_t j = t->up_start[p]; j < t->up_start[p + 1]; j++)
		sum += r->use.up[swport(r, p, t->up_port[j])];
	return sum;
}
