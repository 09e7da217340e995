/* SPDX-License-Identifier: MIT */
/*
 * Usage-balanced LFT fill (Zahavi et al., Algorithms 2-4) over the extracted
 * tree, plane by plane. For each destination in index order: go up from its
 * switch through the least-used down-going port (Algorithm 4), then, level by
 * level below that path, every switch that is not an ancestor of the
 * destination goes up to its least-used link towards a switch of the main
 * route one hop closer (Algorithm 3). All other switches take the destination
 * switch's plan (make_plan): ancestors down, others up one hop closer, and a
 * shortest-path detour where no up*-down* route exists.
 */
#include "vt_route.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vt_io.h"
#include "vt_tree.h"

struct cls {
	uint32_t rep;	 /* first member: its up_peer[] or dn_peer[] run is the class's */
	uint32_t at;	 /* the plan the fields below belong to */
	uint32_t h;	 /* up classes: hops of its members that are not ancestors */
	uint32_t off, n; /* candidates: cpos[off .. off + n) */
	/*
	 * Detour candidates of members at distance dd, plan dat: the parents
	 * (up classes) or children (down classes) at distance dd - 1; down
	 * classes also keep the least and greatest turn_ok() key among those.
	 */
	uint32_t dat, dd, doff, dn, kmin, kmax;
};

struct router {
	const vt_fabric *f;
	const vt_tree *t;
	vt_lfts *lfts;
	uint32_t *use_dn; /* per ports[] index: destinations routed down out of this port */
	uint32_t *use_up; /* per ports[] index: destinations routed up out of this port */
	uint32_t serial;  /* destinations routed so far (place-keepers included) */
	/* the plan of destination switch px: every route towards it but the main ones */
	uint32_t px;
	uint32_t plan; /* plans made so far: the stamp of the current one */
	uint32_t *h;   /* per switch: up*-down* hops to px, VT_NONE when it has none */
	uint32_t *anc; /* per switch: == plan when px is below it (it routes down) */
	/*
	 * Fill route i: switch fsw takes port fbase[i][cpos[fpos + k]],
	 * k = 0 .. n - 1 in turn (n: the run's rn): fbase is the switch's own up_port[] or
	 * dn_port[] run and cpos the candidates' positions in it, so switches
	 * of one class share one candidate list. Kept as the switch's row
	 * (frow) and the list's address (fcand) for write_fill.
	 */
	size_t *frow;	       /* fsw[i] * nlid: its row in the tables */
	const uint8_t **fcand; /* &cpos[fpos[i]] */
	const uint8_t **fbase;
	uint32_t nfill;
	/* runs of fill routes with the same candidate count rn[g] from rstart[g] on */
	uint32_t *rstart, *rn, nrun, lastn;
	uint8_t *cpos; /* candidate positions of this plan: class lists, then detours */
	uint32_t npos;
	/*
	 * Classes, per plane: switches of a level with the same parents (ucl)
	 * or the same children (dcl), in the same order, have the same
	 * candidates towards every destination, so a plan finds them once per
	 * class (a pruned 36-port tree: under a hundred classes, 1620 switches).
	 */
	uint32_t *ucls, *dcls; /* per switch: its class */
	struct cls *ucl, *dcl;
	uint32_t nucl, ndcl;
	uint32_t nreach0;   /* leaves that route up towards px (not ancestors, h set) */
	uint32_t *urank;    /* per up class: turn_ok()'s lowest parent rank, valid when */
	uint32_t *urank_at; /* ... urank_at == plan */
	uint32_t *queue;    /* switch ordinals, nsw */
	uint32_t *dist;	    /* detour BFS distances, nsw */
	uint32_t *mark;	    /* per switch above the leaves: serial when it carries the main route */
	uint32_t *found;    /* per switch: serial when the main descent found it */
	uint32_t *cur, *next;
	uint32_t *mul;	   /* descent: switches several main-route links found */
	uint32_t *via;	   /* per switch: the dn_port[] entry of the main-route link that found it
			    * in the descent, VT_NONE when several did */
	uint8_t *dn_rport; /* per dn_port[] entry: the port number at the child's end */
	uint32_t *dn_ridx; /* ... and its ports[] index */
	uint32_t *swfirst; /* per switch: ports[] index of its port 0 */
	/*
	 * Per ports[] index and VT_ROUTE_KEYS keys: a switch with several
	 * main-route parents (slender trees) carries only the destinations its
	 * children sent to it, so it alternates among those: it counts apart
	 * per key[level], the up-link the main route took one level below
	 * (which, in step, the children below took too). Leaves count all.
	 */
	uint32_t *use_key;
	uint32_t key[VT_TREE_MAX_LEVELS + 1];
	/*
	 * Turn order, per switch: switches of a level that share a parent form
	 * a class (CA routes pass from any of them to any other through their
	 * parents); classes that lost down-links (the ones detours must reach
	 * by a down-up turn) rank after the others. A detour turning down from
	 * a into c and up to b needs rank(a) < rank(b), so its turns follow one
	 * global order and, with the up*-down* CA routes, close no cycle.
	 */
	uint32_t *rank;
	/*
	 * Ascent alignment on degraded trees: sib[s] is a switch of s's level
	 * with the level's full up-links whose parents include all of s's
	 * (VT_NONE: s is complete, or none). Such a sibling takes its parents
	 * in turn, so its n-th ascent goes to its (n mod up-links)-th; s, on
	 * its n-th ascent (nasc[s]), takes that same parent when linked to it,
	 * keeping every destination that can in its regular lane.
	 */
	uint32_t *sib, *nasc;
	uint32_t crank;	  /* rank of the compute destination being routed, else VT_NONE */
	uint64_t detours; /* switch/LID pairs routed by a detour (no up*-down* route) */
};

#define VT_ROUTE_KEYS 8u

static inline uint32_t swport(const struct router *r, uint32_t s, unsigned p)
{
	return vt_port_index(r->f, r->f->switches[s], p);
}

static inline int is_anc(const struct router *r, uint32_t s)
{
	return r->anc[s] == r->plan;
}

/*
 * The lowest turn rank among the parents c's own route may go up to (one hop
 * closer to px); computed once per plan and up class, as every detour switch
 * above c asks (c routes up, so it has its class's parents and hop count).
 */
