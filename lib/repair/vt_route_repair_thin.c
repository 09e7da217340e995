/* SPDX-License-Identifier: MIT */
/*
 * The repair's last pass (vt_route_repair_thin.h): a candidate stands as a
 * whole, but not every entry it moved off a previous port that still works
 * is needed for its shift figures. The forced-lids candidates move, besides
 * the forced entries, those that CA traffic crosses anew (chosen again by
 * rank distance) and, with VT_FORCED_FAR, a lost lane's destinations at the
 * switches above it; many of them could stay. Per CA LID the previous entries
 * go back where the route stays whole, no longer and turns nowhere new
 * (vt_repair_try_port_at, as keep_lid keeps them; down-up turns also where
 * either routing turns a switch LID's route, r->ca_turn_set) and the shift
 * guard still passes the tables (a count update of one LID's column), its
 * average no higher than the fresh one (above_fresh). Then the proof or the
 * every-source audit once more.
 * - superpod 3,4,8,4,3,2, the last leaf's first up-link down: VT_FORCED_FAR
 *   stood with 42 entries (forced minimum 22), 17 of its 20 moves off a live
 *   port at the level-1 switch and tops the moved destinations newly cross;
 *   25 entries, shift 2/1.85 (fresh 2/1.86).
 * - fat 8,3, the last level-1 switch down: VT_FORCED_SIBLING stood with 1856
 *   (forced minimum 1200); 1807 LID by LID, 1783 with the turn set's turns
 *   (other pods' level-1 switches' entries for the dead switch's pod, idle
 *   for CA traffic, back up to a top that now sends them down to the turn
 *   leaf), 1769 with each entry alone where the LID's whole column was
 *   refused; shift 2/1.97 as fresh, the every-source audit clean.
 */
#include "repair/vt_route_repair_thin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/vt_shift_count.h"
#include "repair/vt_route_repair_stats.h"

/*
 * Guard calls at most: each is a count update of the column that changed,
 * but also a compare and a copy of the whole tables (pruned 36,12: some
 * 4 MB), so a fabric with thousands of moved LIDs keeps the rest of the
 * candidate as it stood.
 */
#define THIN_GUARDS 1024u

/*
 * Tables' bytes times the CA LIDs with a moved entry, at most, for the pass
 * to run: each LID costs a guard update, and that a compare and a copy of
 * the whole tables besides its column's count. Pruned 36,12 with a level-1
 * switch down: 2.4 MB tables, 502 such LIDs (1.2 GB), 313 guard calls took
 * 0.9 s against the repair's 0.15 s for 10586 -> 10259 entries, so it is
 * left as it stood; the churn bench's real-shaped pruned 36,6 with the first
 * level-1 switch down: 0.66 MB, 596 LIDs (0.40 GB), 0.23 s more.
 */
#define THIN_WORK (1ull << 29)

/*
 * lid's entries that left a previous port still linked go back to it where
 * vt_repair_try_port_at lets them, tried until none more can (one that loops
 * now may not once a switch on its way is back): how many went back.
 */
static uint32_t back_to_prev(struct repair *r, uint32_t lid)
{
	uint32_t n = 0, back = 0;
	int progress = 1;

	for (uint32_t s = 0; s < r->t->nsw; s++) {
		unsigned p = vt_lft_get(r->prev, s, lid);

		if (p != VT_LFT_NONE && p != 0 && p != vt_lft_get(r->t, s, lid) &&
		    vt_repair_port_up(r->f, s, p))
			r->pend[n++] = s;
	}
	while (progress && n) {
		uint32_t m = 0, now;

		progress = 0;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t s = r->pend[i];

			now = VT_REPAIR_HOPS_UNKNOWN;
			if (vt_repair_try_port_at(r, s, lid, vt_lft_get(r->prev, s, lid), &now)) {
				progress = 1;
				back++;
			} else {
				r->pend[m++] = s;
			}
		}
		n = m;
	}
	return back;
}

static void column(vt_lfts *t, uint32_t lid, uint8_t *col, int restore)
{
	for (uint32_t s = 0; s < t->nsw; s++) {
		uint8_t *b = &t->port[(size_t)s * t->nlid + lid];

		if (restore)
			*b = col[s];
		else
			col[s] = *b;
	}
}

/* Thinning's state: the guard, a column's copy, the guard calls left and their CPU seconds. */
struct thin {
	struct repair_guard *g;
	uint8_t *col;
	uint32_t left;
	double guard_s;
	char why[VT_ERR_MAX];
};

/*
 * Is the average of the tables the guard counted last above the fresh
 * tables' (or, not counted, the cut bound's, which is no higher)? The guard
 * lets a candidate stand within SHIFT_AVG_NOISE of it, and a pass that takes
 * every entry back that the guard lets by creeps up to that edge (fat 8,3, a
 * leaf's up-link down: 2/1.98 -> 2/1.99 against the fresh 2/1.98), so here
 * the figure itself decides. Tables with the fresh rank columns pass the
 * guard uncounted: the figures read are then an earlier count's, which at
 * worst refuses an entry that could have gone back.
 */
static int above_fresh(const struct repair_guard *g)
{
	uint32_t worst;
	double avg;

	if (!g->have_rt || !g->count || (!g->have_fresh && g->have_bound <= 0))
		return 0;
	vt_shift_count_figures(g->count, &worst, &avg);
	return avg > (g->have_fresh ? g->fresh_avg : g->bound_avg);
}

/*
 * Does the guard pass r->t as it stands (1), or refuse it, lid's column then
 * back to th->col (0)? -1 with e.
 */
