/* SPDX-License-Identifier: MIT */
/*
 * Fewest table changes after a fault (vt_route.h): the fresh routing of the
 * degraded fabric decides only where the previous sweep's entry no longer
 * serves. Per LID, the fresh tables are a forest of routes into the LID; a
 * previous entry replaces a fresh one when the route it starts, followed
 * through the tables as they stand, reaches the LID without coming back, is
 * no longer than the route it replaces (VT_REPAIR_MINIMAL), and makes no
 * down-up turn the fresh tables do not make themselves. Every switch's route
 * then still ends at the LID (only the changed switch's route changed, and it
 * was checked), no route grows, and the turns are the fresh routing's, whose
 * turn order (vt_route_turn.c) keeps them free of credit loops; the
 * every-source audit has the last word all the same. Entries are tried until
 * none more can be kept (one that loops now may not once a switch on its way
 * has gone back to its old port).
 *
 * Where the previous entry cannot stay, the fresh routing balanced its choice
 * against its own other entries, not against the kept ones: the new port is
 * chosen again among the ports that pass the same checks, one carrying fewer
 * CA LIDs first (rebalance), as Algorithm 3 spreads its up-going routes. So
 * are entries that CA traffic crosses now and did not before: the old routing
 * balanced only the entries its routes used, and the moved routes now follow
 * spare ones, which would crowd onto one port (fat 8,3 after a level-1 switch
 * fails: shift worst 4 instead of 2).
 */
#include "vt_route.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vt_route_guard.h"
#include "vt_route_forced.h"
#include "vt_tree.h"

#define BLOCK 64u /* LIDs per LFT block, the unit OpenSM sends */

enum { HOP_UP, HOP_DOWN, HOP_SIDE };

/*
 * One way to repair, a candidate (the policy, repair_tries, picks among them):
 * prev_turns lets kept routes turn down-up where the previous tables turned
 * too (else only where the fresh ones turn); rebalance says which entries
 * choose their port again; ca_fresh keeps the fresh entries of every CA LID;
 * longer keeps CA routes that grew longer (VT_REPAIR_GUARDED tries those first).
 */
enum {
	REB_NONE,	/* none: an entry that changed takes the fresh tables' port */
	REB_CHANGED,	/* the entries that changed */
	REB_NEW,	/* and those CA traffic crosses now and did not before */
	REB_GAP,	/* those, by rank distance first (rank_gaps) */
	REB_GAP_LEVELS, /* so, with the traffic counted again after each level */
};

struct repair_try {
	uint8_t prev_turns, rebalance, ca_fresh, longer;
};

enum { CAND_AUDIT = 1, CAND_WORSE = 2 }; /* why a candidate was refused */

struct repair {
	const vt_fabric *f;
	const vt_lfts *prev, *fresh;
	vt_lfts *t;	/* being repaired */
	uint8_t *level; /* per switch, from the tree; 0xFF outside it */
	enum vt_repair_policy policy;
	struct repair_try how; /* the candidate being built */
	uint32_t *pend;	       /* nsw */
	/* per switch and LID (bit s * nlid + lid): CA traffic to lid crosses s */
	uint8_t *used_prev, *used_now;
	int have_used_prev;
	/* the fresh routing's rank order: lid_of_rank[i] (VT_NONE for a place-keeper) */
	uint32_t nrank, *lid_of_rank, *rank_of_lid; /* rank_of_lid: VT_NONE if none */
	uint32_t *peer, stride;			    /* sw_peer's table: per switch, stride ports */
	/* the switches CAs hang off, each once: where CA traffic enters the switches */
	uint32_t *entry, nentry;
};

static int is_ca_lid(const vt_fabric *f, uint32_t lid)
{
	return f->lid_port[lid] != VT_NONE &&
	       f->nodes[f->ports[f->lid_port[lid]].node].type != VT_SWITCH;
}

static const struct vt_node *sw_node(const struct repair *r, uint32_t s)
{
	return &r->f->nodes[r->f->switches[s]];
}

/* The switch behind port p of switch s, VT_NONE for none or another kind of node. */
static uint32_t sw_peer(const struct repair *r, uint32_t s, unsigned p)
{
	return p < r->stride ? r->peer[(size_t)s * r->stride + p] : VT_NONE;
}

