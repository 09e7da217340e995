/* SPDX-License-Identifier: MIT */
/* Static congestion counting (see vt_congest.h for the model and the two methods). */
#include "vt_congest.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vt_bound.h"

/* ---- routes */

void vt_routes_free(vt_routes *r)
{
	free(r->rank_lid);
	free(r->rank_sw);
	free(r->rank_up);
	free(r->chan_sw);
	free(r->counted);
	free(r->next);
	free(r->run_first);
	free(r->run_len);
	free(r->run_sw);
	memset(r, 0, sizeof(*r));
}

/*
 * Keeps next[r][sw] only where the whole path from sw delivers to r's port:
 * a flow either follows a good path or is unrouted, in every method alike.
 */
static void prune_bad(vt_routes *r, uint32_t rank, uint32_t dst_port, uint8_t *state,
		      uint32_t *stack)
{
	uint32_t nsw = r->nsw, *row = r->next + (uint64_t)rank * nsw;

	memset(state, 0, nsw); /* 0 unknown, 1 on stack, 2 good, 3 bad */
	for (uint32_t s0 = 0; s0 < nsw; s0++) {
		uint32_t sp = 0, sw = s0, good;
		while (1) {
			if (state[sw] >= 2) {
				good = state[sw] == 2;
				break;
			}
			if (state[sw] == 1) { /* loop */
				good = 0;
				break;
			}
			uint32_t ch = row[sw];
			if (ch == VT_NONE) {
				good = 0;
				state[sw] = 3;
				break;
			}
			state[sw] = 1;
			stack[sp++] = sw;
			if (r->chan_sw[ch] == VT_NONE) {
				good = r->f->ports[ch].peer == dst_port;
				break;
			}
			sw = r->chan_sw[ch];
		}
		while (sp) {
			uint32_t x = stack[--sp];
			state[x] = good ? 2 : 3;
			if (!good)
				row[x] = VT_NONE;
		}
	}
}

static int build_runs(vt_routes *r, vt_err *e)
{
	uint32_t cap = 0;

	r->nruns = 0;
	for (uint32_t a = 0; a < r->n; a++) {
		if (r->rank_sw[a] == VT_NONE)
			continue;
		if (r->nruns && r->run_sw[r->nruns - 1] == r->rank_sw[a] &&
		    r->run_first[r->nruns - 1] + r->run_len[r->nruns - 1] == a) {
			r->run_len[r->nruns - 1]++;
			continue;
		}
		if (r->nruns == cap) {
			cap = cap ? 2 * cap : 64;
			uint32_t *a1 = realloc(r->run_first, cap * sizeof(*a1));
			if (a1)
				r->run_first = a1;
			uint32_t *a2 = realloc(r->run_len, cap * sizeof(*a2));
			if (a2)
				r->run_len = a2;
			uint32_t *a3 = realloc(r->run_sw, cap * sizeof(*a3));
			if (a3)
				r->run_sw = a3;
			if (!a1 || !a2 || !a3)
				return vt_err_set(e, "out of memory");
		}
		r->run_first[r->nruns] = a;
		r->run_len[r->nruns] = 1;
		r->run_sw[r->nruns] = r->rank_sw[a];
		r->nruns++;
	}
	return 0;
}

int vt_routes_build(vt_routes *r, const vt_fabric *f, const vt_lfts *t, const vt_order *o,
		    vt_err *e)
{
	uint32_t n = o->n, nsw = f->nswitches;

	memset(r, 0, sizeof(*r));
	r->f = f;
	r->t = t;
	r->o = o;
	r->n = n;
	r->nsw = nsw;
	r->nchan = f->nports;
	r->rank_lid = malloc((n + 1) * sizeof(uint32_t));
	r->rank_sw = malloc((n + 1) * sizeof(uint32_t));
	r->rank_up = malloc((n + 1) * sizeof(uint32_t));
	r->chan_sw = malloc((f->nports + 1) * sizeof(uint32_t));
	r->counted = calloc(f->nports + 1, 1);
	r->next = malloc(((uint64_t)n * nsw + 1) * sizeof(uint32_t));
	uint8_t *state = malloc(nsw + 1);
	uint32_t *stack = malloc((nsw + 1) * sizeof(*stack));
	if (!r->rank_lid || !r->rank_sw || !r->rank_up || !r->chan_sw || !r->counted || !r->next ||
	    !state || !stack) {
		free(state);
		free(stack);
		vt_routes_free(r);
		return vt_err_set(e, "out of memory for the routes of %u ranks and %u switches", n,
				  nsw);
	}
	for (uint32_t c = 0; c < f->nports; c++) {
		uint32_t q = f->ports[c].peer;
		r->chan_sw[c] = VT_NONE;
		if (q == VT_NONE)
			continue;
		uint32_t a = f->ports[c].node, b = f->ports[q].node;
		r->chan_sw[c] = f->nodes[b].type == VT_SWITCH ? f->nodes[b].sw : VT_NONE;
		r->counted[c] = f->nodes[a].type == VT_SWITCH || f->nodes[b].type == VT_SWITCH;
	}
	for (uint32_t a = 0; a < n; a++) {
		uint32_t p = o->port[a], q;
		r->rank_lid[a] = r->rank_sw[a] = r->rank_up[a] = VT_NONE;
		if (p == VT_NONE || p >= f->nports)
			continue;
		r->rank_lid[a] = f->ports[p].lid;
		q = f->ports[p].peer;
		if (q != VT_NONE && f->nodes[f->ports[q].node].type == VT_SWITCH) {
			r->rank_sw[a] = f->nodes[f->ports[q].node].sw;
			r->rank_up[a] = p;
		}
	}
	for (uint32_t d = 0; d < n; d++) {
		uint32_t *row = r->next + (uint64_t)d * nsw, lid = r->rank_lid[d];
		for (uint32_t s = 0; s < nsw; s++) {
			uint32_t node = f->switches[s];
			uint8_t p = lid == VT_NONE ? VT_LFT_NONE : vt_lft_get(t, s, lid);
			row[s] = VT_NONE;
			if (p == 0 || p == VT_LFT_NONE || p > f->nodes[node].nports)
				continue;
			uint32_t c = vt_port_index(f, node, p);
			if (f->ports[c].peer != VT_NONE)
				row[s] = c;
		}
		if (lid != VT_NONE)
			prune_bad(r, d, o->port[d], state, stack);
	}
	free(state);
	free(stack);
	if (build_runs(r, e)) {
		vt_routes_free(r);
		return -1;
	}
	return 0;
}

