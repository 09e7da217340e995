/* SPDX-License-Identifier: MIT */
#include "model/vt_fabric.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PORT_FLAG (1u << 31)

static char *dupstr(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

vt_fabric *vt_fabric_new(const char *source)
{
	vt_fabric *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->source = dupstr(source ? source : "(fabric)");
	if (!f->source) {
		free(f);
		return NULL;
	}
	return f;
}

void vt_fabric_free(vt_fabric *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		if (f->nodes[i].desc != f->nodes[i].id)
			free(f->nodes[i].desc);
		free(f->nodes[i].id);
	}
	free(f->nodes);
	free(f->ports);
	free(f->switches);
	free(f->lid_port);
	free(f->link_line);
	vt_map64_free(&f->guids);
	vt_hidx_free(&f->ids);
	free(f->source);
	free(f);
}

int vt_err_node(vt_err *e, const vt_fabric *f, uint32_t node, unsigned port, const char *fmt, ...)
{
	unsigned line = node < f->nnodes ? f->nodes[node].line : 0;
	va_list ap;

	if (node < f->nnodes && port && port <= f->nodes[node].nports && f->link_line &&
	    f->link_line[vt_port_index(f, node, port)])
		line = f->link_line[vt_port_index(f, node, port)];
	va_start(ap, fmt);
	vt_err_vat(e, f->source, line, fmt, ap);
	va_end(ap);
	return -1;
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t c = *cap ? *cap : 64;
	void *n;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	n = realloc(*p, (size_t)c * elem);
	if (!n)
		return -1;
	*p = n;
	*cap = c;
	return 0;
}

int vt_fabric_add_node(vt_fabric *f, enum vt_node_type type, unsigned nports, uint64_t guid,
		       const char *id, const char *desc, uint32_t *out, vt_err *e)
{
	struct vt_node *n;

	if (nports < 1 || nports > VT_MAX_PORTS)
		return vt_err_set(e, "node \"%s\": port count %u out of range 1..%u", id, nports,
				  VT_MAX_PORTS);
	if (grow((void **)&f->nodes, &f->cap_nodes, f->nnodes + 1, sizeof(*f->nodes)) ||
	    grow((void **)&f->ports, &f->cap_ports, f->nports + nports + 1, sizeof(*f->ports)))
		return vt_err_nomem(e, "out of memory");
	n = &f->nodes[f->nnodes];
	memset(n, 0, sizeof(*n));
	n->id = dupstr(id);
	n->desc = desc && strcmp(desc, id) ? dupstr(desc) : n->id;
	if (!n->id || !n->desc) {
		if (n->desc != n->id)
			free(n->desc);
		free(n->id);
		return vt_err_nomem(e, "out of memory");
	}
	n->guid = guid;
	n->sysguid = guid;
	n->type = (uint8_t)type;
	n->nports = (uint8_t)nports;
	n->first_port = f->nports;
	n->sw = VT_NONE;
	for (unsigned p = 0; p <= nports; p++) {
		struct vt_port *pt = &f->ports[f->nports + p];

		memset(pt, 0, sizeof(*pt));
		pt->node = f->nnodes;
		pt->peer = VT_NONE;
		pt->num = (uint8_t)p;
		pt->guid = type == VT_SWITCH ? guid : 0;
	}
	f->nports += nports + 1;
	if (out)
		*out = f->nnodes;
	f->nnodes++;
	f->finished = 0;
	return 0;
}

