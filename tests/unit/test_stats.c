/* SPDX-License-Identifier: MIT */
#include "base/vt_stats.h"
#include "vt_test.h"

#include <math.h>

/* Student's t quantiles as printed in every table (two-sided 95 %: p = 0.975) */
START_TEST(t_quantiles)
{
	ck_assert_double_eq_tol(vt_stats_t_quantile(0.975, 1), 12.7062047361747, 1e-9);
	ck_assert_double_eq_tol(vt_stats_t_quantile(0.975, 2), 4.30265272974946, 1e-9);
	ck_assert_double_eq_tol(vt_stats_t_quantile(0.975, 4), 2.77644510519779, 1e-9);
	ck_assert_double_eq_tol(vt_stats_t_quantile(0.975, 9), 2.26215716279820, 1e-9);
	ck_assert_double_eq_tol(vt_stats_t_quantile(0.975, 30), 2.04227245630124, 1e-9);
	ck_assert_double_eq_tol(vt_stats_t_quantile(0.995, 10), 3.16927267261695, 1e-9);
	ck_assert_double_eq_tol(vt_stats_t_quantile(0.025, 4), -2.77644510519779, 1e-9);
	/* large df: the normal quantile */
	ck_assert_double_eq_tol(vt_stats_t_quantile(0.975, 1e7), 1.95996398454005, 1e-6);
	ck_assert_double_eq(vt_stats_t_quantile(0.5, 3), 0);
}
END_TEST

START_TEST(ci_known_inputs)
{
	const double a[] = {1, 2, 3, 4, 5}, b[] = {10.5, 11.25, 9.75}, one[] = {7};
	struct vt_stats_ci ci;

	vt_stats_ci(a, 5, 0.95, &ci);
	ck_assert_uint_eq(ci.n, 5);
	ck_assert_double_eq(ci.mean, 3);
	ck_assert_double_eq_tol(ci.sd, sqrt(2.5), 1e-15);
	/* t(0.975, 4) * sqrt(2.5) / sqrt(5) */
	ck_assert_double_eq_tol(ci.half, 1.9632431614775607, 1e-12);
	vt_stats_ci(b, 3, 0.95, &ci);
	ck_assert_double_eq(ci.mean, 10.5);
	ck_assert_double_eq_tol(ci.sd, 0.75, 1e-15);
	ck_assert_double_eq_tol(ci.half, 1.8631032838127481, 1e-12);
	/* one seed: no interval, not a made-up one */
	vt_stats_ci(one, 1, 0.95, &ci);
	ck_assert_double_eq(ci.mean, 7);
	ck_assert_double_eq(ci.half, 0);
	vt_stats_ci(a, 0, 0.95, &ci);
	ck_assert_uint_eq(ci.n, 0);
	ck_assert_double_eq(ci.mean, 0);
}
END_TEST

/* Navaridas et al. Table 4b: relative sums 35 and 34.17 give phi 1.02, perf/cost-U 4.09 */
START_TEST(phi_navaridas_table4b)
{
	/* fabric 0: 35 experiments of time 2; fabric 1: same times scaled to sum 34.17 */
	double t[70], sum[2], phi[2], pc[2];
	const double cost[] = {4080, 1023};

	for (int x = 0; x < 35; x++) {
		t[x] = 2;
		t[35 + x] = 2 * (x < 34 ? 1.0 : 34.17 - 34);
	}
	vt_stats_phi(t, 2, 35, NULL, cost, sum, phi, pc);
	ck_assert_double_eq_tol(sum[0], 35, 1e-12);
	ck_assert_double_eq_tol(sum[1], 34.17, 1e-12);
	ck_assert_double_eq_tol(phi[0], 1, 1e-15);
	ck_assert_double_eq_tol(phi[1], 35 / 34.17, 1e-12);
	ck_assert_int_eq((int)lround(phi[1] * 100), 102);
	ck_assert_int_eq((int)lround(pc[1] * 100), 409);
	ck_assert_double_eq(pc[0], 1);
}
END_TEST

/* weights: Table 5b keeps only the 100 KB experiments (w = 1 for 7 of 35) */
START_TEST(phi_weights)
{
	const double t[] = {10, 20, 4, /* reference */ 15, 20, 2};
	const double w[] = {1, 0, 2};
	double sum[2], phi[2];

	vt_stats_phi(t, 2, 3, w, NULL, sum, phi, NULL);
	ck_assert_double_eq_tol(sum[0], 3, 1e-15);
	ck_assert_double_eq_tol(sum[1], 1.5 + 2 * 0.5, 1e-15);
	ck_assert_double_eq_tol(phi[1], 3 / 2.5, 1e-15);
}
END_TEST

static Suite *stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, t_quantiles);
	tcase_add_test(tc, ci_known_inputs);
	tcase_add_test(tc, phi_navaridas_table4b);
	tcase_add_test(tc, phi_weights);
	suite_add_tcase(s, tc);
	return s;
}

VT_TEST_MAIN(stats_suite)