static int judged(struct repair *r, struct thin *th, uint32_t lid, vt_err *e)
{
	double t0 = vt_repair_cpu();
	int bad = vt_repair_guard_worse(th->g, r->t, th->why, sizeof(th->why), e);

	th->guard_s += vt_repair_cpu() - t0;
	th->left--;
	if (!bad && above_fresh(th->g))
		bad = 1;
	if (bad > 0)
		column(r->t, lid, th->col, 1);
	return bad < 0 ? -1 : !bad;
}

/*
 * lid's previous entries back where the guard passes them: all at once, else
 * (more than one went back, the guard refused) each alone, since one moved
 * entry may be what its shift figures need (fat 8,3, a level-1 switch down:
 * 1807 -> 1769 entries). How many judged passes, -1 with e.
 */
static int thin_lid(struct repair *r, struct thin *th, uint32_t lid, vt_err *e)
{
	uint32_t n;
	int ok, kept = 0;

	column(r->t, lid, th->col, 0);
	if (!(n = back_to_prev(r, lid)))
		return 0;
	if ((ok = judged(r, th, lid, e)) != 0 || n == 1)
		return ok;
	for (uint32_t s = 0; s < r->t->nsw && th->left; s++) {
		unsigned p = vt_lft_get(r->prev, s, lid);
		uint32_t now = VT_REPAIR_HOPS_UNKNOWN;

		if (p == VT_LFT_NONE || p == 0 || p == vt_lft_get(r->t, s, lid) ||
		    !vt_repair_port_up(r->f, s, p))
			continue;
		column(r->t, lid, th->col, 0);
		if (!vt_repair_try_port_at(r, s, lid, p, &now))
			continue;
		if ((ok = judged(r, th, lid, e)) < 0)
			return -1;
		kept += ok;
	}
	return kept;
}

/* Does lid have an entry off a previous port that is still linked (back_to_prev's)? */
static int moved(const struct repair *r, uint32_t lid)
{
	if (!r->ca[lid] || r->f->lid_port[lid] == VT_NONE || (r->differ && !r->differ[lid]))
		return 0;
	for (uint32_t s = 0; s < r->t->nsw; s++) {
		unsigned p = vt_lft_get(r->prev, s, lid);

		if (p != VT_LFT_NONE && p != 0 && p != vt_lft_get(r->t, s, lid) &&
		    vt_repair_port_up(r->f, s, p))
			return 1;
	}
	return 0;
}

/* The CA LIDs' columns thinned into r->t: entries or LIDs kept back (> 0), or -1 with e. */
static int64_t thin_lids(struct repair *r, struct thin *th, vt_err *e)
{
	uint64_t bytes = (uint64_t)r->t->nsw * r->t->nlid, n = 0;
	int64_t kept = 0;

	if (r->differ)
		vt_lfts_differ(r->t, r->prev, r->differ);
	for (uint32_t lid = 1; lid < r->t->nlid; lid++)
		n += (uint64_t)moved(r, lid);
	if (n * bytes > THIN_WORK)
		return 0;
	for (uint32_t lid = 1; lid < r->t->nlid && th->left; lid++) {
		int k;

		if (!moved(r, lid))
			continue;
		if ((k = thin_lid(r, th, lid, e)) < 0)
			return -1;
		kept += k;
	}
	return kept;
}

int vt_repair_thin(struct repair *r, struct repair_guard *g, struct vt_repair_stats *st,
		   uint64_t *changed, uint64_t *blocks, vt_err *e)
{
	size_t n = (size_t)r->t->nsw * r->t->nlid;
	struct vt_repair_step *sp;
	struct thin th = {.g = g, .left = THIN_GUARDS};
	uint8_t *stood;
	double t0 = vt_repair_cpu(), t1;
	int64_t kept;
	int bad = 0;

	if (r->policy != VT_REPAIR_GUARDED || 2 * *changed <= 3 * st->minimum)
		return 0;
	stood = malloc(n);
	th.col = malloc((size_t)r->t->nsw + 1);
	if (!stood || !th.col) { /* optional: the candidate stands as it is */
		free(stood);
		free(th.col);
		return 0;
	}
	memcpy(stood, r->t->port, n);
	r->ca_turn_set = 1;
	kept = thin_lids(r, &th, e);
	r->ca_turn_set = 0;
	t1 = vt_repair_cpu();
	if (kept > 0 && !vt_repair_sure(r, r->t)) {
		st->audits++;
		bad = vt_repair_audit_worse(r->f, r->t, r->fresh, st->why, sizeof(st->why), e);
	}
	if (kept < 0 || bad)
		memcpy(r->t->port, stood, n);
	if ((sp = st->nsteps < VT_REPAIR_STEPS ? &st->step[st->nsteps++] : NULL)) {
		memset(sp, 0, sizeof(*sp));
		snprintf(sp->what, sizeof(sp->what), "thin");
		sp->build = t1 - t0 - th.guard_s;
		sp->guard = th.guard_s;
		sp->audit = vt_repair_cpu() - t1;
		sp->verdict = kept > 0 && !bad ? '+' : bad > 0 ? 'a' : ' ';
		if (bad > 0)
			snprintf(sp->why, sizeof(sp->why), "%.*s", (int)sizeof(sp->why) - 1,
				 st->why);
	}
	st->why[0] = 0;
	free(stood);
	free(th.col);
	if (kept < 0 || bad < 0)
		return -1;
	vt_repair_count_changes(r->f, r->prev, r->t, changed, blocks);
	return 0;
}
