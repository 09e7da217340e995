/* SPDX-License-Identifier: MIT */
/*
 * The shift-aware tie-break policy (see vt_route_policy.h). Not in the paper,
 * whose Algorithms 3 and 4 take "the least loaded port" everywhere: on a
 * degraded tree the switches the main route misses need a rule of their own,
 * and this one keeps them off the lanes that shift stages already load.
 */
#include "route/vt_route_policy.h"

#include <string.h>

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

/*
 * The up_port[] entry leaf x's destination at offset off (in its run of
 * ranks) goes up: its place in x's cycle of lanes (deg.lane_seq).
 */
static uint32_t lane_of(const struct router *r, uint32_t x, uint32_t off)
{
	const vt_tree *t = r->t;
	uint32_t a = t->up_start[x], nu = t->up_start[x + 1] - a;

	return r->deg.leaf_spread ? a + off % nu : r->deg.lane_seq[a + off % nu];
}

/*
 * Destinations of leaf x expected down its up-link with port number pnum,
 * as its cycle of lanes sends them (lane_of; capped at 62, 63 when x has no
 * such port).
 */
static uint32_t lane_expected(const struct router *r, uint32_t x, uint8_t pnum)
{
	const vt_tree *t = r->t;
	uint32_t a = t->up_start[x], nu = t->up_start[x + 1] - a, hpl = t->hosts_per_leaf, v, j;

	for (j = a; j < a + nu && t->up_port[j] != pnum; j++)
		;
	if (j == a + nu)
		return 63;
	/* whole cycles hold one destination a lane; the last, partial one as lane_of says */
	v = hpl / nu;
	for (uint32_t i = 0; i < hpl % nu; i++)
		v += t->up_port[lane_of(r, x, i)] == pnum;
	return v > 62 ? 62 : v;
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

void vt_route_leaf_lanes(struct router *r, uint32_t s)
{
	const vt_tree *t = r->t;
	uint32_t a = t->up_start[s], nu = t->up_start[s + 1] - a, hpl = t->hosts_per_leaf;
	uint32_t load[VT_MAX_PORTS + 1];

	assert(nu <= VT_MAX_PORTS);
	for (uint32_t i = 0; i < nu; i++) {
		load[i] = 0;
		r->deg.lane_seq[a + i] = a + i;
	}
	/* as vt_route_leaf_lane: only where the leaf has spare lanes; rot 0 (base LIDs) */
	for (uint32_t n = 0; hpl < nu && n < hpl; n++) {
		uint32_t best = 0, pick = VT_NONE, full = VT_NONE;

		for (uint32_t i = 1; i < nu; i++)
			best = load[i] < load[best] ? i : best;
		for (uint32_t i = 0; lost_uplinks(t, t->up_peer[a + best]) && i < nu; i++) {
			if (load[i] != load[best] || lost_uplinks(t, t->up_peer[a + i]))
				continue;
			if (pick == VT_NONE && lane_share(r, s, t->up_port[a + i]) == 0)
				pick = i;
			if (full == VT_NONE)
				full = i;
		}
		pick = pick != VT_NONE ? pick : full != VT_NONE ? full : best;
		load[best] += pick != best; /* the lane left keeps its turn (deg.charge) */
		load[pick]++;
		r->deg.lane_seq[a + n] = a + pick;
	}
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

/* The most hits in any w consecutive of hit[0 .. 2w - 2] (windows holding the middle), at most 62.
 */
static uint32_t window_max(const uint32_t *hit, uint32_t w)
{
	uint32_t sum = 0, best;

	for (uint32_t k = 0; k < w; k++)
		sum += hit[k];
	best = sum;
	for (uint32_t a = 1; a < w; a++) {
		sum -= hit[a - 1];
		sum += hit[a + w - 1];
		best = sum > best ? sum : best;
	}
	return best > 62 ? 62 : best;
}

/*
 * How a rank of leaf c's shift windows counts on an up-link of c
 * (window_loads): on the links to parent, and on the one with port number
 * port unless leaf (VT_NONE for c's own entry) is linked to that link's
 * parent (same_lane). VT_NONE: on none.
 */
struct window_rank {
	uint32_t parent, port, leaf;
};

/* Rank dd of leaf c's shift windows, read once for all of c's up-links. */
static struct window_rank window_rank_at(const struct router *r, uint32_t c, uint32_t dd)
{
	const vt_tree *t = r->t;
	struct window_rank x = {VT_NONE, VT_NONE, VT_NONE};
	uint32_t d = r->main.crank, L, nu, e;
	uint8_t own = dd < d ? routed_entry(r, c, dd) : VT_LFT_NONE;

	if (dd == d || t->order.port[dd] == VT_NONE)
		return x;
	if (own != VT_LFT_NONE) {
		x.port = own;
		return x;
	}
	if (r->deg.leaf_spread) {
		x.parent = rank_parent(r, dd);
		return x;
	}
	L = t->rank_leaf[dd];
	nu = t->up_start[L + 1] - t->up_start[L];
	if (!nu)
		return x;
	e = lane_of(r, L, dd - t->subs[t->sub[L]].first_rank);
	return (struct window_rank){.parent = t->up_peer[e], .port = t->up_port[e], .leaf = L};
}

/*
 * Is lane rank x's (its leaf's up-link in turn) the candidate's, port pnum to
 * parent p? The same parent, or, where x's leaf is not linked to p (another
 * pod), the same port number; a leaf linked to p whose lane goes to another
 * parent is cabled differently, and its port number says nothing.
 */
static int same_lane(const vt_tree *t, const struct window_rank *x, uint8_t pnum, uint32_t p)
{
	if (x->parent == p)
		return 1;
	if (x->port != pnum || x->leaf == VT_NONE)
		return x->port == pnum;
	for (uint32_t j = t->up_start[x->leaf]; j < t->up_start[x->leaf + 1]; j++)
		if (t->up_peer[j] == p)
			return 0;
	return 1;
}

/*
 * The most of the hits at sorted positions pos[0 .. m - 1] (in 0 .. 2w - 2)
 * in any w consecutive, as window_max: the window ending at a hit (or
 * starting at 0, where it cannot) holds every hit of any window whose last
 * hit that is, so those windows suffice.
 */
static uint32_t window_max_of(const uint8_t *pos, uint32_t m, uint32_t w)
{
	uint32_t best = 0;

	for (uint32_t i = 0; i < m; i++) {
		uint32_t e = pos[i] + 1u, a = e > w ? e - w : 0, n = 0;

		for (uint32_t k = 0; k < m; k++)
			n += pos[k] >= a && pos[k] < a + w;
		best = n > best ? n : best;
	}
	return best > 62 ? 62 : best;
}

/*
 * A shift stage sends a leaf's hosts to a window of as many consecutive
 * ranks: per up-link of leaf c (into load[] from index 0), the most of the
 * other destinations in any window holding the current one (main.crank)
 * that c sends up that link: for those routed already in this pass, c's
 * own entry (a destination c missed too went where its policy sent it);
 * for the others, their leaves' lanes (the same port numbers in a regularly
 * cabled tree, same_lane; where leaves spread over their parents, the lanes
 * to the parent). Capped at 62; 0 for destinations that are not compute
 * nodes, or leaves wider than 64. Each rank is read once and marks the few
 * up-links it counts on (bit k of hits[2i], hits[2i + 1] for up-link i): a
 * straggler weighs all its up-links.
 */
static void window_loads(const struct router *r, uint32_t c, uint32_t *load)
{
	const vt_tree *t = r->t;
	uint32_t w = t->hosts_per_leaf, n = t->order.n, d = r->main.crank;
	uint32_t a = t->up_start[c], nu = t->up_start[c + 1] - a;
	uint64_t hits[2 * VT_MAX_PORTS];
	uint8_t at[256], pos[2 * 64]; /* at: up-link of c by port number, 0xFF none */

	if (d == VT_NONE || w > 64 || 2 * w > n) {
		memset(load, 0, nu * sizeof(*load));
		return;
	}
	assert(nu <= VT_MAX_PORTS);
	memset(hits, 0, 2 * nu * sizeof(*hits));
	memset(at, 0xFF, sizeof(at));
	for (uint32_t i = 0; i < nu; i++)
		at[t->up_port[a + i]] = (uint8_t)i;
	for (uint32_t k = 0; k + 1 < 2 * w; k++) {
		struct window_rank x = window_rank_at(r, c, (d + n + k - (w - 1)) % n);
		uint64_t bit = 1ull << (k % 64);
		uint32_t i = x.port < 256 ? at[x.port] : 0xFF;

		for (uint32_t q = 0; x.parent != VT_NONE && q < nu; q++)
			if (t->up_peer[a + q] == x.parent)
				hits[2 * q + k / 64] |= bit;
		if (i != 0xFF && same_lane(t, &x, t->up_port[a + i], t->up_peer[a + i]))
			hits[2 * i + k / 64] |= bit;
	}
	for (uint32_t i = 0; i < nu; i++) {
		uint32_t m = 0;

		for (uint32_t h = 0; h < 2; h++)
			for (uint64_t b = hits[2 * i + h]; b; b &= b - 1)
				pos[m++] = (uint8_t)(64 * h + (uint32_t)__builtin_ctzll(b));
		load[i] = window_max_of(pos, m, w);
	}
}

/*
 * Leaf c, which several main-route links found (vt_route_upgoing.c), lost
 * up-links: its links to the parents that found it are fewer than its
 * siblings', so taking them in turn no longer keeps a shift window's
 * destinations on different lanes. The window's load on up-link j (as a
 * straggler's, window_loads) then ranks them first. Above the leaves, where
 * some leaf lost up-links (deg.leaf_dmg) or c lost a lane (deg.clost),
 * vt_route_stage_load; 0 elsewhere. Not only on split cores: such a leaf's
 * destinations leave their lanes, so a switch above no longer gets one key
 * (route_usage.by_key) per lane, and keys seen once each all took its first
 * link (superpod 2,2,18,9,2,1 --drop-links 2@0 --seed 3, one core group: a
 * spine's link to a top carried 4 flows a stage, 4/2.35; 3/1.82 with the
 * stage load).
 */

uint32_t vt_route_found_window(struct router *r, uint32_t c, uint32_t j, uint32_t *memo)
{
	const vt_tree *t = r->t;

	if (t->level[c]) {
		if (!r->deg.leaf_dmg && !r->deg.clost[c])
			return 0;
		if (memo[0] == VT_NONE) /* every up-link's at once: the same flows walked */
			vt_route_stage_load(r, c, memo);
		return memo[j - t->up_start[c]];
	}
	if (t->up_start[c + 1] - t->up_start[c] >= t->lv[0].up_links)
		return 0;
	if (memo[0] == VT_NONE)
		window_loads(r, c, memo);
	return memo[j - t->up_start[c]];
}

/*
 * Above the leaves: the hosts below switch c (its subtree's ranks) send a
 * shift stage to a window of as many consecutive ranks; the most of the
 * destinations routed so far in any such window holding the current one
 * that c sends up port pnum (its entry; destinations in the subtree do not
 * go up). A straggler that joins them there meets them in that stage.
 * Only where leaves have spare lanes (fewer ranks than the level's
 * up-links): there a switch above has up-links no such destination takes,
 * elsewhere every up-link carries one and the entries, fill routes among
 * them, only mislead (fat 4,3 --drop-switches 1@1: 2/1.92 counting, 3/2.11).
 * Capped at 62; 0 for subtrees wider than 64 ranks.
 */
static uint32_t up_window(const struct router *r, uint32_t c, uint8_t pnum)
{
	const vt_tree *t = r->t;
	uint32_t d = r->main.crank, n = t->order.n, id, w, f0, hit[2 * 64];

	if (d == VT_NONE || t->hosts_per_leaf >= t->lv[0].up_links ||
	    (id = t->sub[(size_t)t->level[c] * t->nsw + c]) == VT_NONE)
		return 0;
	w = t->subs[id].nranks;
	f0 = t->subs[id].first_rank;
	if (!w || w > 64 || 2 * w > n)
		return 0;
	for (uint32_t k = 0; k + 1 < 2 * w; k++) {
		uint32_t dd = (d + n + k - (w - 1)) % n;

		hit[k] = dd < d && (dd < f0 || dd >= f0 + w) && routed_entry(r, c, dd) == pnum;
	}
	return window_max(hit, w);
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
 * Do the ancestors among straggler c's parents one hop closer send down
 * towards the destination only what c sends them (c is their only child
 * that is not an ancestor)? Their ways down then carry exactly c's
 * up-links' flows, the main route's and the stragglers' alike, while
 * down_load counts the main route's only. Where a pod lost a level-1
 * switch, the tops above its column reach the other pod through one
 * switch, which the descent misses for the destinations whose main route
 * went up the dead column's twin: down_load sent those up the top the
 * last main route left, 12 of a pod's 16 up one of two links (varary
 * 4,4,2:2,2 --drop-switches 1@1 --seed 3: shift 12/6.39, cut bound
 * 8/4.77). c's least-used up-link spreads them evenly.
 */
static int sole_way_down(const struct router *r, uint32_t c)
{
	const vt_tree *t = r->t;
	int any = 0;

	for (uint32_t j = t->up_start[c]; j < t->up_start[c + 1]; j++) {
		uint32_t p = t->up_peer[j];

		if (r->plan.h[p] + 1 != r->plan.h[c])
			continue;
		if (!is_anc(r, p))
			return 0;
		for (uint32_t k = t->dn_start[p]; k < t->dn_start[p + 1]; k++)
			if (t->dn_peer[k] != c && !is_anc(r, t->dn_peer[k]))
				return 0;
		any = 1;
	}
	return any;
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
 * Is c a level-1 switch over weighted leaves (vt_route_weighted_leaf)? Its
 * stragglers came up a lane the leaf chose by capacity, not in step with the
 * main route, so neither the in-step port nor the parents' main-route loads
 * (which count none of the stragglers: thin 4:2,3 --drop-links 1@1 sent each
 * one up the same top, 7 a stage there) say anything; the least-used
 * up-link does.
 */
static int weighted_below(const vt_tree *t, uint32_t c)
{
	if (t->level[c] != 1 || t->dn_start[c] == t->dn_start[c + 1])
		return 0;
	return vt_route_weighted_leaf(t, t->dn_peer[t->dn_start[c]]);
}

int vt_route_single_up(const vt_tree *t, uint32_t x, uint32_t p)
{
	uint32_t n = 0;

	for (uint32_t j = t->up_start[x]; j < t->up_start[x + 1]; j++)
		n += t->up_peer[j] == p;
	return n == 1;
}

int vt_route_parallel_up(const vt_tree *t, uint32_t s)
{
	for (uint32_t j = t->up_start[s] + 1; j < t->up_start[s + 1]; j++)
		if (t->up_peer[j] == t->up_peer[j - 1])
			return 1;
	return 0;
}

uint32_t vt_route_prefix_short(const vt_tree *t, uint32_t x)
{
	uint32_t a = t->up_start[x], nu = t->up_start[x + 1] - a, p;

	if (t->level[x] || !nu || nu >= t->lv[0].up_links)
		return VT_NONE;
	p = t->up_peer[a];
	for (uint32_t k = t->dn_start[p]; k < t->dn_start[p + 1]; k++) {
		uint32_t c = t->dn_peer[k], ca = t->up_start[c], i = 0;

		if (t->level[c] || t->up_start[c + 1] - ca != t->lv[0].up_links)
			continue;
		while (i < nu && t->up_peer[ca + i] == t->up_peer[a + i])
			i++;
		if (i == nu)
			return c;
	}
	return VT_NONE;
}

/* Has level-1 switch c a leaf below it that kept only its first up-links, over one link to c? */
static int short_below(const vt_tree *t, uint32_t c)
{
	for (uint32_t k = t->dn_start[c]; k < t->dn_start[c + 1]; k++)
		if (vt_route_prefix_short(t, t->dn_peer[k]) != VT_NONE &&
		    vt_route_single_up(t, t->dn_peer[k], c))
			return 1;
	return 0;
}

/*
 * Level-1 straggler c over a short leaf (short_below) going up to ancestor
 * p: is p the top the destination's leaf (a complete one) sends its own
 * destination of p's column through (the leaf's rank on its link to p's
 * ancestor child, routed already)? The straggler then joins the top that
 * column already carries for that leaf, whose shift windows hold the leaf's
 * other ranks anyway, rather than the least-used one, which the leaf's later
 * ranks (not routed yet) take: fat 4,3 --leaf-uplinks 2:2 sent a short
 * leaf's stragglers down the top of the other short leaf's two
 * destinations, three a stage. Only where c has one link to each parent,
 * the short leaf one to c, and the plane's only damage is such leaves
 * (deg.prefix_dmg), as displaced_lane (vt_route_downgoing.c).
 */
static int column_top(const struct router *r, uint32_t c, uint32_t p, uint8_t port)
{
	const vt_tree *t = r->t;
	uint32_t d = r->main.crank, y, a = VT_NONE, id, j, d0;

	if (!r->deg.prefix_dmg || t->level[c] != 1 || d == VT_NONE ||
	    (y = t->rank_leaf[d]) == VT_NONE || (id = t->sub[y]) == VT_NONE || !short_below(t, c) ||
	    vt_route_parallel_up(t, c) || t->up_start[y + 1] - t->up_start[y] != t->lv[0].up_links)
		return 0;
	for (uint32_t k = t->dn_start[p]; k < t->dn_start[p + 1] && a == VT_NONE; k++)
		if (is_anc(r, t->dn_peer[k]) && t->level[t->dn_peer[k]] == 1)
			a = t->dn_peer[k];
	for (j = t->up_start[y]; a != VT_NONE && j < t->up_start[y + 1]; j++)
		if (t->up_peer[j] == a)
			break;
	if (a == VT_NONE || j == t->up_start[y + 1] || j - t->up_start[y] >= t->subs[id].nranks)
		return 0;
	/* c's own entry for it: the top its main route took (c is not its ancestor) */
	d0 = t->subs[id].first_rank + (j - t->up_start[y]);
	return d0 < d && routed_entry(r, c, d0) == port;
}

/* Is c the only leaf below its parents that lost links into a group (deg.gsplit)? */
static int alone_lost(const vt_tree *t, const uint8_t *gsplit, uint32_t c)
{
	for (uint32_t j = t->up_start[c]; j < t->up_start[c + 1]; j++) {
		uint32_t p = t->up_peer[j];

		for (uint32_t k = t->dn_start[p]; k < t->dn_start[p + 1]; k++)
			if (t->dn_peer[k] != c && gsplit[t->dn_peer[k]])
				return 0;
	}
	return 1;
}

/*
 * Leaf c of a damaged split core, the only one below its parents that lost
 * links into a group (deg.gsplit), misses the main route: does parent p lie
 * outside the group of the main route's level-1 switch (the lane c lost)?
 * Kept in that group, the destination doubles up on a lane of its own
 * chassis, and the lanes of the other chassis stay free for the routes
 * that climb to it: cores 2,6,3,12,6 --drop-links 2@0 --seed 2 sent a shift
 * stage's three flows up one link (3/1.94, now 2/1.89). Where two such
 * leaves share parents their doubled lanes met (--drop-links 3@0 --seed 3:
 * 2/1.90 to 3/1.96).
 */
static uint32_t off_group(const struct router *r, uint32_t c, uint32_t p, const uint8_t *pn)
{
	const vt_tree *t = r->t;
	uint32_t x = r->plan.px;

	/* the cheap tests first: alone_lost walks c's parents' children */
	if (t->level[c] || !r->deg.split_dmg || !r->deg.gsplit[c] || t->level[x] ||
	    !alone_lost(t, r->deg.gsplit, c))
		return 0;
	for (uint32_t j = t->up_start[x]; j < t->up_start[x + 1]; j++)
		if (t->up_port[j] == pn[0])
			return r->deg.grp[t->up_peer[j]] != r->deg.grp[p];
	return 0;
}

/*
 * Leaves: the preference, then, where weighted (vt_route_weighted_leaf), the
 * parent that sends the fewest destinations up per up-link it kept, then the
 * lane the fewest destinations of any shift window holding this one are
 * expected on, then the one the destination's leaf doubles least, then on a
 * damaged split core the lost lane's group (off_group; tier 0
 * throughout).
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
			     const uint8_t *pn, uint32_t *memo, struct straggler_keys *k)
{
	const vt_tree *t = r->t;
	uint32_t l = t->level[c], p = t->up_peer[j];
	uint8_t port = t->up_port[j];
	int in_step = port == pn[l] && reached(r, c, p) && !weighted_below(t, c);
	uint32_t pref = r->main.mark[p] == r->main.serial ? PREF_MAIN_ROUTE
			: p == sib_parent		  ? PREF_SIBLING
			: in_step			  ? PREF_IN_STEP
							  : PREF_NONE;

	*k = (struct straggler_keys){.pref = pref, .use = r->use.up[swport(r, c, port)]};
	k->group = off_group(r, c, p, pn);
	if (l)
		k->up_window = up_window(r, c, port);
	if (!l) {
		if (vt_route_weighted_leaf(t, c)) {
			k->cap = vt_route_up_capacity(t, p);
			k->cap_load = vt_route_up_load(r, p) + 1;
		}
		if (memo[0] == VT_NONE)
			window_loads(r, c, memo);
		k->window_load = memo[j - t->up_start[c]];
		k->lane_share = lane_expected(r, r->plan.px, port);
	} else if (is_anc(r, p)) {
		k->tier = pref >= PREF_SIBLING || column_top(r, c, p, port) ? 2 : 1;
		if (k->tier == 2 || weighted_below(t, c))
			k->down_load = 0;
		else if (sole_way_down(r, c))
			k->down_load = k->use > 62 ? 62 : k->use;
		else
			k->down_load = down_load(r, p);
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
	if (a->up_window != b->up_window)
		return a->up_window < b->up_window;
	if (a->pref != b->pref)
		return a->pref > b->pref;
	if (a->cap && b->cap && (uint64_t)a->cap_load * b->cap != (uint64_t)b->cap_load * a->cap)
		return (uint64_t)a->cap_load * b->cap < (uint64_t)b->cap_load * a->cap;
	if (a->window_load != b->window_load)
		return a->window_load < b->window_load;
	if (a->lane_share != b->lane_share)
		return a->lane_share < b->lane_share;
	if (a->group != b->group)
		return a->group < b->group;
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
