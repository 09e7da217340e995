/* SPDX-License-Identifier: MIT */
/*
 * Inside the simulator (not an interface): the state shared by its parts.
 *   vt_sim.c       parameters, the event loop and its dispatch
 *   vt_simlink.c   switches and links: buffers, credits, arbitration, hops
 *   vt_simhca.c    HCAs and messages: injection, sinks, workload release rules
 *   vt_simsetup.c  building the state from a fabric, order and workload; results
 *   vt_simar.c     adaptive routing: up-port groups and the choice per packet
 *   vt_simprog.c   program workloads: each rank's steps, local messages
 */
#ifndef VT_SIM_INT_H
#define VT_SIM_INT_H

#include <stdint.h>

#include "base/vt_rand.h"
#include "sim/vt_sim.h"
#include "sim/vt_simq.h"

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
	EV_COMPUTE,    /* a = rank: its program's compute step is over */
};

#define NO_T UINT64_MAX
#define FX   10 /* fixed-point bits of ps-per-byte */

struct pkt {
	uint64_t t_head, t_tail; /* arrival of first and last bit at the current input */
	uint32_t msg, next, at, out;
	uint16_t bytes, payload, lid, hops;
	uint8_t cr, vl;
};

#define VTS_AR_HOPS 3 /* up hops a flow's choices are kept for (4-level trees) */

struct msgrt {
	uint64_t t_post;
	uint32_t tx_left, rx_left;
	uint8_t ar[VTS_AR_HOPS]; /* flow AR: port chosen at switch hop k + 1, 0 if not yet */
};

/*
 * Packets of a message queued on one rail of its source: a whole message
 * when the rail is chosen per message, a run of its packets when per packet.
 */
struct chunk {
	uint32_t msg, npk, next;
	uint32_t rail; /* the source's rail k; the packets go to the destination's rail k */
};

/*
 * A credit return on its way to an output: the credits can be used from time
 * t on. Each (output, VL) keeps a FIFO of them (times never decrease, since
 * the peer's buffer releases in order) and takes in the due ones when it
 * looks, instead of an event per update. The oldest VTS_RET of the FIFO sit
 * in the slot itself (a link rarely has more on their way), the rest in a
 * list of these.
 */
#define VTS_RET 3
struct cred {
	uint64_t t;
	uint32_t cr, next;
};

/*
 * One slot per (port, VL): the input buffer of the port, and the credits of
 * its output. Two cache lines (the array is 64-byte aligned): the output's
 * credits, which credit returns and arbitration read, and the input FIFO with
 * the output's waiting inputs, which arrivals, requests and grants read.
 */
struct slot {
	int32_t credits;       /* output: credits held for the peer's buffer, due returns taken */
	uint32_t need;	       /* output: credits a blocked packet waits for, 0 if none */
	uint8_t ret_at, ret_n; /* output: the first returns on their way, from ret_at */
	uint32_t cq_head, cq_tail; /* output: the later returns (only when ret_t[] is full) */
	uint32_t ret_cr[VTS_RET];
	uint64_t ret_t[VTS_RET];
	uint64_t cq_tail_t; /* the time of cq_tail's return */

	uint64_t wait[4];    /* output: input port numbers whose head packet wants it */
	uint32_t head, tail; /* input FIFO of arrived packets */
	uint64_t rel_t;	     /* input: the last granted packet has left the buffer by then */
	int32_t fifo_cr;     /* input: credits of the packets in the FIFO */
	int32_t last_cr;     /* input: credits of the last granted packet */
	uint8_t rr;	     /* output: last input port granted */
};
_Static_assert(sizeof(struct slot) == 128, "a slot is two cache lines");

