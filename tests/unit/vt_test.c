/* SPDX-License-Identifier: MIT */
#include "vt_test.h"

#include <stdio.h>

const char *vt_test_top(void)
{
	const char *t = getenv("VT_TOP");

	return t && *t ? t : ".";
}

const char *vt_test_path(const char *rel)
{
	static _Thread_local char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s", vt_test_top(), rel);
	return buf;
}
