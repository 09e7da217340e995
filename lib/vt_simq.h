/* SPDX-License-Identifier: MIT */
/*
 * Event queue of the simulator: a timing wheel of 2^k buckets, each 2^w ps
 * wide, over a pool of events. Buckets are lists in insertion order; the
 * bucket about to be played is radix-sorted by time into an array (stable,
 * so ties keep insertion order; lock-stepped hosts put thousands of events
 * at one time), and events pushed into it while it plays go to a small heap
 * beside it. Events beyond the wheel's horizon wait in an overflow list and
 * move in when the wheel reaches them. Ties are broken by insertion order, so
 * a run is the same on every machine.
 */
#ifndef VT_SIMQ_H
#define VT_SIMQ_H

#include <stdint.h>

#include "vt_err.h"

struct vt_simq_ev {
	uint64_t t;    /* ps */
	uint64_t seq;  /* insertion number, for ties */
	uint32_t next; /* bucket chain / free list */
	uint32_t a, b; /* handler arguments */
	uint8_t type;
};

/* an event of the bucket being played, sorted or in the heap */
struct vt_simq_key {
	uint64_t t, seq;
	uint32_t i;
};

typedef struct vt_simq {
	struct vt_simq_ev *ev; /* pool; index 0 unused */
	uint32_t cap, free_head;
	uint32_t *bucket, *btail; /* head and tail index per bucket, 0 when empty */
	uint32_t nbucket_log, width_log;
	uint64_t base;	   /* start time of the current bucket */
	uint32_t cur_b;	   /* current bucket */
	uint64_t in_wheel; /* events in buckets */
	uint32_t *over;	   /* overflow events (pool indices) */
	uint32_t nover, cap_over;
	uint64_t over_min;
	uint64_t seq;
	uint64_t size;		       /* events pending */
	struct vt_simq_key *cur, *tmp; /* the current bucket sorted on (t, seq), from cur_at */
	uint32_t ncur, cur_at, cap_cur;
	uint32_t *cnt;		  /* radix counters */
	struct vt_simq_key *heap; /* pushed into the current bucket: a heap on (t, seq) */
	uint32_t nheap, cap_heap;
} vt_simq;

/* width_log: bucket width 2^width_log ps; nbucket_log: 2^nbucket_log buckets. */
int vt_simq_init(vt_simq *q, unsigned width_log, unsigned nbucket_log, vt_err *e);
void vt_simq_free(vt_simq *q);
/*
 * Times before the last popped event are taken as that time. Returns the
 * event's pool index (stable while it is pending, so its b may be updated
 * in place), 0 when out of memory.
 */
uint32_t vt_simq_push(vt_simq *q, uint64_t t, uint8_t type, uint32_t a, uint32_t b);
/* Pops the earliest event into *out; returns 1, 0 when the queue is empty, -1 out of memory. */
int vt_simq_pop(vt_simq *q, struct vt_simq_ev *out);

#endif
