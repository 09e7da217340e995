/* SPDX-License-Identifier: MIT */
/* vartree-route: extract the var-ary-n-tree of a fabric, route it, write OpenSM LFTs. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/vt_cli.h"
#include "base/vt_io.h"
#include "io/vt_lftio.h"
#include "io/vt_lftbin.h"
#include "io/vt_load.h"
#include "io/vt_namemap.h"
#include "route/vt_route.h"
#include "repair/vt_repair.h"
#include "repair/vt_route_guard_kept.h"
#include "out/vt_sched.h"
#include "tree/vt_tree.h"

#define PROG "vartree-route"
/* Text tables from this size on get a hint about --lft-format binary (vartree-route(1)). */
#define TEXT_HINT_BYTES (32L << 20)

static const char usage[] =
	"usage: vartree-route TOPOLOGY [options]\n"
	"Routes an ibnetdiscover/ibsim/cache fabric with vartree and writes its LFTs in\n"
	"OpenSM's opensm-lfts.dump format; the structure found goes to stderr.\n"
	"  -o, --output LFTS        forwarding tables here (default: stdout)\n"
	"      --lft-format F       their form: dump (opensm-lfts.dump, default) or binary\n"
	"                           (one byte per entry, read back by vartree-analyze/-sim)\n"
	"      --order-out FILE     compute-node order (MPI rank order) here\n"
	"      --order-format F     its form: ca-order (opensm-ftree-ca-order.dump, default),\n"
	"                           hostfile (one host per rank: mpirun --map-by seq),\n"
	"                           rankfile (Open MPI), machinefile (MPICH host:N)\n"
	"      --slurm-topology F   Slurm topology.conf (topology/tree) of the tree found\n"
	"      --root-guid-file F   node GUIDs of the top switches\n"
	"      --cn-guid-file F     port GUIDs of the compute nodes\n"
	"      --io-guid-file F     port GUIDs of I/O nodes\n"
	"      --lmc N              give CA ports LMC N (0..7) first: LIDs of LMC 0 are\n"
	"                           assigned anew, as vartree-analyze --lmc N reads them\n"
	"      --previous LFTS      keep these earlier tables (opensm-lfts.dump, dump_fts,\n"
	"                           fdbs or binary) wherever they still serve: fewest\n"
	"                           changes after a fault; the counts go to stderr\n"
	"      --repair P           what --previous keeps: guarded (longer routes where\n"
	"                           shift congests no more than fresh, default), minimal\n"
	"                           (no route longer than fresh) or fewest (any one)\n"
	"      --shortest-detours   switches with no up*-down* route take a shortest one,\n"
	"                           those that need it on VL 1 (OpenSM: QoS on)\n"
	"      --vls N              the fabric's links run N data VLs (OperVLs VL0-3: 4;\n"
	"                           default 4): routes that start at switches take VL 1\n"
	"                           and on where they need it, up to VL N-1\n"
	"      --node-name-map F    names for nodes by GUID in the outputs (infiniband-diags'\n"
	"                           format; default " VT_NODE_NAME_MAP_DEFAULT " when present)\n"
	"  -q, --quiet              print nothing but errors\n"
	"  -v, --verbose            also time loading, routing, writing and the repair's steps\n"
	"                           (twice: also why each refused candidate was)\n"
	"  -h, --help               this summary\n"
	"  -V, --version            the release\n"
	"See vartree-route(1).\n";

static void log_stderr(void *ctx, enum vt_log_level level, const char *func, const char *msg)
{
	(void)ctx;
	(void)level;
	(void)func;
	fprintf(stderr, PROG ": %s\n", msg);
}

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* A refused fabric is a failed check (1); unreadable input or unwritable output, status 2. */
static int report(int status, const char *msg)
{
	fprintf(stderr, PROG ": %s\n", msg);
	return status;
}

/* The files asked for besides the tables; each appears whole or not at all. */
struct extra_outs {
	const char *order; /* --order-out */
	enum vt_order_format order_fmt;
	const char *slurm; /* --slurm-topology */
	const vt_tree *tree;
	int lft_binary; /* --lft-format binary */
};

