/* SPDX-License-Identifier: MIT */
/*
 * Event queue of the simulator: a timing wheel of 2^k buckets, each 2^w ps
 * wide. A bucket is an array of events in insertion order, so pushing is an
 * append and playing a bucket reads memory in sequence. The bucket about to
 * be played is radix-sorted by time (stable, so ties keep insertion order;
 * lock-stepped hosts put thousands of events at one time), and events pushed
 * into it while it plays go to a small heap beside it. Events beyond the
 * wheel's horizon wait in an overflow array and move in when the wheel
 * reaches them. Ties are broken by insertion order, so a run is the same on
 * every machine.
 */
#ifndef VT_SIMQ_H
#define VT_SIMQ_H

#include <stdint.h>

#include "base/vt_err.h"

struct vt_simq_ev {
	uint64_t t; /* ps */
	uint32_t a; /* handler argument */
	uint8_t type;
};

/* a growable array of events */
struct vt_simq_vec {
	struct vt_simq_ev *ev;
	uint32_t n, cap;
};

/* an event pushed into the bucket being played: a heap on (t, seq) */
struct vt_simq_hev {
	uint64_t seq; /* insertion number, for ties */
	struct vt_simq_ev ev;
};

typedef struct vt_simq {
	struct vt_simq_vec *bucket; /* 2^nbucket_log arrays, insertion order */
	uint32_t nbucket_log, width_log;
	uint64_t base;		 /* start time of the current bucket */
	uint32_t cur_b;		 /* current bucket */
	uint64_t in_wheel;	 /* events in buckets */
	struct vt_simq_vec over; /* beyond the horizon, insertion order */
	uint64_t over_min;
	struct vt_simq_vec cur, tmp; /* the current bucket sorted on time, from cur_at */
	uint32_t cur_at;
	uint32_t cnt[256]; /* radix counters */
	struct vt_simq_hev *heap;
	uint32_t nheap, cap_heap;
	uint64_t seq;
	uint64_t size; /* events pending */
} vt_simq;

/* width_log: bucket width 2^width_log ps; nbucket_log: 2^nbucket_log buckets. */
int vt_simq_init(vt_simq *q, unsigned width_log, unsigned nbucket_log, vt_err *e);
void vt_simq_free(vt_simq *q);
/* Times before the current bucket are taken as its start. Returns 0, -1 when out of memory. */
int vt_simq_push(vt_simq *q, uint64_t t, uint8_t type, uint32_t a);
/* Pops the earliest event into *out; returns 1, 0 when the queue is empty, -1 out of memory. */
int vt_simq_pop(vt_simq *q, struct vt_simq_ev *out);

#endif
