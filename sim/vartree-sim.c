/* SPDX-License-Identifier: MIT */
/* vartree-sim: credit-based flow-control simulation of a pattern over one or more routings. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/vt_cli.h"
#include "io/vt_namemap.h"
#include "model/vt_fabric.h"
#include "gen/vt_gen.h"
#include "base/vt_io.h"
#include "model/vt_lft.h"
#include "io/vt_lftio.h"
#include "io/vt_load.h"
#include "model/vt_order.h"
#include "work/vt_otf2.h"
#include "model/vt_pattern.h"
#include "out/vt_plot.h"
#include "work/vt_progbuild.h"
#include "work/vt_replay.h"
#include "route/vt_route.h"
#include "sim/vt_sim.h"
#include "sim/vt_simwork.h"
#include "simjobs.h"
#include "simout.h"

static const char usage[] =
	"usage: vartree-sim [options] FABRIC | --gen SPEC\n"
	"Simulates InfiniBand credit-based flow control for a communication pattern.\n"
	"  FABRIC             ibnetdiscover output or ibsim net file\n"
	"  --gen SPEC         generate the fabric (vartree-gen spec)\n"
	"  -l, --lfts FILE    forwarding tables (OpenSM lfts dump, dump_fts, fdbs); repeatable\n"
	"  --route vartree    route with vartree (the default without --lfts); repeatable\n"
	"  --lmc N            the LMC of a FABRIC that names none (default: the one the\n"
	"                     first --lfts shows, as vartree-analyze)\n"
	"  --order FILE       host order (ca-order dump, node list or MPI hostfile)\n"
	"  -p, --pattern SPEC analyzer pattern (default shift)\n"
	"  --causal NAME      Navaridas workload: 2W 3W 2M 3M BU BT WF\n"
	"  --open uniform|perm|pair --load L --duration US\n"
	"                     open-loop traffic at load L (0..4] of one link for US us\n"
	"  --trace FILE.otf2  replay an OTF2 trace's MPI messages (rank r on the r-th host)\n"
	"  --trace-compute    and the compute time between its MPI calls (else none)\n"
	"  --job NAME:RANKS[xPPN]:PLACEMENT:SIZE:WORKLOAD  one job of several run at once;\n"
	"                     repeatable (placement contiguous, random, random-leaves,\n"
	"                     rr-leaves or order; workload a pattern, a collective\n"
	"                     (NAME@ROOT for a rooted one) or trace:FILE.otf2 with SIZE -;\n"
	"                     WORKLOAD+TIME: compute TIME between phases)\n"
	"  --jobs FILE        --job specs, one a line ('#' comments)\n"
	"  --mode b2b|barrier|causal|burst  stage release (default b2b)\n"
	"  --size BYTES       message size (K, M and G suffixes; default 4096)\n"
	"  --reps N           repeat the pattern or trace N times\n"
	"  --preset default|fig6|navaridas  parameter set (fig6: Zahavi et al. reference\n"
	"                     model; navaridas: their switches, adaptive routing)\n"
	"  --speed SDR..XDR --rate-gbps G  4x link speed, or data rate, of every link\n"
	"  --mtu B --header B --pad B --vls N --buffer CREDITS --speedup S\n"
	"  --sl N|spread      service level of every message (default 0; VL = SL mod --vls),\n"
	"                     or spread: SL = (source rank + destination rank) mod --vls\n"
	"  --switch-ns NS --cable-ns NS --credit-period-ns NS --gen-gbps G --sink-gbps G\n"
	"  --arb rr|random    output arbitration\n"
	"  --rail fixed|random|least  rail of a multi-rail host's message or packet\n"
	"  --rail-choice message|packet  rail chosen per message or per packet (--rail "
	"random|least)\n"
	"  --ar static|packet|flow  adaptive routing among up-ports (default static: LFT)\n"
	"  --ar-select credits|queue  AR port choice: most credits or least queued\n"
	"  --flit             flit-exact mode (one event per 64-byte credit)\n"
	"  --seed S           seed (arbitration, rails, open loop)\n"
	"  --seeds N|S1,S2,.. run every routing under N seeds from --seed on, or under the\n"
	"                     seeds listed: mean and 95 % interval (Student's t) printed\n"
	"  --warmup US        open loop: offered, accepted and latency count from US on\n"
	"  --json             machine-readable output\n"
	"  --links            with --json or the table: every link\n"
	"  --label NAME       name of the next routing in the table, JSON and plots;\n"
	"                     repeatable, in the order of --lfts/--route\n"
	"  --plot DIR         stage-times and link-util, .png and .svg, into DIR\n"
	"  --plot-format png|svg|pdf  only this format for --plot\n"
	"  -q, --quiet        no speed line on stderr (progress only on a terminal)\n"
	"  --node-name-map F  names for nodes by GUID (infiniband-diags' format; default\n"
	"                     /etc/rdma/ib-node-name-map when present)\n"
	"  -h, --help         this summary\n"
	"  -V, --version      the release\n"
	"Exit status: 0 ok, 1 a check failed (a refused fabric, a lost packet, a deadlock),\n"
	"2 usage or input error.\n"
	"See vartree-sim(1).\n";

#define PROG "vartree-sim"

/* Input the simulator cannot use (a file, a pattern, a workload): status 2, as every command. */
static _Noreturn void die(const char *msg)
{
	vt_cli_die(PROG, VT_EXIT_USAGE, "%s", msg);
}

