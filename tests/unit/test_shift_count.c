/* SPDX-License-Identifier: MIT */
/*
 * The shift count kept up to date (vt_shift_count.h) gives, after every
 * change of tables, the worst and average stage maximum vt_congest_run
 * counts afresh: a few columns moved, moved back, one switch's hosts cut
 * from a LID (their up-links then carry less) and back, most columns moved
 * (counted whole again), and every column named changed.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/vt_congest.h"
#include "analysis/vt_shift_count.h"
#include "gen/vt_gen.h"
#include "route/vt_route.h"
#include "vt_test.h"

/* c's figures are those of a fresh count of r. */
static void same(const vt_shift_count *c, const vt_routes *r, const char *what)
{
	struct vt_congest_opts o = {.threads = 2, .method = VT_CONGEST_WALK};
	uint32_t worst;
	double avg;
	vt_pattern p;
	vt_congest res;
	vt_err e = {0};

	ck_assert_int_eq(vt_pattern_parse(&p, "shift", r->n, &e), 0);
	ck_assert_msg(vt_congest_run(r, &p, &o, &res, &e) == 0, "%s", e.msg);
	vt_shift_count_figures(c, &worst, &avg);
	ck_assert_msg(worst == res.worst && avg == res.avg,
		      "%s: worst/avg %u/%.6f, counted %u/%.6f", what, worst, avg, res.worst,
		      res.avg);
	vt_congest_free(&res);
	vt_pattern_free(&p);
}

/* A count on the walked model of tables t (no next[]) gives c's figures. */
static void walked_same(const vt_fabric *f, const vt_lfts *t, const vt_order *o,
			const vt_shift_count *c, const char *what)
{
	vt_routes w;
	vt_shift_count *d;
	uint32_t cw, dw;
	double ca, da;
	vt_err e = {0};

	ck_assert_int_eq(vt_routes_build_walked(&w, f, t, o, &e), 0);
	ck_assert_ptr_null(w.next);
	ck_assert_ptr_nonnull(d = vt_shift_count_new(&w, &e));
	vt_shift_count_figures(c, &cw, &ca);
	vt_shift_count_figures(d, &dw, &da);
	ck_assert_msg(cw == dw && ca == da, "%s: walked model %u/%.6f, count %u/%.6f", what, dw, da,
		      cw, ca);
	vt_shift_count_free(d);
	vt_routes_free(&w);
}

/* u: t with the LIDs of every step-th rank from `from` moved to another port at every third switch.
 */
static void move_entries(const vt_fabric *f, const vt_routes *r, const vt_lfts *t, vt_lfts *u,
			 uint32_t from, uint32_t step)
{
	memcpy(u->port, t->port, (size_t)t->nsw * t->nlid);
	for (uint32_t d = from; d < r->n; d += step)
		for (uint32_t sw = d % 3; sw < t->nsw; sw += 3) {
			uint8_t *x = u->port + (size_t)sw * t->nlid + r->rank_lid[d];
			if (*x != VT_LFT_NONE)
				*x = (uint8_t)(1 + *x % f->nodes[f->switches[sw]].nports);
		}
}

static void check_fabric(const char *spec)
{
	struct vt_gen_spec gs;
	vt_fabric *f;
	vt_lfts t, u;
	vt_order o;
	vt_routes r;
	vt_shift_count *c;
	vt_err e = {0};
	uint8_t *changed;

	ck_assert_int_eq(vt_gen_parse(&gs, spec, &e), 0);
	ck_assert_int_eq(vt_gen_build(&gs, &f, &e), 0);
	ck_assert_msg(vt_route(f, NULL, &t, &o, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(vt_lfts_init(&u, f, &e), 0);
	ck_assert_int_eq(vt_routes_build(&r, f, &t, &o, &e), 0);
	changed = malloc(t.nlid);
	ck_assert_ptr_nonnull(c = vt_shift_count_new(&r, &e));
	same(c, &r, "first");
	move_entries(f, &r, &t, &u, 1, 4);
	vt_lfts_differ(&t, &u, changed);
	ck_assert_int_eq(vt_shift_count_update(c, &r, &t, &u, changed, &e), 0);
	same(c, &r, "moved");
	ck_assert_int_eq(vt_shift_count_update(c, &r, &u, &t, changed, &e), 0);
	same(c, &r, "back");
	/* the hosts of the last rank's switch no longer reach rank 0's LID */
	memcpy(u.port, t.port, (size_t)t.nsw * t.nlid);
	u.port[(size_t)r.rank_sw[r.n - 1] * t.nlid + r.rank_lid[0]] = VT_LFT_NONE;
	vt_lfts_differ(&t, &u, changed);
	ck_assert_int_eq(vt_shift_count_update(c, &r, &t, &u, changed, &e), 0);
	same(c, &r, "unrouted");
	ck_assert_int_eq(vt_shift_count_update(c, &r, &u, &t, changed, &e), 0);
	same(c, &r, "routed again");
	move_entries(f, &r, &t, &u, 0, 1);
	vt_lfts_differ(&t, &u, changed);
	ck_assert_int_eq(vt_shift_count_update(c, &r, &t, &u, changed, &e), 0);
	same(c, &r, "most moved");
	walked_same(f, &u, &o, c, "most moved");
	move_entries(f, &r, &t, &u, 2, 5);
	ck_assert_int_eq(vt_shift_count_update(c, &r, NULL, &u, NULL, &e), 0);
	same(c, &r, "every column named");
	vt_lfts_differ(&u, &t, changed);
	ck_assert_int_eq(vt_shift_count_update(c, &r, &u, &t, changed, &e), 0);
	same(c, &r, "back again");
	vt_shift_count_free(c);
	free(changed);
	vt_routes_free(&r);
	vt_lfts_free(&u);
	vt_lfts_free(&t);
	vt_order_free(&o);
	vt_fabric_free(f);
}

START_TEST(kept_as_counted)
{
	check_fabric("fat 4,3");
	check_fabric("pruned 12,4");
}
END_TEST

static Suite *shift_count_suite(void)
{
	Suite *s = suite_create("shift_count");
	TCase *t = tcase_create("core");

	tcase_add_test(t, kept_as_counted);
	tcase_set_timeout(t, 60);
	suite_add_tcase(s, t);
	return s;
}

VT_TEST_MAIN(shift_count_suite)
