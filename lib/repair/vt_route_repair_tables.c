/* SPDX-License-Identifier: MIT */
/*
 * The tables every repair candidate reads (vt_route_repair_int.h): built once
 * per repair from the fabric, the previous and fresh tables and the ranks.
 */
#include "repair/vt_route_repair_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/vt_mem.h"
#include "repair/vt_route_repair_stats.h"

/*
 * r->peer, r->back: sw_peer's answers and the port at the far end, looked up
 * once (the repair asks them at every hop it follows).
 */
static int peer_table(struct repair *r)
{
	const vt_fabric *f = r->f;
	size_t n = (size_t)f->nswitches * vt_fabric_sw_stride(f) + 1;

	r->stride = vt_fabric_sw_stride(f);
	r->peer = malloc(n * sizeof(*r->peer));
	r->back = calloc(n, 1);
	if (!r->peer || !r->back)
		return -1;
	for (uint32_t s = 0; s < f->nswitches; s++) {
		const struct vt_node *nd = sw_node(r, s);

		for (unsigned p = 0; p < r->stride; p++) {
			uint32_t q = p == 0 || p > nd->nports ? VT_NONE
							      : f->ports[nd->first_port + p].peer;
			size_t i = (size_t)s * r->stride + p;

			r->peer[i] = q == VT_NONE ? VT_NONE : f->nodes[f->ports[q].node].sw;
			if (q != VT_NONE)
				r->back[i] = f->ports[q].num;
		}
	}
	return 0;
}

/*
 * r->end_sw, r->end_port: where each LID's route ends (vt_route_repair_int.h),
 * so that follow walks the peer table alone, not the fabric's ports and nodes.
 */
static int lid_ends(struct repair *r)
{
	const vt_fabric *f = r->f;
	uint32_t nlid = r->t->nlid;

	r->end_sw = malloc(((size_t)nlid + 1) * sizeof(*r->end_sw));
	r->end_port = calloc((size_t)nlid + 1, 1);
	if (!r->end_sw || !r->end_port)
		return -1;
	for (uint32_t lid = 0; lid < nlid; lid++) {
		uint32_t d = lid < f->max_lid + 1 ? f->lid_port[lid] : VT_NONE, q;
		const struct vt_node *nd;

		r->end_sw[lid] = VT_NONE;
		if (d == VT_NONE)
			continue;
		nd = &f->nodes[f->ports[d].node];
		if (nd->type == VT_SWITCH) {
			if (d == nd->first_port)
				r->end_sw[lid] = nd->sw; /* end_port 0: the switch itself */
			continue;
		}
		q = f->ports[d].peer;
		if (q == VT_NONE || f->ports[q].peer != d ||
		    f->nodes[f->ports[q].node].type != VT_SWITCH || f->ports[q].num == 0)
			continue;
		r->end_sw[lid] = f->nodes[f->ports[q].node].sw;
		r->end_port[lid] = f->ports[q].num;
	}
	return 0;
}

/*
 * r->entry: the switches the compute nodes (order's ranks) hang off, or with
 * no order those of every CA: where the traffic the guard measures enters the
 * fabric. Not the aggregation nodes and storage CAs on every level, whose
 * traffic would mark every entry as used and leave none newly used.
 */
static int find_entries(struct repair *r, const vt_order *order)
{
	const vt_fabric *f = r->f;
	uint8_t *seen = calloc((size_t)f->nswitches + 1, 1);
	uint32_t n = order ? order->n : f->nports;

	r->nentry = 0;
	r->entry = malloc(((size_t)f->nswitches + 1) * sizeof(*r->entry));
	for (uint32_t i = 0; seen && r->entry && i < n; i++) {
		uint32_t q = order ? order->port[i] : i, peer, x;

		if (q == VT_NONE || (peer = f->ports[q].peer) == VT_NONE ||
		    f->nodes[f->ports[q].node].type == VT_SWITCH ||
		    f->nodes[f->ports[peer].node].type != VT_SWITCH)
			continue;
		x = f->nodes[f->ports[peer].node].sw;
		if (!seen[x]) {
			seen[x] = 1;
			r->entry[r->nentry++] = x;
		}
	}
	free(seen);
	return seen && r->entry ? 0 : -1;
}

