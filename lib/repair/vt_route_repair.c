/* SPDX-License-Identifier: MIT */
/*
 * Fewest table changes after a fault (vt_route.h): the fresh routing of the
 * degraded fabric decides only where the previous sweep's entry no longer
 * serves. Per LID, the fresh tables are a forest of routes into the LID; a
 * previous entry replaces a fresh one when the route it starts, followed
 * through the tables as they stand, reaches the LID without coming back, is
 * no longer than the route it replaces (VT_REPAIR_MINIMAL), and makes no
 * down-up turn the fresh tables do not make themselves. Every switch's route
 * then still ends at the LID (only the changed switch's route changed, and it
 * was checked), no route grows, and the turns are the fresh routing's, whose
 * turn order (vt_route_turn.c) keeps them free of credit loops; the
 * every-source audit has the last word all the same. Entries are tried until
 * none more can be kept (one that loops now may not once a switch on its way
 * has gone back to its old port).
 *
 * Where the previous entry cannot stay, the fresh routing balanced its choice
 * against its own other entries, not against the kept ones: the new port is
 * chosen again among the ports that pass the same checks, one carrying fewer
 * CA LIDs first (rebalance), as Algorithm 3 spreads its up-going routes. So
 * are entries that CA traffic crosses now and did not before: the old routing
 * balanced only the entries its routes used, and the moved routes now follow
 * spare ones, which would crowd onto one port (fat 8,3 after a level-1 switch
 * fails: shift worst 4 instead of 2).
 */
#include "route/vt_route.h"
#include "repair/vt_repair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vt_mem.h"
#include "repair/vt_route_guard.h"
#include "repair/vt_route_heal.h"
#include "repair/vt_route_repair_forced_lids.h"
#include "repair/vt_route_repair_int.h"
#include "repair/vt_route_repair_stats.h"

static int hop_dir(const struct repair *r, uint32_t a, uint32_t b)
{
	if (r->level[a] == VT_TREE_OUTSIDE || r->level[b] == VT_TREE_OUTSIDE ||
	    r->level[a] == r->level[b])
		return HOP_SIDE;
	return r->level[b] > r->level[a] ? HOP_UP : HOP_DOWN;
}

/* A turn that may close a credit loop: into x other than up, out of x other than down. */
static int is_turn(int in, int out)
{
	return in != HOP_UP && out != HOP_DOWN;
}

/*
 * Do ports a and b of switch s lead to the same switch? Turns are judged by
 * switches: parallel links between two switches carry the same turns (a
 * credit loop over one of them would be one over the switches).
 */
static int same_hop(const struct repair *r, uint32_t s, unsigned a, unsigned b)
{
	uint32_t x;

	return a == b || ((x = sw_peer(r, s, a)) != VT_NONE && x == sw_peer(r, s, b));
}

/* Does switch s forward lid as the fresh tables do (port given when s is being tried)? */
static int as_fresh(const struct repair *r, uint32_t s, uint32_t lid, unsigned port)
{
	return same_hop(r, s, port, vt_lft_get(r->fresh, s, lid));
}

/* As the previous tables do? */
static int as_prev(const struct repair *r, uint32_t s, uint32_t lid, unsigned port)
{
	return same_hop(r, s, port, vt_lft_get(r->prev, s, lid));
}

/*
 * May a route that reaches x from w (w forwarding through wport) turn there,
 * leaving x through xport? Where the fresh tables make the same turn (w and x
 * forward as fresh), or the previous ones and the candidate allows theirs.
 * Asked at a turn only: the tables are read then, not at every hop.
 */
static int turn_allowed(struct repair *r, uint32_t w, unsigned wport, uint32_t x, uint32_t lid,
			unsigned xport)
{
	if (as_fresh(r, w, lid, wport) && as_fresh(r, x, lid, xport))
		return 1;
	if (!as_prev(r, w, lid, wport) || !as_prev(r, x, lid, xport))
		return 0;
	r->differs |= DIFF_TURNS;
	return r->how.prev_turns;
}

/*
 * May a route to switch LID lid, entering x going down (in) and leaving it
 * going up (out), turn there because some route of the previous or the fresh
 * tables to a switch LID turns there (r->turn_set)? Switch LIDs only: their
 * routes carry management traffic, not the CA traffic the guard counts, so
 * the CA columns, and shift, stay as they are. Where such a turn is at the
 * previous turn leaf, not in the fresh routing's turn set, the every-source
 * audit decides (vt_route_repair_sure.c's argument needs one turn set), and
 * a candidate it refuses is built again without them (strict_turns). The
 * first level-1 switch down (the turn leaf's up-link) breaks every switch
 * route that turned at the old turn leaf through it: kept, they turn there
 * again over another up-link (pruned 36,12: 18989 -> 16728 entries, 11964
 * forced).
 */