/*
 * Every output is written to a temporary file before any is renamed into
 * place, so a failure (a bad --order-out directory, a full disk) leaves none.
 */
static int write_outputs(const char *out, const struct extra_outs *x, const vt_lfts *lfts,
			 const vt_order *order, const vt_fabric *f, long *bytes, vt_err *e)
{
	vt_out lo = {0}, oo = {0}, so = {0};

	if (vt_out_open(&lo, out, e))
		return -1;
	if (x->order && vt_out_open(&oo, x->order, e))
		goto fail;
	if (x->slurm && vt_out_open(&so, x->slurm, e))
		goto fail;
	if (x->lft_binary ? vt_lfts_write_bin(lfts, f, lo.fp, e)
			  : vt_lfts_write(lfts, f, lo.fp, e)) {
		vt_out_fail(&lo, e);
		goto fail;
	}
	*bytes = ftell(lo.fp); /* -1 on a pipe */
	if (x->order && vt_order_write_format(order, f, x->order_fmt, oo.fp, e)) {
		vt_out_fail(&oo, e);
		goto fail;
	}
	if (x->slurm && vt_sched_slurm(x->tree, so.fp, e)) {
		vt_out_fail(&so, e);
		goto fail;
	}
	/* the small files first: if the tables then fail to land, take them back */
	if (x->order && vt_out_commit(&oo, e))
		goto fail;
	if (x->slurm && vt_out_commit(&so, e)) {
		if (x->order)
			unlink(x->order);
		goto fail;
	}
	if (vt_out_commit(&lo, e)) {
		if (x->order)
			unlink(x->order);
		if (x->slurm)
			unlink(x->slurm);
		return -1;
	}
	return 0;
fail:
	vt_out_abort(&so);
	vt_out_abort(&oo);
	vt_out_abort(&lo);
	return -1;
}

/* What the command line asks for. */
struct opts {
	const char *topo, *out, *name_map, *files[3]; /* root, cn, io GUID files */
	struct extra_outs x;
	int quiet, verbose;
	int shortest_detours; /* --shortest-detours */
	unsigned lmc;	      /* 0: keep the CA LIDs of the file */
	unsigned vls;	      /* --vls: data VLs of the fabric, 0 not given */
	const char *previous; /* --previous: tables to repair instead of replace */
	enum vt_repair_policy policy;
	int repair_set; /* --repair given: refused without --previous */
};

/* Two outputs naming one file: the second would silently replace the first. */
static int same_output(const char *a, const char *b)
{
	struct stat sa, sb;
	int a_std = !a || !strcmp(a, "-");

	if (!b)
		return 0;
	if (!strcmp(b, "-"))
		return a_std;
	if (a_std)
		return 0;
	if (!stat(a, &sa) && !stat(b, &sb))
		/* /dev/null and other character devices take any number of outputs */
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && !S_ISCHR(sa.st_mode);
	return !strcmp(a, b);
}

/* An output naming an input file (by identity): writing it would replace the input. */
static int is_input(const char *out, const char *in)
{
	struct stat so, si;

	return out && in && strcmp(out, "-") && !stat(out, &so) && !stat(in, &si) &&
	       so.st_dev == si.st_dev && so.st_ino == si.st_ino && S_ISREG(so.st_mode);
}

/* Refuses an output that is one of the input files. */
static void check_outputs(const struct vt_cli *cli, const struct opts *o)
{
	const char *outs[] = {o->out, o->x.order, o->x.slurm};
	const char *const oname[] = {"--output", "--order-out", "--slurm-topology"};
	const char *ins[] = {o->topo,	  o->previous, o->name_map,
			     o->files[0], o->files[1], o->files[2]};
	const char *const iname[] = {"the topology",	 "--previous",	   "--node-name-map",
				     "--root-guid-file", "--cn-guid-file", "--io-guid-file"};

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 6; j++)
			if (is_input(outs[i], ins[j]))
				vt_cli_usage(cli,
					     "%s '%s' is an input file (%s): it would be replaced",
					     oname[i], outs[i], iname[j]);
}

