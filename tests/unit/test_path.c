/* SPDX-License-Identifier: MIT */
/* vt_path: walks through hand-broken tables end where and why they should; vt_json keeps UTF-8
 * valid. */
#include "out/vt_json.h"
#include "analysis/vt_path.h"
#include "route/vt_route.h"
#include "vt_test.h"

#include <string.h>

struct routed {
	vt_fabric *f;
	vt_lfts t;
	vt_order o;
};

static void route(struct routed *r, const char *spec)
{
	struct vt_route_opts ro = {0};
	vt_err e;

	r->f = vt_test_gen(spec);
	ck_assert_int_eq(vt_route(r->f, &ro, &r->t, &r->o, &e), 0);
}

static void unroute(struct routed *r)
{
	vt_lfts_free(&r->t);
	vt_order_free(&r->o);
	vt_fabric_free(r->f);
}

START_TEST(walk_ends)
{
	struct routed r;
	struct vt_path p;
	vt_err e;
	uint32_t src, dst, slid, dlid;

	route(&r, "fat 2,3");
	ck_assert_int_eq(vt_addr_resolve(r.f, &r.o, VT_ADDR_RANK, "0", &src, &slid, &e), 0);
	ck_assert_int_eq(vt_addr_resolve(r.f, &r.o, VT_ADDR_RANK, "7", &dst, &dlid, &e), 0);
	/* a 3-level tree: up 2, down 2, plus the two host links */
	ck_assert_int_eq(vt_path_walk(r.f, &r.t, src, dlid, &p, &e), 0);
	ck_assert_int_eq(p.end, VT_PATH_OK);
	ck_assert_uint_eq(p.nhops, 6);
	ck_assert_uint_eq(p.hop[0], src);
	ck_assert_uint_eq(r.f->ports[p.hop[5]].peer, dst);
	/* the second switch sends the LID back where it came from: a loop, found there */
	uint32_t s2 = r.f->ports[p.hop[2]].peer;
	uint8_t back = r.f->ports[s2].num;
	uint32_t sw2 = r.f->nodes[r.f->ports[s2].node].sw;
	vt_lft_set(&r.t, sw2, dlid, back);
	vt_path_free(&p);
	ck_assert_int_eq(vt_path_walk(r.f, &r.t, src, dlid, &p, &e), 0);
	ck_assert_int_eq(p.end, VT_PATH_LOOP);
	ck_assert_uint_eq(p.nhops, r.f->nswitches + 1);
	/* no entry, a port beyond the switch, a port with no cable */
	vt_lft_set(&r.t, sw2, dlid, VT_LFT_NONE);
	vt_path_free(&p);
	ck_assert_int_eq(vt_path_walk(r.f, &r.t, src, dlid, &p, &e), 0);
	ck_assert_int_eq(p.end, VT_PATH_NO_ENTRY);
	ck_assert_uint_eq(p.end_node, r.f->ports[s2].node);
	vt_lft_set(&r.t, sw2, dlid, 9);
	vt_path_free(&p);
	ck_assert_int_eq(vt_path_walk(r.f, &r.t, src, dlid, &p, &e), 0);
	ck_assert_int_eq(p.end, VT_PATH_BAD_PORT);
	ck_assert_uint_eq(p.end_port, 9);
	vt_path_free(&p);
	unroute(&r);
}
END_TEST

START_TEST(via_matches_walks)
{
	struct routed r;
	vt_routes rt;
	vt_err e;
	uint8_t *via;

	route(&r, "fat 4,2");
	ck_assert_int_eq(vt_routes_build(&rt, r.f, &r.t, &r.o, &e), 0);
	/* every channel with a switch at one end: the pairs via says cross it are those whose walk
	 * does */
	for (uint32_t c = 0; c < r.f->nports; c++) {
		if (r.f->ports[c].peer == VT_NONE)
			continue;
		ck_assert_int_eq(vt_path_via(&rt, c, &via, &e), 0);
		for (uint32_t a = 0; a < r.o.n; a++)
			for (uint32_t b = 0; b < r.o.n; b++) {
				struct vt_path p;
				int on = 0;
				if (a == b)
					continue;
				ck_assert_int_eq(vt_path_walk(r.f, &r.t, r.o.port[a],
							      r.f->ports[r.o.port[b]].lid, &p, &e),
						 0);
				ck_assert_int_eq(p.end, VT_PATH_OK);
				for (uint32_t h = 0; h < p.nhops; h++)
					on |= p.hop[h] == c;
				ck_assert_int_eq(vt_path_crosses(&rt, via, c, a, b), on);
				vt_path_free(&p);
			}
		free(via);
	}
	vt_routes_free(&rt);
	unroute(&r);
}
END_TEST

START_TEST(json_utf8)
{
	json_t *v = vt_json_text("caf\xe9 \xc3\xa9 \xed\xa0\x80 \xf0\x9f\x98\x80 \"q\"");
	char *s = json_dumps(v, JSON_ENCODE_ANY);

	/* 0xE9 alone and a UTF-16 surrogate (3 bytes) become U+FFFD each; valid sequences stay */
	ck_assert_str_eq(s, "\"caf\xef\xbf\xbd \xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd "
			    "\xf0\x9f\x98\x80 \\\"q\\\"\"");
	free(s);
	json_decref(v);
}
END_TEST

static Suite *path_suite(void)
{
	Suite *s = suite_create("path");
	TCase *tc = tcase_create("path");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, walk_ends);
	tcase_add_test(tc, via_matches_walks);
	tcase_add_test(tc, json_utf8);
	suite_add_tcase(s, tc);
	return s;
}

VT_TEST_MAIN(path_suite)
