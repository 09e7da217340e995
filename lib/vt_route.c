/* SPDX-License-Identifier: MIT */
/*
 * Usage-balanced LFT fill (Zahavi et al., Algorithms 2-4) over the extracted
 * tree. For each destination in index order: go up from its leaf choosing the
 * least-used down-going port among all up groups (Algorithm 4), then descend
 * from every switch of that path through the other groups, pointing each
 * switch not yet routed up to the switch it was reached from (Algorithm 3).
 * Switches neither pass reached (other ancestors, other columns) get a
 * down*-route if they are ancestors of the destination, else an up-route to a
 * parent that still reaches it: every route is up*-then-down*, so the channel
 * dependency graph has no cycle.
 */
#include "vt_route.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vt_io.h"
#include "vt_tree.h"

struct router {
	const vt_fabric *f;
	const vt_tree *t;
	vt_lfts *lfts;
	uint32_t *use_dn; /* per ports[] index: destinations routed down out of this port */
	uint32_t *use_up; /* per ports[] index: destinations routed up out of this port */
	/* the same for fill-in routes, kept apart: they carry little traffic and
	 * must not skew the spreading of the main routes */
	uint32_t *fill_dn, *fill_up;
	uint32_t *stamp; /* per switch: serial of the destination that last set it */
	uint32_t *stack;
	uint32_t serial;
	uint64_t unrouted; /* switch/LID pairs with no up*-down* route */
};

static inline uint32_t swport(const struct router *r, uint32_t s, unsigned p)
{
	return vt_port_index(r->f, r->f->switches[s], p);
}

static inline void set_entry(struct router *r, uint32_t s, uint32_t lid, unsigned p)
{
	if (lid)
		vt_lft_set(r->lfts, s, lid, (uint8_t)p);
	r->stamp[s] = r->serial;
}

/* Algorithm 3: every switch below s (off the path) not yet routed goes up towards s. */
static void descend(struct router *r, uint32_t top, uint32_t lid)
{
	const vt_tree *t = r->t;
	uint32_t n = 0;

	r->stack[n++] = top;
	while (n) {
		uint32_t s = r->stack[--n];

		for (uint32_t k = t->dn_start[s]; k < t->dn_start[s + 1]; k++) {
			uint32_t c = t->dn_peer[k], best = VT_NONE, bu = UINT32_MAX;

			if (r->stamp[c] == r->serial)
				continue;
			/* least-used link of the group between c and s */
			for (uint32_t j = t->up_start[c]; j < t->up_start[c + 1]; j++) {
				uint32_t q;

				if (t->up_peer[j] != s)
					continue;
				q = swport(r, c, t->up_port[j]);
				if (r->use_up[q] < bu) {
					bu = r->use_up[q];
					best = j;
				}
			}
			r->use_up[swport(r, c, t->up_port[best])]++;
			set_entry(r, c, lid, t->up_port[best]);
			r->stack[n++] = c;
		}
	}
}

/* Routes of the switches neither the ascent nor the descents reached. */
static void fill_rest(struct router *r, uint32_t x, uint32_t lid)
{
	const vt_tree *t = r->t;

	for (uint32_t s = 0; s < t->nsw; s++) {
		if (r->stamp[s] == r->serial || t->level[s] == 0xFF)
			continue;
		if (vt_tree_bit(t, t->desc, s, x)) {
			/* an ancestor: down to a child that is one too, rotating the start */
			uint32_t a = t->dn_start[s], nd = t->dn_start[s + 1] - a, k = VT_NONE;

			for (uint32_t i = 0; i < nd; i++) {
				uint32_t j = a + (i + r->serial) % nd;

				if (vt_tree_bit(t, t->desc, t->dn_peer[j], x)) {
					k = j;
					break;
				}
			}
			if (k == VT_NONE)
				continue;
			uint32_t best = k, bu = UINT32_MAX;

			for (uint32_t j = a; j < a + nd; j++)
				if (t->dn_peer[j] == t->dn_peer[k] &&
				    r->fill_dn[swport(r, s, t->dn_port[j])] < bu) {
					bu = r->fill_dn[swport(r, s, t->dn_port[j])];
					best = j;
				}
			r->fill_dn[swport(r, s, t->dn_port[best])]++;
			set_entry(r, s, lid, t->dn_port[best]);
		} else if (vt_tree_bit(t, t->ureach, s, x)) {
			uint32_t best = VT_NONE, bu = UINT32_MAX;

			for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++) {
				uint32_t q = swport(r, s, t->up_port[j]);

				if (r->fill_up[q] < bu &&
				    vt_tree_bit(t, t->ureach, t->up_peer[j], x)) {
					bu = r->fill_up[q];
					best = j;
				}
			}
			r->fill_up[swport(r, s, t->up_port[best])]++;
			set_entry(r, s, lid, t->up_port[best]);
		} else if (lid) {
			/* no up*-down* route (a top switch to another top's LID): a
			 * down-then-up detour could close a credit loop, so none */
			r->unrouted++;
		}
	}
}

