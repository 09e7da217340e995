/* SPDX-License-Identifier: MIT */
/*
 * Switches stranded between levels (vt_tree_strand.c), routed around: the
 * tree leaves them out, so no route passes through one, and each becomes an
 * end point hung below its children (the tree's switches it is linked to):
 *
 *   - towards every LID the plane routes, it takes a link down to a child,
 *     links in turn LID by LID, and the child's route goes on from there;
 *   - towards its own LIDs and its CAs', every other switch takes its route
 *     towards a child's own LID (children's links in turn, LID by LID), and
 *     the child then its link up to the stranded switch.
 *
 * A part behind a host-less leaf (VT_STRAND_BEHIND) may hold switches with no
 * child: those hang below the part's switches that have one (their entries),
 * one hop nearer at a time (a breadth-first search over the part from its
 * entries): out of the part they take a link to the switch one hop nearer,
 * which routes on; towards one of them, every switch routes as towards its
 * entry, whose route then goes down the search's hops to it.
 *
 * A leaf whose every switch link leads to the stranded switch (an orphan,
 * its CAs no compute nodes) is part of that end point:
 *
 *   - towards every LID but its own and its CAs', it takes a link up to the
 *     stranded switch (links in turn, LID by LID), which routes on as above;
 *   - towards its own LID and its CAs', every other switch takes its route
 *     towards the stranded switch, which then takes a link down to it.
 *
 * Deadlock-free whatever the tree's routing: a link from a child up to an
 * entry, or from a part's switch one hop farther from its entries, leads on
 * only to links farther still or to the end point (the switch, its CAs, an
 * orphan); a link one hop nearer an entry leads only to links nearer still
 * or, from an entry, down to a child; and a link from an entry (or orphan)
 * down is entered only where a route starts inside the part. So the part's
 * links order as nearer, then the tree's, then farther: no cycle of channel
 * dependencies, and every other hop is one of a route the tables had.
 */
#include "route/vt_route_int.h"

#include <stdlib.h>

/* The switch a LID ends at: its own, or the one its CA port is linked to; VT_NONE if none. */
static uint32_t lid_switch(const vt_fabric *f, uint32_t lid)
{
	uint32_t q = f->lid_port[lid], n;

	if (q == VT_NONE)
		return VT_NONE;
	n = f->ports[q].node;
	if (f->nodes[n].type == VT_SWITCH)
		return f->nodes[n].sw;
	if (f->ports[q].peer == VT_NONE)
		return VT_NONE;
	n = f->ports[f->ports[q].peer].node;
	return f->nodes[n].type == VT_SWITCH ? f->nodes[n].sw : VT_NONE;
}

/* The switch at the far end of switch s's port p, VT_NONE if none (or a loop-back). */
static uint32_t peer_of(const struct router *r, uint32_t s, unsigned p)
{
	uint32_t n = vt_peer_node(r->f, swport(r, s, p));

	if (n == VT_NONE || r->f->nodes[n].type != VT_SWITCH || n == r->f->switches[s])
		return VT_NONE;
	return r->f->nodes[n].sw;
}

/* Switch s's ports linked to switches of the tree, in port order, into port[]; their count. */
static unsigned child_links(const struct router *r, const vt_tree *t, uint32_t s, uint8_t *port)
{
	const vt_fabric *f = r->f;
	uint32_t node = f->switches[s];
	unsigned n = 0;

	for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
		uint32_t c = peer_of(r, s, p);

		if (c != VT_NONE && t->level[c] != VT_TREE_OUTSIDE)
			port[n++] = (uint8_t)p;
	}
	return n;
}

/* Stranded s towards every LID the plane routes that ends at no stranded switch. */
static void strand_out(struct router *r, const vt_tree *t, uint32_t s, const uint8_t *port,
		       unsigned n)
{
	const vt_fabric *f = r->f;
	uint32_t turn = 0;

	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint32_t x = lid_switch(f, lid);

		if (x == VT_NONE || t->strand[x])
			continue;
		for (unsigned k = 0; k < n; k++) {
			unsigned p = port[(turn + k) % n];

			if (vt_lft_get(r->lfts, peer_of(r, s, p), lid) != VT_LFT_NONE) {
				vt_lft_set(r->lfts, s, lid, (uint8_t)p);
				turn++;
				break;
			}
		}
	}
}

/* Switch s's ports linked to switch x, in port order, into port[]; their count. */
static unsigned links_to(const struct router *r, uint32_t s, uint32_t x, uint8_t *port)
{
	unsigned n = 0;

	for (unsigned p = 1; p <= r->f->nodes[r->f->switches[s]].nports; p++)
		if (peer_of(r, s, p) == x)
			port[n++] = (uint8_t)p;
	return n;
}

/* Orphan o towards every LID that stranded s routes to a child: up to s, links in turn. */
static void orphan_out(struct router *r, const vt_tree *t, uint32_t o, uint32_t s)
{
	const vt_fabric *f = r->f;
	uint8_t port[VT_MAX_PORTS + 1];
	unsigned n = links_to(r, o, s, port);
	uint32_t turn = 0;

	for (uint32_t lid = 1; n && lid <= f->max_lid; lid++) {
		uint32_t x = lid_switch(f, lid);

		if (x != VT_NONE && !t->strand[x] && vt_lft_get(r->lfts, s, lid) != VT_LFT_NONE)
			vt_lft_set(r->lfts, o, lid, port[turn++ % n]);
	}
}

