/* SPDX-License-Identifier: MIT */
#include "model/vt_fabric.h"
#include "model/vt_lft.h"
#include "model/vt_order.h"
#include "model/vt_pattern.h"
#include "sim/vt_sim.h"
#include "sim/vt_simq.h"
#include "sim/vt_simwork.h"
#include "vt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Two-level tree: `leaves` leaf switches with `h` hosts each and `u` spines;
 * leaf l port 1..h hosts, port h+1+j to spine j; spine port 1+l to leaf l.
 * Hosts are numbered leaf-major; tables are destination-mod-u, which makes
 * every shift congestion-free when u = h.
 */
struct tree {
	vt_fabric *f;
	vt_lfts t;
	vt_order o;
};

static void tree_build(struct tree *tr, unsigned leaves, unsigned h, unsigned u, enum vt_speed sp)
{
	vt_err e;
	char id[32];
	uint32_t n, nh = leaves * h;
	uint32_t *leaf = calloc(leaves, 4), *spine = calloc(u, 4), *host = calloc(nh, 4);

	tr->f = vt_fabric_new("tree");
	for (unsigned l = 0; l < leaves; l++) {
		snprintf(id, sizeof(id), "leaf%u", l);
		ck_assert_int_eq(
			vt_fabric_add_node(tr->f, VT_SWITCH, h + u, 0x1000 + l, id, NULL, &n, &e),
			0);
		leaf[l] = n;
	}
	for (unsigned j = 0; j < u; j++) {
		snprintf(id, sizeof(id), "spine%u", j);
		ck_assert_int_eq(
			vt_fabric_add_node(tr->f, VT_SWITCH, leaves, 0x2000 + j, id, NULL, &n, &e),
			0);
		spine[j] = n;
	}
	for (unsigned i = 0; i < nh; i++) {
		snprintf(id, sizeof(id), "h%u", i);
		ck_assert_int_eq(vt_fabric_add_node(tr->f, VT_CA, 1, 0x3000 + i, id, NULL, &n, &e),
				 0);
		host[i] = n;
		vt_port(tr->f, n, 1)->guid = 0x4000 + i;
		ck_assert_int_eq(vt_fabric_connect(tr->f, leaf[i / h], 1 + i % h, n, 1, 4, sp, &e),
				 0);
	}
	for (unsigned l = 0; l < leaves; l++)
		for (unsigned j = 0; j < u; j++)
			ck_assert_int_eq(vt_fabric_connect(tr->f, leaf[l], h + 1 + j, spine[j],
							   1 + l, 4, sp, &e),
					 0);
	ck_assert_int_eq(vt_fabric_finish(tr->f, 0, &e), 0);
	ck_assert_int_eq(vt_lfts_init(&tr->t, tr->f, &e), 0);
	tr->o.n = nh;
	tr->o.port = malloc(nh * sizeof(uint32_t));
	for (unsigned i = 0; i < nh; i++) {
		uint32_t lid = vt_port(tr->f, host[i], 1)->lid;

		tr->o.port[i] = vt_port_index(tr->f, host[i], 1);
		for (unsigned l = 0; l < leaves; l++)
			vt_lft_set(&tr->t, tr->f->nodes[leaf[l]].sw, lid,
				   (uint8_t)(l == i / h ? 1 + i % h : h + 1 + i % u));
		for (unsigned j = 0; j < u; j++)
			vt_lft_set(&tr->t, tr->f->nodes[spine[j]].sw, lid, (uint8_t)(1 + i / h));
	}
	free(leaf);
	free(spine);
	free(host);
}

static void tree_free(struct tree *tr)
{
	vt_lfts_free(&tr->t);
	vt_order_free(&tr->o);
	vt_fabric_free(tr->f);
}

static void shift_work(vt_simwork *w, uint32_t n, uint32_t bytes, enum vt_simwork_mode mode)
{
	vt_pattern p;
	vt_err e;

	ck_assert_int_eq(vt_pattern_parse(&p, "shift", n, &e), 0);
	ck_assert_int_eq(vt_simwork_pattern(w, &p, bytes, 1, mode, &e), 0);
	vt_pattern_free(&p);
}

