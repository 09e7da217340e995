/* SPDX-License-Identifier: MIT */
/*
 * The repair after a fault (lib/repair/): the plugin's vartree.repair and
 * vartree-route --previous. The engine itself is route/vt_route.h.
 */
#ifndef VT_REPAIR_H
#define VT_REPAIR_H

#include <stddef.h>
#include <stdint.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "model/vt_lft.h"
#include "model/vt_order.h"
#include "route/vt_route.h"

/*
 * Fewest table changes after a fault (vt_route_repair.c). OpenSM sends every
 * changed 64-entry block to its switch, so after a link or switch fails the
 * plugin (vartree.repair) and vartree-route --previous keep the previous
 * sweep's entries wherever they still serve: lfts, a fresh vt_route() of the
 * degraded fabric f, takes prev's port for a switch and LID when that port's
 * link is up and the route it starts reaches the LID without a loop and (policy
 * VT_REPAIR_MINIMAL) in no more hops than the route it replaces; elsewhere the
 * fresh entry stays. VT_REPAIR_FEWEST also keeps longer routes: close to the
 * fewest changes, but routes through a switch that lost its way down then
 * turn there (non-minimal hops, which the audit allows, and more load there).
 * VT_REPAIR_GUARDED keeps them too where the quality guard below passes the
 * result, and is VT_REPAIR_MINIMAL where it does not. The
 * result is audited with every switch and CA as a source, unless the fresh
 * routing was sure (proof: no audit needed, vt_route_turn.c) and the result
 * keeps that proof: every route through an entry it changed arrives, crosses
 * no link within a level, and turns down-up only at the turn leaf Z or its
 * ancestors (vt_route_repair_sure.c has the argument; a cost of what changed,
 * not of the fabric); a credit loop or a
 * broken route (none expected) gives the fresh tables back, and so do (the
 * quality guard; not for VT_REPAIR_FEWEST) more changed entries than the fresh
 * tables or more shift congestion over the ranks of order than theirs, worst
 * stage or average (vt_route_guard.h).
 * When the fabric
 * gained something since prev (a LID prev does not route, a switch or a port
 * prev never used: a link or switch came back), the fresh tables stay, so a
 * healed fabric gets its original tables exactly, unless prev still routes
 * every LID and serves the fabric no worse than they do (a link that flapped
 * back while another fault stays): then prev stays whole (VT_REPAIR_KEPT).
 */
enum vt_repair_mode {
	VT_REPAIR_DONE,	   /* lfts repaired */
	VT_REPAIR_HEALED,  /* fabric gained since prev: lfts left fresh */
	VT_REPAIR_REFUSED, /* the repaired tables failed the audit or the guard: lfts left fresh */
	/* the whole repair failed (why); lfts repaired for switch LIDs only, CA LIDs fresh */
	VT_REPAIR_PARTIAL,
	/* fabric gained since prev, prev still serves it no worse (vt_route_heal.h) */
	VT_REPAIR_KEPT
};

enum vt_repair_policy {
	VT_REPAIR_MINIMAL, /* no route longer than the fresh one: shift quality kept */
	VT_REPAIR_FEWEST,  /* any loop-free, deadlock-free route kept */
	/* routes that grew longer kept where the quality guard passes them, else minimal */
	VT_REPAIR_GUARDED
};

/*
 * One step of a repair: what (a candidate's settings, or "tables"), its CPU
 * seconds building the tables, in the shift guard and proving or auditing
 * them, the verdict ('+' stood, 'a' the audit refused, 'w' the guard or
 * the change count refused, '=' a twin of one refused already, ' ' none)
 * and, where refused, why (the guard's or the audit's words, cut short).
 */
#define VT_REPAIR_STEPS 24
struct vt_repair_step {
	char what[40];
	double build, guard, audit;
	char verdict;
	char why[160];
};

