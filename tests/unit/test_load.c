/* SPDX-License-Identifier: MIT */
/*
 * The loaders against fabrics captured from ibsim (tests/data/load-*, made by
 * tests/data/load-capture.sh): the net files offline, ibnetdiscover's text in
 * its plain, -g, -f and -s forms, and the libibnetdisc cache of the same sweep.
 */
#include "io/vt_load.h"
#include "vt_test.h"

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static vt_fabric *load_ok(const char *rel)
{
	vt_err e = {0};
	vt_fabric *f = NULL;

	if (vt_load(vt_test_path(rel), &f, &e))
		ck_abort_msg("%s: %s", rel, e.msg);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->finished, 1);
	return f;
}

static vt_fabric *mem_ok(const char *text)
{
	vt_err e = {0};
	vt_fabric *f = NULL;

	if (vt_load_text_mem(text, strlen(text), "t", &f, &e))
		ck_abort_msg("%s", e.msg);
	return f;
}

/* Loads text (len bytes) that must fail and checks the whole message. */
static void mem_fails_n(const char *text, size_t len, const char *msg)
{
	vt_err e = {0};
	vt_fabric *f = (vt_fabric *)&e; /* must come back NULL */

	ck_assert_int_eq(vt_load_text_mem(text, len, "t", &f, &e), -1);
	ck_assert_ptr_null(f);
	ck_assert_str_eq(e.msg, msg);
}

static void mem_fails(const char *text, const char *msg)
{
	mem_fails_n(text, strlen(text), msg);
}

static uint32_t node(const vt_fabric *f, uint64_t guid)
{
	uint32_t n = vt_fabric_node_by_guid(f, guid);

	ck_assert_msg(n != VT_NONE, "no node 0x%llx", (unsigned long long)guid);
	return n;
}

static const struct vt_port *peer(const vt_fabric *f, uint32_t n, unsigned p)
{
	const struct vt_port *pt = vt_port(f, n, p);

	ck_assert_msg(pt->peer != VT_NONE, "%s port %u unconnected", f->nodes[n].id, p);
	return &f->ports[pt->peer];
}

/*
 * Same nodes (by GUID), descriptions, port GUIDs, links, widths and speeds;
 * LIDs too when with_lids.
 */
static void assert_same(const vt_fabric *a, const vt_fabric *b, int with_lids)
{
	ck_assert_uint_eq(a->nnodes, b->nnodes);
	ck_assert_uint_eq(a->nswitches, b->nswitches);
	ck_assert_uint_eq(vt_fabric_count_links(a), vt_fabric_count_links(b));
	for (uint32_t i = 0; i < a->nnodes; i++) {
		const struct vt_node *x = &a->nodes[i];
		uint32_t j = node(b, x->guid);
		const struct vt_node *y = &b->nodes[j];

		ck_assert_str_eq(x->desc, y->desc);
		ck_assert_uint_eq(x->type, y->type);
		ck_assert_uint_eq(x->nports, y->nports);
		ck_assert_uint_eq(x->sysguid, y->sysguid);
		for (unsigned p = 0; p <= x->nports; p++) {
			const struct vt_port *px = vt_port(a, i, p), *py = vt_port(b, j, p);

			ck_assert_uint_eq(px->guid, py->guid);
			if (with_lids) {
				ck_assert_uint_eq(px->lid, py->lid);
				ck_assert_uint_eq(px->lmc, py->lmc);
			}
			ck_assert_uint_eq(px->peer == VT_NONE, py->peer == VT_NONE);
			if (px->peer == VT_NONE)
				continue;
			ck_assert_uint_eq(a->nodes[a->ports[px->peer].node].guid,
					  b->nodes[b->ports[py->peer].node].guid);
			ck_assert_uint_eq(a->ports[px->peer].num, b->ports[py->peer].num);
			ck_assert_uint_eq(px->width, py->width);
			ck_assert_uint_eq(px->speed, py->speed);
		}
	}
}

START_TEST(net_file_gets_ibsim_guids)
{
	vt_fabric *f = load_ok("tests/data/load-2sw.net");
	uint32_t a, b, h1, h2, h3, h4;

	ck_assert_uint_eq(f->nnodes, 6);
	ck_assert_uint_eq(f->nswitches, 2);
	ck_assert_uint_eq(vt_fabric_count_links(f), 6);
	/* the GUIDs ibsim gave these nodes (tests/data/load-2sw.ibnd) */
	a = node(f, 0x200000);
	b = node(f, 0x200001);
	h1 = node(f, 0x100000);
	h2 = node(f, 0x100003);
	h3 = node(f, 0x100006);
	h4 = node(f, 0x100009);
	ck_assert_str_eq(f->nodes[a].id, "sw-a");
	ck_assert_str_eq(f->nodes[b].desc, "sw-b");
	ck_assert_str_eq(f->nodes[h4].id, "hca-4");
	ck_assert_uint_eq(vt_port(f, h1, 1)->guid, 0x100001);
	ck_assert_uint_eq(vt_port(f, h2, 2)->guid, 0); /* down ports carry no GUID */
	ck_assert_uint_eq(vt_port(f, h3, 1)->guid, 0x100007);
	ck_assert_uint_eq(vt_fabric_port_by_guid(f, 0x10000a), vt_port_index(f, h4, 1));
	/* no LIDs in a net file: vt_fabric_finish numbers them in record order */
	ck_assert_uint_eq(vt_port(f, a, 0)->lid, 1);
	ck_assert_uint_eq(vt_port(f, b, 0)->lid, 2);
	ck_assert_uint_eq(vt_port(f, h1, 1)->lid, 3);
	ck_assert_uint_eq(vt_port(f, h4, 1)->lid, 6);
	ck_assert_uint_eq(vt_port(f, h4, 2)->lid, 0);
	ck_assert_uint_eq(peer(f, a, 5)->node, b);
	ck_assert_uint_eq(peer(f, a, 5)->num, 5);
	ck_assert_uint_eq(vt_port(f, a, 5)->width, 4);
	ck_assert_uint_eq(vt_port(f, a, 5)->speed, VT_SDR);
	vt_fabric_free(f);
}
END_TEST

START_TEST(dump_keeps_lids_and_descriptions)
{
	vt_fabric *f = load_ok("tests/data/load-2sw.ibnd");
	uint32_t a = node(f, 0x200000), b = node(f, 0x200001), h2 = node(f, 0x100003);

	ck_assert_str_eq(f->nodes[a].id, "S-0000000000200000");
	ck_assert_str_eq(f->nodes[a].desc, "sw-a");
	ck_assert_str_eq(f->nodes[h2].desc, "hca-2");
	ck_assert_uint_eq(f->nodes[b].line, 10);
	ck_assert_uint_eq(vt_port(f, a, 0)->lid, 1);
	ck_assert_uint_eq(vt_port(f, b, 0)->lid, 3);
	ck_assert_uint_eq(vt_port(f, h2, 1)->lid, 56);
	ck_assert_uint_eq(vt_port(f, h2, 1)->guid, 0x100004);
	ck_assert_uint_eq(vt_fabric_port_by_lid(f, 60), vt_port_index(f, node(f, 0x100009), 1));
	ck_assert_uint_eq(f->max_lid, 60);
	ck_assert_uint_eq(peer(f, b, 2)->node, node(f, 0x100009));
	vt_fabric_free(f);
}
END_TEST

/* The offline load of a net file and ibsim's live view of it agree. */
START_TEST(net_file_matches_live_ibsim)
{
	vt_fabric *net = load_ok("tests/data/load-2sw.net");
	vt_fabric *live = load_ok("tests/data/load-2sw-nosm.ibnd");

	assert_same(net, live, 0);
	vt_fabric_free(net);
	vt_fabric_free(live);
	net = load_ok("tests/data/load-2lvl.net");
	live = load_ok("tests/data/load-2lvl-nosm.ibnd");
	assert_same(net, live, 0);
	vt_fabric_free(net);
	vt_fabric_free(live);
}
END_TEST

