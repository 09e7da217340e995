/* SPDX-License-Identifier: MIT */
/*
 * The real-fabric features of the generators (vt_gen_real.c): aggregation
 * nodes, directors, loop-backs, host-less leaves, storage HCAs on the top
 * switches, multi-PF adapters and the GPU preset, with exact counts, places,
 * names and GUIDs, seeded determinism, and a round trip through the loader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/vt_gen.h"
#include "io/vt_load.h"
#include "vt_test.h"
#include "io/vt_write.h"

#define AN "Mellanox Technologies Aggregation Node"

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

static uint32_t by_desc(const vt_fabric *f, const char *desc)
{
	for (uint32_t n = 0; n < f->nnodes; n++)
		if (!strcmp(f->nodes[n].desc, desc))
			return n;
	ck_abort_msg("no node \"%s\"", desc);
	return VT_NONE;
}

static uint32_t count_desc(const vt_fabric *f, const char *part)
{
	uint32_t c = 0;

	for (uint32_t n = 0; n < f->nnodes; n++)
		c += strstr(f->nodes[n].desc, part) != NULL;
	return c;
}

/* The node on the far side of a port, VT_NONE when unconnected. */
static uint32_t peer(const vt_fabric *f, uint32_t n, unsigned p)
{
	return vt_peer_node(f, vt_port_index(f, n, p));
}

static unsigned peer_port(const vt_fabric *f, uint32_t n, unsigned p)
{
	uint32_t q = vt_port(f, n, p)->peer;

	return q == VT_NONE ? 0 : f->ports[q].num;
}

static uint32_t loopbacks(const vt_fabric *f)
{
	uint32_t c = 0;

	for (uint32_t i = 0; i < f->nports; i++)
		c += f->ports[i].peer != VT_NONE && f->ports[i].peer > i &&
		     vt_peer_node(f, i) == f->ports[i].node;
	return c;
}

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

/* An aggregation node on the last port of every switch, with the switch's sysimgguid. */
START_TEST(aggregation_nodes)
{
	vt_fabric *f = vt_test_gen("fat 2,2 aggregation-nodes");
	struct vt_gen_stats st;
	size_t len;
	char *t;

	ck_assert_uint_eq(f->nswitches, 4);
	ck_assert_uint_eq(vt_fabric_count_cas(f), 4 + 4);
	ck_assert_uint_eq(vt_fabric_count_links(f), 8 + 4);
	ck_assert_uint_eq(count_desc(f, AN), 4);
	for (uint32_t i = 0; i < f->nswitches; i++) {
		uint32_t sw = f->switches[i], an;

		ck_assert_uint_eq(f->nodes[sw].nports, 5); /* 4 ports and one more */
		ck_assert_uint_eq(f->nodes[sw].devid, 0xcf08);
		an = peer(f, sw, 5);
		ck_assert_uint_ne(an, VT_NONE);
		ck_assert_str_eq(f->nodes[an].desc, AN);
		ck_assert_uint_eq(f->nodes[an].type, VT_CA);
		ck_assert_uint_eq(f->nodes[an].devid, 0xcf09);
		ck_assert_uint_eq(f->nodes[an].sysguid, f->nodes[sw].sysguid);
		ck_assert_uint_eq(f->nodes[an].guid, 0x0002c93000000000ull | (uint64_t)i << 4);
		ck_assert_uint_eq(vt_port(f, an, 1)->guid, f->nodes[an].guid + 1);
	}
	ck_assert_int_eq(vt_gen_stats(f, &st), 0);
	ck_assert_uint_eq(st.hosts, 4); /* aggregation nodes are not hosts */
	ck_assert_uint_eq(st.host_ports, 4);
	ck_assert_uint_eq(st.aggregation, 4);
	ck_assert_uint_eq(st.levels, 2); /* nor do they make every switch a leaf */
	ck_assert_uint_eq(st.bisection, 2);
	ck_assert_uint_eq(st.radix, 5);
	ck_assert_str_eq(f->nodes[f->switches[2]].desc, "L1-S0000");
	ck_assert_uint_eq(f->nodes[peer(f, f->switches[2], 5)].guid, 0x0002c93000000020ull);
	t = write_mem(f, &len);
	ck_assert_ptr_nonnull(strstr(t, "\nvendid=0x2c9\ndevid=0xcf09\nsysimgguid=0x2c95001000000\n"
					"caguid=0x2c93000000020\n"
					"Ca\t1 \"H-0002c93000000020\"\t\t# \"" AN "\"\n"
					"[1](2c93000000021) \t\"S-0002c95001000000\"[5]"));
	free(t);
	vt_fabric_free(f);
}
END_TEST

