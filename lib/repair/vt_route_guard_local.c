/* SPDX-License-Identifier: MIT */
/* Exact shift loads of a few links (vt_route_guard_local.h). */
#include "repair/vt_route_guard_local.h"

#include <stdlib.h>
#include <string.h>

void vt_link_loads_free(vt_link_loads *ll)
{
	free(ll->rank_lid);
	free(ll->lid_rank);
	free(ll->run_lo);
	free(ll->run_hi);
	free(ll->run_sw);
	free(ll->of_chan);
	free(ll->mark);
	free(ll->path);
	free(ll->open_d);
	free(ll->open_lo);
	free(ll->open_hi);
	free(ll->seen_a);
	free(ll->seen_b);
	memset(ll, 0, sizeof(*ll));
}

/* The switch a CA port hangs off, VT_NONE for none. */
static uint32_t ca_switch(const vt_fabric *f, uint32_t port)
{
	uint32_t q = port < f->nports ? f->ports[port].peer : VT_NONE;

	if (q == VT_NONE || f->nodes[f->ports[q].node].type != VT_SWITCH)
		return VT_NONE;
	return f->nodes[f->ports[q].node].sw;
}

/* Runs of consecutive ranks on one switch (the sources a walk starts from). */
static void find_runs(vt_link_loads *ll, const vt_order *o)
{
	ll->nruns = 0;
	for (uint32_t a = 0; a < ll->n; a++) {
		uint32_t sw = ll->rank_lid[a] == VT_NONE ? VT_NONE : ca_switch(ll->f, o->port[a]);
		uint32_t k = ll->nruns;

		if (sw == VT_NONE)
			continue;
		if (k && ll->run_sw[k - 1] == sw && ll->run_hi[k - 1] + 1 == a) {
			ll->run_hi[k - 1] = a;
			continue;
		}
		ll->run_lo[k] = ll->run_hi[k] = a;
		ll->run_sw[k] = sw;
		ll->nruns++;
	}
}

int vt_link_loads_init(vt_link_loads *ll, const vt_fabric *f, const vt_order *o, uint32_t nlid,
		       vt_err *e)
{
	uint32_t n = o->n, nsw = f->nswitches;
	size_t bits = ((size_t)nsw * nlid + 7) / 8 + 1;

	memset(ll, 0, sizeof(*ll));
	ll->f = f;
	ll->n = n;
	ll->nsw = nsw;
	ll->nlid = nlid;
	ll->rank_lid = malloc(((size_t)n + 1) * sizeof(uint32_t));
	ll->lid_rank = calloc((size_t)nlid + 1, 1);
	ll->run_lo = malloc(((size_t)n + 1) * sizeof(uint32_t));
	ll->run_hi = malloc(((size_t)n + 1) * sizeof(uint32_t));
	ll->run_sw = malloc(((size_t)n + 1) * sizeof(uint32_t));
	ll->of_chan = malloc(((size_t)f->nports + 1) * sizeof(uint32_t));
	ll->mark = calloc((size_t)nsw + 1, sizeof(uint32_t));
	ll->path = malloc(((size_t)nsw + 2) * sizeof(uint32_t));
	ll->seen_a = calloc(bits, 1);
	ll->seen_b = calloc(bits, 1);
	if (!ll->rank_lid || !ll->lid_rank || !ll->run_lo || !ll->run_hi || !ll->run_sw ||
	    !ll->of_chan || !ll->mark || !ll->path || !ll->seen_a || !ll->seen_b) {
		vt_link_loads_free(ll);
		return vt_err_nomem(e, "out of memory for the loads of %u ranks", n);
	}
	for (uint32_t c = 0; c < f->nports; c++)
		ll->of_chan[c] = VT_NONE;
	for (uint32_t a = 0; a < n; a++) {
		uint32_t p = o->port[a];

		ll->rank_lid[a] = p < f->nports && f->ports[p].lid && f->ports[p].lid < nlid
					  ? f->ports[p].lid
					  : VT_NONE;
		if (ll->rank_lid[a] != VT_NONE)
			ll->lid_rank[ll->rank_lid[a]] = 1;
	}
	find_runs(ll, o);
	return 0;
}