/* r->peer: sw_peer's answers looked up once (the repair asks them at every hop it follows). */
static int peer_table(struct repair *r)
{
	const vt_fabric *f = r->f;

	r->stride = 1;
	for (uint32_t s = 0; s < f->nswitches; s++)
		if (f->nodes[f->switches[s]].nports + 1u > r->stride)
			r->stride = f->nodes[f->switches[s]].nports + 1u;
	r->peer = malloc(((size_t)f->nswitches * r->stride + 1) * sizeof(*r->peer));
	if (!r->peer)
		return -1;
	for (uint32_t s = 0; s < f->nswitches; s++) {
		const struct vt_node *n = sw_node(r, s);

		for (unsigned p = 0; p < r->stride; p++) {
			uint32_t q = p == 0 || p > n->nports ? VT_NONE
							     : f->ports[n->first_port + p].peer;

			r->peer[(size_t)s * r->stride + p] =
				q == VT_NONE ? VT_NONE : f->nodes[f->ports[q].node].sw;
		}
	}
	return 0;
}

static int hop_dir(const struct repair *r, uint32_t a, uint32_t b)
{
	if (r->level[a] == 0xFF || r->level[b] == 0xFF || r->level[a] == r->level[b])
		return HOP_SIDE;
	return r->level[b] > r->level[a] ? HOP_UP : HOP_DOWN;
}

/* A turn that may close a credit loop: into x other than up, out of x other than down. */
static int is_turn(int in, int out)
{
	return in != HOP_UP && out != HOP_DOWN;
}

/*
 * Do ports a and b of switch s lead to the same switch? Turns are judged by
 * switches: parallel links between two switches carry the same turns (a
 * credit loop over one of them would be one over the switches).
 */
static int same_hop(const struct repair *r, uint32_t s, unsigned a, unsigned b)
{
	uint32_t x;

	return a == b || ((x = sw_peer(r, s, a)) != VT_NONE && x == sw_peer(r, s, b));
}

/* Does switch s forward lid as the fresh tables do (port given when s is being tried)? */
static int as_fresh(const struct repair *r, uint32_t s, uint32_t lid, unsigned port)
{
	return same_hop(r, s, port, vt_lft_get(r->fresh, s, lid));
}

/* As the previous tables do? */
static int as_prev(const struct repair *r, uint32_t s, uint32_t lid, unsigned port)
{
	return same_hop(r, s, port, vt_lft_get(r->prev, s, lid));
}

/*
 * May a route that reaches x from w (w forwarding as fresh: fresh_w, as prev:
 * prev_w) turn there, leaving x through xport? Where the fresh tables make the
 * same turn, or the previous ones and the candidate allows theirs.
 */
static int turn_allowed(const struct repair *r, int fresh_w, int prev_w, uint32_t x, uint32_t lid,
			unsigned xport)
{
	return (fresh_w && as_fresh(r, x, lid, xport)) ||
	       (r->how.prev_turns && prev_w && as_prev(r, x, lid, xport));
}

/*
 * Hops from switch s through port `port` to the LID's port, following the
 * tables; VT_NONE when the route does not arrive, comes back to s, or turns
 * down-up where neither allowed routing (turn_allowed) does.
 */
static uint32_t follow(const struct repair *r, uint32_t s, uint32_t lid, unsigned port)
{
	const vt_fabric *f = r->f;
	uint32_t dst = f->lid_port[lid], w = s, x, hops = 0;
	unsigned wport = port;
	int in = HOP_SIDE, fresh_w = as_fresh(r, s, lid, port);
	int prev_w = as_prev(r, s, lid, port);

	if (port == 0)
		return dst == sw_node(r, s)->first_port ? 0 : VT_NONE;
	for (;;) {
		const struct vt_node *n = sw_node(r, w);
		uint32_t q;
		unsigned xport;

		if (wport > n->nports || (q = f->ports[n->first_port + wport].peer) == VT_NONE)
			return VT_NONE;
		hops++;
		if (f->nodes[f->ports[q].node].type != VT_SWITCH)
			return q == dst ? hops : VT_NONE;
		x = f->nodes[f->ports[q].node].sw;
		if (x == s || hops > f->nswitches)
			return VT_NONE;
		xport = vt_lft_get(r->t, x, lid);
		if (xport == 0)
			return dst == sw_node(r, x)->first_port ? hops : VT_NONE;
		in = hop_dir(r, w, x);
		if (sw_peer(r, x, xport) != VT_NONE &&
		    is_turn(in, hop_dir(r, x, sw_peer(r, x, xport))) &&
		    !turn_allowed(r, fresh_w, prev_w, x, lid, xport))
			return VT_NONE;
		fresh_w = as_fresh(r, x, lid, xport);
		prev_w = as_prev(r, x, lid, xport);
		w = x;
		wport = xport;
	}
}

