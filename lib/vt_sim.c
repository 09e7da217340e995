/* SPDX-License-Identifier: MIT */
#include "vt_sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vt_rand.h"
#include "vt_simq.h"

enum {
	EV_ARRIVE = 1, /* a = packet: head at an input, forwarding latency done */
	EV_OUTFREE,    /* a = output port: transmission over, or generator ready */
	EV_INREL,      /* a = input slot: head packet has left the input buffer */
	EV_CREDIT,     /* a = input slot, b = credits: they reach the upstream output */
	EV_DELIVER,    /* a = packet: consumed by the sink */
	EV_FLIT_ARR,   /* a = input slot: one 64-byte flit in (flit mode) */
	EV_FLIT_DEP,   /* a = input slot: one flit out, its credit goes back (flit mode) */
	EV_GEN,	       /* a = rank: open-loop generator */
};

#define NO_T UINT64_MAX
#define FX   10 /* fixed-point bits of ps-per-byte */

struct pkt {
	uint64_t t_head, t_tail; /* arrival of first and last bit at the current input */
	uint32_t msg, next, at, out;
	uint16_t bytes, payload, lid, hops;
	uint8_t cr, vl;
};

struct msgrt {
	uint64_t t_post;
	uint32_t next, tx_left, rx_left;
	uint8_t rail;
};

/* one slot per (port, VL): the input buffer of the port, and the credits of its output */
struct slot {
	uint32_t head, tail; /* input FIFO */
	int32_t occ;	     /* input buffer fill, credits */
	int32_t credits;     /* credits the output holds for the peer's buffer */
	uint64_t cred_t;     /* time of the pending merged credit event, NO_T if none */
	uint32_t cred_ev;
	uint64_t wait[4]; /* input port numbers whose head packet wants this output */
	uint8_t busy;	  /* input: head packet still leaving */
	uint8_t rr;	  /* output: last input port granted */
};

struct oport {
	uint64_t busy_until, blocked_since, ppb_fx, busy_ps, blocked_ps, bytes, pkts, gen_t;
	uint32_t rail_head, rail_tail, queued; /* CA ports: message FIFO and packets in it */
	uint64_t wake_t;		       /* pending EV_OUTFREE, NO_T if none */
	uint8_t vl_rr;
};

typedef struct sim {
	const vt_fabric *f;
	const vt_lfts *t;
	const vt_simwork *w;
	struct vt_sim_params p;
	vt_sim_result *r;
	vt_err *e;
	vt_simq q;
	vt_rand rng;
	unsigned nvl;
	uint64_t now, gen_ppb_fx, sink_ppb_fx;
	struct slot *slot;
	struct oport *op;
	uint64_t *sink_free;
	struct pkt *pk;
	uint32_t npk, cap_pk, free_pk;
	/* messages */
	uint64_t nmsg, cap_msg;
	uint32_t *src, *dst, *stg;
	struct msgrt *m;
	/* ranks */
	uint32_t nranks, *rail_off, *rail_port;
	uint32_t *rank_off, *rank_msg, *cursor, *outstanding;
	uint32_t *exp, *got, *ready_upto; /* causal */
	uint32_t *perm;
	uint64_t *stage_left;
	uint32_t barrier_stage;
	uint64_t in_flight, open_bytes, open_acc_bytes;
	uint32_t nhosts_open;
	int failed;
} sim;

void vt_sim_defaults(struct vt_sim_params *p)
{
	memset(p, 0, sizeof(*p));
	p->mtu = 2048;
	p->header = 26; /* LRH 8 + BTH 12 + ICRC 4 + VCRC 2 */
	p->nvl = 1;
	p->buf_credits = 256;
	p->speedup = 1;
	p->sw_lat_ps = 100000;
	p->cable_ps = 5000;
	p->inj_pkts = 8;
	p->seed = 1;
	p->max_hops = 64;
}

void vt_sim_preset_fig6(struct vt_sim_params *p)
{
	vt_sim_defaults(p);
	p->nvl = 1;
	p->buf_credits = 1000;
	p->speedup = 3;
	p->sw_lat_ps = 100000; /* 50 ns + 50 ns */
	p->credit_period_ps = 256000;
	p->gen_mbps = 26000;  /* 3.25 GB/s */
	p->sink_mbps = 32000; /* 4 GB/s */
	p->mtu = 2048;
}

void vt_sim_result_free(vt_sim_result *r)
{
	free(r->stage_end_ps);
	free(r->links);
	memset(r, 0, sizeof(*r));
}

uint64_t vt_sim_lat_quantile(const vt_sim_result *r, double q)
{
	uint64_t n = 0, k, c = 0;

	for (unsigned i = 0; i < VT_SIM_LAT_HIST; i++)
		n += r->lat_hist[i];
	if (!n)
		return 0;
	k = (uint64_t)ceil(q * (double)n);
	if (k < 1)
		k = 1;
	for (unsigned i = 0; i < VT_SIM_LAT_HIST; i++) {
		c += r->lat_hist[i];
		if (c >= k) {
			uint64_t edge = (uint64_t)(1000.0 * exp2((double)(i + 1) / 16.0));

			return edge < r->lat_max_ps ? edge : r->lat_max_ps;
		}
	}
	return r->lat_max_ps;
}

