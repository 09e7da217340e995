/* SPDX-License-Identifier: MIT */
/* vartree-route: extract the var-ary-n-tree of a fabric, route it, write OpenSM LFTs. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "vt_io.h"
#include "vt_lftio.h"
#include "vt_load.h"
#include "vt_namemap.h"
#include "vt_route.h"
#include "vt_sched.h"
#include "vt_tree.h"
#include "vt_version.h"

static const char usage[] =
	"usage: vartree-route TOPOLOGY [options]\n"
	"Routes an ibnetdiscover/ibsim/cache fabric with vartree and writes its LFTs in\n"
	"OpenSM's opensm-lfts.dump format; the structure found goes to stderr.\n"
	"  -o, --output LFTS        forwarding tables here (default: stdout)\n"
	"      --lft-format F       their form: dump (opensm-lfts.dump, default) or binary\n"
	"                           (one byte per entry, read back by vartree-analyze/-sim)\n"
	"      --order-out FILE     compute-node order (MPI rank order) here\n"
	"      --order-format F     its form: ca-order (opensm-ftree-ca-order.dump, default),\n"
	"                           hostfile (one host name per rank), rankfile (Open MPI)\n"
	"      --slurm-topology F   Slurm topology.conf (topology/tree) of the tree found\n"
	"      --root-guid-file F   node GUIDs of the top switches\n"
	"      --cn-guid-file F     port GUIDs of the compute nodes\n"
	"      --io-guid-file F     port GUIDs of I/O nodes\n"
	"      --lmc N              reassign CA LIDs with LMC N (0..7) first\n"
	"      --node-name-map F    names for nodes by GUID in the outputs (infiniband-diags'\n"
	"                           format; default " VT_NODE_NAME_MAP_DEFAULT " when present)\n"
	"  -q, --quiet              print nothing but errors\n"
	"  -v, --verbose            also time loading, routing and writing\n"
	"  -h, --help               this summary\n"
	"      --version            the release\n"
	"See vartree-route(1).\n";

static void log_stderr(void *ctx, enum vt_log_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	fprintf(stderr, "vartree-route: %s\n", msg);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A fabric vartree refuses to route: the check failed, status 1. */
static int fail(const char *msg)
{
	fprintf(stderr, "vartree-route: %s\n", msg);
	return 1;
}

/* Input that cannot be read, or an output that cannot be written: status 2, as in every command. */
static int input_error(const char *msg)
{
	fprintf(stderr, "vartree-route: %s\n", msg);
	return 2;
}

/* A usage error: one line, status 2 (the whole usage would bury the cause). */
static int usage_error(const char *what, const char *opt)
{
	fprintf(stderr, "vartree-route: %s '%s'; see --help\n", what, opt);
	return 2;
}

/*
 * The option getopt_long stopped at, as the user typed it (without "=value").
 * optopt is 0 for an unknown long option and the option's value for a long
 * one with a missing or unwanted argument; argv[optind - 1] is the word read
 * last, unless getopt is inside a cluster of short options ("-qz").
 */
static const char *bad_option(char **argv, const struct option *lo, char *buf, size_t n)
{
	const char *a = argv[optind - 1];
	size_t len = strcspn(a, "=");
	int is_long = !strncmp(a, "--", 2) && !optopt;

	for (; !is_long && lo->name && optopt; lo++)
		is_long = lo->val == optopt && !strncmp(a, "--", 2) &&
			  !strncmp(a + 2, lo->name, len - 2) && !lo->name[len - 2];
	if (is_long)
		snprintf(buf, n, "%.*s", (int)len, a);
	else
		snprintf(buf, n, "-%c", optopt);
	return buf;
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
			 const vt_order *order, const vt_fabric *f, vt_err *e)
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
	if (!strcmp(a, b))
		return 1;
	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino && S_ISREG(sa.st_mode);
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
				  .nios = ro->nios};

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

