/* SPDX-License-Identifier: MIT */
/*
 * libibnetdisc cache files, read by the library's own ibnd_load_fabric() and
 * converted into a vt_fabric. Nodes come in the order ibnetdiscover prints
 * them (switches, CAs, routers) and are named as it names them ("S-<guid>"),
 * so the cache and the text dump of one discovery give the same fabric.
 */
#include "vt_load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>

#include "vt_io.h"

#define CACHE_MAGIC    0x8FE7832Bu /* libibnetdisc's, stored little-endian */
#define CACHE_VERSION  1u
#define CAP_EXT_SPEEDS (1u << 14) /* PortInfo CapabilityMask: IsExtendedSpeedsSupported */
#define MLNX_FDR10     1u

#if defined(__SANITIZE_ADDRESS__)
#define VT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VT_ASAN 1
#endif
#endif
#ifdef VT_ASAN
/*
 * libibnetdisc 44 leaks 64 bytes per cached port inside ibnd_load_fabric()
 * (ibnetdiscover --load-cache shows the same under valgrind); keep LeakSanitizer
 * quiet about that library only, so our own leaks still fail the tests.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libibnetdisc.so\n";
}
#endif

struct collect {
	ibnd_node_t **nodes;
	uint32_t n, cap;
	int oom;
};

struct pmap {
	const ibnd_node_t *node;
	uint32_t idx;
};

static void collect_node(ibnd_node_t *node, void *user)
{
	struct collect *c = user;

	if (c->oom)
		return;
	if (c->n == c->cap) {
		uint32_t cap = c->cap ? c->cap * 2 : 256;
		ibnd_node_t **nn = realloc(c->nodes, cap * sizeof(*nn));

		if (!nn) {
			c->oom = 1;
			return;
		}
		c->nodes = nn;
		c->cap = cap;
	}
	c->nodes[c->n++] = node;
}

static int cmp_pmap(const void *a, const void *b)
{
	const struct pmap *x = a, *y = b;

	return x->node < y->node ? -1 : x->node > y->node;
}

static uint32_t find_node(const struct pmap *m, uint32_t n, const ibnd_node_t *node)
{
	struct pmap key = {node, 0};
	const struct pmap *r = bsearch(&key, m, n, sizeof(*m), cmp_pmap);

	return r ? r->idx : VT_NONE;
}

static unsigned width_lanes(unsigned w)
{
	switch (w) {
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
	default:
		return 0;
	}
}

/* Active speed as ibnetdiscover derives it: extended speeds, then FDR10, then legacy. */
static enum vt_speed port_speed(ibnd_port_t *p)
{
	ibnd_node_t *n = p->node;
	uint8_t *cap_info = n->type == IB_NODE_SWITCH && n->ports[0] ? n->ports[0]->info : p->info;
	unsigned cap = mad_get_field(cap_info, 0, IB_PORT_CAPMASK_F);
	unsigned s = mad_get_field(p->info, 0, IB_PORT_LINK_SPEED_ACTIVE_F);

	if (cap & CAP_EXT_SPEEDS) {
		switch (mad_get_field(p->info, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F)) {
		case 1:
			return VT_FDR;
		case 2:
			return VT_EDR;
		case 4:
			return VT_HDR;
		case 8:
			return VT_NDR;
		default:
			break;
		}
	}
	if (s == 4 &&
	    (mad_get_field(p->ext_info, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F) & MLNX_FDR10))
		return VT_FDR10;
	return s == 1 ? VT_SDR : s == 2 ? VT_DDR : s == 4 ? VT_QDR : VT_SPEED_UNKNOWN;
}

/* Magic and version checked here, since ibnd_load_fabric() only says NULL. */
static int check_header(const char *path, vt_err *e)
{
	unsigned char h[8];
	FILE *fp = fopen(path, "rb");
	size_t r;
	uint32_t magic, version;

	if (!fp)
		return vt_err_set(e, "%s: cannot open: %s", path, strerror(errno));
	r = fread(h, 1, sizeof(h), fp);
	fclose(fp);
	magic = h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
	version = h[4] | (uint32_t)h[5] << 8 | (uint32_t)h[6] << 16 | (uint32_t)h[7] << 24;
	if (r < 4 || magic != CACHE_MAGIC)
		return vt_err_set(e, "%s: not a libibnetdisc cache file", path);
	if (r < 8 || version != CACHE_VERSION)
		return vt_err_set(e, "%s: unsupported libibnetdisc cache version %u", path,
				  r < 8 ? 0 : version);
	return 0;
}

