/* SPDX-License-Identifier: MIT */
/* Shared by the Check unit tests: each test_*.c defines one suite and uses VT_TEST_MAIN. */
#ifndef VT_TEST_H
#define VT_TEST_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#define VT_TEST_MAIN(suite_fn)                                                                     \
	int main(void)                                                                             \
	{                                                                                          \
		SRunner *sr = srunner_create(suite_fn());                                          \
		int nf;                                                                            \
		srunner_run_all(sr, CK_NORMAL);                                                    \
		nf = srunner_ntests_failed(sr);                                                    \
		srunner_free(sr);                                                                  \
		return nf ? EXIT_FAILURE : EXIT_SUCCESS;                                           \
	}

/*
 * The same for a suite that needs a directory beside the source tree (rel, from
 * its top): without it, one line "skipped: PATH absent: WHAT" and exit status 77,
 * which tests/run-tests counts as a skip.
 */
#define VT_TEST_MAIN_NEEDS(suite_fn, rel, what)                                                    \
	int main(void)                                                                             \
	{                                                                                          \
		SRunner *sr;                                                                       \
		int nf;                                                                            \
		if (!vt_test_dir_exists(rel)) {                                                    \
			printf("skipped: %s absent: %s\n", vt_test_path(rel), what);               \
			return 77;                                                                 \
		}                                                                                  \
		sr = srunner_create(suite_fn());                                                   \
		srunner_run_all(sr, CK_NORMAL);                                                    \
		nf = srunner_ntests_failed(sr);                                                    \
		srunner_free(sr);                                                                  \
		return nf ? EXIT_FAILURE : EXIT_SUCCESS;                                           \
	}

#include "model/vt_fabric.h"

/* Whether rel (from the source tree's top) is a directory. */
int vt_test_dir_exists(const char *rel);

/* A generated fabric (vartree-gen spec); the test fails when the spec is refused. */
vt_fabric *vt_test_gen(const char *spec);
/* A fabric loaded from a file under the source tree; the test fails on any error. */
vt_fabric *vt_test_load(const char *rel);

/* Directory of the source tree (set by tests/run-tests), for fixture files. */
const char *vt_test_top(void);
/* A path under the source tree; the returned string lives until the next call. */
const char *vt_test_path(const char *rel);

#endif
