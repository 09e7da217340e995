/* SPDX-License-Identifier: MIT */
/*
 * Multi-rail fabrics (Wolfe et al.'s multi-plane fat-trees): each plane is
 * routed as its own tree (vt_route.c); here the planes are found and a
 * plane's host order derived from plane 0's.
 */
#include "route/vt_route.h"

#include <stdlib.h>
#include <string.h>

uint32_t vt_route_planes(const vt_fabric *f, uint32_t *plane)
{
	uint32_t nsw = f->nswitches, np = 0;
	uint32_t *q = malloc((nsw + 1) * sizeof(*q));

	if (!q)
		return VT_NONE;
	for (uint32_t s = 0; s < nsw; s++)
		plane[s] = VT_NONE;
	for (uint32_t n = 0; n < f->nnodes; n++) {
		if (f->nodes[n].type == VT_SWITCH)
			continue;
		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			uint32_t m = vt_peer_node(f, vt_port_index(f, n, p)), nq = 0;

			if (m == VT_NONE || f->nodes[m].type != VT_SWITCH ||
			    plane[f->nodes[m].sw] != VT_NONE)
				continue;
			/* a new plane: every switch linked to this one */
			plane[f->nodes[m].sw] = np;
			q[nq++] = f->nodes[m].sw;
			for (uint32_t h = 0; h < nq; h++) {
				uint32_t node = f->switches[q[h]];

				for (unsigned k = 1; k <= f->nodes[node].nports; k++) {
					uint32_t v = vt_peer_node(f, vt_port_index(f, node, k));

					if (v != VT_NONE && f->nodes[v].type == VT_SWITCH &&
					    plane[f->nodes[v].sw] == VT_NONE) {
						plane[f->nodes[v].sw] = np;
						q[nq++] = f->nodes[v].sw;
					}
				}
			}
			np++;
		}
	}
	free(q);
	return np;
}

int vt_route_plane_order(const vt_fabric *f, const vt_order *o, uint32_t plane, vt_order *out,
			 vt_err *e)
{
	uint32_t *pl = malloc((f->nswitches + 1) * sizeof(*pl));

	memset(out, 0, sizeof(*out));
	out->port = malloc((o->n + 1) * sizeof(*out->port));
	if (!pl || !out->port || vt_route_planes(f, pl) == VT_NONE) {
		free(pl);
		vt_order_free(out);
		return vt_err_nomem(e, "out of memory");
	}
	out->n = o->n;
	for (uint32_t i = 0; i < o->n; i++) {
		uint32_t n = o->port[i] == VT_NONE ? VT_NONE : f->ports[o->port[i]].node;

		out->port[i] = VT_NONE;
		for (unsigned p = 1; n != VT_NONE && p <= f->nodes[n].nports; p++) {
			uint32_t m = vt_peer_node(f, vt_port_index(f, n, p));

			if (m != VT_NONE && f->nodes[m].type == VT_SWITCH &&
			    pl[f->nodes[m].sw] == plane) {
				out->port[i] = vt_port_index(f, n, p);
				break;
			}
		}
	}
	free(pl);
	return 0;
}

uint32_t vt_route_plane_cas(const vt_fabric *f, const uint32_t *plane, uint32_t p)
{
	uint32_t n = 0;

	for (uint32_t c = 0; c < f->nnodes; c++) {
		int in = 0;

		for (unsigned k = 1; f->nodes[c].type != VT_SWITCH && k <= f->nodes[c].nports;
		     k++) {
			uint32_t m = vt_peer_node(f, vt_port_index(f, c, k));

			in |= m != VT_NONE && f->nodes[m].type == VT_SWITCH &&
			      plane[f->nodes[m].sw] != VT_NONE &&
			      (p == VT_NONE || plane[f->nodes[m].sw] == p);
		}
		n += (uint32_t)in;
	}
	return n;
}