static int turn_in_set(struct repair *r, uint32_t x, uint32_t lid, int in, int out)
{
	if (r->ca[lid] || in != HOP_DOWN || out != HOP_UP || !vt_repair_turn_switch(r, x))
		return 0;
	r->differs |= DIFF_TURN_SET;
	return !r->how.strict_turns;
}

/*
 * Hops from switch s through port `port` to the LID's port, following the
 * tables; VT_NONE when the route does not arrive, comes back to s, or turns
 * down-up where neither allowed routing (turn_allowed) does.
 */
static uint32_t follow(struct repair *r, uint32_t s, uint32_t lid, unsigned port)
{
	uint32_t end = r->end_sw[lid], w = s, x, hops = 0, lim = r->f->nswitches;
	unsigned wport = port, end_port = r->end_port[lid];
	const uint8_t *col = r->t->port + lid; /* r->t's column: col[x * nlid] */
	size_t nlid = r->t->nlid;

	if (port == 0)
		return s == end && end_port == 0 ? 0 : VT_NONE;
	for (;;) {
		unsigned xport;
		uint32_t next;
		int in;

		if ((x = sw_peer(r, w, wport)) == VT_NONE) /* the CA's link, or none */
			return w == end && wport == end_port ? hops + 1 : VT_NONE;
		if (x == s || ++hops > lim)
			return VT_NONE;
		if ((xport = col[x * nlid]) == 0)
			return x == end && end_port == 0 ? hops : VT_NONE;
		in = hop_dir(r, w, x);
		if ((next = sw_peer(r, x, xport)) != VT_NONE && is_turn(in, hop_dir(r, x, next)) &&
		    !turn_allowed(r, w, wport, x, lid, xport) &&
		    !turn_in_set(r, x, lid, in, hop_dir(r, x, next)))
			return VT_NONE;
		w = x;
		wport = xport;
	}
}

/* Would s, forwarding lid through port, turn down-up a route another switch sends into it? */
static int turns_at(struct repair *r, uint32_t s, uint32_t lid, unsigned port)
{
	const struct vt_node *n = sw_node(r, s);
	uint32_t next = sw_peer(r, s, port);
	int out;

	if (next == VT_NONE || !is_turn(HOP_DOWN, out = hop_dir(r, s, next)))
		return 0;
	for (unsigned p = 1; p <= n->nports; p++) {
		uint32_t w = sw_peer(r, s, p);
		unsigned wport;

		if (w == VT_NONE || hop_dir(r, w, s) == HOP_UP)
			continue;
		wport = r->back[(size_t)s * r->stride + p];
		if (vt_lft_get(r->t, w, lid) == wport && !turn_allowed(r, w, wport, s, lid, port) &&
		    !turn_in_set(r, s, lid, hop_dir(r, w, s), out))
			return 1;
	}
	return 0;
}

/*
 * Switch s takes port for lid if every route stays whole, no longer, and
 * without a new turn. Routes to a switch LID may grow (policy): they carry
 * management traffic, not the CA-to-CA traffic whose congestion the length
 * rule protects, and the turn leaf's detours often find another way of the
 * same or one more hop after a fault (pruned 36,6 without its last leaf: 102
 * entries changed for nothing else).
 */
#define HOPS_UNKNOWN (VT_NONE - 1) /* try_port_at: s's own route not followed yet */

/*
 * Switch s takes port for lid if every route stays whole, no longer, and
 * without a new turn (try_port); *nowp: the hops of s's route as it stands,
 * HOPS_UNKNOWN until followed (the same while only s's entry is tried).
 */