int vt_fabric_connect(vt_fabric *f, uint32_t a, unsigned pa, uint32_t b, unsigned pb,
		      unsigned width, enum vt_speed speed, vt_err *e)
{
	struct vt_port *x, *y;
	char nm[VT_NODE_NAME_MAX];

	if (a >= f->nnodes || b >= f->nnodes)
		return vt_err_set(e, "connect: no such node");
	if (pa < 1 || pa > f->nodes[a].nports)
		return vt_err_set(e, "%s has no port %u", vt_node_name(f, a, nm, sizeof(nm)), pa);
	if (pb < 1 || pb > f->nodes[b].nports)
		return vt_err_set(e, "%s has no port %u", vt_node_name(f, b, nm, sizeof(nm)), pb);
	x = vt_port(f, a, pa);
	y = vt_port(f, b, pb);
	if (x == y)
		return vt_err_set(e, "%s port %u is linked to itself",
				  vt_node_name(f, a, nm, sizeof(nm)), pa);
	if (x->peer != VT_NONE || y->peer != VT_NONE) {
		struct vt_port *busy = x->peer != VT_NONE ? x : y;

		return vt_err_set(e, "%s port %u is already linked",
				  vt_node_name(f, busy->node, nm, sizeof(nm)), busy->num);
	}
	x->peer = vt_port_index(f, b, pb);
	y->peer = vt_port_index(f, a, pa);
	x->width = y->width = (uint8_t)width;
	x->speed = y->speed = (uint8_t)speed;
	return 0;
}

/* Node i (port p, 0 for the node GUID) reuses guid, which old (a guid_vals entry) holds. */
static int guid_clash(const vt_fabric *f, uint32_t i, unsigned p, uint64_t guid, uint32_t old,
		      vt_err *e)
{
	char a[VT_NODE_NAME_MAX], b[VT_NODE_NAME_MAX], where[24] = "", at[24] = "";
	uint32_t on = old & PORT_FLAG ? f->ports[old & ~PORT_FLAG].node : old;

	if (p)
		snprintf(where, sizeof(where), " port %u", p);
	if (f->nodes[on].line)
		snprintf(at, sizeof(at), " (line %u)", f->nodes[on].line);
	vt_node_name(f, i, a, sizeof(a));
	vt_node_name(f, on, b, sizeof(b));
	if (old & PORT_FLAG)
		return vt_err_at(e, f->source, f->nodes[i].line,
				 "%s%s: GUID 0x%016llx is already the GUID of %s port %u%s", a,
				 where, (unsigned long long)guid, b, f->ports[old & ~PORT_FLAG].num,
				 at);
	return vt_err_at(e, f->source, f->nodes[i].line,
			 "%s%s: GUID 0x%016llx is already the node GUID of %s%s", a, where,
			 (unsigned long long)guid, b, at);
}

static int build_guid_map(vt_fabric *f, vt_err *e)
{
	vt_map64_free(&f->guids);
	if (vt_map64_init(&f->guids, f->nnodes + vt_fabric_count_cas(f) * 2 + 1))
		return vt_err_nomem(e, "out of memory");
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct vt_node *n = &f->nodes[i];
		uint32_t old;

		if (n->guid && (old = vt_map64_put(&f->guids, n->guid, i)) != VT_NONE)
			return guid_clash(f, i, 0, n->guid, old, e);
		if (n->type == VT_SWITCH && !n->guid) {
			char nm[VT_NODE_NAME_MAX];

			/* its tables could be routed but never read back by GUID */
			return vt_err_at(e, f->source, n->line, "switch %s: GUID 0 is not valid",
					 vt_node_name(f, i, nm, sizeof(nm)));
		}
		if (n->type == VT_SWITCH)
			continue;
		for (unsigned p = 1; p <= n->nports; p++) {
			const struct vt_port *pt = vt_port(f, i, p);

			/* a multi-PF adapter's port GUID is its own node GUID: not a clash */
			if (pt->guid && pt->guid != n->guid &&
			    (old = vt_map64_put(&f->guids, pt->guid,
						vt_port_index(f, i, p) | PORT_FLAG)) != VT_NONE)
				return guid_clash(f, i, p, pt->guid, old, e);
		}
	}
	return 0;
}

