/* SPDX-License-Identifier: MIT */
/*
 * The shift count kept up to date (vt_shift_count.h). As the interval method
 * (vt_congest_interval.c) counts: source rank a reaches destination d in
 * shift d - a (mod n), so the sources lo .. hi whose paths to d cross a
 * channel add 1 to its load in shifts d - hi .. d - lo, a range-add. Here
 * every channel keeps its load as runs of constant load, and per load the
 * count of channels carrying it per stage (as difference arrays); a changed
 * destination takes its old paths' range-adds away and adds its new ones,
 * and only the channels they touch are swept again. The stage maxima come
 * from the per-load counts: the largest load some channel carries there.
 */
#include "analysis/vt_shift_count.h"

#include "analysis/vt_congest.h"
#include "analysis/vt_routes_walk.h"
#include "model/vt_pattern.h"

#include <stdlib.h>
#include <string.h>

struct seg {
	uint32_t p0, p1, v; /* load v in shifts p0 .. p1-1 */
};

struct pend {
	uint32_t ch, x, len; /* a range-add (emit's arguments) */
	int32_t net;	     /* added less taken away */
};

struct ev {
	uint64_t key; /* channel << 32 | shift: the load changes there by dv */
	int32_t dv;
};

struct chan {
	uint32_t nseg, cap;
	struct seg *s;
};

struct vt_shift_count {
	uint32_t n, nchan, first, K;
	struct chan *ch;
	int32_t *vcnt; /* vcnt[(v - 1) * (K + 1) + s]: difference array of stages with load v */
	uint32_t vcap;
	uint32_t *stage_max, worst;
	double avg;
	/* scratch */
	struct vt_walk w; /* walk_dest's paths */
	uint8_t *ok[2];	  /* per source run: reaches the destination before (0), after (1) */
	struct seg *tmp;  /* chan_rebuild's runs */
	uint32_t captmp;
	uint32_t *dirty;	 /* vt_shift_count_update: the changed ranks */
	struct ev *todo, *todo2; /* its change points, and room for their sort */
	size_t ntodo, captodo;
	uint32_t *todo_cnt; /* todo_sort's counts, 65536 */
	/* a destination's range-adds before and after, by key: what both hold cancels */
	struct pend *pend;
	uint32_t *pslot, *pused; /* per slot: its tag; the slots used, in order */
	uint32_t pcap, npend, ptag;
	int oom;
};

static inline uint32_t mod_sub(uint32_t a, uint32_t b, uint32_t n)
{
	return a >= b ? a - b : a + n - b;
}

static void pend_add(vt_shift_count *c, uint32_t ch, uint32_t x, uint32_t len, int32_t sign);

/* Closes the stack entries from position p up: their sources end at hi. */
static void stack_pop(vt_shift_count *c, uint32_t p, uint32_t d, uint32_t hi, int32_t sign)
{
	struct vt_walk *w = &c->w;

	for (uint32_t i = p; i < w->sp; i++)
		pend_add(c, w->stk_ch[i], mod_sub(d, hi, c->n), hi - w->stk_lo[i] + 1, sign);
	w->sp = p;
}

/*
 * Destination d's range-adds under tables t, signed: the source runs in rank
 * order, each path walked only until it meets the previous runs' (kept on a
 * stack, vt_routes_walk.h); ok[k]: does run k reach d.
 */
static void walk_dest(vt_shift_count *c, const vt_routes *r, const vt_lfts *t, uint32_t d,
		      int32_t sign, uint8_t *ok)
{
	struct vt_walk *w = &c->w;
	uint32_t prev_hi = VT_NONE, lid = r->rank_lid[d], dst = r->o->port[d];

	memset(ok, 0, r->nruns);
	if (lid >= t->nlid)
		return;
	vt_walk_begin(w, r->nsw);
	for (uint32_t k = 0; k < r->nruns; k++) {
		uint32_t lo = r->run_first[k], np, meet;
		int gap = w->sp && prev_hi + 1 != lo;

		if (!vt_walk_run(w, r, t->port + lid, t->nlid, r->run_sw[k], dst, gap ? 0 : w->sp,
				 0, &np, &meet))
			continue;
		ok[k] = 1;
		if (meet < w->sp) /* meet is 0 after a gap: every entry closes */
			stack_pop(c, meet, d, prev_hi, sign);
		while (np) {
			np--;
			w->spos[w->path[np]] = w->sp;
			w->stk_sw[w->sp] = w->path[np];
			w->stk_ch[w->sp] = w->pch[np];
			w->stk_lo[w->sp++] = lo;
		}
		prev_hi = lo + r->run_len[k] - 1;
	}
	stack_pop(c, 0, d, prev_hi, sign);
}

