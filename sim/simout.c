/* SPDX-License-Identifier: MIT */
/* vartree-sim's output: the table, JSON and plots. */
#include "simout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "simjobs.h"
#include "analysis/vt_congest.h"
#include "out/vt_json.h"
#include "out/vt_heat.h"
#include "out/vt_plot.h"
#include "tree/vt_tree.h"

/* A link as every link list names it (vt_chan_name): "A -> B", each `"DESC" (0xGUID, lid L)/P`. */
static const char *link_name(const vt_fabric *f, uint32_t port, char *buf, size_t n)
{
	vt_chan_name(f, port, buf, (unsigned)n);
	return buf;
}

static void util_stats(const vt_sim_result *r, double *umax, double *umean, double *bmax)
{
	double s = 0;
	uint32_t n = 0;

	*umax = *umean = *bmax = 0;
	for (uint32_t i = 0; i < r->nlinks; i++) {
		double u = r->end_ps ? (double)r->links[i].busy_ps / (double)r->end_ps : 0;
		double b = r->end_ps ? (double)r->links[i].blocked_ps / (double)r->end_ps : 0;

		if (u > *umax)
			*umax = u;
		if (b > *bmax)
			*bmax = b;
		s += u;
		n++;
	}
	*umean = n ? s / n : 0;
}

static const char *mode_name(enum vt_simwork_mode m)
{
	static const char *const n[] = {"b2b", "barrier", "causal", "burst", "open", "program"};

	return (unsigned)m < sizeof(n) / sizeof(n[0]) ? n[m] : "?";
}

/* Every parameter of the model, so a run can be repeated from its JSON alone. */
static json_t *json_model(const struct opts *o)
{
	const struct vt_sim_params *p = &o->p;
	static const char *const arb[] = {"rr", "random"}, *const rail[] = {"fixed", "random",
									    "least"};
	static const char *const ar[] = {"static", "packet", "flow"}, *const sel[] = {"credits",
										      "queue"};
	json_t *m = json_object();

	vt_json_set(m, "preset", vt_json_text(o->preset));
	vt_json_set(m, "link_gbps",
		    p->link_mbps ? vt_json_real((double)p->link_mbps / 1000, 3)
		    : p->speed != VT_SPEED_UNKNOWN
			    ? vt_json_real(4.0 * vt_speed_lane_mbps(p->speed) / 1000, 3)
			    : json_null());
	vt_json_set(m, "mtu", json_integer(p->mtu));
	vt_json_set(m, "header_bytes", json_integer(p->header));
	vt_json_set(m, "pad_bytes", json_integer(p->pad));
	vt_json_set(m, "credit_bytes", json_integer(VT_SIM_CREDIT));
	vt_json_set(m, "vls", json_integer(p->nvl));
	vt_json_set(m, "sl", p->sl_spread ? json_string("spread") : json_integer(p->sl));
	vt_json_set(m, "buffer_credits", json_integer(p->buf_credits));
	vt_json_set(m, "speedup", json_integer(p->speedup));
	vt_json_set(m, "switch_ns", vt_json_real((double)p->sw_lat_ps / 1000, 3));
	vt_json_set(m, "cable_ns", vt_json_real((double)p->cable_ps / 1000, 3));
	vt_json_set(m, "credit_period_ns", vt_json_real((double)p->credit_period_ps / 1000, 3));
	vt_json_set(m, "gen_gbps", vt_json_real((double)p->gen_mbps / 1000, 3));
	vt_json_set(m, "sink_gbps", vt_json_real((double)p->sink_mbps / 1000, 3));
	vt_json_set(m, "arbitration", json_string(arb[p->arb & 1]));
	vt_json_set(m, "rail", json_string(rail[p->rail % 3]));
	vt_json_set(m, "rail_choice",
		    json_string(p->rail_choice == VT_RAIL_PER_PACKET ? "packet" : "message"));
	vt_json_set(m, "adaptive", json_string(ar[p->ar % 3]));
	vt_json_set(m, "adaptive_select", json_string(sel[p->ar_select & 1]));
	vt_json_set(m, "flit", json_boolean(p->flit));
	vt_json_set(m, "max_hops", vt_json_u64(p->max_hops));
	vt_json_set(m, "seed", vt_json_u64(p->seed));
	return m;
}