/* Does LID end at stranded s, or at an orphan hung off it? That switch into *at. */
static int ends_at(const vt_tree *t, uint32_t s, uint32_t lid, uint32_t *at)
{
	*at = lid_switch(t->f, lid);
	if (*at == s)
		return 1;
	return *at != VT_NONE && t->strand[*at] == VT_STRAND_ORPHAN &&
	       vt_tree_orphan_of(t, *at) == s;
}

/* The last hop towards lid at its own switch: 0 for the switch's own LID, else its CA's port. */
static uint8_t last_hop(const vt_fabric *f, uint32_t lid)
{
	uint32_t q = f->lid_port[lid];

	return (uint8_t)(f->nodes[f->ports[q].node].type == VT_SWITCH
				 ? 0
				 : f->ports[f->ports[q].peer].num);
}

/* The part's search (vt_route_strand): per stranded switch, its entry and the switch one hop
 * nearer it (VT_NONE at an entry); ord: the switches reached, entries first. */
struct strand_bfs {
	uint32_t *entry, *next, *ord, nord;
};

/* Switch s's ports linked to switch x, in turn (turn counts the calls): one of them. */
static uint8_t link_in_turn(const struct router *r, uint32_t s, uint32_t x, uint32_t turn)
{
	uint8_t port[VT_MAX_PORTS + 1];
	unsigned n = links_to(r, s, x, port);

	return n ? port[turn % n] : VT_LFT_NONE;
}

/*
 * Every switch towards the LIDs ending at stranded s or its orphans: through
 * a child of s's entry e, as to the child's own LID; e down the search's hops
 * to s, and s down to the orphan, links in turn.
 */
static void strand_in(struct router *r, const vt_tree *t, const struct strand_bfs *b, uint32_t s,
		      const uint8_t *port, unsigned n)
{
	const vt_fabric *f = r->f;
	uint32_t turn = 0, oturn = 0, e = b->entry[s];

	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint32_t c, ref, at;
		unsigned p;

		if (!ends_at(t, s, lid, &at))
			continue;
		p = port[turn % n];
		c = peer_of(r, e, p);
		ref = vt_port(f, f->switches[c], 0)->lid;
		for (uint32_t x = 0; ref && x < f->nswitches; x++) {
			uint8_t v = vt_lft_get(r->lfts, x, ref);

			if (x != e && v != VT_LFT_NONE)
				vt_lft_set(r->lfts, x, lid, v);
		}
		vt_lft_set(r->lfts, c, lid, (uint8_t)f->ports[f->ports[swport(r, e, p)].peer].num);
		for (uint32_t z = s; z != e; z = b->next[z])
			vt_lft_set(r->lfts, b->next[z], lid, link_in_turn(r, b->next[z], z, turn));
		turn++;
		if (at != s)
			vt_lft_set(r->lfts, s, lid, link_in_turn(r, s, at, oturn++));
		vt_lft_set(r->lfts, at, lid, last_hop(f, lid));
	}
}

static int is_strand_switch(const vt_tree *t, uint32_t s)
{
	return t->strand[s] == VT_STRAND_SWITCH || t->strand[s] == VT_STRAND_BEHIND;
}

/* The search over the stranded switches from those with a child; -1 when out of memory. */
static int strand_search(struct router *r, const vt_tree *t, struct strand_bfs *b)
{
	uint8_t port[VT_MAX_PORTS + 1];
	uint32_t nsw = t->nsw;

	b->entry = malloc((nsw + 1) * sizeof(*b->entry));
	b->next = malloc((nsw + 1) * sizeof(*b->next));
	b->ord = malloc((nsw + 1) * sizeof(*b->ord));
	b->nord = 0;
	if (!b->entry || !b->next || !b->ord)
		return -1;
	for (uint32_t s = 0; s < nsw; s++) {
		b->entry[s] = b->next[s] = VT_NONE;
		if (is_strand_switch(t, s) && child_links(r, t, s, port)) {
			b->entry[s] = s;
			b->ord[b->nord++] = s;
		}
	}
	for (uint32_t h = 0; h < b->nord; h++) {
		uint32_t s = b->ord[h];

		for (unsigned p = 1; p <= r->f->nodes[r->f->switches[s]].nports; p++) {
			uint32_t x = peer_of(r, s, p);

			if (x != VT_NONE && is_strand_switch(t, x) && b->entry[x] == VT_NONE) {
				b->entry[x] = b->entry[s];
				b->next[x] = s;
				b->ord[b->nord++] = x;
			}
		}
	}
	return 0;
}

int vt_route_strand(struct router *r, const vt_tree *t, vt_err *e)
{
	struct strand_bfs b = {0};
	uint8_t port[VT_MAX_PORTS + 1];
	unsigned n;
	int rc = 0;

	if (!t->strand)
		return 0;
	if (strand_search(r, t, &b)) {
		rc = vt_err_nomem(e, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < b.nord; i++) {
		uint32_t s = b.ord[i];

		n = b.next[s] == VT_NONE ? child_links(r, t, s, port)
					 : links_to(r, s, b.next[s], port);
		strand_out(r, t, s, port, n);
	}
	for (uint32_t o = 0; o < t->nsw; o++)
		if (t->strand[o] == VT_STRAND_ORPHAN)
			orphan_out(r, t, o, vt_tree_orphan_of(t, o));
	for (uint32_t i = 0; i < b.nord; i++)
		if ((n = child_links(r, t, b.entry[b.ord[i]], port)))
			strand_in(r, t, &b, b.ord[i], port, n);
out:
	free(b.entry);
	free(b.next);
	free(b.ord);
	return rc;
}
