/* SPDX-License-Identifier: MIT */
/*
 * Private to lib/tree/: the steps of vt_tree_build() that the extraction's
 * files share (levels, tuples, compute nodes, stranded switches) and their
 * helpers. Nothing outside lib/tree/ includes this (make layers checks it).
 */
#ifndef VT_TREE_INT_H
#define VT_TREE_INT_H

#include "tree/vt_tree.h"

/*
 * Algorithm 1 (vt_tuple.c): fills tuple (digits 0xFFFF outside the tree), unique
 * per level; links breaking Definition 2 become departures. -1 only when out of memory.
 */
int vt_tree_tuples(vt_tree *t, vt_err *e);

/*
 * Levels (vt_tree_levels.c): marks compute nodes (is_cn, ncn), sets is_leaf[]
 * per switch ordinal (switches whose compute nodes make them leaves),
 * level[] / nlevels, and ranked[] (switches that get ranks: the leaves and
 * host-less level-0 switches cabled like one, their ranks all place-keepers),
 * and nbypassed. On refusal returns -1 with e naming the node.
 */
int vt_tree_levels(vt_tree *t, const struct vt_tree_opts *o, uint8_t *is_leaf, uint8_t *ranked,
		   vt_err *e);

/*
 * (vt_tree_strand.c) With levels counted from the roots, a non-leaf switch that
 * lies below every leaf they reach, whose links all go down to switches the
 * roots reach going down, to host-less leaves nearer the leaves than the
 * roots, or to leaves with no other way up (a failed top took its every
 * up-link): -1 with e naming it (and such a leaf), else 0.
 */
int vt_tree_refuse_stranded(vt_tree *t, const uint8_t *is_leaf, vt_err *e);
/*
 * (vt_tree_strand.c) t->level and t->nlevels counted down from the roots in
 * q[0 .. nq) (VT_TREE_OUTSIDE: unreached), leaving out (t->strand, one
 * departure each) the stranded switches the routing can go around
 * (vt_tree_refuse_stranded() names the others) until the leaves the roots
 * reach lie on one level or none is left; a stranded switch's orphan leaves
 * are left out with it, no longer leaves (is_leaf) and their CAs no compute
 * nodes; where none is left, a part that reaches the leaves only through
 * host-less switches of their level is cut (VT_STRAND_BEHIND). twins (the
 * roots were found, not given): where the cut leaves the
 * leaves skewed, the switches as far from the leaves as the roots that they
 * left out as host-less leaves are roots too (appended to q, one departure
 * each) if that levels them. q beyond nq and dist are scratch.
 * -1 with e when a leaf is not connected to the roots.
 */
int vt_tree_levels_around(vt_tree *t, uint8_t *is_leaf, uint32_t *dist, uint32_t *q, uint32_t nq,
			  int twins, vt_err *e);
/*
 * (vt_tree_strand.c) Every leaf must reach every leaf. Where one reaches
 * another by no up/down path but the two are still linked through the tree
 * (a failed top, or a stranded switch left out, split the tops), their CAs'
 * routes take detours with a down-up turn, as switches' routes do: a
 * departure, and t->ca_detours makes the router audit its tables with every
 * source. Leaves the tree does not link at all are refused (-1 with e naming
 * two of their CAs).
 */
int vt_tree_leaves_meet(vt_tree *t, const uint8_t *is_leaf, vt_err *e);

/*
 * t->is_cn and t->ncn: the CA ports that may be compute nodes, as OpenSM's
 * ftree reads its guid files (only o->cn_guids when given, else every CA port
 * not in o->io_guids), aggregation nodes never; -1 with e when none is.
 */
int vt_tree_mark_cns(vt_tree *t, const struct vt_tree_opts *o, vt_err *e);
/*
 * Multi-source BFS over switch-to-switch links: queue holds the nq sources,
 * their dist set and every other switch's VT_NONE, and has room for every
 * switch; each switch reached gets one more than the switch it was reached from.
 */
void vt_tree_bfs(const vt_fabric *f, uint32_t *queue, uint32_t nq, uint32_t *dist);

/* (vt_tree_classes.c) Every switch's sorted distinct switch neighbours: v[start[s] .. start[s +
 * 1]). */
struct vt_nblist {
	uint32_t *start, *v;
};
/* Found once for the fabric; -1 when out of memory (free start and v either way). */
int vt_tree_nblist_build(struct vt_nblist *nl, const vt_fabric *f);
/* Have switches a and b the same switch neighbours? */
int vt_tree_same_neighbours(const struct vt_nblist *nl, uint32_t a, uint32_t b);
/*
 * (vt_tree_classes.c) Switches grouped by their set of switch neighbours
 * (loop-backs left out): switches of one class are equally far from every
 * other switch.
 */
struct vt_classes {
	uint32_t n;	  /* classes */
	uint32_t *of;	  /* per switch: its class, VT_NONE for non-members */
	uint32_t *rep;	  /* per class: first member */
	uint32_t *active; /* per class: members still counted */
	uint16_t *dist;	  /* n rows of nsw: hops from the class's members, 0xFFFF if none */
};
/*
 * Classes of the member switches (member[s] set), each with its BFS distance
 * row (q and dist: scratch for nsw + 1 switches). 1 when built, 0 when there
 * are too many classes (plain rules then), -1 when out of memory.
 */
int vt_tree_classes_build(struct vt_classes *c, const vt_fabric *f, const struct vt_nblist *nl,
			  const uint8_t *member, uint32_t *q, uint32_t *dist);
void vt_tree_classes_free(struct vt_classes *c);
/*
 * Does switch s lie on a shortest path between two active members of the
 * classes, neither of them s?
 */
int vt_tree_between(const struct vt_classes *c, uint32_t nsw, uint32_t s);
/* Compute-node CA ports on switch s. */
uint32_t vt_tree_cn_count(const vt_tree *t, uint32_t s);
/* Switch s's CA ports stop being compute nodes (it is a spine with CAs). */
void vt_tree_unmark_cns(vt_tree *t, uint32_t s);

/*
 * Switch ordinal at the far end of switch port q; VT_NONE when the far end is
 * not a switch, or is the same switch (a loop-back cable carries no route).
 */
static inline uint32_t vt_tree_peer_sw(const vt_fabric *f, uint32_t q)
{
	uint32_t n = vt_peer_node(f, q);

	if (n == VT_NONE || f->nodes[n].type != VT_SWITCH || n == f->ports[q].node)
		return VT_NONE;
	return f->nodes[n].sw;
}

/* Is port (ports[] index) a CA port that is a compute node? */
static inline int vt_tree_is_cn(const vt_tree *t, uint32_t port)
{
	return t->is_cn[port];
}

/* Records one departure line (kept up to a cap; all are counted in ndep_total). */
void vt_tree_dep(vt_tree *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