static int try_port_at(struct repair *r, uint32_t s, uint32_t lid, unsigned port, uint32_t *nowp)
{
	uint32_t now = *nowp == HOPS_UNKNOWN ? (*nowp = follow(r, s, lid, vt_lft_get(r->t, s, lid)))
					     : *nowp;
	uint32_t h = follow(r, s, lid, port);
	int any_length =
		r->policy == VT_REPAIR_FEWEST || !r->ca[lid] || vt_forced_any_length(r, lid);

	if (h == VT_NONE)
		return 0;
	if (r->grew && (now == VT_NONE || h > now))
		r->grew[lid] = 1; /* maybe: the checks below may still refuse it */
	if (!any_length && now != VT_NONE && h > now) { /* longer only */
		if (r->met)
			r->met[lid] = 1; /* here alone a run with the other `longer` may differ */
		if (!r->how.longer) {
			r->differs |= DIFF_LONGER; /* maybe: turns_at was not asked */
			return 0;
		}
		if (turns_at(r, s, lid, port))
			return 0;
		r->differs |= DIFF_LONGER;
	} else if (turns_at(r, s, lid, port))
		return 0;
	vt_lft_set(r->t, s, lid, (uint8_t)port);
	return 1;
}

static int try_port(struct repair *r, uint32_t s, uint32_t lid, unsigned port)
{
	uint32_t now = HOPS_UNKNOWN;

	return try_port_at(r, s, lid, port, &now);
}

/*
 * The previous entries of one LID kept where they serve; off: only at the
 * switches CA traffic to lid does not cross (r->used_now). An entry that
 * holds prev's port already is not tried: try_port would at most set it
 * again, and the others see the same tables (the forced-lids candidates
 * hold most previous entries before this: pruned 36,12, a level-1 switch
 * down, some 190,000 pending entries, two routes followed each).
 */
static void keep_lid(struct repair *r, uint32_t lid, int off)
{
	uint32_t n = 0;
	int progress = 1, fixes = vt_forced_fixes(r);

	for (size_t i = r->pend_at[lid]; i < r->pend_at[lid + 1]; i++) {
		uint32_t s = r->pend_sw[i];
		size_t b = (size_t)s * r->t->nlid + lid;

		if ((!off || !bit(r->used_now, b)) && !(fixes && bit(r->fixed, b)) &&
		    r->t->port[b] != r->prev->port[b])
			r->pend[n++] = s;
	}
	while (progress && n) {
		uint32_t m = 0;

		progress = 0;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t s = r->pend[i];

			if (try_port(r, s, lid, vt_lft_get(r->prev, s, lid)))
				progress = 1;
			else
				r->pend[m++] = s;
		}
		n = m;
	}
}

/* Marks in m the switches CA traffic to lid crosses under tables t. */
static void mark_ca_paths(const struct repair *r, const vt_lfts *t, uint32_t lid, uint8_t *m)
{
	for (uint32_t i = 0; i < r->nentry; i++) {
		uint32_t x = r->entry[i];

		for (uint32_t hops = 0; x != VT_NONE && hops <= r->f->nswitches; hops++) {
			size_t b = (size_t)x * t->nlid + lid;
			unsigned p = vt_lft_get(t, x, lid);

			if (bit(m, b))
				break;
			m[b >> 3] |= (uint8_t)(1u << (b & 7));
			x = p == VT_LFT_NONE ? VT_NONE : sw_peer(r, x, p);
		}
	}
}

/*
 * Does s's entry for lid need a port chosen again: prev's port could not stay,
 * or CA traffic now crosses s towards lid and did not before (the old routing
 * left such entries unbalanced: nobody used them; VT_REPAIR_FEWEST leaves them)?
 */
enum { REB_NO, REB_YES, REB_IF_NEW }; /* to_rebalance: REB_IF_NEW, the second case */

static int to_rebalance(const struct repair *r, uint32_t s, uint32_t lid)
{
	size_t i = (size_t)s * r->t->nlid + lid;

	if (vt_lft_get(r->t, s, lid) != vt_lft_get(r->prev, s, lid))
		return REB_YES;
	return bit(r->used_now, i) && !bit(r->used_prev, i) ? REB_IF_NEW : REB_NO;
}

/* Does port a come before port b in choose_port's order (rank distance, then use, then number)? */
static int port_before(const uint32_t *gap, const uint32_t *use, unsigned a, unsigned b)
{
	if (gap[a] != gap[b])
		return gap[a] > gap[b];
	return use[a] != use[b] ? use[a] < use[b] : a < b;
}

/*
 * The port s's entry for lid takes (use: the CA routes per port so far): the
 * one carrying the fewest among those try_port accepts, the current one unless
 * another carries at least two fewer; by rank distance first (REB_GAP). The
 * entry holds it when it is not the current one.
 *
 * The ports that beat the current one are tried best first, and the first
 * try_port accepts stands: the port a scan in port order would end on (the
 * best accepted, the lowest of equals; "beats" is transitive), at the cost of
 * a route or two followed instead of one per better port (pruned 36,12, a top
 * switch down: 667,000 routes followed for 34,000 entries).
 */
