/* SPDX-License-Identifier: MIT */
/*
 * The second VL's last step (vt_vl_split_compute): where the split's rule
 * leaves a credit loop on a VL (a damaged tree, whose leaves' own routes to
 * switch LIDs turn down-up, or two VL 1 routes turning each into the
 * other's group), the routes are placed again one by one. The leaves'
 * routes to CA LIDs (every CA-to-CA route: up*-down*, so acyclic) are VL
 * 0's fixed base; every other route, in LID then switch order, goes on the
 * first VL of k (its way's first, then VL 0, 1, ...) where its channel
 * dependencies close no cycle there, else on VL k - 1 left out of the
 * checks: not covered (nopen), named in the log line. Where some are, other
 * orders are tried (replace_ways) and the one with the fewest kept; k is 2,
 * then 3 and up to the VLs the fabric has (cap), the fewest that cover
 * every route (damaged fat 4,3: 4 routes of 421 on VL 1 close a loop there
 * among themselves with two VLs; a third takes them).
 * Each VL then has no cycle among the routes placed; the audit checks.
 */
#include "analysis/vt_audit.h"

#include <stdlib.h>
#include <string.h>

#include "tree/vt_tree.h"

struct fix_ctx {
	const vt_fabric *f;
	const vt_lfts *t;
	uint32_t nsw;
	uint32_t *chan_sw;	   /* per port: switch it leads to, VT_NONE */
	uint32_t *swfirst;	   /* per switch: index of its port 0 */
	uint32_t *out;		   /* per switch: its channel toward the LID, VT_NONE */
	uint32_t *mark[VT_VL_MAX]; /* per switch: LID whose route from it is all in g[vl] */
	uint64_t *g[VT_VL_MAX];	   /* per VL and port: 4 words, bit p = dependency on port p next */
	unsigned ng;		   /* VLs with g[] and mark[] allocated */
	uint32_t *seen;		   /* per port: DFS stamp */
	uint32_t stamp;
	uint32_t *stack; /* DFS stack of ports */
	uint32_t *added; /* a route's new dependencies: (port, bit) pairs */
	uint8_t *open;	 /* per switch: a route of it not covered */
};

static uint32_t next_sw(const struct fix_ctx *c, uint32_t w)
{
	return c->out[w] == VT_NONE ? VT_NONE : c->chan_sw[c->out[w]];
}

/* The channel after ch (the next switch's toward the LID), VT_NONE at the end. */
static uint32_t next_chan(const struct fix_ctx *c, uint32_t ch)
{
	uint32_t u = c->chan_sw[ch];

	return u == VT_NONE || c->out[u] == VT_NONE || c->chan_sw[c->out[u]] == VT_NONE ? VT_NONE
											: c->out[u];
}

static void fill_out(struct fix_ctx *c, uint32_t lid)
{
	for (uint32_t x = 0; x < c->nsw; x++) {
		uint8_t p = vt_lft_get(c->t, x, lid);

		c->out[x] = p && p != VT_LFT_NONE && p <= c->f->nodes[c->f->switches[x]].nports &&
					    c->f->ports[c->swfirst[x] + p].peer != VT_NONE
				    ? c->swfirst[x] + p
				    : VT_NONE;
	}
}

/* Is channel to reachable from channel from in g? */
static int reaches(struct fix_ctx *c, const uint64_t *g, uint32_t from, uint32_t to)
{
	uint32_t sp = 0;

	if (++c->stamp == 0) {
		memset(c->seen, 0, (c->f->nports + 1) * sizeof(*c->seen));
		c->stamp = 1;
	}
	c->seen[from] = c->stamp;
	c->stack[sp++] = from;
	while (sp) {
		uint32_t ch = c->stack[--sp], u = c->chan_sw[ch];

		if (ch == to)
			return 1;
		for (unsigned w = 0; w < 4; w++)
			for (uint64_t b = g[(size_t)ch * 4 + w]; b; b &= b - 1) {
				uint32_t n = c->swfirst[u] + w * 64 + (unsigned)__builtin_ctzll(b);

				if (c->seen[n] != c->stamp) {
					c->seen[n] = c->stamp;
					c->stack[sp++] = n;
				}
			}
	}
	return 0;
}

/*
 * Adds the dependencies of switch x's route on VL v (up to a switch whose
 * route is all in g[v] for this LID); 0 and marked where they close no
 * cycle (check), else none added and -1.
 */