/* Would s, forwarding lid through port, turn down-up a route another switch sends into it? */
static int turns_at(const struct repair *r, uint32_t s, uint32_t lid, unsigned port)
{
	const struct vt_node *n = sw_node(r, s);
	uint32_t next = sw_peer(r, s, port);

	if (next == VT_NONE || !is_turn(HOP_DOWN, hop_dir(r, s, next)))
		return 0;
	for (unsigned p = 1; p <= n->nports; p++) {
		uint32_t w = sw_peer(r, s, p), q;
		unsigned wport;

		if (w == VT_NONE || hop_dir(r, w, s) == HOP_UP)
			continue;
		q = r->f->ports[n->first_port + p].peer;
		wport = r->f->ports[q].num;
		if (vt_lft_get(r->t, w, lid) == wport &&
		    !turn_allowed(r, as_fresh(r, w, lid, wport), as_prev(r, w, lid, wport), s, lid,
				  port))
			return 1;
	}
	return 0;
}

/*
 * Switch s takes port for lid if every route stays whole, no longer, and
 * without a new turn. Routes to a switch LID may grow (policy): they carry
 * management traffic, not the CA-to-CA traffic whose congestion the length
 * rule protects, and the turn leaf's detours often find another way of the
 * same or one more hop after a fault (pruned 36,6 without its last leaf: 102
 * entries changed for nothing else).
 */
static int try_port(struct repair *r, uint32_t s, uint32_t lid, unsigned port)
{
	uint32_t now = follow(r, s, lid, vt_lft_get(r->t, s, lid));
	uint32_t h = follow(r, s, lid, port);
	int any_length = r->policy == VT_REPAIR_FEWEST || r->how.longer || !is_ca_lid(r->f, lid);

	if (h == VT_NONE || (!any_length && now != VT_NONE && h > now) || turns_at(r, s, lid, port))
		return 0;
	vt_lft_set(r->t, s, lid, (uint8_t)port);
	return 1;
}

static int port_up(const vt_fabric *f, uint32_t s, unsigned p)
{
	const struct vt_node *n = &f->nodes[f->switches[s]];

	return p == 0 || (p <= n->nports && f->ports[n->first_port + p].peer != VT_NONE);
}

/* The previous entries of one LID kept where they serve. */
static void keep_lid(struct repair *r, uint32_t lid)
{
	uint32_t n = 0;
	int progress = 1;

	for (uint32_t s = 0; s < r->f->nswitches; s++) {
		uint8_t p = vt_lft_get(r->prev, s, lid);

		if (p != VT_LFT_NONE && p != vt_lft_get(r->t, s, lid) && port_up(r->f, s, p))
			r->pend[n++] = s;
	}
	while (progress && n) {
		uint32_t m = 0;

		progress = 0;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t s = r->pend[i];

			if (try_port(r, s, lid, vt_lft_get(r->prev, s, lid)))
				progress = 1;
			else
				r->pend[m++] = s;
		}
		n = m;
	}
}

static int bit(const uint8_t *m, size_t i)
{
	return m[i >> 3] >> (i & 7) & 1;
}

/* Marks in m the switches CA traffic to lid crosses under tables t. */
static void mark_ca_paths(const struct repair *r, const vt_lfts *t, uint32_t lid, uint8_t *m)
{
	for (uint32_t i = 0; i < r->nentry; i++) {
		uint32_t x = r->entry[i];

		for (uint32_t hops = 0; x != VT_NONE && hops <= r->f->nswitches; hops++) {
			size_t b = (size_t)x * t->nlid + lid;
			unsigned p = vt_lft_get(t, x, lid);

			if (bit(m, b))
				break;
			m[b >> 3] |= (uint8_t)(1u << (b & 7));
			x = p == VT_LFT_NONE ? VT_NONE : sw_peer(r, x, p);
		}
	}
}

