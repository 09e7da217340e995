/* SPDX-License-Identifier: MIT */
/*
 * The tables written a batch of LIDs at a time. Routing one LID sets its
 * entry at every switch: written straight into the tables (one row per
 * switch), each entry would land in another row, so every entry would cost
 * a cache and TLB miss on a large fabric. The entries wait instead in one
 * column per LID (struct route_batch) and go into the tables row by row,
 * VT_ROUTE_BATCH LIDs at a time: the last entry written wins, as if written
 * in place.
 */
#include "route/vt_route_int.h"

#include <string.h>

void vt_route_batch_init(struct router *r)
{
	memset(r->batch.cols, VT_LFT_NONE, (size_t)r->lfts->nsw * VT_ROUTE_BATCH);
	r->batch.n = 0;
	r->batch.col = NULL;
}

/* The next LID's column; lid 0, a place-keeper, writes into one that goes nowhere. */
void vt_route_batch_start(struct router *r, uint32_t lid)
{
	struct route_batch *b = &r->batch;

	b->col = b->cols + (size_t)VT_ROUTE_BATCH * r->lfts->nsw;
	if (!lid)
		return;
	if (b->n == VT_ROUTE_BATCH)
		vt_route_batch_flush(r);
	assert(b->n < VT_ROUTE_BATCH);
	b->at[lid] = b->n;
	b->lid[b->n] = lid;
	b->col = b->cols + (size_t)b->n++ * r->lfts->nsw;
}

/* Byte lanes of a under mask, shifted by sh, swapped with b's under mask. */
static inline void swap_lanes(uint64_t *a, uint64_t *b, unsigned sh, uint64_t mask)
{
	uint64_t t = ((*a >> sh) ^ *b) & mask;

	*a ^= t << sh;
	*b ^= t;
}

/*
 * An 8 x 8 block of entries, 8 LIDs' bytes for 8 switches (m[k] byte i:
 * LID k, switch i), turned into 8 switches' bytes for the 8 LIDs: swaps of
 * 4 x 4, 2 x 2 and single-byte blocks, written out so m stays in registers.
 * Bytes as lanes of a little-endian word.
 */
static inline void transpose8(uint64_t m[8])
{
	const uint64_t m4 = 0x00000000FFFFFFFFull, m2 = 0x0000FFFF0000FFFFull;
	const uint64_t m1 = 0x00FF00FF00FF00FFull;

	swap_lanes(&m[0], &m[4], 32, m4);
	swap_lanes(&m[1], &m[5], 32, m4);
	swap_lanes(&m[2], &m[6], 32, m4);
	swap_lanes(&m[3], &m[7], 32, m4);
	swap_lanes(&m[0], &m[2], 16, m2);
	swap_lanes(&m[1], &m[3], 16, m2);
	swap_lanes(&m[4], &m[6], 16, m2);
	swap_lanes(&m[5], &m[7], 16, m2);
	swap_lanes(&m[0], &m[1], 8, m1);
	swap_lanes(&m[2], &m[3], 8, m1);
	swap_lanes(&m[4], &m[5], 8, m1);
	swap_lanes(&m[6], &m[7], 8, m1);
}

static int little_endian(void)
{
	const uint16_t one = 1;
	uint8_t b;

	memcpy(&b, &one, 1);
	return b == 1;
}

/*
 * Switches s0 .. s0 + 7, LIDs k0 .. k0 + 7 of the batch, consecutive: one
 * 8-byte store per switch where all 8 entries were written.
 */
static void flush_block(struct router *r, uint32_t s0, uint32_t k0)
{
	const struct route_batch *b = &r->batch;
	const uint32_t nsw = r->lfts->nsw;
	uint64_t m[8];

	for (unsigned k = 0; k < 8; k++)
		memcpy(&m[k], b->cols + (size_t)(k0 + k) * nsw + s0, 8);
	transpose8(m);
	for (unsigned i = 0; i < 8; i++) {
		uint8_t *row = vt_lft_row(r->lfts, s0 + i) + b->lid[k0], e[8];
		uint64_t v = ~m[i]; /* a zero byte: an entry left VT_LFT_NONE */

		if (!((v - 0x0101010101010101ull) & ~v & 0x8080808080808080ull)) {
			memcpy(row, &m[i], 8);
			continue;
		}
		memcpy(e, &m[i], 8);
		for (unsigned k = 0; k < 8; k++)
			if (e[k] != VT_LFT_NONE)
				row[k] = e[k];
	}
}

/* Switches s0 .. s0 + w - 1, LIDs k0 .. k0 + kn - 1 of the batch, entry by entry. */
static void flush_plain(struct router *r, uint32_t s0, uint32_t w, uint32_t k0, uint32_t kn)
{
	const struct route_batch *b = &r->batch;
	const uint32_t nsw = r->lfts->nsw;

	for (uint32_t s = s0; s < s0 + w; s++) {
		uint8_t *row = vt_lft_row(r->lfts, s);
		const uint8_t *p = b->cols + (size_t)k0 * nsw + s; /* s's entry in each column */

		for (uint32_t k = k0; k < k0 + kn; k++, p += nsw)
			if (*p != VT_LFT_NONE)
				row[b->lid[k]] = *p;
	}
}

/*
 * Every written entry of the batch into the tables, 8 switches by 8 LIDs; the
 * columns emptied. 8 consecutive LIDs (a leaf's hosts) go as a block
 * (flush_block) on little-endian hosts.
 */
void vt_route_batch_flush(struct router *r)
{
	struct route_batch *b = &r->batch;
	const uint32_t nsw = r->lfts->nsw, n = b->n, *lid = b->lid;
	const int le = little_endian();
	uint8_t run[VT_ROUTE_BATCH / 8]; /* per 8 LIDs: consecutive, all 8 in the batch */

	for (uint32_t g = 0; g < (n + 7) / 8; g++) {
		run[g] = le && 8 * g + 8 <= n;
		for (uint32_t k = 8 * g + 1; run[g] && k < 8 * g + 8; k++)
			run[g] = lid[k] == lid[k - 1] + 1;
	}
	for (uint32_t s0 = 0; s0 < nsw; s0 += 8) {
		uint32_t w = nsw - s0 < 8 ? nsw - s0 : 8;

		for (uint32_t g = 0; g < (n + 7) / 8; g++) {
			if (w == 8 && run[g])
				flush_block(r, s0, 8 * g);
			else
				flush_plain(r, s0, w, 8 * g, n - 8 * g < 8 ? n - 8 * g : 8);
		}
	}
	memset(b->cols, VT_LFT_NONE, (size_t)b->n * nsw);
	b->n = 0;
	b->col = NULL;
}
