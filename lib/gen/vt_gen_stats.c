/* SPDX-License-Identifier: MIT */
/* Counts, levels, bisection (max-flow min-cut, base/vt_maxflow.h) and the Navaridas et al. cost of
 * a fabric. */
#include "gen/vt_gen.h"

#include <stdlib.h>
#include <string.h>

#include "base/vt_maxflow.h"

#define INF_CAP 0x3fffffff

/*
 * A SHArP Aggregation Node is a CA on every switch but not a host: it would
 * make every switch host-facing. Loaded fabrics keep no device id, so its
 * description tells too.
 */
static int is_host(const vt_fabric *f, uint32_t n)
{
	const struct vt_node *nd = &f->nodes[n];

	return nd->type != VT_SWITCH && nd->devid != 0xcf09 &&
	       strcmp(nd->desc, "Mellanox Technologies Aggregation Node") != 0;
}

/* Hosts in leaf order: switches in record order, CA neighbours in port order. */
static uint32_t host_rank(const vt_fabric *f, uint32_t *rank)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < f->nnodes; i++)
		rank[i] = VT_NONE;
	for (uint32_t k = 0; k < f->nswitches; k++) {
		uint32_t sw = f->switches[k];

		for (unsigned p = 1; p <= f->nodes[sw].nports; p++) {
			uint32_t h = vt_peer_node(f, vt_port_index(f, sw, p));

			if (h != VT_NONE && is_host(f, h) && rank[h] == VT_NONE)
				rank[h] = n++;
		}
	}
	return n;
}

static uint32_t bisection(const vt_fabric *f, uint32_t *rank)
{
	vt_maxflow g;
	uint32_t nh = host_rank(f, rank), links = vt_fabric_count_links(f), res;
	uint32_t src = f->nnodes, snk = f->nnodes + 1;

	if (nh < 2 || vt_maxflow_init(&g, (size_t)f->nnodes + 2, 2 * ((size_t)links + nh)))
		return 0;
	vt_maxflow_reset(&g, f->nnodes + 2);
	for (uint32_t i = 0; i < f->nports; i++) {
		uint32_t q = f->ports[i].peer;

		/* an undirected unit link: both arcs of the pair carry capacity 1 */
		if (q != VT_NONE && i < q)
			vt_maxflow_arc(&g, f->ports[i].node, f->ports[q].node, 1, 1);
	}
	for (uint32_t h = 0; h < f->nnodes; h++)
		if (rank[h] != VT_NONE) {
			if (rank[h] < nh / 2)
				vt_maxflow_arc(&g, src, h, INF_CAP, 0);
			else
				vt_maxflow_arc(&g, h, snk, INF_CAP, 0);
		}
	res = (uint32_t)vt_maxflow_run(&g, src, snk, UINT64_MAX);
	vt_maxflow_free(&g);
	return res;
}

/* Switch levels by breadth-first search from the host-facing switches. */
static uint32_t levels(const vt_fabric *f, uint32_t *dist)
{
	uint32_t *q = malloc((f->nnodes + 1) * sizeof(*q)), qh = 0, qt = 0, top = 0;

	if (!q)
		return 0;
	for (uint32_t i = 0; i < f->nnodes; i++)
		dist[i] = VT_NONE;
	for (uint32_t k = 0; k < f->nswitches; k++) {
		uint32_t sw = f->switches[k];

		for (unsigned p = 1; p <= f->nodes[sw].nports; p++) {
			uint32_t h = vt_peer_node(f, vt_port_index(f, sw, p));

			if (h != VT_NONE && is_host(f, h)) {
				dist[sw] = 0;
				q[qt++] = sw;
				break;
			}
		}
	}
	while (qh < qt) {
		uint32_t u = q[qh++];

		if (dist[u] + 1 > top)
			top = dist[u] + 1;
		for (unsigned p = 1; p <= f->nodes[u].nports; p++) {
			uint32_t v = vt_peer_node(f, vt_port_index(f, u, p));

			if (v != VT_NONE && f->nodes[v].type == VT_SWITCH && dist[v] == VT_NONE) {
				dist[v] = dist[u] + 1;
				q[qt++] = v;
			}
		}
	}
	free(q);
	return top;
}

/* Navaridas et al. 5.1: a link costs $150 (25 m), a 16-port switch $5625, growing with ports^2 */
#define LINK_COST 150.0

static double switch_cost(unsigned nports)
{
	return 5625.0 / 256.0 * nports * nports;
}