START_TEST(queue_orders_by_time_then_insertion)
{
	vt_simq q;
	vt_err e;
	struct vt_simq_ev ev;
	uint64_t ts[] = {500, 3, 3, 1u << 30, 77, 3, 5000000, 500};
	uint32_t order[10], k = 0;

	ck_assert_int_eq(vt_simq_init(&q, 2, 4, &e), 0); /* horizon 64 ps: most go to overflow */
	for (uint32_t i = 0; i < 8; i++)
		ck_assert_int_eq(vt_simq_push(&q, ts[i], 1, i), 0);
	while (vt_simq_pop(&q, &ev) > 0) {
		order[k++] = ev.a;
		if (ev.a == 4) /* a push during the run lands between 77 and 500 */
			vt_simq_push(&q, 100, 1, 8);
		if (k > 9)
			break;
	}
	ck_assert_uint_eq(k, 9);
	uint32_t want[] = {1, 2, 5, 4, 8, 0, 7, 6, 3};

	for (uint32_t i = 0; i < 9; i++)
		ck_assert_uint_eq(order[i], want[i]);
	vt_simq_free(&q);
}
END_TEST

/* One packet through one switch: 2 cables + switch latency + one serialisation. */
START_TEST(single_packet_time_exact)
{
	struct tree tr;
	vt_simwork w = {0};
	struct vt_sim_params p;
	vt_sim_result r;
	vt_err e;

	tree_build(&tr, 1, 2, 1, VT_QDR);
	w.nranks = 2;
	w.msg_bytes = 1000;
	w.mode = VT_WORK_BURST;
	ck_assert_int_eq(vt_simwork_add(&w, 0, 1, 0, &e), 0);
	vt_sim_defaults(&p);
	ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &r, &e), 0);
	/* QDR 4x: 32 Gb/s, 250 ps per byte; 1026 bytes on the wire */
	ck_assert_uint_eq(r.end_ps, 2 * 5000 + 100000 + 1026 * 250);
	ck_assert_uint_eq(r.hops, 2);
	ck_assert_uint_eq(r.bytes_delivered, 1000);
	vt_sim_result_free(&r);
	vt_simwork_free(&w);
	tree_free(&tr);
}
END_TEST

/*
 * The navaridas preset: packets padded to 64 bytes (16 phits of 32 bits),
 * one phit time per hop (1 ns switch, no cable). A 10-byte message is one
 * 64-byte packet; 1000 bytes are four 256-byte packets on the wire.
 */
START_TEST(navaridas_padding_and_hop_exact)
{
	static const uint32_t size[] = {10, 1000}, want_ps[] = {1000 + 64 * 250, 1000 + 1024 * 250};
	struct vt_sim_params p;

	vt_sim_preset_navaridas(&p);
	ck_assert_uint_eq(vt_sim_wire_bytes(&p, 0), 64);
	ck_assert_uint_eq(vt_sim_wire_bytes(&p, 10), 64);
	ck_assert_uint_eq(vt_sim_wire_bytes(&p, 65), 128);
	ck_assert_uint_eq(vt_sim_wire_bytes(&p, 232), 256);
	for (unsigned i = 0; i < 2; i++) {
		struct tree tr;
		vt_simwork w = {0};
		vt_sim_result r;
		vt_err e;

		tree_build(&tr, 1, 2, 1, VT_QDR);
		w.nranks = 2;
		w.msg_bytes = size[i];
		w.mode = VT_WORK_BURST;
		ck_assert_int_eq(vt_simwork_add(&w, 0, 1, 0, &e), 0);
		ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &r, &e), 0);
		ck_assert_uint_eq(r.end_ps, want_ps[i]);
		ck_assert_uint_eq(r.bytes_injected, size[i]);
		ck_assert_uint_eq(r.bytes_delivered, size[i]);
		vt_sim_result_free(&r);
		vt_simwork_free(&w);
		tree_free(&tr);
	}
}
END_TEST