static int build_id_map(vt_fabric *f, vt_err *e)
{
	vt_hidx_free(&f->ids);
	if (vt_hidx_init(&f->ids, f->nnodes + 1))
		return vt_err_nomem(e, "out of memory");
	for (uint32_t n = 0; n < f->nnodes; n++) {
		uint32_t *slot = f->ids.slot,
			 i = vt_hidx_start(&f->ids, vt_hash_str(f->nodes[n].id));

		for (; slot[i] != VT_HASH_EMPTY; i = vt_hidx_next(&f->ids, i))
			if (!strcmp(f->nodes[slot[i]].id, f->nodes[n].id)) {
				char nm[VT_NODE_NAME_MAX];

				return vt_err_at(
					e, f->source, f->nodes[n].line,
					"%s: node id \"%s\" defined twice (first at line %u)",
					vt_node_name(f, n, nm, sizeof(nm)), f->nodes[n].id,
					f->nodes[slot[i]].line);
			}
		slot[i] = n;
	}
	return 0;
}

/* Ports that own LIDs: port 0 of switches, connected ports of other nodes. */
static int owns_lid(const vt_fabric *f, const struct vt_port *pt)
{
	if (f->nodes[pt->node].type == VT_SWITCH)
		return pt->num == 0;
	return pt->num > 0 && pt->peer != VT_NONE;
}

static int assign_lids(vt_fabric *f, unsigned lmc, vt_err *e)
{
	uint32_t next = 1, stride = 1u << lmc;

	for (uint32_t i = 0; i < f->nports; i++)
		if (f->ports[i].lid) {
			uint32_t top = f->ports[i].lid + (1u << f->ports[i].lmc);

			if (top > next)
				next = top;
		}
	for (uint32_t n = 0; n < f->nnodes; n++) {
		for (unsigned p = 0; p <= f->nodes[n].nports; p++) {
			struct vt_port *pt = vt_port(f, n, p);

			/* as OpenSM does by default, switch port 0 takes LMC 0 */
			uint32_t st = f->nodes[n].type == VT_SWITCH ? 1 : stride;

			if (pt->lid || !owns_lid(f, pt))
				continue;
			next = (next + st - 1) & ~(st - 1);
			if (next + st - 1 > VT_MAX_UC_LID)
				return vt_err_set(e, "%s: more ports than unicast LIDs", f->source);
			pt->lid = (uint16_t)next;
			pt->lmc = st > 1 ? (uint8_t)lmc : 0;
			next += st;
		}
	}
	return 0;
}

static int build_lid_map(vt_fabric *f, vt_err *e)
{
	uint32_t max = 0;

	for (uint32_t i = 0; i < f->nports; i++) {
		uint32_t top = f->ports[i].lid ? f->ports[i].lid + (1u << f->ports[i].lmc) - 1 : 0;

		if (top > max)
			max = top;
	}
	free(f->lid_port);
	f->max_lid = max;
	f->lid_port = malloc((size_t)(max + 1) * sizeof(*f->lid_port));
	if (!f->lid_port)
		return vt_err_nomem(e, "out of memory");
	memset(f->lid_port, 0xff, (size_t)(max + 1) * sizeof(*f->lid_port));
	for (uint32_t i = 0; i < f->nports; i++) {
		const struct vt_port *pt = &f->ports[i];

		if (!pt->lid)
			continue;
		/* a switch's other ports carry its LID in dumps; only port 0 owns it */
		if (f->nodes[pt->node].type == VT_SWITCH && pt->num)
			continue;
		for (uint32_t l = pt->lid; l < pt->lid + (1u << pt->lmc); l++) {
			if (f->lid_port[l] != VT_NONE) {
				char a[VT_NODE_NAME_MAX], b[VT_NODE_NAME_MAX];

				return vt_err_at(e, f->source, f->nodes[pt->node].line,
						 "LID %u of %s already belongs to %s", l,
						 vt_node_name(f, pt->node, a, sizeof(a)),
						 vt_node_name(f, f->ports[f->lid_port[l]].node, b,
							      sizeof(b)));
			}
			f->lid_port[l] = i;
		}
	}
	return 0;
}

