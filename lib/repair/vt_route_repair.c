/* SPDX-License-Identifier: MIT */
/*
 * Fewest table changes after a fault (vt_route.h): the fresh routing of the
 * degraded fabric decides only where the previous sweep's entry no longer
 * serves. Per LID, the fresh tables are a forest of routes into the LID; a
 * previous entry replaces a fresh one when the route it starts, followed
 * through the tables as they stand, reaches the LID without coming back, is
 * no longer than the route it replaces (VT_REPAIR_MINIMAL), and makes no
 * down-up turn the fresh tables do not make themselves. Every switch's route
 * then still ends at the LID (only the changed switch's route changed, and it
 * was checked), no route grows, and the turns are the fresh routing's, whose
 * turn order (vt_route_turn.c) keeps them free of credit loops; the
 * every-source audit has the last word all the same. Entries are tried until
 * none more can be kept (one that loops now may not once a switch on its way
 * has gone back to its old port).

 * Where the previous entry cannot stay its port is chosen again
 * (vt_route_repair_rebalance.c).
 */
#include "route/vt_route.h"
#include "repair/vt_repair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vt_mem.h"
#include "repair/vt_route_guard.h"
#include "repair/vt_route_guard_kept.h"
#include "repair/vt_route_heal.h"
#include "repair/vt_route_repair_forced_lids.h"
#include "repair/vt_route_repair_int.h"
#include "repair/vt_route_repair_stats.h"

static int hop_dir(const struct repair *r, uint32_t a, uint32_t b)
{
	if (r->level[a] == VT_TREE_OUTSIDE || r->level[b] == VT_TREE_OUTSIDE ||
	    r->level[a] == r->level[b])
		return HOP_SIDE;
	return r->level[b] > r->level[a] ? HOP_UP : HOP_DOWN;
}

/* A turn that may close a credit loop: into x other than up, out of x other than down. */
static int is_turn(int in, int out)
{
	return in != HOP_UP && out != HOP_DOWN;
}

/*
 * Do ports a and b of switch s lead to the same switch? Turns are judged by
 * switches: parallel links between two switches carry the same turns (a
 * credit loop over one of them would be one over the switches).
 */
static int same_hop(const struct repair *r, uint32_t s, unsigned a, unsigned b)
{
	uint32_t x;

	return a == b || ((x = sw_peer(r, s, a)) != VT_NONE && x == sw_peer(r, s, b));
}

/* Does switch s forward lid as the fresh tables do (port given when s is being tried)? */
static int as_fresh(const struct repair *r, uint32_t s, uint32_t lid, unsigned port)
{
	return same_hop(r, s, port, vt_lft_get(r->fresh, s, lid));
}

/* As the previous tables do? */
static int as_prev(const struct repair *r, uint32_t s, uint32_t lid, unsigned port)
{
	return same_hop(r, s, port, vt_lft_get(r->prev, s, lid));
}

/*
 * May a route that reaches x from w (w forwarding through wport) turn there,
 * leaving x through xport? Where the fresh tables make the same turn (w and x
 * forward as fresh), or the previous ones and the candidate allows theirs.
 * Asked at a turn only: the tables are read then, not at every hop.
 */
static int turn_allowed(struct repair *r, uint32_t w, unsigned wport, uint32_t x, uint32_t lid,
			unsigned xport)
{
	if (as_fresh(r, w, lid, wport) && as_fresh(r, x, lid, xport))
		return 1;
	if (!as_prev(r, w, lid, wport) || !as_prev(r, x, lid, xport))
		return 0;
	r->differs |= DIFF_TURNS;
	return r->how.prev_turns;
}

