/* SPDX-License-Identifier: MIT */
/*
 * The repair's state (vt_route_repair.c), shared with the tables every
 * candidate reads (vt_route_repair_tables.c): internal to the two.
 */
#ifndef VT_ROUTE_REPAIR_INT_H
#define VT_ROUTE_REPAIR_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/vt_fabric.h"
#include "model/vt_lft.h"
#include "model/vt_order.h"
#include "route/vt_route.h"
#include "repair/vt_repair.h"
#include "tree/vt_tree.h"

#define RANK_NO_PORT 0xFFFFu /* rank_port: no used entry */

enum { HOP_UP, HOP_DOWN, HOP_SIDE };

/*
 * One way to repair, a candidate (the policy, repair_tries, picks among them):
 * prev_turns lets kept routes turn down-up where the previous tables turned
 * too (else only where the fresh ones turn); rebalance says which entries
 * choose their port again; ca_fresh keeps the fresh entries of every CA LID;
 * longer keeps CA routes that grew longer (VT_REPAIR_GUARDED tries those first);
 * off_path, with ca_fresh, keeps a CA LID's previous entries at the switches
 * its CA traffic does not cross (the CA paths, hence shift, stay the fresh ones);
 * forced_lids, not 0, moves only the CA LIDs' entries that start no shortest
 * route any more (vt_route_repair_forced_lids.h: its rank distance, or
 * VT_FORCED_FAR); strict_turns keeps the switch LIDs' routes to the turns of
 * prev_turns alone (else they may turn down-up wherever either routing turns
 * a switch LID's route: turn_set below).
 */
enum {
	REB_NONE,	/* none: an entry that changed takes the fresh tables' port */
	REB_CHANGED,	/* the entries that changed */
	REB_NEW,	/* and those CA traffic crosses now and did not before */
	REB_GAP,	/* those, by rank distance first (rank_gaps) */
	REB_GAP_LEVELS, /* so, with the traffic counted again after each level */
};

struct repair_try {
	uint8_t prev_turns, rebalance, ca_fresh, longer, off_path, forced_lids, strict_turns;
};

enum { CAND_AUDIT = 1, CAND_WORSE = 2 }; /* why a candidate was refused */

/*
 * Where a candidate's run met a decision that another value of one of its
 * settings would have taken otherwise (a set bit may also be a mere maybe).
 * A run without DIFF_LONGER is, step by step, the run with the other
 * `longer` too; so for prev_turns (DIFF_TURNS), strict_turns (DIFF_TURN_SET)
 * and for REB_CHANGED against REB_NEW (DIFF_NEW): same decisions, same
 * tables, same verdict.
 */
enum { DIFF_LONGER = 1, DIFF_TURNS = 2, DIFF_NEW = 4, DIFF_TURN_SET = 8 };

/*
 * Per port of switch rank_port_sw, the ranks rank_port gives it, sorted:
 * rank[at[p] .. at[p] + len[p]), room for cap[p] (vt_route_repair_gaps.c).
 */
struct rank_index {
	uint32_t at[256], len[256], cap[256];
	uint32_t *rank, size; /* size: allocated */
	int ok;		      /* built for rank_port_sw */
};

