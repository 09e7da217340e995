/* SPDX-License-Identifier: MIT */
/*
 * libibnetdisc fabric -> vt_fabric, shared by live discovery (vt_live) and
 * the cache loader (ibnd_load_fabric, then this). Nodes are added in the
 * order ibnetdiscover prints them (switches, then CAs, then routers, each in
 * libibnetdisc's list order) with ibnetdiscover's ids ("S-<guid>", "H-...",
 * "R-..."), so node ordinals agree with a load of the same subnet's dump.
 */
#include "io/vt_load.h"

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ibnd_idx {
	const ibnd_node_t *node;
	uint32_t idx;
};

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct ibnd_idx *)a)->node;
	uintptr_t y = (uintptr_t)((const struct ibnd_idx *)b)->node;

	return x < y ? -1 : x > y;
}

static uint32_t find_idx(const struct ibnd_idx *map, uint32_t n, const ibnd_node_t *node)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if ((uintptr_t)map[mid].node < (uintptr_t)node)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && map[lo].node == node ? map[lo].idx : VT_NONE;
}

static unsigned port_width(const ibnd_port_t *p)
{
	uint32_t w = 0;

	mad_decode_field((uint8_t *)p->info, IB_PORT_LINK_WIDTH_ACTIVE_F, &w);
	return vt_width_from_ib(w);
}

static enum vt_speed port_speed(const ibnd_port_t *p)
{
	const ibnd_port_t *p0 =
		p->node->type == IB_NODE_SWITCH && p->node->ports[0] ? p->node->ports[0] : p;
	uint32_t cap = 0, s = 0, ext = 0;

	/* a switch states its capabilities on port 0 only */
	mad_decode_field((uint8_t *)p0->info, IB_PORT_CAPMASK_F, &cap);
	if (cap & 0x4000u) /* IsExtendedSpeedsSupported */
		mad_decode_field((uint8_t *)p->info, IB_PORT_LINK_SPEED_EXT_ACTIVE_F, &ext);
	mad_decode_field((uint8_t *)p->info, IB_PORT_LINK_SPEED_ACTIVE_F, &s);
	/* FDR10 shows as QDR, with Mellanox's extended PortInfo telling them apart */
	return vt_speed_from_ib(
		s, ext,
		mad_get_field((uint8_t *)p->ext_info, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F) &
			1u);
}

/*
 * A link's width and speed from its two ends' PortInfo, as the text loader
 * takes them: a part one end does not name (0) is the other's; two that
 * differ give the lower, which both ends can run. But FDR10 wins over QDR:
 * an end without Mellanox's extended PortInfo reads FDR10 as QDR.
 */
