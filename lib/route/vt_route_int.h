/* SPDX-License-Identifier: MIT */
/*
 * The router's state, shared by the files of vartree's routing and by no one
 * else. Where each step of Zahavi et al. lives:
 *
 *   vt_route.c            entry point: trees extracted and routed plane by plane
 *   vt_route_mainloop.c   Algorithm 2, "main loop setting LFT to compute nodes":
 *                         destinations in index order, place-keepers, LMC
 *   vt_route_downgoing.c  Algorithm 4, assign-down-going-port-by-ascending
 *   vt_route_upgoing.c    Algorithm 3, assign-up-going-port-by-descending
 *   vt_route_plan.c       every route the two above do not set (per destination switch)
 *   vt_route_class.c      switch classes: switches with the same parents or children
 *   vt_route_detour.c     degraded trees: detours and the turn order that keeps them
 *                         deadlock-free
 *   vt_route_turn.c       degraded trees: the turn leaf every detour turns at
 *   vt_route_turn_switch.c  ... or, on a third try, the turn switch
 *   vt_route_top_tree.c   ... or, on a fourth, the turn switches of a top tree
 *   vt_route_straggler.c  degraded trees: switches the descent missed, sibling lanes
 *   vt_route_chassis.c    split cores whose chassis differ: leaves' rank order over them
 *   vt_route_lanes.c      split cores whose leaves' line sets overlap unevenly: lanes
 *   vt_route_lanes_leaves.c  ... the leaves' lanes, and climbs where lanes' chassis differ
 *   vt_route_lanes_colour.c  ... their spines as a colouring of the destinations
 *   vt_route_lanes_walk.c  ... kept where a walk of the tables' shift is better
 *   vt_route_spines.c     split cores: the lines' spines chosen again on a shift model
 *   vt_route_stage_search.c  split cores whose leaves lost a parent: routes searched
 *                         again against a model of the shift stages
 *   vt_route_stage_swap.c  split cores whose level 1 lost an up-link: the leaves' classes
 *                         exchanged after a stage at load 2, the levels above routed again
 *   vt_route_policy.c     tie-break policy: which of equal candidates a straggler takes
 *   vt_route_lookahead.c  irregular two-level trees: the spines chosen again, looking ahead
 *   vt_route_lookahead_search.c  ... and that choice improved by moves and swaps
 *   vt_route_leaf_moves.c  leaves' up-links chosen again by moves on a shift model
 *   vt_route_plane.c      multi-rail fabrics: planes and their host orders
 *   vt_route_strand.c     switches stranded between levels: routed around, end points
 *   vt_route_batch.c      the tables written a batch of LIDs at a time
 *   vt_route_vl_log.c     the log lines of a routing with a second VL and more
 *
 * Each algorithm's function is named after it and its file:
 * vt_route_mainloop (2), vt_route_upgoing_by_descending (3),
 * vt_route_downgoing_by_ascending (4).
 */
#ifndef VT_ROUTE_INT_H
#define VT_ROUTE_INT_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "model/vt_lft.h"
#include "tree/vt_tree.h"

/*
 * A class: switches of a level with the same parents (up class) or the same
 * children (down class), in the same order, have the same candidates towards
 * every destination, so a plan finds them once per class (a pruned 36-port
 * tree: under a hundred classes, 1620 switches): the up candidates of
 * switches that are not ancestors, and the detours'. (Ancestors' down
 * candidates come from their ancestor children's up-links: plan.aoff.)
 */