struct vt_repair_stats {
	enum vt_repair_mode mode;
	/* entries (and 64-LID blocks) differing from prev, for LIDs still in the fabric */
	uint64_t changed, blocks;
	uint64_t fresh_changed, fresh_blocks; /* the same for the fresh tables */
	uint64_t minimum; /* entries that had to change: prev's port lost its link */
	/* the forced minimum (vt_route_forced.h): those and the entries no legal route
	 * starts with any more, and the blocks holding them; 0 when HEALED. A yardstick
	 * the repair does not use: vt_repair_forced_figures fills them, vt_route_repair
	 * leaves them 0 */
	uint64_t forced, forced_blocks, minimum_blocks;
	/* VT_REPAIR_DONE: entries whose route to a CA takes more hops than fresh (vt_lfts_longer)
	 */
	uint64_t longer;
	/* candidates the every-source audit ran on (not those that kept the fresh routing's proof)
	 */
	uint32_t audits;
	/*
	 * Where the repair's CPU time went (vartree-route -v prints it): step[0]
	 * the tables every candidate reads, step[1] the fresh tables' shift
	 * count (the guard's reference), then each candidate in the order tried,
	 * the last ones dropped past VT_REPAIR_STEPS; nsteps: how many kept.
	 */
	struct vt_repair_step step[VT_REPAIR_STEPS];
	uint32_t nsteps;
	char why[VT_ERR_MAX]; /* VT_REPAIR_HEALED, _REFUSED, _KEPT: the reason */
};

/*
 * prev: the previous tables mapped onto f (VT_LFT_NONE where they have no
 * entry; vt_lfts_remap, or vt_lfts_read_prev from a file); order: the
 * compute-node order vt_route gave with lfts (NULL: no shift guard); proof:
 * what that routing proved of lfts (vt_route_opts.proof; NULL: nothing, every
 * candidate audited). Returns -1 only when out of memory (lfts then unchanged).
 */
int vt_route_repair(const vt_fabric *f, const vt_lfts *prev, vt_lfts *lfts, const vt_order *order,
		    const struct vt_route_proof *proof, enum vt_repair_policy policy,
		    struct vt_repair_stats *st, vt_err *e);
/*
 * vt_route_repair with kept, the shift count of prev kept since the sweep
 * that installed it (vt_route_guard_kept.h; NULL: none), for the quality
 * guard to start from: counted on f, or on the fabric before the fault
 * (alive until this returns: the guard moves it onto f where a candidate
 * needs a count). The guard takes its count (the caller still frees kept)
 * and then counts the fresh tables only where a candidate misses the cut
 * bound, with no thread counting them ahead.
 */
struct vt_guard_kept;
int vt_route_repair_kept(const vt_fabric *f, const vt_lfts *prev, vt_lfts *lfts,
			 const vt_order *order, const struct vt_route_proof *proof,
			 enum vt_repair_policy policy, struct vt_guard_kept *kept,
			 struct vt_repair_stats *st, vt_err *e);
/*
 * The forced minimum of st (forced, forced_blocks, minimum_blocks) for a
 * repair vt_route_repair made of prev into st, fresh being the tables it was
 * given (the fresh routing, not the repaired ones); 0 when st says HEALED. It
 * costs about a fresh route (a search per destination switch over the whole
 * tree), which the repair itself does not need: a front end asks for it where
 * it reports the figure, apart from the repair's own time, and the plugin only
 * when its log is verbose. -1 with e when out of memory.
 */
int vt_repair_forced_figures(const vt_fabric *f, const vt_lfts *prev, const vt_lfts *fresh,
			     struct vt_repair_stats *st, vt_err *e);
/*
 * Are prev (for vt_route_repair) another fabric's tables: do they route (on any switch) fewer than
 * half of the fabric's CA LIDs, and fewer of them than LIDs the fabric lacks? (A heal that
 * brought most hosts back leaves prev routing few of the fabric's LIDs, but no LID it lacks.)
 * Says how many in why.
 */
int vt_repair_foreign(const vt_fabric *f, const vt_lfts *prev, char *why, size_t len);

/*
 * Tables of fabric from mapped onto fabric to by switch node GUID and LID
 * (switches to lacks and LIDs beyond its top are dropped; its new switches
 * get no entries). Allocates out.
 */
int vt_lfts_remap(const vt_lfts *t, const vt_fabric *from, const vt_fabric *to, vt_lfts *out,
		  vt_err *e);

#endif