/*
 * May a route to switch LID lid, entering x going down (in) and leaving it
 * going up (out), turn there because some route of the previous or the fresh
 * tables to a switch LID turns there (r->turn_set)? Switch LIDs only: their
 * routes carry management traffic, not the CA traffic the guard counts, so
 * the CA columns, and shift, stay as they are. Where such a turn is at the
 * previous turn leaf, not in the fresh routing's turn set, the every-source
 * audit decides (vt_route_repair_sure.c's argument needs one turn set), and
 * a candidate it refuses is built again without them (strict_turns). The
 * first level-1 switch down (the turn leaf's up-link) breaks every switch
 * route that turned at the old turn leaf through it: kept, they turn there
 * again over another up-link (pruned 36,12: 18989 -> 16728 entries, 11964
 * forced). The thinning pass (vt_route_repair_thin.c, r->ca_turn_set) lets
 * CA LIDs' routes turn so too: its shift guard counts what they load.
 */
static int turn_in_set(struct repair *r, uint32_t x, uint32_t lid, int in, int out)
{
	if ((r->ca[lid] && !r->ca_turn_set) || in != HOP_DOWN || out != HOP_UP ||
	    !vt_repair_turn_switch(r, x))
		return 0;
	r->differs |= DIFF_TURN_SET;
	return !r->how.strict_turns;
}

/*
 * Hops from switch s through port `port` to the LID's port, following the
 * tables; VT_NONE when the route does not arrive, comes back to s, or turns
 * down-up where neither allowed routing (turn_allowed) does.
 */
static uint32_t follow(struct repair *r, uint32_t s, uint32_t lid, unsigned port)
{
	uint32_t end = r->end_sw[lid], w = s, x, hops = 0, lim = r->f->nswitches;
	unsigned wport = port, end_port = r->end_port[lid];
	const uint8_t *col = r->t->port + lid; /* r->t's column: col[x * nlid] */
	size_t nlid = r->t->nlid;

	if (port == 0)
		return s == end && end_port == 0 ? 0 : VT_NONE;
	for (;;) {
		unsigned xport;
		uint32_t next;
		int in;

		if ((x = sw_peer(r, w, wport)) == VT_NONE) /* the CA's link, or none */
			return w == end && wport == end_port ? hops + 1 : VT_NONE;
		if (x == s || ++hops > lim)
			return VT_NONE;
		if ((xport = col[x * nlid]) == 0)
			return x == end && end_port == 0 ? hops : VT_NONE;
		in = hop_dir(r, w, x);
		if ((next = sw_peer(r, x, xport)) != VT_NONE && is_turn(in, hop_dir(r, x, next)) &&
		    !turn_allowed(r, w, wport, x, lid, xport) &&
		    !turn_in_set(r, x, lid, in, hop_dir(r, x, next)))
			return VT_NONE;
		w = x;
		wport = xport;
	}
}

/* Would s, forwarding lid through port, turn down-up a route another switch sends into it? */
static int turns_at(struct repair *r, uint32_t s, uint32_t lid, unsigned port)
{
	const struct vt_node *n = sw_node(r, s);
	uint32_t next = sw_peer(r, s, port);
	int out;

	if (next == VT_NONE || !is_turn(HOP_DOWN, out = hop_dir(r, s, next)))
		return 0;
	for (unsigned p = 1; p <= n->nports; p++) {
		uint32_t w = sw_peer(r, s, p);
		unsigned wport;

		if (w == VT_NONE || hop_dir(r, w, s) == HOP_UP)
			continue;
		wport = r->back[(size_t)s * r->stride + p];
		if (vt_lft_get(r->t, w, lid) == wport && !turn_allowed(r, w, wport, s, lid, port) &&
		    !turn_in_set(r, s, lid, hop_dir(r, w, s), out))
			return 1;
	}
	return 0;
}

/*
 * Switch s takes port for lid if every route stays whole, no longer, and
 * without a new turn. Routes to a switch LID may grow (policy): they carry
 * management traffic, not the CA-to-CA traffic whose congestion the length
 * rule protects, and the turn leaf's detours often find another way of the
 * same or one more hop after a fault (pruned 36,6 without its last leaf: 102
 * entries changed for nothing else).
 */
/*
 * Switch s takes port for lid if every route stays whole, no longer, and
 * without a new turn (try_port); *nowp: the hops of s's route as it stands,
 * VT_REPAIR_HOPS_UNKNOWN until followed (the same while only s's entry is tried).
 */