struct cls {
	uint32_t rep;	 /* first member: its up_peer[] or dn_peer[] run is the class's */
	uint32_t at;	 /* the plan the fields below belong to */
	uint32_t h;	 /* up classes: hops of its members that are not ancestors */
	uint32_t lo, hi; /* parent sets: hops of the nearest and farthest parent, plan at */
	uint32_t off, n; /* up classes' candidates: fill.cpos[off .. off + n) */
	/*
	 * Detour candidates (vt_route_detour.c) of members at distance
	 * detour_dist: the parents (up classes) or children (down classes) at
	 * distance detour_dist - 1.
	 */
	uint32_t detour_at;    /* the plan the detour fields belong to */
	uint32_t detour_dist;  /* the members' detour distance they were found for */
	uint32_t detour_off;   /* the candidates: fill.cpos[detour_off .. + detour_n) */
	uint32_t detour_n;     /* ... their number */
	uint32_t turn_key_min; /* down classes: least turn_key() of the candidates */
	uint32_t turn_key_max; /* ... and greatest */
};

/* Algorithm 2's usage counters: what each port carries so far. */
struct route_usage {
	uint32_t *dn; /* per ports[] index: destinations routed down out of this port */
	uint32_t *up; /* per ports[] index: destinations routed up out of this port */
	/*
	 * Per up_port[] entry of the plane and nkeys keys: a switch with
	 * several main-route parents (slender trees, parallel links) carries
	 * only the destinations its children sent to it, so it alternates
	 * among those: it counts apart per key[level], the parent the main
	 * route took one level below (which, in step, the children below took
	 * too). Leaves count all. nkeys: one more than the most parents a
	 * switch of the plane has, so no two parents share a key (wrapped at
	 * 8, leaves of 18 parents merged lanes 1 and 9: cores 2,36,18,84,18
	 * loaded a line's link to a spine with two flows a stage). Allocated
	 * per plane (plane_setup), apart from the router's block.
	 */
	uint32_t *by_key;
	uint32_t nkeys;
	uint32_t key[VT_TREE_MAX_LEVELS + 1];
};

/* The plan of destination switch px: every route towards it but the main ones. */
struct route_plan {
	uint32_t px;
	uint32_t stamp;	     /* plans made so far: the stamp of the current one */
	uint32_t *h;	     /* per switch: up*-down* hops to px, VT_NONE when it has none */
	uint32_t *anc;	     /* per switch: == stamp when px is below it (it routes down) */
	uint32_t *hup;	     /* per switch: h, VT_NONE for ancestors (the descent tests one) */
	uint32_t nreach0;    /* leaves that route up towards px (not ancestors, h set) */
	uint32_t *queue;     /* switch ordinals, nsw */
	uint32_t *dist;	     /* detour distances, nsw */
	uint32_t *urank;     /* per up class: turn_key()'s lowest parent rank, valid when */
	uint32_t *urank_at;  /* ... urank_at == stamp */
	uint32_t *aoff, *an; /* per ancestor: its down candidates, fill.cpos[aoff .. aoff + an) */
};

/*
 * Fill route i: switch fsw[i] takes port fbase[i][fcand[i][k]], k = 0 .. n - 1
 * in turn (n: the run's rn): fbase is the switch's own up_port[] or dn_port[]
 * run and fcand the candidates' positions in it (in cpos, or the plane's
 * deg.zpos), so switches of one class share one candidate list.
 */
struct route_fill {
	uint32_t *fsw;
	const uint8_t **fcand; /* &cpos[fpos[i]] */
	const uint8_t **fbase;
	uint32_t n;
	/* runs of fill routes with the same candidate count rn[g] from rstart[g] on */
	uint32_t *rstart, *rn, nrun, lastn;
	uint32_t leaf0, leaf1; /* fill routes of the leaves that route up (plan.nreach0) */
	/*
	 * Candidate positions: 0, 1, ..., VT_MAX_PORTS (the list of a class
	 * whose parents are all as near), then this plan's lists: ancestors',
	 * classes', detours'
	 */
	uint8_t *cpos;
	uint32_t npos;
	size_t cap; /* cpos's room (router_layout): three per link and the first list */
};