/* ---- per-thread accumulation */

struct acc {
	uint32_t *chan_max;
	uint64_t *chan_sum;
	uint64_t *hist; /* loads >= 1; hist[0] is derived at the merge */
	uint32_t hist_len;
	uint64_t nflows, unrouted, hops;
	int oom;
};

static int acc_init(struct acc *a, uint32_t nchan)
{
	memset(a, 0, sizeof(*a));
	a->chan_max = calloc(nchan + 1, sizeof(*a->chan_max));
	a->chan_sum = calloc(nchan + 1, sizeof(*a->chan_sum));
	a->hist_len = 64;
	a->hist = calloc(a->hist_len, sizeof(*a->hist));
	return a->chan_max && a->chan_sum && a->hist ? 0 : -1;
}

static void acc_free(struct acc *a)
{
	free(a->chan_max);
	free(a->chan_sum);
	free(a->hist);
}

static int acc_grow(struct acc *a, uint32_t load)
{
	uint32_t nl = load * 2 + 1;
	uint64_t *h = realloc(a->hist, (size_t)nl * sizeof(*h));

	if (!h) {
		a->oom = 1;
		return -1;
	}
	memset(h + a->hist_len, 0, (size_t)(nl - a->hist_len) * sizeof(*h));
	a->hist = h;
	a->hist_len = nl;
	return 0;
}

/* Channel c carries load (>= 1) during len stages. */
static inline void acc_run(struct acc *a, uint32_t c, uint32_t load, uint32_t len)
{
	if (load >= a->hist_len && acc_grow(a, load))
		return;
	a->hist[load] += len;
	if (load > a->chan_max[c])
		a->chan_max[c] = load;
	a->chan_sum[c] += (uint64_t)load * len;
	a->hops += (uint64_t)load * len;
}

/* Loads of one stage: only the channels some flow used are touched and reset. */
struct stage_load {
	uint32_t *load;
	uint32_t *touched;
	uint32_t nt;
	uint32_t max;
};

static inline void bump(struct stage_load *sl, uint32_t c)
{
	uint32_t v = ++sl->load[c];

	if (v == 1)
		sl->touched[sl->nt++] = c;
	if (v > sl->max)
		sl->max = v;
}

static void stage_flush(const vt_routes *r, struct stage_load *sl, struct acc *a)
{
	for (uint32_t i = 0; i < sl->nt; i++) {
		uint32_t c = sl->touched[i];
		if (r->counted[c])
			acc_run(a, c, sl->load[c], 1);
		sl->load[c] = 0;
	}
	sl->nt = 0;
	sl->max = 0;
}

/* ---- the walk method and the naive reference */

struct job {
	const vt_routes *r;
	const vt_pattern *p;
	const struct vt_congest_opts *o;
	vt_congest *res;
	uint32_t nstages;
	_Atomic uint32_t next_unit;
	_Atomic uint64_t done;
	uint64_t total;
	double *stage_ebb; /* per stage: sum of 1/max load over its flows */
	struct acc *accs;
};

static inline int active(const vt_routes *r, uint32_t a)
{
	return r->rank_sw[a] != VT_NONE;
}

/* Flows of big stages (all2all at scale) come in chunks of this many. */
#define CHUNK (1u << 20)

static uint32_t keep_active(const vt_routes *r, struct vt_flow *fl, uint32_t m)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < m; i++)
		if (active(r, fl[i].src) && active(r, fl[i].dst))
			fl[k++] = fl[i];
	return k;
}

static void walk_stage_flows(const vt_routes *r, const struct vt_flow *fl, uint32_t m,
			     struct stage_load *sl, struct acc *a)
{
	uint32_t nsw = r->nsw;

	for (uint32_t i = 0; i < m; i++) {
		uint32_t src = fl[i].src, sw = r->rank_sw[src];
		const uint32_t *row = r->next + (uint64_t)fl[i].dst * nsw;
		uint32_t ch = row[sw];
		if (ch == VT_NONE) {
			a->unrouted++;
			continue;
		}
		a->nflows++;
		bump(sl, r->rank_up[src]);
		while (1) {
			bump(sl, ch);
			sw = r->chan_sw[ch];
			if (sw == VT_NONE)
				break;
			ch = row[sw];
		}
	}
}

static double ebb_stage(const vt_routes *r, const struct vt_flow *fl, uint32_t m,
			const uint32_t *load)
{
	double sum = 0;

	for (uint32_t i = 0; i < m; i++) {
		uint32_t src = fl[i].src, sw = r->rank_sw[src];
		const uint32_t *row = r->next + (uint64_t)fl[i].dst * r->nsw;
		uint32_t ch = row[sw], mx;
		if (ch == VT_NONE)
			continue;
		mx = load[r->rank_up[src]];
		while (1) {
			if (load[ch] > mx)
				mx = load[ch];
			sw = r->chan_sw[ch];
			if (sw == VT_NONE)
				break;
			ch = row[sw];
		}
		sum += 1.0 / mx;
	}
	return sum;
}

