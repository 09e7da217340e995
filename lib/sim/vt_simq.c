/* SPDX-License-Identifier: MIT */
#include "sim/vt_simq.h"

#include <stdlib.h>
#include <string.h>

int vt_simq_init(vt_simq *q, unsigned width_log, unsigned nbucket_log, vt_err *e)
{
	memset(q, 0, sizeof(*q));
	q->width_log = width_log;
	q->nbucket_log = nbucket_log;
	q->bucket = calloc((size_t)1 << nbucket_log, sizeof(*q->bucket));
	if (!q->bucket)
		return vt_err_nomem(e, "out of memory for the event queue");
	q->over_min = UINT64_MAX;
	return 0;
}

void vt_simq_free(vt_simq *q)
{
	if (q->bucket)
		for (size_t b = 0; b < (size_t)1 << q->nbucket_log; b++)
			free(q->bucket[b].ev);
	free(q->bucket);
	free(q->over.ev);
	free(q->cur.ev);
	free(q->tmp.ev);
	free(q->heap);
	memset(q, 0, sizeof(*q));
}

/* Room for n events in v (its contents are kept). */
static int reserve(struct vt_simq_vec *v, uint32_t n)
{
	uint32_t nc = v->cap ? v->cap : 16;
	struct vt_simq_ev *x;

	if (n <= v->cap)
		return 0;
	while (nc < n) {
		if (nc > UINT32_MAX / 2)
			return -1;
		nc *= 2;
	}
	x = realloc(v->ev, (size_t)nc * sizeof(*x));
	if (!x)
		return -1;
	v->ev = x;
	v->cap = nc;
	return 0;
}

static int append(struct vt_simq_vec *v, struct vt_simq_ev ev)
{
	if (v->n == v->cap && reserve(v, v->n + 1))
		return -1;
	v->ev[v->n++] = ev;
	return 0;
}

static int before(const struct vt_simq_hev *x, const struct vt_simq_hev *y)
{
	return x->ev.t < y->ev.t || (x->ev.t == y->ev.t && x->seq < y->seq);
}

static int heap_push(vt_simq *q, struct vt_simq_ev ev)
{
	struct vt_simq_hev k = {q->seq++, ev};
	uint32_t j;

	if (q->nheap == q->cap_heap) {
		uint32_t nc = q->cap_heap ? q->cap_heap * 2 : 256;
		struct vt_simq_hev *n = realloc(q->heap, nc * sizeof(*n));

		if (!n)
			return -1;
		q->heap = n;
		q->cap_heap = nc;
	}
	j = q->nheap++;
	while (j && before(&k, &q->heap[(j - 1) / 2])) {
		q->heap[j] = q->heap[(j - 1) / 2];
		j = (j - 1) / 2;
	}
	q->heap[j] = k;
	return 0;
}

static struct vt_simq_ev heap_pop(vt_simq *q)
{
	struct vt_simq_ev top = q->heap[0].ev;
	struct vt_simq_hev last = q->heap[--q->nheap];
	uint32_t k = 0;

	for (;;) {
		uint32_t c = 2 * k + 1;

		if (c >= q->nheap)
			break;
		if (c + 1 < q->nheap && before(&q->heap[c + 1], &q->heap[c]))
			c++;
		if (!before(&q->heap[c], &last))
			break;
		q->heap[k] = q->heap[c];
		k = c;
	}
	if (q->nheap)
		q->heap[k] = last;
	return top;
}

static int wheel_put(vt_simq *q, struct vt_simq_ev ev)
{
	uint32_t b = (uint32_t)(ev.t >> q->width_log) & ((1u << q->nbucket_log) - 1);

	if (append(&q->bucket[b], ev))
		return -1;
	q->in_wheel++;
	return 0;
}

static uint64_t horizon(const vt_simq *q)
{
	return q->base + ((uint64_t)1 << (q->width_log + q->nbucket_log));
}

int vt_simq_push(vt_simq *q, uint64_t t, uint8_t type, uint32_t a)
{
	struct vt_simq_ev ev = {t < q->base ? q->base : t, a, type};
	int rc;

	if (ev.t < q->base + ((uint64_t)1 << q->width_log))
		rc = heap_push(q, ev); /* the bucket being played */
	else if (ev.t < horizon(q))
		rc = wheel_put(q, ev);
	else if (!(rc = append(&q->over, ev)) && ev.t < q->over_min)
		q->over_min = ev.t;
	if (!rc)
		q->size++;
	return rc;
}