/* A rate in Gb/s as Mb/s: 0 is no limit; a rate that would round to 0 is refused. */
static uint64_t rate(const struct vt_cli *cli, const char *opt, const char *s)
{
	double g = vt_cli_double(cli, opt, s, 0, 1e5);

	if (g > 0 && g < 0.001)
		vt_cli_die(PROG, VT_EXIT_USAGE, "%s: '%s' is below 0.001 Gb/s (0 means no limit)",
			   opt, s);
	return (uint64_t)(g * 1000);
}

static const struct option long_opts[] = {
	{"gen", 1, 0, 'g'},
	{"lfts", 1, 0, 'l'},
	{"route", 1, 0, 'r'},
	{"order", 1, 0, 'o'},
	{"pattern", 1, 0, 'p'},
	{"causal", 1, 0, 'c'},
	{"open", 1, 0, 'O'},
	{"load", 1, 0, 'L'},
	{"duration", 1, 0, 'D'},
	{"mode", 1, 0, 'm'},
	{"size", 1, 0, 's'},
	{"reps", 1, 0, 'R'},
	{"preset", 1, 0, 'P'},
	{"speed", 1, 0, 1},
	{"rate-gbps", 1, 0, 2},
	{"mtu", 1, 0, 3},
	{"header", 1, 0, 4},
	{"pad", 1, 0, 44},
	{"vls", 1, 0, 5},
	{"buffer", 1, 0, 6},
	{"speedup", 1, 0, 7},
	{"switch-ns", 1, 0, 8},
	{"cable-ns", 1, 0, 9},
	{"credit-period-ns", 1, 0, 10},
	{"gen-gbps", 1, 0, 11},
	{"sink-gbps", 1, 0, 12},
	{"arb", 1, 0, 13},
	{"rail", 1, 0, 14},
	{"flit", 0, 0, 15},
	{"seed", 1, 0, 16},
	{"json", 0, 0, 'j'},
	{"plot", 1, 0, 17},
	{"quiet", 0, 0, 'q'},
	{"links", 0, 0, 18},
	{"sl", 1, 0, 19},
	{"ar", 1, 0, 20},
	{"ar-select", 1, 0, 21},
	{"label", 1, 0, 22},
	{"rail-choice", 1, 0, 23},
	{"warmup", 1, 0, 40},
	{"seeds", 1, 0, 41},
	{"plot-format", 1, 0, 42},
	{"lmc", 1, 0, 43},
	{"job", 1, 0, 24},
	{"trace", 1, 0, 25},
	{"jobs", 1, 0, 26},
	{"trace-compute", 0, 0, 27},
	{"help", 0, 0, 'h'},
	{"version", 0, 0, VT_OPT_VERSION},
	{"node-name-map", 1, 0, VT_OPT_VERSION + 1},
	{0, 0, 0, 0},
};

