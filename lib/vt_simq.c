/* SPDX-License-Identifier: MIT */
#include "vt_simq.h"

#include <stdlib.h>
#include <string.h>

int vt_simq_init(vt_simq *q, unsigned width_log, unsigned nbucket_log, vt_err *e)
{
	memset(q, 0, sizeof(*q));
	q->width_log = width_log;
	q->nbucket_log = nbucket_log;
	q->bucket = calloc((size_t)1 << nbucket_log, sizeof(*q->bucket));
	q->btail = calloc((size_t)1 << nbucket_log, sizeof(*q->btail));
	q->cnt = malloc(256 * sizeof(*q->cnt));
	q->cap = 1024;
	q->ev = malloc(q->cap * sizeof(*q->ev));
	if (!q->bucket || !q->btail || !q->cnt || !q->ev) {
		vt_simq_free(q);
		return vt_err_set(e, "out of memory for the event queue");
	}
	/* free list over 1 .. cap-1; index 0 means "none" */
	for (uint32_t i = 1; i < q->cap; i++)
		q->ev[i].next = i + 1 < q->cap ? i + 1 : 0;
	q->free_head = 1;
	q->over_min = UINT64_MAX;
	return 0;
}

void vt_simq_free(vt_simq *q)
{
	free(q->ev);
	free(q->bucket);
	free(q->btail);
	free(q->over);
	free(q->cur);
	free(q->tmp);
	free(q->cnt);
	free(q->heap);
	memset(q, 0, sizeof(*q));
}

static int grow_pool(vt_simq *q)
{
	uint32_t nc = q->cap * 2;
	struct vt_simq_ev *n;

	if (nc <= q->cap)
		return -1;
	n = realloc(q->ev, (size_t)nc * sizeof(*n));
	if (!n)
		return -1;
	q->ev = n;
	for (uint32_t i = q->cap; i < nc; i++)
		n[i].next = i + 1 < nc ? i + 1 : 0;
	q->free_head = q->cap;
	q->cap = nc;
	return 0;
}