int main(int argc, char **argv)
{
	static const struct option lo[] = {
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
		{"quiet", no_argument, 0, 'q'},
		{"verbose", no_argument, 0, 'v'},
		{"help", no_argument, 0, 'h'},
		{"version", no_argument, 0, VT_OPT_VERSION},
		{0, 0, 0, 0},
	};
	const char *out = NULL, *name_map = NULL, *files[3] = {NULL, NULL, NULL};
	struct extra_outs x = {0};
	vt_tree tree;
	uint32_t *plane = NULL;
	int have_tree = 0, have_fmt = 0;
	uint64_t *guids[3] = {NULL, NULL, NULL};
	uint32_t ng[3] = {0, 0, 0};
	struct vt_route_opts ro = {0};
	int quiet = 0, verbose = 0, c, rc = 1;
	char opt[64];
	long lmc = -1;
	vt_fabric *f = NULL;
	vt_lfts lfts = {0};
	vt_order order = {0};
	vt_err e;
	double t0, t1, t2, t3;

	opterr = 0; /* our one-line messages instead of getopt's */
	while ((c = getopt_long(argc, argv, ":o:qvh", lo, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'L':
			if (strcmp(optarg, "dump") && strcmp(optarg, "binary")) {
				fprintf(stderr,
					"vartree-route: --lft-format '%s': expected dump or "
					"binary\n",
					optarg);
				return 2;
			}
			x.lft_binary = !strcmp(optarg, "binary");
			break;
		case 'O':
			x.order = optarg;
			break;
		case 'F':
			if (vt_order_format_parse(optarg, &x.order_fmt)) {
				fprintf(stderr,
					"vartree-route: --order-format '%s': expected ca-order, "
					"hostfile or rankfile\n",
					optarg);
				return 2;
			}
			have_fmt = 1;
			break;
		case 'S':
			x.slurm = optarg;
			break;
		case 'N':
			name_map = optarg;
			break;
		case 'a':
			files[0] = optarg;
			break;
		case 'u':
			files[1] = optarg;
			break;
		case 'G':
			files[2] = optarg;
			break;
		case 'l': {
			char *end;

			lmc = strtol(optarg, &end, 10);
			if (end == optarg || *end || lmc < 0 || lmc > 7) {
				fprintf(stderr, "vartree-route: --lmc '%s': expected 0..7\n",
					optarg);
				return 2;
			}
			break;
		}
		case 'q':
			quiet = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case VT_OPT_VERSION:
			puts("vartree-route " VT_VERSION);
			return 0;
		case ':':
			return usage_error("missing value for",
					   bad_option(argv, lo, opt, sizeof(opt)));
		default:
			bad_option(argv, lo, opt, sizeof(opt));
			/* a long option without argument given "=value" */
			if (optopt && opt[1] == '-')
				return usage_error("no value expected for", opt);
			return usage_error("unknown option", opt);
		}
	}
	if (have_fmt && !x.order) {
		fputs("vartree-route: --order-format needs --order-out FILE; see --help\n", stderr);
		return 2;
	}
	if (optind >= argc) {
		fputs("vartree-route: no TOPOLOGY given; see --help\n", stderr);
		return 2;
	}
	if (optind < argc - 1)
		return usage_error("one TOPOLOGY only, extra argument", argv[optind + 1]);
	if (same_output(out, x.order))
		return usage_error("--order-out names the same file as --output:", x.order);
	if (same_output(out, x.slurm) || (x.order && same_output(x.order, x.slurm)))
		return usage_error("--slurm-topology names the same file as another output:",
				   x.slurm);
	if (quiet)
		verbose = 0;
	vt_out_catch_signals();
	for (int i = 0; i < 3; i++)
		if (files[i] && vt_guid_file_read(files[i], &guids[i], &ng[i], &e)) {
			rc = input_error(e.msg);
			goto out;
		}
	t0 = now();
	if (vt_load(argv[optind], &f, &e)) {
		rc = input_error(e.msg);
		goto out;
	}
	t1 = now();
	if (verbose)
		fprintf(stderr, "vartree-route: loaded %u nodes in %.3f s\n", f->nnodes, t1 - t0);
	if (lmc > 0) {
		/* re-assign CA LIDs with the requested LMC, as OpenSM would */
		for (uint32_t q = 0; q < f->nports; q++)
			if (f->nodes[f->ports[q].node].type != VT_SWITCH) {
				f->ports[q].lid = 0;
				f->ports[q].lmc = 0;
			}
		if (vt_fabric_finish(f, (unsigned)lmc, &e)) {
			rc = input_error(e.msg);
			goto out;
		}
	}
	ro.root_guids = guids[0];
	ro.nroots = ng[0];
	ro.cn_guids = guids[1];
	ro.ncns = ng[1];
	ro.io_guids = guids[2];
	ro.nios = ng[2];
	ro.log = quiet ? NULL : log_stderr;
	ro.log_level = VT_LOG_INFO;
	t1 = now();
	if (vt_route(f, &ro, &lfts, &order, &e)) {
		fail(e.msg);
		goto out;
	}
	t2 = now();
	if (!quiet)
		fprintf(stderr, "vartree-route: routed %u switches x %u LIDs in %.3f s\n", lfts.nsw,
			lfts.nlid, t2 - t1);
	if (x.slurm) {
		if (slurm_tree(f, &ro, &tree, &plane, &e)) {
			fail(e.msg);
			goto out;
		}
		have_tree = 1;
		x.tree = &tree;
	}
	/* renames for the outputs only: tables and order come from the real descriptions */
	if (vt_namemap_apply(f, name_map, NULL, &e)) {
		rc = input_error(e.msg);
		goto out;
	}
	if (write_outputs(out, &x, &lfts, &order, f, &e)) {
		rc = input_error(e.msg);
		goto out;
	}
	t3 = now();
	if (verbose)
		fprintf(stderr, "vartree-route: wrote the outputs in %.3f s\n", t3 - t2);
	rc = 0;
out:
	if (have_tree)
		vt_tree_free(&tree);
	free(plane);
	for (int i = 0; i < 3; i++)
		free(guids[i]);
	vt_lfts_free(&lfts);
	vt_order_free(&order);
	vt_fabric_free(f);
	return rc;
}