struct repair {
	const vt_fabric *f;
	const vt_lfts *prev, *fresh;
	vt_lfts *t;	/* being repaired */
	uint8_t *level; /* per switch, from the tree; VT_TREE_OUTSIDE outside it */
	enum vt_repair_policy policy;
	struct repair_try how; /* the candidate being built */
	uint32_t *pend;	       /* nsw */
	/* per LID, the switches whose previous entry might stay (pend_lists) */
	size_t *pend_at; /* nlid + 1: LID l's are pend_sw[pend_at[l] .. pend_at[l + 1]) */
	uint32_t *pend_sw;
	unsigned differs; /* DIFF_*: the run so far */
	/* the tables after keep_lid (before rebalance_all) of the candidate kept_how */
	uint8_t *kept; /* NULL: not kept (out of memory: each candidate keeps again) */
	struct repair_try kept_how;
	unsigned kept_differs;
	int have_kept, at_kept; /* at_kept: r->t holds r->kept (rebalance_all's start) */
	/*
	 * per LID, in the run so far (met) and in r->kept's (kept_met): a route
	 * longer than the current one came up in keep_lid (try_port_at), where
	 * alone a run with the other `longer` decides otherwise; kept_calm: the
	 * differs bits of r->kept's run at the other LIDs (NULL: not kept)
	 */
	uint8_t *met, *kept_met;
	unsigned kept_calm;
	uint8_t *kept_used; /* used_now of r->kept, where kept_used_ok (NULL: not kept) */
	uint32_t kept_gen;  /* counts the times r->kept was kept anew */
	/*
	 * the level-0 rows of the last REB_GAP candidate gap0_how from r->kept as
	 * kept_gen was gap0_gen, and the differs bits level 0 added
	 * (vt_route_repair_rebalance.c: have_gap0; gap0 NULL, not kept)
	 */
	uint8_t *gap0;
	struct repair_try gap0_how;
	uint32_t gap0_gen;
	unsigned gap0_differs;
	int have_gap0;
	int kept_used_ok;
	/*
	 * rebalance's counts of r->kept, the same for every candidate that starts
	 * from it: per switch, stride ports each, the CA LIDs its row sends through
	 * each port (kept_all) and those of them CA traffic crosses under
	 * kept_used (kept_use), where kept_cnt[s] is set (NULL: counted each time);
	 * kept_view: r->t's rows are r->kept's and r->used_now is kept_used's
	 */
	uint32_t *kept_all, *kept_use;
	uint8_t *kept_cnt;
	int kept_view;
	uint8_t *ca; /* per LID: is_ca_lid's answer */
	/*
	 * per LID: some candidate gave a switch a route longer than the one it had,
	 * or one where it had none that follow() took. Elsewhere no route grew from
	 * the fresh tables' (each entry changed made its route and those through it
	 * no longer), so vt_lfts_longer looks at these LIDs alone. NULL: at every LID.
	 */
	uint8_t *grew;
	/* per switch and LID (bit s * nlid + lid): CA traffic to lid crosses s */
	uint8_t *used_prev, *used_now;
	uint32_t *reb; /* nlid: rebalance's LIDs of one switch */
	/* per switch and LID: an entry the VT_FORCED_FAR candidate chose, which keep_lid leaves */
	uint8_t *fixed;
	int have_used_prev;
	uint8_t *differ; /* per LID: scratch for vt_lfts_differ (NULL: none) */
	/* the fresh routing's rank order: lid_of_rank[i] (VT_NONE for a place-keeper) */
	uint32_t nrank, *lid_of_rank, *rank_of_lid; /* rank_of_lid: VT_NONE if none */
	/*
	 * per rank, the port of switch rank_port_sw its LID takes where CA traffic
	 * crosses that switch towards it, else RANK_NO_PORT (rank_gaps' lookups);
	 * NULL where two ranks share a LID (rank_gaps looks up the tables)
	 */
	uint16_t *rank_port;
	uint32_t rank_port_sw; /* VT_NONE: none yet */
	struct rank_index rx;
	uint32_t *peer, stride; /* sw_peer's table: per switch, stride ports */
	uint8_t *back;		/* per switch and port (stride): the port number at sw_peer's end */
	/*
	 * per LID, where its route ends: a CA LID's switch end_sw and the port
	 * end_port of it linked to the CA's port; a switch LID's switch, end_port
	 * 0; end_sw VT_NONE for neither (follow: a hop is then the peer table's)
	 */
	uint32_t *end_sw;
	uint8_t *end_port;
	/* the switches CAs hang off, each once: where CA traffic enters the switches */
	uint32_t *entry, nentry;
	/* what the fresh routing proved (NULL: nothing), and vt_repair_sure's scratch */
	const struct vt_route_proof *proof;
	/*
	 * per switch: 2 where the previous or the fresh tables turn a switch LID's
	 * route down-up, 1 where neither does, 0 not looked at yet
	 * (vt_repair_turn_switch); the switch LIDs, nsw_lid of them
	 */
	/*
	 * the forced-lids candidates' findings that hang on the fabric and the
	 * previous tables alone (vt_route_repair_forced_lids.c), kept from the first
	 * one for the next: per LID, is it clean (keep_clean; fl_clean_ok: known),
	 * and per switch and port (r->stride) the CA LIDs the previous tables send
	 * there that CA traffic crosses (count_use; fl_use_ok: counted)
	 */
	uint8_t *fl_clean;
	uint32_t *fl_use;
	int fl_clean_ok, fl_use_ok;
	uint8_t *turn_set;
	/* CA LIDs' routes may turn in the turn set too (the thinning pass, guarded) */
	int ca_turn_set;
	uint32_t *sw_lid, nsw_lid;
	uint32_t *sure_ok, *sure_path, sure_stamp, *sure_at, *sure_sw;
	size_t sure_cap; /* sure_sw's room */
};

static inline int bit(const uint8_t *m, size_t i)
{
	return m[i >> 3] >> (i & 7) & 1;
}

/*
 * 64 bits of bitmap m from bit i on: m has BITS_SLACK bytes past its last
 * byte (r->used_prev, r->used_now), read here and ignored by the callers.
 */
#define BITS_SLACK 16
static inline uint64_t bits64(const uint8_t *m, size_t i)
{
	uint64_t x;
	unsigned sh = i & 7;

	memcpy(&x, m + (i >> 3), 8);
	return sh ? x >> sh | (uint64_t)m[(i >> 3) + 8] << (64 - sh) : x;
}

