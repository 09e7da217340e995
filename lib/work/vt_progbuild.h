/* SPDX-License-Identifier: MIT */
/*
 * Building program workloads (vt_simwork.h, VT_WORK_PROGRAM): messages with
 * their own sizes, and per rank the steps that post them and wait for them.
 * Jobs, collectives and trace replay all build through it; a workload made
 * of stages (a pattern) becomes a program under the release rule it would
 * have run with, so a pattern gives the same result either way.
 */
#ifndef VT_PROGBUILD_H
#define VT_PROGBUILD_H

#include <stdint.h>

#include "base/vt_err.h"
#include "model/vt_pattern.h"
#include "sim/vt_simwork.h"

struct vt_progstep {
	uint32_t *v;
	uint32_t n, cap;
};

typedef struct vt_progb {
	vt_simwork *w;		  /* messages go straight into it */
	struct vt_progstep *prog; /* per rank */
	uint64_t cap_msg;
	vt_err *e;
	int failed;
} vt_progb;

/* Starts an empty program workload of nranks ranks in w. */
int vt_progb_init(vt_progb *b, vt_simwork *w, uint32_t nranks, vt_err *e);
/* A message of `bytes` payload from src to dst, reported under stage; its index, or -1. */
int64_t vt_progb_msg(vt_progb *b, uint32_t src, uint32_t dst, uint32_t bytes, uint32_t stage);
/* Appends step kind (VT_STEP_POST, _SENT, _RECV) on message mi to rank's program. */
int vt_progb_step(vt_progb *b, uint32_t rank, uint32_t kind, uint64_t mi);
/* A compute step of ns nanoseconds (at most VT_STEP_MAX_MSG) on rank's program. */
int vt_progb_compute(vt_progb *b, uint32_t rank, uint32_t ns);
/* A message posted by src now and waited for by dst now: the usual send/receive pair. */
int vt_progb_sendrecv(vt_progb *b, uint32_t src, uint32_t dst, uint32_t bytes, uint32_t stage);
/*
 * Every stage of pattern p (its ranks mapped through g), `bytes` per flow,
 * repeated reps times, released as mode would: b2b (a rank posts stage s+1
 * once its stage s messages have left), causal (once it has received every
 * message to it of earlier stages) or burst. Stages are numbered from
 * stage0. Barrier has no per-rank form and is refused. With gap_ns, every
 * rank g[0 .. p->nranks - 1] computes gap_ns nanoseconds between one stage
 * and the next (after its sends and waits of the one, before its posts of
 * the next), none before the first stage or after the last.
 */
int vt_progb_pattern(vt_progb *b, const vt_pattern *p, const uint32_t *g, uint32_t bytes,
		     unsigned reps, enum vt_simwork_mode mode, uint32_t stage0, uint32_t gap_ns);
/* Moves the programs into w (step_off, step); frees the builder. */
int vt_progb_finish(vt_progb *b);
/* Frees the builder and w, after a failure. */
void vt_progb_abort(vt_progb *b);

#endif
