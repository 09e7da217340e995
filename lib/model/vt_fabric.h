/* SPDX-License-Identifier: MIT */
/*
 * The fabric model: arrays of nodes and ports indexed by integers. Every node
 * owns nports+1 consecutive slots of ports[] (port 0 .. nports), so a port is
 * found by arithmetic and a link is a pair of port indices.
 */
#ifndef VT_FABRIC_H
#define VT_FABRIC_H

#include <stddef.h>
#include <stdint.h>

#include "base/vt_err.h"
#include "base/vt_hash.h"

#define VT_NONE	      UINT32_MAX
#define VT_MAX_UC_LID 0xBFFFu /* top unicast LID (IBA) */
#define VT_MAX_PORTS  254u    /* node port count limit: LFT port 255 means "no path" */

enum vt_node_type { VT_CA = 1, VT_SWITCH = 2, VT_ROUTER = 3 };

/* Lane speed, as ibnetdiscover prints it after the width ("4xQDR"). */
enum vt_speed {
	VT_SPEED_UNKNOWN = 0,
	VT_SDR,
	VT_DDR,
	VT_QDR,
	VT_FDR10,
	VT_FDR,
	VT_EDR,
	VT_HDR,
	VT_NDR,
	VT_XDR,
};

struct vt_port {
	uint32_t node; /* owning node */
	uint32_t peer; /* ports[] index of the far end, VT_NONE when unconnected */
	uint64_t guid; /* port GUID; every port of a switch carries the node's port-0 GUID */
	uint16_t lid;  /* base LID: CA and router ports, and port 0 of a switch; else 0 */
	uint8_t num;   /* port number */
	uint8_t lmc;
	uint8_t width; /* lanes 1, 2, 4, 8 or 12; 0 when unknown */
	uint8_t speed; /* enum vt_speed */
};

struct vt_node {
	uint64_t guid; /* node GUID */
	uint64_t sysguid;
	char *id;	     /* the record's quoted id ("S-0002c903..." or "Switch1") */
	char *desc;	     /* node description; equal to id when the input gives none */
	uint32_t first_port; /* ports[first_port + p] is port p, p = 0 .. nports */
	uint32_t sw;	     /* ordinal among switches, VT_NONE for other nodes */
	unsigned line;	     /* line of the record in the source, for messages */
	uint8_t nports;
	uint8_t type;	/* enum vt_node_type */
	uint16_t devid; /* NodeInfo DeviceID, 0 when unknown (the writer then picks one) */
};

typedef struct vt_fabric {
	char *source; /* file name, or a generator's description */
	struct vt_node *nodes;
	uint32_t nnodes, cap_nodes;
	struct vt_port *ports;
	uint32_t nports, cap_ports;
	uint32_t *switches; /* node indices of switches, in record order */
	uint32_t nswitches;
	uint32_t *lid_port; /* LID -> ports[] index or VT_NONE; max_lid + 1 entries */
	uint32_t max_lid;
	/* ports[] index -> line listing the port's link (0 unknown), for messages; a
	 * loader's, set after its last node; NULL when the source has no lines */
	uint32_t *link_line;
	/* hash tables (vt_hash.h), built by vt_fabric_finish() */
	vt_map64 guids; /* node index; port GUIDs of CA ports map to ports[] index | 1u<<31 */
	vt_hidx ids;	/* node index by id */
	int finished;
	/*
	 * Data VLs every link of a switch runs (OpenSM's operational VLs,
	 * VLCap of both ends); 0: not known (topology files do not say),
	 * VT_VLS_DEFAULT assumed (vt_fabric_vls).
	 */
	unsigned vls;
} vt_fabric;

/*
 * Why 4: OpenSM runs a link at the VLs both its ends offer (VLCap), and
 * common InfiniBand adapters offer VL0-3 where switches offer VL0-7; a
 * fabric that has fewer says so (vartree-route --vls, OpenSM's max_op_vls).
 */
#define VT_VLS_DEFAULT 4

/* The data VLs assumed of f: f->vls, or VT_VLS_DEFAULT where not known. */
static inline unsigned vt_fabric_vls(const vt_fabric *f)
{
	return f->vls ? f->vls : VT_VLS_DEFAULT;
}

vt_fabric *vt_fabric_new(const char *source);
void vt_fabric_free(vt_fabric *f);