static unsigned choose_port(struct repair *r, uint32_t s, uint32_t lid, const uint32_t *use)
{
	unsigned cur = vt_lft_get(r->t, s, lid), nports = sw_node(r, s)->nports, n = 0;
	uint32_t now = HOPS_UNKNOWN, gap[256]; /* s's entry alone changes below */
	uint8_t order[256];
	int ca = r->ca[lid];

	if (r->how.rebalance >= REB_GAP && ca && r->rank_of_lid[lid] != VT_NONE)
		vt_repair_rank_gaps(r, s, r->rank_of_lid[lid], cur, gap);
	else
		memset(gap, 0, sizeof(gap));
	for (unsigned p = 1; p <= nports; p++) {
		unsigned i = n++;

		if (p == cur || sw_peer(r, s, p) == VT_NONE ||
		    (gap[p] != gap[cur] ? gap[p] < gap[cur] : use[p] + (unsigned)ca >= use[cur])) {
			n--; /* does not beat the current port */
			continue;
		}
		for (; i && port_before(gap, use, p, order[i - 1]); i--)
			order[i] = order[i - 1];
		order[i] = (uint8_t)p;
	}
	for (unsigned i = 0; i < n; i++)
		if (try_port_at(r, s, lid, order[i], &now))
			return order[i];
	return cur;
}

/*
 * The LIDs whose entry of switch s may be rebalanced (to_rebalance's REB_NO
 * left out: the entry is prev's and CA traffic crossed it before or not now)
 * into out, ascending; how many. Compared 64 LIDs at a time: rebalance looks
 * at every switch's row in every candidate (pruned 36,12, a level-1 switch
 * down: 3234 rows of 4429 LIDs), and most rows hold few such LIDs.
 */
static uint32_t reb_lids(const struct repair *r, uint32_t s, uint32_t *out)
{
	uint32_t nlid = r->t->nlid, m = 0;
	const uint8_t *tr = vt_lft_row(r->t, s), *pr = vt_lft_row(r->prev, s);
	size_t base = (size_t)s * nlid;

	for (uint32_t l0 = 0; l0 < nlid; l0 += 64) {
		uint32_t k = nlid - l0 < 64 ? nlid - l0 : 64;
		uint64_t nw = bits64(r->used_now, base + l0) & ~bits64(r->used_prev, base + l0);

		if (k < 64)
			nw &= (1ull << k) - 1;
		if (!nw && !memcmp(tr + l0, pr + l0, k))
			continue;
		for (uint32_t i = l0 ? 0 : 1; i < k; i++)
			if (tr[l0 + i] != pr[l0 + i] || (nw >> i & 1))
				out[m++] = l0 + i;
	}
	return m;
}

/*
 * all, used: per port of switch s, the CA LIDs its row sends there, and those
 * of them CA traffic crosses (r->used_now). Every switch's row is counted in
 * every candidate that rebalances (pruned 36,12, a level-1 switch down: 539
 * rows of 4429 LIDs, some 7 candidates), so r->kept's counts are kept for the
 * candidates that start from it (r->kept_view).
 */
static void reb_counts(struct repair *r, uint32_t s, uint32_t *all, uint32_t *used)
{
	uint32_t nlid = r->t->nlid;
	const uint8_t *tr = vt_lft_row(r->t, s);
	size_t base = (size_t)s * nlid, at = (size_t)s * r->stride;
	int cache = r->kept_view && r->kept_cnt && r->kept_all && r->kept_use;

	if (cache && r->kept_cnt[s]) {
		memcpy(all, r->kept_all + at, r->stride * sizeof(*all));
		memcpy(used, r->kept_use + at, r->stride * sizeof(*used));
		return;
	}
	for (uint32_t l0 = 0; l0 < nlid; l0 += 64) {
		uint64_t u = bits64(r->used_now, base + l0);
		uint32_t k = nlid - l0 < 64 ? nlid - l0 : 64;

		for (uint32_t i = l0 ? 0 : 1; i < k; i++)
			if (r->ca[l0 + i]) {
				all[tr[l0 + i]]++;
				used[tr[l0 + i]] += (uint32_t)(u >> i & 1);
			}
	}
	if (cache) { /* a port number past stride is no port: choose_port never reads it */
		memcpy(r->kept_all + at, all, r->stride * sizeof(*all));
		memcpy(r->kept_use + at, used, r->stride * sizeof(*used));
		r->kept_cnt[s] = 1;
	}
}

