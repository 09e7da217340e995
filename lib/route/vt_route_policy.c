/* SPDX-License-Identifier: MIT */
/*
 * The shift-aware tie-break policy (see vt_route_policy.h). Not in the paper,
 * whose Algorithms 3 and 4 take "the least loaded port" everywhere: on a
 * degraded tree the switches the main route misses need a rule of their own,
 * and this one keeps them off the lanes that shift stages already load.
 */
#include "route/vt_route_policy.h"

#include "route/vt_route_int.h"

/*
 * Destinations of leaf x expected down its up-link with port number pnum
 * (capped at 62; 63 when x has no such port): its ascents take its nu
 * up-links in turn, so the first hosts_per_leaf % nu take one more.
 */
static uint32_t lane_share(const struct router *r, uint32_t x, uint8_t pnum)
{
	const vt_tree *t = r->t;
	uint32_t a = t->up_start[x], nu = t->up_start[x + 1] - a, hpl = t->hosts_per_leaf;

	for (uint32_t j = a; j < a + nu; j++)
		if (t->up_port[j] == pnum) {
			uint32_t v = hpl / nu + (j - a < hpl % nu);

			return v > 62 ? 62 : v;
		}
	return 63;
}

/* Has parent p lost up-links (fewer than its level's most common count)? */
static int lost_uplinks(const vt_tree *t, uint32_t p)
{
	return t->up_start[p + 1] - t->up_start[p] < t->lv[t->level[p]].up_links;
}

/* Leaf s's load on up-link j: its parent's destinations down it, and those it left (deg.charge). */
static uint32_t lane_load(const struct router *r, uint32_t s, uint32_t j)
{
	return r->use.dn[r->f->ports[swport(r, s, r->t->up_port[j])].peer] + r->deg.charge[j];
}

/*
 * The ascent's least-loaded up-link best of leaf s (scanned from rot) goes to
 * a parent that lost up-links: its way on takes the lane of some other
 * destination of the same shift windows. Where the leaf has spare lanes (more
 * up-links than destinations, lane_share 0) the destination takes one of
 * those, as loaded, instead; else the first as loaded to a complete parent,
 * so the leaf's other destinations keep their lanes. Otherwise best. Loads
 * count what a lane left for another (deg.charge), so a spare taken stays
 * taken and the lost lane keeps its turn.
 */
uint32_t vt_route_leaf_lane(const struct router *r, uint32_t s, uint32_t rot, uint32_t best)
{
	const vt_tree *t = r->t;
	uint32_t a = t->up_start[s], nu = t->up_start[s + 1] - a, spare = VT_NONE, full = VT_NONE;
	uint32_t bu;

	if (t->level[s] || best == VT_NONE || t->hosts_per_leaf >= nu ||
	    !lost_uplinks(t, t->up_peer[best]))
		return best;
	bu = lane_load(r, s, best);
	for (uint32_t i = 0; i < nu; i++) {
		uint32_t j = a + (i + rot) % nu;

		if (lane_load(r, s, j) != bu || lost_uplinks(t, t->up_peer[j]))
			continue;
		if (spare == VT_NONE && lane_share(r, s, t->up_port[j]) == 0)
			spare = j;
		if (full == VT_NONE)
			full = j;
	}
	return spare != VT_NONE ? spare : full != VT_NONE ? full : best;
}

/*
 * Is up-link e of switch w a lane some switch of w's level lacks: where
 * another child of its parent has only m links to it (deg.minpar), w's
 * parallel links to that parent but the last m? Following it, that switch
 * would put two consecutive destinations on one link, so such a lane falls
 * back. The first ones are lost rather than the last: the destination
 * displaced is then the first of its parent's run in the switch's cycle,
 * and it falls back to the cycle's last lane (vt_route_downgoing.c), so the
 * two sharing a link lie as far apart in rank order as the cycle allows and
 * meet in the fewest shift stages.
 */
int vt_route_lane_lost(const struct router *r, uint32_t w, uint32_t e)
{
	const vt_tree *t = r->t;
	uint32_t p = t->up_peer[e], m = 0;

	for (uint32_t j = e + 1; j < t->up_start[w + 1]; j++)
		m += t->up_peer[j] == p;
	return m >= r->deg.minpar[p];
}

/* The parent rank d's leaf's ascent goes to where leaves spread (deg.spread_seq). */
static uint32_t rank_parent(const struct router *r, uint32_t d)
{
	const vt_tree *t = r->t;
	uint32_t L = t->rank_leaf[d], a = t->up_start[L], nu = t->up_start[L + 1] - a;
	uint32_t off = d - t->subs[t->sub[L]].first_rank;

	return nu ? r->deg.spread_seq[a + off % nu] : VT_NONE;
}

