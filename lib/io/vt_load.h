/* SPDX-License-Identifier: MIT */
/*
 * Fabric loaders: ibnetdiscover text (plain, -g, -f, -s output of
 * infiniband-diags, and ibdiagnet's ibnetdiscover-style files), ibsim net
 * files, libibnetdisc cache files, ibdiagnet2.lst / opensm-subnet.lst link
 * lists and ibdiagnet2.db_csv (lib/io/vt_load_ibdiag.c).
 *
 * Rules of the text loader:
 * - A record starts with `Switch N "id"`, `Hca N "id"`, `Ca N "id"` or
 *   `Rt N "id"` (N ports, 1..254); port lines `[p] "rid"[rp]` follow, each
 *   bracket optionally followed by `[ext n]` and `(portguid)`, then ibsim
 *   options and an optional `# comment`. A blank or other line ends the record;
 *   `#` lines inside it do not. `"rid"` without `[rp]` means remote port 1.
 * - vendid=, devid=, -g chassis lines, -s progress lines and ibsim `do` lines
 *   are ignored. So are what gets captured with a dump: a UTF-8 byte-order
 *   mark, a shell prompt line ("[root@h ~]# ibnetdiscover"), and the error
 *   lines ibnetdiscover and libibmad print ("ibwarn: ...", "src/x.c:195; ..."),
 *   these also inside a record. `include`, `module` and `@` port aliases are rejected:
 *   concatenate the files, so one source name and line locate every error.
 *   So are ibnetdiscover's reports that hold no topology: the node lists of
 *   -l/-H/-S/-R and the port report of -p.
 * - The node description is the quoted string of the header's comment, running
 *   to the last quote of the line (ibnetdiscover does not escape quotes inside
 *   it), or ibsim's unquoted form, else the id. LIDs come from "lid L lmc M" in the
 *   switch header's comment and in CA/router port comments.
 * - Width and speed: a "4xQDR" token in the port comment (1x, 2x, 4x, 8x, 12x;
 *   SDR .. XDR; "??" or "???" for what ibnetdiscover could not name keeps the
 *   other part), else ibsim's enables:
 *   `w=` (LinkWidthEnabled bits), `s=` (speed bits, 0 = QDR), `e=` (extended
 *   speed bits) on the port line, or the `width=`, `speed=`, `extspeed=`
 *   defaults in force when the node was defined (default 4x SDR). When both
 *   ends list a link it runs at the best width and speed both enable, as in
 *   ibsim, but a part one end's line leaves unnamed ("??", "???") is the
 *   other end's when that line names it; listed from one end only, or named
 *   by neither, at what the defaults and options give (4x SDR in a dump).
 * - GUIDs as ibsim assigns them, so an offline load of a net file and a live
 *   ibnetdiscover of the same file agree: switches from 0x200000, one GUID
 *   each; CAs from 0x100000 and routers from 0, each taking nports + 1 GUIDs
 *   (node GUID G, port p G + p); `switchguid=`, `caguid=`/`hcaguids=`,
 *   `rtguid=` set the next GUID (`+` relative to the last `=`), `sysimgguid=`
 *   the next node's system GUID. A `(portguid)` on the local bracket wins;
 *   one equal to the port number or not a number is ibdiagnet's port label
 *   ("[1](1)") and ignored. ibdiagnet writes `switchguid=SYSIMG(NODE)` where
 *   ibnetdiscover writes `switchguid=NODE(PORT)`: the value the record's id
 *   ("S-<guid>") names is the node GUID, else, in a file with the IBDIAG
 *   header, the one in parentheses.
 *   Ports left unconnected carry no GUID (dumps do not list them).
 * - Without LIDs (net files, or "lid 0") LIDs stay 0 and vt_fabric_finish()
 *   assigns them in the order vt_fabric.h describes.
 * - A link may be listed from one end or both (ibsim itself needs both); both
 *   ends must then agree.
 *
 * On success *out is a finished fabric (LMC 0, LIDs of the file kept); on
 * failure *out is NULL and e->msg is one line "FILE:LINE: cause" (or
 * "FILE: cause" when no line applies: missing file, bad cache), the cause
 * naming nodes as vt_node_name() does: "DESC" (0xGUID).
 */
#ifndef VT_LOAD_H
#define VT_LOAD_H

#include <stddef.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"