static uint32_t up_rank(struct router *r, uint32_t c)
{
	const vt_tree *t = r->t;
	uint32_t m = UINT32_MAX, u = r->ucls[c];

	if (r->urank_at[u] == r->plan)
		return r->urank[u];
	for (uint32_t j = t->up_start[c]; j < t->up_start[c + 1]; j++)
		if (r->h[t->up_peer[j]] + 1 == r->h[c] && r->rank[t->up_peer[j]] < m)
			m = r->rank[t->up_peer[j]];
	r->urank_at[u] = r->plan;
	r->urank[u] = m;
	return m;
}

/*
 * May a detour come down from s into c and follow c's route? c's route is
 * up*-down*; where it goes up the detour turns down-up at c, which is safe
 * when s ranks below every parent c may go up to (vt_route's turn order):
 * the turn is allowed when turn_key(c) > rank[s].
 */
static uint32_t turn_key(struct router *r, uint32_t c)
{
	return r->dist[c] || is_anc(r, c) ? UINT32_MAX : up_rank(r, c);
}

static inline void add_fill(struct router *r, uint32_t s, const uint8_t *base, uint32_t off,
			    uint32_t n)
{
	if (n != r->lastn) {
		r->lastn = n;
		r->rstart[r->nrun] = r->nfill;
		r->rn[r->nrun++] = n;
	}
	r->frow[r->nfill] = (size_t)s * r->lfts->nlid;
	r->fbase[r->nfill] = base;
	r->fcand[r->nfill++] = &r->cpos[off];
}

/* Ancestors of x (x is below them), upwards from x: h counts the hops down. */
static void plan_ancestors(struct router *r, uint32_t x)
{
	const vt_tree *t = r->t;
	uint32_t nq = 0;

	r->anc[x] = r->plan;
	r->h[x] = 0;
	r->queue[nq++] = x;
	for (uint32_t q = 0; q < nq; q++) {
		uint32_t s = r->queue[q];

		for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++) {
			uint32_t p = t->up_peer[j];

			if (!is_anc(r, p)) {
				r->anc[p] = r->plan;
				r->h[p] = r->h[s] + 1;
				r->queue[nq++] = p;
			}
		}
	}
}

/*
 * The candidates of the up class c's members that are not ancestors: one hop
 * more than their nearest parent, up to every parent that near (their parents
 * are one level up, done already).
 */
static struct cls *up_class(struct router *r, uint32_t c)
{
	const vt_tree *t = r->t;
	struct cls *k = &r->ucl[c];
	uint32_t a, n, best = VT_NONE;

	if (k->at == r->plan)
		return k;
	a = t->up_start[k->rep];
	n = t->up_start[k->rep + 1] - a;
	k->at = r->plan;
	k->off = r->npos;
	k->n = 0;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t v = r->h[t->up_peer[a + j]];

		if (v < best) {
			best = v;
			k->n = 0;
		}
		if (v == best && v != VT_NONE)
			r->cpos[k->off + k->n++] = (uint8_t)j;
	}
	k->h = best == VT_NONE ? VT_NONE : best + 1;
	r->npos += k->n;
	return k;
}

/* The candidates of the down class c's members that are ancestors: the children that are. */
static struct cls *down_class(struct router *r, uint32_t c)
{
	const vt_tree *t = r->t;
	struct cls *k = &r->dcl[c];
	uint32_t a = t->dn_start[k->rep], n = t->dn_start[k->rep + 1] - a;

	if (k->at == r->plan)
		return k;
	k->at = r->plan;
	k->off = r->npos;
	k->n = 0;
	for (uint32_t j = 0; j < n; j++)
		if (is_anc(r, t->dn_peer[a + j]))
			r->cpos[k->off + k->n++] = (uint8_t)j;
	r->npos += k->n;
	return k;
}

/*
 * Top level first, so every parent is done before its children: ancestors
 * go down to a child that is an ancestor, the others up to their nearest
 * parents. Returns the switches left without a route, put in queue[].
 */
static uint32_t plan_hops(struct router *r, uint32_t x)
{
	const vt_tree *t = r->t;
	uint32_t nd = 0;

	for (uint32_t l = t->nlevels; l-- > 0;)
		for (uint32_t i = t->lvl_start[l]; i < t->lvl_start[l + 1]; i++) {
			uint32_t s = t->by_level[i];
			const struct cls *k;

			r->dist[s] = 0; /* detours: a switch with a route */
			if (is_anc(r, s)) {
				if (s == x)
					continue;
				k = down_class(r, r->dcls[s]);
				add_fill(r, s, &t->dn_port[t->dn_start[s]], k->off, k->n);
				continue;
			}
			k = up_class(r, r->ucls[s]);
			r->h[s] = k->h;
			if (k->h == VT_NONE) {
				r->dist[s] = VT_NONE;
				r->queue[nd++] = s;
				continue;
			}
			r->nreach0 += !l;
			add_fill(r, s, &t->up_port[t->up_start[s]], k->off, k->n);
		}
	return nd;
}

/* The parents at distance d - 1 of up class c's members, those of the lowest turn rank. */
static struct cls *detour_up(struct router *r, uint32_t c, uint32_t d)
{
	const vt_tree *t = r->t;
	struct cls *k = &r->ucl[c];
	uint32_t a = t->up_start[k->rep], n = t->up_start[k->rep + 1] - a, br = UINT32_MAX;

	if (k->dat == r->plan && k->dd == d)
		return k;
	k->dat = r->plan;
	k->dd = d;
	k->doff = r->npos;
	k->dn = 0;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t p = t->up_peer[a + j];

		if (r->dist[p] + 1 != d || r->rank[p] > br)
			continue;
		if (r->rank[p] < br) {
			br = r->rank[p];
			k->dn = 0;
		}
		r->cpos[k->doff + k->dn++] = (uint8_t)j;
	}
	r->npos += k->dn;
	return k;
}

/* The children at distance d - 1 of down class c's members, and their turn keys' range. */
static struct cls *detour_down(struct router *r, uint32_t c, uint32_t d)
{
	const vt_tree *t = r->t;
	struct cls *k = &r->dcl[c];
	uint32_t a = t->dn_start[k->rep], n = t->dn_start[k->rep + 1] - a;

