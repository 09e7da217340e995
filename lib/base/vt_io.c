/* SPDX-License-Identifier: MIT */
#include "base/vt_io.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The temporary files a fatal signal must remove. Process-wide by nature (a
 * signal handler has nothing else to look at); filled only after
 * vt_out_catch_signals(), so the plugin inside OpenSM never touches it.
 */
#define VT_OUT_TMP_MAX 8
static char *volatile pending[VT_OUT_TMP_MAX];
static volatile sig_atomic_t catching;
static const int fatal_sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

static void on_fatal(int sig)
{
	int saved = errno;

	for (unsigned i = 0; i < VT_OUT_TMP_MAX; i++)
		if (pending[i])
			unlink(pending[i]);
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

void vt_out_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal;
	sigemptyset(&sa.sa_mask);
	for (unsigned i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++)
		sigaddset(&sa.sa_mask, fatal_sigs[i]);
	for (unsigned i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++) {
		struct sigaction old;

		/* a signal ignored from the start (nohup, a background job's SIGINT) stays so */
		if (!sigaction(fatal_sigs[i], NULL, &old) && old.sa_handler != SIG_IGN)
			sigaction(fatal_sigs[i], &sa, NULL);
	}
	catching = 1;
}

/* Blocks the fatal signals (old receives the previous mask) while the list changes. */
static void hold_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (unsigned i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++)
		sigaddset(&set, fatal_sigs[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void set_pending(char *from, char *to)
{
	for (unsigned i = 0; i < VT_OUT_TMP_MAX; i++)
		if (pending[i] == from) {
			pending[i] = to;
			return;
		}
}

/* mkstemp with the name recorded before a signal can see the file. */
static int make_tmp(char *tmp)
{
	sigset_t old;
	int fd;

	if (!catching)
		return mkstemp(tmp);
	hold_signals(&old);
	fd = mkstemp(tmp);
	if (fd >= 0)
		set_pending(NULL, tmp);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return fd;
}

static void forget_tmp(char *tmp)
{
	sigset_t old;

	if (!catching || !tmp)
		return;
	hold_signals(&old);
	set_pending(tmp, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int vt_out_open(vt_out *o, const char *path, vt_err *e)
{
	struct stat st;
	size_t n;
	int fd;

	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->fp = stdout;
		return 0;
	}
	/* a device or FIFO (/dev/null, a pipe) is written in place: renaming a
	 * temporary file over it would replace the device with a plain file */
	n = strlen(path);
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return vt_err_set(e, "%s: is a directory", path);
		o->path = malloc(n + 1); /* for messages */
		if (!o->path)
			return vt_err_nomem(e, "out of memory");
		memcpy(o->path, path, n + 1);
		o->fp = fopen(path, "w");
		if (!o->fp) {
			vt_err_set(e, "%s: cannot open: %s", path, strerror(errno));
			vt_out_abort(o);
			return -1;
		}
		o->direct = 1;
		return 0;
	}
	o->path = malloc(n + 1);
	o->tmp = malloc(n + 16);
	if (!o->path || !o->tmp) {
		vt_out_abort(o);
		return vt_err_nomem(e, "out of memory");
	}
	memcpy(o->path, path, n + 1);
	snprintf(o->tmp, n + 16, "%s.tmpXXXXXX", path);
	fd = make_tmp(o->tmp);
	if (fd < 0) {
		int err = errno;

		free(o->tmp);
		o->tmp = NULL;
		vt_out_abort(o);
		return vt_err_set(e, "%s: cannot create: %s", path, strerror(err));
	}
	/* mkstemp makes 0600; dumps and plots are for others to read too */
	fchmod(fd, 0644);
	o->fp = fdopen(fd, "w");
	if (!o->fp) {
		close(fd);
		vt_out_abort(o);
		return vt_err_set(e, "%s: cannot open: %s", path, strerror(errno));
	}
	return 0;
}

int vt_out_commit(vt_out *o, vt_err *e)
{
	int bad;

	if (!o->fp)
		return vt_err_set(e, "output not open");
	if (o->direct) {
		bad = ferror(o->fp) | fclose(o->fp);
		o->fp = NULL;
		o->direct = 0;
		if (bad)
			vt_err_set(e, "%s: write error: %s", o->path, strerror(errno));
		free(o->path);
		o->path = NULL;
		return bad ? -1 : 0;
	}
	if (!o->path) {
		bad = fflush(o->fp) != 0 || ferror(o->fp);
		o->fp = NULL;
		return bad ? vt_err_set(e, "standard output: write error: %s", strerror(errno)) : 0;
	}
	bad = ferror(o->fp);
	if (fclose(o->fp))
		bad = 1;
	o->fp = NULL;
	if (bad || rename(o->tmp, o->path)) {
		int err = errno;

		vt_err_set(e, "%s: write error: %s", o->path, strerror(err));
		vt_out_abort(o);
		return -1;
	}
	forget_tmp(o->tmp);
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return 0;
}

void vt_out_abort(vt_out *o)
{
	if (o->fp && (o->path || o->direct))
		fclose(o->fp);
	o->direct = 0;
	o->fp = NULL;
	if (o->tmp)
		unlink(o->tmp);
	forget_tmp(o->tmp);
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
}

int vt_out_fail(vt_out *o, vt_err *e)
{
	int err = errno;

	if (o->fp && ferror(o->fp))
		vt_err_set(e, "%s: write error: %s", o->path ? o->path : "standard output",
			   err ? strerror(err) : "unknown cause");
	vt_out_abort(o);
	return -1;
}

int vt_stdout_flush(vt_err *e)
{
	errno = 0;
	if (!fflush(stdout) && !ferror(stdout))
		return 0;
	return vt_err_set(e, "standard output: write error: %s",
			  errno ? strerror(errno) : "unknown cause");
}

int vt_read_file(const char *path, char **buf, size_t *len, vt_err *e)
{
	FILE *fp = fopen(path, "rb");
	size_t cap = 65536, n = 0;
	char *b;

	if (!fp)
		return vt_err_set(e, "%s: cannot open: %s", path, strerror(errno));
	b = malloc(cap);
	while (b) {
		size_t r = fread(b + n, 1, cap - n - 1, fp);

		n += r;
		if (n + 1 < cap)
			break;
		cap *= 2;
		char *nb = realloc(b, cap);

		if (!nb) {
			free(b);
			b = NULL;
		} else {
			b = nb;
		}
	}
	if (!b || ferror(fp)) {
		const char *why = b ? strerror(errno) : "out of memory";

		vt_err_set(e, "%s: read error: %s", path, why);
		free(b);
		fclose(fp);
		return -1;
	}
	fclose(fp);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

int vt_read_text(const char *path, char **buf, size_t *len, vt_err *e)
{
	const char *nul;

	if (vt_read_file(path, buf, len, e))
		return -1;
	nul = memchr(*buf, '\0', *len);
	if (nul) {
		unsigned line = 1;

		for (const char *c = *buf; c < nul; c++)
			line += *c == '\n';
		free(*buf);
		*buf = NULL;
		return vt_err_at(e, path, line, "NUL byte, not a text file");
	}
	return 0;
}

/* One GUID: hex digits with an optional 0x, at most 16 of them. */
static int parse_guid(const char *s, uint64_t *g)
{
	unsigned nd = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	*g = 0;
	for (; isxdigit((unsigned char)*s); s++, nd++) {
		int d = isdigit((unsigned char)*s) ? *s - '0'
						   : tolower((unsigned char)*s) - 'a' + 10;

		*g = *g << 4 | (uint64_t)d;
	}
	return !*s && nd >= 1 && nd <= 16 ? 0 : -1;
}

static int push_guid(uint64_t **guids, unsigned **lines, uint32_t *n, uint32_t *cap, uint64_t g,
		     unsigned line)
{
	if (*n == *cap) {
		uint32_t c = *cap ? *cap * 2 : 64;
		uint64_t *p = realloc(*guids, c * sizeof(*p));
		unsigned *l;

		if (!p)
			return -1;
		*guids = p;
		if (lines) {
			l = realloc(*lines, c * sizeof(*l));
			if (!l)
				return -1;
			*lines = l;
		}
		*cap = c;
	}
	if (lines)
		(*lines)[*n] = line;
	(*guids)[(*n)++] = g;
	return 0;
}

int vt_guid_file_read(const char *path, uint64_t **guids, unsigned **lines, uint32_t *n, vt_err *e)
{
	char *buf, *s, *next;
	size_t len;
	uint32_t cap = 0;
	unsigned line = 0;

	*guids = NULL;
	if (lines)
		*lines = NULL;
	*n = 0;
	if (vt_read_text(path, &buf, &len, e))
		return -1;
	for (s = buf; s && *s; s = next) {
		char *nl = strchr(s, '\n'), *h, *end;
		uint64_t g;

		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		line++;
		h = strchr(s, '#');
		if (h)
			*h = '\0';
		while (isspace((unsigned char)*s))
			s++;
		for (end = s + strlen(s); end > s && isspace((unsigned char)end[-1]);)
			*--end = '\0';
		if (!*s)
			continue;
		if (parse_guid(s, &g)) {
			vt_err_at(e, path, line, "bad GUID \"%s\" (1 to 16 hex digits expected)",
				  s);
			goto fail;
		}
		if (push_guid(guids, lines, n, &cap, g, line)) {
			vt_err_nomem(e, "out of memory");
			goto fail;
		}
	}
	free(buf);
	return 0;
fail:
	free(buf);
	free(*guids);
	*guids = NULL;
	if (lines) {
		free(*lines);
		*lines = NULL;
	}
	*n = 0;
	return -1;
}
