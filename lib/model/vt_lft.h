/* SPDX-License-Identifier: MIT */
/*
 * Linear forwarding tables of every switch of a fabric, one flat array:
 * port[sw * nlid + lid] is the output port of switch ordinal sw for LID lid,
 * VT_LFT_NONE where the table has no entry (OpenSM's OSM_NO_PATH).
 */
#ifndef VT_LFT_H
#define VT_LFT_H

#include <stdint.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"

#define VT_LFT_NONE 0xFFu

typedef struct vt_lfts {
	uint32_t nsw;  /* switches (fabric->nswitches) */
	uint32_t nlid; /* entries per switch: fabric->max_lid + 1 */
	uint8_t *port;
} vt_lfts;

/* Allocates tables for every switch of f, all entries VT_LFT_NONE. */
int vt_lfts_init(vt_lfts *t, const vt_fabric *f, vt_err *e);
void vt_lfts_free(vt_lfts *t);

/*
 * Entries (a switch and a CA's LID) whose route, followed through a, takes
 * more switch hops to the CA than through b, both arriving: what a repair that
 * keeps longer routes (vt_route_repair) costs in path length. -1 when out of
 * memory.
 */
int64_t vt_lfts_longer(const vt_fabric *f, const vt_lfts *a, const vt_lfts *b);
/* The same among the LIDs marked in only (per LID, nonzero: looked at; NULL: every LID). */
int64_t vt_lfts_longer_in(const vt_fabric *f, const vt_lfts *a, const vt_lfts *b,
			  const uint8_t *only);
/*
 * differ[lid] for the LIDs of both: does any switch's entry for lid differ
 * between a and b? Found row by row (a walk down each LID's column misses the
 * cache at every switch).
 */
void vt_lfts_differ(const vt_lfts *a, const vt_lfts *b, uint8_t *differ);

static inline uint8_t vt_lft_get(const vt_lfts *t, uint32_t sw, uint32_t lid)
{
	return lid < t->nlid ? t->port[(uint64_t)sw * t->nlid + lid] : VT_LFT_NONE;
}

static inline void vt_lft_set(vt_lfts *t, uint32_t sw, uint32_t lid, uint8_t port)
{
	t->port[(uint64_t)sw * t->nlid + lid] = port;
}

static inline uint8_t *vt_lft_row(const vt_lfts *t, uint32_t sw)
{
	return &t->port[(uint64_t)sw * t->nlid];
}

#endif