/* --lfts FILE or --route vartree: one more routing. */
static void add_routing(const struct vt_cli *cli, struct opts *o, int c, const char *v)
{
	if (o->nr == MAX_ROUTINGS)
		vt_cli_usage(cli, "at most %d routings", MAX_ROUTINGS);
	if (c == 'r' && strcmp(v, "vartree"))
		vt_cli_die(PROG, VT_EXIT_USAGE,
			   "--route: '%s': only 'vartree' (give other engines' tables with --lfts)",
			   v);
	o->rspec[o->nr++] = c == 'r' ? NULL : v;
}

/* An option naming the inputs or the workload; 0 if c is none of them. */
static int workload_opt(const struct vt_cli *cli, struct opts *o, int c)
{
	static const char *const modes[] = {"b2b", "barrier", "causal", "burst", NULL};
	static const char *const opens[] = {"uniform", "perm", "pair", NULL};
	static const char *const presets[] = {"default", "fig6", "navaridas", NULL};
	int k;

	switch (c) {
	case 'g':
		o->gen = optarg;
		break;
	case 'l':
	case 'r':
		add_routing(cli, o, c, optarg);
		break;
	case 'o':
		o->order = optarg;
		break;
	case 'p':
		o->pattern = optarg;
		break;
	case 'c':
		o->causal = optarg;
		break;
	case 25:
		o->trace = optarg;
		break;
	case 27:
		o->trace_compute = 1;
		break;
	case 'O':
		o->open = opens[vt_cli_choice(cli, "--open", optarg, opens)];
		break;
	case 'L':
		o->load = vt_cli_double(cli, "--load", optarg, 1e-6, 4);
		o->load_set = 1;
		break;
	case 'D':
		o->duration_us = vt_cli_double(cli, "--duration", optarg, 1e-3, 1e7);
		o->duration_set = 1;
		break;
	case 40:
		o->warmup_us = vt_cli_double(cli, "--warmup", optarg, 0, 1e7);
		break;
	case 'm':
		/* VT_WORK_B2B .. VT_WORK_BURST in the order of the names */
		o->mode = (enum vt_simwork_mode)vt_cli_choice(cli, "--mode", optarg, modes);
		o->mode_set = 1;
		break;
	case 's':
		o->size = (uint32_t)vt_cli_size(cli, "--size", optarg, 1, 1 << 30);
		break;
	case 'R':
		o->reps = (unsigned)vt_cli_uint(cli, "--reps", optarg, 1, 1000000);
		o->reps_set = 1;
		break;
	case 'P':
		k = vt_cli_choice(cli, "--preset", optarg, presets);
		o->preset = presets[k];
		o->fig6 = k == 1;
		o->navaridas = k == 2;
		break;
	default:
		return 0;
	}
	return 1;
}

/* --job SPEC: checked now, so a bad spec is a usage error before any fabric is read. */
static void job_opt(const struct vt_cli *cli, struct opts *o, const char *spec)
{
	struct vt_job j;
	vt_err e;

	if (o->njobs == MAX_JOBS)
		vt_cli_usage(cli, "at most %d jobs", MAX_JOBS);
	if (vt_job_parse(&j, spec, &e))
		vt_cli_usage(cli, "--job: %s", e.msg);
	o->job[o->njobs++] = spec;
}

/* An option of the first pass; 1 if it sets a model parameter, applied after the preset. */
static int first_pass(const struct vt_cli *cli, struct opts *o, int c)
{
	if (workload_opt(cli, o, c))
		return 0;
	switch (c) {
	case 'j':
		o->json = 1;
		break;
	case 'q':
		o->quiet = 1;
		break;
	case 43:
		o->lmc = (int)vt_cli_uint(cli, "--lmc", optarg, 0, 7);
		break;
	case 15:
		o->p.flit = 1;
		break;
	case 17:
		o->plot = optarg;
		break;
	case 42: {
		static const char *const formats[] = {"png", "svg", "pdf", NULL};

		o->plot_format = formats[vt_cli_choice(cli, "--plot-format", optarg, formats)];
		break;
	}
	case 22:
		if (o->nlabel == MAX_ROUTINGS)
			vt_cli_usage(cli, "at most %d labels", MAX_ROUTINGS);
		o->label[o->nlabel++] = optarg;
		break;
	case 18:
		o->links = 1;
		break;
	case 24:
		job_opt(cli, o, optarg);
		break;
	case 26:
		simjobs_read(o, optarg);
		break;
	case VT_OPT_VERSION + 1:
		o->name_map = optarg;
		break;
	default:
		return 1;
	}
	return 0;
}