/*
 * The reference: per flow, hop by hop through the fabric model and the LFTs
 * (no precomputed table), loads kept as it goes. A path is checked before it
 * is counted, so a flow that dead-ends or loops adds nothing.
 */
static void naive_stage_flows(const vt_routes *r, const struct vt_flow *fl, uint32_t m,
			      struct stage_load *sl, struct acc *a, uint32_t *path)
{
	const vt_fabric *f = r->f;

	for (uint32_t i = 0; i < m; i++) {
		uint32_t sp = r->o->port[fl[i].src], dp = r->o->port[fl[i].dst];
		uint32_t lid = f->ports[dp].lid, np = 0, ok = 0, cur = sp;
		for (uint32_t h = 0; h <= r->nsw + 1; h++) {
			path[np++] = cur;
			uint32_t q = f->ports[cur].peer;
			if (q == VT_NONE)
				break;
			const struct vt_node *nd = &f->nodes[f->ports[q].node];
			if (nd->type != VT_SWITCH) {
				ok = q == dp;
				break;
			}
			uint8_t out = vt_lft_get(r->t, nd->sw, lid);
			if (out == 0 || out == VT_LFT_NONE || out > nd->nports)
				break;
			cur = vt_port_index(f, f->ports[q].node, out);
		}
		if (!ok) {
			a->unrouted++;
			continue;
		}
		a->nflows++;
		for (uint32_t k = 0; k < np; k++)
			bump(sl, path[k]);
	}
}

struct wctx {
	void *j;
	unsigned tid;
};

static void progress(const struct vt_congest_opts *o, unsigned tid, uint64_t done, uint64_t total)
{
	if (tid == 0 && o->progress)
		o->progress(o->progress_ctx, done, total);
}

static void *walk_worker(void *arg)
{
	struct wctx *w = arg;
	struct job *j = w->j;
	const vt_routes *r = j->r;
	struct acc *a = &j->accs[w->tid];
	uint32_t maxf = vt_pattern_max_flows(j->p), cap = maxf < CHUNK ? maxf : CHUNK;
	struct vt_flow *fl = malloc(((size_t)cap + 1) * sizeof(*fl));
	struct stage_load sl = {0};
	uint32_t *path = malloc((r->nsw + 3) * sizeof(*path));
	uint32_t *scratch = NULL;
	const struct vt_cuts *cuts = j->o->cuts;
	int naive = j->o->method == VT_CONGEST_NAIVE;
	int big = maxf > cap, a2a = j->p->kind == VT_PAT_ALL2ALL;
	/* all2all and shifts have their bound without flows (vt_bound_all2all, _shift) */
	int per_stage_bound = cuts && !a2a && j->p->kind != VT_PAT_SHIFT;

	sl.load = calloc(r->nchan + 1, sizeof(*sl.load));
	sl.touched = malloc((r->nchan + 1) * sizeof(*sl.touched));
	if (per_stage_bound)
		scratch = malloc(2 * ((size_t)(cuts->ncuts > r->n ? cuts->ncuts : r->n) + 1) *
				 sizeof(*scratch));
	if (!fl || !sl.load || !sl.touched || !path || (per_stage_bound && !scratch)) {
		a->oom = 1;
		goto out;
	}
	while (1) {
		uint32_t s = atomic_fetch_add(&j->next_unit, 1);
		if (s >= j->nstages)
			break;
		uint32_t bound = 0, k = 0;
		double ebb = 0;
		for (uint64_t first = 0;; first += cap) {
			uint32_t m = big ? vt_pattern_stage_part(j->p, s, first, cap, fl)
					 : vt_pattern_stage(j->p, s, fl);
			k = keep_active(r, fl, m);
			if (naive)
				naive_stage_flows(r, fl, k, &sl, a, path);
			else
				walk_stage_flows(r, fl, k, &sl, a);
			if (!big || m < cap)
				break;
		}
		if (per_stage_bound)
			bound = vt_bound_stage(cuts, fl, k, scratch);
		else if (cuts && a2a)
			bound = vt_bound_all2all(cuts, r);
		if (j->res->has_ebb) /* bisection stages are never chunked */
			ebb = ebb_stage(r, fl, k, sl.load);
		j->res->stage_max[s] = sl.max;
		stage_flush(r, &sl, a);
		if (j->res->stage_bound && j->p->kind != VT_PAT_SHIFT)
			j->res->stage_bound[s] = bound;
		if (j->stage_ebb)
			j->stage_ebb[s] = ebb;
		progress(j->o, w->tid, atomic_fetch_add(&j->done, 1) + 1, j->total);
	}
out:
	free(fl);
	free(sl.load);
	free(sl.touched);
	free(path);
	free(scratch);
	return NULL;
}

/* ---- the interval method (shift patterns) */

/*
 * Phase 1, threads over destinations: every channel of the reverse routing
 * tree of destination d gets the source runs that cross it; a run of sources
 * lo .. hi reaches d in shifts d - hi .. d - lo (mod n): one range-add per
 * (channel, destination, run of sources), adjacent runs coalesced. Runs are
 * taken in rank order and the channels of the previous run's path are kept
 * on a stack (top first): a path is walked only until it meets that stack,
 * as paths to d form a tree. A host's up-link gets the destinations it
 * reaches, likewise as runs. Phase 2 groups the range-adds by channel
 * (counting sort, each thread scattering its own). Phase 3, threads over
 * channels: change points in a dense delta array with a bitmap of the
 * positions used give runs of constant load, which feed the histogram, the
 * channel figures and per-load difference arrays over the stages; a stage's
 * maximum is the largest load whose prefix sum there is positive. Every
 * figure is a sum or a maximum, so the split over threads does not show.
 */