/*
 * The channel switch sw forwards lid through under x, VT_NONE where the
 * entry is none or its link is down; *next: the switch it leads to (VT_NONE:
 * a CA, where the path ends).
 */
static uint32_t out_chan(const vt_link_loads *ll, const vt_lfts *x, uint32_t sw, uint32_t lid,
			 uint32_t *next)
{
	const vt_fabric *f = ll->f;
	const struct vt_node *nd = &f->nodes[f->switches[sw]];
	unsigned p = vt_lft_row(x, sw)[lid];
	uint32_t c, q;

	if (p == 0 || p == VT_LFT_NONE || p > nd->nports)
		return VT_NONE;
	c = nd->first_port + p;
	if ((q = f->ports[c].peer) == VT_NONE)
		return VT_NONE;
	*next = f->nodes[f->ports[q].node].type == VT_SWITCH ? f->nodes[f->ports[q].node].sw
							     : VT_NONE;
	return c;
}

/* Marks in seen (bits per switch and LID) and in ll->of_chan the channels from sw on to lid. */
static void mark_way(vt_link_loads *ll, const vt_lfts *x, uint8_t *seen, uint32_t sw, uint32_t lid)
{
	for (uint32_t hops = 0; sw != VT_NONE && hops <= ll->nsw; hops++) {
		size_t b = (size_t)sw * ll->nlid + lid;
		uint32_t c, next = VT_NONE;

		if (seen[b >> 3] >> (b & 7) & 1)
			return; /* the rest of the way is marked */
		seen[b >> 3] |= (uint8_t)(1u << (b & 7));
		if ((c = out_chan(ll, x, sw, lid, &next)) == VT_NONE)
			return;
		ll->of_chan[c] = 0;
		sw = next;
	}
}

int vt_link_loads_changed(vt_link_loads *ll, const vt_lfts *a, const vt_lfts *b, uint32_t **chan,
			  uint32_t *nc, vt_err *e)
{
	const vt_fabric *f = ll->f;
	size_t bits = ((size_t)ll->nsw * ll->nlid + 7) / 8 + 1;
	uint32_t m = 0;

	memset(ll->seen_a, 0, bits);
	memset(ll->seen_b, 0, bits);
	/* row by row, as the tables lie in memory: a scan, then a walk per differing entry */
	for (uint32_t sw = 0; sw < ll->nsw; sw++) {
		const uint8_t *ra = vt_lft_row(a, sw), *rb = vt_lft_row(b, sw);

		for (uint32_t lid = 1; lid < ll->nlid; lid++)
			if (ra[lid] != rb[lid] && ll->lid_rank[lid]) {
				mark_way(ll, a, ll->seen_a, sw, lid);
				mark_way(ll, b, ll->seen_b, sw, lid);
			}
	}
	for (uint32_t c = 0; c < f->nports; c++)
		m += ll->of_chan[c] == 0;
	*nc = m;
	if (!(*chan = malloc(((size_t)m + 1) * sizeof(**chan)))) {
		for (uint32_t c = 0; c < f->nports; c++)
			ll->of_chan[c] = VT_NONE;
		return vt_err_nomem(e, "out of memory for %u links", m);
	}
	m = 0;
	for (uint32_t c = 0; c < f->nports; c++)
		if (ll->of_chan[c] == 0) {
			(*chan)[m++] = c;
			ll->of_chan[c] = VT_NONE;
		}
	return 0;
}

/* Stages d - hi .. d - lo (mod n) of row one more flow each: a difference array. */
static void range_add(uint32_t *row, uint32_t n, uint32_t d, uint32_t lo, uint32_t hi)
{
	uint32_t a = d >= hi ? d - hi : d + n - hi, end = a + (hi - lo + 1);

	row[a]++;
	if (end < n) {
		row[end]--;
	} else if (end > n) { /* wraps past stage n - 1 */
		row[0]++;
		row[end - n]--;
	}
}

