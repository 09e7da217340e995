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
 * Deadlock-free whatever the tree's routing: a link from a child up to the
 * stranded switch leads only to the switch itself or on to one of its CAs,
 * and a link from it down is entered only where a route starts, at the
 * switch or one of its CAs; neither can lie on a cycle of channel
 * dependencies, and every other hop is one of a route the tables had.
 */
#include "route/vt_route_int.h"

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

/* Every switch towards the LIDs ending at stranded s: through a child, as to its own LID. */
static void strand_in(struct router *r, const vt_tree *t, uint32_t s, const uint8_t *port,
		      unsigned n)
{
	const vt_fabric *f = r->f;
	uint32_t turn = 0;

	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint32_t q = f->lid_port[lid], c, ref;
		unsigned p;

		if (lid_switch(f, lid) != s)
			continue;
		p = port[turn++ % n];
		c = peer_of(r, s, p);
		ref = vt_port(f, f->switches[c], 0)->lid;
		for (uint32_t x = 0; ref && x < f->nswitches; x++) {
			uint8_t v = vt_lft_get(r->lfts, x, ref);

			if (x != s && v != VT_LFT_NONE)
				vt_lft_set(r->lfts, x, lid, v);
		}
		vt_lft_set(r->lfts, c, lid, (uint8_t)f->ports[f->ports[swport(r, s, p)].peer].num);
		vt_lft_set(r->lfts, s, lid,
			   (uint8_t)(f->nodes[f->ports[q].node].type == VT_SWITCH
					     ? 0
					     : f->ports[f->ports[q].peer].num));
	}
}

void vt_route_strand(struct router *r, const vt_tree *t)
{
	uint8_t port[VT_MAX_PORTS + 1];
	unsigned n;

	for (uint32_t s = 0; t->strand && s < t->nsw; s++)
		if (t->strand[s] && (n = child_links(r, t, s, port)))
			strand_out(r, t, s, port, n);
	for (uint32_t s = 0; t->strand && s < t->nsw; s++)
		if (t->strand[s] && (n = child_links(r, t, s, port)))
			strand_in(r, t, s, port, n);
}