/*
 * Any format above, detected by content: the cache by its binary magic; of
 * text, the first line that is neither blank nor a '#' comment tells: "{ SW
 * Ports:.." is a link list (ibdiagnet2.lst, opensm-subnet.lst), "START_.." an
 * ibdiagnet2.db_csv, anything else ibnetdiscover / ibsim text.
 */
int vt_load(const char *path, vt_fabric **out, vt_err *e);
/* The text formats of vt_load() from memory; name is used in messages and as f->source. */
int vt_load_mem(const char *buf, size_t len, const char *name, vt_fabric **out, vt_err *e);
/*
 * ibdiagnet2.lst and OpenSM's opensm-subnet.lst: one line per port with a
 * link, "{ SW Ports:24 SystemGUID:G NodeGUID:G PortGUID:G VenID:V DevID:D
 * Rev:R {DESC} LID:0001 PN:01 } { CA ... } PHY=4x LOG=ACT SPD=10" (numbers
 * hex; PHY the width; SPD 2.5, 5, 10, FDR10, 14, 25, 50, 100 Gb/s per lane for
 * SDR .. NDR); a link listed from both ends must agree, in its rate too: a
 * width or speed one line does not name ("??", "???") comes from the other,
 * FDR10 wins over QDR (what a port says of FDR10 without Mellanox's extended
 * PortInfo), and two named ones that differ are refused ("FILE:LINE: A port p
 * links to B port q at 1x EDR, but line L lists that link at 4x EDR"). A node's LID is that
 * of its port (switches: port 0); ids become "S-<guid>", "H-<guid>", "R-<guid>".
 */
int vt_load_lst_mem(const char *buf, size_t len, const char *name, vt_fabric **out, vt_err *e);
/*
 * ibdiagnet2.db_csv: its NODES (NodeDesc, NumPorts, NodeType 1 CA / 2 switch /
 * 3 router, SystemImageGUID, NodeGUID), PORTS (NodeGuid, PortGuid, PortNum,
 * LID, LinkWidthActv, LinkSpeedActv, LinkSpeedExtActv) and LINKS (NodeGuid1,
 * PortNum1, NodeGuid2, PortNum2) sections, columns found by their header row;
 * a link's width and speed are its ends' PORTS rows', as for the lst: what
 * one row names none of (N/A, 0) the other's gives; two that differ are
 * refused at the LINKS row. Other sections are skipped. Rows are CSV; a quoted
 * field ends at a quote before a comma or the line's end, so quotes inside descriptions are kept.
 */
int vt_load_csv_mem(const char *buf, size_t len, const char *name, vt_fabric **out, vt_err *e);
int vt_load_text_file(const char *path, vt_fabric **out, vt_err *e);
/* buf need not be NUL-terminated; name is used in messages and as f->source. */
int vt_load_text_mem(const char *buf, size_t len, const char *name, vt_fabric **out, vt_err *e);
/* Reads a cache written by `ibnetdiscover --cache` through libibnetdisc. */
int vt_load_cache(const char *path, vt_fabric **out, vt_err *e);
/* Whether buf starts with libibnetdisc's cache magic (vt_load() tells the forms by it). */
int vt_load_is_cache(const char *buf, size_t len);

struct ibnd_fabric;
/*
 * Converts a libibnetdisc fabric (from ibnd_discover_fabric or
 * ibnd_load_fabric) into a finished fabric, nodes in ibnetdiscover's print
 * order with its ids; source becomes f->source and prefixes messages
 * (lib/io/vt_load_ibnd.c, shared by vt_load_cache and vt_live). A link's width
 * and speed come from both ends' PortInfo as the text loader takes a link's
 * two rate tokens: a part one end names none of (0) is the other's; two that
 * differ give the lower (1x against 4x is 1x, EDR against HDR is EDR), which
 * both ends can run; named by neither they stay unknown (0). Two differences
 * from the text loader, since PortInfo states one active width and speed and
 * not ibsim's enables: widths with no common ibsim enable (2x against 4x, 8x
 * against 4x or 12x), which the text loader refuses, give the narrower, and
 * QDR against FDR10 is FDR10, as for the lst (an end without Mellanox's
 * extended PortInfo reads FDR10 as QDR). Neither is refused: a cache taken
 * while a link retrained still loads (1eda55e).
 */
int vt_load_ibnd(const struct ibnd_fabric *fab, const char *source, vt_fabric **out, vt_err *e);

#endif
