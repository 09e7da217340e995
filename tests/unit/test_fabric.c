/* SPDX-License-Identifier: MIT */
#include "model/vt_fabric.h"
#include "vt_test.h"

#include <stdlib.h>
#include <string.h>

/* two switches, two hosts: h0 - s0 = s1 - h1, with a double link between the switches */
static vt_fabric *small(vt_err *e)
{
	vt_fabric *f = vt_fabric_new("small");
	uint32_t s0, s1, h0, h1;

	ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 8, 0x100, "s0", NULL, &s0, e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 8, 0x200, "s1", "Switch one", &s1, e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_CA, 1, 0x300, "h0", NULL, &h0, e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_CA, 2, 0x400, "h1", NULL, &h1, e), 0);
	vt_port(f, h0, 1)->guid = 0x301;
	vt_port(f, h1, 2)->guid = 0x402;
	ck_assert_int_eq(vt_fabric_connect(f, s0, 1, h0, 1, 4, VT_QDR, e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, s0, 3, s1, 3, 4, VT_QDR, e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, s0, 4, s1, 4, 4, VT_QDR, e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, s1, 2, h1, 2, 4, VT_QDR, e), 0);
	return f;
}

START_TEST(lids_assigned_in_record_order)
{
	vt_err e;
	vt_fabric *f = small(&e);

	ck_assert_int_eq(vt_fabric_finish(f, 0, &e), 0);
	ck_assert_uint_eq(f->nswitches, 2);
	ck_assert_uint_eq(vt_port(f, 0, 0)->lid, 1);
	ck_assert_uint_eq(vt_port(f, 1, 0)->lid, 2);
	ck_assert_uint_eq(vt_port(f, 2, 1)->lid, 3);
	ck_assert_uint_eq(vt_port(f, 3, 1)->lid, 0); /* unconnected: no LID */
	ck_assert_uint_eq(vt_port(f, 3, 2)->lid, 4);
	ck_assert_uint_eq(f->max_lid, 4);
	ck_assert_uint_eq(vt_fabric_port_by_lid(f, 4), vt_port_index(f, 3, 2));
	ck_assert_uint_eq(vt_fabric_port_by_lid(f, 5), VT_NONE);
	ck_assert_uint_eq(vt_fabric_count_links(f), 4);
	ck_assert_uint_eq(vt_fabric_count_cas(f), 2);
	vt_fabric_free(f);
}
END_TEST

START_TEST(lmc_aligns_lids)
{
	vt_err e;
	vt_fabric *f = small(&e);

	ck_assert_int_eq(vt_fabric_finish(f, 2, &e), 0);
	ck_assert_uint_eq(vt_port(f, 0, 0)->lid, 1);
	ck_assert_uint_eq(vt_port(f, 1, 0)->lid, 2);
	ck_assert_uint_eq(vt_port(f, 2, 1)->lid, 4);
	ck_assert_uint_eq(vt_port(f, 2, 1)->lmc, 2);
	ck_assert_uint_eq(vt_port(f, 3, 2)->lid, 8);
	ck_assert_uint_eq(vt_fabric_port_by_lid(f, 11), vt_port_index(f, 3, 2));
	ck_assert_uint_eq(vt_fabric_port_by_lid(f, 3), VT_NONE);
	ck_assert_uint_eq(f->max_lid, 11);
	vt_fabric_free(f);
}
END_TEST

START_TEST(lookups)
{
	vt_err e;
	vt_fabric *f = small(&e);

	ck_assert_int_eq(vt_fabric_finish(f, 0, &e), 0);
	ck_assert_uint_eq(vt_fabric_node_by_guid(f, 0x200), 1);
	ck_assert_uint_eq(vt_fabric_node_by_guid(f, 0x999), VT_NONE);
	ck_assert_uint_eq(vt_fabric_port_by_guid(f, 0x402), vt_port_index(f, 3, 2));
	ck_assert_uint_eq(vt_fabric_port_by_guid(f, 0x200), vt_port_index(f, 1, 0));
	ck_assert_uint_eq(vt_fabric_node_by_id(f, "h1"), 3);
	ck_assert_uint_eq(vt_fabric_node_by_id(f, "nope"), VT_NONE);
	ck_assert_str_eq(f->nodes[1].desc, "Switch one");
	ck_assert_str_eq(f->nodes[0].desc, "s0");
	ck_assert_uint_eq(vt_peer_node(f, vt_port_index(f, 0, 3)), 1);
	vt_fabric_free(f);
}
END_TEST