static uint64_t ser(uint64_t ppb_fx, uint64_t bytes)
{
	return (bytes * ppb_fx + (1u << FX) - 1) >> FX;
}

static uint64_t ppb_of_mbps(uint64_t mbps)
{
	/* ps per byte = 8e6 / Mb/s */
	return mbps ? (uint64_t)((8e6 / (double)mbps) * (1 << FX) + 0.5) : 0;
}

static int push(sim *s, uint64_t t, uint8_t type, uint32_t a, uint32_t b)
{
	if (!vt_simq_push(&s->q, t, type, a, b)) {
		s->failed = 1;
		vt_err_set(s->e, "out of memory for events");
		return -1;
	}
	return 0;
}

static uint32_t pkt_new(sim *s)
{
	uint32_t i;

	if (s->free_pk) {
		i = s->free_pk;
		s->free_pk = s->pk[i].next;
		return i;
	}
	if (s->npk == s->cap_pk) {
		uint32_t nc = s->cap_pk * 2;
		struct pkt *n = realloc(s->pk, (size_t)nc * sizeof(*n));

		if (!n)
			return 0;
		s->pk = n;
		s->cap_pk = nc;
	}
	return s->npk++;
}

static void pkt_free(sim *s, uint32_t i)
{
	s->pk[i].next = s->free_pk;
	s->free_pk = i;
}

static int is_ca(const sim *s, uint32_t port)
{
	return s->f->nodes[s->f->ports[port].node].type != VT_SWITCH;
}

static void check_credits(sim *s, const struct slot *sl)
{
	if (sl->credits < 0 || sl->credits > (int32_t)s->p.buf_credits || sl->occ < 0 ||
	    sl->occ > (int32_t)s->p.buf_credits)
		s->r->credit_violations++;
	if (sl->occ > 0 && (uint64_t)sl->occ > s->r->max_occupancy)
		s->r->max_occupancy = (uint64_t)sl->occ;
}

/* Credits freed in input slot `in` at time t travel back to the upstream output. */
static void return_credit(sim *s, uint32_t in, uint32_t n, uint64_t t)
{
	struct slot *sl = &s->slot[in];

	if (s->p.credit_period_ps)
		t = (t + s->p.credit_period_ps - 1) / s->p.credit_period_ps * s->p.credit_period_ps;
	t += s->p.cable_ps;
	if (sl->cred_t == t) {
		s->q.ev[sl->cred_ev].b += n; /* one update carries all credits of the period */
		return;
	}
	sl->cred_t = t;
	sl->cred_ev = vt_simq_push(&s->q, t, EV_CREDIT, in, n);
	if (!sl->cred_ev) {
		s->failed = 1;
		vt_err_set(s->e, "out of memory for events");
	}
}

static void block(sim *s, struct oport *o)
{
	if (o->blocked_since == NO_T)
		o->blocked_since = s->now;
}

static void unblock(sim *s, struct oport *o)
{
	if (o->blocked_since != NO_T) {
		o->blocked_ps += s->now - o->blocked_since;
		o->blocked_since = NO_T;
	}
}

static void wake_at(sim *s, uint32_t port, uint64_t t)
{
	/* several wakes may be pending; skip only an exact duplicate */
	if (s->op[port].wake_t != t) {
		s->op[port].wake_t = t;
		push(s, t, EV_OUTFREE, port, 0);
	}
}

/* Sends packet k of its message, or the switch's granted packet, down output `port`. */
static void transmit(sim *s, uint32_t port, uint32_t pi, uint64_t tail_in)
{
	struct oport *o = &s->op[port];
	struct pkt *p = &s->pk[pi];
	uint32_t peer = s->f->ports[port].peer;
	uint64_t sr = ser(o->ppb_fx, p->bytes), tail = s->now + sr;
	uint32_t in = peer * s->nvl + p->vl;

	if (tail < tail_in)
		tail = tail_in; /* cut-through cannot send bits that have not arrived */
	unblock(s, o);
	o->busy_until = tail;
	o->busy_ps += tail - s->now;
	o->bytes += p->payload;
	o->pkts++;
	wake_at(s, port, tail);
	s->slot[port * s->nvl + p->vl].credits -= p->cr;
	check_credits(s, &s->slot[port * s->nvl + p->vl]);
	p->at = peer;
	p->t_head = s->now + s->p.cable_ps;
	p->t_tail = tail + s->p.cable_ps;
	if (s->p.flit) {
		for (uint32_t k = 0; k < p->cr; k++)
			push(s, p->t_head + (p->t_tail - p->t_head) * (k + 1) / p->cr, EV_FLIT_ARR,
			     in, 0);
	}
	push(s, p->t_head + (is_ca(s, peer) ? 0 : s->p.sw_lat_ps), EV_ARRIVE, pi, 0);
}

static void post_stage_of(sim *s, uint32_t rank);