int vt_repair_try_port_at(struct repair *r, uint32_t s, uint32_t lid, unsigned port, uint32_t *nowp)
{
	uint32_t now = *nowp == VT_REPAIR_HOPS_UNKNOWN
			       ? (*nowp = follow(r, s, lid, vt_lft_get(r->t, s, lid)))
			       : *nowp;
	uint32_t h = follow(r, s, lid, port);
	int any_length =
		r->policy == VT_REPAIR_FEWEST || !r->ca[lid] || vt_forced_any_length(r, lid);

	if (h == VT_NONE)
		return 0;
	if (r->grew && (now == VT_NONE || h > now))
		r->grew[lid] = 1; /* maybe: the checks below may still refuse it */
	if (!any_length && now != VT_NONE && h > now) { /* longer only */
		if (r->met)
			r->met[lid] = 1; /* here alone a run with the other `longer` may differ */
		if (!r->how.longer) {
			r->differs |= DIFF_LONGER; /* maybe: turns_at was not asked */
			return 0;
		}
		if (turns_at(r, s, lid, port))
			return 0;
		r->differs |= DIFF_LONGER;
	} else if (turns_at(r, s, lid, port))
		return 0;
	vt_lft_set(r->t, s, lid, (uint8_t)port);
	return 1;
}

static int try_port(struct repair *r, uint32_t s, uint32_t lid, unsigned port)
{
	uint32_t now = VT_REPAIR_HOPS_UNKNOWN;

	return vt_repair_try_port_at(r, s, lid, port, &now);
}

/*
 * The previous entries of one LID kept where they serve; off: only at the
 * switches CA traffic to lid does not cross (r->used_now). An entry that
 * holds prev's port already is not tried: try_port would at most set it
 * again, and the others see the same tables (the forced-lids candidates
 * hold most previous entries before this: pruned 36,12, a level-1 switch
 * down, some 190,000 pending entries, two routes followed each).
 */
static void keep_lid(struct repair *r, uint32_t lid, int off)
{
	uint32_t n = 0;
	int progress = 1, fixes = vt_forced_fixes(r);

	for (size_t i = r->pend_at[lid]; i < r->pend_at[lid + 1]; i++) {
		uint32_t s = r->pend_sw[i];
		size_t b = (size_t)s * r->t->nlid + lid;

		if ((!off || !bit(r->used_now, b)) && !(fixes && bit(r->fixed, b)) &&
		    r->t->port[b] != r->prev->port[b])
			r->pend[n++] = s;
	}
	while (progress && n) {
		uint32_t m = 0;

		progress = 0;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t s = r->pend[i];

			if (try_port(r, s, lid, vt_lft_get(r->prev, s, lid)))
				progress = 1;
			else
				r->pend[m++] = s;
		}
		n = m;
	}
}

/*
 * The CA LIDs' previous entries kept at the switches their CA traffic does
 * not cross under the fresh entries. The switches it crosses are closed under
 * following the tables (a crossed switch forwards to a crossed one), so their
 * routes, and every CA-to-CA path, stay the fresh ones: shift congestion is
 * the fresh tables' exactly. Off those paths a previous entry stays as in
 * keep_lid (whole, no longer, no new turn), which is where a fresh route
 * moves most entries it need not move (a level-1 switch down: the top
 * switches' and other pods' entries towards the hosts below it).
 */
static void keep_off_path(struct repair *r)
{
	vt_repair_mark_now(r);
	for (uint32_t lid = 1; lid < r->t->nlid; lid++)
		if (r->ca[lid] && r->f->lid_port[lid] != VT_NONE)
			keep_lid(r, lid, 1);
}

/*
 * Does a run of candidate a, which met the decisions `differs` says, make the
 * same decisions as one of b (whole run: rebalance too, else keep_lid's part)?
 */