START_TEST(shift_conserves_and_meets_link_bound)
{
	struct tree tr;
	vt_simwork w;
	struct vt_sim_params p;
	vt_sim_result r;
	vt_err e;
	const uint32_t n = 16, m = 8192;

	tree_build(&tr, 4, 4, 4, VT_QDR);
	shift_work(&w, n, m, VT_WORK_B2B);
	vt_sim_defaults(&p);
	ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &r, &e), 0);
	ck_assert_int_eq(r.deadlock, 0);
	ck_assert_uint_eq(r.msgs, n * (n - 1));
	ck_assert_uint_eq(r.msgs_done, n * (n - 1));
	ck_assert_uint_eq(r.bytes_injected, (uint64_t)n * (n - 1) * m);
	ck_assert_uint_eq(r.bytes_delivered, (uint64_t)n * (n - 1) * m);
	ck_assert_uint_eq(r.credit_violations, 0);
	ck_assert_uint_le(r.max_occupancy, p.buf_credits);
	/* bound: (N-1) m / rate = 15 * 8192 B * 250 ps; plus headers (4 per message) */
	uint64_t bound = (uint64_t)(n - 1) * m * 250;
	uint64_t hdr = (uint64_t)(n - 1) * 4 * 26 * 250;

	ck_assert_uint_ge(r.end_ps, bound + hdr);
	/* within 3 % plus one path latency (3 switches, 4 cables, a packet) */
	ck_assert_uint_le(r.end_ps, (bound + hdr) * 103 / 100 + 3 * 100000 + 4 * 5000 + 2074 * 250);
	for (uint32_t s = 1; s < r.nstages; s++)
		ck_assert_uint_ge(r.stage_end_ps[s], r.stage_end_ps[s - 1] / 2);
	vt_sim_result_free(&r);
	vt_simwork_free(&w);
	tree_free(&tr);
}
END_TEST

START_TEST(flit_mode_agrees_with_packet_mode)
{
	struct tree tr;
	vt_simwork w;
	struct vt_sim_params p;
	vt_sim_result a, b;
	vt_err e;

	/*
	 * 2:1 oversubscribed, buffers of 4 packets as in Navaridas et al.: credits
	 * back up into the fabric. (With room for one packet only, per-packet
	 * credit return is stop-and-wait and the modes part by some 12 %.)
	 */
	tree_build(&tr, 4, 4, 2, VT_QDR);
	shift_work(&w, 16, 4096, VT_WORK_B2B);
	vt_sim_defaults(&p);
	p.buf_credits = 132;
	ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &a, &e), 0);
	p.flit = 1;
	ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &b, &e), 0);
	ck_assert_uint_eq(a.bytes_delivered, b.bytes_delivered);
	ck_assert_uint_eq(b.credit_violations, 0);
	ck_assert_uint_eq(a.events, b.events); /* flit credits are arithmetic, no events */
	/* flits free buffer space earlier, so never slower; within 2 % */
	ck_assert_uint_le(b.end_ps, a.end_ps);
	ck_assert_uint_ge(b.end_ps, a.end_ps - a.end_ps * 2 / 100);
	vt_sim_result_free(&a);
	vt_sim_result_free(&b);
	/*
	 * Room for 1.2 packets: per-packet credits are stop-and-wait, while flit
	 * credits let the next packet in once the first has mostly left.
	 */
	p.buf_credits = 40;
	p.flit = 0;
	ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &a, &e), 0);
	p.flit = 1;
	ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &b, &e), 0);
	ck_assert_uint_eq(b.credit_violations, 0);
	ck_assert_uint_eq(a.max_occupancy, 33);
	ck_assert_uint_le(b.max_occupancy, 40);
	ck_assert_uint_lt(b.end_ps, a.end_ps * 95 / 100);
	ck_assert_uint_gt(b.end_ps, a.end_ps * 80 / 100);
	vt_sim_result_free(&a);
	vt_sim_result_free(&b);
	vt_simwork_free(&w);
	tree_free(&tr);
}
END_TEST

