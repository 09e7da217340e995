/* SPDX-License-Identifier: MIT */
/* The core's hash table (vt_hash.h) and union-find (vt_uf.h) against plain oracles. */
#include "base/vt_hash.h"
#include "vt_test.h"
#include "base/vt_uf.h"

#include <stdio.h>
#include <string.h>

/* An index over string keys, as vt_fabric keeps node ids: every key found, absent ones not. */
START_TEST(hidx_strings)
{
	enum { N = 5000 };
	static char keys[N][16];
	vt_hidx h;
	uint32_t q;

	ck_assert_int_eq(vt_hidx_init(&h, N), 0);
	ck_assert_uint_eq(h.cap, 16384); /* a power of two, at least 2N */
	for (uint32_t n = 0; n < N; n++) {
		snprintf(keys[n], sizeof(keys[n]), "sw%u", n);
		for (q = vt_hidx_start(&h, vt_hash_str(keys[n])); h.slot[q] != VT_HASH_EMPTY;
		     q = vt_hidx_next(&h, q))
			ck_assert_str_ne(keys[h.slot[q]], keys[n]);
		h.slot[q] = n;
	}
	for (uint32_t n = 0; n < N + 100; n++) {
		char k[16];
		uint32_t got = VT_HASH_EMPTY;

		snprintf(k, sizeof(k), "sw%u", n);
		for (q = vt_hidx_start(&h, vt_hash_str(k)); h.slot[q] != VT_HASH_EMPTY;
		     q = vt_hidx_next(&h, q))
			if (!strcmp(keys[h.slot[q]], k)) {
				got = h.slot[q];
				break;
			}
		ck_assert_uint_eq(got, n < N ? n : VT_HASH_EMPTY);
	}
	vt_hidx_free(&h);
	ck_assert_ptr_null(h.slot);
}
END_TEST

/* GUIDs, sequential as vendors assign them, and duplicates refused with the first value. */
START_TEST(map64_guids)
{
	enum { N = 20000 };
	vt_map64 m = {0};

	ck_assert_uint_eq(vt_map64_get(&m, 42), VT_HASH_EMPTY); /* never initialised */
	ck_assert_int_eq(vt_map64_init(&m, N), 0);
	for (uint32_t i = 0; i < N; i++)
		ck_assert_uint_eq(vt_map64_put(&m, 0x0002c90300a1b000ull + i, i), VT_HASH_EMPTY);
	ck_assert_uint_eq(vt_map64_put(&m, 0x0002c90300a1b000ull + 7, 99), 7);
	for (uint32_t i = 0; i < N; i++)
		ck_assert_uint_eq(vt_map64_get(&m, 0x0002c90300a1b000ull + i), i);
	ck_assert_uint_eq(vt_map64_get(&m, 0x0002c90300a1b000ull + N), VT_HASH_EMPTY);
	ck_assert_uint_eq(vt_map64_get(&m, 0), VT_HASH_EMPTY);
	vt_map64_free(&m);
	ck_assert_uint_eq(vt_map64_get(&m, 0x0002c90300a1b000ull), VT_HASH_EMPTY);
}
END_TEST

START_TEST(hash_values)
{
	/* FNV-1a's published offset basis and the value of "a" */
	ck_assert_uint_eq(vt_hash_bytes("", 0), 0xcbf29ce484222325ull);
	ck_assert_uint_eq(vt_hash_str("a"), 0xaf63dc4c8601ec8cull);
	ck_assert_uint_eq(vt_hash_cap(0), 16);
	ck_assert_uint_eq(vt_hash_cap(8), 16);
	ck_assert_uint_eq(vt_hash_cap(9), 32);
}
END_TEST

/* Union-find against a brute-force labelling: same sets, and the documented roots. */
START_TEST(union_find)
{
	enum { N = 300 };
	uint32_t uf[N], lab[N], seed = 12345;

	vt_uf_init(uf, N);
	for (uint32_t x = 0; x < N; x++)
		lab[x] = x;
	for (int k = 0; k < 200; k++) {
		uint32_t a, b, la, lb, into;

		seed = seed * 1103515245u + 12345u;
		a = (seed >> 8) % N;
		seed = seed * 1103515245u + 12345u;
		b = (seed >> 8) % N;
		la = lab[a];
		lb = lab[b];
		if (k & 1) { /* root: the least member of the joined set */
			vt_uf_union_min(uf, a, b);
			into = la < lb ? la : lb;
		} else { /* root: b's */
			vt_uf_union_into(uf, a, b);
			into = lb;
		}
		for (uint32_t x = 0; x < N; x++)
			if (lab[x] == la || lab[x] == lb)
				lab[x] = into;
		for (uint32_t x = 0; x < N; x++)
			ck_assert_uint_eq(vt_uf_find(uf, x) == vt_uf_find(uf, a), lab[x] == lab[a]);
		ck_assert_uint_eq(vt_uf_find(uf, a), into);
	}
}
END_TEST

static Suite *hash_suite(void)
{
	Suite *s = suite_create("hash");
	TCase *tc = tcase_create("hash");

	tcase_add_test(tc, hidx_strings);
	tcase_add_test(tc, map64_guids);
	tcase_add_test(tc, hash_values);
	tcase_add_test(tc, union_find);
	suite_add_tcase(s, tc);
	return s;
}

VT_TEST_MAIN(hash_suite)
