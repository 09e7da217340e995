/* SPDX-License-Identifier: MIT */
#include "base/vt_io.h"
#include "vt_test.h"

#include <dirent.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/* Writes len bytes (NULs included) to a fresh temporary file; returns its path. */
static const char *tmpfile_with(const char *data, size_t len)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/vt-io-guids-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
	return path;
}

static int guids_of(const char *data, size_t len, uint64_t **g, uint32_t *n, vt_err *e)
{
	const char *path = tmpfile_with(data, len);
	int rc = vt_guid_file_read(path, g, NULL, n, e);

	unlink(path);
	return rc;
}

START_TEST(guid_file)
{
	static const char ok[] = "# roots\n0x0002c90000000001\n  2c90000000002 # second\n\n"
				 "FFFFFFFFFFFFFFFF\n0X10";
	uint64_t *g;
	uint32_t n;
	vt_err e;

	ck_assert_int_eq(guids_of(ok, sizeof(ok) - 1, &g, &n, &e), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(g[0], 0x0002c90000000001ull);
	ck_assert_uint_eq(g[1], 0x0002c90000000002ull);
	ck_assert_uint_eq(g[2], UINT64_MAX);
	ck_assert_uint_eq(g[3], 0x10);
	free(g);
	/* each GUID's line, for errors naming an entry */
	{
		const char *path = tmpfile_with(ok, sizeof(ok) - 1);
		unsigned *at;

		ck_assert_int_eq(vt_guid_file_read(path, &g, &at, &n, &e), 0);
		unlink(path);
		ck_assert_uint_eq(n, 4);
		ck_assert_uint_eq(at[0], 2);
		ck_assert_uint_eq(at[1], 3);
		ck_assert_uint_eq(at[2], 5);
		ck_assert_uint_eq(at[3], 6);
		free(g);
		free(at);
	}
}
END_TEST

/* Seventeen digits used to saturate to 0xffffffffffffffff, a NUL to end the file unseen. */
START_TEST(guid_file_refusals)
{
	static const char nul[] = "0x1\n0x2\n\0000x3\n";
	uint64_t *g = (uint64_t *)1;
	uint32_t n = 7;
	vt_err e;
	char want[128];

	ck_assert_int_eq(guids_of("0x1\n0x10000000000000000\n", 24, &g, &n, &e), -1);
	ck_assert_ptr_null(g);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_nonnull(strstr(e.msg, ":2: bad GUID \"0x10000000000000000\""));
	ck_assert_int_eq(guids_of("00000000000000001\n", 18, &g, &n, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, ":1: bad GUID \"00000000000000001\""));
	ck_assert_int_eq(guids_of("0x\n", 3, &g, &n, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, ":1: bad GUID \"0x\""));
	ck_assert_int_eq(guids_of("0x12g\n", 6, &g, &n, &e), -1);
	ck_assert_int_eq(guids_of(nul, sizeof(nul) - 1, &g, &n, &e), -1);
	ck_assert_ptr_null(g);
	snprintf(want, sizeof(want), ":3: NUL byte, not a text file");
	ck_assert_ptr_nonnull(strstr(e.msg, want));
	ck_assert_str_eq(strstr(e.msg, ":3:"), want);
}
END_TEST

/*
 * A command killed while writing: the child opens two outputs (one already
 * committed, one half written) and raises sig; it must die of sig and leave
 * only the committed file, the target of the other untouched.
 */
static void killed_while_writing(int sig)
{
	char dir[] = "/tmp/vt-io-sig-XXXXXX", a[64], b[64];
	int status;
	pid_t pid;
	char *buf;
	size_t len;
	vt_err e;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	{
		FILE *fp = fopen(b, "w");

		fputs("old\n", fp);
		fclose(fp);
	}
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		vt_out o, p;

		/* as a command started normally: nohup or a background job would ignore some */
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		vt_out_catch_signals();
		if (vt_out_open(&o, a, &e) || vt_out_open(&p, b, &e))
			_exit(3);
		fputs("whole\n", o.fp);
		if (vt_out_commit(&o, &e))
			_exit(4);
		for (int i = 0; i < 100000; i++)
			fputs("half-written line\n", p.fp);
		raise(sig);
		_exit(5);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == sig, "status 0x%x", status);
	ck_assert_uint_eq(entries(dir), 2);
	ck_assert_int_eq(vt_read_file(a, &buf, &len, &e), 0);
	ck_assert_str_eq(buf, "whole\n");
	free(buf);
	ck_assert_int_eq(vt_read_file(b, &buf, &len, &e), 0);
	ck_assert_str_eq(buf, "old\n");
	free(buf);
	unlink(a);
	unlink(b);
	rmdir(dir);
}

START_TEST(signal_removes_temporary_files)
{
	killed_while_writing(SIGTERM);
	killed_while_writing(SIGINT);
	killed_while_writing(SIGHUP);
}
END_TEST

/* A failed writer's error names the output and the cause. */
START_TEST(write_error_names_file)
{
	vt_out o;
	vt_err e = {0};

	ck_assert_int_eq(vt_out_open(&o, "/dev/full", &e), 0);
	for (int i = 0; i < 10000 && !ferror(o.fp); i++)
		fputs("line that does not fit\n", o.fp);
	vt_err_set(&e, "write error");
	ck_assert_int_eq(vt_out_fail(&o, &e), -1);
	ck_assert_str_eq(e.msg, "/dev/full: write error: No space left on device");
	ck_assert_int_eq(vt_out_open(&o, "/dev/full", &e), 0);
	fputs("x\n", o.fp);
	ck_assert_int_eq(vt_out_commit(&o, &e), -1);
	ck_assert_str_eq(e.msg, "/dev/full: write error: No space left on device");
}
END_TEST

static Suite *io_suite(void)
{
	Suite *s = suite_create("io");
	TCase *tc = tcase_create("out");

	tcase_add_test(tc, commit_and_abort);
	tcase_add_test(tc, device_written_in_place);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, guid_file);
	tcase_add_test(tc, guid_file_refusals);
	tcase_add_test(tc, signal_removes_temporary_files);
	tcase_add_test(tc, write_error_names_file);
	suite_add_tcase(s, tc);
	return s;
}

VT_TEST_MAIN(io_suite)
