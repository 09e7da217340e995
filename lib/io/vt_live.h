/* SPDX-License-Identifier: MIT */
/*
 * Live capture of a running subnet: discovery with libibnetdisc, then every
 * switch's linear forwarding table read with SubnGet(LinearForwardingTable)
 * SMPs, 64 entries a block, through LinearFDBTop inclusive. (dump_fts and
 * ibroute of infiniband-diags 44 stop one block short when LinearFDBTop is a
 * multiple of 64; this reads that block.)
 */
#ifndef VT_LIVE_H
#define VT_LIVE_H

#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "model/vt_lft.h"

/*
 * Discovers the subnet through CA ca (NULL: the first) port port (0: the
 * first active) into *f (finished, as vt_load_ibnd builds it) and fills t
 * (vt_lfts_init) with every switch's LFT; entries naming a port beyond the
 * switch's port count stay VT_LFT_NONE. On failure nothing is allocated.
 */
int vt_live_capture(const char *ca, int port, vt_fabric **f, vt_lfts *t, vt_err *e);

/* Number of 64-entry LFT blocks that hold LIDs 0 .. top. */
static inline unsigned vt_live_lft_blocks(unsigned top)
{
	return top / 64 + 1;
}

#endif
