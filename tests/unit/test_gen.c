/* SPDX-License-Identifier: MIT */
/*
 * Generators against the papers: Navaridas et al. Tables 1-3, Zahavi et al.
 * Definition 1 and the Table I fabrics, Wolfe et al.'s pruned fat-trees,
 * Matsuoka's clique sizes; removals, names, GUIDs and the writer.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/vt_gen.h"
#include "io/vt_load.h"
#include "vt_test.h"
#include "io/vt_write.h"

static struct vt_gen_stats stats(const char *spec)
{
	struct vt_gen_stats st;
	vt_fabric *f = vt_test_gen(spec);

	ck_assert_int_eq(vt_gen_stats(f, &st), 0);
	vt_fabric_free(f);
	return st;
}

static const char *gen_err(const char *spec)
{
	static vt_err e;
	struct vt_gen_spec s;
	vt_fabric *f = NULL;

	if (vt_gen_parse(&s, spec, &e) == 0 && vt_gen_build(&s, &f, &e) == 0) {
		vt_fabric_free(f);
		ck_abort_msg("%s: accepted", spec);
	}
	return e.msg;
}

/* Navaridas et al. Table 2 (complete networks) and Table 3 (cost, cost per node). */
static const struct {
	const char *spec;
	unsigned radix, switches, links, nodes;
	double cost, per_node;
} table2[] = {
	{"fat 8,4", 16, 2048, 16384, 4096, 13977600, 3413},
	{"thin 8:4,4", 12, 960, 7680, 4096, 4189500, 1023},
	{"thin 8:2,4", 10, 680, 5440, 4096, 2310141, 564},
	{"slender 8:4,8", 12, 1020, 8160, 4096, 4451344, 1087},
	{"slender 8:2,5", 10, 682, 5456, 4096, 2316935, 566},
	{"fat 6,5", 12, 6480, 38880, 7776, 26335125, 3387},
	{"thin 9:3,4", 12, 1080, 9720, 6561, 4875188, 743},
	{"slender 9:3,6", 12, 1092, 9828, 6561, 4929356, 751},
};

START_TEST(navaridas_tables)
{
	struct vt_gen_stats st = stats(table2[_i].spec);

	ck_assert_uint_eq(st.radix, table2[_i].radix);
	ck_assert_uint_eq(st.switches, table2[_i].switches);
	ck_assert_uint_eq(st.links, table2[_i].links);
	ck_assert_uint_eq(st.hosts, table2[_i].nodes);
	/* the paper rounds to whole dollars, halves up */
	ck_assert_double_eq(floor(st.cost + 0.5), table2[_i].cost);
	ck_assert_double_eq(floor(st.cost_per_host + 0.5), table2[_i].per_node);
}
END_TEST

/* Bisection: k^n/2 for fat-trees, narrowed by k'/k per level above the leaves for thin-trees. */
START_TEST(bisection_links)
{
	ck_assert_uint_eq(stats("fat 4,3").bisection, 32);
	ck_assert_uint_eq(stats("fat 3,3").bisection, 13); /* 27 hosts: 13 | 14 */
	ck_assert_uint_eq(stats("thin 4:2,3").bisection, 8);
	ck_assert_uint_eq(stats("thin 8:4,4").bisection, 256);
	ck_assert_uint_eq(stats("oversub 8,4,2,2").bisection, 8);
	ck_assert_uint_eq(stats("rails 2 fat 4,3").bisection, 64);
	ck_assert_uint_eq(stats("clique 8").bisection, 8);
}
END_TEST

/* Zahavi Table I fabrics: K^N hosts and N*K^(N-1) switches of 2K ports. */
START_TEST(zahavi_table1)
{
	static const struct {
		const char *spec;
		unsigned hosts, switches, radix, levels;
	} t[] = {
		{"fat 2,4", 16, 32, 4, 4},
		{"fat 4,2", 16, 8, 8, 2},
		{"fat 4,3", 64, 48, 8, 3},
		{"fat 4,4", 256, 256, 8, 4},
		{"fat 12,2", 144, 24, 24, 2},
		{"fat 12,3", 1728, 432, 24, 3},
		{"fat 8,3", 512, 192, 16, 3},
		/* 4-ary-2-tree with merged roots: two roots, double links */
		{"varary 4,4:2:2", 16, 6, 8, 2},
		/* Figure 2: var-4-2-2ary-3-tree */
		{"varary 4,2,2:2,2", 16, 12, 6, 3},
	};

	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct vt_gen_stats st = stats(t[i].spec);

		ck_assert_msg(st.hosts == t[i].hosts && st.switches == t[i].switches &&
				      st.radix == t[i].radix && st.levels == t[i].levels,
			      "%s: %u hosts %u switches radix %u levels %u", t[i].spec, st.hosts,
			      st.switches, st.radix, st.levels);
		ck_assert_uint_eq(st.host_ports, t[i].hosts);
	}
}
END_TEST

