/* SPDX-License-Identifier: MIT */
/*
 * Algorithm 1 tuples (vt_tuple.c, run by vt_tree_build): bijections onto the
 * digit ranges of Definitions 1 and 2, the link rule on every link, uniqueness
 * on every topofile, independence from the cabling order, and the Definition 2
 * departures of the degraded topofiles. Expected ranges and missing links come
 * from the generator specs and from diffs against the full trees, not from
 * the code.
 */
#include "gen/vt_gen.h"
#include "io/vt_load.h"
#include "route/vt_route.h"
#include "vt_test.h"
#include "tree/vt_tree.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void build_ok(vt_tree *t, const vt_fabric *f, const struct vt_tree_opts *o)
{
	vt_err e;

	ck_assert_msg(vt_tree_build(t, f, o, &e) == 0, "%s", e.msg);
	ck_assert_ptr_nonnull(t->tuple);
}

static uint32_t ndig(const vt_tree *t)
{
	return t->nlevels - 1;
}

static unsigned dig(const vt_tree *t, uint32_t s, uint32_t j)
{
	return t->tuple[(size_t)s * ndig(t) + j];
}

static const char *name(const vt_tree *t, uint32_t s)
{
	return t->f->nodes[t->f->switches[s]].desc;
}

static int linked(const vt_tree *t, uint32_t lo, uint32_t hi)
{
	for (uint32_t k = t->up_start[lo]; k < t->up_start[lo + 1]; k++)
		if (t->up_peer[k] == hi)
			return 1;
	return 0;
}

static int differ_only_in(const vt_tree *t, uint32_t a, uint32_t b, uint32_t r)
{
	for (uint32_t j = 0; j < ndig(t); j++)
		if (j != r && dig(t, a, j) != dig(t, b, j))
			return 0;
	return 1;
}

/* Every in-tree switch numbered, no two of a level alike; switches outside all 0xFFFF. */
static void unique_per_level(const vt_tree *t)
{
	uint32_t D = ndig(t);

	for (uint32_t s = 0; s < t->nsw; s++)
		for (uint32_t j = 0; j < D; j++)
			ck_assert_msg((dig(t, s, j) == 0xFFFF) == (t->level[s] == VT_TREE_OUTSIDE),
				      "%s digit %u: %u", name(t, s), j, dig(t, s, j));
	for (uint32_t l = 0; l < t->nlevels; l++)
		for (uint32_t a = t->lvl_start[l]; a < t->lvl_start[l + 1]; a++)
			for (uint32_t b = a + 1; b < t->lvl_start[l + 1]; b++) {
				uint32_t x = t->by_level[a], y = t->by_level[b];

				ck_assert_msg(memcmp(&t->tuple[(size_t)x * D],
						     &t->tuple[(size_t)y * D], D * 2) != 0,
					      "%s and %s share a tuple", name(t, x), name(t, y));
			}
}

/*
 * Level l's tuples are a bijection onto range[0] x .. x range[D-1] (digit j
 * in 0..range[j]-1): as many switches as the product, unique, all in range.
 */
static void bijection(const vt_tree *t, uint32_t l, const unsigned *range)
{
	uint32_t n = 1;

	for (uint32_t j = 0; j < ndig(t); j++)
		n *= range[j];
	ck_assert_uint_eq(t->lvl_start[l + 1] - t->lvl_start[l], n);
	for (uint32_t k = t->lvl_start[l]; k < t->lvl_start[l + 1]; k++)
		for (uint32_t j = 0; j < ndig(t); j++)
			ck_assert_msg(dig(t, t->by_level[k], j) < range[j],
				      "level %u %s digit %u = %u, range %u", l,
				      name(t, t->by_level[k]), j, dig(t, t->by_level[k], j),
				      range[j]);
	unique_per_level(t);
}

