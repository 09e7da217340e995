/* SPDX-License-Identifier: MIT */
/* vartree-analyze: static congestion of communication patterns under forwarding tables. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/vt_audit.h"
#include "analysis/vt_bound.h"
#include "cli/vt_cli.h"
#include "analysis/vt_congest.h"
#include "model/vt_fabric.h"
#include "base/vt_io.h"
#include "out/vt_json.h"
#include "model/vt_lft.h"
#include "io/vt_lftio.h"
#include "io/vt_namemap.h"
#include "io/vt_live.h"
#include "io/vt_load.h"
#include "model/vt_order.h"
#include "model/vt_pattern.h"
#include "out/vt_heat.h"
#include "out/vt_plot.h"
#include "route/vt_route.h"
#include "tree/vt_tree.h"
#include "out/vt_svg.h"

#define PROG	     "vartree-analyze"
#define MAX_PATTERNS 64
#define MAX_THRESH   64

/* long options only: values past every letter ('V' is -V, the version) */
enum { OPT_SVG = VT_OPT_VERSION + 1, OPT_HOT, OPT_VL_SPLIT };

static const char usage[] =
	"usage: " PROG
	" TOPOLOGY [-l|--lfts FILE | --route vartree | --live] [-p|--pattern SPEC]...\n"
	"       [-C|--Ca CA] [-P|--Port PORT]  (--live: the local CA and its port)\n"
	"       [--order FILE | --order-random SEED] [--json] [--compare A B] [--lmc N]\n"
	"       [--plot DIR] [--plot-format png|svg|pdf] [--label NAME]...\n"
	"       [--svg FILE] [--hot N]\n"
	"       [--max-worst PATTERN=N]... [--top N] [--threads N] [--method M]\n"
	"       [--stage-limit N] [--node-name-map FILE] [--all-sources [--vl-split]] [--timing]\n"
	"       [-q|--quiet] [-h|--help] [-V|--version]\n"
	"Counts the per-link congestion of communication patterns under forwarding tables\n"
	"and audits the tables. Patterns: shift[:A-B], butterfly, mesh2d[:XxY], mesh3d[:XxYxZ],\n"
	"wavefront2d[:XxY], wavefront3d[:XxYxZ], bintree, bisection[:seed=S,count=C],\n"
	"randperm[:seed=S,count=C], all2all, file:PATH (default: shift).\n"
	"Exit status: 0 ok, 1 a threshold missed or an audit failed, 2 usage or input error.\n"
	"See vartree-analyze(1).\n";

struct opts {
	const char *topo, *lfts, *route, *order, *plot, *plot_ext, *cmp[2], *name_map, *svg;
	const char *label[2]; /* --label: names of the routings, in order */
	unsigned nlabel;
	int live, json, quiet, have_seed, all_sources, vl_split, timing;
	struct vt_cli_live local; /* --live: -C CA -P PORT */
	uint64_t order_seed;
	const char *patterns[MAX_PATTERNS];
	unsigned npatterns;
	const char *th_name[MAX_THRESH];
	uint32_t th_val[MAX_THRESH];
	unsigned nth;
	unsigned top, threads, hot;
	int lmc; /* --lmc, -1: the fabric file's, else the one the tables show */
	uint32_t stage_limit;
	enum vt_congest_method method;
	struct timespec t0; /* start of the run, for progress notes */
};

/* One routing under analysis: its tables, order and results per pattern. */
struct routing {
	const char *name;
	vt_lfts lfts;
	vt_order order;
	vt_routes routes;
	vt_cuts cuts;
	vt_audit audit;
	vt_vl_split vl; /* routes on VL 1 (--all-sources: vartree's own, or --vl-split) */
	vt_pattern pat[MAX_PATTERNS];
	vt_congest res[MAX_PATTERNS];
	double secs[MAX_PATTERNS]; /* counting time per pattern */
	unsigned npat;
};

struct progress {
	int on, shown; /* on: not --quiet and stderr a terminal */
	double last;
	struct timespec start;
	const char *what;
};

static double since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct progress *p = ctx;

	double t = since(&p->start);

	if (!p->on || t < 1.0 || (t - p->last < 0.5 && done < total))
		return;
	p->last = t;
	fprintf(stderr, "\r" PROG ": %s: %3u%%", p->what,
		(unsigned)(total ? done * 100 / total : 100));
	p->shown = 1;
}

/* Long runs (past a second) say on stderr which step they finished. */
static void note(const struct opts *o, const char *what)
{
	double t = since(&o->t0);

	if (!o->quiet && t >= 1.0)
		fprintf(stderr, PROG ": %s (%.1f s)\n", what, t);
}