int vt_fabric_finish(vt_fabric *f, unsigned lmc, vt_err *e)
{
	if (lmc > 7)
		return vt_err_set(e, "LMC %u out of range 0..7", lmc);
	if (!f->nnodes)
		return vt_err_set(e, "%s: no nodes", f->source);
	free(f->switches);
	f->switches = malloc((size_t)f->nnodes * sizeof(*f->switches));
	if (!f->switches)
		return vt_err_nomem(e, "out of memory");
	f->nswitches = 0;
	for (uint32_t n = 0; n < f->nnodes; n++) {
		f->nodes[n].sw = VT_NONE;
		if (f->nodes[n].type == VT_SWITCH) {
			f->nodes[n].sw = f->nswitches;
			f->switches[f->nswitches++] = n;
		}
	}
	if (build_id_map(f, e) || build_guid_map(f, e) || assign_lids(f, lmc, e) ||
	    build_lid_map(f, e))
		return -1;
	f->finished = 1;
	return 0;
}

uint32_t *vt_fabric_chan_table(const vt_fabric *f, uint32_t *stride)
{
	uint32_t k = vt_fabric_sw_stride(f);
	uint32_t *c = malloc(((size_t)f->nswitches * k + 1) * sizeof(*c));

	for (uint32_t s = 0; c && s < f->nswitches; s++) {
		const struct vt_node *nd = &f->nodes[f->switches[s]];

		for (uint32_t p = 0; p < k; p++)
			c[(size_t)s * k + p] =
				p == 0 || p > nd->nports ||
						f->ports[nd->first_port + p].peer == VT_NONE
					? VT_NONE
					: nd->first_port + p;
	}
	*stride = k;
	return c;
}

int vt_fabric_set_lmc(vt_fabric *f, unsigned lmc, vt_err *e)
{
	if (lmc > 7)
		return vt_err_set(e, "LMC %u out of range 0..7", lmc);
	for (uint32_t i = 0; i < f->nports; i++) {
		struct vt_port *pt = &f->ports[i];
		char nm[VT_NODE_NAME_MAX];

		if (!pt->lid || f->nodes[pt->node].type == VT_SWITCH || !owns_lid(f, pt))
			continue;
		if (pt->lid & ((1u << lmc) - 1) || pt->lid + (1u << lmc) - 1 > VT_MAX_UC_LID)
			return vt_err_at(e, f->source, f->nodes[pt->node].line,
					 "port %u of %s: LID %u is not the first of %u (LMC %u)",
					 pt->num, vt_node_name(f, pt->node, nm, sizeof(nm)),
					 pt->lid, 1u << lmc, lmc);
		pt->lmc = (uint8_t)lmc;
	}
	return build_lid_map(f, e);
}

int vt_fabric_lmc_lids(vt_fabric *f, unsigned lmc, vt_err *why, vt_err *e)
{
	int odd = 0;

	if (lmc > 7)
		return vt_err_set(e, "LMC %u out of range 0..7", lmc);
	/* LIDs each the first of 2^lmc are a subnet manager's: kept */
	if (!vt_fabric_set_lmc(f, lmc, why))
		return 0;
	/* LIDs of LMC 0 (one odd) are a topology's, not the SM's: assigned anew */
	for (uint32_t q = 0; q < f->nports && why->kind != VT_ERR_NOMEM; q++)
		if (f->ports[q].lid & 1 && f->nodes[f->ports[q].node].type != VT_SWITCH &&
		    owns_lid(f, &f->ports[q]))
			odd = 1;
	if (!odd) {
		*e = *why;
		return -1;
	}
	for (uint32_t q = 0; q < f->nports; q++)
		if (f->nodes[f->ports[q].node].type != VT_SWITCH) {
			f->ports[q].lid = 0;
			f->ports[q].lmc = 0;
		}
	return vt_fabric_finish(f, lmc, e) ? -1 : 1;
}

