/* SPDX-License-Identifier: MIT */
/* After a heal: the previous tables kept where they serve the fabric no worse (vt_route_heal.h). */
#include "repair/vt_route_heal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repair/vt_route_guard.h"
#include "repair/vt_route_repair_stats.h"

/*
 * prev as the fabric's tables into t->port (the entries of LIDs that left
 * take the fresh, empty ones): 0; 1 when some switch has no entry for a LID
 * still in the fabric (a LID or switch came back: prev cannot stay).
 */
static int prev_whole(const vt_fabric *f, const vt_lfts *prev, const vt_lfts *fresh, vt_lfts *t)
{
	for (uint32_t s = 0; s < t->nsw; s++) {
		const uint8_t *a = vt_lft_row(prev, s), *b = vt_lft_row(fresh, s);
		uint8_t *o = t->port + (size_t)s * t->nlid;

		for (uint32_t lid = 0; lid < t->nlid; lid++) {
			int in = lid <= f->max_lid && f->lid_port[lid] != VT_NONE;

			o[lid] = in ? a[lid] : b[lid];
			if (in && lid && a[lid] == VT_LFT_NONE)
				return 1;
		}
	}
	return 0;
}

/* Appends "; ", a and b to st->why (why the previous or the fresh tables stay). */
static void say_why(struct vt_repair_stats *st, const char *a, const char *b)
{
	size_t n = strlen(st->why);

	if (n + 2 < sizeof(st->why))
		snprintf(st->why + n, sizeof(st->why) - n, "; %s%s", a, b);
}

/* The switch behind port p of switch s, VT_NONE for none or a CA. */
static uint32_t next_sw(const vt_fabric *f, uint32_t s, unsigned p)
{
	const struct vt_node *n = &f->nodes[f->switches[s]];
	uint32_t q;

	if (p == 0 || p > n->nports || (q = f->ports[n->first_port + p].peer) == VT_NONE)
		return VT_NONE;
	return f->nodes[f->ports[q].node].sw;
}

/*
 * Does the fresh route from s to lid cross a gained port (at[s] memo: 0
 * unknown, 1 yes, 2 no)? Iterative: the route is followed to its first known
 * switch, then every switch on it takes the answer.
 */
static int crosses(const vt_fabric *f, const vt_lfts *fresh, const uint8_t *gained, uint32_t s,
		   uint32_t lid, uint8_t *at)
{
	uint32_t x = s, hops = 0;
	uint8_t v = 2;

	while (x != VT_NONE && !at[x] && hops++ <= f->nswitches) {
		unsigned p = vt_lft_get(fresh, x, lid);

		if (p != VT_LFT_NONE && gained[(size_t)x * 256 + p]) {
			v = 1;
			break;
		}
		x = p == VT_LFT_NONE ? VT_NONE : next_sw(f, x, p);
	}
	if (x != VT_NONE && at[x])
		v = at[x];
	for (x = s, hops = 0; x != VT_NONE && !at[x] && hops++ <= f->nswitches;) {
		unsigned p = vt_lft_get(fresh, x, lid);

		at[x] = v;
		if (p == VT_LFT_NONE || (v == 1 && gained[(size_t)x * 256 + p]))
			break;
		x = next_sw(f, x, p);
	}
	return at[s] == 1;
}

/*
 * The healed part into t: for each LID, the switches whose fresh route
 * crosses a port no previous entry of its switch used (the link or switch
 * back) take the fresh entries along that route to the LID; the others keep
 * the previous ones, which now may lead into such a route and follow it (no
 * loop: a fresh route stays among the switches that take fresh entries).
 * gained, at, lids: scratch. 0 when nothing was taken.
 */
static int take_healed(const vt_fabric *f, const vt_lfts *prev, const vt_lfts *fresh, vt_lfts *t,
		       uint8_t *gained, uint8_t *at, uint8_t *lids)
{
	int any = 0;

	memset(gained, 0, (size_t)t->nsw * 256);
	memset(lids, 0, t->nlid); /* the LIDs some fresh entry sends through what came back */
	for (uint32_t s = 0; s < t->nsw; s++) {
		const uint8_t *a = vt_lft_row(prev, s), *b = vt_lft_row(fresh, s);
		uint8_t used[256] = {0};

		for (uint32_t lid = 0; lid < t->nlid; lid++)
			used[a[lid]] = 1;
		for (uint32_t lid = 1; lid < t->nlid; lid++)
			if (b[lid] != VT_LFT_NONE && !used[b[lid]])
				any = lids[lid] = gained[(size_t)s * 256 + b[lid]] = 1;
	}
	for (uint32_t lid = 1; any && lid < t->nlid; lid++) {
		if (!lids[lid])
			continue; /* no fresh route to it crosses what came back */
		memset(at, 0, t->nsw);
		for (uint32_t s = 0; s < t->nsw; s++) {
			uint32_t x = s, hops = 0;

			if (!crosses(f, fresh, gained, s, lid, at))
				continue;
			/* s and the rest of its fresh route take the fresh entries */
			while (x != VT_NONE && hops++ <= f->nswitches &&
			       vt_lft_get(t, x, lid) != vt_lft_get(fresh, x, lid)) {
				vt_lft_set(t, x, lid, vt_lft_get(fresh, x, lid));
				x = next_sw(f, x, vt_lft_get(fresh, x, lid));
			}
		}
	}
	return any;
}