/* Switch classes of the current plane (struct cls). */
struct route_classes {
	uint32_t *up_class_of;	  /* per switch: its up class, an index of up_classes[] */
	uint32_t *down_class_of;  /* per switch: its down class, an index of down_classes[] */
	struct cls *up_classes;	  /* switches of a level with the same parents, in order */
	struct cls *down_classes; /* switches of a level with the same children, in order */
	/*
	 * Parent sets: switches of a level with the same parents, whatever
	 * their links' order and number (up classes of pruned 64,40: 640, parent
	 * sets: 32). pstart/ppeer per switch its distinct parents (up_peer[]
	 * without repeats).
	 */
	uint32_t *parent_set_of; /* per switch: its parent set, an index of parent_sets[] */
	uint32_t *pstart, *ppeer;
	struct cls *parent_sets; /* the parent sets (their members' distinct parents) */
};

/* A straggler's main.found mark: serial with this bit (serials stay below it). */
#define VT_ROUTE_STRAGGLER 0x80000000u

/* The main route of the current destination: Algorithms 4 and 3. */
struct route_main {
	uint32_t serial; /* destinations routed so far (place-keepers included) */
	uint32_t crank;	 /* rank of the compute destination being routed, else VT_NONE */
	uint32_t *mark;	 /* per switch above the leaves: serial when it carries the main route */
	/*
	 * per switch: serial when the main descent found it, serial |
	 * VT_ROUTE_STRAGGLER when it is a straggler (vt_route_straggler.c)
	 */
	uint32_t *found;
	uint32_t *cur, *next;
	uint32_t *mul; /* descent: switches several main-route links found */
	uint32_t *via; /* per switch: the dn_port[] entry of the main-route link that found it
			* in the descent, VT_NONE when several did */
};

/*
 * The flows vt_route_stage_load (vt_route_stage_load.c) walked for the current
 * destination, by leaf, destination rank and level: the switches above the
 * leaves share them where they share hosts below, and a walk does not change
 * while one destination is routed (only its own column is written). Direct
 * mapped, VT_FLOW_MEMO entries; a clash walks again.
 */
#define VT_FLOW_MEMO (1u << 16)
struct route_flow_memo {
	uint32_t serial; /* main.serial of the walk (0: none) */
	uint32_t leaf, dd;
	uint32_t sw;	     /* the switch at level the flow goes up through, VT_NONE: none */
	uint8_t level, port; /* ... and its entry */
};

/* Per-plane link tables the descent reads instead of deriving them. */
struct route_links {
	uint8_t *dn_rport; /* per dn_port[] entry: the port number at the child's end */
	uint32_t *dn_ridx; /* ... and its ports[] index */
	uint8_t *up_rpos;  /* per up_port[] entry: the link's position in the parent's dn_port[] run
			    */
	uint32_t *swfirst; /* per switch: ports[] index of its port 0 */
	uint32_t *upos;	   /* per ports[] index: its up_port[] entry (scratch of vt_route.c) */
};

/* Degraded trees: the turn order of detours and the sibling lanes of ascents. */
/* Most compute ranks below a switch whose flows vt_route_stage_load counts */
#define VT_STAGE_SRC 128u