/*
 * Those entries of switch s take, in LID order, the port carrying the fewest
 * CA routes so far among those try_port accepts, the current one unless another
 * carries at least two fewer. The LIDs are found first (reb_lids): choose_port
 * changes only the entry it is given, so the ones after it are found alike.
 */
static void rebalance(struct repair *r, uint32_t s)
{
	const vt_fabric *f = r->f;
	uint32_t all[256] = {0}, used[256] = {0}, *lids = r->reb, m;
	const uint8_t *tr = vt_lft_row(r->t, s); /* s's row, read directly */

	r->rank_port_sw = VT_NONE; /* rank_gaps builds rank_port for s again */
	if (!(m = reb_lids(r, s, lids)))
		return;
	reb_counts(r, s, all, used);
	for (uint32_t i = 0; i < m; i++) {
		uint32_t lid = lids[i];
		unsigned cur = tr[lid], best;
		int ca, u, why;

		if (f->lid_port[lid] == VT_NONE || cur == 0 || cur == VT_LFT_NONE ||
		    (why = to_rebalance(r, s, lid)) == REB_NO)
			continue;
		if (why == REB_IF_NEW && r->how.rebalance < REB_NEW) {
			/* a REB_NEW run would decide otherwise only where it moves this entry */
			if (!(r->differs & DIFF_NEW) && choose_port(r, s, lid, used) != cur) {
				r->differs |= DIFF_NEW;
				vt_lft_set(r->t, s, lid, (uint8_t)cur);
			}
			continue;
		}
		ca = r->ca[lid];
		u = bit(r->used_now, (size_t)s * r->t->nlid + lid);
		/* a lost port's entries spread over the whole table, newly used ones over the used
		 */
		if ((best = choose_port(r, s, lid, why == REB_YES ? all : used)) == cur)
			continue;
		if (why == REB_IF_NEW)
			r->differs |= DIFF_NEW; /* a REB_CHANGED run would leave it */
		if (u && r->rank_port_sw == s && r->rank_of_lid[lid] != VT_NONE)
			vt_repair_rank_port_set(r, r->rank_of_lid[lid], best); /* rank_gaps' view */
		if (ca) {
			all[cur]--;
			all[best]++;
			used[cur] -= (unsigned)u;
			used[best] += (unsigned)u;
		}
	}
}

/*
 * r->used_prev: what CA traffic crosses under the previous tables (the same
 * for every candidate), row by row (vt_repair_mark_rows), else LID by LID.
 */
static void mark_prev(struct repair *r)
{
	if (r->have_used_prev)
		return;
	if (vt_repair_mark_rows(r, r->prev, r->used_prev))
		for (uint32_t lid = 1; lid < r->t->nlid; lid++)
			if (r->ca[lid])
				mark_ca_paths(r, r->prev, lid, r->used_prev);
	r->have_used_prev = 1;
}

const uint8_t *vt_repair_used_prev(struct repair *r)
{
	mark_prev(r);
	return r->used_prev;
}

/*
 * r->used_now for r->t: a CA LID's paths follow its column alone, so where
 * r->t's column is prev's they are used_prev's, and only the LIDs whose
 * column differs are followed again (pruned 36,12, a leaf's up-link down: a
 * few hundred of 3888; a whole count followed every CA LID from every leaf).
 */
static void mark_now(struct repair *r)
{
	size_t bytes = ((size_t)r->t->nsw * r->t->nlid + 7) / 8;
	uint32_t nlid = r->t->nlid;

	mark_prev(r);
	if (!r->differ) { /* out of memory: every LID followed */
		memset(r->used_now, 0, bytes);
		for (uint32_t lid = 1; lid < nlid; lid++)
			if (r->ca[lid])
				mark_ca_paths(r, r->t, lid, r->used_now);
		return;
	}
	vt_lfts_differ(r->t, r->prev, r->differ);
	memcpy(r->used_now, r->used_prev, bytes);
	for (uint32_t lid = 1; lid < nlid; lid++) {
		if (!r->ca[lid] || !r->differ[lid])
			continue;
		for (uint32_t s = 0; s < r->t->nsw; s++) {
			size_t b = (size_t)s * nlid + lid;

			r->used_now[b >> 3] &= (uint8_t) ~(1u << (b & 7));
		}
		mark_ca_paths(r, r->t, lid, r->used_now);
	}
}