int vt_repair_same_run(struct repair_try a, unsigned differs, struct repair_try b, int whole)
{
	int ra = a.rebalance, rb = b.rebalance;

	return a.ca_fresh == b.ca_fresh && a.forced_lids == b.forced_lids &&
	       (a.strict_turns == b.strict_turns || !(differs & DIFF_TURN_SET)) &&
	       (a.prev_turns == b.prev_turns || !(differs & DIFF_TURNS)) &&
	       (a.longer == b.longer || !(differs & DIFF_LONGER)) &&
	       (!whole || ra == rb ||
		(!(differs & DIFF_NEW) && (ra == REB_CHANGED || ra == REB_NEW) &&
		 (rb == REB_CHANGED || rb == REB_NEW)));
}

/*
 * keep_lid for lid in the run so far: its differs bits also into *calm where
 * no route longer than the current one came up in it (r->met).
 */
static void keep_lid_calm(struct repair *r, uint32_t lid, unsigned *calm)
{
	unsigned before = r->differs;

	r->differs = 0;
	keep_lid(r, lid, 0);
	if (!r->met || !r->met[lid])
		*calm |= r->differs;
	r->differs |= before;
}

/*
 * The kept part (keep_lid's) of r->how from r->kept, a run of the same
 * candidate but for `longer`: keep_lid decides alike for a LID where no
 * route longer than the current one came up (r->kept_met clear: the only
 * decision `longer` takes, try_port_at), so only the others are kept again,
 * from the fresh tables' column (pruned 36,12, a level-1 switch down: 18 of
 * 4429 LIDs, where the whole keep_lid part cost 10-40 ms). Its bits into
 * r->differs and *calm as a whole run's.
 */
static void keep_other_length(struct repair *r, unsigned *calm)
{
	uint32_t nlid = r->t->nlid;

	memcpy(r->t->port, r->kept, (size_t)r->t->nsw * nlid);
	memset(r->met, 0, nlid);
	r->differs = *calm = r->kept_calm;
	for (uint32_t lid = 1; lid < nlid; lid++) {
		if (!r->kept_met[lid] || r->f->lid_port[lid] == VT_NONE)
			continue;
		for (uint32_t s = 0; s < r->t->nsw; s++)
			vt_lft_set(r->t, s, lid, vt_lft_get(r->fresh, s, lid));
		keep_lid_calm(r, lid, calm);
	}
}

/* Can r->how's kept part come from r->kept's by keep_other_length? */
static int other_length(const struct repair *r)
{
	return r->have_kept && r->met && r->kept_met && !r->how.ca_fresh && !r->kept_how.ca_fresh &&
	       r->how.prev_turns == r->kept_how.prev_turns &&
	       r->how.strict_turns == r->kept_how.strict_turns &&
	       r->how.longer != r->kept_how.longer;
}

/*
 * keep_lid for the switch LIDs of a forced-lids candidate, which moves CA
 * LIDs' entries alone (vt_route_repair_forced_lids.h): their columns are
 * still the fresh tables', and keep_lid decides a column from that column,
 * the fresh and previous ones and the turn settings alone, so where r->kept
 * was kept with the same turn settings its switch LIDs' columns are the
 * ones keep_lid would make, and are copied. Its turn-set bit comes with them
 * (turn_in_set sets it for switch LIDs only; a later audit refusal reads
 * it). Pruned 36,36 with the turn leaf's up-link down: three forced-lids
 * candidates, 0.10 s of each one's 0.22-0.34 s build in its switch LIDs'
 * keep_lid. 1 when copied, 0 when the caller keeps them.
 */
static int kept_switch_lids(struct repair *r)
{
	uint32_t nlid = r->t->nlid;

	if (!r->have_kept || r->kept_how.prev_turns != r->how.prev_turns ||
	    r->kept_how.strict_turns != r->how.strict_turns)
		return 0;
	for (uint32_t s = 0; s < r->t->nsw; s++) {
		uint8_t *row = r->t->port + (size_t)s * nlid;
		const uint8_t *kept = r->kept + (size_t)s * nlid;

		for (uint32_t i = 0; i < r->nsw_lid; i++)
			row[r->sw_lid[i]] = kept[r->sw_lid[i]];
	}
	r->differs |= r->kept_differs & DIFF_TURN_SET;
	return 1;
}

