/* SPDX-License-Identifier: MIT */
/*
 * The plugin's parts that need no OpenSM (plugin/vtp_opts.h): every bad
 * vartree.* token of event_plugin_options is reported with its reason, and a
 * step that ran out of memory is reported as ERR VT10, not as its refusal.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "vt_test.h"
#include "vtp_opts.h"

/* ASan refuses a huge allocation by aborting unless told to return NULL as malloc does */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

struct bad {
	char text[1024];
	size_t len;
};

static void collect(void *ctx, const char *tok, int len, const char *why)
{
	struct bad *b = ctx;
	int n = snprintf(b->text + b->len, sizeof(b->text) - b->len, "%.*s: %s\n", len, tok, why);

	ck_assert(n > 0 && (size_t)n < sizeof(b->text) - b->len);
	b->len += (size_t)n;
}

START_TEST(every_bad_token)
{
	struct vtp_opts o;
	struct bad b = {.len = 0};
	const char *opt = "vartree.bogus=1 other.x=2,vartree.hops=opensm vartree.log=loud\t"
			  "vartree.order_dump=maybe vartree.hops vartree. vartree.order_file= "
			  "vartree.log=debug vartree.repair=most vartree.repair=fewest";

	ck_assert_int_eq(vtp_opts_parse(&o, opt, collect, &b), 7);
	ck_assert_str_eq(b.text,
			 "vartree.bogus=1: unknown option\n"
			 "vartree.log=loud: not error, info, verbose or debug\n"
			 "vartree.order_dump=maybe: not a boolean (on, off, yes, no, 1, 0)\n"
			 "vartree.hops: no value (vartree.KEY=VALUE)\n"
			 "vartree.: no option name\n"
			 "vartree.order_file=: empty or longer than 255 bytes\n"
			 "vartree.repair=most: not guarded, minimal, fewest or a boolean\n");
	/* the good tokens around the bad ones still apply */
	ck_assert_int_eq(o.hops, VTP_HOPS_OPENSM);
	ck_assert_int_eq(o.level, VT_LOG_DEBUG);
	ck_assert_int_eq(o.level_set, 1);
	ck_assert_int_eq(o.order_dump, 1);
	ck_assert_str_eq(o.order_file, VTP_ORDER_FILE);
	ck_assert_int_eq(o.repair, 1);
	ck_assert_int_eq(o.repair_policy, VT_REPAIR_FEWEST);
}
END_TEST

START_TEST(good_and_empty_options)
{
	struct vtp_opts o;

	ck_assert_int_eq(vtp_opts_parse(&o, NULL, collect, NULL), 0);
	ck_assert_int_eq(o.hops, VTP_HOPS_VARTREE);
	ck_assert_int_eq(o.level_set, 0);
	ck_assert_int_eq(vtp_opts_parse(&o,
					"vartree.order_dump=off,vartree.order_file=/x/y "
					"vartree.hops=vartree",
					collect, NULL),
			 0);
	ck_assert_int_eq(o.order_dump, 0);
	ck_assert_str_eq(o.order_file, "/x/y");
	ck_assert_int_eq(vtp_opts_parse(&o, "vartree.repair=off", collect, NULL), 0);
	ck_assert_int_eq(o.repair, 0);
	/* repair is on (guarded) unless turned off; on means the guarded policy */
	ck_assert_int_eq(vtp_opts_parse(&o, "", collect, NULL), 0);
	ck_assert_int_eq(o.repair, 1);
	ck_assert_int_eq(o.repair_policy, VT_REPAIR_GUARDED);
	ck_assert_int_eq(vtp_opts_parse(&o, "vartree.repair=on", collect, NULL), 0);
	ck_assert_int_eq(o.repair, 1);
	ck_assert_int_eq(o.repair_policy, VT_REPAIR_GUARDED);
	ck_assert_int_eq(vtp_opts_parse(&o, "vartree.repair=minimal", collect, NULL), 0);
	ck_assert_int_eq(o.repair_policy, VT_REPAIR_MINIMAL);
	ck_assert_int_eq(vtp_opts_parse(&o, "vartree.repair=guarded", collect, NULL), 0);
	ck_assert_int_eq(o.repair_policy, VT_REPAIR_GUARDED);
	/* detours turn at the turn leaf unless vartree.detours=shortest */
	ck_assert_int_eq(o.shortest_detours, 0);
	ck_assert_int_eq(vtp_opts_parse(&o, "vartree.detours=shortest", collect, NULL), 0);
	ck_assert_int_eq(o.shortest_detours, 1);
	ck_assert_int_eq(
		vtp_opts_parse(&o, "vartree.detours=shortest vartree.detours=turn", collect, NULL),
		0);
	ck_assert_int_eq(o.shortest_detours, 0);
	ck_assert_int_eq(vtp_opts_parse(&o, "vartree.detours=short", NULL, NULL), 1);
	/* without a callback the bad tokens are only counted */
	ck_assert_int_eq(vtp_opts_parse(&o, "vartree.a=1 vartree.b=2", NULL, NULL), 2);
}
END_TEST

START_TEST(nomem_is_not_a_refusal)
{
	char buf[VT_ERR_MAX + 128];
	vt_err e;
	vt_lfts t;
	vt_fabric *f = vt_test_gen("fat 2,2");
	uint32_t nsw, maxlid;

	/* a refusal names the source, OpenSM's subnet, where a file's would give FILE:LINE */
	vt_err_at(&e, "OpenSM's subnet", 0, "switches %s are linked but both at level 0",
		  "a and b");
	vtp_err_text(buf, sizeof(buf), "VT01", "fabric refused", "routing", &e);
	ck_assert_str_eq(buf, "VT01: fabric refused: OpenSM's subnet: switches a and b are linked "
			      "but both at level 0");
	vt_err_nomem(&e, "out of memory for %u forwarding tables", 6u);
	vtp_err_text(buf, sizeof(buf), "VT01", "fabric refused", "routing", &e);
	ck_assert_str_eq(buf, "VT10: out of memory while routing: out of memory for 6 forwarding "
			      "tables");
	/* a later error of another kind is not taken for memory */
	vt_err_set(&e, "no switches");
	vtp_err_text(buf, sizeof(buf), "VT04", "cannot model the subnet", "modelling the subnet",
		     &e);
	ck_assert_str_eq(buf, "VT04: cannot model the subnet: no switches");
	/* the core marks its allocation failures: tables too large to allocate (200 TB) */
	nsw = f->nswitches;
	maxlid = f->max_lid;
	f->nswitches = UINT32_MAX;
	f->max_lid = 0xbfff;
	ck_assert_int_eq(vt_lfts_init(&t, f, &e), -1);
	f->nswitches = nsw;
	f->max_lid = maxlid;
	ck_assert_int_eq(e.kind, VT_ERR_NOMEM);
	vtp_err_text(buf, sizeof(buf), "VT01", "fabric refused", "routing", &e);
	ck_assert_msg(!strncmp(buf, "VT10: out of memory while routing: out of memory", 48), "%s",
		      buf);
	vt_fabric_free(f);
}
END_TEST

static Suite *plugin_suite(void)
{
	Suite *s = suite_create("plugin");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, every_bad_token);
	tcase_add_test(tc, good_and_empty_options);
	tcase_add_test(tc, nomem_is_not_a_refusal);
	suite_add_tcase(s, tc);
	return s;
}

VT_TEST_MAIN(plugin_suite)
