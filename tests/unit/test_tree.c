/* SPDX-License-Identifier: MIT */
/*
 * var-ary-n-tree extraction (vt_tree): levels, port groups, subtrees and the
 * rank order on regular trees of every family, the departures recorded on
 * degraded ones, the refusals; and a 2-ary-2-tree routed by hand.
 * Expected figures come from the definitions (Petrini's k-ary-n-tree,
 * Navaridas' thin tree, Zahavi's var-ary-n-tree), not from the code.
 */
#include "gen/vt_gen.h"
#include "base/vt_io.h"
#include "io/vt_load.h"
#include "route/vt_route.h"
#include "vt_test.h"
#include "tree/vt_tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- fabrics */

/*
 * A k-ary-3-tree by Petrini's Definition 1, built here so departures and
 * refusals can be placed exactly: level-r switch s ("S-r-s") links to level
 * r+1 switch s' iff their base-k digits agree but digit r; down ports 1..k,
 * up ports k+1..2k, two spare ports. Leaf s has hosts "H-<s*k+p>" on ports
 * p+1. Unfinished, so a test can add links before vt_fabric_finish.
 */
struct k3 {
	vt_fabric *f;
	uint32_t sw[3][16]; /* VT_NONE: left out */
	uint32_t host[64];
};

struct k3_opts {
	int skip_top;	      /* top switch left out, or -1 */
	int cut_leaf, cut_up; /* leaf up-port (0..k-1) left unconnected, or -1 */
	int drop_host;	      /* host index left out, or -1 */
};

static const struct k3_opts K3_FULL = {-1, -1, -1, -1};

static void k3_build(struct k3 *t, unsigned k, const struct k3_opts *o)
{
	unsigned per = k * k;
	char name[32];
	vt_err e;

	t->f = vt_fabric_new("k3");
	for (unsigned r = 0; r < 3; r++)
		for (unsigned s = 0; s < per; s++) {
			t->sw[r][s] = VT_NONE;
			if (r == 2 && (int)s == o->skip_top)
				continue;
			snprintf(name, sizeof(name), "S-%u-%u", r, s);
			ck_assert_int_eq(vt_fabric_add_node(t->f, VT_SWITCH, 2 * k + 2,
							    0x10000 + r * 256 + s, name, NULL,
							    &t->sw[r][s], &e),
					 0);
		}
	for (unsigned h = 0; h < per * k; h++) {
		t->host[h] = VT_NONE;
		if ((int)h == o->drop_host)
			continue;
		snprintf(name, sizeof(name), "H-%u", h);
		ck_assert_int_eq(vt_fabric_add_node(t->f, VT_CA, 1, 0x20000 + h, name, NULL,
						    &t->host[h], &e),
				 0);
		vt_port(t->f, t->host[h], 1)->guid = 0x30000 + h;
		ck_assert_int_eq(vt_fabric_connect(t->f, t->sw[0][h / k], h % k + 1, t->host[h], 1,
						   4, VT_QDR, &e),
				 0);
	}
	for (unsigned r = 0, w = 1; r < 2; r++, w *= k)
		for (unsigned s = 0; s < per; s++)
			for (unsigned x = 0; x < k; x++) {
				unsigned d = s / w % k, up = s - d * w + x * w;

				if (t->sw[r + 1][up] == VT_NONE ||
				    (r == 0 && (int)s == o->cut_leaf && (int)x == o->cut_up))
					continue;
				ck_assert_int_eq(vt_fabric_connect(t->f, t->sw[r][s], k + 1 + x,
								   t->sw[r + 1][up], d + 1, 4,
								   VT_QDR, &e),
						 0);
			}
}

static void finish(vt_fabric *f)
{
	vt_err e;

	ck_assert_msg(vt_fabric_finish(f, 0, &e) == 0, "%s", e.msg);
}

static void build_ok(vt_tree *t, const vt_fabric *f, const struct vt_tree_opts *o)
{
	vt_err e;

	ck_assert_msg(vt_tree_build(t, f, o, &e) == 0, "%s", e.msg);
}

/* ---- describe */

struct lines {
	char buf[4096];
	size_t len;
};

static void add_line(void *ctx, const char *func, const char *s)
{
	struct lines *l = ctx;
	int n = snprintf(l->buf + l->len, sizeof(l->buf) - l->len, "%s\n", s);

	ck_assert(n > 0 && (size_t)n < sizeof(l->buf) - l->len);
	l->len += (size_t)n;
	/* OpenSM's log names the function a line comes from */
	ck_assert_str_eq(func, "vt_tree_describe");
}

static void describes(const vt_tree *t, const char *want)
{
	struct lines l = {.len = 0};

	vt_tree_describe(t, add_line, &l);
	ck_assert_str_eq(l.buf, want);
}

/* ---- structure checks shared by the regular trees */

struct shape {
	uint32_t nsw, up_links, up_groups, down_links, down_groups, group_width;
};