struct radd {
	uint32_t c, x, len; /* channel, first shift (mod n), shifts */
};

struct ithr {
	/* phase 1 */
	struct radd *it;
	size_t nit, capit;
	uint32_t *stk_sw, *stk_lo, *spos, *path; /* stack of open switches, their first source */
	uint32_t *rlo, *rhi; /* per source run: open run of destinations reached */
	uint32_t *cnt;	     /* phase 2: range-adds per channel, then this thread's offsets */
	/* phase 3: per port of the node at hand */
	int32_t *delta;
	uint64_t *bm;
	size_t bmw;    /* bitmap words per port */
	int32_t *vcnt; /* vcnt[(v - 1) * (K + 1) + t]: difference array of stages with load v */
	uint32_t vcap;
	int oom;
};

struct ijob {
	const vt_routes *r;
	const struct vt_congest_opts *o;
	uint32_t first, K, chunk;
	_Atomic uint32_t next_d;
	_Atomic uint64_t done;
	uint64_t total;
	struct ithr *th;
	struct acc *accs;
	unsigned nt;
	uint64_t *csr; /* range-adds by channel: x << 32 | len */
	size_t *off;   /* per channel, nchan + 1 */
	/*
	 * The bulk of the range-adds, a lone source run's first hop: kept as the
	 * port per (destination, run), 0xFF for none, in blocks of 64
	 * destinations: up[UP(d, lone[k])], so that both phases read and write
	 * whole cache lines.
	 */
	uint32_t *lone, nlone, *sw_lone; /* per run / per switch: index, VT_NONE if not lone */
	uint32_t *lone_run;		 /* per lone index: its run */
	uint32_t *run_base;		 /* per run: ports[] index of port 0 of its switch */
	uint8_t *up;
	uint32_t maxp; /* most ports of a node */
	_Atomic uint32_t next_node;
};

static inline void emit(struct ithr *t, uint32_t c, uint32_t x, uint32_t len)
{
	if (t->nit == t->capit) {
		size_t nc = 2 * t->capit + 1024;
		struct radd *ni = realloc(t->it, nc * sizeof(*ni));
		if (!ni) {
			t->oom = 1;
			return;
		}
		t->it = ni;
		t->capit = nc;
	}
	t->it[t->nit++] = (struct radd){c, x, len};
}

static inline size_t UP(const struct ijob *j, uint32_t d, uint32_t ks)
{
	return ((size_t)(d >> 6) * j->nlone + ks) << 6 | (d & 63);
}

static inline uint32_t mod_sub(uint32_t a, uint32_t b, uint32_t n)
{
	return a >= b ? a - b : a + n - b;
}

/* Source run k reaches destinations rlo .. rhi: each host's up-link, in shifts d - src. */
static void reach_flush(const vt_routes *r, struct ithr *t, uint32_t k)
{
	uint32_t d0 = t->rlo[k], len = t->rhi[k] - d0 + 1;

	for (uint32_t a = r->run_first[k]; a < r->run_first[k] + r->run_len[k]; a++)
		emit(t, r->rank_up[a], mod_sub(d0, a, r->n), len);
	t->rhi[k] = VT_NONE;
}

/* Closes the stack entries from position p up: their sources end at hi. */
static void stack_pop(const vt_routes *r, struct ithr *t, const uint32_t *row, uint32_t *sp,
		      uint32_t p, uint32_t d, uint32_t hi)
{
	for (uint32_t i = p; i < *sp; i++)
		emit(t, row[t->stk_sw[i]], mod_sub(d, hi, r->n), hi - t->stk_lo[i] + 1);
	*sp = p;
}

/*
 * For destination d a channel is the one its switch forwards on, so the
 * stack holds switches (their positions fit in cache, channels' would not).
 */
static void interval_dest(const struct ijob *j, struct ithr *t, uint32_t d)
{
	const vt_routes *r = j->r;
	const uint32_t *row = r->next + (uint64_t)d * r->nsw, *lone = j->lone;
	uint8_t *up = j->up + UP(j, d, 0);
	uint32_t sp = 0, prev_hi = VT_NONE;

	for (uint32_t k = 0; k < r->nruns; k++) {
		uint32_t sw = r->run_sw[k], ch = row[sw];
		if (ch == VT_NONE)
			continue;
		if (t->rhi[k] != VT_NONE && t->rhi[k] + 1 != d)
			reach_flush(r, t, k);
		if (t->rhi[k] == VT_NONE)
			t->rlo[k] = d;
		t->rhi[k] = d;
		uint32_t lo = r->run_first[k], hi = lo + r->run_len[k] - 1, np = 0, meet = 0;
		if (lone[k] != VT_NONE && r->chan_sw[ch] != VT_NONE) {
			up[(size_t)lone[k] << 6] = (uint8_t)(ch - j->run_base[k]);
			sw = r->chan_sw[ch];
		}
		if (sp && prev_hi + 1 != lo)
			stack_pop(r, t, row, &sp, 0, d, prev_hi);
		while (1) {
			uint32_t q = t->spos[sw];
			if (q < sp &&
			    t->stk_sw[q] == sw) { /* the rest of the path is open already */
				meet = q + 1;
				break;
			}
			t->path[np++] = sw;
			sw = r->chan_sw[row[sw]];
			if (sw == VT_NONE)
				break;
		}
		stack_pop(r, t, row, &sp, meet, d, prev_hi);
		while (np) {
			sw = t->path[--np];
			t->spos[sw] = sp;
			t->stk_sw[sp] = sw;
			t->stk_lo[sp++] = lo;
		}
		prev_hi = hi;
	}
	stack_pop(r, t, row, &sp, 0, d, prev_hi);
}