int vt_fabric_has_lmc(const vt_fabric *f)
{
	for (uint32_t i = 0; i < f->nports; i++)
		if (f->ports[i].lmc && f->nodes[f->ports[i].node].type != VT_SWITCH)
			return 1;
	return 0;
}

uint32_t vt_fabric_node_by_guid(const vt_fabric *f, uint64_t node_guid)
{
	uint32_t v = vt_map64_get(&f->guids, node_guid);

	return v != VT_NONE && !(v & PORT_FLAG) ? v : VT_NONE;
}

uint32_t vt_fabric_port_by_guid(const vt_fabric *f, uint64_t port_guid)
{
	uint32_t v = vt_map64_get(&f->guids, port_guid);

	if (v == VT_NONE)
		return VT_NONE;
	if (v & PORT_FLAG)
		return v & ~PORT_FLAG;
	/* a node GUID: switches answer with port 0, single-port CAs whose port GUID
	 * equals the node GUID with port 1 */
	if (f->nodes[v].type == VT_SWITCH)
		return vt_port_index(f, v, 0);
	for (unsigned p = 1; p <= f->nodes[v].nports; p++)
		if (vt_port(f, v, p)->guid == port_guid)
			return vt_port_index(f, v, p);
	return VT_NONE;
}

uint32_t vt_fabric_node_by_id(const vt_fabric *f, const char *id)
{
	if (!f->ids.cap)
		return VT_NONE;
	for (uint32_t i = vt_hidx_start(&f->ids, vt_hash_str(id)); f->ids.slot[i] != VT_HASH_EMPTY;
	     i = vt_hidx_next(&f->ids, i))
		if (!strcmp(f->nodes[f->ids.slot[i]].id, id))
			return f->ids.slot[i];
	return VT_NONE;
}

const char *vt_node_name(const vt_fabric *f, uint32_t node, char *buf, size_t len)
{
	if (!len)
		return buf;
	if (node >= f->nnodes)
		snprintf(buf, len, "(no node %u)", node);
	else {
		/* a long description is cut, never the GUID that tells nodes apart */
		size_t room = len > 24 ? len - 24 : 0, dl = strlen(f->nodes[node].desc);

		snprintf(buf, len, "\"%.*s\" (0x%016llx)", (int)(dl < room ? dl : room),
			 f->nodes[node].desc, (unsigned long long)f->nodes[node].guid);
	}
	return buf;
}

const char *vt_port_name(const vt_fabric *f, uint32_t port, char *buf, size_t len)
{
	char tail[64];
	int k;

	if (!len)
		return buf;
	if (port >= f->nports) {
		snprintf(buf, len, "(no port %u)", port);
		return buf;
	}
	const struct vt_port *p = &f->ports[port];
	const struct vt_node *nd = &f->nodes[p->node];
	uint16_t lid = vt_port_lid(f, port);

	if (lid)
		k = snprintf(tail, sizeof(tail), " (0x%016llx, lid %u)/%u",
			     (unsigned long long)nd->guid, lid, p->num);
	else
		k = snprintf(tail, sizeof(tail), " (0x%016llx)/%u", (unsigned long long)nd->guid,
			     p->num);
	size_t room = len > (size_t)k + 3 ? len - (size_t)k - 3 : 0, dl = strlen(nd->desc);

	snprintf(buf, len, "\"%.*s\"%s", (int)(dl < room ? dl : room), nd->desc, tail);
	return buf;
}

uint32_t vt_fabric_count_cas(const vt_fabric *f)
{
	uint32_t c = 0;

	for (uint32_t n = 0; n < f->nnodes; n++)
		c += f->nodes[n].type == VT_CA;
	return c;
}

uint32_t vt_fabric_count_links(const vt_fabric *f)
{
	uint32_t c = 0;

	for (uint32_t i = 0; i < f->nports; i++)
		c += f->ports[i].peer != VT_NONE && f->ports[i].peer > i;
	return c;
}

