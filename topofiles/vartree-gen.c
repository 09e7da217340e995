/* SPDX-License-Identifier: MIT */
/* vartree-gen: writes a generated fabric in ibnetdiscover form, or prints its figures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vt_gen.h"
#include "vt_io.h"
#include "vt_namemap.h"
#include "vt_version.h"
#include "vt_write.h"

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
	"  rails R FAMILY ...      R independent planes, every host with R ports\n"
	"\n"
	"options:\n"
	"  -o, --output FILE       write the fabric to FILE (default: stdout)\n"
	"  --stats                 print hosts, switches, links, radix, levels, bisection and\n"
	"                          cost per host instead of the fabric (both with -o)\n"
	"  --hosts-per-leaf H      populate only the first H host ports of every leaf\n"
	"  --drop-hosts N          remove N hosts chosen by the seed\n"
	"  --drop-links N[@LEVEL]  remove N switch links (between LEVEL and LEVEL+1)\n"
	"  --drop-switches N[@LEVEL]  remove N switches (default: of the top level)\n"
	"  --seed S                seed of the removals (default 1)\n"
	"  --speed SPEED           SDR DDR QDR FDR10 FDR EDR HDR NDR (default QDR)\n"
	"  --width W               1 2 4 8 12 (default 4)\n"
	"  --no-lids               write lid 0 (leave LIDs to the subnet manager)\n"
	"  --node-name-map FILE    descriptions for nodes by GUID (infiniband-diags' format;\n"
	"                          only when given: generated files do not depend on /etc)\n"
	"features of real fabrics (applied after the removals):\n"
	"  --aggregation-nodes     a SHArP Aggregation Node on one extra port of every switch\n"
	"  --director MODEL[@LEVEL]  switch levels LEVEL and LEVEL+1 (default: the top two) as\n"
	"                          director chassis: CS7500 CS7510 CS7520 CS8500\n"
	"  --loopbacks N           N cables between two free ports of one switch (by seed)\n"
	"  --hostless-leaves N     N leaves without hosts (by seed)\n"
	"  --spine-cas N[:dual]    N storage HCAs on the top switches, dual: on two of them\n"
	"  --multi-pf              hosts as multi-PF adapters (node GUID = port GUID; ibsim\n"
	"                          cannot load these)\n"
	"  -h, --help              this text\n"
	"  --version               the release\n";

static const char *const valued[] = {
	"hosts-per-leaf", "drop-hosts", "drop-links", "drop-switches",	 "seed",      "speed",
	"width",	  "director",	"loopbacks",  "hostless-leaves", "spine-cas", NULL};

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
	fprintf(fp, "cost           %.2f\n", st->cost);
	fprintf(fp, "cost per host  %.2f\n", st->cost_per_host);
}

static int die(const char *msg)
{
	fprintf(stderr, "vartree-gen: %s\n", msg);
	return 1;
}

/* A command line that cannot be read at all: exit 2, as without a spec. */
static int usage_error(const char *msg)
{
	fprintf(stderr, "vartree-gen: %s\n", msg);
	return 2;
}

int main(int argc, char **argv)
{
	char spec[256] = "", opt[300];
	const char *outpath = NULL, *name_map = NULL;
	int stats = 0, nolids = 0;
	struct vt_gen_spec s;
	vt_fabric *f = NULL;
	vt_out out;
	vt_err e;
	static char opts[64][300];
	int nopts = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		}
		if (!strcmp(a, "--version")) {
			puts("vartree-gen " VT_VERSION);
			return 0;
		}
		if (!strcmp(a, "--stats")) {
			stats = 1;
		} else if (!strcmp(a, "--no-lids")) {
			nolids = 1;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			if (++i == argc)
				return usage_error("-o needs a file name");
			outpath = argv[i];
		} else if (!strncmp(a, "--output=", 9)) {
			outpath = a + 9;
		} else if (!strcmp(a, "--node-name-map")) {
			if (++i == argc)
				return usage_error("--node-name-map needs a file name");
			name_map = argv[i];
		} else if (!strncmp(a, "--", 2)) {
			int known = 0;

			for (int k = 0; valued[k]; k++)
				known |= !strcmp(a + 2, valued[k]);
			if (known) {
				if (++i == argc) {
					snprintf(opt, sizeof(opt), "%s needs a value", a);
					return usage_error(opt);
				}
				snprintf(opt, sizeof(opt), "%s=%s", a + 2, argv[i]);
			} else if (strchr(a, '=') || vt_gen_real_is_flag(a)) {
				snprintf(opt, sizeof(opt), "%s", a + 2);
			} else {
				snprintf(opt, sizeof(opt), "unknown option '%s' (see --help)", a);
				return usage_error(opt);
			}
			if (nopts == 64)
				return usage_error("too many options");
			memcpy(opts[nopts++], opt, sizeof(opt));
		} else if (a[0] == '-' && a[1]) {
			snprintf(opt, sizeof(opt), "unknown option '%s' (see --help)", a);
			return usage_error(opt);
		} else {
			if (strlen(spec) + strlen(a) + 2 > sizeof(spec))
				return usage_error("spec too long");
			if (spec[0])
				strcat(spec, " ");
			strcat(spec, a);
		}
	}
	if (!spec[0]) {
		fputs(usage, stderr);
		return 2;
	}
	if (vt_gen_parse(&s, spec, &e))
		return die(e.msg);
	for (int k = 0; k < nopts; k++) {
		if (vt_gen_option(&s, opts[k], &e))
			return die(e.msg);
		/* keep the options in the fabric's source text, so the file says how it was made */
		if (strlen(s.text) + strlen(opts[k]) + 2 < sizeof(s.text)) {
			strcat(s.text, " ");
			strcat(s.text, opts[k]);
		}
	}
	if (vt_gen_build(&s, &f, &e))
		return die(e.msg);
	if (name_map && vt_namemap_apply(f, name_map, NULL, &e)) {
		vt_fabric_free(f);
		return die(e.msg);
	}
	if (stats) {
		struct vt_gen_stats st;

		if (vt_gen_stats(f, &st)) {
			vt_fabric_free(f);
			return die("out of memory");
		}
		print_stats(stdout, &s, &st);
		if (vt_stdout_flush(&e)) {
			vt_fabric_free(f);
			return die(e.msg);
		}
		if (!outpath) {
			vt_fabric_free(f);
			return 0;
		}
	}
	vt_out_catch_signals();
	if (vt_out_open(&out, outpath, &e)) {
		vt_fabric_free(f);
		return die(e.msg);
	}
	if (vt_fabric_write_flags(f, out.fp, nolids ? VT_WRITE_NO_LIDS : 0, &e))
		vt_out_fail(&out, &e);
	else if (!vt_out_commit(&out, &e)) {
		vt_fabric_free(f);
		return 0;
	}
	vt_out_abort(&out);
	vt_fabric_free(f);
	return die(e.msg);
}