/* An output option given twice: the first would be silently dropped. */
static const char *once(const struct vt_cli *cli, const char *opt, const char *old)
{
	if (old)
		vt_cli_usage(cli, "%s given twice ('%s' and '%s')", opt, old, optarg);
	return optarg;
}

/* The tree topology.conf describes: plane 0's on a multi-rail fabric, as vt_route routes it. */
static int slurm_tree(const vt_fabric *f, const struct vt_route_opts *ro, vt_tree *t,
		      uint32_t **plane, vt_err *e)
{
	struct vt_tree_opts to = {.root_guids = ro->root_guids,
				  .nroots = ro->nroots,
				  .cn_guids = ro->cn_guids,
				  .ncns = ro->ncns,
				  .io_guids = ro->io_guids,
				  .nios = ro->nios,
				  .root_file = ro->root_file,
				  .cn_file = ro->cn_file,
				  .io_file = ro->io_file,
				  .root_lines = ro->root_lines};

	*plane = malloc(((size_t)f->nswitches + 1) * sizeof(**plane));
	if (!*plane)
		return vt_err_set(e, "out of memory");
	uint32_t np = vt_route_planes(f, *plane);
	if (np == VT_NONE)
		return vt_err_set(e, "out of memory");
	if (np > 1)
		to.plane_of = *plane;
	return vt_tree_build(t, f, &to, e);
}

/* --previous and --repair, apart from the other options. */
static void parse_repair_opt(struct vt_cli *cli, int c, struct opts *o)
{
	/* in the order of enum vt_repair_policy */
	static const char *const policies[] = {"minimal", "fewest", "guarded", NULL};

	if (c == 'P')
		o->previous = optarg;
	else
		o->policy = (enum vt_repair_policy)vt_cli_choice(cli, "--repair", optarg, policies);
	o->repair_set |= c != 'P';
}

static const struct option long_opts[] = {
	{"output", required_argument, 0, 'o'},
	{"lft-format", required_argument, 0, 'L'},
	{"order-out", required_argument, 0, 'O'},
	{"order-format", required_argument, 0, 'F'},
	{"slurm-topology", required_argument, 0, 'S'},
	{"node-name-map", required_argument, 0, 'N'},
	{"root-guid-file", required_argument, 0, 'a'},
	{"cn-guid-file", required_argument, 0, 'u'},
	{"io-guid-file", required_argument, 0, 'G'},
	{"lmc", required_argument, 0, 'l'},
	{"previous", required_argument, 0, 'P'},
	{"repair", required_argument, 0, 'R'},
	{"shortest-detours", no_argument, 0, 'D'},
	{"vls", required_argument, 0, 'W'},
	{"quiet", no_argument, 0, 'q'},
	{"verbose", no_argument, 0, 'v'},
	{"help", no_argument, 0, 'h'},
	{"version", no_argument, 0, VT_OPT_VERSION},
	{0, 0, 0, 0},
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const char *const lft_formats[] = {"dump", "binary", NULL};
	static const char *const order_formats[] = {"ca-order", "hostfile", "rankfile",
						    "machinefile", NULL};
	struct vt_cli cli;
	int c, have_fmt = 0;

	vt_cli_init(&cli, PROG, usage, "o:qvh", long_opts, argc, argv);
	o->policy = VT_REPAIR_GUARDED;
	while ((c = vt_cli_next(&cli)) != -1) {
		switch (c) {
		case 'o':
			o->out = once(&cli, "-o/--output", o->out);
			break;
		case 'L':
			o->x.lft_binary = vt_cli_choice(&cli, "--lft-format", optarg, lft_formats);
			break;
		case 'O':
			o->x.order = once(&cli, "--order-out", o->x.order);
			break;
		case 'F':
			if (vt_order_format_parse(optarg, &o->x.order_fmt))
				vt_cli_choice(&cli, "--order-format", optarg, order_formats);
			have_fmt = 1;
			break;
		case 'S':
			o->x.slurm = once(&cli, "--slurm-topology", o->x.slurm);
			break;
		case 'N':
			o->name_map = optarg;
			break;
		case 'a':
		case 'u':
		case 'G':
			o->files[c == 'a' ? 0 : c == 'u' ? 1 : 2] = optarg;
			break;
		case 'l':
			o->lmc = (unsigned)vt_cli_uint(&cli, "--lmc", optarg, 0, 7);
			break;
		case 'P':
		case 'R':
			parse_repair_opt(&cli, c, o);
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'D':
			o->shortest_detours = 1;
			break;
		case 'W':
			o->vls = (unsigned)vt_cli_uint(&cli, "--vls", optarg, 1, VT_VL_MAX);
			break;
		case 'v':
			o->verbose++;
			break;
		}
	}
	vt_cli_needs(&cli, have_fmt, "--order-format", !!o->x.order, "--order-out FILE");
	vt_cli_needs(&cli, o->repair_set, "--repair", !!o->previous, "--previous LFTS");
	if (optind >= argc)
		vt_cli_usage(&cli, "no TOPOLOGY given");
	if (optind < argc - 1)
		vt_cli_usage(&cli, "one TOPOLOGY only, extra argument '%s'", argv[optind + 1]);
	o->topo = argv[optind];
	if (same_output(o->out, o->x.order))
		vt_cli_usage(&cli, "--order-out names the same file as --output: '%s'", o->x.order);
	if (same_output(o->out, o->x.slurm) || (o->x.order && same_output(o->x.order, o->x.slurm)))
		vt_cli_usage(&cli, "--slurm-topology names the same file as another output: '%s'",
			     o->x.slurm);
	check_outputs(&cli, o);
	if (o->quiet)
		o->verbose = 0;
}