/* Adds a node with ports 0..nports, all unconnected. id must be unique. */
int vt_fabric_add_node(vt_fabric *f, enum vt_node_type type, unsigned nports, uint64_t guid,
		       const char *id, const char *desc, uint32_t *out, vt_err *e);
/* Connects port pa of node a to port pb of node b (both must be free). */
int vt_fabric_connect(vt_fabric *f, uint32_t a, unsigned pa, uint32_t b, unsigned pb,
		      unsigned width, enum vt_speed speed, vt_err *e);
/*
 * Builds the lookup tables and checks the model. LIDs the input did not give
 * are assigned deterministically: nodes in record order, each switch's port 0
 * (LMC 0, as OpenSM gives it) and then each connected CA port in port order get
 * the next free LID, CA LIDs aligned to 2^lmc, starting above the highest LID
 * the input gave. Fails on duplicate GUIDs or LIDs.
 */
int vt_fabric_finish(vt_fabric *f, unsigned lmc, vt_err *e);
/*
 * Per switch ordinal and port (*stride = vt_fabric_sw_stride entries a switch),
 * the channel (ports[] index) the port sends on; VT_NONE for port 0, a port
 * past the switch's last or one without a link. Caller frees; NULL when out
 * of memory. Routes followed hop by hop look a channel up here, not per hop.
 */
uint32_t *vt_fabric_chan_table(const vt_fabric *f, uint32_t *stride);
/*
 * The LMC of a finished fabric whose file named none (opensm-subnet.lst,
 * ibdiagnet2.lst, db_csv): every LID-owning CA or router port keeps its LID
 * as the first of 2^lmc (switch port 0 keeps LMC 0, OpenSM's default). Fails
 * naming the port when a LID is not a multiple of 2^lmc, as the subnet manager
 * would have aligned it, or when two ranges overlap.
 */
int vt_fabric_set_lmc(vt_fabric *f, unsigned lmc, vt_err *e);
/*
 * The CA LIDs under LMC lmc, the one rule vartree-route --lmc and
 * vartree-analyze/-trace --lmc share, so tables routed with an LMC are read
 * with the LIDs they were routed for. When every LID-owning CA or router port's
 * LID is the first of 2^lmc and no ranges overlap (a subnet manager's LIDs),
 * they are kept as vt_fabric_set_lmc() does: returns 0. Else, when some of
 * those LIDs is odd (LMC 0 LIDs: a topology's, which vartree-route --lmc
 * replaces), the CA and router LIDs are assigned anew as vt_fabric_finish()
 * does, switch LIDs kept: returns 1, *why saying which port could not keep its
 * LID. Else (an SM's LIDs of another LMC) fails as vt_fabric_set_lmc() does:
 * -1, e set, as on any error.
 */
int vt_fabric_lmc_lids(vt_fabric *f, unsigned lmc, vt_err *why, vt_err *e);
/* Whether some CA or router port has an LMC (the file named it). */
int vt_fabric_has_lmc(const vt_fabric *f);

/* Lookups (after vt_fabric_finish); VT_NONE when absent. */
uint32_t vt_fabric_node_by_guid(const vt_fabric *f, uint64_t node_guid);
uint32_t vt_fabric_port_by_guid(const vt_fabric *f, uint64_t port_guid);
uint32_t vt_fabric_node_by_id(const vt_fabric *f, const char *id);

static inline struct vt_port *vt_port(const vt_fabric *f, uint32_t node, unsigned p)
{
	return &f->ports[f->nodes[node].first_port + p];
}

static inline uint32_t vt_port_index(const vt_fabric *f, uint32_t node, unsigned p)
{
	return f->nodes[node].first_port + p;
}

/* Port (ports[] index) that owns a LID, VT_NONE when none does. */
static inline uint32_t vt_fabric_port_by_lid(const vt_fabric *f, uint32_t lid)
{
	return lid <= f->max_lid ? f->lid_port[lid] : VT_NONE;
}

/* The node reached from a port's peer, VT_NONE if unconnected. */
static inline uint32_t vt_peer_node(const vt_fabric *f, uint32_t port)
{
	uint32_t q = f->ports[port].peer;
	return q == VT_NONE ? VT_NONE : f->ports[q].node;
}

/*
 * One more than the most ports of a switch: the row length of a table
 * indexed by switch ordinal and port number (port 0 included).
 */
