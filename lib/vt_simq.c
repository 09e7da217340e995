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
	q->cap = 1024;
	q->ev = malloc(q->cap * sizeof(*q->ev));
	if (!q->bucket || !q->ev) {
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
	free(q->over);
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

static int before(const vt_simq *q, uint32_t a, uint32_t b)
{
	const struct vt_simq_ev *x = &q->ev[a], *y = &q->ev[b];

	return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

static int heap_push(vt_simq *q, uint32_t i)
{
	uint32_t k;

	if (q->nheap == q->cap_heap) {
		uint32_t nc = q->cap_heap ? q->cap_heap * 2 : 256;
		uint32_t *n = realloc(q->heap, nc * sizeof(*n));

		if (!n)
			return -1;
		q->heap = n;
		q->cap_heap = nc;
	}
	k = q->nheap++;
	while (k && before(q, i, q->heap[(k - 1) / 2])) {
		q->heap[k] = q->heap[(k - 1) / 2];
		k = (k - 1) / 2;
	}
	q->heap[k] = i;
	return 0;
}

static uint32_t heap_pop(vt_simq *q)
{
	uint32_t top = q->heap[0], last = q->heap[--q->nheap], k = 0;

	for (;;) {
		uint32_t c = 2 * k + 1;

		if (c >= q->nheap)
			break;
		if (c + 1 < q->nheap && before(q, q->heap[c + 1], q->heap[c]))
			c++;
		if (!before(q, q->heap[c], last))
			break;
		q->heap[k] = q->heap[c];
		k = c;
	}
	if (q->nheap)
		q->heap[k] = last;
	return top;
}

static void wheel_put(vt_simq *q, uint32_t i)
{
	uint32_t b = (uint32_t)(q->ev[i].t >> q->width_log) & ((1u << q->nbucket_log) - 1);

	q->ev[i].next = q->bucket[b];
	q->bucket[b] = i;
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
		if (heap_push(q, i))
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

/* Moves overflow events that the wheel now covers into their buckets. */
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

/* Moves the current bucket's events of this lap into the heap. */
static int load_bucket(vt_simq *q)
{
	uint64_t end = q->base + ((uint64_t)1 << q->width_log);
	uint32_t i = q->bucket[q->cur], keep = 0;

	q->bucket[q->cur] = 0;
	while (i) {
		uint32_t n = q->ev[i].next;

		if (q->ev[i].t < end) {
			if (heap_push(q, i))
				return -1;
		} else {
			q->ev[i].next = keep; /* a later lap */
			keep = i;
		}
		i = n;
	}
	q->bucket[q->cur] = keep;
	return 0;
}

int vt_simq_pop(vt_simq *q, struct vt_simq_ev *out)
{
	uint32_t mask = (1u << q->nbucket_log) - 1;
	uint64_t width = (uint64_t)1 << q->width_log;

	if (!q->size)
		return 0;
	while (!q->nheap) {
		if (q->in_wheel) {
			q->cur = (q->cur + 1) & mask;
			q->base += width;
			if (q->nover && q->over_min < horizon(q))
				migrate(q);
		} else {
			/* jump straight to the earliest far event */
			q->base = q->over_min >> q->width_log << q->width_log;
			q->cur = (uint32_t)(q->base >> q->width_log) & mask;
			migrate(q);
		}
		if (load_bucket(q))
			return -1;
	}
	uint32_t best = heap_pop(q);

	*out = q->ev[best];
	q->ev[best].next = q->free_head;
	q->free_head = best;
	q->in_wheel--;
	q->size--;
	return 1;
}