static void set_bit(uint8_t *m, size_t b)
{
	m[b >> 3] |= (uint8_t)(1u << (b & 7));
}

/*
 * vt_repair_mark_rows for switch s's row: its entries marked and not yet
 * followed lead on, 64 LIDs at a time. 1 where it marked a switch anew.
 */
static uint32_t mark_row(struct repair *r, const vt_lfts *t, uint32_t s, uint8_t *m, uint8_t *done)
{
	uint32_t nlid = t->nlid, more = 0;
	const uint8_t *row = vt_lft_row(t, s);
	size_t base = (size_t)s * nlid;

	for (uint32_t l0 = 0; l0 < nlid; l0 += 64) {
		uint32_t k = nlid - l0 < 64 ? nlid - l0 : 64;
		uint64_t w = bits64(m, base + l0) & ~bits64(done, base + l0);

		if (k < 64)
			w &= (1ull << k) - 1;
		for (; w; w &= w - 1) {
			uint32_t lid = l0 + (uint32_t)__builtin_ctzll(w), y;
			unsigned p = row[lid];

			set_bit(done, base + lid);
			if (p == VT_LFT_NONE || (y = sw_peer(r, s, p)) == VT_NONE ||
			    bit(m, (size_t)y * nlid + lid))
				continue;
			set_bit(m, (size_t)y * nlid + lid);
			more = 1;
		}
	}
	return more;
}

/*
 * Row by row, for every CA LID at once: the switches CA traffic crosses
 * under t marked in m, from the entry switches on. Each marked entry not yet
 * followed (done) marks the switch its port leads to, in passes up and down
 * the switch numbers until one marks nothing new: the switches each walk of
 * mark_ca_paths (vt_route_repair.c) reaches, as it would mark them, but read
 * along each row, where a walk per LID and entry switch read one entry per
 * cache line (pruned 36,36: 11664 CA LIDs from 648 leaves, some 0.065 s).
 * -1 when out of memory (m untouched).
 */
int vt_repair_mark_rows(struct repair *r, const vt_lfts *t, uint8_t *m)
{
	uint32_t nsw = t->nsw, nlid = t->nlid;
	uint8_t *done = calloc(((size_t)nsw * nlid + 7) / 8 + BITS_SLACK, 1);

	if (!done)
		return -1;
	for (uint32_t i = 0; i < r->nentry; i++)
		for (uint32_t lid = 1; lid < nlid; lid++)
			if (r->ca[lid])
				set_bit(m, (size_t)r->entry[i] * nlid + lid);
	for (uint32_t pass = 0, more = 1; more; pass++) {
		more = 0;
		for (uint32_t j = 0; j < nsw; j++) {
			uint32_t s = pass & 1 ? nsw - 1 - j : j;

			more |= mark_row(r, t, s, m, done);
		}
	}
	free(done);
	return 0;
}

/*
 * r->ca: is_ca_lid per LID (rebalance asks it for every entry of every
 * switch); r->sw_lid, r->nsw_lid: the switch LIDs; r->turn_set, all unknown.
 */
static int ca_lids(struct repair *r)
{
	r->ca = malloc((size_t)r->t->nlid + 1);
	r->sw_lid = malloc(((size_t)r->t->nlid + 1) * sizeof(*r->sw_lid));
	r->turn_set = calloc((size_t)r->f->nswitches + 1, 1);
	if (!r->ca || !r->sw_lid || !r->turn_set)
		return -1;
	r->nsw_lid = 0;
	for (uint32_t lid = 0; lid < r->t->nlid; lid++) {
		r->ca[lid] = (uint8_t)is_ca_lid(r->f, lid);
		if (lid && !r->ca[lid] && r->f->lid_port[lid] != VT_NONE)
			r->sw_lid[r->nsw_lid++] = lid;
	}
	return 0;
}

