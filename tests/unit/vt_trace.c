/* SPDX-License-Identifier: MIT */
#include "vt_trace.h"

#include <stdlib.h>
#include <string.h>

static int owns(const vt_fabric *f, uint32_t q, uint32_t dlid)
{
	const struct vt_port *p = &f->ports[q];

	return p->lid && dlid >= p->lid && dlid < p->lid + (1u << p->lmc);
}

/* Walks a flow from CA port a to dlid; adds 1 to load[] of every channel. */
static int walk(const vt_fabric *f, const vt_lfts *t, uint32_t a, uint32_t dlid, uint32_t *load)
{
	uint32_t q = a;
	int hops = 0;

	for (;;) {
		uint32_t in = f->ports[q].peer, node;
		uint8_t out;

		if (load)
			load[q]++;
		if (in == VT_NONE)
			return -1;
		node = f->ports[in].node;
		if (f->nodes[node].type != VT_SWITCH)
			return owns(f, in, dlid) ? hops : -1;
		if (++hops > 64)
			return -1;
		out = vt_lft_get(t, f->nodes[node].sw, dlid);
		if (out == 0) /* a switch's own LID ends at its port 0 */
			return owns(f, vt_port_index(f, node, 0), dlid) ? hops : -1;
		if (out == VT_LFT_NONE || out > f->nodes[node].nports)
			return -1;
		q = vt_port_index(f, node, out);
	}
}

int vt_trace_path(const vt_fabric *f, const vt_lfts *t, uint32_t a, uint32_t dlid)
{
	return walk(f, t, a, dlid, NULL);
}

static uint32_t find(uint32_t *uf, uint32_t x)
{
	while (uf[x] != x)
		x = uf[x] = uf[uf[x]];
	return x;
}

static uint32_t sw_of_rank(const vt_fabric *f, const vt_order *o, uint32_t i)
{
	return o->port[i] == VT_NONE ? VT_NONE
				     : f->nodes[f->ports[f->ports[o->port[i]].peer].node].sw;
}

/* The switch index at the far end of port p of node, or VT_NONE if no switch is there. */
static uint32_t peer_switch(const vt_fabric *f, uint32_t node, unsigned p)
{
	uint32_t pe = f->ports[vt_port_index(f, node, p)].peer;

	if (pe == VT_NONE || f->nodes[f->ports[pe].node].type != VT_SWITCH)
		return VT_NONE;
	return f->nodes[f->ports[pe].node].sw;
}

/* Hops from the nearest switch a rank hangs off, per switch (VT_NONE: unreached); the most. */
static uint32_t hops_from_hosts(const vt_fabric *f, const vt_order *o, uint32_t *dist)
{
	uint32_t ns = f->nswitches, maxd = 0, nq = 0, *q = malloc(ns * sizeof(*q));

	memset(dist, 0xff, ns * sizeof(*dist));
	for (uint32_t i = 0; i < o->n; i++) {
		uint32_t s = sw_of_rank(f, o, i);

		if (s != VT_NONE && dist[s]) {
			dist[s] = 0;
			q[nq++] = s;
		}
	}
	for (uint32_t h = 0; h < nq; h++) {
		uint32_t node = f->switches[q[h]];

		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t r = peer_switch(f, node, p);

			if (r != VT_NONE && dist[r] == VT_NONE) {
				dist[r] = dist[q[h]] + 1;
				maxd = dist[r] > maxd ? dist[r] : maxd;
				q[nq++] = r;
			}
		}
	}
	free(q);
	return maxd;
}

/*
 * The components of the switches within l hops of the hosts (union-find uf) and, per
 * component root, its links out to switches farther away (nup).
 */
static void components_within(const vt_fabric *f, const uint32_t *dist, uint32_t l, uint32_t *uf,
			      uint32_t *nup)
{
	uint32_t ns = f->nswitches;

	for (uint32_t s = 0; s < ns; s++) {
		uf[s] = s;
		nup[s] = 0;
	}
	for (uint32_t s = 0; s < ns; s++) {
		uint32_t node = f->switches[s];

		for (unsigned p = 1; dist[s] <= l && p <= f->nodes[node].nports; p++) {
			uint32_t r = peer_switch(f, node, p);

			if (r != VT_NONE && dist[r] <= l)
				uf[find(uf, r)] = find(uf, s);
		}
	}
	for (uint32_t s = 0; s < ns; s++) {
		uint32_t node = f->switches[s];

		for (unsigned p = 1; dist[s] <= l && p <= f->nodes[node].nports; p++) {
			uint32_t r = peer_switch(f, node, p);

			if (r != VT_NONE && dist[r] > l)
				nup[find(uf, s)]++;
		}
	}
}