/* Three switches in a ring, each routing every remote LID clockwise: a credit loop. */
static void ring(struct tree *tr, int loop)
{
	vt_err e;
	uint32_t sw[3], h[3];
	char id[16];

	tr->f = vt_fabric_new("ring");
	for (int i = 0; i < 3; i++) {
		snprintf(id, sizeof(id), "s%d", i);
		ck_assert_int_eq(
			vt_fabric_add_node(tr->f, VT_SWITCH, 3, 0x10 + i, id, NULL, &sw[i], &e), 0);
	}
	for (int i = 0; i < 3; i++) {
		snprintf(id, sizeof(id), "h%d", i);
		ck_assert_int_eq(vt_fabric_add_node(tr->f, VT_CA, 1, 0x20 + i, id, NULL, &h[i], &e),
				 0);
		vt_port(tr->f, h[i], 1)->guid = 0x30 + i;
		ck_assert_int_eq(vt_fabric_connect(tr->f, sw[i], 1, h[i], 1, 4, VT_QDR, &e), 0);
	}
	/* port 2 clockwise to the next switch's port 3 */
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(
			vt_fabric_connect(tr->f, sw[i], 2, sw[(i + 1) % 3], 3, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_finish(tr->f, 0, &e), 0);
	ck_assert_int_eq(vt_lfts_init(&tr->t, tr->f, &e), 0);
	tr->o.n = 3;
	tr->o.port = malloc(3 * sizeof(uint32_t));
	for (int i = 0; i < 3; i++) {
		uint32_t lid = vt_port(tr->f, h[i], 1)->lid;

		tr->o.port[i] = vt_port_index(tr->f, h[i], 1);
		for (int k = 0; k < 3; k++)
			vt_lft_set(&tr->t, (uint32_t)k, lid, k == i ? 1 : 2);
		if (loop) /* s1 sends h2's packets back: s1 -> s2 -> ... never reaching h2 */
			vt_lft_set(&tr->t, 2, lid, 2);
	}
}

START_TEST(credit_loop_is_a_deadlock)
{
	struct tree tr;
	vt_simwork w = {0};
	struct vt_sim_params p;
	vt_sim_result r;
	vt_err e;

	ring(&tr, 0);
	w.nranks = 3;
	w.msg_bytes = 64 * 1024;
	w.mode = VT_WORK_BURST;
	for (uint32_t i = 0; i < 3; i++)
		ck_assert_int_eq(vt_simwork_add(&w, i, (i + 2) % 3, 0, &e), 0);
	vt_sim_defaults(&p);
	p.buf_credits = 40;
	ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &r, &e), 0);
	ck_assert_int_eq(r.deadlock, 1);
	ck_assert_uint_gt(r.stuck_pkts, 0);
	ck_assert_uint_lt(r.msgs_done, 3);
	ck_assert_uint_eq(r.credit_violations, 0);
	vt_sim_result_free(&r);
	/* one message alone goes round without a loop of waits */
	w.nmsg = 1;
	ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &r, &e), 0);
	ck_assert_int_eq(r.deadlock, 0);
	ck_assert_uint_eq(r.msgs_done, 1);
	vt_sim_result_free(&r);
	vt_simwork_free(&w);
	tree_free(&tr);
}
END_TEST

START_TEST(routing_errors)
{
	struct tree tr;
	vt_simwork w = {0};
	struct vt_sim_params p;
	vt_sim_result r;
	vt_err e;

	ring(&tr, 1);
	w.nranks = 3;
	w.msg_bytes = 100;
	w.mode = VT_WORK_BURST;
	ck_assert_int_eq(vt_simwork_add(&w, 0, 2, 0, &e), 0);
	vt_sim_defaults(&p);
	ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &r, &e), -1);
	ck_assert_str_eq(e.msg, "routing loop: packet for LID 6 still in the fabric after 64 "
				"switch hops (at \"s1\")");
	vt_lft_set(&tr.t, 0, 6, VT_LFT_NONE);
	ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &r, &e), -1);
	ck_assert_str_eq(e.msg, "switch \"s0\" has no route to LID 6");
	p.mtu = 3000;
	ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &r, &e), -1);
	ck_assert_str_eq(e.msg, "MTU 3000 is not one of 256, 512, 1024, 2048, 4096");
	vt_simwork_free(&w);
	tree_free(&tr);
}
END_TEST

