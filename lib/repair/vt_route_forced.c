/* SPDX-License-Identifier: MIT */
/*
 * The forced minimum of table changes after a fault (vt_route_forced.h).
 * Per destination switch x, one backward search over (switch, phase) states
 * finds where a legal route to x can still start: phase U may go up or down,
 * phase D (entered going down, not at a turn switch) only down. A down hop
 * into a turn switch gives it phase U again.
 */
#include "repair/vt_route_forced.h"

#include <stdlib.h>
#include <string.h>

#include "tree/vt_tree.h"

#define BLOCK 64u /* LIDs per LFT block, the unit OpenSM sends */

enum { PH_U, PH_D };

struct hop {
	uint32_t n; /* the switch at the far end */
	uint8_t up; /* 1: n is above, 0: below */
};

struct forced {
	const vt_fabric *f;
	const uint8_t *level;
	uint32_t nsw;
	uint32_t *adj_start; /* nsw + 1: hops between switches of different levels */
	struct hop *adj;
	uint8_t *turn;	/* per switch: some route of prev or fresh turns down-up there */
	uint32_t *mark; /* per state (2 * s + phase): x + 1 when it reaches x legally */
	uint32_t *queue;
	struct port_to *to; /* per switch, stride ports: what entry_forced asks of a port */
	uint32_t stride;
};

/* What port p of switch s leads to, looked up once (entry_forced asks at every entry). */
struct port_to {
	uint32_t v;   /* TO_CA: the CA's port; TO_UP, TO_DOWN: the switch */
	uint8_t kind; /* TO_* */
};
enum { TO_LOST, TO_CA, TO_UP, TO_DOWN, TO_FLAT }; /* TO_FLAT: a switch not a level apart */

static const struct vt_node *node_of(const struct forced *r, uint32_t s)
{
	return &r->f->nodes[r->f->switches[s]];
}

/* The switch behind port p of switch s; VT_NONE for none, a CA, or a link within a level. */
static uint32_t hop_to(const struct forced *r, uint32_t s, unsigned p, int *up)
{
	const struct vt_node *nd = node_of(r, s);
	uint32_t q, n;

	if (p == 0 || p > nd->nports || (q = r->f->ports[nd->first_port + p].peer) == VT_NONE)
		return VT_NONE;
	n = r->f->nodes[r->f->ports[q].node].sw;
	if (n == VT_NONE || r->level[s] == VT_TREE_OUTSIDE || r->level[n] == VT_TREE_OUTSIDE ||
	    r->level[s] == r->level[n])
		return VT_NONE;
	*up = r->level[n] > r->level[s];
	return n;
}

static int build_adj(struct forced *r)
{
	uint32_t n = 0;

	for (uint32_t pass = 0; pass < 2; pass++) {
		n = 0;
		for (uint32_t s = 0; s < r->nsw; s++) {
			r->adj_start[s] = n;
			for (unsigned p = 1; p <= node_of(r, s)->nports; p++) {
				int up;
				uint32_t m = hop_to(r, s, p, &up);

				if (m == VT_NONE)
					continue;
				if (pass)
					r->adj[n] = (struct hop){m, (uint8_t)up};
				n++;
			}
		}
		r->adj_start[r->nsw] = n;
		if (!pass && !(r->adj = malloc(((size_t)n + 1) * sizeof(*r->adj))))
			return -1;
	}
	return 0;
}

/* Does table t turn a route down-up at switch x (some parent sends into x what x sends up)? */
static int turns_at(const struct forced *r, const vt_lfts *t, uint32_t x)
{
	const struct vt_node *nd = node_of(r, x);
	uint8_t goes_up[256] = {0};
	uint8_t back[256]; /* per parent: its port number towards x */
	uint32_t parent[256], np = 0;

	for (unsigned p = 1; p <= nd->nports; p++) {
		int up;
		uint32_t m = hop_to(r, x, p, &up);

		if (m == VT_NONE || !up)
			continue;
		goes_up[p] = 1;
		parent[np] = m;
		back[np++] = r->f->ports[r->f->ports[nd->first_port + p].peer].num;
	}
	for (uint32_t lid = 1; np && lid < t->nlid; lid++)
		if (goes_up[vt_lft_get(t, x, lid)])
			for (uint32_t i = 0; i < np; i++)
				if (vt_lft_get(t, parent[i], lid) == back[i])
					return 1;
	return 0;
}

