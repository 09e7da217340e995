/* SPDX-License-Identifier: MIT */
#include "model/vt_order.h"
#include "vt_test.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* switches "S10" and "S2" (record order), hosts: S10 has h-c,h-d; S2 has h-a,h-b */
static vt_fabric *two_leaves(void)
{
	vt_fabric *f = vt_fabric_new("two");
	uint32_t s10, s2, h[4];
	const char *names[4] = {"h-a", "h-b", "h-c", "h-d"};
	vt_err e;

	ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 4, 0x10, "S10", NULL, &s10, &e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 4, 0x20, "S2", NULL, &s2, &e), 0);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(
			vt_fabric_add_node(f, VT_CA, 1, 0x100 + i, names[i], NULL, &h[i], &e), 0);
		vt_port(f, h[i], 1)->guid = 0x200 + i;
	}
	ck_assert_int_eq(vt_fabric_connect(f, s2, 2, h[1], 1, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, s2, 1, h[0], 1, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, s10, 1, h[2], 1, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, s10, 2, h[3], 1, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, s10, 4, s2, 4, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_finish(f, 0, &e), 0);
	return f;
}

static const char *rank_name(const vt_fabric *f, const vt_order *o, uint32_t i)
{
	return o->port[i] == VT_NONE ? "DUMMY" : f->nodes[f->ports[o->port[i]].node].id;
}

START_TEST(leaf_order_is_natural)
{
	vt_fabric *f = two_leaves();
	vt_order o;
	vt_err e;

	ck_assert_int_eq(vt_order_leaf(&o, f, &e), 0);
	ck_assert_uint_eq(o.n, 4);
	/* S2 before S10 (numbers compare as numbers), ports in port order */
	ck_assert_str_eq(rank_name(f, &o, 0), "h-a");
	ck_assert_str_eq(rank_name(f, &o, 1), "h-b");
	ck_assert_str_eq(rank_name(f, &o, 2), "h-c");
	ck_assert_str_eq(rank_name(f, &o, 3), "h-d");
	vt_order_free(&o);
	vt_fabric_free(f);
}
END_TEST

/* A SHArP aggregation node (on S2 port 3, by its description) runs no ranks. */
START_TEST(leaf_order_skips_aggregation_nodes)
{
	vt_fabric *f = vt_fabric_new("an");
	uint32_t s, h, an;
	vt_order o;
	vt_err e;

	ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 4, 0x10, "S2", NULL, &s, &e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_CA, 1, 0x100, "h-a", NULL, &h, &e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_CA, 1, 0x101, "an",
					    "Mellanox Technologies Aggregation Node", &an, &e),
			 0);
	ck_assert_int_eq(vt_fabric_connect(f, s, 3, an, 1, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, s, 1, h, 1, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_finish(f, 0, &e), 0);
	ck_assert_int_eq(vt_order_leaf(&o, f, &e), 0);
	ck_assert_uint_eq(o.n, 1);
	ck_assert_str_eq(rank_name(f, &o, 0), "h-a");
	vt_order_free(&o);
	vt_fabric_free(f);
}
END_TEST

static const char *write_tmp(const char *text)
{
	static char path[64];
	FILE *fp;

	snprintf(path, sizeof(path), "/tmp/vt-order-%d.txt", (int)getpid());
	fp = fopen(path, "w");
	fputs(text, fp);
	fclose(fp);
	return path;
}

START_TEST(dump_form_written_and_read_back)
{
	vt_fabric *f = two_leaves();
	vt_order o, r;
	char buf[256] = {0};
	FILE *fp = fmemopen(buf, sizeof(buf) - 1, "w");
	vt_err e;

	ck_assert_int_eq(vt_order_leaf(&o, f, &e), 0);
	o.port[1] = VT_NONE; /* a place-keeper */
	ck_assert_int_eq(vt_order_write(&o, f, fp, &e), 0);
	fclose(fp);
	/* LIDs: switches 1, 2; CAs 3.. in record order: h-a 3, h-b 4, h-c 5, h-d 6 */
	ck_assert_str_eq(buf, "0x0003\th-a\n0xFFFF\tDUMMY\n0x0005\th-c\n0x0006\th-d\n");
	ck_assert_int_eq(vt_order_read(&r, f, write_tmp(buf), &e), 0);
	ck_assert_uint_eq(r.n, 4);
	ck_assert_uint_eq(r.port[1], VT_NONE);
	ck_assert_str_eq(rank_name(f, &r, 3), "h-d");
	vt_order_free(&r);
	vt_order_free(&o);
	unlink(write_tmp(""));
	vt_fabric_free(f);
}
END_TEST

START_TEST(plain_list_and_unknown_name)
{
	vt_fabric *f = two_leaves();
	vt_order r;
	vt_err e;
	const char *p = write_tmp("# comment\nh-d\n0x0000000000000201\n\nh-zz\n");

	ck_assert_int_eq(vt_order_read(&r, f, p, &e), -1);
	{
		char want[128];

		snprintf(want, sizeof(want), "%s:5: unknown node \"h-zz\"", p);
		ck_assert_str_eq(e.msg, want);
	}
	p = write_tmp("h-d\n0x0000000000000201\n");
	ck_assert_int_eq(vt_order_read(&r, f, p, &e), 0);
	ck_assert_uint_eq(r.n, 2);
	ck_assert_str_eq(rank_name(f, &r, 0), "h-d");
	ck_assert_str_eq(rank_name(f, &r, 1), "h-b");
	vt_order_free(&r);
	/* a NUL byte used to end the list there without a word */
	p = write_tmp("h-d\n");
	{
		FILE *fp = fopen(p, "a");

		fputc('\0', fp);
		fputs("h-b\n", fp);
		fclose(fp);
	}
	ck_assert_int_eq(vt_order_read(&r, f, p, &e), -1);
	{
		char want[128];

		snprintf(want, sizeof(want), "%s:2: NUL byte, not a text file", p);
		ck_assert_str_eq(e.msg, want);
	}
	unlink(p);
	vt_fabric_free(f);
}
END_TEST

START_TEST(shuffle_is_seeded)
{
	vt_fabric *f = two_leaves();
	vt_order a, b;
	vt_err e;

	ck_assert_int_eq(vt_order_leaf(&a, f, &e), 0);
	ck_assert_int_eq(vt_order_leaf(&b, f, &e), 0);
	vt_order_shuffle(&a, 7);
	vt_order_shuffle(&b, 7);
	ck_assert_mem_eq(a.port, b.port, 4 * sizeof(uint32_t));
	vt_order_free(&a);
	vt_order_free(&b);
	vt_fabric_free(f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("order");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, leaf_order_is_natural);
	tcase_add_test(tc, leaf_order_skips_aggregation_nodes);
	tcase_add_test(tc, dump_form_written_and_read_back);
	tcase_add_test(tc, plain_list_and_unknown_name);
	tcase_add_test(tc, shuffle_is_seeded);
	suite_add_tcase(s, tc);
	return s;
}

VT_TEST_MAIN(suite)
