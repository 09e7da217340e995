/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/vt_pattern.h"
#include "vt_test.h"

/* Flows of stage s as "a>b a>b ..." for compact exact comparisons. */
static const char *stage_str(const vt_pattern *p, uint32_t s)
{
	static _Thread_local char buf[4096];
	struct vt_flow *f = malloc(vt_pattern_max_flows(p) * sizeof(*f));
	uint32_t n = vt_pattern_stage(p, s, f);
	size_t o = 0;

	buf[0] = 0;
	for (uint32_t i = 0; i < n && o < sizeof(buf) - 24; i++)
		o += snprintf(buf + o, sizeof(buf) - o, "%s%u>%u", i ? " " : "", f[i].src,
			      f[i].dst);
	free(f);
	return buf;
}

static vt_pattern parse_ok(const char *spec, uint32_t n)
{
	vt_pattern p;
	vt_err e = {0};

	ck_assert_msg(vt_pattern_parse(&p, spec, n, &e) == 0, "%s: %s", spec, e.msg);
	return p;
}

START_TEST(shift)
{
	vt_pattern p = parse_ok("shift", 4);
	ck_assert_uint_eq(vt_pattern_nstages(&p), 3);
	ck_assert_str_eq(p.name, "shift");
	ck_assert_str_eq(stage_str(&p, 0), "0>1 1>2 2>3 3>0");
	ck_assert_str_eq(stage_str(&p, 2), "0>3 1>0 2>1 3>2");
	p = parse_ok("shift:2-3", 5);
	ck_assert_uint_eq(vt_pattern_nstages(&p), 2);
	ck_assert_str_eq(p.name, "shift:2-3");
	ck_assert_str_eq(stage_str(&p, 1), "0>3 1>4 2>0 3>1 4>2");
	p = parse_ok("shift:4", 5);
	ck_assert_str_eq(p.name, "shift:4");
	ck_assert_uint_eq(vt_pattern_nstages(&p), 1);
}
END_TEST

START_TEST(butterfly_bintree)
{
	vt_pattern p = parse_ok("butterfly", 6);
	ck_assert_uint_eq(vt_pattern_nstages(&p), 3);
	ck_assert_str_eq(stage_str(&p, 0), "0>1 1>0 2>3 3>2 4>5 5>4");
	ck_assert_str_eq(stage_str(&p, 2), "0>4 1>5 4>0 5>1");
	p = parse_ok("bintree", 8);
	ck_assert_uint_eq(vt_pattern_nstages(&p), 3);
	ck_assert_str_eq(stage_str(&p, 0), "1>0 3>2 5>4 7>6");
	ck_assert_str_eq(stage_str(&p, 1), "2>0 6>4");
	ck_assert_str_eq(stage_str(&p, 2), "4>0");
	p = parse_ok("bintree", 6);
	ck_assert_str_eq(stage_str(&p, 1), "2>0");
}
END_TEST

START_TEST(mesh)
{
	vt_pattern p = parse_ok("mesh2d:3x2", 7);
	ck_assert_uint_eq(vt_pattern_nstages(&p), 4);
	ck_assert_str_eq(stage_str(&p, 0), "0>1 1>2 3>4 4>5");
	ck_assert_str_eq(stage_str(&p, 1), "1>0 2>1 4>3 5>4");
	ck_assert_str_eq(stage_str(&p, 2), "0>3 1>4 2>5");
	ck_assert_str_eq(stage_str(&p, 3), "3>0 4>1 5>2");
	p = parse_ok("mesh3d:2x2x2", 8);
	ck_assert_uint_eq(vt_pattern_nstages(&p), 6);
	ck_assert_str_eq(stage_str(&p, 4), "0>4 1>5 2>6 3>7");
	p = parse_ok("mesh2d", 12);
	ck_assert_str_eq(p.name, "mesh2d:4x3");
	p = parse_ok("mesh3d", 64);
	ck_assert_str_eq(p.name, "mesh3d:4x4x4");
	p = parse_ok("mesh3d", 12);
	ck_assert_str_eq(p.name, "mesh3d:3x2x2");
}
END_TEST

