/* SPDX-License-Identifier: MIT */
/*
 * Program workloads inside the simulator: each rank walks its steps in order
 * (cursor[] is its program counter), posting messages and stopping at a wait
 * until the message's HCA (sent) or sink (consumed) event lets it go on,
 * or at a compute step until its EV_COMPUTE event.
 * Messages between ranks on one CA are shared-memory copies: done when
 * posted, never in the fabric, counted apart (msgs_local, bytes_local).
 */
#include <stdlib.h>
#include <string.h>

#include "sim/vt_sim_int.h"

enum { PF_SENT = 1, PF_DONE = 2 };
/* prog_running[] per rank: inside vts_prog_run; its compute step's event is pending */
enum { PR_RUNNING = 1, PR_COMPUTING = 2 };

static uint32_t ca_of(const sim *s, uint32_t rank)
{
	return s->f->ports[s->rail_port[s->rail_off[rank]]].node;
}

/* Every step names a message of its rank the right way round, every message is posted once. */
static int check_steps(sim *s)
{
	const vt_simwork *w = s->w;

	for (uint32_t r = 0; r < s->nranks; r++)
		for (uint32_t k = w->step_off[r]; k < w->step_off[r + 1]; k++) {
			uint32_t st = w->step[k], mi = VT_STEP_MSG(st), kind = VT_STEP_KIND(st);
			int mine;

			if (kind == VT_STEP_COMPUTE)
				continue;
			mine = kind == VT_STEP_RECV ? w->dst[mi] == r : w->src[mi] == r;
			if (mi >= w->nmsg || !mine)
				return vt_err_set(s->e,
						  "rank %u step %u: not a message of this rank", r,
						  k - w->step_off[r]);
			if (kind == VT_STEP_POST && s->prog_flag[mi]++)
				return vt_err_set(s->e, "message %u is posted twice", mi);
		}
	for (uint64_t i = 0; i < w->nmsg; i++)
		if (!s->prog_flag[i])
			return vt_err_set(s->e, "message %llu is never posted",
					  (unsigned long long)i);
	memset(s->prog_flag, 0, w->nmsg);
	return 0;
}

int vts_prog_setup(sim *s)
{
	const vt_simwork *w = s->w;

	if (!w->step_off || !w->step)
		return vt_err_set(s->e, "program workload without steps");
	if (w->nmsg > VT_STEP_MAX_MSG)
		return vt_err_set(s->e, "too many messages (%llu)", (unsigned long long)w->nmsg);
	s->nmsg = w->nmsg;
	s->src = w->src;
	s->dst = w->dst;
	s->stg = w->stage;
	s->m = calloc(s->nmsg ? s->nmsg : 1, sizeof(*s->m));
	s->prog_flag = calloc(s->nmsg ? s->nmsg : 1, 1);
	s->prog_running = calloc(s->nranks, 1);
	s->r->msg_post_ps = calloc(s->nmsg ? s->nmsg : 1, sizeof(uint64_t));
	s->r->msg_end_ps = calloc(s->nmsg ? s->nmsg : 1, sizeof(uint64_t));
	if (!s->m || !s->prog_flag || !s->prog_running || !s->r->msg_post_ps || !s->r->msg_end_ps)
		return vt_err_set(s->e, "out of memory for %llu messages",
				  (unsigned long long)s->nmsg);
	for (uint64_t i = 0; i < s->nmsg; i++) {
		uint32_t a = s->src[i], b = s->dst[i];

		if (a >= s->nranks || b >= s->nranks || s->stg[i] >= w->nstages)
			return vt_err_set(s->e, "message %llu: rank or stage out of range",
					  (unsigned long long)i);
		if (s->rail_off[a] == s->rail_off[a + 1] || s->rail_off[b] == s->rail_off[b + 1])
			return vt_err_set(s->e, "message %llu: rank %u has no host",
					  (unsigned long long)i,
					  s->rail_off[a] == s->rail_off[a + 1] ? a : b);
		s->stage_left[s->stg[i]]++;
	}
	s->r->msgs = s->nmsg;
	for (uint32_t r = 0; r < s->nranks; r++)
		s->cursor[r] = w->step_off[r];
	return check_steps(s);
}

/* A shared-memory copy: done at once, its receiver told by an event (no recursion). */
static void post_local(sim *s, uint32_t mi)
{
	uint32_t st = s->stg[mi];

	s->m[mi].t_post = s->now;
	s->prog_flag[mi] |= PF_SENT;
	s->r->msgs_local++;
	s->r->bytes_local += vts_msg_bytes(s, mi);
	s->r->msgs_done++;
	s->r->msg_end_ps[mi] = s->now;
	s->r->end_ps = max64(s->r->end_ps, s->now);
	s->stage_left[st]--;
	s->r->stage_end_ps[st] = max64(s->r->stage_end_ps[st], s->now);
	push(s, s->now, EV_DONE, mi);
}

/*
 * Runs rank r until a wait stops it. A post can come back here (a one-packet
 * message leaves at once and reports itself sent): the inner call returns at
 * once and this loop sees the flag on its next look.
 */
void vts_prog_run(sim *s, uint32_t r)
{
	const vt_simwork *w = s->w;
	uint32_t end = w->step_off[r + 1];

	if (s->prog_running[r] & (PR_RUNNING | PR_COMPUTING))
		return;
	s->prog_running[r] = PR_RUNNING;
	while (s->cursor[r] < end && !s->failed) {
		uint32_t st = w->step[s->cursor[r]], mi = VT_STEP_MSG(st);

		if (VT_STEP_KIND(st) == VT_STEP_COMPUTE) {
			if (!mi) {
				s->cursor[r]++;
				continue;
			}
			s->prog_running[r] = PR_COMPUTING; /* vts_prog_computed moves on */
			push(s, s->now + (uint64_t)mi * 1000, EV_COMPUTE, r);
			return;
		}
		if (VT_STEP_KIND(st) == VT_STEP_POST) {
			s->cursor[r]++;
			if (ca_of(s, s->src[mi]) == ca_of(s, s->dst[mi]))
				post_local(s, mi);
			else
				vts_post(s, mi);
			continue;
		}
		if (!(s->prog_flag[mi] & (VT_STEP_KIND(st) == VT_STEP_SENT ? PF_SENT : PF_DONE)))
			break;
		s->cursor[r]++;
	}
	s->prog_running[r] = 0;
}

void vts_prog_sent(sim *s, uint32_t mi)
{
	s->prog_flag[mi] |= PF_SENT;
	vts_prog_run(s, s->src[mi]);
}

void vts_prog_done(sim *s, uint32_t mi)
{
	s->prog_flag[mi] |= PF_DONE;
	vts_prog_run(s, s->dst[mi]);
}

void vts_prog_computed(sim *s, uint32_t r)
{
	s->prog_running[r] = 0;
	s->cursor[r]++;
	vts_prog_run(s, r);
}

void vts_prog_finish(sim *s)
{
	for (uint64_t i = 0; i < s->nmsg; i++)
		s->r->msg_post_ps[i] = s->m[i].t_post;
}
