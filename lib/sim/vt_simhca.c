/* SPDX-License-Identifier: MIT */
#include "sim/vt_sim_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void msg_sent(sim *s, uint32_t mi)
{
	uint32_t r = s->src[mi];

	if (s->w->mode == VT_WORK_B2B && !--s->outstanding[r])
		vts_post_stage_of(s, r);
	else if (s->w->mode == VT_WORK_PROGRAM)
		vts_prog_sent(s, mi);
}

/* A free chunk; 0 when out of memory. */
static uint32_t chunk_new(sim *s)
{
	uint32_t c = s->free_ch;

	if (c) {
		s->free_ch = s->ch[c].next;
		return c;
	}
	if (s->nch == s->cap_ch) {
		struct chunk *n = realloc(s->ch, (size_t)s->cap_ch * 2 * sizeof(*n));

		if (!n)
			return 0;
		s->ch = n;
		s->cap_ch *= 2;
	}
	return s->nch++;
}

/* Takes the rail FIFO's head chunk away. */
static void chunk_pop(sim *s, struct oport *o)
{
	uint32_t c = o->rail_head;

	o->rail_head = s->ch[c].next;
	if (!o->rail_head)
		o->rail_tail = 0;
	s->ch[c].next = s->free_ch;
	s->free_ch = c;
}

/* An HCA output: next packet of the rail's head chunk, if credits and generator allow. */
void vts_hca_kick(sim *s, uint32_t port)
{
	struct oport *o = &s->op[port];
	uint32_t c = o->rail_head, mi, pi, rail;
	struct msgrt *m;
	uint64_t avail;
	uint32_t payload, done, vl;

	if (!c)
		return;
	mi = s->ch[c].msg;
	rail = s->ch[c].rail;
	if (o->busy_until > s->now) {
		wake_at(s, port, o->busy_until);
		return;
	}
	m = &s->m[mi];
	uint32_t size = vts_msg_bytes(s, mi);

	done = vts_msg_pkts(s, size) - m->tx_left;
	payload = size - done * s->p.mtu;
	if (payload > s->p.mtu)
		payload = s->p.mtu;
	uint32_t bytes = vt_sim_wire_bytes(&s->p, payload),
		 cr = (bytes + VT_SIM_CREDIT - 1) / VT_SIM_CREDIT;
	struct slot *os;

	vl = vt_sim_vl(&s->p, s->src[mi], s->dst[mi]);
	os = &s->slot[port * s->nvl + vl];
	vts_absorb(s, os);
	if (os->credits < (int32_t)cr) {
		vts_wait_credits(s, port, os, cr);
		return;
	}
	os->need = 0;
	avail = max64(o->gen_t, m->t_post) + ser(s->gen_ppb_fx, bytes);
	if (avail > s->now) {
		wake_at(s, port, avail);
		return;
	}
	o->gen_t = avail;
	pi = vts_pkt_new(s);
	if (!pi) {
		vts_oom(s, "packets");
		return;
	}
	struct pkt *p = &s->pk[pi];
	uint32_t drank = s->dst[mi], nr = s->rail_off[drank + 1] - s->rail_off[drank];

	p->msg = mi;
	p->bytes = (uint16_t)bytes;
	p->payload = (uint16_t)payload;
	p->cr = (uint8_t)cr;
	p->vl = (uint8_t)vl;
	p->hops = 0;
	p->lid = s->f->ports[s->rail_port[s->rail_off[drank] + rail % nr]].lid;
	s->r->pkts_injected++;
	s->r->bytes_injected += payload;
	s->in_flight++;
	o->queued--;
	vts_transmit(s, port, pi, s->now);
	if (!--s->ch[c].npk)
		chunk_pop(s, o);
	if (!--m->tx_left)
		msg_sent(s, mi);
	if (o->rail_head)
		wake_at(s, port, o->busy_until);
}

void vts_stage_done_barrier(sim *s)
{
	while (s->barrier_stage < s->w->nstages && !s->stage_left[s->barrier_stage])
		s->barrier_stage++;
	if (s->barrier_stage >= s->w->nstages)
		return;
	for (uint32_t r = 0; r < s->nranks; r++)
		vts_post_stage_of(s, r);
}