/* Raises bound[st] to ceil(flows across / links out) of every component (comp per rank). */
static void stage_cut_bounds(uint32_t n, uint32_t ns, const uint32_t *comp, const uint32_t *nup,
			     uint32_t *bound)
{
	uint32_t *cnt = malloc(ns * sizeof(*cnt)), *cin = malloc(ns * sizeof(*cin));

	for (uint32_t st = 1; st < n; st++) {
		memset(cnt, 0, ns * sizeof(*cnt));
		memset(cin, 0, ns * sizeof(*cin));
		for (uint32_t i = 0; i < n; i++) {
			uint32_t j = (i + st) % n;

			if (comp[i] == VT_NONE || comp[j] == VT_NONE || comp[i] == comp[j])
				continue;
			cnt[comp[i]]++;
			cin[comp[j]]++;
		}
		for (uint32_t c = 0; c < ns; c++) {
			uint32_t m = cnt[c] > cin[c] ? cnt[c] : cin[c], b;

			if (!m || !nup[c])
				continue;
			b = (m + nup[c] - 1) / nup[c];
			if (b > bound[st])
				bound[st] = b;
		}
	}
	free(cnt);
	free(cin);
}

/*
 * Cut bound per stage: components of the switches within distance l of a
 * host switch, for every l; ceil(flows across / links out) for each.
 */
static uint32_t *cut_bounds(const vt_fabric *f, const vt_order *o)
{
	uint32_t ns = f->nswitches, n = o->n;
	uint32_t *dist = malloc(ns * sizeof(*dist)), *uf = malloc(ns * sizeof(*uf));
	uint32_t *nup = malloc(ns * sizeof(*nup)), *comp = malloc(n * sizeof(*comp));
	uint32_t *bound = calloc(n, sizeof(*bound)), maxd = hops_from_hosts(f, o, dist);

	for (uint32_t l = 0; l < maxd; l++) {
		components_within(f, dist, l, uf, nup);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t s = sw_of_rank(f, o, i);

			comp[i] = s == VT_NONE ? VT_NONE : find(uf, s);
		}
		stage_cut_bounds(n, ns, comp, nup, bound);
	}
	free(dist);
	free(uf);
	free(nup);
	free(comp);
	return bound;
}

int vt_trace_shift(const vt_fabric *f, const vt_lfts *t, const vt_order *o,
		   struct vt_trace_shift *r)
{
	uint32_t *load = calloc(f->nports, sizeof(*load)), *bound = cut_bounds(f, o);
	double sum = 0, bsum = 0;

	memset(r, 0, sizeof(*r));
	r->max_load = calloc(f->nports, sizeof(*r->max_load));
	for (uint32_t s = 1; s < o->n; s++) {
		uint32_t worst = 0;

		memset(load, 0, f->nports * sizeof(*load));
		for (uint32_t i = 0; i < o->n; i++) {
			uint32_t j = (i + s) % o->n;

			if (o->port[i] == VT_NONE || o->port[j] == VT_NONE)
				continue;
			if (walk(f, t, o->port[i], f->ports[o->port[j]].lid, load) < 0)
				r->bad_paths++;
		}
		for (uint32_t q = 0; q < f->nports; q++) {
			if (load[q] > worst)
				worst = load[q];
			if (load[q] > r->max_load[q])
				r->max_load[q] = load[q];
		}
		if (bound[s] < 1)
			bound[s] = 1;
		r->stages++;
		sum += worst;
		bsum += bound[s];
		if (worst > r->worst)
			r->worst = worst;
		if (bound[s] > r->bound_worst)
			r->bound_worst = bound[s];
		if (worst > bound[s])
			r->over_bound++;
	}
	r->avg = r->stages ? sum / r->stages : 0;
	r->bound_avg = r->stages ? bsum / r->stages : 0;
	free(load);
	free(bound);
	return r->bad_paths ? -1 : 0;
}

