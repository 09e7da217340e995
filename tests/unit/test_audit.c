/* SPDX-License-Identifier: MIT */
/*
 * Forwarding-table audits on a 2-ary-2-tree (hosts 0,1 on leaf A, 2,3 on
 * leaf B, spines X, Y) with tables written here: each audit catches the
 * table broken for it, names the first offending switch and LID, and passes
 * the good table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/vt_audit.h"
#include "gen/vt_gen.h"
#include "vt_k22.h"
#include "io/vt_load.h"
#include "base/vt_rand.h"
#include "route/vt_route.h"
#include "vt_test.h"
#include "vt_trace.h"

/*
 * The reference: the audit as it was before it was made fast (walks from
 * every switch, dependencies collected per LID from every CA switch, a scan
 * of every port for a CA per step). Slow, plain, and the semantics the fast
 * audit must keep: counts, first offences and detail text, byte for byte.
 * Credit loops are found by another algorithm (Tarjan, below), so a bug
 * shared with the production's cycle search cannot pass.
 */
struct ref_ctx {
	const vt_fabric *f;
	const vt_lfts *t;
	vt_audit *a;
	uint32_t nsw;
	uint32_t *out;	   /* per switch: channel toward the LID, VT_NONE */
	uint32_t *chan_sw; /* per port: switch ordinal it leads to, VT_NONE */
	uint8_t *state;	   /* 0 unknown, 1 on stack, 2 good, 3 bad */
	uint32_t *stack;
	uint16_t *dist; /* per destination switch, BFS hop distances (lazily) */
	uint8_t *have_dist;
	uint32_t *queue;
	uint64_t *edges; /* per port: 4 words, bit p = dependency on port p of the next switch */
	uint8_t *seen;
};

/* The names the audit gives, built here with plain snprintf: "DESC" (0xGUID). */
static const char *ref_name(const vt_fabric *f, uint32_t node, char *buf, size_t len)
{
	snprintf(buf, len, "\"%s\" (0x%016llx)", f->nodes[node].desc,
		 (unsigned long long)f->nodes[node].guid);
	return buf;
}

static const char *ref_sw_desc(const vt_fabric *f, uint32_t sw, char *buf)
{
	return ref_name(f, f->switches[sw], buf, 120);
}

static void ref_report(struct ref_ctx *c, enum vt_audit_kind k, uint32_t sw, uint32_t lid,
		       const char *what)
{
	struct vt_audit_item *it = &c->a->item[k];

	if (!it->count++) {
		it->sw = sw;
		it->lid = lid;
		char n[120];

		snprintf(it->detail, sizeof(it->detail), "%s, LID %u: %s", ref_sw_desc(c->f, sw, n),
			 lid, what);
	}
}

static const uint16_t *ref_distances(struct ref_ctx *c, uint32_t dsw)
{
	const vt_fabric *f = c->f;
	uint16_t *d = c->dist + (size_t)dsw * c->nsw;
	uint32_t h = 0, tl = 0;

	if (c->have_dist[dsw])
		return d;
	for (uint32_t s = 0; s < c->nsw; s++)
		d[s] = UINT16_MAX;
	d[dsw] = 0;
	c->queue[tl++] = dsw;
	while (h < tl) {
		uint32_t s = c->queue[h++], node = f->switches[s];
		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t v = c->chan_sw[vt_port_index(f, node, p)];
			if (v != VT_NONE && d[v] == UINT16_MAX) {
				d[v] = d[s] + 1;
				c->queue[tl++] = v;
			}
		}
	}
	c->have_dist[dsw] = 1;
	return d;
}

static void ref_fill_out(struct ref_ctx *c, uint32_t lid)
{
	const vt_fabric *f = c->f;

	for (uint32_t s = 0; s < c->nsw; s++) {
		uint32_t node = f->switches[s];
		uint8_t p = vt_lft_get(c->t, s, lid);
		c->out[s] = VT_NONE;
		if (p == 0 || p == VT_LFT_NONE || p > f->nodes[node].nports)
			continue;
		uint32_t ch = vt_port_index(f, node, p);
		if (f->ports[ch].peer != VT_NONE)
			c->out[s] = ch;
	}
}

static int ref_has_ca(const vt_fabric *f, uint32_t node)
{
	for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
		uint32_t q = vt_port(f, node, p)->peer;

		if (q != VT_NONE && f->nodes[f->ports[q].node].type != VT_SWITCH)
			return 1;
	}
	return 0;
}

/* Adds the dependencies that paths toward the current LID create; with want set, stops
 * and returns the switch where the dependency want_from -> port want_port arises. */
