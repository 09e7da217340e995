/* SPDX-License-Identifier: MIT */
/* One run of a sweep: fabric (cached per worker), vartree's tables, workload, simulation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"
#include "gen/vt_gen.h"
#include "model/vt_pattern.h"
#include "route/vt_route.h"
#include "sim/vt_simwork.h"

struct sweep_cache {
	int have;
	unsigned fabric, fault;
	vt_fabric *f;
	vt_lfts t;
	vt_order o;
	double cost_per_host;
	char err[600]; /* why the fabric could not be built or routed, "" when it could */
};

struct sweep_cache *sweep_cache_new(void)
{
	return calloc(1, sizeof(struct sweep_cache));
}

static void drop(struct sweep_cache *c)
{
	if (c->f && !c->err[0]) {
		vt_lfts_free(&c->t);
		vt_order_free(&c->o);
	}
	vt_fabric_free(c->f);
	c->f = NULL;
	c->have = 0;
	c->err[0] = 0;
}

void sweep_cache_free(struct sweep_cache *c)
{
	if (!c)
		return;
	drop(c);
	free(c);
}

/* The fabric of (fabric, fault), routed by vartree; its cost per host (Navaridas model). */
static void load(const struct sweep_spec *s, struct sweep_cache *c, const struct sweep_at *a)
{
	struct vt_gen_spec g;
	struct vt_route_opts ro = {0};
	struct vt_gen_stats st;
	vt_err e;

	drop(c);
	c->have = 1;
	c->fabric = a->fabric;
	c->fault = a->fault;
	if (vt_gen_parse(&g, s->fabric[a->fabric], &e) ||
	    (strcmp(s->fault[a->fault], "none") && vt_gen_option(&g, s->fault[a->fault], &e)) ||
	    vt_gen_build(&g, &c->f, &e)) {
		snprintf(c->err, sizeof(c->err), "%s", e.msg);
		return;
	}
	if (vt_route(c->f, &ro, &c->t, &c->o, &e)) {
		snprintf(c->err, sizeof(c->err), "%s", e.msg);
		return;
	}
	c->cost_per_host = vt_gen_stats(c->f, &st) ? NAN : st.cost_per_host;
}

static int workload(const struct sweep_spec *s, const struct sweep_at *a, uint32_t nranks,
		    vt_simwork *w, vt_err *e)
{
	const char *pat = s->pattern[a->pattern];
	uint32_t size = s->size[a->size];

	if (!strncmp(pat, "causal:", 7))
		return vt_simwork_navaridas(w, pat + 7, nranks, size, e);
	if (!strncmp(pat, "open:", 5)) {
		int perm = !strcmp(pat + 5, "pair") ? 2 : !strcmp(pat + 5, "perm");

		if (vt_simwork_open(w, nranks, s->load, (uint64_t)(s->duration_us * 1e6), size,
				    perm, s->seed[a->seed], e))
			return -1;
		w->warmup_ps = (uint64_t)(s->warmup_us * 1e6);
		return 0;
	}
	vt_pattern p;

	if (vt_pattern_parse(&p, pat, nranks, e))
		return -1;
	int rc = vt_simwork_pattern(w, &p, size, 1, VT_WORK_B2B, e);

	vt_pattern_free(&p);
	return rc;
}

static void fill(const vt_sim_result *r, double cost, double *out)
{
	out[SF_STATUS] = r->deadlock ? 2 : 0;
	out[SF_TOTAL_US] = (double)r->end_ps / 1e6;
	out[SF_MSGS] = (double)r->msgs;
	out[SF_MSGS_DONE] = (double)r->msgs_done;
	out[SF_BYTES] = (double)r->bytes_delivered;
	out[SF_EVENTS] = (double)r->events;
	out[SF_HOPS] = (double)r->hops;
	out[SF_LAT_MEAN_US] = r->lat_msgs ? (double)r->lat_sum_ps / (double)r->lat_msgs / 1e6 : 0;
	out[SF_LAT_P99_US] = (double)vt_sim_lat_quantile(r, 0.99) / 1e6;
	out[SF_OFFERED] = r->offered_frac;
	out[SF_ACCEPTED] = r->accepted_frac;
	out[SF_COST_PER_HOST] = cost;
}

void sweep_run(const struct sweep_spec *s, struct sweep_cache *c, uint64_t i, double *out)
{
	static const enum vt_sim_ar ars[] = {VT_AR_STATIC, VT_AR_PACKET, VT_AR_FLOW};
	struct sweep_at a;
	struct vt_sim_params p = s->p;
	vt_simwork w;
	vt_sim_result r;
	vt_err e;

	memset(out, 0, SF_N * sizeof(*out));
	out[SF_DONE] = 1;
	out[SF_STATUS] = 1;
	sweep_at(s, i, &a);
	if (!c->have || c->fabric != a.fabric || c->fault != a.fault)
		load(s, c, &a);
	if (c->err[0]) {
		fprintf(stderr, "vartree-sweep: run %llu: %s\n", (unsigned long long)i, c->err);
		return;
	}
	out[SF_HOSTS] = c->o.n;
	p.seed = s->seed[a.seed];
	for (unsigned k = 0; k < 3; k++)
		if (!strcmp(s->routing[a.routing], (const char *[]){"static", "packet", "flow"}[k]))
			p.ar = ars[k];
	if (workload(s, &a, c->o.n, &w, &e)) {
		fprintf(stderr, "vartree-sweep: run %llu: %s\n", (unsigned long long)i, e.msg);
		return;
	}
	if (vt_sim_check_params(&p, &e) || vt_sim_run(c->f, &c->t, &c->o, &w, &p, &r, &e)) {
		fprintf(stderr, "vartree-sweep: run %llu: %s\n", (unsigned long long)i, e.msg);
		vt_simwork_free(&w);
		return;
	}
	fill(&r, c->cost_per_host, out);
	vt_sim_result_free(&r);
	vt_simwork_free(&w);
}