/*
 * Switch s's pending LIDs (prev's port still linked, the fresh entry another)
 * into out, ascending; returns how many. The rows are compared 64 LIDs at a
 * time first: the fresh tables mostly keep prev's entries (pruned 36,12, the
 * top switch down: 38999 of some 2.4 million differ).
 */
static uint32_t pending_row(const struct repair *r, uint32_t s, uint32_t *out)
{
	const uint8_t *pr = vt_lft_row(r->prev, s), *fr = vt_lft_row(r->fresh, s);
	uint32_t nlid = r->t->nlid, m = 0;
	uint8_t down[256];

	vt_repair_ports_down(r->f, s, down);
	for (uint32_t b = 0; b < nlid; b += 64) {
		uint32_t e = nlid - b < 64 ? nlid : b + 64;

		if (!memcmp(pr + b, fr + b, e - b))
			continue;
		for (uint32_t lid = b; lid < e; lid++)
			if (pr[lid] != VT_LFT_NONE && pr[lid] != fr[lid] && !down[pr[lid]])
				out[m++] = lid;
	}
	return m;
}

/*
 * r->pend_at, r->pend_sw: per LID, in switch order, the pending switches:
 * what keep_lid tries, the same for every candidate (found once, row by row:
 * a column walk of the tables per LID missed the cache at every switch).
 */
static int pend_lists(struct repair *r)
{
	uint32_t nlid = r->t->nlid, *row = malloc(((size_t)nlid + 1) * sizeof(*row));
	size_t *at = calloc((size_t)nlid + 1, sizeof(*at)), *next = NULL;

	r->pend_at = at;
	if (!at || !row) {
		free(row);
		return -1;
	}
	for (uint32_t s = 0; s < r->t->nsw; s++)
		for (uint32_t i = 0, m = pending_row(r, s, row); i < m; i++)
			at[row[i] + 1]++;
	for (uint32_t l = 0; l < nlid; l++)
		at[l + 1] += at[l];
	r->pend_sw = malloc((at[nlid] + 1) * sizeof(*r->pend_sw));
	next = malloc(((size_t)nlid + 1) * sizeof(*next));
	if (!r->pend_sw || !next) {
		free(next);
		free(row);
		return -1;
	}
	memcpy(next, at, ((size_t)nlid + 1) * sizeof(*next));
	for (uint32_t s = 0; s < r->t->nsw; s++)
		for (uint32_t i = 0, m = pending_row(r, s, row); i < m; i++)
			r->pend_sw[next[row[i]]++] = s;
	free(next);
	free(row);
	return 0;
}

/* r's rank maps from order (none without one): -1 when out of memory. */
static int rank_maps(struct repair *r, const vt_order *order)
{
	uint32_t nlid = r->t->nlid;
	int shared = 0;

	r->nrank = order ? order->n : 0;
	r->lid_of_rank = malloc(((size_t)r->nrank + 1) * sizeof(*r->lid_of_rank));
	r->rank_of_lid = malloc(((size_t)nlid + 1) * sizeof(*r->rank_of_lid));
	if (!r->lid_of_rank || !r->rank_of_lid)
		return -1;
	for (uint32_t l = 0; l < nlid; l++)
		r->rank_of_lid[l] = VT_NONE;
	for (uint32_t i = 0; i < r->nrank; i++) {
		uint32_t q = order->port[i], l = q == VT_NONE ? VT_NONE : vt_port_lid(r->f, q);

		r->lid_of_rank[i] = l < nlid ? l : VT_NONE;
		if (l < nlid)
			shared |= r->rank_of_lid[l] != VT_NONE;
		if (l < nlid)
			r->rank_of_lid[l] = i;
	}
	/* optional; a LID of two ranks would need both rank_port entries moved with it */
	r->rank_port = shared ? NULL : malloc(((size_t)r->nrank + 1) * sizeof(*r->rank_port));
	r->rank_port_sw = VT_NONE;
	return 0;
}