static uint32_t ref_add_edges(struct ref_ctx *c, uint32_t want_from, unsigned want_port)
{
	const vt_fabric *f = c->f;

	memset(c->seen, 0, c->nsw);
	for (uint32_t s0 = 0; s0 < c->nsw; s0++) {
		if (c->state[s0] != 2 || c->seen[s0] || !ref_has_ca(f, f->switches[s0]))
			continue;
		c->seen[s0] = 1;
		for (uint32_t w = s0;;) {
			uint32_t ch = c->out[w], u = c->chan_sw[ch];
			if (u == VT_NONE)
				break;
			uint32_t ch2 = c->out[u];
			if (c->chan_sw[ch2] != VT_NONE) {
				unsigned pn = f->ports[ch2].num;
				if (want_from == ch && want_port == pn)
					return u;
				c->edges[(size_t)ch * 4 + pn / 64] |= 1ull << (pn % 64);
			}
			if (c->seen[u])
				break;
			c->seen[u] = 1;
			w = u;
		}
	}
	return VT_NONE;
}

/*
 * Hops that are not one closer to the destination, on the paths CA traffic
 * takes (from every switch with a CA to the LID). Entries no CA path uses
 * (a detour from a switch that lost its down path) carry no traffic and are
 * not counted. Switches are visited in ordinal order, so the first offence
 * reported does not depend on the walk.
 */
static void ref_nonminimal_on_ca_paths(struct ref_ctx *c, uint32_t lid, const uint16_t *dist)
{
	const vt_fabric *f = c->f;

	memset(c->seen, 0, c->nsw);
	for (uint32_t s0 = 0; s0 < c->nsw; s0++) {
		if (c->state[s0] != 2 || c->seen[s0] || !ref_has_ca(f, f->switches[s0]))
			continue;
		for (uint32_t w = s0; w != VT_NONE && !c->seen[w];) {
			c->seen[w] = 1;
			w = c->chan_sw[c->out[w]];
		}
	}
	for (uint32_t s = 0; s < c->nsw; s++) {
		uint32_t v;

		if (!c->seen[s])
			continue;
		v = c->chan_sw[c->out[s]];
		if (v != VT_NONE && dist[v] + 1 != dist[s]) {
			char why[192], n[120];

			snprintf(why, sizeof(why),
				 "non-minimal hop to %s (%u switch hops where %u would do)",
				 ref_sw_desc(f, v, n), dist[v] + 1, dist[s]);
			ref_report(c, VT_AUDIT_NONMINIMAL, s, lid, why);
		}
	}
}

static void ref_walk_lid(struct ref_ctx *c, uint32_t lid, uint32_t dp)
{
	const vt_fabric *f = c->f;
	uint32_t dq = f->ports[dp].peer;
	uint32_t dsw = f->nodes[f->ports[dq].node].sw;
	const uint16_t *dist = ref_distances(c, dsw);

	memset(c->state, 0, c->nsw);
	for (uint32_t s0 = 0; s0 < c->nsw; s0++) {
		uint32_t sp = 0, sw = s0, good = 0;

		/* another plane of a multi-rail fabric: no cable leads there */
		if (dist[s0] == UINT16_MAX)
			continue;
		while (1) {
			if (c->state[sw] >= 2) {
				good = c->state[sw] == 2;
				break;
			}
			if (c->state[sw] == 1) {
				ref_report(c, VT_AUDIT_LOOP, sw, lid, "forwarding loop");
				break;
			}
			uint32_t ch = c->out[sw];
			c->state[sw] = 1;
			c->stack[sp++] = sw;
			if (ch == VT_NONE) {
				uint8_t p = vt_lft_get(c->t, sw, lid);
				char why[64];
				if (p == VT_LFT_NONE)
					snprintf(why, sizeof(why), "no route (no LFT entry)");
				else
					snprintf(why, sizeof(why),
						 "no route (port %u is not linked)", p);
				ref_report(c, VT_AUDIT_UNREACHABLE, sw, lid, why);
				break;
			}
			uint32_t nx = c->chan_sw[ch];
			if (nx == VT_NONE) {
				uint32_t q = f->ports[ch].peer;
				good = q == dp;
				if (!good) {
					char why[192], n[120];
					snprintf(why, sizeof(why), "delivered to %s port %u",
						 ref_name(f, f->ports[q].node, n, sizeof(n)),
						 f->ports[q].num);
					ref_report(c, VT_AUDIT_MISDELIVERY, sw, lid, why);
				}
				break;
			}
			sw = nx;
		}
		while (sp) {
			uint32_t x = c->stack[--sp];
			c->state[x] = good ? 2 : 3;
		}
	}
	ref_nonminimal_on_ca_paths(c, lid, dist);
	ref_add_edges(c, VT_NONE, 0);
}