/*
 * r->entry: the switches the compute nodes (order's ranks) hang off, or with
 * no order those of every CA: where the traffic the guard measures enters the
 * fabric. Not the aggregation nodes and storage CAs on every level, whose
 * traffic would mark every entry as used and leave none newly used.
 */
static int find_entries(struct repair *r, const vt_order *order)
{
	const vt_fabric *f = r->f;
	uint8_t *seen = calloc((size_t)f->nswitches + 1, 1);
	uint32_t n = order ? order->n : f->nports;

	r->nentry = 0;
	r->entry = malloc(((size_t)f->nswitches + 1) * sizeof(*r->entry));
	for (uint32_t i = 0; seen && r->entry && i < n; i++) {
		uint32_t q = order ? order->port[i] : i, peer, x;

		if (q == VT_NONE || (peer = f->ports[q].peer) == VT_NONE ||
		    f->nodes[f->ports[q].node].type == VT_SWITCH ||
		    f->nodes[f->ports[peer].node].type != VT_SWITCH)
			continue;
		x = f->nodes[f->ports[peer].node].sw;
		if (!seen[x]) {
			seen[x] = 1;
			r->entry[r->nentry++] = x;
		}
	}
	free(seen);
	return seen && r->entry ? 0 : -1;
}

/*
 * Does s's entry for lid need a port chosen again: prev's port could not stay,
 * or CA traffic now crosses s towards lid and did not before (the old routing
 * left such entries unbalanced: nobody used them; VT_REPAIR_FEWEST leaves them)?
 */
static int to_rebalance(const struct repair *r, uint32_t s, uint32_t lid)
{
	size_t i = (size_t)s * r->t->nlid + lid;

	return vt_lft_get(r->t, s, lid) != vt_lft_get(r->prev, s, lid) ||
	       (r->how.rebalance >= REB_NEW && bit(r->used_now, i) && !bit(r->used_prev, i));
}

#define GAP_CAP 2048u /* ranks: farther than this counts as far enough */

/*
 * Per port of switch s, the distance in ranks from rank to the nearest other
 * rank whose LID CA traffic crosses s towards through that port (GAP_CAP when
 * none is nearer). A shift stage sends each host to the rank a fixed distance
 * on, so LIDs of nearby ranks on one port tend to share its link in a stage.
 */
static void rank_gaps(const struct repair *r, uint32_t s, uint32_t rank, uint32_t *gap)
{
	uint32_t n = r->nrank, nlid = r->t->nlid;

	for (unsigned p = 0; p < 256; p++)
		gap[p] = GAP_CAP;
	for (uint32_t d = 1; d < GAP_CAP && 2 * d <= n; d++)
		for (int side = 0; side < 2; side++) {
			uint32_t l = r->lid_of_rank[side ? (rank + d) % n : (rank + n - d) % n];
			unsigned p;

			if (l == VT_NONE || !bit(r->used_now, (size_t)s * nlid + l))
				continue;
			p = vt_lft_get(r->t, s, l);
			if (gap[p] > d)
				gap[p] = d;
		}
}

/*
 * Those entries of switch s take, in LID order, the port carrying the fewest
 * CA routes so far among those try_port accepts, the current one unless another
 * carries at least two fewer.
 */
