/* SPDX-License-Identifier: MIT */
/* The routing seen from the ranks (see vt_routes.h). */
#include "analysis/vt_routes.h"

#include <stdlib.h>
#include <string.h>

#include "base/vt_mem.h"

void vt_routes_free(vt_routes *r)
{
	free(r->rank_lid);
	free(r->rank_sw);
	free(r->rank_up);
	free(r->chan_sw);
	free(r->counted);
	free(r->next);
	free(r->sw_chan);
	free(r->run_first);
	free(r->run_len);
	free(r->run_sw);
	memset(r, 0, sizeof(*r));
}

/*
 * Keeps next[r][sw] only where the whole path from sw delivers to r's port:
 * a flow either follows a good path or is unrouted, in every method alike.
 */
static void prune_bad(vt_routes *r, uint32_t rank, uint32_t dst_port, uint8_t *state,
		      uint32_t *stack)
{
	uint32_t nsw = r->nsw, *row = r->next + (uint64_t)rank * nsw;

	memset(state, 0, nsw); /* 0 unknown, 1 on stack, 2 good, 3 bad */
	for (uint32_t s0 = 0; s0 < nsw; s0++) {
		uint32_t sp = 0, sw = s0, good;
		while (1) {
			if (state[sw] >= 2) {
				good = state[sw] == 2;
				break;
			}
			if (state[sw] == 1) { /* loop */
				good = 0;
				break;
			}
			uint32_t ch = row[sw];
			if (ch == VT_NONE) {
				good = 0;
				state[sw] = 3;
				break;
			}
			state[sw] = 1;
			stack[sp++] = sw;
			if (r->chan_sw[ch] == VT_NONE) {
				good = r->f->ports[ch].peer == dst_port;
				break;
			}
			sw = r->chan_sw[ch];
		}
		while (sp) {
			uint32_t x = stack[--sp];
			state[x] = good ? 2 : 3;
			if (!good)
				row[x] = VT_NONE;
		}
	}
}

static int build_runs(vt_routes *r, vt_err *e)
{
	uint32_t cap = 0;

	r->nruns = 0;
	for (uint32_t a = 0; a < r->n; a++) {
		if (r->rank_sw[a] == VT_NONE)
			continue;
		if (r->nruns && r->run_sw[r->nruns - 1] == r->rank_sw[a] &&
		    r->run_first[r->nruns - 1] + r->run_len[r->nruns - 1] == a) {
			r->run_len[r->nruns - 1]++;
			continue;
		}
		if (r->nruns == cap) {
			cap = cap ? 2 * cap : 64;
			uint32_t *a1 = realloc(r->run_first, cap * sizeof(*a1));
			if (a1)
				r->run_first = a1;
			uint32_t *a2 = realloc(r->run_len, cap * sizeof(*a2));
			if (a2)
				r->run_len = a2;
			uint32_t *a3 = realloc(r->run_sw, cap * sizeof(*a3));
			if (a3)
				r->run_sw = a3;
			if (!a1 || !a2 || !a3)
				return vt_err_nomem(e, "out of memory");
		}
		r->run_first[r->nruns] = a;
		r->run_len[r->nruns] = 1;
		r->run_sw[r->nruns] = r->rank_sw[a];
		r->nruns++;
	}
	return 0;
}

#define NEXT_TILE 64u /* ranks whose next rows are filled together */

/*
 * next[d][s] for ranks d0 <= d < d1: the channel switch s forwards d's LID
 * through (VT_NONE: none, or an unlinked port; chan: chan_table's). Switch by
 * switch over a tile of ranks: the ranks' LIDs lie close in each switch's row,
 * where one rank at a time walks down every switch's row.
 */
