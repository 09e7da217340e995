/* SPDX-License-Identifier: MIT */
/*
 * Credit-based flow-control simulator: discrete events, virtual cut-through,
 * input-buffered switches with one FIFO per (input port, VL), credits counted
 * in 64-byte units as the IBA specifies, output arbitration round-robin or
 * random, HCAs with an unbounded send queue per rail and a sink. One event per
 * packet hop (the head's arrival at the next buffer); tail times, output
 * release and credit returns are computed from serialisation, and credits are
 * taken in when the sender next looks. Outputs that wait (busy, or short of
 * credits, with a packet for them) and HCAs sending the next packet add an
 * event each. The flit mode returns credits per 64-byte flit instead of per
 * packet (or per update period), for validation runs.
 *
 * Times are integer picoseconds. Ranks are the hosts of a vt_order; a host
 * with several connected CA ports (one per plane) is multi-rail.
 */
#ifndef VT_SIM_H
#define VT_SIM_H

#include <stdint.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "model/vt_lft.h"
#include "model/vt_order.h"
#include "sim/vt_simwork.h"

#define VT_SIM_CREDIT	64u /* bytes per flow-control credit (IBA) */
#define VT_SIM_MAX_VL	15u
#define VT_SIM_LAT_HIST 512u /* latency histogram buckets, 2^(1/16) apart, from 1 ns */

enum vt_sim_arb { VT_ARB_RR = 0, VT_ARB_RANDOM = 1 };
enum vt_sim_rail { VT_RAIL_FIXED = 0, VT_RAIL_RANDOM = 1, VT_RAIL_LEAST = 2 };
/* the rail policy chooses for a whole message, or for each of its packets (Wolfe et al.) */
enum vt_sim_rail_choice { VT_RAIL_PER_MESSAGE = 0, VT_RAIL_PER_PACKET = 1 };
/*
 * Adaptive routing (see vt_simar.c): static follows the LFT; packet chooses
 * per packet among the up-ports of the switch when the LFT port is an
 * up-port; flow chooses so for a message's first packet at each switch and
 * sends the rest of the message the same way (packets stay in order).
 */
enum vt_sim_ar { VT_AR_STATIC = 0, VT_AR_PACKET = 1, VT_AR_FLOW = 2 };
/* credits: most credits downstream less what is queued here for the port; queue: least queued */
enum vt_sim_ar_select { VT_AR_CREDITS = 0, VT_AR_QUEUE = 1 };

struct vt_sim_params {
	uint64_t link_mbps;   /* data rate of every link after line coding; 0: from the fabric */
	enum vt_speed speed;  /* when link_mbps is 0 and not VT_SPEED_UNKNOWN: 4x of it */
	unsigned mtu;	      /* payload bytes per packet, 256 .. 4096 */
	unsigned header;      /* bytes added per packet: LRH+BTH+ICRC+VCRC = 26 */
	unsigned pad;	      /* packet on the wire padded to a multiple of it; 0: none */
	unsigned nvl;	      /* data VLs, 1 .. 15 */
	unsigned sl;	      /* service level of every message, 0 .. 15 (VL = SL mod nvl) */
	int sl_spread;	      /* instead: SL = (src rank + dst rank) mod nvl */
	unsigned buf_credits; /* input buffer per VL, in 64-byte credits */
	unsigned speedup;     /* crossbar speed-up: an input releases a packet this much faster */
	uint64_t sw_lat_ps;   /* forwarding latency of a switch, head in to head out */
	uint64_t cable_ps;    /* propagation delay of every link */
	uint64_t credit_period_ps; /* credit updates every period; 0: per packet at once */
	uint64_t gen_mbps;	   /* HCA packet generator rate (0: no limit) */
	uint64_t sink_mbps;	   /* HCA sink rate (0: no limit) */
	enum vt_sim_arb arb;
	enum vt_sim_rail rail;
	enum vt_sim_rail_choice rail_choice;
	enum vt_sim_ar ar;
	enum vt_sim_ar_select ar_select;
	int flit; /* flit-exact mode */
	uint64_t seed;
	uint64_t max_hops; /* a packet beyond this many switch hops is a routing loop */
	/* progress: called about every 2^20 events with the simulated time */
	void (*progress)(void *ctx, uint64_t now_ps, uint64_t events, uint64_t delivered,
			 uint64_t total);
	void *progress_ctx;
};