/* 1: t serves no worse than the fresh tables; 0 (why says why not); -1. */
static int serves(struct repair_guard *g, const vt_lfts *t, enum vt_repair_policy policy, char *why,
		  size_t len, uint64_t *longer, vt_err *e)
{
	int64_t nl = vt_lfts_longer(g->f, t, g->fresh);
	int bad;

	if (nl < 0)
		return vt_err_nomem(e, "out of memory");
	*longer = (uint64_t)nl;
	if (nl && policy == VT_REPAIR_MINIMAL) {
		snprintf(why, len, "they route %lld entries in more hops", (long long)nl);
		return 0;
	}
	/* the guard first: it is what refuses a full heal, and costs less than the audit */
	bad = vt_repair_guard_worse(g, t, why, len, e);
	if (!bad)
		bad = vt_repair_audit_worse(g->f, t, g->fresh, why, len, e);
	return bad < 0 ? -1 : !bad;
}

/*
 * Are tables t (prev with the healed part fresh) no nearer prev than the fresh
 * tables (entries)? Then the heal brings back the fabric the fresh tables were
 * made for, and they cost at most twice t's changes: a whole heal gives them
 * (fat 8,3, a level-1 switch's up-link back: 98 entries from prev, 56 from the
 * fresh, original tables; a link back while three faults stay on pruned 36,3:
 * 343 from prev, 1738 or more from fresh).
 */
static int nearer_fresh(const vt_fabric *f, const vt_lfts *prev, const vt_lfts *fresh,
			const vt_lfts *t, char *why, size_t len)
{
	uint64_t from_prev, from_fresh, blocks;

	vt_repair_count_changes(f, prev, t, &from_prev, &blocks);
	vt_repair_count_changes(f, fresh, t, &from_fresh, &blocks);
	if (from_fresh > from_prev)
		return 0;
	snprintf(why, len,
		 "with the fresh routes through what came back they are %llu entries from "
		 "the fresh tables and %llu from the previous ones (a whole heal)",
		 (unsigned long long)from_fresh, (unsigned long long)from_prev);
	return 1;
}

/*
 * prev whole (in t), else prev with the healed part fresh, into t if either
 * serves. The whole heal is told first (nearer_fresh: table scans only), so
 * it costs no shift count and gives the fresh tables even where prev would
 * serve as well.
 */
static int try_keep(const vt_fabric *f, const vt_lfts *prev, const vt_lfts *fresh,
		    const vt_order *order, enum vt_repair_policy policy, vt_lfts *t,
		    uint64_t *longer, int *part, char *why, size_t len, vt_err *e)
{
	struct repair_guard g = {.f = f, .fresh = fresh, .order = order};
	size_t n = (size_t)t->nsw * t->nlid;
	uint8_t *gained = malloc((size_t)t->nsw * 256 + 1), *at = malloc((size_t)t->nsw + 1);
	uint8_t *lids = malloc((size_t)t->nlid + 1);
	vt_lfts h = *t;
	int rc = -1;

	h.port = malloc(n + 1);
	*part = 0;
	if (gained && at && lids && h.port) {
		memcpy(h.port, t->port, n);
		*part = take_healed(f, prev, fresh, &h, gained, at, lids);
		if (*part && nearer_fresh(f, prev, fresh, &h, why, len))
			rc = 0;
		else if ((rc = serves(&g, t, policy, why, len, longer, e)) != 0)
			*part = 0; /* prev whole serves (or out of memory) */
		else if (*part && (rc = serves(&g, &h, policy, why, len, longer, e)) == 1)
			memcpy(t->port, h.port, n);
	}
	vt_repair_guard_free(&g);
	free(gained);
	free(at);
	free(lids);
	free(h.port);
	if (!gained || !at || !lids || !h.port)
		return vt_err_nomem(e, "out of memory");
	return rc;
}

int vt_repair_heal_keep(const vt_fabric *f, const vt_lfts *prev, vt_lfts *lfts,
			const vt_order *order, enum vt_repair_policy policy,
			struct vt_repair_stats *st, vt_err *e)
{
	vt_lfts t = *lfts;
	char why[VT_ERR_MAX] = "";
	uint64_t longer = 0;
	int rc, part;