/* Sources lo .. hi reach d over slot i's channel: extends its open run, or closes it. */
static void add_run(vt_link_loads *ll, uint32_t *load, uint32_t i, uint32_t d, uint32_t lo,
		    uint32_t hi)
{
	if (ll->open_d[i] == d + 1 && ll->open_hi[i] + 1 == lo) {
		ll->open_hi[i] = hi;
		return;
	}
	if (ll->open_d[i])
		range_add(load + (size_t)i * ll->n, ll->n, ll->open_d[i] - 1, ll->open_lo[i],
			  ll->open_hi[i]);
	ll->open_d[i] = d + 1;
	ll->open_lo[i] = lo;
	ll->open_hi[i] = hi;
}

/*
 * Destination rank d's flows on the counted channels: each run of sources
 * walks its path until a switch marked (this stamp) as leading on over no
 * counted channel; the switches after the last counted channel it crossed
 * are marked so.
 */
static void walk_dest(vt_link_loads *ll, const vt_lfts *x, uint32_t *load, uint32_t d)
{
	uint32_t lid = ll->rank_lid[d], st = ++ll->stamp;

	if (!st) { /* the stamps wrapped: clear the marks once */
		memset(ll->mark, 0, (size_t)ll->nsw * sizeof(*ll->mark));
		st = ll->stamp = 1;
	}
	for (uint32_t k = 0; k < ll->nruns; k++) {
		uint32_t sw = ll->run_sw[k], np = 0, clean = 0;

		for (uint32_t hops = 0; sw != VT_NONE && hops <= ll->nsw; hops++) {
			uint32_t c, i, next = VT_NONE;

			if (ll->mark[sw] == st)
				break;
			ll->path[np++] = sw;
			if ((c = out_chan(ll, x, sw, lid, &next)) == VT_NONE)
				break;
			if ((i = ll->of_chan[c]) != VT_NONE) {
				add_run(ll, load, i, d, ll->run_lo[k], ll->run_hi[k]);
				clean = np; /* path[clean ..] lead on over no counted channel */
			}
			sw = next;
		}
		while (np > clean)
			ll->mark[ll->path[--np]] = st;
	}
}

static int ensure_slots(vt_link_loads *ll, uint32_t nc, vt_err *e)
{
	if (nc <= ll->nslot)
		return 0;
	free(ll->open_d);
	free(ll->open_lo);
	free(ll->open_hi);
	ll->open_d = malloc(((size_t)nc + 1) * sizeof(uint32_t));
	ll->open_lo = malloc(((size_t)nc + 1) * sizeof(uint32_t));
	ll->open_hi = malloc(((size_t)nc + 1) * sizeof(uint32_t));
	ll->nslot = nc;
	if (!ll->open_d || !ll->open_lo || !ll->open_hi) {
		ll->nslot = 0;
		return vt_err_nomem(e, "out of memory for the loads of %u links", nc);
	}
	return 0;
}

int vt_link_loads_count(vt_link_loads *ll, const vt_lfts *x, const uint32_t *chan, uint32_t nc,
			uint32_t *load, vt_err *e)
{
	uint32_t n = ll->n;

	if (ensure_slots(ll, nc, e))
		return -1;
	memset(load, 0, (size_t)nc * n * sizeof(*load));
	memset(ll->open_d, 0, (size_t)nc * sizeof(uint32_t));
	for (uint32_t i = 0; i < nc; i++)
		ll->of_chan[chan[i]] = i;
	for (uint32_t d = 0; d < n; d++)
		if (ll->rank_lid[d] != VT_NONE)
			walk_dest(ll, x, load, d);
	for (uint32_t i = 0; i < nc; i++) {
		uint32_t *row = load + (size_t)i * n, sum = 0;

		ll->of_chan[chan[i]] = VT_NONE;
		if (ll->open_d[i])
			range_add(row, n, ll->open_d[i] - 1, ll->open_lo[i], ll->open_hi[i]);
		/* unsigned sums: the differences wrap, the prefix sums do not */
		for (uint32_t s = 0; s < n; s++)
			row[s] = sum += row[s];
		row[0] = 0; /* a rank's flow to itself is no flow */
	}
	return 0;
}
