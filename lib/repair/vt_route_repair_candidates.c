/* SPDX-License-Identifier: MIT */
/*
 * The repair's candidates (policy over vt_route_repair.c's mechanism): which
 * repaired tables are built, in which order, and which of them stands once
 * the quality guard (vt_route_guard.h) and the audit have judged it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "repair/vt_route_forced.h"
#include "repair/vt_route_guard.h"
#include "repair/vt_route_repair_forced_lids.h"
#include "repair/vt_route_repair_int.h"
#include "repair/vt_route_repair_stats.h"
#include "repair/vt_route_repair_thin.h"
#include "route/vt_route.h"

double vt_repair_cpu(void)
{
	struct timespec ts;

	/* this thread's: the guard's counting thread (vt_route_guard_ahead.c) runs beside it */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *const reb_name[] = {"none", "changed", "new", "gap", "gap-levels"};

/* Candidate how's name (vartree-route -v's steps) into what. */
static void name_of(struct repair_try how, char *what, size_t len)
{
	if (how.forced_lids)
		snprintf(what, len, "forced-lids %u%s", how.forced_lids,
			 how.prev_turns ? " prev-turns" : "");
	else if (how.ca_fresh)
		snprintf(what, len, "ca-fresh%s", how.off_path ? " off-path" : "");
	else
		snprintf(what, len, "%s%s %s", how.prev_turns ? "prev-turns" : "fresh-turns",
			 how.longer ? " longer" : "", reb_name[how.rebalance]);
	if (how.strict_turns) /* built again without the turn set's turns (vt_route_repair.c) */
		snprintf(what + strlen(what), len - strlen(what), " strict");
}

/* A step for candidate how in st (NULL past VT_REPAIR_STEPS): its name, no times yet. */
static struct vt_repair_step *step_of(struct vt_repair_stats *st, struct repair_try how)
{
	struct vt_repair_step *s;

	if (st->nsteps >= VT_REPAIR_STEPS)
		return NULL;
	s = &st->step[st->nsteps++];
	memset(s, 0, sizeof(*s));
	s->verdict = ' ';
	name_of(how, s->what, sizeof(s->what));
	return s;
}

/* A refused step's why (vartree-route -vv), cut short where longer. */
static void step_why(struct vt_repair_step *sp, const char *why)
{
	size_t n = strnlen(why, sizeof(sp->why) - 1);

	memcpy(sp->why, why, n);
	sp->why[n] = 0;
}

/* The guard and the audit of r->t: 0, CAND_AUDIT or CAND_WORSE (why), -1; times into sp. */
static int judge(struct repair *r, struct repair_guard *g, struct vt_repair_stats *st,
		 struct vt_repair_step *sp, vt_err *e)
{
	double t0, t1, fresh_s = g->fresh_s;
	int bad = 0;

	t0 = vt_repair_cpu();
	/* the guard before the audit: most refusals are its, and it costs less */
	/* fewest trades quality for changes by definition: no shift guard */
	if (r->policy != VT_REPAIR_FEWEST && !r->how.ca_fresh &&
	    (bad = vt_repair_guard_worse(g, r->t, st->why, sizeof(st->why), e)))
		bad = bad > 0 ? CAND_WORSE : -1;
	t1 = vt_repair_cpu();
	/* the fresh tables' count, where this guard needed it: step 1 (vt_repair_candidates) */
	st->step[1].guard += g->fresh_s - fresh_s;
	if (sp) /* less that count where it ran on this thread, not ahead on the other */
		sp->guard = t1 - t0 - (g->fresh_ahead ? 0 : g->fresh_s - fresh_s);
	if (bad)
		return bad;
	if (!vt_repair_sure(r, r->t)) { /* else the fresh routing's proof holds for it */
		st->audits++;
		bad = vt_repair_audit_worse(r->f, r->t, r->fresh, st->why, sizeof(st->why), e);
		bad = bad > 0 ? CAND_AUDIT : bad;
	}
	if (sp)
		sp->audit = vt_repair_cpu() - t1;
	return bad;
}