void vt_trace_shift_free(struct vt_trace_shift *r)
{
	free(r->max_load);
	r->max_load = NULL;
}

/* Next channel of a route to lid entering switch port `in`, VT_NONE at the end. */
static uint32_t next_channel(const vt_fabric *f, const vt_lfts *t, uint32_t ch, uint32_t lid)
{
	uint32_t in = f->ports[ch].peer, node;
	uint8_t out;

	if (in == VT_NONE)
		return VT_NONE;
	node = f->ports[in].node;
	if (f->nodes[node].type != VT_SWITCH)
		return VT_NONE;
	out = vt_lft_get(t, f->nodes[node].sw, lid);
	if (out == VT_LFT_NONE || out == 0 || out > f->nodes[node].nports)
		return VT_NONE;
	return vt_port_index(f, node, out);
}

/*
 * The dependencies that traffic injected by CA ports creates: every route from
 * every CA port to every LID (switch LIDs too), each walked until it joins a
 * route to the same LID already walked. Switches that no such route enters
 * (detours for pairs without an up*-down* route) add nothing, as in the
 * analyzer's audit, whose walks start at the switches CAs are attached to.
 */
int vt_trace_cdg_acyclic(const vt_fabric *f, const vt_lfts *t)
{
	uint32_t nc = f->nports, ne = 0, cap = 1024, *deg = calloc(nc + 1, sizeof(*deg));
	uint32_t *ea = malloc(cap * sizeof(*ea)), *eb = malloc(cap * sizeof(*eb));
	uint32_t *start = calloc(nc + 2, sizeof(*start)), *adj, *q, nq = 0, done = 0;
	uint32_t *seen = calloc(f->nswitches + 1, sizeof(*seen));

	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		if (vt_fabric_port_by_lid(f, lid) == VT_NONE)
			continue;
		for (uint32_t a = 0; a < f->nports; a++) {
			uint32_t ch = a, hops = 0;

			if (f->nodes[f->ports[a].node].type == VT_SWITCH || !f->ports[a].num ||
			    f->ports[a].peer == VT_NONE)
				continue;
			for (;;) {
				uint32_t in = f->ports[ch].peer, node, b;

				node = f->ports[in].node;
				if (f->nodes[node].type != VT_SWITCH || ++hops > 64)
					break;
				b = next_channel(f, t, ch, lid);
				if (b == VT_NONE)
					break;
				if (ne == cap) {
					cap *= 2;
					ea = realloc(ea, cap * sizeof(*ea));
					eb = realloc(eb, cap * sizeof(*eb));
				}
				ea[ne] = ch;
				eb[ne++] = b;
				if (seen[f->nodes[node].sw] == lid)
					break;
				seen[f->nodes[node].sw] = lid;
				ch = b;
				if (f->ports[ch].peer == VT_NONE)
					break;
			}
		}
	}
	free(seen);
	for (uint32_t i = 0; i < ne; i++) {
		start[ea[i] + 1]++;
		deg[eb[i]]++;
	}
	for (uint32_t c = 0; c < nc; c++)
		start[c + 1] += start[c];
	adj = malloc((ne + 1) * sizeof(*adj));
	q = malloc((nc + 1) * sizeof(*q));
	{
		uint32_t *fill = calloc(nc + 1, sizeof(*fill));

		for (uint32_t i = 0; i < ne; i++)
			adj[start[ea[i]] + fill[ea[i]]++] = eb[i];
		free(fill);
	}
	for (uint32_t c = 0; c < nc; c++)
		if (!deg[c])
			q[nq++] = c;
	for (uint32_t h = 0; h < nq; h++) {
		uint32_t c = q[h];

		done++;
		for (uint32_t k = start[c]; k < start[c + 1]; k++)
			if (--deg[adj[k]] == 0)
				q[nq++] = adj[k];
	}
	free(deg);
	free(ea);
	free(eb);
	free(start);
	free(adj);
	free(q);
	return done == nc;
}
