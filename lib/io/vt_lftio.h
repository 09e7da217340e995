/* SPDX-License-Identifier: MIT */
/*
 * Forwarding-table files: OpenSM's opensm-lfts.dump (which `opensm -R file
 * -U FILE` loads back), the output of infiniband-diags' ibroute / dump_fts
 * (the same grammar), OpenSM's opensm.fdbs and ibdiagnet's ibdiagnet2.fdbs
 * (the fdbs grammar; of its pLFTs only pLFT 0, the LFT).
 *
 * Switches are matched by node GUID; every LID entry is mapped into the
 * vt_lfts of the fabric. Errors are one line "FILE:LINE: cause": a switch
 * GUID the fabric does not hold, a malformed line, a port beyond the
 * switch's port count, a LID beyond the fabric's top LID.
 */
#ifndef VT_LFTIO_H
#define VT_LFTIO_H

#include <stddef.h>
#include <stdio.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "model/vt_lft.h"

/* Writes t in OpenSM's opensm-lfts.dump format (what `opensm -R file -U FILE` loads back). */
int vt_lfts_write(const vt_lfts *t, const vt_fabric *f, FILE *fp, vt_err *e);
/*
 * Reads LFTs for fabric f from OpenSM's opensm-lfts.dump, ibroute / dump_fts
 * output (same grammar), or OpenSM's opensm.fdbs; format detected from
 * content. Allocates t (vt_lfts_init); on failure t holds nothing.
 */
int vt_lfts_read(vt_lfts *t, const vt_fabric *f, const char *path, vt_err *e);
/*
 * Whether tables read from name fit the fabric, so that a partial or foreign
 * file is reported instead of counted as unrouted flows: fails with one line
 * when some switches have no entry at all ("47 of 48 switches have no table
 * in FILE: first "DESC" (0xGUID)"; a multicast-only dump_fts -M, one ibroute)
 * or when a switch's own LID does not lead to its port 0, as every routing
 * sets it ("LIDs in FILE do not match the topology: first ...": tables of
 * another sweep or fabric).
 */
int vt_lfts_check(const vt_lfts *t, const vt_fabric *f, const char *name, vt_err *e);
/*
 * Tables of an earlier sweep (vartree-route --previous) for the fabric as it
 * is now: as vt_lfts_read, but the sections of switches f no longer holds and
 * the entries of LIDs beyond its top LID are skipped (a switch or a leaf has
 * failed since).
 */
int vt_lfts_read_prev(vt_lfts *t, const vt_fabric *f, const char *path, vt_err *e);
/*
 * The LMC the tables of path show, for a fabric file that names none
 * (opensm-subnet.lst): OpenSM's opensm-lfts.dump, ibroute and dump_fts name
 * the port GUID each LID leads to, so a CA port's 2^LMC LIDs all name it.
 * The smallest LMC whose 2^LMC covers the entries of the first switch (every
 * LID) naming one CA port, whatever LIDs the fabric file gives it (vartree-route
 * --lmc assigns its own); 0 when none is, or the file names no port GUIDs
 * (opensm.fdbs, ibdiagnet2.fdbs, vartree's binary form) or cannot be read
 * (vt_lfts_read reports that).
 */
unsigned vt_lfts_lmc(const vt_fabric *f, const char *path);
/* The same from memory; buf need not be NUL-terminated, name is used in messages. */
int vt_lfts_read_mem(vt_lfts *t, const vt_fabric *f, const char *buf, size_t len, const char *name,
		     vt_err *e);

#endif