/* Message mi consumed (at s->now): what the workload does next. */
void vts_msg_done(sim *s, uint32_t mi)
{
	uint32_t st = s->stg ? s->stg[mi] : 0;

	if (s->w->mode == VT_WORK_CAUSAL) {
		uint32_t d = s->dst[mi], ns_ = s->w->nstages;

		s->got[(uint64_t)d * ns_ + st]++;
		while (s->ready_upto[d] < ns_ &&
		       s->got[(uint64_t)d * ns_ + s->ready_upto[d]] ==
			       s->exp[(uint64_t)d * ns_ + s->ready_upto[d]])
			s->ready_upto[d]++;
		vts_post_stage_of(s, d);
	} else if (s->w->mode == VT_WORK_BARRIER) {
		s->stage_left[st]--;
		if (st == s->barrier_stage && !s->stage_left[st])
			vts_stage_done_barrier(s);
	} else if (s->w->mode == VT_WORK_PROGRAM) {
		vts_prog_done(s, mi);
	}
}

/* A message's latency into the figures (messages posted during a warm-up stay out). */
static void lat_count(vt_sim_result *r, uint64_t lat)
{
	double ns = (double)lat / 1000.0;
	int b = ns > 1 ? (int)(16.0 * log2(ns)) : 0;

	r->lat_hist[b < (int)VT_SIM_LAT_HIST ? b : (int)VT_SIM_LAT_HIST - 1]++;
	r->lat_sum_ps += lat;
	r->lat_msgs++;
	if (lat < r->lat_min_ps)
		r->lat_min_ps = lat;
	if (lat > r->lat_max_ps)
		r->lat_max_ps = lat;
}

/*
 * Packet pi is consumed by the sink at t (>= now). Only what the workload
 * does next needs an event; the counts are taken now.
 */
static void deliver(sim *s, uint32_t pi, uint64_t t)
{
	struct pkt *p = &s->pk[pi];
	uint32_t mi = p->msg;
	struct msgrt *m = &s->m[mi];

	s->r->pkts_delivered++;
	s->r->bytes_delivered += p->payload;
	if (s->w->mode == VT_WORK_OPEN && t <= s->w->duration_ps && t >= s->w->warmup_ps)
		s->open_acc_bytes += p->payload;
	s->in_flight--;
	vts_pkt_free(s, pi);
	if (--m->rx_left)
		return;
	if (m->t_post >= s->w->warmup_ps)
		lat_count(s->r, t - m->t_post);
	s->r->msgs_done++;
	s->r->end_ps = max64(s->r->end_ps, t);
	if (s->r->msg_end_ps)
		s->r->msg_end_ps[mi] = t;
	uint32_t st = s->stg ? s->stg[mi] : 0;

	if (st < s->r->nstages) {
		if (s->w->mode != VT_WORK_BARRIER)
			s->stage_left[st]--;
		s->r->stage_end_ps[st] = max64(s->r->stage_end_ps[st], t);
	}
	if (s->w->mode == VT_WORK_CAUSAL || s->w->mode == VT_WORK_BARRIER ||
	    s->w->mode == VT_WORK_PROGRAM)
		push(s, t, EV_DONE, mi);
}

/* A packet's head reaches an HCA: the sink takes it at its rate, freeing credits as it goes. */
void vts_sink(sim *s, uint32_t pi)
{
	struct pkt *p = &s->pk[pi];
	uint64_t start = max64(s->sink_free[p->at], p->t_head);
	uint64_t end = max64(start + ser(s->sink_ppb_fx, p->bytes), p->t_tail);

	s->sink_free[p->at] = end;
	vts_credits_leave(s, p->at, p->vl, p->cr, start, end, start, end);
	deliver(s, pi, end);
}

/* The rail of rank r the policy takes now: random, the fewest packets queued, or the first. */
static uint32_t pick_rail(sim *s, uint32_t r)
{
	uint32_t nr = s->rail_off[r + 1] - s->rail_off[r], rail = 0;

	if (nr > 1 && s->p.rail == VT_RAIL_RANDOM) {
		rail = (uint32_t)vt_rand_below(&s->rng, nr);
	} else if (nr > 1 && s->p.rail == VT_RAIL_LEAST) {
		for (uint32_t k = 1; k < nr; k++)
			if (s->op[s->rail_port[s->rail_off[r] + k]].queued <
			    s->op[s->rail_port[s->rail_off[r] + rail]].queued)
				rail = k;
	}
	return rail;
}

/* Queues npk packets of message mi on its source's rail `rail`; 0 when out of memory. */
static int enqueue(sim *s, uint32_t mi, uint32_t rail, uint32_t npk)
{
	uint32_t port = s->rail_port[s->rail_off[s->src[mi]] + rail], c;
	struct oport *o = &s->op[port];

	o->queued += npk;
	if (o->rail_tail && s->ch[o->rail_tail].msg == mi) {
		s->ch[o->rail_tail].npk += npk; /* the message's previous packet went here too */
		return 1;
	}
	c = chunk_new(s);
	if (!c) {
		vts_oom(s, "messages");
		return 0;
	}
	s->ch[c] = (struct chunk){.msg = mi, .npk = npk, .next = 0, .rail = rail};
	if (o->rail_tail)
		s->ch[o->rail_tail].next = c;
	else
		o->rail_head = c;
	o->rail_tail = c;
	return 1;
}