START_TEST(errors)
{
	vt_err e;
	vt_fabric *f = small(&e);
	uint32_t x;

	ck_assert_int_eq(vt_fabric_connect(f, 0, 1, 1, 5, 4, VT_QDR, &e), -1);
	ck_assert_str_eq(e.msg, "\"s0\" (0x0000000000000100) port 1 is already linked");
	ck_assert_int_eq(vt_fabric_connect(f, 0, 9, 1, 5, 4, VT_QDR, &e), -1);
	ck_assert_str_eq(e.msg, "\"s0\" (0x0000000000000100) has no port 9");
	ck_assert_int_eq(vt_fabric_add_node(f, VT_CA, 1, 0x200, "dupguid", NULL, &x, &e), 0);
	ck_assert_int_eq(vt_fabric_finish(f, 0, &e), -1);
	ck_assert_str_eq(e.msg,
			 "small: \"dupguid\" (0x0000000000000200): GUID 0x0000000000000200 is "
			 "already the node GUID of \"Switch one\" (0x0000000000000200)");
	vt_fabric_free(f);
}
END_TEST

/*
 * Multi-PF adapters: each PF's node GUID is its port GUID, and the PFs' GUIDs
 * are consecutive. A port GUID equal to its own node's GUID is no clash; one
 * equal to another node's GUID still is.
 */
START_TEST(multi_pf_guids)
{
	vt_err e;
	vt_fabric *f = vt_fabric_new("mpf");
	uint32_t s, p0, p1, x;

	ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 4, 0x100, "s", NULL, &s, &e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_CA, 1, 0xa0, "pf0", "host1 mlx5_0", &p0, &e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_CA, 1, 0xa1, "pf1", "host1 mlx5_1", &p1, &e), 0);
	vt_port(f, p0, 1)->guid = 0xa0;
	vt_port(f, p1, 1)->guid = 0xa1;
	ck_assert_int_eq(vt_fabric_connect(f, s, 1, p0, 1, 4, VT_EDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, s, 2, p1, 1, 4, VT_EDR, &e), 0);
	ck_assert_int_eq(vt_fabric_finish(f, 0, &e), 0);
	ck_assert_uint_eq(vt_fabric_node_by_guid(f, 0xa1), p1);
	ck_assert_uint_eq(vt_fabric_port_by_guid(f, 0xa0), vt_port_index(f, p0, 1));
	ck_assert_uint_eq(vt_fabric_port_by_guid(f, 0xa1), vt_port_index(f, p1, 1));
	/* a third adapter whose port takes PF1's GUID: a real duplicate */
	ck_assert_int_eq(vt_fabric_add_node(f, VT_CA, 1, 0xb0, "x", "host2 mlx5_0", &x, &e), 0);
	vt_port(f, x, 1)->guid = 0xa1;
	ck_assert_int_eq(vt_fabric_connect(f, s, 3, x, 1, 4, VT_EDR, &e), 0);
	ck_assert_int_eq(vt_fabric_finish(f, 0, &e), -1);
	ck_assert_str_eq(e.msg, "mpf: \"host2 mlx5_0\" (0x00000000000000b0) port 1: GUID "
				"0x00000000000000a1 is already the node GUID of \"host1 mlx5_1\" "
				"(0x00000000000000a1)");
	vt_fabric_free(f);
}
END_TEST

START_TEST(node_names)
{
	vt_err e;
	vt_fabric *f = small(&e);
	char buf[VT_NODE_NAME_MAX], tiny[30];

	ck_assert_str_eq(vt_node_name(f, 1, buf, sizeof(buf)),
			 "\"Switch one\" (0x0000000000000200)");
	ck_assert_str_eq(vt_node_name(f, 2, buf, sizeof(buf)), "\"h0\" (0x0000000000000300)");
	/* too long: the description is cut, the GUID kept */
	ck_assert_str_eq(vt_node_name(f, 1, tiny, sizeof(tiny)), "\"Switch\" (0x0000000000000200)");
	ck_assert_str_eq(vt_node_name(f, 9, buf, sizeof(buf)), "(no node 9)");
	vt_fabric_free(f);
}
END_TEST