/* Definition 1/2: S (level r) and S' (level r+1) are linked iff equal but digit r. */
static void link_rule(const vt_tree *t)
{
	for (uint32_t r = 0; r + 1 < t->nlevels; r++)
		for (uint32_t a = t->lvl_start[r]; a < t->lvl_start[r + 1]; a++)
			for (uint32_t b = t->lvl_start[r + 1]; b < t->lvl_start[r + 2]; b++) {
				uint32_t x = t->by_level[a], y = t->by_level[b];

				ck_assert_msg(linked(t, x, y) == differ_only_in(t, x, y, r),
					      "%s, %s", name(t, x), name(t, y));
			}
}

/* Each switch's port groups get distinct indices (the remote's digit i) 0..groups-1. */
static void group_indices(const vt_tree *t)
{
	for (uint32_t s = 0; s < t->nsw; s++) {
		uint32_t r = t->level[s], seen = 0, ng = 0;

		if (r == VT_TREE_OUTSIDE)
			continue;
		for (int dn = 0; dn < 2; dn++) {
			const uint32_t *st = dn ? t->dn_start : t->up_start;
			const uint32_t *peer = dn ? t->dn_peer : t->up_peer;

			seen = ng = 0;
			for (uint32_t k = st[s]; k < st[s + 1]; k++) {
				unsigned g;

				if (k > st[s] && peer[k] == peer[k - 1])
					continue;
				g = dig(t, peer[k], dn ? r - 1 : r);
				ck_assert_uint_lt(g, 32);
				ck_assert_msg(!(seen >> g & 1), "%s: group %u twice", name(t, s),
					      g);
				seen |= 1u << g;
				ng++;
			}
			ck_assert_uint_eq(seen, ng == 32 ? ~0u : (1u << ng) - 1);
		}
	}
}

/* Definition 1: K-ary-N-tree, every level a bijection onto {0..K-1}^(N-1). */
static void kary(const char *spec, unsigned k)
{
	vt_fabric *f = vt_test_gen(spec);
	unsigned range[VT_TREE_MAX_LEVELS];
	vt_tree t;

	build_ok(&t, f, NULL);
	for (uint32_t j = 0; j < VT_TREE_MAX_LEVELS; j++)
		range[j] = k;
	for (uint32_t l = 0; l < t.nlevels; l++)
		bijection(&t, l, range);
	link_rule(&t);
	group_indices(&t);
	ck_assert_uint_eq(t.ndep_total, 0);
	vt_tree_free(&t);
	vt_fabric_free(f);
}

START_TEST(fat_4_3)
{
	kary("fat 4,3", 4);
}
END_TEST

START_TEST(fat_2_4)
{
	kary("fat 2,4", 2);
}
END_TEST

/*
 * Definition 2 on "varary D0,..:U0,..[:P0,..]": digit j of a level-r switch
 * numbers, for j >= r, its level-j subtree among the D(j+1) children of a
 * level-(j+1) switch, and for j < r the parent it is among the U(j) of a
 * level-j switch; so the ranges are M_j = j < r ? U(j) : D(j+1).
 */
static void varary(const char *spec, unsigned n, const unsigned *down, const unsigned *up)
{
	vt_fabric *f = vt_test_gen(spec);
	vt_tree t;

	build_ok(&t, f, NULL);
	ck_assert_uint_eq(t.nlevels, n);
	for (uint32_t r = 0; r < n; r++) {
		unsigned range[VT_TREE_MAX_LEVELS];

		for (uint32_t j = 0; j + 1 < n; j++)
			range[j] = j < r ? up[j] : down[j + 1];
		bijection(&t, r, range);
	}
	link_rule(&t);
	group_indices(&t);
	ck_assert_uint_eq(t.ndep_total, 0);
	vt_tree_free(&t);
	vt_fabric_free(f);
}

