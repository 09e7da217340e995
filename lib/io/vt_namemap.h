/* SPDX-License-Identifier: MIT */
/*
 * infiniband-diags' node name map (ibnetdiscover(8), ibroute(8) --node-name-map):
 * one node per line, "GUID NAME": the node GUID (0x... hexadecimal, or any
 * strtoull base-0 form) and the name, in double quotes or the rest of the
 * line; '#' starts a comment, blank lines are skipped. Without a file the
 * tools read /etc/rdma/ib-node-name-map when it exists.
 *
 * Applying a map replaces the description of every node whose GUID it lists
 * (GUIDs the fabric does not hold are ignored: a site's map covers more than
 * one fabric). The front ends apply it after routing and ordering, so the
 * map changes the names printed and the names accepted on the command line,
 * never the tables or the rank order (OpenSM's plugin sees the real
 * descriptions, and so does every computation that sorts by them).
 */
#ifndef VT_NAMEMAP_H
#define VT_NAMEMAP_H

#include "base/vt_err.h"
#include "model/vt_fabric.h"

#define VT_NODE_NAME_MAP_DEFAULT "/etc/rdma/ib-node-name-map"

/*
 * Applies the map at path; path NULL: the default file when it exists, else
 * nothing. Errors are one line "FILE:LINE: cause" (or "FILE: cause");
 * *renamed (may be NULL) gets the number of nodes renamed.
 */
int vt_namemap_apply(vt_fabric *f, const char *path, unsigned *renamed, vt_err *e);

#endif