	if (k->dat == r->plan && k->dd == d)
		return k;
	k->dat = r->plan;
	k->dd = d;
	k->doff = r->npos;
	k->dn = 0;
	k->kmin = UINT32_MAX;
	k->kmax = 0;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t ch = t->dn_peer[a + j], key;

		if (r->dist[ch] + 1 != d)
			continue;
		key = turn_key(r, ch);
		k->kmin = key < k->kmin ? key : k->kmin;
		k->kmax = key > k->kmax ? key : k->kmax;
		r->cpos[k->doff + k->dn++] = (uint8_t)j;
	}
	r->npos += k->dn;
	return k;
}

/*
 * A detour switch s goes one hop closer to a switch with a route: up to the
 * parents of the lowest turn rank if it can, else down where the turn is
 * allowed (turn_key), else (none allowed) down anywhere closer.
 */
static void detour_cands(struct router *r, uint32_t s)
{
	const vt_tree *t = r->t;
	uint32_t d = r->dist[s], rk = r->rank[s], off;
	const struct cls *k = detour_up(r, r->ucls[s], d);
	const uint8_t *dn = &t->dn_port[t->dn_start[s]];

	if (k->dn) {
		add_fill(r, s, &t->up_port[t->up_start[s]], k->doff, k->dn);
		return;
	}
	k = detour_down(r, r->dcls[s], d);
	if (k->kmin > rk || k->kmax <= rk) { /* all allowed, or none */
		add_fill(r, s, dn, k->doff, k->dn);
		return;
	}
	off = r->npos;
	for (uint32_t i = 0; i < k->dn; i++) {
		uint8_t j = r->cpos[k->doff + i];

		if (turn_key(r, t->dn_peer[t->dn_start[s] + j]) > rk)
			r->cpos[r->npos++] = j;
	}
	add_fill(r, s, dn, off, r->npos - off);
}

/*
 * Switches with no up*-down* route (a top switch towards another top's LID,
 * a switch cut off by a missing link) take a shortest path to the switches
 * that have one, over any link. The nd of them are queue[0 .. nd), dist
 * NONE; rounds pull distance k onto those next to a switch at k - 1.
 */
/* Is some peer[a .. b) at distance d? */
static inline int any_at(const uint32_t *dist, const uint32_t *peer, uint32_t a, uint32_t b,
			 uint32_t d)
{
	for (; a < b; a++)
		if (dist[peer[a]] == d)
			return 1;
	return 0;
}

static void plan_detours(struct router *r, uint32_t nd)
{
	const vt_tree *t = r->t;
	uint32_t *q = r->queue, *got = r->cur, ngot = 0; /* the descent's cur is free here */
	uint32_t *dist = r->dist;

	for (uint32_t k = 1, left = nd; left; k++) {
		uint32_t n = 0;

		for (uint32_t i = 0; i < left; i++) {
			uint32_t s = q[i];

			if (any_at(dist, t->dn_peer, t->dn_start[s], t->dn_start[s + 1], k - 1) ||
			    any_at(dist, t->up_peer, t->up_start[s], t->up_start[s + 1], k - 1))
				dist[got[ngot++] = s] = k;
			else
				q[n++] = s; /* still far: keep for the next round */
		}
		if (n == left)
			break; /* the rest are cut off from every route */
		left = n;
	}
	/* in any order: a switch's candidates depend on the distances alone */
	for (uint32_t i = 0; i < ngot; i++)
		detour_cands(r, got[i]);
}

/*
 * The plan of destination switch x: the routes every destination attached to
 * x gets on the switches its main route does not reach. Ancestors of x (x is
 * below them) go down to a child that is an ancestor; every other switch with
 * an up*-down* route goes up to a parent one hop closer; switches with none
 * take a detour (plan_detours). Host traffic only ever enters switches of the
 * first two kinds, and only leaves them up or down as ranked, so the routes
 * from CA ports stay up*-then-down*: the detours close no credit loop for them.
 */
static void make_plan(struct router *r, uint32_t x)
{
	r->px = x;
	r->plan++;
	r->nfill = 0;
	r->nrun = 0;
	r->lastn = 0;
	r->npos = 0;
	r->nreach0 = 0;
	plan_ancestors(r, x);
	plan_detours(r, plan_hops(r, x));
}

static inline void set_entry(struct router *r, uint32_t s, uint32_t lid, unsigned p)
{
	if (lid)
		vt_lft_set(r->lfts, s, lid, (uint8_t)p);
}

/*
 * Every switch of the plan gets its fill route, candidates taken in turn.
 * Locals, not r->...: the byte stores may alias anything, so the compiler
 * would reload every field per entry.
 */
static void write_fill(struct router *r, uint32_t lid, uint32_t rot)
{
	uint8_t *col = r->lfts->port + lid;
	const uint32_t *rstart = r->rstart, *rn = r->rn;
	const size_t *frow = r->frow;
	const uint8_t *const *fcand = r->fcand;
	const uint8_t *const *fbase = r->fbase;

	/* counts repeat in runs: divide once per run */
	for (uint32_t g = 0, i = 0; g < r->nrun; g++) {
		uint32_t m = rot % rn[g], e = g + 1 < r->nrun ? rstart[g + 1] : r->nfill;

		for (; i < e; i++)
			col[frow[i]] = fbase[i][fcand[i][m]];
	}
}

/*
 * Algorithm 3, level-synchronous: from the switches of the main route, every
 * switch below them that is not an ancestor of x and is one hop farther goes
 * up to the least-used link towards a main-route parent one hop closer. Taking
 * the hop counts in turn lets a switch with several such parents (slender
 * trees, parallel links) spread over all of them. Returns the leaves it
 * found: only missed leaves leave work for stragglers().
 */