static int place(struct fix_ctx *c, uint32_t x, uint32_t lid, int v, int check)
{
	uint64_t *g = c->g[v];
	uint32_t na = 0, n = 0;

	for (uint32_t w = x; w != VT_NONE && c->mark[v][w] != lid && n++ <= c->nsw;
	     w = next_sw(c, w)) {
		uint32_t ch = c->out[w], ch2 = ch == VT_NONE ? VT_NONE : next_chan(c, ch);
		size_t at;
		uint64_t bit;

		if (ch2 == VT_NONE)
			break;
		at = (size_t)ch * 4 + c->f->ports[ch2].num / 64;
		bit = 1ull << (c->f->ports[ch2].num % 64);
		if (g[at] & bit)
			continue;
		if (check && reaches(c, g, ch2, ch)) {
			while (na) { /* undo this route's own */
				na -= 2;
				g[c->added[na]] &= ~(1ull << c->added[na + 1]);
			}
			return -1;
		}
		g[at] |= bit;
		c->added[na++] = (uint32_t)at;
		c->added[na++] = c->f->ports[ch2].num % 64;
	}
	for (uint32_t w = x, k = 0; w != VT_NONE && c->mark[v][w] != lid && k++ <= c->nsw;
	     w = next_sw(c, w))
		c->mark[v][w] = lid;
	return 0;
}

/* Has g a cycle? Kahn's order over the channels (deg: per port, scratch). */
static int has_cycle(struct fix_ctx *c, const uint64_t *g, uint32_t *deg)
{
	uint32_t np = c->f->nports, sp = 0, left = 0;

	memset(deg, 0, (np + 1) * sizeof(*deg));
	for (uint32_t p = 0; p < np; p++)
		for (unsigned w = 0; c->chan_sw[p] != VT_NONE && w < 4; w++)
			for (uint64_t b = g[(size_t)p * 4 + w]; b; b &= b - 1, left++)
				deg[c->swfirst[c->chan_sw[p]] + w * 64 +
				    (unsigned)__builtin_ctzll(b)]++;
	for (uint32_t p = 0; p < np; p++)
		if (!deg[p] && c->chan_sw[p] != VT_NONE)
			c->stack[sp++] = p;
	while (sp) {
		uint32_t p = c->stack[--sp], u = c->chan_sw[p];

		for (unsigned w = 0; w < 4; w++)
			for (uint64_t b = g[(size_t)p * 4 + w]; b; b &= b - 1) {
				uint32_t n = c->swfirst[u] + w * 64 + (unsigned)__builtin_ctzll(b);

				left--;
				if (!--deg[n])
					c->stack[sp++] = n;
			}
	}
	return left != 0;
}

static void set_vl(vt_vl_split *s, uint32_t x, uint32_t lid, unsigned v)
{
	uint64_t b = (uint64_t)x * s->nlid + lid;
	size_t nw = vt_vl_split_words(s);

	for (unsigned p = 0; p < s->nplanes; p++) {
		uint64_t *w = &s->bits[p * nw + b / 64];

		if (v >> p & 1)
			*w |= 1ull << (b % 64);
		else
			*w &= ~(1ull << (b % 64));
	}
}

/* Every route of the LIDs the audit follows into g[] as the split has them. */
static void place_all(struct fix_ctx *c, const vt_vl_split *s)
{
	for (uint32_t lid = 1; lid <= c->f->max_lid; lid++)
		if (vt_audit_lid(c->f, lid, 1)) {
			fill_out(c, lid);
			for (uint32_t x = 0; x < c->nsw; x++)
				place(c, x, lid, (int)vt_vl_split_get(s, x, lid), 0);
		}
}

/* VL 0's base: the leaves' routes to CA LIDs (every CA-to-CA route). */
static void place_base(struct fix_ctx *c, const uint8_t *level)
{
	for (uint32_t lid = 1; lid <= c->f->max_lid; lid++)
		if (vt_audit_lid(c->f, lid, 0)) {
			fill_out(c, lid);
			for (uint32_t x = 0; x < c->nsw; x++)
				if (!level[x])
					place(c, x, lid, 0, 0);
		}
}

/* The first VL of k where switch x's route closes no cycle: v, then 0, 1, ...; -1: none. */
static int place_first(struct fix_ctx *c, uint32_t x, uint32_t lid, int v, unsigned k)
{
	if (!place(c, x, lid, v, 1))
		return v;
	for (int u = 0; u < (int)k; u++)
		if (u != v && !place(c, x, lid, u, 1))
			return u;
	return -1;
}

/*
 * The routes placed again (see the top) on k VLs: the base, then the others
 * one by one, in variant way's order: bit 0, switches in reverse order;
 * bits 1-2, the VL tried first (0: the rule's, 1: VL 0, 2: VL 1).
 */