/* Load v in shifts p0 .. p1-1 on one more (sign 1) or one fewer (-1) channel. */
static void vrun(vt_shift_count *c, uint32_t v, uint32_t p0, uint32_t p1, int32_t sign)
{
	uint32_t lo = p0 > c->first ? p0 : c->first,
		 hi = p1 < c->first + c->K ? p1 : c->first + c->K;

	if (lo >= hi)
		return;
	if (v > c->vcap) {
		uint32_t nv = v > 2 * c->vcap ? v : 2 * c->vcap;
		int32_t *x = realloc(c->vcnt, (size_t)nv * (c->K + 1) * sizeof(*x));

		if (!x) {
			c->oom = 1;
			return;
		}
		memset(x + (size_t)c->vcap * (c->K + 1), 0,
		       (size_t)(nv - c->vcap) * (c->K + 1) * sizeof(*x));
		c->vcnt = x;
		c->vcap = nv;
	}
	c->vcnt[(size_t)(v - 1) * (c->K + 1) + lo - c->first] += sign;
	c->vcnt[(size_t)(v - 1) * (c->K + 1) + hi - c->first] -= sign;
}

/* Appends run (p0, p1, v) to c->tmp, merged with the one before when it goes on. */
static inline void push(vt_shift_count *c, uint32_t *m, uint32_t p0, uint32_t p1, uint32_t v)
{
	if (*m && c->tmp[*m - 1].p1 == p0 && c->tmp[*m - 1].v == v)
		c->tmp[*m - 1].p1 = p1;
	else
		c->tmp[(*m)++] = (struct seg){p0, p1, v};
}

/* Range-add (lo .. hi-1, signed) on channel ch, kept for todo_apply as two change points. */
static void todo_add(vt_shift_count *c, uint32_t ch, uint32_t lo, uint32_t hi, int32_t sign)
{
	if (c->ntodo + 2 > c->captodo) {
		size_t nc = 2 * c->captodo + 1024;
		struct ev *x = realloc(c->todo, nc * sizeof(*x));
		struct ev *y = realloc(c->todo2, nc * sizeof(*y));

		if (x)
			c->todo = x;
		if (y)
			c->todo2 = y;
		if (!x || !y) {
			c->oom = 1;
			return;
		}
		c->captodo = nc;
	}
	c->todo[c->ntodo++] = (struct ev){(uint64_t)ch << 32 | lo, sign};
	c->todo[c->ntodo++] = (struct ev){(uint64_t)ch << 32 | hi, -sign};
}

/* c->todo sorted by key (channel, then shift): a radix sort, 16 bits a pass, as far as keys reach.
 */
static void todo_sort(vt_shift_count *c)
{
	uint64_t all = 0;
	uint32_t *cnt = c->todo_cnt;

	for (size_t i = 0; i < c->ntodo; i++)
		all |= c->todo[i].key;
	for (unsigned sh = 0; sh < 64; sh += 16) {
		struct ev *x = c->todo, *y = c->todo2;
		uint32_t sum = 0;

		if (!(all >> sh & 0xffff))
			continue;
		memset(cnt, 0, 65536 * sizeof(*cnt));
		for (size_t i = 0; i < c->ntodo; i++)
			cnt[x[i].key >> sh & 0xffff]++;
		for (uint32_t v = 0; v < 65536; v++) {
			uint32_t m = cnt[v];

			cnt[v] = sum;
			sum += m;
		}
		for (size_t i = 0; i < c->ntodo; i++)
			y[cnt[x[i].key >> sh & 0xffff]++] = x[i];
		c->todo = y;
		c->todo2 = x;
	}
}

/*
 * Channel ch with the change points e[0 .. k-1] (by shift): merged with its
 * runs' and swept once into the new runs; the per-load counts lose the old
 * runs and take the new (loads stay >= 0: a removal takes away what was
 * added).
 */
