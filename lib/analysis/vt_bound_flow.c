/* SPDX-License-Identifier: MIT */
/*
 * How many links a cut really offers (vt_bound.h): every flow leaving a
 * subtree crosses one of its up-links, but where the switches above are thin
 * (a link dropped between a level-1 switch and a top of a slender tree) fewer
 * links than the subtree's up-links separate its hosts from the others, and
 * a bound over the up-links alone is too low (slender 4:2,3 --drop-links 2@1:
 * a pod's 3 up-links, but 2 links separate it from the other pod, so 16
 * flows need 8 on some link, not 6). The cut's links are the fewest that
 * separate its hosts from the other hosts: a unit-capacity max flow over the
 * cables (each carries one flow per direction, and a cable's two directions
 * are alike, so the flow out equals the flow in), stopped at the up-links.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/vt_bound_int.h"

/* Has the cable from port qi room for one more flow out of it? */
static int room(const struct vt_cut_flow *cf, uint32_t qi)
{
	return cf->flow[qi] < 1;
}

/*
 * Dinic's levels: BFS hops from the sources (side 1) over cables with room,
 * into cf->via (VT_NONE: unreached). 1 when a sink (side 2) was reached.
 */
static int levels(const vt_fabric *f, struct vt_cut_flow *cf)
{
	uint32_t nq = 0, nsw = f->nswitches;
	int hit = 0;

	for (uint32_t s = 0; s < nsw; s++) {
		cf->via[s] = cf->side[s] == 1 ? 0 : VT_NONE;
		if (cf->side[s] == 1)
			cf->q[nq++] = s;
	}
	for (uint32_t h = 0; h < nq; h++) {
		uint32_t s = cf->q[h], node = f->switches[s];

		if (cf->side[s] == 2) {
			hit = 1;
			continue; /* paths end at the first sink */
		}
		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t qi = vt_port_index(f, node, p), r = vt_peer_switch(f, qi);

			if (r != VT_NONE && cf->via[r] == VT_NONE && room(cf, qi)) {
				cf->via[r] = cf->via[s] + 1;
				cf->q[nq++] = r;
			}
		}
	}
	return hit;
}

/*
 * One path from switch s down the levels to a sink, flow along it: 1 when
 * found. cf->next[s] is the port s tries next (ports that led nowhere are not
 * tried again in this phase). Recursion depth: the levels, at most the switches.
 */
static int push(const vt_fabric *f, struct vt_cut_flow *cf, uint32_t s)
{
	uint32_t node = f->switches[s];

	if (cf->side[s] == 2)
		return 1;
	for (; cf->next[s] <= f->nodes[node].nports; cf->next[s]++) {
		uint32_t qi = vt_port_index(f, node, cf->next[s]), r = vt_peer_switch(f, qi);

		if (r == VT_NONE || cf->via[r] != cf->via[s] + 1 || !room(cf, qi))
			continue;
		if (push(f, cf, r)) {
			cf->flow[qi]++;
			cf->flow[f->ports[qi].peer]--;
			return 1;
		}
	}
	return 0;
}

uint32_t vt_bound_cut_links(const vt_fabric *f, uint32_t most, struct vt_cut_flow *cf)
{
	uint32_t got = 0;

	memset(cf->flow, 0, f->nports * sizeof(*cf->flow));
	while (got < most && levels(f, cf)) {
		uint32_t before = got;

		for (uint32_t s = 0; s < f->nswitches; s++)
			cf->next[s] = 1;
		for (uint32_t s = 0; s < f->nswitches && got < most; s++)
			while (cf->side[s] == 1 && got < most && push(f, cf, s))
				got++;
		if (got == before)
			break; /* cannot happen: a phase that reached a sink pushes a path */
	}
	return got;
}

int vt_cut_flow_init(struct vt_cut_flow *cf, const vt_fabric *f)
{
	size_t nsw = (size_t)f->nswitches + 1;

	cf->flow = calloc((size_t)f->nports + 1, sizeof(*cf->flow));
	cf->q = malloc(nsw * sizeof(*cf->q));
	cf->via = malloc(nsw * sizeof(*cf->via));
	cf->next = malloc(nsw * sizeof(*cf->next));
	cf->side = malloc(nsw);
	if (cf->flow && cf->q && cf->via && cf->next && cf->side)
		return 0;
	vt_cut_flow_free(cf);
	return -1;
}

void vt_cut_flow_free(struct vt_cut_flow *cf)
{
	free(cf->flow);
	free(cf->q);
	free(cf->via);
	free(cf->next);
	free(cf->side);
	memset(cf, 0, sizeof(*cf));
}