/* "--max-worst PATTERN=N": the threshold, checked after the run. */
static void max_worst(const struct vt_cli *cli, struct opts *o, const char *arg)
{
	const char *eq = strrchr(arg, '=');
	char *name;

	if (!eq || eq == arg)
		vt_cli_die(PROG, VT_EXIT_USAGE, "--max-worst: '%s' is not PATTERN=N", arg);
	if (o->nth == MAX_THRESH)
		vt_cli_usage(cli, "more than %d --max-worst options", MAX_THRESH);
	o->th_val[o->nth] = (uint32_t)vt_cli_uint(cli, "--max-worst", eq + 1, 0, UINT32_MAX);
	name = strndup(arg, (size_t)(eq - arg));
	if (!name)
		vt_cli_die(PROG, VT_EXIT_USAGE, "out of memory");
	o->th_name[o->nth++] = name;
}

/* What the options must agree on, once all are read; the topology operand is taken here. */
static void check_args(const struct vt_cli *cli, struct opts *o)
{
	if (optind < cli->argc)
		o->topo = cli->argv[optind++];
	if (optind < cli->argc)
		vt_cli_usage(cli, "unexpected argument '%s'", cli->argv[optind]);
	if (!o->topo && !o->live)
		vt_cli_usage(cli, "no topology given");
	if (!!o->lfts + !!o->route + !!o->live + !!o->cmp[0] != 1)
		vt_cli_usage(
			cli,
			"give exactly one of --lfts FILE, --route vartree, --live, --compare A B");
	vt_cli_exclusive(cli, !!o->order + o->have_seed, "--order and --order-random");
	vt_cli_exclusive(cli, o->live + (o->lmc >= 0), "--lmc and --live"); /* the SM's LIDs */
	if (o->nlabel > (o->cmp[0] ? 2u : 1u))
		vt_cli_usage(cli, "more --label options than routings");
	vt_cli_needs(cli, !!o->plot_ext, "--plot-format", !!o->plot, "--plot DIR");
	vt_cli_needs(cli, o->timing, "--timing", o->json, "--json");
	vt_cli_needs(cli, o->vl_split, "--vl-split", o->all_sources, "--all-sources");
	vt_cli_needs(cli, o->hot > 0, "--hot", !!o->svg, "--svg FILE");
	vt_cli_live_check(cli, &o->local, o->live);
	if (!o->plot_ext)
		o->plot_ext = "png";
	if (!o->npatterns)
		o->patterns[o->npatterns++] = "shift";
	for (unsigned i = 0; i < o->nth; i++) {
		unsigned k = 0;

		while (k < o->npatterns && strcmp(o->th_name[i], o->patterns[k]))
			k++;
		if (k == o->npatterns)
			vt_cli_usage(cli, "--max-worst %s: no such --pattern", o->th_name[i]);
	}
}

/* An option of the analysis itself (counting, output); 0 if c is none of them. */
static int analysis_opt(const struct vt_cli *cli, struct opts *o, int c)
{
	static const char *const methods[] = {"auto", "walk", "interval", "naive", NULL};
	static const enum vt_congest_method method_of[] = {VT_CONGEST_AUTO, VT_CONGEST_WALK,
							   VT_CONGEST_INTERVAL, VT_CONGEST_NAIVE};
	static const char *const formats[] = {"png", "svg", "pdf", NULL};

	switch (c) {
	case 'p':
		if (o->npatterns == MAX_PATTERNS)
			vt_cli_usage(cli, "more than %d --pattern options", MAX_PATTERNS);
		o->patterns[o->npatterns++] = optarg;
		break;
	case 'F':
		o->plot_ext = formats[vt_cli_choice(cli, "--plot-format", optarg, formats)];
		break;
	case 'm':
		max_worst(cli, o, optarg);
		break;
	case 't':
		o->top = (unsigned)vt_cli_uint(cli, "--top", optarg, 0, UINT32_MAX);
		break;
	case 'T':
		o->threads = (unsigned)vt_cli_uint(cli, "--threads", optarg, 1, 64);
		break;
	case 'M':
		o->method = method_of[vt_cli_choice(cli, "--method", optarg, methods)];
		break;
	case 'S':
		o->stage_limit = (uint32_t)vt_cli_uint(cli, "--stage-limit", optarg, 1, UINT32_MAX);
		break;
	case 'E':
		o->lmc = (int)vt_cli_uint(cli, "--lmc", optarg, 0, 7);
		break;
	case OPT_SVG:
		o->svg = optarg;
		break;
	case OPT_HOT:
		o->hot = (unsigned)vt_cli_uint(cli, "--hot", optarg, 1, UINT32_MAX);
		break;
	default:
		return 0;
	}
	return 1;
}

