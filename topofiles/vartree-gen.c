/* SPDX-License-Identifier: MIT */
/* vartree-gen: writes a generated fabric in ibnetdiscover form, or prints its figures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/vt_cli.h"
#include "gen/vt_gen.h"
#include "base/vt_io.h"
#include "out/vt_json.h"
#include "io/vt_namemap.h"
#include "io/vt_write.h"

static const char usage[] =
	"usage: vartree-gen SPEC [options] [-o FILE]\n"
	"Writes a generated fabric in the ibnetdiscover form that ibsim also loads.\n"
	"\n"
	"SPEC (one argument or several words):\n"
	"  fat K,N                 k-ary-n-tree: K^N hosts, N*K^(N-1) switches of 2K ports\n"
	"  thin K:K',N             k:k',n-thin-tree (Navaridas et al.)\n"
	"  slender K:K',N          k:k',n-slender-tree (K' < K, K' divides K)\n"
	"  varary D0,..:U0,..[:P0,..]  var-ary-n-tree: per level from the leaves, children D,\n"
	"                          parents U and links per parent P (Zahavi et al.)\n"
	"  pruned RADIX,PODS       3-level fat-tree of RADIX-port switches cut to PODS pods\n"
	"  oversub L,H,U,S         2-level tree: L leaves with H hosts and U up-links, S spines\n"
	"  clique N                N/2+1 switches of N ports, fully connected (Matsuoka)\n"
	"  gpu [PODS]              GPU cluster: 3-level tree of 40-port switches, PODS (default "
	"4)\n"
	"                          pods of 20 nodes x 4 HCAs (\"gpu017 mlx5_0\"..\"mlx5_3\") on "
	"rail\n"
	"                          leaves, aggregation nodes, 4 management HCAs on the top, HDR\n"
	"  superpod SUS,RAILS,NODES,SPINES,CORES[,GROUPS]\n"
	"                          split core, SuperPOD style: SUS scalable units of RAILS rail\n"
	"                          leaves (NODES hosts each), SPINES spines per rail, GROUPS\n"
	"                          (default SPINES) core groups of CORES tops, each group linked\n"
	"                          to its share of every rail's spines only\n"
	"  cores CHASSIS,LINES,SPINES,LEAVES,HOSTS\n"
	"                          split core of 2 or more director chassis (LINES line and\n"
	"                          SPINES spine ASICs each, linked inside the chassis only);\n"
	"                          LEAVES leaves with HOSTS hosts and HOSTS up-links dealt\n"
	"                          round robin over the line ASICs, chassis alternating\n"
	"  uneven H0,..:U0,..:SPINES  irregular 2-level tree: leaf i with Hi hosts (0: none)\n"
	"                          and Ui up-links, up-link u to spine u mod SPINES (the first\n"
	"                          spines get more down-links); at most 64 leaves\n"
	"  rails R FAMILY ...      R independent planes, every host with R ports\n"
	"\n"
	"options:\n"
	"  -o, --output FILE       write the fabric to FILE (default: stdout)\n"
	"  --stats                 print hosts, switches, links, radix, levels, bisection and\n"
	"                          cost per host instead of the fabric (both with -o)\n"
	"  --used K                with --stats: also the switches, links and cost a job on\n"
	"                          the K central hosts uses (Navaridas et al. Table 2b U)\n"
	"  --hosts-per-leaf H      populate only the first H host ports of every leaf\n"
	"  --drop-hosts N          remove N hosts chosen by the seed\n"
	"  --drop-links N[@LEVEL]  remove N switch links (between LEVEL and LEVEL+1)\n"
	"  --drop-switches N[@LEVEL]  remove N switches (default: of the top level)\n"
	"  --seed S                seed of the removals (default 1)\n"
	"  --speed SPEED           SDR DDR QDR FDR10 FDR EDR HDR NDR XDR (default QDR)\n"
	"  --width W               1 2 4 8 12 (default 4)\n"
	"  --leaf-uplinks N:U      N leaves (by seed) keep only their first U up-links\n"
	"  --slow-leaves N[@SPEED]  N leaves (by seed) run all their links at SPEED (default\n"
	"                          DDR): mixed speeds\n"
	"  --no-lids               write lid 0 (leave LIDs to the subnet manager)\n"
	"  --node-name-map FILE    descriptions for nodes by GUID (infiniband-diags' format;\n"
	"                          only when given: generated files do not depend on /etc)\n"
	"features of real fabrics (applied after the removals):\n"
	"  --aggregation-nodes     a SHArP Aggregation Node on one extra port of every switch\n"
	"  --director MODEL[@LEVEL]  switch levels LEVEL and LEVEL+1 (default: the top two) as\n"
	"                          director chassis: CS7500 CS7510 CS7520 CS8500\n"
	"  --director MODEL:bypass  leaves cabled straight to every line ASIC (level 1) of a\n"
	"                          chassis; spine ASICs added, which the leaves' up-links bypass\n"
	"  --loopbacks N           N cables between two free ports of one switch (by seed)\n"
	"  --hostless-leaves N     N leaves without hosts (by seed)\n"
	"  --spine-cas N[:dual]    N storage HCAs on the top switches, dual: on two of them\n"
	"  --multi-pf              hosts as multi-PF adapters (node GUID = port GUID; ibsim\n"
	"                          cannot load these)\n"
	"  -h, --help              this text\n"
	"  -V, --version           the release\n";

static void print_stats(FILE *fp, const struct vt_gen_spec *s, const struct vt_gen_stats *st)
{
	fprintf(fp, "spec           %s\n", s->text);
	fprintf(fp, "hosts          %u\n", st->hosts);
	fprintf(fp, "host ports     %u\n", st->host_ports);
	if (st->aggregation)
		fprintf(fp, "aggregation    %u\n", st->aggregation);
	fprintf(fp, "switches       %u\n", st->switches);
	fprintf(fp, "links          %u\n", st->links);
	fprintf(fp, "radix          %u\n", st->radix);
	fprintf(fp, "radix in use   %u\n", st->radix_used);
	fprintf(fp, "levels         %u\n", st->levels);
	fprintf(fp, "bisection      %u\n", st->bisection);
	/* costs rounded as vartree-sweep's CSV and JSON round them (1003.125 -> 1003.13) */
	fprintf(fp, "cost           %.2f\n", vt_json_round(st->cost, 2));
	fprintf(fp, "cost per host  %.2f\n", vt_json_round(st->cost_per_host, 2));
	if (!st->used_hosts)
		return;
	fprintf(fp, "used hosts     %u\n", st->used_hosts);
	fprintf(fp, "used switches  %u\n", st->used_switches);
	fprintf(fp, "used links     %u\n", st->used_links);
	fprintf(fp, "used cost      %.2f\n", vt_json_round(st->used_cost, 2));
	fprintf(fp, "used cost per host %.2f\n", vt_json_round(st->used_cost_per_host, 2));
}

