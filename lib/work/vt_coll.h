/* SPDX-License-Identifier: MIT */
/*
 * Collective operations as messages and per-rank steps (vt_progbuild.h), by
 * the algorithms MPI libraries commonly use. m[0 .. n-1] are the members'
 * ranks (a communicator), root an index into m; every message of one call
 * is reported under `stage`.
 *   barrier    dissemination: round k (2^k < n), member i sends 0 bytes to
 *              i + 2^k and waits for the one from i - 2^k (mod n)
 *   bcast      binomial tree from root (MPICH's short-message broadcast):
 *              a member waits for its parent's copy, then sends to its
 *              children, farthest first
 *   reduce     the same tree the other way: a member waits for each child's
 *              `bytes`, then sends to its parent
 *   scatter    the bcast tree, each message carrying `bytes` per member of
 *              the subtree below it (MPICH's binomial scatter)
 *   gather     the reduce tree the same way (MPICH's binomial gather)
 *   allreduce  n a power of two: recursive doubling, round k exchanges
 *              `bytes` with member i xor 2^k; otherwise reduce to member 0
 *              and bcast from it
 *   allgather  ring (Matsuoka's ring allgather): n - 1 steps, member i sends
 *              a block of `bytes` to i + 1 and waits for the block from
 *              i - 1 before passing it on
 *   alltoall   every member posts its n - 1 blocks of `bytes` at once (to i +
 *              1, i + 2, ...), then waits for the n - 1 addressed to it
 *   the v variants (gatherv, scatterv, allgatherv, alltoallv) take a block
 *              size per member, sz[i] for member i, where the others take
 *              `bytes` for every member: gatherv and scatterv carry each
 *              member's own block through the tree, allgatherv passes member
 *              i's block round the ring, in alltoallv member i sends sz[i]
 *              bytes to every other member
 *   ring_bcast pipelined ring broadcast (Matsuoka): `bytes` cut into `segs`
 *              segments; member root + k forwards each segment to root + k + 1
 *              as soon as it has received it
 */
#ifndef VT_COLL_H
#define VT_COLL_H

#include <stdint.h>

#include "work/vt_progbuild.h"

int vt_coll_barrier(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t stage);
int vt_coll_bcast(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t root, uint32_t bytes,
		  uint32_t stage);
int vt_coll_reduce(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t root, uint32_t bytes,
		   uint32_t stage);
int vt_coll_scatter(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t root, uint32_t bytes,
		    uint32_t stage);
int vt_coll_gather(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t root, uint32_t bytes,
		   uint32_t stage);
int vt_coll_gatherv(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t root, const uint32_t *sz,
		    uint32_t stage);
int vt_coll_scatterv(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t root, const uint32_t *sz,
		     uint32_t stage);
int vt_coll_allgatherv(vt_progb *b, const uint32_t *m, uint32_t n, const uint32_t *sz,
		       uint32_t stage);
int vt_coll_alltoallv(vt_progb *b, const uint32_t *m, uint32_t n, const uint32_t *sz,
		      uint32_t stage);
int vt_coll_allreduce(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t bytes, uint32_t stage);
int vt_coll_allgather(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t bytes, uint32_t stage);
int vt_coll_alltoall(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t bytes, uint32_t stage);
int vt_coll_ring_bcast(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t root, uint32_t bytes,
		       uint32_t segs, uint32_t stage);

#endif