static const struct option long_opts[] = {
	{"lfts", required_argument, 0, 'l'},
	{"route", required_argument, 0, 'r'},
	{"live", no_argument, 0, 'L'},
	{"pattern", required_argument, 0, 'p'},
	{"order", required_argument, 0, 'o'},
	{"order-random", required_argument, 0, 'R'},
	{"json", no_argument, 0, 'j'},
	{"plot", required_argument, 0, 'D'},
	{"plot-format", required_argument, 0, 'F'},
	{"label", required_argument, 0, 'B'},
	{"compare", required_argument, 0, 'c'},
	{"max-worst", required_argument, 0, 'm'},
	{"top", required_argument, 0, 't'},
	{"threads", required_argument, 0, 'T'},
	{"method", required_argument, 0, 'M'},
	{"quiet", no_argument, 0, 'q'},
	{"help", no_argument, 0, 'h'},
	{"version", no_argument, 0, VT_OPT_VERSION},
	{"stage-limit", required_argument, 0, 'S'},
	{"lmc", required_argument, 0, 'E'},
	{"node-name-map", required_argument, 0, 'N'},
	{"all-sources", no_argument, 0, 'A'},
	{"vl-split", no_argument, 0, OPT_VL_SPLIT},
	{"timing", no_argument, 0, 'W'},
	{"svg", required_argument, 0, OPT_SVG},
	{"hot", required_argument, 0, OPT_HOT},
	VT_CLI_LIVE_OPTIONS,
	{0, 0, 0, 0},
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	struct vt_cli cli;
	int c;

	o->top = 5;
	o->threads = 2;
	o->lmc = -1;
	vt_cli_init(&cli, PROG, usage, "qhl:p:C:P:", long_opts, argc, argv);
	while ((c = vt_cli_next(&cli)) != -1) {
		if (analysis_opt(&cli, o, c) || vt_cli_live_opt(&cli, c, &o->local))
			continue;
		switch (c) {
		case 'l':
			o->lfts = optarg;
			break;
		case 'r':
			if (strcmp(optarg, "vartree"))
				vt_cli_die(PROG, VT_EXIT_USAGE,
					   "--route: '%s': only 'vartree' is built in", optarg);
			o->route = optarg;
			break;
		case 'L':
			o->live = 1;
			break;
		case 'o':
			o->order = optarg;
			break;
		case 'R':
			o->order_seed = vt_cli_uint(&cli, "--order-random", optarg, 0, UINT64_MAX);
			o->have_seed = 1;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'D':
			o->plot = optarg;
			break;
		case 'B':
			if (o->nlabel == 2)
				vt_cli_usage(&cli, "--label: at most one per routing (2)");
			o->label[o->nlabel++] = optarg;
			break;
		case 'c':
			if (optind >= argc)
				vt_cli_usage(&cli, "--compare needs two LFT files: --compare A B");
			o->cmp[0] = optarg;
			o->cmp[1] = argv[optind++];
			break;
		case 'N':
			o->name_map = optarg;
			break;
		case 'A':
			o->all_sources = 1;
			break;
		case OPT_VL_SPLIT:
			o->vl_split = 1;
			break;
		case 'W':
			o->timing = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		}
	}
	check_args(&cli, o);
}

static void progress_start(struct progress *p, const char *what)
{
	p->what = what;
	p->shown = 0;
	p->last = 0;
	clock_gettime(CLOCK_MONOTONIC, &p->start);
}

static void progress_end(struct progress *p)
{
	if (p->shown)
		fprintf(stderr, "\r" PROG ": %s: done in %.1f s\n", p->what, since(&p->start));
}