static uint32_t descend(struct router *r, const uint32_t *path, uint32_t npath, uint32_t lid)
{
	/* locals, as in write_fill: the table's byte stores may alias the fields */
	const vt_tree *t = r->t;
	const uint32_t serial = r->serial, plan = r->plan, *h = r->h, *anc = r->anc;
	const uint32_t *up_start = t->up_start, *up_peer = t->up_peer, *dn_start = t->dn_start;
	const uint32_t *dn_peer = t->dn_peer, *dn_ridx = r->dn_ridx, *key = r->key;
	const uint32_t *first = r->swfirst;
	const uint8_t *up_port = t->up_port, *dn_rport = r->dn_rport, *level = t->level;
	uint32_t *mark = r->mark, *found = r->found, *via = r->via, *mul = r->mul;
	uint32_t *use_up = r->use_up, *use_key = r->use_key;
	/* a place-keeper (lid 0) writes every entry into one spare byte */
	uint8_t spare, *col = lid ? r->lfts->port + lid : &spare;
	const uint64_t nlid = lid ? r->lfts->nlid : 0;
	uint32_t ncur = 0, nnext = 0, *cur = r->cur, *next = r->next, nf = 0;

	/*
	 * A switch one main-route link found goes up that link, written when
	 * found; one found again (slender trees) takes that back and chooses
	 * among its links in the next round.
	 */
	for (uint32_t hh = 0, nmul = 0; hh < npath || ncur || nmul; hh++) {
		for (uint32_t i = 0; i < nmul; i++) {
			uint32_t c = mul[i], best = VT_NONE, bu = UINT32_MAX, q;

			for (uint32_t j = up_start[c]; j < up_start[c + 1]; j++) {
				uint32_t p = up_peer[j];

				if (mark[p] != serial || h[p] + 1 != hh)
					continue;
				q = (first[c] + up_port[j]) * VT_ROUTE_KEYS + key[level[c]];
				if (use_key[q] < bu) {
					bu = use_key[q];
					best = j;
				}
			}
			q = first[c] + up_port[best];
			use_key[q * VT_ROUTE_KEYS + key[level[c]]]++;
			use_up[q]++;
			col[c * nlid] = up_port[best];
		}
		if (hh < npath)
			cur[ncur++] = path[hh];
		nnext = 0;
		nmul = 0;
		for (uint32_t i = 0; i < ncur; i++) {
			uint32_t s = cur[i], n0 = nnext;

			mark[s] = serial;
			for (uint32_t k = dn_start[s]; k < dn_start[s + 1]; k++) {
				uint32_t c = dn_peer[k];

				if (anc[c] == plan || h[c] != hh + 1)
					continue;
				if (found[c] == serial) {
					if (via[c] != VT_NONE) {
						use_up[dn_ridx[via[c]]]--;
						via[c] = VT_NONE;
						mul[nmul++] = c;
					}
					continue;
				}
				found[c] = serial;
				via[c] = k;
				use_up[dn_ridx[k]]++;
				col[c * nlid] = dn_rport[k];
				next[nnext++] = c;
			}
			if (level[s] == 1) { /* its children are leaves: nothing below */
				nf += nnext - n0;
				nnext = n0;
			}
		}
		uint32_t *tmp = cur;

		cur = next;
		next = tmp;
		ncur = nnext;
	}
	return nf;
}

/*
 * A straggler c with a complete sibling lost the parent behind port pn (in
 * the sibling's run): it takes the first parent it has from half that run
 * on, a fixed lane away from the lost one (as the ascent falls back), rather
 * than the least-used one.
 */
static uint32_t straggler_pref(const struct router *r, uint32_t c, uint8_t pn)
{
	const vt_tree *t = r->t;
	uint32_t sb = r->sib[c], sa, sn, i;

	if (sb == VT_NONE)
		return VT_NONE;
	sa = t->up_start[sb];
	sn = t->up_start[sb + 1] - sa;
	for (i = 0; i < sn && t->up_port[sa + i] != pn; i++)
		;
	if (i == sn)
		return VT_NONE;
	for (uint32_t k = 1; k < sn; k++) {
		uint32_t p = t->up_peer[sa + (i + sn / 2 + k - 1) % sn];

		for (uint32_t j = t->up_start[c]; j < t->up_start[c + 1]; j++)
			if (t->up_peer[j] == p && r->h[p] + 1 == r->h[c])
				return p;
	}
	return VT_NONE;
}

/*
 * Destinations of leaf x expected down its up-link with port number pnum
 * (capped at 62; 63 when x has no such port): its ascents take its nu
 * up-links in turn, so the first hosts_per_leaf % nu take one more.
 */
static uint32_t lane_share(const struct router *r, uint32_t x, uint8_t pnum)
{
	const vt_tree *t = r->t;
	uint32_t a = t->up_start[x], nu = t->up_start[x + 1] - a, hpl = t->hosts_per_leaf;

	for (uint32_t j = a; j < a + nu; j++)
		if (t->up_port[j] == pnum) {
			uint32_t v = hpl / nu + (j - a < hpl % nu);

			return v > 62 ? 62 : v;
		}
	return 63;
}

/* Port number of rank d's leaf's up-link its ascent takes (in turn), 0 if none. */
static uint8_t rank_lane(const struct router *r, uint32_t d)
{
	const vt_tree *t = r->t;
	uint32_t L = t->rank_leaf[d], a = t->up_start[L], nu = t->up_start[L + 1] - a;
	uint32_t off = d - t->subs[t->sub[L]].first_rank;

	return nu ? t->up_port[a + off % nu] : 0;
}

/*
 * A shift stage sends a leaf's hosts to a window of as many consecutive
 * ranks: the most of the other destinations in any window holding the
 * current one (crank) that are expected on lane pnum (their leaves' lanes,
 * the same port numbers in a regularly cabled tree). 0 for destinations
 * that are not compute nodes, or leaves wider than 64.
 */
static uint32_t window_load(const struct router *r, uint8_t pnum)
{
	const vt_tree *t = r->t;
	uint32_t w = t->hosts_per_leaf, n = t->order.n, d = r->crank, hit[2 * 64], best = 0;

	if (d == VT_NONE || w > 64 || 2 * w > n)
		return 0;
	for (uint32_t k = 0; k + 1 < 2 * w; k++) {
		uint32_t dd = (d + n + k - (w - 1)) % n;

		hit[k] = dd != d && t->order.port[dd] != VT_NONE && rank_lane(r, dd) == pnum;
	}
	for (uint32_t a = 0; a < w; a++) {
		uint32_t sum = 0;

		for (uint32_t k = a; k < a + w; k++)
			sum += hit[k];
		best = sum > best ? sum : best;
	}
	return best > 62 ? 62 : best;
}