void vts_post(sim *s, uint32_t mi)
{
	uint32_t r = s->src[mi], nr = s->rail_off[r + 1] - s->rail_off[r];
	struct msgrt *m = &s->m[mi];
	uint32_t npk = vts_msg_pkts(s, vts_msg_bytes(s, mi));

	m->t_post = s->now;
	m->tx_left = m->rx_left = npk;
	memset(m->ar, 0, sizeof(m->ar));
	if (s->p.rail_choice == VT_RAIL_PER_MESSAGE || nr < 2) {
		uint32_t rail = pick_rail(s, r);

		if (enqueue(s, mi, rail, npk))
			vts_hca_kick(s, s->rail_port[s->rail_off[r] + rail]);
		return;
	}
	for (uint32_t k = 0; k < npk; k++)
		if (!enqueue(s, mi, pick_rail(s, r), 1))
			return;
	for (uint32_t k = 0; k < nr; k++)
		vts_hca_kick(s, s->rail_port[s->rail_off[r] + k]);
}

/* Posts what the workload's rule lets rank r send now. */
void vts_post_stage_of(sim *s, uint32_t r)
{
	uint32_t end = s->rank_off[r + 1], c = s->cursor[r];

	if (s->w->mode == VT_WORK_PROGRAM) {
		vts_prog_run(s, r);
		return;
	}
	if (c >= end)
		return;
	switch (s->w->mode) {
	case VT_WORK_B2B: {
		uint32_t st = s->stg[s->rank_msg[c]];

		if (s->outstanding[r])
			return;
		while (c < end && s->stg[s->rank_msg[c]] == st)
			c++;
		s->outstanding[r] = c - s->cursor[r];
		break;
	}
	case VT_WORK_BARRIER:
		while (c < end && s->stg[s->rank_msg[c]] <= s->barrier_stage)
			c++;
		break;
	case VT_WORK_CAUSAL:
		while (c < end && s->stg[s->rank_msg[c]] <= s->ready_upto[r])
			c++;
		break;
	default:
		c = end;
	}
	/*
	 * The cursor moves first: a b2b message sent at once (one packet, idle
	 * HCA) releases the next stage from inside post(), which must not see
	 * this stage again.
	 */
	uint32_t from = s->cursor[r];

	s->cursor[r] = c;
	for (uint32_t k = from; k < c; k++)
		vts_post(s, s->rank_msg[k]);
}

static int open_msg(sim *s, uint32_t r)
{
	uint32_t d;

	if (s->nmsg == s->cap_msg) {
		uint64_t nc = s->cap_msg ? s->cap_msg * 2 : 1024;
		struct msgrt *m = realloc(s->m, nc * sizeof(*m));
		uint32_t *a = m ? realloc(s->src, nc * sizeof(*a)) : NULL;

		if (m)
			s->m = m;
		if (a)
			s->src = a;
		uint32_t *b = a ? realloc(s->dst, nc * sizeof(*b)) : NULL;

		if (!b)
			return vt_err_nomem(s->e, "out of memory for messages");
		s->dst = b;
		s->cap_msg = nc;
	}
	if (s->w->perm) {
		d = s->perm[r];
	} else {
		do
			d = (uint32_t)vt_rand_below(&s->rng, s->nranks);
		while (d == r || s->rail_off[d + 1] == s->rail_off[d]);
	}
	s->src[s->nmsg] = r;
	s->dst[s->nmsg] = d;
	s->stage_left[0]++;
	s->r->msgs++;
	if (s->now >= s->w->warmup_ps)
		s->open_bytes += s->w->msg_bytes;
	vts_post(s, (uint32_t)s->nmsg++);
	return 0;
}

void vts_gen(sim *s, uint32_t r)
{
	uint32_t port = s->rail_port[s->rail_off[r]];
	/* mean gap: one message at `load` times the first rail's rate */
	double mean = (double)ser(s->op[port].ppb_fx, s->w->msg_bytes) / s->w->load;
	double u = vt_rand_unit(&s->rng);
	uint64_t gap = (uint64_t)(-log(1.0 - u) * mean) + 1;

	if (s->now >= s->w->duration_ps)
		return;
	if (open_msg(s, r)) {
		s->failed = 1;
		return;
	}
	push(s, s->now + gap, EV_GEN, r);
}