static void desc_pos(const vt_fabric *f, uint32_t n, unsigned *lv, unsigned *idx)
{
	ck_assert_int_eq(sscanf(f->nodes[n].desc, "L%u-S%u", lv, idx), 2);
}

/* Definition 1: switches at r and r+1 linked iff their K-ary digits agree except digit r. */
START_TEST(definition1_adjacency)
{
	const unsigned K = 3, N = 3;
	vt_fabric *f = vt_test_gen("fat 3,3");
	unsigned pairs = 0;

	for (uint32_t a = 0; a < f->nnodes; a++) {
		unsigned la, ia;

		if (f->nodes[a].type != VT_SWITCH)
			continue;
		desc_pos(f, a, &la, &ia);
		for (uint32_t b = 0; b < f->nnodes; b++) {
			unsigned lb, ib, linked = 0, agree = 1;

			if (f->nodes[b].type != VT_SWITCH)
				continue;
			desc_pos(f, b, &lb, &ib);
			if (lb != la + 1)
				continue;
			for (unsigned p = 1; p <= f->nodes[a].nports; p++)
				linked += vt_peer_node(f, vt_port_index(f, a, p)) == b;
			for (unsigned i = 0, x = ia, y = ib; i < N - 1; i++, x /= K, y /= K)
				if (i != la && x % K != y % K)
					agree = 0;
			ck_assert_uint_eq(linked, agree);
			pairs += linked;
		}
	}
	ck_assert_uint_eq(pairs, 2 * 9 * 3); /* (N-1) levels of links, K^(N-1) switches, K up */
	vt_fabric_free(f);
}
END_TEST

/* Navaridas 2.3: nswitch = k' * floor(switch / k) + port, nport = switch mod k. */
START_TEST(slender_wiring)
{
	const unsigned k = 4, kp = 2;
	vt_fabric *f = vt_test_gen("slender 4:2,4");
	unsigned links = 0;

	for (uint32_t a = 0; a < f->nnodes; a++) {
		unsigned la, ia;

		if (f->nodes[a].type != VT_SWITCH)
			continue;
		desc_pos(f, a, &la, &ia);
		for (unsigned u = 0; u < kp && la < 3; u++) {
			uint32_t b = vt_peer_node(f, vt_port_index(f, a, k + u + 1));
			unsigned lb, ib;

			ck_assert_uint_ne(b, VT_NONE);
			desc_pos(f, b, &lb, &ib);
			ck_assert_uint_eq(lb, la + 1);
			ck_assert_uint_eq(ib, kp * (ia / k) + u);
			ck_assert_uint_eq(f->ports[vt_port(f, a, k + u + 1)->peer].num, ia % k + 1);
			links++;
		}
	}
	/* N = k'^2 (k/k')^n = 64 hosts; S_i = k' (k/k')^(n-1-i): 16 8 4 2 */
	ck_assert_uint_eq(vt_fabric_count_cas(f), 64);
	ck_assert_uint_eq(f->nswitches, 30);
	ck_assert_uint_eq(links, 2 * (16 + 8 + 4));
	vt_fabric_free(f);
}
END_TEST

/* Wolfe et al.: k pods of k/2 + k/2 switches, k^3/4 hosts; pods pruned, top links bundled. */
START_TEST(pruned_fat_trees)
{
	struct vt_gen_stats st = stats("pruned 36,36");

	ck_assert_uint_eq(st.hosts, 11664);
	ck_assert_uint_eq(st.switches, 1620);
	ck_assert_uint_eq(stats("pruned 36,11").hosts, 3564); /* the Summit approximation */
	ck_assert_uint_eq(stats("pruned 8,8").hosts, 128);    /* Figure 1a */
	ck_assert_uint_eq(stats("pruned 8,3").hosts, 48);     /* Figure 1b */
	st = stats("pruned 36,12");
	ck_assert_uint_eq(st.hosts, 3888);
	/* 12 pods of 36 switches; 12*18*18 middle up-links fill 108 top switches */
	ck_assert_uint_eq(st.switches, 12 * 36 + 108);
	ck_assert_uint_eq(st.radix_used, 36);
	ck_assert_uint_eq(st.links, 3888 * 3);
	ck_assert_uint_eq(st.bisection, 3888 / 2);
	ck_assert_uint_eq(stats("pruned 36,18").hosts, 5832);
}
END_TEST

