/* SPDX-License-Identifier: MIT */
/*
 * vartree's further VLs inside OpenSM (see vt_route_vl): the routes the
 * split puts on VL v (1, and 2 and on where VL 1's close a credit loop among
 * themselves) get SL v from path_sl (the SA's PathRecord answers), and
 * update_sl2vl maps SL v to VL v on every port and every other SL away from
 * those VLs, so each carries exactly its routes; SL equals VL as dfsssp and
 * lash have it. The split uses at most the data VLs every link of a switch
 * runs (vtp_vl_links, as OpenSM sets OperVLs: the lower VLCap of the two
 * ends, at most max_op_vls; dfsssp and lash also take every switch port's),
 * the fewest that cover the routes.
 * OpenSM asks update_sl2vl only with QoS on (qos TRUE); where QoS is off or
 * a link has one data VL, one log line says which routes are not covered
 * and why, and path_sl keeps them on the SL they asked for.
 */
#include <inttypes.h>
#include <stdio.h>

#include "vtp.h"

/* OperVLs/VLCap's code (IBA 14.2.5.6: 1 VL0, 2 VL0-1, 3 VL0-3, 4 VL0-7, 5 VL0-14) as data VLs. */
static unsigned data_vls(uint8_t code)
{
	return code < 1 ? 1 : code >= 5 ? 15 : 1u << (code - 1);
}

unsigned vtp_vl_links(const osm_subn_t *subn, char *where, size_t len)
{
	const cl_qmap_t *tbl = &subn->node_guid_tbl;
	unsigned least = data_vls(subn->opt.max_op_vls);

	if (where && len)
		where[0] = 0;
	for (const cl_map_item_t *it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it)) {
		osm_node_t *n = (osm_node_t *)it;

		if (osm_node_get_type(n) != IB_NODE_TYPE_SWITCH)
			continue;
		for (uint8_t i = 1; i < osm_node_get_num_physp(n); i++) {
			osm_physp_t *ph = osm_node_get_physp_ptr(n, i), *r;
			uint8_t a, b;

			if (!ph || !(r = osm_physp_get_remote(ph)))
				continue;
			a = ib_port_info_get_vl_cap(&ph->port_info);
			b = ib_port_info_get_vl_cap(&r->port_info);
			if (data_vls(a < b ? a : b) >= least)
				continue;
			least = data_vls(a < b ? a : b);
			if (where && len)
				snprintf(where, len, "port %u of \"%s\" (0x%016" PRIx64 ")",
					 (unsigned)i, n->print_desc,
					 cl_ntoh64(osm_node_get_node_guid(n)));
		}
	}
	return least;
}

void vtp_vl_room(const struct vtp *p, char *why, size_t len)
{
	const osm_subn_t *subn = &p->osm->subn;
	char where[300];

	why[0] = 0;
	if (!subn->opt.qos) {
		snprintf(why, len, "QoS is off (qos FALSE): OpenSM sets no SL2VL tables");
		return;
	}
	if (subn->opt.max_op_vls < 2) {
		snprintf(why, len, "max_op_vls is %u: one data VL", (unsigned)subn->opt.max_op_vls);
		return;
	}
	if (vtp_vl_links(subn, where, sizeof(where)) < 2)
		snprintf(why, len, "%s has one data VL", where);
}

/* ", N routes from M switches SL v and VL v" for each VL past 1, into buf. */
static void more_vls(const vt_vl_split *s, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = 0;
	for (unsigned v = 2; v < s->nvls && k < len; v++)
		k += (size_t)snprintf(buf + k, len - k,
				      ", %" PRIu64 " routes from %u switches SL %u and VL %u",
				      s->nvl[v], s->nsrcs[v], v, v);
}

void vtp_vl_check(struct vtp *p)
{
	char why[300], more[40 * VT_VL_MAX];
	const vt_vl_split *s = &p->vl;

	p->vl_on = 0;
	if (!s->nvl1)
		return;
	vtp_vl_room(p, why, sizeof(why));
	if (why[0]) {
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
			"ERR VT11: %" PRIu64 " routes from %u switches that are not leaves "
			"(switch-sourced: management traffic, CAs on spines) need VL %s and are "
			"not covered: %s; they share VL 0, where they can close a credit loop\n",
			s->nvl1, s->nsrc, s->nvls > 2 ? "1 and on" : "1", why);
		return;
	}
	p->vl_on = 1;
	more_vls(s, more, sizeof(more));
	if (s->nopen) { /* the route's log line names the first and the credit loop */
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
			"ERR VT11: %" PRIu64
			" routes from %u switches use SL %u and VL %u%s; every "
			"other route VL 0; %" PRIu64 " of them (from %u switches) close a credit "
			"loop on %s VL and are not covered%s%.0u%s\n",
			s->nvls > 2 ? s->nvl[1] : s->nvl1, s->nvls > 2 ? s->nsrcs[1] : s->nsrc,
			VTP_SL, VTP_SL, more, s->nopen, s->nopen_src,
			s->nvls > 2 ? "every" : "either", s->need ? ": the links run " : "",
			s->need ? s->cap : 0, s->need ? " data VLs, too few" : "");
		return;
	}
	OSM_LOG(&p->osm->log, OSM_LOG_INFO,
		"vartree: %" PRIu64 " routes from %u switches%s use SL %u and VL %u%s; every other "
		"route VL 0\n",
		s->nvls > 2 ? s->nvl[1] : s->nvl1, s->nvls > 2 ? s->nsrcs[1] : s->nsrc,
		s->placed ? "" : " that are not leaves", VTP_SL, VTP_SL, more);
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
	unsigned v;

	if (!p->prev_vl_on || !p->prev_fab)
		return hint;
	sw = source_switch(p->prev_fab, cl_ntoh16(slid));
	v = sw == VT_NONE ? 0 : vt_vl_split_get(&p->prev_vl, sw, cl_ntoh16(dlid));
	if (v)
		return (uint8_t)v; /* SL v: VL v */
	/* the split's VLs carry its routes only */
	return hint >= VTP_SL && hint < p->prev_vl.nvls ? 0 : hint;
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

		if (sl >= VTP_SL && sl < p->prev_vl.nvls)
			ib_slvl_table_set(t, sl, sl);
		else if (vl != 15 && (vl & mask) >= VTP_SL && (vl & mask) < p->prev_vl.nvls)
			ib_slvl_table_set(t, sl, 0);
	}
}
