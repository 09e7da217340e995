/* SPDX-License-Identifier: MIT */
#include "sim/vt_sim_int.h"

#include <stdlib.h>

uint32_t vts_pkt_new(sim *s)
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

void vts_pkt_free(sim *s, uint32_t i)
{
	s->pk[i].next = s->free_pk;
	s->free_pk = i;
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

/* Time credits freed in a buffer at t can be used upstream. */
static uint64_t credit_time(const sim *s, uint64_t t)
{
	if (s->p.credit_period_ps)
		t = (t + s->p.credit_period_ps - 1) / s->p.credit_period_ps * s->p.credit_period_ps;
	return t + s->p.cable_ps;
}

/* Moves the first return of the list into the slot's inline FIFO, which has room. */
static void refill(sim *s, struct slot *os)
{
	uint32_t c = os->cq_head, k = (os->ret_at + os->ret_n++) % VTS_RET;

	os->ret_t[k] = s->cq[c].t;
	os->ret_cr[k] = s->cq[c].cr;
	os->cq_head = s->cq[c].next;
	if (!os->cq_head)
		os->cq_tail = 0;
	s->cq[c].next = s->free_cq;
	s->free_cq = c;
}

/* Takes in the credit returns of output slot os that are due. */
void vts_absorb(sim *s, struct slot *os)
{
	while (os->ret_n && os->ret_t[os->ret_at] <= s->now) {
		os->credits += (int32_t)os->ret_cr[os->ret_at];
		os->ret_at = (uint8_t)((os->ret_at + 1) % VTS_RET);
		os->ret_n--;
		if (os->cq_head)
			refill(s, os);
	}
	check_credits(s, os);
}

/* When the returns on their way give output slot os `need` credits; NO_T if they never do. */
static uint64_t credit_eta(const sim *s, const struct slot *os, uint32_t need)
{
	int64_t c = os->credits;

	for (unsigned k = 0; k < os->ret_n; k++) {
		c += os->ret_cr[(os->ret_at + k) % VTS_RET];
		if (c >= (int64_t)need)
			return os->ret_t[(os->ret_at + k) % VTS_RET];
	}
	for (uint32_t i = os->cq_head; i; i = s->cq[i].next) {
		c += s->cq[i].cr;
		if (c >= (int64_t)need)
			return s->cq[i].t;
	}
	return NO_T;
}

/* Appends a return to the list of output slot os; 0 when out of memory. */
static int spill(sim *s, struct slot *os, uint32_t n, uint64_t t)
{
	uint32_t c = s->free_cq;

	if (c) {
		s->free_cq = s->cq[c].next;
	} else {
		if (s->ncq == s->cap_cq) {
			struct cred *q = realloc(s->cq, (size_t)s->cap_cq * 2 * sizeof(*q));

			if (!q) {
				vts_oom(s, "credits");
				return 0;
			}
			s->cq = q;
			s->cap_cq *= 2;
		}
		c = s->ncq++;
	}
	s->cq[c] = (struct cred){.t = t, .cr = n, .next = 0};
	if (os->cq_tail)
		s->cq[os->cq_tail].next = c;
	else
		os->cq_head = c;
	os->cq_tail = c;
	os->cq_tail_t = t;
	return 1;
}

/* n credits of input port `port`, VL vl, reach the upstream output at t. */
static void credit_back(sim *s, uint32_t port, unsigned vl, uint32_t n, uint64_t t)
{
	uint32_t up = s->hp[port].peer;
	struct slot *os = &s->slot[up * s->nvl + vl];
	unsigned last = (os->ret_at + os->ret_n + VTS_RET - 1) % VTS_RET;

	/* one update carries all credits of a period: a return at the tail's time joins it */
	if (os->cq_tail && os->cq_tail_t == t) {
		s->cq[os->cq_tail].cr += n;
	} else if (!os->cq_tail && os->ret_n && os->ret_t[last] == t) {
		os->ret_cr[last] += n;
	} else if (!os->cq_tail && os->ret_n < VTS_RET) {
		last = (os->ret_at + os->ret_n++) % VTS_RET;
		os->ret_t[last] = t;
		os->ret_cr[last] = n;
	} else if (!spill(s, os, n, t)) {
		return;
	}
	if (os->need) {
		uint64_t eta = credit_eta(s, os, os->need);

		if (eta != NO_T) {
			os->need = 0;
			wake_at(s, up, eta);
		}
	}
}

/*
 * Credits of a packet of cr credits leaving input port `port`, VL vl, read
 * out from `from` to `to` and arriving from arr_from to arr_end: all at the
 * end in packet mode, one by one in flit mode (credit k once flit k has both
 * arrived and been read).
 */
void vts_credits_leave(sim *s, uint32_t port, unsigned vl, uint32_t cr, uint64_t from, uint64_t to,
		       uint64_t arr_from, uint64_t arr_end)
{
	if (!s->p.flit) {
		credit_back(s, port, vl, cr, credit_time(s, max64(to, arr_end)));
		return;
	}
	for (uint32_t k = 0; k < cr; k++) {
		uint64_t rd = from + (to - from) * (k + 1) / cr;
		uint64_t ar = arr_from + (arr_end - arr_from) * (k + 1) / cr;

		credit_back(s, port, vl, 1, credit_time(s, max64(rd, ar)));
	}
}

/*
 * A packet waits at output slot os for cr credits: wakes the output when the
 * returns on their way suffice, else leaves word with the slot.
 */
void vts_wait_credits(sim *s, uint32_t port, struct slot *os, uint32_t cr)
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
void vts_transmit(sim *s, uint32_t port, uint32_t pi, uint64_t tail_in)
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

/* Output `out` takes the head packet of input port inp's VL vl. */
static void grant(sim *s, uint32_t out, uint32_t inp, unsigned vl)
{
	uint32_t in = inp * s->nvl + vl;
	struct slot *is = &s->slot[in];
	uint32_t pi = is->head;
	struct pkt *p = &s->pk[pi];
	uint64_t th = p->t_head, tt = p->t_tail, sr = ser(s->op[out].ppb_fx, p->bytes);
	uint64_t read = s->now + sr / s->p.speedup; /* the crossbar has read it by then */
	uint64_t rel = max64(read, tt);

	is->head = p->next;
	if (is->head == UINT32_MAX)
		is->tail = UINT32_MAX;
	is->fifo_cr -= p->cr;
	s->op[out].qcr -= p->cr;
	is->rel_t = rel;
	is->last_cr = p->cr;
	if (s->lv)
		s->lv[in] = (struct leave){s->now, read, th, tt};
	/* the crossbar reads flit k by now + (k + 1) sr / (cr S), once it has arrived */
	vts_credits_leave(s, inp, vl, p->cr, s->now, read, th, tt);
	if (is->head != UINT32_MAX)
		push(s, rel, EV_INREL, in);
	vts_transmit(s, out, pi, tt);
}

/* Output arbitration of a switch port: one winner among the inputs waiting for it. */
void vts_arbitrate(sim *s, uint32_t out)
{
	struct oport *o = &s->op[out];
	const struct hport *h = &s->hp[out];

	if (h->sw == VT_NONE) {
		vts_hca_kick(s, out);
		return;
	}
	if (o->busy_until > s->now) {
		if (o->nwait)
			wake_at(s, out, o->busy_until);
		return;
	}
	/* VLs round robin from vl_rr (counted up and wrapped: no division on this path) */
	for (unsigned k = 0, vl = o->vl_rr; k < s->nvl && o->nwait;
	     k++, vl = vl + 1 == s->nvl ? 0 : vl + 1) {
		struct slot *os = &s->slot[out * s->nvl + vl];
		unsigned n;
		uint32_t inp, cr;

		if (!(os->wait[0] | os->wait[1] | os->wait[2] | os->wait[3]))
			continue;
		n = pick_input(s, os);
		inp = h->first_port + n;
		cr = s->pk[s->slot[inp * s->nvl + vl].head].cr;
		vts_absorb(s, os);
		if (os->credits < (int32_t)cr) {
			vts_wait_credits(s, out, os, cr);
			continue;
		}
		os->need = 0;
		os->wait[n / 64] &= ~(1ull << (n % 64));
		o->nwait--;
		os->rr = (uint8_t)n;
		o->vl_rr = (uint8_t)(vl + 1 == s->nvl ? 0 : vl + 1);
		grant(s, out, inp, vl);
		return;
	}
}

/* Packet pi, the head of its input slot, asks for its output. */
void vts_request(sim *s, uint32_t pi)
{
	struct pkt *p = &s->pk[pi];
	struct slot *os = &s->slot[p->out * s->nvl + p->vl];
	unsigned n = s->hp[p->at].num;

	os->wait[n / 64] |= 1ull << (n % 64);
	s->op[p->out].nwait++;
	vts_arbitrate(s, p->out);
}

void vts_on_arrive(sim *s, uint32_t pi)
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
		vts_sink(s, pi);
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
	if (s->p.ar != VT_AR_STATIC && s->hp[p->out].up)
		p->out = vts_ar_route(s, h, p, p->out);
	s->op[p->out].qcr += p->cr;
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
		vts_request(s, pi);
	else
		push(s, sl->rel_t, EV_INREL, in);
}
