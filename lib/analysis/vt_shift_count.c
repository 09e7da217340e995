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
#include "model/vt_pattern.h"

#include <stdlib.h>
#include <string.h>

struct seg {
	uint32_t p0, p1, v; /* load v in shifts p0 .. p1-1 */
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
	uint32_t *stk_sw, *stk_lo, *spos, *path; /* per switch: walk_dest's stack and path */
	struct seg *tmp;			 /* seg_add's runs */
	uint32_t captmp;
	uint32_t *dirty, *old; /* vt_shift_count_update: the changed ranks, their rows before */
	size_t capold;
	int oom;
};

static inline uint32_t mod_sub(uint32_t a, uint32_t b, uint32_t n)
{
	return a >= b ? a - b : a + n - b;
}

static void emit(vt_shift_count *c, uint32_t ch, uint32_t x, uint32_t len, int32_t sign);

/* Closes the stack entries from position p up: their sources end at hi. */
static void stack_pop(vt_shift_count *c, const uint32_t *row, uint32_t *sp, uint32_t p, uint32_t d,
		      uint32_t hi, int32_t sign)
{
	for (uint32_t i = p; i < *sp; i++)
		emit(c, row[c->stk_sw[i]], mod_sub(d, hi, c->n), hi - c->stk_lo[i] + 1, sign);
	*sp = p;
}

/*
 * Destination d's range-adds under next row `row`, signed: the source runs in
 * rank order, each path walked only until it meets the previous run's (kept
 * on a stack of switches, the destination's end at the bottom), as paths to d
 * form a tree; a switch on both extends its open run of sources.
 */