/* Bytes on the wire of a packet carrying `payload`: header, then padding (at least one unit). */
uint32_t vt_sim_wire_bytes(const struct vt_sim_params *p, uint32_t payload);
/* VL of a message from rank src to rank dst: its SL through a uniform SL-to-VL table. */
unsigned vt_sim_vl(const struct vt_sim_params *p, uint32_t src, uint32_t dst);

/* Defaults: QDR-class switch, 2 KB MTU, 1 VL of 256 credits, 100 ns, 5 ns cable. */
void vt_sim_defaults(struct vt_sim_params *p);
/* The reference model of Zahavi et al. Fig. 6 (fixtures/fig6/README.md). */
void vt_sim_preset_fig6(struct vt_sim_params *p);
/*
 * The switch model of Navaridas et al. as far as InfiniBand allows: 256-byte
 * MTU without header (their packets are 64 bytes), packets padded to a
 * multiple of 64 bytes (their last packet's unused phits), input buffers of
 * four packets, random output arbitration, adaptive routing by credits, one
 * phit time per hop (1 ns switches at QDR, no cable delay).
 */
void vt_sim_preset_navaridas(struct vt_sim_params *p);

struct vt_sim_link {
	uint32_t port;	     /* output port (ports[] index) */
	uint64_t busy_ps;    /* time spent transmitting */
	uint64_t blocked_ps; /* time a packet waited for this output with too few credits */
	uint64_t bytes;	     /* payload bytes */
	uint64_t pkts;
};

typedef struct vt_sim_result {
	uint64_t end_ps; /* last packet consumed */
	uint32_t nstages;
	uint64_t *stage_end_ps; /* per stage: last packet of the stage consumed */
	uint64_t msgs, msgs_done;
	uint64_t bytes_injected, bytes_delivered; /* payload */
	uint64_t pkts_injected, pkts_delivered;
	uint64_t events, hops;		    /* all events; packet hops (arrivals) */
	uint64_t lat_hist[VT_SIM_LAT_HIST]; /* message latency, post to last byte consumed */
	uint64_t lat_min_ps, lat_max_ps, lat_sum_ps;
	uint64_t lat_msgs; /* messages in the latency figures (open loop: posted after warm-up) */
	struct vt_sim_link *links; /* every connected output port with traffic or not */
	uint32_t nlinks;
	/* open loop: bytes offered and accepted within the measurement window, per host per second
	 */
	double offered_frac, accepted_frac; /* fractions of the injection link rate */
	int deadlock;			    /* no progress while packets were pending */
	uint64_t last_ps;		    /* time of the last event */
	uint64_t stuck_pkts;
	uint64_t credit_violations; /* credits below 0 or above the buffer; must stay 0 */
	uint64_t max_occupancy;	    /* largest input buffer fill seen, credits */
	/* program workloads: messages between ranks of one CA (not in the fabric's counts) */
	uint64_t msgs_local, bytes_local;
	/* program workloads: per message, posted and consumed (local: both at posting) */
	uint64_t *msg_post_ps, *msg_end_ps;
} vt_sim_result;

void vt_sim_result_free(vt_sim_result *r);
/* Latency at quantile q (0..1) from the histogram, ps (bucket upper edge). */
uint64_t vt_sim_lat_quantile(const vt_sim_result *r, double q);

/*
 * Parameters the model cannot take (an MTU not a power of two in 256..4096, a
 * buffer smaller than one packet, ...): -1 with e set. vt_sim_run checks them
 * first; front ends check them early to tell a bad option from a failed run.
 */
int vt_sim_check_params(const struct vt_sim_params *p, vt_err *e);

/*
 * Runs workload w over fabric f with tables t; order maps ranks to CA ports
 * (the rails of a rank are the connected ports of its CA, the order's port
 * first). Fails on a missing route ("switch "X" has no route to LID L") or
 * a routing loop; a credit deadlock is a result (r->deadlock), not an error.
 */
int vt_sim_run(const vt_fabric *f, const vt_lfts *t, const vt_order *order, const vt_simwork *w,
	       const struct vt_sim_params *p, vt_sim_result *r, vt_err *e);

#endif