/* The preset's parameters, keeping what does not belong to it. */
static void apply_preset(struct opts *o)
{
	if (o->fig6) {
		int flit = o->p.flit;

		vt_sim_preset_fig6(&o->p);
		o->p.flit = flit;
		if (o->size <= 1024)
			o->p.mtu = 1024; /* as the reference run did for 1 KB messages */
	}
	if (o->navaridas) {
		int flit = o->p.flit;

		vt_sim_preset_navaridas(&o->p);
		o->p.flit = flit;
	}
}

/* A numeric model option given on the command line (after the preset). */
static void apply_number(const struct vt_cli *cli, struct opts *o, int id, const char *v)
{
	static const char *const mtus[] = {"256", "512", "1024", "2048", "4096", NULL};
	struct vt_sim_params *p = &o->p;

	switch (id) {
	case 1:
		p->speed = vt_cli_speed(cli, "--speed", v);
		break;
	case 2:
		p->link_mbps = (uint64_t)(vt_cli_double(cli, "--rate-gbps", v, 0.001, 1e4) * 1000);
		break;
	case 3:
		p->mtu = 256u << vt_cli_choice(cli, "--mtu", v, mtus);
		break;
	case 4:
		p->header = (unsigned)vt_cli_uint(cli, "--header", v, 0, 512);
		break;
	case 44:
		p->pad = (unsigned)vt_cli_uint(cli, "--pad", v, 0, 4096);
		break;
	case 5:
		p->nvl = (unsigned)vt_cli_uint(cli, "--vls", v, 1, 15);
		break;
	case 6:
		p->buf_credits = (unsigned)vt_cli_uint(cli, "--buffer", v, 1, 1 << 20);
		break;
	case 7:
		p->speedup = (unsigned)vt_cli_uint(cli, "--speedup", v, 1, 64);
		break;
	case 8:
		p->sw_lat_ps = (uint64_t)(vt_cli_double(cli, "--switch-ns", v, 0, 1e6) * 1000);
		break;
	case 9:
		p->cable_ps = (uint64_t)(vt_cli_double(cli, "--cable-ns", v, 0, 1e6) * 1000);
		break;
	case 10:
		p->credit_period_ps =
			(uint64_t)(vt_cli_double(cli, "--credit-period-ns", v, 0, 1e6) * 1000);
		break;
	case 11:
		p->gen_mbps = rate(cli, "--gen-gbps", v);
		break;
	case 12:
		p->sink_mbps = rate(cli, "--sink-gbps", v);
		break;
	case 16:
		p->seed = vt_cli_uint(cli, "--seed", v, 0, UINT64_MAX);
		break;
	}
}

