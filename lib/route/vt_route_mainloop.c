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
 * The passes after the main loop, in two groups: the spines, lanes and leaf
 * moves, then the stage swap and search. They read the tree and the compute
 * ranks' entries of the plane's switches, the stage search the turn switches
 * (deg.inz) too, and set only those entries. The audit's retries route the
 * plane again with other detours but the same compute entries, so a group's
 * result is kept, keyed by all it reads, and a routing whose key is an
 * earlier one's takes that one's result instead of running the group again
 * (cores 2,18,9,40,10 --drop-switches 1@1 --seed 3: four routings, each group
 * run twice). The stage group is kept apart: the turn switch routing's
 * deg.inz differs from the first's, and the passes before it do not read it.
 *
 * A group is keyed only where one of its passes applies, as each decides from
 * the tree, the groups and the damage flags before it reads an entry: there
 * the key costs less than the pass's own model, and a plane where none applies
 * (pruned 36,12 with a top switch down: the lanes find no split core, the
 * moves' model is too large) neither runs nor keys the group.
 */
enum { PASS_SPINES, PASS_LANES, PASS_MOVES, PASS_SWAP, PASS_STAGE, NPASS };

struct vt_passes_memo {
	uint32_t n, np;		   /* ranks; switches of the plane */
	int stage;		   /* the stage group's, else the passes before it */
	int unsure_in, unsure_out; /* deg.unsure before and after the passes */
	uint32_t *lid;		   /* per rank, 0 for none or an LMC range (no pass reads those) */
	uint32_t *sw;		   /* per switch of the plane: its index, in index order */
	uint8_t *in;		   /* per switch of the plane * rank: the entries before */
	uint8_t *inz;		   /* per switch of the plane: deg.inz; NULL: the stage search
				      does not apply */
	uint32_t nout;		   /* switches whose entries the passes changed */
	uint32_t *out_sw;	   /* per such switch: its place in sw[] */
	uint8_t *out;		   /* per such switch * rank: the entries after */
	struct vt_passes_memo *next;
};

static void passes_one_free(struct vt_passes_memo *m)
{
	if (!m)
		return;
	free(m->lid);
	free(m->sw);
	free(m->in);
	free(m->inz);
	free(m->out_sw);
	free(m->out);
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

/* Which passes of the group apply to plane t (apply[PASS_*]); 0 where none does. */
static int passes_apply(const struct router *r, const vt_tree *t, int stage, int *apply)
{
	if (stage) {
		apply[PASS_SWAP] = vt_route_stage_swap_applies(r, t);
		apply[PASS_STAGE] = vt_route_stage_applies(r, t);
		return apply[PASS_SWAP] || apply[PASS_STAGE];
	}
	apply[PASS_SPINES] = vt_route_spines_applies(r, t);
	apply[PASS_LANES] = vt_route_lanes_applies(r, t);
	apply[PASS_MOVES] = vt_route_leaf_moves_applies(r, t);
	return apply[PASS_SPINES] || apply[PASS_LANES] || apply[PASS_MOVES];
}

static void passes_run(struct router *r, const vt_tree *t, int stage, const int *apply)
{
	if (stage) {
		vt_route_stage_search(r, t); /* the swap first, then the search */
		return;
	}
	/* the lanes are kept only where they beat the tables, the spines' included */
	if (apply[PASS_SPINES])
		vt_route_spines(r, t);
	if (apply[PASS_LANES])
		vt_route_lanes(r, t);
	if (apply[PASS_MOVES])
		vt_route_leaf_moves(r, t);
}

/* Does switch sw[i]'s row of m differ from the tables (e: its entries in m)? */
static int row_differs(const struct router *r, const struct vt_passes_memo *m, uint32_t i,
		       const uint8_t *e)
{
	for (uint32_t d = 0; d < m->n; d++)
		if (m->lid[d] && e[d] != vt_lft_get(r->lfts, m->sw[i], m->lid[d]))
			return 1;
	return 0;
}

/* Plane t's key as the tables stand (NULL: out of memory); inz: the stage search reads deg.inz. */
static struct vt_passes_memo *passes_key(const struct router *r, const vt_tree *t, int stage,
					 int inz)
{
	struct vt_passes_memo *m = calloc(1, sizeof(*m));
	uint8_t *e;

	if (!m)
		return NULL;
	m->stage = stage;
	m->n = t->order.n;
	m->unsure_in = r->deg.unsure;
	for (uint32_t s = 0; s < t->nsw; s++)
		m->np += t->level[s] != VT_TREE_OUTSIDE;
	m->lid = malloc(((size_t)m->n + 1) * sizeof(*m->lid));
	m->sw = malloc(((size_t)m->np + 1) * sizeof(*m->sw));
	m->in = e = malloc((size_t)m->np * m->n + 1);
	m->inz = inz ? malloc((size_t)m->np + 1) : NULL;
	if (!m->lid || !m->sw || !m->in || (inz && !m->inz)) {
		passes_one_free(m);
		return NULL;
	}
	for (uint32_t d = 0; d < m->n; d++) {
		uint32_t q = t->order.port[d];

		m->lid[d] = q == VT_NONE || r->f->ports[q].lmc ? 0 : r->f->ports[q].lid;
	}
	for (uint32_t s = 0, i = 0; s < t->nsw; s++)
		if (t->level[s] != VT_TREE_OUTSIDE) {
			m->sw[i] = s;
			if (inz)
				m->inz[i] = r->deg.inz[s];
			for (uint32_t d = 0; d < m->n; d++, e++)
				*e = m->lid[d] ? vt_lft_get(r->lfts, s, m->lid[d]) : 0;
			i++;
		}
	return m;
}

static int passes_same(const struct vt_passes_memo *a, const struct vt_passes_memo *b)
{
	return a->stage == b->stage && a->n == b->n && a->np == b->np &&
	       a->unsure_in == b->unsure_in && !a->inz == !b->inz &&
	       !memcmp(a->lid, b->lid, (size_t)a->n * sizeof(*a->lid)) &&
	       !memcmp(a->sw, b->sw, (size_t)a->np * sizeof(*a->sw)) &&
	       (!a->inz || !memcmp(a->inz, b->inz, a->np)) &&
	       !memcmp(a->in, b->in, (size_t)a->np * a->n);
}

/* The switches whose entries the passes changed from key's, and those entries; -1: no memory. */
static int passes_result(const struct router *r, struct vt_passes_memo *key)
{
	uint8_t *e;

	key->unsure_out = r->deg.unsure;
	for (uint32_t i = 0; i < key->np; i++)
		key->nout += (uint32_t)row_differs(r, key, i, key->in + (size_t)i * key->n);
	key->out_sw = malloc(((size_t)key->nout + 1) * sizeof(*key->out_sw));
	key->out = e = malloc((size_t)key->nout * key->n + 1);
	if (!key->out_sw || !key->out)
		return -1;
	for (uint32_t i = 0, k = 0; k < key->nout; i++) {
		if (!row_differs(r, key, i, key->in + (size_t)i * key->n))
			continue;
		key->out_sw[k++] = i;
		for (uint32_t d = 0; d < key->n; d++, e++)
			*e = key->lid[d] ? vt_lft_get(r->lfts, key->sw[i], key->lid[d]) : 0;
	}
	return 0;
}

/* A kept result into the tables. */
static void passes_set(struct router *r, const struct vt_passes_memo *m)
{
	const uint8_t *e = m->out;

	for (uint32_t k = 0; k < m->nout; k++)
		for (uint32_t d = 0; d < m->n; d++, e++)
			if (m->lid[d])
				vt_lft_set(r->lfts, m->sw[m->out_sw[k]], m->lid[d], *e);
	r->deg.unsure = m->unsure_out;
}

/* The group's passes (stage: the stage group) on plane t, or an earlier routing's result. */
static void passes(struct router *r, const vt_tree *t, int stage)
{
	int apply[NPASS] = {0};
	struct vt_passes_memo *key, *m;

	if (!passes_apply(r, t, stage, apply))
		return;
	key = r->passes_memo ? passes_key(r, t, stage, apply[PASS_STAGE]) : NULL;
	for (m = key ? *r->passes_memo : NULL; m && !passes_same(m, key); m = m->next)
		;
	if (m) {
		passes_one_free(key);
		passes_set(r, m);
		return;
	}
	passes_run(r, t, stage, apply);
	if (!key)
		return;
	if (passes_result(r, key)) { /* not kept: the next routing runs them */
		passes_one_free(key);
		return;
	}
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