#define PROG "vartree-gen"

/* What the command line asks for; the fabric options in the order given, as NAME[=VALUE]. */
struct opts {
	char spec[256];
	const char *outpath, *name_map;
	int stats, nolids;
	uint32_t used; /* --used K, 0: not given */
	char **gen_opts;
	int ngen;
};

/* Numbers through the command-line layer; compound values (N@LEVEL, MODEL) are vt_gen's. */
static void check_value(const struct vt_cli *cli, const char *name, const char *v)
{
	static const char *const widths[] = {"1", "2", "4", "8", "12", NULL};

	if (!strcmp(name, "seed"))
		vt_cli_uint(cli, "--seed", v, 0, UINT64_MAX);
	else if (!strcmp(name, "hosts-per-leaf"))
		vt_cli_uint(cli, "--hosts-per-leaf", v, 1, 1000000);
	else if (!strcmp(name, "drop-hosts") || !strcmp(name, "loopbacks") ||
		 !strcmp(name, "hostless-leaves")) {
		char opt[40];

		snprintf(opt, sizeof(opt), "--%s", name);
		vt_cli_uint(cli, opt, v, 0, 1000000);
	} else if (!strcmp(name, "width")) {
		vt_cli_choice(cli, "--width", v, widths);
	} else if (!strcmp(name, "speed")) {
		vt_cli_speed(cli, "--speed", v);
	}
}

