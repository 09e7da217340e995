/* SPDX-License-Identifier: MIT */
/*
 * Congestion on a 2-ary-2-tree (hosts 0,1 on leaf A, 2,3 on leaf B,
 * spines X, Y) with tables written here, figures computed by hand.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/vt_bound.h"
#include "analysis/vt_congest.h"
#include "gen/vt_gen.h"
#include "io/vt_lftio.h"
#include "io/vt_load.h"
#include "route/vt_route.h"
#include "vt_k22.h"
#include "vt_test.h"
#include "vt_trace.h"
#include "tree/vt_tree.h"

/*
 * The bound per stage from the ranks alone (vt_bound_shift_ranks, what the
 * repair's guard reads) is the one the congestion run reports for shift.
 */
static void ranks_bound(const vt_fabric *f, const vt_order *o, const vt_tree *tree,
			const vt_congest *ref, const char *what)
{
	uint32_t *b = malloc(((size_t)o->n + 1) * sizeof(*b));
	vt_err e = {0};

	ck_assert_ptr_nonnull(b);
	ck_assert_msg(vt_bound_shift_ranks(f, o, tree, b, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(b[0], 0);
	ck_assert_uint_eq(ref->nstages, o->n - 1);
	for (uint32_t s = 1; s < o->n; s++)
		ck_assert_msg(b[s] == ref->stage_bound[s - 1], "%s: stage %u: bound %u, run %u",
			      what, s, b[s], ref->stage_bound[s - 1]);
	free(b);
}

START_TEST(shift_by_hand)
{
	struct vt_k22 x;
	vt_routes r;
	vt_cuts cuts;
	vt_err e = {0};
	vt_pattern p;

	vt_k22_setup(&x);
	ck_assert_int_eq(vt_routes_build(&r, x.f, &x.t, &x.o, &e), 0);
	ck_assert_int_eq(vt_cuts_leaf(&cuts, &r, &e), 0);
	ck_assert_int_eq(vt_pattern_parse(&p, "shift", 4, &e), 0);
	/*
	 * s=1: 1->2 and 3->0 cross, one per up-link: max 1. s=2: all four cross,
	 * A->X and B->X carry 2. s=3: 0->3 and 2->1 cross: 1. Worst 2, avg 4/3.
	 * Bound: leaves have 2 links; s=2 sends 2 out of each: ceil(2/2) = 1.
	 */
	for (int m = VT_CONGEST_WALK; m <= VT_CONGEST_NAIVE; m++) {
		struct vt_congest_opts o = {.threads = 2, .method = m, .cuts = &cuts};
		vt_congest c;
		ck_assert_msg(vt_congest_run(&r, &p, &o, &c, &e) == 0, "%s", e.msg);
		ck_assert_uint_eq(c.nstages, 3);
		ck_assert_uint_eq(c.stage_max[0], 1);
		ck_assert_uint_eq(c.stage_max[1], 2);
		ck_assert_uint_eq(c.stage_max[2], 1);
		ck_assert_uint_eq(c.worst, 2);
		ck_assert(c.avg > 1.3333 && c.avg < 1.3334);
		ck_assert_uint_eq(c.nflows, 12);
		ck_assert_uint_eq(c.unrouted, 0);
		ck_assert_uint_eq(c.bound_worst, 1);
		ranks_bound(x.f, &x.o, NULL, &c, "k22");
		/* hops: s=1 and s=3: 2 local flows x 2 + 2 crossing x 4 = 12 each; s=2: 16 */
		ck_assert_uint_eq(c.hops, 40);
		/* loads 2: A->X and B->X in stage 2, and X->A, X->B too */
		ck_assert_uint_eq(c.hist[2], 4);
		uint32_t top[1];
		ck_assert_uint_eq(vt_congest_top(&r, &c, 1, top), 1);
		ck_assert_uint_eq(c.chan_max[top[0]], 2);
		vt_congest_free(&c);
	}
	vt_pattern_free(&p);
	ck_assert_int_eq(vt_pattern_parse(&p, "bisection:seed=3,count=4", 4, &e), 0);
	struct vt_congest_opts o = {.threads = 1};
	vt_congest c;
	ck_assert_int_eq(vt_congest_run(&r, &p, &o, &c, &e), 0);
	ck_assert(c.has_ebb && c.ebb > 0 && c.ebb <= 1);
	vt_congest_free(&c);
	vt_cuts_free(&cuts);
	vt_routes_free(&r);
	vt_k22_teardown(&x);
}
END_TEST

/* ---- every method against the naive walk, the tracer and the per-stage bound */

static void same(const vt_routes *r, const vt_congest *a, const vt_congest *b, const char *what)
{
	ck_assert_msg(a->nstages == b->nstages && a->nflows == b->nflows &&
			      a->unrouted == b->unrouted && a->hops == b->hops &&
			      a->worst == b->worst && a->avg == b->avg &&
			      a->bound_worst == b->bound_worst,
		      "%s: flows %lu/%lu unrouted %lu/%lu hops %lu/%lu worst %u/%u", what,
		      (unsigned long)a->nflows, (unsigned long)b->nflows,
		      (unsigned long)a->unrouted, (unsigned long)b->unrouted,
		      (unsigned long)a->hops, (unsigned long)b->hops, a->worst, b->worst);
	for (uint32_t s = 0; s < a->nstages; s++) {
		ck_assert_msg(a->stage_max[s] == b->stage_max[s], "%s: stage %u", what, s);
		if (a->stage_bound)
			ck_assert_msg(a->stage_bound[s] == b->stage_bound[s], "%s: bound %u", what,
				      s);
	}
	for (uint32_t k = 0; k <= a->worst; k++)
		ck_assert_msg(a->hist[k] == b->hist[k], "%s: hist[%u]", what, k);
	for (uint32_t c = 0; c < r->nchan; c++)
		ck_assert_msg(a->chan_max[c] == b->chan_max[c] && a->chan_sum[c] == b->chan_sum[c],
			      "%s: channel %u", what, c);
}

static void run(const vt_routes *r, const vt_cuts *cuts, const char *spec, int m, unsigned nt,
		vt_congest *c)
{
	vt_pattern p;
	vt_err e = {0};
	struct vt_congest_opts o = {.threads = nt, .method = m, .cuts = cuts};

	ck_assert_msg(vt_pattern_parse(&p, spec, r->n, &e) == 0, "%s", e.msg);
	ck_assert_msg(vt_congest_run(r, &p, &o, c, &e) == 0, "%s", e.msg);
	vt_pattern_free(&p);
}

/* Per stage, the bound from the flows themselves (vt_bound_stage). */
static void bound_by_flows(const vt_routes *r, const vt_cuts *cuts, const char *spec,
			   const vt_congest *c)
{
	vt_pattern p;
	vt_err e = {0};

	ck_assert_int_eq(vt_pattern_parse(&p, spec, r->n, &e), 0);
	struct vt_flow *fl = malloc(((size_t)vt_pattern_max_flows(&p) + 1) * sizeof(*fl));
	uint32_t *scr = malloc(2 * ((size_t)(cuts->ncuts > r->n ? cuts->ncuts : r->n) + 1) * 4);
	for (uint32_t s = 0; s < c->nstages; s++) {
		uint32_t m = vt_pattern_stage(&p, s, fl), k = 0;
		for (uint32_t i = 0; i < m; i++)
			if (r->rank_sw[fl[i].src] != VT_NONE && r->rank_sw[fl[i].dst] != VT_NONE)
				fl[k++] = fl[i];
		ck_assert_msg(vt_bound_stage(cuts, fl, k, scr) == c->stage_bound[s],
			      "%s stage %u: bound %u, from flows %u", spec, s, c->stage_bound[s],
			      vt_bound_stage(cuts, fl, k, scr));
	}
	free(fl);
	free(scr);
	vt_pattern_free(&p);
}

static void cross_check(const vt_fabric *f, const vt_lfts *t, const vt_order *o, const char *what)
{
	vt_routes r;
	vt_cuts leaf, tcuts;
	vt_tree tree;
	vt_err e = {0};
	vt_congest ref, c;
	struct vt_trace_shift tr;
	int have_tree = vt_tree_build(&tree, f, &(struct vt_tree_opts){0}, &e) == 0;

	ck_assert_msg(vt_routes_build(&r, f, t, o, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(vt_cuts_leaf(&leaf, &r, &e), 0);
	if (have_tree)
		ck_assert_int_eq(vt_cuts_tree(&tcuts, &r, &tree, &e), 0);
	const vt_cuts *cuts = have_tree ? &tcuts : &leaf;
	run(&r, cuts, "shift", VT_CONGEST_NAIVE, 1, &ref);
	/* the routing engineer's tracer: worst, avg, bad paths, per-link maxima */
	ck_assert_int_eq(vt_trace_shift(f, t, o, &tr), 0);
	ck_assert_msg(tr.worst == ref.worst && fabs(tr.avg - ref.avg) < 1e-9,
		      "%s: tracer %u/%.4f, naive %u/%.4f", what, tr.worst, tr.avg, ref.worst,
		      ref.avg);
	ck_assert_uint_eq(tr.bad_paths, ref.unrouted);
	for (uint32_t ch = 0; ch < r.nchan; ch++)
		if (r.counted[ch])
			ck_assert_msg(tr.max_load[ch] == ref.chan_max[ch], "%s: link %u", what, ch);
	vt_trace_shift_free(&tr);
	for (int m = VT_CONGEST_AUTO; m <= VT_CONGEST_INTERVAL; m++)
		for (unsigned nt = 1; nt <= 2; nt++) {
			run(&r, cuts, "shift", m, nt, &c);
			same(&r, &ref, &c, what);
			vt_congest_free(&c);
		}
	bound_by_flows(&r, cuts, "shift", &ref);
	ranks_bound(f, o, have_tree ? &tree : NULL, &ref, what);
	vt_congest_free(&ref);
	/* a range of shifts, and the leaf cuts */
	run(&r, &leaf, "shift:3-9", VT_CONGEST_NAIVE, 1, &ref);
	run(&r, &leaf, "shift:3-9", VT_CONGEST_INTERVAL, 2, &c);
	same(&r, &ref, &c, what);
	bound_by_flows(&r, &leaf, "shift:3-9", &ref);
	vt_congest_free(&c);
	vt_congest_free(&ref);
	/* other patterns: the walk against the naive walk; all2all's bound without flows */
	static const char *const pats[] = {"butterfly", "bisection:seed=2,count=3", "all2all",
					   "mesh2d", "randperm:count=3"};
	for (unsigned i = 0; i < sizeof(pats) / sizeof(*pats); i++) {
		run(&r, cuts, pats[i], VT_CONGEST_NAIVE, 1, &ref);
		run(&r, cuts, pats[i], VT_CONGEST_WALK, 2, &c);
		same(&r, &ref, &c, pats[i]);
		ck_assert(ref.has_ebb == c.has_ebb && ref.ebb == c.ebb);
		bound_by_flows(&r, cuts, pats[i], &ref);
		vt_congest_free(&c);
		vt_congest_free(&ref);
	}
	if (have_tree) {
		vt_cuts_free(&tcuts);
		vt_tree_free(&tree);
	}
	vt_cuts_free(&leaf);
	vt_routes_free(&r);
}

static char *xz(const char *rel, size_t *len)
{
	char cmd[4200];
	size_t cap = 1 << 16;
	char *buf = malloc(cap);

	snprintf(cmd, sizeof(cmd), "xz -dc '%s'", vt_test_path(rel));
	FILE *fp = popen(cmd, "r");
	ck_assert_ptr_nonnull(fp);
	*len = 0;
	while (1) {
		if (*len + 4096 > cap)
			buf = realloc(buf, cap *= 2);
		size_t m = fread(buf + *len, 1, 4096, fp);
		if (!m)
			break;
		*len += m;
	}
	ck_assert_int_eq(pclose(fp), 0);
	buf[*len] = 0;
	return buf;
}

/* A Table I fixture (OpenSM's tables from ibsim), hosts in leaf order or shuffled. */
static void fixture(const char *fab, const char *eng, uint64_t shuffle)
{
	char rel[256], what[300];
	size_t len;
	vt_fabric *f;
	vt_lfts t;
	vt_order o;
	vt_err e = {0};

	snprintf(rel, sizeof(rel), "tests/data/analyze/%s.topo.xz", fab);
	char *txt = xz(rel, &len);
	ck_assert_msg(vt_load_text_mem(txt, len, fab, &f, &e) == 0, "%s", e.msg);
	free(txt);
	snprintf(rel, sizeof(rel), "tests/data/analyze/%s-%s.lfts.xz", fab, eng);
	txt = xz(rel, &len);
	ck_assert_msg(vt_lfts_read_mem(&t, f, txt, len, rel, &e) == 0, "%s", e.msg);
	free(txt);
	ck_assert_int_eq(vt_order_leaf(&o, f, &e), 0);
	if (shuffle)
		vt_order_shuffle(&o, shuffle);
	snprintf(what, sizeof(what), "%s %s order %lu", fab, eng, (unsigned long)shuffle);
	cross_check(f, &t, &o, what);
	vt_order_free(&o);
	vt_lfts_free(&t);
	vt_fabric_free(f);
}

/*
 * A generated fabric routed by vartree, with its own order (place-keepers
 * where hosts are gone), hosts shuffled when shuffle is not 0.
 */
static void generated_order(const char *spec, uint64_t shuffle)
{
	struct vt_gen_spec gs;
	vt_fabric *f;
	vt_lfts t;
	vt_order o;
	vt_err e = {0};

	ck_assert_msg(vt_gen_parse(&gs, spec, &e) == 0, "%s", e.msg);
	ck_assert_msg(vt_gen_build(&gs, &f, &e) == 0, "%s", e.msg);
	ck_assert_msg(vt_route(f, NULL, &t, &o, &e) == 0, "%s: %s", spec, e.msg);
	if (shuffle)
		vt_order_shuffle(&o, shuffle);
	cross_check(f, &t, &o, spec);
	vt_order_free(&o);
	vt_lfts_free(&t);
	vt_fabric_free(f);
}

static void generated(const char *spec)
{
	generated_order(spec, 0);
}

START_TEST(table1_fixtures)
{
	fixture("fat4-3", "minhop", 0);
	fixture("fat4-3", "ftree", 0);
	fixture("fat4-3", "minhop", 7);
	fixture("fat4-4", "minhop", 0);
}
END_TEST

START_TEST(generated_fabrics)
{
	generated("thin 4:2,3");
	generated("slender 4:2,3");
	generated("fat 4,3 --drop-links=5 --seed=3");
	generated("fat 4,3 --drop-hosts=6 --seed=2");
	generated("oversub 4,6,2,2");
	/* a split core: the leaf-pair bound on, from shifts' runs and from flows alike */
	generated("cores 3,4,2,12,4");
	generated_order("cores 3,4,2,12,4", 5);
}
END_TEST

/* A generated fabric routed by vartree, with its n ranks and its tree: the stage bounds' input. */
struct bound_case {
	vt_fabric *f;
	vt_order o;
	vt_lfts t;
	vt_tree tree;
	vt_err e;
};

static void bound_case_open(struct bound_case *c, const char *spec, uint32_t n)
{
	struct vt_gen_spec gs;

	memset(c, 0, sizeof(*c));
	ck_assert_int_eq(vt_gen_parse(&gs, spec, &c->e), 0);
	ck_assert_msg(vt_gen_build(&gs, &c->f, &c->e) == 0, "%s", c->e.msg);
	ck_assert_msg(vt_route(c->f, NULL, &c->t, &c->o, &c->e) == 0, "%s", c->e.msg);
	ck_assert_uint_eq(c->o.n, n);
	ck_assert_int_eq(vt_tree_build(&c->tree, c->f, &(struct vt_tree_opts){0}, &c->e), 0);
}

static void bound_case_close(struct bound_case *c)
{
	vt_tree_free(&c->tree);
	vt_order_free(&c->o);
	vt_lfts_free(&c->t);
	vt_fabric_free(c->f);
}

/*
 * cores 3,4,2,12,4: 12 leaves of 4 hosts, 4 up-links each, 2 into one
 * chassis and 1 into each of the two others; vartree's order puts the 4
 * leaves of one double chassis together (ranks 0-15 chassis A's, 16-31 B's,
 * 32-47 C's). In stage 4k a leaf sends its 4 hosts to one leaf 4k ranks on,
 * each leaf sends and receives 4 on its 4 links, and a pair in two blocks
 * (some for every k in 1 .. 11) reaches over one chassis at most
 * min(2,1) + min(1,2) + min(1,1) = 3 links, no leaf has room for the fourth
 * flow to pass: the leaf-pair bound says 2 there, every cut 1 (a leaf: 4 flows on 4 links; the
 * level-1 subtrees of 4 leaves: 16 on 16). Other stages split a leaf's flows over two leaves, each
 * pair of at most 3 flows, which 3 links carry.
 */
START_TEST(shift_bound_split_core)
{
	struct bound_case c;
	uint32_t b[48];

	bound_case_open(&c, "cores 3,4,2,12,4", 48);
	ck_assert_int_eq(vt_bound_shift_ranks(c.f, &c.o, &c.tree, b, &c.e), 0);
	for (uint32_t s = 1; s < 48; s++)
		ck_assert_msg(b[s] == (s % 4 ? 1u : 2u), "stage %u: bound %u", s, b[s]);
	/* the leaf cuts alone (no tree) give the same */
	ck_assert_int_eq(vt_bound_shift_ranks(c.f, &c.o, NULL, b, &c.e), 0);
	for (uint32_t s = 1; s < 48; s++)
		ck_assert_msg(b[s] == (s % 4 ? 1u : 2u), "leaf cuts, stage %u: bound %u", s, b[s]);
	bound_case_close(&c);
}
END_TEST

/*
 * A leaf of fat 4,3 (16 leaves of 4 hosts, 4 up-links each) that lost an
 * up-link: the cut around it sends its 4 hosts' flows over 3 links, so
 * every stage that sends 4 flows out of it is bounded by 2; the stages
 * 1 .. 3 and 61 .. 63 keep some flows inside (1 on 3 links). The figures
 * the repair's guard measures candidates against.
 */
START_TEST(shift_bound_lost_uplink)
{
	struct bound_case c;
	uint32_t b[64];

	bound_case_open(&c, "fat 4,3 --drop-links=1@0 --seed=1", 64);
	ck_assert_int_eq(vt_bound_shift_ranks(c.f, &c.o, &c.tree, b, &c.e), 0);
	ck_assert_uint_eq(b[0], 0);
	for (uint32_t s = 1; s < 64; s++)
		ck_assert_msg(b[s] == (s < 4 || s > 60 ? 1u : 2u), "stage %u: bound %u", s, b[s]);
	bound_case_close(&c);
}
END_TEST

/* all2all's bound from hosts per cut; 2 leaves of 8 hosts, 2 up-links each: 8 x 8 / 2. */
START_TEST(all2all_bound)
{
	struct vt_gen_spec gs;
	vt_fabric *f;
	vt_order o;
	vt_routes r;
	vt_cuts cuts;
	vt_lfts t;
	vt_err e = {0};

	ck_assert_int_eq(vt_gen_parse(&gs, "oversub 2,8,2,2", &e), 0);
	ck_assert_int_eq(vt_gen_build(&gs, &f, &e), 0);
	ck_assert_int_eq(vt_order_leaf(&o, f, &e), 0);
	ck_assert_int_eq(vt_lfts_init(&t, f, &e), 0);
	ck_assert_int_eq(vt_routes_build(&r, f, &t, &o, &e), 0);
	ck_assert_int_eq(vt_cuts_leaf(&cuts, &r, &e), 0);
	ck_assert_uint_eq(vt_bound_all2all(&cuts, &r), 32);
	vt_cuts_free(&cuts);
	vt_routes_free(&r);
	vt_lfts_free(&t);
	vt_order_free(&o);
	vt_fabric_free(f);
}
END_TEST

/* Progress calls, in order. */
struct calls {
	uint64_t done[16], total[16];
	unsigned n;
};

static void record(void *ctx, uint64_t done, uint64_t total)
{
	struct calls *c = ctx;

	if (c->n < 16) {
		c->done[c->n] = done;
		c->total[c->n] = total;
	}
	c->n++;
}

/*
 * An all2all of 1728 ranks (fat 12,3) is one stage of 1728 x 1727 flows, walked in chunks
 * of 2^20 by one thread, maybe not thread 0: progress comes per chunk, in flows, from that
 * thread; it came once, at the end, or never (issue 25: 78 s without progress).
 */
START_TEST(all2all_progress)
{
	vt_fabric *f = vt_test_gen("fat 12,3");
	struct calls c = {0};
	struct vt_congest_opts co = {
		.threads = 2, .method = VT_CONGEST_WALK, .progress = record, .progress_ctx = &c};
	vt_pattern p;
	vt_congest res;
	vt_order o;
	vt_routes r;
	vt_lfts t;
	vt_err e = {0};

	ck_assert_int_eq(vt_order_leaf(&o, f, &e), 0);
	ck_assert_int_eq(vt_lfts_init(&t, f, &e), 0); /* no routes: every flow unrouted, fast */
	ck_assert_int_eq(vt_routes_build(&r, f, &t, &o, &e), 0);
	ck_assert_int_eq(vt_pattern_parse(&p, "all2all", r.n, &e), 0);
	ck_assert_msg(vt_congest_run(&r, &p, &co, &res, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(res.unrouted, 1728u * 1727);
	ck_assert_uint_eq(c.n, 3);
	ck_assert_uint_eq(c.done[0], 1u << 20);
	ck_assert_uint_eq(c.done[1], 2u << 20);
	ck_assert_uint_eq(c.done[2], 1728u * 1727);
	for (unsigned i = 0; i < 3; i++)
		ck_assert_uint_eq(c.total[i], vt_pattern_max_flows(&p));
	vt_congest_free(&res);
	vt_pattern_free(&p);
	vt_routes_free(&r);
	vt_lfts_free(&t);
	vt_order_free(&o);
	vt_fabric_free(f);
}
END_TEST

static Suite *congest_suite(void)
{
	Suite *s = suite_create("congest");
	TCase *t = tcase_create("core");

	tcase_add_test(t, shift_by_hand);
	tcase_add_test(t, table1_fixtures);
	tcase_add_test(t, generated_fabrics);
	tcase_add_test(t, all2all_bound);
	tcase_add_test(t, shift_bound_lost_uplink);
	tcase_add_test(t, shift_bound_split_core);
	tcase_add_test(t, all2all_progress);
	tcase_set_timeout(t, 120);
	suite_add_tcase(s, t);
	return s;
}

VT_TEST_MAIN(congest_suite)
