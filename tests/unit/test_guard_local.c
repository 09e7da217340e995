/* SPDX-License-Identifier: MIT */
/*
 * The repair's local guard counts the shift loads of a few links
 * (vt_route_guard_local.h): on generated fabrics, every switch link's load in
 * every stage is the one a flow-by-flow walk counts, the stage maxima over
 * them are vt_shift_count's whole count, and after entries move, the links
 * vt_link_loads_changed names are the only ones whose load changed, and
 * their loads are counted exactly.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/vt_shift_count.h"
#include "gen/vt_gen.h"
#include "repair/vt_route_guard_local.h"
#include "route/vt_route.h"
#include "vt_test.h"

/* Flow by flow: load[c * n + s] for every channel c (ports[] index), stages 1 .. n-1. */
static uint32_t *brute(const vt_fabric *f, const vt_lfts *t, const vt_order *o)
{
	uint32_t n = o->n, *load = calloc((size_t)f->nports * n + 1, sizeof(*load));

	ck_assert_ptr_nonnull(load);
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t s = 1; s < n; s++) {
			uint32_t d = (a + s) % n, pa = o->port[a], pd = o->port[d], q, sw;

			if (pa == VT_NONE || pd == VT_NONE || (q = f->ports[pa].peer) == VT_NONE ||
			    f->nodes[f->ports[q].node].type != VT_SWITCH)
				continue;
			sw = f->nodes[f->ports[q].node].sw;
			for (uint32_t hops = 0; hops <= f->nswitches; hops++) {
				const struct vt_node *nd = &f->nodes[f->switches[sw]];
				unsigned p = vt_lft_get(t, sw, f->ports[pd].lid);
				uint32_t c = nd->first_port + p;

				if (p == 0 || p == VT_LFT_NONE || p > nd->nports ||
				    (q = f->ports[c].peer) == VT_NONE)
					break;
				load[(size_t)c * n + s]++;
				if (f->nodes[f->ports[q].node].type != VT_SWITCH)
					break;
				sw = f->nodes[f->ports[q].node].sw;
			}
		}
	return load;
}

/* Every switch port with a link. */
static uint32_t *switch_chans(const vt_fabric *f, uint32_t *nc)
{
	uint32_t *c = malloc(((size_t)f->nports + 1) * sizeof(*c)), m = 0;

	ck_assert_ptr_nonnull(c);
	for (uint32_t i = 0; i < f->nports; i++)
		if (f->nodes[f->ports[i].node].type == VT_SWITCH && f->ports[i].num &&
		    f->ports[i].peer != VT_NONE)
			c[m++] = i;
	*nc = m;
	return c;
}

/* The stage maxima over chan's loads give vt_shift_count's worst and average. */
static void same_figures(const vt_fabric *f, const vt_lfts *t, const vt_order *o,
			 const uint32_t *load, uint32_t nc)
{
	vt_routes r;
	vt_shift_count *sc;
	vt_err e = {0};
	uint32_t worst = 0, cw;
	double sum = 0, ca;

	ck_assert_int_eq(vt_routes_build(&r, f, t, o, &e), 0);
	ck_assert_ptr_nonnull(sc = vt_shift_count_new(&r, &e));
	vt_shift_count_figures(sc, &cw, &ca);
	for (uint32_t s = 1; s < o->n; s++) {
		uint32_t m = 0;

		for (uint32_t i = 0; i < nc; i++)
			if (load[(size_t)i * o->n + s] > m)
				m = load[(size_t)i * o->n + s];
		sum += m;
		worst = m > worst ? m : worst;
	}
	ck_assert_msg(worst == cw && sum / (o->n - 1) == ca, "worst/avg %u/%.6f, counted %u/%.6f",
		      worst, sum / (o->n - 1), cw, ca);
	vt_shift_count_free(sc);
	vt_routes_free(&r);
}

/* u: t with the LIDs of every step-th rank from `from` moved to another port at every third switch.
 */
static void move_entries(const vt_fabric *f, const vt_order *o, const vt_lfts *t, vt_lfts *u,
			 uint32_t from, uint32_t step)
{
	memcpy(u->port, t->port, (size_t)t->nsw * t->nlid);
	for (uint32_t d = from; d < o->n; d += step)
		for (uint32_t sw = d % 3; o->port[d] != VT_NONE && sw < t->nsw; sw += 3) {
			uint8_t *x = u->port + (size_t)sw * t->nlid + f->ports[o->port[d]].lid;

			if (*x != VT_LFT_NONE && *x != 0)
				*x = (uint8_t)(1 + *x % f->nodes[f->switches[sw]].nports);
		}
}

