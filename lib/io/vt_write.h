/* SPDX-License-Identifier: MIT */
/*
 * Writes a fabric in the text form `ibnetdiscover` prints, which ibsim loads
 * as a net file too: per node the vendid=/devid=/sysimgguid= lines, then
 * switchguid=0xG(G) or caguid=0xG, the record header with the description
 * (and for switches "base port 0 lid L lmc 0"), then one line per connected
 * port with the far end's id, port, port GUID, description, LID and
 * width/speed ("4xQDR"). Ids are "S-%016x" / "H-%016x" / "R-%016x" of the
 * node GUID, as ibnetdiscover names nodes. Switches come first, then CAs,
 * then routers, each in record order.
 *
 * GUIDs and ibsim: ibsim gives each node the GUID of a counter per node type
 * (switches from 0x200000, CAs from 0x100000, a CA reserving nports+1 values,
 * CA port p = node GUID + p) and ignores the GUIDs inside ids and
 * "(portguid)" brackets; but a switchguid=/caguid= line sets that counter. So
 * the writer's per-node switchguid=/caguid= lines make ibsim take the file's
 * node GUIDs, and CA port GUIDs agree when they are node GUID + port number
 * (the generator's scheme). ibsim also takes the LIDs of the comments.
 * Fabrics whose descriptions contain '"', a newline or '=' (ibsim reads "x=n"
 * on a port line as a port option), or whose ids contain '"', '#' or '@', are
 * refused. ibsim keeps only the first 63 bytes of a description.
 */
#ifndef VT_WRITE_H
#define VT_WRITE_H

#include <stdio.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"

enum vt_write_flags {
	VT_WRITE_NO_LIDS = 1,	/* write "lid 0" everywhere (let the SM assign LIDs) */
	VT_WRITE_NO_HEADER = 2, /* no "# Topology file" comment block */
};

/* Writes f (finished) with LIDs; returns 0, or -1 with e set (also on I/O error). */
int vt_fabric_write(const vt_fabric *f, FILE *fp, vt_err *e);
int vt_fabric_write_flags(const vt_fabric *f, FILE *fp, unsigned flags, vt_err *e);

#endif
