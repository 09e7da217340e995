/* SPDX-License-Identifier: MIT */
/*
 * OTF2 trace replay: traces written here with libotf2's writer (vt_otf2w.h),
 * read back (vt_otf2.h), replayed (vt_replay.h) and simulated. Expected
 * counts and bytes are added up while writing, or from the collective
 * algorithms' closed forms, never taken from the replay.
 */
#include "work/vt_coll.h"
#include "work/vt_otf2.h"
#include "vt_otf2w.h"
#include "model/vt_pattern.h"
#include "work/vt_progbuild.h"
#include "work/vt_replay.h"
#include "route/vt_route.h"
#include "sim/vt_sim.h"
#include "vt_test.h"

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A scratch directory per test, removed by the test. */
static char *scratch(char *buf, size_t n)
{
	snprintf(buf, n, "/tmp/vt-otf2-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(buf));
	return buf;
}

static void rmtree(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* DIR/NAME/NAME.otf2: the writer makes DIR/NAME, the archive inside it. */
static const char *anchor(char *buf, size_t n, const char *dir, const char *name)
{
	snprintf(buf, n, "%s/%s/%s.otf2", dir, name, name);
	return buf;
}

static otf2w *start(const char *dir, const char *name, uint32_t n)
{
	char path[512];
	otf2w *w;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	w = otf2w_open(path, name, n);
	ck_assert_ptr_nonnull(w);
	return w;
}

/* The trace as a program workload of its own ranks, its compute gaps as compute steps or not. */
static void replay_c(const char *path, vt_simwork *w, int compute)
{
	vt_mpitrace t;
	vt_progb b;
	vt_err e;
	uint32_t *g;

	if (vt_otf2_read(&t, path, &e))
		ck_abort_msg("%s", e.msg);
	g = malloc(t.nranks * sizeof(*g));
	for (uint32_t r = 0; r < t.nranks; r++)
		g[r] = r;
	ck_assert_int_eq(vt_progb_init(&b, w, t.nranks, &e), 0);
	if (vt_replay_build(&b, &t, g, compute)) {
		vt_progb_abort(&b);
		ck_abort_msg("%s", e.msg);
	}
	ck_assert_int_eq(vt_progb_finish(&b), 0);
	free(g);
	vt_mpitrace_free(&t);
}

static void replay(const char *path, vt_simwork *w)
{
	replay_c(path, w, 0);
}

struct net {
	vt_fabric *f;
	vt_lfts t;
	vt_order o;
};

static void net_up(struct net *n, const char *spec)
{
	struct vt_route_opts ro = {0};
	vt_err e;

	n->f = vt_test_gen(spec);
	if (vt_route(n->f, &ro, &n->t, &n->o, &e))
		ck_abort_msg("%s", e.msg);
}

static void net_down(struct net *n)
{
	vt_lfts_free(&n->t);
	vt_order_free(&n->o);
	vt_fabric_free(n->f);
}

static void simulate(const struct net *n, const vt_simwork *w, vt_sim_result *r)
{
	struct vt_sim_params p;
	vt_err e;

	vt_sim_defaults(&p);
	if (vt_sim_run(n->f, &n->t, &n->o, w, &p, r, &e))
		ck_abort_msg("%s", e.msg);
	ck_assert(!r->deadlock);
	ck_assert_uint_eq(r->msgs_done, r->msgs);
	ck_assert_uint_eq(r->credit_violations, 0);
}

/*
 * Point-to-point of every kind on 8 ranks: a blocking ring, non-blocking
 * pairs with waits, and messages on a sub-communicator whose ranks are not
 * the world's (sizes around the MTU).
 */
START_TEST(p2p_conserves)
{
	static const uint32_t sub[] = {5, 2, 7, 0};
	char dir[64], path[512];
	uint64_t msgs = 0, bytes = 0;
	struct net n;
	vt_simwork w;
	vt_sim_result r;
	otf2w *tw = start(scratch(dir, sizeof(dir)), "p2p", 8);
	uint32_t c = otf2w_comm(tw, sub, 4);

	for (uint32_t i = 0; i < 8; i++) { /* ring: even ranks send first */
		uint64_t len = 1000 + 37 * i;
		uint32_t to = (i + 1) % 8, from = (i + 7) % 8;

		if (i % 2 == 0)
			otf2w_send(tw, i, 0, to, 1, len);
		otf2w_recv(tw, i, 0, from, 1, 1000 + 37 * from);
		if (i % 2)
			otf2w_send(tw, i, 0, to, 1, len);
		msgs++;
		bytes += len;
	}
	for (uint32_t i = 0; i < 8; i++) { /* pairs i, i ^ 1: isend, irecv, wait */
		otf2w_isend(tw, i, 0, i ^ 1, 7, 2048 + i, 40 + i);
		otf2w_irecv(tw, i, 0, i ^ 1, 7, 2048 + (i ^ 1), 50 + i);
		otf2w_isend_done(tw, i, 40 + i);
		msgs++;
		bytes += 2048 + i;
	}
	/* sub-communicator: its rank k to rank k + 1 (world 5 -> 2 -> 7 -> 0), two tags */
	for (uint32_t k = 0; k < 4; k++) {
		otf2w_send(tw, sub[k], c, (k + 1) % 4, 3, 1);
		otf2w_send(tw, sub[k], c, (k + 1) % 4, 4, 4097);
		otf2w_recv(tw, sub[k], c, (k + 3) % 4, 4, 4097);
		otf2w_recv(tw, sub[k], c, (k + 3) % 4, 3, 1);
		msgs += 2;
		bytes += 4098;
	}
	/* a GLOBAL_MEMBERS sub-communicator: peers are world ranks already; 6 -> 3 */
	c = otf2w_comm_global(tw, (const uint32_t[]){3, 6}, 2);
	otf2w_send(tw, 6, c, 3, 0, 777);
	otf2w_recv(tw, 3, c, 6, 0, 777);
	msgs++;
	bytes += 777;
	ck_assert_int_eq(otf2w_close(tw), 0);
	replay(anchor(path, sizeof(path), dir, "p2p"), &w);
	ck_assert_uint_eq(w.nranks, 8);
	ck_assert_uint_eq(w.nmsg, msgs);
	/* the sub-communicator's messages go world 5 -> 2 -> 7 -> 0 -> 5 */
	for (uint64_t i = 0, seen = 0; i < w.nmsg; i++)
		if (w.bytes[i] == 4097) {
			uint32_t k = 0;

			while (sub[k] != w.src[i])
				k++;
			ck_assert_uint_eq(w.dst[i], sub[(k + 1) % 4]);
			ck_assert_uint_lt(seen++, 4);
		}
	for (uint64_t i = 0; i < w.nmsg; i++)
		if (w.bytes[i] == 777)
			ck_assert(w.src[i] == 6 && w.dst[i] == 3);
	net_up(&n, "fat 4,2");
	simulate(&n, &w, &r);
	ck_assert_uint_eq(r.msgs, msgs);
	ck_assert_uint_eq(r.bytes_injected, bytes);
	ck_assert_uint_eq(r.bytes_delivered, bytes);
	vt_sim_result_free(&r);
	vt_simwork_free(&w);
	net_down(&n);
	rmtree(dir);
}
END_TEST

/* Binomial gather and scatter: each block travels its member's depth, rel's bit count. */
static uint64_t popsum(uint32_t n)
{
	uint64_t s = 0;

	for (uint32_t rel = 1; rel < n; rel++)
		s += (uint64_t)__builtin_popcount(rel);
	return s;
}

static uint32_t log2ceil(uint32_t n)
{
	uint32_t k = 0;

	while ((1u << k) < n)
		k++;
	return k;
}

/* The messages and bytes of one stage of w. */
static void stage_sum(const vt_simwork *w, uint32_t st, uint64_t *msgs, uint64_t *bytes)
{
	*msgs = *bytes = 0;
	for (uint64_t i = 0; i < w->nmsg; i++)
		if (w->stage[i] == st) {
			(*msgs)++;
			*bytes += w->bytes[i];
		}
}

static int in(const uint32_t *m, uint32_t n, uint32_t r)
{
	for (uint32_t i = 0; i < n; i++)
		if (m[i] == r)
			return 1;
	return 0;
}

/* Rank r sends in stage st / receives in it. */
static int sends(const vt_simwork *w, uint32_t st, uint32_t r, int as_dst)
{
	for (uint64_t i = 0; i < w->nmsg; i++)
		if (w->stage[i] == st && (as_dst ? w->dst[i] : w->src[i]) == r)
			return 1;
	return 0;
}

/*
 * Every collective, roots other than 0, a 6-member sub-communicator (not a
 * power of two), a non-blocking allreduce, a GLOBAL_MEMBERS communicator:
 * per collective (stage 1 + k) the message count and bytes of its
 * algorithm, the root where it must be.
 */
START_TEST(collectives_expand)
{
	static const uint32_t sub[] = {9, 3, 14, 6, 1, 11};
	const uint64_t B = 3000;
	char dir[64], path[512];
	struct net n;
	vt_simwork w;
	vt_sim_result r;
	uint64_t m, by, total = 0;
	otf2w *tw = start(scratch(dir, sizeof(dir)), "coll", 16);
	uint32_t c = otf2w_comm(tw, sub, 6);
	/* GLOBAL_MEMBERS: the bcast's root comes as world rank 7, its rank 1 */
	uint32_t gc = otf2w_comm_global(tw, (const uint32_t[]){12, 7, 2}, 3);
	struct {
		uint32_t comm;
		int op;
		uint32_t root;
		uint64_t msgs, bytes;
	} want[] = {
		{0, OTF2_COLLECTIVE_OP_BCAST, 3, 15, 15 * B},
		{c, OTF2_COLLECTIVE_OP_REDUCE, 4, 5, 5 * B},
		{c, OTF2_COLLECTIVE_OP_GATHER, 2, 5, popsum(6) * B},
		{0, OTF2_COLLECTIVE_OP_SCATTER, 13, 15, popsum(16) * B},
		{0, OTF2_COLLECTIVE_OP_ALLREDUCE, 0, 16 * 4, 16 * 4 * B},
		{c, OTF2_COLLECTIVE_OP_ALLREDUCE, 0, 2 * 5, 2 * 5 * B},
		{c, OTF2_COLLECTIVE_OP_ALLGATHER, 0, 6 * 5, 6 * 5 * B},
		{0, OTF2_COLLECTIVE_OP_ALLTOALL, 0, 16 * 15, 16 * 15 * B},
		{c, OTF2_COLLECTIVE_OP_BARRIER, 0, 6 * log2ceil(6), 0},
		{0, -1, 0, 16 * 4, 16 * 4 * B}, /* MPI_Iallreduce, as an allreduce */
		{gc, OTF2_COLLECTIVE_OP_BCAST, 1, 2, 2 * B},
	};
	uint32_t nw = sizeof(want) / sizeof(want[0]);

	for (uint32_t k = 0; k < nw; k++)
		if (want[k].op < 0)
			otf2w_iallreduce(tw, want[k].comm, B, 77);
		else
			otf2w_coll(tw, want[k].comm, want[k].op, want[k].root, B);
	ck_assert_int_eq(otf2w_close(tw), 0);
	replay(anchor(path, sizeof(path), dir, "coll"), &w);
	ck_assert_uint_eq(w.nstages, 1 + nw);
	for (uint32_t k = 0; k < nw; k++) {
		stage_sum(&w, 1 + k, &m, &by);
		ck_assert_msg(m == want[k].msgs && by == want[k].bytes,
			      "collective %u: %llu messages, %llu bytes", k, (unsigned long long)m,
			      (unsigned long long)by);
		total += by;
	}
	/* bcast from world 3: it only sends; reduce to sub[4] = 1, gather to sub[2] = 14:
	 * they only receive; scatter from 13 */
	ck_assert(sends(&w, 1, 3, 0) && !sends(&w, 1, 3, 1));
	ck_assert(sends(&w, 2, 1, 1) && !sends(&w, 2, 1, 0));
	ck_assert(sends(&w, 3, 14, 1) && !sends(&w, 3, 14, 0));
	ck_assert(sends(&w, 4, 13, 0) && !sends(&w, 4, 13, 1));
	ck_assert(sends(&w, nw, 7, 0) && !sends(&w, nw, 7, 1));
	/* sub-communicator collectives stay inside it */
	for (uint64_t i = 0; i < w.nmsg; i++)
		if (want[w.stage[i] - 1].comm == c)
			ck_assert(in(sub, 6, w.src[i]) && in(sub, 6, w.dst[i]));
	net_up(&n, "fat 4,2");
	simulate(&n, &w, &r);
	ck_assert_uint_eq(r.bytes_injected, total);
	ck_assert_uint_eq(r.bytes_delivered, total);
	vt_sim_result_free(&r);
	vt_simwork_free(&w);
	net_down(&n);
	rmtree(dir);
}
END_TEST

/*
 * The v variants keep each member's block: gatherv and scatterv carry it
 * through the binomial tree (its depth: the bit count of its rank relative
 * to the root), allgatherv passes it n - 1 hops round the ring, alltoallv
 * sends it to the n - 1 others.
 */
START_TEST(v_collectives_expand)
{
	static const uint32_t sub[] = {9, 3, 14, 6, 1, 11};
	char dir[64], path[512];
	uint64_t blk[16], want_b[4] = {0}, m, by;
	uint32_t n[4] = {6, 16, 6, 16}, root[4] = {2, 4, 0, 0};
	int ops[4] = {OTF2_COLLECTIVE_OP_GATHERV, OTF2_COLLECTIVE_OP_SCATTERV,
		      OTF2_COLLECTIVE_OP_ALLGATHERV, OTF2_COLLECTIVE_OP_ALLTOALLV};
	struct net nt;
	vt_simwork w;
	vt_sim_result r;
	otf2w *tw = start(scratch(dir, sizeof(dir)), "vcoll", 16);
	uint32_t c = otf2w_comm(tw, sub, 6), comm[4] = {c, 0, c, 0};

	for (uint32_t i = 0; i < 16; i++)
		blk[i] = 100 * (i + 1) + (i % 3) * 1500;
	for (uint32_t k = 0; k < 4; k++) {
		otf2w_coll_v(tw, comm[k], ops[k], root[k], blk);
		for (uint32_t i = 0; i < n[k]; i++)
			want_b[k] +=
				blk[i] *
				(k < 2 ? (uint64_t)__builtin_popcount((i + n[k] - root[k]) % n[k])
				       : n[k] - 1);
	}
	ck_assert_int_eq(otf2w_close(tw), 0);
	replay(anchor(path, sizeof(path), dir, "vcoll"), &w);
	for (uint32_t k = 0; k < 4; k++) {
		stage_sum(&w, 1 + k, &m, &by);
		ck_assert_msg(m == (k < 2 ? n[k] - 1 : (uint64_t)n[k] * (n[k] - 1)) &&
				      by == want_b[k],
			      "%s: %llu messages, %llu bytes, want %llu", vt_mpicoll_name(8 + k),
			      (unsigned long long)m, (unsigned long long)by,
			      (unsigned long long)want_b[k]);
	}
	/* gatherv to sub[2] = 14 and scatterv from world 4: the root only receives, sends */
	ck_assert(sends(&w, 1, 14, 1) && !sends(&w, 1, 14, 0));
	ck_assert(sends(&w, 2, 4, 0) && !sends(&w, 2, 4, 1));
	net_up(&nt, "fat 4,2");
	simulate(&nt, &w, &r);
	ck_assert_uint_eq(r.bytes_delivered, want_b[0] + want_b[1] + want_b[2] + want_b[3]);
	vt_sim_result_free(&r);
	vt_simwork_free(&w);
	net_down(&nt);
	rmtree(dir);
}
END_TEST

/*
 * A traced alltoall gives the built-in alltoall's result to the picosecond
 * (an OpenMP thread team's communicator and the zero-byte collectives of
 * communicator creation and freeing beside it change nothing),
 * and a traced shift (isend to r + s, receive from r - s, stage by stage)
 * the causal shift pattern's.
 */
START_TEST(trace_equals_builtin)
{
	char dir[64], path[512];
	struct net n;
	vt_simwork tw_a, tw_s, bw;
	vt_sim_result a, b;
	vt_progb pb;
	vt_pattern pat;
	vt_err e;
	uint32_t g[16];
	otf2w *tw = start(scratch(dir, sizeof(dir)), "a2a", 16);

	/* as Score-P writes a hybrid MPI+OpenMP program splitting a communicator off */
	otf2w_omp_team(tw);
	for (uint32_t r = 0; r < 16; r++)
		otf2w_coll_at(tw, r, 0, OTF2_COLLECTIVE_OP_CREATE_HANDLE, OTF2_COLLECTIVE_ROOT_NONE,
			      0, 0);
	otf2w_coll(tw, 0, OTF2_COLLECTIVE_OP_ALLTOALL, 0, 5000);
	for (uint32_t r = 0; r < 16; r++)
		otf2w_coll_at(tw, r, 0, OTF2_COLLECTIVE_OP_DESTROY_HANDLE,
			      OTF2_COLLECTIVE_ROOT_NONE, 0, 0);
	ck_assert_int_eq(otf2w_close(tw), 0);
	tw = start(dir, "shift", 16);
	for (uint32_t s = 1; s < 16; s++)
		for (uint32_t r = 0; r < 16; r++) {
			otf2w_isend(tw, r, 0, (r + s) % 16, 0, 5000, s);
			otf2w_recv(tw, r, 0, (r + 16 - s) % 16, 0, 5000);
		}
	ck_assert_int_eq(otf2w_close(tw), 0);
	replay(anchor(path, sizeof(path), dir, "a2a"), &tw_a);
	replay(anchor(path, sizeof(path), dir, "shift"), &tw_s);
	net_up(&n, "fat 4,2");
	for (uint32_t r = 0; r < 16; r++)
		g[r] = r;
	ck_assert_int_eq(vt_progb_init(&pb, &bw, 16, &e), 0);
	ck_assert_int_eq(vt_coll_alltoall(&pb, g, 16, 5000, 0), 0);
	ck_assert_int_eq(vt_progb_finish(&pb), 0);
	simulate(&n, &tw_a, &a);
	simulate(&n, &bw, &b);
	ck_assert_uint_eq(a.end_ps, b.end_ps);
	ck_assert_uint_eq(a.bytes_delivered, 16 * 15 * 5000);
	ck_assert_uint_eq(b.bytes_delivered, 16 * 15 * 5000);
	vt_sim_result_free(&a);
	vt_sim_result_free(&b);
	vt_simwork_free(&bw);
	ck_assert_int_eq(vt_pattern_parse(&pat, "shift", 16, &e), 0);
	ck_assert_int_eq(vt_simwork_pattern(&bw, &pat, 5000, 1, VT_WORK_CAUSAL, &e), 0);
	simulate(&n, &tw_s, &a);
	simulate(&n, &bw, &b);
	ck_assert_uint_gt(a.end_ps, 0);
	ck_assert_uint_eq(a.end_ps, b.end_ps);
	ck_assert_uint_eq(a.bytes_delivered, b.bytes_delivered);
	vt_sim_result_free(&a);
	vt_sim_result_free(&b);
	vt_pattern_free(&pat);
	vt_simwork_free(&bw);
	vt_simwork_free(&tw_a);
	vt_simwork_free(&tw_s);
	net_down(&n);
	rmtree(dir);
}
END_TEST

/* The nanoseconds of w's compute steps, and how many there are. */
static uint64_t compute_ns(const vt_simwork *w, uint64_t *steps)
{
	uint64_t ns = 0;

	*steps = 0;
	for (uint32_t k = 0; k < w->step_off[w->nranks]; k++)
		if (VT_STEP_KIND(w->step[k]) == VT_STEP_COMPUTE) {
			ns += VT_STEP_MSG(w->step[k]);
			(*steps)++;
		}
	return ns;
}

/*
 * Compute gaps: rank 0 computes 7 us, then a blocking send to rank 1, which
 * computes 3 us after receiving it and sends it back. Both gaps lie on the
 * one path, so replaying them adds exactly 10 us; without, none.
 */
START_TEST(compute_gaps)
{
	uint64_t steps;
	char dir[64], path[512];
	struct net n;
	vt_simwork a, b;
	vt_sim_result ra, rb;
	otf2w *tw = start(scratch(dir, sizeof(dir)), "gaps", 16);

	otf2w_pingpong(tw, 7000, 3000, 4096);
	ck_assert_int_eq(otf2w_close(tw), 0);
	anchor(path, sizeof(path), dir, "gaps");
	replay_c(path, &a, 0);
	replay_c(path, &b, 1);
	ck_assert_uint_eq(compute_ns(&a, &steps), 0);
	ck_assert_uint_eq(steps, 0);
	ck_assert_uint_eq(compute_ns(&b, &steps), 10000);
	ck_assert_uint_eq(steps, 2);
	net_up(&n, "fat 4,2");
	simulate(&n, &a, &ra);
	simulate(&n, &b, &rb);
	ck_assert_uint_gt(ra.end_ps, 0);
	ck_assert_uint_eq(rb.end_ps, ra.end_ps + 10000000);
	ck_assert_uint_eq(rb.bytes_delivered, 2 * 4096);
	vt_sim_result_free(&ra);
	vt_sim_result_free(&rb);
	vt_simwork_free(&a);
	vt_simwork_free(&b);
	net_down(&n);
	rmtree(dir);
}
END_TEST

/* The error of reading path, and of replaying it if it reads. */
static const char *read_error(const char *path, vt_err *e)
{
	vt_mpitrace t;
	vt_simwork w;
	vt_progb b;
	uint32_t g[64];

	if (vt_otf2_read(&t, path, e))
		return e->msg;
	for (uint32_t r = 0; r < 64; r++)
		g[r] = r;
	ck_assert_uint_le(t.nranks, 64);
	ck_assert_int_eq(vt_progb_init(&b, &w, t.nranks, e), 0);
	if (vt_replay_build(&b, &t, g, 0)) {
		vt_progb_abort(&b);
		vt_mpitrace_free(&t);
		return e->msg;
	}
	ck_assert_int_eq(vt_progb_finish(&b), 0);
	vt_mpitrace_free(&t);
	vt_simwork_free(&w);
	return NULL;
}

static void truncate_half(const char *path)
{
	FILE *fp = fopen(path, "r+");
	long n;

	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fseek(fp, 0, SEEK_END), 0);
	n = ftell(fp);
	fclose(fp);
	ck_assert_int_gt(n, 8);
	ck_assert_int_eq(truncate(path, n / 2), 0);
}

/* Writes n bytes at offset `at` of the 72-byte anchor file path (machine, creator, description
 * empty). */
static void poke(const char *path, long at, const char *b, size_t n)
{
	FILE *fp = fopen(path, "r+b");

	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fseek(fp, 0, SEEK_END), 0);
	ck_assert_int_eq(ftell(fp), 72);
	ck_assert_int_eq(fseek(fp, at, SEEK_SET), 0);
	ck_assert_uint_eq(fwrite(b, 1, n, fp), n);
	ck_assert_int_eq(fclose(fp), 0);
}