/*
 * One destination attached to switch x through local port xp (0: the switch
 * itself); lid 0 is a place-keeper, which moves the counters only. rot turns
 * the tie-break so the LIDs of one LMC range take different paths.
 */
static void route_dest(struct router *r, uint32_t x, unsigned xp, uint32_t lid, uint32_t rot)
{
	const vt_tree *t = r->t;
	uint32_t path[VT_TREE_MAX_LEVELS], n = 0, s = x;

	r->serial++;
	set_entry(r, x, lid, xp);
	path[n++] = x;
	for (;;) {
		uint32_t a = t->up_start[s], nu = t->up_start[s + 1] - a, best = VT_NONE;
		uint32_t bu = UINT32_MAX, rq = VT_NONE;

		for (uint32_t i = 0; i < nu; i++) {
			uint32_t j = a + (i + rot) % nu;
			uint32_t q = r->f->ports[swport(r, s, t->up_port[j])].peer;

			if (r->use_dn[q] < bu && r->stamp[t->up_peer[j]] != r->serial) {
				bu = r->use_dn[q];
				best = j;
				rq = q;
			}
		}
		if (best == VT_NONE)
			break;
		r->use_dn[rq]++;
		s = t->up_peer[best];
		set_entry(r, s, lid, r->f->ports[rq].num);
		path[n++] = s;
	}
	for (uint32_t i = 0; i < n; i++)
		descend(r, path[i], lid);
	if (lid) {
		fill_rest(r, x, lid);
	}
}

static void route_ca_port(struct router *r, uint32_t cap, uint32_t rot_base)
{
	const vt_fabric *f = r->f;
	const struct vt_port *p = &f->ports[cap];
	uint32_t sp = p->peer, x = f->nodes[f->ports[sp].node].sw;

	if (r->t->level[x] == 0xFF || !p->lid)
		return;
	for (uint32_t o = 0; o < (1u << p->lmc); o++)
		route_dest(r, x, f->ports[sp].num, p->lid + o, rot_base + o);
}

static void log_line(void *ctx, const char *s)
{
	const struct vt_route_opts *o = ctx;

	o->log(o->log_ctx, VT_LOG_INFO, s);
}

