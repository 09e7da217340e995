/* SPDX-License-Identifier: MIT */
/*
 * Zahavi et al., Algorithm 2, the main loop setting LFT to compute nodes:
 *
 *     foreach compute node (in index order)
 *         set local LFT(LID) of the port connecting to compute node
 *         call assign-down-going-port-by-ascending
 *
 * Index order is the tree's host order with place-keepers (§3.2: a missing
 * node is routed "as if it exists", moving the usage counters only). LMC
 * ranges are routed offset by offset, each over every node, so every offset
 * is balanced on its own. Then the LIDs the paper does not route: other CA
 * ports (I/O, service nodes) and the switches' own LIDs.
 */
#include "route/vt_route_int.h"

#include <stdlib.h>
#include <string.h>

/*
 * One destination attached to switch x through local port xp (0: the switch
 * itself); lid 0 is a place-keeper, which moves the counters only. rot turns
 * the tie-break so the LIDs of one LMC range take different paths.
 */
static void route_dest(struct router *r, uint32_t x, unsigned xp, uint32_t lid, uint32_t rot)
{
	uint32_t path[VT_TREE_MAX_LEVELS], n, nf;
	uint8_t pn[VT_TREE_MAX_LEVELS] = {0};

	if (r->plan.px != x)
		vt_route_make_plan(r, x);
	r->main.serial++;
	vt_route_batch_start(r, lid);
	if (lid)
		vt_route_write_fill(r, r->main.serial);
	set_entry(r, x, xp);
	n = vt_route_downgoing_by_ascending(r, x, rot, path, pn);
	nf = vt_route_upgoing_by_descending(r, path, n);
	/* switch LIDs carry no bulk traffic: their missed switches keep the plan's fill */
	if (nf < r->plan.nreach0 && (xp || !lid))
		vt_route_stragglers(r, pn);
	if (nf < r->plan.nreach0 && lid)
		vt_route_write_leaf_fill(r, r->main.serial);
}

/* Compute nodes in index order, place-keepers included, offset by offset of their LMC. */
static void route_compute_nodes(struct router *r, const vt_tree *t)
{
	const vt_fabric *f = r->f;
	uint32_t maxlmc = 0;

	for (uint32_t i = 0; i < t->order.n; i++)
		if (t->order.port[i] != VT_NONE && f->ports[t->order.port[i]].lmc > maxlmc)
			maxlmc = f->ports[t->order.port[i]].lmc;
	for (uint32_t off = 0; off < (1u << maxlmc); off++)
		for (uint32_t i = 0; i < t->order.n; i++) {
			uint32_t cap = t->order.port[i];

			r->main.crank = i;
			if (cap == VT_NONE) {
				if (!off)
					route_dest(r, t->rank_leaf[i], 0, 0, 0);
				continue;
			}
			const struct vt_port *p = &f->ports[cap];
			const struct vt_port *sp = &f->ports[p->peer];

			if (off < (1u << p->lmc) && p->lid)
				route_dest(r, f->nodes[sp->node].sw, sp->num, p->lid + off, off);
		}
	r->main.crank = VT_NONE;
}

/*
 * Every other CA port of the plane (I/O, storage and management CAs,
 * aggregation nodes), each LID of its range, in base LID order: the plugin's
 * model and an ibnetdiscover dump list the same CAs differently.
 */
static void route_other_cas(struct router *r, const vt_tree *t)
{
	const vt_fabric *f = r->f;

	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint32_t q = f->lid_port[lid], x;
		const struct vt_port *p = q == VT_NONE ? NULL : &f->ports[q];

		if (!p || p->lid != lid || !p->num || p->peer == VT_NONE ||
		    f->nodes[p->node].type == VT_SWITCH || t->is_cn[q] ||
		    f->nodes[f->ports[p->peer].node].type != VT_SWITCH)
			continue;
		x = f->nodes[f->ports[p->peer].node].sw;
		if (t->level[x] == VT_TREE_OUTSIDE || !p->lid)
			continue;
		for (uint32_t o = 0; o < (1u << p->lmc); o++)
			route_dest(r, x, f->ports[p->peer].num, p->lid + o, o);
	}
}

/*
 * Switches in LID order, so the tables do not depend on the input's record
 * order (the plugin's model and an ibnetdiscover dump list the same switches
 * differently); each LID of a switch's LMC range (OpenSM's lmc_esp0 gives
 * enhanced switch port 0 one), turned like a CA's.
 */
static void route_switch_lids(struct router *r, const vt_tree *t)
{
	const vt_fabric *f = r->f;

	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint32_t q = f->lid_port[lid], s;

		if (q == VT_NONE || f->ports[q].num || f->ports[q].lid != lid ||
		    f->nodes[f->ports[q].node].type != VT_SWITCH)
			continue;
		s = f->nodes[f->ports[q].node].sw;
		if (t->level[s] == VT_TREE_OUTSIDE)
			continue;
		for (uint32_t o = 0; o < (1u << f->ports[q].lmc); o++)
			route_dest(r, s, 0, lid + o, o);
	}
}