/*
 * Credit loops, checked independently of the production's depth-first search:
 * Tarjan's strongly connected components over the channel dependency graph
 * (a loop exists iff a component holds two channels or a channel depends on
 * itself), and the cycle the audit reports is verified edge by edge against
 * the dependencies collected here, its LID against the routes.
 */
struct ref_scc {
	const struct ref_ctx *c;
	uint32_t *index, *low, *stk, *cstk, *cpn;
	uint8_t *on;
	uint32_t next, sp, found;
};

static int ref_dep(const struct ref_ctx *c, uint32_t ch, unsigned pn)
{
	return pn < 256 && (c->edges[(size_t)ch * 4 + pn / 64] >> (pn % 64) & 1);
}

/* The channel that port pn of the switch channel ch leads to starts. */
static uint32_t ref_next_chan(const struct ref_ctx *c, uint32_t ch, unsigned pn)
{
	return vt_port_index(c->f, c->f->switches[c->chan_sw[ch]], pn);
}

/* Iterative Tarjan from root r (explicit call stack cstk/cpn: next port to try). */
static void ref_tarjan_from(struct ref_scc *t, uint32_t r)
{
	const struct ref_ctx *c = t->c;
	uint32_t csp = 0;

	t->cstk[csp] = r;
	t->cpn[csp++] = 0;
	t->index[r] = t->low[r] = ++t->next;
	t->stk[t->sp++] = r;
	t->on[r] = 1;
	while (csp) {
		uint32_t v = t->cstk[csp - 1], pn = t->cpn[csp - 1]++;

		if (pn < 256) {
			if (!ref_dep(c, v, pn))
				continue;
			uint32_t w = ref_next_chan(c, v, pn);

			if (w == v)
				t->found = 1;
			if (!t->index[w]) {
				t->index[w] = t->low[w] = ++t->next;
				t->stk[t->sp++] = w;
				t->on[w] = 1;
				t->cstk[csp] = w;
				t->cpn[csp++] = 0;
			} else if (t->on[w] && t->index[w] < t->low[v]) {
				t->low[v] = t->index[w];
			}
			continue;
		}
		csp--;
		if (csp && t->low[v] < t->low[t->cstk[csp - 1]])
			t->low[t->cstk[csp - 1]] = t->low[v];
		if (t->low[v] == t->index[v]) {
			uint32_t size = 0, w;

			do {
				w = t->stk[--t->sp];
				t->on[w] = 0;
				size++;
			} while (w != v);
			if (size > 1)
				t->found = 1;
		}
	}
}

static int ref_has_cycle(const struct ref_ctx *c)
{
	uint32_t np = c->f->nports + 1;
	struct ref_scc t = {.c = c};
	int found = 0;

	t.index = calloc(np, sizeof(*t.index));
	t.low = calloc(np, sizeof(*t.low));
	t.stk = calloc(np, sizeof(*t.stk));
	t.cstk = calloc(np, sizeof(*t.cstk));
	t.cpn = calloc(np, sizeof(*t.cpn));
	t.on = calloc(np, 1);
	ck_assert(t.index && t.low && t.stk && t.cstk && t.cpn && t.on);
	for (uint32_t r = 0; r < c->f->nports && !t.found; r++)
		if (!t.index[r] && c->chan_sw[r] != VT_NONE &&
		    c->f->nodes[c->f->ports[r].node].type == VT_SWITCH)
			ref_tarjan_from(&t, r);
	found = t.found;
	free(t.index);
	free(t.low);
	free(t.stk);
	free(t.cstk);
	free(t.cpn);
	free(t.on);
	return found;
}

/*
 * The switch port named `"DESC" (0xGUID, lid L)/PORT` at tok in a reported
 * cycle (the port by its GUID and number, the description checked), VT_NONE
 * when there is none; *n is the length of the name.
 */
static uint32_t ref_named_port(const vt_fabric *f, const char *tok, size_t *n)
{
	const char *end = strstr(tok, ")/");
	unsigned long long guid;
	unsigned pn;
	int k = 0;

	if (*tok != '"' || !end || sscanf(end + 2, "%u%n", &pn, &k) != 1)
		return VT_NONE;
	*n = (size_t)(end + 2 + k - tok);
	const char *g = strstr(tok, "\" (0x");
	if (!g || g > end || sscanf(g + 5, "%llx", &guid) != 1)
		return VT_NONE;
	uint32_t node = vt_fabric_node_by_guid(f, guid);
	if (node == VT_NONE || f->nodes[node].type != VT_SWITCH || pn > f->nodes[node].nports ||
	    strlen(f->nodes[node].desc) != (size_t)(g - tok - 1) ||
	    memcmp(f->nodes[node].desc, tok + 1, (size_t)(g - tok - 1)))
		return VT_NONE;
	return vt_port_index(f, node, pn);
}

