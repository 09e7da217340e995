/* SPDX-License-Identifier: MIT */
/*
 * Private to lib/analysis (the interval method, vt_shift_count.c): the path
 * from a leaf toward one destination walked through the tables themselves,
 * kept as vt_routes_build keeps next[]: only where the whole path delivers
 * to the destination's port (an entry missing, a loop or another port drops
 * the path whole). Paths toward one destination form a tree: a walk stops
 * where it meets the open switches of the walks before (a stack, the
 * destination's end at the bottom), so a count over runs of sources walks
 * each switch about once per destination, not ranks x switches.
 */
#ifndef VT_ROUTES_WALK_H
#define VT_ROUTES_WALK_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/vt_routes.h"

struct vt_hop {
	uint32_t ch, sw; /* the channel a switch's port leads out on, the switch it reaches */
};

struct vt_walk {
	struct vt_hop *hop; /* hop[sw * r->stride + port]; {VT_NONE, VT_NONE}: none */
	uint32_t *stk_sw, *stk_lo, *stk_ch; /* open switches, their first source, channel out */
	uint32_t *spos;			    /* per switch: its stack position while open */
	uint32_t *path, *pch;		    /* the walk at hand: switches, channels out */
	uint32_t *bad, tag; /* per switch: tag while its path to the destination fails */
	uint32_t sp;
};

/* 0, -1 when out of memory (then vt_walk_free). */
static inline int vt_walk_init(struct vt_walk *w, const vt_routes *r)
{
	size_t m = (size_t)r->nsw + 2, nh = (size_t)r->nsw * r->stride;

	memset(w, 0, sizeof(*w));
	w->hop = malloc((nh + 1) * sizeof(*w->hop));
	w->stk_sw = malloc(m * sizeof(uint32_t));
	w->stk_lo = malloc(m * sizeof(uint32_t));
	w->stk_ch = malloc(m * sizeof(uint32_t));
	w->path = malloc(m * sizeof(uint32_t));
	w->pch = malloc(m * sizeof(uint32_t));
	w->spos = calloc(m, sizeof(uint32_t));
	w->bad = calloc(m, sizeof(uint32_t));
	w->tag = 0;
	if (!w->hop || !w->stk_sw || !w->stk_lo || !w->stk_ch || !w->path || !w->pch || !w->spos ||
	    !w->bad)
		return -1;
	/* one table where a walk would look up the channel, then the switch it reaches */
	for (size_t i = 0; i < nh; i++) {
		uint32_t ch = r->sw_chan[i];

		w->hop[i] = (struct vt_hop){ch, ch == VT_NONE ? VT_NONE : r->chan_sw[ch]};
	}
	return 0;
}

static inline void vt_walk_free(struct vt_walk *w)
{
	free(w->hop);
	free(w->stk_sw);
	free(w->stk_lo);
	free(w->stk_ch);
	free(w->path);
	free(w->pch);
	free(w->spos);
	free(w->bad);
}

/* A new destination (or tables): the marks of failed paths forgotten, the stack empty. */
static inline void vt_walk_begin(struct vt_walk *w, uint32_t nsw)
{
	if (++w->tag == 0) {
		memset(w->bad, 0, ((size_t)nsw + 2) * sizeof(uint32_t));
		w->tag = 1;
	}
	w->sp = 0;
}

/* Port p of switch sw: its channel and the switch it reaches, VT_NONE for none. */
static inline struct vt_hop vt_walk_hop(const struct vt_walk *w, const vt_routes *r, uint32_t sw,
					uint8_t p)
{
	return p < r->stride ? w->hop[(size_t)sw * r->stride + p]
			     : (struct vt_hop){VT_NONE, VT_NONE};
}

/*
 * The path from switch sw toward one destination, delivering to port dst,
 * under the entries col[s * stride] of each switch s (its LID's column of
 * the tables, or a copy of it): 1 with its switches and channels in path,
 * pch [0, *np) and *meet the stack entries it keeps (it joins entry
 * *meet - 1 below `open`, or none: 0); 0 when it does not deliver. lone:
 * sw's own place on the stack is not looked for where its channel leads to a
 * switch (the interval method keeps a lone leaf's first hop apart).
 */
static inline int vt_walk_run(struct vt_walk *w, const vt_routes *r, const uint8_t *col,
			      size_t stride, uint32_t sw, uint32_t dst, uint32_t open, int lone,
			      uint32_t *np, uint32_t *meet)
{
	struct vt_hop h = vt_walk_hop(w, r, sw, col[sw * stride]);
	uint32_t m = 0, q;
	int look = !(lone && h.sw != VT_NONE);

	*meet = 0;
	while (1) {
		if (look && (q = w->spos[sw]) < open &&
		    w->stk_sw[q] == sw) { /* the rest of the path is open already */
			*meet = q + 1;
			*np = m;
			return 1;
		}
		look = 1;
		if (m)
			h = vt_walk_hop(w, r, sw, col[sw * stride]);
		if (h.ch == VT_NONE || w->bad[sw] == w->tag || m > r->nsw)
			break;
		w->path[m] = sw;
		w->pch[m++] = h.ch;
		sw = h.sw;
		if (sw == VT_NONE && r->f->ports[h.ch].peer == dst) {
			*np = m;
			return 1;
		}
		if (sw == VT_NONE)
			break;
	}
	for (uint32_t i = 0; i < m; i++) /* the path fails from each of its switches */
		w->bad[w->path[i]] = w->tag;
	*np = 0;
	return 0;
}

#endif
