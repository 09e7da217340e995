/* SPDX-License-Identifier: MIT */
/*
 * The interval method (vt_congest.h), for shift patterns: per destination,
 * the runs of consecutive source ranks whose paths cross a channel become
 * range-adds over the stages, summed per channel by difference arrays.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/vt_bound.h"
#include "analysis/vt_congest_int.h"
#include "analysis/vt_routes_walk.h"

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
	struct vt_walk w;    /* the paths toward the destination at hand */
	uint32_t *rlo, *rhi; /* per source run: open run of destinations reached */
	uint8_t *col;	     /* col[sw * 64 + (d & 63)]: switch sw's entry for d, a block of 64 */
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
	 * port per (destination, run), VT_LFT_NONE for none, in blocks of 64
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
static void stack_pop(const vt_routes *r, struct ithr *t, uint32_t p, uint32_t d, uint32_t hi)
{
	struct vt_walk *w = &t->w;

	for (uint32_t i = p; i < w->sp; i++)
		emit(t, w->stk_ch[i], mod_sub(d, hi, r->n), hi - w->stk_lo[i] + 1);
	w->sp = p;
}

/* Source run k reaches destination d: its open run of destinations goes on or starts. */
static void reach_add(const vt_routes *r, struct ithr *t, uint32_t k, uint32_t d)
{
	if (t->rhi[k] != VT_NONE && t->rhi[k] + 1 != d)
		reach_flush(r, t, k);
	if (t->rhi[k] == VT_NONE)
		t->rlo[k] = d;
	t->rhi[k] = d;
}

/*
 * Destination d's paths walked from the tables (vt_routes_walk.h), run by
 * run; the stack holds switches (their positions fit in cache, channels'
 * would not).
 */
static void interval_dest(const struct ijob *j, struct ithr *t, uint32_t d, int reach)
{
	const vt_routes *r = j->r;
	const uint8_t *col = t->col + (d & 63);
	const uint32_t *lone = j->lone;
	uint8_t *up = j->up + UP(j, d, 0);
	uint32_t prev_hi = VT_NONE, lid = r->rank_lid[d], dst = r->o->port[d];
	struct vt_walk *w = &t->w;

	if (lid >= r->t->nlid)
		return;
	vt_walk_begin(w, r->nsw);
	for (uint32_t k = 0; k < r->nruns; k++) {
		uint32_t lo = r->run_first[k], hi = lo + r->run_len[k] - 1, np, meet, from = 0;
		int gap = w->sp && prev_hi + 1 != lo;

		if (!vt_walk_run(w, r, col, 64, r->run_sw[k], dst, gap ? 0 : w->sp,
				 lone[k] != VT_NONE, &np, &meet))
			continue;
		if (reach)
			reach_add(r, t, k, d);
		if (lone[k] != VT_NONE && np && r->chan_sw[w->pch[0]] != VT_NONE) {
			up[(size_t)lone[k] << 6] = (uint8_t)(w->pch[0] - j->run_base[k]);
			from = 1;
		}
		if (meet < w->sp) /* meet is 0 after a gap: every entry closes */
			stack_pop(r, t, meet, d, prev_hi);
		while (np > from) {
			np--;
			w->spos[w->path[np]] = w->sp;
			w->stk_sw[w->sp] = w->path[np];
			w->stk_ch[w->sp] = w->pch[np];
			w->stk_lo[w->sp++] = lo;
		}
		prev_hi = hi;
	}
	stack_pop(r, t, 0, d, prev_hi);
}

static int ithr_init(struct ithr *t, const vt_routes *r, uint32_t maxp)
{
	memset(t, 0, sizeof(*t));
	if (vt_walk_init(&t->w, r))
		return -1;
	t->rlo = malloc((r->nruns + 1) * sizeof(uint32_t));
	t->rhi = malloc((r->nruns + 1) * sizeof(uint32_t));
	t->cnt = calloc(r->nchan + 1, sizeof(uint32_t));
	t->bmw = (size_t)r->n / 64 + 2;
	t->delta = calloc(((size_t)maxp + 1) * (r->n + 2), sizeof(int32_t));
	t->bm = calloc(((size_t)maxp + 1) * t->bmw, sizeof(uint64_t));
	t->col = malloc((size_t)64 * r->nsw + 1);
	if (!t->rlo || !t->rhi || !t->cnt || !t->delta || !t->bm || !t->col)
		return -1;
	memset(t->rhi, 0xff, (r->nruns + 1) * sizeof(uint32_t));
	return 0;
}