START_TEST(causal_binary_tree)
{
	struct tree tr;
	vt_simwork w;
	struct vt_sim_params p;
	vt_sim_result r;
	vt_err e;

	tree_build(&tr, 4, 4, 4, VT_QDR);
	ck_assert_int_eq(vt_simwork_navaridas(&w, "BT", 16, 4096, &e), 0);
	ck_assert_uint_eq(w.nmsg, 15);
	ck_assert_uint_eq(w.nstages, 4);
	vt_sim_defaults(&p);
	ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &r, &e), 0);
	ck_assert_uint_eq(r.msgs_done, 15);
	/* each level waits for the one below: four message times in a row at least */
	for (uint32_t s = 1; s < 4; s++)
		ck_assert_uint_gt(r.stage_end_ps[s], r.stage_end_ps[s - 1] + 4096 * 250);
	vt_sim_result_free(&r);
	vt_simwork_free(&w);
	ck_assert_int_eq(vt_simwork_navaridas(&w, "WF", 16, 1000, &e), 0);
	ck_assert_uint_eq(w.msg_bytes, 64);
	ck_assert_uint_eq(w.nstages, 16 * 6); /* 16 rounds of the 6-stage forward sweep */
	vt_simwork_free(&w);
	ck_assert_int_eq(vt_simwork_navaridas(&w, "XX", 16, 1000, &e), -1);
	ck_assert_str_eq(e.msg, "unknown causal workload 'XX' (2W, 3W, 2M, 3M, BU, BT, WF)");
	tree_free(&tr);
}
END_TEST

START_TEST(barrier_is_slower_than_back_to_back)
{
	struct tree tr;
	vt_simwork w;
	struct vt_sim_params p;
	vt_sim_result a, b;
	vt_err e;

	tree_build(&tr, 4, 4, 4, VT_QDR);
	vt_sim_defaults(&p);
	shift_work(&w, 16, 2048, VT_WORK_BARRIER);
	ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &a, &e), 0);
	vt_simwork_free(&w);
	shift_work(&w, 16, 2048, VT_WORK_B2B);
	ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &b, &e), 0);
	/* a barrier adds at least the path latency per stage */
	ck_assert_uint_gt(a.end_ps, b.end_ps + 14 * 200000);
	for (uint32_t s = 1; s < a.nstages; s++)
		ck_assert_uint_gt(a.stage_end_ps[s], a.stage_end_ps[s - 1]);
	vt_sim_result_free(&a);
	vt_sim_result_free(&b);
	vt_simwork_free(&w);
	tree_free(&tr);
}
END_TEST

START_TEST(open_loop_accepts_what_is_offered)
{
	struct tree tr;
	vt_simwork w;
	struct vt_sim_params p;
	vt_sim_result r;
	vt_err e;

	tree_build(&tr, 4, 4, 4, VT_QDR);
	vt_sim_defaults(&p);
	ck_assert_int_eq(vt_simwork_open(&w, 16, 0.3, 200000000, 2048, 1, 7, &e), 0);
	ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &r, &e), 0);
	ck_assert_int_eq(r.deadlock, 0);
	ck_assert_uint_eq(r.bytes_delivered, r.bytes_injected);
	ck_assert(r.offered_frac > 0.25 && r.offered_frac < 0.35);
	ck_assert(r.accepted_frac > r.offered_frac - 0.02 && r.accepted_frac <= r.offered_frac);
	vt_sim_result_free(&r);
	ck_assert_int_eq(vt_simwork_open(&w, 16, 0, 1, 2048, 1, 7, &e), -1);
	ck_assert_str_eq(e.msg, "offered load 0 out of range (0, 4]");
	tree_free(&tr);
}
END_TEST