START_TEST(net_options_set_width_speed_and_guids)
{
	vt_fabric *f = load_ok("tests/data/load-2lvl.net");
	uint32_t leaf1 = vt_fabric_node_by_id(f, "leaf1"), leaf2 = vt_fabric_node_by_id(f, "leaf2");
	uint32_t spine1 = vt_fabric_node_by_id(f, "spine1"),
		 h15 = vt_fabric_node_by_id(f, "host15");

	ck_assert_uint_eq(f->nnodes, 21);
	ck_assert_uint_eq(vt_fabric_count_links(f), 28);
	ck_assert_uint_eq(f->nodes[spine1].guid, 0x2c90000000100);
	ck_assert_uint_eq(f->nodes[spine1].sysguid, 0x2c900000001ff);
	ck_assert_str_eq(f->nodes[spine1].desc, "spine 1 of the core");
	ck_assert_uint_eq(f->nodes[vt_fabric_node_by_id(f, "spine2")].sysguid, 0x2c90000000101);
	ck_assert_uint_eq(f->nodes[h15].guid, 0x2c9000010001c);
	ck_assert_uint_eq(vt_port(f, h15, 2)->guid, 0x2c9000010001e);
	/* w=1 against w=3: 1x; s=3 on both ends: DDR; defaults 4x SDR */
	ck_assert_uint_eq(vt_port(f, leaf1, 5)->width, 1);
	ck_assert_uint_eq(vt_port(f, leaf1, 5)->speed, VT_SDR);
	ck_assert_uint_eq(vt_port(f, leaf2, 5)->width, 4);
	ck_assert_uint_eq(vt_port(f, leaf2, 5)->speed, VT_DDR);
	ck_assert_uint_eq(vt_port(f, spine1, 2)->speed, VT_DDR);
	ck_assert_uint_eq(vt_port(f, h15, 1)->speed, VT_SDR);
	ck_assert_uint_eq(vt_port(f, h15, 1)->width, 4);
	vt_fabric_free(f);
}
END_TEST

START_TEST(cache_equals_text_of_same_sweep)
{
	static const char *const names[] = {"load-2sw", "load-2lvl"};

	for (unsigned i = 0; i < 2; i++) {
		char p1[64], p2[64];
		vt_fabric *t, *c;
		vt_err e;

		snprintf(p1, sizeof(p1), "tests/data/%s.ibnd", names[i]);
		snprintf(p2, sizeof(p2), "tests/data/%s.cache", names[i]);
		t = load_ok(p1);
		c = NULL;
		ck_assert_int_eq(vt_load_cache(vt_test_path(p2), &c, &e), 0);
		assert_same(t, c, 1);
		/* ids as ibnetdiscover prints them */
		ck_assert_str_eq(c->nodes[node(c, 0x200000)].id, "S-0000000000200000");
		ck_assert_ptr_null(c->link_line); /* a cache has no lines */
		ck_assert_ptr_nonnull(t->link_line);
		vt_fabric_free(t);
		vt_fabric_free(c);
	}
}
END_TEST

START_TEST(cache_lids_widths_speeds)
{
	vt_fabric *f = load_ok("tests/data/load-2lvl.cache"); /* vt_load detects the cache */
	uint32_t leaf1 = node(f, 0x200000), leaf2 = node(f, 0x200001);
	uint32_t h15 = node(f, 0x2c9000010001c);

	ck_assert_uint_eq(f->nnodes, 21);
	ck_assert_uint_eq(f->nswitches, 6);
	ck_assert_uint_eq(vt_fabric_count_links(f), 28);
	ck_assert_str_eq(f->nodes[leaf1].desc, "leaf1");
	ck_assert_uint_eq(vt_port(f, node(f, 0x2c90000000100), 0)->lid, 2);
	ck_assert_uint_eq(vt_port(f, node(f, 0x200003), 0)->lid, 9);
	ck_assert_uint_eq(vt_port(f, h15, 1)->lid, 71);
	ck_assert_uint_eq(vt_port(f, h15, 2)->lid, 72);
	/* OpenSM's sweep raised the host links to QDR and the 1x link to 4x */
	ck_assert_uint_eq(vt_port(f, leaf1, 5)->width, 4);
	ck_assert_uint_eq(vt_port(f, leaf2, 5)->speed, VT_DDR);
	ck_assert_uint_eq(vt_port(f, h15, 1)->speed, VT_QDR);
	vt_fabric_free(f);
}
END_TEST

/*
 * libibnetdisc (live and cache): a switch port cabled to a CA port, each end's
 * PortInfo LinkWidthActive, LinkSpeedActive, LinkSpeedExtActive and Mellanox's
 * extended LinkSpeedActive (1: FDR10) given (0: names none).
 */
struct ibnd_end {
	unsigned w, s, ext, mlnx;
};

static void ibnd_set(ibnd_port_t *p, const struct ibnd_end *x)
{
	mad_set_field(p->info, 0, IB_PORT_LINK_WIDTH_ACTIVE_F, x->w);
	mad_set_field(p->info, 0, IB_PORT_LINK_SPEED_ACTIVE_F, x->s);
	mad_set_field(p->info, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F, x->ext);
	mad_set_field(p->ext_info, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F, x->mlnx);
}

static vt_fabric *ibnd_ends(struct ibnd_end swe, struct ibnd_end cae)
{
	ibnd_node_t *sw = calloc(1, sizeof(*sw)), *ca = calloc(1, sizeof(*ca));
	ibnd_port_t *sp = calloc(2, sizeof(*sp)), *cp = calloc(1, sizeof(*cp));
	ibnd_port_t *swp[2] = {&sp[0], &sp[1]}, *cap[2] = {NULL, cp};
	ibnd_fabric_t fab = {.switches = sw, .ch_adapters = ca};
	vt_fabric *f = NULL;
	vt_err e;

	*sw = (ibnd_node_t){.guid = 0x100,
			    .type = IB_NODE_SWITCH,
			    .numports = 1,
			    .ports = swp,
			    .smalid = 1,
			    .nodedesc = "sw"};
	*ca = (ibnd_node_t){
		.guid = 0xa0, .type = IB_NODE_CA, .numports = 1, .ports = cap, .nodedesc = "h"};
	sp[0] = (ibnd_port_t){.guid = 0x100, .portnum = 0, .node = sw};
	sp[1] = (ibnd_port_t){.guid = 0x100, .portnum = 1, .node = sw, .remoteport = cp};
	*cp = (ibnd_port_t){
		.guid = 0xa1, .portnum = 1, .node = ca, .remoteport = &sp[1], .base_lid = 2};
	/* IsExtendedSpeedsSupported: the switch says so on port 0, a CA on its port */
	mad_set_field(sp[0].info, 0, IB_PORT_CAPMASK_F, 0x4000);
	mad_set_field(cp->info, 0, IB_PORT_CAPMASK_F, 0x4000);
	ibnd_set(&sp[1], &swe);
	ibnd_set(cp, &cae);
	if (vt_load_ibnd(&fab, "ibnd", &f, &e))
		ck_abort_msg("%s", e.msg);
	free(sw);
	free(ca);
	free(sp);
	free(cp);
	return f;
}

static vt_fabric *ibnd_pair(unsigned sw_w, unsigned sw_ext, unsigned ca_w, unsigned ca_ext)
{
	return ibnd_ends((struct ibnd_end){.w = sw_w, .ext = sw_ext},
			 (struct ibnd_end){.w = ca_w, .ext = ca_ext});
}

/* What one end's PortInfo does not name the other end's does, whichever end links first. */
START_TEST(ibnd_rate_named_on_one_end)
{
	static const struct {
		unsigned sw_w, sw_ext, ca_w, ca_ext, width;
		enum vt_speed speed;
	} c[] = {
		{0, 0, 16, 4, 2, VT_HDR},	   /* the switch end (linked from) names nothing */
		{16, 4, 0, 0, 2, VT_HDR},	   /* the CA end names nothing */
		{0, 0, 0, 0, 0, VT_SPEED_UNKNOWN}, /* neither: unknown (vartree-sim: 4x SDR) */
	};

	for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		vt_fabric *f = ibnd_pair(c[i].sw_w, c[i].sw_ext, c[i].ca_w, c[i].ca_ext);
		const struct vt_port *p = vt_port(f, node(f, 0x100), 1);

		ck_assert_uint_eq(p->peer, vt_port_index(f, node(f, 0xa0), 1));
		ck_assert_uint_eq(p->width, c[i].width);
		ck_assert_uint_eq(p->speed, c[i].speed);
		ck_assert_uint_eq(f->ports[p->peer].width, c[i].width);
		ck_assert_uint_eq(f->ports[p->peer].speed, c[i].speed);
		vt_fabric_free(f);
	}
}
END_TEST

/*
 * Two ends whose PortInfo differ: the lower width and the lower speed, each
 * whichever end states it, as the text loader takes two rate tokens; QDR
 * against FDR10 is FDR10 (an end without Mellanox's extended PortInfo).
 * PortInfo widths: 1 1x, 2 4x, 16 2x; speeds: 4 QDR (FDR10 with mlnx 1),
 * extended 2 EDR, 4 HDR.
 */
