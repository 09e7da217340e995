/* SPDX-License-Identifier: MIT */
/*
 * Several jobs at once (Wolfe et al.'s multi-job runs): each job has its own
 * ranks, ranks per node, placement, message size and workload; the jobs are
 * placed one after the other on nodes (CAs) no earlier job holds, and their
 * programs run together in one simulation.
 *
 * Spec: NAME:RANKS[xPPN]:PLACEMENT:SIZE:WORKLOAD (the workload last, so it
 * may hold colons). RANKS is a count or "all" (every free node times PPN);
 * rank i of a job runs on its node i / PPN. Placements, over the hosts of the
 * host order (place-keepers skipped):
 *   contiguous     the first free nodes in leaf order (leaf switches by
 *                  description, their ports in order)
 *   random         free nodes drawn at random
 *   random-leaves  leaf switches in random order, each filled in port order
 *   rr-leaves      round-robin over the leaf switches: one free node of each
 *                  leaf in turn, from the first leaf for every job
 *   order          the first free nodes in the host order (vartree's order:
 *                  its ranks of the fat-tree)
 * Random choices come from one generator seeded with the run's seed, jobs
 * placed in the order given. WORKLOAD: a pattern spec (vt_pattern.h) run
 * under the run's release mode; a collective of vt_coll.h (barrier, bcast,
 * reduce, gather, scatter, allreduce, alltoall, ring-allgather,
 * ring-bcast[:SEGMENTS]); a collective with a root may name it, NAME@ROOT
 * (a rank of the job; default 0), as bcast@5 or ring-bcast@3:16; or
 * trace:FILE, an OTF2 trace (vt_otf2.h, vt_replay.h) of exactly RANKS ranks,
 * its rank i as the job's rank i, its compute gaps replayed if the job's
 * trace_compute is set. SIZE is "-" for a barrier and a trace.
 * WORKLOAD+TIME (not for a trace; TIME a number with ns, us, ms or s, up to
 * 1 s): every rank of the job computes TIME between one phase and the next
 * (the stages of a pattern, the repetitions of --reps).
 */
#ifndef VT_JOBS_H
#define VT_JOBS_H

#include <stdint.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "model/vt_order.h"
#include "sim/vt_sim.h"
#include "sim/vt_simwork.h"

enum vt_place {
	VT_PLACE_CONTIG,
	VT_PLACE_RANDOM,
	VT_PLACE_RANDLEAF,
	VT_PLACE_RRLEAF,
	VT_PLACE_ORDER,
};

struct vt_job {
	char name[32];
	uint32_t ranks; /* 0: all free nodes */
	uint32_t ppn;
	enum vt_place place;
	uint32_t size;
	char work[512];	     /* as given */
	char op[512];	     /* without @ROOT and +TIME */
	uint32_t root;	     /* a rooted collective's root, a rank of the job */
	int rooted;	     /* @ROOT given */
	uint32_t compute_ns; /* +TIME: compute between phases */
	int trace_compute;   /* trace: its compute gaps replayed (vt_replay.h); set by the caller */
	/* placement */
	uint32_t nnodes, *node; /* CA node indices, in rank order */
	uint32_t first_rank;	/* global rank of its rank 0 */
};

typedef struct vt_jobs {
	struct vt_job *job;
	uint32_t n;
	uint32_t nranks;
	uint32_t *rank_ca;	/* per global rank: its CA (node index) */
	const vt_simwork *work; /* what vt_jobs_build built */
	uint32_t bad;		/* the job vt_jobs_place or _build failed on, else UINT32_MAX */
} vt_jobs;

/* The job stats: observed bandwidth of its nodes, bytes over the fabric per active second. */
struct vt_jobstat {
	uint64_t msgs, msgs_local, bytes, bytes_local; /* bytes: over the fabric */
	uint64_t start_ps, end_ps;		       /* first post, last consumption */
	uint32_t active_nodes;			       /* nodes that sent over the fabric */
	double bw_min, bw_avg, bw_max;		       /* GB/s (1e9 bytes/s) over active nodes */
};

struct vt_nodestat {
	uint32_t ca, job;
	uint64_t bytes, active_ps; /* fabric bytes sent; time with one of them in flight */
	double gbps;
};

const char *vt_place_name(enum vt_place p);
/* Parses one --job spec; errors name the spec. */
int vt_job_parse(struct vt_job *j, const char *spec, vt_err *e);
void vt_jobs_free(vt_jobs *js);
/* Places every job on the hosts of ord (each CA once; place-keepers skipped). */
int vt_jobs_place(vt_jobs *js, const vt_fabric *f, const vt_order *ord, uint64_t seed, vt_err *e);
/*
 * The placed jobs' program workload, and the order of its ranks (rank g on
 * the host order's port of its CA). mode releases pattern workloads.
 */
int vt_jobs_build(vt_jobs *js, const vt_fabric *f, const vt_order *ord, enum vt_simwork_mode mode,
		  unsigned reps, vt_simwork *w, vt_order *gord, vt_err *e);
/*
 * Per job (js->n + 1 entries, the last for all jobs together) and per node
 * (every placed node, job order) statistics of a finished run.
 */
int vt_jobs_stats(const vt_jobs *js, const vt_sim_result *r, struct vt_jobstat *job,
		  struct vt_nodestat *node, vt_err *e);
/* Nodes placed over all jobs (the size of the node array of vt_jobs_stats). */
uint32_t vt_jobs_nnodes(const vt_jobs *js);

#endif
