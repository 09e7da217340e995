/* SPDX-License-Identifier: MIT */
/* vartree-sim --seeds: one routing run under several seeds, mean and Student's t interval. */
#include <stdio.h>
#include <stdlib.h>

#include "simout.h"
#include "cli/vt_cli.h"
#include "out/vt_json.h"
#include "base/vt_stats.h"

static void keep(struct routing *r, unsigned i, const vt_sim_result *res)
{
	r->seed_total->v[i] = (double)res->end_ps / 1e6;
	r->seed_acc->v[i] = res->accepted_frac;
	r->seed_lat->v[i] =
		res->lat_msgs ? (double)res->lat_sum_ps / (double)res->lat_msgs / 1e6 : 0;
}

int simseeds_run(const struct opts *o, const vt_fabric *f, const vt_order *ord, const vt_simwork *w,
		 struct routing *r)
{
	int deadlock = 0;

	r->seed_total = malloc(sizeof(*r->seed_total));
	r->seed_acc = malloc(sizeof(*r->seed_acc));
	r->seed_lat = malloc(sizeof(*r->seed_lat));
	if (!r->seed_total || !r->seed_acc || !r->seed_lat)
		vt_cli_die("vartree-sim", VT_EXIT_USAGE, "out of memory");
	keep(r, 0, &r->r);
	for (unsigned i = 1; i < o->nseeds; i++) {
		struct vt_sim_params p = o->p;
		vt_simwork ws = *w; /* read-only arrays shared; only the recorded seed differs */
		vt_sim_result res;
		vt_err e;

		p.seed = ws.seed = o->seeds[i];
		p.progress = NULL;
		if (vt_sim_run(f, &r->t, ord, &ws, &p, &res, &e))
			vt_cli_die("vartree-sim", VT_EXIT_CHECK, "%s: seed %llu: %s", r->source,
				   (unsigned long long)o->seeds[i], e.msg);
		if (res.deadlock) {
			fprintf(stderr, "vartree-sim: %s: seed %llu: credit deadlock\n", r->name,
				(unsigned long long)o->seeds[i]);
			deadlock = 1;
		}
		keep(r, i, &res);
		vt_sim_result_free(&res);
	}
	return deadlock;
}

void simseeds_free(struct routing *r)
{
	free(r->seed_total);
	free(r->seed_acc);
	free(r->seed_lat);
}

static json_t *json_fig(const struct seedfig *fig, unsigned n)
{
	struct vt_stats_ci ci;
	json_t *j = json_object(), *v = json_array();

	vt_stats_ci(fig->v, n, 0.95, &ci);
	vt_json_set(j, "mean", vt_json_real(ci.mean, 6));
	vt_json_set(j, "sd", vt_json_real(ci.sd, 6));
	vt_json_set(j, "ci95", vt_json_real(ci.half, 6));
	for (unsigned i = 0; i < n; i++)
		json_array_append_new(v, vt_json_real(fig->v[i], 6));
	vt_json_set(j, "values", v);
	return j;
}

json_t *simseeds_json(const struct opts *o, const struct routing *r)
{
	json_t *j = json_object(), *seeds = json_array();

	for (unsigned i = 0; i < o->nseeds; i++)
		json_array_append_new(seeds, vt_json_u64(o->seeds[i]));
	vt_json_set(j, "seeds", seeds);
	vt_json_set(j, "total_us", json_fig(r->seed_total, o->nseeds));
	if (o->open)
		vt_json_set(j, "accepted", json_fig(r->seed_acc, o->nseeds));
	vt_json_set(j, "latency_mean_us", json_fig(r->seed_lat, o->nseeds));
	return j;
}

static void table_fig(const char *name, const struct seedfig *fig, unsigned n)
{
	struct vt_stats_ci ci;

	vt_stats_ci(fig->v, n, 0.95, &ci);
	printf(", %s %.6g +- %.3g", name, ci.mean, ci.half);
}

void simseeds_table(const struct opts *o, const struct routing *r)
{
	printf("%s: over %u seeds (mean +- 95 %% interval, Student's t)", r->name, o->nseeds);
	table_fig("total us", r->seed_total, o->nseeds);
	if (o->open)
		table_fig("accepted", r->seed_acc, o->nseeds);
	table_fig("mean latency us", r->seed_lat, o->nseeds);
	printf("\n");
}