static void next_rows(vt_routes *r, const vt_lfts *t, const uint32_t *chan, uint32_t stride,
		      uint32_t d0, uint32_t d1)
{
	uint32_t nsw = r->nsw;

	for (uint32_t s = 0; s < nsw; s++) {
		const uint8_t *lft = vt_lft_row(t, s);
		const uint32_t *cs = chan + (size_t)s * stride;

		for (uint32_t d = d0; d < d1; d++) {
			uint32_t lid = r->rank_lid[d];
			uint8_t p = lid >= t->nlid ? VT_LFT_NONE : lft[lid]; /* VT_NONE too */

			r->next[(uint64_t)d * nsw + s] = p < stride ? cs[p] : VT_NONE;
		}
	}
}

/* Is rank d's LID one whose column changed (vt_routes_retable)? */
static int rank_changed(const vt_routes *r, const vt_lfts *t, const uint8_t *changed, uint32_t d)
{
	return r->rank_lid[d] < t->nlid && changed[r->rank_lid[d]];
}

/*
 * next_rows for the ranks of d0 .. d1 whose LID's column changed, switch by
 * switch as next_rows fills them (a candidate of a repair changes most
 * ranks' columns at times: pruned 36,12, a top switch down, 3519 of 4429
 * LIDs, filled one rank at a time down every switch's row before).
 */
static void next_rows_changed(vt_routes *r, const vt_lfts *t, const uint32_t *chan, uint32_t stride,
			      uint32_t d0, uint32_t d1, const uint8_t *changed)
{
	uint32_t nsw = r->nsw, sel[NEXT_TILE], m = 0;

	for (uint32_t d = d0; d < d1; d++)
		if (rank_changed(r, t, changed, d))
			sel[m++] = d;
	for (uint32_t s = 0; m && s < nsw; s++) {
		const uint8_t *lft = vt_lft_row(t, s);
		const uint32_t *cs = chan + (size_t)s * stride;

		for (uint32_t i = 0; i < m; i++) {
			uint8_t p = lft[r->rank_lid[sel[i]]];

			r->next[(uint64_t)sel[i] * nsw + s] = p < stride ? cs[p] : VT_NONE;
		}
	}
}

/* r->next for tables t; state and stack hold r->nsw. */
static void fill_next(vt_routes *r, const vt_lfts *t, const uint32_t *chan, uint32_t stride,
		      uint8_t *state, uint32_t *stack)
{
	r->t = t;
	for (uint32_t d0 = 0; d0 < r->n; d0 += NEXT_TILE) {
		uint32_t d1 = r->n - d0 < NEXT_TILE ? r->n : d0 + NEXT_TILE;

		next_rows(r, t, chan, stride, d0, d1);
		for (uint32_t d = d0; d < d1; d++)
			if (r->rank_lid[d] != VT_NONE)
				prune_bad(r, d, r->o->port[d], state, stack);
	}
}

int vt_routes_retable(vt_routes *r, const vt_lfts *t, const uint8_t *changed, vt_err *e)
{
	uint8_t *state;
	uint32_t *stack;

	r->t = t;
	if (!r->next)
		return 0;
	state = malloc(r->nsw + 1);
	stack = malloc((r->nsw + 1) * sizeof(*stack));
	if (!state || !stack) {
		free(state);
		free(stack);
		return vt_err_nomem(e, "out of memory for the routes of %u switches", r->nsw);
	}
	if (!changed)
		fill_next(r, t, r->sw_chan, r->stride, state, stack);
	/* a rank's row depends on its LID's column alone: the changed ones, a tile at a time */
	for (uint32_t d0 = 0; changed && d0 < r->n; d0 += NEXT_TILE) {
		uint32_t d1 = r->n - d0 < NEXT_TILE ? r->n : d0 + NEXT_TILE;

		next_rows_changed(r, t, r->sw_chan, r->stride, d0, d1, changed);
		for (uint32_t d = d0; d < d1; d++)
			if (rank_changed(r, t, changed, d))
				prune_bad(r, d, r->o->port[d], state, stack);
	}
	free(state);
	free(stack);
	return 0;
}