START_TEST(varary_ranges)
{
	static const unsigned d1[] = {3, 5, 2, 4}, u1[] = {2, 3, 2};
	static const unsigned d2[] = {4, 4, 2}, u2[] = {4, 2}; /* Zahavi Fig. 2, merged roots */

	varary("varary 3,5,2,4:2,3,2", 4, d1, u1);
	varary("varary 4,4,2:4,2:1,2", 3, d2, u2);
}
END_TEST

/*
 * A 4-ary-3-tree whose top switch L2-S<i> has its down ports rotated by i: a
 * per-column "lowest free" numbering would number the pods in a different
 * order per column and break Definition 2; subtrees keep their digit instead.
 */
START_TEST(cabling_order)
{
	vt_fabric *g = vt_test_gen("fat 4,3"), *f = vt_fabric_new("rotated");
	uint32_t *map = malloc(g->nnodes * sizeof(*map));
	vt_tree t;
	vt_err e;

	for (uint32_t n = 0; n < g->nnodes; n++) {
		const struct vt_node *nd = &g->nodes[n];

		ck_assert_int_eq(vt_fabric_add_node(f, nd->type, nd->nports, nd->guid, nd->id,
						    nd->desc, &map[n], &e),
				 0);
		for (unsigned p = 0; p <= nd->nports; p++)
			vt_port(f, map[n], p)->guid = vt_port(g, n, p)->guid;
	}
	for (uint32_t q = 0; q < g->nports; q++) {
		uint32_t r = g->ports[q].peer, a = g->ports[q].node, b;
		unsigned pa = g->ports[q].num, pb, i;

		if (r == VT_NONE || r < q)
			continue;
		b = g->ports[r].node;
		pb = g->ports[r].num;
		if (sscanf(g->nodes[a].desc, "L2-S%u", &i) == 1 && pa <= 4)
			pa = (pa - 1 + i) % 4 + 1;
		if (sscanf(g->nodes[b].desc, "L2-S%u", &i) == 1 && pb <= 4)
			pb = (pb - 1 + i) % 4 + 1;
		ck_assert_int_eq(vt_fabric_connect(f, map[a], pa, map[b], pb, 4, VT_QDR, &e), 0);
	}
	ck_assert_msg(vt_fabric_finish(f, 0, &e) == 0, "%s", e.msg);
	build_ok(&t, f, NULL);
	for (uint32_t l = 0; l < 3; l++)
		bijection(&t, l, (const unsigned[]){4, 4});
	link_rule(&t);
	ck_assert_uint_eq(t.ndep_total, 0);
	vt_tree_free(&t);
	vt_fabric_free(f);
	vt_fabric_free(g);
	free(map);
}
END_TEST

/* Every topofile, every plane: tuples unique per level, wherever the tree departs. */
START_TEST(topofiles_unique)
{
	DIR *d = opendir(vt_test_path("topofiles"));
	struct dirent *de;
	uint32_t nfiles = 0, nrefused = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char rel[300];
		vt_fabric *f;
		uint32_t *plane, np;

		if (len < 5 || strcmp(de->d_name + len - 5, ".topo"))
			continue;
		snprintf(rel, sizeof(rel), "topofiles/%s", de->d_name);
		f = vt_test_load(rel);
		plane = malloc(f->nswitches * sizeof(*plane));
		np = vt_route_planes(f, plane);
		for (uint32_t p = 0; p < np; p++) {
			struct vt_tree_opts o = {.plane_of = np > 1 ? plane : NULL, .plane = p};
			vt_tree t;
			vt_err e;

			if (vt_tree_build(&t, f, &o, &e)) {
				/* Matsuoka's cliques link switches within a level */
				ck_assert_msg(!strncmp(de->d_name, "matsuoka-clique", 15), "%s: %s",
					      rel, e.msg);
				nrefused++;
				continue;
			}
			unique_per_level(&t);
			vt_tree_free(&t);
		}
		nfiles++;
		free(plane);
		vt_fabric_free(f);
	}
	closedir(d);
	ck_assert_uint_ge(nfiles, 30);
	ck_assert_uint_eq(nrefused, 2);
}
END_TEST