/* The fewest destinations routed so far from ancestor p down to a child that is an ancestor. */
static uint32_t down_load(const struct router *r, uint32_t p)
{
	const vt_tree *t = r->t;
	uint32_t ld = 62;

	for (uint32_t k = t->dn_start[p]; k < t->dn_start[p + 1]; k++)
		if (is_anc(r, t->dn_peer[k])) {
			uint32_t v = r->use_dn[swport(r, p, t->dn_port[k])];

			ld = v < ld ? v : ld;
		}
	return ld;
}

/*
 * Switches below the main route that its descent missed (a degraded tree:
 * they lost their link towards it) still carry host traffic. Each goes up
 * to a parent one hop closer: a main-route one if it has it, else the one
 * its complete sibling's run names (straggler_pref). Else a leaf takes the
 * lane (port number, the same position in a regularly cabled tree) on which
 * the destination's own leaf expects the fewest destinations, so it does not
 * add to the lane that leaf doubles; a higher switch takes, among parents
 * that go down towards the destination, the one whose way down carries the
 * fewest so far, so it does not add to a lane doubled there. Ties go to the
 * port the main route took at its level (so the subtree stays in step with
 * the others), then to the least-used.
 */
static void stragglers(struct router *r, const uint8_t *pn, uint32_t lid)
{
	const vt_tree *t = r->t;
	uint32_t n = 0, *list = r->next;

	/* missed leaves, then only the missed switches they (transitively) feed */
	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++) {
		uint32_t c = t->by_level[i];

		if (is_anc(r, c) || r->found[c] == r->serial || r->h[c] == VT_NONE)
			continue;
		r->found[c] = r->serial;
		list[n++] = c;
	}
	for (uint32_t k = 0; k < n; k++) {
		uint32_t c = list[k], l = t->level[c], best = VT_NONE, bu = UINT32_MAX, bm = 0, p;
		uint32_t pref = straggler_pref(r, c, pn[l]);

		for (uint32_t j = t->up_start[c]; j < t->up_start[c + 1]; j++) {
			uint32_t q, m;

			p = t->up_peer[j];
			if (r->h[p] + 1 != r->h[c])
				continue;
			q = swport(r, c, t->up_port[j]);
			m = r->mark[p] == r->serial ? 3 : p == pref ? 2 : t->up_port[j] == pn[l];
			if (!l) /* the lane least used near d, then by d's leaf */
				m = (m * 64 + 63 - window_load(r, t->up_port[j])) * 64 + 63 -
				    lane_share(r, r->px, t->up_port[j]);
			else if (is_anc(r, p)) /* a parent whose way down is least used */
				m = m >= 2 ? m * 128 : (63 - down_load(r, p)) * 2 + m;
			if (m > bm || (m == bm && r->use_up[q] < bu)) {
				bm = m;
				bu = r->use_up[q];
				best = j;
			}
		}
		r->use_up[swport(r, c, t->up_port[best])]++;
		set_entry(r, c, lid, t->up_port[best]);
		p = t->up_peer[best];
		if (!is_anc(r, p) && r->found[p] != r->serial) {
			r->found[p] = r->serial;
			list[n++] = p;
		}
	}
}

/*
 * One destination attached to switch x through local port xp (0: the switch
 * itself); lid 0 is a place-keeper, which moves the counters only. rot turns
 * the tie-break so the LIDs of one LMC range take different paths.
 */
static void route_dest(struct router *r, uint32_t x, unsigned xp, uint32_t lid, uint32_t rot)
{
	const vt_tree *t = r->t;
	uint32_t path[VT_TREE_MAX_LEVELS], n = 0, s = x;
	uint8_t pn[VT_TREE_MAX_LEVELS] = {0};

	memset(r->key, 0, sizeof(r->key));

	if (r->px != x)
		make_plan(r, x);
	r->serial++;
	if (lid)
		write_fill(r, lid, r->serial);
	set_entry(r, x, lid, xp);
	path[n++] = x;
	/* Algorithm 4: up through the least-used down-going port */
	for (;;) {
		uint32_t a = t->up_start[s], nu = t->up_start[s + 1] - a, best = VT_NONE;
		uint32_t bu = UINT32_MAX, rq = VT_NONE, want = VT_NONE, sb = r->sib[s];

		/*
		 * the sibling's parent for this ascent, else the first s has from
		 * half its run on: the destination then shares a lane with one
		 * half a subtree away (fewer shift stages hold both than with a
		 * neighbour), and switches that lost different parents fall back
		 * to different ones
		 */
		for (uint32_t k = 0, sn = 0; sb != VT_NONE && best == VT_NONE && k <= sn; k++) {
			uint32_t sa = t->up_start[sb];

			sn = t->up_start[sb + 1] - sa;
			want = t->up_peer[sa + (r->nasc[s] + rot + (k ? sn / 2 + k - 1 : 0)) % sn];
			for (uint32_t i = 0; i < nu; i++) {
				uint32_t j = a + (i + rot) % nu;
				uint32_t q = r->f->ports[swport(r, s, t->up_port[j])].peer;

				if (t->up_peer[j] == want && r->use_dn[q] < bu) {
					bu = r->use_dn[q];
					best = j;
					rq = q;
				}
			}
		}
		r->nasc[s]++;
		for (uint32_t i = 0, any = best == VT_NONE; i < nu && any; i++) {
			uint32_t j = a + (i + rot) % nu;
			uint32_t q = r->f->ports[swport(r, s, t->up_port[j])].peer;

			if (r->use_dn[q] < bu) {
				bu = r->use_dn[q];
				best = j;
				rq = q;
			}
		}
		if (best == VT_NONE)
			break;
		r->use_dn[rq]++;
		pn[t->level[s]] = t->up_port[best];
		{
			/* the key names the parent (port group), not the port: parallel
			 * links to one parent share counters */
			uint32_t g = 0;

			for (uint32_t j = a + 1; j <= best; j++)
				g += t->up_peer[j] != t->up_peer[j - 1];
			r->key[t->level[s] + 1] = (g + 1) % VT_ROUTE_KEYS;
		}
		s = t->up_peer[best];
		set_entry(r, s, lid, r->f->ports[rq].num);
		path[n++] = s;
	}
	/* switch LIDs carry no bulk traffic: their missed switches keep the plan's fill */
	if (descend(r, path, n, lid) < r->nreach0 && (xp || !lid))
		stragglers(r, pn, lid);
}