/* A model option naming a choice; 0 if id is no such option. */
static int apply_choice(const struct vt_cli *cli, struct opts *o, int id, const char *v)
{
	static const char *const arbs[] = {"rr", "random", NULL};
	static const enum vt_sim_arb arb_of[] = {VT_ARB_RR, VT_ARB_RANDOM};
	static const char *const rails[] = {"fixed", "random", "least", NULL};
	static const enum vt_sim_rail rail_of[] = {VT_RAIL_FIXED, VT_RAIL_RANDOM, VT_RAIL_LEAST};
	static const char *const choices[] = {"message", "packet", NULL};
	static const enum vt_sim_rail_choice choice_of[] = {VT_RAIL_PER_MESSAGE,
							    VT_RAIL_PER_PACKET};
	static const char *const ars[] = {"static", "packet", "flow", NULL};
	static const enum vt_sim_ar ar_of[] = {VT_AR_STATIC, VT_AR_PACKET, VT_AR_FLOW};
	static const char *const selects[] = {"credits", "queue", NULL};
	static const enum vt_sim_ar_select select_of[] = {VT_AR_CREDITS, VT_AR_QUEUE};

	switch (id) {
	case 13:
		o->p.arb = arb_of[vt_cli_choice(cli, "--arb", v, arbs)];
		break;
	case 14:
		o->p.rail = rail_of[vt_cli_choice(cli, "--rail", v, rails)];
		break;
	case 19:
		if (!strcmp(v, "spread"))
			o->p.sl_spread = 1;
		else
			o->p.sl = (unsigned)vt_cli_uint(cli, "--sl", v, 0, 15);
		break;
	case 23:
		o->p.rail_choice = choice_of[vt_cli_choice(cli, "--rail-choice", v, choices)];
		o->rail_choice_set = 1;
		break;
	case 20:
		o->p.ar = ar_of[vt_cli_choice(cli, "--ar", v, ars)];
		break;
	case 21:
		o->p.ar_select = select_of[vt_cli_choice(cli, "--ar-select", v, selects)];
		o->ar_select_set = 1;
		break;
	default:
		return 0;
	}
	return 1;
}

/* --seeds N (N seeds from --seed on) or a comma-separated list, once --seed is known. */
static void seeds_arg(const struct vt_cli *cli, struct opts *o, const char *v)
{
	char buf[32];

	if (!strchr(v, ',')) {
		o->nseeds = (unsigned)vt_cli_uint(cli, "--seeds", v, 1, MAX_SEEDS);
		for (unsigned i = 0; i < o->nseeds; i++)
			o->seeds[i] = o->p.seed + i;
		return;
	}
	for (const char *s = v; *s;) {
		size_t n = strcspn(s, ",");

		if (o->nseeds == MAX_SEEDS || n == 0 || n >= sizeof(buf))
			vt_cli_usage(cli, "--seeds: at most %d seeds, separated by single commas",
				     MAX_SEEDS);
		memcpy(buf, s, n);
		buf[n] = 0;
		o->seeds[o->nseeds++] = vt_cli_uint(cli, "--seeds", buf, 0, UINT64_MAX);
		s += n + (s[n] == ',');
	}
	o->p.seed = o->seeds[0];
}

/* What the options must agree on, once all are read; options that would do nothing are refused. */
static void check_opts(const struct vt_cli *cli, struct opts *o)
{
	if (optind < cli->argc)
		o->fabric = cli->argv[optind++];
	if (optind < cli->argc)
		vt_cli_usage(cli, "one fabric only");
	if (!o->fabric == !o->gen)
		vt_cli_usage(cli, "give a FABRIC file or --gen SPEC");
	vt_cli_exclusive(cli, !!o->gen + (o->lmc >= 0), "--lmc and --gen"); /* LIDs of its own */
	vt_cli_exclusive(cli, !!o->pattern + !!o->causal + !!o->open + !!o->njobs + !!o->trace,
			 "--pattern, --causal, --open, --job/--jobs and --trace");
	if (o->njobs && o->mode_set && o->mode == VT_WORK_BARRIER)
		vt_cli_usage(cli, "--mode barrier: jobs release per rank (b2b, causal or burst)");
	vt_cli_needs(cli, o->load_set, "--load", !!o->open, "--open");
	vt_cli_needs(cli, o->duration_set, "--duration", !!o->open, "--open");
	if (o->open && o->mode_set)
		vt_cli_usage(cli, "--mode does not apply to --open traffic");
	vt_cli_needs(cli, o->trace_compute, "--trace-compute", o->trace || o->njobs,
		     "--trace or --job with a trace");
	if (o->trace && o->mode_set)
		vt_cli_usage(cli, "--mode does not apply to --trace (MPI's own waits release it)");
	if (o->reps_set && (o->open || o->causal))
		vt_cli_usage(cli, "--reps applies to --pattern and --trace only, not to --%s",
			     o->open ? "open" : "causal");
	if (!o->nr)
		o->rspec[o->nr++] = NULL;
	if (o->nlabel > o->nr)
		vt_cli_usage(cli, "more --label than routings");
	vt_cli_needs(cli, !!o->plot_format, "--plot-format", !!o->plot, "--plot DIR");
	vt_cli_needs(cli, o->warmup_us > 0, "--warmup", !!o->open, "--open");
	if (o->open && o->warmup_us >= o->duration_us)
		vt_cli_usage(cli, "--warmup must end before --duration");
}