static int ithr_init(struct ithr *t, const vt_routes *r, uint32_t maxp)
{
	memset(t, 0, sizeof(*t));
	t->stk_sw = malloc(((size_t)r->nsw + 2) * sizeof(uint32_t));
	t->stk_lo = malloc(((size_t)r->nsw + 2) * sizeof(uint32_t));
	t->path = malloc(((size_t)r->nsw + 2) * sizeof(uint32_t));
	t->spos = calloc(r->nsw + 1, sizeof(uint32_t));
	t->rlo = malloc((r->nruns + 1) * sizeof(uint32_t));
	t->rhi = malloc((r->nruns + 1) * sizeof(uint32_t));
	t->cnt = calloc(r->nchan + 1, sizeof(uint32_t));
	t->bmw = (size_t)r->n / 64 + 2;
	t->delta = calloc(((size_t)maxp + 1) * (r->n + 2), sizeof(int32_t));
	t->bm = calloc(((size_t)maxp + 1) * t->bmw, sizeof(uint64_t));
	if (!t->stk_sw || !t->stk_lo || !t->path || !t->spos || !t->rlo || !t->rhi || !t->cnt ||
	    !t->delta || !t->bm)
		return -1;
	memset(t->rhi, 0xff, (r->nruns + 1) * sizeof(uint32_t));
	return 0;
}

static void ithr_free(struct ithr *t)
{
	free(t->it);
	free(t->stk_sw);
	free(t->stk_lo);
	free(t->path);
	free(t->spos);
	free(t->rlo);
	free(t->rhi);
	free(t->cnt);
	free(t->delta);
	free(t->bm);
	free(t->vcnt);
}

static void *interval_phase1(void *arg)
{
	struct wctx *w = arg;
	struct ijob *j = w->j;
	const vt_routes *r = j->r;
	struct ithr *t = &j->th[w->tid];

	while (!t->oom) {
		uint32_t d0 = atomic_fetch_add(&j->next_d, j->chunk);
		if (d0 >= r->n)
			break;
		uint32_t d1 = d0 + j->chunk < r->n ? d0 + j->chunk : r->n;
		for (uint32_t d = d0; d < d1; d++)
			if (active(r, d))
				interval_dest(j, t, d);
		progress(j->o, w->tid, atomic_fetch_add(&j->done, d1 - d0) + d1 - d0, j->total);
	}
	for (uint32_t k = 0; k < r->nruns; k++)
		if (t->rhi[k] != VT_NONE)
			reach_flush(r, t, k);
	for (size_t i = 0; i < t->nit; i++)
		t->cnt[t->it[i].c]++;
	return NULL;
}

static void *interval_phase2(void *arg)
{
	struct wctx *w = arg;
	struct ijob *j = w->j;
	struct ithr *t = &j->th[w->tid];

	for (size_t i = 0; i < t->nit; i++) {
		const struct radd *a = &t->it[i];
		j->csr[t->cnt[a->c]++] = (uint64_t)a->x << 32 | a->len;
	}
	return NULL;
}

static int vcnt_grow(struct ithr *t, uint32_t v, uint32_t K)
{
	uint32_t nv = v > 2 * t->vcap ? v : 2 * t->vcap;
	int32_t *c = realloc(t->vcnt, (size_t)nv * (K + 1) * sizeof(*c));

	if (!c) {
		t->oom = 1;
		return -1;
	}
	memset(c + (size_t)t->vcap * (K + 1), 0, (size_t)(nv - t->vcap) * (K + 1) * sizeof(*c));
	t->vcnt = c;
	t->vcap = nv;
	return 0;
}

/* Channel c carries load v in shifts p0 .. p1-1: clipped to the pattern's stages. */
static inline void interval_run(struct ijob *j, struct ithr *t, struct acc *a, uint32_t c,
				uint32_t v, uint32_t p0, uint32_t p1)
{
	uint32_t lo = p0 > j->first ? p0 : j->first,
		 hi = p1 < j->first + j->K ? p1 : j->first + j->K;

	if (lo >= hi)
		return;
	if (v > t->vcap && vcnt_grow(t, v, j->K))
		return;
	acc_run(a, c, v, hi - lo);
	int32_t *row = t->vcnt + (size_t)(v - 1) * (j->K + 1);
	row[lo - j->first]++;
	row[hi - j->first]--;
}

/* Range-add of shifts x .. x+len-1 (mod n) on the channel of port slot q. */
static inline void add_range(struct ithr *t, uint32_t n, uint32_t q, uint32_t x, uint32_t len)
{
	int32_t *dl = t->delta + (size_t)q * (n + 2);
	uint64_t *bm = t->bm + q * t->bmw, y = (uint64_t)x + len;

	if (len >= n)
		x = 0, y = n;
	dl[x]++;
	bm[x >> 6] |= 1ull << (x & 63);
	if (y > n) { /* wraps: also 0 .. y-n-1 */
		dl[0]++;
		bm[0] |= 1;
		y -= n;
	}
	if (y != n) {
		dl[y]--;
		bm[y >> 6] |= 1ull << (y & 63);
	}
}

/* Change points of port slot q into runs of constant load on channel c; clears the slot. */
static void sweep(struct ijob *j, struct ithr *t, struct acc *a, uint32_t c, uint32_t q)
{
	uint32_t n = j->r->n, prev = 0;
	int32_t *dl = t->delta + (size_t)q * (n + 2), cur = 0;
	uint64_t *bm = t->bm + q * t->bmw;

	for (uint32_t wd = 0; wd <= n >> 6; wd++) {
		uint64_t bits = bm[wd];
		if (!bits)
			continue;
		bm[wd] = 0;
		while (bits) {
			uint32_t p = wd << 6 | (uint32_t)__builtin_ctzll(bits);
			bits &= bits - 1;
			int32_t dv = dl[p];
			dl[p] = 0;
			if (!dv)
				continue;
			if (p > prev && cur > 0)
				interval_run(j, t, a, c, (uint32_t)cur, prev, p);
			cur += dv;
			prev = p;
		}
	}
	if (cur > 0 && prev < n)
		interval_run(j, t, a, c, (uint32_t)cur, prev, n);
}

