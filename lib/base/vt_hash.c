/* SPDX-License-Identifier: MIT */
/* The core's hash table (see vt_hash.h). */
#include "base/vt_hash.h"

#include <stdlib.h>
#include <string.h>

uint64_t vt_hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	return h;
}

uint64_t vt_hash_str(const char *s)
{
	return vt_hash_bytes(s, strlen(s));
}

uint32_t vt_hash_cap(uint32_t n)
{
	uint32_t c = 16;

	while (c < 2 * n)
		c <<= 1;
	return c;
}

int vt_hidx_init(vt_hidx *h, uint32_t n)
{
	h->cap = vt_hash_cap(n);
	h->slot = malloc(h->cap * sizeof(*h->slot));
	if (!h->slot) {
		h->cap = 0;
		return -1;
	}
	memset(h->slot, 0xff, h->cap * sizeof(*h->slot));
	return 0;
}

void vt_hidx_free(vt_hidx *h)
{
	free(h->slot);
	h->slot = NULL;
	h->cap = 0;
}

int vt_map64_init(vt_map64 *m, uint32_t n)
{
	m->cap = vt_hash_cap(n);
	m->keys = malloc(m->cap * sizeof(*m->keys));
	m->vals = malloc(m->cap * sizeof(*m->vals));
	if (!m->keys || !m->vals) {
		vt_map64_free(m);
		return -1;
	}
	memset(m->vals, 0xff, m->cap * sizeof(*m->vals));
	return 0;
}

void vt_map64_free(vt_map64 *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = 0;
}

uint32_t vt_map64_put(vt_map64 *m, uint64_t key, uint32_t val)
{
	uint32_t mask = m->cap - 1, i = (uint32_t)vt_hash_u64(key) & mask;

	while (m->vals[i] != VT_HASH_EMPTY) {
		if (m->keys[i] == key)
			return m->vals[i];
		i = (i + 1) & mask;
	}
	m->keys[i] = key;
	m->vals[i] = val;
	return VT_HASH_EMPTY;
}

uint32_t vt_map64_get(const vt_map64 *m, uint64_t key)
{
	uint32_t mask, i;

	if (!m->cap)
		return VT_HASH_EMPTY;
	mask = m->cap - 1;
	for (i = (uint32_t)vt_hash_u64(key) & mask; m->vals[i] != VT_HASH_EMPTY; i = (i + 1) & mask)
		if (m->keys[i] == key)
			return m->vals[i];
	return VT_HASH_EMPTY;
}
