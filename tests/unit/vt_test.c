/* SPDX-License-Identifier: MIT */
#include "vt_test.h"

#include <stdio.h>
#include <sys/stat.h>

#include "gen/vt_gen.h"
#include "io/vt_load.h"

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

vt_fabric *vt_test_gen(const char *spec)
{
	struct vt_gen_spec s;
	vt_fabric *f = NULL;
	vt_err e;

	if (vt_gen_parse(&s, spec, &e) || vt_gen_build(&s, &f, &e))
		ck_abort_msg("%s: %s", spec, e.msg);
	return f;
}

vt_fabric *vt_test_load(const char *rel)
{
	vt_fabric *f = NULL;
	vt_err e;

	if (vt_load(vt_test_path(rel), &f, &e))
		ck_abort_msg("%s", e.msg);
	return f;
}

int vt_test_dir_exists(const char *rel)
{
	struct stat st;

	return stat(vt_test_path(rel), &st) == 0 && S_ISDIR(st.st_mode);
}