struct route_degraded {
	/*
	 * Turn order, per switch: switches of a level that share a parent form
	 * a class (CA routes pass from any of them to any other through their
	 * parents); classes that lost down-links (the ones detours must reach
	 * by a down-up turn) rank after the others. A detour turning down from
	 * a into c and up to b needs rank(a) < rank(b), so its turns follow one
	 * global order and, with the up*-down* CA routes, close no cycle.
	 */
	uint32_t *rank;
	/*
	 * Ascent alignment: sib[s] is a switch of s's level with the level's
	 * full up-links whose parents include all of s's (VT_NONE: s is
	 * complete, or none). Such a sibling takes its parents in turn, so its
	 * n-th ascent goes to its (n mod up-links)-th; s, on its n-th ascent
	 * (nasc[s]), takes that same parent when linked to it, keeping every
	 * destination that can in its regular lane.
	 */
	uint32_t *sib, *nasc;
	/*
	 * minpar[p]: the fewest parallel links a child of p has to it; own[s]:
	 * s has no sib but some of its lanes (its m-th link to a parent) are
	 * ones another child of that parent lacks (m >= minpar), one its own
	 * children reach by the port number s's do (in step: the leaves'
	 * descent takes the lacking switch where it takes s, so two
	 * destinations s sends up that parent would meet on its one link), so
	 * it too takes its parents in turn, those lanes falling back as lost
	 * ones. Out of step, s keeps the lane: its fallback would pair two of
	 * its destinations on one link for nothing.
	 */
	uint32_t *minpar;
	uint8_t *own;
	/*
	 * lane0[s]: where s's cycle over the run it follows (its sib's, or its
	 * own) starts: the first lacked lane (vt_route_lane_lost), 0 when none.
	 * The lacked lane's destination is then the cycle's first and falls
	 * back to the lane of its last, the two furthest apart in rank order.
	 */
	uint32_t *lane0;
	/*
	 * far[s]: s lost exactly one up-link and no other switch that lost one
	 * shares a parent with it, where a destination that must share a lane
	 * shares it with the one furthest from it (vt_route_far_lane); where
	 * two such switches share parents their fallbacks would meet, so they
	 * keep half a run apart. pcnt: per parent, the switches below it that
	 * lost an up-link (scratch of vt_route_siblings).
	 */
	uint8_t *far;
	uint32_t *pcnt;
	/*
	 * Some leaf has fewer parallel links to a parent than another leaf
	 * has to one of its own: ascents spread a leaf's destinations over
	 * its parents before its parallel links (vt_route_downgoing.c).
	 */
	int leaf_spread;
	/*
	 * Per switch: its group, the least switch joined to it by shared
	 * parents (switches without parents: all one group, nsw), for
	 * spread_pick (vt_route_downgoing.c).
	 */
	uint32_t *grp;
	/*
	 * Per up_port[] entry j of a leaf: the most links a child of j's
	 * parent has into that parent's group (the group's links, whole);
	 * gsplit: per leaf, its parents fall into two or more groups and it
	 * has fewer links than their whole ones (vt_route_group_weights).
	 */
	uint32_t *gwhole;
	uint8_t *gsplit;
	/* some leaf lost up-links */
	int leaf_dmg;
	/* leaf_dmg, and the level below the tops falls into two or more groups */
	int split_dmg;
	/* leaf_dmg, but every leaf kept as many parents as the most a leaf has */
	int lanes_dmg;
	/*
	 * Where leaf_dmg or some clost: per switch above the leaves, it has at most
	 * VT_STAGE_SRC compute ranks below it (stage_load counts their flows;
	 * found once here, not on every call)
	 */
	uint8_t *stage_few;
	/*
	 * Where leaf_spread: per up_port[] entry a + i of a leaf (a its
	 * up_start), the parent its ascents number i, i + nu, ... go to (nu
	 * its up-links), for the shift-window policy (vt_route_policy.c)
	 */
	uint32_t *spread_seq;
	/*
	 * Per up_port[] entry of a leaf: destinations its ascent would have
	 * taken up that link but sent up another, as its parent lost up-links
	 * (vt_route_leaf_lane). They count towards the link's load in the
	 * leaf's choice, so the lane keeps its turn and the leaf's next
	 * destinations stay in their own lanes rather than moving up one.
	 */
	uint32_t *charge;
	/*
	 * Per up_port[] entry a + i of a leaf (a its up_start): the up_port[]
	 * entry its i-th ascent takes, lanes left for spare ones included
	 * (vt_route_leaf_lanes), for the shift-window policy's forecast of
	 * destinations not routed yet. Not set where leaf_spread.
	 */
	uint32_t *lane_seq;
	/*
	 * Per level-1 switch: the up_port[] entry its last ascent took, and
	 * the leaf that ascent came from (VT_NONE: none yet), for
	 * vt_route_displaced_lane.
	 */
	uint32_t *last_up, *last_from;
	/*
	 * The plane's only damage is leaves that kept their first up-links
	 * (vt_route_prefix_short), some: where displaced_lane and column_top
	 * apply (elsewhere other damage moves the lanes they assume)
	 */
	int prefix_dmg;
	/*
	 * Split cores whose groups differ in what they carry upward
	 * (vt_route_chassis.c): corder per leaf, it follows cseq; cseq per
	 * up_port[] entry a + i of such a leaf, the up_port[] entry its
	 * destinations at rank offset i (mod its up-links) take.
	 */
	uint8_t *corder;
	uint32_t *cseq;
	/*
	 * Split cores: per switch above the leaves, it has fewer links to some
	 * parent than another child of that parent has (a lost lane), so the
	 * descent lets it go up any parent as near the destination
	 * (vt_route_chassis_lost_lane)
	 */
	uint8_t *clost;
	/*
	 * The turn leaf (vt_route_turn.c): every detour turns down-up at z.
	 * inz: per switch, an ancestor of z or z; hz: up*-down* hops to z.
	 */
	uint32_t z;
	uint8_t *inz;
	uint32_t *hz;
	/*
	 * The way towards z, which does not depend on the destination: per
	 * switch, zpos[zfirst[s] .. zfirst[s + 1]) are the positions in its
	 * dn_port[] run of its children in inz (s in inz), else in its
	 * up_port[] run of its parents one hop closer to z.
	 */
	uint32_t *zfirst;
	uint8_t *zpos;
	/*
	 * Set by vt_route's second try: each ancestor of z keeps, of its
	 * children in inz, only the first in tree order one hop closer to z.
	 */
	int one_way;
	/*
	 * Set by vt_route's third try: Z is the turn switch
	 * (vt_route_turn_switch.c); no_z: some plane had none (Z VT_NONE: its
	 * detours took the turn order's, as on the second try).
	 */
	int turn_switch, no_z;
	/*
	 * Set by vt_route's fourth try: the tops' detours turn at the turn
	 * switches of a top tree (vt_route_top_tree.c). tturn: per switch, a
	 * turn switch; tw: per switch, the plan's tree steps to a top with a
	 * way down; no_tree: the plane has no top tree (no_z is set too).
	 * tup: per up_port[] entry of a turn switch, a link of the tree (all
	 * of them, unless only some of its tops could join the tree).
	 */
	int top_tree, no_tree;
	uint8_t *tturn, *tup;
	/*
	 * Where a plane has no top tree: a top (fabric node) of the fewest
	 * that no switch below the tops joins to the others, and how many
	 * (apart VT_NONE: every plane had one)
	 */
	uint32_t apart, napart;
	uint32_t *tw;
	/*
	 * Set by vt_route's try with a second VL (vt_route_vl): detours take a
	 * shortest way over any link (vt_route_detour.c's minimal_detours), the
	 * routes that then close a credit loop left to the VL split. detours:
	 * plans that had a switch without an up*-down* route.
	 */
	int minimal;
	uint32_t detours;
	/*
	 * Set when that argument does not cover the plane: a plan fell back to
	 * the turn order's detours, or z reaches some ancestor by two up-paths.
	 * vt_route then checks the finished tables.
	 */
	int unsure;
};