/* The fabric, with CA LIDs under --lmc as vt_fabric_lmc_lids() gives them. */
static int load_fabric(const struct opts *o, vt_fabric **f, vt_err *e)
{
	double t0 = now();
	vt_err why;

	if (vt_load(o->topo, f, e))
		return -1;
	if (o->verbose)
		fprintf(stderr, PROG ": loaded %u nodes in %.3f s\n", (*f)->nnodes, now() - t0);
	(*f)->vls = o->vls;
	if (!o->lmc)
		return 0;
	/* the rule vartree-analyze --lmc reads the tables with */
	return vt_fabric_lmc_lids(*f, o->lmc, &why, e) < 0 ? -1 : 0;
}

/* Everything one run holds, freed by run_free. */
struct run {
	uint64_t *guids[3];
	unsigned *roots_at; /* the root GUIDs' lines in their file */
	uint32_t ng[3];
	vt_fabric *f;
	vt_lfts lfts;
	vt_order order;
	struct vt_route_proof proof; /* what vt_route proved of lfts, for --previous */
	vt_tree tree;
	int have_tree;
	uint32_t *plane;
};

static void run_free(struct run *r)
{
	if (r->have_tree)
		vt_tree_free(&r->tree);
	free(r->plane);
	for (int i = 0; i < 3; i++)
		free(r->guids[i]);
	free(r->roots_at);
	vt_lfts_free(&r->lfts);
	vt_order_free(&r->order);
	vt_route_proof_free(&r->proof);
	vt_fabric_free(r->f);
}

/*
 * -v: the repair's CPU by step (tables, then each candidate tried: build,
 * guard, audit); -vv: under each refused candidate, why.
 */
static void print_steps(const struct vt_repair_stats *st, double cpu, int why)
{
	double sum = 0;

	for (uint32_t i = 0; i < st->nsteps; i++) {
		const struct vt_repair_step *s = &st->step[i];

		sum += s->build + s->guard + s->audit;
		fprintf(stderr, PROG ": repair step %-34s %c build %.3f guard %.3f audit %.3f s\n",
			s->what, s->verdict, s->build, s->guard, s->audit);
		if (why && s->why[0])
			fprintf(stderr, PROG ": repair step %s refused: %s\n", s->what, s->why);
	}
	fprintf(stderr, PROG ": repair step %-34s   %.3f s\n", "other", cpu - sum);
}

