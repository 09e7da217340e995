/* SPDX-License-Identifier: MIT */
#include "vt_lft.h"

#include <stdlib.h>
#include <string.h>

int vt_lfts_init(vt_lfts *t, const vt_fabric *f, vt_err *e)
{
	size_t n;

	t->nsw = f->nswitches;
	t->nlid = f->max_lid + 1;
	n = (size_t)t->nsw * t->nlid;
	t->port = malloc(n ? n : 1);
	if (!t->port)
		return vt_err_nomem(e, "out of memory for %u forwarding tables", t->nsw);
	memset(t->port, VT_LFT_NONE, n);
	return 0;
}

void vt_lfts_free(vt_lfts *t)
{
	free(t->port);
	t->port = NULL;
	t->nsw = t->nlid = 0;
}

#define HOPS_UNKNOWN UINT32_MAX
#define HOPS_NONE    (UINT32_MAX - 1) /* no arrival, or a loop */

/*
 * Hops from switch s to lid's port through t, memoised in h (HOPS_UNKNOWN
 * where not yet known): the walk stops at a switch already known, and every
 * switch it crossed then learns its own count. stack holds nswitches.
 */
static uint32_t hops_from(const vt_fabric *f, const vt_lfts *t, uint32_t lid, uint32_t s,
			  uint32_t *h, uint32_t *stack)
{
	uint32_t n = 0, w = s, end;

	if (h[s] != HOPS_UNKNOWN)
		return h[s];
	while (h[w] == HOPS_UNKNOWN) {
		const struct vt_node *nd = &f->nodes[f->switches[w]];
		unsigned p = vt_lft_get(t, w, lid);
		uint32_t q;

		h[w] = HOPS_NONE; /* on the walk: met again, a loop */
		stack[n++] = w;
		if (p == 0 || p > nd->nports || (q = f->ports[nd->first_port + p].peer) == VT_NONE)
			break;
		if (f->nodes[f->ports[q].node].type != VT_SWITCH) {
			h[w] = q == f->lid_port[lid] ? 1 : HOPS_NONE;
			break;
		}
		w = f->nodes[f->ports[q].node].sw;
	}
	/* the last switch walked: its own count, or one more than a switch known before the walk */
	end = stack[n - 1] == w || h[w] >= HOPS_NONE ? h[stack[n - 1]] : h[w] + 1;
	for (uint32_t i = n; i-- > 0; end = end < HOPS_NONE ? end + 1 : end)
		h[stack[i]] = end;
	return h[s];
}

int64_t vt_lfts_longer(const vt_fabric *f, const vt_lfts *a, const vt_lfts *b)
{
	uint32_t *ha = malloc(((size_t)f->nswitches + 1) * sizeof(*ha));
	uint32_t *hb = malloc(((size_t)f->nswitches + 1) * sizeof(*hb));
	uint32_t *stack = malloc(((size_t)f->nswitches + 1) * sizeof(*stack));
	int64_t n = 0;

	if (!ha || !hb || !stack)
		n = -1;
	for (uint32_t lid = 1; n >= 0 && lid < a->nlid && lid < b->nlid; lid++) {
		uint32_t q = f->lid_port[lid];

		if (q == VT_NONE || f->nodes[f->ports[q].node].type == VT_SWITCH)
			continue;
		for (uint32_t s = 0; s < f->nswitches; s++)
			ha[s] = hb[s] = HOPS_UNKNOWN;
		for (uint32_t s = 0; s < f->nswitches; s++) {
			uint32_t x = hops_from(f, a, lid, s, ha, stack);
			uint32_t y = hops_from(f, b, lid, s, hb, stack);

			n += x < HOPS_NONE && y < HOPS_NONE && x > y;
		}
	}
	free(ha);
	free(hb);
	free(stack);
	return n;
}