START_TEST(wavefront)
{
	vt_pattern p = parse_ok("wavefront2d:3x3", 9);
	/* grid 0 1 2 / 3 4 5 / 6 7 8: diagonals 0 | 1 3 | 2 4 6 | 5 7 | 8 */
	ck_assert_uint_eq(vt_pattern_nstages(&p), 8);
	ck_assert_str_eq(stage_str(&p, 0), "0>1 0>3");
	ck_assert_str_eq(stage_str(&p, 1), "1>2 1>4 3>4 3>6");
	ck_assert_str_eq(stage_str(&p, 3), "5>8 7>8");
	ck_assert_str_eq(stage_str(&p, 4), "8>7 8>5");
	ck_assert_str_eq(stage_str(&p, 5), "5>4 5>2 7>6 7>4");
	ck_assert_str_eq(stage_str(&p, 7), "1>0 3>0");
	p = parse_ok("wavefront3d:2x2x2", 8);
	ck_assert_uint_eq(vt_pattern_nstages(&p), 6);
	ck_assert_str_eq(stage_str(&p, 0), "0>1 0>2 0>4");
	ck_assert_str_eq(stage_str(&p, 5), "1>0 2>0 4>0");
}
END_TEST

static int is_perm_matching(const vt_pattern *p, uint32_t s, uint32_t n)
{
	struct vt_flow *f = malloc(vt_pattern_max_flows(p) * sizeof(*f));
	uint32_t m = vt_pattern_stage(p, s, f), *partner = malloc(n * sizeof(*partner)), ok = 1;

	for (uint32_t i = 0; i < n; i++)
		partner[i] = UINT32_MAX;
	for (uint32_t i = 0; i < m; i++) {
		if (partner[f[i].src] != UINT32_MAX || f[i].src == f[i].dst)
			ok = 0;
		partner[f[i].src] = f[i].dst;
	}
	for (uint32_t i = 0; i < n; i++)
		if (partner[i] != UINT32_MAX && partner[partner[i]] != i)
			ok = 0;
	ok = ok && m == (n & ~1u);
	free(f);
	free(partner);
	return ok;
}

START_TEST(seeded)
{
	vt_pattern p = parse_ok("bisection:seed=7,count=5", 11), q;
	ck_assert_uint_eq(vt_pattern_nstages(&p), 5);
	ck_assert_str_eq(p.name, "bisection:seed=7,count=5");
	for (uint32_t s = 0; s < 5; s++)
		ck_assert(is_perm_matching(&p, s, 11));
	char a[4096];
	strcpy(a, stage_str(&p, 3));
	q = parse_ok("bisection:count=5,seed=7", 11);
	ck_assert_str_eq(stage_str(&q, 3), a); /* seeded: same again */
	ck_assert_str_ne(stage_str(&q, 2), a);
	q = parse_ok("bisection:seed=8,count=5", 11);
	ck_assert_str_ne(stage_str(&q, 3), a);
	p = parse_ok("bisection", 10);
	ck_assert_str_eq(p.name, "bisection:seed=1,count=100");
	p = parse_ok("randperm", 16);
	ck_assert_uint_eq(vt_pattern_nstages(&p), 10);
	struct vt_flow f[16];
	uint32_t m = vt_pattern_stage(&p, 4, f), seen = 0;
	for (uint32_t i = 0; i < m; i++) {
		ck_assert_uint_ne(f[i].src, f[i].dst);
		ck_assert(!(seen & (1u << f[i].dst)));
		seen |= 1u << f[i].dst;
	}
	ck_assert_uint_ge(m, 8);
}
END_TEST

START_TEST(all2all)
{
	vt_pattern p = parse_ok("all2all", 3);
	ck_assert_uint_eq(vt_pattern_nstages(&p), 1);
	ck_assert_uint_eq(vt_pattern_max_flows(&p), 6);
	ck_assert_str_eq(stage_str(&p, 0), "0>1 0>2 1>0 1>2 2>0 2>1");
	struct vt_flow f[4];
	ck_assert_uint_eq(vt_pattern_stage_part(&p, 0, 3, 2, f), 2);
	ck_assert_uint_eq(f[0].src, 1);
	ck_assert_uint_eq(f[0].dst, 2);
	ck_assert_uint_eq(f[1].src, 2);
	ck_assert_uint_eq(f[1].dst, 0);
	ck_assert_uint_eq(vt_pattern_stage_part(&p, 0, 5, 4, f), 1);
	ck_assert_uint_eq(vt_pattern_stage_part(&p, 0, 6, 4, f), 0);
	p = parse_ok("shift:1", 4);
	ck_assert_uint_eq(vt_pattern_stage_part(&p, 0, 2, 4, f), 2);
	ck_assert_uint_eq(f[1].src, 3);
	ck_assert_uint_eq(f[1].dst, 0);
}
END_TEST

