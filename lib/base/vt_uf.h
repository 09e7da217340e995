/* SPDX-License-Identifier: MIT */
/*
 * The one union-find of the core, over a caller's array uf[0 .. n): uf[x] is
 * x's parent, a root its own. Path halving; no ranks, because callers rely
 * on which element is the root (the least of a set, or the one they join
 * into) to number their sets deterministically.
 */
#ifndef VT_UF_H
#define VT_UF_H

#include <stdint.h>

static inline void vt_uf_init(uint32_t *uf, uint32_t n)
{
	for (uint32_t x = 0; x < n; x++)
		uf[x] = x;
}

static inline uint32_t vt_uf_find(uint32_t *uf, uint32_t x)
{
	while (uf[x] != x)
		x = uf[x] = uf[uf[x]];
	return x;
}

/* Joins the sets of a and b; the root is the lesser of their roots. */
static inline void vt_uf_union_min(uint32_t *uf, uint32_t a, uint32_t b)
{
	a = vt_uf_find(uf, a);
	b = vt_uf_find(uf, b);
	uf[a > b ? a : b] = a > b ? b : a;
}

/* Joins x's set into into's: the root of into's set stays the root. */
static inline void vt_uf_union_into(uint32_t *uf, uint32_t x, uint32_t into)
{
	uint32_t r = vt_uf_find(uf, x);

	uf[r] = vt_uf_find(uf, into);
}

#endif
