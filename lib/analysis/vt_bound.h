/* SPDX-License-Identifier: MIT */
/*
 * A lower bound on the max link load of a stage, from cuts: every flow whose
 * source lies in a subtree and whose destination does not must leave over
 * one of the subtree's up-links, and every flow entering it must come down
 * one of its down-links; so no routing does better than
 *   max over cuts of ceil(flows out / links), ceil(flows in / links),
 * and, a host being a cut of one link, the most flows any rank sends or
 * receives. Cuts are leaf switches (each with its switch-to-switch links)
 * or, with the extracted tree (vt_tree), every subtree of every level.
 *
 * Cuts miss what split cores force: a leaf pair whose links reach no common
 * chassis as widely as they reach the core. The leaf-pair bound
 * (vt_bound_pair.c, proof there) counts per leaf pair the flows that can go
 * directly through the parts both leaves reach and the room the other leaves
 * leave for the rest to go through them. It is on where the switches above
 * the leaves fall apart into parts joined only through leaves (chassis, or
 * the spines of a 2-level tree) and the leaves differ in the parts they
 * reach (where they do not, a pair reaches as far as a leaf does, and the
 * leaf cuts say as much); off where the order scatters leaves' ranks (more
 * runs than 8 per leaf), where a shift would cost n per stage. Every pattern counts it
 * (all2all up to 2^22 leaf pairs), so a stage's bound is the same from its
 * flows (vt_bound_stage) as from the ranks (vt_bound_shift, _all2all).
 *
 * Beside them, for shifts, the up*-down* bound (vt_bound_climb.c, proof
 * there): where a subtree's switches taper (a director chassis that lost a
 * spine), its leaves reach the cables out of it only through the switches
 * above them, and routes that climb, then descend, cannot spread as a relay
 * through another leaf could. A yardstick for such routing (vartree's and
 * ftree's CA routes); no bound on routing as such.
 */
#ifndef VT_BOUND_H
#define VT_BOUND_H

#include <stdint.h>

#include "analysis/vt_routes.h"
#include "base/vt_err.h"
#include "model/vt_pattern.h"
#include "tree/vt_tree.h"

/*
 * The parts above the leaves as each leaf reaches them (vt_bound_pair.c):
 * leaf s's links go to parts part[off[s] .. off[s + 1]) (sorted), cnt each.
 */
struct vt_cut_pairs {
	int on;			   /* 0: one part only, or scattered ranks: nothing to add */
	uint32_t n, nsw;	   /* ranks, switches */
	uint32_t *rank_sw;	   /* per rank: its switch, VT_NONE for a place-keeper */
	uint32_t *deg;		   /* per switch: its links to other switches */
	uint32_t nleaves, *leaves; /* switches with ranks */
	uint32_t *off, *part, *cnt;
	/* leaves that reach the same parts over as many links: a class each */
	uint32_t ncls, *cls; /* per switch: its class */
	uint32_t *ccap;	     /* ccap[i * ncls + k]: cap of classes i, k; NULL past 2^22 */
};

/*
 * The subtrees whose switches taper (vt_bound_climb.c): subtree k's network
 * has nodes 0 .. noff[k + 1] - noff[k] - 1 (its switches) and the arcs
 * aoff[k] .. aoff[k + 1] - 1, one per cable a route may climb, from afrom to
 * ato, ato == its node count for a cable out of the subtree.
 */
struct vt_cut_climb {
	int on;		  /* 0: no subtree tapers, or scattered ranks: nothing to add */
	uint32_t nl, nsw; /* cut levels, switches */
	uint32_t *tap;	  /* tap[l * nsw + s]: leaf s's tapered level-l subtree, or VT_NONE */
	uint32_t *loc;	  /* loc[l * nsw + s]: leaf s's node in that subtree's network */
	uint32_t ntap;
	uint32_t *noff, *aoff, *afrom, *ato;
	uint32_t maxn, maxa; /* the largest network's nodes and arcs */
	/*
	 * Per tapered subtree: 1 where a relay is the only route its network
	 * leaves out (level 1, no cable along a level); per switch: a leaf's
	 * cables up, VT_NONE for the others (vt_bound_shift_climb's relay test)
	 */
	uint8_t *relay;
	uint32_t *lup;
};

typedef struct vt_cuts {
	uint32_t n;	  /* ranks */
	uint32_t nlevels; /* cut families (levels) */
	uint32_t *member; /* member[l * n + rank]: cut id, VT_NONE when outside every level-l cut */
	uint32_t ncuts;
	/* per cut: links crossing it (per direction); a subtree's: the fewest that
	 * separate its hosts from the others, at most its up-links (vt_bound_flow.c) */
	uint32_t *links;
	struct vt_cut_pairs pairs;
	struct vt_cut_climb climb; /* tree cuts only */
} vt_cuts;

/* One cut per switch with ranks attached: its ranks and its switch-to-switch links. */
int vt_cuts_leaf(vt_cuts *c, const vt_routes *r, vt_err *e);
/* Every subtree of every level of t below the top (ranks mapped through r's order). */
int vt_cuts_tree(vt_cuts *c, const vt_routes *r, const vt_tree *t, vt_err *e);
void vt_cuts_free(vt_cuts *c);

/*
 * Bound for one stage's flows (place-keepers already dropped). scratch holds
 * 2 * max(ncuts, n) entries; returns the bound (the leaf-pair bound's own
 * memory is allocated here; without it, the cuts' bound alone).
 */
uint32_t vt_bound_stage(const vt_cuts *c, const struct vt_flow *fl, uint32_t nfl,
			uint32_t *scratch);
/* The same for the one stage of all2all, from the hosts per cut (no flows made). */
uint32_t vt_bound_all2all(const vt_cuts *c, const vt_routes *r);
/*
 * The same for shifts first .. first+K-1 (bound[0 .. K-1]) without making
 * flows: per cut, flows out in shift s = #{i in cut : i + s active, outside},
 * a correlation of rank intervals computed from their end points.
 */
int vt_bound_shift(const vt_cuts *c, const vt_routes *r, uint32_t first, uint32_t K,
		   uint32_t *bound, vt_err *e);
/*
 * The up*-down* bound of shifts first .. first+K-1 (vt_bound_climb.c, proof
 * there): climb[i] = max(bound[i], the least load at which every tapered
 * subtree passes its stage's flows out and in along routes that climb, then
 * descend, the tree's levels). A bound for such routes only, not for any
 * routing as the cut bound is; but where a level-1 subtree fails at load 1
 * and its leaves have no room for a relay (every cable of theirs full with
 * their own flows), no routing passes at 1 either: bound[i] raised from 1
 * to 2 there. -1 out of memory.
 */
int vt_bound_shift_climb(const vt_cuts *c, const vt_routes *r, uint32_t first, uint32_t K,
			 uint32_t *bound, uint32_t *climb);
/*
 * The shift bound of every stage over the ranks of o: bound[s] for s in
 * 1 .. o->n - 1 (bound[0] = 0), from the subtrees of t (vt_cuts_tree), or
 * the leaf switches where t is NULL (vt_cuts_leaf): what vartree-analyze
 * reports as the stage's bound, read from where the ranks are, without a
 * routes model. No routing that delivers every flow of stage s loads its
 * busiest link with fewer than bound[s]. bound holds o->n entries.
 */
int vt_bound_shift_ranks(const vt_fabric *f, const vt_order *o, const vt_tree *t, uint32_t *bound,
			 vt_err *e);

#endif