/* The departure lines vt_tuple.c adds (they name tuples); others are vt_tree.c's. */
static uint32_t tuple_deps(const vt_tree *t, char *buf, size_t n)
{
	uint32_t c = 0;
	size_t o = 0;

	buf[0] = 0;
	for (uint32_t i = 0; i < t->ndep; i++)
		if (strstr(t->dep[i], " {")) {
			o += (size_t)snprintf(buf + o, n - o, "%s\n", t->dep[i]);
			c++;
		}
	return c;
}

/*
 * Hand-traced: the BFS from L0-S0000 numbers pod 2's leaves from L1-S0008,
 * which lost its link to L0-S0008; the other three take 0, 1, 2, and
 * L0-S0008, reached later from L1-S0009, takes 3.
 */
START_TEST(departs_leaf_uplink)
{
	vt_fabric *f = vt_test_load("topofiles/degraded-4ary3-leaf-uplink.topo");
	char buf[4096];
	vt_tree t;

	build_ok(&t, f, NULL);
	ck_assert_uint_eq(tuple_deps(&t, buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, "switches \"L0-S0008\" (0x0002c95000000008) {0,2,3} and \"L1-S0008\" "
			      "(0x0002c95001000008) {1,2,0} are not "
			      "linked, but their tuples differ only in digit 0\n");
	unique_per_level(&t);
	vt_tree_free(&t);
	vt_fabric_free(f);
}
END_TEST

/* Links of a full tree (by switch descriptions) that the degraded one lacks. */
static uint32_t missing_links(const vt_fabric *full, const vt_fabric *deg, char (*lo)[16],
			      char (*hi)[16], uint32_t max)
{
	uint32_t n = 0;

	for (uint32_t q = 0; q < full->nports; q++) {
		uint32_t r = full->ports[q].peer, a = full->ports[q].node, b, da, db, found = 0;

		if (r == VT_NONE || full->nodes[a].type != VT_SWITCH)
			continue;
		b = full->ports[r].node;
		if (full->nodes[b].type != VT_SWITCH ||
		    strcmp(full->nodes[a].desc, full->nodes[b].desc) > 0)
			continue;
		for (da = 0; da < deg->nnodes && strcmp(deg->nodes[da].desc, full->nodes[a].desc);
		     da++)
			;
		for (db = 0; db < deg->nnodes && strcmp(deg->nodes[db].desc, full->nodes[b].desc);
		     db++)
			;
		ck_assert_uint_lt(da, deg->nnodes);
		ck_assert_uint_lt(db, deg->nnodes);
		for (unsigned p = 1; p <= deg->nodes[da].nports; p++)
			found |= vt_peer_node(deg, vt_port_index(deg, da, p)) == db;
		if (!found && n < max) {
			snprintf(lo[n], 16, "%s", full->nodes[a].desc);
			snprintf(hi[n++], 16, "%s", full->nodes[b].desc);
		}
	}
	return n;
}

static uint32_t sw_by_desc(const vt_tree *t, const char *desc)
{
	for (uint32_t s = 0; s < t->nsw; s++)
		if (!strcmp(name(t, s), desc))
			return s;
	ck_abort_msg("no switch %s", desc);
	return VT_NONE;
}

/*
 * The degraded 8-ary-3-trees: the links missing against the full tree, and
 * only they, are named, each by the tuples of its ends, which differ in the
 * link's lower level only.
 */
static void departs_missing(const char *rel, const char *full_spec, uint32_t nmiss)
{
	vt_fabric *deg = vt_test_load(rel), *full = vt_test_gen(full_spec);
	char lo[16][16], hi[16][16], buf[8192], want[8192] = "", line[400];
	uint32_t n = missing_links(full, deg, lo, hi, 16);
	size_t o = 0;
	vt_tree t;

	ck_assert_uint_eq(n, nmiss);
	build_ok(&t, deg, NULL);
	ck_assert_uint_eq(tuple_deps(&t, buf, sizeof(buf)), nmiss);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t a = sw_by_desc(&t, lo[i]), b = sw_by_desc(&t, hi[i]), r = t.level[a];

		ck_assert_uint_eq(t.level[b], r + 1);
		ck_assert(differ_only_in(&t, a, b, r));
		snprintf(line, sizeof(line),
			 "switches \"%s\" (0x%016llx) {%u,%u,%u} and \"%s\" (0x%016llx) "
			 "{%u,%u,%u} are not linked, but their tuples differ only in digit %u\n",
			 lo[i], (unsigned long long)deg->nodes[deg->switches[a]].guid, r,
			 dig(&t, a, 1), dig(&t, a, 0), hi[i],
			 (unsigned long long)deg->nodes[deg->switches[b]].guid, r + 1,
			 dig(&t, b, 1), dig(&t, b, 0), r);
		ck_assert_msg(strstr(buf, line), "missing line: %s", line);
		o += (size_t)snprintf(want + o, sizeof(want) - o, "%s", line);
	}
	ck_assert_uint_eq(strlen(buf), o);
	unique_per_level(&t);
	vt_tree_free(&t);
	vt_fabric_free(deg);
	vt_fabric_free(full);
}