static void levels_are(const vt_tree *t, uint32_t n, const struct shape *want)
{
	uint32_t total = 0;

	ck_assert_uint_eq(t->nlevels, n);
	for (uint32_t l = 0; l < n; l++) {
		const struct vt_tree_level *lv = &t->lv[l];

		ck_assert_uint_eq(lv->nsw, want[l].nsw);
		ck_assert_uint_eq(t->lvl_start[l + 1] - t->lvl_start[l], want[l].nsw);
		ck_assert_uint_eq(lv->up_links, want[l].up_links);
		ck_assert_uint_eq(lv->up_groups, want[l].up_groups);
		ck_assert_uint_eq(lv->down_links, want[l].down_links);
		ck_assert_uint_eq(lv->down_groups, want[l].down_groups);
		ck_assert_uint_eq(lv->group_width, want[l].group_width);
		for (uint32_t i = t->lvl_start[l]; i < t->lvl_start[l + 1]; i++) {
			uint32_t s = t->by_level[i];

			ck_assert_uint_eq(t->level[s], l);
			ck_assert_uint_eq(t->pos[s], i - t->lvl_start[l]);
		}
		total += want[l].nsw;
	}
	ck_assert_uint_eq(t->lvl_start[n], total);
}

/*
 * On a regular tree every switch has its level's shape: up entries go to
 * level l+1 and down entries to level l-1, grouped by peer (a group is a run
 * of one peer), groups of equal width, peers in tree order, and each entry's
 * port really leads to that peer.
 */
static void port_groups_regular(const vt_tree *t)
{
	const vt_fabric *f = t->f;

	for (uint32_t s = 0; s < t->nsw; s++) {
		const struct vt_tree_level *lv = &t->lv[t->level[s] & 15];

		if (t->level[s] == VT_TREE_OUTSIDE) /* another plane's */
			continue;
		for (int dn = 0; dn < 2; dn++) {
			const uint32_t *start = dn ? t->dn_start : t->up_start;
			const uint32_t *peer = dn ? t->dn_peer : t->up_peer;
			const uint8_t *port = dn ? t->dn_port : t->up_port;
			uint32_t a = start[s], b = start[s + 1], groups = 0;

			ck_assert_uint_eq(b - a, dn ? lv->down_links : lv->up_links);
			for (uint32_t j = a; j < b; j++) {
				uint32_t q = vt_port_index(f, f->switches[s], port[j]);

				ck_assert_uint_eq(f->nodes[vt_peer_node(f, q)].sw, peer[j]);
				ck_assert_uint_eq(t->level[peer[j]], t->level[s] + (dn ? -1 : 1));
				if (j == a || peer[j] != peer[j - 1]) {
					groups++;
					if (j > a) /* groups in tree order */
						ck_assert_uint_lt(t->pos[peer[j - 1]],
								  t->pos[peer[j]]);
				}
			}
			ck_assert_uint_eq(groups, dn ? lv->down_groups : lv->up_groups);
			if (!dn && groups)
				ck_assert_uint_eq(b - a, groups * lv->group_width);
		}
	}
}

/*
 * Subtrees of a regular tree whose level-l subtrees hold `ranks[l]` ranks,
 * `nsw[l]` switches and `nup[l]` up-links each: they tile the ranks in order,
 * and every switch lies in the subtree of each level from its own up, which
 * holds the ranks of the leaves below it.
 */
static void subtrees_regular(const vt_tree *t, const uint32_t *ranks, const uint32_t *nsw,
			     const uint32_t *nup)
{
	uint32_t count[VT_TREE_MAX_LEVELS] = {0};

	for (uint32_t i = 0; i < t->nsubs; i++) {
		const struct vt_subtree *st = &t->subs[i];

		ck_assert_uint_lt(st->level, t->nlevels);
		ck_assert_uint_eq(st->nranks, ranks[st->level]);
		ck_assert_uint_eq(st->hosts, ranks[st->level]);
		ck_assert_uint_eq(st->nsw, nsw[st->level]);
		ck_assert_uint_eq(st->nup, nup[st->level]);
		ck_assert_uint_eq(st->first_rank % ranks[st->level], 0);
		count[st->level]++;
	}
	for (uint32_t l = 0; l < t->nlevels; l++)
		ck_assert_uint_eq(count[l], t->order.n / ranks[l]);
	for (uint32_t i = 0; i < t->order.n; i++) {
		uint32_t leaf = t->rank_leaf[i];

		ck_assert_uint_eq(t->level[leaf], 0);
		ck_assert_uint_ne(t->order.port[i], VT_NONE);
		ck_assert_uint_eq(t->f->nodes[vt_peer_node(t->f, t->order.port[i])].sw, leaf);
		for (uint32_t l = 0; l < t->nlevels; l++) {
			const struct vt_subtree *st = &t->subs[t->sub[l * t->nsw + leaf]];

			ck_assert_uint_eq(st->first_rank, i / ranks[l] * ranks[l]);
		}
	}
	for (uint32_t s = 0; s < t->nsw; s++)
		for (uint32_t l = 0; l < t->nlevels; l++) {
			uint32_t id = t->sub[l * t->nsw + s];

			if (l < t->level[s]) {
				ck_assert_uint_eq(id, VT_NONE);
				continue;
			}
			ck_assert_uint_lt(id, t->nsubs);
			ck_assert_uint_eq(t->subs[id].level, l);
			/* every leaf below s (desc) is in s's subtree of this level */
			for (uint32_t d = 0; d < t->nsw; d++)
				if (t->level[d] == 0 && vt_tree_bit(t, t->desc, s, d))
					ck_assert_uint_eq(t->sub[l * t->nsw + d], id);
		}
}

/* ---- regular trees */

