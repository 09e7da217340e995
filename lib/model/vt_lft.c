/* SPDX-License-Identifier: MIT */
#include "model/vt_lft.h"

#include <stdlib.h>
#include <string.h>

#include "base/vt_mem.h"

int vt_lfts_init(vt_lfts *t, const vt_fabric *f, vt_err *e)
{
	size_t n;

	t->nsw = f->nswitches;
	t->nlid = f->max_lid + 1;
	n = (size_t)t->nsw * t->nlid;
	t->port = vt_alloc_big(n);
	if (!t->port)
		return vt_err_nomem(e, "out of memory for %u forwarding tables", t->nsw);
	memset(t->port, VT_LFT_NONE, n);
	return 0;
}

void vt_lfts_free(vt_lfts *t)
{
	free(t->port);
	t->port = NULL;
	t->nsw = t->nlid = 0;
}

#define HOPS_UNKNOWN UINT32_MAX
#define HOPS_NONE    (UINT32_MAX - 1) /* no arrival, or a loop */

#define LONGER_TILE 64u /* LIDs whose columns are gathered together (one cache line a row) */

/*
 * Hops from switch s to lid's port through the column col (switch w's entry
 * for lid at col[w * LONGER_TILE]), memoised in h (HOPS_UNKNOWN where not yet
 * known): the walk stops at a switch already known, and every switch it
 * crossed then learns its own count. stack holds nswitches.
 */
static uint32_t hops_from(const vt_fabric *f, const uint8_t *col, uint32_t lid, uint32_t s,
			  uint32_t *h, uint32_t *stack)
{
	uint32_t n = 0, w = s, end;

	if (h[s] != HOPS_UNKNOWN)
		return h[s];
	while (h[w] == HOPS_UNKNOWN) {
		const struct vt_node *nd = &f->nodes[f->switches[w]];
		unsigned p = col[(size_t)w * LONGER_TILE];
		uint32_t q;

		h[w] = HOPS_NONE; /* on the walk: met again, a loop */
		stack[n++] = w;
		if (p == 0 || p > nd->nports || (q = f->ports[nd->first_port + p].peer) == VT_NONE)
			break;
		if (f->nodes[f->ports[q].node].type != VT_SWITCH) {
			h[w] = q == f->lid_port[lid] ? 1 : HOPS_NONE;
			break;
		}
		w = f->nodes[f->ports[q].node].sw;
	}
	/* the last switch walked: its own count, or one more than a switch known before the walk */
	end = stack[n - 1] == w || h[w] >= HOPS_NONE ? h[stack[n - 1]] : h[w] + 1;
	for (uint32_t i = n; i-- > 0; end = end < HOPS_NONE ? end + 1 : end)
		h[stack[i]] = end;
	return h[s];
}

void vt_lfts_differ(const vt_lfts *a, const vt_lfts *b, uint8_t *differ)
{
	uint32_t nlid = a->nlid < b->nlid ? a->nlid : b->nlid;

	memset(differ, 0, nlid);
	for (uint32_t s = 0; s < a->nsw && s < b->nsw; s++) {
		const uint8_t *ra = vt_lft_row(a, s), *rb = vt_lft_row(b, s);

		/* by blocks of 64 LIDs compared whole first: tables compared here mostly agree */
		for (uint32_t l0 = 0; l0 < nlid; l0 += 64) {
			uint32_t k = nlid - l0 < 64 ? nlid - l0 : 64;

			if (memcmp(ra + l0, rb + l0, k))
				for (uint32_t lid = l0; lid < l0 + k; lid++)
					differ[lid] |= ra[lid] != rb[lid];
		}
	}
}