/*
 * Irregular two-level trees: the tops chosen again once a plane is routed
 * (vt_route_lookahead.c). Leaves and tops by index (idx[], per switch: its
 * place in its level); has[x * ns + k]: leaf x is linked to top k; up and
 * dn: the model's loads per shift stage s (VT_LOOK_Q a flow), leaf x's
 * up-link to top k at (s * nl + x) * ns + k, top k's down-link to leaf x at
 * (s * ns + k) * nl + x.
 */
struct route_look {
	uint32_t nl, ns;
	uint32_t *idx;
	uint8_t *has;
	uint8_t *narrow; /* per leaf: linked to fewer tops than a leaf with hosts (policy) */
	uint8_t *mark;	 /* scratch, per top */
	uint32_t *first, *nranks; /* per leaf: its run of ranks (place-keepers included) */
	uint32_t *up, *dn;
	uint32_t *c;	/* per rank and leaf: the top the leaf goes up to, VT_NONE: none */
	uint32_t *best; /* ... in the best plan so far */
	uint32_t *tmp;	/* scratch, per leaf */
};

/* LIDs routed at a time before their entries go into the tables (vt_route_batch.c). */
#define VT_ROUTE_BATCH 256u

/*
 * The entries of the LIDs being routed, LID by LID: col[s] is switch s's
 * entry for the current LID, VT_LFT_NONE where nothing was written. Routing
 * writes one LID's entry at every switch, one byte per table row, so the
 * entries wait here and go into the tables a batch at a time, row by row.
 */
