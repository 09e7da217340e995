/* SPDX-License-Identifier: MIT */
#include "work/vt_coll.h"

#include <stdlib.h>

/* Message indices of one round, one per member; NULL (builder failed) on no memory. */
static uint64_t *idx_new(vt_progb *b, uint32_t n)
{
	uint64_t *x = calloc(n ? n : 1, sizeof(*x));

	if (!x && !b->failed) {
		vt_err_set(b->e, "out of memory for a collective of %u ranks", n);
		b->failed = 1;
	}
	return x;
}

static int msg(vt_progb *b, uint64_t *x, uint32_t src, uint32_t dst, uint32_t bytes, uint32_t stage)
{
	int64_t mi = vt_progb_msg(b, src, dst, bytes, stage);

	if (mi < 0)
		return -1;
	*x = (uint64_t)mi;
	return 0;
}

int vt_coll_barrier(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t stage)
{
	uint64_t *x = idx_new(b, n);
	int rc = x ? 0 : -1;

	for (uint64_t d = 1; !rc && d < n; d *= 2) {
		for (uint32_t i = 0; !rc && i < n; i++)
			rc = msg(b, &x[i], m[i], m[(i + d) % n], 0, stage);
		for (uint32_t i = 0; !rc && i < n; i++)
			rc = vt_progb_step(b, m[i], VT_STEP_POST, x[i]) ||
			     vt_progb_step(b, m[i], VT_STEP_RECV, x[(i + n - d) % n]);
	}
	free(x);
	return rc;
}

/* Binomial tree over relative ranks: parent of rel > 0 is rel less its lowest set bit. */
static uint32_t lowbit(uint32_t rel, uint32_t n)
{
	uint32_t mask = 1;

	while (mask < n && !(rel & mask))
		mask <<= 1;
	return mask; /* for rel 0: the first power of two >= n */
}

/* Members in rel's subtree of the binomial tree: rel .. rel + lowbit - 1, cut at n. */
static uint32_t subtree(uint32_t rel, uint32_t n)
{
	uint32_t low = lowbit(rel, n);

	return low < n - rel ? low : n - rel;
}

/* Member i's block: sz[i], or `bytes` for every member when sz is NULL. */
static uint64_t block(uint32_t bytes, const uint32_t *sz, uint32_t i)
{
	return sz ? sz[i] : bytes;
}

/*
 * x[rel] is the tree message between rel and its parent (rel > 0), either way
 * round; `bytes` each, or the blocks of every member of rel's subtree
 * (gather, scatter: per_member).
 */
static int tree_msgs(vt_progb *b, uint64_t *x, const uint32_t *m, uint32_t n, uint32_t root,
		     uint32_t bytes, const uint32_t *bsz, uint32_t stage, int up, int per_member)
{
	for (uint32_t rel = 1; rel < n; rel++) {
		uint32_t me = m[(rel + root) % n], par = m[(rel - lowbit(rel, n) + root) % n];
		uint64_t sz = per_member ? 0 : bytes;

		for (uint32_t j = rel; per_member && j < rel + subtree(rel, n); j++)
			sz += block(bytes, bsz, (j + root) % n);

		if (sz > UINT32_MAX) {
			b->failed = 1;
			return vt_err_set(b->e, "a collective message of %llu bytes",
					  (unsigned long long)sz);
		}
		if (msg(b, &x[rel], up ? me : par, up ? par : me, (uint32_t)sz, stage))
			return -1;
	}
	return 0;
}

/* Root to every member down the tree (bcast, scatter). */
static int tree_down(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t root, uint32_t bytes,
		     const uint32_t *sz, uint32_t stage, int per_member)
{
	uint64_t *x = idx_new(b, n);
	int rc = x ? tree_msgs(b, x, m, n, root, bytes, sz, stage, 0, per_member) : -1;

	for (uint32_t rel = 0; !rc && rel < n; rel++) {
		uint32_t me = m[(rel + root) % n];

		if (rel)
			rc = vt_progb_step(b, me, VT_STEP_RECV, x[rel]);
		for (uint32_t mask = lowbit(rel, n) >> 1; !rc && mask; mask >>= 1)
			if (rel + mask < n)
				rc = vt_progb_step(b, me, VT_STEP_POST, x[rel + mask]);
	}
	free(x);
	return rc;
}

/* Every member to root up the tree (reduce, gather). */
static int tree_up(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t root, uint32_t bytes,
		   const uint32_t *sz, uint32_t stage, int per_member)
{
	uint64_t *x = idx_new(b, n);
	int rc = x ? tree_msgs(b, x, m, n, root, bytes, sz, stage, 1, per_member) : -1;

	for (uint32_t rel = 0; !rc && rel < n; rel++) {
		uint32_t me = m[(rel + root) % n], top = lowbit(rel, n);

		for (uint32_t mask = 1; !rc && mask < top; mask <<= 1)
			if (rel + mask < n)
				rc = vt_progb_step(b, me, VT_STEP_RECV, x[rel + mask]);
		if (!rc && rel)
			rc = vt_progb_step(b, me, VT_STEP_POST, x[rel]);
	}
	free(x);
	return rc;
}

int vt_coll_bcast(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t root, uint32_t bytes,
		  uint32_t stage)
{
	return tree_down(b, m, n, root, bytes, NULL, stage, 0);
}

int vt_coll_scatter(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t root, uint32_t bytes,
		    uint32_t stage)
{
	return tree_down(b, m, n, root, bytes, NULL, stage, 1);
}

int vt_coll_scatterv(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t root, const uint32_t *sz,
		     uint32_t stage)
{
	return tree_down(b, m, n, root, 0, sz, stage, 1);
}