int vt_repair_tables(struct repair *r, const vt_order *order)
{
	size_t n = (size_t)r->t->nsw * r->t->nlid;

	if (find_entries(r, order) || peer_table(r) || lid_ends(r) || rank_maps(r, order) ||
	    pend_lists(r) || ca_lids(r))
		return -1;
	r->kept = vt_alloc_big(n); /* optional: NULL keeps again per candidate */
	r->kept_used = r->kept ? malloc(n / 8 + 1) : NULL; /* optional too */
	if (r->kept) { /* optional too: NULL, rebalance counts every time */
		r->kept_all = malloc(((size_t)r->t->nsw * r->stride + 1) * sizeof(*r->kept_all));
		r->kept_use = malloc(((size_t)r->t->nsw * r->stride + 1) * sizeof(*r->kept_use));
		r->kept_cnt = calloc((size_t)r->t->nsw + 1, 1);
	}
	return 0;
}

/*
 * Does t turn a switch LID's route down-up at switch x (a parent sends it
 * down into x, x sends it up)? sl: the switch LIDs, n of them.
 */
static int turns_switch_lid(const struct repair *r, const vt_lfts *t, uint32_t x,
			    const uint32_t *sl, uint32_t n)
{
	const vt_fabric *f = r->f;
	const struct vt_node *nd = sw_node(r, x);
	const uint8_t *row = vt_lft_row(t, x);
	uint8_t up[256] = {0}, back[256];
	uint32_t parent[256], np = 0;

	for (unsigned p = 1; p < r->stride && p <= nd->nports; p++) {
		uint32_t y = sw_peer(r, x, p);

		if (y == VT_NONE || r->level[y] == VT_TREE_OUTSIDE ||
		    r->level[y] != r->level[x] + 1)
			continue;
		up[p] = 1;
		parent[np] = y;
		back[np++] = (uint8_t)f->ports[f->ports[nd->first_port + p].peer].num;
	}
	/* parent by parent: its row read in LID order, not one parent's entry per LID */
	for (uint32_t j = 0; j < np; j++) {
		const uint8_t *prow = vt_lft_row(t, parent[j]);

		for (uint32_t i = 0; i < n; i++)
			if (prow[sl[i]] == back[j] && up[row[sl[i]]])
				return 1;
	}
	return 0;
}

int vt_repair_turn_switch(struct repair *r, uint32_t x)
{
	if (!r->turn_set[x]) /* 0: not looked at yet */
		r->turn_set[x] =
			(uint8_t)(1 + (r->level[x] != VT_TREE_OUTSIDE &&
				       (turns_switch_lid(r, r->prev, x, r->sw_lid, r->nsw_lid) ||
					turns_switch_lid(r, r->fresh, x, r->sw_lid, r->nsw_lid))));
	return r->turn_set[x] == 2;
}

void vt_repair_tables_free(struct repair *r)
{
	free(r->turn_set);
	free(r->sw_lid);
	free(r->entry);
	free(r->lid_of_rank);
	free(r->rank_of_lid);
	free(r->peer);
	free(r->back);
	free(r->end_sw);
	free(r->end_port);
	free(r->pend_at);
	free(r->pend_sw);
	free(r->ca);
	free(r->kept);
	free(r->kept_used);
	free(r->kept_all);
	free(r->kept_use);
	free(r->kept_cnt);
	free(r->fl_clean);
	free(r->fl_use);
	free(r->rank_port);
	free(r->rx.rank);
	free(r->sure_ok);
	free(r->sure_path);
	free(r->sure_at);
	free(r->sure_sw);
}