static inline int is_ca_lid(const vt_fabric *f, uint32_t lid)
{
	return f->lid_port[lid] != VT_NONE &&
	       f->nodes[f->ports[f->lid_port[lid]].node].type != VT_SWITCH;
}

static inline const struct vt_node *sw_node(const struct repair *r, uint32_t s)
{
	return &r->f->nodes[r->f->switches[s]];
}

/* The switch behind port p of switch s, VT_NONE for none or another kind of node. */
static inline uint32_t sw_peer(const struct repair *r, uint32_t s, unsigned p)
{
	return p < r->stride ? r->peer[(size_t)s * r->stride + p] : VT_NONE;
}

/*
 * The tables every candidate reads, from f, prev, fresh and order: r->entry,
 * r->peer, the rank maps, r->ca, the pending lists, and r->kept, r->kept_used
 * (optional: NULL where out of memory). -1 when out of memory.
 */
int vt_repair_tables(struct repair *r, const vt_order *order);
/*
 * Marks in m (bit s * nlid + lid) the switches CA traffic to a CA LID crosses
 * under t, every LID at once, row by row (r->entry, r->peer, r->ca built):
 * 0, -1 when out of memory (m untouched).
 */
int vt_repair_mark_rows(struct repair *r, const vt_lfts *t, uint8_t *m);
void vt_repair_tables_free(struct repair *r);
/*
 * Does the previous or the fresh tables turn a switch LID's route down-up at
 * switch x (a parent sends it down into x, x sends it up)? Looked at once per
 * switch, where a candidate first asks (r->level known by then).
 */
int vt_repair_turn_switch(struct repair *r, uint32_t x);

/*
 * vt_route_repair_sure.c: does candidate t keep the fresh routing's proof
 * (r->proof sure), so that no credit loop or broken route can be in t that the
 * fresh tables do not have: no audit needed? 0: the audit decides.
 */
int vt_repair_sure(struct repair *r, const vt_lfts *t);

/*
 * vt_route_repair_gaps.c: per port of switch s, the distance in ranks from
 * rank to the nearest other rank whose LID CA traffic crosses s towards
 * through that port (2048 when none is nearer; exact for cur and the linked
 * ports only, the ones choose_port reads). rank_port is built for s on the
 * first call there; vt_repair_rank_port_set moves a rank to another port in it.
 */
void vt_repair_rank_gaps(struct repair *r, uint32_t s, uint32_t rank, unsigned cur, uint32_t *gap);
void vt_repair_rank_port_set(struct repair *r, uint32_t rank, unsigned port);

/*
 * vt_route_repair.c, the mechanism: one candidate r->how into r->t (0, -1
 * when out of memory); does a run of candidate a, which met the decisions
 * `differs` says, make the same decisions as one of b (whole run: rebalance
 * too, else the kept entries' part)?
 */
int vt_repair_run(struct repair *r);
/*
 * Switch s takes port for lid if every route stays whole, no longer, and
 * without a new turn (then it holds it: 1); *nowp: the hops of s's route as
 * it stands, VT_REPAIR_HOPS_UNKNOWN until followed (the same while only s's
 * entry is tried).
 */
#define VT_REPAIR_HOPS_UNKNOWN (VT_NONE - 1)
int vt_repair_try_port_at(struct repair *r, uint32_t s, uint32_t lid, unsigned port,
			  uint32_t *nowp);
/*
 * vt_route_repair_rebalance.c: the ports of the entries that changed (and of
 * those CA traffic crosses anew, by r->how.rebalance) chosen again, level by
 * level from the leaves; r->used_now brought up to date for r->t.
 */
void vt_repair_rebalance_all(struct repair *r);
void vt_repair_mark_now(struct repair *r);
/*
 * r->used_prev, counted on the first call: per switch and LID (bit s * nlid
 * + lid), does CA traffic to lid cross s under the previous tables?
 */
const uint8_t *vt_repair_used_prev(struct repair *r);
int vt_repair_same_run(struct repair_try a, unsigned differs, struct repair_try b, int whole);

/* The process's CPU seconds (the steps' times, vt_repair_stats.step). */
double vt_repair_cpu(void);

/*
 * vt_route_repair_candidates.c, the policy: the first candidate that the
 * guard g (vt_route_guard.h: the caller's, its count ahead started) and the
 * audit let stand into r->t (its changes in *changed and *blocks): 0, 1 when
 * none stands (st->why says why), -1.
 */
struct repair_guard;
int vt_repair_candidates(struct repair *r, struct repair_guard *g, struct vt_repair_stats *st,
			 uint64_t *changed, uint64_t *blocks, vt_err *e);

#endif