/* Why the audit's reported cycle is not one of these dependencies, NULL when it is. */
static const char *ref_check_cycle(struct ref_ctx *c, const char *claim, uint32_t *cyc,
				   uint32_t *len, uint32_t *lid)
{
	const vt_fabric *f = c->f;
	const char *p = strstr(claim, " channel dependencies (LID ");
	unsigned n;

	if (!p ||
	    sscanf(strstr(claim, ": a cycle of ") ? strstr(claim, ": a cycle of ") + 13 : "", "%u",
		   &n) != 1 ||
	    sscanf(p + 27, "%u", lid) != 1 || !(p = strstr(p, "):")))
		return "no cycle in the report";
	*len = 0;
	for (p += 2; *p == ' ' && *len <= f->nports;) {
		size_t k = 0;

		cyc[*len] = ref_named_port(f, ++p, &k);
		if (cyc[*len] == VT_NONE || c->chan_sw[cyc[*len]] == VT_NONE)
			return "a channel of the cycle is not a switch link";
		++*len;
		p += k;
	}
	if (!*len || *len != n)
		return "cycle length differs from the channels listed";
	for (uint32_t i = 0; i < *len; i++) {
		uint32_t a = cyc[i], b = cyc[(i + 1) % *len];

		if (f->ports[b].node != f->switches[c->chan_sw[a]] ||
		    !ref_dep(c, a, f->ports[b].num))
			return "two channels of the cycle do not depend on each other";
	}
	return NULL;
}

/* The first LID whose routes make the dependency from channel ch to port pn. */
static uint32_t ref_first_lid(struct ref_ctx *c, uint32_t ch, unsigned pn)
{
	const vt_fabric *f = c->f;

	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint32_t dp = f->lid_port[lid];
		if (dp == VT_NONE || f->nodes[f->ports[dp].node].type == VT_SWITCH ||
		    f->ports[dp].peer == VT_NONE ||
		    f->nodes[f->ports[f->ports[dp].peer].node].type != VT_SWITCH)
			continue;
		ref_fill_out(c, lid);
		ref_walk_lid(c, lid, dp); /* state only; counts already taken are kept */
		if (ref_add_edges(c, ch, pn) != VT_NONE)
			return lid;
	}
	return 0;
}

/*
 * claim: the audit's credit-loop detail. When the dependencies have a cycle and
 * the claim is a true cycle of them with the right switch and LID, the claim
 * is taken as the reference's; otherwise the detail says what is wrong.
 */
static void ref_credit_loops(struct ref_ctx *c, const char *claim)
{
	const vt_fabric *f = c->f;
	struct vt_audit_item *it = &c->a->item[VT_AUDIT_CREDIT_LOOP];
	uint32_t *cyc = malloc((f->nports + 2) * sizeof(*cyc)), len = 0, lid = 0;
	const char *why;

	ck_assert_ptr_nonnull(cyc);
	if (ref_has_cycle(c)) {
		it->count = 1;
		why = ref_check_cycle(c, claim, cyc, &len, &lid);
		if (!why) {
			it->sw = c->chan_sw[cyc[0]];
			it->lid = ref_first_lid(c, cyc[0], f->ports[cyc[1 % len]].num);
			if (it->lid != lid)
				why = "not the first LID making the cycle's first turn";
		}
		if (why)
			snprintf(it->detail, sizeof(it->detail), "reference: %s", why);
		else
			for (size_t i = 0; i < sizeof(it->detail); i++)
				if (!(it->detail[i] = claim[i]))
					break;
	}
	free(cyc);
}

