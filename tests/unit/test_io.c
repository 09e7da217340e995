/* SPDX-License-Identifier: MIT */
#include "vt_io.h"
#include "vt_test.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

START_TEST(commit_and_abort)
{
	char dir[] = "/tmp/vt-io-XXXXXX", path[64];
	vt_out o;
	vt_err e;
	char *buf;
	size_t len;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out", dir);
	/* aborted: nothing left, not even the temporary file */
	ck_assert_int_eq(vt_out_open(&o, path, &e), 0);
	fputs("half", o.fp);
	vt_out_abort(&o);
	ck_assert_uint_eq(entries(dir), 0);
	/* committed: the whole file under its name, readable by others */
	ck_assert_int_eq(vt_out_open(&o, path, &e), 0);
	fputs("whole\n", o.fp);
	ck_assert_int_eq(vt_out_commit(&o, &e), 0);
	ck_assert_uint_eq(entries(dir), 1);
	ck_assert_int_eq(vt_read_file(path, &buf, &len, &e), 0);
	ck_assert_str_eq(buf, "whole\n");
	free(buf);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0644);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* Renaming a temporary file over /dev/null would replace the device node. */
START_TEST(device_written_in_place)
{
	struct stat before, after;
	vt_out o;
	vt_err e;

	ck_assert_int_eq(stat("/dev/null", &before), 0);
	ck_assert(S_ISCHR(before.st_mode));
	ck_assert_int_eq(vt_out_open(&o, "/dev/null", &e), 0);
	fputs("discarded\n", o.fp);
	ck_assert_int_eq(vt_out_commit(&o, &e), 0);
	ck_assert_int_eq(stat("/dev/null", &after), 0);
	ck_assert(S_ISCHR(after.st_mode));
	ck_assert_uint_eq(after.st_rdev, before.st_rdev);
}
END_TEST

START_TEST(errors)
{
	vt_out o;
	vt_err e;
	char *buf;
	size_t len;

	ck_assert_int_eq(vt_out_open(&o, "/tmp", &e), -1);
	ck_assert_str_eq(e.msg, "/tmp: is a directory");
	ck_assert_int_eq(vt_out_open(&o, "/nonexistent-dir/x", &e), -1);
	ck_assert_str_eq(e.msg, "/nonexistent-dir/x: cannot create: No such file or directory");
	ck_assert_int_eq(vt_read_file("/nonexistent-file", &buf, &len, &e), -1);
	ck_assert_str_eq(e.msg, "/nonexistent-file: cannot open: No such file or directory");
}
END_TEST

static Suite *io_suite(void)
{
	Suite *s = suite_create("io");
	TCase *tc = tcase_create("out");

	tcase_add_test(tc, commit_and_abort);
	tcase_add_test(tc, device_written_in_place);
	tcase_add_test(tc, errors);
	suite_add_tcase(s, tc);
	return s;
}

VT_TEST_MAIN(io_suite)