/* an output port's state: one cache line (the array is 64-byte aligned) */
struct oport {
	uint64_t busy_until, ppb_fx, wake_t;   /* wake_t: earliest pending EV_WAKE, NO_T if none */
	uint32_t nwait;			       /* waiting inputs over all VLs */
	uint32_t qcr;			       /* credits of packets here routed to this output */
	uint32_t rail_head, rail_tail, queued; /* CA ports: chunk FIFO (0: none), packets in it */
	uint64_t gen_t;
	uint8_t vl_rr;
};
_Static_assert(sizeof(struct oport) == 64, "an output is one cache line");

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
	uint8_t up; /* a switch port to a switch further from the hosts (an AR candidate) */
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
	struct chunk *ch;
	uint32_t nch, cap_ch, free_ch;
	/* messages */
	uint64_t nmsg, cap_msg;
	uint32_t *src, *dst, *stg;
	struct msgrt *m;
	/* ranks */
	uint32_t nranks, *rail_off, *rail_port;
	/* adaptive routing: up-ports per switch; check: candidates must be vetted per LID */
	uint32_t *up_off, *up_port;
	uint8_t *ar_check;
	uint32_t *rank_off, *rank_msg, *cursor, *outstanding;
	uint32_t *exp, *got, *ready_upto; /* causal */
	uint32_t *perm;
	uint64_t *stage_left;
	uint32_t barrier_stage;
	uint64_t in_flight, open_bytes, open_acc_bytes;
	uint32_t nhosts_open;
	uint8_t *prog_flag; /* program: per message PF_SENT, PF_DONE; per rank PF_RUNNING */
	uint8_t *prog_running;
	int failed;
} sim;

/* Payload bytes of message mi, and its packets (a 0-byte message is one header-only packet). */
static inline uint32_t vts_msg_bytes(const sim *s, uint32_t mi)
{
	return s->w->bytes && mi < s->w->nmsg ? s->w->bytes[mi] : s->w->msg_bytes;
}

static inline uint32_t vts_msg_pkts(const sim *s, uint32_t bytes)
{
	uint32_t n = (uint32_t)(((uint64_t)bytes + s->p.mtu - 1) / s->p.mtu);

	return n ? n : 1;
}

void vts_oom(sim *s, const char *what);

static inline uint64_t ser(uint64_t ppb_fx, uint64_t bytes)
{
	return (bytes * ppb_fx + (1u << FX) - 1) >> FX;
}

static inline uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static inline void push(sim *s, uint64_t t, uint8_t type, uint32_t a)
{
	if (vt_simq_push(&s->q, t, type, a))
		vts_oom(s, "events");
}

static inline void check_credits(sim *s, const struct slot *sl)
{
	if (sl->credits < 0 || sl->credits > (int32_t)s->p.buf_credits)
		s->r->credit_violations++;
}

/*
 * Asks for an arbitration of `port` at t. An earlier pending wake is enough:
 * every arbitration asks again for what it still waits for.
 */
static inline void wake_at(sim *s, uint32_t port, uint64_t t)
{
	uint64_t w = s->op[port].wake_t;

	if (w != NO_T && w <= t)
		return;
	s->op[port].wake_t = t;
	push(s, t, EV_WAKE, port);
}

void vts_hca_kick(sim *s, uint32_t port);
void vts_sink(sim *s, uint32_t pi);
void vts_transmit(sim *s, uint32_t port, uint32_t pi, uint64_t tail_in);
void vts_wait_credits(sim *s, uint32_t port, struct slot *os, uint32_t cr);
void vts_absorb(sim *s, struct slot *os);
uint32_t vts_pkt_new(sim *s);
void vts_pkt_free(sim *s, uint32_t i);
void vts_credits_leave(sim *s, uint32_t port, unsigned vl, uint32_t cr, uint64_t from, uint64_t to,
		       uint64_t arr_from, uint64_t arr_end);
void vts_on_arrive(sim *s, uint32_t pi);
void vts_arbitrate(sim *s, uint32_t out);
void vts_request(sim *s, uint32_t pi);
void vts_msg_done(sim *s, uint32_t mi);
void vts_gen(sim *s, uint32_t r);
void vts_post_stage_of(sim *s, uint32_t r);
void vts_stage_done_barrier(sim *s);
void vts_post(sim *s, uint32_t mi);
int vts_prog_setup(sim *s);
void vts_prog_run(sim *s, uint32_t r);
void vts_prog_sent(sim *s, uint32_t mi);
void vts_prog_done(sim *s, uint32_t mi);
void vts_prog_computed(sim *s, uint32_t r);
void vts_prog_finish(sim *s);
void vts_oom(sim *s, const char *what);
int vts_setup(sim *s, const vt_order *order);
int vts_setup_messages(sim *s);
int vts_start(sim *s);
void vts_finish(sim *s);
void vts_cleanup(sim *s);
uint64_t vts_ppb_of_mbps(uint64_t mbps);
int vts_ar_setup(sim *s);
uint32_t vts_ar_route(sim *s, const struct hport *h, struct pkt *p, uint32_t out);

#endif