/*
 * Moves overflow events that the wheel now covers into their buckets, in
 * insertion order; no event was pushed into those bucket laps yet, since
 * they were beyond the horizon until now.
 */
static int migrate(vt_simq *q)
{
	uint64_t h = horizon(q), m = UINT64_MAX;
	uint32_t k = 0;

	for (uint32_t j = 0; j < q->over.n; j++) {
		struct vt_simq_ev ev = q->over.ev[j];

		if (ev.t < h) {
			if (wheel_put(q, ev))
				return -1;
		} else {
			q->over.ev[k++] = ev;
			if (ev.t < m)
				m = ev.t;
		}
	}
	q->over.n = k;
	q->over_min = m;
	return 0;
}

static void swap_vec(struct vt_simq_vec *x, struct vt_simq_vec *y)
{
	struct vt_simq_vec v = *x;

	*x = *y;
	*y = v;
}

/* One stable counting-sort pass of src into dst on bits sh.. of t - base. */
static void radix_pass(vt_simq *q, const struct vt_simq_vec *src, struct vt_simq_vec *dst,
		       unsigned sh)
{
	uint32_t sum = 0;

	memset(q->cnt, 0, sizeof(q->cnt));
	for (uint32_t j = 0; j < src->n; j++)
		q->cnt[((src->ev[j].t - q->base) >> sh) & 255]++;
	for (unsigned d = 0; d < 256; d++) {
		uint32_t c = q->cnt[d];

		q->cnt[d] = sum;
		sum += c;
	}
	for (uint32_t j = 0; j < src->n; j++)
		dst->ev[q->cnt[((src->ev[j].t - q->base) >> sh) & 255]++] = src->ev[j];
	dst->n = src->n;
}

/*
 * Moves the current bucket's events into cur, sorted on time with ties in
 * insertion order: 8 bits a pass of a stable LSD radix sort, or an insertion
 * sort for a few events.
 */
static int load_bucket(vt_simq *q)
{
	struct vt_simq_vec *bk = &q->bucket[q->cur_b];
	uint32_t n = bk->n;

	if (reserve(&q->cur, n) || reserve(&q->tmp, n))
		return -1;
	q->in_wheel -= n;
	q->cur_at = 0;
	if (n > 32) {
		radix_pass(q, bk, &q->cur, 0);
		for (unsigned sh = 8; sh < q->width_log; sh += 8) {
			radix_pass(q, &q->cur, &q->tmp, sh);
			swap_vec(&q->cur, &q->tmp);
		}
		bk->n = 0;
		return 0;
	}
	if (n)
		memcpy(q->cur.ev, bk->ev, n * sizeof(*bk->ev));
	q->cur.n = n;
	bk->n = 0;
	for (uint32_t j = 1; j < n; j++) {
		struct vt_simq_ev k = q->cur.ev[j];
		uint32_t m = j;

		for (; m && q->cur.ev[m - 1].t > k.t; m--)
			q->cur.ev[m] = q->cur.ev[m - 1];
		q->cur.ev[m] = k;
	}
	return 0;
}

int vt_simq_pop(vt_simq *q, struct vt_simq_ev *out)
{
	uint32_t mask = (1u << q->nbucket_log) - 1;
	uint64_t width = (uint64_t)1 << q->width_log;

	if (!q->size)
		return 0;
	while (q->cur_at == q->cur.n && !q->nheap) {
		if (q->in_wheel) {
			q->cur_b = (q->cur_b + 1) & mask;
			q->base += width;
			if (q->over.n && q->over_min < horizon(q) && migrate(q))
				return -1;
		} else {
			/* jump straight to the earliest far event */
			q->base = q->over_min >> q->width_log << q->width_log;
			q->cur_b = (uint32_t)(q->base >> q->width_log) & mask;
			if (migrate(q))
				return -1;
		}
		if (load_bucket(q))
			return -1;
	}
	/* the sorted bucket was pushed before anything in the heap: it wins ties */
	if (q->cur_at < q->cur.n && (!q->nheap || q->cur.ev[q->cur_at].t <= q->heap[0].ev.t))
		*out = q->cur.ev[q->cur_at++];
	else
		*out = heap_pop(q);
	q->size--;
	return 1;
}