int vt_coll_reduce(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t root, uint32_t bytes,
		   uint32_t stage)
{
	return tree_up(b, m, n, root, bytes, NULL, stage, 0);
}

int vt_coll_gather(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t root, uint32_t bytes,
		   uint32_t stage)
{
	return tree_up(b, m, n, root, bytes, NULL, stage, 1);
}

int vt_coll_gatherv(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t root, const uint32_t *sz,
		    uint32_t stage)
{
	return tree_up(b, m, n, root, 0, sz, stage, 1);
}

int vt_coll_allreduce(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t bytes, uint32_t stage)
{
	uint64_t *x;
	int rc;

	if (n & (n - 1))
		return vt_coll_reduce(b, m, n, 0, bytes, stage) ||
		       vt_coll_bcast(b, m, n, 0, bytes, stage);
	x = idx_new(b, n);
	rc = x ? 0 : -1;
	for (uint32_t d = 1; !rc && d < n; d *= 2) {
		for (uint32_t i = 0; !rc && i < n; i++)
			rc = msg(b, &x[i], m[i], m[i ^ d], bytes, stage);
		for (uint32_t i = 0; !rc && i < n; i++)
			rc = vt_progb_step(b, m[i], VT_STEP_POST, x[i]) ||
			     vt_progb_step(b, m[i], VT_STEP_RECV, x[i ^ d]);
	}
	free(x);
	return rc;
}

/* Ring allgather: in step k member i passes on member i - k's block. */
static int ring(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t bytes, const uint32_t *sz,
		uint32_t stage)
{
	uint64_t *x = idx_new(b, n);
	int rc = x ? 0 : -1;

	for (uint32_t k = 0; !rc && k + 1 < n; k++) {
		for (uint32_t i = 0; !rc && i < n; i++)
			rc = msg(b, &x[i], m[i], m[(i + 1) % n],
				 (uint32_t)block(bytes, sz, (i + n - k) % n), stage);
		for (uint32_t i = 0; !rc && i < n; i++)
			rc = vt_progb_step(b, m[i], VT_STEP_POST, x[i]) ||
			     vt_progb_step(b, m[i], VT_STEP_RECV, x[(i + n - 1) % n]);
	}
	free(x);
	return rc;
}

int vt_coll_allgather(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t bytes, uint32_t stage)
{
	return ring(b, m, n, bytes, NULL, stage);
}

int vt_coll_allgatherv(vt_progb *b, const uint32_t *m, uint32_t n, const uint32_t *sz,
		       uint32_t stage)
{
	return ring(b, m, n, 0, sz, stage);
}

/* Member i sends its block to every other member. */
static int all2all(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t bytes, const uint32_t *sz,
		   uint32_t stage)
{
	uint64_t *x = idx_new(b, n > 1 ? (uint64_t)n * (n - 1) : 1);
	int rc = x ? 0 : -1;

	/* x[i * (n - 1) + k - 1]: member i to member i + k */
	for (uint32_t i = 0; !rc && i < n; i++)
		for (uint32_t k = 1; !rc && k < n; k++)
			rc = msg(b, &x[(uint64_t)i * (n - 1) + k - 1], m[i], m[(i + k) % n],
				 (uint32_t)block(bytes, sz, i), stage);
	for (uint32_t i = 0; !rc && i < n; i++) {
		for (uint32_t k = 1; !rc && k < n; k++)
			rc = vt_progb_step(b, m[i], VT_STEP_POST, x[(uint64_t)i * (n - 1) + k - 1]);
		for (uint32_t k = 1; !rc && k < n; k++)
			rc = vt_progb_step(b, m[i], VT_STEP_RECV,
					   x[(uint64_t)((i + n - k) % n) * (n - 1) + k - 1]);
	}
	free(x);
	return rc;
}

int vt_coll_alltoall(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t bytes, uint32_t stage)
{
	return all2all(b, m, n, bytes, NULL, stage);
}

int vt_coll_alltoallv(vt_progb *b, const uint32_t *m, uint32_t n, const uint32_t *sz,
		      uint32_t stage)
{
	return all2all(b, m, n, 0, sz, stage);
}

int vt_coll_ring_bcast(vt_progb *b, const uint32_t *m, uint32_t n, uint32_t root, uint32_t bytes,
		       uint32_t segs, uint32_t stage)
{
	uint32_t seg, first;
	uint64_t *x;
	int rc;

	if (segs < 1)
		segs = 1;
	if (segs > bytes)
		segs = bytes ? bytes : 1;
	seg = bytes / segs;
	first = bytes - seg * (segs - 1); /* the first segment takes the remainder */
	x = idx_new(b, n > 1 ? (uint64_t)(n - 1) * segs : 1);
	rc = x ? 0 : -1;
	/* x[k * segs + j]: segment j from ring position k to k + 1 */
	for (uint32_t k = 0; !rc && k + 1 < n; k++)
		for (uint32_t j = 0; !rc && j < segs; j++)
			rc = msg(b, &x[(uint64_t)k * segs + j], m[(root + k) % n],
				 m[(root + k + 1) % n], j ? seg : first, stage);
	for (uint32_t k = 0; !rc && k < n; k++)
		for (uint32_t j = 0; !rc && j < segs; j++) {
			uint32_t me = m[(root + k) % n];

			if (k)
				rc = vt_progb_step(b, me, VT_STEP_RECV,
						   x[(uint64_t)(k - 1) * segs + j]);
			if (!rc && k + 1 < n)
				rc = vt_progb_step(b, me, VT_STEP_POST, x[(uint64_t)k * segs + j]);
		}
	free(x);
	return rc;
}