/* 4-ary-3-tree: 16 switches a level, 4 links in 4 groups each way; pods of 4 leaves. */
START_TEST(fat_4_3)
{
	static const struct shape sh[] = {
		{16, 4, 4, 0, 0, 1}, {16, 4, 4, 4, 4, 1}, {16, 0, 0, 4, 4, 0}};
	/* level-1 subtree: a pod, 4 leaves + 4 middle switches with 4 up-links each */
	static const uint32_t ranks[] = {4, 16, 64}, nsw[] = {1, 8, 48}, nup[] = {4, 16, 0};
	vt_fabric *f = vt_test_gen("fat 4,3");
	vt_tree t;

	build_ok(&t, f, NULL);
	ck_assert_uint_eq(t.ncn, 64);
	ck_assert_uint_eq(t.order.n, 64);
	ck_assert_uint_eq(t.hosts_per_leaf, 4);
	ck_assert_uint_eq(t.lv[0].max_hosts, 4);
	ck_assert_uint_eq(t.nsubs, 16 + 4 + 1);
	levels_are(&t, 3, sh);
	port_groups_regular(&t);
	subtrees_regular(&t, ranks, nsw, nup);
	ck_assert_uint_eq(t.ndep_total, 0);
	describes(&t, "3 switch levels, 64 compute nodes, 64 ranks (4 per leaf)\n"
		      "level 0: 16 leaf switches, up to 4 compute nodes each, 4 up-links in 4 "
		      "groups\n"
		      "level 1: 16 switches, 4 down-links in 4 groups, 4 up-links in 4 groups\n"
		      "level 2: 16 switches, 4 down-links in 4 groups, 0 up-links in 0 groups\n"
		      "regular var-ary-n-tree: no departures\n");
	vt_tree_free(&t);
	vt_fabric_free(f);
}
END_TEST

/*
 * Thin 4:2,3 (Navaridas): k = 4 down, k' = 2 up; level i has k'^i k^(n-1-i)
 * switches: 16, 8, 4. A level-1 subtree is k = 4 leaves sharing k' = 2
 * parents (6 switches, 4 up-links); 64 hosts.
 */
START_TEST(thin_4_2_3)
{
	static const struct shape sh[] = {
		{16, 2, 2, 0, 0, 1}, {8, 2, 2, 4, 4, 1}, {4, 0, 0, 4, 4, 0}};
	static const uint32_t ranks[] = {4, 16, 64}, nsw[] = {1, 6, 28}, nup[] = {2, 4, 0};
	vt_fabric *f = vt_test_gen("thin 4:2,3");
	vt_tree t;

	build_ok(&t, f, NULL);
	ck_assert_uint_eq(t.ncn, 64);
	ck_assert_uint_eq(t.order.n, 64);
	levels_are(&t, 3, sh);
	port_groups_regular(&t);
	subtrees_regular(&t, ranks, nsw, nup);
	describes(&t, "3 switch levels, 64 compute nodes, 64 ranks (4 per leaf)\n"
		      "level 0: 16 leaf switches, up to 4 compute nodes each, 2 up-links in 2 "
		      "groups\n"
		      "level 1: 8 switches, 4 down-links in 4 groups, 2 up-links in 2 groups\n"
		      "level 2: 4 switches, 4 down-links in 4 groups, 0 up-links in 0 groups\n"
		      "regular var-ary-n-tree: no departures\n");
	vt_tree_free(&t);
	vt_fabric_free(f);
}
END_TEST

/*
 * varary 4,4,2:4,2:1,2 (Definition 2 with unequal port groups): D = 4, 4, 2
 * children, U = 4, 2 parents, P = 1, 2 links per parent. Level r has the U
 * below times the D above: 8 leaves (4 hosts, 4 single links up), 8 middle
 * switches (4 down, 2 groups of 2 up), 8 tops (2 groups of 2 down). A
 * level-1 subtree: the 4 leaves and 4 middle switches that share parents.
 */
START_TEST(varary_unequal_groups)
{
	static const struct shape sh[] = {
		{8, 4, 4, 0, 0, 1}, {8, 4, 2, 4, 4, 2}, {8, 0, 0, 4, 2, 0}};
	static const uint32_t ranks[] = {4, 16, 32}, nsw[] = {1, 8, 24}, nup[] = {4, 16, 0};
	vt_fabric *f = vt_test_gen("varary 4,4,2:4,2:1,2");
	vt_tree t;

	build_ok(&t, f, NULL);
	ck_assert_uint_eq(t.ncn, 32);
	levels_are(&t, 3, sh);
	port_groups_regular(&t);
	subtrees_regular(&t, ranks, nsw, nup);
	/* a middle switch's up list: two runs of two ports, each run to one top */
	for (uint32_t i = t.lvl_start[1]; i < t.lvl_start[2]; i++) {
		uint32_t s = t.by_level[i], a = t.up_start[s];

		ck_assert_uint_eq(t.up_peer[a], t.up_peer[a + 1]);
		ck_assert_uint_eq(t.up_peer[a + 2], t.up_peer[a + 3]);
		ck_assert_uint_ne(t.up_peer[a], t.up_peer[a + 2]);
		ck_assert_uint_ne(t.up_port[a], t.up_port[a + 1]);
	}
	describes(&t, "3 switch levels, 32 compute nodes, 32 ranks (4 per leaf)\n"
		      "level 0: 8 leaf switches, up to 4 compute nodes each, 4 up-links in 4 "
		      "groups\n"
		      "level 1: 8 switches, 4 down-links in 4 groups, 4 up-links in 2 groups\n"
		      "level 2: 8 switches, 4 down-links in 2 groups, 0 up-links in 0 groups\n"
		      "regular var-ary-n-tree: no departures\n");
	vt_tree_free(&t);
	vt_fabric_free(f);
}
END_TEST

