/* SPDX-License-Identifier: MIT */
/*
 * Statistics a simulation study reports: the mean of a figure over seeds
 * with a Student's t confidence interval, and Navaridas et al.'s
 * performance indicator phi and performance per cost over a set of runs.
 */
#ifndef VT_STATS_H
#define VT_STATS_H

#include <stddef.h>

/* Quantile p (0 < p < 1) of Student's t distribution with df > 0 degrees of freedom. */
double vt_stats_t_quantile(double p, double df);

struct vt_stats_ci {
	size_t n;
	double mean;
	double sd;   /* sample standard deviation (n - 1); 0 when n < 2 */
	double half; /* half width of the two-sided interval; 0 when n < 2 */
};

/* Mean of x[0 .. n-1] and the two-sided confidence interval at level conf (e.g. 0.95). */
void vt_stats_ci(const double *x, size_t n, double conf, struct vt_stats_ci *ci);

/*
 * Navaridas et al. 5.2-5.3 over nfab fabrics and nexp experiments (pattern x
 * size): time[f * nexp + x] is fabric f's time in experiment x; fabric 0 is
 * the reference. Relative times T = time / reference time, weighted sum
 * sum[f] = sum over x of weight[x] * T (weight NULL: all 1), normalised
 * phi[f] = sum[0] / sum[f], and perf_cost[f] = phi[f] / (cost[f] / cost[0])
 * (cost per host; cost NULL: perf_cost left alone). Experiments where the
 * reference time is 0 count as relative time 1.
 */
void vt_stats_phi(const double *time, size_t nfab, size_t nexp, const double *weight,
		  const double *cost, double *sum, double *phi, double *perf_cost);

#endif