static void replace_all(struct fix_ctx *c, const uint8_t *level, vt_vl_split *s, unsigned way,
			int fixed, unsigned k)
{
	const vt_fabric *f = c->f;

	if (fixed)
		place_base(c, level);
	memset(c->mark[0], 0, c->nsw * sizeof(*c->mark[0]));
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		int ca = vt_audit_lid(f, lid, 0);

		if (!vt_audit_lid(f, lid, 1))
			continue;
		fill_out(c, lid);
		for (uint32_t i = 0; i < c->nsw; i++) {
			uint32_t x = way & 1 ? c->nsw - 1 - i : i;
			int v = way >> 1 ? (int)(way >> 1) - 1 : (int)vt_vl_split_get(s, x, lid), u;

			if (fixed && ca && !level[x]) {
				set_vl(s, x, lid, 0);
				place(c, x, lid, 0, 0);
			} else if ((u = place_first(c, x, lid, v, k)) >= 0) {
				set_vl(s, x, lid, (unsigned)u);
			} else { /* on the last VL, never among the CA-to-CA routes */
				set_vl(s, x, lid, k - 1);
				s->nopen_ca += (uint64_t)(ca && !level[x]);
				if (!s->nopen++) {
					s->open_sw = x;
					s->open_lid = lid;
				}
				s->nopen_src += !c->open[x];
				c->open[x] = 1;
			}
		}
	}
}

/* g[] and mark[] for k VLs, s->bits with the planes for VL k - 1; -1 out of memory. */
static int grow(struct fix_ctx *c, vt_vl_split *s, unsigned k)
{
	size_t words = ((size_t)c->f->nports + 1) * 4, nw = vt_vl_split_words(s);
	unsigned planes = 1;

	for (; c->ng < k; c->ng++) {
		c->g[c->ng] = calloc(words, sizeof(*c->g[0]));
		c->mark[c->ng] = calloc(c->nsw + 1, sizeof(*c->mark[0]));
		if (!c->g[c->ng] || !c->mark[c->ng]) {
			c->ng++; /* freed with the others */
			return -1;
		}
	}
	while ((1u << planes) < k)
		planes++;
	if (planes > s->nplanes) {
		uint64_t *b = realloc(s->bits, planes * nw * sizeof(*b));

		if (!b)
			return -1;
		memset(b + s->nplanes * nw, 0, (planes - s->nplanes) * nw * sizeof(*b));
		s->bits = b;
		s->nplanes = planes;
	}
	return 0;
}

/*
 * One placement on k VLs in way (replace_all), from the rule's split (rule:
 * its plane, VL 0 or 1); s holds it and its routes not covered.
 */
static void replace_once(struct fix_ctx *c, const uint8_t *level, vt_vl_split *s,
			 const uint64_t *rule, unsigned way, unsigned k)
{
	size_t words = ((size_t)c->f->nports + 1) * 4, nw = vt_vl_split_words(s);

	for (unsigned v = 0; v < k; v++) {
		memset(c->g[v], 0, words * sizeof(*c->g[v]));
		memset(c->mark[v], 0, (c->nsw + 1) * sizeof(*c->mark[v]));
	}
	memset(c->open, 0, c->nsw + 1);
	memset(s->bits, 0, s->nplanes * nw * sizeof(*s->bits));
	memcpy(s->bits, rule, nw * sizeof(*rule));
	s->nopen = 0;
	s->nopen_ca = 0;
	s->nopen_src = 0;
	replace_all(c, level, s, way, s->placed == 1, k);
}

/*
 * replace_once in each way until one leaves no route uncovered, VL 0 tried
 * first (VL 1 then holds only what VL 0 cannot: thin 4:2,3 --drop-links 6@1
 * --seed 11, 79 routes on VL 1, none uncovered, where the rule's VL first
 * leaves 6 of 406), else the rule's; on 2 VLs, then 3 and up to s->cap; the
 * way with the fewest kept. Where some stay uncovered on cap VLs, s->need
 * says how many VLs would cover them (VL 0 first only: a why, not tables).
 */