/* Storage HCAs round robin over the top switches: free ports first, then extra ports. */
START_TEST(storage_cas)
{
	vt_fabric *f = vt_test_gen("fat 4,3 spine-cas=3");
	uint32_t s1 = by_desc(f, "stor01 mlx5_0"), s3 = by_desc(f, "stor03 mlx5_0");

	ck_assert_uint_eq(vt_fabric_count_cas(f), 64 + 3);
	ck_assert_uint_eq(vt_fabric_count_links(f), 192 + 3);
	ck_assert_str_eq(f->nodes[peer(f, s1, 1)].desc, "L2-S0000");
	ck_assert_uint_eq(peer_port(f, s1, 1), 5); /* the top switch's first free port */
	ck_assert_str_eq(f->nodes[peer(f, s3, 1)].desc, "L2-S0002");
	ck_assert_uint_eq(f->nodes[s1].devid, 0x1017);
	ck_assert_uint_eq(f->nodes[peer(f, s1, 1)].nports, 8);
	vt_fabric_free(f);

	/* 5 HCAs on 2 top switches with 2 free ports each: the fifth needs a port more */
	f = vt_test_gen("fat 2,2 spine-cas=5");
	ck_assert_uint_eq(f->nodes[f->switches[2]].nports, 5);
	ck_assert_uint_eq(f->nodes[f->switches[3]].nports, 4);
	ck_assert_str_eq(f->nodes[peer(f, f->switches[2], 5)].desc, "stor05 mlx5_0");
	ck_assert_str_eq(f->nodes[peer(f, f->switches[3], 4)].desc, "stor04 mlx5_0");
	vt_fabric_free(f);

	/* dual-homed: one HCA, two ports, two different top switches */
	f = vt_test_gen("fat 2,2 spine-cas=1:dual aggregation-nodes");
	s1 = by_desc(f, "stor01 mlx5_0");
	ck_assert_uint_eq(f->nodes[s1].nports, 2);
	ck_assert_str_eq(f->nodes[peer(f, s1, 1)].desc, "L1-S0000");
	ck_assert_str_eq(f->nodes[peer(f, s1, 2)].desc, "L1-S0001");
	ck_assert_uint_eq(peer_port(f, s1, 1), 3);
	ck_assert_uint_eq(peer_port(f, s1, 2), 3);
	ck_assert_uint_eq(vt_port(f, s1, 2)->guid, f->nodes[s1].guid + 2);
	ck_assert_str_eq(f->nodes[peer(f, f->switches[2], 5)].desc, AN); /* still the last port */
	vt_fabric_free(f);
	ck_assert_str_eq(gen_err("fat 2,1 spine-cas=1:dual"),
			 "bad spec 'fat 2,1 spine-cas=1:dual': dual-homed storage HCAs need two "
			 "top switches");
}
END_TEST