/* Switches level by level from the leaves: a port chosen below decides the traffic above. */
static void rebalance_all(struct repair *r)
{
	size_t bytes = ((size_t)r->t->nsw * r->t->nlid + 7) / 8;

	mark_prev(r);
	for (unsigned l = 0, top = 0; l <= top; l++) {
		/* what CA traffic crosses now, after the levels below chose */
		if (l == 0 && r->at_kept && r->kept_used_ok) {
			memcpy(r->used_now, r->kept_used, bytes); /* r->kept's, counted before */
		} else if (l == 0 || r->how.rebalance == REB_GAP_LEVELS) {
			mark_now(r);
			if (l == 0 && r->at_kept && r->kept_used) {
				memcpy(r->kept_used, r->used_now, bytes);
				r->kept_used_ok = 1;
			}
		}
		/* each row is r->kept's until rebalance(s) moves its own entries */
		r->kept_view = r->at_kept && (l == 0 || r->how.rebalance != REB_GAP_LEVELS);
		for (uint32_t s = 0; s < r->f->nswitches; s++) {
			if (r->level[s] == l)
				rebalance(r, s);
			if (r->level[s] != VT_TREE_OUTSIDE && r->level[s] > top)
				top = r->level[s];
		}
	}
}

/*
 * The CA LIDs' previous entries kept at the switches their CA traffic does
 * not cross under the fresh entries. The switches it crosses are closed under
 * following the tables (a crossed switch forwards to a crossed one), so their
 * routes, and every CA-to-CA path, stay the fresh ones: shift congestion is
 * the fresh tables' exactly. Off those paths a previous entry stays as in
 * keep_lid (whole, no longer, no new turn), which is where a fresh route
 * moves most entries it need not move (a level-1 switch down: the top
 * switches' and other pods' entries towards the hosts below it).
 */
static void keep_off_path(struct repair *r)
{
	mark_now(r);
	for (uint32_t lid = 1; lid < r->t->nlid; lid++)
		if (r->ca[lid] && r->f->lid_port[lid] != VT_NONE)
			keep_lid(r, lid, 1);
}

/*
 * Does a run of candidate a, which met the decisions `differs` says, make the
 * same decisions as one of b (whole run: rebalance too, else keep_lid's part)?
 */
int vt_repair_same_run(struct repair_try a, unsigned differs, struct repair_try b, int whole)
{
	int ra = a.rebalance, rb = b.rebalance;

	return a.ca_fresh == b.ca_fresh && a.forced_lids == b.forced_lids &&
	       (a.strict_turns == b.strict_turns || !(differs & DIFF_TURN_SET)) &&
	       (a.prev_turns == b.prev_turns || !(differs & DIFF_TURNS)) &&
	       (a.longer == b.longer || !(differs & DIFF_LONGER)) &&
	       (!whole || ra == rb ||
		(!(differs & DIFF_NEW) && (ra == REB_CHANGED || ra == REB_NEW) &&
		 (rb == REB_CHANGED || rb == REB_NEW)));
}

/*
 * keep_lid for lid in the run so far: its differs bits also into *calm where
 * no route longer than the current one came up in it (r->met).
 */
static void keep_lid_calm(struct repair *r, uint32_t lid, unsigned *calm)
{
	unsigned before = r->differs;

	r->differs = 0;
	keep_lid(r, lid, 0);
	if (!r->met || !r->met[lid])
		*calm |= r->differs;
	r->differs |= before;
}

/*
 * The kept part (keep_lid's) of r->how from r->kept, a run of the same
 * candidate but for `longer`: keep_lid decides alike for a LID where no
 * route longer than the current one came up (r->kept_met clear: the only
 * decision `longer` takes, try_port_at), so only the others are kept again,
 * from the fresh tables' column (pruned 36,12, a level-1 switch down: 18 of
 * 4429 LIDs, where the whole keep_lid part cost 10-40 ms). Its bits into
 * r->differs and *calm as a whole run's.
 */
static void keep_other_length(struct repair *r, unsigned *calm)
{
	uint32_t nlid = r->t->nlid;

	memcpy(r->t->port, r->kept, (size_t)r->t->nsw * nlid);
	memset(r->met, 0, nlid);
	r->differs = *calm = r->kept_calm;
	for (uint32_t lid = 1; lid < nlid; lid++) {
		if (!r->kept_met[lid] || r->f->lid_port[lid] == VT_NONE)
			continue;
		for (uint32_t s = 0; s < r->t->nsw; s++)
			vt_lft_set(r->t, s, lid, vt_lft_get(r->fresh, s, lid));
		keep_lid_calm(r, lid, calm);
	}
}