static void msg_sent(sim *s, uint32_t mi)
{
	uint32_t r = s->src[mi];

	if (s->w->mode == VT_WORK_B2B && !--s->outstanding[r])
		post_stage_of(s, r);
}

/* An HCA output: next packet of the rail's head message, if credits and generator allow. */
static void hca_kick(sim *s, uint32_t port)
{
	struct oport *o = &s->op[port];
	uint32_t mi = o->rail_head, pi;
	struct msgrt *m;
	uint64_t avail;
	uint32_t payload, done, vl;

	if (o->busy_until > s->now || mi == UINT32_MAX)
		return;
	m = &s->m[mi];
	done = (uint32_t)(((uint64_t)s->w->msg_bytes + s->p.mtu - 1) / s->p.mtu) - m->tx_left;
	payload = s->w->msg_bytes - done * s->p.mtu;
	if (payload > s->p.mtu)
		payload = s->p.mtu;
	uint32_t bytes = payload + s->p.header, cr = (bytes + VT_SIM_CREDIT - 1) / VT_SIM_CREDIT;

	vl = (s->src[mi] + s->dst[mi]) % s->nvl;
	if (s->slot[port * s->nvl + vl].credits < (int32_t)cr) {
		block(s, o);
		return;
	}
	avail = (o->gen_t > m->t_post ? o->gen_t : m->t_post) + ser(s->gen_ppb_fx, bytes);
	if (avail > s->now) {
		wake_at(s, port, avail);
		return;
	}
	o->gen_t = avail;
	pi = pkt_new(s);
	if (!pi) {
		s->failed = 1;
		vt_err_set(s->e, "out of memory for packets");
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
	p->lid = s->f->ports[s->rail_port[s->rail_off[drank] + m->rail % nr]].lid;
	s->r->pkts_injected++;
	s->r->bytes_injected += payload;
	s->in_flight++;
	o->queued--;
	transmit(s, port, pi, s->now);
	if (!--m->tx_left) {
		o->rail_head = m->next;
		if (o->rail_head == UINT32_MAX)
			o->rail_tail = UINT32_MAX;
		msg_sent(s, mi);
	}
}

static unsigned pick_input(sim *s, struct slot *sl, unsigned nports)
{
	unsigned words = (nports + 64) / 64;

	if (s->p.arb == VT_ARB_RANDOM) {
		unsigned c = 0, k;

		for (unsigned w = 0; w < words; w++)
			c += (unsigned)__builtin_popcountll(sl->wait[w]);
		k = (unsigned)vt_rand_below(&s->rng, c);
		for (unsigned w = 0; w < words; w++) {
			uint64_t x = sl->wait[w];

			while (x) {
				if (!k--)
					return w * 64 + (unsigned)__builtin_ctzll(x);
				x &= x - 1;
			}
		}
	}
	/* round robin: the first waiting port after the last one granted */
	for (unsigned i = 1; i <= nports + 1; i++) {
		unsigned n = (sl->rr + i) % (nports + 1);

		if (sl->wait[n / 64] >> (n % 64) & 1)
			return n;
	}
	return 0;
}

static void grant(sim *s, uint32_t out, unsigned vl, uint32_t in);

/* Output arbitration of a switch port: one winner among the inputs waiting for it. */
static void arbitrate(sim *s, uint32_t out)
{
	struct oport *o = &s->op[out];
	const struct vt_node *nd = &s->f->nodes[s->f->ports[out].node];

	if (o->busy_until > s->now)
		return;
	if (nd->type != VT_SWITCH) {
		hca_kick(s, out);
		return;
	}
	for (unsigned k = 0; k < s->nvl; k++) {
		unsigned vl = (o->vl_rr + k) % s->nvl;
		struct slot *sl = &s->slot[out * s->nvl + vl];
		unsigned n;
		uint32_t in;

		if (!(sl->wait[0] | sl->wait[1] | sl->wait[2] | sl->wait[3]))
			continue;
		n = pick_input(s, sl, nd->nports);
		in = (nd->first_port + n) * s->nvl + vl;
		if (sl->credits < s->pk[s->slot[in].head].cr) {
			block(s, o);
			continue;
		}
		sl->wait[n / 64] &= ~(1ull << (n % 64));
		sl->rr = (uint8_t)n;
		o->vl_rr = (uint8_t)((vl + 1) % s->nvl);
		grant(s, out, vl, in);
		return;
	}
}

static void grant(sim *s, uint32_t out, unsigned vl, uint32_t in)
{
	struct slot *is = &s->slot[in];
	uint32_t pi = is->head;
	struct pkt *p = &s->pk[pi];
	uint64_t th = p->t_head, tt = p->t_tail, sr = ser(s->op[out].ppb_fx, p->bytes);
	uint64_t rel = s->now + sr / s->p.speedup;
	uint32_t cr = p->cr;

	is->head = p->next;
	if (is->head == UINT32_MAX)
		is->tail = UINT32_MAX;
	is->busy = 1;
	if (rel < tt)
		rel = tt;
	if (s->p.flit) {
		/* flit k leaves once it has arrived and the crossbar has read it */
		for (uint32_t k = 0; k < cr; k++) {
			uint64_t rd = s->now + sr * (k + 1) / cr / s->p.speedup;
			uint64_t ar = th + (tt - th) * (k + 1) / cr;

			push(s, rd > ar ? rd : ar, EV_FLIT_DEP, in, 0);
		}
	}
	push(s, rel, EV_INREL, in, cr);
	(void)vl;
	transmit(s, out, pi, tt);
}

static void request(sim *s, uint32_t in_port, uint32_t pi)
{
	struct pkt *p = &s->pk[pi];
	struct slot *os = &s->slot[p->out * s->nvl + p->vl];
	unsigned n = s->f->ports[in_port].num;

	os->wait[n / 64] |= 1ull << (n % 64);
	arbitrate(s, p->out);
}

static void sink(sim *s, uint32_t pi)
{
	struct pkt *p = &s->pk[pi];
	uint64_t start = s->sink_free[p->at] > p->t_head ? s->sink_free[p->at] : p->t_head;
	uint64_t end = start + ser(s->sink_ppb_fx, p->bytes);
	uint32_t in = p->at * s->nvl + p->vl;

	if (end < p->t_tail)
		end = p->t_tail;
	s->sink_free[p->at] = end;
	if (!s->p.flit) {
		s->slot[in].occ += p->cr;
		check_credits(s, &s->slot[in]);
	} else {
		for (uint32_t k = 0; k < p->cr; k++)
			push(s, start + (end - start) * (k + 1) / p->cr, EV_FLIT_DEP, in, 0);
	}
	push(s, end, EV_DELIVER, pi, 0);
}

static void post(sim *s, uint32_t mi);

static void stage_done_barrier(sim *s)
{
	while (s->barrier_stage < s->w->nstages && !s->stage_left[s->barrier_stage])
		s->barrier_stage++;
	if (s->barrier_stage >= s->w->nstages)
		return;
	for (uint32_t r = 0; r < s->nranks; r++)
		post_stage_of(s, r);
}

static void deliver(sim *s, uint32_t pi)
{
	struct pkt *p = &s->pk[pi];
	uint32_t mi = p->msg, in = p->at * s->nvl + p->vl;
	struct msgrt *m = &s->m[mi];

	if (!s->p.flit) {
		s->slot[in].occ -= p->cr;
		return_credit(s, in, p->cr, s->now);
	}
	s->r->pkts_delivered++;
	s->r->bytes_delivered += p->payload;
	if (s->w->mode == VT_WORK_OPEN && s->now <= s->w->duration_ps)
		s->open_acc_bytes += p->payload;
	s->in_flight--;
	pkt_free(s, pi);
	if (--m->rx_left)
		return;
	/* the message is complete */
	uint64_t lat = s->now - m->t_post;
	double ns = (double)lat / 1000.0;
	int b = ns > 1 ? (int)(16.0 * log2(ns)) : 0;

	s->r->lat_hist[b < (int)VT_SIM_LAT_HIST ? b : (int)VT_SIM_LAT_HIST - 1]++;
	s->r->lat_sum_ps += lat;
	if (lat < s->r->lat_min_ps)
		s->r->lat_min_ps = lat;
	if (lat > s->r->lat_max_ps)
		s->r->lat_max_ps = lat;
	s->r->msgs_done++;
	s->r->end_ps = s->now;
	uint32_t st = s->stg ? s->stg[mi] : 0;

	if (st < s->r->nstages) {
		s->stage_left[st]--;
		s->r->stage_end_ps[st] = s->now;
	}
	if (s->w->mode == VT_WORK_CAUSAL) {
		uint32_t d = s->dst[mi], ns_ = s->w->nstages;

		s->got[(uint64_t)d * ns_ + st]++;
		while (s->ready_upto[d] < ns_ &&
		       s->got[(uint64_t)d * ns_ + s->ready_upto[d]] ==
			       s->exp[(uint64_t)d * ns_ + s->ready_upto[d]])
			s->ready_upto[d]++;
		post_stage_of(s, d);
	} else if (s->w->mode == VT_WORK_BARRIER && st == s->barrier_stage && !s->stage_left[st]) {
		stage_done_barrier(s);
	}
}

static void post(sim *s, uint32_t mi)
{
	uint32_t r = s->src[mi], nr = s->rail_off[r + 1] - s->rail_off[r], rail = 0;
	struct msgrt *m = &s->m[mi];
	uint32_t npk = (uint32_t)(((uint64_t)s->w->msg_bytes + s->p.mtu - 1) / s->p.mtu);

	if (nr > 1 && s->p.rail == VT_RAIL_RANDOM) {
		rail = (uint32_t)vt_rand_below(&s->rng, nr);
	} else if (nr > 1 && s->p.rail == VT_RAIL_LEAST) {
		for (uint32_t k = 1; k < nr; k++)
			if (s->op[s->rail_port[s->rail_off[r] + k]].queued <
			    s->op[s->rail_port[s->rail_off[r] + rail]].queued)
				rail = k;
	}
	uint32_t port = s->rail_port[s->rail_off[r] + rail];
	struct oport *o = &s->op[port];

	m->t_post = s->now;
	m->tx_left = m->rx_left = npk;
	m->rail = (uint8_t)rail;
	m->next = UINT32_MAX;
	if (o->rail_tail == UINT32_MAX)
		o->rail_head = mi;
	else
		s->m[o->rail_tail].next = mi;
	o->rail_tail = mi;
	o->queued += npk;
	hca_kick(s, port);
}

/* Posts what the workload's rule lets rank r send now. */
static void post_stage_of(sim *s, uint32_t r)
{
	uint32_t end = s->rank_off[r + 1], c = s->cursor[r];

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
	for (uint32_t k = s->cursor[r]; k < c; k++)
		post(s, s->rank_msg[k]);
	s->cursor[r] = c;
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
			return vt_err_set(s->e, "out of memory for messages");
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
	s->open_bytes += s->w->msg_bytes;
	post(s, (uint32_t)s->nmsg++);
	return 0;
}

static void gen(sim *s, uint32_t r)
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
	push(s, s->now + gap, EV_GEN, r, 0);
}

