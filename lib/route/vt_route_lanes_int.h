/* SPDX-License-Identifier: MIT */
/* Private to vt_route_lanes*.c: the lanes' state (vt_route_lanes.c says what lanes are). */
#ifndef VT_ROUTE_LANES_INT_H
#define VT_ROUTE_LANES_INT_H

#include "route/vt_route_int.h"

struct lanes {
	const vt_tree *t;
	uint32_t n, nu, nl, ns, q, nleaf;
	uint32_t *idx;	  /* per switch: its place among the leaves or lines, its spine slot */
	uint32_t *lane;	  /* per leaf * nu + o: up_port[] entry of its o-th up-link by port */
	uint32_t *sup;	  /* per (line * ns + spine slot) * q + l: up_port[] entry */
	uint8_t *dport;	  /* per (line * ns + spine slot) * q + l: the spine's port down */
	uint32_t *first;  /* per leaf: first rank, and ranks */
	uint32_t *nranks; /* ... */
	uint16_t *choice; /* per rank * nl + line: spine slot * q + link, VT_LANE_NONE */
	uint8_t *dlane;	  /* per rank * ns + spine slot: the link down its lane */
	uint16_t *dcount; /* ... and the lines that take that spine */
	uint8_t *up, *dn; /* model loads per ((stage * nl + line) * ns + slot) * q + link */
	uint32_t *xs, *fill, *ks, y; /* one rank's flows (dest_flows) */
	uint32_t *over;		     /* per stage: links the model loads past one flow */
	uint8_t *tmax;		     /* every choice's score terms for one line (tally) */
	uint16_t *tcnt;		     /* ... */
	uint32_t *cl;  /* per (leaf b * nu + lane o) * nleaf + leaf a: a's climb line, NULL: none */
	uint16_t *col; /* per rank: spine slot * q + link (vt_route_lanes_colour.c) */
	const uint32_t *grp; /* per switch: its chassis (deg.grp) */
	int mixed;	     /* lane o's chassis differs between leaves (climb_lane) */
	/*
	 * Mixed only, in ln->lane's block (freed with it), else NULL: per
	 * leaf * nu + o, lane o's place among the lane destinations of its
	 * chassis in rank order, the places before the end of the leaf's
	 * ranks, and all (vt_route_lanes_leaves.c)
	 */
	uint32_t *cpos, *cbase, *ctot;
	/*
	 * Mixed only, in ln->lane's block, once vt_route_lanes_stages ran, else
	 * NULL: per stage, 1 where the leaves' climbs load no leaf up-link past
	 * one flow; sfilter: 1 the colouring takes those stages alone and the
	 * model counts the others one less, 2 neither takes the others.
	 */
	uint8_t *sfree;
	int sfilter;
};

#define VT_LANE_NONE 0xFFFFu

/*
 * vt_route_lanes_leaves.c: the leaves' lanes (ln->lane, first, nranks, mixed;
 * idx of the leaves); 0 where lanes do not apply or out of memory
 */
int vt_route_lanes_leaves(struct lanes *ln, const struct router *r, const vt_tree *t);
/*
 * vt_route_lanes_leaves.c: ln->sfree where lane o's chassis differs between
 * leaves (computed once); 0: none (leaves dealt alike, or out of memory)
 */
int vt_route_lanes_stages(struct lanes *ln);
/* vt_route_lanes_leaves.c: leaf a's up-link (up_port[] entry) for leaf b's lane o, VT_NONE */
uint32_t vt_route_lanes_climb(const struct lanes *ln, uint32_t a, uint32_t b, uint32_t o);

#endif
