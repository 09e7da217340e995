/* SPDX-License-Identifier: MIT */
/*
 * vartree's second VL inside OpenSM (see vt_route_vl): the routes the split
 * puts on VL 1 get SL VTP_SL from path_sl (the SA's PathRecord answers), and
 * update_sl2vl maps that SL to VL 1 on every port and every other SL away
 * from it, so VL 1 carries exactly those routes. OpenSM asks update_sl2vl
 * only with QoS on (qos TRUE); where QoS is off or a port has one data VL,
 * one log line says which routes are not covered and why, and path_sl keeps
 * them on the SL they asked for.
 */
#include <inttypes.h>
#include <stdio.h>

#include "vtp.h"

void vtp_vl_room(const struct vtp *p, char *why, size_t len)
{
	const osm_subn_t *subn = &p->osm->subn;
	const cl_qmap_t *tbl = &subn->node_guid_tbl;

	why[0] = 0;
	if (!subn->opt.qos) {
		snprintf(why, len, "QoS is off (qos FALSE): OpenSM sets no SL2VL tables");
		return;
	}
	if (subn->opt.max_op_vls < 2) {
		snprintf(why, len, "max_op_vls is %u: one data VL", (unsigned)subn->opt.max_op_vls);
		return;
	}
	for (const cl_map_item_t *it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it)) {
		osm_node_t *n = (osm_node_t *)it;

		for (uint8_t i = 1; i < osm_node_get_num_physp(n); i++) {
			osm_physp_t *ph = osm_node_get_physp_ptr(n, i);

			if (!ph || !osm_physp_get_remote(ph) ||
			    ib_port_info_get_vl_cap(&ph->port_info) >= 2)
				continue;
			snprintf(why, len, "port %u of \"%s\" (0x%016" PRIx64 ") has one data VL",
				 (unsigned)i, n->print_desc, cl_ntoh64(osm_node_get_node_guid(n)));
			return;
		}
	}
}

void vtp_vl_check(struct vtp *p)
{
	char why[300];

	p->vl_on = 0;
	if (!p->vl.nvl1)
		return;
	vtp_vl_room(p, why, sizeof(why));
	if (why[0]) {
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
			"ERR VT11: %" PRIu64 " routes from %u switches that are not leaves "
			"(switch-sourced: management traffic, CAs on spines) need VL 1 and are not "
			"covered: %s; they share VL 0, where they can close a credit loop\n",
			p->vl.nvl1, p->vl.nsrc, why);
		return;
	}
	p->vl_on = 1;
	if (p->vl.nopen) { /* the route's log line names the first and the credit loop */
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
			"ERR VT11: %" PRIu64 " routes from %u switches use SL %u and VL 1; every "
			"other route VL 0; %" PRIu64 " of them (from %u switches) close a credit "
			"loop on either VL and are not covered\n",
			p->vl.nvl1, p->vl.nsrc, VTP_SL, p->vl.nopen, p->vl.nopen_src);
		return;
	}
	OSM_LOG(&p->osm->log, OSM_LOG_INFO,
		"vartree: %" PRIu64 " routes from %u switches%s use SL %u and VL 1; every other "
		"route VL 0\n",
		p->vl.nvl1, p->vl.nsrc, p->vl.placed ? "" : " that are not leaves", VTP_SL);
}

/* The switch a route from slid starts at: its own, or a CA port's neighbour. */
static uint32_t source_switch(const vt_fabric *f, uint32_t slid)
{
	uint32_t port = vt_fabric_port_by_lid(f, slid), n;

	if (port == VT_NONE)
		return VT_NONE;
	n = f->ports[port].node;
	if (f->nodes[n].type != VT_SWITCH) {
		n = vt_peer_node(f, port);
		if (n == VT_NONE || f->nodes[n].type != VT_SWITCH)
			return VT_NONE;
	}
	return f->nodes[n].sw;
}

uint8_t vtp_path_sl(void *ctx, uint8_t hint, const ib_net16_t slid, const ib_net16_t dlid)
{
	const struct vtp *p = ctx;
	uint32_t sw;

	if (!p->prev_vl_on || !p->prev_fab)
		return hint;
	sw = source_switch(p->prev_fab, cl_ntoh16(slid));
	if (sw != VT_NONE && vt_vl_split_get(&p->prev_vl, sw, cl_ntoh16(dlid)))
		return VTP_SL;
	return hint == VTP_SL ? 0 : hint; /* VL 1 carries the split's routes only */
}

void vtp_update_sl2vl(void *ctx, osm_physp_t *port, uint8_t in, uint8_t out, ib_slvl_table_t *t)
{
	const struct vtp *p = ctx;
	uint8_t ops = ib_port_info_get_op_vls(&port->port_info);
	/* OpenSM masks each VL but 15 to the port's operational VLs after this */
	uint8_t mask = ops ? (uint8_t)((1u << (ops - 1)) - 1) : 0;

	if (!p->prev_vl_on)
		return;
	for (uint8_t sl = 0; sl < 16; sl++) {
		uint8_t vl = ib_slvl_table_get(t, sl);

		if (sl == VTP_SL)
			ib_slvl_table_set(t, sl, 1);
		else if (vl != 15 && (vl & mask) == 1)
			ib_slvl_table_set(t, sl, 0);
	}
}