static int before(const struct vt_simq_key *x, const struct vt_simq_key *y)
{
	return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

static int heap_push(vt_simq *q, struct vt_simq_key k)
{
	uint32_t j;

	if (q->nheap == q->cap_heap) {
		uint32_t nc = q->cap_heap ? q->cap_heap * 2 : 256;
		struct vt_simq_key *n = realloc(q->heap, nc * sizeof(*n));

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

static uint32_t heap_pop(vt_simq *q)
{
	uint32_t top = q->heap[0].i, k = 0;
	struct vt_simq_key last = q->heap[--q->nheap];

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

/* Appends, so a bucket's list stays in insertion order. */
static void wheel_put(vt_simq *q, uint32_t i)
{
	uint32_t b = (uint32_t)(q->ev[i].t >> q->width_log) & ((1u << q->nbucket_log) - 1);

	q->ev[i].next = 0;
	if (q->btail[b])
		q->ev[q->btail[b]].next = i;
	else
		q->bucket[b] = i;
	q->btail[b] = i;
	q->in_wheel++;
}

static uint64_t horizon(const vt_simq *q)
{
	return q->base + ((uint64_t)1 << (q->width_log + q->nbucket_log));
}

uint32_t vt_simq_push(vt_simq *q, uint64_t t, uint8_t type, uint32_t a, uint32_t b)
{
	uint32_t i;

	if (!q->free_head && grow_pool(q))
		return 0;
	i = q->free_head;
	q->free_head = q->ev[i].next;
	q->ev[i].t = t < q->base ? q->base : t;
	q->ev[i].seq = q->seq++;
	q->ev[i].type = type;
	q->ev[i].a = a;
	q->ev[i].b = b;
	q->size++;
	if (q->ev[i].t < q->base + ((uint64_t)1 << q->width_log)) {
		/* the bucket being played */
		if (heap_push(q, (struct vt_simq_key){q->ev[i].t, q->ev[i].seq, i}))
			return 0;
		q->in_wheel++;
		return i;
	}
	if (q->ev[i].t < horizon(q)) {
		wheel_put(q, i);
		return i;
	}
	if (q->nover == q->cap_over) {
		uint32_t nc = q->cap_over ? q->cap_over * 2 : 256;
		uint32_t *n = realloc(q->over, nc * sizeof(*n));

		if (!n)
			return 0;
		q->over = n;
		q->cap_over = nc;
	}
	q->over[q->nover++] = i;
	if (q->ev[i].t < q->over_min)
		q->over_min = q->ev[i].t;
	return i;
}

/*
 * Moves overflow events that the wheel now covers into their buckets, in
 * insertion order; no event was pushed into those bucket laps yet, since
 * they were beyond the horizon until now.
 */
static void migrate(vt_simq *q)
{
	uint64_t h = horizon(q), m = UINT64_MAX;
	uint32_t k = 0;

	for (uint32_t j = 0; j < q->nover; j++) {
		uint32_t i = q->over[j];

		if (q->ev[i].t < h) {
			wheel_put(q, i);
		} else {
			q->over[k++] = i;
			if (q->ev[i].t < m)
				m = q->ev[i].t;
		}
	}
	q->nover = k;
	q->over_min = m;
}

/* Stable LSD radix sort of cur[0..n) on t - base, 8 bits a pass. */
static void radix_sort(vt_simq *q, uint32_t n)
{
	for (unsigned sh = 0; sh < q->width_log || sh == 0; sh += 8) {
		struct vt_simq_key *a = q->cur, *b = q->tmp;
		uint32_t sum = 0;

		memset(q->cnt, 0, 256 * sizeof(*q->cnt));
		for (uint32_t j = 0; j < n; j++)
			q->cnt[((a[j].t - q->base) >> sh) & 255]++;
		for (unsigned d = 0; d < 256; d++) {
			uint32_t c = q->cnt[d];

			q->cnt[d] = sum;
			sum += c;
		}
		for (uint32_t j = 0; j < n; j++)
			b[q->cnt[((a[j].t - q->base) >> sh) & 255]++] = a[j];
		q->cur = b;
		q->tmp = a;
	}
}

/* Moves the current bucket's events into cur[], sorted on (t, seq). */
static int load_bucket(vt_simq *q)
{
	uint32_t i = q->bucket[q->cur_b], n = 0;

	q->bucket[q->cur_b] = q->btail[q->cur_b] = 0;
	for (; i; i = q->ev[i].next) {
		if (n == q->cap_cur) {
			uint32_t nc = q->cap_cur ? q->cap_cur * 2 : 1024;
			struct vt_simq_key *c = realloc(q->cur, nc * sizeof(*c));
			struct vt_simq_key *t = c ? realloc(q->tmp, nc * sizeof(*t)) : NULL;

			if (c)
				q->cur = c;
			if (!t)
				return -1;
			q->tmp = t;
			q->cap_cur = nc;
		}
		q->cur[n++] = (struct vt_simq_key){q->ev[i].t, q->ev[i].seq, i};
	}
	if (n > 32) {
		radix_sort(q, n);
	} else {
		/* insertion order is seq order: a stable sort on t suffices */
		for (uint32_t j = 1; j < n; j++) {
			struct vt_simq_key k = q->cur[j];
			uint32_t m = j;

			for (; m && q->cur[m - 1].t > k.t; m--)
				q->cur[m] = q->cur[m - 1];
			q->cur[m] = k;
		}
	}
	q->ncur = n;
	q->cur_at = 0;
	return 0;
}

int vt_simq_pop(vt_simq *q, struct vt_simq_ev *out)
{
	uint32_t mask = (1u << q->nbucket_log) - 1, best;
	uint64_t width = (uint64_t)1 << q->width_log;

	if (!q->size)
		return 0;
	while (q->cur_at == q->ncur && !q->nheap) {
		if (q->in_wheel) {
			q->cur_b = (q->cur_b + 1) & mask;
			q->base += width;
			if (q->nover && q->over_min < horizon(q))
				migrate(q);
		} else {
			/* jump straight to the earliest far event */
			q->base = q->over_min >> q->width_log << q->width_log;
			q->cur_b = (uint32_t)(q->base >> q->width_log) & mask;
			migrate(q);
		}
		if (load_bucket(q))
			return -1;
	}
	if (q->cur_at < q->ncur && (!q->nheap || before(&q->cur[q->cur_at], &q->heap[0])))
		best = q->cur[q->cur_at++].i;
	else
		best = heap_pop(q);
	*out = q->ev[best];
	q->ev[best].next = q->free_head;
	q->free_head = best;
	q->in_wheel--;
	q->size--;
	return 1;
}