/* Every channel leaving node u: lone first hops from the table, then the range-adds. */
static void interval_node(struct ijob *j, struct ithr *t, struct acc *a, uint32_t u)
{
	const vt_routes *r = j->r;
	const struct vt_node *nd = &r->f->nodes[u];
	uint32_t n = r->n, ks = nd->sw == VT_NONE ? VT_NONE : j->sw_lone[nd->sw];
	uint64_t used = 0; /* slots with marks, when nports < 64; else every slot is swept */

	if (ks != VT_NONE) {
		uint32_t k = j->lone_run[ks], lo = r->run_first[k], len = r->run_len[k];
		uint32_t hi = lo + len - 1;
		for (uint32_t d = 0; d < n; d++) {
			uint8_t q = j->up[UP(j, d, ks)];
			if (q != 0xFF) {
				add_range(t, n, q, mod_sub(d, hi, n), len);
				used |= 1ull << (q & 63);
			}
		}
	}
	for (uint32_t q = 1; q <= nd->nports; q++) {
		uint32_t c = nd->first_port + q;
		if (!r->counted[c])
			continue;
		for (size_t i = j->off[c]; i < j->off[c + 1]; i++) {
			add_range(t, n, q, (uint32_t)(j->csr[i] >> 32), (uint32_t)j->csr[i]);
			used |= 1ull << (q & 63);
		}
		if (nd->nports >= 64 || (used >> q & 1))
			sweep(j, t, a, c, q);
	}
}

static void *interval_phase3(void *arg)
{
	struct wctx *w = arg;
	struct ijob *j = w->j;
	const vt_routes *r = j->r;
	struct ithr *t = &j->th[w->tid];
	struct acc *a = &j->accs[w->tid];
	uint32_t nn = r->f->nnodes;

	while (!t->oom && !a->oom) {
		uint32_t u0 = atomic_fetch_add(&j->next_node, 64);
		if (u0 >= nn)
			break;
		uint32_t u1 = u0 + 64 < nn ? u0 + 64 : nn;
		for (uint32_t u = u0; u < u1; u++)
			interval_node(j, t, a, u);
		progress(j->o, w->tid,
			 atomic_fetch_add(&j->done, (uint64_t)(u1 - u0) * r->nchan / nn) +
				 (uint64_t)(u1 - u0) * r->nchan / nn,
			 j->total);
	}
	return NULL;
}

/* Flows of shifts first .. first+K-1 between active ranks: O(n) with prefix counts. */
static uint64_t shift_active_flows(const vt_routes *r, uint32_t first, uint32_t K, uint32_t *pre)
{
	uint32_t n = r->n;
	uint64_t sum = 0;

	pre[0] = 0;
	for (uint32_t i = 0; i < 2 * n; i++)
		pre[i + 1] = pre[i] + active(r, i < n ? i : i - n);
	for (uint32_t i = 0; i < n; i++)
		if (active(r, i))
			sum += pre[i + first + K] - pre[i + first];
	return sum;
}

static int run_threads(void *job, void *(*fn)(void *), unsigned nt)
{
	pthread_t th[64];
	struct wctx w[64];
	unsigned started = 1;

	for (unsigned i = 0; i < nt; i++)
		w[i] = (struct wctx){job, i};
	for (unsigned i = 1; i < nt; i++) {
		if (pthread_create(&th[i], NULL, fn, &w[i]))
			break;
		started++;
	}
	/* threads that failed to start leave their share to the others (work is pulled) */
	fn(&w[0]);
	for (unsigned i = 1; i < started; i++)
		pthread_join(th[i], NULL);
	return 0;
}