static void rebalance(struct repair *r, uint32_t s)
{
	const struct vt_node *n = sw_node(r, s);
	const vt_fabric *f = r->f;
	uint32_t all[256] = {0}, used[256] = {0}, gap[256];

	for (uint32_t lid = 1; lid < r->t->nlid; lid++)
		if (is_ca_lid(f, lid)) {
			all[vt_lft_get(r->t, s, lid)]++;
			used[vt_lft_get(r->t, s, lid)] +=
				bit(r->used_now, (size_t)s * r->t->nlid + lid);
		}
	for (uint32_t lid = 1; lid < r->t->nlid; lid++) {
		unsigned cur = vt_lft_get(r->t, s, lid), best = cur;
		int ca, u;
		uint32_t *use;

		if (f->lid_port[lid] == VT_NONE || cur == 0 || cur == VT_LFT_NONE ||
		    !to_rebalance(r, s, lid))
			continue;
		ca = is_ca_lid(f, lid);
		u = bit(r->used_now, (size_t)s * r->t->nlid + lid);
		/* a lost port's entries spread over the whole table, newly used ones over the used
		 */
		use = cur != vt_lft_get(r->prev, s, lid) ? all : used;
		if (r->how.rebalance >= REB_GAP && ca && r->rank_of_lid[lid] != VT_NONE)
			rank_gaps(r, s, r->rank_of_lid[lid], gap);
		else
			memset(gap, 0, sizeof(gap));
		for (unsigned p = 1; p <= n->nports; p++)
			if (p != cur && sw_peer(r, s, p) != VT_NONE &&
			    (gap[p] != gap[best] ? gap[p] > gap[best]
			     : best == cur	 ? use[p] + (unsigned)ca < use[cur]
						 : use[p] < use[best]) &&
			    try_port(r, s, lid, p)) {
				vt_lft_set(r->t, s, lid, (uint8_t)cur); /* tried; best decides */
				best = p;
			}
		if (best != cur && try_port(r, s, lid, best) && ca) {
			all[cur]--;
			all[best]++;
			used[cur] -= (unsigned)u;
			used[best] += (unsigned)u;
		}
	}
}

/* Switches level by level from the leaves: a port chosen below decides the traffic above. */
static void rebalance_all(struct repair *r)
{
	size_t bytes = ((size_t)r->t->nsw * r->t->nlid + 7) / 8;

	if (!r->have_used_prev) /* the same for every candidate */
		for (uint32_t lid = 1; lid < r->t->nlid; lid++)
			if (is_ca_lid(r->f, lid))
				mark_ca_paths(r, r->prev, lid, r->used_prev);
	r->have_used_prev = 1;
	for (unsigned l = 0, top = 0; l <= top; l++) {
		/* what CA traffic crosses now, after the levels below chose */
		if (l == 0 || r->how.rebalance == REB_GAP_LEVELS) {
			memset(r->used_now, 0, bytes);
			for (uint32_t lid = 1; lid < r->t->nlid; lid++)
				if (is_ca_lid(r->f, lid))
					mark_ca_paths(r, r->t, lid, r->used_now);
		}
		for (uint32_t s = 0; s < r->f->nswitches; s++) {
			if (r->level[s] == l)
				rebalance(r, s);
			if (r->level[s] != 0xFF && r->level[s] > top)
				top = r->level[s];
		}
	}
}

/*
 * Entries and 64-LID blocks of t that differ from prev, for the LIDs still in
 * the fabric (those that left change alike under any routing).
 */
static void count_changes(const vt_fabric *f, const vt_lfts *prev, const vt_lfts *t,
			  uint64_t *changed, uint64_t *blocks)
{
	*changed = *blocks = 0;
	for (uint32_t s = 0; s < t->nsw; s++) {
		const uint8_t *a = vt_lft_row(prev, s), *b = vt_lft_row(t, s);

		for (uint32_t b0 = 0; b0 < t->nlid; b0 += BLOCK) {
			uint32_t n = 0;

			for (uint32_t lid = b0; lid < t->nlid && lid < b0 + BLOCK; lid++)
				n += a[lid] != b[lid] && f->lid_port[lid] != VT_NONE;
			*changed += n;
			*blocks += n > 0;
		}
	}
}

/* Entries that must change: prev's port lost its link (LIDs still in the fabric). */
static uint64_t forced(const vt_fabric *f, const vt_lfts *prev)
{
	uint64_t n = 0;

	for (uint32_t s = 0; s < prev->nsw; s++)
		for (uint32_t lid = 1; lid < prev->nlid; lid++) {
			uint8_t p = vt_lft_get(prev, s, lid);

			if (p != VT_LFT_NONE && f->lid_port[lid] != VT_NONE && !port_up(f, s, p))
				n++;
		}
	return n;
}

/*
 * Did the fabric gain something since prev: a switch prev has no table for,
 * a LID the fresh tables route and prev does not, or a port the fresh tables
 * use that no previous entry of its switch used? Says which in why.
 */