static unsigned link_width(unsigned a, unsigned b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

static enum vt_speed link_speed(enum vt_speed a, enum vt_speed b)
{
	if (a == VT_SPEED_UNKNOWN || b == VT_SPEED_UNKNOWN)
		return a == VT_SPEED_UNKNOWN ? b : a;
	if ((a == VT_QDR && b == VT_FDR10) || (a == VT_FDR10 && b == VT_QDR))
		return VT_FDR10;
	return a < b ? a : b;
}

/* LIDs and LMCs are copied as found: a corrupt cache must not reach LID arithmetic. */
static int bad_lid(const vt_fabric *f, uint32_t node, int port, unsigned lid, unsigned lmc,
		   vt_err *e)
{
	char nm[VT_NODE_NAME_MAX];

	return vt_err_set(e, "%s port %d: LID %u (0..%u) or LMC %u (0..7) out of range",
			  vt_node_name(f, node, nm, sizeof(nm)), port, lid, VT_MAX_UC_LID, lmc);
}

static int add_nodes(vt_fabric *f, const ibnd_node_t *list, struct ibnd_idx *map, uint32_t *n,
		     vt_err *e)
{
	for (const ibnd_node_t *nd = list; nd; nd = nd->type_next) {
		enum vt_node_type type = nd->type == IB_NODE_SWITCH ? VT_SWITCH
					 : nd->type == IB_NODE_CA   ? VT_CA
								    : VT_ROUTER;
		static const char letter[] = {[VT_CA] = 'H', [VT_SWITCH] = 'S', [VT_ROUTER] = 'R'};
		char id[24], desc[sizeof(nd->nodedesc)];
		uint32_t idx;

		snprintf(id, sizeof(id), "%c-%016llx", letter[type], (unsigned long long)nd->guid);
		/* printable, as ibnetdiscover and OpenSM print it */
		memcpy(desc, nd->nodedesc, sizeof(desc));
		desc[sizeof(desc) - 1] = '\0';
		for (char *d = desc; *d; d++)
			if ((unsigned char)*d < 0x20 || *d == '"')
				*d = ' ';
		if (vt_fabric_add_node(f, type, (unsigned)nd->numports, nd->guid, id,
				       desc[0] ? desc : NULL, &idx, e))
			return -1;
		f->nodes[idx].sysguid = mad_get_field64((void *)nd->info, 0, IB_NODE_SYSTEM_GUID_F);
		if (type == VT_SWITCH) {
			if (nd->smalid > VT_MAX_UC_LID)
				return bad_lid(f, idx, 0, nd->smalid, 0, e);
			vt_port(f, idx, 0)->lid = nd->smalid;
		} else {
			for (int p = 1; p <= nd->numports; p++) {
				const ibnd_port_t *ip = nd->ports[p];

				if (!ip)
					continue;
				if (ip->base_lid > VT_MAX_UC_LID || ip->lmc > 7)
					return bad_lid(f, idx, p, ip->base_lid, ip->lmc, e);
				vt_port(f, idx, (unsigned)p)->guid = ip->guid;
				vt_port(f, idx, (unsigned)p)->lid = ip->base_lid;
				vt_port(f, idx, (unsigned)p)->lmc = ip->lmc;
			}
		}
		map[*n].node = nd;
		map[*n].idx = idx;
		(*n)++;
	}
	return 0;
}

static uint32_t count(const ibnd_node_t *list)
{
	uint32_t n = 0;

	for (; list; list = list->type_next)
		n++;
	return n;
}

/*
 * Data VLs a port runs, from its PortInfo OperVLs (1: VL0, 2: VL0-1, 3: VL0-3,
 * 4: VL0-7, 5: VL0-14); 0 where the SM has not set it.
 */
static unsigned port_data_vls(const ibnd_port_t *p)
{
	uint32_t v = 0;

	mad_decode_field((uint8_t *)p->info, IB_PORT_OPER_VLS_F, &v);
	return v >= 1 && v <= 4 ? 1u << (v - 1) : v == 5 ? 15 : 0;
}

/* The fewer of vls and a switch link end's data VLs, where that is known. */
static unsigned fewer_vls(unsigned vls, const ibnd_port_t *p)
{
	unsigned v = port_data_vls(p);

	return v && (!vls || v < vls) ? v : vls;
}

/*
 * Each link once: from the end with the smaller (node, port). f->vls: the
 * fewest data VLs a switch link end runs (as OpenSM sets them), 0: none said.
 */
static int add_links(vt_fabric *f, const struct ibnd_idx *map, uint32_t n, vt_err *e)
{
	for (uint32_t i = 0; i < n; i++) {
		const ibnd_node_t *nd = map[i].node;

		for (int p = 1; p <= nd->numports; p++) {
			const ibnd_port_t *ip = nd->ports[p], *rp;
			uint32_t a = map[i].idx, b;
			unsigned w;
			enum vt_speed s;

			if (!ip || !(rp = ip->remoteport))
				continue;
			b = find_idx(map, n, rp->node);
			if (b == VT_NONE) {
				char nm[VT_NODE_NAME_MAX];

				return vt_err_set(e, "%s port %d links to an unknown node",
						  vt_node_name(f, a, nm, sizeof(nm)), p);
			}
			if (nd->type == IB_NODE_SWITCH || rp->node->type == IB_NODE_SWITCH)
				f->vls = fewer_vls(fewer_vls(f->vls, ip), rp);
			if (b < a || (b == a && rp->portnum < p))
				continue;
			w = link_width(port_width(ip), port_width(rp));
			s = link_speed(port_speed(ip), port_speed(rp));
			if (vt_fabric_connect(f, a, (unsigned)p, b, (unsigned)rp->portnum, w, s, e))
				return -1;
		}
	}
	return 0;
}

int vt_load_ibnd(const struct ibnd_fabric *fab, const char *source, vt_fabric **out, vt_err *e)
{
	uint32_t total = count(fab->switches) + count(fab->ch_adapters) + count(fab->routers);
	struct ibnd_idx *map = malloc(((size_t)total + 1) * sizeof(*map));
	vt_fabric *f = vt_fabric_new(source);
	uint32_t n = 0;
	int rc = -1;

	*out = NULL;
	if (!map || !f) {
		vt_err_nomem(e, "out of memory");
		goto out;
	}
	if (add_nodes(f, fab->switches, map, &n, e) || add_nodes(f, fab->ch_adapters, map, &n, e) ||
	    add_nodes(f, fab->routers, map, &n, e))
		goto out;
	qsort(map, n, sizeof(*map), cmp_ptr);
	if (add_links(f, map, n, e) || vt_fabric_finish(f, 0, e))
		goto out;
	*out = f;
	f = NULL;
	rc = 0;
out:
	if (rc && e) {
		char cause[VT_ERR_MAX];

		/* the source names the subnet in every message */
		snprintf(cause, sizeof(cause), "%s", e->msg);
		vt_err_set(e, "%s: %s", source, cause);
	}
	vt_fabric_free(f);
	free(map);
	return rc;
}