static int analyze(const struct opts *o, const vt_fabric *f, const vt_tree *tree, struct routing *r,
		   vt_err *e)
{
	/* progress is for a person watching: logs and pipes get the result only */
	struct progress pr = {.on = !o->quiet && isatty(STDERR_FILENO)};
	struct vt_congest_opts co = {.threads = o->threads,
				     .method = o->method,
				     .stage_limit = o->stage_limit,
				     .progress = on_progress,
				     .progress_ctx = &pr};

	struct vt_audit_opts ao = {.threads = o->threads > 1 ? 2 : 1,
				   .every_source = o->all_sources,
				   .vl = r->vl.bits ? &r->vl : NULL};

	if (vt_audit_run_opts(f, &r->lfts, &ao, &r->audit, e))
		return -1;
	note(o, "audited the tables");
	if (vt_routes_build(&r->routes, f, &r->lfts, &r->order, e))
		return -1;
	note(o, "built the routes");
	if (tree ? vt_cuts_tree(&r->cuts, &r->routes, tree, e)
		 : vt_cuts_leaf(&r->cuts, &r->routes, e))
		return -1;
	co.cuts = &r->cuts;
	for (unsigned i = 0; i < o->npatterns; i++) {
		if (vt_pattern_parse(&r->pat[i], o->patterns[i], r->order.n, e))
			return -1;
		r->npat = i + 1;
		progress_start(&pr, r->pat[i].name);
		if (vt_congest_run(&r->routes, &r->pat[i], &co, &r->res[i], e))
			return -1;
		r->secs[i] = since(&pr.start);
		progress_end(&pr);
	}
	return 0;
}

static void routing_free(struct routing *r)
{
	for (unsigned i = 0; i < r->npat; i++) {
		vt_pattern_free(&r->pat[i]);
		vt_congest_free(&r->res[i]);
	}
	vt_cuts_free(&r->cuts);
	vt_vl_split_free(&r->vl);
	vt_routes_free(&r->routes);
	vt_order_free(&r->order);
	vt_lfts_free(&r->lfts);
}

static uint32_t active_ranks(const vt_order *o)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < o->n; i++)
		n += o->port[i] != VT_NONE;
	return n;
}

/* ---- people's output */

/* The routes on VL 1, when some are: how many, from how many switches, the first. */
static void print_vl1(FILE *fp, const vt_fabric *f, const struct routing *r)
{
	const vt_vl_split *v = &r->vl;
	char n[VT_NODE_NAME_MAX];

	if (!v->nvl1)
		return;
	for (uint32_t sw = 0; sw < v->nsw; sw++)
		for (uint32_t lid = 1; lid < v->nlid; lid++)
			if (vt_vl_split_get(v, sw, lid)) {
				fprintf(fp,
					"audit: VL 1: %" PRIu64 " routes from %u switches that are "
					"not leaves, audited apart (first: %s to LID %u); every "
					"other route on VL 0\n",
					v->nvl1, v->nsrc,
					vt_node_name(f, f->switches[sw], n, sizeof(n)), lid);
				return;
			}
}

static void print_audit(FILE *fp, const vt_fabric *f, const struct routing *r)
{
	if (!vt_audit_failed(&r->audit))
		fprintf(fp, "audit: ok (no unreachable destination, loop, misdelivery "
			    "or credit loop)\n");
	for (int k = 0; k < VT_AUDIT_NKINDS; k++) {
		const struct vt_audit_item *it = &r->audit.item[k];
		if (it->count)
			fprintf(fp, "audit: %s: %" PRIu64 " (first: %s)\n",
				vt_audit_name((enum vt_audit_kind)k), it->count, it->detail);
	}
}

/* Loads past this many are shown as this many equal ranges (a line, not 130 KB). */
#define HIST_RANGES 16

/* The histogram of link loads: per load, or per range of loads where there are many. */
static void print_hist(FILE *fp, const char *tag, const vt_congest *c)
{
	uint32_t w =
		c->worst / HIST_RANGES + 1; /* loads per range: 1 while the worst is under 16 */

	fprintf(fp, "\n%s%s: link loads (link-stages per load):", tag, c->pattern);
	for (uint32_t a = 0; a <= c->worst; a += w) {
		uint32_t b = c->worst - a < w ? c->worst : a + w - 1;
		uint64_t n = 0;

		for (uint32_t l = a; l <= b; l++)
			n += c->hist[l];
		if (a == b)
			fprintf(fp, " %u:%" PRIu64, a, n);
		else
			fprintf(fp, " %u-%u:%" PRIu64, a, b, n);
	}
	fputc('\n', fp);
}

