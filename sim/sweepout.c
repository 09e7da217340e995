/* SPDX-License-Identifier: MIT */
/* vartree-sweep's outputs: CSV rows, JSON with intervals over seeds and phi, plots. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"
#include "base/vt_io.h"
#include "out/vt_json.h"
#include "out/vt_plot.h"
#include "base/vt_stats.h"

static const char *const field_names[SF_N] = {"done",		"status",	 "total_us",
					      "messages",	"messages_done", "bytes_delivered",
					      "events",		"hops",		 "latency_mean_us",
					      "latency_p99_us", "offered",	 "accepted",
					      "hosts",		"cost_per_host"};
static const int field_decimals[SF_N] = {0, 0, 4, 0, 0, 0, 0, 0, 4, 4, 4, 4, 0, 2};

static void csv_text(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

static const char *status_name(double st)
{
	return st == 0 ? "ok" : st == 2 ? "deadlock" : "failed";
}

static void csv_rows(const struct sweep_spec *s, const double *res, FILE *fp)
{
	fprintf(fp, "run,fabric,fault,routing,pattern,size,seed,status");
	for (int k = SF_TOTAL_US; k < SF_N; k++)
		fprintf(fp, ",%s", field_names[k]);
	fputc('\n', fp);
	for (uint64_t i = 0; i < sweep_nruns(s); i++) {
		const double *r = res + i * SF_N;
		struct sweep_at a;

		sweep_at(s, i, &a);
		fprintf(fp, "%llu,", (unsigned long long)i);
		csv_text(fp, s->fabric[a.fabric]);
		fprintf(fp, ",%s,%s,", s->fault[a.fault], s->routing[a.routing]);
		csv_text(fp, s->pattern[a.pattern]);
		fprintf(fp, ",%u,%llu,%s", s->size[a.size], (unsigned long long)s->seed[a.seed],
			status_name(r[SF_STATUS]));
		/* JSON's rounding rule (vt_json_round), so the CSV and JSON figures agree */
		for (int k = SF_TOTAL_US; k < SF_N; k++)
			fprintf(fp, ",%.*f", field_decimals[k],
				vt_json_round(r[k], field_decimals[k]));
		fputc('\n', fp);
	}
}

int sweep_write_csv(const struct sweep_spec *s, const double *res, const char *path, vt_err *e)
{
	vt_out out;

	if (vt_out_open(&out, path, e))
		return -1;
	csv_rows(s, res, out.fp);
	return vt_out_commit(&out, e);
}

static json_t *real_or_null(double x, int dec)
{
	return isfinite(x) ? vt_json_real(x, dec) : json_null();
}

/* The coordinates of run i, for JSON objects. */
static void set_at(json_t *j, const struct sweep_spec *s, const struct sweep_at *a, int with_seed)
{
	vt_json_set(j, "fabric", vt_json_text(s->fabric[a->fabric]));
	vt_json_set(j, "fault", vt_json_text(s->fault[a->fault]));
	vt_json_set(j, "routing", vt_json_text(s->routing[a->routing]));
	vt_json_set(j, "pattern", vt_json_text(s->pattern[a->pattern]));
	vt_json_set(j, "size", json_integer(s->size[a->size]));
	if (with_seed)
		vt_json_set(j, "seed", vt_json_u64(s->seed[a->seed]));
}

static json_t *json_runs(const struct sweep_spec *s, const double *res)
{
	json_t *runs = json_array();

	for (uint64_t i = 0; i < sweep_nruns(s); i++) {
		const double *r = res + i * SF_N;
		json_t *j = json_object();
		struct sweep_at a;

		sweep_at(s, i, &a);
		vt_json_set(j, "run", vt_json_u64(i));
		set_at(j, s, &a, 1);
		vt_json_set(j, "status", json_string(status_name(r[SF_STATUS])));
		for (int k = SF_TOTAL_US; k < SF_N; k++)
			vt_json_set(j, field_names[k], real_or_null(r[k], field_decimals[k]));
		json_array_append_new(runs, j);
	}
	return runs;
}

/* Mean and interval over the seeds of configuration c (runs c*nseed ..) of field k; ok runs. */
static void over_seeds(const struct sweep_spec *s, const double *res, uint64_t c, int k,
		       struct vt_stats_ci *ci)
{
	double v[SWEEP_MAX] = {0};
	size_t n = 0;

	for (unsigned d = 0; d < s->nseed; d++) {
		const double *r = res + (c * s->nseed + d) * SF_N;

		if (r[SF_STATUS] == 0)
			v[n++] = r[k];
	}
	vt_stats_ci(v, n, 0.95, ci);
	if (!n)
		ci->mean = NAN;
}

static json_t *json_ci(const struct vt_stats_ci *ci, int dec)
{
	json_t *j = json_object();

	vt_json_set(j, "mean", real_or_null(ci->mean, dec + 2));
	vt_json_set(j, "sd", vt_json_real(ci->sd, dec + 2));
	vt_json_set(j, "ci95", vt_json_real(ci->half, dec + 2));
	return j;
}

static json_t *json_summary(const struct sweep_spec *s, const double *res)
{
	static const int ks[] = {SF_TOTAL_US, SF_ACCEPTED, SF_LAT_MEAN_US};
	json_t *sum = json_array();
	uint64_t nconf = sweep_nruns(s) / s->nseed;

	for (uint64_t c = 0; c < nconf; c++) {
		json_t *j = json_object();
		struct sweep_at a;
		struct vt_stats_ci ci;

		sweep_at(s, c * s->nseed, &a);
		set_at(j, s, &a, 0);
		for (unsigned k = 0; k < 3; k++) {
			over_seeds(s, res, c, ks[k], &ci);
			if (k == 0)
				vt_json_set(j, "seeds_ok", json_integer((json_int_t)ci.n));
			vt_json_set(j, field_names[ks[k]], json_ci(&ci, field_decimals[ks[k]]));
		}
		json_array_append_new(sum, j);
	}
	return sum;
}