/* A fabric option kept as "NAME=VALUE" (or "NAME" for a flag), as vt_gen_option takes it. */
static void keep_gen_opt(const struct vt_cli *cli, struct opts *o, const char *name)
{
	size_t n = strlen(name) + (optarg ? strlen(optarg) + 2 : 1);
	char *w = malloc(n);

	if (!w)
		vt_cli_die(PROG, VT_EXIT_USAGE, "out of memory");
	if (optarg) {
		check_value(cli, name, optarg);
		snprintf(w, n, "%s=%s", name, optarg);
	} else {
		snprintf(w, n, "%s", name);
	}
	o->gen_opts[o->ngen++] = w;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{"output", required_argument, 0, 'o'},
		{"stats", no_argument, 0, 's'},
		{"used", required_argument, 0, 'u'},
		{"no-lids", no_argument, 0, 'n'},
		{"node-name-map", required_argument, 0, 'N'},
		{"help", no_argument, 0, 'h'},
		{"version", no_argument, 0, VT_OPT_VERSION},
		/* the fabric's own options (value 'g'), passed on to vt_gen_option */
		{"hosts-per-leaf", required_argument, 0, 'g'},
		{"drop-hosts", required_argument, 0, 'g'},
		{"drop-links", required_argument, 0, 'g'},
		{"drop-switches", required_argument, 0, 'g'},
		{"seed", required_argument, 0, 'g'},
		{"speed", required_argument, 0, 'g'},
		{"width", required_argument, 0, 'g'},
		{"director", required_argument, 0, 'g'},
		{"loopbacks", required_argument, 0, 'g'},
		{"hostless-leaves", required_argument, 0, 'g'},
		{"spine-cas", required_argument, 0, 'g'},
		{"leaf-uplinks", required_argument, 0, 'g'},
		{"slow-leaves", required_argument, 0, 'g'},
		{"aggregation-nodes", no_argument, 0, 'g'},
		{"multi-pf", no_argument, 0, 'g'},
		{0, 0, 0, 0},
	};
	struct vt_cli cli;
	int c;

	o->gen_opts = calloc((size_t)argc, sizeof(*o->gen_opts));
	if (!o->gen_opts)
		vt_cli_die(PROG, VT_EXIT_USAGE, "out of memory");
	vt_cli_init(&cli, PROG, usage, "o:h", lo, argc, argv);
	while ((c = vt_cli_next(&cli)) != -1) {
		if (c == 'o')
			o->outpath = optarg;
		else if (c == 's')
			o->stats = 1;
		else if (c == 'n')
			o->nolids = 1;
		else if (c == 'u')
			o->used = (uint32_t)vt_cli_uint(&cli, "--used", optarg, 1, 100000000);
		else if (c == 'N')
			o->name_map = optarg;
		else if (c == 'g')
			keep_gen_opt(&cli, o, lo[cli.longindex].name);
	}
	/* the spec: one argument or several words */
	for (; optind < argc; optind++) {
		size_t len = strlen(o->spec);

		if (len + strlen(argv[optind]) + 2 > sizeof(o->spec))
			vt_cli_usage(&cli, "spec too long");
		snprintf(o->spec + len, sizeof(o->spec) - len, "%s%s", len ? " " : "",
			 argv[optind]);
	}
	if (!o->spec[0])
		vt_cli_usage(&cli, "no SPEC given");
	vt_cli_needs(&cli, o->used > 0, "--used", o->stats, "--stats");
}

/* The fabric of the spec and options; the options stay in its source text, so the file says how it
 * was made. */
static int build(const struct opts *o, struct vt_gen_spec *s, vt_fabric **f, vt_err *e)
{
	if (vt_gen_parse(s, o->spec, e))
		return -1;
	for (int k = 0; k < o->ngen; k++) {
		if (vt_gen_option(s, o->gen_opts[k], e))
			return -1;
		if (strlen(s->text) + strlen(o->gen_opts[k]) + 2 < sizeof(s->text)) {
			strcat(s->text, " ");
			strcat(s->text, o->gen_opts[k]);
		}
	}
	if (vt_gen_build(s, f, e))
		return -1;
	return o->name_map ? vt_namemap_apply(*f, o->name_map, NULL, e) : 0;
}

static int write_fabric(const struct opts *o, const vt_fabric *f, vt_err *e)
{
	vt_out out;

	vt_out_catch_signals();
	if (vt_out_open(&out, o->outpath, e))
		return -1;
	if (vt_fabric_write_flags(f, out.fp, o->nolids ? VT_WRITE_NO_LIDS : 0, e)) {
		vt_out_fail(&out, e);
		return -1;
	}
	return vt_out_commit(&out, e);
}

/* Every failure is of the input (spec, option value, name map) or the output: status 2. */
int main(int argc, char **argv)
{
	struct opts o = {0};
	struct vt_gen_spec s;
	vt_fabric *f = NULL;
	vt_err e;
	int rc = VT_EXIT_USAGE;

	parse_args(argc, argv, &o);
	if (build(&o, &s, &f, &e))
		goto out;
	if (o.stats) {
		struct vt_gen_stats st;

		if (vt_gen_stats(f, &st)) {
			vt_err_set(&e, "out of memory");
			goto out;
		}
		if (o.used && vt_gen_stats_used(f, o.used, &st, &e))
			goto out;
		print_stats(stdout, &s, &st);
		if (vt_stdout_flush(&e))
			goto out;
	}
	if ((!o.stats || o.outpath) && write_fabric(&o, f, &e))
		goto out;
	rc = VT_EXIT_OK;
out:
	if (rc)
		fprintf(stderr, PROG ": %s\n", e.msg);
	vt_fabric_free(f);
	for (int k = 0; k < o.ngen; k++)
		free(o.gen_opts[k]);
	free(o.gen_opts);
	return rc;
}