/* The rank fields of r (vt_routes_ranks); the caller frees r on failure. */
static int ranks_fill(vt_routes *r, const vt_fabric *f, const vt_order *o)
{
	uint32_t n = o->n;

	r->f = f;
	r->o = o;
	r->n = n;
	r->nsw = f->nswitches;
	r->nchan = f->nports;
	r->rank_lid = malloc((n + 1) * sizeof(uint32_t));
	r->rank_sw = malloc((n + 1) * sizeof(uint32_t));
	r->rank_up = malloc((n + 1) * sizeof(uint32_t));
	if (!r->rank_lid || !r->rank_sw || !r->rank_up)
		return -1;
	for (uint32_t a = 0; a < n; a++) {
		uint32_t p = o->port[a], q;
		r->rank_lid[a] = r->rank_sw[a] = r->rank_up[a] = VT_NONE;
		if (p == VT_NONE || p >= f->nports)
			continue;
		r->rank_lid[a] = f->ports[p].lid;
		q = f->ports[p].peer;
		if (q != VT_NONE && f->nodes[f->ports[q].node].type == VT_SWITCH) {
			r->rank_sw[a] = f->nodes[f->ports[q].node].sw;
			r->rank_up[a] = p;
		}
	}
	return 0;
}

int vt_routes_ranks(vt_routes *r, const vt_fabric *f, const vt_order *o, vt_err *e)
{
	memset(r, 0, sizeof(*r));
	if (ranks_fill(r, f, o)) {
		vt_routes_free(r);
		return vt_err_nomem(e, "out of memory for %u ranks", o->n);
	}
	if (build_runs(r, e)) {
		vt_routes_free(r);
		return -1;
	}
	return 0;
}

/* r's channel fields (vt_routes_build_walked); the caller frees r on failure. */
static int chans_fill(vt_routes *r, const vt_fabric *f)
{
	r->chan_sw = malloc((f->nports + 1) * sizeof(uint32_t));
	r->counted = calloc(f->nports + 1, 1);
	r->sw_chan = vt_fabric_chan_table(f, &r->stride);
	if (!r->chan_sw || !r->counted || !r->sw_chan)
		return -1;
	for (uint32_t c = 0; c < f->nports; c++) {
		uint32_t q = f->ports[c].peer;
		r->chan_sw[c] = VT_NONE;
		if (q == VT_NONE)
			continue;
		uint32_t a = f->ports[c].node, b = f->ports[q].node;
		r->chan_sw[c] = f->nodes[b].type == VT_SWITCH ? f->nodes[b].sw : VT_NONE;
		r->counted[c] = f->nodes[a].type == VT_SWITCH || f->nodes[b].type == VT_SWITCH;
	}
	return 0;
}

int vt_routes_build_walked(vt_routes *r, const vt_fabric *f, const vt_lfts *t, const vt_order *o,
			   vt_err *e)
{
	memset(r, 0, sizeof(*r));
	if (ranks_fill(r, f, o) || chans_fill(r, f)) {
		vt_routes_free(r);
		return vt_err_nomem(e, "out of memory for the routes of %u ranks", o->n);
	}
	r->t = t;
	if (build_runs(r, e)) {
		vt_routes_free(r);
		return -1;
	}
	return 0;
}

int vt_routes_build(vt_routes *r, const vt_fabric *f, const vt_lfts *t, const vt_order *o,
		    vt_err *e)
{
	uint32_t n = o->n, nsw = f->nswitches;
	uint8_t *state;
	uint32_t *stack;

	if (vt_routes_build_walked(r, f, t, o, e))
		return -1;
	state = malloc(nsw + 1);
	stack = malloc((nsw + 1) * sizeof(*stack));
	r->next = vt_alloc_big(((uint64_t)n * nsw + 1) * sizeof(uint32_t));
	if (!r->next || !state || !stack) {
		free(state);
		free(stack);
		vt_routes_free(r);
		return vt_err_nomem(e, "out of memory for the routes of %u ranks and %u switches",
				    n, nsw);
	}
	fill_next(r, t, r->sw_chan, r->stride, state, stack);
	free(state);
	free(stack);
	return 0;
}
