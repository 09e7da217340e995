/* SPDX-License-Identifier: MIT */
/*
 * The stage load of Algorithm 3's found window on split cores whose leaves
 * lost up-links (vt_route_found_window, vt_route_policy.c): per up-link of a
 * switch above the leaves, the flows the shift stages of the current
 * destination already send up it. Apart from the policy's other keys because
 * it walks flows through the routed tables, not the tree's lanes.
 */
#include <string.h>

#include "route/vt_route_int.h"
#include "route/vt_route_policy.h"

/* A destination routed already: its column in the batch, else NULL and the tables by lid. */
struct routed_col {
	const uint8_t *col;
	uint32_t lid;
};

static void routed_col(const struct router *r, uint32_t d, struct routed_col *rc)
{
	uint32_t q = r->t->order.port[d], i;

	rc->lid = q == VT_NONE ? 0 : r->f->ports[q].lid;
	rc->col = NULL;
	if (rc->lid && (i = r->batch.at[rc->lid]) < r->batch.n && r->batch.lid[i] == rc->lid)
		rc->col = r->batch.cols + (size_t)i * r->lfts->nsw;
}

static uint8_t col_entry(const struct router *r, const struct routed_col *rc, uint32_t s)
{
	return rc->col ? rc->col[s] : vt_lft_get(r->lfts, s, rc->lid);
}

/*
 * The switch at level lvl the flow from leaf L to the destination of rc goes
 * up through, its entry in *port; VT_NONE where the flow turns below lvl.
 */
static uint32_t flow_up_to(const struct router *r, const struct routed_col *rc, uint32_t L,
			   uint32_t lvl, uint8_t *port)
{
	const vt_tree *t = r->t;
	uint32_t s = L;

	while (t->level[s] < lvl) {
		uint8_t e = col_entry(r, rc, s);
		uint32_t j = t->up_start[s];

		while (j < t->up_start[s + 1] && t->up_port[j] != e)
			j++;
		if (j == t->up_start[s + 1])
			return VT_NONE;
		s = t->up_peer[j];
	}
	if (t->level[s] != lvl)
		return VT_NONE;
	*port = col_entry(r, rc, s);
	return s;
}

/* The ranks whose flows can go up through switch c: the hosts of the leaves below it. */
static uint32_t sources_below(const struct router *r, uint32_t c, uint32_t *src)
{
	const vt_tree *t = r->t;
	uint32_t m = 0;

	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++) {
		uint32_t L = t->by_level[i], id = t->sub[L];

		if (!vt_tree_bit(t, t->desc, c, L) || id == VT_NONE)
			continue;
		for (uint32_t k = 0; k < t->subs[id].nranks; k++) {
			uint32_t s = t->subs[id].first_rank + k;

			if (t->order.port[s] == VT_NONE)
				continue;
			if (m == VT_STAGE_SRC)
				return VT_NONE;
			src[m++] = s;
		}
	}
	return m;
}

/* Does a child of c reach it over two or more links? */
static int parallel_below(const vt_tree *t, uint32_t c)
{
	for (uint32_t k = t->dn_start[c] + 1; k < t->dn_start[c + 1]; k++)
		if (t->dn_peer[k] == t->dn_peer[k - 1])
			return 1;
	return 0;
}

/*
 * flow_up_to for the flow from leaf L to rank dd, remembered for the current
 * destination (struct route_flow_memo): stage_load asks again for the same
 * flows from each switch above the leaves with hosts in common.
 */
static uint32_t flow_memo_up_to(struct router *r, uint32_t dd, uint32_t L, uint32_t lvl,
				uint8_t *port)
{
	uint32_t h = (L * 0x9E3779B1u) ^ (lvl * 0xC2B2AE3Du); /* a leaf's ranks side by side */
	struct route_flow_memo *fm = &r->flow_memo[((h ^ (h >> 16)) + dd) & (VT_FLOW_MEMO - 1)];
	struct routed_col rc;

	if (fm->serial == r->main.serial && fm->leaf == L && fm->dd == dd && fm->level == lvl) {
		*port = fm->port;
		return fm->sw;
	}
	routed_col(r, dd, &rc);
	*fm = (struct route_flow_memo){r->main.serial, L, dd, VT_NONE, (uint8_t)lvl, 0};
	if (rc.lid)
		fm->sw = flow_up_to(r, &rc, L, lvl, &fm->port);
	*port = fm->port;
	return fm->sw;
}

/*
 * Switch c above the leaves, found over several parallel links to the main
 * route's parent (vt_route_upgoing.c), where some leaf lost up-links: the shift
 * stages in which a host below c sends to the current destination, each with
 * the flows of destinations routed already that the same stage sends from
 * below c up through c and out the up-link's port (their leaves' and c's
 * entries, as written). Packed: the most such flows in any of those stages,
 * times 4096, plus their sum; lower first. 0 where more than VT_STAGE_SRC
 * hosts are below c. Into w[j - up_start[c]] for every up-link j of c: a
 * flow is walked once for all of them.
 */
void vt_route_stage_load(struct router *r, uint32_t c, uint32_t *w)
{
	const vt_tree *t = r->t;
	uint32_t d = r->main.crank, n = t->order.n, m, src[VT_STAGE_SRC];
	uint32_t a0 = t->up_start[c], nu = t->up_start[c + 1] - a0;
	uint32_t most[VT_MAX_PORTS + 1] = {0}, sum[VT_MAX_PORTS + 1] = {0};
	uint32_t cnt[VT_MAX_PORTS + 2] = {0}; /* by port number; 255: no flow up through c */
	int par;

	memset(w, 0, nu * sizeof(*w));
	if (d == VT_NONE || !r->deg.stage_few[c] || (m = sources_below(r, c, src)) == VT_NONE)
		return;
	for (uint32_t a = 0; a < m; a++) {
		uint32_t k = d >= src[a] ? d - src[a] : d + n - src[a]; /* d, src[] below n */

		for (uint32_t b = 0; b < m; b++) {
			uint32_t dd = src[b] + k < n ? src[b] + k : src[b] + k - n;
			uint8_t pn;

			if (b != a && dd < d &&
			    flow_memo_up_to(r, dd, t->rank_leaf[src[b]], t->level[c], &pn) == c)
				cnt[pn]++;
		}
		for (uint32_t i = 0; i < nu; i++) {
			uint8_t pn = t->up_port[a0 + i];

			most[i] = cnt[pn] > most[i] ? cnt[pn] : most[i];
			sum[i] += cnt[pn];
			cnt[pn] = 0;
		}
	}
	/*
	 * Where c's children reach it over single links (a director's line
	 * ASICs), the sums mislead (cores 2,8,4,16,8 --drop-links 2@0: 2/1.95
	 * with them 3/2.08): only a stage that would carry three flows decides.
	 */
	par = parallel_below(t, c);
	for (uint32_t i = 0; i < nu; i++)
		w[i] = !par ? (most[i] >= 2 ? most[i] : 0)
			    : most[i] * 4096 + (sum[i] > 4095 ? 4095 : sum[i]);
}