/* Matsuoka: N(N+2)/4 nodes on N/2+1 switches, one link between every two. */
START_TEST(clique_sizes)
{
	static const unsigned n[] = {8, 16, 24, 32, 48}, hosts[] = {20, 72, 156, 272, 600};

	for (unsigned i = 0; i < 5; i++) {
		char spec[32];
		vt_fabric *f;

		snprintf(spec, sizeof(spec), "clique %u", n[i]);
		f = vt_test_gen(spec);
		ck_assert_uint_eq(vt_fabric_count_cas(f), hosts[i]);
		ck_assert_uint_eq(f->nswitches, n[i] / 2 + 1);
		for (uint32_t a = 0; a < f->nswitches; a++)
			for (uint32_t b = 0; b < f->nswitches; b++) {
				unsigned c = 0;

				for (unsigned p = 1; p <= n[i]; p++)
					c += vt_peer_node(f, vt_port_index(f, f->switches[a], p)) ==
					     f->switches[b];
				ck_assert_uint_eq(c, a != b);
			}
		vt_fabric_free(f);
	}
}
END_TEST

START_TEST(oversub_and_rails)
{
	struct vt_gen_stats st = stats("oversub 16,12,4,4");
	vt_fabric *f;

	ck_assert_uint_eq(st.hosts, 192);
	ck_assert_uint_eq(st.switches, 20);
	ck_assert_uint_eq(st.links, 192 + 64);
	ck_assert_uint_eq(st.radix, 16);
	ck_assert_uint_eq(st.bisection, 32); /* 8 leaves a side, 4 up-links each */
	st = stats("oversub 8,4,2,3");	     /* round robin: spines get 6,5,5 up-links */
	ck_assert_uint_eq(st.links, 32 + 16);
	ck_assert_uint_eq(st.radix, 6);
	f = vt_test_gen("rails 2 fat 2,2");
	ck_assert_uint_eq(vt_fabric_count_cas(f), 4);
	ck_assert_uint_eq(f->nswitches, 8);
	for (uint32_t n = 0; n < f->nnodes; n++) {
		if (f->nodes[n].type != VT_CA)
			continue;
		for (unsigned r = 1; r <= 2; r++) {
			uint32_t leaf = vt_peer_node(f, vt_port_index(f, n, r));
			unsigned plane, lv, idx;

			ck_assert_int_eq(
				sscanf(f->nodes[leaf].desc, "P%u-L%u-S%u", &plane, &lv, &idx), 3);
			ck_assert_uint_eq(plane, r - 1);
			ck_assert_uint_eq(lv, 0);
		}
	}
	vt_fabric_free(f);
}
END_TEST

/* Host h sits on leaf h/K port h%K+1, leaves and hosts in record order = index order. */
START_TEST(names_and_guids)
{
	vt_fabric *f = vt_test_gen("fat 4,3");
	uint32_t hosts = 0, leaves = 0;

	for (uint32_t n = 0; n < f->nnodes; n++) {
		const struct vt_node *nd = &f->nodes[n];
		unsigned h, lv, idx;
		uint32_t leaf;
		char want[32];

		if (nd->type == VT_SWITCH) {
			desc_pos(f, n, &lv, &idx);
			if (!lv)
				ck_assert_uint_eq(idx, leaves++);
			snprintf(want, sizeof(want), "S-%016llx", (unsigned long long)nd->guid);
			ck_assert_str_eq(nd->id, want);
			continue;
		}
		ck_assert_int_eq(sscanf(nd->desc, "H-%u", &h), 1);
		ck_assert_uint_eq(h, hosts++);
		leaf = vt_peer_node(f, vt_port_index(f, n, 1));
		desc_pos(f, leaf, &lv, &idx);
		ck_assert_uint_eq(lv, 0);
		ck_assert_uint_eq(idx, h / 4);
		ck_assert_uint_eq(f->ports[vt_port(f, n, 1)->peer].num, h % 4 + 1);
		/* ibsim's scheme: port GUID = node GUID + port number */
		ck_assert_uint_eq(vt_port(f, n, 1)->guid, nd->guid + 1);
		if (hosts > 1)
			ck_assert_str_lt(f->nodes[n - 1].id, nd->id);
	}
	ck_assert_uint_eq(hosts, 64);
	ck_assert_uint_eq(leaves, 16);
	ck_assert_str_eq(f->nodes[f->switches[0]].id, "S-0002c95000000000");
	vt_fabric_free(f);
}
END_TEST

static char *write_mem(const vt_fabric *f, size_t *len)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	vt_err e;

	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(vt_fabric_write(f, fp, &e), 0);
	fclose(fp);
	return buf;
}