static void mark(struct forced *r, uint32_t s, int ph, uint32_t x, uint32_t *nq)
{
	uint32_t k = 2 * s + (uint32_t)ph;

	if (r->mark[k] != x + 1) {
		r->mark[k] = x + 1;
		r->queue[(*nq)++] = k;
	}
}

/* Marks every state from which a legal route reaches switch x. */
static void reach(struct forced *r, uint32_t x)
{
	uint32_t nq = 0;

	mark(r, x, PH_U, x, &nq);
	mark(r, x, PH_D, x, &nq);
	for (uint32_t h = 0; h < nq; h++) {
		uint32_t c = r->queue[h] / 2;
		int ph = (int)(r->queue[h] % 2);
		/* the phase a down hop into c arrives in: is this state that one? */
		int entered = c == x || ph == (r->turn[c] ? PH_U : PH_D);

		for (uint32_t j = r->adj_start[c]; j < r->adj_start[c + 1]; j++) {
			uint32_t v = r->adj[j].n;

			if (!r->adj[j].up && ph == PH_U) {
				mark(r, v, PH_U, x, &nq); /* a child climbing into c */
			} else if (r->adj[j].up && entered) {
				mark(r, v, PH_U, x, &nq); /* a parent descending into c */
				mark(r, v, PH_D, x, &nq);
			}
		}
	}
}

/* The switch a LID's traffic leaves the fabric at (its CA's switch, or the switch itself). */
static uint32_t dest_switch(const vt_fabric *f, uint32_t lid)
{
	uint32_t q = f->lid_port[lid];

	if (f->nodes[f->ports[q].node].type == VT_SWITCH)
		return f->nodes[f->ports[q].node].sw;
	q = f->ports[q].peer;
	return q == VT_NONE ? VT_NONE : f->nodes[f->ports[q].node].sw;
}

/* r->to: per switch and port, what entry_forced judges by. */
static int port_table(struct forced *r)
{
	const vt_fabric *f = r->f;

	r->stride = vt_fabric_sw_stride(f);
	r->to = malloc(((size_t)r->nsw * r->stride + 1) * sizeof(*r->to));
	if (!r->to)
		return -1;
	for (uint32_t s = 0; s < r->nsw; s++)
		for (unsigned p = 0; p < r->stride; p++) {
			const struct vt_node *nd = node_of(r, s);
			struct port_to *t = &r->to[(size_t)s * r->stride + p];
			uint32_t q = p == 0 || p > nd->nports ? VT_NONE
							      : f->ports[nd->first_port + p].peer;
			uint32_t n;
			int up;

			*t = (struct port_to){VT_NONE, TO_LOST};
			if (q == VT_NONE)
				continue;
			if (f->nodes[f->ports[q].node].type != VT_SWITCH)
				*t = (struct port_to){q, TO_CA};
			else if ((n = hop_to(r, s, p, &up)) == VT_NONE)
				*t = (struct port_to){VT_NONE, TO_FLAT};
			else
				*t = (struct port_to){n, (uint8_t)(up ? TO_UP : TO_DOWN)};
		}
	return 0;
}

/* 0: prev's entry can stay, 1: only a fault-free route could keep it, 2: its link is gone. */
static int entry_forced(const struct forced *r, uint32_t s, uint32_t lid, unsigned p, uint32_t x)
{
	const struct port_to *t;
	uint32_t n;

	if (p == 0)
		return r->f->lid_port[lid] == node_of(r, s)->first_port ? 0 : 1;
	if (p >= r->stride || (t = &r->to[(size_t)s * r->stride + p])->kind == TO_LOST)
		return 2;
	if (t->kind == TO_CA)
		return t->v == r->f->lid_port[lid] ? 0 : 1;
	if (x == VT_NONE || t->kind == TO_FLAT)
		return 0; /* no levels to judge by */
	n = t->v;
	if (t->kind == TO_UP)
		return r->mark[2 * n + PH_U] != x + 1;
	return r->mark[2 * n + (r->turn[n] ? PH_U : PH_D)] != x + 1;
}

/* Counts the forced entries of the LIDs lids[0 .. n) (all leaving at x);
 * lost and forced flag the 64-LID blocks that hold such entries. */