static void route_ca_port(struct router *r, uint32_t cap)
{
	const vt_fabric *f = r->f;
	const struct vt_port *p = &f->ports[cap];
	uint32_t sp = p->peer, x = f->nodes[f->ports[sp].node].sw;

	if (r->t->level[x] == 0xFF || !p->lid)
		return;
	for (uint32_t o = 0; o < (1u << p->lmc); o++)
		route_dest(r, x, f->ports[sp].num, p->lid + o, o);
}

struct log_ctx {
	const struct vt_route_opts *o;
	uint32_t plane, nplanes;
};

static void log_line(void *ctx, const char *s)
{
	const struct log_ctx *c = ctx;
	char buf[400];

	if (c->nplanes < 2) {
		c->o->log(c->o->log_ctx, VT_LOG_INFO, s);
		return;
	}
	snprintf(buf, sizeof(buf), "plane %u: %s", c->plane, s);
	c->o->log(c->o->log_ctx, VT_LOG_INFO, buf);
}

uint32_t vt_route_planes(const vt_fabric *f, uint32_t *plane)
{
	uint32_t nsw = f->nswitches, np = 0;
	uint32_t *q = malloc((nsw + 1) * sizeof(*q));

	if (!q)
		return VT_NONE;
	for (uint32_t s = 0; s < nsw; s++)
		plane[s] = VT_NONE;
	for (uint32_t n = 0; n < f->nnodes; n++) {
		if (f->nodes[n].type == VT_SWITCH)
			continue;
		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			uint32_t m = vt_peer_node(f, vt_port_index(f, n, p)), nq = 0;

			if (m == VT_NONE || f->nodes[m].type != VT_SWITCH ||
			    plane[f->nodes[m].sw] != VT_NONE)
				continue;
			/* a new plane: every switch linked to this one */
			plane[f->nodes[m].sw] = np;
			q[nq++] = f->nodes[m].sw;
			for (uint32_t h = 0; h < nq; h++) {
				uint32_t node = f->switches[q[h]];

				for (unsigned k = 1; k <= f->nodes[node].nports; k++) {
					uint32_t v = vt_peer_node(f, vt_port_index(f, node, k));

					if (v != VT_NONE && f->nodes[v].type == VT_SWITCH &&
					    plane[f->nodes[v].sw] == VT_NONE) {
						plane[f->nodes[v].sw] = np;
						q[nq++] = f->nodes[v].sw;
					}
				}
			}
			np++;
		}
	}
	free(q);
	return np;
}

int vt_route_plane_order(const vt_fabric *f, const vt_order *o, uint32_t plane, vt_order *out,
			 vt_err *e)
{
	uint32_t *pl = malloc((f->nswitches + 1) * sizeof(*pl));

	memset(out, 0, sizeof(*out));
	out->port = malloc((o->n + 1) * sizeof(*out->port));
	if (!pl || !out->port || vt_route_planes(f, pl) == VT_NONE) {
		free(pl);
		vt_order_free(out);
		return vt_err_set(e, "out of memory");
	}
	out->n = o->n;
	for (uint32_t i = 0; i < o->n; i++) {
		uint32_t n = o->port[i] == VT_NONE ? VT_NONE : f->ports[o->port[i]].node;

		out->port[i] = VT_NONE;
		for (unsigned p = 1; n != VT_NONE && p <= f->nodes[n].nports; p++) {
			uint32_t m = vt_peer_node(f, vt_port_index(f, n, p));

			if (m != VT_NONE && f->nodes[m].type == VT_SWITCH &&
			    pl[f->nodes[m].sw] == plane) {
				out->port[i] = vt_port_index(f, n, p);
				break;
			}
		}
	}
	free(pl);
	return 0;
}

static void router_free(struct router *r)
{
	free(r->use_dn);
	free(r->use_up);
	free(r->h);
	free(r->anc);
	free(r->urank);
	free(r->urank_at);
	free(r->frow);
	free(r->fcand);
	free(r->rstart);
	free(r->rn);
	free(r->mul);
	free(r->fbase);
	free(r->cpos);
	free(r->ucls);
	free(r->dcls);
	free(r->ucl);
	free(r->dcl);
	free(r->queue);
	free(r->dist);
	free(r->mark);
	free(r->found);
	free(r->cur);
	free(r->next);
	free(r->via);
	free(r->dn_rport);
	free(r->dn_ridx);
	free(r->swfirst);
	free(r->use_key);
	free(r->rank);
	free(r->sib);
	free(r->nasc);
}

static int router_alloc(struct router *r, const vt_fabric *f, vt_err *e)
{
	uint32_t nsw = f->nswitches + 1;

	r->use_dn = calloc(f->nports + 1, sizeof(uint32_t));
	r->use_up = calloc(f->nports + 1, sizeof(uint32_t));
	r->h = malloc(nsw * sizeof(uint32_t));
	r->anc = calloc(nsw, sizeof(uint32_t));
	r->urank = malloc(nsw * sizeof(uint32_t));
	r->urank_at = calloc(nsw, sizeof(uint32_t));
	r->frow = malloc(nsw * sizeof(*r->frow));
	r->fcand = malloc(nsw * sizeof(*r->fcand));
	r->rstart = malloc(nsw * sizeof(uint32_t));
	r->rn = malloc(nsw * sizeof(uint32_t));
	r->mul = malloc(nsw * sizeof(uint32_t));
	r->fbase = malloc(nsw * sizeof(*r->fbase));
	r->ucls = malloc(nsw * sizeof(uint32_t));
	r->dcls = malloc(nsw * sizeof(uint32_t));
	r->ucl = calloc(nsw, sizeof(struct cls));
	r->dcl = calloc(nsw, sizeof(struct cls));
	r->queue = malloc(nsw * sizeof(uint32_t));
	r->dist = malloc(nsw * sizeof(uint32_t));
	r->mark = calloc(nsw, sizeof(uint32_t));
	r->found = calloc(nsw, sizeof(uint32_t));
	r->cur = malloc(nsw * sizeof(uint32_t));
	r->next = malloc(nsw * sizeof(uint32_t));
	r->use_key = calloc(((size_t)f->nports + 1) * VT_ROUTE_KEYS, sizeof(uint32_t));
	r->via = calloc(nsw, sizeof(uint32_t));
	r->rank = calloc(nsw, sizeof(uint32_t));
	r->sib = malloc(nsw * sizeof(uint32_t));
	r->nasc = calloc(nsw, sizeof(uint32_t));
	r->swfirst = malloc(nsw * sizeof(uint32_t));
	if (!r->swfirst || !r->sib || !r->nasc || !r->via || !r->rank || !r->use_key ||
	    !r->use_dn || !r->use_up || !r->h || !r->anc || !r->frow || !r->fcand || !r->rstart ||
	    !r->rn || !r->mul || !r->fbase || !r->ucls || !r->dcls || !r->ucl || !r->dcl ||
	    !r->queue || !r->dist || !r->mark || !r->found || !r->cur || !r->next)
		return vt_err_set(e, "out of memory");
	for (uint32_t s = 0; s < f->nswitches; s++)
		r->swfirst[s] = vt_port_index(f, f->switches[s], 0);
	return 0;
}