static void print_table(FILE *fp, const struct opts *o, const vt_fabric *f, struct routing *rs,
			unsigned nr)
{
	fprintf(fp, "fabric: %s: %u CA ports, %u switches\n", f->source, vt_fabric_count_cas(f),
		f->nswitches);
	for (unsigned k = 0; k < nr; k++) {
		fprintf(fp, "routing%s%s: %s, %u ranks (%u hosts)\n", nr > 1 ? " " : "",
			nr > 1 ? (k ? "B" : "A") : "", rs[k].name, rs[k].order.n,
			active_ranks(&rs[k].order));
		print_audit(fp, f, &rs[k]);
		print_vl1(fp, f, &rs[k]);
	}
	if (nr == 1) {
		fprintf(fp, "%-28s %7s %12s %6s %8s %6s %8s %8s\n", "pattern", "stages", "flows",
			"worst", "avg", "bound", "bnd-avg", "ebb");
		for (unsigned i = 0; i < rs[0].npat; i++) {
			const vt_congest *c = &rs[0].res[i];
			char ebb[32] = "-";
			if (c->has_ebb)
				snprintf(ebb, sizeof(ebb), "%.4f", c->ebb);
			fprintf(fp, "%-28s %7u %12" PRIu64 " %6u %8.2f %6u %8.2f %8s\n", c->pattern,
				c->nstages, c->nflows, c->worst, c->avg, c->bound_worst,
				c->bound_avg, ebb);
			if (c->unrouted)
				fprintf(fp, "  %" PRIu64 " flows unrouted (not counted)\n",
					c->unrouted);
		}
	} else {
		fprintf(fp, "%-28s %7s %9s %9s %9s %9s %6s\n", "pattern", "stages", "A-worst",
			"A-avg", "B-worst", "B-avg", "bound");
		for (unsigned i = 0; i < rs[0].npat; i++) {
			const vt_congest *a = &rs[0].res[i], *b = &rs[1].res[i];
			fprintf(fp, "%-28s %7u %9u %9.2f %9u %9.2f %6u\n", a->pattern, a->nstages,
				a->worst, a->avg, b->worst, b->avg, a->bound_worst);
		}
	}
	for (unsigned k = 0; k < nr; k++)
		for (unsigned i = 0; i < rs[k].npat; i++) {
			const vt_congest *c = &rs[k].res[i];
			const char *tag = nr > 1 ? (k ? "B " : "A ") : "";
			if (!o->quiet)
				print_hist(fp, tag, c);
			if (!o->top)
				continue;
			uint32_t *top = malloc((size_t)o->top * sizeof(*top));
			if (!top)
				continue;
			uint32_t m = vt_congest_top(&rs[k].routes, c, o->top, top);
			fprintf(fp,
				"%s%s: most loaded links (max load, load summed over stages):\n",
				tag, c->pattern);
			for (uint32_t j = 0; j < m; j++) {
				char name[600];
				vt_chan_name(f, top[j], name, sizeof(name));
				fprintf(fp, "  %6u %10" PRIu64 "  %s\n", c->chan_max[top[j]],
					c->chan_sum[top[j]], name);
			}
			free(top);
		}
}

/* ---- JSON (jansson: keys in insertion order, strings valid UTF-8 whatever a NodeDesc holds) */

static const char *method_name(enum vt_congest_method m)
{
	return m == VT_CONGEST_INTERVAL ? "interval" : m == VT_CONGEST_NAIVE ? "naive" : "walk";
}

static json_t *json_audit(const vt_fabric *f, const vt_audit *a)
{
	json_t *o = json_object();

	for (int k = 0; k < VT_AUDIT_NKINDS; k++) {
		const struct vt_audit_item *it = &a->item[k];
		json_t *j = json_object();

		vt_json_set(j, "count", vt_json_u64(it->count));
		if (it->count) {
			vt_json_set(j, "switch", vt_json_node(f, f->switches[it->sw]));
			vt_json_set(j, "lid", json_integer(it->lid));
			vt_json_set(j, "detail", vt_json_text(it->detail));
		}
		vt_json_set(o, vt_audit_name((enum vt_audit_kind)k), j);
	}
	return o;
}

static json_t *json_top_links(const struct opts *o, const vt_fabric *f, const struct routing *r,
			      const vt_congest *c)
{
	json_t *a = json_array();
	uint32_t *top = o->top ? malloc((size_t)o->top * sizeof(*top)) : NULL;
	uint32_t m = top ? vt_congest_top(&r->routes, c, o->top, top) : 0;

	for (uint32_t j = 0; j < m; j++) {
		json_t *l = json_object();

		vt_json_set(l, "from", vt_json_port(f, top[j]));
		vt_json_set(l, "to", vt_json_port(f, f->ports[top[j]].peer));
		vt_json_set(l, "max", json_integer(c->chan_max[top[j]]));
		vt_json_set(l, "sum", vt_json_u64(c->chan_sum[top[j]]));
		json_array_append_new(a, l);
	}
	free(top);
	return a;
}