/* Closes the trace being written and returns its anchor file's path. */
static const char *finish(otf2w *tw, char *path, size_t n, const char *dir, const char *name)
{
	ck_assert_int_eq(otf2w_close(tw), 0);
	return anchor(path, n, dir, name);
}

/* Reading (or replaying) path fails with one line: the path, then cause. */
static void assert_file_error(const char *path, const char *cause)
{
	char want[1024];
	vt_err e;

	snprintf(want, sizeof(want), "%s: %s", path, cause);
	ck_assert_str_eq(read_error(path, &e), want);
}

/* Traces that read but do not replay: the rank and the operation named, no file. */
START_TEST(errors_unmatched_replay)
{
	char dir[64], path[512];
	vt_err e;
	otf2w *tw = start(scratch(dir, sizeof(dir)), "bad", 4);

	otf2w_send(tw, 0, 0, 1, 0, 100);
	otf2w_recv(tw, 1, 0, 0, 0, 100);
	otf2w_recv(tw, 2, 0, 3, 9, 100); /* nobody sends it */
	ck_assert_str_eq(read_error(finish(tw, path, sizeof(path), dir, "bad"), &e),
			 "rank 2: receive from rank 3, tag 9, communicator MPI_COMM_WORLD "
			 "has no matching send");

	/* collectives that cannot be replayed: a rank calls another, a rank never comes */
	tw = start(dir, "mismatch", 4);
	for (uint32_t r = 0; r < 4; r++)
		otf2w_coll_at(tw, r, 0,
			      r == 2 ? OTF2_COLLECTIVE_OP_REDUCE : OTF2_COLLECTIVE_OP_BCAST, 0, 8,
			      8);
	ck_assert_str_eq(read_error(finish(tw, path, sizeof(path), dir, "mismatch"), &e),
			 "communicator MPI_COMM_WORLD: rank 2 calls reduce (root 0) where rank 0 "
			 "calls bcast (root 0)");
	tw = start(dir, "stuck", 4);
	for (uint32_t r = 0; r < 3; r++)
		otf2w_coll_at(tw, r, 0, OTF2_COLLECTIVE_OP_BARRIER, OTF2_COLLECTIVE_ROOT_NONE, 0,
			      0);
	ck_assert_str_eq(read_error(finish(tw, path, sizeof(path), dir, "stuck"), &e),
			 "rank 0 waits in barrier on communicator MPI_COMM_WORLD, where 3 of its 4 "
			 "members arrive");
	rmtree(dir);
}
END_TEST