/*
 * Is rank d's lane (its leaf's up-link in turn) the candidate's, port pnum to
 * parent p? The same parent, or, where d's leaf is not linked to p (another
 * pod), the same port number; a leaf linked to p whose lane goes to another
 * parent is cabled differently, and its port number says nothing.
 */
static int same_lane(const struct router *r, uint32_t d, uint8_t pnum, uint32_t p)
{
	const vt_tree *t = r->t;
	uint32_t L = t->rank_leaf[d], a = t->up_start[L], nu = t->up_start[L + 1] - a;
	uint32_t off = d - t->subs[t->sub[L]].first_rank, pp;

	if (!nu)
		return 0;
	pp = t->up_peer[a + off % nu];
	if (pp == p)
		return 1;
	for (uint32_t j = a; j < a + nu; j++)
		if (t->up_peer[j] == p)
			return 0;
	return t->up_port[a + off % nu] == pnum;
}

/*
 * Switch c's entry for rank d, routed already (the current batch, latest
 * first, else the tables); VT_LFT_NONE when d has no LID.
 */
static uint8_t routed_entry(const struct router *r, uint32_t c, uint32_t d)
{
	uint32_t q = r->t->order.port[d], lid = q == VT_NONE ? 0 : r->f->ports[q].lid;

	if (!lid)
		return VT_LFT_NONE;
	for (uint32_t i = r->batch.n; i-- > 0;)
		if (r->batch.lid[i] == lid)
			return r->batch.cols[(size_t)i * r->lfts->nsw + c];
	return vt_lft_get(r->lfts, c, lid);
}

/*
 * A shift stage sends a leaf's hosts to a window of as many consecutive
 * ranks: the most of the other destinations in any window holding the
 * current one (main.crank) that leaf c sends up port pnum (to parent p):
 * for those routed already in this pass, c's own entry (a destination c
 * missed too went where its policy sent it); for the others, their leaves'
 * lanes (the same port numbers in a regularly cabled tree, same_lane; where
 * leaves spread over their parents, the lanes to parent p). Capped at 62; 0
 * for destinations that are not compute nodes, or leaves wider than 64.
 */
static uint32_t window_load(const struct router *r, uint32_t c, uint8_t pnum, uint32_t p)
{
	const vt_tree *t = r->t;
	uint32_t w = t->hosts_per_leaf, n = t->order.n, d = r->main.crank, hit[2 * 64], best = 0;
	int spread = r->deg.leaf_spread;

	if (d == VT_NONE || w > 64 || 2 * w > n)
		return 0;
	for (uint32_t k = 0; k + 1 < 2 * w; k++) {
		uint32_t dd = (d + n + k - (w - 1)) % n;
		uint8_t e = dd < d ? routed_entry(r, c, dd) : VT_LFT_NONE;

		hit[k] = dd != d && t->order.port[dd] != VT_NONE &&
			 (e != VT_LFT_NONE ? e == pnum
			  : spread	   ? rank_parent(r, dd) == p
					   : same_lane(r, dd, pnum, p));
	}
	for (uint32_t a = 0; a < w; a++) {
		uint32_t sum = 0;

		for (uint32_t k = a; k < a + w; k++)
			sum += hit[k];
		best = sum > best ? sum : best;
	}
	return best > 62 ? 62 : best;
}

/*
 * The fewest destinations routed so far from ancestor p down to a child that
 * is an ancestor, capped at 62.
 */
static uint32_t down_load(const struct router *r, uint32_t p)
{
	const vt_tree *t = r->t;
	uint32_t ld = 62;

	for (uint32_t k = t->dn_start[p]; k < t->dn_start[p + 1]; k++)
		if (is_anc(r, t->dn_peer[k])) {
			uint32_t v = r->use.dn[swport(r, p, t->dn_port[k])];

			ld = v < ld ? v : ld;
		}
	return ld;
}

/*
 * Is parent p of straggler c on the main route's tree (an ancestor, or a
 * switch the descent found)? Above the leaves always: only a leaf's in-step
 * lane is dropped when its parent is itself a straggler, whose way on takes
 * another destination's lane, where a spare lane (one no destination of the
 * leaf is expected on) would go up free.
 */
static int reached(const struct router *r, uint32_t c, uint32_t p)
{
	return r->t->level[c] || is_anc(r, p) || r->main.found[p] == r->main.serial;
}