START_TEST(removals_exact_and_seeded)
{
	struct vt_gen_stats st;
	vt_fabric *a, *b, *c;
	char *ta, *tb, *tc;
	size_t la, lb, lc;

	st = stats("fat 4,3 drop-links=1@0");
	ck_assert_uint_eq(st.links, 191);
	ck_assert_uint_eq(st.switches, 48);
	st = stats("fat 4,3 drop-switches=1");
	ck_assert_uint_eq(st.switches, 47);
	ck_assert_uint_eq(st.links, 192 - 4); /* a top switch has 4 down links */
	st = stats("fat 4,3 drop-switches=2@1");
	ck_assert_uint_eq(st.links, 192 - 16);
	st = stats("fat 4,3 drop-hosts=3");
	ck_assert_uint_eq(st.hosts, 61);
	ck_assert_uint_eq(st.links, 189);
	st = stats("fat 4,3 hosts-per-leaf=3 drop-hosts=2");
	ck_assert_uint_eq(st.hosts, 16 * 3 - 2);
	st = stats("fat 8,3 drop-links=5@1 seed=7");
	ck_assert_uint_eq(st.links, 512 * 3 - 5);

	a = vt_test_gen("fat 8,3 drop-links=3@0 drop-hosts=4 seed=42");
	b = vt_test_gen("fat 8,3 drop-links=3@0 drop-hosts=4 seed=42");
	c = vt_test_gen("fat 8,3 drop-links=3@0 drop-hosts=4 seed=43");
	ta = write_mem(a, &la);
	tb = write_mem(b, &lb);
	tc = write_mem(c, &lc);
	ck_assert_uint_eq(la, lb);
	ck_assert_int_eq(memcmp(ta, tb, la), 0);
	ck_assert(lc != la || memcmp(ta, tc, la));
	free(ta);
	free(tb);
	free(tc);
	vt_fabric_free(a);
	vt_fabric_free(b);
	vt_fabric_free(c);
}
END_TEST

START_TEST(bad_specs)
{
	ck_assert_str_eq(gen_err("fat 4"), "bad spec 'fat 4': expected K,N");
	ck_assert_str_eq(gen_err("fat 300,2"),
			 "bad spec 'fat 300,2': switch radix 600 exceeds 254");
	ck_assert_str_eq(gen_err("fat 4,9"),
			 "bad spec 'fat 4,9': too big (more nodes than the 49151 unicast LIDs)");
	ck_assert_str_eq(gen_err("slender 4:3,3"),
			 "bad spec 'slender 4:3,3': a slender-tree needs K' < K and K' dividing K");
	ck_assert_str_eq(gen_err("thin 4,2,3"), "bad spec 'thin 4,2,3': expected K:K',N");
	ck_assert_str_eq(
		gen_err("torus 4,4"),
		"bad spec 'torus 4,4': unknown family 'torus' (fat, thin, slender, varary, "
		"pruned, oversub, clique, gpu, superpod, cores, uneven, rails)");
	ck_assert_str_eq(gen_err("fat 4,3 drop-hosts=65"),
			 "bad spec 'fat 4,3 drop-hosts=65': cannot drop 65 hosts, there are 64");
	ck_assert_str_eq(gen_err("fat 4,3 colour=red"), "unknown option 'colour'");
	ck_assert_str_eq(gen_err("pruned 36,37"), "bad spec 'pruned 36,37': PODS must be 1..RADIX");
	ck_assert_str_eq(gen_err("varary 4,4:2,2"),
			 "bad spec 'varary 4,4:2,2': expected D0,D1,..:U0,..[:P0,..]");
	ck_assert_str_eq(gen_err("rails 9 fat 2,2"), "bad spec 'rails 9 fat 2,2': R must be 1..8");
	ck_assert_str_eq(gen_err("oversub 6,4,1,4"),
			 "bad spec 'oversub 6,4,1,4': not connected: leaves 0 and 1 share no spine "
			 "(round robin of 1 up-link over 4 spines needs more than half the spines "
			 "per leaf)");
	ck_assert_str_eq(gen_err("oversub 1,4,1,2"),
			 "bad spec 'oversub 1,4,1,2': not connected: spine 1 gets no up-link");
}
END_TEST