START_TEST(port_names)
{
	vt_err e;
	vt_fabric *f = small(&e);
	char buf[VT_PORT_NAME_MAX], tiny[36];

	/* before LIDs are known: no ", lid" */
	ck_assert_str_eq(vt_port_name(f, vt_port_index(f, 1, 3), buf, sizeof(buf)),
			 "\"Switch one\" (0x0000000000000200)/3");
	ck_assert_int_eq(vt_fabric_finish(f, 0, &e), 0);
	/* a switch port carries the switch's LID (port 0's), a CA port its own */
	ck_assert_str_eq(vt_port_name(f, vt_port_index(f, 1, 3), buf, sizeof(buf)),
			 "\"Switch one\" (0x0000000000000200, lid 2)/3");
	ck_assert_str_eq(vt_port_name(f, vt_port_index(f, 3, 2), buf, sizeof(buf)),
			 "\"h1\" (0x0000000000000400, lid 4)/2");
	ck_assert_uint_eq(vt_port_lid(f, vt_port_index(f, 3, 1)), 0); /* unconnected */
	/* too long: the description is cut, GUID, LID and port kept (the split stays at the last
	 * '/') */
	ck_assert_str_eq(vt_port_name(f, vt_port_index(f, 1, 3), tiny, sizeof(tiny)),
			 "\"Swi\" (0x0000000000000200, lid 2)/3");
	/* a description with slashes: the port is after the last one */
	free(f->nodes[1].desc);
	f->nodes[1].desc = strdup("MF0;leaf15:MQM8700/U1");
	ck_assert_str_eq(vt_port_name(f, vt_port_index(f, 1, 4), buf, sizeof(buf)),
			 "\"MF0;leaf15:MQM8700/U1\" (0x0000000000000200, lid 2)/4");
	ck_assert_str_eq(vt_port_name(f, f->nports, buf, sizeof(buf)), "(no port 23)");
	vt_fabric_free(f);
}
END_TEST

/*
 * Refusals about a node: "SOURCE:LINE: " with the line listing the port's link,
 * else the node's record's, else "SOURCE: "; e.cause points past it, and the
 * arguments may come from e.msg itself.
 */
START_TEST(node_errors)
{
	vt_err e;
	vt_fabric *f = small(&e);

	ck_assert_int_eq(vt_err_node(&e, f, 1, 3, "%s port %u", "s1", 3), -1);
	ck_assert_str_eq(e.msg, "small: s1 port 3");
	ck_assert_str_eq(e.msg + e.cause, "s1 port 3");
	f->nodes[1].line = 12;
	vt_err_node(&e, f, 1, 3, "x");
	ck_assert_str_eq(e.msg, "small:12: x");
	ck_assert_uint_eq(e.cause, 10);
	f->link_line = calloc(f->nports, sizeof(*f->link_line));
	ck_assert_ptr_nonnull(f->link_line);
	f->link_line[vt_port_index(f, 1, 3)] = 15;
	vt_err_node(&e, f, 1, 3, "x");
	ck_assert_str_eq(e.msg, "small:15: x");
	vt_err_node(&e, f, 1, 0, "x"); /* port 0: the record */
	ck_assert_str_eq(e.msg, "small:12: x");
	vt_err_node(&e, f, 1, 4, "x"); /* no line for that link */
	ck_assert_str_eq(e.msg, "small:12: x");
	vt_err_node(&e, f, 1, 3, "again: %s", e.msg);
	ck_assert_str_eq(e.msg, "small:15: again: small:12: x");
	vt_err_node(&e, f, VT_NONE, 3, "x"); /* no node: no line, nothing read past the nodes */
	ck_assert_str_eq(e.msg, "small: x");
	vt_err_set(&e, "plain");
	ck_assert_uint_eq(e.cause, 0);
	vt_fabric_free(f);
}
END_TEST

START_TEST(speeds)
{
	ck_assert_int_eq(vt_speed_parse("EDR", 3), VT_EDR);
	ck_assert_int_eq(vt_speed_parse("FDR10", 5), VT_FDR10);
	ck_assert_int_eq(vt_speed_parse("XDR", 3), VT_XDR);
	ck_assert_int_eq(vt_speed_parse("ZDR", 3), VT_SPEED_UNKNOWN);
	ck_assert_uint_eq(vt_speed_lane_mbps(VT_DDR), 4000);
	ck_assert_str_eq(vt_speed_name(VT_HDR), "HDR");
}
END_TEST

static Suite *fabric_suite(void)
{
	Suite *s = suite_create("fabric");
	TCase *tc = tcase_create("model");

	tcase_add_test(tc, lids_assigned_in_record_order);
	tcase_add_test(tc, lmc_aligns_lids);
	tcase_add_test(tc, lookups);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, node_errors);
	tcase_add_test(tc, speeds);
	tcase_add_test(tc, node_names);
	tcase_add_test(tc, port_names);
	tcase_add_test(tc, multi_pf_guids);
	suite_add_tcase(s, tc);
	return s;
}

VT_TEST_MAIN(fabric_suite)