static int ref_audit_run(const vt_fabric *f, const vt_lfts *t, const char *claim, vt_audit *a,
			 vt_err *e)
{
	struct ref_ctx c = {.f = f, .t = t, .a = a, .nsw = f->nswitches};
	int rc = 0;

	memset(a, 0, sizeof(*a));
	for (int k = 0; k < VT_AUDIT_NKINDS; k++)
		a->item[k].sw = VT_NONE;
	c.out = malloc((c.nsw + 1) * sizeof(*c.out));
	c.chan_sw = malloc((f->nports + 1) * sizeof(*c.chan_sw));
	c.state = malloc(c.nsw + 1);
	c.seen = malloc(c.nsw + 1);
	c.stack = malloc((c.nsw + 1) * sizeof(*c.stack));
	c.queue = malloc((c.nsw + 1) * sizeof(*c.queue));
	c.dist = malloc(((size_t)c.nsw * c.nsw + 1) * sizeof(*c.dist));
	c.have_dist = calloc(c.nsw + 1, 1);
	c.edges = calloc((size_t)f->nports * 4 + 1, sizeof(*c.edges));
	if (!c.out || !c.chan_sw || !c.state || !c.seen || !c.stack || !c.queue || !c.dist ||
	    !c.have_dist || !c.edges) {
		rc = vt_err_set(e, "out of memory auditing %u switches", c.nsw);
		goto out;
	}
	for (uint32_t p = 0; p < f->nports; p++) {
		uint32_t q = f->ports[p].peer;
		c.chan_sw[p] = VT_NONE;
		if (q != VT_NONE && f->nodes[f->ports[q].node].type == VT_SWITCH)
			c.chan_sw[p] = f->nodes[f->ports[q].node].sw;
	}
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint32_t dp = f->lid_port[lid];
		if (dp == VT_NONE || f->nodes[f->ports[dp].node].type == VT_SWITCH ||
		    f->ports[dp].peer == VT_NONE ||
		    f->nodes[f->ports[f->ports[dp].peer].node].type != VT_SWITCH)
			continue;
		ref_fill_out(&c, lid);
		ref_walk_lid(&c, lid, dp);
	}
	/* the rescan in credit_loops must not count offences twice */
	vt_audit saved = *a;
	ref_credit_loops(&c, claim);
	for (int k = 0; k < VT_AUDIT_CREDIT_LOOP; k++)
		a->item[k] = saved.item[k];
out:
	free(c.out);
	free(c.chan_sw);
	free(c.state);
	free(c.seen);
	free(c.stack);
	free(c.queue);
	free(c.dist);
	free(c.have_dist);
	free(c.edges);
	return rc;
}

static void same_audit(const vt_audit *want, const vt_audit *got, const char *what)
{
	for (int k = 0; k < VT_AUDIT_NKINDS; k++) {
		const struct vt_audit_item *x = &want->item[k], *y = &got->item[k];
		ck_assert_msg(x->count == y->count, "%s: %s: count %llu, reference %llu", what,
			      vt_audit_name(k), (unsigned long long)y->count,
			      (unsigned long long)x->count);
		ck_assert_msg(x->sw == y->sw && x->lid == y->lid,
			      "%s: %s: switch %u LID %u, reference %u %u", what, vt_audit_name(k),
			      y->sw, y->lid, x->sw, x->lid);
		ck_assert_msg(!strcmp(x->detail, y->detail), "%s: %s: \"%s\", reference \"%s\"",
			      what, vt_audit_name(k), y->detail, x->detail);
	}
}

/* The audit on 1 and 2 threads against the reference; counts in hit[] the kinds found. */
static void vs_reference(const vt_fabric *f, const vt_lfts *t, const char *what, unsigned *hit)
{
	vt_audit ref, one, two;
	vt_err e = {0};

	ck_assert_int_eq(vt_audit_run_threads(f, t, 1, &one, &e), 0);
	ck_assert_int_eq(vt_audit_run(f, t, &two, &e), 0);
	ck_assert_int_eq(ref_audit_run(f, t, one.item[VT_AUDIT_CREDIT_LOOP].detail, &ref, &e), 0);
	same_audit(&ref, &one, what);
	same_audit(&ref, &two, what);
	for (int k = 0; hit && k < VT_AUDIT_NKINDS; k++)
		hit[k] += ref.item[k].count != 0;
}

static void audit_one(struct vt_k22 *x, enum vt_audit_kind want, uint32_t sw_node, int h)
{
	vt_audit a;
	vt_err e = {0};

	ck_assert_int_eq(vt_audit_run(x->f, &x->t, &a, &e), 0);
	vs_reference(x->f, &x->t, vt_audit_name(want), NULL);
	for (int k = 0; k < VT_AUDIT_NKINDS; k++)
		if (k != (int)want)
			ck_assert_msg(a.item[k].count == 0, "%s: %s", vt_audit_name(k),
				      a.item[k].detail);
	ck_assert_msg(a.item[want].count > 0, "%s not found", vt_audit_name(want));
	ck_assert_uint_eq(a.item[want].sw, x->f->nodes[sw_node].sw);
	ck_assert_uint_eq(a.item[want].lid, vt_k22_lid(x, h));
}