/* After the move, the channels named changed count exactly, and no other channel's load moved. */
static void check_changed(vt_link_loads *ll, const vt_fabric *f, const vt_order *o,
			  const vt_lfts *t, const vt_lfts *u, const uint32_t *bt)
{
	uint32_t *bu = brute(f, u, o), *chan, nc, n = o->n, *load;
	uint8_t *named = calloc(f->nports + 1, 1);
	vt_err e = {0};

	ck_assert_int_eq(vt_link_loads_changed(ll, t, u, &chan, &nc, &e), 0);
	ck_assert_uint_gt(nc, 0);
	ck_assert_ptr_nonnull(load = malloc(((size_t)nc * n + 1) * sizeof(*load)));
	ck_assert_int_eq(vt_link_loads_count(ll, u, chan, nc, load, &e), 0);
	for (uint32_t i = 0; i < nc; i++) {
		named[chan[i]] = 1;
		ck_assert_msg(
			!memcmp(load + (size_t)i * n, bu + (size_t)chan[i] * n, n * sizeof(*load)),
			"changed channel %u counted wrong", chan[i]);
	}
	ck_assert_int_eq(vt_link_loads_count(ll, t, chan, nc, load, &e), 0);
	for (uint32_t i = 0; i < nc; i++)
		ck_assert(
			!memcmp(load + (size_t)i * n, bt + (size_t)chan[i] * n, n * sizeof(*load)));
	for (uint32_t c = 0; c < f->nports; c++)
		ck_assert_msg(named[c] || !memcmp(bt + (size_t)c * n, bu + (size_t)c * n,
						  n * sizeof(*load)),
			      "channel %u changed but was not named", c);
	free(named);
	free(load);
	free(chan);
	free(bu);
}

static void check_fabric(const char *spec)
{
	struct vt_gen_spec gs;
	vt_fabric *f;
	vt_lfts t, u;
	vt_order o;
	vt_link_loads ll;
	vt_err e = {0};
	uint32_t *chan, nc, *bt, *load;

	ck_assert_int_eq(vt_gen_parse(&gs, spec, &e), 0);
	ck_assert_int_eq(vt_gen_build(&gs, &f, &e), 0);
	ck_assert_msg(vt_route(f, NULL, &t, &o, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(vt_lfts_init(&u, f, &e), 0);
	ck_assert_int_eq(vt_link_loads_init(&ll, f, &o, t.nlid, &e), 0);
	chan = switch_chans(f, &nc);
	bt = brute(f, &t, &o);
	ck_assert_ptr_nonnull(load = malloc(((size_t)nc * o.n + 1) * sizeof(*load)));
	ck_assert_int_eq(vt_link_loads_count(&ll, &t, chan, nc, load, &e), 0);
	for (uint32_t i = 0; i < nc; i++)
		ck_assert_msg(!memcmp(load + (size_t)i * o.n, bt + (size_t)chan[i] * o.n,
				      o.n * sizeof(*load)),
			      "%s: channel %u counted wrong", spec, chan[i]);
	same_figures(f, &t, &o, load, nc);
	move_entries(f, &o, &t, &u, 1, 4);
	check_changed(&ll, f, &o, &t, &u, bt);
	move_entries(f, &o, &t, &u, 5, 97);
	check_changed(&ll, f, &o, &t, &u, bt);
	free(load);
	free(bt);
	free(chan);
	vt_link_loads_free(&ll);
	vt_lfts_free(&u);
	vt_lfts_free(&t);
	vt_order_free(&o);
	vt_fabric_free(f);
}

START_TEST(loads_exact)
{
	check_fabric("fat 4,3");
	check_fabric("pruned 12,4");
}
END_TEST

static Suite *guard_local_suite(void)
{
	Suite *s = suite_create("guard_local");
	TCase *t = tcase_create("core");

	tcase_add_test(t, loads_exact);
	tcase_set_timeout(t, 60);
	suite_add_tcase(s, t);
	return s;
}

VT_TEST_MAIN(guard_local_suite)
