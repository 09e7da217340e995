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

struct node_ref {
	const osm_node_t *node;
	uint32_t idx;
};

static int cmp_ref(const void *a, const void *b)
{
	const osm_node_t *x = ((const struct node_ref *)a)->node;
	const osm_node_t *y = ((const struct node_ref *)b)->node;

	return x < y ? -1 : x > y;
}

static uint32_t find_ref(const struct node_ref *refs, uint32_t n, const osm_node_t *node)
{
	struct node_ref key = {node, 0};
	const struct node_ref *r = bsearch(&key, refs, n, sizeof(*refs), cmp_ref);

	return r ? r->idx : VT_NONE;
}

static enum vt_speed speed_of(const ib_port_info_t *pi)
{
	unsigned ext = 0;

	if (pi->capability_mask & IB_PORT_CAP_HAS_EXT_SPEEDS)
		ext = ib_port_info_get_link_speed_ext_active(pi);
	/* FDR10 needs Mellanox's extended PortInfo, which the model does not take from OpenSM */
	return vt_speed_from_ib(ib_port_info_get_link_speed_active(pi), ext, 0);
}

/* A port that carries a link: valid on both ends. */
static const osm_physp_t *linked_physp(const osm_node_t *node, unsigned p)
{
	const osm_physp_t *ph = osm_node_get_physp_ptr((osm_node_t *)node, p);

	if (!ph || !osm_physp_is_valid(ph))
		return NULL;
	if (!ph->p_remote_physp || !osm_physp_is_valid(ph->p_remote_physp))
		return NULL;
	return ph;
}

static int add_node(vt_fabric *f, const osm_node_t *node, uint32_t *idx, vt_err *e)
{
	static const char tag[] = {'?', 'H', 'S', 'R'};
	uint8_t type = osm_node_get_type(node);
	unsigned nports = osm_node_get_num_physp(node) - 1;
	uint64_t guid = cl_ntoh64(osm_node_get_node_guid(node));
	char id[24], desc[IB_NODE_DESCRIPTION_SIZE + 1];
	enum vt_node_type vt = type == IB_NODE_TYPE_SWITCH   ? VT_SWITCH
			       : type == IB_NODE_TYPE_ROUTER ? VT_ROUTER
							     : VT_CA;

	/* the ids ibnetdiscover gives, so names match between the plugin's log and a dump */
	snprintf(id, sizeof(id), "%c-%016" PRIx64, tag[vt], guid);
	memcpy(desc, node->node_desc.description, IB_NODE_DESCRIPTION_SIZE);
	desc[IB_NODE_DESCRIPTION_SIZE] = '\0';
	if (vt_fabric_add_node(f, vt, nports, guid, id, desc[0] ? desc : id, idx, e))
		return -1;
	/* an aggregation node shares its switch's system image GUID (vt_node_is_agg) */
	f->nodes[*idx].sysguid = cl_ntoh64(node->node_info.sys_guid);
	if (vt == VT_SWITCH) {
		const osm_physp_t *p0 = osm_node_get_physp_ptr((osm_node_t *)node, 0);

		if (p0 && osm_physp_is_valid(p0)) {
			vt_port(f, *idx, 0)->lid = cl_ntoh16(osm_physp_get_base_lid(p0));
			vt_port(f, *idx, 0)->lmc = osm_physp_get_lmc(p0);
		}
		return 0;
	}
	for (unsigned p = 1; p <= nports; p++) {
		const osm_physp_t *ph = linked_physp(node, p);
		struct vt_port *pt = vt_port(f, *idx, p);

		if (!ph)
			continue;
		pt->guid = cl_ntoh64(osm_physp_get_port_guid(ph));
		pt->lid = cl_ntoh16(osm_physp_get_base_lid(ph));
		pt->lmc = osm_physp_get_lmc(ph);
	}
	return 0;
}

static int add_links(vt_fabric *f, const struct node_ref *refs, uint32_t n, const osm_node_t *node,
		     uint32_t a, vt_err *e)
{
	unsigned nports = osm_node_get_num_physp(node) - 1;

	for (unsigned p = 1; p <= nports; p++) {
		const osm_physp_t *ph = linked_physp(node, p), *rp;
		uint32_t b;
		unsigned q;

		if (!ph)
			continue;
		rp = ph->p_remote_physp;
		b = find_ref(refs, n, rp->p_node);
		q = osm_physp_get_port_num(rp);
		/* each link once, from its lower end */
		if (b == VT_NONE || b < a || (b == a && q < p))
			continue;
		if (vt_fabric_connect(f, a, p, b, q,
				      vt_width_from_ib(ph->port_info.link_width_active),
				      speed_of(&ph->port_info), e))
			return -1;
	}
	return 0;
}

int vtp_fabric_from_subnet(const osm_subn_t *subn, unsigned lmc, vt_fabric **out, vt_err *e)
{
	const cl_qmap_t *tbl = &subn->node_guid_tbl;
	uint32_t n = 0, cap = (uint32_t)cl_qmap_count(tbl);
	struct node_ref *refs = calloc(cap ? cap : 1, sizeof(*refs));
	/* the source messages name: "OpenSM's subnet: ..." and "... of OpenSM's subnet" */
	vt_fabric *f = vt_fabric_new("OpenSM's subnet");
	const cl_map_item_t *it;

	*out = NULL;
	if (!refs || !f) {
		vt_err_nomem(e, "out of memory");
		goto fail;
	}
	/* node_guid_tbl is ordered by GUID, so the model is the same on every sweep */
	for (it = cl_qmap_head(tbl); it != cl_qmap_end(tbl); it = cl_qmap_next(it)) {
		const osm_node_t *node = (const osm_node_t *)it;

		if (n == cap || osm_node_get_num_physp(node) < 2)
			continue;
		if (add_node(f, node, &refs[n].idx, e))
			goto fail;
		refs[n++].node = node;
	}
	qsort(refs, n, sizeof(*refs), cmp_ref);
	for (uint32_t i = 0; i < n; i++)
		if (add_links(f, refs, n, refs[i].node, refs[i].idx, e))
			goto fail;
	if (vt_fabric_finish(f, lmc, e))
		goto fail;
	free(refs);
	*out = f;
	return 0;
fail:
	free(refs);
	vt_fabric_free(f);
	return -1;
}