/* k-ary-3-tree: the top two levels split into k complete bipartite groups, k chassis. */
START_TEST(directors)
{
	vt_fabric *f = vt_test_gen("fat 4,3 director=CS7500");
	uint32_t a = by_desc(f, "MF0;cs7500-01:CS7500/L01/U1");
	uint32_t b = by_desc(f, "MF0;cs7500-01:CS7500/S02/U2");
	uint32_t c = by_desc(f, "MF0;cs7500-02:CS7500/L01/U1");

	ck_assert_uint_eq(f->nswitches, 48);
	ck_assert_uint_eq(count_desc(f, "MF0;"), 32);
	for (unsigned k = 1; k <= 4; k++) {
		char name[32];

		snprintf(name, sizeof(name), "MF0;cs7500-%02u:", k);
		ck_assert_uint_eq(count_desc(f, name), 8);
	}
	ck_assert_uint_eq(count_desc(f, "/L02/U2"), 4);
	ck_assert_uint_eq(count_desc(f, "/S03/U1"), 0);
	ck_assert_uint_eq(f->nodes[a].sysguid, f->nodes[b].sysguid);
	ck_assert_uint_eq(f->nodes[a].sysguid, 0x0002c97000000010ull);
	ck_assert_uint_ne(f->nodes[a].sysguid, f->nodes[c].sysguid);
	ck_assert_uint_ne(f->nodes[a].sysguid, f->nodes[a].guid);
	ck_assert_uint_eq(f->nodes[a].devid, 0xcf08);
	ck_assert_uint_eq(f->nodes[by_desc(f, "L0-S0000")].devid, 0xcf08);
	/* a line ASIC links to every spine ASIC of its chassis only */
	for (unsigned p = 5; p <= 8; p++)
		ck_assert_ptr_nonnull(strstr(f->nodes[peer(f, a, p)].desc, "cs7500-01:CS7500/S"));
	vt_fabric_free(f);

	/* 4 levels: external leaves, a director in the middle, external spines */
	f = vt_test_gen("fat 2,4 director=cs8500@1");
	ck_assert_uint_eq(count_desc(f, "MF0;cs8500-"), 16);
	ck_assert_uint_eq(count_desc(f, "L0-S"), 8);
	ck_assert_uint_eq(count_desc(f, "L3-S"), 8);
	ck_assert_uint_eq(count_desc(f, ":CS8500/L"), 8);
	ck_assert_uint_eq(f->nodes[f->switches[0]].devid, 0xd2f0);
	vt_fabric_free(f);

	/* a 2-level tree is one director with its hosts on the line ASICs */
	f = vt_test_gen("oversub 4,8,2,2 director=CS8500");
	ck_assert_uint_eq(count_desc(f, "MF0;cs8500-01:CS8500/"), 6);
	ck_assert_str_eq(f->nodes[peer(f, by_desc(f, "H-0000"), 1)].desc,
			 "MF0;cs8500-01:CS8500/L01/U1");
	vt_fabric_free(f);
	ck_assert_str_eq(gen_err("clique 8 director=CS7500"),
			 "bad spec 'clique 8 director=CS7500': a director needs switch levels 0 "
			 "and 1, the tree has 1");
	ck_assert_str_eq(gen_err("fat 2,2 director=QM8700"),
			 "bad option 'director=QM8700': unknown model (CS7500, CS7510, CS7520, "
			 "CS8500)");
}
END_TEST

START_TEST(loopback_cables)
{
	vt_fabric *f = vt_test_gen("fat 4,3 loopbacks=3");
	uint32_t found = 0;

	ck_assert_uint_eq(loopbacks(f), 3);
	ck_assert_uint_eq(vt_fabric_count_links(f), 192 + 3);
	/* only the top switches have free ports: 4 each, paired 5-6 and 7-8 */
	for (uint32_t i = 0; i < f->nports; i++)
		if (f->ports[i].peer != VT_NONE && vt_peer_node(f, i) == f->ports[i].node) {
			const struct vt_node *nd = &f->nodes[f->ports[i].node];
			unsigned a = f->ports[i].num, b = f->ports[f->ports[i].peer].num;

			ck_assert_ptr_nonnull(strstr(nd->desc, "L2-"));
			ck_assert(a + b == 11 || a + b == 15);
			found++;
		}
	ck_assert_uint_eq(found, 6);
	vt_fabric_free(f);
	ck_assert_str_eq(gen_err("fat 2,2 loopbacks=3"),
			 "bad spec 'fat 2,2 loopbacks=3': cannot place 3 loop-backs, the switches "
			 "have 2 pairs of free ports");
	/* host-less leaves free their host ports for loop-backs */
	f = vt_test_gen("fat 2,2 hostless-leaves=1 loopbacks=3");
	ck_assert_uint_eq(loopbacks(f), 3);
	vt_fabric_free(f);
}
END_TEST