START_TEST(audits)
{
	struct vt_k22 x;
	vt_audit a;
	vt_err e = {0};

	vt_k22_setup(&x);
	ck_assert_int_eq(vt_audit_run(x.f, &x.t, &a, &e), 0);
	ck_assert_uint_eq(vt_audit_failed(&a), 0);
	/* no entry on spine X for host 2 */
	vt_lft_set(&x.t, x.f->nodes[x.spine[0]].sw, vt_k22_lid(&x, 2), VT_LFT_NONE);
	audit_one(&x, VT_AUDIT_UNREACHABLE, x.spine[0], 2);
	vt_k22_teardown(&x);
	/* spine X sends host 2's LID back down to leaf A: loop A -> X -> A */
	vt_k22_setup(&x);
	vt_k22_set(&x, x.spine[0], 2, x.leaf[0]);
	audit_one(&x, VT_AUDIT_LOOP, x.leaf[0], 2);
	vt_k22_teardown(&x);
	/* leaf B hands host 2's LID to host 3 */
	vt_k22_setup(&x);
	vt_k22_set(&x, x.leaf[1], 2, x.host[3]);
	audit_one(&x, VT_AUDIT_MISDELIVERY, x.leaf[1], 2);
	vt_k22_teardown(&x);
	/* leaf A goes up via Y for host 2, and spine X detours down through A: X -> A -> Y -> B.
	 * No CA's path reaches X for host 2, so that detour carries nothing and passes. */
	vt_k22_setup(&x);
	vt_k22_set(&x, x.leaf[0], 2, x.spine[1]);
	vt_k22_set(&x, x.spine[0], 2, x.leaf[0]);
	ck_assert_int_eq(vt_audit_run(x.f, &x.t, &a, &e), 0);
	ck_assert_uint_eq(vt_audit_failed(&a), 0);
	vt_k22_teardown(&x);
}
END_TEST

/*
 * A non-minimal hop on a CA's path: leaves L0, L1 both under M0 and M1, and
 * T above M0 and M1. Host h0 (on L0) reaches h1 (on L1) by L0 -> M0 -> T ->
 * M1 -> L1, where M0 -> L1 would do: M0 is the first offender.
 */
START_TEST(nonminimal_on_ca_path)
{
	vt_err e = {0};
	vt_fabric *f = vt_fabric_new("detour");
	uint32_t l0, l1, m0, m1, t, h0, h1;
	vt_lfts lf;
	vt_audit a;
	uint16_t lid;

	ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 4, 0x10, "L0", NULL, &l0, &e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 4, 0x11, "L1", NULL, &l1, &e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 4, 0x20, "M0", NULL, &m0, &e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 4, 0x21, "M1", NULL, &m1, &e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 4, 0x30, "T", NULL, &t, &e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_CA, 1, 0x40, "h0", NULL, &h0, &e), 0);
	ck_assert_int_eq(vt_fabric_add_node(f, VT_CA, 1, 0x41, "h1", NULL, &h1, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, l0, 1, h0, 1, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, l1, 1, h1, 1, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, l0, 2, m0, 1, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, l0, 3, m1, 1, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, l1, 2, m0, 2, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, l1, 3, m1, 2, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, m0, 3, t, 1, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_connect(f, m1, 3, t, 2, 4, VT_QDR, &e), 0);
	ck_assert_int_eq(vt_fabric_finish(f, 0, &e), 0);
	ck_assert_int_eq(vt_lfts_init(&lf, f, &e), 0);
	/* h0's LID: straight down from everywhere */
	lid = vt_port(f, h0, 1)->lid;
	vt_lft_set(&lf, f->nodes[l0].sw, lid, 1);
	vt_lft_set(&lf, f->nodes[l1].sw, lid, 2);
	vt_lft_set(&lf, f->nodes[m0].sw, lid, 1);
	vt_lft_set(&lf, f->nodes[m1].sw, lid, 1);
	vt_lft_set(&lf, f->nodes[t].sw, lid, 1);
	/* h1's LID: up from M0 to T, down through M1 */
	lid = vt_port(f, h1, 1)->lid;
	vt_lft_set(&lf, f->nodes[l0].sw, lid, 2);
	vt_lft_set(&lf, f->nodes[l1].sw, lid, 1);
	vt_lft_set(&lf, f->nodes[m0].sw, lid, 3);
	vt_lft_set(&lf, f->nodes[m1].sw, lid, 2);
	vt_lft_set(&lf, f->nodes[t].sw, lid, 2);
	ck_assert_int_eq(vt_audit_run(f, &lf, &a, &e), 0);
	ck_assert_uint_eq(a.item[VT_AUDIT_NONMINIMAL].count, 1);
	ck_assert_uint_eq(a.item[VT_AUDIT_NONMINIMAL].sw, f->nodes[m0].sw);
	ck_assert_uint_eq(a.item[VT_AUDIT_NONMINIMAL].lid, lid);
	ck_assert_str_eq(a.item[VT_AUDIT_NONMINIMAL].detail,
			 "\"M0\" (0x0000000000000020), LID 7: non-minimal hop to \"T\" "
			 "(0x0000000000000030) (3 switch hops where 1 would do)");
	for (int k = 0; k < VT_AUDIT_NKINDS; k++)
		if (k != VT_AUDIT_NONMINIMAL)
			ck_assert_msg(a.item[k].count == 0, "%s: %s", vt_audit_name(k),
				      a.item[k].detail);
	/* reported, but not a failure: deadlock freedom can need such hops */
	ck_assert_uint_eq(vt_audit_failed(&a), 0);
	vt_lfts_free(&lf);
	vt_fabric_free(f);
}
END_TEST

