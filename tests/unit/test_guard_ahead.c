/* SPDX-License-Identifier: MIT */
/*
 * The guard's counts made ahead (vt_repair_guard_ahead, vt_route_guard.h):
 * with the second thread counting the fresh tables, each candidate's shift
 * figures (its count brought up to date from the fresh tables') and the
 * fresh figures are those of a whole count,
 * and the verdicts are the guard's without the thread. A guard whose work
 * ends before the thread's (no candidate judged) joins it too.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/vt_shift_count.h"
#include "gen/vt_gen.h"
#include "repair/vt_route_guard.h"
#include "route/vt_route.h"
#include "tree/vt_tree.h"
#include "vt_test.h"

/* u: t with the LIDs of every step-th rank from `from` moved to another port at every third switch.
 */
static void move_entries(const vt_fabric *f, const vt_order *o, const vt_lfts *t, vt_lfts *u,
			 uint32_t from, uint32_t step)
{
	memcpy(u->port, t->port, (size_t)t->nsw * t->nlid);
	for (uint32_t d = from; d < o->n; d += step) {
		uint32_t lid = o->port[d] == VT_NONE ? VT_NONE : f->ports[o->port[d]].lid;

		for (uint32_t sw = d % 3; lid < t->nlid && sw < t->nsw; sw += 3) {
			uint8_t *x = u->port + (size_t)sw * t->nlid + lid;

			if (*x != VT_LFT_NONE)
				*x = (uint8_t)(1 + *x % f->nodes[f->switches[sw]].nports);
		}
	}
}

/* A whole count of t's shift figures. */
static void whole(const vt_fabric *f, const vt_lfts *t, const vt_order *o, uint32_t *w, double *a)
{
	vt_routes r;
	vt_shift_count *c;
	vt_err e = {0};

	ck_assert_int_eq(vt_routes_build(&r, f, t, o, &e), 0);
	ck_assert_ptr_nonnull(c = vt_shift_count_new(&r, &e));
	vt_shift_count_figures(c, w, a);
	vt_shift_count_free(c);
	vt_routes_free(&r);
}

/* Guards with and without the thread judge the candidates alike, on whole-count figures. */
static void check(const char *spec)
{
	struct vt_gen_spec gs;
	vt_fabric *f;
	vt_lfts prev, fresh, cand[3];
	vt_order o;
	vt_tree tr;
	vt_err e = {0};
	char why[256];
	int verdict[2][3];

	ck_assert_int_eq(vt_gen_parse(&gs, spec, &e), 0);
	ck_assert_int_eq(vt_gen_build(&gs, &f, &e), 0);
	ck_assert_msg(vt_route(f, NULL, &prev, &o, &e) == 0, "%s", e.msg);
	ck_assert_msg(vt_tree_build(&tr, f, &(struct vt_tree_opts){0}, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(vt_lfts_init(&fresh, f, &e), 0);
	move_entries(f, &o, &prev, &fresh, 0, 2);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(vt_lfts_init(&cand[i], f, &e), 0);
		move_entries(f, &o, &prev, &cand[i], (uint32_t)i, (uint32_t)(7 + 2 * i));
	}
	for (int ahead = 0; ahead < 2; ahead++) {
		struct repair_guard g = {.f = f, .fresh = &fresh, .order = &o, .level = tr.level};
		uint32_t w, cw;
		double a, ca;

		if (ahead) {
			vt_repair_guard_ahead(&g);
			ck_assert_ptr_nonnull(g.ahead);
		}
		for (int i = 0; i < 3; i++) {
			int bad = vt_repair_guard_worse(&g, &cand[i], why, sizeof(why), &e);

			ck_assert_int_ge(bad, 0);
			verdict[ahead][i] = bad;
			whole(f, &cand[i], &o, &w, &a);
			vt_shift_count_figures(g.count, &cw, &ca);
			ck_assert_msg(cw == w && ca == a,
				      "%s%s candidate %d: %u/%.6f, whole %u/%.6f", spec,
				      ahead ? " ahead" : "", i, cw, ca, w, a);
		}
		ck_assert_int_eq(vt_repair_guard_fresh(&g, &e), 0);
		whole(f, &fresh, &o, &w, &a);
		ck_assert_msg(g.fresh_worst == w && g.fresh_avg == a,
			      "%s%s fresh: %u/%.6f, whole %u/%.6f", spec, ahead ? " ahead" : "",
			      g.fresh_worst, g.fresh_avg, w, a);
		vt_repair_guard_free(&g);
		ck_assert_ptr_null(g.ahead);
	}
	for (int i = 0; i < 3; i++)
		ck_assert_msg(verdict[0][i] == verdict[1][i],
			      "%s candidate %d: verdict %d, ahead %d", spec, i, verdict[0][i],
			      verdict[1][i]);
	{ /* nothing judged: the thread is joined at the end all the same */
		struct repair_guard g = {.f = f, .fresh = &fresh, .order = &o, .level = tr.level};

		vt_repair_guard_ahead(&g);
		ck_assert_ptr_nonnull(g.ahead);
		vt_repair_guard_free(&g);
		ck_assert_ptr_null(g.ahead);
	}
	for (int i = 0; i < 3; i++)
		vt_lfts_free(&cand[i]);
	vt_lfts_free(&fresh);
	vt_tree_free(&tr);
	vt_lfts_free(&prev);
	vt_order_free(&o);
	vt_fabric_free(f);
}

START_TEST(ahead_as_counted)
{
	check("fat 4,3");
	check("pruned 12,4");
}
END_TEST

static Suite *guard_ahead_suite(void)
{
	Suite *s = suite_create("guard_ahead");
	TCase *t = tcase_create("core");

	tcase_add_test(t, ahead_as_counted);
	tcase_set_timeout(t, 60);
	suite_add_tcase(s, t);
	return s;
}

VT_TEST_MAIN(guard_ahead_suite)
