/* SPDX-License-Identifier: MIT */
#ifndef VT_LFTBIN_H
#define VT_LFTBIN_H

#include <stddef.h>
#include <stdio.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "model/vt_lft.h"

/*
 * vartree's binary table file (vartree-route --lft-format binary), for fabrics
 * whose text dump runs to gigabytes; vt_lfts_read recognises it by its magic.
 * Little-endian: 8 bytes VT_LFTBIN_MAGIC, u32 switches S, u32 entries per
 * switch N (top LID + 1), then S records in node-GUID order: u64 switch node
 * GUID and N bytes, the egress port of LID 0 .. N-1 (255: no route).
 */
#define VT_LFTBIN_MAGIC "VTLFTB1\n"
int vt_lfts_write_bin(const vt_lfts *t, const vt_fabric *f, FILE *fp, vt_err *e);
int vt_lfts_read_bin_mem(vt_lfts *t, const vt_fabric *f, const char *buf, size_t len,
			 const char *name, vt_err *e);
/* prev set: as vt_lfts_read_prev, gone switches and LIDs beyond f's top skipped. */
int vt_lfts_read_bin_mem_opt(vt_lfts *t, const vt_fabric *f, const char *buf, size_t len,
			     const char *name, int prev, vt_err *e);

#endif