/*
 * Builds candidate how and runs it through the audit and the guard: 0 when it
 * stands, CAND_AUDIT or CAND_WORSE (why) when refused, -1.
 */
static int candidate(struct repair *r, struct repair_try how, struct repair_guard *g,
		     struct vt_repair_stats *st, uint64_t *changed, uint64_t *blocks, vt_err *e)
{
	struct vt_repair_step *sp = step_of(st, how);
	double t0 = vt_repair_cpu();
	int bad;

	r->how = how;
	g->quick_refused = 0;
	if (vt_repair_run(r))
		return vt_err_nomem(e, "out of memory");
	vt_repair_count_changes(r->f, r->prev, r->t, changed, blocks);
	if (sp)
		sp->build = vt_repair_cpu() - t0;
	if (*changed > st->fresh_changed) {
		snprintf(st->why, sizeof(st->why),
			 "the repaired tables change more entries than the fresh ones");
		bad = CAND_WORSE;
	} else
		bad = judge(r, g, st, sp, e);
	if (sp && bad >= 0)
		sp->verdict = bad == 0 ? '+' : bad == CAND_AUDIT ? 'a' : 'w';
	if (sp && bad > 0)
		step_why(sp, st->why);
	if (bad == CAND_AUDIT && (r->differs & DIFF_TURN_SET) && !how.strict_turns) {
		how.strict_turns = 1; /* the turn set's turns may have closed the loop */
		return candidate(r, how, g, st, changed, blocks, e);
	}
	return bad;
}

/*
 * The candidates (policy), in the order of the entries they change, fewest
 * first, so the first that passes stands: CA routes that grew longer kept
 * (VT_REPAIR_GUARDED only: a leaf's up-link down on fat 8,3, 303 entries
 * minimal against 241 so, shift as fresh), then previous turns keep what fresh ones
 * keep and more; ports chosen again or left fresh change the same entries, and
 * the newly used entries add to them (by rank distance a few more, when the
 * traffic is counted again after each level: pruned 36,6 with a top switch
 * down passes only so). Fresh turns only after previous ones closed a credit
 * loop: otherwise both pass or fail the guard alike with as many changes
 * (every fault of tests/bench/churn.sh), and each candidate costs a repair,
 * an every-source audit and a shift count.
 *
 * Where they are refused (vartree-route -vv, pruned 36,12 and 36,36): a
 * level-1 switch down, the longer ones and those rebalancing none or by rank
 * gap load one link with 19 flows of a shift stage (against 2-3 fresh), the
 * routes of a pod's leaves down into the old turn leaf and up again; the
 * others 3-4, or the fresh worst with a higher average. Tried and left: to
 * refuse a candidate before its rebalance (most of its build) by counting
 * a stage over the routes whose every entry is still prev's (rebalance
 * leaves those), but no such route crosses that link: the entries down into
 * the turn leaf are the fresh routing's, which rebalance may move, and the
 * count found 1 flow a link at most.
 */
static const struct repair_try repair_tries[] = {
	/* VT_REPAIR_GUARDED only: CA routes that grew longer kept */
	{.prev_turns = 1, .rebalance = REB_CHANGED, .longer = 1},
	{.prev_turns = 1, .rebalance = REB_NONE, .longer = 1},
	{.prev_turns = 1, .rebalance = REB_NEW, .longer = 1},
	/* down-up turns where either routing turns */
	{.prev_turns = 1, .rebalance = REB_CHANGED},
	{.prev_turns = 1, .rebalance = REB_NONE},
	{.prev_turns = 1, .rebalance = REB_NEW},
	{.prev_turns = 1, .rebalance = REB_GAP},
	{.prev_turns = 1, .rebalance = REB_GAP_LEVELS},
	/* only where the fresh routing turns */
	{.prev_turns = 0, .rebalance = REB_CHANGED},
	{.prev_turns = 0, .rebalance = REB_NONE},
	{.prev_turns = 0, .rebalance = REB_NEW},
	{.prev_turns = 0, .rebalance = REB_GAP},
	{.prev_turns = 0, .rebalance = REB_GAP_LEVELS},
};