static void chan_rebuild(vt_shift_count *c, uint32_t ch, const struct ev *e, size_t k)
{
	struct chan *h = &c->ch[ch];
	size_t need = (size_t)h->nseg + k + 1, i = 0, j = 0, nold = 2 * (size_t)h->nseg;
	uint32_t m = 0, prev = 0;
	int32_t cur = 0;

	if (c->captmp < need || h->cap < need) {
		struct seg *y = c->captmp < need ? realloc(c->tmp, 2 * need * sizeof(*y)) : c->tmp;
		struct seg *z = h->cap < need ? realloc(h->s, 2 * need * sizeof(*z)) : h->s;

		if (y)
			c->tmp = y, c->captmp = c->captmp < need ? (uint32_t)(2 * need) : c->captmp;
		if (z)
			h->s = z, h->cap = h->cap < need ? (uint32_t)(2 * need) : h->cap;
		if (!y || !z) {
			c->oom = 1;
			return;
		}
	}
	for (uint32_t q = 0; q < h->nseg; q++)
		vrun(c, h->s[q].v, h->s[q].p0, h->s[q].p1, -1);
	while (i < nold || j < k) {
		/* the old runs' change points (start i even, end odd) and e's, by shift */
		const struct seg *g = &h->s[i / 2];
		uint32_t po = i < nold ? (i & 1 ? g->p1 : g->p0) : UINT32_MAX;
		uint32_t pe = j < k ? (uint32_t)e[j].key : UINT32_MAX, p = po < pe ? po : pe;
		int32_t dv = po <= pe ? (i & 1 ? -(int32_t)g->v : (int32_t)g->v) : e[j].dv;

		if (p > prev && cur > 0)
			push(c, &m, prev, p, (uint32_t)cur);
		cur += dv;
		prev = p;
		if (po <= pe)
			i++;
		else
			j++;
	}
	for (uint32_t q = 0; q < m; q++)
		vrun(c, c->tmp[q].v, c->tmp[q].p0, c->tmp[q].p1, 1);
	memcpy(h->s, c->tmp, m * sizeof(*h->s));
	h->nseg = m;
}

/* The change points kept, sorted, each channel's runs rebuilt once. */
static void todo_apply(vt_shift_count *c)
{
	if (c->oom || !c->ntodo)
		return;
	todo_sort(c);
	for (size_t a = 0, b; a < c->ntodo; a = b) {
		uint32_t ch = (uint32_t)(c->todo[a].key >> 32);

		for (b = a + 1; b < c->ntodo && c->todo[b].key >> 32 == ch; b++)
			;
		chan_rebuild(c, ch, c->todo + a, b - a);
	}
	c->ntodo = 0;
}

/* Range-add of shifts x .. x+len-1 (mod n) on channel ch, signed; only the pattern's shifts. */
static void emit(vt_shift_count *c, uint32_t ch, uint32_t x, uint32_t len, int32_t sign)
{
	uint64_t y = (uint64_t)x + len;

	if (len >= c->n)
		x = 0, y = c->n;
	if (y > c->n) { /* wraps: also 0 .. y-n-1 */
		if (y - c->n > c->first)
			todo_add(c, ch, c->first, (uint32_t)(y - c->n), sign);
		y = c->n;
	}
	if (x < c->first)
		x = c->first;
	if (x < y)
		todo_add(c, ch, x, (uint32_t)y, sign);
}

/* The stage maxima and figures from the per-load counts. */
static int figures(vt_shift_count *c)
{
	double sum = 0;

	if (c->oom)
		return -1;
	memset(c->stage_max, 0, ((size_t)c->K + 1) * sizeof(*c->stage_max));
	for (uint32_t v = 1; v <= c->vcap; v++) {
		const int32_t *row = c->vcnt + (size_t)(v - 1) * (c->K + 1);
		int32_t run = 0;

		for (uint32_t s = 0; s < c->K; s++) {
			run += row[s];
			if (run > 0)
				c->stage_max[s] = v;
		}
	}
	c->worst = 0;
	for (uint32_t s = 0; s < c->K; s++) {
		sum += c->stage_max[s];
		if (c->stage_max[s] > c->worst)
			c->worst = c->stage_max[s];
	}
	c->avg = c->K ? sum / c->K : 0;
	return 0;
}

void vt_shift_count_free(vt_shift_count *c)
{
	if (!c)
		return;
	for (uint32_t ch = 0; c->ch && ch < c->nchan; ch++)
		free(c->ch[ch].s);
	free(c->ch);
	free(c->vcnt);
	free(c->stage_max);
	free(c->tmp);
	free(c->dirty);
	free(c->todo);
	free(c->todo2);
	free(c->todo_cnt);
	free(c->pend);
	free(c->pslot);
	free(c->pused);
	vt_walk_free(&c->w);
	free(c->ok[0]);
	free(c->ok[1]);
	free(c);
}