START_TEST(hostless_leaves)
{
	vt_fabric *f = vt_test_gen("fat 4,3 hostless-leaves=2 drop-hosts=3");
	uint32_t bare = 0;

	ck_assert_uint_eq(f->nswitches, 48);
	for (uint32_t i = 0; i < 16; i++) {
		uint32_t sw = f->switches[i], cas = 0;

		for (unsigned p = 1; p <= 4; p++)
			cas += peer(f, sw, p) != VT_NONE;
		bare += cas == 0;
		ck_assert_uint_eq(peer(f, sw, 5) != VT_NONE, 1); /* up-links stay */
	}
	ck_assert_uint_eq(bare, 2);
	/* 3 dropped hosts, some may sit on the host-less leaves: between 55 and 58 remain */
	ck_assert_uint_ge(vt_fabric_count_cas(f), 64 - 8 - 3);
	ck_assert_uint_le(vt_fabric_count_cas(f), 64 - 8);
	vt_fabric_free(f);
	f = vt_test_gen("fat 4,3 hostless-leaves=2");
	ck_assert_uint_eq(vt_fabric_count_cas(f), 56);
	vt_fabric_free(f);
	ck_assert_str_eq(gen_err("fat 2,2 hostless-leaves=3"),
			 "bad spec 'fat 2,2 hostless-leaves=3': cannot make 3 leaves host-less, 2 "
			 "have hosts");
}
END_TEST

/* Multi-PF: node GUID = port GUID, the PFs of an adapter consecutive. */
START_TEST(multi_pf)
{
	vt_fabric *f = vt_test_gen("fat 2,2 multi-pf");
	uint32_t a = by_desc(f, "node0001 mlx5_0"), b = by_desc(f, "node0001 mlx5_1");

	ck_assert_uint_eq(vt_fabric_count_cas(f), 4);
	ck_assert_uint_eq(f->nodes[a].guid, 0x0002c91000000010ull);
	ck_assert_uint_eq(f->nodes[b].guid, 0x0002c91000000011ull);
	for (uint32_t n = 0; n < f->nnodes; n++)
		if (f->nodes[n].type == VT_CA)
			ck_assert_uint_eq(vt_port(f, n, 1)->guid, f->nodes[n].guid);
	ck_assert_uint_eq(vt_fabric_port_by_guid(f, 0x0002c91000000011ull), vt_port_index(f, b, 1));
	vt_fabric_free(f);
	/* multi-rail hosts: each port its own PF node */
	f = vt_test_gen("rails 2 fat 2,2 multi-pf");
	ck_assert_uint_eq(vt_fabric_count_cas(f), 8);
	a = by_desc(f, "node0003 mlx5_1");
	ck_assert_uint_eq(f->nodes[a].nports, 1);
	ck_assert_uint_eq(f->nodes[a].guid, 0x0002c91000000031ull);
	ck_assert_str_eq(f->nodes[peer(f, a, 1)].desc, "P1-L0-S0001");
	vt_fabric_free(f);
}
END_TEST

/* gpu 4: 80 nodes x 4 HCAs on rail leaves, 48 40-port switches, 48 aggregation nodes. */
START_TEST(gpu_preset)
{
	vt_fabric *f = vt_test_gen("gpu");
	uint32_t h;

	ck_assert_uint_eq(f->nswitches, 48);
	ck_assert_uint_eq(vt_fabric_count_cas(f), 320 + 48 + 4);
	ck_assert_uint_eq(vt_fabric_count_links(f), 320 * 3 + 48 + 4);
	ck_assert_uint_eq(count_desc(f, AN), 48);
	ck_assert_uint_eq(count_desc(f, "mgmt0"), 4);
	for (uint32_t i = 0; i < f->nswitches; i++) {
		ck_assert_uint_eq(f->nodes[f->switches[i]].nports, 41);
		ck_assert_uint_eq(f->nodes[f->switches[i]].devid, 0xd2f0);
	}
	/* node 17 of pod 0: HCA r on leaf r, port 18; node 25 is node 5 of pod 1 */
	for (unsigned r = 0; r < 4; r++) {
		char name[32];

		snprintf(name, sizeof(name), "gpu017 mlx5_%u", r);
		h = by_desc(f, name);
		ck_assert_uint_eq(peer(f, h, 1), f->switches[r]);
		ck_assert_uint_eq(peer_port(f, h, 1), 18);
		ck_assert_uint_eq(vt_port(f, h, 1)->speed, VT_HDR);
	}
	ck_assert_uint_eq(peer(f, by_desc(f, "gpu025 mlx5_2"), 1), f->switches[6]);
	/* management HCAs on the top switches' free ports (20 used of 40) */
	h = by_desc(f, "mgmt02 mlx5_0");
	ck_assert_str_eq(f->nodes[peer(f, h, 1)].desc, "L2-S0001");
	ck_assert_uint_eq(peer_port(f, h, 1), 21);
	vt_fabric_free(f);
	f = vt_test_gen("gpu 2 multi-pf");
	h = by_desc(f, "gpu033 mlx5_3");
	ck_assert_uint_eq(f->nodes[h].guid, 0x0002c91000000333ull);
	ck_assert_uint_eq(vt_port(f, h, 1)->guid, f->nodes[h].guid);
	vt_fabric_free(f);
	ck_assert_str_eq(gen_err("gpu 9"), "bad spec 'gpu 9': expected gpu [PODS], PODS 1..8");
}
END_TEST