static json_t *json_pattern(const struct opts *o, const vt_fabric *f, const struct routing *r,
			    unsigned i)
{
	const vt_congest *c = &r->res[i];
	json_t *p = json_object(), *smax = json_array(), *sbound = json_array(),
	       *hist = json_array();

	vt_json_set(p, "pattern", vt_json_text(c->pattern));
	vt_json_set(p, "stages", json_integer(c->nstages));
	vt_json_set(p, "flows", vt_json_u64(c->nflows));
	vt_json_set(p, "unrouted", vt_json_u64(c->unrouted));
	vt_json_set(p, "worst", json_integer(c->worst));
	vt_json_set(p, "avg", vt_json_real(c->avg, 6));
	vt_json_set(p, "bound_worst", json_integer(c->bound_worst));
	vt_json_set(p, "bound_avg", vt_json_real(c->bound_avg, 6));
	vt_json_set(p, "ebb", c->has_ebb ? vt_json_real(c->ebb, 6) : json_null());
	vt_json_set(p, "method", json_string(method_name(c->method)));
	if (o->timing) /* wall-clock: only when asked, the rest is deterministic */
		vt_json_set(p, "seconds", vt_json_real(r->secs[i], 3));
	for (uint32_t s = 0; s < c->nstages; s++) {
		json_array_append_new(smax, json_integer(c->stage_max[s]));
		json_array_append_new(sbound, json_integer(c->stage_bound[s]));
	}
	for (uint32_t l = 0; l <= c->worst; l++)
		json_array_append_new(hist, vt_json_u64(c->hist[l]));
	vt_json_set(p, "stage_max", smax);
	vt_json_set(p, "stage_bound", sbound);
	vt_json_set(p, "histogram", hist);
	vt_json_set(p, "top_links", json_top_links(o, f, r, c));
	return p;
}

static int print_json(FILE *fp, const struct opts *o, const vt_fabric *f, struct routing *rs,
		      unsigned nr, vt_err *e)
{
	json_t *top = json_object(), *routings = json_array();

	vt_json_set(top, "fabric", vt_json_text(f->source));
	vt_json_set(top, "ca_ports", json_integer(vt_fabric_count_cas(f)));
	vt_json_set(top, "switches", json_integer(f->nswitches));
	for (unsigned k = 0; k < nr; k++) {
		const struct routing *r = &rs[k];
		json_t *rj = json_object(), *pats = json_array();

		vt_json_set(rj, "name", vt_json_text(r->name));
		vt_json_set(rj, "ranks", json_integer(r->order.n));
		vt_json_set(rj, "hosts", json_integer(active_ranks(&r->order)));
		vt_json_set(rj, "audit", json_audit(f, &r->audit));
		if (r->vl.bits)
			vt_json_set(rj, "vl1_routes", vt_json_u64(r->vl.nvl1));
		for (unsigned i = 0; i < r->npat; i++)
			json_array_append_new(pats, json_pattern(o, f, r, i));
		vt_json_set(rj, "patterns", pats);
		json_array_append_new(routings, rj);
	}
	vt_json_set(top, "routings", routings);
	return vt_json_dump(top, fp, e);
}

/* ---- plots */