static void walk_dest(vt_shift_count *c, const vt_routes *r, const uint32_t *row, uint32_t d,
		      int32_t sign)
{
	uint32_t sp = 0, prev_hi = VT_NONE;

	for (uint32_t k = 0; k < r->nruns; k++) {
		uint32_t sw = r->run_sw[k], lo = r->run_first[k], hi = lo + r->run_len[k] - 1;
		uint32_t np = 0, meet = 0;

		if (row[sw] == VT_NONE)
			continue;
		if (sp && prev_hi + 1 != lo)
			stack_pop(c, row, &sp, 0, d, prev_hi, sign);
		for (; sw != VT_NONE; sw = r->chan_sw[row[sw]]) {
			uint32_t q = c->spos[sw];

			if (q < sp &&
			    c->stk_sw[q] == sw) { /* the rest of the path is open already */
				meet = q + 1;
				break;
			}
			c->path[np++] = sw;
		}
		stack_pop(c, row, &sp, meet, d, prev_hi, sign);
		while (np) {
			sw = c->path[--np];
			c->spos[sw] = sp;
			c->stk_sw[sp] = sw;
			c->stk_lo[sp++] = lo;
		}
		prev_hi = hi;
	}
	stack_pop(c, row, &sp, 0, d, prev_hi, sign);
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

/*
 * Channel ch's load plus sign in shifts lo .. hi-1 (loads stay >= 0: a
 * removal takes away what was added): its runs rebuilt (most channels carry
 * one load in every shift: one run), and the per-load counts moved for the
 * pieces inside.
 */
static void seg_add(vt_shift_count *c, uint32_t ch, uint32_t lo, uint32_t hi, int32_t sign)
{
	struct chan *h = &c->ch[ch];
	uint32_t m = 0, i = 0, at = lo, need = 2 * h->nseg + 4; /* runs, gaps, two ends */

	if (c->captmp < need || h->cap < need) {
		struct seg *x = c->captmp < need ? realloc(c->tmp, 2 * need * sizeof(*x)) : c->tmp;
		struct seg *y = h->cap < need ? realloc(h->s, 2 * need * sizeof(*y)) : h->s;

		if (x)
			c->tmp = x, c->captmp = c->captmp < need ? 2 * need : c->captmp;
		if (y)
			h->s = y, h->cap = h->cap < need ? 2 * need : h->cap;
		if (!x || !y) {
			c->oom = 1;
			return;
		}
	}
	while (i < h->nseg && h->s[i].p1 <= lo)
		c->tmp[m++] = h->s[i++];
	while (at < hi) {
		/* the piece from at: inside run i, or the gap before it (load 0) */
		int in = i < h->nseg && h->s[i].p0 <= at;
		uint32_t v = in ? h->s[i].v : 0, end = in	     ? h->s[i].p1
						       : i < h->nseg ? h->s[i].p0
								     : hi;
		uint32_t nv = (uint32_t)((int32_t)v + sign);

		if (end > hi)
			end = hi;
		if (in && h->s[i].p0 < at) /* run i's part before lo */
			push(c, &m, h->s[i].p0, at, v);
		if (v)
			vrun(c, v, at, end, -1);
		if (nv) {
			vrun(c, nv, at, end, 1);
			push(c, &m, at, end, nv);
		}
		if (in && end == h->s[i].p1)
			i++;
		else if (in && end == hi) { /* run i's part after hi */
			push(c, &m, hi, h->s[i].p1, v);
			i++;
		}
		at = end;
	}
	for (; i < h->nseg; i++)
		push(c, &m, h->s[i].p0, h->s[i].p1, h->s[i].v);
	memcpy(h->s, c->tmp, m * sizeof(*h->s));
	h->nseg = m;
}

/* Range-add of shifts x .. x+len-1 (mod n) on channel ch, signed; only the pattern's shifts. */
static void emit(vt_shift_count *c, uint32_t ch, uint32_t x, uint32_t len, int32_t sign)
{
	uint64_t y = (uint64_t)x + len;

	if (len >= c->n)
		x = 0, y = c->n;
	if (y > c->n) { /* wraps: also 0 .. y-n-1 */
		if (y - c->n > c->first)
			seg_add(c, ch, c->first, (uint32_t)(y - c->n), sign);
		y = c->n;
	}
	if (x < c->first)
		x = c->first;
	if (x < y)
		seg_add(c, ch, x, (uint32_t)y, sign);
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
	free(c->old);
	free(c->dirty);
	free(c->stk_sw);
	free(c->stk_lo);
	free(c->spos);
	free(c->path);
	free(c);
}

/* A run the interval method found (vt_congest_opts on_run), appended to its channel's. */
static void take_run(void *ctx, uint32_t ch, uint32_t v, uint32_t p0, uint32_t p1)
{
	vt_shift_count *c = ctx;
	struct chan *h = &c->ch[ch];

	if (h->nseg == h->cap) {
		uint32_t nc = h->cap ? 2 * h->cap : 2;
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
	c->stk_sw = malloc(((size_t)r->nsw + 2) * sizeof(*c->stk_sw));
	c->stk_lo = malloc(((size_t)r->nsw + 2) * sizeof(*c->stk_lo));
	c->spos = calloc((size_t)r->nsw + 2, sizeof(*c->spos));
	c->path = malloc(((size_t)r->nsw + 2) * sizeof(*c->path));
	c->dirty = malloc(((size_t)r->n + 1) * sizeof(*c->dirty));
	if (!c->ch || !c->stage_max || !c->stk_sw || !c->stk_lo || !c->spos || !c->path ||
	    !c->dirty)
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

/* Destination d's rows before (old) and after (row) differ: its range-adds moved. */
static void redo_dest(vt_shift_count *c, const vt_routes *r, const uint32_t *old,
		      const uint32_t *row, uint32_t d)
{
	walk_dest(c, r, old, d, -1);
	walk_dest(c, r, row, d, 1);
	/* a source run that reaches d now and did not (or back): its hosts' up-links */
	for (uint32_t k = 0; k < r->nruns; k++) {
		int was = old[r->run_sw[k]] != VT_NONE, is = row[r->run_sw[k]] != VT_NONE;

		for (uint32_t a = r->run_first[k]; was != is && a < r->run_first[k] + r->run_len[k];
		     a++)
			emit(c, r->rank_up[a], mod_sub(d, a, c->n), 1, is ? 1 : -1);
	}
}

int vt_shift_count_update(vt_shift_count *c, vt_routes *r, const vt_lfts *t, const uint8_t *changed,
			  vt_err *e)
{
	uint32_t nd = 0, *dirty = c->dirty;
	size_t need;

	for (uint32_t d = 0; d < r->n; d++) {
		uint32_t lid = r->rank_lid[d];

		if (r->rank_sw[d] != VT_NONE && (!changed || (lid < t->nlid && changed[lid])))
			dirty[nd++] = d;
	}
	/* most ranks changed (the first candidate after the fresh tables): a whole count costs
	 * half of taking every old path away and adding the new */
	if (2 * (uint64_t)nd > r->n) {
		if (vt_routes_retable(r, t, changed, e))
			return -1;
		return count_all(c, r, e);
	}
	need = (size_t)nd * r->nsw + 1;
	if (need > c->capold) {
		free(c->old);
		c->old = malloc(need * sizeof(*c->old));
		c->capold = c->old ? need : 0;
		if (!c->old)
			return vt_err_nomem(e, "out of memory counting shift congestion");
	}
	for (uint32_t i = 0; i < nd; i++)
		memcpy(c->old + (size_t)i * r->nsw, r->next + (uint64_t)dirty[i] * r->nsw,
		       r->nsw * sizeof(*c->old));
	if (vt_routes_retable(r, t, changed, e))
		return -1;
	for (uint32_t i = 0; i < nd && !c->oom; i++) {
		const uint32_t *row = r->next + (uint64_t)dirty[i] * r->nsw;
		const uint32_t *old = c->old + (size_t)i * r->nsw;

		if (memcmp(old, row, r->nsw * sizeof(*row)))
			redo_dest(c, r, old, row, dirty[i]);
	}
	if (figures(c))
		return vt_err_nomem(e, "out of memory counting shift congestion");
	return 0;
}

void vt_shift_count_figures(const vt_shift_count *c, uint32_t *worst, double *avg)
{
	*worst = c->worst;
	*avg = c->avg;
}