static const struct {
	const char *name;
	unsigned mbps;
} speeds[] = {
	[VT_SPEED_UNKNOWN] = {"?", 2000}, [VT_SDR] = {"SDR", 2000},	 [VT_DDR] = {"DDR", 4000},
	[VT_QDR] = {"QDR", 8000},	  [VT_FDR10] = {"FDR10", 10000}, [VT_FDR] = {"FDR", 13636},
	[VT_EDR] = {"EDR", 25000},	  [VT_HDR] = {"HDR", 50000},	 [VT_NDR] = {"NDR", 100000},
	[VT_XDR] = {"XDR", 200000},
};

const char *vt_speed_name(enum vt_speed s)
{
	return (unsigned)s <= VT_XDR ? speeds[s].name : "?";
}

unsigned vt_speed_lane_mbps(enum vt_speed s)
{
	return (unsigned)s <= VT_XDR ? speeds[s].mbps : 2000;
}

enum vt_speed vt_speed_parse(const char *s, unsigned len)
{
	for (unsigned i = VT_SDR; i <= VT_XDR; i++)
		if (strlen(speeds[i].name) == len && !strncmp(speeds[i].name, s, len))
			return (enum vt_speed)i;
	return VT_SPEED_UNKNOWN;
}

unsigned vt_width_from_ib(unsigned link_width_active)
{
	switch (link_width_active) {
	case 1:
		return 1;
	case 2:
		return 4;
	case 4:
		return 8;
	case 8:
		return 12;
	case 16:
		return 2;
	}
	return 0;
}

enum vt_speed vt_speed_from_ib(unsigned speed_active, unsigned ext_active, int fdr10)
{
	switch (ext_active) {
	case 1:
		return VT_FDR;
	case 2:
		return VT_EDR;
	case 4:
		return VT_HDR;
	case 8:
		return VT_NDR;
	case 32: /* libibnetdisc's aggregate of LinkSpeedExtActive2 */
		return VT_XDR;
	}
	switch (speed_active) {
	case 1:
		return VT_SDR;
	case 2:
		return VT_DDR;
	case 4:
		return fdr10 ? VT_FDR10 : VT_QDR;
	}
	return VT_SPEED_UNKNOWN;
}

/* Breadth first from every CA at once. */
uint32_t *vt_fabric_ca_distance(const vt_fabric *f)
{
	uint32_t *d = malloc((f->nnodes ? f->nnodes : 1) * sizeof(*d));
	uint32_t *q = malloc((f->nnodes ? f->nnodes : 1) * sizeof(*q));
	uint32_t h = 0, t = 0;

	if (!d || !q) {
		free(d);
		free(q);
		return NULL;
	}
	for (uint32_t n = 0; n < f->nnodes; n++) {
		d[n] = f->nodes[n].type == VT_SWITCH ? UINT32_MAX : 0;
		if (!d[n])
			q[t++] = n;
	}
	while (h < t) {
		uint32_t n = q[h++];

		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			uint32_t m = vt_peer_node(f, vt_port_index(f, n, p));

			if (m != VT_NONE && d[m] == UINT32_MAX) {
				d[m] = d[n] + 1;
				q[t++] = m;
			}
		}
	}
	free(q);
	return d;
}

int vt_node_is_agg(const vt_fabric *f, uint32_t node)
{
	const struct vt_node *nd = &f->nodes[node];
	uint32_t sw;

	if (nd->type != VT_CA)
		return 0;
	if (nd->desc && strstr(nd->desc, "Aggregation Node"))
		return 1;
	sw = vt_peer_node(f, vt_port_index(f, node, 1));
	return nd->nports >= 1 && sw != VT_NONE && f->nodes[sw].type == VT_SWITCH && nd->sysguid &&
	       nd->sysguid == f->nodes[sw].sysguid;
}
