/* SPDX-License-Identifier: MIT */
/*
 * otf2-write DIR KIND N: writes the OTF2 trace KIND of N ranks as
 * DIR/KIND/KIND.otf2 (DIR/KIND must not exist), for the command-line tests.
 *   alltoall  one MPI_Alltoall of 4096-byte blocks on MPI_COMM_WORLD
 *   shift     N - 1 stages: isend 4096 bytes to r + s, receive from r - s
 *   mix       blocking and non-blocking point-to-point on WORLD and on a
 *             sub-communicator of the odd ranks, a bcast from rank N - 1 and
 *             a reduce to the sub-communicator's rank 1; prints the bytes and
 *             the messages it holds ("bytes B messages M")
 *   compute   rank 0 computes 7 us, sends 4096 bytes to rank 1, which computes
 *             3 us once it has them and sends them back (10 us of compute on
 *             the one path)
 *   self      every rank r sends 100 + r bytes to itself and 1000 bytes to
 *             r + 1; prints the fabric's and the self-sends' bytes and messages
 *             ("bytes B messages M self bytes B messages M")
 *   none      no MPI call but MPI_Init (a trace of no MPI communication)
 *   lone      rank 0 calls a barrier on a communicator of itself alone (MPI
 *             calls that move no data)
 */
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vt_otf2w.h"

static void mix(otf2w *w, uint32_t n)
{
	uint32_t odd[64], no = 0, c;
	uint64_t bytes = 0, msgs = 0;

	for (uint32_t r = 1; r < n && no < 64; r += 2)
		odd[no++] = r;
	c = otf2w_comm(w, odd, no);
	for (uint32_t r = 0; r < n; r++) {
		otf2w_isend(w, r, 0, (r + 1) % n, 5, 1000 + r, r);
		otf2w_recv(w, r, 0, (r + n - 1) % n, 5, 1000 + (r + n - 1) % n);
		otf2w_isend_done(w, r, r);
		bytes += 1000 + r;
		msgs++;
	}
	for (uint32_t k = 0; k < no; k++) {
		if (k % 2 == 0)
			otf2w_send(w, odd[k], c, (k + 1) % no, 2, 3000);
		otf2w_recv(w, odd[k], c, (k + no - 1) % no, 2, 3000);
		if (k % 2)
			otf2w_send(w, odd[k], c, (k + 1) % no, 2, 3000);
		bytes += 3000;
		msgs++;
	}
	/* binomial bcast and reduce: n - 1 and no - 1 messages of the block */
	otf2w_coll(w, 0, OTF2_COLLECTIVE_OP_BCAST, n - 1, 512);
	otf2w_coll(w, c, OTF2_COLLECTIVE_OP_REDUCE, 1, 256);
	bytes += 512 * (uint64_t)(n - 1) + 256 * (uint64_t)(no - 1);
	msgs += n - 1 + no - 1;
	printf("bytes %llu messages %llu\n", (unsigned long long)bytes, (unsigned long long)msgs);
}

static void self(otf2w *w, uint32_t n)
{
	uint64_t bytes = 0, own = 0;

	for (uint32_t r = 0; r < n; r++) {
		otf2w_isend(w, r, 0, r, 1, 100 + r, 1);
		otf2w_isend(w, r, 0, (r + 1) % n, 2, 1000, 2);
		otf2w_recv(w, r, 0, r, 1, 100 + r);
		otf2w_recv(w, r, 0, (r + n - 1) % n, 2, 1000);
		otf2w_isend_done(w, r, 1);
		otf2w_isend_done(w, r, 2);
		own += 100 + r;
		bytes += 1000;
	}
	printf("bytes %llu messages %u self bytes %llu messages %u\n", (unsigned long long)bytes, n,
	       (unsigned long long)own, n);
}

int main(int argc, char **argv)
{
	char path[4096];
	uint32_t n;
	otf2w *w;

	if (argc != 4 || (n = (uint32_t)strtoul(argv[3], NULL, 10)) < 4 || n > 4096) {
		fprintf(stderr, "usage: otf2-write DIR alltoall|shift|mix|compute|self|none|lone N "
				"(N >= 4)\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/%s", argv[1], argv[2]);
	w = otf2w_open(path, argv[2], n);
	if (!w) {
		fprintf(stderr, "otf2-write: cannot start %s\n", path);
		return 1;
	}
	if (!strcmp(argv[2], "alltoall")) {
		otf2w_coll(w, 0, OTF2_COLLECTIVE_OP_ALLTOALL, 0, 4096);
	} else if (!strcmp(argv[2], "shift")) {
		for (uint32_t s = 1; s < n; s++)
			for (uint32_t r = 0; r < n; r++) {
				otf2w_isend(w, r, 0, (r + s) % n, 0, 4096, s);
				otf2w_recv(w, r, 0, (r + n - s) % n, 0, 4096);
			}
	} else if (!strcmp(argv[2], "mix")) {
		mix(w, n);
	} else if (!strcmp(argv[2], "compute")) {
		otf2w_pingpong(w, 7000, 3000, 4096);
	} else if (!strcmp(argv[2], "self")) {
		self(w, n);
	} else if (!strcmp(argv[2], "lone")) {
		otf2w_coll(w, otf2w_comm(w, (const uint32_t[]){0}, 1), OTF2_COLLECTIVE_OP_BARRIER,
			   0, 0);
	} else if (!strcmp(argv[2], "none")) {
		/* MPI_Init only */
	} else {
		fprintf(stderr, "otf2-write: unknown trace %s\n", argv[2]);
		return 2;
	}
	if (otf2w_close(w)) {
		fprintf(stderr, "otf2-write: cannot write %s\n", path);
		return 1;
	}
	return 0;
}