/*
 * Two rails of a 4-ary-3-tree: two planes of 48 switches; each plane's tree
 * holds its own switches only (the other plane's are outside, level VT_TREE_OUTSIDE)
 * and the CA ports attached to it, and has the 4-ary-3 shape.
 */
START_TEST(rails_planes)
{
	static const struct shape sh[] = {
		{16, 4, 4, 0, 0, 1}, {16, 4, 4, 4, 4, 1}, {16, 0, 0, 4, 4, 0}};
	static const uint32_t ranks[] = {4, 16, 64}, nsw[] = {1, 8, 48}, nup[] = {4, 16, 0};
	vt_fabric *f = vt_test_gen("rails 2 fat 4,3");
	uint32_t *plane = malloc(f->nswitches * sizeof(*plane)), inplane[2] = {0, 0};

	ck_assert_uint_eq(f->nswitches, 96);
	ck_assert_uint_eq(vt_route_planes(f, plane), 2);
	for (uint32_t s = 0; s < f->nswitches; s++) {
		ck_assert_uint_lt(plane[s], 2);
		inplane[plane[s]]++;
	}
	ck_assert_uint_eq(inplane[0], 48);
	ck_assert_uint_eq(inplane[1], 48);
	for (uint32_t p = 0; p < 2; p++) {
		struct vt_tree_opts o = {.plane_of = plane, .plane = p};
		vt_tree t;

		build_ok(&t, f, &o);
		ck_assert_uint_eq(t.ncn, 64);
		levels_are(&t, 3, sh);
		port_groups_regular(&t);
		subtrees_regular(&t, ranks, nsw, nup);
		for (uint32_t s = 0; s < f->nswitches; s++)
			ck_assert_uint_eq(t.level[s] == VT_TREE_OUTSIDE, plane[s] != p);
		for (uint32_t i = 0; i < t.order.n; i++) {
			uint32_t sw = f->nodes[vt_peer_node(f, t.order.port[i])].sw;

			ck_assert_uint_eq(plane[sw], p);
		}
		ck_assert_uint_eq(t.ndep_total, 0);
		vt_tree_free(&t);
	}
	free(plane);
	vt_fabric_free(f);
}
END_TEST

/* ---- degraded trees: what departs is recorded, one line each */

static void k3_describes(const struct k3_opts *o, const char *want, uint32_t ndep)
{
	struct k3 k;
	vt_tree t;

	k3_build(&k, 4, o);
	finish(k.f);
	build_ok(&t, k.f, NULL);
	ck_assert_uint_eq(t.ndep_total, ndep);
	describes(&t, want);
	vt_tree_free(&t);
	vt_fabric_free(k.f);
}

/*
 * Leaf S-0-1's up-port 2 goes to S-1-2 (its pod's third middle switch): cut,
 * the leaf has 3 up-links and that middle switch 3 down-links.
 */
START_TEST(departure_leaf_uplink)
{
	struct k3_opts o = K3_FULL;

	o.cut_leaf = 1;
	o.cut_up = 2;
	k3_describes(
		&o,
		"3 switch levels, 64 compute nodes, 64 ranks (4 per leaf)\n"
		"level 0: 16 leaf switches, up to 4 compute nodes each, 4 up-links in 4 "
		"groups\n"
		"level 1: 16 switches, 4 down-links in 4 groups, 4 up-links in 4 groups\n"
		"level 2: 16 switches, 4 down-links in 4 groups, 0 up-links in 0 groups\n"
		"3 departures from a regular var-ary-n-tree:\n"
		"switch \"S-0-1\" (0x0000000000010001) at level 0 has 3 up-links, its level has 4\n"
		"switch \"S-1-2\" (0x0000000000010102) at level 1 has 3 down-links, its level has "
		"4\n"
		"switches \"S-0-1\" (0x0000000000010001) {0,0,1} and \"S-1-2\" "
		"(0x0000000000010102) {1,0,2} are not linked, but their "
		"tuples differ only in digit 0\n",
		3);
}
END_TEST

/* Top S-2-5 links the middle switches whose digit 0 is 1: S-1-1, 5, 9, 13. */
START_TEST(departure_top_switch)
{
	struct k3_opts o = K3_FULL;

	o.skip_top = 5;
	k3_describes(
		&o,
		"3 switch levels, 64 compute nodes, 64 ranks (4 per leaf)\n"
		"level 0: 16 leaf switches, up to 4 compute nodes each, 4 up-links in 4 "
		"groups\n"
		"level 1: 16 switches, 4 down-links in 4 groups, 4 up-links in 4 groups\n"
		"level 2: 15 switches, 4 down-links in 4 groups, 0 up-links in 0 groups\n"
		"4 departures from a regular var-ary-n-tree:\n"
		"switch \"S-1-1\" (0x0000000000010101) at level 1 has 3 up-links, its level has 4\n"
		"switch \"S-1-5\" (0x0000000000010105) at level 1 has 3 up-links, its level has 4\n"
		"switch \"S-1-9\" (0x0000000000010109) at level 1 has 3 up-links, its level has 4\n"
		"switch \"S-1-13\" (0x000000000001010d) at level 1 has 3 up-links, its level has "
		"4\n",
		4);
}
END_TEST

/*
 * Host H-13 (leaf S-0-3, port 2) missing: a place-keeper keeps rank 13 (every
 * leaf uses ports 1..4, so a host keeps its port's slot), and the subtrees
 * above it count one host less than their ranks.
 */
