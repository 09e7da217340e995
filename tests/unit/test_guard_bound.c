/* SPDX-License-Identifier: MIT */
/*
 * The repair guard's cut bound (vt_repair_guard_bound, vt_route_guard.h):
 * on generated trees, whole and with a leaf's up-link unplugged, stage by
 * stage the bound vt_bound_shift_ranks gives over the tree's subtrees (a
 * max-flow per subtree there, its cables out here: equal where no fewer
 * cables separate a subtree), its worst and sum exactly, and never above
 * what the routing gives (the shift count's worst and average).
 */
#include <stdlib.h>

#include "analysis/vt_bound.h"
#include "analysis/vt_shift_count.h"
#include "gen/vt_gen.h"
#include "repair/vt_route_guard.h"
#include "route/vt_route.h"
#include "tree/vt_tree.h"
#include "vt_test.h"

/* The first switch with a host: its last port cabled to a switch unplugged. */
static void unplug_leaf_uplink(vt_fabric *f)
{
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t node = f->switches[s], last = VT_NONE;
		int leaf = 0;

		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			struct vt_port *x = vt_port(f, node, p);

			if (x->peer == VT_NONE)
				continue;
			if (f->nodes[f->ports[x->peer].node].type == VT_SWITCH)
				last = (uint32_t)(x - f->ports);
			else
				leaf = 1;
		}
		if (leaf && last != VT_NONE) {
			f->ports[f->ports[last].peer].peer = VT_NONE;
			f->ports[last].peer = VT_NONE;
			return;
		}
	}
	ck_abort_msg("no leaf with an up-link");
}

/* The bound of spec (one up-link unplugged where unplug): worst and sum over the stages. */
static void check(const char *spec, int unplug, uint32_t worst, uint64_t sum)
{
	struct vt_gen_spec gs;
	vt_fabric *f;
	vt_lfts t;
	vt_order o;
	vt_tree tr;
	vt_routes r;
	vt_shift_count *c;
	vt_err e = {0};
	uint32_t *b, *full, w = 0, cw;
	uint64_t total = 0;
	double ca;

	ck_assert_int_eq(vt_gen_parse(&gs, spec, &e), 0);
	ck_assert_int_eq(vt_gen_build(&gs, &f, &e), 0);
	if (unplug)
		unplug_leaf_uplink(f);
	ck_assert_msg(vt_route(f, NULL, &t, &o, &e) == 0, "%s", e.msg);
	ck_assert_msg(vt_tree_build(&tr, f, &(struct vt_tree_opts){0}, &e) == 0, "%s", e.msg);
	ck_assert_ptr_nonnull(b = calloc((size_t)o.n + 1, sizeof(*b)));
	ck_assert_ptr_nonnull(full = calloc((size_t)o.n + 1, sizeof(*full)));
	ck_assert_int_eq(vt_repair_guard_bound(f, &o, tr.level, b, &e), 0);
	ck_assert_int_eq(vt_bound_shift_ranks(f, &o, &tr, full, &e), 0);
	for (uint32_t k = 1; k < o.n; k++) {
		ck_assert_msg(b[k] == full[k], "%s: stage %u bound %u, vt_bound_shift_ranks %u",
			      spec, k, b[k], full[k]);
		total += b[k];
		w = b[k] > w ? b[k] : w;
	}
	ck_assert_msg(w == worst && total == sum, "%s%s: worst/sum %u/%llu", spec,
		      unplug ? " unplugged" : "", w, (unsigned long long)total);
	ck_assert_int_eq(vt_routes_build(&r, f, &t, &o, &e), 0);
	ck_assert_ptr_nonnull(c = vt_shift_count_new(&r, &e));
	vt_shift_count_figures(c, &cw, &ca);
	ck_assert_uint_le(w, cw);
	ck_assert((double)total / (o.n - 1) <= ca);
	vt_shift_count_free(c);
	vt_routes_free(&r);
	free(full);
	free(b);
	vt_tree_free(&tr);
	vt_lfts_free(&t);
	vt_order_free(&o);
	vt_fabric_free(f);
}

START_TEST(bound_exact)
{
	check("fat 4,3", 0, 1, 63);
	check("pruned 12,4", 0, 1, 143);
	check("pruned 12,4", 1, 2, 276);
}
END_TEST

static Suite *guard_bound_suite(void)
{
	Suite *s = suite_create("guard_bound");
	TCase *t = tcase_create("core");

	tcase_add_test(t, bound_exact);
	tcase_set_timeout(t, 60);
	suite_add_tcase(s, t);
	return s;
}

VT_TEST_MAIN(guard_bound_suite)
