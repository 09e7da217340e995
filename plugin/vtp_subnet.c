/* SPDX-License-Identifier: MIT */
/* OpenSM's discovered subnet -> vt_fabric: nodes, links, GUIDs and LIDs as OpenSM holds them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <complib/cl_qmap.h>
#include <opensm/osm_node.h>
#include <opensm/osm_port.h>
#include <opensm/osm_subnet.h>

#include "vtp.h"

/*
 * One node of OpenSM's subnet: its model index, and where its ports start
 * in the per-port arrays of struct scan.
 */
struct node_ref {
	const osm_node_t *node;
	uint32_t idx, first;
};

struct addr_ref {
	uintptr_t lo, hi; /* a node's port table */
	uint32_t ref;	  /* its refs index */
};

/*
 * What the model needs of every port, read once from the port's own record:
 * OpenSM's records are large and scattered, so reading the far end of each
 * link (its validity, node and number) took about a third of the subnet model at
 * 3888 hosts; the far end is found instead by its address in a node's port
 * table, and its validity in these arrays.
 */
struct scan {
	struct node_ref *refs;	  /* in node_guid_tbl order */
	struct addr_ref *by_addr; /* the same nodes by port table address */
	uint32_t n;
	uint8_t *valid;		    /* per node and port: OpenSM's port record is valid */
	const osm_physp_t **remote; /* its p_remote_physp (NULL: none) */
};

static int cmp_addr(const void *a, const void *b)
{
	uintptr_t x = ((const struct addr_ref *)a)->lo, y = ((const struct addr_ref *)b)->lo;

	return x < y ? -1 : x > y;
}

/* The refs index of the node whose port table holds ph, and its port number; VT_NONE: none. */
static uint32_t find_port(const struct scan *sc, const osm_physp_t *ph, unsigned *port)
{
	uintptr_t a = (uintptr_t)ph;
	uint32_t lo = 0, hi = sc->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct addr_ref *r = &sc->by_addr[mid];

		if (a < r->lo)
			hi = mid;
		else if (a >= r->hi)
			lo = mid + 1;
		else {
			*port = (unsigned)((a - r->lo) / sizeof(osm_physp_t));
			return r->ref;
		}
	}
	return VT_NONE;
}

/*
 * Port p of refs[i] carries a link: valid on both ends (the far end's
 * validity from the arrays; read from OpenSM only where no node of the model
 * holds it). Fills the far end's refs index (VT_NONE: outside the model) and port.
 */
static int linked(const struct scan *sc, uint32_t i, unsigned p, uint32_t *b, unsigned *q)
{
	uint32_t k = sc->refs[i].first + p;
	const osm_physp_t *rp = sc->remote[k];

	*b = VT_NONE;
	if (!sc->valid[k] || !rp)
		return 0;
	*b = find_port(sc, rp, q);
	if (*b == VT_NONE)
		return osm_physp_is_valid(rp);
	return sc->valid[sc->refs[*b].first + *q];
}

static enum vt_speed speed_of(const ib_port_info_t *pi)
{
	unsigned ext = 0;

	if (pi->capability_mask & IB_PORT_CAP_HAS_EXT_SPEEDS)
		ext = ib_port_info_get_link_speed_ext_active(pi);
	/* FDR10 needs Mellanox's extended PortInfo, which the model does not take from OpenSM */
	return vt_speed_from_ib(ib_port_info_get_link_speed_active(pi), ext, 0);
}

static int add_node(vt_fabric *f, const struct scan *sc, uint32_t i, vt_err *e)
{
	static const char tag[] = {'?', 'H', 'S', 'R'};
	const osm_node_t *node = sc->refs[i].node;
	uint8_t type = osm_node_get_type(node);
	unsigned nports = osm_node_get_num_physp(node) - 1, q;
	uint64_t guid = cl_ntoh64(osm_node_get_node_guid(node));
	char id[24], desc[IB_NODE_DESCRIPTION_SIZE + 1];
	enum vt_node_type vt = type == IB_NODE_TYPE_SWITCH   ? VT_SWITCH
			       : type == IB_NODE_TYPE_ROUTER ? VT_ROUTER
							     : VT_CA;
	uint32_t idx, b;

	/* the ids ibnetdiscover gives, so names match between the plugin's log and a dump */
	snprintf(id, sizeof(id), "%c-%016" PRIx64, tag[vt], guid);
	memcpy(desc, node->node_desc.description, IB_NODE_DESCRIPTION_SIZE);
	desc[IB_NODE_DESCRIPTION_SIZE] = '\0';
	if (vt_fabric_add_node(f, vt, nports, guid, id, desc[0] ? desc : id, &idx, e))
		return -1;
	sc->refs[i].idx = idx;
	/* an aggregation node shares its switch's system image GUID (vt_node_is_agg) */
	f->nodes[idx].sysguid = cl_ntoh64(node->node_info.sys_guid);
	if (vt == VT_SWITCH) {
		const osm_physp_t *p0 = &node->physp_table[0];

		if (sc->valid[sc->refs[i].first]) {
			vt_port(f, idx, 0)->lid = cl_ntoh16(osm_physp_get_base_lid(p0));
			vt_port(f, idx, 0)->lmc = osm_physp_get_lmc(p0);
		}
		return 0;
	}
	for (unsigned p = 1; p <= nports; p++) {
		const osm_physp_t *ph = &node->physp_table[p];
		struct vt_port *pt = vt_port(f, idx, p);

		if (!linked(sc, i, p, &b, &q))
			continue;
		pt->guid = cl_ntoh64(osm_physp_get_port_guid(ph));
		pt->lid = cl_ntoh16(osm_physp_get_base_lid(ph));
		pt->lmc = osm_physp_get_lmc(ph);
	}
	return 0;
}