struct route_batch {
	uint8_t *cols; /* VT_ROUTE_BATCH columns of nsw entries */
	uint32_t lid[VT_ROUTE_BATCH];
	uint32_t n;
	uint8_t *col; /* the current LID's column; a place-keeper's, never flushed */
	uint32_t *at; /* per LID: its column's index when lid[at] is that LID and at < n */
};

/* A block tables are carved from (vt_route.c's router_layout); NULL base: sizing only. */
struct route_arena {
	char *base;
	size_t used;
};

struct vt_passes_memo; /* vt_route_mainloop.c */

struct router {
	/*
	 * The working memory: every table below points into this one block
	 * (router_alloc, router_free), sized by the fabric for every plane.
	 */
	void *mem;
	size_t mem_size;
	const vt_fabric *f;
	const vt_tree *t; /* the plane being routed */
	vt_lfts *lfts;
	/* filled plane by plane where not NULL (vt_route_opts.proof); sure set by vt_route_vl */
	struct vt_route_proof *proof;
	int strand; /* some plane has a stranded switch: no proof */
	struct route_batch batch;
	struct route_usage use;
	struct route_plan plan;
	struct route_fill fill;
	struct route_classes cls;
	struct route_main main;
	struct route_links links;
	struct route_degraded deg;
	struct route_look look;
	struct route_flow_memo *flow_memo;
	/* the passes after the main loop in this vt_route call's earlier routings
	 * (vt_route_mainloop.c) */
	struct vt_passes_memo **passes_memo;
};

static inline uint32_t swport(const struct router *r, uint32_t s, unsigned p)
{
	return vt_port_index(r->f, r->f->switches[s], p);
}

/* Is px below s (s routes down towards it)? */
static inline int is_anc(const struct router *r, uint32_t s)
{
	return r->plan.anc[s] == r->plan.stamp;
}

static inline void set_entry(struct router *r, uint32_t s, unsigned p)
{
	assert(s < r->f->nswitches && p <= VT_MAX_PORTS);
	r->batch.col[s] =
		(uint8_t)p; /* a place-keeper's goes nowhere: it moves the counters only */
}

static inline void add_fill(struct router *r, uint32_t s, const uint8_t *base, const uint8_t *cand,
			    uint32_t n)
{
	struct route_fill *fl = &r->fill;

	/* one fill route per switch and plan: fsw[] and rstart[] hold nswitches + 1 */
	assert(fl->n <= r->f->nswitches && n <= VT_MAX_PORTS);
	if (n != fl->lastn) {
		fl->lastn = n;
		fl->rstart[fl->nrun] = fl->n;
		fl->rn[fl->nrun++] = n;
	}
	fl->fsw[fl->n] = s;
	fl->fbase[fl->n] = base;
	fl->fcand[fl->n++] = cand;
}

/* vt_route_mainloop.c: Algorithm 2, every LID of plane t */
void vt_route_mainloop(struct router *r, const vt_tree *t);
/* vt_route_straggler.c: the lane offset a destination that must share one takes */
uint32_t vt_route_far_lane(const struct router *r, uint32_t s, uint32_t sn);
/*
 * vt_route_downgoing.c: Algorithm 4, assign-down-going-port-by-ascending;
 * returns the main route's switches, x first, in path[]
 */