/*
 * Navaridas et al.'s phi: networks are fabric x fault x routing, experiments
 * pattern x size, times the mean total time over the seeds, the first network
 * the reference, cost the Navaridas cost per host of the whole fabric.
 */
static json_t *json_phi(const struct sweep_spec *s, const double *res)
{
	size_t nnet = (size_t)s->nfabric * s->nfault * s->nrouting;
	size_t nexp = (size_t)s->npattern * s->nsize;
	double *t = calloc(nnet * nexp + 4 * nnet, sizeof(double));
	json_t *nets = json_array();

	if (!t)
		return nets;
	double *cost = t + nnet * nexp, *sum = cost + nnet, *phi = sum + nnet, *pc = phi + nnet;

	for (size_t n = 0; n < nnet; n++)
		for (size_t x = 0; x < nexp; x++) {
			struct vt_stats_ci ci;

			over_seeds(s, res, n * nexp + x, SF_TOTAL_US, &ci);
			t[n * nexp + x] = ci.mean;
			cost[n] = res[(n * nexp + x) * s->nseed * SF_N + SF_COST_PER_HOST];
		}
	vt_stats_phi(t, nnet, nexp, NULL, cost, sum, phi, pc);
	for (size_t n = 0; n < nnet; n++) {
		json_t *j = json_object();
		struct sweep_at a;

		sweep_at(s, n * nexp * s->nseed, &a);
		vt_json_set(j, "fabric", vt_json_text(s->fabric[a.fabric]));
		vt_json_set(j, "fault", vt_json_text(s->fault[a.fault]));
		vt_json_set(j, "routing", vt_json_text(s->routing[a.routing]));
		vt_json_set(j, "relative_time_sum", real_or_null(sum[n], 4));
		vt_json_set(j, "phi", real_or_null(phi[n], 4));
		vt_json_set(j, "cost_per_host", real_or_null(cost[n], 2));
		vt_json_set(j, "perf_per_cost", real_or_null(pc[n], 4));
		json_array_append_new(nets, j);
	}
	free(t);
	return nets;
}

int sweep_write_json(const struct sweep_spec *s, const double *res, const char *path, vt_err *e)
{
	json_t *top = json_object();
	vt_out out;

	vt_json_set(top, "preset", json_string(s->preset));
	vt_json_set(top, "runs", json_runs(s, res));
	vt_json_set(top, "summary", json_summary(s, res));
	vt_json_set(top, "phi", json_phi(s, res));
	if (vt_out_open(&out, path, e)) {
		json_decref(top);
		return -1;
	}
	if (vt_json_dump(top, out.fp, e)) {
		vt_out_abort(&out);
		return -1;
	}
	return vt_out_commit(&out, e);
}

/* One chart per pattern: mean total time per size, a series per fabric x fault x routing. */
int sweep_plot(const struct sweep_spec *s, const double *res, const char *dir, const char *fmt,
	       vt_err *e)
{
	size_t nnet = (size_t)s->nfabric * s->nfault * s->nrouting;
	size_t nexp = (size_t)s->npattern * s->nsize;
	double *y = calloc(nnet * s->nsize, sizeof(double));
	struct vt_plot_series *ser = calloc(nnet, sizeof(*ser));
	char(*names)[200] = calloc(nnet, sizeof(*names));
	int rc = 0;

	if (!y || !ser || !names)
		rc = vt_err_set(e, "out of memory");
	for (unsigned pat = 0; !rc && pat < s->npattern; pat++) {
		char path[1024], title[300], xl[300];

		for (size_t n = 0; n < nnet; n++) {
			struct sweep_at a;

			for (unsigned z = 0; z < s->nsize; z++) {
				struct vt_stats_ci ci;

				over_seeds(s, res, n * nexp + (uint64_t)pat * s->nsize + z,
					   SF_TOTAL_US, &ci);
				y[n * s->nsize + z] = isfinite(ci.mean) ? ci.mean : 0;
			}
			sweep_at(s, n * nexp * s->nseed, &a);
			snprintf(names[n], sizeof(names[n]), "%s%s%s, %s", s->fabric[a.fabric],
				 strcmp(s->fault[a.fault], "none") ? " " : "",
				 strcmp(s->fault[a.fault], "none") ? s->fault[a.fault] : "",
				 s->routing[a.routing]);
			ser[n] = (struct vt_plot_series){names[n], y + n * s->nsize};
		}
		snprintf(title, sizeof(title), "%s: mean total time over %u seed%s",
			 s->pattern[pat], s->nseed, s->nseed > 1 ? "s" : "");
		snprintf(xl, sizeof(xl), "message size (index into sizes: %u B first, %u B last)",
			 s->size[0], s->size[s->nsize - 1]);
		snprintf(path, sizeof(path), "%s/sweep-pattern%u.%s", dir, pat + 1, fmt);
		struct vt_plot_lines p = {title,	  xl, "total time (us)", s->nsize, ser,
					  (uint32_t)nnet, 0};
		rc = vt_plot_lines(&p, path, e);
	}
	free(y);
	free(ser);
	free(names);
	return rc;
}