START_TEST(departure_host)
{
	struct k3_opts o = K3_FULL;
	struct k3 k;
	vt_tree t;

	o.drop_host = 13;
	k3_describes(&o,
		     "3 switch levels, 63 compute nodes, 64 ranks (4 per leaf)\n"
		     "level 0: 16 leaf switches, up to 4 compute nodes each, 4 up-links in 4 "
		     "groups\n"
		     "level 1: 16 switches, 4 down-links in 4 groups, 4 up-links in 4 groups\n"
		     "level 2: 16 switches, 4 down-links in 4 groups, 0 up-links in 0 groups\n"
		     "1 departures from a regular var-ary-n-tree:\n"
		     "leaf \"S-0-3\" (0x0000000000010003) has 3 compute nodes, the fullest has 4 "
		     "(1 place-keepers)\n",
		     1);
	k3_build(&k, 4, &o);
	finish(k.f);
	build_ok(&t, k.f, NULL);
	for (uint32_t i = 0; i < 64; i++) {
		if (i == 13) {
			ck_assert_uint_eq(t.order.port[i], VT_NONE);
			continue;
		}
		ck_assert_uint_eq(t.order.port[i], vt_port_index(k.f, k.host[i], 1));
	}
	ck_assert_uint_eq(t.rank_leaf[13], k.f->nodes[k.sw[0][3]].sw);
	for (uint32_t l = 0; l < 3; l++) {
		const struct vt_subtree *st = &t.subs[t.sub[l * t.nsw + k.f->nodes[k.sw[0][3]].sw]];
		static const uint32_t first[] = {12, 0, 0}, n[] = {4, 16, 64};

		ck_assert_uint_eq(st->first_rank, first[l]);
		ck_assert_uint_eq(st->nranks, n[l]);
		ck_assert_uint_eq(st->hosts, n[l] - 1);
	}
	vt_tree_free(&t);
	vt_fabric_free(k.f);
}
END_TEST

/*
 * Level-0 switches without ranks are no leaves in the summary: the director
 * spine ASICs of tests/data/forms/director3-bypass.topo (every leaf on every
 * line ASIC) and, with edge5 cabled to one line ASIC only, a host-less switch
 * not cabled like a leaf. They were counted among the leaf switches (6, 7).
 * Each line's up-links are its own switches' (edge5 has 1, the others 2).
 */
START_TEST(level0_without_ranks)
{
	static const char edge5[] =
		"\nswitchguid=0x98039b0300d00500(98039b0300d00500)\n"
		"Switch\t36 \"S-98039b0300d00500\"\t# \"MF0;edge5:MSB7800/U1\" lid 16 lmc 0\n"
		"[19]\t\"S-98039b0300c00011\"[5]\t# \"MF0;core-dir:CS7500/L01/U1\" lid 3 4xEDR\n";
	static const char *const want[] = {
		"level 0 also: 2 director spine ASICs that the leaves' up-links bypass, no ranks, "
		"2 "
		"up-links in 2 groups\n",
		"level 0 also: 2 director spine ASICs that the leaves' up-links bypass and 1 other "
		"switch without compute nodes, no ranks, 2 up-links in 2 groups\n"};
	char *buf, *text;
	size_t len;
	vt_err e;

	ck_assert_int_eq(vt_read_file(vt_test_path("tests/data/forms/director3-bypass.topo"), &buf,
				      &len, &e),
			 0);
	text = malloc(len + sizeof(edge5));
	memcpy(text, buf, len);
	memcpy(text + len, edge5, sizeof(edge5));
	for (int i = 0; i < 2; i++) {
		struct lines l = {.len = 0};
		vt_fabric *f;
		vt_tree t;

		ck_assert_msg(vt_load_mem(text, len + (i ? sizeof(edge5) - 1 : 0), "d", &f, &e) ==
				      0,
			      "%s", e.msg);
		build_ok(&t, f, NULL);
		ck_assert_uint_eq(t.lv[0].nsw, 6 + (unsigned)i);
		ck_assert_uint_eq(t.nleaves, 4);
		ck_assert_uint_eq(t.nbypassed, 2);
		ck_assert_uint_eq(t.order.n, 8);
		ck_assert_uint_eq(t.up0_leaves.up_links, 2);
		ck_assert_uint_eq(t.up0_others.up_links, 2);
		vt_tree_describe(&t, add_line, &l);
		ck_assert_ptr_nonnull(strstr(l.buf,
					     "\nlevel 0: 4 leaf switches, up to 2 compute nodes "
					     "each, 2 up-links in 2 groups\n"));
		ck_assert_ptr_nonnull(strstr(l.buf, want[i]));
		vt_tree_free(&t);
		vt_fabric_free(f);
	}
	free(text);
	free(buf);
}
END_TEST

/* ---- refusals: one line naming the node and the rule */

static void refused(vt_fabric *f, const struct vt_tree_opts *o, const char *msg)
{
	vt_tree t;
	vt_err e = {0};

	finish(f);
	ck_assert_int_eq(vt_tree_build(&t, f, o, &e), -1);
	ck_assert_str_eq(e.msg, msg);
	ck_assert_ptr_null(t.level); /* nothing left allocated */
	vt_fabric_free(f);
}

/*
 * As refused(), with node i given line 100 + i: the message must start
 * "SOURCE:LINE: " with the line of node `at`, the node the refusal is about.
 */
static void refused_at(vt_fabric *f, const struct vt_tree_opts *o, uint32_t at, const char *cause)
{
	char msg[VT_ERR_MAX];

	for (uint32_t i = 0; i < f->nnodes; i++)
		f->nodes[i].line = 100 + i;
	snprintf(msg, sizeof(msg), "%s:%u: %s", f->source, 100 + at, cause);
	refused(f, o, msg);
}

