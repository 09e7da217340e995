/* SPDX-License-Identifier: MIT */
/*
 * Simulator workloads: the messages of a communication pattern and the rule
 * that releases them.
 *   back-to-back  a rank posts its stage s+1 messages when it has finished
 *                 sending its stage s ones (last packet out of the HCA)
 *   barrier       stage s+1 starts when every stage s message is consumed
 *   causal        a rank posts its stage s messages once it has received every
 *                 message addressed to it in stages < s (Navaridas et al.:
 *                 receiving a message triggers the next send)
 *   burst         every message posted at time 0
 *   open          open loop: each rank draws messages at a given offered load
 *                 (exponential gaps), to uniform random ranks or to a fixed
 *                 random permutation or to its bisection partner (host k of
 *                 n and host k + n/2: Wolfe et al.'s bisection pairing), for a
 *                 given time; then the fabric drains
 *   program       each rank runs its own list of steps in order: post a
 *                 message, wait until one of its messages has left the HCA,
 *                 or wait until a message addressed to it is consumed (jobs,
 *                 collectives and trace replay; vt_progbuild.h builds them).
 *                 Messages between two ranks on one CA never enter the
 *                 fabric: they are done when posted (counted as local)
 */
#ifndef VT_SIMWORK_H
#define VT_SIMWORK_H

#include <stdint.h>

#include "base/vt_err.h"
#include "model/vt_pattern.h"

enum vt_simwork_mode {
	VT_WORK_B2B = 0,
	VT_WORK_BARRIER,
	VT_WORK_CAUSAL,
	VT_WORK_BURST,
	VT_WORK_OPEN,
	VT_WORK_PROGRAM,
};

/* program steps: the kind in the top two bits, a message index below */
#define VT_STEP_POST 0u		/* post message m (its source is the rank) */
#define VT_STEP_SENT (1u << 30) /* wait until m's last packet has left the HCA */
#define VT_STEP_RECV (2u << 30) /* wait until m (addressed to the rank) is consumed */
/* compute: the rank does nothing for VT_STEP_MSG(x) nanoseconds, then goes on (no message) */
#define VT_STEP_COMPUTE (3u << 30)
#define VT_STEP_KIND(x) ((x) & (3u << 30))
#define VT_STEP_MSG(x)	((x) & ~(3u << 30))
#define VT_STEP_MAX_MSG ((1u << 30) - 1)

typedef struct vt_simwork {
	enum vt_simwork_mode mode;
	char name[160];
	uint32_t nranks, nstages;
	uint64_t nmsg;
	uint32_t *src, *dst, *stage; /* per message, sorted by stage */
	uint32_t msg_bytes;
	/* per message payload bytes (0: one header-only packet); NULL: msg_bytes each */
	uint32_t *bytes;
	/* program: rank r's steps are step[step_off[r] .. step_off[r + 1]) */
	uint32_t *step_off, *step;
	/* open loop */
	double load;	      /* offered load, fraction of the injection link rate */
	uint64_t duration_ps; /* generation window */
	/*
	 * warm-up: offered and accepted load and latency count only what is
	 * posted (offered, latency) or consumed (accepted) in [warmup_ps,
	 * duration_ps], the measurement window; 0: from the start
	 */
	uint64_t warmup_ps;
	int perm; /* 1: fixed random permutation, 2: bisection pairing (host k and k + n/2), 0:
		     uniform random */
	uint64_t seed;
} vt_simwork;

void vt_simwork_free(vt_simwork *w);
/* Every stage of pattern p, one message of msg_bytes per flow, repeated reps times. */
int vt_simwork_pattern(vt_simwork *w, const vt_pattern *p, uint32_t msg_bytes, unsigned reps,
		       enum vt_simwork_mode mode, vt_err *e);
/*
 * Navaridas et al.'s causal workloads by name: 2W, 3W (wave-fronts, causal),
 * 2M, 3M (meshes, burst), BU (butterfly), BT (binary tree), WF (waterfall:
 * the forward sweep of 2W repeated ceil(size / mlength) times with
 * mlength = 8 * 2^floor(log10 size) bytes). size is the message size (WF:
 * the total bytes).
 */
int vt_simwork_navaridas(vt_simwork *w, const char *name, uint32_t nranks, uint32_t size,
			 vt_err *e);
int vt_simwork_open(vt_simwork *w, uint32_t nranks, double load, uint64_t duration_ps,
		    uint32_t msg_bytes, int perm, uint64_t seed, vt_err *e);
/* Adds one message (tests, file workloads); stages must not decrease. */
int vt_simwork_add(vt_simwork *w, uint32_t src, uint32_t dst, uint32_t stage, vt_err *e);

#endif
