/* SPDX-License-Identifier: MIT */
/*
 * The release every command and script reports with --version
 * ("vartree-route 0.1.0"). The scripts in sim/ carry the same string;
 * tests/cli/conventions.sh checks that all agree with this one.
 */
#ifndef VT_VERSION_H
#define VT_VERSION_H

#define VT_VERSION "0.1.0"
/* getopt_long value of --version in every command (no short option) */
#define VT_OPT_VERSION 0x100

#endif