/* A run the interval method found (vt_congest_opts on_run), appended to its channel's. */
static void take_run(void *ctx, uint32_t ch, uint32_t v, uint32_t p0, uint32_t p1)
{
	vt_shift_count *c = ctx;
	struct chan *h = &c->ch[ch];

	if (h->nseg == h->cap) {
		uint32_t nc = h->cap ? 2 * h->cap : 4;
		struct seg *x = realloc(h->s, nc * sizeof(*x));

		if (!x) {
			c->oom = 1;
			return;
		}
		h->s = x;
		h->cap = nc;
	}
	h->s[h->nseg++] = (struct seg){p0, p1, v};
	vrun(c, v, p0, p1, 1);
}

/*
 * Every destination counted from nothing (what was counted before
 * forgotten), by the interval method, which hands over its runs: the fastest
 * whole count there is.
 */
static int count_all(vt_shift_count *c, const vt_routes *r, vt_err *e)
{
	struct vt_congest_opts o = {
		.threads = 1, .method = VT_CONGEST_INTERVAL, .on_run = take_run, .on_run_ctx = c};
	vt_pattern p;
	vt_congest res;
	int rc;

	for (uint32_t ch = 0; ch < c->nchan; ch++)
		c->ch[ch].nseg = 0;
	if (c->vcnt)
		memset(c->vcnt, 0, (size_t)c->vcap * (c->K + 1) * sizeof(*c->vcnt));
	if (vt_pattern_parse(&p, "shift", r->n, e))
		return -1;
	rc = vt_congest_run(r, &p, &o, &res, e);
	vt_pattern_free(&p);
	if (rc)
		return -1;
	vt_congest_free(&res);
	if (figures(c))
		return vt_err_nomem(e, "out of memory counting shift congestion");
	return 0;
}

vt_shift_count *vt_shift_count_new(const vt_routes *r, vt_err *e)
{
	vt_shift_count *c = calloc(1, sizeof(*c));
	size_t m;

	if (!c)
		goto oom;
	c->n = r->n;
	c->nchan = r->nchan;
	c->first = 1;
	c->K = r->n ? r->n - 1 : 0;
	m = (size_t)c->nchan + 2;
	c->ch = calloc(m, sizeof(*c->ch));
	c->stage_max = calloc((size_t)c->K + 1, sizeof(*c->stage_max));
	c->dirty = malloc(((size_t)r->n + 1) * sizeof(*c->dirty));
	c->todo_cnt = malloc(65536 * sizeof(*c->todo_cnt));
	c->ok[0] = malloc((size_t)r->nruns + 1);
	c->ok[1] = malloc((size_t)r->nruns + 1);
	if (vt_walk_init(&c->w, r) || !c->ch || !c->stage_max || !c->dirty || !c->ok[0] ||
	    !c->ok[1] || !c->todo_cnt)
		goto oom;
	if (!count_all(c, r, e))
		return c;
	vt_shift_count_free(c);
	return NULL;
oom:
	vt_shift_count_free(c);
	vt_err_nomem(e, "out of memory counting shift congestion");
	return NULL;
}

/* The pending range-adds in twice as many slots (rehashed), or c->oom. */
static void pend_grow(vt_shift_count *c)
{
	uint32_t nc = c->pcap ? 2 * c->pcap : 1024, m = c->npend;
	struct pend *np = malloc((size_t)nc * sizeof(*np)), *op = c->pend;
	uint32_t *ns = calloc(nc, sizeof(*ns)), *nu = malloc((size_t)nc * sizeof(*nu));
	uint32_t *ou = c->pused;

	if (!np || !ns || !nu) {
		free(np), free(ns), free(nu);
		c->oom = 1;
		return;
	}
	c->pend = np, c->pused = nu, c->pcap = nc, c->npend = 0;
	free(c->pslot);
	c->pslot = ns;
	c->ptag = 1;
	for (uint32_t i = 0; i < m; i++) {
		const struct pend *e = &op[ou[i]];

		pend_add(c, e->ch, e->x, e->len, e->net);
	}
	free(op);
	free(ou);
}

/* Range-add (emit's) signed, kept by key until pend_flush: a path both before and after cancels. */
static void pend_add(vt_shift_count *c, uint32_t ch, uint32_t x, uint32_t len, int32_t sign)
{
	uint32_t h;

	if (2 * (c->npend + 1) > c->pcap)
		pend_grow(c);
	if (c->oom)
		return;
	h = (uint32_t)((ch * 0x9e3779b97f4a7c15ull ^ x * 0xc2b2ae3d27d4eb4full ^ len) >> 32);
	for (h &= c->pcap - 1;; h = (h + 1) & (c->pcap - 1)) {
		struct pend *e = &c->pend[h];

		if (c->pslot[h] != c->ptag) {
			c->pslot[h] = c->ptag;
			*e = (struct pend){ch, x, len, sign};
			c->pused[c->npend++] = h;
			return;
		}
		if (e->ch == ch && e->x == x && e->len == len) {
			e->net += sign;
			return;
		}
	}
}