/*
 * The shift count of prev over the ranks, which the plugin keeps from the
 * sweep that installed prev (vt_route_guard_kept.h), for the guarded and
 * minimal repairs (fewest has no guard); *s its CPU seconds. NULL where
 * none (out of memory: the repair counts as without it).
 */
static vt_guard_kept *keep_count(const struct opts *o, struct run *r, const vt_lfts *prev,
				 double *s, vt_err *e)
{
	double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	vt_guard_kept *k;

	if (o->policy == VT_REPAIR_FEWEST || r->order.n < 2)
		return NULL;
	k = vt_guard_kept_new(r->f, prev, &r->order, e);
	if (k)
		*s = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	return k;
}

/*
 * --previous: the earlier sweep's tables kept wherever they still serve
 * (vt_route_repair); the counts go to stderr. VT_EXIT_USAGE when the file
 * cannot be used.
 */
static int repair_previous(const struct opts *o, struct run *r, vt_err *e)
{
	static const char *const mode[] = {
		"repaired", "fresh (the fabric gained since)", "fresh (repair refused)",
		"switch routes repaired, CA routes fresh", "kept (the fabric gained since)"};
	struct vt_repair_stats st;
	vt_lfts prev = {0}, fresh = r->lfts;
	vt_guard_kept *kept;
	double t1, cpu, kept_s = -1;
	int rc;

	if (vt_lfts_read_prev(&prev, r->f, o->previous, e))
		return VT_EXIT_USAGE;
	/* not a repair of the fabric's tables: "the fabric gained" would mislead */
	if (vt_repair_foreign(r->f, &prev, st.why, sizeof(st.why))) {
		vt_lfts_free(&prev);
		vt_err_set(e, "--previous %s: tables of another fabric (%s)", o->previous, st.why);
		return VT_EXIT_USAGE;
	}
	/* the fresh tables for the forced minimum, which the repair replaces */
	fresh.port = o->quiet ? NULL : malloc((size_t)fresh.nsw * fresh.nlid + 1);
	if (!o->quiet && !fresh.port) {
		vt_lfts_free(&prev);
		vt_err_nomem(e, "out of memory");
		return VT_EXIT_USAGE;
	}
	if (fresh.port)
		memcpy(fresh.port, r->lfts.port, (size_t)fresh.nsw * fresh.nlid);
	/*
	 * the plugin keeps the installed tables' shift count from one sweep to
	 * the next, made after its routing returns: counted here outside the
	 * repair's time (the count taken out for the LIDs whose paths lost a
	 * link, as the plugin's remapping does, stays in it)
	 */
	kept = keep_count(o, r, &prev, &kept_s, e);
	t1 = now();
	cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	rc = vt_route_repair_kept(r->f, &prev, &r->lfts, &r->order, &r->proof, o->policy, kept, &st,
				  e);
	t1 = now() - t1;
	cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu;
	vt_guard_kept_free(kept);
	/* a yardstick, not part of the repair: counted after its time was taken */
	if (!rc && fresh.port)
		rc = vt_repair_forced_figures(r->f, &prev, &fresh, &st, e);
	vt_lfts_free(&prev);
	free(fresh.port);
	if (rc)
		return VT_EXIT_USAGE;
	if (o->quiet)
		return 0;
	fprintf(stderr,
		PROG ": against %s: %s: %" PRIu64 " entries in %" PRIu64
		     " blocks changed (fresh route: %" PRIu64 " in %" PRIu64 "; minimum %" PRIu64
		     " in %" PRIu64 ": link lost; forced minimum %" PRIu64 " in %" PRIu64 ")\n",
		o->previous, mode[st.mode], st.changed, st.blocks, st.fresh_changed,
		st.fresh_blocks, st.minimum, st.minimum_blocks, st.forced, st.forced_blocks);
	/* beside the routing's line: the repair's own cost, what OpenSM adds after a fault */
	fprintf(stderr, PROG ": repair in %.3f s (CPU %.3f s)\n", t1, cpu);
	if (kept_s >= 0)
		fprintf(stderr,
			PROG ": previous tables' shift count (kept by the plugin between sweeps) "
			     "CPU %.3f s, not in the repair's\n",
			kept_s);
	if (o->verbose)
		print_steps(&st, cpu, o->verbose > 1);
	if (st.mode != VT_REPAIR_DONE)
		fprintf(stderr, PROG ": %s\n", st.why);
	if (st.longer)
		fprintf(stderr,
			PROG ": %" PRIu64 " entries route to a CA in more hops than the fresh "
			     "tables (--repair minimal keeps none)\n",
			st.longer);
	return 0;
}