/* Every feature with every removal: the same seed gives the same file, another seed not. */
START_TEST(combined_and_seeded)
{
	static const char spec[] = "fat 4,3 aggregation-nodes director=CS7500 spine-cas=2:dual "
				   "loopbacks=4 hostless-leaves=2 drop-switches=1 drop-hosts=3 "
				   "drop-links=2@0 seed=";
	char sa[sizeof(spec) + 4], sb[sizeof(spec) + 4];
	vt_fabric *a, *b, *c;
	char *ta, *tb, *tc;
	size_t la, lb, lc;

	snprintf(sa, sizeof(sa), "%s7", spec);
	snprintf(sb, sizeof(sb), "%s8", spec);
	a = vt_test_gen(sa);
	b = vt_test_gen(sa);
	c = vt_test_gen(sb);
	ck_assert_uint_eq(a->nswitches, 47);
	ck_assert_uint_eq(count_desc(a, AN), 47);
	ck_assert_uint_eq(loopbacks(a), 4);
	ck_assert_uint_eq(count_desc(a, "stor0"), 2);
	ck_assert_uint_eq(count_desc(a, "MF0;cs7500-"), 31);
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

/* The written file loads back with the same nodes, ports, GUIDs, sysimgguids and links. */
START_TEST(round_trip_through_loader)
{
	static const char *const specs[] = {
		"fat 4,3 aggregation-nodes spine-cas=3:dual loopbacks=2 hostless-leaves=1",
		"fat 2,4 director=CS7500@1 aggregation-nodes",
		"gpu 1",
		"rails 2 fat 2,3 multi-pf drop-hosts=1",
	};
	vt_fabric *a = vt_test_gen(specs[_i]), *b = NULL;
	size_t len;
	char *t = write_mem(a, &len);
	vt_err e;

	if (vt_load_text_mem(t, len, specs[_i], &b, &e))
		ck_abort_msg("%s: %s", specs[_i], e.msg);
	ck_assert_uint_eq(a->nnodes, b->nnodes);
	ck_assert_uint_eq(a->nswitches, b->nswitches);
	ck_assert_uint_eq(vt_fabric_count_links(a), vt_fabric_count_links(b));
	for (uint32_t n = 0; n < a->nnodes; n++) {
		uint32_t m = vt_fabric_node_by_id(b, a->nodes[n].id);

		ck_assert_uint_ne(m, VT_NONE);
		ck_assert_str_eq(a->nodes[n].desc, b->nodes[m].desc);
		ck_assert_uint_eq(a->nodes[n].guid, b->nodes[m].guid);
		ck_assert_uint_eq(a->nodes[n].sysguid, b->nodes[m].sysguid);
		ck_assert_uint_eq(a->nodes[n].nports, b->nodes[m].nports);
		for (unsigned p = 1; p <= a->nodes[n].nports; p++) {
			ck_assert_uint_eq(vt_port(a, n, p)->guid, vt_port(b, m, p)->guid);
			ck_assert_uint_eq(vt_port(a, n, p)->lid, vt_port(b, m, p)->lid);
			ck_assert_uint_eq(peer_port(a, n, p), peer_port(b, m, p));
		}
	}
	free(t);
	vt_fabric_free(a);
	vt_fabric_free(b);
}
END_TEST

/* Seeds 1..24 of degraded trees with every feature: the invariants hold on each. */
START_TEST(seeded_invariants)
{
	char spec[200];
	vt_fabric *f;
	uint32_t ans = 0, stor = 0;

	snprintf(spec, sizeof(spec),
		 "%s aggregation-nodes spine-cas=3:dual loopbacks=2 hostless-leaves=1 "
		 "drop-switches=1@1 drop-links=2 drop-hosts=2 seed=%d",
		 _i % 2 ? "varary 4,4,2:4,2:1,2" : "fat 4,3", _i + 1);
	f = vt_test_gen(spec);
	ck_assert_uint_eq(loopbacks(f), 2);
	for (uint32_t n = 0; n < f->nnodes; n++) {
		const struct vt_node *nd = &f->nodes[n];

		if (nd->type == VT_SWITCH) {
			uint32_t an = peer(f, n, nd->nports);

			ck_assert_uint_ne(an, VT_NONE);
			ck_assert_str_eq(f->nodes[an].desc, AN);
			ck_assert_uint_eq(f->nodes[an].sysguid, nd->sysguid);
		} else if (!strcmp(nd->desc, AN)) {
			ans++;
		} else if (!strncmp(nd->desc, "stor", 4)) {
			/* two ports on two different top switches (level 2) */
			ck_assert_uint_ne(peer(f, n, 1), peer(f, n, 2));
			ck_assert_ptr_nonnull(strstr(f->nodes[peer(f, n, 1)].desc, "L2-"));
			ck_assert_ptr_nonnull(strstr(f->nodes[peer(f, n, 2)].desc, "L2-"));
			stor++;
		} else {
			ck_assert_ptr_nonnull(strstr(f->nodes[peer(f, n, 1)].desc, "L0-"));
		}
	}
	ck_assert_uint_eq(ans, f->nswitches);
	ck_assert_uint_eq(stor, 3);
	vt_fabric_free(f);
}
END_TEST

START_TEST(option_words)
{
	struct vt_gen_spec s;
	vt_err e;

	ck_assert_int_eq(vt_gen_parse(&s, "gpu aggregation-nodes=0 multi-pf", &e), 0);
	ck_assert_uint_eq(s.family, VT_GEN_GPU);
	ck_assert_uint_eq(s.down[2], 4);
	ck_assert_uint_eq(s.aggregation, 0);
	ck_assert_uint_eq(s.multi_pf, 1);
	ck_assert_int_eq(vt_gen_option(&s, "--spine-cas=7:dual", &e), 0);
	ck_assert_uint_eq(s.spine_cas, 7);
	ck_assert_uint_eq(s.spine_dual, 1);
	ck_assert_int_eq(vt_gen_option(&s, "spine-cas=2:triple", &e), -1);
	ck_assert_str_eq(e.msg, "bad option 'spine-cas=2:triple': expected N[:dual]");
	ck_assert_int_eq(vt_gen_option(&s, "loopbacks", &e), -1);
	ck_assert_str_eq(e.msg, "bad option 'loopbacks': expected NAME=VALUE");
	ck_assert_int_eq(vt_gen_option(&s, "multi-pf=2", &e), -1);
	ck_assert_str_eq(e.msg, "bad option 'multi-pf=2': expected 0 or 1");
	ck_assert_str_eq(
		gen_err("rails 2 gpu"),
		"bad spec 'rails 2 gpu': a GPU cluster has its rails on leaves, not planes");
}
END_TEST

static Suite *gen_real_suite(void)
{
	Suite *s = suite_create("gen_real");
	TCase *tc = tcase_create("gen_real");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, aggregation_nodes);
	tcase_add_test(tc, storage_cas);
	tcase_add_test(tc, directors);
	tcase_add_test(tc, loopback_cables);
	tcase_add_test(tc, hostless_leaves);
	tcase_add_test(tc, multi_pf);
	tcase_add_test(tc, gpu_preset);
	tcase_add_test(tc, combined_and_seeded);
	tcase_add_loop_test(tc, round_trip_through_loader, 0, 4);
	tcase_add_loop_test(tc, seeded_invariants, 0, 24);
	tcase_add_test(tc, option_words);
	suite_add_tcase(s, tc);
	return s;
}

VT_TEST_MAIN(gen_real_suite)