START_TEST(vl_from_service_level)
{
	struct vt_sim_params p;

	vt_sim_defaults(&p);
	p.nvl = 4;
	/* SL 0 unless asked: every message on VL 0 however many VLs there are */
	ck_assert_uint_eq(vt_sim_vl(&p, 0, 1), 0);
	ck_assert_uint_eq(vt_sim_vl(&p, 5, 2), 0);
	p.sl = 6; /* uniform SL-to-VL table: VL = SL mod VLs */
	ck_assert_uint_eq(vt_sim_vl(&p, 0, 1), 2);
	p.sl_spread = 1; /* (src + dst) mod VLs */
	ck_assert_uint_eq(vt_sim_vl(&p, 0, 1), 1);
	ck_assert_uint_eq(vt_sim_vl(&p, 5, 2), 3);
	ck_assert_uint_eq(vt_sim_vl(&p, 7, 9), 0);
	p.nvl = 1;
	ck_assert_uint_eq(vt_sim_vl(&p, 7, 8), 0);
}
END_TEST

/* One run's accounting: every message of `size` bytes injected and delivered once. */
static void assert_conserved(const vt_sim_result *r, uint64_t msgs, uint32_t size, unsigned mtu)
{
	uint64_t pk = msgs * ((size + mtu - 1) / mtu);

	ck_assert_int_eq(r->deadlock, 0);
	ck_assert_uint_eq(r->msgs, msgs);
	ck_assert_uint_eq(r->msgs_done, msgs);
	ck_assert_uint_eq(r->bytes_injected, msgs * size);
	ck_assert_uint_eq(r->bytes_delivered, msgs * size);
	ck_assert_uint_eq(r->pkts_injected, pk);
	ck_assert_uint_eq(r->pkts_delivered, pk);
	ck_assert_uint_eq(r->credit_violations, 0);
}

/*
 * Bytes injected = bytes delivered = messages x size in every release mode,
 * for sizes around one and two MTUs (a b2b message of one packet was once
 * sent twice when the HCA was idle), on a 2:1 tree where queues back up.
 */
START_TEST(conservation_every_mode_around_mtu)
{
	static const uint32_t sizes[] = {1, 64, 1000, 2047, 2048, 2049, 4095, 4096, 4097, 6000};
	static const enum vt_simwork_mode modes[] = {VT_WORK_B2B, VT_WORK_BARRIER, VT_WORK_CAUSAL,
						     VT_WORK_BURST};
	struct tree tr;
	vt_simwork w;
	struct vt_sim_params p;
	vt_sim_result r;
	vt_err e;
	const uint32_t n = 16;

	tree_build(&tr, 4, 4, 2, VT_QDR);
	vt_sim_defaults(&p);
	for (unsigned m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
		for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			shift_work(&w, n, sizes[i], modes[m]);
			/* static, per-packet and per-flow adaptive routing alike */
			for (p.ar = VT_AR_STATIC; p.ar <= VT_AR_FLOW; p.ar++) {
				ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &r, &e), 0);
				assert_conserved(&r, n * (n - 1), sizes[i], p.mtu);
				vt_sim_result_free(&r);
			}
			p.ar = VT_AR_STATIC;
			vt_simwork_free(&w);
		}
	/* open loop: whatever was drawn, each message once */
	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ck_assert_int_eq(vt_simwork_open(&w, n, 0.5, 20000000, sizes[i], 0, 3, &e), 0);
		ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &r, &e), 0);
		ck_assert_uint_gt(r.msgs, 0);
		assert_conserved(&r, r.msgs, sizes[i], p.mtu);
		vt_sim_result_free(&r);
		vt_simwork_free(&w);
	}
	tree_free(&tr);
}
END_TEST

/* Packets leaf 0 sent up to spine j (the leaf's port h + 1 + j). */
static uint64_t up_pkts(const struct tree *tr, const vt_sim_result *r, unsigned h, unsigned j)
{
	uint32_t port = vt_port_index(tr->f, 0, h + 1 + j);

	for (uint32_t i = 0; i < r->nlinks; i++)
		if (r->links[i].port == port)
			return r->links[i].pkts;
	return UINT64_MAX;
}

/*
 * Two spines, destination-mod-2 tables: hosts 0 and 2 sending to hosts 4 and
 * 6 at once share spine 0 both ways. Adaptive routing sends the second
 * message's packets over spine 1 when spine 0's port has a queue: about half
 * the time. Per flow, each message keeps to one spine; per packet they mix.
 * On a shift the tables route without conflict, so adaptive routing changes
 * nothing (the LFT port is kept while it is free).
 */