static int interval_run_all(const vt_routes *r, const vt_pattern *p,
			    const struct vt_congest_opts *o, vt_congest *res, struct acc *accs,
			    vt_err *e)
{
	struct ijob j = {.r = r,
			 .o = o,
			 .first = p->first,
			 .K = res->nstages,
			 .accs = accs,
			 .nt = o->threads};
	uint32_t *pre = malloc(((size_t)2 * r->n + 1) * sizeof(*pre));
	int32_t *tot = NULL;
	uint32_t V = 0;
	size_t total = 0;
	int rc = 0;

	j.chunk = (r->n / (16 * o->threads)) & ~63u; /* whole blocks of the table */
	if (j.chunk < 64)
		j.chunk = 64;
	j.total = (uint64_t)r->n + r->nchan;
	j.th = calloc(o->threads, sizeof(*j.th));
	j.off = malloc(((size_t)r->nchan + 1) * sizeof(*j.off));
	if (!pre || !j.th || !j.off)
		goto oom;
	j.lone = malloc(((size_t)r->nruns + 1) * sizeof(*j.lone));
	j.lone_run = malloc(((size_t)r->nruns + 1) * sizeof(*j.lone_run));
	j.sw_lone = malloc(((size_t)r->nsw + 1) * sizeof(*j.sw_lone));
	j.run_base = malloc(((size_t)r->nruns + 1) * sizeof(*j.run_base));
	if (!j.lone || !j.lone_run || !j.sw_lone || !j.run_base)
		goto oom;
	for (uint32_t k = 0; k < r->nruns; k++)
		j.run_base[k] = r->f->nodes[r->f->switches[r->run_sw[k]]].first_port;
	/* a switch with one run of sources: its first hops go to the table */
	memset(j.sw_lone, 0, (size_t)r->nsw * sizeof(*j.sw_lone));
	for (uint32_t k = 0; k < r->nruns; k++)
		j.sw_lone[r->run_sw[k]]++;
	for (uint32_t k = 0; k < r->nruns; k++) {
		j.lone[k] = VT_NONE;
		if (j.sw_lone[r->run_sw[k]] == 1) {
			j.lone_run[j.nlone] = k;
			j.lone[k] = j.nlone++;
		}
	}
	for (uint32_t sw = 0; sw < r->nsw; sw++)
		j.sw_lone[sw] = VT_NONE;
	for (uint32_t k = 0; k < r->nruns; k++)
		if (j.lone[k] != VT_NONE)
			j.sw_lone[r->run_sw[k]] = j.lone[k];
	size_t upsz = ((size_t)r->n + 63) / 64 * 64 * j.nlone;
	j.up = malloc(upsz + 1);
	if (!j.up)
		goto oom;
	memset(j.up, 0xff, upsz);
	for (uint32_t u = 0; u < r->f->nnodes; u++)
		if (r->f->nodes[u].nports > j.maxp)
			j.maxp = r->f->nodes[u].nports;
	for (unsigned i = 0; i < o->threads; i++)
		if (ithr_init(&j.th[i], r, j.maxp))
			goto oom;
	run_threads(&j, interval_phase1, o->threads);
	for (unsigned i = 0; i < o->threads; i++)
		if (j.th[i].oom)
			goto oom;
	/* per channel, thread 0's range-adds first: cnt becomes each thread's write offset */
	for (uint32_t c = 0; c < r->nchan; c++) {
		j.off[c] = total;
		for (unsigned i = 0; i < o->threads; i++) {
			uint32_t m = j.th[i].cnt[c];
			j.th[i].cnt[c] = (uint32_t)total;
			total += m;
		}
	}
	j.off[r->nchan] = total;
	if (total > UINT32_MAX)
		goto oom;
	j.csr = malloc((total + 1) * sizeof(*j.csr));
	if (!j.csr)
		goto oom;
	run_threads(&j, interval_phase2, o->threads);
	for (unsigned i = 0; i < o->threads; i++) {
		free(j.th[i].it);
		j.th[i].it = NULL;
	}
	run_threads(&j, interval_phase3, o->threads);
	for (unsigned i = 0; i < o->threads; i++) {
		if (j.th[i].oom)
			goto oom;
		if (j.th[i].vcap > V)
			V = j.th[i].vcap;
	}
	/* stage maxima: the largest load with a positive prefix sum in that stage */
	tot = calloc((size_t)V * (j.K + 1) + 1, sizeof(*tot));
	if (!tot)
		goto oom;
	for (unsigned i = 0; i < o->threads; i++)
		for (size_t x = 0; x < (size_t)j.th[i].vcap * (j.K + 1); x++)
			tot[x] += j.th[i].vcnt[x];
	for (uint32_t v = 1; v <= V; v++) {
		const int32_t *row = tot + (size_t)(v - 1) * (j.K + 1);
		int32_t run = 0;
		for (uint32_t s = 0; s < j.K; s++) {
			run += row[s];
			if (run > 0)
				res->stage_max[s] = v;
		}
	}
	/* every routed flow crosses its source's up-link once */
	for (unsigned i = 0; i < o->threads; i++) {
		const struct acc *a = &accs[i];
		for (uint32_t c = 0; c < r->nchan; c++)
			if (a->chan_sum[c] && r->f->nodes[r->f->ports[c].node].type != VT_SWITCH)
				accs[0].nflows += a->chan_sum[c];
	}
	accs[0].unrouted = shift_active_flows(r, j.first, j.K, pre) - accs[0].nflows;
	if (o->cuts && vt_bound_shift(o->cuts, r, j.first, j.K, res->stage_bound, e))
		rc = -1;
	goto done;
oom:
	rc = vt_err_set(e, "out of memory counting pattern '%s'", p->name);
done:
	if (j.th)
		for (unsigned i = 0; i < o->threads; i++)
			ithr_free(&j.th[i]);
	free(j.th);
	free(j.csr);
	free(j.off);
	free(j.lone);
	free(j.lone_run);
	free(j.run_base);
	free(j.sw_lone);
	free(j.up);
	free(tot);
	free(pre);
	return rc;
}

void vt_congest_free(vt_congest *res)
{
	free(res->stage_max);
	free(res->hist);
	free(res->chan_max);
	free(res->chan_sum);
	free(res->stage_bound);
	memset(res, 0, sizeof(*res));
}

