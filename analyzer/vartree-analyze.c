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

#include "analyze.h"

/* long options only: values past every letter ('V' is -V, the version) */
enum { OPT_SVG = VT_OPT_VERSION + 1, OPT_HOT, OPT_VL_SPLIT, OPT_SHORTEST, OPT_VLS };

static const char usage[] =
	"usage: " PROG
	" TOPOLOGY [-l|--lfts FILE | --route vartree | --live] [-p|--pattern SPEC]...\n"
	"       [-C|--Ca CA] [-P|--Port PORT]  (--live: the local CA and its port)\n"
	"       [--order FILE | --order-random SEED] [--json] [--compare A B] [--lmc N]\n"
	"       [--plot DIR] [--plot-format png|svg|pdf] [--label NAME]...\n"
	"       [--svg FILE] [--hot N]\n"
	"       [--max-worst PATTERN=N]... [--top N] [--threads N] [--method M]\n"
	"       [--stage-limit N] [--node-name-map FILE] [--all-sources [--vl-split] [--vls N]]\n"
	"       [--timing]\n"
	"       [--shortest-detours]  (with --route vartree)\n"
	"       [-q|--quiet] [-h|--help] [-V|--version]\n"
	"Counts the per-link congestion of communication patterns under forwarding tables\n"
	"and audits the tables. Patterns: shift[:A-B], butterfly, mesh2d[:XxY], mesh3d[:XxYxZ],\n"
	"wavefront2d[:XxY], wavefront3d[:XxYxZ], bintree, bisection[:seed=S,count=C],\n"
	"randperm[:seed=S,count=C], all2all, file:PATH (default: shift).\n"
	"Exit status: 0 ok, 1 a threshold missed or an audit failed, 2 usage or input error.\n"
	"See vartree-analyze(1).\n";

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

/*
 * Long runs (past a second) say on stderr which step they finished, to a
 * person watching only, as the progress: in a log or a test the lines would
 * come and go with the machine's load.
 */
static void note(const struct opts *o, const char *what)
{
	double t = since(&o->t0);

	if (!o->quiet && t >= 1.0 && isatty(STDERR_FILENO))
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
	vt_cli_needs(cli, o->vls > 0, "--vls", o->all_sources, "--all-sources");
	vt_cli_needs(cli, o->shortest_detours, "--shortest-detours", !!o->route, "--route vartree");
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
	{"vls", required_argument, 0, OPT_VLS},
	{"shortest-detours", no_argument, 0, OPT_SHORTEST},
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
		case OPT_VLS:
			o->vls = (unsigned)vt_cli_uint(&cli, "--vls", optarg, 1, VT_VL_MAX);
			break;
		case OPT_SHORTEST:
			o->shortest_detours = 1;
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
				   /* one data VL (--vls 1): every route audited on it */
				   .vl = r->vl.bits && vt_fabric_vls(f) > 1 ? &r->vl : NULL};

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
		struct vt_route_opts ro = {.shortest_detours = o->shortest_detours};
		r->name = "vartree";
		/* CAs above the leaves have their switch's routes: VL 1's too, for the CA audit */
		if (vt_route_vl(f, &ro, &r->lfts, &r->order,
				o->all_sources || o->shortest_detours ? &r->vl : NULL, e))
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
		if (o->vls) /* else the VLs the switch ports run, as read */
			(*f)->vls = o->vls;
		rs[0].name = "live";
		/* the switches' own tables, split as vartree splits the tables it routes */
		if (o->vl_split && vt_route_vl_split(*f, NULL, &rs[0].lfts, &rs[0].vl, e))
			return -1;
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
		(*f)->vls = o->vls;
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
		if (analyze_print_json(stdout, &o, f, rs, nr, &e))
			goto fail;
	} else
		analyze_print_table(stdout, &o, f, rs, nr);
	if (vt_stdout_flush(&e))
		goto fail;
	if (o.plot && analyze_plot_all(&o, f, have_tree ? &tree : NULL, rs, nr, &e))
		goto fail;
	if (o.svg && analyze_draw_svg(&o, f, have_tree ? &tree : NULL, &rs[0], &e))
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
