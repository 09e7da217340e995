/* SPDX-License-Identifier: MIT */
/* vartree-sim's output: the table, JSON and plots. */
#include "simout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vt_congest.h"
#include "vt_json.h"
#include "vt_heat.h"
#include "vt_plot.h"

/* A link as every link list names it (vt_chan_name): "A -> B", each `"DESC" (0xGUID, lid L)/P`. */
static const char *link_name(const vt_fabric *f, uint32_t port, char *buf, size_t n)
{
	vt_chan_name(f, port, buf, (unsigned)n);
	return buf;
}

/* Strings through jansson: escaped, valid UTF-8 whatever bytes a NodeDesc holds. */
static void json_str(FILE *fp, const char *s)
{
	vt_json_write_text(fp, s);
}

/* A port as vt_json_port() gives it: {"desc", "guid", "lid", "port"}. */
static void json_port(const vt_fabric *f, uint32_t port)
{
	json_t *v = vt_json_port(f, port);
	char *d = v ? json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	fputs(d ? d : "null", stdout);
	free(d);
	json_decref(v);
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
	static const char *const n[] = {"b2b", "barrier", "causal", "burst", "open"};

	return (unsigned)m < sizeof(n) / sizeof(n[0]) ? n[m] : "?";
}

/* Every parameter of the model, so a run can be repeated from its JSON alone. */
static void json_model(const struct opts *o)
{
	const struct vt_sim_params *p = &o->p;
	static const char *const arb[] = {"rr", "random"}, *const rail[] = {"fixed", "random",
									    "least"};
	static const char *const ar[] = {"static", "packet", "flow"}, *const sel[] = {"credits",
										      "queue"};

	printf(" \"model\": {\"preset\": ");
	json_str(stdout, o->preset);
	printf(", \"link_gbps\": ");
	if (p->link_mbps)
		printf("%.3f", (double)p->link_mbps / 1000);
	else if (p->speed != VT_SPEED_UNKNOWN)
		printf("%.3f", 4.0 * vt_speed_lane_mbps(p->speed) / 1000);
	else
		printf("null");
	printf(", \"mtu\": %u, \"header_bytes\": %u, \"credit_bytes\": %u, \"vls\": %u, \"sl\": ",
	       p->mtu, p->header, VT_SIM_CREDIT, p->nvl);
	if (p->sl_spread)
		printf("\"spread\"");
	else
		printf("%u", p->sl);
	printf(", \"buffer_credits\": %u, \"speedup\": %u, \"switch_ns\": %.3f, "
	       "\"cable_ns\": %.3f, \"credit_period_ns\": %.3f, \"gen_gbps\": %.3f, "
	       "\"sink_gbps\": %.3f,\n  \"arbitration\": \"%s\", \"rail\": \"%s\", "
	       "\"adaptive\": \"%s\", \"adaptive_select\": \"%s\", \"flit\": %s, "
	       "\"max_hops\": %llu, \"seed\": %llu},\n",
	       p->buf_credits, p->speedup, (double)p->sw_lat_ps / 1000, (double)p->cable_ps / 1000,
	       (double)p->credit_period_ps / 1000, (double)p->gen_mbps / 1000,
	       (double)p->sink_mbps / 1000, arb[p->arb & 1], rail[p->rail % 3], ar[p->ar % 3],
	       sel[p->ar_select & 1], p->flit ? "true" : "false", (unsigned long long)p->max_hops,
	       (unsigned long long)p->seed);
}

static void json_workload(const struct opts *o, const vt_simwork *w)
{
	printf(" \"work\": {\"name\": ");
	json_str(stdout, w->name);
	printf(", \"mode\": \"%s\", \"ranks\": %u, \"message_bytes\": %u", mode_name(w->mode),
	       w->nranks, w->msg_bytes);
	if (w->mode == VT_WORK_OPEN)
		printf(", \"load\": %.6g, \"duration_us\": %.6g, \"destinations\": \"%s\"", w->load,
		       (double)w->duration_ps / 1e6,
		       w->perm == 2 ? "pair"
		       : w->perm    ? "perm"
				    : "uniform");
	else
		printf(", \"stages\": %u, \"flows\": %llu, \"reps\": %u", w->nstages,
		       (unsigned long long)w->nmsg, o->reps);
	printf("},\n");
}

