/* SPDX-License-Identifier: MIT */
/*
 * Forwarding-table files against real output: tests/data/lft/ holds what
 * OpenSM 3.3.23, dump_fts and ibroute (infiniband-diags 44) printed for
 * ibsim's net.2sw2path4hca (LIDs as OpenSM gave them, LMC 0 and LMC 1).
 */
#include "io/vt_lftio.h"
#include "gen/vt_gen.h"
#include "base/vt_io.h"
#include "io/vt_live.h"
#include "vt_test.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* net.2sw2path4hca with the LIDs of the fixtures; Switch1 is switch ordinal 0 */
static vt_fabric *net2sw(unsigned lmc)
{
	static const uint16_t ca_lid[4] = {4, 0x38, 0x3a, 0x3c};
	vt_fabric *f = vt_fabric_new("net.2sw2path4hca");
	uint32_t s1, s2, h[4];
	vt_err e;

	ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 8, 0x200000, "Switch1", NULL, &s1, &e),
			 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 8, 0x200001, "Switch2", NULL, &s2, &e),
			 0);
	for (unsigned i = 0; i < 4; i++) {
		char id[8];

		snprintf(id, sizeof(id), "Hca%u", i + 1);
		ck_assert_int_eq(
			vt_fabric_add_node(f, VT_CA, 2, 0x100000 + 3 * i, id, NULL, &h[i], &e), 0);
		vt_port(f, h[i], 1)->guid = 0x100001 + 3 * i;
		vt_port(f, h[i], 1)->lid = ca_lid[i];
		vt_port(f, h[i], 1)->lmc = (uint8_t)lmc;
	}
	vt_port(f, s1, 0)->lid = 1;
	vt_port(f, s2, 0)->lid = 3;
	ck_assert_int_eq(vt_fabric_connect(f, s1, 1, h[0], 1, 4, VT_SDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, s1, 2, h[2], 1, 4, VT_SDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, s1, 3, s2, 3, 4, VT_SDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, s1, 5, s2, 5, 4, VT_SDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, s2, 1, h[1], 1, 4, VT_SDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, s2, 2, h[3], 1, 4, VT_SDR, &e), 0);
	ck_assert_msg(vt_fabric_finish(f, lmc, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(f->max_lid, lmc ? 0x3d : 0x3c);
	return f;
}

static void read_ok(vt_lfts *t, const vt_fabric *f, const char *rel)
{
	vt_err e;

	ck_assert_msg(vt_lfts_read(t, f, vt_test_path(rel), &e) == 0, "%s", e.msg);
}

/* The LMC 0 tables as OpenSM routed them (opensm-lfts.dump above). */
START_TEST(reads_opensm_dump)
{
	static const uint8_t s1[] = {[1] = 0, [3] = 3, [4] = 1, [0x38] = 3, [0x3a] = 2, [0x3c] = 5};
	static const uint8_t s2[] = {[1] = 3, [3] = 0, [4] = 3, [0x38] = 1, [0x3a] = 5, [0x3c] = 2};
	vt_fabric *f = net2sw(0);
	vt_lfts t;

	read_ok(&t, f, "tests/data/lft/2sw2path4hca.lfts.dump");
	ck_assert_uint_eq(t.nsw, 2);
	ck_assert_uint_eq(t.nlid, 0x3d);
	for (uint32_t lid = 0; lid <= 0x3c; lid++) {
		int used = lid == 1 || lid == 3 || lid == 4 || lid == 0x38 || lid == 0x3a ||
			   lid == 0x3c;

		ck_assert_uint_eq(vt_lft_get(&t, 0, lid), used ? s1[lid] : VT_LFT_NONE);
		ck_assert_uint_eq(vt_lft_get(&t, 1, lid), used ? s2[lid] : VT_LFT_NONE);
	}
	vt_lfts_free(&t);
	vt_fabric_free(f);
}
END_TEST

static void same_tables(const vt_lfts *a, const vt_lfts *b)
{
	ck_assert_uint_eq(a->nsw, b->nsw);
	ck_assert_uint_eq(a->nlid, b->nlid);
	for (uint32_t sw = 0; sw < a->nsw; sw++)
		for (uint32_t lid = 0; lid < a->nlid; lid++)
			ck_assert_msg(vt_lft_get(a, sw, lid) == vt_lft_get(b, sw, lid),
				      "switch %u LID %u: %u vs %u", sw, lid, vt_lft_get(a, sw, lid),
				      vt_lft_get(b, sw, lid));
}

/* dump_fts, opensm.fdbs and ibdiagnet2.fdbs of the same tables read as the dump does. */
/* dump_fts's output as dump_lfts gives it, with an ibwarn line mixed in, read. */
static void dump_lfts_ok(vt_lfts *t, const vt_fabric *f)
{
	static const char
		head[] = "ibwarn: [4242] mad_rpc: _do_madrpc failed; dport (DR path slid 0; "
			 "dlid 0; 0,1,2)\n",
		tail[] = "\n*** WARNING ***: this command has been replaced by dump_fts\n\n\n";
	char buf[65536];
	FILE *fp = fopen("tests/data/lft/2sw2path4hca.dump_fts", "rb");
	size_t n;
	vt_err e;

	ck_assert_ptr_nonnull(fp);
	memcpy(buf, head, sizeof(head) - 1);
	n = sizeof(head) - 1 + fread(buf + sizeof(head) - 1, 1, sizeof(buf) - 200, fp);
	fclose(fp);
	memcpy(buf + n, tail, sizeof(tail) - 1);
	n += sizeof(tail) - 1;
	ck_assert_msg(!vt_lfts_read_mem(t, f, buf, n, "x.dump_lfts", &e), "%s", e.msg);
}

START_TEST(formats_agree)
{
	vt_fabric *f = net2sw(0);
	vt_lfts d, x, r;

	read_ok(&d, f, "tests/data/lft/2sw2path4hca.lfts.dump");
	read_ok(&x, f, "tests/data/lft/2sw2path4hca.dump_fts");
	same_tables(&d, &x);
	vt_lfts_free(&x);
	read_ok(&x, f, "tests/data/lft/2sw2path4hca.fdbs");
	same_tables(&d, &x);
	vt_lfts_free(&x);
	/* ibdiagnet2.fdbs: IBDIAG header, osm_ucast_mgr_ prefix, pLFT 1 entries skipped */
	read_ok(&x, f, "tests/data/lft/2sw2path4hca.ibdiagnet2.fdbs");
	same_tables(&d, &x);
	vt_lfts_free(&x);
	/* dump_lfts: dump_fts, an ibwarn line (stderr in the file too) and its WARNING trailer */
	dump_lfts_ok(&x, f);
	same_tables(&d, &x);
	vt_lfts_free(&x);
	/* ibroute of one switch: that row only */
	read_ok(&r, f, "tests/data/lft/2sw2path4hca.ibroute");
	for (uint32_t lid = 0; lid < d.nlid; lid++) {
		ck_assert_uint_eq(vt_lft_get(&r, 0, lid), vt_lft_get(&d, 0, lid));
		ck_assert_uint_eq(vt_lft_get(&r, 1, lid), VT_LFT_NONE);
	}
	vt_lfts_free(&r);
	vt_lfts_free(&d);
	vt_fabric_free(f);
}
END_TEST

/* A table file that covers some switches only, or another fabric's LIDs, is reported. */
START_TEST(check_coverage_and_lids)
{
	vt_fabric *f = net2sw(0);
	vt_lfts d, r;
	vt_err e;
	char nm[VT_NODE_NAME_MAX], want[512];
	uint32_t lid;

	read_ok(&d, f, "tests/data/lft/2sw2path4hca.lfts.dump");
	ck_assert_int_eq(vt_lfts_check(&d, f, "x.dump", &e), 0);
	/* one ibroute: the other switch has nothing */
	read_ok(&r, f, "tests/data/lft/2sw2path4hca.ibroute");
	ck_assert_int_eq(vt_lfts_check(&r, f, "x.ibroute", &e), -1);
	snprintf(want, sizeof(want), "1 of 2 switches have no table in x.ibroute: first %s",
		 vt_node_name(f, f->switches[1], nm, sizeof(nm)));
	ck_assert_str_eq(e.msg, want);
	vt_lfts_free(&r);
	/* the switches' LIDs swapped, as after a re-sweep */
	lid = vt_port(f, f->switches[0], 0)->lid;
	vt_lft_set(&d, 0, lid, 1);
	ck_assert_int_eq(vt_lfts_check(&d, f, "x.dump", &e), -1);
	snprintf(want, sizeof(want),
		 "LIDs in x.dump do not match the topology: first %s, whose own LID %u leads to "
		 "port 1, not to port 0",
		 vt_node_name(f, f->switches[0], nm, sizeof(nm)), lid);
	ck_assert_str_eq(e.msg, want);
	vt_lft_set(&d, 0, lid, VT_LFT_NONE);
	ck_assert_int_eq(vt_lfts_check(&d, f, "x.dump", &e), -1);
	snprintf(want, sizeof(want),
		 "LIDs in x.dump do not match the topology: first %s, whose own LID %u has no "
		 "entry",
		 vt_node_name(f, f->switches[0], nm, sizeof(nm)), lid);
	ck_assert_str_eq(e.msg, want);
	vt_lfts_free(&d);
	vt_fabric_free(f);
}
END_TEST

/* dump_fts -a lists LIDs without a path as port 255 and LMC paths as "path #2 out of 2". */
START_TEST(lmc1_formats_agree)
{
	vt_fabric *f = net2sw(1);
	vt_lfts d, x;

	read_ok(&d, f, "tests/data/lft/2sw2path4hca-lmc1.lfts.dump");
	ck_assert_uint_eq(vt_lft_get(&d, 0, 0x3d), 3);
	ck_assert_uint_eq(vt_lft_get(&d, 0, 0x3c), 5);
	ck_assert_uint_eq(vt_lft_get(&d, 1, 5), 5);
	ck_assert_uint_eq(vt_lft_get(&d, 1, 2), VT_LFT_NONE);
	read_ok(&x, f, "tests/data/lft/2sw2path4hca-lmc1.dump_fts_a");
	same_tables(&d, &x);
	vt_lfts_free(&x);
	read_ok(&x, f, "tests/data/lft/2sw2path4hca-lmc1.fdbs");
	same_tables(&d, &x);
	vt_lfts_free(&x);
	vt_lfts_free(&d);
	vt_fabric_free(f);
}
END_TEST

static char *write_mem(const vt_lfts *t, const vt_fabric *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	vt_err e;

	ck_assert_ptr_nonnull(fp);
	ck_assert_msg(vt_lfts_write(t, f, fp, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(fclose(fp), 0);
	return buf;
}

/* What we write is byte for byte what OpenSM wrote for the same tables. */
static void writes_like_opensm(unsigned lmc, const char *rel)
{
	vt_fabric *f = net2sw(lmc);
	vt_lfts t;
	char *want, *got;
	size_t len;
	vt_err e;

	read_ok(&t, f, rel);
	ck_assert_int_eq(vt_read_file(vt_test_path(rel), &want, &len, &e), 0);
	got = write_mem(&t, f);
	ck_assert_str_eq(got, want);
	free(got);
	free(want);
	vt_lfts_free(&t);
	vt_fabric_free(f);
}

START_TEST(writes_like_opensm_lmc0)
{
	writes_like_opensm(0, "tests/data/lft/2sw2path4hca.lfts.dump");
}
END_TEST

START_TEST(writes_like_opensm_lmc1)
{
	writes_like_opensm(1, "tests/data/lft/2sw2path4hca-lmc1.lfts.dump");
}
END_TEST

/* Write then read gives identical tables, for tables with every kind of entry. */
START_TEST(round_trip)
{
	vt_fabric *f = net2sw(1);
	vt_lfts t, u;
	uint64_t x = 88172645463325252ull;
	char *buf;
	vt_err e;

	ck_assert_int_eq(vt_lfts_init(&t, f, &e), 0);
	for (uint32_t sw = 0; sw < t.nsw; sw++)
		for (uint32_t lid = 0; lid < t.nlid; lid++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			vt_lft_set(&t, sw, lid, (uint8_t)(x % 10 == 9 ? VT_LFT_NONE : x % 9));
		}
	buf = write_mem(&t, f);
	ck_assert_int_eq(vt_lfts_read_mem(&u, f, buf, strlen(buf), "mem", &e), 0);
	same_tables(&t, &u);
	vt_lfts_free(&u);
	vt_lfts_free(&t);
	free(buf);
	vt_fabric_free(f);
}
END_TEST

/*
 * The writer formats by hand; this is the same format written the plain way
 * (one fprintf per line, as OpenSM's dump_ucast_lfts does), switches in GUID
 * order, to hold the writer to it on fabrics the OpenSM fixtures do not cover.
 */
static char *write_plain(const vt_lfts *t, const vt_fabric *f)
{
	static const char *type[] = {
		[VT_CA] = "Channel Adapter", [VT_SWITCH] = "Switch", [VT_ROUTER] = "Router"};
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	uint64_t last = 0;

	ck_assert_ptr_nonnull(fp);
	for (uint32_t k = 0; k < t->nsw; k++) {
		uint32_t best = VT_NONE;
		const struct vt_node *n;

		/* the next GUID up: quadratic, but obviously right */
		for (uint32_t sw = 0; sw < t->nsw; sw++) {
			uint64_t g = f->nodes[f->switches[sw]].guid;

			if ((k == 0 || g > last) &&
			    (best == VT_NONE || g < f->nodes[f->switches[best]].guid))
				best = sw;
		}
		n = &f->nodes[f->switches[best]];
		last = n->guid;
		fprintf(fp, "Unicast lids [0-%u] of switch Lid %u guid 0x%016" PRIx64 " ('%s'):\n",
			t->nlid - 1, vt_port(f, f->switches[best], 0)->lid, n->guid, n->desc);
		for (uint32_t lid = 0; lid < t->nlid; lid++) {
			uint32_t p = vt_fabric_port_by_lid(f, lid);
			uint8_t port = vt_lft_get(t, best, lid);

			if (port > n->nports)
				continue;
			if (p == VT_NONE) {
				fprintf(fp, "0x%04x %03u # unknown node and type\n", lid, port);
			} else {
				const struct vt_node *d = &f->nodes[f->ports[p].node];

				fprintf(fp, "0x%04x %03u # %s portguid 0x%016" PRIx64 ": '%s'\n",
					lid, port, type[d->type], f->ports[p].guid, d->desc);
			}
		}
		fprintf(fp, "%u lids dumped\n", t->nlid - 1);
	}
	ck_assert_int_eq(fclose(fp), 0);
	return buf;
}

/* Fills every entry from a seeded sequence: ports 0..nports and "no path". */
static void fill_random(vt_lfts *t, const vt_fabric *f, uint64_t x)
{
	for (uint32_t sw = 0; sw < t->nsw; sw++) {
		unsigned np = f->nodes[f->switches[sw]].nports;

		for (uint32_t lid = 0; lid < t->nlid; lid++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			vt_lft_set(t, sw, lid, (uint8_t)(x % 8 == 7 ? VT_LFT_NONE : x % (np + 1)));
		}
	}
}

/*
 * An 8-ary-3-tree (192 switches, 5 MB of dump: the writer's buffer fills and
 * flushes several times) with switches added in falling GUID order, a router,
 * a LID nobody owns and a description with printf's % in it.
 */
START_TEST(writes_like_plain_fprintf)
{
	struct vt_gen_spec sp;
	vt_fabric *f;
	vt_lfts t;
	char *got, *want;
	vt_err e;

	ck_assert_int_eq(vt_gen_parse(&sp, "fat 8,3", &e), 0);
	ck_assert_msg(vt_gen_build(&sp, &f, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(f->nswitches, 192);
	ck_assert_int_eq(vt_lfts_init(&t, f, &e), 0);
	fill_random(&t, f, 88172645463325252ull);
	got = write_mem(&t, f);
	want = write_plain(&t, f);
	ck_assert_uint_gt(strlen(want), 3u << 20);
	ck_assert_msg(!strcmp(got, want), "hand-formatted dump differs from fprintf's");
	free(got);
	free(want);
	vt_lfts_free(&t);
	vt_fabric_free(f);
}
END_TEST

/* Odd nodes: a router, an unowned LID (port LID set by hand), a 2 MB description. */
START_TEST(writes_odd_nodes)
{
	vt_fabric *f = vt_fabric_new("odd");
	uint32_t s1, s2, h, r;
	size_t big = 2u << 20;
	char *desc = malloc(big + 1);
	char *got, *want;
	vt_lfts t;
	vt_err e;

	ck_assert_ptr_nonnull(desc);
	memset(desc, 'x', big);
	memcpy(desc, "100% %s %n", 10);
	desc[big] = '\0';
	ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 4, 0x900, "S9", "sw %d nine", &s1, &e),
			 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 4, 0x300, "S3", desc, &s2, &e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_CA, 1, 0x500, "H", "h 'q'", &h, &e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_ROUTER, 1, 0x700, "R", NULL, &r, &e), 0);
	vt_port(f, h, 1)->guid = 0x501;
	vt_port(f, r, 1)->guid = 0x701;
	vt_port(f, s1, 0)->lid = 1;
	vt_port(f, s2, 0)->lid = 2;
	vt_port(f, h, 1)->lid = 5;
	vt_port(f, r, 1)->lid = 9;
	ck_assert_int_eq(vt_fabric_connect(f, s1, 1, s2, 1, 4, VT_SDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, s1, 2, h, 1, 4, VT_SDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, s2, 2, r, 1, 4, VT_SDR, &e), 0);
	ck_assert_msg(vt_fabric_finish(f, 0, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(vt_lfts_init(&t, f, &e), 0);
	fill_random(&t, f, 12345);
	vt_lft_set(&t, 0, 7, 3); /* LID 7: nobody's */
	vt_lft_set(&t, 1, 7, 4);
	got = write_mem(&t, f);
	want = write_plain(&t, f);
	/* S3 (GUID 0x300) comes first although added second */
	ck_assert_int_eq(
		strncmp(got,
			"Unicast lids [0-9] of switch Lid 2 guid 0x0000000000000300 ('100% %s %n",
			71),
		0);
	ck_assert_ptr_nonnull(strstr(got, "0x0007 003 # unknown node and type\n"));
	ck_assert_ptr_nonnull(strstr(got, "# Router portguid 0x0000000000000701: 'R'\n"));
	ck_assert_msg(!strcmp(got, want), "hand-formatted dump differs from fprintf's");
	free(got);
	free(want);
	free(desc);
	vt_lfts_free(&t);
	vt_fabric_free(f);
}
END_TEST

/* A full disk is an error, not a silently short file. */
START_TEST(write_error)
{
	vt_fabric *f = net2sw(0);
	FILE *fp = fopen("/dev/full", "w");
	vt_lfts t;
	vt_err e;

	ck_assert_ptr_nonnull(fp);
	setvbuf(fp, NULL, _IONBF, 0); /* no stdio buffer to hide the error until fclose */
	read_ok(&t, f, "tests/data/lft/2sw2path4hca.lfts.dump");
	ck_assert_int_eq(vt_lfts_write(&t, f, fp, &e), -1);
	ck_assert_str_eq(e.msg, "write error");
	fclose(fp);
	vt_lfts_free(&t);
	vt_fabric_free(f);
}
END_TEST

static void read_err(const char *text, const char *msg)
{
	vt_fabric *f = net2sw(0);
	vt_lfts t = {0};
	vt_err e = {0};

	ck_assert_int_eq(vt_lfts_read_mem(&t, f, text, strlen(text), "x.dump", &e), -1);
	ck_assert_str_eq(e.msg, msg);
	ck_assert_ptr_null(t.port);
	vt_fabric_free(f);
}

#define HDR1 "Unicast lids [0-60] of switch Lid 1 guid 0x0000000000200000 ('Switch1'):\n"

START_TEST(errors)
{
	read_err("# c\n\nUnicast lids [0-60] of switch Lid 1 guid 0x0000000000200009 ('X'):\n",
		 "x.dump:3: switch GUID 0x0000000000200009 is not a switch of the fabric");
	read_err("Unicast lids [0-60] of switch Lid 1 guid 0x0000000000100000 ('Hca1'):\n",
		 "x.dump:1: switch GUID 0x0000000000100000 is not a switch of the fabric");
	read_err(HDR1 "0x0001 000 # x\n0x0004 009 # Hca1\n",
		 "x.dump:3: port 9 beyond the 8 ports of switch \"Switch1\" (0x0000000000200000)");
	read_err(HDR1 "0x003d 001\n",
		 "x.dump:2: LID 0x003d beyond the fabric's top LID 0x003c (another "
		 "fabric's tables, or an LMC the fabric file does not name)");
	read_err(HDR1 "0x0001 zz\n", "x.dump:2: cannot parse port");
	read_err(HDR1 "0x00g1 001\n", "x.dump:2: cannot parse LID");
	read_err(HDR1 "junk\n", "x.dump:2: malformed line");
	read_err(HDR1 HDR1, "x.dump:2: switch GUID 0x0000000000200000 listed twice");
	/* one LID twice for a switch used to be accepted, the last entry winning */
	read_err(HDR1 "0x0004 001\n0x0038 003\n0x0004 002\n",
		 "x.dump:4: LID 0x0004 listed twice for switch \"Switch1\" (0x0000000000200000)");
	read_err("dump_ucast_routes: Switch 0x0000000000200001\n0x0001 : 003  : 01   : yes\n"
		 "0x0001 : 003  : 01   : yes\n",
		 "x.dump:3: LID 0x0001 listed twice for switch \"Switch2\" (0x0000000000200001)");
	read_err("Unicast lids [0-60] of switch Lid 1\n",
		 "x.dump:1: cannot parse switch definition");
	read_err("hello\n", "x.dump:1: not a forwarding-table dump (expected \"Unicast lids\" or "
			    "\"dump_ucast_routes:\")");
	read_err("", "x.dump: no forwarding tables in the file");
	read_err("dump_ucast_routes: Switch 0x0000000000200001\n0x0001 : 003  : 01   : yes\n"
		 "0x0002 : 012  : 01   : yes\n",
		 "x.dump:3: port 12 beyond the 8 ports of switch \"Switch2\" (0x0000000000200001)");
	read_err("dump_ucast_routes: Switch 0x0000000000200001\nLID    : Port : Hops : Optimal\n"
		 "0x0001 - 003\n",
		 "x.dump:3: cannot parse LID");
}
END_TEST

/* A missing file is reported with the path and the system's reason. */
START_TEST(missing_file)
{
	vt_fabric *f = net2sw(0);
	vt_lfts t;
	vt_err e;

	ck_assert_int_eq(vt_lfts_read(&t, f, "/nonexistent/x.dump", &e), -1);
	ck_assert_str_eq(e.msg, "/nonexistent/x.dump: cannot open: No such file or directory");
	vt_fabric_free(f);
}
END_TEST

/*
 * Live capture reads LFT blocks through LinearFDBTop inclusive; dump_fts of
 * infiniband-diags 44 reads ALIGN(top, 64) / 64 blocks, one short when top is a
 * multiple of 64 (tests/integration/live_top64.sh shows it on ibsim).
 */
START_TEST(lft_blocks_cover_top)
{
	ck_assert_uint_eq(vt_live_lft_blocks(0), 1);
	ck_assert_uint_eq(vt_live_lft_blocks(63), 1);
	ck_assert_uint_eq(vt_live_lft_blocks(64), 2);
	ck_assert_uint_eq(vt_live_lft_blocks(127), 2);
	ck_assert_uint_eq(vt_live_lft_blocks(128), 3);
	ck_assert_uint_eq(vt_live_lft_blocks(VT_MAX_UC_LID), 768);
}
END_TEST

static Suite *lftio_suite(void)
{
	Suite *s = suite_create("lftio");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, reads_opensm_dump);
	tcase_add_test(tc, formats_agree);
	tcase_add_test(tc, check_coverage_and_lids);
	tcase_add_test(tc, lmc1_formats_agree);
	tcase_add_test(tc, writes_like_opensm_lmc0);
	tcase_add_test(tc, writes_like_opensm_lmc1);
	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, writes_like_plain_fprintf);
	tcase_add_test(tc, writes_odd_nodes);
	tcase_add_test(tc, write_error);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, missing_file);
	tcase_add_test(tc, lft_blocks_cover_top);
	suite_add_tcase(s, tc);
	return s;
}

VT_TEST_MAIN(lftio_suite)