/*
 * One candidate into r->t (r->how): the fresh tables with the previous
 * entries kept where they serve, and the ports of the entries that changed
 * chosen again (rebalance_all), unless the CA LIDs' entries stay fresh (the
 * only ones CA-to-CA traffic reads, so shift congestion is the fresh tables').
 */
int vt_repair_run(struct repair *r)
{
	size_t n = (size_t)r->t->nsw * r->t->nlid;
	unsigned calm = 0;

	r->differs = 0;
	if (r->how.forced_lids) {
		int sw_done;

		memcpy(r->t->port, r->fresh->port, n);
		r->at_kept = 0;
		if (vt_repair_forced_lids(r))
			return -1;
		sw_done = kept_switch_lids(r);
		for (uint32_t lid = 1; lid < r->t->nlid; lid++)
			if (r->f->lid_port[lid] != VT_NONE && (r->ca[lid] || !sw_done))
				keep_lid(r, lid, 0);
		return 0;
	}
	r->at_kept = r->kept != NULL;
	if (r->have_kept && vt_repair_same_run(r->kept_how, r->kept_differs, r->how, 0)) {
		memcpy(r->t->port, r->kept, n); /* keep_lid's part is that candidate's */
		r->differs = r->kept_differs;
	} else {
		if (other_length(r)) {
			keep_other_length(r, &calm);
		} else {
			memcpy(r->t->port, r->fresh->port, n);
			if (r->met)
				memset(r->met, 0, r->t->nlid);
			for (uint32_t lid = 1; lid < r->t->nlid; lid++)
				if (r->f->lid_port[lid] != VT_NONE &&
				    !(r->how.ca_fresh && r->ca[lid]))
					keep_lid_calm(r, lid, &calm);
		}
		if (r->kept) {
			memcpy(r->kept, r->t->port, n);
			r->kept_how = r->how;
			r->kept_differs = r->differs;
			r->have_kept = 1;
			r->kept_gen++;
			r->kept_used_ok = 0;
			if (r->kept_cnt)
				memset(r->kept_cnt, 0, r->t->nsw);
			r->kept_calm = calm;
			if (r->met && r->kept_met)
				memcpy(r->kept_met, r->met, r->t->nlid);
		}
	}
	if (!r->how.ca_fresh && r->how.rebalance != REB_NONE)
		vt_repair_rebalance_all(r);
	if (r->how.ca_fresh && r->how.off_path)
		keep_off_path(r);
	return 0;
}

/*
 * r->level: the fresh routing's own tree levels where it proved its tables
 * (the trees it routed, those vt_repair_sure reads), else the trees built
 * again (vt_repair_tree_levels: some 3 ms of pruned 36,12's repair).
 */
static int levels(struct repair *r, vt_err *e)
{
	if (r->proof && r->proof->sure && r->proof->level) {
		memcpy(r->level, r->proof->level, r->f->nswitches);
		return 0;
	}
	return vt_repair_tree_levels(r->f, r->level, e);
}

/* What vt_route_repair allocated in r but r->t's port and r->grew. */
static void scratch_free(struct repair *r)
{
	free(r->level);
	free(r->pend);
	free(r->used_prev);
	free(r->used_now);
	free(r->reb);
	free(r->fixed);
	free(r->differ);
	free(r->met);
	free(r->kept_met);
	free(r->gap0);
	vt_repair_tables_free(r);
}

int vt_route_repair(const vt_fabric *f, const vt_lfts *prev, vt_lfts *lfts, const vt_order *order,
		    const struct vt_route_proof *proof, enum vt_repair_policy policy,
		    struct vt_repair_stats *st, vt_err *e)
{
	return vt_route_repair_kept(f, prev, lfts, order, proof, policy, NULL, st, e);
}

