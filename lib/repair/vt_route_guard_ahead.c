/* SPDX-License-Identifier: MIT */
/*
 * The guard's counts made ahead (vt_route_guard.h, vt_repair_guard_ahead):
 * a second thread counts, while the first builds candidates, what needs
 * only tables fixed before the repair starts. First the previous tables
 * (the first count the guard makes starts from them: a candidate keeps
 * their entries where they serve, so it differs from them in a few hundred
 * columns, an update of 3-30 ms where a whole count is 27-35), then the
 * fresh ones (the figures a candidate is judged against where it misses the
 * cut bound). Each result is handed over once, under the lock; the thread
 * reads only tables, fabric and order, which stay fixed until it is joined.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/vt_shift_count.h"
#include "repair/vt_route_guard.h"

enum { AHEAD_PREV = 1, AHEAD_FRESH = 2 }; /* bits of stage: that count is done */

struct vt_guard_ahead {
	pthread_t thread;
	pthread_mutex_t mu; /* guards stage and what it hands over; cv: stage changed */
	pthread_cond_t cv;
	int stage;
	atomic_int stop; /* the guard is done: no fresh count wanted */
	const vt_fabric *f;
	const vt_lfts *prev, *fresh;
	const vt_order *order;
	/* the previous tables' model and count (taken: handed to the guard) */
	int prev_ok, taken;
	vt_routes rt;
	vt_shift_count *count;
	int fresh_ok;
	uint32_t fresh_worst;
	double fresh_avg, fresh_s; /* fresh_s: the thread's CPU seconds for them */
};

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void ahead_done(struct vt_guard_ahead *a, int bit)
{
	pthread_mutex_lock(&a->mu);
	a->stage |= bit;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
}

/* The fresh tables' figures, as vt_shift_count_new counts them; 0, -1. */
static int fresh_figures(struct vt_guard_ahead *a)
{
	vt_routes rt;
	vt_shift_count *c;
	vt_err e;

	if (vt_routes_build(&rt, a->f, a->fresh, a->order, &e))
		return -1;
	c = atomic_load(&a->stop) ? NULL : vt_shift_count_new(&rt, &e);
	if (c)
		vt_shift_count_figures(c, &a->fresh_worst, &a->fresh_avg);
	vt_shift_count_free(c);
	vt_routes_free(&rt);
	return c ? 0 : -1;
}

static void *ahead_run(void *arg)
{
	struct vt_guard_ahead *a = arg;
	double t0 = thread_cpu();
	vt_err e;

	if (!vt_routes_build(&a->rt, a->f, a->prev, a->order, &e)) {
		a->prev_ok = 1;
		a->count = vt_shift_count_new(&a->rt, &e);
	}
	ahead_done(a, AHEAD_PREV);
	if (!atomic_load(&a->stop)) {
		t0 = thread_cpu();
		a->fresh_ok = !fresh_figures(a);
		a->fresh_s = thread_cpu() - t0;
	}
	ahead_done(a, AHEAD_FRESH);
	return NULL;
}

static void ahead_wait(struct vt_guard_ahead *a, int bit)
{
	pthread_mutex_lock(&a->mu);
	while (!(a->stage & bit))
		pthread_cond_wait(&a->cv, &a->mu);
	pthread_mutex_unlock(&a->mu);
}

void vt_repair_guard_ahead(struct repair_guard *g, const vt_lfts *prev)
{
	struct vt_guard_ahead *a;

	if (!g->order || g->order->n < 2 || !prev || prev->nsw != g->fresh->nsw ||
	    prev->nlid != g->fresh->nlid || !(a = calloc(1, sizeof(*a))))
		return; /* no shift guard, or the counts are made when needed */
	a->f = g->f;
	a->prev = prev;
	a->fresh = g->fresh;
	a->order = g->order;
	atomic_init(&a->stop, 0);
	if (pthread_mutex_init(&a->mu, NULL)) {
		free(a);
		return;
	}
	if (pthread_cond_init(&a->cv, NULL)) {
		pthread_mutex_destroy(&a->mu);
		free(a);
		return;
	}
	if (pthread_create(&a->thread, NULL, ahead_run, a)) {
		pthread_cond_destroy(&a->cv);
		pthread_mutex_destroy(&a->mu);
		free(a);
		return;
	}
	g->ahead = a;
}

int vt_repair_guard_ahead_fresh(struct repair_guard *g)
{
	struct vt_guard_ahead *a = g->ahead;

	if (!a)
		return 0;
	ahead_wait(a, AHEAD_FRESH);
	if (!a->fresh_ok)
		return 0;
	g->fresh_worst = a->fresh_worst;
	g->fresh_avg = a->fresh_avg;
	g->fresh_s = a->fresh_s;
	return 1;
}

int vt_repair_guard_ahead_prev(struct repair_guard *g, vt_routes *rt, vt_shift_count **count,
			       const vt_lfts **prev)
{
	struct vt_guard_ahead *a = g->ahead;

	if (!a || a->taken)
		return 0;
	ahead_wait(a, AHEAD_PREV);
	if (!a->prev_ok || !a->count)
		return 0;
	a->taken = 1;
	*rt = a->rt;
	*count = a->count;
	*prev = a->prev;
	a->count = NULL;
	return 1;
}

void vt_repair_guard_ahead_end(struct repair_guard *g)
{
	struct vt_guard_ahead *a = g->ahead;

	if (!a)
		return;
	atomic_store(&a->stop, 1);
	pthread_join(a->thread, NULL);
	if (a->prev_ok && !a->taken)
		vt_routes_free(&a->rt);
	vt_shift_count_free(a->count);
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	free(a);
	g->ahead = NULL;
}