static int gained(const vt_fabric *f, const vt_lfts *prev, const vt_lfts *t, char *why, size_t len)
{
	char nm[VT_NODE_NAME_MAX];

	for (uint32_t s = 0; s < t->nsw; s++) {
		const uint8_t *a = vt_lft_row(prev, s), *b = vt_lft_row(t, s);
		uint8_t used[256] = {0};
		uint32_t node = f->switches[s];
		int any = 0;

		for (uint32_t lid = 0; lid < t->nlid; lid++) {
			used[a[lid]] = 1;
			any |= a[lid] != VT_LFT_NONE;
		}
		if (!any) {
			snprintf(why, len, "switch %s has no previous table",
				 vt_node_name(f, node, nm, sizeof(nm)));
			return 1;
		}
		for (uint32_t lid = 1; lid < t->nlid; lid++) {
			if (b[lid] == VT_LFT_NONE || (a[lid] != VT_LFT_NONE && used[b[lid]]))
				continue;
			if (a[lid] == VT_LFT_NONE)
				snprintf(why, len, "LID %u is new to switch %s", lid,
					 vt_node_name(f, node, nm, sizeof(nm)));
			else
				snprintf(why, len, "port %u of switch %s is new", b[lid],
					 vt_node_name(f, node, nm, sizeof(nm)));
			return 1;
		}
	}
	return 0;
}

/*
 * Switch levels of every plane's tree, extracted without the routing's GUID
 * files (the repair sees only the tables): where root_guid_file gives other
 * levels, the turns may be judged wrongly and the audit decides alone.
 */
static int tree_levels(const vt_fabric *f, uint8_t *level, vt_err *e)
{
	struct vt_tree_opts to = {0};
	uint32_t *plane = malloc(((size_t)f->nswitches + 1) * sizeof(*plane)), np;

	if (!plane || (np = vt_route_planes(f, plane)) == VT_NONE) {
		free(plane);
		return vt_err_nomem(e, "out of memory");
	}
	to.plane_of = np > 1 ? plane : NULL;
	memset(level, 0xFF, f->nswitches);
	for (uint32_t p = 0; p < (np ? np : 1); p++) {
		vt_tree t;

		to.plane = p;
		if (vt_tree_build(&t, f, &to, e)) {
			free(plane);
			return -1;
		}
		for (uint32_t s = 0; s < f->nswitches; s++)
			if (t.level[s] != 0xFF)
				level[s] = t.level[s];
		vt_tree_free(&t);
	}
	free(plane);
	return 0;
}

static int forced_minimum(const vt_fabric *f, const vt_lfts *prev, const vt_lfts *fresh,
			  const uint8_t *level, struct vt_repair_stats *st, vt_err *e)
{
	struct vt_forced fm;

	if (vt_route_forced(f, prev, fresh, level, &fm, e))
		return -1;
	st->forced = fm.forced;
	st->forced_blocks = fm.forced_blocks;
	st->minimum_blocks = fm.lost_blocks;
	return 0;
}

/*
 * One candidate into r->t (r->how): the fresh tables with the previous
 * entries kept where they serve, and the ports of the entries that changed
 * chosen again (rebalance_all), unless the CA LIDs' entries stay fresh (the
 * only ones CA-to-CA traffic reads, so shift congestion is the fresh tables').
 */
static void repair_run(struct repair *r)
{
	memcpy(r->t->port, r->fresh->port, (size_t)r->t->nsw * r->t->nlid);
	for (uint32_t lid = 1; lid < r->t->nlid; lid++)
		if (r->f->lid_port[lid] != VT_NONE && !(r->how.ca_fresh && is_ca_lid(r->f, lid)))
			keep_lid(r, lid);
	if (!r->how.ca_fresh && r->how.rebalance != REB_NONE)
		rebalance_all(r);
}

/*
 * Builds candidate how and runs it through the audit and the guard: 0 when it
 * stands, CAND_AUDIT or CAND_WORSE (why) when refused, -1.
 */
static int candidate(struct repair *r, struct repair_try how, struct repair_guard *g,
		     struct vt_repair_stats *st, uint64_t *changed, uint64_t *blocks, vt_err *e)
{
	int bad;