/*
 * A candidate refused, with what its run met (DIFF_*); over: by a shift
 * stage over the fresh tables' worst that the guard's quick look found.
 */
struct refused {
	struct repair_try how;
	unsigned differs;
	int bad, over;
	char why[VT_ERR_MAX];
};

/*
 * Where REB_NONE's tables (no port chosen again) crowd a link in some shift
 * stage beyond the fresh tables' worst, REB_CHANGED's with the same settings
 * were refused too, on every row of tests/bench/churn.sh and the faults of
 * tests/bench/fault.sh at pruned 36,12, 36,18 and 36,36 (42 faults, guarded
 * and minimal, every candidate built): where the longer routes were kept the
 * worst stayed as high after the rebalance (19 against the fresh 3, a
 * level-1 switch down: the routes down into the old turn leaf and up
 * again), else it stayed over the fresh worst (4 against 3). So REB_NONE's
 * tables, which cost no rebalance (their kept part is REB_CHANGED's own),
 * are looked at first by the guard's quick look alone
 * (vt_repair_guard_quick), and where it refuses them REB_CHANGED is not
 * built: pruned 36,12, a level-1 switch down, 15-21 ms of rebalance each
 * and a 15 ms count; the repair's instructions (callgrind) 8% fewer there,
 * 6% a top down, 2-3% more where REB_CHANGED stands first (a leaf's
 * up-link down: the look that cannot tell). Where it cannot tell, both are
 * tried in their turn, as before. The refusal of REB_NEW and the rank-gap
 * candidates does not follow so (pruned 36,36, a level-1 switch down: new
 * stands; 36,18, a top down: gap stands).
 *
 * How's REB_NONE twin refused so (its step, its refusal in *done): 1, 0
 * undecided, -1.
 */
static int none_refuses(struct repair *r, struct repair_guard *g, struct vt_repair_stats *st,
			struct repair_try how, struct refused *done, uint64_t *changed,
			uint64_t *blocks, vt_err *e)
{
	uint32_t n0 = st->nsteps;
	struct vt_repair_step *sp;
	double t0 = vt_repair_cpu(), t1, fresh_s = g->fresh_s;
	int bad;

	how.rebalance = REB_NONE;
	sp = step_of(st, how);
	r->how = how;
	g->quick_refused = 0;
	if (vt_repair_run(r))
		return vt_err_nomem(e, "out of memory");
	vt_repair_count_changes(r->f, r->prev, r->t, changed, blocks);
	t1 = vt_repair_cpu();
	bad = *changed > st->fresh_changed
		      ? 0
		      : vt_repair_guard_quick(g, r->t, st->why, sizeof(st->why), e);
	st->step[1].guard += g->fresh_s - fresh_s; /* as judge() */
	if (bad <= 0) {
		st->nsteps = n0; /* undecided: tried in its turn */
		return bad;
	}
	if (sp) {
		sp->build = t1 - t0;
		sp->guard = vt_repair_cpu() - t1 - (g->fresh_ahead ? 0 : g->fresh_s - fresh_s);
		sp->verdict = 'w';
		step_why(sp, st->why);
	}
	*done = (struct refused){how, r->differs, CAND_WORSE, 1, ""};
	memcpy(done->why, st->why, sizeof(st->why));
	return 1;
}

/* REB_CHANGED refused as its REB_NONE twin none was (none_refuses): its step. */
static void changed_refused(struct vt_repair_stats *st, struct repair_try how,
			    const struct refused *none)
{
	struct vt_repair_step *sp = step_of(st, how);
	char name[64], why[sizeof(none->why) + sizeof(name) + 8];

	name_of(none->how, name, sizeof(name));
	memcpy(st->why, none->why, sizeof(st->why));
	snprintf(why, sizeof(why), "as %s: %s", name, none->why);
	if (sp) {
		sp->verdict = 'w';
		step_why(sp, why);
	}
}