static void ithr_free(struct ithr *t)
{
	free(t->it);
	vt_walk_free(&t->w);
	free(t->col);
	free(t->rlo);
	free(t->rhi);
	free(t->cnt);
	free(t->delta);
	free(t->bm);
	free(t->vcnt);
}

/*
 * Every switch's entries for destinations d0 .. d1-1 (a block of 64), read
 * row by row (a cache line of each where the LIDs follow on): a walk one
 * destination at a time would read a byte of each row it passes, a line and
 * a page apart (pruned 36,36: 1620 rows of 13285 LIDs).
 */
static void block_cols(const vt_routes *r, struct ithr *t, uint32_t d0, uint32_t d1)
{
	const vt_lfts *lf = r->t;
	uint32_t l0 = r->rank_lid[d0], seq = l0 < lf->nlid && l0 + (d1 - d0) <= lf->nlid;

	for (uint32_t d = d0; seq && d < d1; d++)
		seq = r->rank_lid[d] == l0 + (d - d0);
	for (uint32_t s = 0; s < r->nsw; s++) {
		const uint8_t *row = vt_lft_row(lf, s);
		uint8_t *c = t->col + (size_t)s * 64;

		if (seq) {
			memcpy(c, row + l0, d1 - d0);
			continue;
		}
		for (uint32_t d = d0; d < d1; d++) {
			uint32_t lid = r->rank_lid[d];

			c[d - d0] = lid < lf->nlid ? row[lid] : VT_LFT_NONE;
		}
	}
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
		for (uint32_t b = d0; b < d1; b += 64) {
			uint32_t e = d1 - b < 64 ? d1 : b + 64;

			block_cols(r, t, b, e);
			for (uint32_t d = b; d < e; d++)
				if (active(r, d))
					interval_dest(j, t, d, 1);
		}
		congest_progress(j->o, w->tid, atomic_fetch_add(&j->done, d1 - d0) + d1 - d0,
				 j->total);
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
	if (j->o->on_run)
		j->o->on_run(j->o->on_run_ctx, c, v, lo, hi);
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
			if (q != VT_LFT_NONE) {
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
		congest_progress(j->o, w->tid,
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

/*
 * A switch with one run of sources ("lone"): its first hops go to the table
 * j->up instead of range-adds. -1 when out of memory.
 */
static int lone_tables(struct ijob *j, const vt_routes *r)
{
	size_t upsz;

	j->lone = malloc(((size_t)r->nruns + 1) * sizeof(*j->lone));
	j->lone_run = malloc(((size_t)r->nruns + 1) * sizeof(*j->lone_run));
	j->sw_lone = malloc(((size_t)r->nsw + 1) * sizeof(*j->sw_lone));
	j->run_base = malloc(((size_t)r->nruns + 1) * sizeof(*j->run_base));
	if (!j->lone || !j->lone_run || !j->sw_lone || !j->run_base)
		return -1;
	for (uint32_t k = 0; k < r->nruns; k++)
		j->run_base[k] = r->f->nodes[r->f->switches[r->run_sw[k]]].first_port;
	memset(j->sw_lone, 0, (size_t)r->nsw * sizeof(*j->sw_lone));
	for (uint32_t k = 0; k < r->nruns; k++)
		j->sw_lone[r->run_sw[k]]++;
	for (uint32_t k = 0; k < r->nruns; k++) {
		j->lone[k] = VT_NONE;
		if (j->sw_lone[r->run_sw[k]] == 1) {
			j->lone_run[j->nlone] = k;
			j->lone[k] = j->nlone++;
		}
	}
	for (uint32_t sw = 0; sw < r->nsw; sw++)
		j->sw_lone[sw] = VT_NONE;
	for (uint32_t k = 0; k < r->nruns; k++)
		if (j->lone[k] != VT_NONE)
			j->sw_lone[r->run_sw[k]] = j->lone[k];
	upsz = ((size_t)r->n + 63) / 64 * 64 * j->nlone;
	j->up = malloc(upsz + 1);
	if (!j->up)
		return -1;
	memset(j->up, VT_LFT_NONE, upsz);
	return 0;
}

/*
 * Phase 2: per channel, thread 0's range-adds first: cnt becomes each
 * thread's write offset; then each thread scatters its own. -1 when out of
 * memory.
 */
static int group_by_channel(struct ijob *j, const vt_routes *r, unsigned nt)
{
	size_t total = 0;

	for (uint32_t c = 0; c < r->nchan; c++) {
		j->off[c] = total;
		for (unsigned i = 0; i < nt; i++) {
			uint32_t m = j->th[i].cnt[c];
			j->th[i].cnt[c] = (uint32_t)total;
			total += m;
		}
	}
	j->off[r->nchan] = total;
	if (total > UINT32_MAX)
		return -1;
	j->csr = malloc((total + 1) * sizeof(*j->csr));
	if (!j->csr)
		return -1;
	run_threads(j, interval_phase2, nt);
	for (unsigned i = 0; i < nt; i++) {
		free(j->th[i].it);
		j->th[i].it = NULL;
	}
	return 0;
}

/* Stage maxima: the largest load with a positive prefix sum in that stage. */
static int stage_maxima(const struct ijob *j, vt_congest *res, unsigned nt)
{
	uint32_t V = 0;
	int32_t *tot;

	for (unsigned i = 0; i < nt; i++)
		if (j->th[i].vcap > V)
			V = j->th[i].vcap;
	tot = calloc((size_t)V * (j->K + 1) + 1, sizeof(*tot));
	if (!tot)
		return -1;
	for (unsigned i = 0; i < nt; i++)
		for (size_t x = 0; x < (size_t)j->th[i].vcap * (j->K + 1); x++)
			tot[x] += j->th[i].vcnt[x];
	for (uint32_t v = 1; v <= V; v++) {
		const int32_t *row = tot + (size_t)(v - 1) * (j->K + 1);
		int32_t run = 0;
		for (uint32_t s = 0; s < j->K; s++) {
			run += row[s];
			if (run > 0)
				res->stage_max[s] = v;
		}
	}
	free(tot);
	return 0;
}

static void ijob_free(struct ijob *j, unsigned nt)
{
	if (j->th)
		for (unsigned i = 0; i < nt; i++)
			ithr_free(&j->th[i]);
	free(j->th);
	free(j->csr);
	free(j->off);
	free(j->lone);
	free(j->lone_run);
	free(j->run_base);
	free(j->sw_lone);
	free(j->up);
}

int vt_congest_interval(const vt_routes *r, const vt_pattern *p, const struct vt_congest_opts *o,
			vt_congest *res, struct acc *accs, vt_err *e)
{
	struct ijob j = {.r = r,
			 .o = o,
			 .first = p->first,
			 .K = res->nstages,
			 .accs = accs,
			 .nt = o->threads};
	uint32_t *pre = malloc(((size_t)2 * r->n + 1) * sizeof(*pre));
	int rc = 0;

	j.chunk = (r->n / (16 * o->threads)) & ~63u; /* whole blocks of the table */
	if (j.chunk < 64)
		j.chunk = 64;
	j.total = (uint64_t)r->n + r->nchan;
	j.th = calloc(o->threads, sizeof(*j.th));
	j.off = malloc(((size_t)r->nchan + 1) * sizeof(*j.off));
	if (!pre || !j.th || !j.off || lone_tables(&j, r))
		goto oom;
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
	if (group_by_channel(&j, r, o->threads))
		goto oom;
	run_threads(&j, interval_phase3, o->threads);
	for (unsigned i = 0; i < o->threads; i++)
		if (j.th[i].oom)
			goto oom;
	if (stage_maxima(&j, res, o->threads))
		goto oom;
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
	else if (res->stage_climb &&
		 vt_bound_shift_climb(o->cuts, r, j.first, j.K, res->stage_bound, res->stage_climb))
		rc = vt_err_nomem(e, "out of memory for the up*-down* bound");
	goto done;
oom:
	rc = vt_err_nomem(e, "out of memory counting pattern '%s'", p->name);
done:
	ijob_free(&j, o->threads);
	free(pre);
	return rc;
}
