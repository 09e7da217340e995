/* SPDX-License-Identifier: MIT */
/*
 * The one hash table of the core: open addressing with linear probing, on
 * flat arrays. Two shapes cover every table vartree keeps:
 *
 * - vt_hidx, an index: its slots hold entry indices (VT_HASH_EMPTY when
 *   free) and the keys stay in the caller's own arrays (node ids, switch
 *   peer runs, tuples), so the caller compares them:
 *
 *       for (i = vt_hidx_start(&h, hash); h.slot[i] != VT_HASH_EMPTY;
 *            i = vt_hidx_next(&h, i))
 *               if (same_key(h.slot[i], key))
 *                       break;
 *       (found: h.slot[i]; else h.slot[i] is the free slot to insert at)
 *
 * - vt_map64, 64-bit keys (GUIDs) to 32-bit values, keys kept in the table.
 *
 * Tables never grow: they are sized for the entries they will hold (at most
 * half full), which every user knows beforehand.
 */
#ifndef VT_HASH_H
#define VT_HASH_H

#include <stddef.h>
#include <stdint.h>

#define VT_HASH_EMPTY UINT32_MAX /* == VT_NONE */

/* splitmix64's finaliser: sequential keys (GUIDs, indices) need mixing. */
static inline uint64_t vt_hash_u64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* FNV-1a over n bytes, and over a NUL-terminated string. */
uint64_t vt_hash_bytes(const void *p, size_t n);
uint64_t vt_hash_str(const char *s);

/* Slots for n entries: a power of two, at least 16 and at least 2n. */
uint32_t vt_hash_cap(uint32_t n);

typedef struct vt_hidx {
	uint32_t *slot; /* cap entries: entry index or VT_HASH_EMPTY */
	uint32_t cap;	/* a power of two */
} vt_hidx;

/* Room for n entries, all slots empty; -1 when out of memory. */
int vt_hidx_init(vt_hidx *h, uint32_t n);
void vt_hidx_free(vt_hidx *h);

static inline uint32_t vt_hidx_start(const vt_hidx *h, uint64_t hash)
{
	return (uint32_t)hash & (h->cap - 1);
}

static inline uint32_t vt_hidx_next(const vt_hidx *h, uint32_t i)
{
	return (i + 1) & (h->cap - 1);
}

typedef struct vt_map64 {
	uint64_t *keys;
	uint32_t *vals; /* VT_HASH_EMPTY: a free slot */
	uint32_t cap;	/* 0 before init: every lookup misses */
} vt_map64;

/* Room for n keys; -1 when out of memory. */
int vt_map64_init(vt_map64 *m, uint32_t n);
void vt_map64_free(vt_map64 *m);
/* Inserts key -> val (val != VT_HASH_EMPTY); on a duplicate keeps the old value and returns it,
 * else VT_HASH_EMPTY. */
uint32_t vt_map64_put(vt_map64 *m, uint64_t key, uint32_t val);
/* key's value, VT_HASH_EMPTY when absent. */
uint32_t vt_map64_get(const vt_map64 *m, uint64_t key);

#endif