uint32_t vt_route_downgoing_by_ascending(struct router *r, uint32_t x, uint32_t rot, uint32_t *path,
					 uint8_t *pn);
/* vt_route_downgoing.c: the usage keys of plane t (route_usage.nkeys) */
uint32_t vt_route_key_count(const vt_tree *t);
/* vt_route_upgoing.c: Algorithm 3, assign-up-going-port-by-descending; returns leaves found */
uint32_t vt_route_upgoing_by_descending(struct router *r, const uint32_t *path, uint32_t npath);
/* The flows the current destination's shift stages already send up each of
 * switch c's up-links, packed into w (vt_route_found_window's memo). */
void vt_route_stage_load(struct router *r, uint32_t c, uint32_t *w);
/* vt_route_plan.c */
void vt_route_make_plan(struct router *r, uint32_t x);
void vt_route_write_fill(struct router *r, uint32_t rot);
void vt_route_write_leaf_fill(struct router *r, uint32_t rot);
/* vt_route_batch.c: the column of lid (0: a place-keeper, one never flushed) becomes r->batch.col
 */
void vt_route_batch_init(struct router *r); /* cols carved (router_alloc) */
void vt_route_batch_start(struct router *r, uint32_t lid);
void vt_route_batch_flush(struct router *r);
/* vt_route_class.c */
int vt_route_classes(struct router *r, const vt_tree *t, vt_err *e);
/* vt_route_detour.c */
void vt_route_plan_detours(struct router *r, uint32_t nd);
int vt_route_turn_ranks(struct router *r, const vt_tree *t, vt_err *e);
/* vt_route_turn.c: -1 when the plan's detours cannot all turn at the turn leaf */
void vt_route_turn_leaf(struct router *r, const vt_tree *t);
int vt_route_turn_detours(struct router *r, uint32_t nd);
/* vt_route_turn_switch.c: seen zeroed and q, room for every switch */
uint32_t vt_route_turn_switch(const vt_tree *t, uint8_t *seen, uint32_t *q);
/* vt_route_top_tree.c: uf room for every switch; -1 when the tops form no tree */
int vt_route_top_tree(struct router *r, const vt_tree *t, uint32_t *uf);
int vt_route_top_tree_detours(struct router *r, uint32_t nd);
/* vt_route_lookahead.c: plane t's leaves take the tops planned ahead, where that models better */
void vt_route_lookahead(struct router *r, const vt_tree *t);
/* vt_route_lanes.c: plane t's compute LIDs take lanes, where its split core deals unevenly */
int vt_route_lanes(struct router *r, const vt_tree *t);
/*
 * Would each pass after the main loop model plane t? Decided from the tree, deg.grp and
 * the damage flags alone, before an entry is read (vt_route_mainloop.c keys its memo so)
 */
int vt_route_lanes_applies(const struct router *r, const vt_tree *t);
int vt_route_spines_applies(const struct router *r, const vt_tree *t);
int vt_route_leaf_moves_applies(const struct router *r, const vt_tree *t);
int vt_route_stage_applies(const struct router *r, const vt_tree *t);
int vt_route_stage_swap_applies(const struct router *r, const vt_tree *t);
/*
 * vt_route_lanes_colour.c: the lanes' graph (n nodes, rows of words 64-bit words) coloured by
 * DSatur; a node with no allowed colour VT_COLOUR_NONE; returns the clashing edges
 */
#define VT_COLOUR_NONE 0xFFFFu
#define VT_COLOUR_TODO 0xFFFEu
uint32_t vt_route_lanes_colour(uint32_t n, uint32_t words, const uint64_t *adj, uint32_t ncol,
			       const uint8_t *allowed, uint16_t *col);
