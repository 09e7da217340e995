/* SPDX-License-Identifier: MIT */
/*
 * The guard's count made ahead (vt_route_guard.h, vt_repair_guard_ahead):
 * a second thread counts the fresh tables, fixed before the repair starts,
 * while the first builds candidates. The fresh figures are what a candidate
 * is judged against where it misses the cut bound, and the routes model and
 * count are then the one the guard's first count starts from (an update for
 * the columns the candidate changed). The result is handed over once, under
 * the lock; the thread reads only tables, fabric and order, which stay fixed
 * until it is joined. It counted the previous tables first, as the first
 * count's start (a candidate differs from them in fewer columns): that whole
 * count was 28-60 ms of the repair's CPU outside its steps on the six faults
 * of tests/bench/fault.sh (pruned 36,12), and the update from it cost a whole
 * count where the top switch went down (684 ranks' columns changed), while
 * the fresh tables are counted for four of the six all the same.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/vt_shift_count.h"
#include "repair/vt_route_guard.h"

struct vt_guard_ahead {
	pthread_t thread;
	pthread_mutex_t mu; /* guards done and what it hands over; cv: done set */
	pthread_cond_t cv;
	int done;
	atomic_int stop; /* the guard is done: no count wanted */
	const vt_fabric *f;
	const vt_lfts *fresh;
	const vt_order *order;
	/* the fresh tables' model (have_rt) and count (taken: handed to the guard) */
	int have_rt, taken;
	vt_routes rt;
	vt_shift_count *count;
	uint32_t fresh_worst;
	double fresh_avg, fresh_s; /* fresh_s: the thread's CPU seconds for them */
};

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *ahead_run(void *arg)
{
	struct vt_guard_ahead *a = arg;
	double t0 = thread_cpu();
	vt_err e;

	if (!vt_routes_build_walked(&a->rt, a->f, a->fresh, a->order, &e)) {
		a->have_rt = 1;
		if (!atomic_load(&a->stop) && (a->count = vt_shift_count_new(&a->rt, &e)))
			vt_shift_count_figures(a->count, &a->fresh_worst, &a->fresh_avg);
	}
	a->fresh_s = thread_cpu() - t0;
	pthread_mutex_lock(&a->mu);
	a->done = 1;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

/* Waits for the count: 1 when made, 0 when not (out of memory, or stopped). */
static int ahead_wait(struct vt_guard_ahead *a)
{
	pthread_mutex_lock(&a->mu);
	while (!a->done)
		pthread_cond_wait(&a->cv, &a->mu);
	pthread_mutex_unlock(&a->mu);
	return a->count != NULL || a->taken;
}

void vt_repair_guard_ahead(struct repair_guard *g)
{
	struct vt_guard_ahead *a;

	if (!g->order || g->order->n < 2 || !(a = calloc(1, sizeof(*a))))
		return; /* no shift guard, or the counts are made when needed */
	a->f = g->f;
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

	if (!a || !ahead_wait(a))
		return 0;
	g->fresh_worst = a->fresh_worst;
	g->fresh_avg = a->fresh_avg;
	g->fresh_s = a->fresh_s;
	return 1;
}

int vt_repair_guard_ahead_take(struct repair_guard *g, vt_routes *rt, struct vt_shift_count **count,
			       const vt_lfts **from)
{
	struct vt_guard_ahead *a = g->ahead;

	if (!a || a->taken || !ahead_wait(a))
		return 0;
	a->taken = 1;
	*rt = a->rt;
	*count = a->count;
	*from = a->fresh;
	a->count = NULL;
	/* its CPU is the guard's first count's (step 1 of vt_repair_candidates) */
	g->fresh_s = a->fresh_s;
	g->fresh_ahead = 1;
	return 1;
}

void vt_repair_guard_ahead_end(struct repair_guard *g)
{
	struct vt_guard_ahead *a = g->ahead;

	if (!a)
		return;
	atomic_store(&a->stop, 1);
	pthread_join(a->thread, NULL);
	if (a->have_rt && !a->taken)
		vt_routes_free(&a->rt);
	vt_shift_count_free(a->count);
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	free(a);
	g->ahead = NULL;
}