static void on_arrive(sim *s, uint32_t pi)
{
	struct pkt *p = &s->pk[pi];
	const vt_fabric *f = s->f;
	uint32_t node = f->ports[p->at].node;
	const struct vt_node *nd = &f->nodes[node];
	uint8_t op;
	uint32_t in;

	s->r->hops++;
	if (nd->type != VT_SWITCH) {
		uint32_t base = f->ports[p->at].lid, top = base + (1u << f->ports[p->at].lmc);

		if (p->lid < base || p->lid >= top) {
			s->failed = 1;
			vt_err_set(s->e, "packet for LID %u delivered to \"%s\" (LID %u)", p->lid,
				   nd->id, f->ports[p->at].lid);
			return;
		}
		sink(s, pi);
		return;
	}
	if (++p->hops > s->p.max_hops) {
		s->failed = 1;
		vt_err_set(s->e,
			   "routing loop: packet for LID %u still in the fabric after %u "
			   "switch hops (at \"%s\")",
			   p->lid, p->hops - 1, nd->id);
		return;
	}
	op = vt_lft_get(s->t, nd->sw, p->lid);
	if (op == VT_LFT_NONE || op == 0 || op > nd->nports ||
	    f->ports[nd->first_port + op].peer == VT_NONE) {
		s->failed = 1;
		if (op == VT_LFT_NONE || op == 0)
			vt_err_set(s->e, "switch \"%s\" has no route to LID %u", nd->id, p->lid);
		else
			vt_err_set(s->e, "switch \"%s\" routes LID %u to port %u, which is down",
				   nd->id, p->lid, op);
		return;
	}
	p->out = nd->first_port + op;
	p->next = UINT32_MAX;
	in = p->at * s->nvl + p->vl;
	struct slot *sl = &s->slot[in];

	if (!s->p.flit) {
		sl->occ += p->cr;
		check_credits(s, sl);
	}
	if (sl->tail == UINT32_MAX) {
		sl->head = sl->tail = pi;
		if (!sl->busy)
			request(s, p->at, pi);
	} else {
		s->pk[sl->tail].next = pi;
		sl->tail = pi;
	}
}