void vt_route_lanes_clique(uint64_t *adj, uint32_t words, const uint32_t *v, uint32_t m);
/* vt_route_lanes_walk.c: plane t's shift walked through its tables; its compute LIDs' entries */
int vt_route_lanes_shift(const struct router *r, const vt_tree *t, uint32_t *worst, uint64_t *sum);
void vt_route_lanes_keep(struct router *r, const vt_tree *t, uint8_t *old, int w);
/* vt_route_spines.c: plane t's lines take their spines again on a shift model (split cores) */
void vt_route_spines(struct router *r, const vt_tree *t);
/* vt_route_mainloop.c: the passes r->passes_memo kept, freed; *m NULL after */
void vt_route_passes_memo_free(struct vt_passes_memo **m);
/* vt_route_leaf_moves.c: plane t's leaves' entries moved, where some stage loads a link twice */
void vt_route_leaf_moves(struct router *r, const vt_tree *t);
/*
 * vt_route_stage_search.c: plane t's compute LIDs' routes searched again against a model of
 * the shift stages, where its split core's leaves lost a parent
 */
void vt_route_stage_search(struct router *r, const vt_tree *t);
/*
 * vt_route_stage_swap.c: where a split core's level 1 lost an up-link, the leaves' classes
 * exchanged after a stage at load 2 and the levels above routed again, kept if shift is better
 */
void vt_route_stage_swap(struct router *r, const vt_tree *t);
/* vt_route_strand.c: the stranded switches' routes, into the tables (after the flush); -1 with e
 * when out of memory */
int vt_route_strand(struct router *r, const vt_tree *t, vt_err *e);
/* vt_route_policy.c: does switch s reach some parent over two or more links? */
int vt_route_parallel_up(const vt_tree *t, uint32_t s);
/* vt_route_policy.c: does switch x reach its parent p over one link only? */
int vt_route_single_up(const vt_tree *t, uint32_t x, uint32_t p);
/*
 * vt_route_policy.c: leaf x has fewer up-links than its level's, to the
 * first parents of a complete leaf below its first parent, in order (it
 * lost its last links, as vt-gen's leaf-uplinks=N:U): that leaf, else VT_NONE
 */
uint32_t vt_route_prefix_short(const vt_tree *t, uint32_t x);
/* vt_route_chassis.c: deg.corder and deg.cseq (after deg.grp); a leaf's pick, VT_NONE: none */
void vt_route_chassis_order(struct router *r, const vt_tree *t);
uint32_t vt_route_chassis_pick(const struct router *r, uint32_t s, uint32_t rot);
/* vt_route_chassis.c: may switch c, found by the descent, go up parent p, off the main route? */
int vt_route_chassis_lost_lane(const struct router *r, uint32_t c, uint32_t p);
/* vt_route_straggler.c: what a switch can carry upward and carries so far */
uint32_t vt_route_up_capacity(const vt_tree *t, uint32_t p);
int vt_route_weighted_leaf(const vt_tree *t, uint32_t s);
uint32_t vt_route_down_load(const struct router *r, uint32_t p);
uint32_t vt_route_up_load(const struct router *r, uint32_t p);
/* vt_route_straggler.c */
void vt_route_group_weights(const struct router *r, uint32_t s, uint32_t *gw);
void vt_route_stragglers(struct router *r, const uint8_t *pn);
void vt_route_siblings(struct router *r, const vt_tree *t);
void vt_route_stage_few(struct router *r, const vt_tree *t);

/*
 * The log lines of a routing with a second VL (vt_route_vl_log.c): the split
 * of every source's routes (first: why one VL did not do; loop1: the audit's
 * credit loop on a VL other than 0, if any), or the one of the shortest
 * detours; each followed by the VLs used.
 */
struct vt_route_opts;
struct vt_audit_item;
struct vt_vl_split;
void vt_route_log_split(const vt_fabric *f, const struct vt_route_opts *o,
			const struct vt_vl_split *vl, const char *first,
			const struct vt_audit_item *loop1);
void vt_route_log_minimal(const vt_fabric *f, const struct vt_route_opts *o,
			  const struct vt_vl_split *vl);

#endif