START_TEST(ibnd_rate_disagree)
{
	static const struct {
		struct ibnd_end sw, ca;
		unsigned width;
		enum vt_speed speed;
	} c[] = {
		{{2, 0, 4, 0}, {1, 0, 2, 0}, 1, VT_EDR},  /* switch 4x HDR, CA 1x EDR */
		{{1, 0, 2, 0}, {2, 0, 4, 0}, 1, VT_EDR},  /* switch 1x EDR, CA 4x HDR */
		{{1, 0, 4, 0}, {2, 0, 2, 0}, 1, VT_EDR},  /* lower width one end, speed the other */
		{{2, 0, 4, 0}, {16, 0, 4, 0}, 2, VT_HDR}, /* 4x against 2x: 2x */
		{{0, 0, 4, 0}, {1, 0, 2, 0}, 1, VT_EDR},  /* width named by the CA only */
		{{2, 4, 0, 1}, {2, 4, 0, 0}, 4, VT_FDR10},
		{{2, 4, 0, 0}, {2, 4, 0, 1}, 4, VT_FDR10},
		{{2, 4, 0, 1}, {2, 0, 1, 0}, 4, VT_FDR10}, /* FDR10 against FDR */
	};

	for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		vt_fabric *f = ibnd_ends(c[i].sw, c[i].ca);
		const struct vt_port *p = vt_port(f, node(f, 0x100), 1);

		ck_assert_msg(p->width == c[i].width && p->speed == c[i].speed, "case %u: %u %d", i,
			      p->width, (int)p->speed);
		ck_assert_uint_eq(f->ports[p->peer].width, c[i].width);
		ck_assert_uint_eq(f->ports[p->peer].speed, c[i].speed);
		vt_fabric_free(f);
	}
}
END_TEST

START_TEST(dump_variants_give_one_fabric)
{
	vt_fabric *plain = load_ok("tests/data/load-2lvl.ibnd");
	static const char *const v[] = {"tests/data/load-2lvl-g.ibnd",
					"tests/data/load-2lvl-f.ibnd",
					"tests/data/load-2lvl-s.ibnd"};

	for (unsigned i = 0; i < 3; i++) {
		vt_fabric *f = load_ok(v[i]);

		assert_same(plain, f, 1);
		vt_fabric_free(f);
	}
	vt_fabric_free(plain);
}
END_TEST

START_TEST(one_sided_links_and_ibsim_forms)
{
	/* links listed once, default remote port 1, [ext n], (guid), comments, do lines */
	vt_fabric *f = mem_ok("# hand-written\n"
			      "do something ibsim would run\n"
			      "Switch 4 \"s\" # \"top\" enhanced port 0 lid 7 lmc 0\n"
			      "[1][ext 3] \"h\" # to h 12xEDR\n"
			      "# a comment inside the record\n"
			      "[2] \"g\"[2] w=8 s=4\n"
			      "\n"
			      "caguid=0x5000\n"
			      "Ca 2 \"h\"\n"
			      "Hca 2 \"g\" # g's description lid 9\n"
			      "[1](abc) \"s\"[3] # lid 20 lmc 1 \"s\" lid 7 1xFDR10\n"
			      "Rt 1 \"r\"\n"
			      "[1] \"s\"[4]\r\n");
	uint32_t s = vt_fabric_node_by_id(f, "s"), h = vt_fabric_node_by_id(f, "h");
	uint32_t g = vt_fabric_node_by_id(f, "g"), r = vt_fabric_node_by_id(f, "r");

	ck_assert_uint_eq(vt_fabric_count_links(f), 4);
	ck_assert_str_eq(f->nodes[s].desc, "top");
	ck_assert_str_eq(f->nodes[g].desc, "g's description");
	ck_assert_uint_eq(f->nodes[r].type, VT_ROUTER);
	ck_assert_uint_eq(vt_port(f, s, 0)->lid, 7);
	ck_assert_uint_eq(peer(f, s, 1)->node, h);
	ck_assert_uint_eq(peer(f, s, 1)->num, 1);
	ck_assert_uint_eq(vt_port(f, s, 1)->width, 12);
	ck_assert_uint_eq(vt_port(f, s, 1)->speed, VT_EDR);
	ck_assert_uint_eq(peer(f, s, 2)->node, g);
	ck_assert_uint_eq(vt_port(f, s, 2)->width, 12); /* w=8: 12x */
	ck_assert_uint_eq(vt_port(f, s, 2)->speed, VT_QDR);
	ck_assert_uint_eq(peer(f, s, 3)->node, g);
	ck_assert_uint_eq(vt_port(f, s, 3)->width, 1);
	ck_assert_uint_eq(vt_port(f, s, 3)->speed, VT_FDR10);
	ck_assert_uint_eq(peer(f, s, 4)->node, r);
	/* ibsim's GUIDs: caguid base, then 3 per 2-port CA */
	ck_assert_uint_eq(f->nodes[h].guid, 0x5000);
	ck_assert_uint_eq(f->nodes[g].guid, 0x5003);
	ck_assert_uint_eq(vt_port(f, g, 1)->guid, 0xabc);
	ck_assert_uint_eq(vt_port(f, g, 2)->guid, 0x5005);
	ck_assert_uint_eq(vt_port(f, g, 1)->lid, 20);
	ck_assert_uint_eq(vt_port(f, g, 1)->lmc, 1);
	ck_assert_uint_eq(f->nodes[r].line, 12);
	/* each port's link line, for refusals: its own port line, else the far end's */
	ck_assert_uint_eq(f->link_line[vt_port_index(f, s, 1)], 4);
	ck_assert_uint_eq(f->link_line[vt_port_index(f, h, 1)], 4);
	ck_assert_uint_eq(f->link_line[vt_port_index(f, s, 2)], 6);
	ck_assert_uint_eq(f->link_line[vt_port_index(f, g, 2)], 6);
	ck_assert_uint_eq(f->link_line[vt_port_index(f, g, 1)], 11);
	ck_assert_uint_eq(f->link_line[vt_port_index(f, s, 3)], 11);
	ck_assert_uint_eq(f->link_line[vt_port_index(f, r, 1)], 13);
	ck_assert_uint_eq(f->link_line[vt_port_index(f, h, 2)], 0); /* not linked */
	vt_fabric_free(f);
}
END_TEST

START_TEST(guid_bases_relative)
{
	vt_fabric *f = mem_ok("switchguid=0x1000\nswitchguid+0x10\nSwitch 2 \"a\"\n"
			      "[1] \"b\"[1]\n\nSwitch 2 \"b\"\n");

	ck_assert_uint_eq(f->nodes[0].guid, 0x1010);
	ck_assert_uint_eq(f->nodes[1].guid, 0x1011);
	vt_fabric_free(f);
}
END_TEST

/*
 * What gets captured with real dumps: a byte-order mark, a shell prompt, the
 * error lines ibnetdiscover printed (also inside a record), CRLF line ends and
 * unescaped quotes inside descriptions.
 */
START_TEST(captured_noise_and_quotes)
{
	static const char text[] =
		"\xEF\xBB\xBF[root@login1 ~]# ibnetdiscover\r\n"
		"src/query_smp.c:195; umad (DR path slid 0; dlid 0; 0,1,1,31 Attr 0x11:0) bad "
		"status 110; Connection timed out\r\n"
		"#\r\n"
		"switchguid=0x7cfe900300a5a2c0(7cfe900300a5a2c0)\r\n"
		"Switch\t36 \"S-7cfe900300a5a2c0\"\t\t# \"rack \"B\" leaf\" enhanced port 0 lid 3 "
		"lmc 0\r\n"
		"[1]\t\"H-0000000000000a00\"[1](a00)\t\t# \"gpu \"7\" HCA-1\" lid 5 4xEDR\r\n"
		"ibwarn: [4711] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1)\r\n"
		"[2]\t\"H-0000000000000a10\"[1](a10)\t\t# \"plain\" lid 6 4xEDR\r\n"
		"\r\n"
		"caguid=0xa00\r\n"
		"Ca\t1 \"H-0000000000000a00\"\t\t# \"gpu \"7\" HCA-1\"\r\n"
		"[1](a00)\t\"S-7cfe900300a5a2c0\"[1]\t\t# lid 5 lmc 0 \"rack \"B\" leaf\" lid 3 "
		"4xEDR\r\n"
		"\r\n"
		"caguid=0xa10\r\n"
		"Ca\t1 \"H-0000000000000a10\"\t\t# \"plain\"\r\n"
		"[1](a10)\t\"S-7cfe900300a5a2c0\"[2]\t\t# lid 6 lmc 0 \"rack \"B\" leaf\" lid 3 "
		"4xEDR\r\n";
	vt_fabric *f = mem_ok(text);
	uint32_t sw = node(f, 0x7cfe900300a5a2c0ull), ca = node(f, 0xa00);
	char buf[VT_NODE_NAME_MAX];

	ck_assert_uint_eq(f->nnodes, 3);
	ck_assert_uint_eq(vt_fabric_count_links(f), 2);
	ck_assert_str_eq(f->nodes[sw].desc, "rack \"B\" leaf");
	ck_assert_str_eq(f->nodes[ca].desc, "gpu \"7\" HCA-1");
	ck_assert_str_eq(vt_node_name(f, sw, buf, sizeof(buf)),
			 "\"rack \"B\" leaf\" (0x7cfe900300a5a2c0)");
	ck_assert_uint_eq(vt_port(f, sw, 0)->lid, 3);
	ck_assert_uint_eq(vt_port(f, ca, 1)->lid, 5);
	ck_assert_uint_eq(vt_port(f, ca, 1)->guid, 0xa00);
	ck_assert_uint_eq(vt_port(f, ca, 1)->speed, VT_EDR);
	ck_assert_uint_eq(peer(f, sw, 2)->guid, 0xa10);
	vt_fabric_free(f);
}
END_TEST