static void parse(int argc, char **argv, struct opts *o)
{
	/* parameters given on the command line override the preset, so apply them after it */
	struct later {
		int id;
		const char *v;
	} *later = calloc((size_t)argc, sizeof(*later));
	struct vt_cli cli;
	int c, nl = 0;

	if (!later)
		die("out of memory");
	memset(o, 0, sizeof(*o));
	vt_sim_defaults(&o->p);
	o->lmc = -1;
	o->size = 4096;
	o->reps = 1;
	o->load = 0.5;
	o->duration_us = 100;
	o->preset = "default";
	vt_cli_init(&cli, PROG, usage, "hql:p:", long_opts, argc, argv);
	vt_cli_retire(&cli, 'j', "--json");
	while ((c = vt_cli_next(&cli)) != -1)
		if (first_pass(&cli, o, c))
			later[nl++] = (struct later){c, optarg};
	apply_preset(o);
	for (int i = 0; i < nl; i++)
		if (!apply_choice(&cli, o, later[i].id, later[i].v))
			apply_number(&cli, o, later[i].id, later[i].v);
	for (int i = 0; i < nl; i++)
		if (later[i].id == 41)
			seeds_arg(&cli, o, later[i].v);
	free(later);
	check_opts(&cli, o);
	/* after the preset, which may turn adaptive routing on (navaridas) */
	vt_cli_needs(&cli, o->ar_select_set, "--ar-select", o->p.ar != VT_AR_STATIC,
		     "--ar packet or flow");
	/* --rail fixed sends every packet on the order's port: there is no choice to make */
	vt_cli_needs(&cli, o->rail_choice_set, "--rail-choice", o->p.rail != VT_RAIL_FIXED,
		     "--rail random or least");
	vt_err e;
	if (vt_sim_check_params(&o->p, &e)) /* a combination, as a buffer too small for the MTU */
		die(e.msg);
}

struct progress {
	struct timespec last;
	int on;
};

static void progress(void *ctx, uint64_t now, uint64_t events, uint64_t done, uint64_t total)
{
	struct progress *pr = ctx;
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	if (!pr->on || t.tv_sec - pr->last.tv_sec < 2)
		return;
	pr->last = t;
	fprintf(stderr, "vartree-sim: %.1f us simulated, %llu events, %llu/%llu messages\n",
		(double)now / 1e6, (unsigned long long)events, (unsigned long long)done,
		(unsigned long long)total);
}

/* The fabric, and each routing's tables (vartree's with its host order). */
static vt_fabric *load_all(const struct opts *o, struct routing *rt)
{
	vt_fabric *f = NULL;
	vt_err e;

	if (o->gen) {
		struct vt_gen_spec gs;

		if (vt_gen_parse(&gs, o->gen, &e) || vt_gen_build(&gs, &f, &e))
			die(e.msg);
	} else {
		const char *lfts = NULL;

		for (unsigned k = 0; k < o->nr && !lfts; k++)
			lfts = o->rspec[k];
		if (vt_load(o->fabric, &f, &e) ||
		    vt_cli_fabric_lmc(PROG, f, o->fabric, lfts, o->lmc, o->quiet, &e))
			die(e.msg);
	}
	for (unsigned k = 0; k < o->nr; k++) {
		rt[k].source = o->rspec[k] ? o->rspec[k] : "vartree";
		rt[k].name = k < o->nlabel ? o->label[k] : rt[k].source;
		if (!o->rspec[k]) {
			struct vt_route_opts ro = {0};

			if (vt_route(f, &ro, &rt[k].t, &rt[k].o, &e)) /* not a tree */
				vt_cli_die(PROG, VT_EXIT_CHECK, "%s", e.msg);
			rt[k].have_order = 1;
		} else if (vt_lfts_read(&rt[k].t, f, o->rspec[k], &e)) {
			die(e.msg);
		}
	}
	return f;
}