	r->how = how;
	repair_run(r);
	count_changes(r->f, r->prev, r->t, changed, blocks);
	if (*changed > st->fresh_changed) {
		snprintf(st->why, sizeof(st->why),
			 "the repaired tables change more entries than the fresh ones");
		return CAND_WORSE;
	}
	/* the guard before the audit: most refusals are its, and it costs less */
	/* fewest trades quality for changes by definition: no shift guard */
	if (r->policy != VT_REPAIR_FEWEST && !how.ca_fresh &&
	    (bad = vt_repair_guard_worse(g, r->t, st->why, sizeof(st->why), e)))
		return bad > 0 ? CAND_WORSE : -1;
	bad = vt_repair_audit_worse(r->f, r->t, r->fresh, st->why, sizeof(st->why), e);
	return bad > 0 ? CAND_AUDIT : bad;
}

/*
 * The candidates (policy), in the order of the entries they change, fewest
 * first, so the first that passes stands: CA routes that grew longer kept
 * (VT_REPAIR_GUARDED only: a leaf's up-link down on fat 8,3, 303 entries
 * minimal against 241 so, shift as fresh), then previous turns keep what fresh ones
 * keep and more; ports chosen again or left fresh change the same entries, and
 * the newly used entries add to them (by rank distance a few more, when the
 * traffic is counted again after each level: pruned 36,6 with a top switch
 * down passes only so). Fresh turns only after previous ones closed a credit
 * loop: otherwise both pass or fail the guard alike with as many changes
 * (every fault of tests/bench/churn.sh), and each candidate costs a repair,
 * an every-source audit and a shift count.
 */
static const struct repair_try repair_tries[] = {
	/* VT_REPAIR_GUARDED only: CA routes that grew longer kept */
	{.prev_turns = 1, .rebalance = REB_CHANGED, .longer = 1},
	{.prev_turns = 1, .rebalance = REB_NONE, .longer = 1},
	{.prev_turns = 1, .rebalance = REB_NEW, .longer = 1},
	/* down-up turns where either routing turns */
	{.prev_turns = 1, .rebalance = REB_CHANGED},
	{.prev_turns = 1, .rebalance = REB_NONE},
	{.prev_turns = 1, .rebalance = REB_NEW},
	{.prev_turns = 1, .rebalance = REB_GAP},
	{.prev_turns = 1, .rebalance = REB_GAP_LEVELS},
	/* only where the fresh routing turns */
	{.prev_turns = 0, .rebalance = REB_CHANGED},
	{.prev_turns = 0, .rebalance = REB_NONE},
	{.prev_turns = 0, .rebalance = REB_NEW},
	{.prev_turns = 0, .rebalance = REB_GAP},
	{.prev_turns = 0, .rebalance = REB_GAP_LEVELS},
};

/*
 * The first whole repair that passes into r->t; where the audit or the guard
 * refuses them all, the switch LIDs' entries repaired alone (most of what
 * moves with the turn leaf), with the CA LIDs' fresh.
 */
static int repair_candidates(struct repair *r, const vt_order *order, struct vt_repair_stats *st,
			     uint64_t *changed, uint64_t *blocks, vt_err *e)
{
	struct repair_guard g = {r->f, r->fresh, order, 0, 0, 0};
	char why[sizeof(st->why)] = "";
	int bad, loop = 0;

	for (size_t i = 0; i < sizeof(repair_tries) / sizeof(repair_tries[0]); i++) {
		const struct repair_try *how = &repair_tries[i];

		if (how->longer && r->policy != VT_REPAIR_GUARDED)
			continue;
		if (!how->prev_turns && !loop)
			break;
		bad = candidate(r, *how, &g, st, changed, blocks, e);
		if (bad <= 0) {
			st->why[0] = 0;
			return bad;
		}
		/* longer routes add turns of their own: their loops say nothing of fresh turns */
		loop |= bad == CAND_AUDIT && how->prev_turns && !how->longer;
		if (!*why)
			memcpy(why, st->why, sizeof(why));
	}
	bad = candidate(r, (struct repair_try){.ca_fresh = 1}, &g, st, changed, blocks, e);
	if (bad <= 0) {
		memcpy(st->why, why, sizeof(why));
		st->mode = VT_REPAIR_PARTIAL;
	}
	return bad < 0 ? -1 : bad > 0;
}