/*
 * The passes after the main loop (spines, lanes, leaf moves, stage search)
 * read the tree and the compute ranks' entries of the plane's switches, the
 * stage search the turn switches (deg.inz) too, and set only those entries.
 * The audit's retries route the plane again with other detours but the same
 * compute entries, so a routing whose key is an earlier one's takes that
 * one's result instead of running the passes again (as the spines pass does
 * alone, dd10f09). The stage search is kept apart: the turn switch routing's
 * deg.inz differs from the first's, and the passes before it do not read it.
 */
struct vt_passes_memo {
	uint32_t n, nsw;
	int stage; /* the stage search's (deg.inz in its key), else the passes before it */
	int unsure_in, unsure_out; /* deg.unsure before and after the passes */
	uint32_t *lid;		   /* per rank, 0 for none */
	uint8_t *in, *out;	   /* per switch * rank: the entries before and after */
	uint8_t *inz;		   /* per switch: deg.inz */
	struct vt_passes_memo *next;
};

static void passes_one_free(struct vt_passes_memo *m)
{
	if (!m)
		return;
	free(m->lid);
	free(m->in);
	free(m->out);
	free(m->inz);
	free(m);
}

void vt_route_passes_memo_free(struct vt_passes_memo **m)
{
	while (*m) {
		struct vt_passes_memo *next = (*m)->next;

		passes_one_free(*m);
		*m = next;
	}
}

/* The compute entries of plane t's switches into e (NULL: from e into the tables). */
static void passes_entries(struct router *r, const vt_tree *t, const struct vt_passes_memo *m,
			   uint8_t *e, int set)
{
	for (uint32_t s = 0; s < m->nsw; s++)
		for (uint32_t d = 0; d < m->n; d++, e++)
			if (set && t->level[s] != VT_TREE_OUTSIDE && m->lid[d])
				vt_lft_set(r->lfts, s, m->lid[d], *e);
			else if (!set)
				*e = t->level[s] == VT_TREE_OUTSIDE || !m->lid[d]
					     ? 0
					     : vt_lft_get(r->lfts, s, m->lid[d]);
}

/* Plane t's key as the tables stand (NULL: out of memory, or an LMC range: not kept). */
static struct vt_passes_memo *passes_key(struct router *r, const vt_tree *t, int stage)
{
	struct vt_passes_memo *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->stage = stage;
	m->n = t->order.n;
	m->nsw = t->nsw;
	m->unsure_in = r->deg.unsure;
	m->lid = malloc(((size_t)m->n + 1) * sizeof(*m->lid));
	m->in = malloc((size_t)m->nsw * m->n + 1);
	m->inz = malloc((size_t)m->nsw + 1);
	if (!m->lid || !m->in || !m->inz) {
		passes_one_free(m);
		return NULL;
	}
	for (uint32_t d = 0; d < m->n; d++) {
		uint32_t q = t->order.port[d];

		if (q != VT_NONE && r->f->ports[q].lmc) {
			passes_one_free(m);
			return NULL;
		}
		m->lid[d] = q == VT_NONE ? 0 : r->f->ports[q].lid;
	}
	memcpy(m->inz, r->deg.inz, m->nsw);
	passes_entries(r, t, m, m->in, 0);
	return m;
}

static int passes_same(const struct vt_passes_memo *a, const struct vt_passes_memo *b)
{
	return a->stage == b->stage && a->n == b->n && a->nsw == b->nsw &&
	       a->unsure_in == b->unsure_in &&
	       !memcmp(a->lid, b->lid, (size_t)a->n * sizeof(*a->lid)) &&
	       (!a->stage || !memcmp(a->inz, b->inz, a->nsw)) &&
	       !memcmp(a->in, b->in, (size_t)a->nsw * a->n);
}

static void passes_run(struct router *r, const vt_tree *t, int stage)
{
	if (stage) {
		vt_route_stage_search(r, t);
		return;
	}
	/* the lanes are kept only where they beat the tables, the spines' included */
	vt_route_spines(r, t);
	vt_route_lanes(r, t);
	vt_route_leaf_moves(r, t);
}

/* The passes (stage: the stage search) on plane t, or an earlier routing's result for the same key.
 */
static void passes(struct router *r, const vt_tree *t, int stage)
{
	/* a regular tree's passes find nothing to do: its key would cost more than they */
	int keyed = r->passes_memo && t->ndep_total;
	struct vt_passes_memo *key = keyed ? passes_key(r, t, stage) : NULL, *m;

	for (m = key ? *r->passes_memo : NULL; m && !passes_same(m, key); m = m->next)
		;
	if (m) {
		passes_one_free(key);
		passes_entries(r, t, m, m->out, 1);
		r->deg.unsure = m->unsure_out;
		return;
	}
	passes_run(r, t, stage);
	if (!key)
		return;
	key->unsure_out = r->deg.unsure;
	key->out = malloc((size_t)key->nsw * key->n + 1);
	if (!key->out) { /* not kept: the next routing runs them */
		passes_one_free(key);
		return;
	}
	passes_entries(r, t, key, key->out, 0);
	key->next = *r->passes_memo;
	*r->passes_memo = key;
}

/* Routes every LID of plane t (its tables set up: vt_route.c). */
void vt_route_mainloop(struct router *r, const vt_tree *t)
{
	route_compute_nodes(r, t);
	route_other_cas(r, t);
	route_switch_lids(r, t);
	vt_route_batch_flush(r);
	vt_route_lookahead(r, t);
	passes(r, t, 0);
	passes(r, t, 1);
}