/* A refused candidate whose run is how's, step by step (same_run), or NULL. */
static const struct refused *twin_of(const struct refused *done, size_t n, struct repair_try how)
{
	for (size_t i = 0; i < n; i++)
		if (vt_repair_same_run(done[i].how, done[i].differs, how, 1))
			return &done[i];
	return NULL;
}

/*
 * The candidates that move only the CA LIDs' entries forced off a shortest
 * route (vt_route_repair_forced_lids.h): ports spread by the farthest rank
 * distance, a lost link's destinations on the far link (pruned 36,6, one of
 * a level-1 switch's six parallel up-links to a top down: 77 entries with the
 * fresh shift, where the next ones congest more and the fallback changes
 * 457), only where such a link is lost (elsewhere it differs from the next
 * in the rank limit alone, and stood with more entries: superpod 3,4,8,4,3,2,
 * a top down, 258 against the fallback's 250); then by rank distance up to
 * 2, then 4, then 2 with a sibling's ports (VT_FORCED_SIBLING: fat 8,3,
 * the first level-1 switch down, 4494 entries where the fallback changed
 * 15441). Once the every-source audit finds a credit loop in one, the
 * previous tables' turns are left to them all (the old turn leaf and the new
 * one closed it: real-shaped pruned 36,6, the first level-1 switch down, until
 * the routes to LIDs outside the ranks kept their longer previous ones,
 * vt_forced_any_length). The first that stands into
 * r->t: 0, 1 when none, -1. Tried
 * where every whole candidate was refused, before the fallback, or where one
 * stood above 1.5 times the forced minimum (fewer_forced), not else: on the
 * rows of tests/bench/churn.sh where a whole one stands, these were refused
 * or changed more blocks (fat 8,3, a level-1 up-link down: 111 entries in
 * 25 blocks against the whole repair's 154 in 19), at the cost of a shift
 * count and an audit each.
 */
static int try_forced_lids(struct repair *r, struct repair_guard *g, struct vt_repair_stats *st,
			   uint64_t *changed, uint64_t *blocks, vt_err *e)
{
	static const uint8_t near[] = {VT_FORCED_FAR, 2, 4, VT_FORCED_SIBLING};
	int far, turns = 1;

	if (r->policy == VT_REPAIR_FEWEST)
		return 1; /* its whole repairs keep longer routes too: fewer changes */

	for (size_t i = 0; i < sizeof(near); i++) {
		struct repair_try how = {.prev_turns = (uint8_t)turns, .forced_lids = near[i]};
		int bad;

		if (near[i] == VT_FORCED_FAR && (far = vt_repair_far_applies(r)) <= 0) {
			if (far < 0)
				return vt_err_nomem(e, "out of memory");
			continue; /* no far link: its tables would differ in the rank limit alone */
		}
		bad = candidate(r, how, g, st, changed, blocks, e);
		if (bad == CAND_AUDIT && turns) { /* a credit loop: the fresh turns alone */
			how.prev_turns = 0;
			turns = 0;
			bad = candidate(r, how, g, st, changed, blocks, e);
		}
		if (bad <= 0)
			return bad;
	}
	return 1;
}

/*
 * A whole candidate stood in r->t with *changed entries in *blocks. Where
 * they are more than 1.5 times the forced minimum (issue 24's bound; the
 * entries whose link is lost, a part of it, are counted first and the
 * minimum only above 1.5 times those), the forced-lids candidates are tried
 * too, and the first that stands is kept if it changes fewer entries, else
 * the whole one is put back. A whole candidate keeps a previous turn only
 * where both hops into and out of it are prev's, so it may move the routes
 * behind a lost one; the forced-lids ones move only the CA LIDs off a
 * shortest route, often in more 64-LID blocks: fat 8,3, a level-1 switch's
 * up-link down, whole 147 entries in 18 blocks, forced-lids 2 104 in 24
 * (forced minimum 95; updn 1040/93, minhop 319/43). None is tried on the six
 * faults of tests/bench/fault.sh at pruned 36,12. 0, -1.
 */