START_TEST(writer_form)
{
	vt_fabric *f = vt_test_gen("fat 2,2");
	size_t len;
	char *t = write_mem(f, &len);
	vt_err e;

	ck_assert_ptr_nonnull(
		strstr(t, "\nswitchguid=0x2c95000000000(2c95000000000)\n"
			  "Switch\t4 \"S-0002c95000000000\"\t\t# \"L0-S0000\" base port 0 "
			  "lid 1 lmc 0\n"
			  "[1]\t\"H-0002c91000000000\"[1](2c91000000001) \t\t# \"H-0000\" "
			  "lid 5 4xQDR\n"));
	ck_assert_ptr_nonnull(
		strstr(t, "\ncaguid=0x2c91000000030\n"
			  "Ca\t1 \"H-0002c91000000030\"\t\t# \"H-0003\"\n"
			  "[1](2c91000000031) \t\"S-0002c95000000001\"[2]\t\t# lid 8 lmc "
			  "0 \"L0-S0001\" lid 2 4xQDR\n"));
	free(t);
	free(f->nodes[0].desc != f->nodes[0].id ? f->nodes[0].desc : NULL);
	f->nodes[0].desc = strdup("a=b");
	ck_assert_int_eq(vt_fabric_write(f, stdout, &e), -1);
	ck_assert_str_eq(e.msg, "node \"S-0002c95000000000\": description contains '=', which "
				"ibsim reads as a port option");
	vt_fabric_free(f);
}
END_TEST

/* generate -> write -> load gives the same fabric: nodes, ports, GUIDs, LIDs, links, rates */
static void same_fabric(const vt_fabric *a, const vt_fabric *b)
{
	ck_assert_uint_eq(a->nnodes, b->nnodes);
	ck_assert_uint_eq(a->nswitches, b->nswitches);
	for (uint32_t n = 0; n < a->nnodes; n++) {
		const struct vt_node *x = &a->nodes[n];
		uint32_t m = vt_fabric_node_by_id(b, x->id);
		const struct vt_node *y;

		ck_assert_uint_ne(m, VT_NONE);
		y = &b->nodes[m];
		ck_assert_str_eq(x->desc, y->desc);
		ck_assert_uint_eq(x->guid, y->guid);
		ck_assert_uint_eq(x->type, y->type);
		ck_assert_uint_eq(x->nports, y->nports);
		for (unsigned p = 0; p <= x->nports; p++) {
			const struct vt_port *pa = vt_port(a, n, p), *pb = vt_port(b, m, p);

			ck_assert_uint_eq(pa->guid, pb->guid);
			ck_assert_uint_eq(pa->lid, pb->lid);
			ck_assert_uint_eq(pa->peer == VT_NONE, pb->peer == VT_NONE);
			if (pa->peer == VT_NONE)
				continue;
			ck_assert_str_eq(a->nodes[a->ports[pa->peer].node].id,
					 b->nodes[b->ports[pb->peer].node].id);
			ck_assert_uint_eq(a->ports[pa->peer].num, b->ports[pb->peer].num);
			ck_assert_uint_eq(pa->width, pb->width);
			ck_assert_uint_eq(pa->speed, pb->speed);
		}
	}
}

START_TEST(round_trip_through_loader)
{
	static const char *const specs[] = {
		"fat 4,3 drop-links=1@0 drop-hosts=2",
		"rails 2 thin 4:2,3 speed=EDR",
		"varary 4,4:2:2 width=12",
		"clique 8",
		"pruned 8,3",
		"slender 4:2,4 drop-switches=1@1",
	};
	const char *spec = specs[_i];
	vt_fabric *a = vt_test_gen(spec), *b = NULL;
	size_t len;
	char *t = write_mem(a, &len);
	vt_err e;

	if (vt_load_text_mem(t, len, spec, &b, &e))
		ck_abort_msg("%s: %s", spec, e.msg);
	same_fabric(a, b);
	same_fabric(b, a);
	free(t);
	vt_fabric_free(a);
	vt_fabric_free(b);
}
END_TEST

static Suite *gen_suite(void)
{
	Suite *s = suite_create("gen");
	TCase *tc = tcase_create("gen");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, navaridas_tables, 0, sizeof(table2) / sizeof(table2[0]));
	tcase_add_test(tc, bisection_links);
	tcase_add_test(tc, zahavi_table1);
	tcase_add_test(tc, definition1_adjacency);
	tcase_add_test(tc, slender_wiring);
	tcase_add_test(tc, pruned_fat_trees);
	tcase_add_test(tc, clique_sizes);
	tcase_add_test(tc, oversub_and_rails);
	tcase_add_test(tc, names_and_guids);
	tcase_add_test(tc, removals_exact_and_seeded);
	tcase_add_test(tc, bad_specs);
	tcase_add_test(tc, writer_form);
	tcase_add_loop_test(tc, round_trip_through_loader, 0, 6);
	suite_add_tcase(s, tc);
	return s;
}

VT_TEST_MAIN(gen_suite)
