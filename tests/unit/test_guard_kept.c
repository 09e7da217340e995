/* SPDX-License-Identifier: MIT */
/*
 * The shift count kept between sweeps (vt_route_guard_kept.h): counted on
 * the healthy fabric, moved onto the fabric after a fault (links or a top
 * switch gone: ports and switches renumbered), it gives the figures of a
 * whole count of the healthy tables mapped onto the degraded fabric, and,
 * updated to the degraded fabric's fresh tables by their changed columns,
 * theirs. A fault that takes hosts away moves ranks: the count is refused.
 * A guarded repair given the count chooses the tables it chooses without.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/vt_shift_count.h"
#include "gen/vt_gen.h"
#include "repair/vt_repair.h"
#include "repair/vt_route_guard_kept.h"
#include "route/vt_route.h"
#include "vt_test.h"

static vt_fabric *gen(const char *spec, unsigned links, uint32_t level, unsigned switches,
		      unsigned hosts)
{
	struct vt_gen_spec gs;
	vt_fabric *f;
	vt_err e = {0};

	ck_assert_int_eq(vt_gen_parse(&gs, spec, &e), 0);
	gs.drop_links = links;
	gs.drop_link_level = level;
	gs.drop_switches = switches;
	gs.drop_hosts = hosts;
	gs.seed = 3;
	ck_assert_msg(vt_gen_build(&gs, &f, &e) == 0, "%s", e.msg);
	return f;
}

/*
 * f without the switch described desc, every other node, link and LID as in
 * f (OpenSM keeps a LID across sweeps; the generator's removals renumber).
 */
static vt_fabric *without(vt_fabric *f, const char *desc)
{
	vt_fabric *g = vt_fabric_new("without");
	uint32_t *id = malloc(((size_t)f->nnodes + 1) * sizeof(*id)), drop = VT_NONE;
	vt_err e = {0};

	ck_assert_ptr_nonnull(id);
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct vt_node *n = &f->nodes[i];

		id[i] = VT_NONE;
		if (!strcmp(n->desc, desc)) {
			drop = i;
			continue;
		}
		ck_assert_int_eq(vt_fabric_add_node(g, (enum vt_node_type)n->type, n->nports,
						    n->guid, n->id, n->desc, &id[i], &e),
				 0);
	}
	ck_assert_uint_ne(drop, VT_NONE);
	for (uint32_t c = 0; c < f->nports; c++) {
		const struct vt_port *p = &f->ports[c], *q;

		if (id[p->node] == VT_NONE)
			continue;
		vt_port(g, id[p->node], p->num)->lid = p->lid;
		vt_port(g, id[p->node], p->num)->guid = p->guid;
		if (p->peer == VT_NONE || p->peer < c ||
		    id[(q = &f->ports[p->peer])->node] == VT_NONE)
			continue;
		ck_assert_int_eq(vt_fabric_connect(g, id[p->node], p->num, id[q->node], q->num,
						   p->width, (enum vt_speed)p->speed, &e),
				 0);
	}
	ck_assert_msg(vt_fabric_finish(g, 0, &e) == 0, "%s", e.msg);
	free(id);
	vt_fabric_free(f);
	return g;
}

/* A whole count of t's shift figures over o. */
static void whole(const vt_fabric *f, const vt_lfts *t, const vt_order *o, uint32_t *w, double *a)
{
	vt_routes r;
	vt_shift_count *c;
	vt_err e = {0};

	ck_assert_int_eq(vt_routes_build_walked(&r, f, t, o, &e), 0);
	ck_assert_ptr_nonnull(c = vt_shift_count_new(&r, &e));
	vt_shift_count_figures(c, w, a);
	vt_shift_count_free(c);
	vt_routes_free(&r);
}

/* The count of f's tables moved onto g: 0 and figures as counted, or rc (1: refused). */
static void check(const char *spec, vt_fabric *g, int rc)
{
	vt_fabric *f = gen(spec, 0, 0, 0, 0);
	vt_lfts a, prev, fresh;
	vt_order o, og;
	vt_guard_kept *k;
	uint32_t w, kw;
	double av, ka;
	uint8_t *changed;
	vt_err e = {0};

	ck_assert_msg(vt_route(f, NULL, &a, &o, &e) == 0, "%s", e.msg);
	ck_assert_msg(vt_route(g, NULL, &fresh, &og, &e) == 0, "%s", e.msg);
	ck_assert_ptr_nonnull(k = vt_guard_kept_new(f, &a, &o, &e));
	whole(f, &a, &o, &w, &av);
	vt_shift_count_figures(k->count, &kw, &ka);
	ck_assert(kw == w && ka == av);
	ck_assert_int_eq(vt_guard_kept_remap(k, g, &og, &e), rc);
	if (rc) {
		ck_assert(!vt_guard_kept_fits(k, g, &og, &fresh));
		goto out;
	}
	ck_assert(vt_guard_kept_fits(k, g, &og, &fresh));
	ck_assert_int_eq(vt_lfts_remap(&a, f, g, &prev, &e), 0);
	whole(g, &prev, &og, &w, &av);
	vt_shift_count_figures(k->count, &kw, &ka);
	ck_assert_msg(kw == w && ka == av, "%s: moved %u/%.6f, counted %u/%.6f", spec, kw, ka, w,
		      av);
	/* nothing left to take out where the count was moved */
	ck_assert_int_eq(vt_guard_kept_settle(k, &e), 0);
	changed = malloc((size_t)fresh.nlid + 1);
	ck_assert_ptr_nonnull(changed);
	vt_lfts_differ(&k->t, &fresh, changed);
	ck_assert_int_eq(vt_shift_count_update(k->count, &k->rt, &k->t, &fresh, changed, &e), 0);
	whole(g, &fresh, &og, &w, &av);
	vt_shift_count_figures(k->count, &kw, &ka);
	ck_assert_msg(kw == w && ka == av, "%s: updated %u/%.6f, counted %u/%.6f", spec, kw, ka, w,
		      av);
	free(changed);
	vt_lfts_free(&prev);
out:
	vt_guard_kept_free(k);
	vt_lfts_free(&a);
	vt_lfts_free(&fresh);
	vt_order_free(&o);
	vt_order_free(&og);
	vt_fabric_free(f);
	vt_fabric_free(g);
}