static json_t *json_workload(const struct opts *o, const vt_simwork *w)
{
	json_t *j = json_object();

	vt_json_set(j, "name", vt_json_text(w->name));
	vt_json_set(j, "mode", json_string(mode_name(w->mode)));
	vt_json_set(j, "ranks", json_integer(w->nranks));
	vt_json_set(j, "message_bytes", json_integer(w->msg_bytes));
	if (w->mode == VT_WORK_OPEN) {
		vt_json_set(j, "load", vt_json_real(w->load, 6));
		vt_json_set(j, "duration_us", vt_json_real((double)w->duration_ps / 1e6, 6));
		vt_json_set(j, "destinations",
			    json_string(w->perm == 2 ? "pair"
					: w->perm    ? "perm"
						     : "uniform"));
		if (w->warmup_ps)
			vt_json_set(j, "warmup_us", vt_json_real((double)w->warmup_ps / 1e6, 6));
	} else {
		vt_json_set(j, "stages", json_integer(w->nstages));
		vt_json_set(j, "flows", vt_json_u64(w->nmsg));
		vt_json_set(j, "reps", json_integer(o->reps));
	}
	if (o->trace)
		vt_json_set(j, "trace", vt_json_text(o->trace));
	if (o->trace || o->njobs)
		vt_json_set(j, "trace_compute", json_boolean(o->trace_compute));
	return j;
}

/* Microseconds from picoseconds, four decimals as the table has three. */
static json_t *json_us(double ps)
{
	return vt_json_real(ps / 1e6, 4);
}

static json_t *json_links(const vt_fabric *f, const vt_sim_result *r)
{
	json_t *a = json_array();
	double end = (double)r->end_ps;

	for (uint32_t i = 0; i < r->nlinks; i++) {
		const struct vt_sim_link *l = &r->links[i];
		json_t *j = json_object();

		vt_json_set(j, "from", vt_json_port(f, l->port));
		vt_json_set(j, "to", vt_json_port(f, f->ports[l->port].peer));
		vt_json_set(j, "util", vt_json_real(end ? (double)l->busy_ps / end : 0, 4));
		vt_json_set(j, "blocked", vt_json_real(end ? (double)l->blocked_ps / end : 0, 4));
		vt_json_set(j, "bytes", vt_json_u64(l->bytes));
		json_array_append_new(a, j);
	}
	return a;
}

static json_t *json_run(const struct opts *o, const vt_fabric *f, const struct routing *rt)
{
	const vt_sim_result *r = &rt->r;
	json_t *j = json_object(), *lat = json_object(), *stages = json_array();
	double umax, umean, bmax;

	util_stats(r, &umax, &umean, &bmax);
	vt_json_set(j, "routing", vt_json_text(rt->name));
	vt_json_set(j, "source", vt_json_text(rt->source));
	vt_json_set(j, "total_us", json_us((double)r->end_ps));
	vt_json_set(j, "deadlock", json_boolean(r->deadlock));
	vt_json_set(j, "stuck_packets", vt_json_u64(r->stuck_pkts));
	vt_json_set(j, "messages", vt_json_u64(r->msgs));
	vt_json_set(j, "messages_done", vt_json_u64(r->msgs_done));
	vt_json_set(j, "bytes_injected", vt_json_u64(r->bytes_injected));
	vt_json_set(j, "bytes_delivered", vt_json_u64(r->bytes_delivered));
	vt_json_set(j, "credit_violations", vt_json_u64(r->credit_violations));
	vt_json_set(j, "events", vt_json_u64(r->events));
	vt_json_set(j, "hops", vt_json_u64(r->hops));
	vt_json_set(lat, "min", json_us((double)r->lat_min_ps));
	vt_json_set(lat, "mean",
		    json_us(r->lat_msgs ? (double)r->lat_sum_ps / (double)r->lat_msgs : 0));
	vt_json_set(lat, "p50", json_us((double)vt_sim_lat_quantile(r, 0.5)));
	vt_json_set(lat, "p99", json_us((double)vt_sim_lat_quantile(r, 0.99)));
	vt_json_set(lat, "max", json_us((double)r->lat_max_ps));
	vt_json_set(j, "latency_us", lat);
	vt_json_set(j, "link_util_max", vt_json_real(umax, 4));
	vt_json_set(j, "link_util_mean", vt_json_real(umean, 4));
	vt_json_set(j, "blocked_max", vt_json_real(bmax, 4));
	vt_json_set(j, "offered", vt_json_real(r->offered_frac, 4));
	vt_json_set(j, "accepted", vt_json_real(r->accepted_frac, 4));
	for (uint32_t s = 0; s < r->nstages; s++)
		json_array_append_new(stages, json_us((double)r->stage_end_ps[s]));
	vt_json_set(j, "stage_end_us", stages);
	if (o->links)
		vt_json_set(j, "links", json_links(f, r));
	if (rt->seed_total)
		vt_json_set(j, "over_seeds", simseeds_json(o, rt));
	if (o->jobs) {
		simjobs_json(o->jobs, f, rt, j);
	} else {
		vt_json_set(j, "bytes_local", vt_json_u64(r->bytes_local));
		vt_json_set(j, "messages_local", vt_json_u64(r->msgs_local));
	}
	return j;
}