int vt_route_repair_kept(const vt_fabric *f, const vt_lfts *prev, vt_lfts *lfts,
			 const vt_order *order, const struct vt_route_proof *proof,
			 enum vt_repair_policy policy, struct vt_guard_kept *kept,
			 struct vt_repair_stats *st, vt_err *e)
{
	vt_lfts t = *lfts;
	struct repair r = {
		.f = f, .prev = prev, .fresh = lfts, .t = &t, .policy = policy, .proof = proof};
	size_t n = (size_t)t.nsw * t.nlid;
	uint64_t changed = 0, blocks = 0;
	uint8_t *grew;
	double t0;
	int bad;
	struct repair_guard g = {.f = f, .fresh = lfts, .order = order, .kept = kept};

	memset(st, 0, sizeof(*st));
	if (prev->nsw != lfts->nsw || prev->nlid != lfts->nlid)
		return vt_err_set(e, "previous tables do not fit the fabric");
	t0 = vt_repair_cpu();
	vt_repair_count_changes(f, prev, lfts, &st->fresh_changed, &st->fresh_blocks);
	st->minimum = vt_repair_forced_lost(f, prev);
	st->changed = st->fresh_changed;
	st->blocks = st->fresh_blocks;
	if (vt_repair_gained(f, prev, lfts, st->why, sizeof(st->why))) {
		st->mode = VT_REPAIR_HEALED;
		return vt_repair_heal_keep(f, prev, lfts, order, policy, st, e) < 0 ? -1 : 0;
	}
	if ((bad = vt_repair_keep_unchanged(f, prev, lfts, order, policy, st, e)))
		return bad < 0 ? -1 : 0;
	t.port = vt_alloc_big(n); /* the repaired tables, and below a copy and a count */
	g.level = r.level = malloc((size_t)f->nswitches + 1); /* g reads it after levels() */
	r.pend = malloc(((size_t)f->nswitches + 1) * sizeof(*r.pend));
	r.used_prev = calloc(n / 8 + BITS_SLACK, 1); /* slack: bits64 */
	r.used_now = calloc(n / 8 + BITS_SLACK, 1);
	r.reb = malloc(((size_t)t.nlid + 1) * sizeof(*r.reb));
	r.fixed = malloc(n / 8 + 1);
	r.differ = malloc((size_t)t.nlid + 1);	/* optional: NULL, every LID followed */
	r.grew = calloc((size_t)t.nlid + 1, 1); /* optional: NULL, every LID looked at */
	r.met = malloc((size_t)t.nlid + 1);	/* optional: NULL, each kept part from fresh */
	r.kept_met = malloc((size_t)t.nlid + 1);
	st->mode = VT_REPAIR_DONE;
	/*
	 * the guard's count of the fresh tables (vt_route_guard_ahead.c) started
	 * before the tables every candidate reads are built (vt_repair_tables,
	 * levels): the first candidates wait for it
	 */
	if (policy != VT_REPAIR_FEWEST && !(kept && kept->count))
		vt_repair_guard_ahead(&g); /* kept: the fresh tables counted if needed only */
	if (!t.port || !r.level || !r.pend || !r.used_prev || !r.used_now || !r.reb || !r.fixed ||
	    vt_repair_tables(&r, order))
		bad = vt_err_nomem(e, "out of memory");
	else
		bad = levels(&r, e);
	st->nsteps = 1;
	snprintf(st->step[0].what, sizeof(st->step[0].what), "tables");
	st->step[0].verdict = ' ';
	st->step[0].build = vt_repair_cpu() - t0;
	if (!bad)
		bad = vt_repair_candidates(&r, &g, st, &changed, &blocks, e);
	vt_repair_guard_free(&g);
	scratch_free(&r);
	grew = r.grew;
	if (bad) {
		free(t.port);
		free(grew);
		if (bad < 0)
			return -1;
		st->mode = VT_REPAIR_REFUSED;
		return 0;
	}
	if (policy != VT_REPAIR_MINIMAL) {
		int64_t nl = vt_lfts_longer_in(f, &t, lfts, grew);

		if (nl < 0) {
			free(t.port);
			free(grew);
			return vt_err_nomem(e, "out of memory");
		}
		st->longer = (uint64_t)nl;
	}
	free(grew);
	free(lfts->port);
	lfts->port = t.port;
	st->changed = changed;
	st->blocks = blocks;
	return 0;
}
