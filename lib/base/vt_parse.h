/* SPDX-License-Identifier: MIT */
/*
 * Number parsers shared by the command lines and the input grammars (job
 * specs, option files): the whole of s in [lo, hi], or -1 with e set to
 * "OPT: 'S' is not an integer (LO..HI)" (or "a number" for doubles).
 * Integers are decimal, without sign for unsigned ones; no leading or
 * trailing blanks. vt_parse_size also takes a K, M or G suffix (powers of
 * 1024). Doubles must be finite. They never print: vt_cli's wrappers do.
 */
#ifndef VT_PARSE_H
#define VT_PARSE_H

#include <stdint.h>

#include "base/vt_err.h"

int vt_parse_uint(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *v, vt_err *e);
int vt_parse_int(const char *opt, const char *s, int64_t lo, int64_t hi, int64_t *v, vt_err *e);
int vt_parse_size(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *v, vt_err *e);
int vt_parse_double(const char *opt, const char *s, double lo, double hi, double *v, vt_err *e);

#endif