int simout_json(const struct opts *o, const vt_fabric *f, const vt_simwork *w, struct routing *rt,
		unsigned nr, vt_err *e)
{
	json_t *top = json_object(), *runs = json_array();

	vt_json_set(top, "fabric", vt_json_text(f->source));
	vt_json_set(top, "workload", vt_json_text(w->name));
	vt_json_set(top, "message_bytes", json_integer(w->msg_bytes));
	vt_json_set(top, "mtu", json_integer(o->p.mtu));
	vt_json_set(top, "flit", json_integer(o->p.flit));
	vt_json_set(top, "seed", vt_json_u64(o->p.seed));
	vt_json_set(top, "model", json_model(o));
	vt_json_set(top, "work", json_workload(o, w));
	for (unsigned k = 0; k < nr; k++)
		json_array_append_new(runs, json_run(o, f, &rt[k]));
	vt_json_set(top, "runs", runs);
	return vt_json_dump(top, stdout, e);
}

void simout_table(const struct opts *o, const vt_fabric *f, const vt_simwork *w, struct routing *rt,
		  unsigned nr)
{
	if (o->jobs || o->trace) /* their messages carry their own sizes */
		printf("fabric     %s\nworkload   %s, MTU %u%s\n", f->source, w->name, o->p.mtu,
		       o->p.flit ? ", flit-exact" : "");
	else
		printf("fabric     %s\nworkload   %s, %u-byte messages, MTU %u%s\n", f->source,
		       w->name, w->msg_bytes, o->p.mtu, o->p.flit ? ", flit-exact" : "");
	printf("%-28s %12s %10s %10s %10s %8s %8s %9s\n", "routing", "total us", "lat p50",
	       "lat p99", "lat max", "util max", "blk max", "ratio");
	for (unsigned k = 0; k < nr; k++) {
		const vt_sim_result *r = &rt[k].r;
		double umax, umean, bmax;

		util_stats(r, &umax, &umean, &bmax);
		printf("%-28.28s %12.3f %10.3f %10.3f %10.3f %8.3f %8.3f %9.3f%s\n", rt[k].name,
		       (double)r->end_ps / 1e6, (double)vt_sim_lat_quantile(r, 0.5) / 1e6,
		       (double)vt_sim_lat_quantile(r, 0.99) / 1e6, (double)r->lat_max_ps / 1e6,
		       umax, bmax, rt[0].r.end_ps ? (double)r->end_ps / (double)rt[0].r.end_ps : 0,
		       r->deadlock ? "  DEADLOCK" : "");
	}
	for (unsigned k = 0; k < nr; k++) {
		const vt_sim_result *r = &rt[k].r;

		printf("%s: %llu/%llu messages, %llu bytes delivered of %llu, %llu events "
		       "(%llu hops)",
		       rt[k].name, (unsigned long long)r->msgs_done, (unsigned long long)r->msgs,
		       (unsigned long long)r->bytes_delivered,
		       (unsigned long long)r->bytes_injected, (unsigned long long)r->events,
		       (unsigned long long)r->hops);
		if (w->mode == VT_WORK_OPEN)
			printf(", offered %.3f accepted %.3f", r->offered_frac, r->accepted_frac);
		if (r->deadlock)
			printf(", deadlock with %llu packets stuck",
			       (unsigned long long)r->stuck_pkts);
		if (o->jobs)
			printf(", %llu local messages of %llu bytes",
			       (unsigned long long)r->msgs_local,
			       (unsigned long long)r->bytes_local);
		printf("\n");
		/* a rank's messages to itself never enter the fabric: said apart */
		if (!o->jobs && r->msgs_local)
			printf("%s: %llu local messages (a rank to itself) of %llu bytes, "
			       "not in the fabric\n",
			       rt[k].name, (unsigned long long)r->msgs_local,
			       (unsigned long long)r->bytes_local);
		if (o->trace && !r->msgs) /* a trace of one rank, or of barriers of one member */
			printf("%s: no message: the trace's MPI calls move no data\n", rt[k].name);
		if (rt[k].seed_total)
			simseeds_table(o, &rt[k]);
	}
	for (unsigned k = 0; o->jobs && k < nr; k++)
		simjobs_table(o->jobs, f, &rt[k]);
	if (o->links) {
		char buf[2 * VT_PORT_NAME_MAX + 8];

		/* the link last and whole: names are long and split at their last '/' */
		printf("%8s %8s %12s  %s\n", "util", "blocked", "bytes", "link");
		for (uint32_t i = 0; i < rt[0].r.nlinks; i++) {
			const struct vt_sim_link *l = &rt[0].r.links[i];
			double end = (double)rt[0].r.end_ps;

			printf("%8.3f %8.3f %12llu  %s\n", end ? (double)l->busy_ps / end : 0,
			       end ? (double)l->blocked_ps / end : 0, (unsigned long long)l->bytes,
			       link_name(f, l->port, buf, sizeof(buf)));
		}
	}
}