/*
 * A credit loop without a forwarding loop: three switches in a ring, each
 * with one host, every route going clockwise (two hops to the host behind
 * the left neighbour). Host 0 -> 2 makes S0->S1 wait on S1->S2, host 1 -> 0
 * makes S1->S2 wait on S2->S0, host 2 -> 1 closes the ring.
 */
START_TEST(credit_loop)
{
	vt_err e = {0};
	vt_fabric *f = vt_fabric_new("ring3");
	uint32_t sw[3], ca[3], lid[3];
	vt_lfts t;
	vt_audit a;
	char id[16];

	for (int i = 0; i < 3; i++) {
		snprintf(id, sizeof(id), "S%d", i);
		ck_assert_int_eq(vt_fabric_add_node(f, VT_SWITCH, 3, 0x100 + i, id, id, &sw[i], &e),
				 0);
	}
	for (int i = 0; i < 3; i++) {
		snprintf(id, sizeof(id), "H%d", i);
		ck_assert_int_eq(vt_fabric_add_node(f, VT_CA, 1, 0x200 + i, id, id, &ca[i], &e), 0);
	}
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(vt_fabric_connect(f, sw[i], 1, ca[i], 1, 4, VT_QDR, &e), 0);
		ck_assert_int_eq(vt_fabric_connect(f, sw[i], 2, sw[(i + 1) % 3], 3, 4, VT_QDR, &e),
				 0);
	}
	ck_assert_msg(vt_fabric_finish(f, 0, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(vt_lfts_init(&t, f, &e), 0);
	for (int i = 0; i < 3; i++)
		lid[i] = vt_port(f, ca[i], 1)->lid;
	/* the minimal table first: host i+1 clockwise, host i-1 counter-clockwise */
	for (int i = 0; i < 3; i++)
		for (int h = 0; h < 3; h++)
			vt_lft_set(&t, f->nodes[sw[i]].sw, lid[h],
				   h == i	      ? 1
				   : h == (i + 1) % 3 ? 2
						      : 3);
	ck_assert(vt_trace_cdg_acyclic(f, &t));
	ck_assert_int_eq(vt_audit_run(f, &t, &a, &e), 0);
	ck_assert_uint_eq(vt_audit_failed(&a), 0);
	for (int i = 0; i < 3; i++)
		vt_lft_set(&t, f->nodes[sw[i]].sw, lid[(i + 2) % 3], 2);
	ck_assert(!vt_trace_cdg_acyclic(f, &t));
	ck_assert_int_eq(vt_audit_run(f, &t, &a, &e), 0);
	ck_assert_uint_eq(a.item[VT_AUDIT_LOOP].count, 0);
	ck_assert_uint_eq(a.item[VT_AUDIT_UNREACHABLE].count, 0);
	ck_assert_uint_eq(a.item[VT_AUDIT_MISDELIVERY].count, 0);
	/* the two-hop detours: one per switch */
	ck_assert_uint_eq(a.item[VT_AUDIT_NONMINIMAL].count, 3);
	const struct vt_audit_item *it = &a.item[VT_AUDIT_CREDIT_LOOP];
	ck_assert_uint_eq(it->count, 1);
	/*
	 * Reported from the ring's channel of lowest index, S0/2 -> S1/3: the
	 * switch it leads to, S1, and the LID whose route turns there, host 2's.
	 */
	ck_assert_uint_eq(it->sw, f->nodes[sw[1]].sw);
	ck_assert_uint_eq(it->lid, lid[2]);
	char want[3 * VT_PORT_NAME_MAX + 160], ch[3][VT_PORT_NAME_MAX];
	for (int i = 0; i < 3; i++)
		snprintf(ch[i], sizeof(ch[i]), "\"S%d\" (0x%016llx, lid %u)/2", i,
			 (unsigned long long)f->nodes[sw[i]].guid, vt_port(f, sw[i], 0)->lid);
	snprintf(want, sizeof(want),
		 "\"S1\" (0x%016llx): a cycle of 3 channel dependencies (LID %u): %s %s %s",
		 (unsigned long long)f->nodes[sw[1]].guid, lid[2], ch[0], ch[1], ch[2]);
	ck_assert_str_eq(it->detail, want);
	/* without non-minimal hops (the repair's audit): none counted, the rest the same */
	struct vt_audit_opts ao = {.threads = 1, .every_source = 0, .skip_minimal = 1};
	vt_audit b;
	ck_assert_int_eq(vt_audit_run_opts(f, &t, &ao, &b, &e), 0);
	ck_assert_uint_eq(b.item[VT_AUDIT_NONMINIMAL].count, 0);
	ck_assert_uint_eq(b.item[VT_AUDIT_CREDIT_LOOP].count, 1);
	ck_assert_str_eq(b.item[VT_AUDIT_CREDIT_LOOP].detail, want);
	vs_reference(f, &t, "ring3", NULL);
	vt_lfts_free(&t);
	vt_fabric_free(f);
}
END_TEST

/* Whether switch sw's route to lid ends at the LID's port. */
static int delivers(const vt_fabric *f, const vt_lfts *t, uint32_t sw, uint32_t lid)
{
	for (uint32_t hops = 0; hops <= f->nswitches; hops++) {
		uint32_t node = f->switches[sw];
		uint8_t p = vt_lft_get(t, sw, lid);
		if (p == 0 || p > f->nodes[node].nports)
			return 0;
		uint32_t q = vt_port(f, node, p)->peer;
		if (q == VT_NONE)
			return 0;
		if (f->nodes[f->ports[q].node].type != VT_SWITCH)
			return q == f->lid_port[lid];
		sw = f->nodes[f->ports[q].node].sw;
	}
	return 0;
}

/*
 * Routed topofiles, then the same tables with 1 to 32 entries changed at
 * random (another port, unlinked ones too, or no entry): the audit on 1 and
 * 2 threads says exactly what the reference says, and the broken tables
 * between them make every kind of offence.
 */
START_TEST(matches_reference)
{
	static const char *const names[] = {
		"zahavi-4ary3",
		"rails2-4ary3",
		"degraded-4ary3-partial",
		"degraded-4ary3-leaf-uplink",
		"navaridas-slender-4-2-3",
		"wolfe-pruned-8-3",
		"zahavi-fig6-varary",
		"oversub-8-4-2-2",
	};
	unsigned hit[VT_AUDIT_NKINDS] = {0};
	vt_rand r;

	vt_rand_seed(&r, 22);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[128], what[160];
		vt_fabric *f;
		vt_lfts t;
		vt_order o;
		vt_err e = {0};

		snprintf(path, sizeof(path), "topofiles/%s.topo", names[i]);
		f = vt_test_load(path);
		ck_assert_msg(vt_route(f, NULL, &t, &o, &e) == 0, "%s: %s", names[i], e.msg);
		vs_reference(f, &t, names[i], NULL);
		size_t size = (size_t)t.nsw * t.nlid;
		uint8_t *good = malloc(size);
		ck_assert_ptr_nonnull(good);
		memcpy(good, t.port, size);
		for (unsigned v = 0; v < 36; v++) {
			unsigned n = 1u << (v % 9);
			memcpy(t.port, good, size);
			for (unsigned j = 0; j < (v % 2 ? 8 * n : n); j++) {
				uint32_t sw = (uint32_t)vt_rand_below(&r, t.nsw);
				uint32_t lid = 1 + (uint32_t)vt_rand_below(&r, t.nlid - 1);
				uint32_t node = f->switches[sw];
				unsigned np = f->nodes[node].nports;
				uint64_t p = vt_rand_below(&r, np + 2);
				uint8_t was = vt_lft_get(&t, sw, lid);
				vt_lft_set(&t, sw, lid, p > np ? VT_LFT_NONE : (uint8_t)p);
				/* odd variants: only detours that still deliver, so they add turns
				 */
				if (v % 2 && !delivers(f, &t, sw, lid))
					vt_lft_set(&t, sw, lid, was);
			}
			snprintf(what, sizeof(what), "%s, %u entries broken (variant %u)", names[i],
				 n, v);
			vs_reference(f, &t, what, hit);
		}
		free(good);
		vt_order_free(&o);
		vt_lfts_free(&t);
		vt_fabric_free(f);
	}
	for (int k = 0; k < VT_AUDIT_NKINDS; k++)
		ck_assert_msg(hit[k] > 0, "no broken table with a %s", vt_audit_name(k));
}
END_TEST

static Suite *audit_suite(void)
{
	Suite *s = suite_create("audit");
	TCase *t = tcase_create("core");

	tcase_add_test(t, audits);
	tcase_add_test(t, credit_loop);
	tcase_add_test(t, nonminimal_on_ca_path);
	tcase_add_test(t, matches_reference);
	suite_add_tcase(s, t);
	return s;
}

VT_TEST_MAIN(audit_suite)