/*
 * ibdiagnet's topology files: the IBDIAG header, "switchguid=SYSIMG(NODE)",
 * "caguid=SYSIMG(NODE)" and ports written with their label, "[1](1)".
 */
START_TEST(ibdiagnet_topology)
{
	static const char text[] =
		"# This database file was automatically generated by IBDIAG\n"
		"# Running version   : \"IBDIAGNET 2.x\"\n"
		"\n"
		"vendid=0x2c9\n"
		"devid=0xd2f0\n"
		"sysimgguid=0xb8cef60300000000\n"
		"switchguid=0xb8cef60300000000(b8cef60300000010)\n"
		"Switch\t40 \"S-b8cef60300000010\"\t# \"MF0;dir:CS8500/L01/U1\" enhanced port 0 "
		"lid 1 "
		"lmc 0\n"
		"[1](1)\t\"H-b8cef60300000100\"[1](b8cef60300000100)\t# \"h1 HCA-1\" lid 2 4xHDR\n"
		"[2](2)\t\"S-b8cef60300000020\"[3](3)\t# \"MF0;dir:CS8500/S01/U1\" lid 4 4xHDR\n"
		"\n"
		"switchguid=0xb8cef60300000000(b8cef60300000020)\n"
		"Switch\t40 \"S-b8cef60300000020\"\t# \"MF0;dir:CS8500/S01/U1\" enhanced port 0 "
		"lid 4 "
		"lmc 0\n"
		"[3](3)\t\"S-b8cef60300000010\"[2](2)\t# \"MF0;dir:CS8500/L01/U1\" lid 1 4xHDR\n"
		"\n"
		"caguid=0xb8cef60300000100(b8cef60300000100)\n"
		"Ca\t1 \"H-b8cef60300000100\"\t# \"h1 HCA-1\"\n"
		"[1](b8cef60300000100)\t\"S-b8cef60300000010\"[1](1)\t# lid 2 lmc 0 "
		"\"MF0;dir:CS8500/L01/U1\" lid 1 4xHDR\n";
	vt_fabric *f = mem_ok(text);
	uint32_t l1 = node(f, 0xb8cef60300000010ull), s1 = node(f, 0xb8cef60300000020ull);
	uint32_t h = node(f, 0xb8cef60300000100ull);

	ck_assert_uint_eq(f->nnodes, 3);
	ck_assert_uint_eq(vt_fabric_count_links(f), 2);
	/* one chassis: both ASICs carry its system image GUID */
	ck_assert_uint_eq(f->nodes[l1].sysguid, 0xb8cef60300000000ull);
	ck_assert_uint_eq(f->nodes[s1].sysguid, 0xb8cef60300000000ull);
	ck_assert_uint_eq(peer(f, l1, 2)->node, s1);
	ck_assert_uint_eq(peer(f, l1, 2)->num, 3);
	ck_assert_uint_eq(vt_port(f, h, 1)->guid, 0xb8cef60300000100ull);
	ck_assert_uint_eq(vt_port(f, h, 1)->speed, VT_HDR);
	ck_assert_uint_eq(vt_port(f, s1, 0)->lid, 4);
	vt_fabric_free(f);
}
END_TEST

/* Multi-PF hosts in a dump: node GUID = port GUID, consecutive across PFs. */
START_TEST(multi_pf_dump)
{
	static const char text[] =
		"switchguid=0x100(100)\n"
		"Switch 8 \"S-0000000000000100\" # \"leaf\" enhanced port 0 lid 1 lmc 0\n"
		"[1] \"H-00000000000000a0\"[1](a0) # \"host1 mlx5_0\" lid 2 4xEDR\n"
		"[2] \"H-00000000000000a1\"[1](a1) # \"host1 mlx5_1\" lid 3 4xEDR\n"
		"\n"
		"caguid=0xa0\n"
		"Ca 1 \"H-00000000000000a0\" # \"host1 mlx5_0\"\n"
		"[1](a0) \"S-0000000000000100\"[1] # lid 2 lmc 0 \"leaf\" lid 1 4xEDR\n"
		"\n"
		"caguid=0xa1\n"
		"Ca 1 \"H-00000000000000a1\" # \"host1 mlx5_1\"\n"
		"[1](a1) \"S-0000000000000100\"[2] # lid 3 lmc 0 \"leaf\" lid 1 4xEDR\n";
	vt_fabric *f = mem_ok(text);

	ck_assert_uint_eq(vt_port(f, node(f, 0xa0), 1)->guid, 0xa0);
	ck_assert_uint_eq(vt_port(f, node(f, 0xa1), 1)->guid, 0xa1);
	ck_assert_uint_eq(vt_fabric_port_by_guid(f, 0xa1), vt_port_index(f, node(f, 0xa1), 1));
	vt_fabric_free(f);
	mem_fails("switchguid=0x100(100)\n"
		  "Switch 8 \"S-0000000000000100\" # \"leaf\" enhanced port 0 lid 1 lmc 0\n"
		  "[1] \"H-00000000000000a0\"[1](a0) # \"host1 mlx5_0\" lid 2 4xEDR\n"
		  "[2] \"H-00000000000000b0\"[1](a0) # \"host2 mlx5_0\" lid 3 4xEDR\n\n"
		  "caguid=0xa0\nCa 1 \"H-00000000000000a0\" # \"host1 mlx5_0\"\n"
		  "[1](a0) \"S-0000000000000100\"[1] # lid 2 lmc 0 \"leaf\" lid 1 4xEDR\n\n"
		  "caguid=0xb0\nCa 1 \"H-00000000000000b0\" # \"host2 mlx5_0\"\n"
		  "[1](a0) \"S-0000000000000100\"[2] # lid 3 lmc 0 \"leaf\" lid 1 4xEDR\n",
		  "t:11: \"host2 mlx5_0\" (0x00000000000000b0) port 1: GUID 0x00000000000000a0 is "
		  "already the node GUID of \"host1 mlx5_0\" (0x00000000000000a0) (line 7)");
}
END_TEST

/*
 * Every rate ibnetdiscover prints (tests/data/forms/rates.topo): 1x..12x,
 * 2xNDR split ports, XDR, FDR10, --full's "s= w= v=" after the rate, and
 * "??"/"???" for what it cannot name (the named part kept, 4x SDR otherwise).
 */
START_TEST(rate_tokens)
{
	vt_fabric *f = load_ok("tests/data/forms/rates.topo");
	uint32_t s1 = node(f, 0x7cfe900300a0b010ull), s2 = node(f, 0x7cfe900300a0b020ull);
	uint32_t l1 = node(f, 0x7cfe900300a0b030ull), l2 = node(f, 0x7cfe900300a0b040ull);
	static const struct {
		int sw, port;
		unsigned width;
		enum vt_speed speed;
	} want[] = {
		{0, 1, 12, VT_QDR}, {0, 2, 2, VT_NDR}, {1, 1, 8, VT_EDR},   {1, 2, 4, VT_SDR},
		{2, 1, 4, VT_XDR},  {2, 2, 1, VT_SDR}, {3, 1, 4, VT_FDR10}, {3, 2, 4, VT_HDR},
	};
	uint32_t sw[4] = {s1, s2, l1, l2};

	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct vt_port *p = vt_port(f, sw[want[i].sw], (unsigned)want[i].port);

		ck_assert_uint_eq(p->width, want[i].width);
		ck_assert_uint_eq(p->speed, want[i].speed);
	}
	ck_assert_str_eq(vt_speed_name(VT_XDR), "XDR");
	ck_assert_uint_eq(vt_speed_lane_mbps(VT_XDR), 200000);
	ck_assert_uint_eq(vt_speed_from_ib(4, 32, 0), VT_XDR);
	vt_fabric_free(f);
}
END_TEST

