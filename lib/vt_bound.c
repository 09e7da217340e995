/* SPDX-License-Identifier: MIT */
/* Cut lower bounds per stage (see vt_bound.h). */
#include "vt_bound.h"

#include <stdlib.h>
#include <string.h>

void vt_cuts_free(vt_cuts *c)
{
	free(c->member);
	free(c->links);
	memset(c, 0, sizeof(*c));
}

static int cuts_alloc(vt_cuts *c, uint32_t n, uint32_t nlevels, uint32_t ncuts, vt_err *e)
{
	memset(c, 0, sizeof(*c));
	c->n = n;
	c->nlevels = nlevels;
	c->ncuts = ncuts;
	c->member = malloc(((size_t)n * nlevels + 1) * sizeof(*c->member));
	c->links = calloc((size_t)ncuts + 1, sizeof(*c->links));
	if (!c->member || !c->links) {
		vt_cuts_free(c);
		return vt_err_set(e, "out of memory");
	}
	memset(c->member, 0xff, ((size_t)n * nlevels) * sizeof(*c->member));
	return 0;
}

int vt_cuts_leaf(vt_cuts *c, const vt_routes *r, vt_err *e)
{
	const vt_fabric *f = r->f;

	if (cuts_alloc(c, r->n, 1, r->nsw, e))
		return -1;
	for (uint32_t s = 0; s < r->nsw; s++) {
		uint32_t node = f->switches[s];
		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t q = vt_port(f, node, p)->peer;
			if (q != VT_NONE && f->nodes[f->ports[q].node].type == VT_SWITCH &&
			    f->ports[q].node != node)
				c->links[s]++;
		}
	}
	for (uint32_t a = 0; a < r->n; a++)
		c->member[a] = r->rank_sw[a];
	return 0;
}

int vt_cuts_tree(vt_cuts *c, const vt_routes *r, const vt_tree *t, vt_err *e)
{
	uint32_t nl = t->nlevels > 1 ? t->nlevels - 1 : 1;

	if (cuts_alloc(c, r->n, nl, t->nsubs, e))
		return -1;
	for (uint32_t i = 0; i < t->nsubs; i++)
		c->links[i] = t->subs[i].nup;
	for (uint32_t l = 0; l < nl; l++)
		for (uint32_t a = 0; a < r->n; a++) {
			uint32_t sw = r->rank_sw[a];
			if (sw != VT_NONE && t->level[sw] <= l)
				c->member[(size_t)l * r->n + a] = t->sub[(size_t)l * t->nsw + sw];
		}
	return 0;
}

static uint32_t ceil_div(uint32_t a, uint32_t b)
{
	return (a + b - 1) / b;
}

uint32_t vt_bound_stage(const vt_cuts *c, const struct vt_flow *fl, uint32_t nfl, uint32_t *scratch)
{
	uint32_t n = c->n, m = c->ncuts > n ? c->ncuts : n, best = nfl ? 1 : 0;
	uint32_t *out = scratch, *in = scratch + m;

	/* a host is a cut of one link each way */
	memset(scratch, 0, 2 * (size_t)m * sizeof(*scratch));
	for (uint32_t i = 0; i < nfl; i++) {
		out[fl[i].src]++;
		in[fl[i].dst]++;
	}
	for (uint32_t a = 0; a < n; a++) {
		if (out[a] > best)
			best = out[a];
		if (in[a] > best)
			best = in[a];
	}
	for (uint32_t l = 0; l < c->nlevels; l++) {
		const uint32_t *mem = c->member + (size_t)l * n;
		memset(scratch, 0, 2 * (size_t)m * sizeof(*scratch));
		for (uint32_t i = 0; i < nfl; i++) {
			uint32_t x = mem[fl[i].src], y = mem[fl[i].dst];
			if (x == y)
				continue;
			if (x != VT_NONE)
				out[x]++;
			if (y != VT_NONE)
				in[y]++;
		}
		for (uint32_t k = 0; k < c->ncuts; k++) {
			if (!c->links[k])
				continue;
			uint32_t b = ceil_div(out[k] > in[k] ? out[k] : in[k], c->links[k]);
			if (b > best)
				best = b;
		}
	}
	return best;
}