START_TEST(adaptive_routing_spreads_a_hot_spine)
{
	struct tree tr;
	vt_simwork w = {0};
	struct vt_sim_params p;
	vt_sim_result st, ar;
	vt_err e;
	const uint32_t m = 64 * 1024;

	tree_build(&tr, 4, 4, 2, VT_QDR);
	w.nranks = 16;
	w.msg_bytes = m;
	w.mode = VT_WORK_BURST;
	ck_assert_int_eq(vt_simwork_add(&w, 0, 4, 0, &e), 0);
	ck_assert_int_eq(vt_simwork_add(&w, 2, 6, 0, &e), 0);
	vt_sim_defaults(&p);
	ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &st, &e), 0);
	ck_assert_uint_eq(up_pkts(&tr, &st, 4, 0), 64);
	ck_assert_uint_eq(up_pkts(&tr, &st, 4, 1), 0);
	/* two messages one after the other on spine 0: 2 x 32 x 2074 bytes at 250 ps */
	ck_assert_uint_ge(st.end_ps, 2ull * 32 * 2074 * 250);
	p.ar = VT_AR_PACKET;
	ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &ar, &e), 0);
	assert_conserved(&ar, 2, m, p.mtu);
	ck_assert_uint_eq(up_pkts(&tr, &ar, 4, 0) + up_pkts(&tr, &ar, 4, 1), 64);
	ck_assert_uint_gt(up_pkts(&tr, &ar, 4, 1), 16);
	ck_assert_uint_lt(ar.end_ps, st.end_ps * 7 / 10);
	vt_sim_result_free(&ar);
	p.ar = VT_AR_FLOW;
	ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &ar, &e), 0);
	assert_conserved(&ar, 2, m, p.mtu);
	ck_assert_uint_eq(up_pkts(&tr, &ar, 4, 0), 32);
	ck_assert_uint_eq(up_pkts(&tr, &ar, 4, 1), 32);
	ck_assert_uint_lt(ar.end_ps, st.end_ps * 6 / 10);
	vt_sim_result_free(&ar);
	vt_sim_result_free(&st);
	vt_simwork_free(&w);
	/* four spines for four hosts a leaf: the shift is conflict-free, unchanged */
	tree_free(&tr);
	tree_build(&tr, 4, 4, 4, VT_QDR);
	shift_work(&w, 16, 8192, VT_WORK_B2B);
	p.ar = VT_AR_STATIC;
	ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &st, &e), 0);
	for (p.ar = VT_AR_PACKET; p.ar <= VT_AR_FLOW; p.ar++) {
		ck_assert_int_eq(vt_sim_run(tr.f, &tr.t, &tr.o, &w, &p, &ar, &e), 0);
		ck_assert_uint_eq(ar.end_ps, st.end_ps);
		ck_assert_uint_eq(ar.events, st.events);
		vt_sim_result_free(&ar);
	}
	vt_sim_result_free(&st);
	vt_simwork_free(&w);
	tree_free(&tr);
}
END_TEST

static Suite *sim_suite(void)
{
	Suite *s = suite_create("sim");
	TCase *tc = tcase_create("model");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, queue_orders_by_time_then_insertion);
	tcase_add_test(tc, single_packet_time_exact);
	tcase_add_test(tc, navaridas_padding_and_hop_exact);
	tcase_add_test(tc, shift_conserves_and_meets_link_bound);
	tcase_add_test(tc, flit_mode_agrees_with_packet_mode);
	tcase_add_test(tc, credit_loop_is_a_deadlock);
	tcase_add_test(tc, routing_errors);
	tcase_add_test(tc, causal_binary_tree);
	tcase_add_test(tc, barrier_is_slower_than_back_to_back);
	tcase_add_test(tc, open_loop_accepts_what_is_offered);
	tcase_add_test(tc, vl_from_service_level);
	tcase_add_test(tc, conservation_every_mode_around_mtu);
	tcase_add_test(tc, adaptive_routing_spreads_a_hot_spine);
	suite_add_tcase(s, tc);
	return s;
}

VT_TEST_MAIN(sim_suite)
