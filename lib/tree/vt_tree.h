/* SPDX-License-Identifier: MIT */
/*
 * var-ary-n-tree extraction: levels, port groups, the compute-node index
 * order with place-keepers (Zahavi et al. §3.2), nested subtrees, Algorithm 1
 * tuples, and the departures of the fabric from a regular tree.
 *
 * Host order: NOT derived from the tuples, as the paper derives it. Leaves
 * are sorted by subtree, outermost first: each level-l subtree (union-find
 * over the links below level l+1) is keyed by the natural-order rank of its
 * first leaf (node descriptions, digit runs compared as numbers, ties by GUID:
 * vt_order_sort_nodes), so every subtree is a contiguous run of ranks. Each
 * leaf then gets hosts_per_leaf ranks, its compute nodes in port order, and
 * place-keepers (VT_NONE) fill the missing slots. Why not the tuples: both
 * keep subtrees contiguous on a regular tree, but the order by names lets an
 * administrator predict a host's rank from the switch names, and changing it
 * would change every routing table (tests/data/route-golden.txt).
 *
 * Tuples (vt_tree_tuples, vt_tuple.c): only for the Definition 2 check, which
 * turns links that break it into departures (vt_tree_describe); neither the
 * host order nor the routing reads them.
 *
 * Levels: switches with compute nodes are leaves (level 0) and every switch is
 * ranked by its hop distance from them; with root GUIDs the ranks are counted
 * from the roots instead (top = level nlevels-1) and every leaf must then land
 * on level 0. Compute nodes follow OpenSM's ftree: every CA port when no list
 * is given; only cn_guids when given; every CA port not in io_guids when only
 * io_guids is given. Other CAs (I/O, service nodes) may hang off any level.
 *
 * Subtrees: the level-l subtree of a switch S (level(S) <= l) is the connected
 * component holding S of the fabric cut to the switches of levels 0..l. Its
 * hosts are the compute ranks [first_rank, first_rank + nranks) of the order
 * (the order keeps every subtree contiguous), and its up-links are the links
 * from its level-l switches to level l+1: every flow leaving the subtree's
 * hosts crosses one of them, so ceil(flows / nup) bounds a link's load. The
 * subtree of each switch S itself is sub[level(S) * nsw + S].
 */
#ifndef VT_TREE_H
#define VT_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "model/vt_order.h"

#define VT_TREE_MAX_LEVELS 16
/*
 * The level of a switch outside the tree: another plane's, or one no leaf
 * reaches. Levels are bytes and never reach VT_TREE_MAX_LEVELS, so this one
 * is no real level, and memset() marks a whole array outside.
 */
#define VT_TREE_OUTSIDE 0xFFu
/* t->strand values */
#define VT_STRAND_SWITCH 1u
#define VT_STRAND_ORPHAN 2u
#define VT_STRAND_BEHIND 3u

struct vt_tree_opts {
	const uint64_t *root_guids; /* node GUIDs of the top switches, or NULL */
	uint32_t nroots;
	const uint64_t *cn_guids; /* port (or node) GUIDs of compute nodes, or NULL */
	uint32_t ncns;
	const uint64_t *io_guids; /* port (or node) GUIDs of I/O nodes, or NULL */
	uint32_t nios;
	/*
	 * Where the lists were read (vt_guid_file_read), so that errors about them
	 * name the file, and about one root its line ("FILE:LINE: cause"): the
	 * files' names and each root GUID's line; NULL when not read from a file.
	 */
	const char *root_file, *cn_file, *io_file;
	const unsigned *root_lines;
	/*
	 * Multi-rail: per switch ordinal, its plane (vt_route_planes()); the tree
	 * is then extracted from the switches of plane `plane` only, and only CA
	 * ports attached to them are compute nodes. NULL: the whole fabric.
	 */
	const uint32_t *plane_of;
	uint32_t plane;
};

struct vt_subtree {
	uint32_t level;
	uint32_t first_rank, nranks; /* ranks of its hosts in tree->order, place-keepers included */
	uint32_t hosts;		     /* real compute nodes among them */
	uint32_t nsw;		     /* switches */
	uint32_t nup;		     /* links from its level-l switches up to level l+1 */
};

/* Per-level summary: what a regular var-ary-n-tree would have everywhere. */
struct vt_tree_level {
	uint32_t nsw;
	uint32_t up_groups, down_groups; /* most common count of port groups */
	uint32_t up_links, down_links;	 /* most common count of links */
	uint32_t group_width;		 /* most common number of links per up group */
	uint32_t max_hosts;		 /* leaves: compute nodes of the fullest switch */
};