static void dispatch(sim *s, const struct vt_simq_ev *ev)
{
	switch (ev->type) {
	case EV_ARRIVE:
		on_arrive(s, ev->a);
		break;
	case EV_OUTFREE:
		if (s->op[ev->a].wake_t == ev->t)
			s->op[ev->a].wake_t = NO_T;
		arbitrate(s, ev->a);
		break;
	case EV_INREL: {
		struct slot *sl = &s->slot[ev->a];

		sl->busy = 0;
		if (!s->p.flit) {
			sl->occ -= (int32_t)ev->b;
			return_credit(s, ev->a, ev->b, s->now);
		}
		if (sl->head != UINT32_MAX)
			request(s, ev->a / s->nvl, sl->head);
		break;
	}
	case EV_CREDIT: {
		struct slot *in = &s->slot[ev->a];
		uint32_t up = s->f->ports[ev->a / s->nvl].peer;
		struct slot *os = &s->slot[up * s->nvl + ev->a % s->nvl];

		if (in->cred_ev == 0 || in->cred_t == s->now) {
			in->cred_t = NO_T;
			in->cred_ev = 0;
		}
		os->credits += (int32_t)ev->b;
		check_credits(s, os);
		arbitrate(s, up);
		break;
	}
	case EV_DELIVER:
		deliver(s, ev->a);
		break;
	case EV_FLIT_ARR:
		s->slot[ev->a].occ++;
		check_credits(s, &s->slot[ev->a]);
		break;
	case EV_FLIT_DEP:
		s->slot[ev->a].occ--;
		check_credits(s, &s->slot[ev->a]);
		return_credit(s, ev->a, 1, s->now);
		break;
	case EV_GEN:
		gen(s, ev->a);
		break;
	}
}