static int add_links(vt_fabric *f, const struct scan *sc, uint32_t i, vt_err *e)
{
	const osm_node_t *node = sc->refs[i].node;
	unsigned nports = osm_node_get_num_physp(node) - 1;
	uint32_t a = sc->refs[i].idx;

	for (unsigned p = 1; p <= nports; p++) {
		const osm_physp_t *ph = &node->physp_table[p];
		uint32_t b;
		unsigned q;

		/* each link once, from its lower end */
		if (!linked(sc, i, p, &b, &q) || b == VT_NONE || (b = sc->refs[b].idx) < a ||
		    (b == a && q < p))
			continue;
		if (vt_fabric_connect(f, a, p, b, q,
				      vt_width_from_ib(ph->port_info.link_width_active),
				      speed_of(&ph->port_info), e))
			return -1;
	}
	return 0;
}

/* sc->refs, by_addr, valid and remote of every node with ports (n of cap), read once. */
static int scan_subnet(const cl_qmap_t *tbl, uint32_t cap, struct scan *sc)
{
	uint32_t n = 0, np = 0;
	const cl_map_item_t *it;

	sc->refs = calloc(cap ? cap : 1, sizeof(*sc->refs));
	sc->by_addr = calloc(cap ? cap : 1, sizeof(*sc->by_addr));
	if (!sc->refs || !sc->by_addr)
		return -1;
	/* node_guid_tbl is ordered by GUID, so the model is the same on every sweep */
	for (it = cl_qmap_head(tbl); it != cl_qmap_end(tbl) && n < cap; it = cl_qmap_next(it)) {
		const osm_node_t *node = (const osm_node_t *)it;
		uint32_t size = osm_node_get_num_physp(node);

		if (size < 2)
			continue;
		sc->refs[n] = (struct node_ref){node, VT_NONE, np};
		sc->by_addr[n] = (struct addr_ref){(uintptr_t)&node->physp_table[0],
						   (uintptr_t)&node->physp_table[size], n};
		n++;
		np += size;
	}
	sc->n = n;
	sc->valid = malloc(np + 1);
	sc->remote = malloc((np + 1) * sizeof(*sc->remote));
	if (!sc->valid || !sc->remote)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		const osm_node_t *node = sc->refs[i].node;

		for (uint32_t p = 0, k = sc->refs[i].first; p < osm_node_get_num_physp(node);
		     p++, k++) {
			sc->valid[k] = osm_physp_is_valid(&node->physp_table[p]) != 0;
			sc->remote[k] = node->physp_table[p].p_remote_physp;
		}
	}
	qsort(sc->by_addr, n, sizeof(*sc->by_addr), cmp_addr);
	return 0;
}

static void scan_free(struct scan *sc)
{
	free(sc->refs);
	free(sc->by_addr);
	free(sc->valid);
	free(sc->remote);
}

int vtp_fabric_from_subnet(const osm_subn_t *subn, unsigned lmc, vt_fabric **out, vt_err *e)
{
	const cl_qmap_t *tbl = &subn->node_guid_tbl;
	struct scan sc = {0};
	/* the source messages name: "OpenSM's subnet: ..." and "... of OpenSM's subnet" */
	vt_fabric *f = vt_fabric_new("OpenSM's subnet");

	*out = NULL;
	if (!f || scan_subnet(tbl, (uint32_t)cl_qmap_count(tbl), &sc)) {
		vt_err_nomem(e, "out of memory");
		goto fail;
	}
	for (uint32_t i = 0; i < sc.n; i++)
		if (add_node(f, &sc, i, e))
			goto fail;
	for (uint32_t i = 0; i < sc.n; i++)
		if (add_links(f, &sc, i, e))
			goto fail;
	if (vt_fabric_finish(f, lmc, e))
		goto fail;
	scan_free(&sc);
	*out = f;
	return 0;
fail:
	scan_free(&sc);
	vt_fabric_free(f);
	return -1;
}
