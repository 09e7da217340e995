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
#include "vt_route_internal.h"

#include <stdlib.h>
#include <string.h>

int vt_route_batch_init(struct router *r, vt_err *e)
{
	size_t n = (size_t)r->lfts->nsw * VT_ROUTE_BATCH;

	/* and a place-keeper's column, written and never read */
	r->batch.cols = malloc(n + r->lfts->nsw + 1);
	if (!r->batch.cols)
		return vt_err_nomem(e, "out of memory");
	memset(r->batch.cols, VT_LFT_NONE, n);
	r->batch.n = 0;
	r->batch.col = NULL;
	return 0;
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
	b->lid[b->n] = lid;
	b->col = b->cols + (size_t)b->n++ * r->lfts->nsw;
}

/* Every written entry of the batch into the tables, switch by switch; the columns emptied. */
void vt_route_batch_flush(struct router *r)
{
	struct route_batch *b = &r->batch;
	const uint32_t nsw = r->lfts->nsw, n = b->n, *lid = b->lid;

	for (uint32_t s = 0; s < nsw; s++) {
		uint8_t *row = vt_lft_row(r->lfts, s);
		const uint8_t *p = b->cols + s; /* s's entry in each column */

		for (uint32_t k = 0; k < n; k++, p += nsw)
			if (*p != VT_LFT_NONE)
				row[lid[k]] = *p;
	}
	memset(b->cols, VT_LFT_NONE, (size_t)b->n * nsw);
	b->n = 0;
	b->col = NULL;
}