typedef struct vt_tree {
	const vt_fabric *f;
	uint32_t nsw;	  /* f->nswitches; arrays below are per switch ordinal */
	uint32_t nlevels; /* switch levels, leaves = 0 */
	uint8_t *level;	  /* per switch; VT_TREE_OUTSIDE outside the tree */
	/*
	 * Per switch, VT_STRAND_SWITCH for a switch stranded between levels that
	 * the routing goes around (vt_tree_strand.c): VT_TREE_OUTSIDE, an end point
	 * hung below its children; VT_STRAND_ORPHAN for a leaf whose every switch
	 * link leads to one such switch, hung below it (its CAs no compute nodes);
	 * VT_STRAND_BEHIND for a switch of a part that reaches the leaves only
	 * through host-less level-0 switches, routed around the same way, through
	 * its part to the switches of it linked to the tree; 0 otherwise; NULL when there is none.
	 * nstrand: how many switches stranded (orphans not counted).
	 */
	uint8_t *strand;
	uint32_t nstrand;
	/* ordered pairs of leaves with no up/down path between them (their CAs' routes detour) */
	uint32_t ca_detours;
	uint32_t *by_level; /* switch ordinals in tree order, level by level */
	uint32_t lvl_start[VT_TREE_MAX_LEVELS + 1]; /* by_level[lvl_start[l] .. lvl_start[l+1]) */
	uint32_t *pos; /* per switch: position within its level in tree order */
	/* switch-to-switch ports, grouped by remote switch (a port group), groups in tree order */
	uint32_t *up_start, *dn_start; /* CSR offsets, nsw + 1 */
	uint8_t *up_port, *dn_port;    /* local port numbers */
	uint32_t *up_peer, *dn_peer;   /* remote switch ordinal of each entry */
	/* Algorithm 1 tuples (vt_tree_tuples): nsw * (nlevels - 1) digits, S_0 first,
	 * 0xFFFF for switches outside the tree */
	uint16_t *tuple;
	const uint32_t *plane_of; /* as given in the options, or NULL */
	uint32_t plane;
	uint8_t *is_cn;		 /* per ports[] index: 1 for a compute node's CA port */
	uint32_t ncn;		 /* compute nodes (CA ports) */
	vt_order order;		 /* compute ranks, place-keepers included */
	uint32_t *rank_leaf;	 /* per rank: leaf switch ordinal */
	uint32_t hosts_per_leaf; /* ranks per leaf (hosts of the fullest leaf) */
	uint32_t nleaves;	 /* switches with ranks: the leaves, host-less ones included */
	uint32_t nbypassed;	 /* level-0 director spine ASICs the leaves' up-links bypass */
	/* lv[0]'s up_links and up_groups over the leaves only, and over the other level-0 switches
	 * (0 when there are none) */
	struct vt_tree_up0 {
		uint32_t up_links, up_groups;
	} up0_leaves, up0_others;
	struct vt_tree_level lv[VT_TREE_MAX_LEVELS];
	/* subtrees */
	uint32_t *sub; /* sub[l * nsw + s]: subtree id at level l, VT_NONE when level(s) > l */
	struct vt_subtree *subs;
	uint32_t nsubs;
	/*
	 * Reachability, one bit per switch ordinal, rows of bw 64-bit words:
	 * desc[s] = switches reachable from s going down only (s included),
	 * ureach[s] = switches reachable from s by an up*-then-down* path.
	 */
	uint32_t bw;
	uint64_t *desc, *ureach;
	/* departures from a regular var-ary-n-tree, one line each */
	char **dep;
	uint32_t ndep, ndep_total; /* ndep_total counts lines not kept past the cap */
} vt_tree;

/* Extracts the tree; on refusal returns -1, e names the node and the broken rule. */
int vt_tree_build(vt_tree *t, const vt_fabric *f, const struct vt_tree_opts *o, vt_err *e);
void vt_tree_free(vt_tree *t);
/* The first compute-node CA on switch s, VT_NONE when it has none. */
uint32_t vt_tree_leaf_ca(const vt_tree *t, uint32_t s);
/* The stranded switch that orphan o (t->strand[o] == VT_STRAND_ORPHAN) hangs off. */
uint32_t vt_tree_orphan_of(const vt_tree *t, uint32_t o);

static inline int vt_tree_bit(const vt_tree *t, const uint64_t *rows, uint32_t row, uint32_t s)
{
	return (int)((rows[(uint64_t)row * t->bw + (s >> 6)] >> (s & 63)) & 1);
}

/* One text line and the function it comes from (OpenSM's log names it). */
typedef void (*vt_line_fn)(void *ctx, const char *func, const char *s);

/* Writes the structure found (levels, arities, departures) as text lines. */
void vt_tree_describe(const vt_tree *t, vt_line_fn line, void *ctx);

#endif
