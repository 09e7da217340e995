/* SPDX-License-Identifier: MIT */
/* Student's t intervals and Navaridas et al.'s phi (see vt_stats.h). */
#include "base/vt_stats.h"

#include <math.h>

/* Continued fraction of the incomplete beta function (modified Lentz). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (int m = 1; m <= 300; m++) {
		for (int odd = 0; odd < 2; odd++) {
			double num =
				odd ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
				    : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));

			d = 1 + num * d;
			d = 1 / (fabs(d) < tiny ? tiny : d);
			c = 1 + num / c;
			if (fabs(c) < tiny)
				c = tiny;
			h *= d * c;
		}
		if (fabs(d * c - 1) < 1e-15)
			break;
	}
	return h;
}

/* Regularised incomplete beta I_x(a, b). */
static double ibeta(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double lf = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);

	/* the fraction converges fast on the side of the mean; use symmetry on the other */
	if (x < (a + 1) / (a + b + 2))
		return exp(lf) * beta_cf(a, b, x) / a;
	return 1 - exp(lf) * beta_cf(b, a, 1 - x) / b;
}

/* P(T <= t) for Student's t with df degrees of freedom. */
static double t_cdf(double t, double df)
{
	double tail = 0.5 * ibeta(df / 2, 0.5, df / (df + t * t));

	return t >= 0 ? 1 - tail : tail;
}

double vt_stats_t_quantile(double p, double df)
{
	double lo = -1, hi = 1;

	if (p == 0.5)
		return 0;
	while (t_cdf(lo, df) > p)
		lo *= 2;
	while (t_cdf(hi, df) < p)
		hi *= 2;
	/* the CDF is monotone: bisection to the last bit */
	for (int i = 0; i < 200 && hi - lo > 1e-13 * (1 + fabs(lo)); i++) {
		double mid = (lo + hi) / 2;

		if (t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void vt_stats_ci(const double *x, size_t n, double conf, struct vt_stats_ci *ci)
{
	double sum = 0, ss = 0;

	ci->n = n;
	ci->mean = ci->sd = ci->half = 0;
	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	ci->mean = sum / (double)n;
	if (n < 2)
		return;
	/* two passes: the deviations are summed exactly enough for seeds' spreads */
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - ci->mean) * (x[i] - ci->mean);
	ci->sd = sqrt(ss / (double)(n - 1));
	ci->half = vt_stats_t_quantile(0.5 + conf / 2, (double)(n - 1)) * ci->sd / sqrt((double)n);
}

void vt_stats_phi(const double *time, size_t nfab, size_t nexp, const double *weight,
		  const double *cost, double *sum, double *phi, double *perf_cost)
{
	for (size_t f = 0; f < nfab; f++) {
		sum[f] = 0;
		for (size_t x = 0; x < nexp; x++) {
			double ref = time[x], w = weight ? weight[x] : 1;

			sum[f] += w * (ref > 0 ? time[f * nexp + x] / ref : 1);
		}
	}
	for (size_t f = 0; f < nfab; f++) {
		phi[f] = sum[f] > 0 ? sum[0] / sum[f] : 0;
		if (cost && perf_cost)
			perf_cost[f] = cost[f] > 0 && cost[0] > 0 ? phi[f] * cost[0] / cost[f] : 0;
	}
}
