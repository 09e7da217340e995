/* SPDX-License-Identifier: MIT */
/*
 * One route through given forwarding tables, hop by hop (an offline ibtracert),
 * saying where and why it stops when it does not arrive; and, for one channel,
 * which rank pairs of a vt_routes cross it (tie a hot port counter to flows).
 *
 * Addressing: nodes as administrators name them (lib/vt_addr in spirit, here
 * because only tracing needs it): a node description, its first word (the host
 * name, as infiniband-diags and Slurm use it), the record id, a node or port
 * GUID, a LID, or a rank of an order.
 */
#ifndef VT_PATH_H
#define VT_PATH_H

#include <stdint.h>

#include "analysis/vt_congest.h"
#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "model/vt_lft.h"
#include "model/vt_order.h"

enum vt_path_end {
	VT_PATH_OK,	     /* delivered to the port that owns the LID */
	VT_PATH_NO_ENTRY,    /* a switch has no entry (or port 255) for the LID */
	VT_PATH_BAD_PORT,    /* an entry names a port the switch does not have */
	VT_PATH_DOWN,	     /* an entry (or the source port) leads to an unconnected port */
	VT_PATH_LOOP,	     /* more hops than switches: the walk came back */
	VT_PATH_MISDELIVERY, /* it reached a CA port, or a switch's port 0, that is not the LID's */
};

struct vt_path {
	uint32_t *hop;	/* ports[] index each hop leaves from; hop[0] is the source */
	uint32_t nhops; /* links crossed */
	enum vt_path_end end;
	uint32_t end_node; /* node where the walk stopped */
	uint8_t end_port;  /* the LFT entry there (NO_ENTRY, BAD_PORT, DOWN) */
};

/*
 * Walks from port src (a CA or router port, or port 0 of a switch) toward
 * dlid. Returns 0 with p filled (whatever end it met), -1 only when out of
 * memory. Caller frees with vt_path_free.
 */
int vt_path_walk(const vt_fabric *f, const vt_lfts *t, uint32_t src, uint32_t dlid,
		 struct vt_path *p, vt_err *e);
void vt_path_free(struct vt_path *p);
/* "delivered", "no table entry", "port out of range", "port down", "loop", "misdelivered". */
const char *vt_path_end_name(enum vt_path_end end);

/*
 * Per destination rank d and switch s: via[d * nsw + s] = 1 when the route
 * from s to d crosses channel chan (r->next pruned to good paths, as the
 * congestion counts use it). A flow src -> dst crosses chan when its first
 * channel r->rank_up[src] is chan or via[dst * nsw + r->rank_sw[src]] is 1,
 * provided it is routed (vt_path_routed). Caller frees *via.
 */
int vt_path_via(const vt_routes *r, uint32_t chan, uint8_t **via, vt_err *e);

static inline int vt_path_routed(const vt_routes *r, uint32_t src, uint32_t dst)
{
	uint32_t sw = r->rank_sw[src];
	return sw != VT_NONE && r->rank_sw[dst] != VT_NONE &&
	       r->next[(uint64_t)dst * r->nsw + sw] != VT_NONE;
}

static inline int vt_path_crosses(const vt_routes *r, const uint8_t *via, uint32_t chan,
				  uint32_t src, uint32_t dst)
{
	return vt_path_routed(r, src, dst) &&
	       (r->rank_up[src] == chan || via[(uint64_t)dst * r->nsw + r->rank_sw[src]]);
}

enum vt_addr_kind { VT_ADDR_NAME, VT_ADDR_GUID, VT_ADDR_LID, VT_ADDR_RANK };

/*
 * Resolves an address to a port: a CA's first connected port (a port GUID or
 * LID picks that port), or port 0 of a switch. *lid is the LID to route to:
 * the one given with VT_ADDR_LID, else the port's base LID. Names match a
 * node description exactly, else a record id, else the first word of
 * descriptions; a name matching several nodes is an error listing them. o is
 * needed for VT_ADDR_RANK only.
 */
int vt_addr_resolve(const vt_fabric *f, const vt_order *o, enum vt_addr_kind k, const char *s,
		    uint32_t *port, uint32_t *lid, vt_err *e);
/*
 * A node by name or GUID (0x...), as vt_addr_resolve matches them, or as link
 * lists print it (`"DESC" (0xGUID, lid L)`, vt_port_name); VT_NONE with e set.
 */
uint32_t vt_addr_node(const vt_fabric *f, const char *s, vt_err *e);

#endif