static uint64_t port_mbps(const sim *s, uint32_t port)
{
	const struct vt_port *pt = &s->f->ports[port];

	if (s->p.link_mbps)
		return s->p.link_mbps;
	if (s->p.speed != VT_SPEED_UNKNOWN)
		return 4ull * vt_speed_lane_mbps(s->p.speed);
	return (uint64_t)(pt->width ? pt->width : 4) * vt_speed_lane_mbps(pt->speed);
}

static int check_params(const struct vt_sim_params *p, vt_err *e)
{
	if (p->mtu < 256 || p->mtu > 4096 || (p->mtu & (p->mtu - 1)))
		return vt_err_set(e, "MTU %u is not one of 256, 512, 1024, 2048, 4096", p->mtu);
	if (p->nvl < 1 || p->nvl > VT_SIM_MAX_VL)
		return vt_err_set(e, "VL count %u out of range 1..%u", p->nvl, VT_SIM_MAX_VL);
	if ((p->mtu + p->header + VT_SIM_CREDIT - 1) / VT_SIM_CREDIT > p->buf_credits)
		return vt_err_set(e, "buffer of %u credits per VL cannot hold one %u-byte packet",
				  p->buf_credits, p->mtu + p->header);
	if (p->buf_credits > 1u << 20)
		return vt_err_set(e, "buffer of %u credits per VL is too large", p->buf_credits);
	if (p->speedup < 1)
		return vt_err_set(e, "speed-up must be at least 1");
	if (p->header > 512)
		return vt_err_set(e, "header of %u bytes is too large", p->header);
	return 0;
}

static void *zalloc(size_t n, size_t sz, int *bad)
{
	void *p = calloc(n ? n : 1, sz);

	if (!p)
		*bad = 1;
	return p;
}

static int setup(sim *s, const vt_order *order)
{
	const vt_fabric *f = s->f;
	const vt_simwork *w = s->w;
	int bad = 0;
	uint64_t nslot = (uint64_t)f->nports * s->nvl, nrails = 0;
	unsigned width_log = 0;
	uint64_t min_ser = UINT64_MAX;

	s->nranks = w->nranks;
	if (order->n < w->nranks)
		return vt_err_set(s->e, "workload has %u ranks but the host order only %u",
				  w->nranks, order->n);
	s->slot = zalloc(nslot, sizeof(*s->slot), &bad);
	s->op = zalloc(f->nports, sizeof(*s->op), &bad);
	s->sink_free = zalloc(f->nports, sizeof(*s->sink_free), &bad);
	s->rail_off = zalloc(s->nranks + 1, sizeof(uint32_t), &bad);
	if (bad)
		return vt_err_set(s->e, "out of memory");
	for (uint64_t i = 0; i < nslot; i++) {
		s->slot[i].head = s->slot[i].tail = UINT32_MAX;
		s->slot[i].credits = (int32_t)s->p.buf_credits;
		s->slot[i].cred_t = NO_T;
	}
	for (uint32_t i = 0; i < f->nports; i++) {
		s->op[i].rail_head = s->op[i].rail_tail = UINT32_MAX;
		s->op[i].blocked_since = NO_T;
		s->op[i].wake_t = NO_T;
		s->op[i].ppb_fx = ppb_of_mbps(port_mbps(s, i));
		if (f->ports[i].peer != VT_NONE && ser(s->op[i].ppb_fx, 64) < min_ser)
			min_ser = ser(s->op[i].ppb_fx, 64);
	}
	s->gen_ppb_fx = ppb_of_mbps(s->p.gen_mbps);
	s->sink_ppb_fx = ppb_of_mbps(s->p.sink_mbps);
	/* ranks: the order's port, then the CA's other connected ports (rails) */
	for (uint32_t r = 0; r < s->nranks; r++) {
		uint32_t pt = order->port[r];

		if (pt != VT_NONE) {
			const struct vt_node *nd = &f->nodes[f->ports[pt].node];

			if (nd->type == VT_SWITCH)
				return vt_err_set(s->e, "rank %u is a switch port", r);
			for (unsigned k = 1; k <= nd->nports; k++)
				nrails += f->ports[nd->first_port + k].peer != VT_NONE;
		}
	}
	s->rail_port = zalloc(nrails, sizeof(uint32_t), &bad);
	if (bad)
		return vt_err_set(s->e, "out of memory");
	nrails = 0;
	for (uint32_t r = 0; r < s->nranks; r++) {
		uint32_t pt = order->port[r];

		s->rail_off[r] = (uint32_t)nrails;
		if (pt == VT_NONE)
			continue;
		if (f->ports[pt].peer == VT_NONE)
			return vt_err_set(s->e, "rank %u: port of \"%s\" is not connected", r,
					  f->nodes[f->ports[pt].node].id);
		const struct vt_node *nd = &f->nodes[f->ports[pt].node];

		s->rail_port[nrails++] = pt;
		for (unsigned k = 1; k <= nd->nports; k++) {
			uint32_t q = nd->first_port + k;

			if (q != pt && f->ports[q].peer != VT_NONE)
				s->rail_port[nrails++] = q;
		}
	}
	s->rail_off[s->nranks] = (uint32_t)nrails;
	/* bucket width: about a sixteenth of the fastest 64-byte serialisation */
	while (width_log < 20 && ((uint64_t)2 << width_log) * 16 <= min_ser)
		width_log++;
	if (vt_simq_init(&s->q, width_log, 18, s->e))
		return -1;
	s->cap_pk = 1024;
	s->npk = 1; /* index 0 means "none" */
	s->pk = malloc(s->cap_pk * sizeof(*s->pk));
	if (!s->pk)
		return vt_err_set(s->e, "out of memory");
	vt_rand_seed(&s->rng, s->p.seed);
	return 0;
}