/* One host order for every routing: the file's, else vartree's, else leaf order. */
static void host_order(const struct opts *o, const vt_fabric *f, const struct routing *rt,
		       vt_order *ord)
{
	vt_err e;

	if (o->order) {
		if (vt_order_read(ord, f, o->order, &e))
			die(e.msg);
		return;
	}
	for (unsigned k = 0; k < o->nr; k++)
		if (rt[k].have_order) {
			ord->n = rt[k].o.n;
			ord->port = malloc(ord->n * sizeof(uint32_t));
			if (!ord->port)
				die("out of memory");
			memcpy(ord->port, rt[k].o.port, ord->n * sizeof(uint32_t));
			return;
		}
	if (vt_order_leaf(ord, f, &e))
		die(e.msg);
}

/*
 * --trace: trace rank r on the r-th host of the order, place-keepers skipped
 * as jobs place their ranks (tord: the trace's ranks' order).
 */
static void trace_work(const struct opts *o, const vt_order *ord, vt_simwork *w, vt_order *tord)
{
	vt_mpitrace t;
	vt_progb b;
	uint32_t *g, nhosts = 0;
	vt_err e;

	if (vt_otf2_read(&t, o->trace, &e))
		die(e.msg);
	for (uint32_t i = 0; i < ord->n; i++)
		nhosts += ord->port[i] != VT_NONE;
	if (t.nranks > nhosts)
		vt_cli_die(PROG, VT_EXIT_USAGE,
			   "%s: %u ranks, more than the %u hosts of the host order", o->trace,
			   t.nranks, nhosts);
	g = malloc(((size_t)t.nranks + 1) * sizeof(*g));
	tord->port = malloc(((size_t)t.nranks + 1) * sizeof(uint32_t));
	if (!g || !tord->port || vt_progb_init(&b, w, t.nranks, &e))
		die(g && tord->port ? e.msg : "out of memory");
	for (uint32_t i = 0; i < ord->n && tord->n < t.nranks; i++)
		if (ord->port[i] != VT_NONE)
			tord->port[tord->n++] = ord->port[i];
	for (uint32_t r = 0; r < t.nranks; r++)
		g[r] = r;
	if (vt_replay_reps(&b, &t, g, o->reps, o->trace_compute, o->trace)) {
		vt_progb_abort(&b);
		die(e.msg);
	}
	free(g);
	vt_mpitrace_free(&t);
	if (vt_progb_finish(&b))
		die(e.msg);
	snprintf(w->name, sizeof(w->name), "trace %s", o->trace);
}

static void make_work(const struct opts *o, const vt_order *ord, vt_simwork *w, vt_order *tord)
{
	uint32_t nranks = ord->n;
	vt_err e;

	if (o->trace) {
		trace_work(o, ord, w, tord);
	} else if (o->causal) {
		if (vt_simwork_navaridas(w, o->causal, nranks, o->size, &e))
			die(e.msg);
		if (o->mode_set)
			w->mode = o->mode;
	} else if (o->open) {
		if (vt_simwork_open(w, nranks, o->load, (uint64_t)(o->duration_us * 1e6), o->size,
				    !strcmp(o->open, "pair") ? 2 : !strcmp(o->open, "perm"),
				    o->p.seed, &e))
			die(e.msg);
		w->warmup_ps = (uint64_t)(o->warmup_us * 1e6);
	} else {
		vt_pattern pat;

		if (vt_pattern_parse(&pat, o->pattern ? o->pattern : "shift", nranks, &e))
			die(e.msg);
		if (vt_simwork_pattern(w, &pat, o->size, o->reps,
				       o->mode_set ? o->mode : VT_WORK_B2B, &e))
			die(e.msg);
		vt_pattern_free(&pat);
	}
}