int vt_congest_run(const vt_routes *r, const vt_pattern *p, const struct vt_congest_opts *o_in,
		   vt_congest *res, vt_err *e)
{
	struct vt_congest_opts o = *o_in;
	struct job j;
	uint32_t nst = vt_pattern_nstages(p), ncounted = 0;
	int rc = 0;

	if (!o.threads)
		o.threads = 2;
	if (o.threads > 64)
		o.threads = 64;
	if (o.method == VT_CONGEST_NAIVE)
		o.threads = 1;
	if (o.stage_limit && o.stage_limit < nst)
		nst = o.stage_limit;
	if (p->nranks != r->n)
		return vt_err_set(e, "pattern '%s' is for %u ranks, the order has %u", p->name,
				  p->nranks, r->n);
	if (o.method == VT_CONGEST_INTERVAL && p->kind != VT_PAT_SHIFT)
		return vt_err_set(e, "pattern '%s': the interval method counts shifts only",
				  p->name);
	memset(res, 0, sizeof(*res));
	memset(&j, 0, sizeof(j));
	snprintf(res->pattern, sizeof(res->pattern), "%s", p->name);
	res->nstages = nst;
	res->stage_max = calloc(nst + 1, sizeof(*res->stage_max));
	res->chan_max = calloc(r->nchan + 1, sizeof(*res->chan_max));
	res->chan_sum = calloc(r->nchan + 1, sizeof(*res->chan_sum));
	res->has_ebb = p->kind == VT_PAT_BISECTION;
	if (o.cuts)
		res->stage_bound = calloc(nst + 1, sizeof(*res->stage_bound));
	j.r = r;
	j.p = p;
	j.o = &o;
	j.res = res;
	j.nstages = nst;
	j.accs = calloc(o.threads, sizeof(*j.accs));
	if (res->has_ebb)
		j.stage_ebb = calloc(nst + 1, sizeof(*j.stage_ebb));
	if (!res->stage_max || !res->chan_max || !res->chan_sum || !j.accs ||
	    (o.cuts && !res->stage_bound) || (res->has_ebb && !j.stage_ebb))
		goto oom;
	for (unsigned i = 0; i < o.threads; i++)
		if (acc_init(&j.accs[i], r->nchan))
			goto oom;
	for (uint32_t c = 0; c < r->nchan; c++)
		ncounted += r->counted[c];
	/* the interval method's cost does not grow with the stages: worth it beyond a few */
	int interval =
		o.method == VT_CONGEST_INTERVAL ||
		(o.method == VT_CONGEST_AUTO && p->kind == VT_PAT_SHIFT && r->nruns && nst >= 8);
	if (interval) {
		res->method = VT_CONGEST_INTERVAL;
		if (interval_run_all(r, p, &o, res, j.accs, e)) {
			rc = -1;
			goto done;
		}
	} else {
		res->method = o.method == VT_CONGEST_NAIVE ? VT_CONGEST_NAIVE : VT_CONGEST_WALK;
		j.total = nst;
		if (p->kind == VT_PAT_SHIFT && o.cuts &&
		    vt_bound_shift(o.cuts, r, p->first, nst, res->stage_bound, e)) {
			rc = -1;
			goto done;
		}
		run_threads(&j, walk_worker, o.threads);
	}
	/* merge the threads' accumulators: sums and maxima, so the result is deterministic */
	for (unsigned i = 0; i < o.threads; i++)
		if (j.accs[i].oom)
			goto oom;
	for (uint32_t s = 0; s < nst; s++)
		if (res->stage_max[s] > res->worst)
			res->worst = res->stage_max[s];
	res->hist = calloc((size_t)res->worst + 1, sizeof(*res->hist));
	if (!res->hist)
		goto oom;
	for (unsigned i = 0; i < o.threads; i++) {
		struct acc *a = &j.accs[i];
		res->nflows += a->nflows;
		res->unrouted += a->unrouted;
		res->hops += a->hops;
		for (uint32_t k = 1; k < a->hist_len && k <= res->worst; k++)
			res->hist[k] += a->hist[k];
		for (uint32_t c = 0; c < r->nchan; c++) {
			if (a->chan_max[c] > res->chan_max[c])
				res->chan_max[c] = a->chan_max[c];
			res->chan_sum[c] += a->chan_sum[c];
		}
	}
	/* the (channel, stage) pairs no flow crossed */
	res->hist[0] = (uint64_t)ncounted * nst;
	for (uint32_t k = 1; k <= res->worst; k++)
		res->hist[0] -= res->hist[k];
	double sum = 0, ebb = 0, bsum = 0;
	for (uint32_t s = 0; s < nst; s++) {
		sum += res->stage_max[s];
		if (j.stage_ebb)
			ebb += j.stage_ebb[s];
		if (res->stage_bound) {
			bsum += res->stage_bound[s];
			if (res->stage_bound[s] > res->bound_worst)
				res->bound_worst = res->stage_bound[s];
		}
	}
	res->avg = nst ? sum / nst : 0;
	res->bound_avg = nst ? bsum / nst : 0;
	if (res->has_ebb)
		res->ebb = res->nflows ? ebb / (double)res->nflows : 0;
	goto done;
oom:
	rc = vt_err_set(e, "out of memory counting pattern '%s'", p->name);
done:
	if (j.accs)
		for (unsigned i = 0; i < o.threads; i++)
			acc_free(&j.accs[i]);
	free(j.accs);
	free(j.stage_ebb);
	if (rc)
		vt_congest_free(res);
	return rc;
}

/* ---- reporting helpers */

uint32_t vt_congest_top(const vt_routes *r, const vt_congest *res, uint32_t n, uint32_t *out)
{
	uint32_t m = 0;

	/* insertion into a sorted top-n list: n is small */
	for (uint32_t c = 0; c < r->nchan; c++) {
		if (!r->counted[c] || !res->chan_max[c])
			continue;
		uint32_t i = m < n ? m : n;
		while (i > 0) {
			uint32_t b = out[i - 1];
			int better = res->chan_max[c] > res->chan_max[b] ||
				     (res->chan_max[c] == res->chan_max[b] &&
				      res->chan_sum[c] > res->chan_sum[b]);
			if (!better)
				break;
			if (i < n)
				out[i] = b;
			i--;
		}
		if (i < n) {
			out[i] = c;
			if (m < n)
				m++;
		}
	}
	return m;
}

void vt_chan_name(const vt_fabric *f, uint32_t c, char *buf, unsigned len)
{
	const struct vt_port *p = &f->ports[c];
	const struct vt_node *a = &f->nodes[p->node];

	if (p->peer == VT_NONE) {
		snprintf(buf, len, "%s/%u", a->desc, p->num);
		return;
	}
	const struct vt_port *q = &f->ports[p->peer];
	snprintf(buf, len, "%s/%u -> %s/%u", a->desc, p->num, f->nodes[q->node].desc, q->num);
}