static int fewer_forced(struct repair *r, struct repair_guard *g, struct vt_repair_stats *st,
			uint64_t *changed, uint64_t *blocks, vt_err *e)
{
	size_t n = (size_t)r->t->nsw * r->t->nlid;
	uint64_t wc = *changed, wb = *blocks;
	uint32_t n0 = st->nsteps;
	struct vt_forced fm;
	uint8_t *whole;
	int bad;

	if (r->policy != VT_REPAIR_GUARDED || 2 * wc <= 3 * st->minimum)
		return 0;
	if (vt_route_forced(r->f, r->prev, r->fresh, r->level, &fm, e))
		return -1;
	if (2 * wc <= 3 * fm.forced || !(whole = malloc(n)))
		return 0; /* out of memory: the whole candidate stands */
	memcpy(whole, r->t->port, n);
	bad = try_forced_lids(r, g, st, changed, blocks, e);
	if (bad == 0 && *changed >= wc && st->nsteps > n0) {
		struct vt_repair_step *sp = &st->step[st->nsteps - 1]; /* it stood: not kept */

		snprintf(st->why, sizeof(st->why),
			 "%" PRIu64 " entries changed, the whole candidate %" PRIu64, *changed, wc);
		sp->verdict = 'w';
		step_why(sp, st->why);
	}
	if (bad > 0 || (bad == 0 && *changed >= wc)) {
		memcpy(r->t->port, whole, n);
		*changed = wc;
		*blocks = wb;
		bad = 0;
	}
	free(whole);
	st->why[0] = 0;
	return bad;
}

/*
 * The refusals so far (try_candidates): done[0 .. nd), and the first one's
 * candidate, why and quickness (the partial repair tells it).
 */
struct refusals {
	struct refused done[sizeof(repair_tries) / sizeof(repair_tries[0]) + 1];
	size_t nd;
	struct repair_try first;
	int first_quick, have_first;
	char why[VT_ERR_MAX];
};

/* A refusal of how (differs, bad, over; st->why) into rs. */
static void refusal(struct refusals *rs, struct repair_try how, unsigned differs, int bad, int over,
		    const struct vt_repair_stats *st)
{
	rs->done[rs->nd] = (struct refused){how, differs, bad, over, ""};
	memcpy(rs->done[rs->nd++].why, st->why, sizeof(st->why));
	if (!rs->have_first) {
		memcpy(rs->why, st->why, sizeof(rs->why));
		rs->first = how;
		rs->first_quick = over;
		rs->have_first = 1;
	}
}

/*
 * Is candidate how (REB_CHANGED) refused as its REB_NONE twin is
 * (none_refuses, or a twin of it refused so before)? 1 (its step written,
 * *none_done: that twin was judged here, its step and refusal written), 0,
 * -1.
 */
static int refused_as_none(struct repair *r, struct repair_guard *g, struct vt_repair_stats *st,
			   struct repair_try how, struct refusals *rs, int *none_done,
			   uint64_t *changed, uint64_t *blocks, vt_err *e)
{
	struct repair_try none = how;
	const struct refused *tw;
	int bad;

	*none_done = 0;
	if (how.rebalance != REB_CHANGED || r->policy == VT_REPAIR_FEWEST || !g->order ||
	    g->order->n < 2)
		return 0;
	none.rebalance = REB_NONE;
	if ((tw = twin_of(rs->done, rs->nd, none))) {
		if (!tw->over)
			return 0;
		changed_refused(st, how, tw);
		return 1;
	}
	if ((bad = none_refuses(r, g, st, none, &rs->done[rs->nd], changed, blocks, e)) <= 0)
		return bad;
	refusal(rs, none, r->differs, CAND_WORSE, 1, st);
	changed_refused(st, how, &rs->done[rs->nd - 1]);
	*none_done = 1;
	return 1;
}

/*
 * The first whole repair that passes into r->t; where the audit or the guard
 * refuses them all, the switch LIDs' entries repaired alone (most of what
 * moves with the turn leaf), with the CA LIDs' fresh.
 */