/* A missing file, operations vartree does not replay, communicators it cannot place. */
START_TEST(errors_unsupported)
{
	char dir[64], path[512], file[600], want[700];
	vt_err e;
	otf2w *tw;

	snprintf(file, sizeof(file), "%s/nothere.otf2", scratch(dir, sizeof(dir)));
	snprintf(want, sizeof(want), "%s: No such file or directory", file);
	ck_assert_str_eq(read_error(file, &e), want);

	tw = start(dir, "v", 2);
	otf2w_coll(tw, 0, OTF2_COLLECTIVE_OP_ALLTOALLW, 0, 8);
	assert_file_error(finish(tw, path, sizeof(path), dir, "v"),
			  "rank 0: collective alltoallw is not replayed");

	/* no communicator defined: an empty trace has nothing to replay, an event naming one is
	 * refused */
	tw = start(dir, "nocomm", 4);
	otf2w_no_comms(tw);
	assert_file_error(finish(tw, path, sizeof(path), dir, "nocomm"),
			  "no MPI message or collective to replay in its 4 locations");
	tw = start(dir, "nocomm2", 4);
	otf2w_no_comms(tw);
	otf2w_send(tw, 1, 0, 2, 0, 100);
	assert_file_error(finish(tw, path, sizeof(path), dir, "nocomm2"),
			  "rank 1: undefined communicator 0");

	/* an MPI event on an OpenMP thread team's communicator */
	tw = start(dir, "omp", 4);
	otf2w_send(tw, 1, otf2w_omp_team(tw), 0, 0, 100);
	assert_file_error(finish(tw, path, sizeof(path), dir, "omp"),
			  "rank 1: an MPI event on communicator 64, which is not MPI's");
	/* a communicator creation that moves bytes is no MPI_Comm_split: refused by name */
	tw = start(dir, "handle", 2);
	for (uint32_t r = 0; r < 2; r++)
		otf2w_coll_at(tw, r, 0, OTF2_COLLECTIVE_OP_CREATE_HANDLE, OTF2_COLLECTIVE_ROOT_NONE,
			      8, 8);
	assert_file_error(finish(tw, path, sizeof(path), dir, "handle"),
			  "rank 0: collective create_handle is not replayed");
	rmtree(dir);
}
END_TEST