START_TEST(departs_8ary3)
{
	departs_missing("topofiles/degraded-8ary3-leaf-uplinks.topo", "fat 8,3", 4);
	departs_missing("topofiles/degraded-8ary3-mixed.topo", "fat 8,3", 2);
}
END_TEST

/* Missing hosts and a missing top switch break no link rule: no tuple departures. */
START_TEST(departs_none)
{
	static const char *const files[] = {
		"topofiles/degraded-4ary3-hosts.topo",
		"topofiles/degraded-4ary3-partial.topo",
		"topofiles/degraded-4ary3-top-switch.topo",
		"topofiles/degraded-8ary3-top-switch.topo",
		"topofiles/navaridas-thin-8-4-3.topo",
		"topofiles/wolfe-pruned-36-6.topo",
	};
	char buf[256];

	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		vt_fabric *f = vt_test_load(files[i]);
		vt_tree t;

		build_ok(&t, f, NULL);
		ck_assert_msg(tuple_deps(&t, buf, sizeof(buf)) == 0, "%s: %s", files[i], buf);
		link_rule(&t);
		vt_tree_free(&t);
		vt_fabric_free(f);
	}
}
END_TEST

/*
 * A slender tree is no var-ary-n-tree: each top switch of slender 4:2,3 links
 * all four middle switches, which two digits cannot index; its departures say
 * so, and it still gets unique tuples.
 */
START_TEST(departs_slender)
{
	vt_fabric *f = vt_test_load("topofiles/navaridas-slender-4-2-3.topo");
	char buf[4096];
	vt_tree t;

	build_ok(&t, f, NULL);
	ck_assert_uint_gt(tuple_deps(&t, buf, sizeof(buf)), 0);
	ck_assert_ptr_nonnull(strstr(buf, "are linked, but their tuples differ in digit"));
	unique_per_level(&t);
	vt_tree_free(&t);
	vt_fabric_free(f);
}
END_TEST

static Suite *tuple_suite(void)
{
	Suite *s = suite_create("tuple");
	TCase *tc = tcase_create("tuple");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, fat_4_3);
	tcase_add_test(tc, fat_2_4);
	tcase_add_test(tc, varary_ranges);
	tcase_add_test(tc, cabling_order);
	tcase_add_test(tc, topofiles_unique);
	tcase_add_test(tc, departs_leaf_uplink);
	tcase_add_test(tc, departs_8ary3);
	tcase_add_test(tc, departs_none);
	tcase_add_test(tc, departs_slender);
	suite_add_tcase(s, tc);
	return s;
}

VT_TEST_MAIN(tuple_suite)
