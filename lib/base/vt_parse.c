/* SPDX-License-Identifier: MIT */
#include "base/vt_parse.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A bound as a reader takes it in: 2^64-1 rather than 18446744073709551615. */
static void fmt_uint(char *buf, size_t n, uint64_t v, int suffixed)
{
	static const char sfx[] = "KMG";
	int k = -1;

	if (v == UINT64_MAX || v == UINT32_MAX || v == INT64_MAX || v == INT32_MAX) {
		snprintf(buf, n, "2^%d-1",
			 v == UINT64_MAX   ? 64
			 : v == INT64_MAX  ? 63
			 : v == UINT32_MAX ? 32
					   : 31);
		return;
	}
	while (suffixed && k < 2 && v >= 1024 && !(v % 1024)) {
		v /= 1024;
		k++;
	}
	if (k >= 0)
		snprintf(buf, n, "%" PRIu64 "%c", v, sfx[k]);
	else
		snprintf(buf, n, "%" PRIu64, v);
}

static void fmt_int(char *buf, size_t n, int64_t v)
{
	if (v == INT64_MIN)
		snprintf(buf, n, "-2^63");
	else if (v == INT32_MIN)
		snprintf(buf, n, "-2^31");
	else if (v < 0)
		snprintf(buf, n, "%" PRId64, v);
	else
		fmt_uint(buf, n, (uint64_t)v, 0);
}

static int bad_uint(const char *opt, const char *s, uint64_t lo, uint64_t hi, int suffixed,
		    vt_err *e)
{
	char a[32], b[32];

	fmt_uint(a, sizeof(a), lo, suffixed);
	fmt_uint(b, sizeof(b), hi, suffixed);
	return vt_err_set(e, "%s: '%s' is not an integer (%s..%s)", opt, s, a, b);
}

/* Decimal digits only: strtoull alone would take blanks, a sign and "0x". */
static int all_digits(const char *s, const char *end)
{
	if (s == end)
		return 0;
	for (; s < end; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* The digits of s up to an optional suffix; 0, or -1 on overflow or anything else. */
static int read_uint(const char *s, const char **rest, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	*rest = end;
	return errno || !all_digits(s, end) ? -1 : 0;
}

int vt_parse_uint(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *v, vt_err *e)
{
	const char *rest;
	uint64_t x;

	if (read_uint(s, &rest, &x) || *rest || x < lo || x > hi)
		return bad_uint(opt, s, lo, hi, 0, e);
	*v = x;
	return 0;
}

int vt_parse_size(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *v, vt_err *e)
{
	const char *rest;
	uint64_t x;
	unsigned shift = 0;

	if (read_uint(s, &rest, &x))
		return bad_uint(opt, s, lo, hi, 1, e);
	if (*rest) {
		const char *p = strchr("KMG", toupper((unsigned char)*rest));

		if (!p || rest[1])
			return bad_uint(opt, s, lo, hi, 1, e);
		shift = 10 * (unsigned)(p - "KMG" + 1);
		if (x > UINT64_MAX >> shift)
			return bad_uint(opt, s, lo, hi, 1, e);
		x <<= shift;
	}
	if (x < lo || x > hi)
		return bad_uint(opt, s, lo, hi, 1, e);
	*v = x;
	return 0;
}

int vt_parse_int(const char *opt, const char *s, int64_t lo, int64_t hi, int64_t *v, vt_err *e)
{
	const char *digits = *s == '-' ? s + 1 : s;
	char *end, a[32], b[32];
	long long x;

	errno = 0;
	x = strtoll(s, &end, 10);
	if (!errno && all_digits(digits, end) && !*end && x >= lo && x <= hi) {
		*v = x;
		return 0;
	}
	fmt_int(a, sizeof(a), lo);
	fmt_int(b, sizeof(b), hi);
	return vt_err_set(e, "%s: '%s' is not an integer (%s..%s)", opt, s, a, b);
}

int vt_parse_double(const char *opt, const char *s, double lo, double hi, double *v, vt_err *e)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	/* strtod skips blanks and reads "inf", "nan" and hex floats: none is a value here */
	if (end != s && !*end && !errno && isfinite(x) && !isspace((unsigned char)*s) &&
	    !strpbrk(s, "xXnN") && x >= lo && x <= hi) {
		*v = x;
		return 0;
	}
	return vt_err_set(e, "%s: '%s' is not a number (%g..%g)", opt, s, lo, hi);
}