/*
 * Leaves: the preference, then the lane the fewest destinations of any shift
 * window holding this one are expected on, then the one the destination's
 * leaf doubles least (tier 0 throughout).
 *
 * Higher switches: a parent that goes down towards the destination (an
 * ancestor) ranks by its preference when it is the main route's or the
 * sibling's (tier 2), else by its least-used way down, then the preference
 * (tier 1). A switch's candidates are all ancestors or none (the hop counts
 * of the two differ), so the ranks given to other parents only order them
 * among themselves: by preference, the two strongest as tier 1 with a full
 * way down, as the packed integers this replaces did.
 */
void vt_route_straggler_keys(const struct router *r, uint32_t c, uint32_t j, uint32_t sib_parent,
			     const uint8_t *pn, struct straggler_keys *k)
{
	const vt_tree *t = r->t;
	uint32_t l = t->level[c], p = t->up_peer[j];
	uint8_t port = t->up_port[j];
	uint32_t pref = r->main.mark[p] == r->main.serial   ? PREF_MAIN_ROUTE
			: p == sib_parent		    ? PREF_SIBLING
			: port == pn[l] && reached(r, c, p) ? PREF_IN_STEP
							    : PREF_NONE;

	*k = (struct straggler_keys){.pref = pref, .use = r->use.up[swport(r, c, port)]};
	if (!l) {
		k->window_load = window_load(r, c, port, p);
		k->lane_share = lane_share(r, r->plan.px, port);
	} else if (is_anc(r, p)) {
		k->tier = pref >= PREF_SIBLING ? 2 : 1;
		k->down_load = pref >= PREF_SIBLING ? 0 : down_load(r, p);
	} else if (pref >= PREF_SIBLING) {
		k->tier = 1;
		k->down_load = 62;
		k->pref = pref - PREF_SIBLING;
	}
}

int vt_route_straggler_better(const struct straggler_keys *a, const struct straggler_keys *b)
{
	if (a->tier != b->tier)
		return a->tier > b->tier;
	if (a->down_load != b->down_load)
		return a->down_load < b->down_load;
	if (a->pref != b->pref)
		return a->pref > b->pref;
	if (a->window_load != b->window_load)
		return a->window_load < b->window_load;
	if (a->lane_share != b->lane_share)
		return a->lane_share < b->lane_share;
	return a->use < b->use;
}

/*
 * The lowest level, as the turn leaf is a leaf (the detours climb least far
 * before they turn), then the first in tree order, so the tables do not
 * depend on the input's record order.
 */
int vt_route_turn_switch_better(const vt_tree *t, uint32_t a, uint32_t b)
{
	if (t->level[a] != t->level[b])
		return t->level[a] < t->level[b];
	return t->pos[a] < t->pos[b];
}

/* Distinct parents of s (parallel links are listed together). */
static uint32_t nparents(const vt_tree *t, uint32_t s)
{
	uint32_t n = 0;

	for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++)
		n += j == t->up_start[s] || t->up_peer[j] != t->up_peer[j - 1];
	return n;
}

/*
 * The one linked to more tops (fewer turn switches, fewer tree steps for
 * the detours), then the first in tree order.
 */
int vt_route_top_tree_better(const vt_tree *t, uint32_t a, uint32_t b)
{
	uint32_t na = nparents(t, a), nb = nparents(t, b);

	if (na != nb)
		return na > nb;
	return t->pos[a] < t->pos[b];
}

void vt_route_look_count(struct look_keys *k, uint32_t load)
{
	k->max = load > k->max ? load : k->max;
	k->sq += (uint64_t)load * load;
}

int vt_route_look_better(const struct look_keys *a, const struct look_keys *b)
{
	uint32_t ma = (a->max + VT_LOOK_Q - 1) / VT_LOOK_Q,
		 mb = (b->max + VT_LOOK_Q - 1) / VT_LOOK_Q;

	if (ma != mb)
		return ma < mb;
	return a->sq < b->sq;
}

/* Strictly better: a tie keeps the tables Algorithms 2-4 wrote. */
int vt_route_look_better_plan(const struct look_figures *plan, const struct look_figures *tables)
{
	if (plan->worst != tables->worst)
		return plan->worst < tables->worst;
	return plan->sum < tables->sum;
}

/* Fewer up-links than the fullest leaf: its few tops are the ones to plan around. */
int vt_route_look_narrow(uint32_t nu, uint32_t most)
{
	return nu < most;
}
