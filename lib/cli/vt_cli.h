/* SPDX-License-Identifier: MIT */
/*
 * The command-line layer every vartree command shares: getopt_long with one
 * wording for usage errors, strict number parsing with range checks, the exit
 * status convention, --help and --version. Unlike the rest of lib/ it prints
 * and exits: it is the front ends' edge, never linked into OpenSM's plugin.
 *
 * Wordings (PROG is the command's name):
 *   usage error   "PROG: CAUSE. Try 'PROG --help'."  (unknown option, missing
 *                 value, missing or extra operand, options that exclude or
 *                 need each other)
 *   bad number    "PROG: --seed: 'abc' is not an integer (0..2^64-1)"
 *                 "PROG: --load: 'x' is not a number (1e-06..4)"
 *   --version     "PROG 0.1.0" on stdout
 */
#ifndef VT_CLI_H
#define VT_CLI_H

#include <getopt.h>
#include <stdint.h>

#include "base/vt_err.h"
#include "base/vt_parse.h"
#include "model/vt_fabric.h" /* enum vt_speed */
#include "base/vt_version.h" /* VT_VERSION, and VT_OPT_VERSION: getopt_long's value of --version */

/* Exit status of every command and script. */
#define VT_EXIT_OK    0
#define VT_EXIT_CHECK 1 /* a check failed: a refused fabric, an audit, a threshold, a lost path */
#define VT_EXIT_USAGE 2 /* usage or input error: bad option, unreadable or malformed file */

struct vt_cli {
	const char *prog;
	const char *help; /* printed whole by --help */
	const struct option *longopts;
	int argc;
	char **argv;
	int longindex;	    /* the long option vt_cli_next returned, -1 after a short one */
	char shortopts[64]; /* getopt's, with the ':' that makes it report missing values */
	/* short options given up for the shared vocabulary, and what replaced them */
	struct vt_cli_retired {
		char opt;
		const char *use;
	} retired[4];
	unsigned nretired;
};

/*
 * Starts reading argv. shortopts as getopt's (without a leading ':'); longopts
 * map "help" to 'h' and "version" to VT_OPT_VERSION ('h' is always help, and
 * 'V', added here, the version, as in infiniband-diags).
 */
void vt_cli_init(struct vt_cli *c, const char *prog, const char *help, const char *shortopts,
		 const struct option *longopts, int argc, char **argv);
/*
 * The next option (optarg set as by getopt_long), or -1 when only operands are
 * left (from argv[optind]). Handles --help and --version (print, exit 0) and
 * refuses an unknown option, a missing value or a value given to a flag
 * (usage error, exit 2): the caller's switch sees only its own options.
 */
int vt_cli_next(struct vt_cli *c);

/*
 * A short option the command gave up (vartree(7), OPTION VOCABULARY): given, it
 * is a usage error "option '-j' is now --json (...)" rather than "unknown".
 */
void vt_cli_retire(struct vt_cli *c, char opt, const char *use);
/* "PROG: CAUSE. Try 'PROG --help'." on stderr, exit VT_EXIT_USAGE. */
_Noreturn void vt_cli_usage(const struct vt_cli *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "PROG: MSG" on stderr, exit with status. */
_Noreturn void vt_cli_die(const char *prog, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "PROG VERSION" on stdout, exit 0. */
_Noreturn void vt_cli_version(const char *prog);

/*
 * The LMC of a loaded fabric: lmc when given (--lmc, >= 0), else, for a
 * fabric file that names none (opensm-subnet.lst) read with tables that show
 * one (vt_lfts_lmc), that one, with a note "PROG: LMC N from LFTS (TOPO names
 * no LMC)" on stderr unless quiet. lftfile may be NULL.
 */
int vt_cli_fabric_lmc(const char *prog, vt_fabric *f, const char *topo, const char *lftfile,
		      int lmc, int quiet, vt_err *e);
/* Refuses opt when given without what gives it a meaning: "OPT needs NEEDS" (usage error). */
void vt_cli_needs(const struct vt_cli *c, int given, const char *opt, int present,
		  const char *needs);
/* Refuses more than one of a set given together: "A and B exclude each other" (usage error). */
void vt_cli_exclusive(const struct vt_cli *c, int ngiven, const char *what);

/* Number parsers: base/vt_parse.h. */

/* The same, for a command line: the value, or the message and exit VT_EXIT_USAGE. */
uint64_t vt_cli_uint(const struct vt_cli *c, const char *opt, const char *s, uint64_t lo,
		     uint64_t hi);
int64_t vt_cli_int(const struct vt_cli *c, const char *opt, const char *s, int64_t lo, int64_t hi);
uint64_t vt_cli_size(const struct vt_cli *c, const char *opt, const char *s, uint64_t lo,
		     uint64_t hi);
double vt_cli_double(const struct vt_cli *c, const char *opt, const char *s, double lo, double hi);

/*
 * One of a list of words (NULL-terminated): its index, or a usage error
 * "OPT: 'S' is not one of A, B or C".
 */
int vt_cli_choice(const struct vt_cli *c, const char *opt, const char *s, const char *const *words);

/* An InfiniBand link speed (SDR .. NDR), or "OPT: 'S' is not one of SDR, DDR, ..." (exit 2). */
enum vt_speed vt_cli_speed(const struct vt_cli *c, const char *opt, const char *s);

/*
 * --live's local port, named as infiniband-diags names it: -C/--Ca CA and
 * -P/--Port PORT (0 .. 254; 0, the default, is the first active port, and a
 * switch's management port). Put VT_CLI_LIVE_OPTIONS in the long options and
 * "C:P:" in the short ones; the command's other options must not use 'C' or 'P'.
 */
struct vt_cli_live {
	const char *ca; /* NULL: the first CA */
	unsigned port;
	int given; /* -C or -P seen */
};
#define VT_CLI_LIVE_OPTIONS                                                                        \
	{"Ca", required_argument, 0, 'C'},                                                         \
	{                                                                                          \
		"Port", required_argument, 0, 'P'                                                  \
	}
/* Takes option c when it is -C or -P (returns 1), else returns 0. */
int vt_cli_live_opt(const struct vt_cli *c, int opt, struct vt_cli_live *l);
/* Refuses -C or -P without --live (usage error). */
void vt_cli_live_check(const struct vt_cli *c, const struct vt_cli_live *l, int live);

#endif