/*
 * A link whose rate one end's line cannot name ("??", "???", "?????") runs at
 * what the other end's line names, whichever end is listed first
 * (tests/data/forms/rates-one-end.topo); 4x SDR only when neither names it.
 */
START_TEST(rate_named_on_one_end)
{
	vt_fabric *f = load_ok("tests/data/forms/rates-one-end.topo");
	uint32_t s1 = node(f, 0x7cfe900300a0b010ull), s2 = node(f, 0x7cfe900300a0b020ull);
	uint32_t l1 = node(f, 0x7cfe900300a0b030ull), l2 = node(f, 0x7cfe900300a0b040ull);
	static const struct {
		int sw, port; /* the end listed first (record order) */
		unsigned width;
		enum vt_speed speed;
	} want[] = {
		{0, 1, 4, VT_HDR}, /* 4x??? first, 4xHDR second */
		{0, 2, 4, VT_HDR}, /* 4xHDR first, 4x??? second */
		{1, 1, 1, VT_HDR}, /* ??HDR first, 1xHDR second (was refused: no common width) */
		{1, 2, 1, VT_HDR}, /* 1xHDR first, ??HDR second */
		{2, 1, 2, VT_HDR}, /* ????? on the switch, 2xHDR on the CA */
		{3, 1, 2, VT_HDR}, /* 2xHDR on the switch, ????? on the CA */
	};
	uint32_t sw[4] = {s1, s2, l1, l2};

	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct vt_port *p = vt_port(f, sw[want[i].sw], (unsigned)want[i].port);

		ck_assert_uint_eq(p->width, want[i].width);
		ck_assert_uint_eq(p->speed, want[i].speed);
		ck_assert_uint_eq(f->ports[p->peer].width, want[i].width);
		ck_assert_uint_eq(f->ports[p->peer].speed, want[i].speed);
	}
	vt_fabric_free(f);
	/* neither end names it: 4x SDR */
	f = mem_ok("Switch 2 \"S-1\" # \"sw\" lid 1\n"
		   "[1] \"H-2\"[1] # \"h\" lid 2 ?????\n\n"
		   "Ca 1 \"H-2\" # \"h\"\n"
		   "[1] \"S-1\"[1] # lid 2 \"sw\" lid 1 ?????\n");
	ck_assert_uint_eq(vt_port(f, 0, 1)->width, 4);
	ck_assert_uint_eq(vt_port(f, 0, 1)->speed, VT_SDR);
	vt_fabric_free(f);
}
END_TEST

/* -g grouping (Chassis, Spine/Line sections, [ext n]) and ibdiagnet's split-port labels. */
START_TEST(grouped_and_split_forms)
{
	vt_fabric *f = load_ok("tests/data/forms/grouped.topo");
	uint32_t sp = node(f, 0x0008f10400411a08ull), ln = node(f, 0x0008f10400411a10ull);

	ck_assert_uint_eq(f->nnodes, 8);
	ck_assert_uint_eq(vt_fabric_count_links(f), 8);
	ck_assert_uint_eq(peer(f, sp, 1)->node, ln);
	ck_assert_uint_eq(peer(f, sp, 1)->num, 19);
	ck_assert_uint_eq(f->nodes[sp].sysguid, 0x0008f10400411a0bull);
	ck_assert_uint_eq(vt_port(f, ln, 1)->speed, VT_DDR);
	vt_fabric_free(f);
	f = load_ok("tests/data/forms/ibdiag-split.topo");
	ln = node(f, 0xfc6a1c0300a1c000ull);
	ck_assert_uint_eq(f->nnodes, 8);
	ck_assert_uint_eq(vt_fabric_count_links(f), 8);
	ck_assert_uint_eq(peer(f, ln, 62)->node, node(f, 0xfc6a1c0300a1b100ull));
	ck_assert_uint_eq(peer(f, ln, 62)->num, 1);
	ck_assert_uint_eq(vt_port(f, ln, 61)->width, 2);
	ck_assert_uint_eq(vt_port(f, ln, 61)->speed, VT_NDR);
	ck_assert_uint_eq(vt_port(f, node(f, 0xa088c20300b2c010ull), 1)->guid,
			  0xa088c20300b2c010ull);
	vt_fabric_free(f);
}
END_TEST

/* The 2-switch fabric written as ibdiagnet2.lst, opensm-subnet.lst and db_csv loads alike. */
START_TEST(lst_and_csv_equal_dump)
{
	vt_fabric *ref = load_ok("tests/data/load-2sw.ibnd");
	static const char *const other[] = {"tests/data/load-2sw.lst",
					    "tests/data/load-2sw-opensm-subnet.lst",
					    "tests/data/load-2sw.db_csv"};

	for (unsigned i = 0; i < 3; i++) {
		vt_fabric *f = load_ok(other[i]);

		assert_same(ref, f, 1);
		assert_same(f, ref, 1);
		ck_assert_str_eq(f->nodes[node(f, 0x200001)].id, "S-0000000000200001");
		ck_assert_str_eq(f->nodes[node(f, 0x100003)].id, "H-0000000000100003");
		if (!i) /* sw-a port 2 to hca-3: line 3 */
			ck_assert_uint_eq(f->link_line[vt_port_index(f, node(f, 0x200000), 2)], 3);
		vt_fabric_free(f);
	}
	vt_fabric_free(ref);
}
END_TEST

#define LSW(g, d, lid, pn)                                                                         \
	"{ SW Ports:24 SystemGUID:" g " NodeGUID:" g " PortGUID:" g                                \
	" VenID:0002C9 DevID:BD36 Rev:000000A0 {" d "} LID:" lid " PN:" pn " }"
#define LCA(g, pg, d, lid, pn)                                                                     \
	"{ CA Ports:02 SystemGUID:" g " NodeGUID:" g " PortGUID:" pg                               \
	" VenID:0002C9 DevID:1003 Rev:000000B0 {" d "} LID:" lid " PN:" pn " }"

static void lst_fails(const char *text, const char *msg)
{
	vt_err e = {0};
	vt_fabric *f = (vt_fabric *)&e;

	ck_assert_msg(vt_load_mem(text, strlen(text), "x.lst", &f, &e) == -1, "loads: %s", msg);
	ck_assert_ptr_null(f);
	ck_assert_str_eq(e.msg, msg);
}