/* Can r->how's kept part come from r->kept's by keep_other_length? */
static int other_length(const struct repair *r)
{
	return r->have_kept && r->met && r->kept_met && !r->how.ca_fresh && !r->kept_how.ca_fresh &&
	       r->how.prev_turns == r->kept_how.prev_turns &&
	       r->how.strict_turns == r->kept_how.strict_turns &&
	       r->how.longer != r->kept_how.longer;
}

/*
 * keep_lid for the switch LIDs of a forced-lids candidate, which moves CA
 * LIDs' entries alone (vt_route_repair_forced_lids.h): their columns are
 * still the fresh tables', and keep_lid decides a column from that column,
 * the fresh and previous ones and the turn settings alone, so where r->kept
 * was kept with the same turn settings its switch LIDs' columns are the
 * ones keep_lid would make, and are copied. Its turn-set bit comes with them
 * (turn_in_set sets it for switch LIDs only; a later audit refusal reads
 * it). Pruned 36,36 with the turn leaf's up-link down: three forced-lids
 * candidates, 0.10 s of each one's 0.22-0.34 s build in its switch LIDs'
 * keep_lid. 1 when copied, 0 when the caller keeps them.
 */
static int kept_switch_lids(struct repair *r)
{
	uint32_t nlid = r->t->nlid;

	if (!r->have_kept || r->kept_how.prev_turns != r->how.prev_turns ||
	    r->kept_how.strict_turns != r->how.strict_turns)
		return 0;
	for (uint32_t s = 0; s < r->t->nsw; s++) {
		uint8_t *row = r->t->port + (size_t)s * nlid;
		const uint8_t *kept = r->kept + (size_t)s * nlid;

		for (uint32_t i = 0; i < r->nsw_lid; i++)
			row[r->sw_lid[i]] = kept[r->sw_lid[i]];
	}
	r->differs |= r->kept_differs & DIFF_TURN_SET;
	return 1;
}

/*
 * One candidate into r->t (r->how): the fresh tables with the previous
 * entries kept where they serve, and the ports of the entries that changed
 * chosen again (rebalance_all), unless the CA LIDs' entries stay fresh (the
 * only ones CA-to-CA traffic reads, so shift congestion is the fresh tables').
 */
int vt_repair_run(struct repair *r)
{
	size_t n = (size_t)r->t->nsw * r->t->nlid;
	unsigned calm = 0;

	r->differs = 0;
	if (r->how.forced_lids) {
		int sw_done;

		memcpy(r->t->port, r->fresh->port, n);
		r->at_kept = 0;
		if (vt_repair_forced_lids(r))
			return -1;
		sw_done = kept_switch_lids(r);
		for (uint32_t lid = 1; lid < r->t->nlid; lid++)
			if (r->f->lid_port[lid] != VT_NONE && (r->ca[lid] || !sw_done))
				keep_lid(r, lid, 0);
		return 0;
	}
	r->at_kept = r->kept != NULL;
	if (r->have_kept && vt_repair_same_run(r->kept_how, r->kept_differs, r->how, 0)) {
		memcpy(r->t->port, r->kept, n); /* keep_lid's part is that candidate's */
		r->differs = r->kept_differs;
	} else {
		if (other_length(r)) {
			keep_other_length(r, &calm);
		} else {
			memcpy(r->t->port, r->fresh->port, n);
			if (r->met)
				memset(r->met, 0, r->t->nlid);
			for (uint32_t lid = 1; lid < r->t->nlid; lid++)
				if (r->f->lid_port[lid] != VT_NONE &&
				    !(r->how.ca_fresh && r->ca[lid]))
					keep_lid_calm(r, lid, &calm);
		}
		if (r->kept) {
			memcpy(r->kept, r->t->port, n);
			r->kept_how = r->how;
			r->kept_differs = r->differs;
			r->have_kept = 1;
			r->kept_used_ok = 0;
			if (r->kept_cnt)
				memset(r->kept_cnt, 0, r->t->nsw);
			r->kept_calm = calm;
			if (r->met && r->kept_met)
				memcpy(r->kept_met, r->met, r->t->nlid);
		}
	}
	if (!r->how.ca_fresh && r->how.rebalance != REB_NONE)
		rebalance_all(r);
	if (r->how.ca_fresh && r->how.off_path)
		keep_off_path(r);
	return 0;
}