static uint32_t uf_find(uint32_t *uf, uint32_t x)
{
	while (uf[x] != x)
		x = uf[x] = uf[uf[x]];
	return x;
}

/* r->rank: see struct router. Classes ranked by their first switch in tree order. */
static int turn_ranks(struct router *r, const vt_tree *t, vt_err *e)
{
	uint32_t nsw = t->nsw, *uf = malloc((nsw + 1) * sizeof(*uf));
	uint8_t *lost = calloc(nsw + 1, 1);

	if (!uf || !lost) {
		free(uf);
		free(lost);
		return vt_err_set(e, "out of memory");
	}
	for (uint32_t s = 0; s < nsw; s++)
		uf[s] = s;
	for (uint32_t s = 0; s < nsw; s++)
		for (uint32_t j = t->dn_start[s]; j + 1 < t->dn_start[s + 1]; j++) {
			uint32_t a = uf_find(uf, t->dn_peer[j]), b = uf_find(uf, t->dn_peer[j + 1]);

			uf[a > b ? a : b] = a > b ? b : a;
		}
	for (uint32_t s = 0; s < nsw; s++)
		if (t->level[s] != 0xFF && t->level[s] &&
		    t->dn_start[s + 1] - t->dn_start[s] < t->lv[t->level[s]].down_links)
			lost[uf_find(uf, s)] = 1;
	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[t->nlevels]; i++) {
		uint32_t s = t->by_level[i], c = uf_find(uf, s);

		r->rank[s] = lost[c] * nsw + t->pos[c];
	}
	free(uf);
	free(lost);
	return 0;
}

static int same_run(const vt_tree *t, const uint32_t *start, const uint32_t *peer, uint32_t a,
		    uint32_t b)
{
	uint32_t n = start[a + 1] - start[a];

	return t->level[a] == t->level[b] && start[b + 1] - start[b] == n &&
	       !memcmp(&peer[start[a]], &peer[start[b]], n * sizeof(*peer));
}

/*
 * Groups the switches of tree t by level and peer run (up_peer[] or dn_peer[]
 * with its start[] offsets): cls[s] per switch, k[] the classes' first
 * members, found through a hash table. Returns the number of classes, VT_NONE
 * when out of memory.
 */
static uint32_t classify(const vt_tree *t, const uint32_t *start, const uint32_t *peer,
			 uint32_t *cls, struct cls *k)
{
	uint32_t cap = 2, nk = 0, *slot;

	while (cap < 2 * t->nsw)
		cap *= 2;
	slot = malloc(cap * sizeof(*slot));
	if (!slot)
		return VT_NONE;
	memset(slot, 0xFF, cap * sizeof(*slot));
	for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[t->nlevels]; i++) {
		uint32_t s = t->by_level[i], hv = 2166136261u * 16777619u ^ t->level[s], q;

		for (uint32_t j = start[s]; j < start[s + 1]; j++)
			hv = (hv ^ peer[j]) * 16777619u;
		for (q = hv & (cap - 1); slot[q] != VT_NONE; q = (q + 1) & (cap - 1))
			if (same_run(t, start, peer, k[slot[q]].rep, s))
				break;
		if (slot[q] == VT_NONE) {
			slot[q] = nk;
			k[nk] = (struct cls){.rep = s};
			nk++;
		}
		cls[s] = slot[q];
	}
	free(slot);
	return nk;
}

/* Is every parent of s also a parent of c? */
static int parents_within(const vt_tree *t, uint32_t s, uint32_t c)
{
	for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++) {
		uint32_t k = t->up_start[c];

		while (k < t->up_start[c + 1] && t->up_peer[k] != t->up_peer[j])
			k++;
		if (k == t->up_start[c + 1])
			return 0;
	}
	return 1;
}

/* r->sib: see struct router; a sibling is looked for among the first parent's children. */
static void siblings(struct router *r, const vt_tree *t)
{
	for (uint32_t s = 0; s < t->nsw; s++) {
		uint32_t l = t->level[s], nu = t->up_start[s + 1] - t->up_start[s], p;

		r->sib[s] = VT_NONE;
		if (l == 0xFF || !l || !nu || nu >= t->lv[l].up_links)
			continue;
		p = t->up_peer[t->up_start[s]];
		for (uint32_t k = t->dn_start[p]; k < t->dn_start[p + 1]; k++) {
			uint32_t c = t->dn_peer[k];

			if (t->up_start[c + 1] - t->up_start[c] == t->lv[l].up_links &&
			    parents_within(t, s, c)) {
				r->sib[s] = c;
				break;
			}
		}
	}
}

