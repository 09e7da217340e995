/* SPDX-License-Identifier: MIT */
/* vartree-route: extract the var-ary-n-tree of a fabric, route it, write OpenSM LFTs. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vt_io.h"
#include "vt_lftio.h"
#include "vt_load.h"
#include "vt_route.h"

static const char usage[] =
	"usage: vartree-route TOPOLOGY [-o LFTS] [--order-out FILE] [--root-guid-file F]\n"
	"                     [--cn-guid-file F] [--io-guid-file F] [--lmc N] [-q] [--help]\n"
	"Routes an ibnetdiscover/ibsim/cache fabric with vartree and writes its LFTs in\n"
	"OpenSM's opensm-lfts.dump format (stdout unless -o); the structure found goes to\n"
	"stderr. See vartree-route(1).\n";

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

static int fail(const char *msg)
{
	fprintf(stderr, "vartree-route: %s\n", msg);
	return 1;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"output", required_argument, 0, 'o'},
		{"order-out", required_argument, 0, 'O'},
		{"root-guid-file", required_argument, 0, 'a'},
		{"cn-guid-file", required_argument, 0, 'u'},
		{"io-guid-file", required_argument, 0, 'G'},
		{"lmc", required_argument, 0, 'l'},
		{"quiet", no_argument, 0, 'q'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	const char *out = NULL, *order_out = NULL, *files[3] = {NULL, NULL, NULL};
	uint64_t *guids[3] = {NULL, NULL, NULL};
	uint32_t ng[3] = {0, 0, 0};
	struct vt_route_opts ro = {0};
	int quiet = 0, c, rc = 1;
	long lmc = -1;
	vt_fabric *f = NULL;
	vt_lfts lfts = {0};
	vt_order order = {0};
	vt_out o;
	vt_err e;
	double t0, t1;

	while ((c = getopt_long(argc, argv, "o:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'O':
			order_out = optarg;
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
			if (*end || lmc < 0 || lmc > 7)
				return fail("--lmc takes 0..7");
			break;
		}
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fputs(usage, stderr);
		return 2;
	}
	for (int i = 0; i < 3; i++)
		if (files[i] && vt_guid_file_read(files[i], &guids[i], &ng[i], &e)) {
			fail(e.msg);
			goto out;
		}
	if (vt_load(argv[optind], &f, &e)) {
		fail(e.msg);
		goto out;
	}
	if (lmc > 0) {
		/* re-assign CA LIDs with the requested LMC, as OpenSM would */
		for (uint32_t q = 0; q < f->nports; q++)
			if (f->nodes[f->ports[q].node].type != VT_SWITCH) {
				f->ports[q].lid = 0;
				f->ports[q].lmc = 0;
			}
		if (vt_fabric_finish(f, (unsigned)lmc, &e)) {
			fail(e.msg);
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
	t0 = now();
	if (vt_route(f, &ro, &lfts, &order, &e)) {
		fail(e.msg);
		goto out;
	}
	t1 = now();
	if (!quiet)
		fprintf(stderr, "vartree-route: routed %u switches x %u LIDs in %.3f s\n", lfts.nsw,
			lfts.nlid, t1 - t0);
	if (vt_out_open(&o, out, &e) || vt_lfts_write(&lfts, f, o.fp, &e)) {
		vt_out_abort(&o);
		fail(e.msg);
		goto out;
	}
	if (vt_out_commit(&o, &e)) {
		fail(e.msg);
		goto out;
	}
	if (order_out) {
		if (vt_out_open(&o, order_out, &e) || vt_order_write(&order, f, o.fp, &e)) {
			vt_out_abort(&o);
			fail(e.msg);
			goto out;
		}
		if (vt_out_commit(&o, &e)) {
			fail(e.msg);
			goto out;
		}
	}
	rc = 0;
out:
	for (int i = 0; i < 3; i++)
		free(guids[i]);
	vt_lfts_free(&lfts);
	vt_order_free(&order);
	vt_fabric_free(f);
	return rc;
}
