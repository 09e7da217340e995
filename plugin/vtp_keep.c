/* SPDX-License-Identifier: MIT */
/*
 * The shift count of the tables a sweep installed, kept for the next sweep's
 * repair guard (vt_route_guard_kept.h): counted on a thread started once the
 * tables are copied to the switches, so neither this sweep nor the next
 * waits for it (the next joins it, seconds later after a fault); the
 * repair's guard moves it onto the degraded fabric where a candidate needs
 * a count.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "repair/vt_route_guard_kept.h"
#include "vtp.h"

struct vtp_keep {
	pthread_t thread;
	const vt_fabric *f; /* p->prev_fab, p->prev_lfts: alive until vtp_keep_clear */
	const vt_lfts *t;
	vt_order o;	  /* the ranks the tables were routed for (the count copies them) */
	vt_guard_kept *k; /* the thread's result, NULL: none (out of memory, < 2 ranks) */
};

static void *keep_run(void *arg)
{
	struct vtp_keep *s = arg;
	vt_err e;

	s->k = vt_guard_kept_new(s->f, s->t, &s->o, &e);
	return NULL;
}

void vtp_keep_start(struct vtp *p)
{
	struct vtp_keep *s;

	vtp_keep_clear(p);
	if (!p->keep_wanted || !p->prev_fab || p->order.n < 2 || !(s = calloc(1, sizeof(*s)))) {
		vt_order_free(&p->order);
		memset(&p->order, 0, sizeof(p->order));
		return; /* the guard counts as without it */
	}
	s->f = p->prev_fab;
	s->t = &p->prev_lfts;
	s->o = p->order;
	memset(&p->order, 0, sizeof(p->order));
	if (pthread_create(&s->thread, NULL, keep_run, s)) {
		vt_order_free(&s->o);
		free(s);
		return;
	}
	p->keep = s;
}

/* The thread joined, its order freed: the count alone left (or NULL). */
vt_guard_kept *vtp_keep_take(struct vtp *p)
{
	struct vtp_keep *s = p->keep;
	vt_guard_kept *k;

	if (!s)
		return NULL;
	pthread_join(s->thread, NULL);
	k = s->k;
	vt_order_free(&s->o);
	free(s);
	p->keep = NULL;
	return k;
}

void vtp_keep_clear(struct vtp *p)
{
	vt_guard_kept_free(vtp_keep_take(p));
}