/* Per-plane tables: dn_rport, the classes and room for a plan's candidates. */
static int plane_tables(struct router *r, const vt_tree *t, vt_err *e)
{
	const vt_fabric *f = r->f;
	uint32_t nlinks = t->up_start[t->nsw] + t->dn_start[t->nsw];

	free(r->dn_rport);
	free(r->dn_ridx);
	free(r->cpos);
	r->dn_rport = malloc(t->dn_start[t->nsw] + 1);
	r->dn_ridx = malloc(((size_t)t->dn_start[t->nsw] + 1) * sizeof(uint32_t));
	/* each class's hop list once; detours: per switch a class list and a filtered one */
	r->cpos = malloc(3 * (size_t)nlinks + 1);
	if (!r->dn_rport || !r->dn_ridx || !r->cpos)
		return vt_err_set(e, "out of memory");
	for (uint32_t s = 0; s < t->nsw; s++)
		for (uint32_t k = t->dn_start[s]; k < t->dn_start[s + 1]; k++) {
			r->dn_ridx[k] = f->ports[swport(r, s, t->dn_port[k])].peer;
			r->dn_rport[k] = f->ports[r->dn_ridx[k]].num;
		}
	siblings(r, t);
	r->nucl = classify(t, t->up_start, t->up_peer, r->ucls, r->ucl);
	r->ndcl = classify(t, t->dn_start, t->dn_peer, r->dcls, r->dcl);
	if (r->nucl == VT_NONE || r->ndcl == VT_NONE)
		return vt_err_set(e, "out of memory");
	return 0;
}

/* Routes every LID of plane t: compute nodes in index order, other CAs, switches. */
static int route_plane(struct router *r, const vt_tree *t, vt_err *e)
{
	const vt_fabric *f = r->f;
	uint32_t maxlmc = 0;

	r->t = t;
	r->px = VT_NONE;
	r->crank = VT_NONE;
	if (turn_ranks(r, t, e))
		return -1;
	if (plane_tables(r, t, e))
		return -1;
	/* Algorithm 2: compute nodes in index order, place-keepers included */
	for (uint32_t i = 0; i < t->order.n; i++)
		if (t->order.port[i] != VT_NONE && f->ports[t->order.port[i]].lmc > maxlmc)
			maxlmc = f->ports[t->order.port[i]].lmc;
	for (uint32_t off = 0; off < (1u << maxlmc); off++)
		for (uint32_t i = 0; i < t->order.n; i++) {
			uint32_t cap = t->order.port[i];

			r->crank = i;
			if (cap == VT_NONE) {
				if (!off)
					route_dest(r, t->rank_leaf[i], 0, 0, 0);
				continue;
			}
			const struct vt_port *p = &f->ports[cap];
			const struct vt_port *sp = &f->ports[p->peer];

			if (off < (1u << p->lmc) && p->lid)
				route_dest(r, f->nodes[sp->node].sw, sp->num, p->lid + off, off);
		}
	r->crank = VT_NONE;
	/* then every other CA port (I/O and service nodes) of the plane */
	for (uint32_t q = 0; q < f->nports; q++) {
		const struct vt_port *p = &f->ports[q];

		if (p->num && p->peer != VT_NONE && f->nodes[p->node].type != VT_SWITCH &&
		    !t->is_cn[q] && f->nodes[f->ports[p->peer].node].type == VT_SWITCH)
			route_ca_port(r, q);
	}
	/* switches in LID order, so the tables do not depend on the input's record order
	 * (the plugin's model and an ibnetdiscover dump list the same switches differently) */
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint32_t q = f->lid_port[lid], s;

		if (q == VT_NONE || f->ports[q].num || f->ports[q].lid != lid ||
		    f->nodes[f->ports[q].node].type != VT_SWITCH)
			continue;
		s = f->nodes[f->ports[q].node].sw;
		if (t->level[s] != 0xFF)
			route_dest(r, s, 0, lid, 0);
	}
	return 0;
}

int vt_route(const vt_fabric *f, const struct vt_route_opts *o, vt_lfts *lfts, vt_order *order,
	     vt_err *e)
{
	struct vt_tree_opts to = {0};
	struct router r = {0};
	vt_tree t;
	uint32_t *plane = NULL, np;

	memset(lfts, 0, sizeof(*lfts));
	memset(order, 0, sizeof(*order));
	if (o) {
		to.root_guids = o->root_guids;
		to.nroots = o->nroots;
		to.cn_guids = o->cn_guids;
		to.ncns = o->ncns;
		to.io_guids = o->io_guids;
		to.nios = o->nios;
	}
	plane = malloc((f->nswitches + 1) * sizeof(*plane));
	if (!plane || (np = vt_route_planes(f, plane)) == VT_NONE) {
		free(plane);
		return vt_err_set(e, "out of memory");
	}
	if (np > 1)
		to.plane_of = plane;
	if (vt_lfts_init(lfts, f, e) || router_alloc(&r, f, e))
		goto fail;
	r.f = f;
	r.lfts = lfts;
	for (uint32_t p = 0; p < (np ? np : 1); p++) {
		struct log_ctx lc = {o, p, np};

		to.plane = p;
		if (vt_tree_build(&t, f, &to, e)) {
			if (np > 1) {
				char buf[VT_ERR_MAX];

				memcpy(buf, e->msg, sizeof(buf));
				snprintf(e->msg, sizeof(e->msg), "plane %u: %.480s", p, buf);
			}
			goto fail;
		}
		if (o && o->log && o->log_level >= VT_LOG_INFO)
			vt_tree_describe(&t, log_line, &lc);
		if (route_plane(&r, &t, e)) {
			vt_tree_free(&t);
			goto fail;
		}
		if (!p) {
			order->port = malloc((t.order.n + 1) * sizeof(*order->port));
			if (!order->port) {
				vt_tree_free(&t);
				vt_err_set(e, "out of memory");
				goto fail;
			}
			memcpy(order->port, t.order.port, t.order.n * sizeof(*order->port));
			order->n = t.order.n;
		}
		vt_tree_free(&t);
	}
	/* switches outside every tree still answer for their own LID */
	for (uint32_t s = 0; s < f->nswitches; s++) {
		const struct vt_port *p0 = vt_port(f, f->switches[s], 0);

		if (p0->lid && vt_lft_get(lfts, s, p0->lid) == VT_LFT_NONE)
			vt_lft_set(lfts, s, p0->lid, 0);
	}
	router_free(&r);
	free(plane);
	return 0;
fail:
	router_free(&r);
	free(plane);
	vt_order_free(order);
	vt_lfts_free(lfts);
	return -1;
}
