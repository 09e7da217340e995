/* SPDX-License-Identifier: MIT */
/*
 * Rank distances for the repair's rebalancing (vt_route_repair.c, REB_GAP):
 * per port of one switch, how far in rank order the nearest other LID lies
 * whose CA traffic crosses the switch through that port. A shift stage sends
 * each host to the rank a fixed distance on, so LIDs of nearby ranks on one
 * port tend to share its link in a stage. The ranks each port carries are
 * kept sorted (rank_index), so a distance is two binary searches, not a walk
 * along the ranks (about 1200 ranks a call on pruned 36,12 with a top down,
 * where the down-ports' nearest ranks lie a pod away).
 */
#include <stdlib.h>
#include <string.h>

#include "repair/vt_route_repair_int.h"

#define GAP_CAP 2048u /* ranks: farther than this counts as far enough */

/* The index of r->rank_port (switch rank_port_sw) from scratch: -1 when out of memory. */
static int index_build(struct repair *r)
{
	struct rank_index *x = &r->rx;
	uint32_t n = r->nrank, at = 0;

	memset(x->len, 0, sizeof(x->len));
	for (uint32_t i = 0; i < n; i++)
		if (r->rank_port[i] != RANK_NO_PORT)
			x->len[r->rank_port[i]]++;
	/* room to grow by a quarter: rebalancing moves a few ranks between ports */
	for (unsigned p = 0; p < 256; p++) {
		x->at[p] = at;
		x->cap[p] = x->len[p] + x->len[p] / 4 + 4;
		at += x->cap[p];
		x->len[p] = 0;
	}
	if (at > x->size) {
		uint32_t *m = realloc(x->rank, (size_t)at * sizeof(*m));

		if (!m)
			return -1;
		x->rank = m;
		x->size = at;
	}
	for (uint32_t i = 0; i < n; i++) {
		unsigned p = r->rank_port[i];

		if (p != RANK_NO_PORT)
			x->rank[x->at[p] + x->len[p]++] = i;
	}
	return 0;
}

/* Where rank goes in port p's sorted ranks (the first not below it). */
static uint32_t index_find(const struct rank_index *x, unsigned p, uint32_t rank)
{
	const uint32_t *a = x->rank + x->at[p];
	uint32_t lo = 0, hi = x->len[p];

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (a[mid] < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void vt_repair_rank_port_set(struct repair *r, uint32_t rank, unsigned port)
{
	struct rank_index *x = &r->rx;
	unsigned old = r->rank_port[rank];
	uint32_t *a, k;

	r->rank_port[rank] = (uint16_t)port;
	if (!x->ok || old == port)
		return;
	if (old != RANK_NO_PORT) {
		a = x->rank + x->at[old];
		k = index_find(x, old, rank);
		memmove(a + k, a + k + 1, (x->len[old] - k - 1) * sizeof(*a));
		x->len[old]--;
	}
	if (port == RANK_NO_PORT)
		return;
	if (x->len[port] == x->cap[port]) {
		x->ok = !index_build(r); /* out of room: laid out again */
		return;
	}
	a = x->rank + x->at[port];
	k = index_find(x, port, rank);
	memmove(a + k + 1, a + k, (x->len[port] - k) * sizeof(*a));
	a[k] = rank;
	x->len[port]++;
}

/* Cyclic distance in ranks from a to b, of n. */
static uint32_t ring_dist(uint32_t a, uint32_t b, uint32_t n)
{
	uint32_t d = a > b ? a - b : b - a;

	return d < n - d ? d : n - d;
}

/* The distance from rank to the nearest other rank port p carries, GAP_CAP when none is nearer. */
static uint32_t index_gap(const struct rank_index *x, unsigned p, uint32_t rank, uint32_t n)
{
	const uint32_t *a = x->rank + x->at[p];
	uint32_t len = x->len[p], k, succ, pred, best = GAP_CAP;

	if (!len)
		return GAP_CAP;
	/* on a ring the nearest is the next one either way, rank itself skipped */
	k = index_find(x, p, rank);
	succ = k < len && a[k] == rank ? k + 1 : k;
	succ = succ < len ? succ : 0;
	pred = k ? k - 1 : len - 1;
	if (a[succ] != rank && ring_dist(a[succ], rank, n) < best)
		best = ring_dist(a[succ], rank, n);
	if (a[pred] != rank && ring_dist(a[pred], rank, n) < best)
		best = ring_dist(a[pred], rank, n);
	return best;
}

/* rank_port for switch s, and its index (the slow path of rank_gaps where out of memory). */
static void rank_port_build(struct repair *r, uint32_t s)
{
	uint32_t nlid = r->t->nlid;

	for (uint32_t i = 0; i < r->nrank; i++) {
		uint32_t l = r->lid_of_rank[i];

		r->rank_port[i] = l == VT_NONE || !bit(r->used_now, (size_t)s * nlid + l)
					  ? RANK_NO_PORT
					  : vt_lft_get(r->t, s, l);
	}
	r->rank_port_sw = s;
	r->rx.ok = !index_build(r);
	if (!r->rx.ok) {
		free(r->rank_port);
		r->rank_port = NULL;
		r->rank_port_sw = VT_NONE;
	}
}

void vt_repair_rank_gaps(struct repair *r, uint32_t s, uint32_t rank, unsigned cur, uint32_t *gap)
{
	uint32_t n = r->nrank, nlid = r->t->nlid;

	for (unsigned p = 0; p < 256; p++)
		gap[p] = GAP_CAP;
	if (r->rank_port && (r->rank_port_sw != s || !r->rx.ok))
		rank_port_build(r, s);
	if (r->rank_port) { /* only the gaps choose_port reads */
		for (unsigned p = 0; p <= sw_node(r, s)->nports; p++)
			if (p == cur || (p > 0 && sw_peer(r, s, p) != VT_NONE))
				gap[p] = index_gap(&r->rx, p, rank, n);
		return;
	}
	for (uint32_t d = 1; d < GAP_CAP && 2 * d <= n; d++)
		for (int side = 0; side < 2; side++) {
			uint32_t l = r->lid_of_rank[side ? (rank + d) % n : (rank + n - d) % n];
			unsigned p;

			if (l == VT_NONE || !bit(r->used_now, (size_t)s * nlid + l))
				continue;
			p = vt_lft_get(r->t, s, l);
			if (gap[p] > d)
				gap[p] = d;
		}
}