int vt_gen_stats(const vt_fabric *f, struct vt_gen_stats *st)
{
	uint32_t *tmp = malloc((f->nnodes + 1) * sizeof(*tmp));
	double swcost = 0;

	memset(st, 0, sizeof(*st));
	if (!tmp)
		return -1;
	st->links = vt_fabric_count_links(f);
	for (uint32_t n = 0; n < f->nnodes; n++) {
		const struct vt_node *nd = &f->nodes[n];
		uint32_t used = 0;

		for (unsigned p = 1; p <= nd->nports; p++)
			used += vt_port(f, n, p)->peer != VT_NONE;
		if (nd->type != VT_SWITCH) {
			st->hosts += is_host(f, n);
			st->host_ports += is_host(f, n) ? used : 0;
			st->aggregation += !is_host(f, n);
			continue;
		}
		st->switches++;
		if (nd->nports > st->radix)
			st->radix = nd->nports;
		if (used > st->radix_used)
			st->radix_used = used;
		swcost += switch_cost(nd->nports);
	}
	st->levels = levels(f, tmp);
	st->bisection = bisection(f, tmp);
	st->cost = LINK_COST * st->links + swcost;
	st->cost_per_host = st->hosts ? st->cost / st->hosts : 0;
	free(tmp);
	return 0;
}

/*
 * Marks the switches above the used hosts: each host's own switches, then
 * upwards level by level, so a switch is used when a used host lies below it.
 */
static void mark_up(const vt_fabric *f, const uint32_t *dist, uint8_t *used, uint32_t *q)
{
	uint32_t qh = 0, qt = 0;

	for (uint32_t h = 0; h < f->nnodes; h++) {
		if (!used[h] || f->nodes[h].type == VT_SWITCH)
			continue;
		for (unsigned p = 1; p <= f->nodes[h].nports; p++) {
			uint32_t sw = vt_peer_node(f, vt_port_index(f, h, p));

			if (sw != VT_NONE && f->nodes[sw].type == VT_SWITCH && !used[sw]) {
				used[sw] = 1;
				q[qt++] = sw;
			}
		}
	}
	while (qh < qt) {
		uint32_t u = q[qh++];

		for (unsigned p = 1; p <= f->nodes[u].nports; p++) {
			uint32_t v = vt_peer_node(f, vt_port_index(f, u, p));

			if (v != VT_NONE && f->nodes[v].type == VT_SWITCH && !used[v] &&
			    dist[v] != VT_NONE && dist[v] == dist[u] + 1) {
				used[v] = 1;
				q[qt++] = v;
			}
		}
	}
}

int vt_gen_stats_used(const vt_fabric *f, uint32_t k, struct vt_gen_stats *st, vt_err *e)
{
	uint32_t *rank = malloc((f->nnodes + 1) * sizeof(*rank));
	uint32_t *dist = malloc((f->nnodes + 1) * sizeof(*dist));
	uint8_t *used = calloc(f->nnodes + 1, 1);
	uint32_t nh, first;
	int rc = -1;

	if (!rank || !dist || !used) {
		vt_err_nomem(e, "out of memory");
		goto out;
	}
	nh = host_rank(f, rank);
	if (k < 1 || k > nh) {
		vt_err_set(e, "--used %u: the fabric has %u hosts", k, nh);
		goto out;
	}
	levels(f, dist);
	first = (nh - k) / 2;
	for (uint32_t n = 0; n < f->nnodes; n++)
		used[n] = rank[n] != VT_NONE && rank[n] >= first && rank[n] < first + k;
	mark_up(f, dist, used, rank); /* rank is free now: the queue */
	st->used_hosts = k;
	st->used_switches = st->used_links = 0;
	st->used_cost = 0;
	for (uint32_t n = 0; n < f->nnodes; n++)
		if (used[n] && f->nodes[n].type == VT_SWITCH) {
			st->used_switches++;
			st->used_cost += switch_cost(f->nodes[n].nports);
		}
	for (uint32_t i = 0; i < f->nports; i++) {
		uint32_t q = f->ports[i].peer;

		if (q != VT_NONE && i < q && used[f->ports[i].node] && used[f->ports[q].node])
			st->used_links++;
	}
	st->used_cost += LINK_COST * st->used_links;
	st->used_cost_per_host = st->used_cost / k;
	rc = 0;
out:
	free(rank);
	free(dist);
	free(used);
	return rc;
}
