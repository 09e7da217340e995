/* SPDX-License-Identifier: MIT */
#include "cli/vt_cli.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/vt_lftio.h"

void vt_cli_init(struct vt_cli *c, const char *prog, const char *help, const char *shortopts,
		 const struct option *longopts, int argc, char **argv)
{
	c->prog = prog;
	c->help = help;
	c->longopts = longopts;
	c->argc = argc;
	c->argv = argv;
	/* -V: the version, as infiniband-diags' commands take it (vartree(7), OPTION VOCABULARY) */
	snprintf(c->shortopts, sizeof(c->shortopts), ":%sV", shortopts);
	c->nretired = 0;
	opterr = 0; /* our one-line messages instead of getopt's */
	optind = 1;
}

void vt_cli_retire(struct vt_cli *c, char opt, const char *use)
{
	if (c->nretired < sizeof(c->retired) / sizeof(c->retired[0]))
		c->retired[c->nretired++] = (struct vt_cli_retired){opt, use};
}

_Noreturn void vt_cli_die(const char *prog, int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

_Noreturn void vt_cli_usage(const struct vt_cli *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", c->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ". Try '%s --help'.\n", c->prog);
	exit(VT_EXIT_USAGE);
}

_Noreturn void vt_cli_version(const char *prog)
{
	printf("%s %s\n", prog, VT_VERSION);
	exit(fflush(stdout) || ferror(stdout) ? VT_EXIT_USAGE : VT_EXIT_OK);
}

/*
 * The option getopt_long stopped at, as the user typed it (without "=value").
 * optopt is 0 for an unknown long option and the option's value for a long
 * one with a missing or unwanted argument; argv[optind - 1] is the word read
 * last, unless getopt is inside a cluster of short options ("-qz").
 */
static const char *bad_option(const struct vt_cli *c, char *buf, size_t n)
{
	const char *a = c->argv[optind - 1];
	size_t len = strcspn(a, "=");
	int is_long = !strncmp(a, "--", 2) && !optopt;

	for (const struct option *lo = c->longopts; !is_long && lo->name && optopt; lo++)
		is_long = lo->val == optopt && !strncmp(a, "--", 2) &&
			  !strncmp(a + 2, lo->name, len - 2) && !lo->name[len - 2];
	if (is_long)
		snprintf(buf, n, "%.*s", (int)len, a);
	else
		snprintf(buf, n, "-%c", optopt);
	return buf;
}

/* How many long options start with p (getopt_long refuses an abbreviation of several). */
static int prefix_matches(const struct vt_cli *c, const char *p)
{
	int n = 0;

	for (const struct option *lo = c->longopts; lo->name; lo++)
		n += !strncmp(lo->name, p, strlen(p));
	return n;
}

int vt_cli_next(struct vt_cli *c)
{
	char opt[64];
	int ch;

	c->longindex = -1;
	ch = getopt_long(c->argc, c->argv, c->shortopts, c->longopts, &c->longindex);

	switch (ch) {
	case 'h':
		fputs(c->help, stdout);
		exit(fflush(stdout) || ferror(stdout) ? VT_EXIT_USAGE : VT_EXIT_OK);
	case 'V':
	case VT_OPT_VERSION:
		vt_cli_version(c->prog);
	case ':':
		vt_cli_usage(c, "option '%s' needs a value", bad_option(c, opt, sizeof(opt)));
	case '?':
		bad_option(c, opt, sizeof(opt));
		/* a long option without argument given "=value" */
		if (optopt && opt[1] == '-')
			vt_cli_usage(c, "option '%s' takes no value", opt);
		if (opt[1] == '-' && prefix_matches(c, opt + 2) > 1)
			vt_cli_usage(c, "option '%s' is ambiguous", opt);
		for (unsigned i = 0; opt[1] != '-' && i < c->nretired; i++)
			if (c->retired[i].opt == optopt)
				vt_cli_usage(
					c, "option '%s' is now %s (vartree(7), OPTION VOCABULARY)",
					opt, c->retired[i].use);
		vt_cli_usage(c, "unknown option '%s'", opt);
	}
	return ch;
}

void vt_cli_needs(const struct vt_cli *c, int given, const char *opt, int present,
		  const char *needs)
{
	if (given && !present)
		vt_cli_usage(c, "%s needs %s", opt, needs);
}

void vt_cli_exclusive(const struct vt_cli *c, int ngiven, const char *what)
{
	if (ngiven > 1)
		vt_cli_usage(c, "%s exclude each other", what);
}

/* ---- numbers */

/* A parser's refusal ends the command: its message, status 2. */
static void or_exit(const struct vt_cli *c, int rc, const vt_err *e)
{
	if (rc)
		vt_cli_die(c->prog, VT_EXIT_USAGE, "%s", e->msg);
}

uint64_t vt_cli_uint(const struct vt_cli *c, const char *opt, const char *s, uint64_t lo,
		     uint64_t hi)
{
	uint64_t v = 0;
	vt_err e;

	or_exit(c, vt_parse_uint(opt, s, lo, hi, &v, &e), &e);
	return v;
}

int64_t vt_cli_int(const struct vt_cli *c, const char *opt, const char *s, int64_t lo, int64_t hi)
{
	int64_t v = 0;
	vt_err e;

	or_exit(c, vt_parse_int(opt, s, lo, hi, &v, &e), &e);
	return v;
}

uint64_t vt_cli_size(const struct vt_cli *c, const char *opt, const char *s, uint64_t lo,
		     uint64_t hi)
{
	uint64_t v = 0;
	vt_err e;

	or_exit(c, vt_parse_size(opt, s, lo, hi, &v, &e), &e);
	return v;
}

double vt_cli_double(const struct vt_cli *c, const char *opt, const char *s, double lo, double hi)
{
	double v = 0;
	vt_err e;

	or_exit(c, vt_parse_double(opt, s, lo, hi, &v, &e), &e);
	return v;
}

int vt_cli_choice(const struct vt_cli *c, const char *opt, const char *s, const char *const *words)
{
	char list[256];
	size_t n = 0;
	int k;

	for (k = 0; words[k]; k++)
		if (!strcmp(s, words[k]))
			return k;
	list[0] = 0;
	for (int i = 0; i < k && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
				      !i	   ? ""
				      : i == k - 1 ? " or "
						   : ", ",
				      words[i]);
	vt_cli_die(c->prog, VT_EXIT_USAGE, "%s: '%s' is not one of %s", opt, s, list);
}

int vt_cli_live_opt(const struct vt_cli *c, int opt, struct vt_cli_live *l)
{
	if (opt == 'C')
		l->ca = optarg;
	else if (opt == 'P')
		l->port = (unsigned)vt_cli_uint(c, "-P", optarg, 0, 254);
	else
		return 0;
	l->given = 1;
	return 1;
}

void vt_cli_live_check(const struct vt_cli *c, const struct vt_cli_live *l, int live)
{
	vt_cli_needs(c, l->given, "-C/-P", live, "--live");
}

enum vt_speed vt_cli_speed(const struct vt_cli *c, const char *opt, const char *s)
{
	enum vt_speed sp = vt_speed_parse(s, (unsigned)strlen(s));

	if (sp == VT_SPEED_UNKNOWN)
		vt_cli_die(c->prog, VT_EXIT_USAGE,
			   "%s: '%s' is not one of SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR or XDR",
			   opt, s);
	return sp;
}

/* The LIDs under lmc, with a note when TOPOLOGY's could not be kept. */
static int cli_lmc_lids(const char *prog, vt_fabric *f, unsigned lmc, int quiet, vt_err *e)
{
	vt_err why;
	int r = vt_fabric_lmc_lids(f, lmc, &why, e);

	if (r > 0 && !quiet)
		fprintf(stderr,
			"%s: CA LIDs assigned anew for LMC %u, as vartree-route --lmc does (%s)\n",
			prog, lmc, why.msg);
	return r < 0 ? -1 : 0;
}

int vt_cli_fabric_lmc(const char *prog, vt_fabric *f, const char *topo, const char *lftfile,
		      int lmc, int quiet, vt_err *e)
{
	unsigned shown;

	if (lmc >= 0)
		return cli_lmc_lids(prog, f, (unsigned)lmc, quiet, e);
	/* a file naming an LMC (ibnetdiscover's "lmc 2") is taken at its word */
	if (!lftfile || vt_fabric_has_lmc(f))
		return 0;
	shown = vt_lfts_lmc(f, lftfile);
	if (shown && !quiet)
		fprintf(stderr, "%s: LMC %u from %s (%s names no LMC)\n", prog, shown, lftfile,
			topo);
	return shown ? cli_lmc_lids(prog, f, shown, quiet, e) : 0;
}
