/* SPDX-License-Identifier: MIT */
/*
 * Congestion on a 2-ary-2-tree (hosts 0,1 on leaf A, 2,3 on leaf B,
 * spines X, Y) with tables written here, figures computed by hand.
 */
#include <string.h>

#include "vt_bound.h"
#include "vt_congest.h"
#include "vt_gen.h"
#include "vt_test.h"

struct fx {
	vt_fabric *f;
	vt_lfts t;
	vt_order o;
	uint32_t leaf[2], spine[2], host[4]; /* node indices; hosts in leaf order */
};

static unsigned port_to(const vt_fabric *f, uint32_t a, uint32_t b)
{
	for (unsigned p = 1; p <= f->nodes[a].nports; p++)
		if (vt_peer_node(f, vt_port_index(f, a, p)) == b)
			return p;
	ck_abort_msg("no link");
	return 0;
}

static uint32_t lid_of(const struct fx *x, int h)
{
	return vt_port(x->f, x->host[h], 1)->lid;
}

static void set(struct fx *x, uint32_t node, int h, uint32_t to)
{
	vt_lft_set(&x->t, x->f->nodes[node].sw, lid_of(x, h), (uint8_t)port_to(x->f, node, to));
}

/* Minimal routing with every up-going flow on spine X. */
static void setup(struct fx *x)
{
	struct vt_gen_spec s;
	vt_err e = {{0}};

	memset(x, 0, sizeof(*x));
	ck_assert_int_eq(vt_gen_parse(&s, "fat 2,2", &e), 0);
	ck_assert_msg(vt_gen_build(&s, &x->f, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(vt_order_leaf(&x->o, x->f, &e), 0);
	ck_assert_uint_eq(x->o.n, 4);
	for (int h = 0; h < 4; h++)
		x->host[h] = x->f->ports[x->o.port[h]].node;
	x->leaf[0] = vt_peer_node(x->f, x->o.port[0]);
	x->leaf[1] = vt_peer_node(x->f, x->o.port[2]);
	ck_assert_uint_ne(x->leaf[0], x->leaf[1]);
	for (uint32_t i = 0, k = 0; i < x->f->nswitches; i++)
		if (x->f->switches[i] != x->leaf[0] && x->f->switches[i] != x->leaf[1])
			x->spine[k++] = x->f->switches[i];
	ck_assert_int_eq(vt_lfts_init(&x->t, x->f, &e), 0);
	for (int h = 0; h < 4; h++) {
		int l = h / 2;
		set(x, x->leaf[l], h, x->host[h]);
		set(x, x->leaf[1 - l], h, x->spine[0]);
		set(x, x->spine[0], h, x->leaf[l]);
		set(x, x->spine[1], h, x->leaf[l]);
	}
}

static void teardown(struct fx *x)
{
	vt_lfts_free(&x->t);
	vt_order_free(&x->o);
	vt_fabric_free(x->f);
}

START_TEST(shift_by_hand)
{
	struct fx x;
	vt_routes r;
	vt_cuts cuts;
	vt_err e = {{0}};
	vt_pattern p;

	setup(&x);
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
	teardown(&x);
}
END_TEST

static Suite *congest_suite(void)
{
	Suite *s = suite_create("congest");
	TCase *t = tcase_create("core");

	tcase_add_test(t, shift_by_hand);
	suite_add_tcase(s, t);
	return s;
}

VT_TEST_MAIN(congest_suite)