void simout_json(const struct opts *o, const vt_fabric *f, const vt_simwork *w, struct routing *rt,
		 unsigned nr)
{
	printf("{\"fabric\": ");
	json_str(stdout, f->source);
	printf(", \"workload\": ");
	json_str(stdout, w->name);
	printf(", \"message_bytes\": %u, \"mtu\": %u, \"flit\": %d, \"seed\": %llu,\n",
	       w->msg_bytes, o->p.mtu, o->p.flit, (unsigned long long)o->p.seed);
	json_model(o);
	json_workload(o, w);
	printf(" \"runs\": [");
	for (unsigned k = 0; k < nr; k++) {
		const vt_sim_result *r = &rt[k].r;
		double umax, umean, bmax;

		util_stats(r, &umax, &umean, &bmax);
		printf("%s\n  {\"routing\": ", k ? "," : "");
		json_str(stdout, rt[k].name);
		printf(", \"source\": ");
		json_str(stdout, rt[k].source);
		printf(", \"total_us\": %.4f, \"deadlock\": %s, \"stuck_packets\": %llu, "
		       "\"messages\": %llu, \"messages_done\": %llu, \"bytes_injected\": %llu, "
		       "\"bytes_delivered\": %llu, \"credit_violations\": %llu, \"events\": %llu, "
		       "\"hops\": %llu,\n   \"latency_us\": {\"min\": "
		       "%.4f, "
		       "\"mean\": %.4f, \"p50\": %.4f, \"p99\": %.4f, \"max\": %.4f},\n   "
		       "\"link_util_max\": %.4f, \"link_util_mean\": %.4f, \"blocked_max\": %.4f, "
		       "\"offered\": %.4f, \"accepted\": %.4f,\n   \"stage_end_us\": [",
		       (double)r->end_ps / 1e6, r->deadlock ? "true" : "false",
		       (unsigned long long)r->stuck_pkts, (unsigned long long)r->msgs,
		       (unsigned long long)r->msgs_done, (unsigned long long)r->bytes_injected,
		       (unsigned long long)r->bytes_delivered,
		       (unsigned long long)r->credit_violations, (unsigned long long)r->events,
		       (unsigned long long)r->hops, (double)r->lat_min_ps / 1e6,
		       r->msgs_done ? (double)r->lat_sum_ps / (double)r->msgs_done / 1e6 : 0,
		       (double)vt_sim_lat_quantile(r, 0.5) / 1e6,
		       (double)vt_sim_lat_quantile(r, 0.99) / 1e6, (double)r->lat_max_ps / 1e6,
		       umax, umean, bmax, r->offered_frac, r->accepted_frac);
		for (uint32_t s = 0; s < r->nstages; s++)
			printf("%s%.4f", s ? ", " : "", (double)r->stage_end_ps[s] / 1e6);
		printf("]");
		if (o->links) {

			printf(",\n   \"links\": [");
			for (uint32_t i = 0; i < r->nlinks; i++) {
				const struct vt_sim_link *l = &r->links[i];

				printf("%s\n    {\"from\": ", i ? "," : "");
				json_port(f, l->port);
				printf(", \"to\": ");
				json_port(f, f->ports[l->port].peer);
				printf(", \"util\": %.4f, \"blocked\": %.4f, \"bytes\": %llu}",
				       r->end_ps ? (double)l->busy_ps / (double)r->end_ps : 0,
				       r->end_ps ? (double)l->blocked_ps / (double)r->end_ps : 0,
				       (unsigned long long)l->bytes);
			}
			printf("]");
		}
		printf("}");
	}
	printf("]}\n");
}

void simout_table(const struct opts *o, const vt_fabric *f, const vt_simwork *w, struct routing *rt,
		  unsigned nr)
{
	printf("fabric     %s\nworkload   %s, %u-byte messages, MTU %u%s\n", f->source, w->name,
	       w->msg_bytes, o->p.mtu, o->p.flit ? ", flit-exact" : "");
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
		printf("\n");
	}
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

int simout_plot(const struct opts *o, const vt_fabric *f, struct routing *rt, unsigned nr,
		vt_err *e)
{
	char path[4096];
	uint32_t ns = rt[0].r.nstages;
	struct vt_plot_series ser[MAX_ROUTINGS];
	double *y;
	int rc;

	if (mkdir(o->plot, 0777) && access(o->plot, W_OK))
		return vt_err_set(e, "%s: cannot create directory", o->plot);
	y = calloc((size_t)nr * (ns ? ns : 1), sizeof(double));
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
	rc = 0;
	for (int k = 0; k < 2 && !rc; k++) {
		snprintf(path, sizeof(path), "%s/stage-times.%s", o->plot, k ? "svg" : "png");
		rc = vt_plot_lines(&pl, path, e);
	}
	free(y);
	if (rc)
		return -1;
	/* heat map of the first routing: one row per pair of levels a link joins */
	const vt_sim_result *r = &rt[0].r;
	double *busy = calloc(f->nports ? f->nports : 1, sizeof(double));
	vt_heat hm;

	if (!busy)
		return vt_err_set(e, "out of memory");
	for (uint32_t i = 0; i < r->nlinks; i++)
		busy[r->links[i].port] =
			r->end_ps ? (double)r->links[i].busy_ps / (double)r->end_ps : 0;
	rc = vt_heat_build(&hm, f, busy, e);
	free(busy);
	if (rc)
		return -1;
	hm.plot.title = "link utilisation";
	hm.plot.unit = "busy fraction";
	hm.plot.vmax = 1;
	for (int k = 0; k < 2 && hm.plot.nrows && !rc; k++) {
		snprintf(path, sizeof(path), "%s/link-util.%s", o->plot, k ? "svg" : "png");
		rc = vt_plot_heatmap(&hm.plot, path, e);
	}
	vt_heat_free(&hm);
	return rc;
}
