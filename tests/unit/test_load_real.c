/* SPDX-License-Identifier: MIT */
/*
 * The real ibnetdiscover dumps of ../shared/fixtures/real (beside the
 * checkout, on this project's CI only) load with these counts. A clone with
 * nothing beside it skips this binary visibly (VT_TEST_MAIN_NEEDS); the
 * real-shaped generated fabrics of topofiles/ (real-*.topo) and the forms of
 * tests/data/forms keep those features covered there.
 */
#include <stdio.h>

#include "io/vt_load.h"
#include "vt_test.h"

/* Every real dump loads, with these counts. */
START_TEST(real_dumps_load)
{
	static const struct {
		const char *file;
		uint32_t nodes, switches, cas, links;
	} want[] = {
		{"ibm-pcm-2host-mt43132.topo", 3, 1, 2, 2},
		{"loginoff-stage-sx6036-8sw.topo", 152, 8, 144, 192},
		{"mlnx-ufm-lab-selfloop-sx6012.topo", 8, 2, 6, 10},
		{"nvlab-cs8500-quantum-2host.topo", 62, 60, 2, 807},
		{"nvlab-msb7800-4sw-anon.topo", 12, 4, 8, 12},
		{"sun-dcs36-1host.topo", 2, 1, 1, 1},
		{"voltaire-isr9024-manpage-sample.topo", 6, 2, 4, 7},
		{"ibsim-example-2sw2path4hca2port.net", 4, 2, 2, 6},
		{"ibsim-example-net.net", 4, 2, 2, 4},
	};
	char rel[256];

	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		vt_fabric *f;

		snprintf(rel, sizeof(rel), "../shared/fixtures/real/%s", want[i].file);
		f = vt_test_load(rel);
		ck_assert_msg(f->nnodes == want[i].nodes && f->nswitches == want[i].switches &&
				      vt_fabric_count_cas(f) == want[i].cas &&
				      vt_fabric_count_links(f) == want[i].links,
			      "%s: %u nodes, %u switches, %u CAs, %u links", want[i].file,
			      f->nnodes, f->nswitches, vt_fabric_count_cas(f),
			      vt_fabric_count_links(f));
		vt_fabric_free(f);
	}
}
END_TEST

static Suite *load_real_suite(void)
{
	Suite *s = suite_create("load_real");
	TCase *t = tcase_create("load_real");

	tcase_add_test(t, real_dumps_load);
	suite_add_tcase(s, t);
	return s;
}

VT_TEST_MAIN_NEEDS(load_real_suite, "../shared/fixtures/real", "the 9 real dumps not loaded")