START_TEST(lst_forms_and_errors)
{
	/* FDR links, braces inside a description, "-SM", SPD=14; one end listed only */
	static const char ok[] =
		"{ SW-SM Ports:24 SystemGUID:0002c90300001000 NodeGUID:0002c90300001000 PortGUID:"
		"0002c90300001000 VenID:0002C9 DevID:BD36 Rev:000000A0 {leaf {1}} LID:000A PN:0C "
		"} " LCA("0002c90300002000", "0002c90300002001", "n1 HCA-1", "0011",
			 "01") " PHY=4x LOG=ACT SPD=14\r\n";
	vt_err e;
	vt_fabric *f = NULL;
	uint32_t sw, h;

	ck_assert_int_eq(vt_load_mem(ok, sizeof(ok) - 1, "x.lst", &f, &e), 0);
	sw = node(f, 0x0002c90300001000ull);
	h = node(f, 0x0002c90300002000ull);
	ck_assert_str_eq(f->nodes[sw].desc, "leaf {1}");
	ck_assert_uint_eq(f->nodes[sw].nports, 36); /* hex, as OpenSM prints it */
	ck_assert_uint_eq(vt_port(f, sw, 0)->lid, 10);
	ck_assert_uint_eq(vt_port(f, h, 1)->lid, 17);
	ck_assert_uint_eq(vt_port(f, h, 1)->guid, 0x0002c90300002001ull);
	ck_assert_uint_eq(peer(f, sw, 12)->node, h);
	ck_assert_uint_eq(vt_port(f, sw, 12)->width, 4);
	ck_assert_uint_eq(vt_port(f, sw, 12)->speed, VT_FDR);
	vt_fabric_free(f);

	lst_fails(
		"{ SW Ports:24 junk }\n",
		"x.lst:1: cannot parse the first node (expected \"{ SW|CA Ports:N "
		"SystemGUID:G NodeGUID:G PortGUID:G VenID:V DevID:D Rev:R {DESC} LID:L PN:P }\")");
	lst_fails(LSW("0000000000000100", "sw", "0001", "01") " { CA Ports:01 }\n",
		  "x.lst:1: cannot parse the second node");
	lst_fails(LSW("0000000000000100", "sw", "0001",
		      "25") " " LCA("00000000000000a0", "00000000000000a1", "h", "0002",
				    "01") " PHY=4x LOG=ACT SPD=10\n",
		  "x.lst:1: \"sw\" (0x0000000000000100): port 37 out of range 1..36");
	lst_fails(
		LSW("0000000000000100", "sw", "0001", "01") " " LCA(
			"00000000000000a0", "00000000000000a1", "h", "0002",
			"01") " PHY=4x LOG=ACT SPD=10\n" LSW("0000000000000100", "sw", "0001",
							     "02") " " LCA("00000000000000a0",
									   "00000000000000a1", "h",
									   "0002",
									   "01") " PHY=4x LOG=ACT "
										 "SPD=10\n",
		"x.lst:2: \"sw\" (0x0000000000000100) port 2 links to \"h\" (0x00000000000000a0) "
		"port 1, but "
		"line 1 links \"h\" (0x00000000000000a0) port 1 to \"sw\" (0x0000000000000100)");
	lst_fails(
		LSW("0000000000000100", "sw", "0001", "01") " " LCA(
			"00000000000000a0", "00000000000000a1", "h", "0002",
			"01") " PHY=4x LOG=ACT SPD=10\n"
			      "{ SW Ports:08 SystemGUID:00000000000000a0 NodeGUID:00000000000000a0 "
			      "PortGUID:00000000000000a0 VenID:0 DevID:0 Rev:0 {x} LID:0003 PN:01 "
			      "} " LSW("0000000000000100", "sw", "0001",
				       "02") " PHY=4x LOG=ACT SPD=10\n",
		"x.lst:2: \"h\" (0x00000000000000a0): listed with 2 ports as a CA at line 1, now 8 "
		"ports as a switch");
}
END_TEST

/* text (as file name) loads, and both ends of the switch's port sw_port to CA 0xa0 have this rate.
 */
static void rates_are(const char *text, const char *name, unsigned sw_port, unsigned width,
		      enum vt_speed speed)
{
	vt_err e = {0};
	vt_fabric *f = NULL;

	if (vt_load_mem(text, strlen(text), name, &f, &e))
		ck_abort_msg("%s: %s", name, e.msg);
	ck_assert_uint_eq(vt_port(f, node(f, 0x100), sw_port)->width, width);
	ck_assert_uint_eq(vt_port(f, node(f, 0x100), sw_port)->speed, speed);
	ck_assert_uint_eq(vt_port(f, node(f, 0xa0), 1)->width, width);
	ck_assert_uint_eq(vt_port(f, node(f, 0xa0), 1)->speed, speed);
	vt_fabric_free(f);
}

/*
 * ibdiagnet2.lst lists a link from both ends: a rate one line does not name
 * comes from the other, whichever is first; 4x SDR when neither names it.
 */
START_TEST(lst_rate_named_on_one_end)
{
#define LST_SW LSW("0000000000000100", "sw", "0001", "01")
#define LST_H  LCA("00000000000000a0", "00000000000000a1", "h", "0002", "01")
	static const char *const text[] = {
		LST_SW " " LST_H " PHY=?? LOG=ACT SPD=???\n" LST_H " " LST_SW
		       " PHY=2x LOG=ACT SPD=50\n",
		LST_SW " " LST_H " PHY=2x LOG=ACT SPD=50\n" LST_H " " LST_SW
		       " PHY=?? LOG=ACT SPD=???\n",
		LST_SW " " LST_H " PHY=?? LOG=ACT SPD=???\n" LST_H " " LST_SW
		       " PHY=?? LOG=ACT SPD=???\n",
	};
	static const unsigned width[] = {2, 2, 4};
	static const enum vt_speed speed[] = {VT_HDR, VT_HDR, VT_SDR};
#undef LST_SW
#undef LST_H

	for (unsigned i = 0; i < 3; i++)
		rates_are(text[i], "x.lst", 1, width[i], speed[i]);
}
END_TEST

/*
 * A link listed from both ends at two rates is refused, naming both ends and
 * both rates: it runs at one. Parts one end leaves unnamed are not a
 * disagreement (above), nor QDR against FDR10 (FDR10: QDR is what a port
 * without Mellanox's extended PortInfo says of an FDR10 link).
 */
START_TEST(lst_rates_disagree)
{
#define LST_SW LSW("0000000000000100", "sw", "0001", "01")
#define LST_H  LCA("00000000000000a0", "00000000000000a1", "h", "0002", "01")
	static const char *const text[] = {
		LST_SW " " LST_H " PHY=4x LOG=ACT SPD=25\n" LST_H " " LST_SW
		       " PHY=1x LOG=ACT SPD=25\n",
		"# ibdiagnet\n" LST_SW " " LST_H " PHY=4x LOG=ACT SPD=???\n" LST_H " " LST_SW
		" PHY=?? LOG=ACT SPD=25\n\n" LST_SW " " LST_H " PHY=4x LOG=ACT SPD=50\n",
	};
	static const char *const msg[] = {
		"x.lst:2: \"h\" (0x00000000000000a0) port 1 links to \"sw\" (0x0000000000000100) "
		"port 1 at 1x EDR, but line 1 lists that link at 4x EDR",
		"x.lst:5: \"sw\" (0x0000000000000100) port 1 links to \"h\" (0x00000000000000a0) "
		"port 1 at 4x HDR, but line 2 lists that link at 4x EDR",
	};

	for (unsigned i = 0; i < 2; i++)
		lst_fails(text[i], msg[i]);
	rates_are(LST_SW " " LST_H " PHY=4x LOG=ACT SPD=10\n" LST_H " " LST_SW
			 " PHY=4x LOG=ACT SPD=FDR10\n",
		  "x.lst", 1, 4, VT_FDR10);
	rates_are(LST_SW " " LST_H " PHY=4x LOG=ACT SPD=FDR10\n" LST_H " " LST_SW
			 " PHY=?? LOG=ACT SPD=10\n",
		  "x.lst", 1, 4, VT_FDR10);
#undef LST_SW
#undef LST_H
}
END_TEST

static void csv_fails(const char *text, const char *msg)
{
	vt_err e = {0};
	vt_fabric *f = (vt_fabric *)&e;

	ck_assert_int_eq(vt_load_mem(text, strlen(text), "x.db_csv", &f, &e), -1);
	ck_assert_ptr_null(f);
	ck_assert_str_eq(e.msg, msg);
}

#define NODES_H "START_NODES\nNodeDesc,NumPorts,NodeType,SystemImageGUID,NodeGUID,PortGUID\n"
#define PORTS_H                                                                                    \
	"START_PORTS\nNodeGuid,PortGuid,PortNum,LID,LinkWidthActv,LinkSpeedActv,"                  \
	"LinkSpeedExtActv\n"
#define LINKS_H "START_LINKS\nNodeGuid1,PortNum1,NodeGuid2,PortNum2\n"

