/* SPDX-License-Identifier: MIT */
/*
 * Communication patterns: a sequence of stages, each a set of simultaneous
 * flows between ranks 0 .. nranks-1 (indices of a vt_order). Stages are
 * generated lazily, one at a time and independently of each other (a shift on
 * 11664 ranks has 136 million flows), so threads may generate different
 * stages of one pattern at once. A pattern never yields a flow from a rank to
 * itself; flows from or to a place-keeper rank are the consumer's to drop.
 *
 * Specs (N = nranks; ranks of a grid are laid out x fastest:
 * r = x + X*(y + Y*z); ranks >= X*Y*Z are idle):
 *   shift            stage s-1 for s = 1 .. N-1: i -> (i + s) mod N, every i
 *   shift:A-B        the same for s = A .. B only (1 <= A <= B <= N-1); shift:S one shift
 *   butterfly        recursive doubling: stage k = 0 .. ceil(log2 N)-1: i -> i xor 2^k
 *                    (flows whose destination is >= N are left out)
 *   mesh2d[:XxY]     nearest neighbour on a non-periodic X x Y grid, one stage
 *                    per direction in the order +x, -x, +y, -y; every rank with
 *                    a neighbour that way sends to it
 *   mesh3d[:XxYxZ]   the same on X x Y x Z: +x, -x, +y, -y, +z, -z
 *   wavefront2d[:XxY] Navaridas' 2W: a diagonal sweep from rank 0 to the far
 *                    corner and back. Forward stage d = 0 .. X+Y-3: ranks with
 *                    x+y = d send to (x+1,y) and (x,y+1); return stage d' = 0 ..
 *                    X+Y-3: ranks with x+y = X+Y-2-d' send to (x-1,y) and (x,y-1)
 *   wavefront3d[:XxYxZ] 3W, the same with three neighbours, 2(X+Y+Z-3) stages
 *   bintree          Navaridas' BT (N-to-1 reduction): stage k = 0 ..
 *                    ceil(log2 N)-1: ranks i with i mod 2^(k+1) = 2^k send to i - 2^k
 *   bisection[:seed=S,count=C]  C stages (default seed 1, count 100); stage t
 *                    shuffles the ranks with a generator seeded from (S, t)
 *                    into p[0..N-1] and pairs p[j] <-> p[j + N/2], j < N/2,
 *                    both directions (Hoefler's effective bisection bandwidth);
 *                    with N odd the last rank of p is idle
 *   randperm[:seed=S,count=C]  C stages (default seed 1, count 10); stage t is
 *                    a random permutation p seeded from (S, t): i -> p[i]
 *                    (fixed points left out)
 *   all2all          one stage, every i -> every j != i (i major, j ascending)
 *   file:PATH        "src dst" rank pairs, one per line; stages separated by a
 *                    blank line or a line "stage"; '#' starts a comment
 * Grid sizes default to the most square factorisation of N (X >= Y >= Z).
 */
#ifndef VT_PATTERN_H
#define VT_PATTERN_H

#include <stdint.h>

#include "base/vt_err.h"

struct vt_flow {
	uint32_t src, dst; /* ranks */
};

enum vt_pattern_kind {
	VT_PAT_SHIFT,
	VT_PAT_BUTTERFLY,
	VT_PAT_MESH2D,
	VT_PAT_MESH3D,
	VT_PAT_WAVE2D,
	VT_PAT_WAVE3D,
	VT_PAT_BINTREE,
	VT_PAT_BISECTION,
	VT_PAT_RANDPERM,
	VT_PAT_ALL2ALL,
	VT_PAT_FILE,
};

typedef struct vt_pattern {
	enum vt_pattern_kind kind;
	char name[128];	 /* canonical spec, e.g. "shift:1-8", "mesh2d:16x8" */
	uint32_t nranks; /* N */
	uint32_t first;	 /* shift: first distance */
	uint32_t nstages;
	uint32_t dim[3]; /* grids: X, Y, Z (Z = 1 in 2D) */
	uint64_t seed;	 /* bisection, randperm */
	/* file: all flows, stage t is flows[stage_off[t] .. stage_off[t+1]) */
	struct vt_flow *flows;
	uint32_t *stage_off;
	uint32_t max_flows; /* most flows any stage yields */
} vt_pattern;

/*
 * Parses a spec for nranks ranks (nranks >= 2). Errors are one line:
 * "pattern 'SPEC': cause", or "PATH:LINE: cause" for a pattern file.
 */
int vt_pattern_parse(vt_pattern *p, const char *spec, uint32_t nranks, vt_err *e);
void vt_pattern_free(vt_pattern *p);

uint32_t vt_pattern_nstages(const vt_pattern *p);
/* Upper bound on the flows of any stage: size the out buffer with it. */
uint32_t vt_pattern_max_flows(const vt_pattern *p);
/* Writes the flows of stage s (s < nstages) to out; returns their number. */
uint32_t vt_pattern_stage(const vt_pattern *p, uint32_t s, struct vt_flow *out);
/*
 * The same in pieces, for stages too big to hold (all2all at scale): writes
 * flows [first, first + max) of stage s in the order vt_pattern_stage gives
 * them and returns how many it wrote (0 past the end).
 */
uint32_t vt_pattern_stage_part(const vt_pattern *p, uint32_t s, uint64_t first, uint32_t max,
			       struct vt_flow *out);

#endif