/* The range-adds pending that did not cancel, emitted; the slots emptied. */
static void pend_flush(vt_shift_count *c)
{
	for (uint32_t i = 0; i < c->npend; i++) {
		const struct pend *e = &c->pend[c->pused[i]];

		for (int32_t k = e->net < 0 ? -e->net : e->net; k > 0; k--)
			emit(c, e->ch, e->x, e->len, e->net < 0 ? -1 : 1);
	}
	c->npend = 0;
	if (++c->ptag == 0) {
		memset(c->pslot, 0, (size_t)c->pcap * sizeof(*c->pslot));
		c->ptag = 1;
	}
}

/*
 * Destination d's columns in tables from and t differ: its range-adds
 * moved, those the old and new paths both hold left as they are.
 */
static void redo_dest(vt_shift_count *c, const vt_routes *r, const vt_lfts *from, const vt_lfts *t,
		      uint32_t d)
{
	walk_dest(c, r, from, d, -1, c->ok[0]);
	walk_dest(c, r, t, d, 1, c->ok[1]);
	/* a source run that reaches d now and did not (or back): its hosts' up-links */
	for (uint32_t k = 0; k < r->nruns; k++) {
		int was = c->ok[0][k], is = c->ok[1][k];

		for (uint32_t a = r->run_first[k]; was != is && a < r->run_first[k] + r->run_len[k];
		     a++)
			pend_add(c, r->rank_up[a], mod_sub(d, a, c->n), 1, is ? 1 : -1);
	}
	pend_flush(c);
}

int vt_shift_count_update(vt_shift_count *c, vt_routes *r, const vt_lfts *from, const vt_lfts *t,
			  const uint8_t *changed, vt_err *e)
{
	uint32_t nd = 0, *dirty = c->dirty;

	for (uint32_t d = 0; d < r->n; d++) {
		uint32_t lid = r->rank_lid[d];

		if (r->rank_sw[d] != VT_NONE && (!changed || (lid < t->nlid && changed[lid])))
			dirty[nd++] = d;
	}
	if (vt_routes_retable(r, t, changed, e))
		return -1;
	/* many ranks changed (the first candidate after the fresh tables): a whole count costs less
	 */
	if (!changed || !from || (uint64_t)nd * VT_SHIFT_COUNT_WHOLE > r->n)
		return count_all(c, r, e);
	for (uint32_t i = 0; i < nd && !c->oom; i++)
		redo_dest(c, r, from, t, dirty[i]);
	todo_apply(c);
	if (figures(c))
		return vt_err_nomem(e, "out of memory counting shift congestion");
	return 0;
}

int vt_shift_count_remap(vt_shift_count *c, const vt_routes *r, const uint32_t *map, vt_err *e)
{
	struct chan *nch;
	struct vt_walk w;
	uint8_t *ok0, *ok1;

	if (r->n != c->n)
		return 1; /* other ranks: every stage another */
	for (uint32_t ch = 0; ch < c->nchan; ch++)
		if (c->ch[ch].nseg && (map[ch] == VT_NONE || map[ch] >= r->nchan))
			return 1; /* a load on a channel the fabric lost */
	nch = calloc((size_t)r->nchan + 2, sizeof(*nch));
	ok0 = malloc((size_t)r->nruns + 1);
	ok1 = malloc((size_t)r->nruns + 1);
	if (!nch || !ok0 || !ok1 || vt_walk_init(&w, r)) {
		if (nch && ok0 && ok1)
			vt_walk_free(&w);
		free(nch), free(ok0), free(ok1);
		return vt_err_nomem(e, "out of memory remapping a shift count");
	}
	for (uint32_t ch = 0; ch < c->nchan; ch++) {
		if (map[ch] != VT_NONE && map[ch] < r->nchan)
			nch[map[ch]] = c->ch[ch];
		else
			free(c->ch[ch].s); /* empty, checked above */
	}
	free(c->ch);
	c->ch = nch;
	c->nchan = r->nchan;
	vt_walk_free(&c->w);
	c->w = w;
	free(c->ok[0]), free(c->ok[1]);
	c->ok[0] = ok0, c->ok[1] = ok1;
	return 0;
}

void vt_shift_count_figures(const vt_shift_count *c, uint32_t *worst, double *avg)
{
	*worst = c->worst;
	*avg = c->avg;
}