START_TEST(csv_forms_and_errors)
{
	static const char ok[] =
		"# This database file was automatically generated by IBDIAG\r\n\r\n" NODES_H
		"\"rack \"7\" leaf\",36,2,0x10,0x100,0x100\r\n"
		"\"gpu1 mlx5_0\",1,1,0xa0,0xa0,0xa0\r\nEND_NODES\r\n\r\n" PORTS_H
		"0x100,0x100,0,9,N/A,N/A,N/A\r\n0x100,0x100,3,9,2,1,4\r\n"
		"0xa0,0xa0,1,12,2,1,4\r\nEND_PORTS\r\n\r\n" LINKS_H
		"0x100,3,0xa0,1\r\nEND_LINKS\r\n";
	vt_err e;
	vt_fabric *f = NULL;
	uint32_t sw, h;

	ck_assert_int_eq(vt_load_mem(ok, sizeof(ok) - 1, "x.db_csv", &f, &e), 0);
	sw = node(f, 0x100);
	h = node(f, 0xa0);
	ck_assert_str_eq(f->nodes[sw].desc, "rack \"7\" leaf");
	ck_assert_uint_eq(f->nodes[sw].sysguid, 0x10);
	ck_assert_uint_eq(vt_port(f, sw, 0)->lid, 9);
	ck_assert_uint_eq(vt_port(f, h, 1)->lid, 12);
	ck_assert_uint_eq(vt_port(f, h, 1)->guid, 0xa0); /* a PF: node GUID = port GUID */
	ck_assert_uint_eq(peer(f, sw, 3)->node, h);
	ck_assert_uint_eq(vt_port(f, sw, 3)->speed, VT_HDR);
	vt_fabric_free(f);

	csv_fails("START_PORTS\nNodeGuid\nEND_PORTS\n", "x.db_csv: no NODES section");
	csv_fails(NODES_H "\"a\",8,2,0,0x1,0x1\nEND_NODES\n", "x.db_csv: no PORTS section");
	csv_fails(NODES_H "\"a\",8,5,0,0x1,0x1\nEND_NODES\n",
		  "x.db_csv:3: NODES: node type 5 is not 1 (CA), 2 (switch) or 3 (router)");
	csv_fails("START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n\"a\",8,2,0x1\nEND_NODES\n",
		  "x.db_csv:3: NODES section has no SystemImageGUID column");
	csv_fails(NODES_H "\"a\",8,2,0,0x1,0x1\n",
		  "x.db_csv:3: NODES section not closed by END_NODES");
	csv_fails(NODES_H "\"a\",8,2,0,0x1,0x1\nEND_NODES\n" PORTS_H
			  "0x1,0x1,9,0,2,1,0\nEND_PORTS\n",
		  "x.db_csv:7: \"a\" (0x0000000000000001): port 9 out of range 0..8");
	csv_fails(NODES_H "\"a\",8,2,0,0x1,0x1\nEND_NODES\n" PORTS_H
			  "0x1,0x1,0,1,2,1,0\nEND_PORTS\n" LINKS_H "0x1,1,0x2,1\nEND_LINKS\n",
		  "x.db_csv:11: LINKS: node GUID 0x0000000000000002 is not in NODES");
	csv_fails(NODES_H "\"a\",8,2,0,0x1,0x1\nEND_NODES\n" PORTS_H
			  "0x1,0x1,0,1,2,1,0\nEND_PORTS\n" LINKS_H "0x1,1,0x1,1\nEND_LINKS\n",
		  "x.db_csv:11: \"a\" (0x0000000000000001) port 1 is linked to itself");
	csv_fails(NODES_H "\"a\",8,2,0,0x1,0x1\nEND_NODES\n" PORTS_H
			  "0x1,0x1,zz,1,2,1,0\nEND_PORTS\n",
		  "x.db_csv:7: PORTS: bad PortNum");
}
END_TEST

/*
 * db_csv: the LINKS row names each link once, from either end; a width or
 * speed one end's PORTS row cannot name (N/A) comes from the other end's.
 */
START_TEST(csv_rate_named_on_one_end)
{
#define CSV_HEAD                                                                                   \
	NODES_H "\"sw\",36,2,0x10,0x100,0x100\n\"h\",1,1,0xa0,0xa0,0xa0\nEND_NODES\n" PORTS_H
	static const char *const text[] = {
		CSV_HEAD "0x100,0x100,3,9,N/A,N/A,N/A\n0xa0,0xa0,1,12,16,1,4\nEND_PORTS\n" LINKS_H
			 "0x100,3,0xa0,1\nEND_LINKS\n",
		CSV_HEAD "0x100,0x100,3,9,N/A,N/A,N/A\n0xa0,0xa0,1,12,16,1,4\nEND_PORTS\n" LINKS_H
			 "0xa0,1,0x100,3\nEND_LINKS\n",
		CSV_HEAD
		"0x100,0x100,3,9,N/A,N/A,N/A\n0xa0,0xa0,1,12,N/A,N/A,N/A\nEND_PORTS\n" LINKS_H
		"0xa0,1,0x100,3\nEND_LINKS\n",
	};
	static const unsigned width[] = {2, 2, 4};
	static const enum vt_speed speed[] = {VT_HDR, VT_HDR, VT_SDR};
#undef CSV_HEAD

	for (unsigned i = 0; i < 3; i++)
		rates_are(text[i], "x.db_csv", 3, width[i], speed[i]);
}
END_TEST

/* db_csv: the two ends' PORTS rows give two rates (both named): refused at the LINKS row. */
START_TEST(csv_rates_disagree)
{
#define CSV_HEAD                                                                                   \
	NODES_H "\"sw\",36,2,0x10,0x100,0x100\n\"h\",1,1,0xa0,0xa0,0xa0\nEND_NODES\n" PORTS_H
	static const char differ[] =
		CSV_HEAD "0x100,0x100,3,9,2,1,2\n0xa0,0xa0,1,12,1,1,2\nEND_PORTS\n" LINKS_H
			 "0xa0,1,0x100,3\nEND_LINKS\n";
	/* listed twice, once from each end, at one rate: loads */
	static const char twice[] =
		CSV_HEAD "0x100,0x100,3,9,2,1,2\n0xa0,0xa0,1,12,N/A,N/A,N/A\nEND_PORTS\n" LINKS_H
			 "0x100,3,0xa0,1\n0xa0,1,0x100,3\nEND_LINKS\n";
#undef CSV_HEAD

	csv_fails(differ, "x.db_csv:13: \"h\" (0x00000000000000a0) port 1 at 1x EDR links to "
			  "\"sw\" (0x0000000000000100) port 3 at 4x EDR (their PORTS rows)");
	rates_are(twice, "x.db_csv", 3, 4, VT_EDR);
}
END_TEST

START_TEST(error_missing_and_empty)
{
	vt_err e;
	vt_fabric *f = NULL;
	char want[4200];
	const char *p = vt_test_path("tests/data/load-no-such-file.net");

	snprintf(want, sizeof(want), "%s: cannot open: No such file or directory", p);
	ck_assert_int_eq(vt_load(p, &f, &e), -1);
	ck_assert_ptr_null(f);
	ck_assert_str_eq(e.msg, want);
	ck_assert_int_eq(vt_load_text_file(p, &f, &e), -1);
	ck_assert_str_eq(e.msg, want);
	ck_assert_int_eq(vt_load_cache(p, &f, &e), -1);
	ck_assert_str_eq(e.msg, want);
	mem_fails("", "t:1: no node records (Switch, Ca, Hca or Rt)");
	mem_fails("# only\n\n# comments\n", "t:3: no node records (Switch, Ca, Hca or Rt)");
}
END_TEST

START_TEST(error_truncated)
{
	mem_fails("Switch 4 \"a\"\n[1] \"b\"[",
		  "t:2: \"a\" (0x0000000000200000) port 1: truncated port line (remote port)");
	mem_fails("Switch 4 \"a\"\n[1] \"b",
		  "t:2: \"a\" (0x0000000000200000) port 1: unterminated quote in remote node id");
	mem_fails("Switch 4 \"a\"\n[1]",
		  "t:2: \"a\" (0x0000000000200000) port 1: truncated port line (no remote node)");
	mem_fails("Switch 4 \"a\"\n[1", "t:2: \"a\" (0x0000000000200000): bad port number \"1\"");
	mem_fails("Switch 4 \"a", "t:1: node header: unterminated quote in node id");
	mem_fails("Switch 4", "t:1: node header: missing quoted node id");
	mem_fails("Switch 4 \"a\" # \"desc",
		  "t:1: node \"a\" (0x0000000000200000): unterminated quote in description");
	mem_fails("Switch 4 \"a\"\n[1](12 \"b\"[1]",
		  "t:2: \"a\" (0x0000000000200000): truncated port line");
}
END_TEST

START_TEST(error_port_twice)
{
	mem_fails("Switch 4 \"a\"\n[1] \"b\"[1]\n[1] \"b\"[2]\n",
		  "t:3: \"a\" (0x0000000000200000) port 1 listed twice (first at line 2)");
}
END_TEST

START_TEST(error_ends_disagree)
{
	mem_fails("Switch 4 \"A\"\n[1] \"B\"[1]\n\nSwitch 4 \"B\"\n[1] \"A\"[2]\n",
		  "t:2: \"A\" (0x0000000000200000) port 1 links to \"B\" (0x0000000000200001) "
		  "port 1, but line 5 links it to \"A\" (0x0000000000200000) port 2");
	/* two one-sided lines claiming one port */
	mem_fails("Switch 4 \"A\"\n[1] \"B\"[1]\n[2] \"B\"[1]\n\nSwitch 4 \"B\"\n",
		  "t:3: \"A\" (0x0000000000200000) port 2 links to \"B\" (0x0000000000200001) "
		  "port 1, but line 2 links it to \"A\" (0x0000000000200000) port 1");
	mem_fails("Switch 4 \"A\"\n[1] \"A\"[1]\n",
		  "t:2: \"A\" (0x0000000000200000) port 1 is linked to itself");
	mem_fails("Switch 4 \"A\"\n[1] \"B\"[1] w=1\n\nSwitch 4 \"B\"\n[1] \"A\"[1] w=2\n",
		  "t:2: \"A\" (0x0000000000200000) port 1 and \"B\" (0x0000000000200001) port 1 "
		  "enable no common width");
}
END_TEST

