/* SPDX-License-Identifier: MIT */
/*
 * JSON output through jansson (Debian's libjansson): values built as json_t
 * trees, dumped in one piece. Node descriptions are bytes, not necessarily
 * UTF-8 (a NodeDesc is 64 arbitrary bytes): vt_json_text() keeps the valid
 * UTF-8 sequences and replaces every other byte by U+FFFD, so the output is
 * always valid JSON that any parser accepts.
 */
#ifndef VT_JSON_H
#define VT_JSON_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"

/* A JSON string of s (NULL gives null); NULL when out of memory. */
json_t *vt_json_text(const char *s);
/* "0x%016x", the form GUIDs take in infiniband-diags output. */
json_t *vt_json_guid(uint64_t guid);
/* {"desc": ..., "guid": "0x...", "lid": lid, "port": num} for ports[] index p, the fields
 * of vt_port_name() (lid null when unknown). */
json_t *vt_json_port(const vt_fabric *f, uint32_t p);
/* {"desc": ..., "guid": "0x...", "lid": lid} for node n (lid null when unknown). */
json_t *vt_json_node(const vt_fabric *f, uint32_t n);
/*
 * An unsigned 64-bit count or seed: a JSON integer up to 2^63-1 (jansson's
 * json_int_t), beyond it a string of its decimal digits, never a wrapped value.
 */
json_t *vt_json_u64(uint64_t v);
/*
 * x rounded to the given decimals, halves away from zero (1003.125 -> 1003.13), the rule of
 * every figure vartree writes in JSON; text outputs that print the same figure (CSV) print
 * this value with printf's %.*f so both agree, where printf alone rounds the binary value.
 */
double vt_json_round(double x, int decimals);
/* vt_json_round(x, decimals) as a JSON real, so output carries no binary noise ("1.9"). */
json_t *vt_json_real(double x, int decimals);
/* Sets key of obj to v, taking v's reference (jansson's json_object_set_new). */
static inline void vt_json_set(json_t *obj, const char *key, json_t *v)
{
	json_object_set_new(obj, key, v);
}
/* Writes v on one line (keys in insertion order, ", " and ": " between items, reals with
 * at most 15 significant digits) and a newline; drops v's reference. */
int vt_json_dump(json_t *v, FILE *fp, vt_err *e);

#endif
