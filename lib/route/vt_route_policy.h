/* SPDX-License-Identifier: MIT */
/*
 * Tie-break policy of vartree's routing, apart from the mechanism: which of
 * the parents one hop closer a straggler (a switch the main descent missed on
 * a degraded tree, vt_route_straggler.c) goes up to, and which switches the
 * detours of the third and fourth tries turn at (vt_route_turn_switch.c,
 * vt_route_top_tree.c). The mechanism lists the
 * candidates; this module gives each a set of named keys and compares them.
 * The keys aim at shift all-to-all, the pattern Zahavi et al. optimise: a
 * shift stage sends a leaf's hosts to a window of consecutive ranks, so a
 * lane (up-link port number) that other destinations of such a window also
 * use congests in that stage.
 */
#ifndef VT_ROUTE_POLICY_H
#define VT_ROUTE_POLICY_H

#include <stdint.h>

struct router;
struct vt_tree;

/* Why a candidate parent is preferred, strongest last. */
enum straggler_pref {
	PREF_NONE = 0,
	PREF_IN_STEP = 1,    /* the port number the main route took at this level */
	PREF_SIBLING = 2,    /* the lane a complete sibling's run names (straggler_pref) */
	PREF_MAIN_ROUTE = 3, /* the parent carries the main route already */
};

/*
 * Compared in this order; the first that differs decides. The values are
 * capped where the routing has always capped them (window_loads, lane_share
 * and down_load at 62), which keeps the tables the golden test checks.
 */
struct straggler_keys {
	uint32_t tier;	    /* higher wins; see vt_route_straggler_keys */
	uint32_t down_load; /* lower wins: above the leaves, the parent's way down, or c's */
	uint32_t up_window; /* lower wins: above the leaves, destinations of the windows up j */
	uint32_t pref;	    /* higher wins: enum straggler_pref */
	/*
	 * Leaves whose parents differ in up-links: the parent's destinations
	 * up so far (plus one) per up-link it kept, cap_load / cap, lower
	 * wins; cap 0 elsewhere
	 */
	uint32_t cap_load, cap;
	uint32_t
		window_load; /* lower wins: leaves, destinations of the shift windows on the lane */
	uint32_t lane_share; /* lower wins: leaves, destinations px's leaf expects on the lane */
	uint32_t group; /* lower wins: 1 where a split core's leaf leaves the lost lane's group */
	uint32_t use;	/* lower wins: the up-link's usage so far */
};

/*
 * The keys of straggler c's up-link j (an up_port[] entry, towards a parent
 * one hop closer); sib_parent is the parent straggler_pref names, pn[l] the
 * port number the main route took at level l. memo: VT_MAX_PORTS entries,
 * memo[0] VT_NONE before c's first call for the current destination (a
 * leaf's window loads of every up-link, kept there).
 */
void vt_route_straggler_keys(const struct router *r, uint32_t c, uint32_t j, uint32_t sib_parent,
			     const uint8_t *pn, uint32_t *memo, struct straggler_keys *k);
/*
 * Switch c's up-link j to a parent that found it among several (Algorithm
 * 3), lower first: a leaf that lost up-links, the most destinations of a
 * shift window on that lane; above the leaves on a split core with a leaf
 * that lost up-links, the flows its shift stages carry there already
 * (vt_route_stage_load.c); else 0. memo: VT_MAX_PORTS entries,
 * memo[0] VT_NONE before c's first call for the current destination (the
 * stage loads of every up-link of c, kept there).
 */
uint32_t vt_route_found_window(struct router *r, uint32_t c, uint32_t j, uint32_t *memo);
/* Is a strictly better than b? */
int vt_route_straggler_better(const struct straggler_keys *a, const struct straggler_keys *b);

/*
 * The up-link (up_port[] entry) leaf s's ascent takes for the current
 * destination instead of best, its least-loaded one scanned from rot
 * (Algorithm 4), when best's parent lost up-links.
 */
uint32_t vt_route_leaf_lane(const struct router *r, uint32_t s, uint32_t rot, uint32_t best);
/* deg.lane_seq of leaf s: its first ascents replayed as Algorithm 4 and the above take them. */
void vt_route_leaf_lanes(struct router *r, uint32_t s);

/* A flow in the look-ahead's loads (vt_route_lookahead.c): flows still to come count fractions. */
#define VT_LOOK_Q 2520u
/* Greedy plans tried, from as many ranks spread over the order; the best is kept. */
#define VT_LOOK_STARTS 16u

/*
 * The look-ahead of irregular two-level trees: the flows to one destination
 * over one choice of tops, as the loads they would bring their links in
 * their shift stages. The lower highest load (in whole flows) wins, then
 * the lower sum of squares: the choice that leaves the most room.
 */
struct look_keys {
	uint32_t max; /* the highest load a flow would meet */
	uint64_t sq;  /* the loads' squares, summed */
};

void vt_route_look_count(struct look_keys *k, uint32_t load);
int vt_route_look_better(const struct look_keys *a, const struct look_keys *b);

/* The model's shift of a whole choice: the worst stage and the sum over stages. */
struct look_figures {
	uint32_t worst;
	uint64_t sum;
};

/* Is the planned choice's shift better than the tables' (only then are they rewritten)? */
int vt_route_look_better_plan(const struct look_figures *plan, const struct look_figures *tables);
/*
 * Is a leaf with nu up-links narrow where the leaves with hosts have at most
 * most: its destinations' lanes planned ahead (vt_route_lookahead.c)?
 */
int vt_route_look_narrow(uint32_t nu, uint32_t most);

/*
 * Does an ascent following switch w's run of up-links (its own or its
 * sibling's; vt_route_downgoing.c) skip w's up-link e: a lane another child
 * of its parent lacks?
 */
int vt_route_lane_lost(const struct router *r, uint32_t w, uint32_t e);

/*
 * Of two switches that can be the turn switch (vt_route_turn_switch.c), is
 * a the one to take?
 */
int vt_route_turn_switch_better(const struct vt_tree *t, uint32_t a, uint32_t b);
/* Of two candidate turn switches of the top tree (vt_route_top_tree.c), is a tried first? */
int vt_route_top_tree_better(const struct vt_tree *t, uint32_t a, uint32_t b);

#endif
