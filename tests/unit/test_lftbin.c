/* SPDX-License-Identifier: MIT */
/*
 * vartree's binary table file: the exact bytes of a small fabric's file, a
 * round trip that reads back every entry of routed fabrics (LMC 0 and 1) the
 * same as the opensm-lfts.dump text does, and each refusal with its message.
 */
#include "io/vt_lftio.h"
#include "io/vt_lftbin.h"
#include "model/vt_order.h"
#include "route/vt_route.h"
#include "vt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct buf {
	char *p;
	size_t n;
};

static void route(const vt_fabric *f, vt_lfts *t)
{
	struct vt_route_opts ro = {0};
	vt_order order = {0};
	vt_err e;

	ck_assert_msg(vt_route(f, &ro, t, &order, &e) == 0, "%s", e.msg);
	vt_order_free(&order);
}

static struct buf write_with(int binary, const vt_lfts *t, const vt_fabric *f)
{
	struct buf b = {0};
	FILE *fp = open_memstream(&b.p, &b.n);
	vt_err e;

	ck_assert_ptr_nonnull(fp);
	ck_assert_msg((binary ? vt_lfts_write_bin(t, f, fp, &e) : vt_lfts_write(t, f, fp, &e)) == 0,
		      "%s", e.msg);
	ck_assert_int_eq(fclose(fp), 0);
	return b;
}

static void same_tables(const vt_lfts *a, const vt_lfts *b)
{
	ck_assert_uint_eq(a->nsw, b->nsw);
	ck_assert_uint_eq(a->nlid, b->nlid);
	ck_assert_int_eq(memcmp(a->port, b->port, (size_t)a->nsw * a->nlid), 0);
}

/* Routed, written both ways, read back both ways: every entry equal. */
static void round_trip(const char *spec, unsigned lmc)
{
	vt_fabric *f = vt_test_gen(spec);
	vt_lfts t = {0}, fromtext = {0}, frombin = {0};
	struct buf text, bin;
	vt_err e;

	if (lmc) {
		for (uint32_t q = 0; q < f->nports; q++)
			if (f->nodes[f->ports[q].node].type != VT_SWITCH)
				f->ports[q].lid = 0;
		ck_assert_msg(vt_fabric_finish(f, lmc, &e) == 0, "%s", e.msg);
	}
	route(f, &t);
	text = write_with(0, &t, f);
	bin = write_with(1, &t, f);
	ck_assert_uint_eq(bin.n, 16 + (size_t)t.nsw * (8 + t.nlid));
	ck_assert_msg(vt_lfts_read_mem(&fromtext, f, text.p, text.n, "text", &e) == 0, "%s", e.msg);
	ck_assert_msg(vt_lfts_read_mem(&frombin, f, bin.p, bin.n, "bin", &e) == 0, "%s", e.msg);
	same_tables(&t, &frombin);
	same_tables(&fromtext, &frombin);
	vt_lfts_free(&t);
	vt_lfts_free(&fromtext);
	vt_lfts_free(&frombin);
	free(text.p);
	free(bin.p);
	vt_fabric_free(f);
}

START_TEST(round_trips)
{
	round_trip("fat 4,3", 0);
	round_trip("pruned 8,3", 1);
	round_trip("thin 4:2,3 drop-links=2@1", 0);
}
END_TEST

/* The layout of vt_lftio.h, byte for byte, on fat 2,2 (4 switches, LIDs 0..8). */
START_TEST(exact_bytes)
{
	vt_fabric *f = vt_test_gen("fat 2,2");
	vt_lfts t = {0};
	struct buf b;
	uint64_t prev = 0;

	route(f, &t);
	b = write_with(1, &t, f);
	ck_assert_int_eq(memcmp(b.p, "VTLFTB1\n", 8), 0);
	ck_assert_uint_eq((unsigned char)b.p[8], 4); /* switches, little-endian */
	ck_assert_int_eq(memcmp(b.p + 9, "\0\0\0", 3), 0);
	ck_assert_uint_eq((unsigned char)b.p[12], f->max_lid + 1);
	ck_assert_uint_eq(b.n, 16 + 4 * (8 + f->max_lid + 1));
	for (uint32_t i = 0; i < 4; i++) {
		const unsigned char *rec =
			(const unsigned char *)b.p + 16 + i * (8 + f->max_lid + 1);
		uint64_t g = 0;
		uint32_t node, sw;

		for (int k = 7; k >= 0; k--)
			g = g << 8 | rec[k];
		ck_assert_uint_gt(g, prev); /* GUID order */
		prev = g;
		node = vt_fabric_node_by_guid(f, g);
		ck_assert_uint_ne(node, VT_NONE);
		sw = f->nodes[node].sw;
		for (uint32_t lid = 0; lid <= f->max_lid; lid++)
			ck_assert_uint_eq(rec[8 + lid], vt_lft_get(&t, sw, lid));
	}
	vt_lfts_free(&t);
	free(b.p);
	vt_fabric_free(f);
}
END_TEST

static void refused(const vt_fabric *f, const char *p, size_t n, const char *want)
{
	vt_lfts t = {0};
	vt_err e;

	ck_assert_int_eq(vt_lfts_read_mem(&t, f, p, n, "x.bin", &e), -1);
	ck_assert_msg(strstr(e.msg, want) != NULL, "got '%s', want '%s'", e.msg, want);
	ck_assert_ptr_null(t.port);
}

START_TEST(errors)
{
	vt_fabric *f = vt_test_gen("fat 2,2");
	vt_lfts t = {0};
	struct buf b;
	char *bad;
	size_t rec = 8 + f->max_lid + 1;

	route(f, &t);
	b = write_with(1, &t, f);
	bad = malloc(b.n);
	refused(f, b.p, b.n - 1,
		"x.bin: 83 bytes, but its header announces 4 switches x 9 LIDs "
		"(84 bytes): truncated or not a table file");
	refused(f, b.p, 12, "x.bin: not a vartree binary table file");
	memcpy(bad, b.p, b.n);
	bad[16] ^= 0x7f; /* first switch's GUID */
	refused(f, bad, b.n, "x.bin: byte 16: switch GUID 0x");
	refused(f, bad, b.n, "is not a switch of the fabric");
	memcpy(bad, b.p, b.n);
	memcpy(bad + 16 + rec, bad + 16, 8); /* second record names the first switch */
	refused(f, bad, b.n, "x.bin: byte 33: switch GUID");
	refused(f, bad, b.n, "listed twice");
	memcpy(bad, b.p, b.n);
	bad[16 + 8 + 3] = 9; /* LID 3 of the first switch: port 9 of a 4-port switch */
	refused(f, bad, b.n, "x.bin: byte 27: LID 0x0003: port 9 beyond the 4 ports of switch");
	vt_lfts_free(&t);
	free(bad);
	free(b.p);
	vt_fabric_free(f);
}
END_TEST

static Suite *lftbin_suite(void)
{
	Suite *s = suite_create("lftbin");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, round_trips);
	tcase_add_test(tc, exact_bytes);
	tcase_add_test(tc, errors);
	suite_add_tcase(s, tc);
	return s;
}

VT_TEST_MAIN(lftbin_suite)
