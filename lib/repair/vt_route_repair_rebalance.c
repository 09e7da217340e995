/* SPDX-License-Identifier: MIT */
/*
 * The repair's rebalance (vt_route_repair.c keeps the previous entries):
 * where the previous entry cannot stay, the fresh routing balanced its choice
 * against its own other entries, not against the kept ones: the new port is
 * chosen again among the ports that pass the same checks, one carrying fewer
 * CA LIDs first (rebalance), as Algorithm 3 spreads its up-going routes. So
 * are entries that CA traffic crosses now and did not before: the old routing
 * balanced only the entries its routes used, and the moved routes now follow
 * spare ones, which would crowd onto one port (fat 8,3 after a level-1 switch
 * fails: shift worst 4 instead of 2).
 */
#include <stdlib.h>
#include <string.h>

#include "repair/vt_route_repair_int.h"

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
	uint32_t now = VT_REPAIR_HOPS_UNKNOWN, gap[256]; /* s's entry alone changes below */
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
		if (vt_repair_try_port_at(r, s, lid, order[i], &now))
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
void vt_repair_mark_now(struct repair *r)
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
/*
 * Would a REB_GAP run of candidate a decide level 0 as one of b with
 * REB_GAP_LEVELS, both from the same kept tables? Level 0 sees the same
 * traffic in both (counted again only above it) and the same rows; every
 * setting but the rebalance is alike.
 */
static int gap0_same(struct repair_try a, struct repair_try b)
{
	return a.rebalance == REB_GAP && b.rebalance == REB_GAP_LEVELS &&
	       a.prev_turns == b.prev_turns && a.longer == b.longer &&
	       a.strict_turns == b.strict_turns && a.ca_fresh == b.ca_fresh &&
	       a.off_path == b.off_path && a.forced_lids == b.forced_lids;
}

/*
 * The level-0 rows of r->t to r->gap0 (keep) or from it (take, 1 when it
 * held them): a REB_GAP_LEVELS candidate from the same kept tables as the
 * REB_GAP one before it (repair_tries lists them so) takes that one's leaf
 * rows and the differs bits they added, where it chose the leaves' ports
 * again (pruned 36,36 with the turn leaf's up-link down: 0.046 s of its
 * 0.15 s build). r->gap0 is allocated on the first keep (NULL: not kept).
 */
static void gap0_rows(struct repair *r, int take)
{
	uint32_t nlid = r->t->nlid, n = 0;

	for (uint32_t s = 0; s < r->t->nsw; s++) {
		uint8_t *row = r->t->port + (size_t)s * nlid, *kept;

		if (r->level[s] != 0)
			continue;
		kept = r->gap0 + (size_t)n++ * nlid;
		memcpy(take ? row : kept, take ? kept : row, nlid);
	}
}

static int gap0_take(struct repair *r)
{
	if (!r->have_gap0 || !r->at_kept || r->gap0_gen != r->kept_gen ||
	    !gap0_same(r->gap0_how, r->how))
		return 0;
	gap0_rows(r, 1);
	r->differs |= r->gap0_differs;
	return 1;
}

static void gap0_keep(struct repair *r, unsigned before)
{
	uint32_t n0 = 0;

	r->have_gap0 = 0;
	if (r->how.rebalance != REB_GAP || !r->at_kept)
		return;
	for (uint32_t s = 0; s < r->t->nsw; s++)
		n0 += r->level[s] == 0;
	if (!r->gap0 && !(r->gap0 = malloc((size_t)n0 * r->t->nlid + 1)))
		return; /* optional: the next candidate chooses them again */
	gap0_rows(r, 0);
	r->gap0_how = r->how;
	r->gap0_gen = r->kept_gen;
	r->gap0_differs = r->differs & ~before;
	r->have_gap0 = 1;
}

void vt_repair_rebalance_all(struct repair *r)
{
	size_t bytes = ((size_t)r->t->nsw * r->t->nlid + 7) / 8;
	unsigned top = 0, before = r->differs;

	for (uint32_t s = 0; s < r->f->nswitches; s++)
		if (r->level[s] != VT_TREE_OUTSIDE && r->level[s] > top)
			top = r->level[s];
	mark_prev(r);
	for (unsigned l = 0; l <= top; l++) {
		/* what CA traffic crosses now, after the levels below chose */
		if (l == 0 && r->at_kept && r->kept_used_ok) {
			memcpy(r->used_now, r->kept_used, bytes); /* r->kept's, counted before */
		} else if (l == 0 || r->how.rebalance == REB_GAP_LEVELS) {
			vt_repair_mark_now(r);
			if (l == 0 && r->at_kept && r->kept_used) {
				memcpy(r->kept_used, r->used_now, bytes);
				r->kept_used_ok = 1;
			}
		}
		/* each row is r->kept's until rebalance(s) moves its own entries */
		r->kept_view = r->at_kept && (l == 0 || r->how.rebalance != REB_GAP_LEVELS);
		if (l == 0 && gap0_take(r))
			continue;
		for (uint32_t s = 0; s < r->f->nswitches; s++)
			if (r->level[s] == l)
				rebalance(r, s);
		if (l == 0)
			gap0_keep(r, before);
	}
}