/* Runs routing k; VT_EXIT_CHECK on a credit deadlock (a result, with its reason on stderr). */
static int run_one(const struct opts *o, const vt_fabric *f, const vt_order *ord,
		   const vt_simwork *w, struct routing *r)
{
	struct timespec a, b, ca, cb;
	vt_err e;

	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
	/* the parameters are checked: what fails now is the tables (no route, a loop) */
	if (vt_sim_run(f, &r->t, ord, w, &o->p, &r->r, &e))
		vt_cli_die(PROG, VT_EXIT_CHECK, "%s: %s", r->source, e.msg);
	clock_gettime(CLOCK_MONOTONIC, &b);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb);
	r->wall_s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	double cpu_s = (double)(cb.tv_sec - ca.tv_sec) + (double)(cb.tv_nsec - ca.tv_nsec) / 1e9;
	if (!o->quiet)
		fprintf(stderr,
			"vartree-sim: %s: %llu events (%llu packet hops) in %.4f s (cpu "
			"%.4f s), %.2f M events/s, %.2f M hops/s\n",
			r->name, (unsigned long long)r->r.events, (unsigned long long)r->r.hops,
			r->wall_s, cpu_s, r->wall_s > 0 ? r->r.events / r->wall_s / 1e6 : 0,
			r->wall_s > 0 ? r->r.hops / r->wall_s / 1e6 : 0);
	if (!r->r.deadlock)
		return 0;
	fprintf(stderr,
		"vartree-sim: %s: credit deadlock: %llu packets stuck, %llu of %llu "
		"messages done, nothing moves after %.3f us\n",
		r->name, (unsigned long long)r->r.stuck_pkts, (unsigned long long)r->r.msgs_done,
		(unsigned long long)r->r.msgs, (double)r->r.last_ps / 1e6);
	return VT_EXIT_CHECK;
}

int main(int argc, char **argv)
{
	struct opts o;
	vt_err e;
	vt_fabric *f;
	vt_simwork w;
	vt_order ord = {0}, gord = {0}; /* gord: the ranks' order of jobs and traces */
	vt_jobs js = {0};
	struct routing rt[MAX_ROUTINGS];
	struct progress pr = {.on = 0};
	int rc = VT_EXIT_OK;

	parse(argc, argv, &o);
	memset(rt, 0, sizeof(rt));
	f = load_all(&o, rt);
	host_order(&o, f, rt, &ord);
	if (ord.n < 2)
		die("fewer than 2 hosts");
	/* after routing and ordering: the map renames what is printed, nothing else */
	if (vt_namemap_apply(f, o.name_map, NULL, &e))
		die(e.msg);
	if (o.njobs) {
		simjobs_setup(&o, f, &ord, &js, &w, &gord);
		o.jobs = &js;
	} else {
		make_work(&o, &ord, &w, &gord);
	}
	/* progress is for a person watching; logs and pipes get the result only */
	pr.on = !o.quiet && isatty(STDERR_FILENO);
	clock_gettime(CLOCK_MONOTONIC, &pr.last);
	o.p.progress = progress;
	o.p.progress_ctx = &pr;
	for (unsigned k = 0; k < o.nr; k++) {
		if (run_one(&o, f, gord.port ? &gord : &ord, &w, &rt[k]))
			rc = VT_EXIT_CHECK;
		if (o.nseeds > 1 && simseeds_run(&o, f, gord.port ? &gord : &ord, &w, &rt[k]))
			rc = VT_EXIT_CHECK;
	}
	if (o.json) {
		if (simout_json(&o, f, &w, rt, o.nr, &e))
			die(e.msg);
	} else
		simout_table(&o, f, &w, rt, o.nr);
	if (o.plot && simout_plot(&o, f, rt, o.nr, &e)) {
		fprintf(stderr, PROG ": %s\n", e.msg);
		rc = VT_EXIT_USAGE; /* an output that cannot be written */
	}
	for (unsigned k = 0; k < o.nr; k++) {
		vt_sim_result_free(&rt[k].r);
		simseeds_free(&rt[k]);
		vt_lfts_free(&rt[k].t);
		if (rt[k].have_order)
			vt_order_free(&rt[k].o);
	}
	vt_order_free(&ord);
	vt_order_free(&gord);
	vt_jobs_free(&js);
	simjobs_opts_free(&o);
	vt_simwork_free(&w);
	vt_fabric_free(f);
	if (vt_stdout_flush(&e))
		die(e.msg);
	return rc;
}
