/* SPDX-License-Identifier: MIT */
#include "vt_sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vt_rand.h"
#include "vt_simq.h"

/*
 * One event per packet hop (EV_ARRIVE); tails, output release and credit
 * returns follow from serialisation arithmetically. The other events only
 * happen where something has to wait: an output busy or short of credits
 * with a packet for it (EV_WAKE), an input whose next packet arrived before
 * the previous one had left (EV_INREL), an HCA whose next packet is due.
 */
enum {
	EV_ARRIVE = 1, /* a = packet: head at an input, forwarding latency done */
	EV_WAKE,       /* a = output port: arbitrate again (free, credits, generator) */
	EV_INREL,      /* a = input slot: its head packet may now ask for its output */
	EV_DONE,       /* a = message: consumed; releases causal and barrier stages */
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

/*
 * A credit return on its way to an output: the credits can be used from time
 * t on. Each (output, VL) keeps a FIFO of them (times never decrease, since
 * the peer's buffer releases in order) and takes in the due ones when it
 * looks, instead of an event per update.
 */
struct cred {
	uint64_t t;
	uint32_t cr, next;
};

/* one slot per (port, VL): the input buffer of the port, and the credits of its output */
struct slot {
	uint32_t head, tail; /* input FIFO of arrived packets */
	uint64_t rel_t;	     /* input: the last granted packet has left the buffer by then */
	int32_t fifo_cr;     /* input: credits of the packets in the FIFO */
	int32_t last_cr;     /* input: credits of the last granted packet */
	int32_t credits;     /* output: credits held for the peer's buffer, due returns taken */
	uint32_t need;	     /* output: credits a blocked packet waits for, 0 if none */
	uint32_t cq_head, cq_tail; /* output: credit returns still on their way */
	uint64_t wait[4];	   /* output: input port numbers whose head packet wants it */
	uint8_t rr;		   /* output: last input port granted */
};

struct oport {
	uint64_t busy_until, ppb_fx, wake_t;   /* wake_t: earliest pending EV_WAKE, NO_T if none */
	uint32_t nwait;			       /* waiting inputs over all VLs */
	uint32_t rail_head, rail_tail, queued; /* CA ports: message FIFO and packets in it */
	uint64_t gen_t;
	uint8_t vl_rr;
};

/* flit mode: how the last granted packet of an input slot leaves (see credits_leave) */
struct leave {
	uint64_t from, to, afrom, aend;
};

/* link statistics, apart from the hot output state */
struct ostat {
	uint64_t blocked_since, busy_ps, blocked_ps, bytes, pkts;
};

/* what a hop needs to know of a port, flat */
struct hport {
	uint32_t peer;	     /* ports[] index of the far end */
	uint32_t first_port; /* of the port's node */
	uint32_t sw;	     /* switch ordinal of the port's node, VT_NONE for a CA */
	uint8_t nports, num;
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
	struct leave *lv; /* flit mode only */
	struct oport *op;
	struct ostat *st;
	struct hport *hp;
	uint64_t *sink_free;
	struct pkt *pk;
	uint32_t npk, cap_pk, free_pk;
	struct cred *cq;
	uint32_t ncq, cap_cq, free_cq;
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
	p->sl = 0;
	p->sl_spread = 0;
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

unsigned vt_sim_vl(const struct vt_sim_params *p, uint32_t src, uint32_t dst)
{
	unsigned sl = p->sl_spread ? (src + dst) % p->nvl : p->sl;

	return sl % p->nvl;
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

static inline uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static void oom(sim *s, const char *what)
{
	if (!s->failed)
		vt_err_set(s->e, "out of memory for %s", what);
	s->failed = 1;
}

static void push(sim *s, uint64_t t, uint8_t type, uint32_t a)
{
	if (!vt_simq_push(&s->q, t, type, a, 0))
		oom(s, "events");
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

static void check_credits(sim *s, const struct slot *sl)
{
	if (sl->credits < 0 || sl->credits > (int32_t)s->p.buf_credits)
		s->r->credit_violations++;
}

/* Flit mode: flits of the last packet granted from input slot `in` still in the buffer. */
static int32_t flits_left(const sim *s, uint32_t in)
{
	const struct leave *l = &s->lv[in];
	int32_t cr = s->slot[in].last_cr, k = 0;

	while (k < cr && l->from + (l->to - l->from) * (uint64_t)(k + 1) / (uint64_t)cr <= s->now &&
	       l->afrom + (l->aend - l->afrom) * (uint64_t)(k + 1) / (uint64_t)cr <= s->now)
		k++;
	return cr - k;
}

/* Input buffer fill when a packet arrives: the FIFO and the packet still leaving. */
static void check_occupancy(sim *s, uint32_t in)
{
	const struct slot *sl = &s->slot[in];
	int32_t occ = sl->fifo_cr;

	if (sl->rel_t > s->now)
		occ += s->lv ? flits_left(s, in) : sl->last_cr;

	if (occ > (int32_t)s->p.buf_credits)
		s->r->credit_violations++;
	if ((uint64_t)occ > s->r->max_occupancy)
		s->r->max_occupancy = (uint64_t)occ;
}

static void block(sim *s, uint32_t port)
{
	if (s->st[port].blocked_since == NO_T)
		s->st[port].blocked_since = s->now;
}

static void unblock(sim *s, uint32_t port)
{
	struct ostat *o = &s->st[port];

	if (o->blocked_since != NO_T) {
		o->blocked_ps += s->now - o->blocked_since;
		o->blocked_since = NO_T;
	}
}

/*
 * Asks for an arbitration of `port` at t. An earlier pending wake is enough:
 * every arbitration asks again for what it still waits for.
 */
static void wake_at(sim *s, uint32_t port, uint64_t t)
{
	uint64_t w = s->op[port].wake_t;

	if (w != NO_T && w <= t)
		return;
	s->op[port].wake_t = t;
	push(s, t, EV_WAKE, port);
}

/* Time credits freed in a buffer at t can be used upstream. */
static uint64_t credit_time(const sim *s, uint64_t t)
{
	if (s->p.credit_period_ps)
		t = (t + s->p.credit_period_ps - 1) / s->p.credit_period_ps * s->p.credit_period_ps;
	return t + s->p.cable_ps;
}

/* Takes in the credit returns of output slot os that are due. */
static void absorb(sim *s, struct slot *os)
{
	while (os->cq_head && s->cq[os->cq_head].t <= s->now) {
		uint32_t c = os->cq_head;

		os->credits += (int32_t)s->cq[c].cr;
		os->cq_head = s->cq[c].next;
		s->cq[c].next = s->free_cq;
		s->free_cq = c;
	}
	if (!os->cq_head)
		os->cq_tail = 0;
	check_credits(s, os);
}

/* When the returns on their way give output slot os `need` credits; NO_T if they never do. */
static uint64_t credit_eta(const sim *s, const struct slot *os, uint32_t need)
{
	int64_t c = os->credits;

	for (uint32_t i = os->cq_head; i; i = s->cq[i].next) {
		c += s->cq[i].cr;
		if (c >= (int64_t)need)
			return s->cq[i].t;
	}
	return NO_T;
}

/* n credits of input slot `in` reach the upstream output at t. */
static void credit_back(sim *s, uint32_t in, uint32_t n, uint64_t t)
{
	uint32_t os_i = s->hp[in / s->nvl].peer * s->nvl + in % s->nvl, c;
	struct slot *os = &s->slot[os_i];

	if (os->cq_tail && s->cq[os->cq_tail].t == t) {
		s->cq[os->cq_tail].cr += n; /* one update carries all credits of a period */
	} else {
		if (s->free_cq) {
			c = s->free_cq;
			s->free_cq = s->cq[c].next;
		} else {
			if (s->ncq == s->cap_cq) {
				uint32_t nc = s->cap_cq * 2;
				struct cred *q = realloc(s->cq, (size_t)nc * sizeof(*q));

				if (!q) {
					oom(s, "credits");
					return;
				}
				s->cq = q;
				s->cap_cq = nc;
			}
			c = s->ncq++;
		}
		s->cq[c] = (struct cred){.t = t, .cr = n, .next = 0};
		if (os->cq_tail)
			s->cq[os->cq_tail].next = c;
		else
			os->cq_head = c;
		os->cq_tail = c;
	}
	if (os->need) {
		uint64_t eta = credit_eta(s, os, os->need);

		if (eta != NO_T) {
			os->need = 0;
			wake_at(s, os_i / s->nvl, eta);
		}
	}
}

/*
 * Credits of a packet of cr credits leaving input slot `in`, read out from
 * `from` to `to` and arriving from arr_from to arr_end: all at the end in
 * packet mode, one by one in flit mode (credit k once flit k has both arrived
 * and been read).
 */
static void credits_leave(sim *s, uint32_t in, uint32_t cr, uint64_t from, uint64_t to,
			  uint64_t arr_from, uint64_t arr_end)
{
	if (!s->p.flit) {
		credit_back(s, in, cr, credit_time(s, max64(to, arr_end)));
		return;
	}
	for (uint32_t k = 0; k < cr; k++) {
		uint64_t rd = from + (to - from) * (k + 1) / cr;
		uint64_t ar = arr_from + (arr_end - arr_from) * (k + 1) / cr;

		credit_back(s, in, 1, credit_time(s, max64(rd, ar)));
	}
}

/*
 * A packet waits at output slot os for cr credits: wakes the output when the
 * returns on their way suffice, else leaves word with the slot.
 */
static void wait_credits(sim *s, uint32_t port, struct slot *os, uint32_t cr)
{
	uint64_t eta = credit_eta(s, os, cr);

	block(s, port);
	if (eta != NO_T) {
		os->need = 0;
		wake_at(s, port, eta);
	} else {
		os->need = cr;
	}
}

/* Sends packet pi down output `port` now: one event, the head's arrival at the far end. */
static void transmit(sim *s, uint32_t port, uint32_t pi, uint64_t tail_in)
{
	struct oport *o = &s->op[port];
	struct ostat *st = &s->st[port];
	struct pkt *p = &s->pk[pi];
	uint32_t peer = s->hp[port].peer;
	uint64_t tail = max64(s->now + ser(o->ppb_fx, p->bytes), tail_in);
	struct slot *os = &s->slot[port * s->nvl + p->vl];

	/* cut-through cannot send bits that have not arrived: tail_in bounds the tail */
	unblock(s, port);
	o->busy_until = tail;
	st->busy_ps += tail - s->now;
	st->bytes += p->payload;
	st->pkts++;
	os->credits -= p->cr;
	check_credits(s, os);
	p->at = peer;
	p->t_head = s->now + s->p.cable_ps;
	p->t_tail = tail + s->p.cable_ps;
	push(s, p->t_head + (s->hp[peer].sw == VT_NONE ? 0 : s->p.sw_lat_ps), EV_ARRIVE, pi);
	if (o->nwait)
		wake_at(s, port, tail);
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

	if (mi == UINT32_MAX)
		return;
	if (o->busy_until > s->now) {
		wake_at(s, port, o->busy_until);
		return;
	}
	m = &s->m[mi];
	done = (uint32_t)(((uint64_t)s->w->msg_bytes + s->p.mtu - 1) / s->p.mtu) - m->tx_left;
	payload = s->w->msg_bytes - done * s->p.mtu;
	if (payload > s->p.mtu)
		payload = s->p.mtu;
	uint32_t bytes = payload + s->p.header, cr = (bytes + VT_SIM_CREDIT - 1) / VT_SIM_CREDIT;
	struct slot *os;

	vl = vt_sim_vl(&s->p, s->src[mi], s->dst[mi]);
	os = &s->slot[port * s->nvl + vl];
	absorb(s, os);
	if (os->credits < (int32_t)cr) {
		wait_credits(s, port, os, cr);
		return;
	}
	os->need = 0;
	avail = max64(o->gen_t, m->t_post) + ser(s->gen_ppb_fx, bytes);
	if (avail > s->now) {
		wake_at(s, port, avail);
		return;
	}
	o->gen_t = avail;
	pi = pkt_new(s);
	if (!pi) {
		oom(s, "packets");
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
	if (o->rail_head != UINT32_MAX)
		wake_at(s, port, o->busy_until);
}

/* Lowest set bit of a 256-bit mask at or after bit `from` (wrapping), -1 if none. */
static int next_bit(const uint64_t *w, unsigned from)
{
	for (unsigned k = 0; k < 5; k++) {
		unsigned i = ((from >> 6) + k) & 3;
		uint64_t x = w[i];

		if (k == 0)
			x &= ~0ull << (from & 63);
		else if (k == 4)
			x &= (from & 63) ? ~(~0ull << (from & 63)) : 0;
		if (x)
			return (int)(i * 64 + (unsigned)__builtin_ctzll(x));
	}
	return -1;
}

static unsigned pick_input(sim *s, struct slot *sl)
{
	if (s->p.arb == VT_ARB_RANDOM) {
		unsigned c = 0, k;

		for (unsigned w = 0; w < 4; w++)
			c += (unsigned)__builtin_popcountll(sl->wait[w]);
		k = (unsigned)vt_rand_below(&s->rng, c);
		for (unsigned w = 0; w < 4; w++) {
			uint64_t x = sl->wait[w];

			while (x) {
				if (!k--)
					return w * 64 + (unsigned)__builtin_ctzll(x);
				x &= x - 1;
			}
		}
	}
	/* round robin: the first waiting port after the last one granted */
	return (unsigned)next_bit(sl->wait, (sl->rr + 1u) & 255u);
}

static void grant(sim *s, uint32_t out, uint32_t in);

/* Output arbitration of a switch port: one winner among the inputs waiting for it. */
static void arbitrate(sim *s, uint32_t out)
{
	struct oport *o = &s->op[out];
	const struct hport *h = &s->hp[out];

	if (h->sw == VT_NONE) {
		hca_kick(s, out);
		return;
	}
	if (o->busy_until > s->now) {
		if (o->nwait)
			wake_at(s, out, o->busy_until);
		return;
	}
	for (unsigned k = 0; k < s->nvl && o->nwait; k++) {
		unsigned vl = (o->vl_rr + k) % s->nvl;
		struct slot *os = &s->slot[out * s->nvl + vl];
		unsigned n;
		uint32_t in, cr;

		if (!(os->wait[0] | os->wait[1] | os->wait[2] | os->wait[3]))
			continue;
		n = pick_input(s, os);
		in = (h->first_port + n) * s->nvl + vl;
		cr = s->pk[s->slot[in].head].cr;
		absorb(s, os);
		if (os->credits < (int32_t)cr) {
			wait_credits(s, out, os, cr);
			continue;
		}
		os->need = 0;
		os->wait[n / 64] &= ~(1ull << (n % 64));
		o->nwait--;
		os->rr = (uint8_t)n;
		o->vl_rr = (uint8_t)((vl + 1) % s->nvl);
		grant(s, out, in);
		return;
	}
}

static void grant(sim *s, uint32_t out, uint32_t in)
{
	struct slot *is = &s->slot[in];
	uint32_t pi = is->head;
	struct pkt *p = &s->pk[pi];
	uint64_t th = p->t_head, tt = p->t_tail, sr = ser(s->op[out].ppb_fx, p->bytes);
	uint64_t rel = max64(s->now + sr / s->p.speedup, tt);

	is->head = p->next;
	if (is->head == UINT32_MAX)
		is->tail = UINT32_MAX;
	is->fifo_cr -= p->cr;
	is->rel_t = rel;
	is->last_cr = p->cr;
	if (s->lv)
		s->lv[in] = (struct leave){s->now, s->now + sr / s->p.speedup, th, tt};
	/* the crossbar reads flit k by now + (k + 1) sr / (cr S), once it has arrived */
	credits_leave(s, in, p->cr, s->now, s->now + sr / s->p.speedup, th, tt);
	if (is->head != UINT32_MAX)
		push(s, rel, EV_INREL, in);
	transmit(s, out, pi, tt);
}

/* The head packet of input slot `in` asks for its output. */
static void request(sim *s, uint32_t in, uint32_t pi)
{
	struct pkt *p = &s->pk[pi];
	struct slot *os = &s->slot[p->out * s->nvl + p->vl];
	unsigned n = s->hp[in / s->nvl].num;

	os->wait[n / 64] |= 1ull << (n % 64);
	s->op[p->out].nwait++;
	arbitrate(s, p->out);
}

static void stage_done_barrier(sim *s)
{
	while (s->barrier_stage < s->w->nstages && !s->stage_left[s->barrier_stage])
		s->barrier_stage++;
	if (s->barrier_stage >= s->w->nstages)
		return;
	for (uint32_t r = 0; r < s->nranks; r++)
		post_stage_of(s, r);
}

/* Message mi consumed (at s->now): what the workload does next. */
static void msg_done(sim *s, uint32_t mi)
{
	uint32_t st = s->stg ? s->stg[mi] : 0;

	if (s->w->mode == VT_WORK_CAUSAL) {
		uint32_t d = s->dst[mi], ns_ = s->w->nstages;

		s->got[(uint64_t)d * ns_ + st]++;
		while (s->ready_upto[d] < ns_ &&
		       s->got[(uint64_t)d * ns_ + s->ready_upto[d]] ==
			       s->exp[(uint64_t)d * ns_ + s->ready_upto[d]])
			s->ready_upto[d]++;
		post_stage_of(s, d);
	} else if (s->w->mode == VT_WORK_BARRIER) {
		s->stage_left[st]--;
		if (st == s->barrier_stage && !s->stage_left[st])
			stage_done_barrier(s);
	}
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
	if (s->w->mode == VT_WORK_OPEN && t <= s->w->duration_ps)
		s->open_acc_bytes += p->payload;
	s->in_flight--;
	pkt_free(s, pi);
	if (--m->rx_left)
		return;
	uint64_t lat = t - m->t_post;
	double ns = (double)lat / 1000.0;
	int b = ns > 1 ? (int)(16.0 * log2(ns)) : 0;

	s->r->lat_hist[b < (int)VT_SIM_LAT_HIST ? b : (int)VT_SIM_LAT_HIST - 1]++;
	s->r->lat_sum_ps += lat;
	if (lat < s->r->lat_min_ps)
		s->r->lat_min_ps = lat;
	if (lat > s->r->lat_max_ps)
		s->r->lat_max_ps = lat;
	s->r->msgs_done++;
	s->r->end_ps = max64(s->r->end_ps, t);
	uint32_t st = s->stg ? s->stg[mi] : 0;

	if (st < s->r->nstages) {
		if (s->w->mode != VT_WORK_BARRIER)
			s->stage_left[st]--;
		s->r->stage_end_ps[st] = max64(s->r->stage_end_ps[st], t);
	}
	if (s->w->mode == VT_WORK_CAUSAL || s->w->mode == VT_WORK_BARRIER)
		push(s, t, EV_DONE, mi);
}

/* A packet's head reaches an HCA: the sink takes it at its rate, freeing credits as it goes. */
static void sink(sim *s, uint32_t pi)
{
	struct pkt *p = &s->pk[pi];
	uint64_t start = max64(s->sink_free[p->at], p->t_head);
	uint64_t end = max64(start + ser(s->sink_ppb_fx, p->bytes), p->t_tail);

	s->sink_free[p->at] = end;
	credits_leave(s, p->at * s->nvl + p->vl, p->cr, start, end, start, end);
	deliver(s, pi, end);
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
	/*
	 * The cursor moves first: a b2b message sent at once (one packet, idle
	 * HCA) releases the next stage from inside post(), which must not see
	 * this stage again.
	 */
	uint32_t from = s->cursor[r];

	s->cursor[r] = c;
	for (uint32_t k = from; k < c; k++)
		post(s, s->rank_msg[k]);
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
	push(s, s->now + gap, EV_GEN, r);
}

static void on_arrive(sim *s, uint32_t pi)
{
	struct pkt *p = &s->pk[pi];
	const struct hport *h = &s->hp[p->at];
	uint8_t op;

	s->r->hops++;
	if (h->sw == VT_NONE) {
		const struct vt_port *pt = &s->f->ports[p->at];
		uint32_t base = pt->lid, top = base + (1u << pt->lmc);

		if (p->lid < base || p->lid >= top) {
			s->failed = 1;
			vt_err_set(s->e, "packet for LID %u delivered to \"%s\" (LID %u)", p->lid,
				   s->f->nodes[pt->node].id, pt->lid);
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
			   p->lid, p->hops - 1, s->f->nodes[s->f->ports[p->at].node].id);
		return;
	}
	op = vt_lft_get(s->t, h->sw, p->lid);
	if (op == VT_LFT_NONE || op == 0 || op > h->nports ||
	    s->hp[h->first_port + op].peer == VT_NONE) {
		const char *id = s->f->nodes[s->f->ports[p->at].node].id;

		s->failed = 1;
		if (op == VT_LFT_NONE || op == 0)
			vt_err_set(s->e, "switch \"%s\" has no route to LID %u", id, p->lid);
		else
			vt_err_set(s->e, "switch \"%s\" routes LID %u to port %u, which is down",
				   id, p->lid, op);
		return;
	}
	p->out = h->first_port + op;
	p->next = UINT32_MAX;

	uint32_t in = p->at * s->nvl + p->vl;
	struct slot *sl = &s->slot[in];

	sl->fifo_cr += p->cr;
	check_occupancy(s, in);
	if (sl->tail != UINT32_MAX) {
		s->pk[sl->tail].next = pi;
		sl->tail = pi;
		return;
	}
	sl->head = sl->tail = pi;
	if (sl->rel_t <= s->now)
		request(s, in, pi);
	else
		push(s, sl->rel_t, EV_INREL, in);
}

static void dispatch(sim *s, const struct vt_simq_ev *ev)
{
	switch (ev->type) {
	case EV_ARRIVE:
		on_arrive(s, ev->a);
		break;
	case EV_WAKE:
		if (s->op[ev->a].wake_t == ev->t)
			s->op[ev->a].wake_t = NO_T;
		arbitrate(s, ev->a);
		break;
	case EV_INREL:
		if (s->slot[ev->a].head != UINT32_MAX)
			request(s, ev->a, s->slot[ev->a].head);
		break;
	case EV_DONE:
		msg_done(s, ev->a);
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
	if (s->p.flit)
		s->lv = zalloc(nslot, sizeof(*s->lv), &bad);
	s->st = zalloc(f->nports, sizeof(*s->st), &bad);
	s->hp = zalloc(f->nports, sizeof(*s->hp), &bad);
	s->sink_free = zalloc(f->nports, sizeof(*s->sink_free), &bad);
	s->rail_off = zalloc(s->nranks + 1, sizeof(uint32_t), &bad);
	if (bad)
		return vt_err_set(s->e, "out of memory");
	for (uint64_t i = 0; i < nslot; i++) {
		s->slot[i].head = s->slot[i].tail = UINT32_MAX;
		s->slot[i].credits = (int32_t)s->p.buf_credits;
	}
	for (uint32_t i = 0; i < f->nports; i++) {
		const struct vt_node *nd = &f->nodes[f->ports[i].node];

		s->hp[i] = (struct hport){
			.peer = f->ports[i].peer,
			.first_port = nd->first_port,
			.sw = nd->type == VT_SWITCH ? nd->sw : VT_NONE,
			.nports = nd->nports,
			.num = f->ports[i].num,
		};
		s->op[i].rail_head = s->op[i].rail_tail = UINT32_MAX;
		s->st[i].blocked_since = NO_T;
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
	if (vt_simq_init(&s->q, width_log, 12, s->e))
		return -1;
	s->cap_pk = 1024;
	s->npk = 1; /* index 0 means "none" */
	s->pk = malloc(s->cap_pk * sizeof(*s->pk));
	s->cap_cq = 1024;
	s->ncq = 1;
	s->cq = malloc(s->cap_cq * sizeof(*s->cq));
	if (!s->pk || !s->cq)
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
			push(s, (uint64_t)vt_rand_below(&s->rng, 1000), EV_GEN, r);
			if (s->failed) {
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
			struct ostat *o = &s->st[i];

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
	r->last_ps = s->now;
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
	free(s->lv);
	free(s->st);
	free(s->hp);
	free(s->cq);
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