	if (!order || order->n < 2)
		return 0;
	t.port = malloc((size_t)t.nsw * t.nlid + 1);
	if (!t.port)
		return vt_err_nomem(e, "out of memory");
	if (prev_whole(f, prev, lfts, &t)) {
		free(t.port);
		return 0; /* the heal's part is needed: prev does not reach all */
	}
	rc = try_keep(f, prev, lfts, order, policy, &t, &longer, &part, why, sizeof(why), e);
	if (rc <= 0) {
		free(t.port);
		if (rc == 0)
			say_why(st, "previous tables not kept: ", why);
		return rc;
	}
	st->mode = VT_REPAIR_KEPT;
	st->longer = longer;
	vt_repair_count_changes(f, prev, &t, &st->changed, &st->blocks);
	say_why(st,
		part ? "the previous tables with the fresh routes through what came back"
		     : "the previous tables",
		" serve it no worse than fresh ones");
	free(lfts->port);
	lfts->port = t.port;
	return 1;
}

/*
 * Did a LID that prev routes leave the fabric (a host's link or a leaf down;
 * a switch whose loss left no entry of prev without its link is a leaf)?
 * Then the ranks of the fresh routing's order are not those prev was
 * balanced for.
 */
static int lid_left(const vt_fabric *f, const vt_lfts *prev)
{
	for (uint32_t lid = 1; lid < prev->nlid; lid++) {
		if (lid <= f->max_lid && f->lid_port[lid] != VT_NONE)
			continue;
		for (uint32_t s = 0; s < prev->nsw; s++)
			if (vt_lft_get(prev, s, lid) != VT_LFT_NONE)
				return 1;
	}
	return 0;
}

/*
 * prev whole (t) congests shift over order's ranks more than the fresh
 * tables: 1; 0; -1. Asked only where a LID left: prev's balance was for the
 * ranks before (fat 4,3 with aggregation nodes, a leaf down: shift worst 3
 * against fresh 2; slender 4:2,3, a host's link down: average 5.29 against
 * 4.77).
 */
static int unchanged_worse(const vt_fabric *f, const vt_lfts *prev, const vt_lfts *t,
			   const vt_lfts *fresh, const vt_order *order, vt_err *e)
{
	struct repair_guard g = {.f = f, .fresh = fresh, .order = order};
	char why[VT_ERR_MAX];
	int bad;

	if (!order || order->n < 2 || !lid_left(f, prev))
		return 0;
	bad = vt_repair_guard_worse(&g, t, why, sizeof(why), e);
	vt_repair_guard_free(&g);
	return bad;
}

/*
 * Nothing a previous entry uses was lost and nothing was gained (a port that
 * flapped back before the sweep, or a sweep with no change): the previous
 * tables still route every LID as they did, with their own turns, so every
 * candidate would keep them all. They stand without the candidates, the guard
 * and the audit, which cost many fresh routes (pruned 36,12: 0.37 s against
 * 0.03 s): 1 when so (lfts then holds them), 0 when the repair must run, -1.
 * VT_REPAIR_MINIMAL takes them only where no CA route is longer than fresh
 * (previous tables from a guarded repair may hold such routes); where a CA
 * left, the guard judges them first (unchanged_worse).
 */
int vt_repair_keep_unchanged(const vt_fabric *f, const vt_lfts *prev, vt_lfts *lfts,
			     const vt_order *order, enum vt_repair_policy policy,
			     struct vt_repair_stats *st, vt_err *e)
{
	vt_lfts t = *lfts;
	int64_t nl = 0; /* first: a reason to repair; then the longer CA routes */

	if (st->fresh_changed == 0) /* the fresh tables are the previous ones */
		return 1;
	if (st->minimum)
		return 0;
	t.port = malloc((size_t)t.nsw * t.nlid + 1);
	if (!t.port)
		return vt_err_nomem(e, "out of memory");
	for (uint32_t s = 0; s < t.nsw && nl == 0; s++) {
		const uint8_t *a = vt_lft_row(prev, s), *b = vt_lft_row(lfts, s);
		uint8_t *o = t.port + (size_t)s * t.nlid;

		/* LIDs that left keep the fresh (empty) entry */
		for (uint32_t lid = 0; lid < t.nlid; lid++)
			o[lid] = f->lid_port[lid] == VT_NONE ? b[lid] : a[lid];
		/* a LID the fresh tables cannot reach from s any more: not unchanged */
		for (uint32_t lid = 1; lid < t.nlid; lid++)
			nl |= f->lid_port[lid] != VT_NONE && b[lid] == VT_LFT_NONE &&
			      a[lid] != VT_LFT_NONE;
	}
	if (!nl && policy != VT_REPAIR_FEWEST)
		nl = unchanged_worse(f, prev, &t, lfts, order, e);
	if (!nl && ((nl = vt_lfts_longer(f, &t, lfts)) < 0 || !nl || policy != VT_REPAIR_MINIMAL)) {
		if (nl < 0) {
			free(t.port);
			return vt_err_nomem(e, "out of memory");
		}
		st->longer = (uint64_t)nl;
		vt_repair_count_changes(f, prev, &t, &st->changed, &st->blocks);
		free(lfts->port);
		lfts->port = t.port;
		return 1;
	}
	free(t.port);
	return nl < 0 ? vt_err_nomem(e, "out of memory") : 0;
}