/* stage-times.FMT: each routing's per-stage completion time as one line */
static int plot_stage_times(const struct opts *o, const struct routing *rt, unsigned nr,
			    const char *const *fmts, unsigned nfmt, vt_err *e)
{
	char path[4096];
	uint32_t ns = rt[0].r.nstages;
	struct vt_plot_series ser[MAX_ROUTINGS];
	double *y = calloc((size_t)nr * (ns ? ns : 1), sizeof(double));
	int rc = 0;

	if (!y)
		return vt_err_set(e, "out of memory");
	for (unsigned k = 0; k < nr; k++) {
		uint64_t prev = 0;

		for (uint32_t s = 0; s < ns && s < rt[k].r.nstages; s++) {
			/* a stage's time: from the previous stage's end to its own */
			uint64_t end = rt[k].r.stage_end_ps[s];

			y[k * ns + s] = end > prev ? (double)(end - prev) / 1e6 : 0;
			if (end > prev)
				prev = end;
		}
		/* vt_plot dashes a series equal to an earlier one and says so in the legend */
		ser[k].name = rt[k].name;
		ser[k].y = y + k * ns;
	}
	struct vt_plot_lines pl = {
		.title = "per-stage completion time",
		.xlabel = "stage",
		.ylabel = "stage time (us)",
		.npoints = ns,
		.series = ser,
		.nseries = nr,
		.step = 1,
	};
	for (unsigned k = 0; k < nfmt && !rc; k++) {
		snprintf(path, sizeof(path), "%s/stage-times.%s", o->plot, fmts[k]);
		rc = vt_plot_lines(&pl, path, e);
	}
	free(y);
	return rc ? -1 : 0;
}

/* link-util.FMT: heat map of the first routing, one row per pair of levels a link joins */
static int plot_link_util(const struct opts *o, const vt_fabric *f, const struct routing *rt,
			  unsigned nr, const char *const *fmts, unsigned nfmt, vt_err *e)
{
	char path[4096];
	const vt_sim_result *r = &rt[0].r;
	double *busy = calloc(f->nports ? f->nports : 1, sizeof(double));
	vt_heat hm;
	int rc;

	if (!busy)
		return vt_err_set(e, "out of memory");
	for (uint32_t i = 0; i < r->nlinks; i++)
		busy[r->links[i].port] =
			r->end_ps ? (double)r->links[i].busy_ps / (double)r->end_ps : 0;
	/* rows by the extracted tree's levels; by hops from the CAs when it is refused */
	vt_tree tree;
	int have_tree = !vt_tree_build(&tree, f, &(struct vt_tree_opts){0}, &(vt_err){0});

	rc = vt_heat_build(&hm, f, have_tree ? &tree : NULL, busy, e);
	if (have_tree)
		vt_tree_free(&tree);
	free(busy);
	if (rc)
		return -1;
	/* the map shows the first routing only: say which */
	char title[600];
	const char *src = strcmp(rt[0].name, rt[0].source) ? rt[0].source : NULL;

	snprintf(title, sizeof(title), "link utilisation under %s%s%s%s", rt[0].name,
		 src ? " (" : "", src ? src : "", src ? ")" : "");
	if (nr > 1)
		snprintf(title + strlen(title), sizeof(title) - strlen(title),
			 ", the first of %u routings", nr);
	hm.plot.title = title;
	hm.plot.unit = "busy fraction";
	hm.plot.vmax = 1;
	for (unsigned k = 0; k < nfmt && hm.plot.nrows && !rc; k++) {
		snprintf(path, sizeof(path), "%s/link-util.%s", o->plot, fmts[k]);
		rc = vt_plot_heatmap(&hm.plot, path, e);
	}
	vt_heat_free(&hm);
	return rc;
}

int simout_plot(const struct opts *o, const vt_fabric *f, struct routing *rt, unsigned nr,
		vt_err *e)
{
	/* without --plot-format both PNG and SVG, as before there was a choice */
	const char *const both[] = {"png", "svg"}, *const *fmts =
							   o->plot_format ? &o->plot_format : both;
	unsigned nfmt = o->plot_format ? 1 : 2;

	if (mkdir(o->plot, 0777) && access(o->plot, W_OK))
		return vt_err_set(e, "%s: cannot create directory", o->plot);
	if (plot_stage_times(o, rt, nr, fmts, nfmt, e))
		return -1;
	return plot_link_util(o, f, rt, nr, fmts, nfmt, e);
}
