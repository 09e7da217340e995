/* SPDX-License-Identifier: MIT */
/*
 * MPI trace replay: each rank's MPI operations in program order (what a
 * trace reader such as vt_otf2.h fills in) turned into a program workload
 * (vt_progbuild.h). Replay is driven by dependencies, not by time stamps: a
 * rank stops only where MPI would make it wait, and computes in no time
 * unless asked to replay the compute gaps the trace measured between MPI
 * calls (then each is a compute step of that length before the call).
 *   send       post the message, wait until its last packet has left the HCA
 *   isend      post the message and go on
 *   isend-done wait until the isend's message has left the HCA (MPI_Wait)
 *   recv       wait until the matching message is consumed (blocking receive,
 *              or the completion of a non-blocking one)
 *   collective expanded by vt_coll.h over the communicator's members, once
 *              every member has reached it (MPI orders collectives on one
 *              communicator the same way on every member)
 * A receive matches the oldest unmatched send with the same communicator,
 * source, destination and tag (MPI's non-overtaking rule; a trace records
 * the source and tag a wildcard receive got). A send nobody receives still
 * travels; a receive without a send is an error.
 *
 * Collective block sizes come from the per-rank byte counts as Score-P
 * records them (the self copy included): bcast and scatter(v) a member's
 * received bytes, gather(v) and reduce its sent bytes, allgather(v),
 * alltoall(v) and allreduce its sent bytes over the member count; the v
 * variants keep each member's own block, the others take the largest. An
 * alltoallv is replayed with member i sending the same block to every other
 * member, as a trace holds only each rank's total. Point-to-point messages are
 * reported under stage stage0, collective call k (in replay order) under
 * stage0 + 1 + k.
 */
#ifndef VT_REPLAY_H
#define VT_REPLAY_H

#include <stdint.h>

#include "base/vt_err.h"
#include "work/vt_progbuild.h"

enum vt_mpiop_kind {
	VT_MPI_SEND,
	VT_MPI_ISEND,
	VT_MPI_ISEND_DONE,
	VT_MPI_RECV,
	VT_MPI_COLL,
};

enum vt_mpicoll {
	VT_MPICOLL_BARRIER,
	VT_MPICOLL_BCAST,
	VT_MPICOLL_GATHER,
	VT_MPICOLL_SCATTER,
	VT_MPICOLL_ALLGATHER,
	VT_MPICOLL_ALLTOALL,
	VT_MPICOLL_ALLREDUCE,
	VT_MPICOLL_REDUCE,
	VT_MPICOLL_GATHERV,
	VT_MPICOLL_SCATTERV,
	VT_MPICOLL_ALLGATHERV,
	VT_MPICOLL_ALLTOALLV,
};

/* Root of a collective without one. */
#define VT_MPI_NOROOT UINT32_MAX

struct vt_mpiop {
	uint8_t kind, coll; /* vt_mpiop_kind, vt_mpicoll */
	uint32_t comm;	    /* index into the trace's communicators */
	uint32_t peer;	    /* world rank: a send's destination, a receive's source */
	uint32_t tag;
	uint32_t root;	 /* collective: root as a rank of the communicator */
	uint64_t bytes;	 /* message bytes; collective: bytes sent */
	uint64_t recvd;	 /* collective: bytes received */
	uint64_t isend;	 /* isend-done: index of its isend in the rank's operations */
	uint64_t gap_ps; /* compute before it: the last MPI call's end to its call's start */
};

struct vt_mpicomm {
	uint32_t n;	 /* members */
	uint32_t *world; /* member i's world rank; NULL for a self communicator (n 1) */
	char name[48];
};

struct vt_mpiops {
	struct vt_mpiop *v;
	uint64_t n, cap;
};

typedef struct vt_mpitrace {
	uint32_t nranks, ncomm;
	struct vt_mpicomm *comm;
	struct vt_mpiops *rank; /* per world rank */
} vt_mpitrace;

/* An empty trace of nranks ranks. */
int vt_mpitrace_init(vt_mpitrace *t, uint32_t nranks, vt_err *e);
void vt_mpitrace_free(vt_mpitrace *t);
/* Appends op to rank's operations. */
int vt_mpitrace_add(vt_mpitrace *t, uint32_t rank, const struct vt_mpiop *op, vt_err *e);
const char *vt_mpicoll_name(enum vt_mpicoll c);
/* 1 if c has a root (bcast, gather(v), scatter(v), reduce). */
int vt_mpicoll_rooted(enum vt_mpicoll c);
/*
 * Appends the trace to b: trace rank r runs as b's rank g[r]; with compute,
 * each operation's gap_ps, to the nanosecond, is computed before it
 * (vt_progb_compute steps). Errors name the rank
 * (trace rank), the operation and the communicator.
 */
int vt_replay_build(vt_progb *b, const vt_mpitrace *t, const uint32_t *g, int compute);
/* vt_replay_build reps times over (one run after the other); errors begin "src: ". */
int vt_replay_reps(vt_progb *b, const vt_mpitrace *t, const uint32_t *g, unsigned reps, int compute,
		   const char *src);

#endif