START_TEST(kept_moved_as_counted)
{
	check("pruned 12,4", gen("pruned 12,4", 1, 1, 0, 0), 0);
	check("pruned 12,4", gen("pruned 12,4", 2, 0, 0, 0), 0);
	/* a top switch gone, and one of level 1: the switches and ports renumbered */
	check("pruned 12,4", without(gen("pruned 12,4", 0, 0, 0, 0), "L2-S0001"), 0);
	check("pruned 12,4", without(gen("pruned 12,4", 0, 0, 0, 0), "L1-S0002"), 0);
	/* the generator's removal renumbers the LIDs, as OpenSM would not: refused */
	check("pruned 12,4", gen("pruned 12,4", 0, 0, 1, 0), 1);
	check("fat 4,3", gen("fat 4,3", 1, 0, 0, 0), 0);
	check("fat 4,3", gen("fat 4,3", 0, 0, 0, 1), 1); /* a host gone: the ranks moved */
}
END_TEST

/*
 * The guarded repair given the count kept on the healthy fabric (moved by
 * the guard where a candidate needs a count, as in the plugin) chooses the
 * tables it chooses without it, byte for byte.
 */
static int repair_alike(const char *spec, vt_fabric *g)
{
	int moved;
	vt_fabric *f = gen(spec, 0, 0, 0, 0);
	vt_lfts a, prev, with, without;
	vt_order o, og;
	vt_guard_kept *k;
	struct vt_repair_stats st, st2;
	size_t n;
	vt_err e = {0};

	ck_assert_int_eq(vt_route(f, NULL, &a, &o, &e), 0);
	ck_assert_int_eq(vt_route(g, NULL, &with, &og, &e), 0);
	ck_assert_ptr_nonnull(k = vt_guard_kept_new(f, &a, &o, &e));
	ck_assert_int_eq(vt_lfts_remap(&a, f, g, &prev, &e), 0);
	n = (size_t)with.nsw * with.nlid;
	without = with;
	ck_assert_ptr_nonnull(without.port = malloc(n));
	memcpy(without.port, with.port, n);
	ck_assert_int_eq(
		vt_route_repair_kept(g, &prev, &with, &og, NULL, VT_REPAIR_GUARDED, k, &st, &e), 0);
	ck_assert_int_eq(
		vt_route_repair(g, &prev, &without, &og, NULL, VT_REPAIR_GUARDED, &st2, &e), 0);
	ck_assert_int_eq(st.mode, st2.mode);
	ck_assert_uint_eq(st.changed, st2.changed);
	ck_assert_int_eq(memcmp(with.port, without.port, n), 0);
	moved = k->f == g; /* a candidate was counted from it */
	vt_guard_kept_free(k);
	vt_lfts_free(&a);
	vt_lfts_free(&prev);
	vt_lfts_free(&with);
	vt_lfts_free(&without);
	vt_order_free(&o);
	vt_order_free(&og);
	vt_fabric_free(f);
	vt_fabric_free(g);
	return moved;
}

START_TEST(kept_repair_alike)
{
	int moved = repair_alike("pruned 12,4", gen("pruned 12,4", 1, 0, 0, 0));

	moved += repair_alike("pruned 12,4", gen("pruned 12,4", 1, 1, 0, 0));
	moved += repair_alike("pruned 12,4", without(gen("pruned 12,4", 0, 0, 0, 0), "L2-S0001"));
	moved += repair_alike("fat 8,3", gen("fat 8,3", 1, 0, 0, 0));
	ck_assert_int_ge(moved, 1);
}
END_TEST

static Suite *guard_kept_suite(void)
{
	Suite *s = suite_create("guard_kept");
	TCase *t = tcase_create("core");

	tcase_add_test(t, kept_moved_as_counted);
	tcase_add_test(t, kept_repair_alike);
	tcase_set_timeout(t, 60);
	suite_add_tcase(s, t);
	return s;
}

VT_TEST_MAIN(guard_kept_suite)