static const char *write_tmp(const char *text)
{
	static _Thread_local char path[64];
	strcpy(path, "/tmp/vt-pat-XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	return path;
}

START_TEST(file)
{
	const char *path = write_tmp("# two stages\n0 1\n1 0\n\n\n2 3 # c\n# only a comment\n3 "
				     "2\nstage\n0 3\n");
	char spec[128];
	vt_pattern p;
	vt_err e = {0};

	snprintf(spec, sizeof(spec), "file:%s", path);
	ck_assert_int_eq(vt_pattern_parse(&p, spec, 4, &e), 0);
	ck_assert_uint_eq(vt_pattern_nstages(&p), 3);
	ck_assert_str_eq(stage_str(&p, 0), "0>1 1>0");
	ck_assert_str_eq(stage_str(&p, 1), "2>3 3>2");
	ck_assert_str_eq(stage_str(&p, 2), "0>3");
	vt_pattern_free(&p);
	ck_assert_int_eq(vt_pattern_parse(&p, spec, 3, &e), -1);
	char want[256];
	snprintf(want, sizeof(want), "%s:6: rank 3 out of range (3 ranks)", path);
	ck_assert_str_eq(e.msg, want);
	unlink(path);
	path = write_tmp("0 1\n1 x\n");
	snprintf(spec, sizeof(spec), "file:%s", path);
	ck_assert_int_eq(vt_pattern_parse(&p, spec, 4, &e), -1);
	snprintf(want, sizeof(want), "%s:2: expected 'src dst' ranks, a blank line or 'stage'",
		 path);
	ck_assert_str_eq(e.msg, want);
	unlink(path);
	/* a NUL byte used to end the file there without a word */
	path = write_tmp("0 1\n1 0\n");
	{
		FILE *fp = fopen(path, "a");

		fputs("\n2 3\n", fp);
		fputc('\0', fp);
		fputs("3 2\n", fp);
		fclose(fp);
	}
	snprintf(spec, sizeof(spec), "file:%s", path);
	ck_assert_int_eq(vt_pattern_parse(&p, spec, 4, &e), -1);
	snprintf(want, sizeof(want), "%s:5: NUL byte, not a text file", path);
	ck_assert_str_eq(e.msg, want);
	unlink(path);
}
END_TEST

START_TEST(errors)
{
	vt_pattern p;
	vt_err e = {0};

	ck_assert_int_eq(vt_pattern_parse(&p, "shift:0-3", 8, &e), -1);
	ck_assert_str_eq(e.msg, "pattern 'shift:0-3': shifts must lie in 1 .. 7");
	ck_assert_int_eq(vt_pattern_parse(&p, "mesh2d:4x4", 8, &e), -1);
	ck_assert_str_eq(e.msg, "pattern 'mesh2d:4x4': grid of 16 ranks exceeds the 8 ranks");
	ck_assert_int_eq(vt_pattern_parse(&p, "mesh3d:2x2", 8, &e), -1);
	ck_assert_str_eq(e.msg, "pattern 'mesh3d:2x2': expected grid XxYxZ");
	ck_assert_int_eq(vt_pattern_parse(&p, "torus", 8, &e), -1);
	ck_assert(strstr(e.msg, "pattern 'torus': unknown pattern"));
	ck_assert_int_eq(vt_pattern_parse(&p, "bisection:seed=x", 8, &e), -1);
	ck_assert_str_eq(e.msg, "pattern 'bisection:seed=x': seed must be an unsigned integer");
	ck_assert_int_eq(vt_pattern_parse(&p, "butterfly:2", 8, &e), -1);
	ck_assert_str_eq(e.msg, "pattern 'butterfly:2': takes no arguments");
	ck_assert_int_eq(vt_pattern_parse(&p, "file:/nonexistent/x", 8, &e), -1);
	ck_assert(strstr(e.msg, "/nonexistent/x"));
	/* a newline in the spec used to split the error over two lines */
	ck_assert_int_eq(vt_pattern_parse(&p, "shift\n:9", 8, &e), -1);
	ck_assert_str_eq(e.msg, "pattern 'shift\\x0a:9': control character in the pattern");
}
END_TEST

static Suite *pattern_suite(void)
{
	Suite *s = suite_create("pattern");
	TCase *t = tcase_create("core");

	tcase_add_test(t, shift);
	tcase_add_test(t, butterfly_bintree);
	tcase_add_test(t, mesh);
	tcase_add_test(t, wavefront);
	tcase_add_test(t, seeded);
	tcase_add_test(t, all2all);
	tcase_add_test(t, file);
	tcase_add_test(t, errors);
	suite_add_tcase(s, t);
	return s;
}

VT_TEST_MAIN(pattern_suite)
