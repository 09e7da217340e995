/* SPDX-License-Identifier: MIT */
/*
 * Forwarding-table audits on a 2-ary-2-tree (hosts 0,1 on leaf A, 2,3 on
 * leaf B, spines X, Y) with tables written here: each audit catches the
 * table broken for it, names the first offending switch and LID, and passes
 * the good table.
 */
#include <string.h>

#include "vt_audit.h"
#include "vt_gen.h"
#include "vt_k22.h"
#include "vt_test.h"
#include "vt_trace.h"

static void audit_one(struct vt_k22 *x, enum vt_audit_kind want, uint32_t sw_node, int h)
{
	vt_audit a;
	vt_err e = {{0}};

	ck_assert_int_eq(vt_audit_run(x->f, &x->t, &a, &e), 0);
	for (int k = 0; k < VT_AUDIT_NKINDS; k++)
		if (k != (int)want)
			ck_assert_msg(a.item[k].count == 0, "%s: %s", vt_audit_name(k),
				      a.item[k].detail);
	ck_assert_msg(a.item[want].count > 0, "%s not found", vt_audit_name(want));
	ck_assert_uint_eq(a.item[want].sw, x->f->nodes[sw_node].sw);
	ck_assert_uint_eq(a.item[want].lid, vt_k22_lid(x, h));
}

START_TEST(audits)
{
	struct vt_k22 x;
	vt_audit a;
	vt_err e = {{0}};

	vt_k22_setup(&x);
	ck_assert_int_eq(vt_audit_run(x.f, &x.t, &a, &e), 0);
	ck_assert_uint_eq(vt_audit_failed(&a), 0);
	/* no entry on spine X for host 2 */
	vt_lft_set(&x.t, x.f->nodes[x.spine[0]].sw, vt_k22_lid(&x, 2), VT_LFT_NONE);
	audit_one(&x, VT_AUDIT_UNREACHABLE, x.spine[0], 2);
	vt_k22_teardown(&x);
	/* spine X sends host 2's LID back down to leaf A: loop A -> X -> A */
	vt_k22_setup(&x);
	vt_k22_set(&x, x.spine[0], 2, x.leaf[0]);
	audit_one(&x, VT_AUDIT_LOOP, x.leaf[0], 2);
	vt_k22_teardown(&x);
	/* leaf B hands host 2's LID to host 3 */
	vt_k22_setup(&x);
	vt_k22_set(&x, x.leaf[1], 2, x.host[3]);
	audit_one(&x, VT_AUDIT_MISDELIVERY, x.leaf[1], 2);
	vt_k22_teardown(&x);
	/* leaf A goes up via Y for host 2, and spine X detours down through A: X -> A -> Y -> B.
	 * No CA's path reaches X for host 2, so that detour carries nothing and passes. */
	vt_k22_setup(&x);
	vt_k22_set(&x, x.leaf[0], 2, x.spine[1]);
	vt_k22_set(&x, x.spine[0], 2, x.leaf[0]);
	ck_assert_int_eq(vt_audit_run(x.f, &x.t, &a, &e), 0);
	ck_assert_uint_eq(vt_audit_failed(&a), 0);
	vt_k22_teardown(&x);
}
END_TEST

/*
 * A non-minimal hop on a CA's path: leaves L0, L1 both under M0 and M1, and
 * T above M0 and M1. Host h0 (on L0) reaches h1 (on L1) by L0 -> M0 -> T ->
 * M1 -> L1, where M0 -> L1 would do: M0 is the first offender.
 */
START_TEST(nonminimal_on_ca_path)
{
	vt_err e = {{0}};
	vt_fabric *f = vt_fabric_new("detour");
	uint32_t l0, l1, m0, m1, t, h0, h1;
	vt_lfts lf;
	vt_audit a;
	uint16_t lid;

	ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 4, 0x10, "L0", NULL, &l0, &e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 4, 0x11, "L1", NULL, &l1, &e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 4, 0x20, "M0", NULL, &m0, &e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 4, 0x21, "M1", NULL, &m1, &e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 4, 0x30, "T", NULL, &t, &e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_CA, 1, 0x40, "h0", NULL, &h0, &e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_CA, 1, 0x41, "h1", NULL, &h1, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, l0, 1, h0, 1, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, l1, 1, h1, 1, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, l0, 2, m0, 1, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, l0, 3, m1, 1, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, l1, 2, m0, 2, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, l1, 3, m1, 2, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, m0, 3, t, 1, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, m1, 3, t, 2, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_finish(f, 0, &e), 0);
	ck_assert_int_eq(vt_lfts_init(&lf, f, &e), 0);
	/* h0's LID: straight down from everywhere */
	lid = vt_port(f, h0, 1)->lid;
	vt_lft_set(&lf, f->nodes[l0].sw, lid, 1);
	vt_lft_set(&lf, f->nodes[l1].sw, lid, 2);
	vt_lft_set(&lf, f->nodes[m0].sw, lid, 1);
	vt_lft_set(&lf, f->nodes[m1].sw, lid, 1);
	vt_lft_set(&lf, f->nodes[t].sw, lid, 1);
	/* h1's LID: up from M0 to T, down through M1 */
	lid = vt_port(f, h1, 1)->lid;
	vt_lft_set(&lf, f->nodes[l0].sw, lid, 2);
	vt_lft_set(&lf, f->nodes[l1].sw, lid, 1);
	vt_lft_set(&lf, f->nodes[m0].sw, lid, 3);
	vt_lft_set(&lf, f->nodes[m1].sw, lid, 2);
	vt_lft_set(&lf, f->nodes[t].sw, lid, 2);
	ck_assert_int_eq(vt_audit_run(f, &lf, &a, &e), 0);
	ck_assert_uint_eq(a.item[VT_AUDIT_NONMINIMAL].count, 1);
	ck_assert_uint_eq(a.item[VT_AUDIT_NONMINIMAL].sw, f->nodes[m0].sw);
	ck_assert_uint_eq(a.item[VT_AUDIT_NONMINIMAL].lid, lid);
	ck_assert_str_eq(a.item[VT_AUDIT_NONMINIMAL].detail,
			 "M0, LID 7: non-minimal hop to T (3 switch hops where 1 would do)");
	for (int k = 0; k < VT_AUDIT_NKINDS; k++)
		if (k != VT_AUDIT_NONMINIMAL)
			ck_assert_msg(a.item[k].count == 0, "%s: %s", vt_audit_name(k),
				      a.item[k].detail);
	vt_lfts_free(&lf);
	vt_fabric_free(f);
}
END_TEST