/*
 * A CA on a middle switch (S-1-6, between leaves S-0-4..7). Listed as a compute
 * node it is refused: with the tops as roots the levels are counted from them;
 * without roots the ranking is skewed by the stray CA, and the refusal still
 * names it, counted from the switches that hold most compute nodes.
 */
static vt_fabric *ca_on_level1(void)
{
	struct k3 k;
	uint32_t h;
	vt_err e;

	k3_build(&k, 4, &K3_FULL);
	ck_assert_int_eq(vt_fabric_add_node(k.f, VT_CA, 1, 0x40000, "IO", NULL, &h, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(k.f, k.sw[1][6], 9, h, 1, 4, VT_QDR, &e), 0);
	return k.f;
}

START_TEST(refuses_listed_ca_on_level1)
{
	static const char msg[] = "CA \"IO\" (0x0000000000040000) is attached to switch \"S-1-6\" "
				  "(0x0000000000010106) at level 1, but compute nodes must all "
				  "hang off level 0";
	uint64_t roots[16], cns[65];
	struct vt_tree_opts o = {.cn_guids = cns, .ncns = 65};
	vt_fabric *f;

	for (unsigned h = 0; h < 64; h++)
		cns[h] = 0x30000 + h;
	cns[64] = 0x40000;
	/* the CA's record, the last node's, not its switch's */
	f = ca_on_level1();
	refused_at(f, &o, f->nnodes - 1, msg);
	for (unsigned s = 0; s < 16; s++)
		roots[s] = 0x10000 + 2 * 256 + s;
	o.root_guids = roots;
	o.nroots = 16;
	f = ca_on_level1();
	refused_at(f, &o, f->nnodes - 1, msg);
}
END_TEST

/*
 * Unlisted, it is a spine's storage or management CA (it lies between the
 * leaves below S-1-6): not a compute node, and S-1-6 stays on level 1.
 */
START_TEST(spine_ca_not_compute)
{
	vt_fabric *f = ca_on_level1();
	vt_tree t;

	finish(f);
	build_ok(&t, f, NULL);
	ck_assert_uint_eq(t.ncn, 64);
	ck_assert_uint_eq(t.nlevels, 3);
	ck_assert_uint_eq(t.level[f->nodes[vt_fabric_node_by_guid(f, 0x10106)].sw], 1);
	ck_assert_uint_eq(t.order.n, 64);
	ck_assert_uint_eq(t.ndep_total, 0);
	vt_tree_free(&t);
	vt_fabric_free(f);
}
END_TEST

/* The same CA is fine once it is not a compute node (OpenSM's io_guid_file). */
START_TEST(io_node_on_level1)
{
	static const uint64_t io[] = {0x40000};
	struct vt_tree_opts o = {.io_guids = io, .nios = 1};
	struct k3 k;
	vt_tree t;
	uint32_t h;
	vt_err e;

	k3_build(&k, 4, &K3_FULL);
	ck_assert_int_eq(vt_fabric_add_node(k.f, VT_CA, 1, 0x40000, "IO", NULL, &h, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(k.f, k.sw[1][6], 9, h, 1, 4, VT_QDR, &e), 0);
	finish(k.f);
	build_ok(&t, k.f, &o);
	ck_assert_uint_eq(t.ncn, 64);
	ck_assert_uint_eq(t.level[k.f->nodes[k.sw[1][6]].sw], 1);
	ck_assert_uint_eq(t.ndep_total, 0);
	vt_tree_free(&t);
	vt_fabric_free(k.f);
}
END_TEST

START_TEST(refuses_link_in_level)
{
	struct k3 k;
	vt_err e;

	static const char in0[] =
		"switches \"S-0-2\" (0x0000000000010002) port 9 and \"S-0-7\" (0x0000000000010007) "
		"port 10 are linked but both at level 0; an up/down tree links only adjacent "
		"levels";

	k3_build(&k, 4, &K3_FULL);
	ck_assert_int_eq(vt_fabric_connect(k.f, k.sw[0][2], 9, k.sw[0][7], 10, 4, VT_QDR, &e), 0);
	refused_at(k.f, NULL, k.sw[0][2], in0); /* the first-named switch's record */
	/* the line listing the link, when the loader kept it: S-0-2 port 9's */
	k3_build(&k, 4, &K3_FULL);
	ck_assert_int_eq(vt_fabric_connect(k.f, k.sw[0][2], 9, k.sw[0][7], 10, 4, VT_QDR, &e), 0);
	k.f->link_line = calloc(k.f->nports, sizeof(*k.f->link_line));
	ck_assert_ptr_nonnull(k.f->link_line);
	k.f->link_line[vt_port_index(k.f, k.sw[0][2], 9)] = 7;
	k.f->link_line[vt_port_index(k.f, k.sw[0][7], 10)] = 8;
	refused(k.f, NULL,
		"k3:7: switches \"S-0-2\" (0x0000000000010002) port 9 and \"S-0-7\" "
		"(0x0000000000010007) port 10 are linked but both at level 0; an up/down "
		"tree links only adjacent levels");
	/* no line (a generated fabric): the source alone */
	k3_build(&k, 4, &K3_FULL);
	ck_assert_int_eq(vt_fabric_connect(k.f, k.sw[2][0], 9, k.sw[2][15], 9, 4, VT_QDR, &e), 0);
	refused(k.f, NULL,
		"k3: switches \"S-2-0\" (0x0000000000010200) port 9 and \"S-2-15\" "
		"(0x000000000001020f) "
		"port 9 are linked but both at level 2; an up/down tree links only adjacent "
		"levels");
}
END_TEST

/* A leaf with every up-link cut: its hosts cannot reach the others. */
START_TEST(refuses_disconnected_leaf)
{
	struct k3 k;

	k3_build(&k, 4, &K3_FULL);
	/* unplug leaf S-0-9's up-ports 5..8 (the model is plain arrays) */
	for (unsigned x = 0; x < 4; x++) {
		struct vt_port *p = vt_port(k.f, k.sw[0][9], 5 + x);

		k.f->ports[p->peer].peer = VT_NONE;
		p->peer = VT_NONE;
	}
	refused_at(k.f, NULL, k.sw[0][9],
		   "switch \"S-0-9\" (0x0000000000010009) with compute nodes is not connected to "
		   "the roots");
}
END_TEST

/* Two leaves, each under its own top: two islands, no path between them. */
START_TEST(refuses_two_islands)
{
	vt_fabric *g = vt_fabric_new("islands");
	uint32_t l[4], h[4];
	vt_err e;
	char name[16];

	for (unsigned i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "%s%u", i < 2 ? "L" : "T", i % 2);
		ck_assert_int_eq(
			vt_fabric_add_node(g, VT_SWITCH, 4, 0x100 + i, name, NULL, &l[i], &e), 0);
	}
	for (unsigned i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "H%u", i);
		ck_assert_int_eq(vt_fabric_add_node(g, VT_CA, 1, 0x200 + i, name, NULL, &h[i], &e),
				 0);
		vt_port(g, h[i], 1)->guid = 0x300 + i;
		ck_assert_int_eq(vt_fabric_connect(g, l[i / 2], i % 2 + 1, h[i], 1, 4, VT_QDR, &e),
				 0);
	}
	ck_assert_int_eq(vt_fabric_connect(g, l[0], 3, l[2], 1, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(g, l[1], 3, l[3], 1, 4, VT_QDR, &e), 0);
	refused_at(g, NULL, h[0],
		   "no up/down path from CA \"H0\" (0x0000000000000200) on switch \"L0\" "
		   "(0x0000000000000100) to CA \"H2\" (0x0000000000000202) on switch \"L1\" "
		   "(0x0000000000000101)");
}
END_TEST

/* A root GUID naming no switch: by its file and line when read from one, and what has it. */
START_TEST(refuses_root_not_switch)
{
	static const uint64_t roots[] = {0x10200, 0x20005};
	static const unsigned at[] = {3, 7};
	struct vt_tree_opts o = {.root_guids = roots, .nroots = 2};
	struct k3 k;

	k3_build(&k, 4, &K3_FULL);
	refused(k.f, &o,
		"root GUID 0x0000000000020005 is not a switch of the fabric: it is CA \"H-5\" "
		"(0x0000000000020005)");
	o.root_file = "roots";
	o.root_lines = at;
	k3_build(&k, 4, &K3_FULL);
	refused(k.f, &o,
		"roots:7: root GUID 0x0000000000020005 is not a switch of the fabric: it is CA "
		"\"H-5\" (0x0000000000020005)");
}
END_TEST

/* With the tops given as roots the levels are counted from them: the same tree. */
START_TEST(roots_given)
{
	uint64_t roots[16];
	struct vt_tree_opts o = {.root_guids = roots, .nroots = 16};
	struct k3 k;
	vt_tree t;

	for (unsigned s = 0; s < 16; s++)
		roots[s] = 0x10000 + 2 * 256 + s;
	k3_build(&k, 4, &K3_FULL);
	finish(k.f);
	build_ok(&t, k.f, &o);
	ck_assert_uint_eq(t.nlevels, 3);
	for (unsigned r = 0; r < 3; r++)
		for (unsigned s = 0; s < 16; s++)
			ck_assert_uint_eq(t.level[k.f->nodes[k.sw[r][s]].sw], r);
	vt_tree_free(&t);
	vt_fabric_free(k.f);
}
END_TEST

/* ---- a 2-ary-2-tree routed by hand */

/*
 * Leaves L0 (hosts H0, H1 on ports 1, 2) and L1 (H2, H3); each leaf's port 3
 * goes to T0 and port 4 to T1; T0 and T1 reach L0 on port 1 and L1 on port 2.
 * Records in the order L0 L1 T0 T1 H0..H3, so vt_fabric_finish gives LIDs
 * L0 1, L1 2, T0 3, T1 4, H0 5, H1 6, H2 7, H3 8.
 *
 * Zahavi et al. §3, compute nodes in index order H0..H3 (Algorithm 2); the
 * counters are the down-going use of each top port:
 *  H0: L0 -> 1. Alg. 4 at L0: T0:1 and T1:1 both 0, first in order: T0;
 *      T0 -> 1, T0:1 = 1. Alg. 3 from T0: its group to L1, so L1 -> 3.
 *      T1 lies above H0 (an ancestor): it routes down, T1 -> 1.
 *  H1: L0 -> 2. T0:1 = 1 > T1:1 = 0: T1; T1 -> 1, T1:1 = 1; L1 -> 4; T0 -> 1.
 *  H2: L1 -> 1. T0:2 = T1:2 = 0: T0; T0 -> 2, T0:2 = 1; L0 -> 3; T1 -> 2.
 *  H3: L1 -> 2. T0:2 = 1 > T1:2 = 0: T1; T1 -> 2; L0 -> 4; T0 -> 2.
 * Then switch LIDs, routed the same way (the paper routes only compute nodes;
 * vartree routes every LID so every entry is set):
 *  L0: L0 -> 0. T0:1 = T1:1 = 1: T0; T0 -> 1; L1 -> 3; T1 (ancestor) -> 1.
 *  L1: L1 -> 0. T0:2 = T1:2 = 1: T0; T0 -> 2; L0 -> 3; T1 -> 2.
 *  T0: T0 -> 0; L0 and L1 go up to it on port 3. T1 has no up*-down* route
 *      to T0 (both tops): it detours down through a leaf, port 1 or 2.
 *  T1: T1 -> 0; L0 -> 4, L1 -> 4; T0 detours through port 1 or 2.
 * Shift check: stage 1 sends H1->H2 over L0:3/T0:2 and H3->H0 over L1:3/T0:1,
 * stage 2 uses each of L0:3, L0:4, L1:3, L1:4 once: congestion-free.
 */
START_TEST(route_2ary2_by_hand)
{
	/* [switch][LID], 0xFE: a detour, port 1 or 2 */
	static const uint8_t want[4][9] = {
		/*        -    L0   L1   T0   T1    H0 H1 H2 H3 */
		/* L0 */ {0xFF, 0, 3, 3, 4, 1, 2, 3, 4},
		/* L1 */ {0xFF, 3, 0, 3, 4, 3, 4, 1, 2},
		/* T0 */ {0xFF, 1, 2, 0, 0xFE, 1, 1, 2, 2},
		/* T1 */ {0xFF, 1, 2, 0xFE, 0, 1, 1, 2, 2},
	};
	static const char *sw_name[] = {"L0", "L1", "T0", "T1"};
	vt_fabric *f = vt_fabric_new("2-ary-2");
	uint32_t sw[4], h[4];
	vt_lfts lfts;
	vt_order order;
	vt_err e;
	char name[8];

	for (unsigned i = 0; i < 4; i++)
		ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 4, 0x100 + i, sw_name[i], NULL,
						    &sw[i], &e),
				 0);
	for (unsigned i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "H%u", i);
		ck_assert_int_eq(vt_fabric_add_node(f, VT_CA, 1, 0x200 + i, name, NULL, &h[i], &e),
				 0);
		vt_port(f, h[i], 1)->guid = 0x300 + i;
		ck_assert_int_eq(vt_fabric_connect(f, sw[i / 2], i % 2 + 1, h[i], 1, 4, VT_QDR, &e),
				 0);
	}
	for (unsigned l = 0; l < 2; l++)
		for (unsigned t = 0; t < 2; t++)
			ck_assert_int_eq(
				vt_fabric_connect(f, sw[l], 3 + t, sw[2 + t], 1 + l, 4, VT_QDR, &e),
				0);
	finish(f);
	for (unsigned i = 0; i < 4; i++) {
		ck_assert_uint_eq(vt_port(f, sw[i], 0)->lid, 1 + i);
		ck_assert_uint_eq(vt_port(f, h[i], 1)->lid, 5 + i);
	}
	ck_assert_msg(vt_route(f, NULL, &lfts, &order, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(lfts.nlid, 9);
	ck_assert_uint_eq(order.n, 4);
	for (unsigned i = 0; i < 4; i++)
		ck_assert_uint_eq(order.port[i], vt_port_index(f, h[i], 1));
	for (unsigned s = 0; s < 4; s++)
		for (unsigned lid = 0; lid < 9; lid++) {
			uint8_t got = vt_lft_get(&lfts, f->nodes[sw[s]].sw, lid);

			if (want[s][lid] == 0xFE)
				ck_assert_msg(got == 1 || got == 2, "%s LID %u: port %u",
					      sw_name[s], lid, got);
			else
				ck_assert_msg(got == want[s][lid], "%s LID %u: port %u, want %u",
					      sw_name[s], lid, got, want[s][lid]);
		}
	vt_lfts_free(&lfts);
	vt_order_free(&order);
	vt_fabric_free(f);
}
END_TEST

static Suite *tree_suite(void)
{
	Suite *s = suite_create("tree");
	TCase *tc = tcase_create("regular");
	TCase *td = tcase_create("degraded");
	TCase *tr = tcase_create("refusals");
	TCase *th = tcase_create("by_hand");

	tcase_add_test(tc, fat_4_3);
	tcase_add_test(tc, thin_4_2_3);
	tcase_add_test(tc, varary_unequal_groups);
	tcase_add_test(tc, rails_planes);
	tcase_add_test(tc, roots_given);
	tcase_add_test(tc, io_node_on_level1);
	tcase_add_test(td, departure_leaf_uplink);
	tcase_add_test(td, departure_top_switch);
	tcase_add_test(td, departure_host);
	tcase_add_test(td, level0_without_ranks);
	tcase_add_test(tr, refuses_listed_ca_on_level1);
	tcase_add_test(tr, spine_ca_not_compute);
	tcase_add_test(tr, refuses_link_in_level);
	tcase_add_test(tr, refuses_disconnected_leaf);
	tcase_add_test(tr, refuses_two_islands);
	tcase_add_test(tr, refuses_root_not_switch);
	tcase_add_test(th, route_2ary2_by_hand);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, td);
	suite_add_tcase(s, tr);
	suite_add_tcase(s, th);
	return s;
}

VT_TEST_MAIN(tree_suite)