/* The columns of LIDs l0 .. l0 + LONGER_TILE - 1 of t (VT_LFT_NONE past nlid), row by row. */
static void gather_tile(const vt_lfts *t, uint32_t nsw, uint32_t l0, uint32_t nlid, uint8_t *tile)
{
	uint32_t k = nlid - l0 < LONGER_TILE ? nlid - l0 : LONGER_TILE;

	for (uint32_t s = 0; s < nsw; s++) {
		memcpy(tile + (size_t)s * LONGER_TILE, vt_lft_row(t, s) + l0, k);
		memset(tile + (size_t)s * LONGER_TILE + k, VT_LFT_NONE, LONGER_TILE - k);
	}
}

/* Entries of a's tile (LIDs l0 ..) whose CA route is longer than through b's (vt_lfts_longer). */
static int64_t longer_tile(const vt_fabric *f, const uint8_t *ta, const uint8_t *tb, uint32_t l0,
			   uint32_t nlid, const uint8_t *differ, uint32_t *ha, uint32_t *hb,
			   uint32_t *stack)
{
	int64_t n = 0;

	for (uint32_t k = 0; k < LONGER_TILE && l0 + k < nlid; k++) {
		uint32_t lid = l0 + k, q = f->lid_port[lid];

		/* the same column: the same hops from every switch */
		if (lid == 0 || !differ[lid] || q == VT_NONE ||
		    f->nodes[f->ports[q].node].type == VT_SWITCH)
			continue;
		for (uint32_t s = 0; s < f->nswitches; s++)
			ha[s] = hb[s] = HOPS_UNKNOWN;
		for (uint32_t s = 0; s < f->nswitches; s++) {
			uint32_t x = hops_from(f, ta + k, lid, s, ha, stack);
			uint32_t y = hops_from(f, tb + k, lid, s, hb, stack);

			n += x < HOPS_NONE && y < HOPS_NONE && x > y;
		}
	}
	return n;
}

int64_t vt_lfts_longer(const vt_fabric *f, const vt_lfts *a, const vt_lfts *b)
{
	return vt_lfts_longer_in(f, a, b, NULL);
}

/* Any LID of l0 .. l0 + LONGER_TILE - 1 (below nlid) marked in differ? */
static int tile_differs(const uint8_t *differ, uint32_t l0, uint32_t nlid)
{
	for (uint32_t lid = l0; lid < nlid && lid < l0 + LONGER_TILE; lid++)
		if (differ[lid])
			return 1;
	return 0;
}

int64_t vt_lfts_longer_in(const vt_fabric *f, const vt_lfts *a, const vt_lfts *b,
			  const uint8_t *only)
{
	size_t nsw = f->nswitches;
	uint32_t *ha = malloc((nsw + 1) * sizeof(*ha)), *hb = malloc((nsw + 1) * sizeof(*hb));
	uint32_t *stack = malloc((nsw + 1) * sizeof(*stack));
	uint32_t nlid = a->nlid < b->nlid ? a->nlid : b->nlid;
	uint8_t *differ = malloc((size_t)nlid + 1);
	/* the columns walked, a tile of LIDs at a time: a walk down each LID's column of
	 * the tables misses the cache at every switch */
	uint8_t *ta = malloc(nsw * LONGER_TILE + 1), *tb = malloc(nsw * LONGER_TILE + 1);
	int64_t n = 0;

	if (!ha || !hb || !stack || !differ || !ta || !tb)
		n = -1;
	else
		vt_lfts_differ(a, b, differ);
	for (uint32_t lid = 0; n >= 0 && only && lid < nlid; lid++)
		differ[lid] &= only[lid] != 0;
	for (uint32_t l0 = 0; n >= 0 && l0 < nlid; l0 += LONGER_TILE) {
		if (!tile_differs(differ, l0, nlid))
			continue; /* no column walked: gathering it costs as much as the rest */
		gather_tile(a, (uint32_t)nsw, l0, nlid, ta);
		gather_tile(b, (uint32_t)nsw, l0, nlid, tb);
		n += longer_tile(f, ta, tb, l0, nlid, differ, ha, hb, stack);
	}
	free(ha);
	free(hb);
	free(stack);
	free(differ);
	free(ta);
	free(tb);
	return n;
}