/*
 * r->level: the fresh routing's own tree levels where it proved its tables
 * (the trees it routed, those vt_repair_sure reads), else the trees built
 * again (vt_repair_tree_levels: some 3 ms of pruned 36,12's repair).
 */
static int levels(struct repair *r, vt_err *e)
{
	if (r->proof && r->proof->sure && r->proof->level) {
		memcpy(r->level, r->proof->level, r->f->nswitches);
		return 0;
	}
	return vt_repair_tree_levels(r->f, r->level, e);
}

int vt_route_repair(const vt_fabric *f, const vt_lfts *prev, vt_lfts *lfts, const vt_order *order,
		    const struct vt_route_proof *proof, enum vt_repair_policy policy,
		    struct vt_repair_stats *st, vt_err *e)
{
	vt_lfts t = *lfts;
	struct repair r = {
		.f = f, .prev = prev, .fresh = lfts, .t = &t, .policy = policy, .proof = proof};
	size_t n = (size_t)t.nsw * t.nlid;
	uint64_t changed = 0, blocks = 0;
	uint8_t *grew;
	double t0;
	int bad;

	memset(st, 0, sizeof(*st));
	if (prev->nsw != lfts->nsw || prev->nlid != lfts->nlid)
		return vt_err_set(e, "previous tables do not fit the fabric");
	t0 = vt_repair_cpu();
	vt_repair_count_changes(f, prev, lfts, &st->fresh_changed, &st->fresh_blocks);
	st->minimum = vt_repair_forced_lost(f, prev);
	st->changed = st->fresh_changed;
	st->blocks = st->fresh_blocks;
	if (vt_repair_gained(f, prev, lfts, st->why, sizeof(st->why))) {
		st->mode = VT_REPAIR_HEALED;
		return vt_repair_heal_keep(f, prev, lfts, order, policy, st, e) < 0 ? -1 : 0;
	}
	if ((bad = vt_repair_keep_unchanged(f, prev, lfts, order, policy, st, e)))
		return bad < 0 ? -1 : 0;
	t.port = vt_alloc_big(n); /* the repaired tables, and below a copy and a count */
	r.level = malloc((size_t)f->nswitches + 1);
	r.pend = malloc(((size_t)f->nswitches + 1) * sizeof(*r.pend));
	r.used_prev = calloc(n / 8 + BITS_SLACK, 1); /* slack: bits64 */
	r.used_now = calloc(n / 8 + BITS_SLACK, 1);
	r.reb = malloc(((size_t)t.nlid + 1) * sizeof(*r.reb));
	r.fixed = malloc(n / 8 + 1);
	r.differ = malloc((size_t)t.nlid + 1);	/* optional: NULL, every LID followed */
	r.grew = calloc((size_t)t.nlid + 1, 1); /* optional: NULL, every LID looked at */
	r.met = malloc((size_t)t.nlid + 1);	/* optional: NULL, each kept part from fresh */
	r.kept_met = malloc((size_t)t.nlid + 1);
	st->mode = VT_REPAIR_DONE;
	if (!t.port || !r.level || !r.pend || !r.used_prev || !r.used_now || !r.reb || !r.fixed ||
	    vt_repair_tables(&r, order))
		bad = vt_err_nomem(e, "out of memory");
	else
		bad = levels(&r, e);
	st->nsteps = 1;
	snprintf(st->step[0].what, sizeof(st->step[0].what), "tables");
	st->step[0].verdict = ' ';
	st->step[0].build = vt_repair_cpu() - t0;
	if (!bad)
		bad = vt_repair_candidates(&r, order, st, &changed, &blocks, e);
	free(r.level);
	free(r.pend);
	free(r.used_prev);
	free(r.used_now);
	free(r.reb);
	free(r.fixed);
	free(r.differ);
	free(r.met);
	free(r.kept_met);
	vt_repair_tables_free(&r);
	grew = r.grew;
	if (bad) {
		free(t.port);
		free(grew);
		if (bad < 0)
			return -1;
		st->mode = VT_REPAIR_REFUSED;
		return 0;
	}
	if (policy != VT_REPAIR_MINIMAL) {
		int64_t nl = vt_lfts_longer_in(f, &t, lfts, grew);

		if (nl < 0) {
			free(t.port);
			free(grew);
			return vt_err_nomem(e, "out of memory");
		}
		st->longer = (uint64_t)nl;
	}
	free(grew);
	free(lfts->port);
	lfts->port = t.port;
	st->changed = changed;
	st->blocks = blocks;
	return 0;
}