/* Routes the fabric: 0, VT_EXIT_CHECK when vartree refuses it, VT_EXIT_USAGE on bad input. */
static int route(struct opts *o, struct run *r, vt_err *e)
{
	struct vt_route_opts ro = {0};
	double t1, cpu;

	for (int i = 0; i < 3; i++)
		if (o->files[i] && vt_guid_file_read(o->files[i], &r->guids[i],
						     i ? NULL : &r->roots_at, &r->ng[i], e))
			return VT_EXIT_USAGE;
	if (load_fabric(o, &r->f, e))
		return VT_EXIT_USAGE;
	ro.root_guids = r->guids[0];
	ro.nroots = r->ng[0];
	ro.cn_guids = r->guids[1];
	ro.ncns = r->ng[1];
	ro.io_guids = r->guids[2];
	ro.nios = r->ng[2];
	ro.root_file = o->files[0];
	ro.cn_file = o->files[1];
	ro.io_file = o->files[2];
	ro.root_lines = r->roots_at;
	ro.shortest_detours = o->shortest_detours;
	ro.proof = o->previous ? &r->proof : NULL;
	ro.log = o->quiet ? NULL : log_stderr;
	ro.log_level = VT_LOG_INFO;
	t1 = now();
	cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	if (vt_route(r->f, &ro, &r->lfts, &r->order, e))
		return VT_EXIT_CHECK;
	/* CPU time too: on a shared machine the wall clock also counts other processes' turns */
	if (!o->quiet)
		fprintf(stderr, PROG ": routed %u switches x %u LIDs in %.3f s (CPU %.3f s)\n",
			r->lfts.nsw, r->lfts.nlid, now() - t1,
			clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu);
	if (o->previous) {
		int rc = repair_previous(o, r, e);

		if (rc)
			return rc;
	}
	if (o->x.slurm) {
		if (slurm_tree(r->f, &ro, &r->tree, &r->plane, e))
			return VT_EXIT_CHECK;
		r->have_tree = 1;
		o->x.tree = &r->tree;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	struct run r = {0};
	vt_err e;
	double t2;
	long bytes = -1;
	int rc;

	parse_args(argc, argv, &o);
	vt_out_catch_signals();
	rc = route(&o, &r, &e);
	if (rc) {
		report(rc, e.msg);
		goto out;
	}
	t2 = now();
	/* renames for the outputs only: tables and order come from the real descriptions */
	if (vt_namemap_apply(r.f, o.name_map, NULL, &e) ||
	    write_outputs(o.out, &o.x, &r.lfts, &r.order, r.f, &bytes, &e)) {
		rc = report(VT_EXIT_USAGE, e.msg);
		goto out;
	}
	if (!o.quiet && !o.x.lft_binary && bytes >= TEXT_HINT_BYTES)
		fprintf(stderr,
			PROG ": the tables took %.1f MB as text; --lft-format binary writes them "
			     "in about %.1f MB (one byte per entry), which vartree-analyze, -sim, "
			     "-trace "
			     "and --previous read (OpenSM's file engine reads the text only)\n",
			bytes / 1e6, (double)r.lfts.nsw * r.lfts.nlid / 1e6);
	if (o.verbose)
		fprintf(stderr, PROG ": wrote the outputs in %.3f s\n", now() - t2);
out:
	run_free(&r);
	return rc;
}