/* A file-name part from a pattern or routing name: letters and digits, '_' for the rest. */
static void file_part(char *out, size_t n, const char *name)
{
	size_t l = 0;

	for (const char *s = name; *s && l + 1 < n; s++)
		out[l++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
					   (*s >= '0' && *s <= '9')
				   ? *s
				   : '_';
	out[l] = 0;
}

/* A routing's name on a plot: its --label, else the file name without directories. */
static const char *plot_name(const struct routing *r)
{
	const char *slash = strrchr(r->name, '/');

	return slash && slash[1] ? slash + 1 : r->name;
}

/* PATTERN-stages.EXT: each routing's max link load per stage beside the cut bound. */
static int plot_stages(const struct opts *o, struct routing *rs, unsigned nr, unsigned i, vt_err *e)
{
	const vt_congest *c0 = &rs[0].res[i];
	struct vt_plot_series ser[3];
	double *y[3] = {0};
	char path[4096], file[160], title[300];
	int rc = 0;

	for (unsigned k = 0; k < nr + 1 && !rc; k++) {
		const vt_congest *c = &rs[k < nr ? k : 0].res[i];

		y[k] = malloc(((size_t)c->nstages + 1) * sizeof(double));
		if (!y[k]) {
			rc = vt_err_set(e, "out of memory");
			break;
		}
		for (uint32_t s = 0; s < c->nstages; s++)
			y[k][s] = k < nr ? c->stage_max[s] : c->stage_bound[s];
		ser[k].name = k < nr ? plot_name(&rs[k]) : "cut lower bound";
		ser[k].y = y[k];
	}
	file_part(file, sizeof(file), c0->pattern);
	snprintf(path, sizeof(path), "%s/%s-stages.%s", o->plot, file, o->plot_ext);
	snprintf(title, sizeof(title), "%s: max link load per stage", c0->pattern);
	struct vt_plot_lines pl = {.title = title,
				   .xlabel = "stage",
				   .ylabel = "max link load (flows)",
				   .npoints = c0->nstages,
				   .series = ser,
				   .nseries = nr + 1,
				   .step = 1};
	if (!rc)
		rc = vt_plot_lines(&pl, path, e);
	for (unsigned k = 0; k < 3; k++)
		free(y[k]);
	return rc ? -1 : 0;
}

/* PATTERN-links-ROUTING.EXT: each link's max load over the stages, a strip per level pair. */
static int plot_links(const struct opts *o, const vt_fabric *f, const vt_tree *tree,
		      const struct routing *r, unsigned i, vt_err *e)
{
	const vt_congest *c = &r->res[i];
	double *v = malloc((f->nports ? f->nports : 1) * sizeof(double));
	char path[4096], file[160], rname[160], title[400];
	vt_heat h;

	if (!v)
		return vt_err_set(e, "out of memory");
	for (uint32_t p = 0; p < f->nports; p++)
		v[p] = c->chan_max[p];
	int rc = vt_heat_build(&h, f, tree, v, e);
	free(v);
	if (rc)
		return -1;
	file_part(file, sizeof(file), c->pattern);
	file_part(rname, sizeof(rname), plot_name(r));
	snprintf(path, sizeof(path), "%s/%s-links-%s.%s", o->plot, file, rname, o->plot_ext);
	snprintf(title, sizeof(title), "%s under %s: max load per link over the stages", c->pattern,
		 plot_name(r));
	h.plot.title = title;
	h.plot.unit = "max link load (flows)";
	rc = h.plot.nrows ? vt_plot_heatmap(&h.plot, path, e) : 0;
	vt_heat_free(&h);
	return rc;
}

static int plot_all(const struct opts *o, const vt_fabric *f, const vt_tree *tree,
		    struct routing *rs, unsigned nr, vt_err *e)
{
	if (mkdir(o->plot, 0777) && errno != EEXIST)
		return vt_err_set(e, "%s: %s", o->plot, strerror(errno));
	for (unsigned i = 0; i < rs[0].npat; i++) {
		if (plot_stages(o, rs, nr, i, e))
			return -1;
		for (unsigned k = 0; k < nr; k++)
			if (plot_links(o, f, tree, &rs[k], i, e))
				return -1;
	}
	return 0;
}

/* --svg: the tree drawn with the first routing's loads under the first pattern. */
static int draw_svg(const struct opts *o, const vt_fabric *f, const vt_tree *tree,
		    const struct routing *r, vt_err *e)
{
	const vt_congest *c = &r->res[0];
	double *v = malloc((f->nports ? f->nports : 1) * sizeof(double));
	char title[400];
	int rc;

	if (!v)
		return vt_err_set(e, "out of memory");
	for (uint32_t p = 0; p < f->nports; p++)
		v[p] = c->chan_max[p];
	snprintf(title, sizeof(title), "%s under %s: max load per link over the %u stages",
		 c->pattern, plot_name(r), c->nstages);
	rc = vt_svg_tree(f, tree, v,
			 &(struct vt_svg_opts){
				 .title = title, .unit = "max link load (flows)", .hot = o->hot},
			 o->svg, NULL, e);
	free(v);
	return rc;
}

/* ---- main */

static int load_routing(const struct opts *o, vt_fabric *f, const char *lftfile, struct routing *r,
			vt_err *e)
{
	if (lftfile) {
		r->name = lftfile;
		/* a partial or foreign table file is an input error, not unrouted flows */
		if (vt_lfts_read(&r->lfts, f, lftfile, e) || vt_lfts_check(&r->lfts, f, lftfile, e))
			return -1;
		if (o->vl_split && vt_route_vl_split(f, NULL, &r->lfts, &r->vl, e))
			return -1;
	} else {
		struct vt_route_opts ro = {0};
		r->name = "vartree";
		if (vt_route_vl(f, &ro, &r->lfts, &r->order, o->all_sources ? &r->vl : NULL, e))
			return -1;
		if (!o->order && !o->have_seed)
			return 0; /* the routing's own compute-node order */
		vt_order_free(&r->order);
	}
	if (o->order) {
		if (vt_order_read(&r->order, f, o->order, e))
			return -1;
	} else if (vt_order_leaf(&r->order, f, e)) {
		return -1;
	}
	if (o->have_seed)
		vt_order_shuffle(&r->order, o->order_seed);
	return 0;
}

/* The fabric and each routing's tables and host order (two with --compare). */
static int load_all(const struct opts *o, vt_fabric **f, struct routing *rs, unsigned *nr,
		    vt_err *e)
{
	if (o->live) {
		if (vt_live_capture(o->local.ca, (int)o->local.port, f, &rs[0].lfts, e))
			return -1;
		rs[0].name = "live";
		if (o->order ? vt_order_read(&rs[0].order, *f, o->order, e)
			     : vt_order_leaf(&rs[0].order, *f, e))
			return -1;
		if (o->have_seed)
			vt_order_shuffle(&rs[0].order, o->order_seed);
	} else {
		if (vt_load(o->topo, f, e) ||
		    vt_cli_fabric_lmc(PROG, *f, o->topo, o->cmp[0] ? o->cmp[0] : o->lfts, o->lmc,
				      o->quiet, e))
			return -1;
		if (o->cmp[0]) {
			*nr = 2;
			if (load_routing(o, *f, o->cmp[0], &rs[0], e) ||
			    load_routing(o, *f, o->cmp[1], &rs[1], e))
				return -1;
		} else if (load_routing(o, *f, o->lfts, &rs[0], e)) {
			return -1;
		}
	}
	for (unsigned k = 0; k < o->nlabel; k++)
		rs[k].name = o->label[k];
	return 0;
}

/* The verdict: VT_EXIT_CHECK when an audit failed or a --max-worst threshold was missed. */
static int verdict(const struct opts *o, const struct routing *rs, unsigned nr)
{
	int rc = VT_EXIT_OK;

	for (unsigned k = 0; k < nr; k++)
		if (vt_audit_failed(&rs[k].audit))
			rc = VT_EXIT_CHECK;
	for (unsigned i = 0; i < o->nth; i++)
		for (unsigned k = 0; k < nr; k++)
			for (unsigned j = 0; j < rs[k].npat; j++) {
				if (strcmp(o->th_name[i], o->patterns[j]) ||
				    rs[k].res[j].worst <= o->th_val[i])
					continue;
				fprintf(stderr, PROG ": %s: %s: worst %u exceeds %u\n", rs[k].name,
					o->th_name[i], rs[k].res[j].worst, o->th_val[i]);
				rc = VT_EXIT_CHECK;
			}
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	vt_fabric *f = NULL;
	vt_err e = {0};
	struct routing *rs = calloc(2, sizeof(*rs));
	vt_tree tree;
	int have_tree = 0, rc = VT_EXIT_USAGE;
	unsigned nr = 1;

	if (!rs)
		vt_cli_die(PROG, VT_EXIT_USAGE, "out of memory");
	clock_gettime(CLOCK_MONOTONIC, &o.t0);
	parse_args(argc, argv, &o);
	vt_out_catch_signals(); /* --plot files */
	if (load_all(&o, &f, rs, &nr, &e))
		goto fail;
	note(&o, o.route ? "loaded and routed the fabric" : "loaded the fabric and tables");
	/* after routing and ordering: the map renames what is printed, nothing else */
	if (vt_namemap_apply(f, o.name_map, NULL, &e))
		goto fail;
	if (rs[0].order.n < 2) {
		vt_err_set(&e, "%s: needs at least 2 hosts to analyze", f->source);
		goto fail;
	}
	/* subtrees of the extracted tree make the best cuts; leaf switches when it has none */
	if (!vt_tree_build(&tree, f, &(struct vt_tree_opts){0}, &(vt_err){0}))
		have_tree = 1;
	for (unsigned k = 0; k < nr; k++)
		if (analyze(&o, f, have_tree ? &tree : NULL, &rs[k], &e))
			goto fail;
	if (o.json) {
		if (print_json(stdout, &o, f, rs, nr, &e))
			goto fail;
	} else
		print_table(stdout, &o, f, rs, nr);
	if (vt_stdout_flush(&e))
		goto fail;
	if (o.plot && plot_all(&o, f, have_tree ? &tree : NULL, rs, nr, &e))
		goto fail;
	if (o.svg && draw_svg(&o, f, have_tree ? &tree : NULL, &rs[0], &e))
		goto fail;
	rc = verdict(&o, rs, nr);
	goto out;
fail:
	fprintf(stderr, PROG ": %s\n", e.msg);
out:
	if (have_tree)
		vt_tree_free(&tree);
	for (unsigned k = 0; k < 2; k++)
		routing_free(&rs[k]);
	free(rs);
	for (unsigned i = 0; i < o.nth; i++)
		free((char *)o.th_name[i]);
	vt_fabric_free(f);
	return rc;
}
