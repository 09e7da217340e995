/* SPDX-License-Identifier: MIT */
/*
 * Test driver for vt_live: captures the subnet seen through CA/PORT and
 * writes its LFTs in OpenSM's opensm-lfts.dump form, so a script can compare
 * them with the dump OpenSM wrote. With LFTS_IN, the tables written are
 * LFTS_IN as vt_lfts_read reads it against the live fabric instead.
 * Usage: live_capture CA|- PORT OUTFILE [LFTS_IN]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vt_io.h"
#include "io/vt_lftio.h"
#include "io/vt_live.h"

int main(int argc, char **argv)
{
	vt_fabric *f;
	vt_lfts t;
	vt_out o;
	vt_err e;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: live_capture CA|- PORT OUTFILE [LFTS_IN]\n");
		return 2;
	}
	if (vt_live_capture(strcmp(argv[1], "-") ? argv[1] : NULL, atoi(argv[2]), &f, &t, &e)) {
		fprintf(stderr, "live_capture: %s\n", e.msg);
		return 1;
	}
	fprintf(stderr, "live_capture: %u nodes, %u switches, top LID %u\n", f->nnodes,
		f->nswitches, f->max_lid);
	if (argc == 5) {
		vt_lfts_free(&t);
		if (vt_lfts_read(&t, f, argv[4], &e)) {
			fprintf(stderr, "live_capture: %s\n", e.msg);
			vt_fabric_free(f);
			return 1;
		}
	}
	if (vt_out_open(&o, argv[3], &e) || vt_lfts_write(&t, f, o.fp, &e) ||
	    vt_out_commit(&o, &e)) {
		vt_out_abort(&o);
		fprintf(stderr, "live_capture: %s\n", e.msg);
		vt_lfts_free(&t);
		vt_fabric_free(f);
		return 1;
	}
	vt_lfts_free(&t);
	vt_fabric_free(f);
	return 0;
}