static int add_nodes(vt_fabric *f, struct collect *c, vt_err *e)
{
	for (uint32_t i = 0; i < c->n; i++) {
		ibnd_node_t *nd = c->nodes[i];
		enum vt_node_type t = nd->type == IB_NODE_SWITCH   ? VT_SWITCH
				      : nd->type == IB_NODE_ROUTER ? VT_ROUTER
								   : VT_CA;
		char id[24], desc[sizeof(nd->nodedesc)];
		uint32_t idx;

		snprintf(id, sizeof(id), "%c-%016llx",
			 t == VT_SWITCH	  ? 'S'
			 : t == VT_ROUTER ? 'R'
					  : 'H',
			 (unsigned long long)nd->guid);
		/* printable description, as ibnetdiscover cleans it */
		memcpy(desc, nd->nodedesc, sizeof(desc));
		desc[sizeof(desc) - 1] = 0;
		for (char *d = desc; *d; d++)
			if ((unsigned char)*d < 0x20 || *d == '"')
				*d = ' ';
		if (nd->numports < 1 || nd->numports > (int)VT_MAX_PORTS)
			return vt_err_set(e, "%s: node %s has %d ports (expected 1..%u)", f->source,
					  id, nd->numports, VT_MAX_PORTS);
		if (vt_fabric_add_node(f, t, (unsigned)nd->numports, nd->guid, id,
				       desc[0] ? desc : NULL, &idx, e))
			return vt_err_set(e, "%s: out of memory", f->source);
		f->nodes[idx].sysguid = mad_get_field64(nd->info, 0, IB_NODE_SYSTEM_GUID_F);
		if (t == VT_SWITCH) {
			vt_port(f, idx, 0)->lid = nd->smalid;
			vt_port(f, idx, 0)->lmc = nd->smalmc;
			continue;
		}
		for (int p = 1; p <= nd->numports; p++) {
			ibnd_port_t *pt = nd->ports[p];

			if (!pt)
				continue;
			vt_port(f, idx, (unsigned)p)->guid = pt->guid;
			vt_port(f, idx, (unsigned)p)->lid = pt->base_lid;
			vt_port(f, idx, (unsigned)p)->lmc = pt->lmc;
		}
	}
	return 0;
}

static int add_links(vt_fabric *f, struct collect *c, const struct pmap *m, vt_err *e)
{
	for (uint32_t i = 0; i < c->n; i++) {
		ibnd_node_t *nd = c->nodes[i];

		for (int p = 1; p <= nd->numports; p++) {
			ibnd_port_t *pt = nd->ports[p], *rp = pt ? pt->remoteport : NULL;
			uint32_t r;

			if (!rp)
				continue;
			r = find_node(m, c->n, rp->node);
			if (r == VT_NONE || rp->portnum < 1 || rp->portnum > rp->node->numports)
				return vt_err_set(e, "%s: node %s port %d leads to an unknown port",
						  f->source, f->nodes[i].id, p);
			/* each link once, from the end met first */
			if (vt_port(f, i, (unsigned)p)->peer != VT_NONE)
				continue;
			if (vt_fabric_connect(f, i, (unsigned)p, r, (unsigned)rp->portnum,
					      width_lanes(mad_get_field(
						      pt->info, 0, IB_PORT_LINK_WIDTH_ACTIVE_F)),
					      port_speed(pt), e)) {
				char msg[VT_ERR_MAX];

				snprintf(msg, sizeof(msg), "%s", e->msg);
				return vt_err_set(e, "%s: %s", f->source, msg);
			}
		}
	}
	return 0;
}

int vt_load_cache(const char *path, vt_fabric **out, vt_err *e)
{
	ibnd_fabric_t *ib;
	struct collect c = {0};
	struct pmap *m = NULL;
	vt_fabric *f = NULL;
	int rc = -1;

	*out = NULL;
	if (check_header(path, e))
		return -1;
	ib = ibnd_load_fabric(path, 0);
	if (!ib)
		return vt_err_set(e, "%s: corrupt or truncated libibnetdisc cache file", path);
	ibnd_iter_nodes_type(ib, collect_node, IB_NODE_SWITCH, &c);
	ibnd_iter_nodes_type(ib, collect_node, IB_NODE_CA, &c);
	ibnd_iter_nodes_type(ib, collect_node, IB_NODE_ROUTER, &c);
	f = vt_fabric_new(path);
	m = malloc((c.n ? c.n : 1) * sizeof(*m));
	if (c.oom || !f || !m) {
		vt_err_set(e, "%s: out of memory", path);
		goto out;
	}
	if (!c.n) {
		vt_err_set(e, "%s: no nodes", path);
		goto out;
	}
	for (uint32_t i = 0; i < c.n; i++)
		m[i] = (struct pmap){c.nodes[i], i};
	qsort(m, c.n, sizeof(*m), cmp_pmap);
	if (add_nodes(f, &c, e) || add_links(f, &c, m, e) || vt_fabric_finish(f, 0, e))
		goto out;
	*out = f;
	f = NULL;
	rc = 0;
out:
	vt_fabric_free(f);
	free(m);
	free(c.nodes);
	ibnd_destroy_fabric(ib);
	return rc;
}

int vt_load(const char *path, vt_fabric **out, vt_err *e)
{
	unsigned char h[4] = {0};
	FILE *fp = fopen(path, "rb");
	size_t r;

	*out = NULL;
	if (!fp)
		return vt_err_set(e, "%s: cannot open: %s", path, strerror(errno));
	r = fread(h, 1, sizeof(h), fp);
	fclose(fp);
	if (r == 4 && (h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24) ==
			      CACHE_MAGIC)
		return vt_load_cache(path, out, e);
	return vt_load_text_file(path, out, e);
}