/* Values past what vartree counts, names that would break the one line. */
START_TEST(errors_limits_and_names)
{
	char dir[64], path[512];
	otf2w *tw = start(scratch(dir, sizeof(dir)), "long", 4);

	/* compute that picoseconds cannot count: 2^62 ns (at the writer's 1 GHz clock) */
	otf2w_send(tw, 0, 0, 1, 0, 100);
	otf2w_compute(tw, 0, 1ull << 62);
	otf2w_send(tw, 0, 0, 1, 0, 100);
	assert_file_error(
		finish(tw, path, sizeof(path), dir, "long"),
		"rank 0: the compute before its operation 2 is 2^64 ps or more (213 days)");

	/* a communicator's name with control characters: quoted with '?' for them, one line */
	tw = start(dir, "ctl", 4);
	otf2w_sub_name(tw, "s\nu\tb");
	otf2w_send(tw, 1, otf2w_comm(tw, (const uint32_t[]){1, 3}, 2), 2, 0, 100);
	assert_file_error(finish(tw, path, sizeof(path), dir, "ctl"),
			  "rank 1: send to rank 2 of communicator s?u?b, which has 2");
	rmtree(dir);
}
END_TEST

/* Damaged files: the file named, one line, before libotf2 is let near the damage. */
START_TEST(errors_damaged_files)
{
	char dir[64], path[512], file[600];
	const char *msg;
	vt_err e;
	otf2w *tw = start(scratch(dir, sizeof(dir)), "anchor", 2);

	/*
	 * a damaged anchor file is refused before libotf2 reads it: a property
	 * count of 2^32 - 256 (libotf2 callocs for them first), the machine name
	 * unterminated (libotf2 searched on for seconds)
	 */
	otf2w_send(tw, 0, 0, 1, 0, 100);
	otf2w_recv(tw, 1, 0, 0, 0, 100);
	finish(tw, path, sizeof(path), dir, "anchor");
	poke(path, 50, "\xff\xff\xff", 3);
	assert_file_error(path, "not an OTF2 anchor file, or a damaged one (4294967040 "
				"properties in its 72 bytes)");
	poke(path, 46, "xxxxxxxxxxxxxxxxxxxxxxxxxx", 26);
	assert_file_error(path, "not an OTF2 anchor file, or a damaged one (its machine name "
				"runs to the end of the file)");

	/* a cut global definition file, a cut event file: the file named, one line */
	tw = start(dir, "cut", 2);
	otf2w_send(tw, 0, 0, 1, 0, 100);
	otf2w_recv(tw, 1, 0, 0, 0, 100);
	ck_assert_int_eq(otf2w_close(tw), 0);
	snprintf(file, sizeof(file), "%s/cut/cut.def", dir);
	truncate_half(file);
	anchor(path, sizeof(path), dir, "cut");
	msg = read_error(path, &e);
	ck_assert_ptr_nonnull(msg);
	ck_assert_msg(!strncmp(msg, path, strlen(path)) && !strchr(msg, '\n'), "%s", msg);
	rmtree(dir);
}
END_TEST

static Suite *otf2_suite(void)
{
	Suite *s = suite_create("otf2");
	TCase *tc = tcase_create("replay");

	tcase_add_test(tc, p2p_conserves);
	tcase_add_test(tc, collectives_expand);
	tcase_add_test(tc, v_collectives_expand);
	tcase_add_test(tc, trace_equals_builtin);
	tcase_add_test(tc, compute_gaps);
	tcase_add_test(tc, errors_unmatched_replay);
	tcase_add_test(tc, errors_unsupported);
	tcase_add_test(tc, errors_limits_and_names);
	tcase_add_test(tc, errors_damaged_files);
	suite_add_tcase(s, tc);
	return s;
}

VT_TEST_MAIN(otf2_suite)
