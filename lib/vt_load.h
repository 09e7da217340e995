/* SPDX-License-Identifier: MIT */
/*
 * Fabric loaders: ibnetdiscover text (plain, -g, -f, -s output of
 * infiniband-diags), ibsim net files, and libibnetdisc cache files.
 *
 * Rules of the text loader:
 * - A record starts with `Switch N "id"`, `Hca N "id"`, `Ca N "id"` or
 *   `Rt N "id"`; port lines `[p] "rid"[rp]` follow, each bracket optionally
 *   followed by `(portguid)` or `[ext n]`, then an optional `# comment`.
 *   vendid=, devid=, sysimgguid=, switchguid=, caguid=, rtguid= lines, -g
 *   chassis lines and ibsim `do` lines are accepted (do lines are ignored).
 * - `include` lines are rejected ("include is not supported"): concatenate
 *   the files instead, so one source name and line number locates every error.
 * - The node description is the quoted string of the record's comment when
 *   there is one, else the id. LIDs come from "lid L lmc M" in comments;
 *   width and speed from a "4xQDR" token in the port comment or ibsim's
 *   w=/s= suffixes.
 * - Without GUIDs (ibsim net files) GUIDs are assigned the way ibsim does,
 *   so an offline load and a live ibnetdiscover of the same net file agree.
 * - Without LIDs, LIDs stay 0 and vt_fabric_finish() assigns them (see
 *   vt_fabric.h for the order).
 * - A link may be listed from one end only or from both; both ends must agree.
 *
 * On success *out is a finished fabric (LMC 0, LIDs of the file kept); on
 * failure *out is NULL and e->msg is one line "FILE:LINE: cause".
 */
#ifndef VT_LOAD_H
#define VT_LOAD_H

#include <stddef.h>

#include "vt_err.h"
#include "vt_fabric.h"

/* Text or cache, detected by content (the cache starts with its binary magic). */
int vt_load(const char *path, vt_fabric **out, vt_err *e);
int vt_load_text_file(const char *path, vt_fabric **out, vt_err *e);
/* buf need not be NUL-terminated; name is used in messages and as f->source. */
int vt_load_text_mem(const char *buf, size_t len, const char *name, vt_fabric **out, vt_err *e);
/* Reads a cache written by `ibnetdiscover --cache` through libibnetdisc. */
int vt_load_cache(const char *path, vt_fabric **out, vt_err *e);

struct ibnd_fabric;
/*
 * Converts a libibnetdisc fabric (from ibnd_discover_fabric or
 * ibnd_load_fabric) into a finished fabric, nodes in ibnetdiscover's print
 * order with its ids; source becomes f->source and prefixes messages
 * (lib/vt_load_ibnd.c, shared by vt_load_cache and vt_live).
 */
int vt_load_ibnd(const struct ibnd_fabric *fab, const char *source, vt_fabric **out, vt_err *e);

#endif