/* Why 2: the why is worth two placements more per sweep, not thirteen (VT_VL_MAX). */
#define VT_VL_NEED_MORE 2
static int replace_ways(struct fix_ctx *c, const uint8_t *level, vt_vl_split *s)
{
	static const unsigned ways[] = {2, 3, 0, 1};
	size_t nw = vt_vl_split_words(s), words = ((size_t)c->f->nports + 1) * 4;
	uint64_t *rule = malloc(nw * sizeof(*rule)), *best = NULL;
	struct vt_vl_split b = {0};
	int have = 0, rc = -1;
	unsigned bp; /* best's planes: cap's */

	if (!rule || grow(c, s, s->cap))
		goto out;
	bp = s->nplanes;
	best = malloc(bp * nw * sizeof(*best));
	if (!best)
		goto out;
	memcpy(rule, s->bits, nw * sizeof(*rule));
	/* the base alone closes a credit loop where CA-to-CA routes turn down-up
	 * (leaves with no up*-down* path between them): those are placed too */
	memset(c->g[0], 0, words * sizeof(*c->g[0]));
	memset(c->mark[0], 0, (c->nsw + 1) * sizeof(*c->mark[0]));
	place_base(c, level);
	if (has_cycle(c, c->g[0], c->seen))
		s->placed = 2;
	memset(c->seen, 0, ((size_t)c->f->nports + 1) * sizeof(*c->seen));
	c->stamp = 0;
	for (unsigned k = 2; k <= s->cap && (!have || b.nopen); k++)
		for (size_t i = 0; i < sizeof(ways) / sizeof(ways[0]); i++) {
			replace_once(c, level, s, rule, ways[i], k);
			if (!have || s->nopen < b.nopen) {
				b = *s;
				memcpy(best, s->bits, bp * nw * sizeof(*best));
				have = 1;
			}
			if (!s->nopen)
				break;
		}
	b.need = 0;
	for (unsigned k = s->cap + 1;
	     b.nopen && !b.nopen_ca && k <= s->cap + VT_VL_NEED_MORE && k <= VT_VL_MAX && !b.need;
	     k++) {
		if (grow(c, s, k))
			goto out;
		replace_once(c, level, s, rule, 2, k);
		b.need = s->nopen ? 0 : k;
	}
	b.bits = s->bits;
	b.nplanes = s->nplanes;
	*s = b;
	memset(s->bits, 0, s->nplanes * nw * sizeof(*best));
	memcpy(s->bits, best, bp * nw * sizeof(*best));
	rc = 0;
out:
	free(rule);
	free(best);
	return rc;
}

/* The counts of s from its bits: routes and switches per VL, the VLs used. */
static void count(vt_vl_split *s)
{
	memset(s->nvl, 0, sizeof(s->nvl));
	memset(s->nsrcs, 0, sizeof(s->nsrcs));
	s->nvl1 = 0;
	s->nsrc = 0;
	s->nvls = 1;
	for (uint32_t x = 0; x < s->nsw; x++) {
		uint64_t n[VT_VL_MAX] = {0};

		for (uint32_t lid = 0; lid < s->nlid; lid++)
			n[vt_vl_split_get(s, x, lid)]++;
		for (unsigned v = 1; v < VT_VL_MAX; v++) {
			s->nvl[v] += n[v];
			s->nsrcs[v] += n[v] > 0;
			s->nvl1 += n[v];
			if (n[v] && v >= s->nvls)
				s->nvls = v + 1;
		}
		s->nsrc += n[0] < s->nlid;
	}
}

int vt_vl_split_fix(const vt_fabric *f, const vt_lfts *t, const uint8_t *level, vt_vl_split *s,
		    vt_err *e)
{
	struct fix_ctx c = {.f = f, .t = t, .nsw = f->nswitches};
	size_t np = (size_t)f->nports + 1;
	int rc = 0;

	c.chan_sw = malloc(np * sizeof(*c.chan_sw));
	c.swfirst = malloc((c.nsw + 1) * sizeof(*c.swfirst));
	c.out = malloc((c.nsw + 1) * sizeof(*c.out));
	c.seen = calloc(np, sizeof(*c.seen));
	c.stack = malloc((np + 1) * sizeof(*c.stack));
	c.added = malloc((2 * (size_t)c.nsw + 4) * sizeof(*c.added));
	c.open = calloc(c.nsw + 1, 1);
	if (!c.open || !c.chan_sw || !c.swfirst || !c.out || !c.seen || !c.stack || !c.added ||
	    grow(&c, s, 2)) {
		rc = vt_err_nomem(e, "out of memory placing the routes of %u switches", c.nsw);
		goto out;
	}
	for (uint32_t x = 0; x < c.nsw; x++)
		c.swfirst[x] = vt_port_index(f, f->switches[x], 0);
	for (uint32_t p = 0; p < f->nports; p++)
		c.chan_sw[p] = vt_peer_switch(f, p);
	place_all(&c, s);
	if (has_cycle(&c, c.g[0], c.seen) || has_cycle(&c, c.g[1], c.seen)) {
		memset(c.seen, 0, np * sizeof(*c.seen)); /* has_cycle's scratch: stamps from 1 */
		c.stamp = 0;
		s->placed = 1;
		if (replace_ways(&c, level, s))
			rc = vt_err_nomem(e, "out of memory placing the routes of %u switches",
					  c.nsw);
	}
	count(s);
out:
	free(c.chan_sw);
	free(c.swfirst);
	free(c.out);
	for (unsigned v = 0; v < c.ng; v++) {
		free(c.mark[v]);
		free(c.g[v]);
	}
	free(c.seen);
	free(c.stack);
	free(c.added);
	free(c.open);
	return rc;
}