static inline uint32_t vt_fabric_sw_stride(const vt_fabric *f)
{
	uint32_t k = 1;

	for (uint32_t s = 0; s < f->nswitches; s++)
		if (f->nodes[f->switches[s]].nports + 1u > k)
			k = f->nodes[f->switches[s]].nports + 1u;
	return k;
}

/*
 * The switch ordinal at the far end of a port's cable; VT_NONE for a CA, no
 * cable, or a loop-back to the port's own switch (it carries no route).
 */
static inline uint32_t vt_peer_switch(const vt_fabric *f, uint32_t port)
{
	uint32_t q = f->ports[port].peer;

	if (q == VT_NONE || f->ports[q].node == f->ports[port].node ||
	    f->nodes[f->ports[q].node].type != VT_SWITCH)
		return VT_NONE;
	return f->nodes[f->ports[q].node].sw;
}

/*
 * A node as every message names it: `"DESC" (0xGUID)`, the GUID as 16 hex
 * digits, since real fabrics repeat descriptions ("SwitchIB Mellanox
 * Technologies" on 80 switches). Writes into buf and returns it; a
 * description too long for len is cut, the GUID never (VT_NODE_NAME_MAX
 * holds any 64-byte IB NodeDescription).
 */
const char *vt_node_name(const vt_fabric *f, uint32_t node, char *buf, size_t len);
#define VT_NODE_NAME_MAX 96

/*
 * A refusal about a node, in the loaders' form: "SOURCE:LINE: cause", LINE
 * the line listing the link of its port `port` when the source gives it, else
 * the line of the node's record (port 0: always the record's); "SOURCE:
 * cause" when there is no line (generated fabrics, live discovery, OpenSM's
 * subnet) or no such node (VT_NONE: a leaf's CA where it has none). Returns -1. The arguments may
 * point into e->msg.
 */
int vt_err_node(vt_err *e, const vt_fabric *f, uint32_t node, unsigned port, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* A port's LID: a switch's port-0 LID for any of its ports, else the port's own; 0 unknown. */
static inline uint16_t vt_port_lid(const vt_fabric *f, uint32_t port)
{
	const struct vt_node *nd = &f->nodes[f->ports[port].node];

	return nd->type == VT_SWITCH ? f->ports[nd->first_port].lid : f->ports[port].lid;
}

/*
 * A port as every link list prints it: `"DESC" (0xGUID, lid L)/PORT` (", lid L"
 * only when the LID is known), so the text splits into node and port at the
 * last '/' even when the description holds slashes ("MF0;leaf15:MQM8700/U1"),
 * and the node part names it as vt_node_name() does. The description is cut to
 * fit len, never the GUID, LID or port (VT_PORT_NAME_MAX holds any).
 */
const char *vt_port_name(const vt_fabric *f, uint32_t port, char *buf, size_t len);

/* Hop distance of every node from the nearest CA (CAs 0, leaves 1, ...), UINT32_MAX where
 * no CA reaches; nnodes entries for the caller to free, NULL when out of memory. */
uint32_t *vt_fabric_ca_distance(const vt_fabric *f);
#define VT_PORT_NAME_MAX 120

/* Number of CAs / connected CA ports / links (each link counted once). */
uint32_t vt_fabric_count_cas(const vt_fabric *f);
uint32_t vt_fabric_count_links(const vt_fabric *f);

/*
 * A SHArP aggregation node: a CA on a switch port with its switch's system
 * image GUID (or described as one). Never a compute node, never a leaf's host.
 */
int vt_node_is_agg(const vt_fabric *f, uint32_t node);

const char *vt_speed_name(enum vt_speed s);
enum vt_speed vt_speed_parse(const char *s, unsigned len);
/* PortInfo LinkWidthActive (1, 2, 4, 8, 16) as lanes; 0 when unknown. */
unsigned vt_width_from_ib(unsigned link_width_active);
/*
 * PortInfo LinkSpeedActive and LinkSpeedExtActive (pass 0 when the port does
 * not support extended speeds) as a speed; fdr10 is Mellanox's extended
 * PortInfo telling FDR10 from QDR.
 */
enum vt_speed vt_speed_from_ib(unsigned speed_active, unsigned ext_active, int fdr10);
/* Data rate of one lane after line coding, in Mb/s (SDR 2000, ..., NDR 100000). */
unsigned vt_speed_lane_mbps(enum vt_speed s);

#endif