int vt_route(const vt_fabric *f, const struct vt_route_opts *o, vt_lfts *lfts, vt_order *order,
	     vt_err *e)
{
	struct vt_tree_opts to = {0};
	struct router r = {0};
	vt_tree t;
	uint32_t maxlmc = 0;

	memset(lfts, 0, sizeof(*lfts));
	memset(order, 0, sizeof(*order));
	if (o) {
		to.root_guids = o->root_guids;
		to.nroots = o->nroots;
		to.cn_guids = o->cn_guids;
		to.ncns = o->ncns;
		to.io_guids = o->io_guids;
		to.nios = o->nios;
	}
	if (vt_tree_build(&t, f, &to, e))
		return -1;
	if (o && o->log && o->log_level >= VT_LOG_INFO)
		vt_tree_describe(&t, log_line, (void *)o);
	if (vt_lfts_init(lfts, f, e)) {
		vt_tree_free(&t);
		return -1;
	}
	r.f = f;
	r.t = &t;
	r.lfts = lfts;
	r.use_dn = calloc(f->nports + 1, sizeof(uint32_t));
	r.use_up = calloc(f->nports + 1, sizeof(uint32_t));
	r.fill_dn = calloc(f->nports + 1, sizeof(uint32_t));
	r.fill_up = calloc(f->nports + 1, sizeof(uint32_t));
	r.stamp = calloc(t.nsw + 1, sizeof(uint32_t));
	r.stack = malloc((t.nsw + 1) * sizeof(uint32_t));
	order->port = malloc((t.order.n + 1) * sizeof(*order->port));
	if (!r.use_dn || !r.use_up || !r.fill_dn || !r.fill_up || !r.stamp || !r.stack ||
	    !order->port) {
		vt_err_set(e, "out of memory");
		goto fail;
	}
	/* Algorithm 2: compute nodes in index order, place-keepers included */
	for (uint32_t i = 0; i < t.order.n; i++)
		if (t.order.port[i] != VT_NONE && f->ports[t.order.port[i]].lmc > maxlmc)
			maxlmc = f->ports[t.order.port[i]].lmc;
	for (uint32_t off = 0; off < (1u << maxlmc); off++)
		for (uint32_t i = 0; i < t.order.n; i++) {
			uint32_t cap = t.order.port[i];

			if (cap == VT_NONE) {
				if (!off)
					route_dest(&r, t.rank_leaf[i], 0, 0, 0);
				continue;
			}
			const struct vt_port *p = &f->ports[cap];
			const struct vt_port *sp = &f->ports[p->peer];

			if (off < (1u << p->lmc) && p->lid)
				route_dest(&r, f->nodes[sp->node].sw, sp->num, p->lid + off, off);
		}
	/* then every other CA port (I/O and service nodes) and every switch */
	for (uint32_t q = 0; q < f->nports; q++) {
		const struct vt_port *p = &f->ports[q];

		if (p->num && p->peer != VT_NONE && f->nodes[p->node].type != VT_SWITCH &&
		    !t.is_cn[q] && f->nodes[f->ports[p->peer].node].type == VT_SWITCH)
			route_ca_port(&r, q, 0);
	}
	/* switches in LID order, so the tables do not depend on the input's record order
	 * (the plugin's model and an ibnetdiscover dump list the same switches differently) */
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint32_t q = f->lid_port[lid], s;

		if (q == VT_NONE || f->ports[q].num || f->ports[q].lid != lid ||
		    f->nodes[f->ports[q].node].type != VT_SWITCH)
			continue;
		s = f->nodes[f->ports[q].node].sw;
		if (t.level[s] == 0xFF)
			vt_lft_set(lfts, s, lid, 0);
		else
			route_dest(&r, s, 0, lid, 0);
	}
	memcpy(order->port, t.order.port, t.order.n * sizeof(*order->port));
	order->n = t.order.n;
	if (o && o->log && o->log_level >= VT_LOG_INFO && r.unrouted) {
		char buf[160];

		snprintf(buf, sizeof(buf),
			 "%llu switch/LID pairs have no up/down route and stay unset",
			 (unsigned long long)r.unrouted);
		o->log(o->log_ctx, VT_LOG_INFO, buf);
	}
	free(r.use_dn);
	free(r.use_up);
	free(r.fill_dn);
	free(r.fill_up);
	free(r.stamp);
	free(r.stack);
	vt_tree_free(&t);
	return 0;
fail:
	free(r.use_dn);
	free(r.use_up);
	free(r.fill_dn);
	free(r.fill_up);
	free(r.stamp);
	free(r.stack);
	vt_order_free(order);
	vt_lfts_free(lfts);
	vt_tree_free(&t);
	return -1;
}

int vt_guid_file_read(const char *path, uint64_t **guids, uint32_t *n, vt_err *e)
{
	char *buf, *s, *next;
	size_t len;
	uint32_t cap = 0;
	unsigned line = 0;

	*guids = NULL;
	*n = 0;
	if (vt_read_file(path, &buf, &len, e))
		return -1;
	for (s = buf; s && *s; s = next) {
		char *nl = strchr(s, '\n'), *h, *end;
		unsigned long long g;

		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		line++;
		h = strchr(s, '#');
		if (h)
			*h = '\0';
		while (isspace((unsigned char)*s))
			s++;
		for (end = s + strlen(s); end > s && isspace((unsigned char)end[-1]);)
			*--end = '\0';
		if (!*s)
			continue;
		g = strtoull(s, &end, 16);
		if (*end ||
		    !isxdigit((
			    unsigned char)s[s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 2 : 0])) {
			vt_err_at(e, path, line, "bad GUID \"%s\"", s);
			goto fail;
		}
		if (*n == cap) {
			uint64_t *p = realloc(*guids, (cap = cap ? cap * 2 : 64) * sizeof(*p));

			if (!p) {
				vt_err_set(e, "out of memory");
				goto fail;
			}
			*guids = p;
		}
		(*guids)[(*n)++] = g;
	}
	free(buf);
	return 0;
fail:
	free(buf);
	free(*guids);
	*guids = NULL;
	*n = 0;
	return -1;
}