static void count_dest(struct forced *r, const vt_lfts *prev, uint32_t x, const uint32_t *lids,
		       uint32_t n, uint8_t *lost, uint8_t *forced, struct vt_forced *out)
{
	if (x != VT_NONE)
		reach(r, x);
	for (uint32_t s = 0; s < r->nsw; s++)
		for (uint32_t i = 0; i < n; i++) {
			uint8_t p = vt_lft_get(prev, s, lids[i]);
			size_t b = (size_t)s * ((prev->nlid + BLOCK - 1) / BLOCK) + lids[i] / BLOCK;
			int k;

			if (p == VT_LFT_NONE || !(k = entry_forced(r, s, lids[i], p, x)))
				continue;
			out->lost += k == 2;
			out->forced++;
			lost[b] |= k == 2;
			forced[b] = 1;
		}
}

/* LIDs still in f grouped by the switch they leave at (counting sort), then counted group by group.
 */
static int count_all(struct forced *r, const vt_lfts *prev, struct vt_forced *out)
{
	const vt_fabric *f = r->f;
	size_t nb = (size_t)r->nsw * ((prev->nlid + BLOCK - 1) / BLOCK);
	uint32_t *dst = malloc(((size_t)prev->nlid + 1) * sizeof(*dst));
	uint32_t *lids = malloc(((size_t)prev->nlid + 1) * sizeof(*lids));
	uint32_t *at =
		calloc((size_t)r->nsw + 2, sizeof(*at)); /* group starts; group nsw: no switch */
	uint8_t *lost = calloc(nb + 1, 1), *forced = calloc(nb + 1, 1);
	int bad = !dst || !lids || !at || !lost || !forced;

	for (uint32_t lid = 1; !bad && lid < prev->nlid; lid++) {
		dst[lid] = lid <= f->max_lid && f->lid_port[lid] != VT_NONE ? dest_switch(f, lid)
									    : VT_NONE - 1;
		if (dst[lid] != VT_NONE - 1)
			at[(dst[lid] == VT_NONE ? r->nsw : dst[lid]) + 1]++;
	}
	for (uint32_t g = 0; !bad && g <= r->nsw; g++)
		at[g + 1] += at[g];
	for (uint32_t lid = 1; !bad && lid < prev->nlid; lid++)
		if (dst[lid] != VT_NONE - 1)
			lids[at[dst[lid] == VT_NONE ? r->nsw : dst[lid]]++] = lid;
	/* at[g] is now group g's end, at[g - 1] its start */
	for (uint32_t g = 0, a = 0; !bad && g <= r->nsw; a = at[g++])
		if (at[g] > a)
			count_dest(r, prev, g == r->nsw ? VT_NONE : g, &lids[a], at[g] - a, lost,
				   forced, out);
	for (size_t b = 0; !bad && b < nb; b++) {
		out->lost_blocks += lost[b];
		out->forced_blocks += forced[b];
	}
	free(dst);
	free(lids);
	free(at);
	free(lost);
	free(forced);
	return bad ? -1 : 0;
}

int vt_route_forced(const vt_fabric *f, const vt_lfts *prev, const vt_lfts *fresh,
		    const uint8_t *level, struct vt_forced *out, vt_err *e)
{
	struct forced r = {.f = f, .level = level, .nsw = f->nswitches};
	int bad;

	memset(out, 0, sizeof(*out));
	r.adj_start = malloc(((size_t)r.nsw + 1) * sizeof(*r.adj_start));
	r.turn = calloc((size_t)r.nsw + 1, 1);
	r.mark = calloc(2 * (size_t)r.nsw + 1, sizeof(*r.mark));
	r.queue = malloc((2 * (size_t)r.nsw + 1) * sizeof(*r.queue));
	bad = !r.adj_start || !r.turn || !r.mark || !r.queue || build_adj(&r) || port_table(&r);
	for (uint32_t s = 0; !bad && s < r.nsw; s++)
		r.turn[s] = (uint8_t)(turns_at(&r, prev, s) || turns_at(&r, fresh, s));
	bad = bad || count_all(&r, prev, out);
	free(r.adj_start);
	free(r.adj);
	free(r.turn);
	free(r.mark);
	free(r.queue);
	free(r.to);
	return bad ? vt_err_nomem(e, "out of memory") : 0;
}