static int try_candidates(struct repair *r, struct repair_guard *g, struct vt_repair_stats *st,
			  uint64_t *changed, uint64_t *blocks, vt_err *e)
{
	enum { NTRIES = sizeof(repair_tries) / sizeof(repair_tries[0]) };
	struct refusals rs = {.nd = 0};
	int bad, loop = 0, skip_none = 0;

	for (size_t i = 0; i < NTRIES; i++) {
		const struct repair_try *how = &repair_tries[i];
		const struct refused *tw;

		if (how->longer && r->policy != VT_REPAIR_GUARDED)
			continue;
		if (!how->prev_turns && !loop)
			break;
		if (skip_none && how->rebalance == REB_NONE) {
			skip_none = 0; /* judged before its REB_CHANGED twin (refused_as_none) */
			continue;
		}
		g->quick = 1; /* the first refusal's figures are counted again if told (below) */
		if ((tw = twin_of(rs.done, rs.nd, *how))) {
			struct vt_repair_step *sp = step_of(st, *how);

			bad = tw->bad; /* the same tables again: refused alike */
			memcpy(st->why, tw->why, sizeof(st->why));
			if (sp) {
				sp->verdict = '=';
				step_why(sp, st->why);
			}
			refusal(&rs, *how, tw->differs, bad, tw->over, st);
		} else if ((bad = refused_as_none(r, g, st, *how, &rs, &skip_none, changed, blocks,
						  e)) < 0) {
			return -1;
		} else if (bad) {
			continue; /* not in rs.done: its own run's differs are not known */
		} else if ((bad = candidate(r, *how, g, st, changed, blocks, e)) <= 0) {
			st->why[0] = 0;
			return bad < 0 ? -1 : fewer_forced(r, g, st, changed, blocks, e);
		} else {
			refusal(&rs, *how, r->differs, bad, g->quick_refused, st);
		}
		/* longer routes add turns of their own: their loops say nothing of fresh turns */
		loop |= bad == CAND_AUDIT && how->prev_turns && !how->longer;
	}
	if ((bad = try_forced_lids(r, g, st, changed, blocks, e)) <= 0) {
		st->why[0] = 0;
		return bad;
	}
	if (rs.first_quick) { /* the partial repair tells the first refusal's figures: counted */
		g->quick = 0;
		if ((bad = candidate(r, rs.first, g, st, changed, blocks, e)) < 0)
			return -1;
		memcpy(rs.why, st->why, sizeof(rs.why));
	}
	/*
	 * off the CA paths first; the audit may refuse the previous turns it keeps.
	 * The switch routes turn only where prev_turns lets them (strict_turns):
	 * with the turn set's turns too, superpod 2,4,4,4,2,2 with a leaf up-link
	 * down kept switch routes whose VL split the plugin and the analyzer then
	 * counted apart (OpenSM 443 routes on VL 1, the analyzer 444 for the same
	 * tables, both audited clean: plugin_split_repair)
	 */
	bad = candidate(r, (struct repair_try){.ca_fresh = 1, .off_path = 1, .strict_turns = 1}, g,
			st, changed, blocks, e);
	if (bad > 0)
		bad = candidate(r, (struct repair_try){.ca_fresh = 1, .strict_turns = 1}, g, st,
				changed, blocks, e);
	if (bad <= 0) {
		memcpy(st->why, rs.why, sizeof(st->why));
		st->mode = VT_REPAIR_PARTIAL;
	}
	return bad < 0 ? -1 : bad > 0;
}

int vt_repair_candidates(struct repair *r, struct repair_guard *g, struct vt_repair_stats *st,
			 uint64_t *changed, uint64_t *blocks, vt_err *e)
{
	struct vt_repair_step *fp = &st->step[st->nsteps++]; /* tables, then the fresh count */
	int bad;

	memset(fp, 0, sizeof(*fp));
	snprintf(fp->what, sizeof(fp->what), "fresh tables' shift count");
	fp->verdict = ' ';
	bad = try_candidates(r, g, st, changed, blocks, e);
	if (bad == 0 && st->mode == VT_REPAIR_DONE)
		bad = vt_repair_thin(r, g, st, changed, blocks, e);
	return bad;
}