static int setup_messages(sim *s)
{
	const vt_simwork *w = s->w;
	uint32_t ns = w->nstages;
	int bad = 0;

	s->r->nstages = ns;
	s->r->stage_end_ps = zalloc(ns, sizeof(uint64_t), &bad);
	s->stage_left = zalloc(ns, sizeof(uint64_t), &bad);
	s->rank_off = zalloc(s->nranks + 1, sizeof(uint32_t), &bad);
	s->cursor = zalloc(s->nranks, sizeof(uint32_t), &bad);
	s->outstanding = zalloc(s->nranks, sizeof(uint32_t), &bad);
	if (bad)
		return vt_err_set(s->e, "out of memory");
	if (w->mode == VT_WORK_OPEN)
		return 0;
	if (w->nmsg >= UINT32_MAX)
		return vt_err_set(s->e, "too many messages (%llu)", (unsigned long long)w->nmsg);
	s->nmsg = w->nmsg;
	s->src = w->src;
	s->dst = w->dst;
	s->stg = w->stage;
	s->m = zalloc(s->nmsg, sizeof(*s->m), &bad);
	s->rank_msg = zalloc(s->nmsg, sizeof(uint32_t), &bad);
	if (w->mode == VT_WORK_CAUSAL) {
		s->exp = zalloc((uint64_t)s->nranks * ns, sizeof(uint32_t), &bad);
		s->got = zalloc((uint64_t)s->nranks * ns, sizeof(uint32_t), &bad);
		s->ready_upto = zalloc(s->nranks, sizeof(uint32_t), &bad);
	}
	if (bad)
		return vt_err_set(s->e, "out of memory for %llu messages",
				  (unsigned long long)s->nmsg);
	/* messages from or to a place-keeper are not sent */
	for (uint64_t i = 0; i < s->nmsg; i++) {
		uint32_t a = s->src[i], b = s->dst[i];

		if (a >= s->nranks || b >= s->nranks)
			return vt_err_set(s->e, "message %u -> %u: rank out of range", a, b);
		if (s->rail_off[a] == s->rail_off[a + 1] || s->rail_off[b] == s->rail_off[b + 1] ||
		    a == b)
			continue;
		s->rank_off[a + 1]++;
		s->stage_left[s->stg[i]]++;
		s->r->msgs++;
		if (s->exp)
			s->exp[(uint64_t)b * ns + s->stg[i]]++;
	}
	for (uint32_t r = 0; r < s->nranks; r++)
		s->rank_off[r + 1] += s->rank_off[r];
	memcpy(s->cursor, s->rank_off, s->nranks * sizeof(uint32_t));
	for (uint64_t i = 0; i < s->nmsg; i++) {
		uint32_t a = s->src[i], b = s->dst[i];

		if (s->rail_off[a] == s->rail_off[a + 1] || s->rail_off[b] == s->rail_off[b + 1] ||
		    a == b)
			continue;
		s->rank_msg[s->cursor[a]++] = (uint32_t)i;
	}
	memcpy(s->cursor, s->rank_off, s->nranks * sizeof(uint32_t));
	if (s->exp)
		for (uint32_t r = 0; r < s->nranks; r++)
			while (s->ready_upto[r] < ns &&
			       !s->exp[(uint64_t)r * ns + s->ready_upto[r]])
				s->ready_upto[r]++;
	return 0;
}

