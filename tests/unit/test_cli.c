/* SPDX-License-Identifier: MIT */
/*
 * The number parsers of the command-line layer (vt_cli.c): every value a
 * command takes goes through them, so each accepts exactly the whole decimal
 * text inside its range and refuses everything else with one wording.
 */
#include "cli/vt_cli.h"
#include "vt_test.h"

#include <float.h>
#include <math.h>
#include <stdint.h>

static void uint_ok(const char *s, uint64_t lo, uint64_t hi, uint64_t want)
{
	uint64_t v = 12345;
	vt_err e;

	ck_assert_msg(!vt_parse_uint("--n", s, lo, hi, &v, &e), "'%s': %s", s, e.msg);
	ck_assert_uint_eq(v, want);
}

static void uint_bad(const char *s, uint64_t lo, uint64_t hi, const char *msg)
{
	uint64_t v = 12345;
	vt_err e;

	ck_assert_int_eq(vt_parse_uint("--n", s, lo, hi, &v, &e), -1);
	ck_assert_str_eq(e.msg, msg);
	ck_assert_uint_eq(v, 12345); /* untouched */
}

START_TEST(uint_accepts_whole_decimal_in_range)
{
	uint_ok("0", 0, 7, 0);
	uint_ok("7", 0, 7, 7);
	uint_ok("007", 0, 7, 7);
	uint_ok("18446744073709551615", 0, UINT64_MAX, UINT64_MAX);
	uint_ok("4294967295", 0, UINT32_MAX, UINT32_MAX);
}
END_TEST

START_TEST(uint_refuses_with_one_wording)
{
	uint_bad("8", 0, 7, "--n: '8' is not an integer (0..7)");
	uint_bad("abc", 0, UINT64_MAX, "--n: 'abc' is not an integer (0..2^64-1)");
	uint_bad("", 0, 7, "--n: '' is not an integer (0..7)");
	uint_bad("-1", 0, UINT64_MAX, "--n: '-1' is not an integer (0..2^64-1)");
	uint_bad("+1", 0, 7, "--n: '+1' is not an integer (0..7)");
	uint_bad(" 1", 0, 7, "--n: ' 1' is not an integer (0..7)");
	uint_bad("1 ", 0, 7, "--n: '1 ' is not an integer (0..7)");
	uint_bad("0x10", 0, 100, "--n: '0x10' is not an integer (0..100)");
	uint_bad("1.5", 0, 7, "--n: '1.5' is not an integer (0..7)");
	uint_bad("1e3", 0, 10000, "--n: '1e3' is not an integer (0..10000)");
	/* one past 2^64-1: strtoull saturates, the parser must not */
	uint_bad("18446744073709551616", 0, UINT64_MAX,
		 "--n: '18446744073709551616' is not an integer (0..2^64-1)");
	uint_bad("4294967296", 1, UINT32_MAX, "--n: '4294967296' is not an integer (1..2^32-1)");
	uint_bad("0", 1, 64, "--n: '0' is not an integer (1..64)");
}
END_TEST

START_TEST(size_takes_binary_suffixes)
{
	uint64_t v;
	vt_err e;

	ck_assert(!vt_parse_size("--size", "4K", 1, 1 << 30, &v, &e));
	ck_assert_uint_eq(v, 4096);
	ck_assert(!vt_parse_size("--size", "1g", 1, 1 << 30, &v, &e));
	ck_assert_uint_eq(v, 1u << 30);
	ck_assert(!vt_parse_size("--size", "3000", 1, 1 << 30, &v, &e));
	ck_assert_uint_eq(v, 3000);
	ck_assert(vt_parse_size("--size", "2G", 1, 1 << 30, &v, &e));
	ck_assert_str_eq(e.msg, "--size: '2G' is not an integer (1..1G)");
	ck_assert(vt_parse_size("--size", "1T", 1, 1 << 30, &v, &e));
	ck_assert_str_eq(e.msg, "--size: '1T' is not an integer (1..1G)");
	ck_assert(vt_parse_size("--size", "1KK", 1, 1 << 30, &v, &e));
	ck_assert(vt_parse_size("--size", "K", 1, 1 << 30, &v, &e));
	ck_assert(vt_parse_size("--size", "1.5K", 1, 1 << 30, &v, &e));
	/* a suffix that would overflow 64 bits is refused, not wrapped */
	ck_assert(vt_parse_size("--size", "17179869184G", 0, UINT64_MAX, &v, &e));
	ck_assert_str_eq(e.msg, "--size: '17179869184G' is not an integer (0..2^64-1)");
}
END_TEST

START_TEST(int_takes_a_sign)
{
	int64_t v;
	vt_err e;

	ck_assert(!vt_parse_int("--x", "-5", -10, 10, &v, &e));
	ck_assert_int_eq(v, -5);
	ck_assert(!vt_parse_int("--x", "-9223372036854775808", INT64_MIN, INT64_MAX, &v, &e));
	ck_assert(v == INT64_MIN);
	ck_assert(vt_parse_int("--x", "9223372036854775808", INT64_MIN, INT64_MAX, &v, &e));
	ck_assert_str_eq(e.msg, "--x: '9223372036854775808' is not an integer (-2^63..2^63-1)");
	ck_assert(vt_parse_int("--x", "-", -10, 10, &v, &e));
	ck_assert(vt_parse_int("--x", "--1", -10, 10, &v, &e));
	ck_assert(vt_parse_int("--x", "-11", -10, 10, &v, &e));
	ck_assert_str_eq(e.msg, "--x: '-11' is not an integer (-10..10)");
}
END_TEST

START_TEST(double_finite_in_range)
{
	double v = -1;
	vt_err e;

	ck_assert(!vt_parse_double("--load", "0.5", 1e-6, 4, &v, &e));
	ck_assert(v == 0.5);
	ck_assert(!vt_parse_double("--load", "4", 1e-6, 4, &v, &e));
	ck_assert(!vt_parse_double("--load", "1e-3", 1e-6, 4, &v, &e));
	ck_assert(v == 1e-3);
	ck_assert(vt_parse_double("--load", "x", 1e-6, 4, &v, &e));
	ck_assert_str_eq(e.msg, "--load: 'x' is not a number (1e-06..4)");
	ck_assert(vt_parse_double("--load", "4.0001", 1e-6, 4, &v, &e));
	ck_assert(vt_parse_double("--load", "0", 1e-6, 4, &v, &e));
	ck_assert(vt_parse_double("--load", "nan", -DBL_MAX, DBL_MAX, &v, &e));
	ck_assert(vt_parse_double("--load", "inf", -DBL_MAX, DBL_MAX, &v, &e));
	ck_assert(vt_parse_double("--load", "0x1p1", 0, 4, &v, &e));
	ck_assert(vt_parse_double("--load", " 1", 0, 4, &v, &e));
	ck_assert(vt_parse_double("--load", "1 ", 0, 4, &v, &e));
	ck_assert(vt_parse_double("--load", "", 0, 4, &v, &e));
	ck_assert(vt_parse_double("--load", "1e999", 0, DBL_MAX, &v, &e));
	ck_assert(v == 1e-3); /* untouched by the refusals */
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("numbers");

	tcase_add_test(tc, uint_accepts_whole_decimal_in_range);
	tcase_add_test(tc, uint_refuses_with_one_wording);
	tcase_add_test(tc, size_takes_binary_suffixes);
	tcase_add_test(tc, int_takes_a_sign);
	tcase_add_test(tc, double_finite_in_range);
	suite_add_tcase(s, tc);
	return s;
}

VT_TEST_MAIN(suite)
