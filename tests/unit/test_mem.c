/* SPDX-License-Identifier: MIT */
/* Large buffers (vt_mem.h): small ones as malloc's, large ones on 2 MiB boundaries, all whole. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/vt_mem.h"
#include "vt_test.h"

START_TEST(big_buffers)
{
	static const size_t sizes[] = {0, 1, 4096, (2u << 20) - 1, 2u << 20, (5u << 20) + 3};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		size_t n = sizes[i];
		uint8_t *p = vt_alloc_big(n);

		ck_assert_ptr_nonnull(p);
		if (n >= 2u << 20)
			ck_assert_uint_eq((uintptr_t)p % (2u << 20), 0);
		/* every byte asked for is there (ASan checks the ends) */
		memset(p, 0xa5, n ? n : 1);
		ck_assert_uint_eq(p[n ? n - 1 : 0], 0xa5);
		free(p);
	}
}
END_TEST

static Suite *mem_suite(void)
{
	Suite *s = suite_create("mem");
	TCase *tc = tcase_create("mem");

	tcase_add_test(tc, big_buffers);
	suite_add_tcase(s, tc);
	return s;
}

VT_TEST_MAIN(mem_suite)