static int start(sim *s)
{
	const vt_simwork *w = s->w;

	if (w->mode == VT_WORK_OPEN) {
		uint32_t *hosts = malloc((size_t)s->nranks * sizeof(uint32_t)), nh = 0;

		s->perm = malloc((size_t)s->nranks * sizeof(uint32_t));
		if (!hosts || !s->perm) {
			free(hosts);
			return vt_err_set(s->e, "out of memory");
		}
		for (uint32_t r = 0; r < s->nranks; r++)
			if (s->rail_off[r + 1] > s->rail_off[r])
				hosts[nh++] = r;
		if (nh < 2) {
			free(hosts);
			return vt_err_set(s->e, "open loop needs at least 2 hosts");
		}
		memcpy(s->perm, hosts, nh * sizeof(uint32_t));
		vt_rand_shuffle_u32(&s->rng, s->perm, nh);
		/* perm[] by rank: host hosts[k] sends to perm[k] */
		uint32_t *byrank = calloc(s->nranks, sizeof(uint32_t));

		if (!byrank) {
			free(hosts);
			return vt_err_set(s->e, "out of memory");
		}
		for (uint32_t k = 0; k < nh; k++)
			byrank[hosts[k]] = s->perm[k];
		free(s->perm);
		s->perm = byrank;
		s->nhosts_open = 0;
		for (uint32_t k = 0; k < nh; k++) {
			uint32_t r = hosts[k];

			if (w->perm && s->perm[r] == r)
				continue; /* a fixed point stays silent */
			s->nhosts_open++;
			if (push(s, (uint64_t)vt_rand_below(&s->rng, 1000), EV_GEN, r, 0)) {
				free(hosts);
				return -1;
			}
		}
		free(hosts);
		return 0;
	}
	for (uint32_t r = 0; r < s->nranks; r++)
		post_stage_of(s, r);
	if (w->mode == VT_WORK_BARRIER && s->barrier_stage < w->nstages &&
	    !s->stage_left[s->barrier_stage])
		stage_done_barrier(s);
	return s->failed ? -1 : 0;
}

static void finish(sim *s)
{
	vt_sim_result *r = s->r;
	const vt_fabric *f = s->f;
	uint32_t n = 0;

	for (uint32_t i = 0; i < f->nports; i++)
		n += f->ports[i].peer != VT_NONE;
	r->links = calloc(n ? n : 1, sizeof(*r->links));
	if (r->links) {
		for (uint32_t i = 0; i < f->nports; i++) {
			struct oport *o = &s->op[i];

			if (f->ports[i].peer == VT_NONE)
				continue;
			if (o->blocked_since != NO_T)
				o->blocked_ps += s->now - o->blocked_since;
			r->links[r->nlinks++] = (struct vt_sim_link){
				.port = i,
				.busy_ps = o->busy_ps,
				.blocked_ps = o->blocked_ps,
				.bytes = o->bytes,
				.pkts = o->pkts,
			};
		}
	}
	if (s->in_flight || r->msgs_done < r->msgs) {
		r->deadlock = 1;
		r->stuck_pkts = s->in_flight;
	}
	if (s->w->mode == VT_WORK_OPEN && s->w->duration_ps && s->nhosts_open) {
		/* fractions of the first rail's rate of the first host (uniform fabrics) */
		uint32_t port = s->rail_port[0];
		double cap = (double)s->nhosts_open * (double)s->w->duration_ps /
			     ((double)s->op[port].ppb_fx / (1 << FX));

		r->offered_frac = (double)s->open_bytes / cap;
		r->accepted_frac = (double)s->open_acc_bytes / cap;
	}
	if (!r->msgs_done)
		r->lat_min_ps = 0;
}

static void cleanup(sim *s)
{
	vt_simq_free(&s->q);
	free(s->slot);
	free(s->op);
	free(s->sink_free);
	free(s->pk);
	free(s->rail_off);
	free(s->rail_port);
	free(s->rank_off);
	free(s->rank_msg);
	free(s->cursor);
	free(s->outstanding);
	free(s->exp);
	free(s->got);
	free(s->ready_upto);
	free(s->perm);
	free(s->stage_left);
	free(s->m);
	if (s->w->mode == VT_WORK_OPEN) {
		free(s->src);
		free(s->dst);
	}
}

int vt_sim_run(const vt_fabric *f, const vt_lfts *t, const vt_order *order, const vt_simwork *w,
	       const struct vt_sim_params *p, vt_sim_result *r, vt_err *e)
{
	sim s;
	struct vt_simq_ev ev;
	int rc = 0, popped = 0;

	memset(r, 0, sizeof(*r));
	r->lat_min_ps = UINT64_MAX;
	if (check_params(p, e))
		return -1;
	if (!f->finished)
		return vt_err_set(e, "fabric is not finished");
	if (t->nsw != f->nswitches)
		return vt_err_set(e, "forwarding tables are for %u switches, the fabric has %u",
				  t->nsw, f->nswitches);
	memset(&s, 0, sizeof(s));
	s.f = f;
	s.t = t;
	s.w = w;
	s.p = *p;
	s.r = r;
	s.e = e;
	s.nvl = p->nvl;
	if (setup(&s, order) || setup_messages(&s) || start(&s)) {
		rc = -1;
		goto out;
	}
	while (!s.failed && (popped = vt_simq_pop(&s.q, &ev)) > 0) {
		s.now = ev.t;
		dispatch(&s, &ev);
		if (!(++r->events & 0xfffff) && p->progress)
			p->progress(p->progress_ctx, s.now, r->events, r->msgs_done, r->msgs);
	}
	if (popped < 0 && !s.failed)
		vt_err_set(e, "out of memory for events");
	if (s.failed || popped < 0) {
		rc = -1;
		goto out;
	}
	finish(&s);
out:
	cleanup(&s);
	if (rc)
		vt_sim_result_free(r);
	return rc;
}