/* r's rank maps from order (none without one): -1 when out of memory. */
static int rank_maps(struct repair *r, const vt_order *order)
{
	uint32_t nlid = r->t->nlid;

	r->nrank = order ? order->n : 0;
	r->lid_of_rank = malloc(((size_t)r->nrank + 1) * sizeof(*r->lid_of_rank));
	r->rank_of_lid = malloc(((size_t)nlid + 1) * sizeof(*r->rank_of_lid));
	if (!r->lid_of_rank || !r->rank_of_lid)
		return -1;
	for (uint32_t l = 0; l < nlid; l++)
		r->rank_of_lid[l] = VT_NONE;
	for (uint32_t i = 0; i < r->nrank; i++) {
		uint32_t q = order->port[i], l = q == VT_NONE ? VT_NONE : vt_port_lid(r->f, q);

		r->lid_of_rank[i] = l < nlid ? l : VT_NONE;
		if (l < nlid)
			r->rank_of_lid[l] = i;
	}
	return 0;
}

int vt_route_repair(const vt_fabric *f, const vt_lfts *prev, vt_lfts *lfts, const vt_order *order,
		    enum vt_repair_policy policy, struct vt_repair_stats *st, vt_err *e)
{
	vt_lfts t = *lfts;
	struct repair r = {.f = f, .prev = prev, .fresh = lfts, .t = &t, .policy = policy};
	size_t n = (size_t)t.nsw * t.nlid;
	uint64_t changed = 0, blocks = 0;
	int bad;

	memset(st, 0, sizeof(*st));
	if (prev->nsw != lfts->nsw || prev->nlid != lfts->nlid)
		return vt_err_set(e, "previous tables do not fit the fabric");
	count_changes(f, prev, lfts, &st->fresh_changed, &st->fresh_blocks);
	st->minimum = forced(f, prev);
	st->changed = st->fresh_changed;
	st->blocks = st->fresh_blocks;
	if (gained(f, prev, lfts, st->why, sizeof(st->why))) {
		st->mode = VT_REPAIR_HEALED;
		return 0;
	}
	t.port = malloc(n ? n : 1);
	r.level = malloc((size_t)f->nswitches + 1);
	r.pend = malloc(((size_t)f->nswitches + 1) * sizeof(*r.pend));
	r.used_prev = calloc(n / 8 + 1, 1);
	r.used_now = malloc(n / 8 + 1);
	st->mode = VT_REPAIR_DONE;
	if (!t.port || !r.level || !r.pend || !r.used_prev || !r.used_now ||
	    find_entries(&r, order) || peer_table(&r) || rank_maps(&r, order))
		bad = vt_err_nomem(e, "out of memory");
	else
		bad = tree_levels(f, r.level, e) || forced_minimum(f, prev, lfts, r.level, st, e)
			      ? -1
			      : repair_candidates(&r, order, st, &changed, &blocks, e);
	free(r.level);
	free(r.pend);
	free(r.used_prev);
	free(r.used_now);
	free(r.entry);
	free(r.lid_of_rank);
	free(r.rank_of_lid);
	free(r.peer);
	if (bad) {
		free(t.port);
		if (bad < 0)
			return -1;
		st->mode = VT_REPAIR_REFUSED;
		return 0;
	}
	if (policy != VT_REPAIR_MINIMAL) {
		int64_t nl = vt_lfts_longer(f, &t, lfts);

		if (nl < 0) {
			free(t.port);
			return vt_err_nomem(e, "out of memory");
		}
		st->longer = (uint64_t)nl;
	}
	free(lfts->port);
	lfts->port = t.port;
	st->changed = changed;
	st->blocks = blocks;
	return 0;
}

int vt_lfts_remap(const vt_lfts *t, const vt_fabric *from, const vt_fabric *to, vt_lfts *out,
		  vt_err *e)
{
	if (vt_lfts_init(out, to, e))
		return -1;
	for (uint32_t s = 0; s < to->nswitches; s++) {
		uint32_t node = vt_fabric_node_by_guid(from, to->nodes[to->switches[s]].guid);
		uint32_t n = t->nlid < out->nlid ? t->nlid : out->nlid;

		if (node != VT_NONE && from->nodes[node].sw != VT_NONE &&
		    from->nodes[node].sw < t->nsw)
			memcpy(vt_lft_row(out, s), vt_lft_row(t, from->nodes[node].sw), n);
	}
	return 0;
}