START_TEST(error_bad_port_numbers)
{
	mem_fails("Switch 4 \"a\"\n[x] \"b\"[1]\n",
		  "t:2: \"a\" (0x0000000000200000): bad port number \"x\"");
	mem_fails("Switch 4 \"a\"\n[-1] \"b\"[1]\n",
		  "t:2: \"a\" (0x0000000000200000): bad port number \"-1\"");
	mem_fails("Switch 4 \"a\"\n[9] \"b\"[1]\n",
		  "t:2: \"a\" (0x0000000000200000): port 9 out of range 1..4");
	mem_fails("Switch 4 \"a\"\n[0] \"b\"[1]\n",
		  "t:2: \"a\" (0x0000000000200000): port 0 out of range 1..4");
	mem_fails("Switch 4 \"a\"\n[99999999999999999999] \"b\"[1]\n",
		  "t:2: \"a\" (0x0000000000200000): port 1000000 out of range 1..4");
	mem_fails("Switch 4 \"a\"\n[1] \"b\"[x]\n",
		  "t:2: \"a\" (0x0000000000200000) port 1: bad remote port number");
	mem_fails("Switch 4 \"a\"\n[1] \"b\"[300]\n",
		  "t:2: \"a\" (0x0000000000200000) port 1: remote port 300 out of range 1..254");
	mem_fails(
		"Switch 4 \"a\"\n[1] \"b\"[7]\n\nSwitch 4 \"b\"\n",
		"t:2: \"a\" (0x0000000000200000) port 1: \"b\" (0x0000000000200001) has no port 7 "
		"(it has 4)");
}
END_TEST

START_TEST(error_undefined_node)
{
	mem_fails("Switch 4 \"a\"\n[1] \"b\"[1]\n\nHca 1 \"h\"\n[1] \"zz\"[3]\n",
		  "t:2: \"a\" (0x0000000000200000) port 1: node \"b\" is never defined");
}
END_TEST

START_TEST(error_port_count)
{
	mem_fails("Switch 300 \"a\"\n",
		  "t:1: \"a\" (0x0000000000200000): port count 300 out of range 1..254");
	mem_fails("\nHca 0 \"h\"\n",
		  "t:2: \"h\" (0x0000000000100000): port count 0 out of range 1..254");
	mem_fails("Ca x \"h\"\n", "t:1: node header: bad port count (expected TYPE N \"id\")");
}
END_TEST

START_TEST(error_duplicate_node)
{
	mem_fails("Switch 4 \"a\"\n\nHca 1 \"b\"\n\nHca 1 \"a\"\n",
		  "t:5: \"a\" (0x0000000000100002): node id \"a\" defined twice (first at line 1, "
		  "\"a\" (0x0000000000200000))");
}
END_TEST

START_TEST(error_other_input)
{
	mem_fails("include \"more.net\"\n",
		  "t:1: include is not supported (concatenate the files)");
	mem_fails("Switch 4 \"a\"\n@1 \"x\"\n",
		  "t:2: \"a\" (0x0000000000200000): port aliases ('@') are not supported");
	mem_fails("Switch 4 \"a\"\n\n[1] \"b\"[1]\n", "t:3: port line outside a node record");
	mem_fails("Hca 1 \"a\"\n[1] \"b\"[1] # lid 70000\n",
		  "t:2: \"a\" (0x0000000000100000) port 1: LID 70000 out of range 0..49151");
	mem_fails("Switch 4 \"a\" # \"a\" lid 1 lmc 9\n",
		  "t:1: \"a\" (0x0000000000200000): LMC 9 out of range 0..7");
	mem_fails("Switch 4 \"a\" # \"a\" lid 1\n\nSwitch 4 \"b\" # \"b\" lid 1\n",
		  "t:3: LID 1 of \"b\" (0x0000000000200001) already belongs to \"a\" "
		  "(0x0000000000200000)");
	mem_fails("caguid=0x10\nHca 1 \"a\"\n\ncaguid=0x10\nHca 1 \"b\"\n",
		  "t:5: \"b\" (0x0000000000000010): GUID 0x0000000000000010 is already the node "
		  "GUID of \"a\" (0x0000000000000010) (line 2)");
	mem_fails("switchguid=zz\n", "t:1: GUID assignment: bad number");
	mem_fails("Switch 4 \"a\"\n[1] \"b\"[1] w=40\n",
		  "t:2: \"a\" (0x0000000000200000) port 1: bad width option (expected w=1..31)");
	static const char nul[] = "Switch 4 \"a\"\n[1] \"b\0\"[1]\n";

	mem_fails_n(nul, sizeof(nul) - 1, "t:2: NUL byte in text");
}
END_TEST

START_TEST(error_cache)
{
	vt_err e;
	vt_fabric *f = NULL;
	char want[8400], path[4200];
	const char *p;
	FILE *in, *out;
	char buf[2048];
	size_t n;

	p = vt_test_path("tests/data/load-2sw.net");
	snprintf(want, sizeof(want), "%s: not a libibnetdisc cache file", p);
	ck_assert_int_eq(vt_load_cache(p, &f, &e), -1);
	ck_assert_ptr_null(f);
	ck_assert_str_eq(e.msg, want);
	/* a cache cut short: refused before libibnetdisc sees it, with the cause */
	in = fopen(vt_test_path("tests/data/load-2sw.cache"), "rb");
	ck_assert_ptr_nonnull(in);
	n = fread(buf, 1, sizeof(buf), in);
	fclose(in);
	ck_assert_uint_eq(n, sizeof(buf));
	snprintf(path, sizeof(path), "%s", vt_test_path("build/test-load-cut.cache"));
	out = fopen(path, "wb");
	ck_assert_ptr_nonnull(out);
	ck_assert_uint_eq(fwrite(buf, 1, 1000, out), 1000);
	fclose(out);
	snprintf(want, sizeof(want),
		 "%s: corrupt libibnetdisc cache file: node or port count larger than the file "
		 "holds",
		 path);
	ck_assert_int_eq(vt_load(path, &f, &e), -1);
	ck_assert_ptr_null(f);
	ck_assert_str_eq(e.msg, want);
	remove(path);
}
END_TEST

static Suite *load_suite(void)
{
	Suite *s = suite_create("load");
	TCase *t = tcase_create("load");

	tcase_add_test(t, net_file_gets_ibsim_guids);
	tcase_add_test(t, dump_keeps_lids_and_descriptions);
	tcase_add_test(t, net_file_matches_live_ibsim);
	tcase_add_test(t, net_options_set_width_speed_and_guids);
	tcase_add_test(t, cache_equals_text_of_same_sweep);
	tcase_add_test(t, cache_lids_widths_speeds);
	tcase_add_test(t, ibnd_rate_named_on_one_end);
	tcase_add_test(t, ibnd_rate_disagree);
	tcase_add_test(t, dump_variants_give_one_fabric);
	tcase_add_test(t, one_sided_links_and_ibsim_forms);
	tcase_add_test(t, guid_bases_relative);
	tcase_add_test(t, captured_noise_and_quotes);
	tcase_add_test(t, ibdiagnet_topology);
	tcase_add_test(t, multi_pf_dump);
	tcase_add_test(t, rate_tokens);
	tcase_add_test(t, rate_named_on_one_end);
	tcase_add_test(t, grouped_and_split_forms);
	tcase_add_test(t, lst_and_csv_equal_dump);
	tcase_add_test(t, lst_forms_and_errors);
	tcase_add_test(t, csv_forms_and_errors);
	tcase_add_test(t, lst_rate_named_on_one_end);
	tcase_add_test(t, csv_rate_named_on_one_end);
	tcase_add_test(t, lst_rates_disagree);
	tcase_add_test(t, csv_rates_disagree);
	tcase_add_test(t, error_missing_and_empty);
	tcase_add_test(t, error_truncated);
	tcase_add_test(t, error_port_twice);
	tcase_add_test(t, error_ends_disagree);
	tcase_add_test(t, error_bad_port_numbers);
	tcase_add_test(t, error_undefined_node);
	tcase_add_test(t, error_port_count);
	tcase_add_test(t, error_duplicate_node);
	tcase_add_test(t, error_other_input);
	tcase_add_test(t, error_cache);
	suite_add_tcase(s, t);
	return s;
}

VT_TEST_MAIN(load_suite)