/*
 * A credit loop without a forwarding loop: three switches in a ring, each
 * with one host, every route going clockwise (two hops to the host behind
 * the left neighbour). Host 0 -> 2 makes S0->S1 wait on S1->S2, host 1 -> 0
 * makes S1->S2 wait on S2->S0, host 2 -> 1 closes the ring.
 */
START_TEST(credit_loop)
{
	vt_err e = {{0}};
	vt_fabric *f = vt_fabric_new("ring3");
	uint32_t sw[3], ca[3], lid[3];
	vt_lfts t;
	vt_audit a;
	char id[16];

	for (int i = 0; i < 3; i++) {
		snprintf(id, sizeof(id), "S%d", i);
		ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 3, 0x100 + i, id, id, &sw[i], &e),
				 0);
	}
	for (int i = 0; i < 3; i++) {
		snprintf(id, sizeof(id), "H%d", i);
		ck_assert_int_eq(vt_fabric_add_node(f, VT_CA, 1, 0x200 + i, id, id, &ca[i], &e), 0);
	}
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(vt_fabric_connect(f, sw[i], 1, ca[i], 1, 4, VT_QDR, &e), 0);
		ck_assert_int_eq(vt_fabric_connect(f, sw[i], 2, sw[(i + 1) % 3], 3, 4, VT_QDR, &e),
				 0);
	}
	ck_assert_msg(vt_fabric_finish(f, 0, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(vt_lfts_init(&t, f, &e), 0);
	for (int i = 0; i < 3; i++)
		lid[i] = vt_port(f, ca[i], 1)->lid;
	/* the minimal table first: host i+1 clockwise, host i-1 counter-clockwise */
	for (int i = 0; i < 3; i++)
		for (int h = 0; h < 3; h++)
			vt_lft_set(&t, f->nodes[sw[i]].sw, lid[h],
				   h == i	      ? 1
				   : h == (i + 1) % 3 ? 2
						      : 3);
	ck_assert(vt_trace_cdg_acyclic(f, &t));
	ck_assert_int_eq(vt_audit_run(f, &t, &a, &e), 0);
	ck_assert_uint_eq(vt_audit_failed(&a), 0);
	for (int i = 0; i < 3; i++)
		vt_lft_set(&t, f->nodes[sw[i]].sw, lid[(i + 2) % 3], 2);
	ck_assert(!vt_trace_cdg_acyclic(f, &t));
	ck_assert_int_eq(vt_audit_run(f, &t, &a, &e), 0);
	ck_assert_uint_eq(a.item[VT_AUDIT_LOOP].count, 0);
	ck_assert_uint_eq(a.item[VT_AUDIT_UNREACHABLE].count, 0);
	ck_assert_uint_eq(a.item[VT_AUDIT_MISDELIVERY].count, 0);
	/* the two-hop detours: one per switch */
	ck_assert_uint_eq(a.item[VT_AUDIT_NONMINIMAL].count, 3);
	const struct vt_audit_item *it = &a.item[VT_AUDIT_CREDIT_LOOP];
	ck_assert_uint_eq(it->count, 1);
	/*
	 * Reported from the ring's channel of lowest index, S0/2 -> S1/3: the
	 * switch it leads to, S1, and the LID whose route turns there, host 2's.
	 */
	ck_assert_uint_eq(it->sw, f->nodes[sw[1]].sw);
	ck_assert_uint_eq(it->lid, lid[2]);
	char want[128];
	snprintf(want, sizeof(want),
		 "S1: a cycle of 3 channel dependencies (LID %u): S0/2 S1/2 S2/2", lid[2]);
	ck_assert_str_eq(it->detail, want);
	vt_lfts_free(&t);
	vt_fabric_free(f);
}
END_TEST

static Suite *audit_suite(void)
{
	Suite *s = suite_create("audit");
	TCase *t = tcase_create("core");

	tcase_add_test(t, audits);
	tcase_add_test(t, credit_loop);
	tcase_add_test(t, nonminimal_on_ca_path);
	suite_add_tcase(s, t);
	return s;
}

VT_TEST_MAIN(audit_suite)
