/* SPDX-License-Identifier: MIT */
/* Forwarding-table audits (see vt_audit.h). */
#include "analysis/vt_audit.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* LIDs whose table columns are gathered at once: rows are read 1 byte per LID otherwise */
#define VT_AUDIT_BLOCK	     64
#define VT_AUDIT_MAX_THREADS 2

static const char *const names[VT_AUDIT_NKINDS] = {"unreachable", "loop", "misdelivery",
						   "non-minimal", "credit-loop"};

const char *vt_audit_name(enum vt_audit_kind k)
{
	return k < VT_AUDIT_NKINDS ? names[k] : "?";
}

unsigned vt_audit_failed(const vt_audit *a)
{
	unsigned n = 0;
	for (int k = 0; k < VT_AUDIT_NKINDS; k++)
		n += k != VT_AUDIT_NONMINIMAL && a->item[k].count != 0;
	return n;
}

/* Read-only after setup, shared by the workers. */
struct shared {
	const vt_fabric *f;
	const vt_lfts *t;
	uint32_t nsw;
	uint32_t *chan_sw;     /* per port: switch ordinal it leads to, VT_NONE */
	uint32_t *first;       /* per switch: ports[] index of port 0 */
	uint8_t *nports;       /* per switch */
	uint8_t *linked;       /* per port: has a peer */
	uint8_t *ca;	       /* per switch: traffic starts there (a CA hangs off it, or every) */
	int every;	       /* every switch a source, switch LIDs audited too */
	int skip_min;	       /* no non-minimal hops: dist rows are planes, 0 in and max out */
	const vt_vl_split *vl; /* routes on other VLs, audited apart; NULL: one VL */
	unsigned nvls;	       /* VLs audited apart: vl's, 1 without */
	uint32_t *lids;	       /* audited LIDs (of CA ports cabled to a switch), ascending */
	uint32_t nlids;
	uint32_t *dsws; /* distinct destination switches of those LIDs */
	uint32_t ndsw;
	uint32_t *dist_row; /* per switch: row of dist, VT_NONE if not a destination */
	uint16_t *dist;	    /* ndsw rows of nsw BFS hop distances */
};

/* Per worker. */
struct ctx {
	const struct shared *s;
	vt_audit a;	   /* offences of this worker's LIDs */
	uint32_t lo, hi;   /* range of s->lids */
	uint32_t dlo, dhi; /* range of s->dsws to compute distances for */
	uint32_t *out;	   /* per switch: channel toward the LID, VT_NONE */
	uint8_t *state;	   /* 0 unknown, 1 on stack, 2 good, 3 bad */
	uint16_t *seen;	   /* on a path that CA traffic takes: bit v on VL v */
	uint32_t *stack;   /* also the BFS queue */
	uint8_t *blk;	   /* VT_AUDIT_BLOCK columns of the tables, one per LID */
	/* per VL, per port: 4 words, bit p = dependency on port p of the next switch */
	uint64_t *edges[VT_VL_MAX];
	int fail;
};

/* Switch sw as messages name it, "DESC" (0xGUID): real fabrics repeat descriptions. */
static const char *sw_name(const vt_fabric *f, uint32_t sw, char *buf, size_t len)
{
	return vt_node_name(f, f->switches[sw], buf, len);
}

static void report(vt_audit *a, const vt_fabric *f, enum vt_audit_kind k, uint32_t sw, uint32_t lid,
		   const char *what)
{
	struct vt_audit_item *it = &a->item[k];

	if (!it->count++) {
		it->sw = sw;
		it->lid = lid;
		char n[120];

		snprintf(it->detail, sizeof(it->detail), "%s, LID %u: %s",
			 sw_name(f, sw, n, sizeof(n)), lid, what);
	}
}

static void bfs(const struct shared *s, uint32_t dsw, uint16_t *d, uint32_t *queue)
{
	uint32_t h = 0, tl = 0;

	for (uint32_t x = 0; x < s->nsw; x++)
		d[x] = UINT16_MAX;
	d[dsw] = 0;
	queue[tl++] = dsw;
	while (h < tl) {
		uint32_t x = queue[h++];
		for (unsigned p = 1; p <= s->nports[x]; p++) {
			uint32_t v = s->chan_sw[s->first[x] + p];
			if (v != VT_NONE && d[v] == UINT16_MAX) {
				d[v] = d[x] + 1;
				queue[tl++] = v;
			}
		}
	}
}

/* out[] for the LID whose table column is col. */
static void fill_out(struct ctx *c, const uint8_t *col)
{
	const struct shared *s = c->s;

	for (uint32_t x = 0; x < s->nsw; x++) {
		uint8_t p = col[x];
		uint32_t ch = s->first[x] + p;
		c->out[x] = p != 0 && p != VT_LFT_NONE && p <= s->nports[x] && s->linked[ch]
				    ? ch
				    : VT_NONE;
	}
}

/*
 * Follows every switch's route to the LID once (routes already classified
 * end a walk), so each forwarding loop, dead end and wrong delivery is
 * reported once, from the lowest switch ordinal whose route reaches it.
 */
static void walk_lid(struct ctx *c, vt_audit *a, uint32_t lid, uint32_t dp, const uint16_t *dist)
{
	const struct shared *s = c->s;
	const vt_fabric *f = s->f;

	memset(c->state, 0, s->nsw);
	for (uint32_t s0 = 0; s0 < s->nsw; s0++) {
		uint32_t sp = 0, sw = s0, good = 0;

		/* another plane of a multi-rail fabric: no cable leads there */
		if (dist[s0] == UINT16_MAX || c->state[s0])
			continue;
		while (1) {
			if (s->first[sw] == dp) { /* a switch's own LID, delivered at port 0 */
				good = 1;
				break;
			}
			if (c->state[sw] >= 2) {
				good = c->state[sw] == 2;
				break;
			}
			if (c->state[sw] == 1) {
				report(a, f, VT_AUDIT_LOOP, sw, lid, "forwarding loop");
				break;
			}
			uint32_t ch = c->out[sw];
			c->state[sw] = 1;
			c->stack[sp++] = sw;
			if (ch == VT_NONE) {
				uint8_t p = vt_lft_get(s->t, sw, lid);
				char why[64];
				if (p == VT_LFT_NONE)
					snprintf(why, sizeof(why), "no route (no LFT entry)");
				else
					snprintf(why, sizeof(why),
						 "no route (port %u is not linked)", p);
				report(a, f, VT_AUDIT_UNREACHABLE, sw, lid, why);
				break;
			}
			uint32_t nx = s->chan_sw[ch];
			if (nx == VT_NONE) {
				uint32_t q = f->ports[ch].peer;
				good = q == dp;
				if (!good) {
					char why[192], n[120];
					snprintf(why, sizeof(why), "delivered to %s port %u",
						 vt_node_name(f, f->ports[q].node, n, sizeof(n)),
						 f->ports[q].num);
					report(a, f, VT_AUDIT_MISDELIVERY, sw, lid, why);
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
	/* the switches on paths CA traffic takes: from every switch with a CA that reaches the LID
	 */
	memset(c->seen, 0, s->nsw * sizeof(*c->seen));
	for (uint32_t s0 = 0; s0 < s->nsw; s0++) {
		if (c->state[s0] != 2 || !s->ca[s0])
			continue;
		uint16_t bit = (uint16_t)(1u << vt_vl_split_get(s->vl, s0, lid));
		for (uint32_t w = s0; w != VT_NONE && !(c->seen[w] & bit);) {
			c->seen[w] |= bit;
			w = c->out[w] == VT_NONE ? VT_NONE : s->chan_sw[c->out[w]];
		}
	}
}

/*
 * On the switches CA traffic passes (all routes good there): hops that are
 * not one closer to the destination, in switch order (entries no CA path
 * uses, such as a detour from a switch that lost its down path, carry no
 * traffic and are not counted), and the channel dependencies w -> u -> next.
 */
/* A non-minimal hop w -> u: only the first of the kind keeps a text, the rest only count. */
static void nonminimal(struct ctx *c, uint32_t lid, uint32_t w, uint32_t u, const uint16_t *dist)
{
	char why[192], n[120];

	if (c->a.item[VT_AUDIT_NONMINIMAL].count) {
		c->a.item[VT_AUDIT_NONMINIMAL].count++;
		return;
	}
	snprintf(why, sizeof(why), "non-minimal hop to %s (%u switch hops where %u would do)",
		 sw_name(c->s->f, u, n, sizeof(n)), dist[u] + 1, dist[w]);
	report(&c->a, c->s->f, VT_AUDIT_NONMINIMAL, w, lid, why);
}

static void ca_paths(struct ctx *c, uint32_t lid, const uint16_t *dist)
{
	const struct shared *s = c->s;
	const vt_fabric *f = s->f;

	for (uint32_t w = 0; w < s->nsw; w++) {
		if (!c->seen[w])
			continue;
		uint32_t ch = c->out[w], u = ch == VT_NONE ? VT_NONE : s->chan_sw[ch];
		if (u == VT_NONE)
			continue;
		if (!s->skip_min && dist[u] + 1 != dist[w])
			nonminimal(c, lid, w, u, dist);
		uint32_t ch2 = c->out[u];
		if (ch2 != VT_NONE && s->chan_sw[ch2] != VT_NONE) {
			unsigned pn = f->ports[ch2].num;
			for (unsigned v = 0; v < s->nvls; v++)
				if (c->seen[w] >> v & 1)
					c->edges[v][(size_t)ch * 4 + pn / 64] |= 1ull << (pn % 64);
		}
	}
}

/* Gathers the table columns of lids[i..i+n) into blk, column j at blk + j * nsw. */
static void gather(struct ctx *c, uint32_t i, uint32_t n)
{
	const struct shared *s = c->s;

	for (uint32_t x = 0; x < s->nsw; x++) {
		const uint8_t *row = vt_lft_row(s->t, x);
		for (uint32_t j = 0; j < n; j++)
			c->blk[(size_t)j * s->nsw + x] = row[s->lids[i + j]];
	}
}

static void *distances_worker(void *arg)
{
	struct ctx *c = arg;
	const struct shared *s = c->s;

	for (uint32_t i = c->dlo; i < c->dhi; i++)
		bfs(s, s->dsws[i], s->dist + (size_t)i * s->nsw, c->stack);
	return NULL;
}

/* The switch a LID's port dp is on (a switch's port 0) or cabled to (a CA port). */
static uint32_t dest_sw(const vt_fabric *f, uint32_t dp)
{
	if (f->nodes[f->ports[dp].node].type == VT_SWITCH)
		return f->nodes[f->ports[dp].node].sw;
	return f->nodes[f->ports[f->ports[dp].peer].node].sw;
}

static const uint16_t *lid_dist(const struct shared *s, uint32_t dp)
{
	uint32_t dsw = dest_sw(s->f, dp);
	return s->dist + (size_t)s->dist_row[dsw] * s->nsw;
}

static void *lids_worker(void *arg)
{
	struct ctx *c = arg;
	const struct shared *s = c->s;

	for (uint32_t i = c->lo; i < c->hi; i += VT_AUDIT_BLOCK) {
		uint32_t n = c->hi - i < VT_AUDIT_BLOCK ? c->hi - i : VT_AUDIT_BLOCK;
		gather(c, i, n);
		for (uint32_t j = 0; j < n; j++) {
			uint32_t lid = s->lids[i + j], dp = s->f->lid_port[lid];
			const uint16_t *dist = lid_dist(s, dp);
			fill_out(c, c->blk + (size_t)j * s->nsw);
			walk_lid(c, &c->a, lid, dp, dist);
			ca_paths(c, lid, dist);
		}
	}
	return NULL;
}

/* Runs fn on every worker, the first in the calling thread. */
static void run_workers(struct ctx *w, unsigned n, void *(*fn)(void *))
{
	pthread_t th[VT_AUDIT_MAX_THREADS];
	int started[VT_AUDIT_MAX_THREADS] = {0};

	for (unsigned i = 1; i < n; i++)
		started[i] = pthread_create(&th[i], NULL, fn, &w[i]) == 0;
	fn(&w[0]);
	for (unsigned i = 1; i < n; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		else
			fn(&w[i]);
	}
}

/* Depth-first search for a cycle among switch-to-switch channels; fills cyc, returns its length. */
static uint32_t find_cycle(const struct shared *s, const uint64_t *edges, uint32_t *cyc)
{
	const vt_fabric *f = s->f;
	uint32_t np = f->nports;
	uint8_t *color = calloc(np + 1, 1);
	uint32_t *stk = malloc((np + 1) * sizeof(*stk)), *it = malloc((np + 1) * sizeof(*it));
	uint32_t len = 0;

	if (!color || !stk || !it)
		goto out;
	for (uint32_t r = 0; r < np && !len; r++) {
		if (color[r] || s->chan_sw[r] == VT_NONE ||
		    f->nodes[f->ports[r].node].type != VT_SWITCH)
			continue;
		uint32_t sp = 0;
		stk[sp] = r;
		it[sp++] = 0;
		color[r] = 1;
		while (sp && !len) {
			uint32_t ch = stk[sp - 1], u = s->chan_sw[ch], pn = it[sp - 1];
			const uint64_t *e = edges + (size_t)ch * 4;
			/* next dependency at or after port pn: skip empty words at once */
			while (pn < 256 && !(e[pn / 64] >> (pn % 64)))
				pn = (pn / 64 + 1) * 64;
			while (pn < 256 && !(e[pn / 64] >> (pn % 64) & 1))
				pn++;
			if (pn > 255) {
				color[ch] = 2;
				sp--;
				continue;
			}
			it[sp - 1] = pn + 1;
			uint32_t nx = vt_port_index(f, f->switches[u], pn);
			if (color[nx] == 1) {
				uint32_t k = sp;
				while (stk[k - 1] != nx)
					k--;
				for (uint32_t i = k - 1; i < sp; i++)
					cyc[len++] = stk[i];
			} else if (!color[nx]) {
				color[nx] = 1;
				stk[sp] = nx;
				it[sp++] = 0;
			}
		}
	}
out:
	free(color);
	free(stk);
	free(it);
	return len;
}

/*
 * Reports a credit loop on VL vl (the first one found is the one named), with
 * the first LID whose routes on that VL make its first turn.
 */
static void credit_loops(struct ctx *c, const uint64_t *edges, unsigned vl, vt_audit *a)
{
	const struct shared *s = c->s;
	const vt_fabric *f = s->f;
	uint32_t *cyc = malloc((f->nports + 1) * sizeof(*cyc));
	uint32_t len;

	if (!cyc) {
		c->fail = 1;
		return;
	}
	len = find_cycle(s, edges, cyc);
	if (len && a->item[VT_AUDIT_CREDIT_LOOP].count) {
		a->item[VT_AUDIT_CREDIT_LOOP].count++;
	} else if (len) {
		uint32_t from = cyc[0], u = s->chan_sw[from], sw = f->nodes[f->ports[from].node].sw;
		unsigned pn = f->ports[cyc[1 % len]].num;
		struct vt_audit_item *it = &a->item[VT_AUDIT_CREDIT_LOOP];
		/* offences are counted already: walk_lid reports into a zeroed throwaway
		 * (report() reads the counts it bumps) */
		vt_audit scratch = {0};

		it->count = 1;
		it->sw = u;
		it->lid = 0;
		for (uint32_t i = 0; i < s->nlids; i++) {
			uint32_t lid = s->lids[i], dp = f->lid_port[lid];
			const uint16_t *dist = lid_dist(s, dp);
			for (uint32_t x = 0; x < s->nsw; x++)
				c->blk[x] = vt_lft_get(s->t, x, lid);
			fill_out(c, c->blk);
			walk_lid(c, &scratch, lid, dp, dist);
			if ((c->seen[sw] >> vl & 1) && c->out[sw] == from && c->out[u] != VT_NONE &&
			    s->chan_sw[c->out[u]] != VT_NONE && f->ports[c->out[u]].num == pn) {
				it->lid = lid;
				break;
			}
		}
		char n[120], pre[16] = "";
		size_t o;

		if (vl) /* VL 0 unnamed: one VL's audits say nothing of VLs */
			snprintf(pre, sizeof(pre), "VL %u: ", vl);
		o = (size_t)snprintf(it->detail, sizeof(it->detail),
				     "%s%s: a cycle of %u channel dependencies (LID %u):", pre,
				     sw_name(f, it->sw, n, sizeof(n)), len, it->lid);
		for (uint32_t i = 0; i < len && o < sizeof(it->detail) - 1; i++)
			o += (size_t)snprintf(it->detail + o, sizeof(it->detail) - o, " %s",
					      vt_port_name(f, cyc[i], n, sizeof(n)));
	}
	free(cyc);
}

static int has_ca(const vt_fabric *f, uint32_t node)
{
	for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
		uint32_t q = vt_port(f, node, p)->peer;

		if (q != VT_NONE && f->nodes[f->ports[q].node].type != VT_SWITCH)
			return 1;
	}
	return 0;
}

/* CA LIDs cabled to a switch; with every, switch LIDs (their port 0's range) too. */
int vt_audit_lid(const vt_fabric *f, uint32_t lid, int every)
{
	uint32_t dp = f->lid_port[lid];

	if (dp == VT_NONE)
		return 0;
	if (f->nodes[f->ports[dp].node].type == VT_SWITCH)
		return every && f->ports[dp].num == 0;
	return f->ports[dp].peer != VT_NONE &&
	       f->nodes[f->ports[f->ports[dp].peer].node].type == VT_SWITCH;
}

/*
 * Without non-minimal hops, walk_lid needs of a distance only whether the
 * switch is in the destination's plane: a row per connected part of the
 * switches (0 inside, UINT16_MAX outside) and dist_row the part of each
 * destination switch. -1 when out of memory.
 */
static int plane_rows(struct shared *s)
{
	uint32_t nsw = s->nsw, np = 0, *part = malloc((nsw + 1) * sizeof(*part));
	uint32_t *queue = malloc((nsw + 1) * sizeof(*queue));
	int rc = -1;

	if (!part || !queue)
		goto out;
	for (uint32_t x = 0; x < nsw; x++)
		part[x] = VT_NONE;
	for (uint32_t x0 = 0; x0 < nsw; x0++) {
		uint32_t h = 0, tl = 0;

		if (part[x0] != VT_NONE)
			continue;
		part[x0] = np;
		queue[tl++] = x0;
		while (h < tl) {
			uint32_t x = queue[h++];

			for (unsigned p = 1; p <= s->nports[x]; p++) {
				uint32_t v = s->chan_sw[s->first[x] + p];

				if (v != VT_NONE && part[v] == VT_NONE) {
					part[v] = np;
					queue[tl++] = v;
				}
			}
		}
		np++;
	}
	s->dist = malloc(((size_t)np * nsw + 1) * sizeof(*s->dist));
	if (!s->dist)
		goto out;
	for (uint32_t i = 0; i < np; i++)
		for (uint32_t x = 0; x < nsw; x++)
			s->dist[(size_t)i * nsw + x] = part[x] == i ? 0 : UINT16_MAX;
	for (uint32_t i = 0; i < s->ndsw; i++)
		s->dist_row[s->dsws[i]] = part[s->dsws[i]];
	rc = 0;
out:
	free(part);
	free(queue);
	return rc;
}

static int setup(struct shared *s)
{
	const vt_fabric *f = s->f;
	uint32_t nsw = s->nsw;

	s->chan_sw = malloc((f->nports + 1) * sizeof(*s->chan_sw));
	s->linked = malloc(f->nports + 1);
	s->first = malloc((nsw + 1) * sizeof(*s->first));
	s->nports = malloc(nsw + 1);
	s->ca = malloc(nsw + 1);
	s->lids = malloc(((size_t)f->max_lid + 1) * sizeof(*s->lids));
	s->dsws = malloc((nsw + 1) * sizeof(*s->dsws));
	s->dist_row = malloc((nsw + 1) * sizeof(*s->dist_row));
	if (!s->chan_sw || !s->linked || !s->first || !s->nports || !s->ca || !s->lids ||
	    !s->dsws || !s->dist_row)
		return -1;
	for (uint32_t p = 0; p < f->nports; p++) {
		uint32_t q = f->ports[p].peer;
		s->chan_sw[p] = VT_NONE;
		s->linked[p] = q != VT_NONE;
		if (q != VT_NONE && f->nodes[f->ports[q].node].type == VT_SWITCH)
			s->chan_sw[p] = f->nodes[f->ports[q].node].sw;
	}
	s->chan_sw[f->nports] = VT_NONE;
	s->linked[f->nports] = 0;
	for (uint32_t x = 0; x < nsw; x++) {
		uint32_t node = f->switches[x];
		s->first[x] = f->nodes[node].first_port;
		s->nports[x] = (uint8_t)f->nodes[node].nports;
		s->ca[x] = (uint8_t)(s->every || has_ca(f, node));
		s->dist_row[x] = VT_NONE;
	}
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		if (!vt_audit_lid(f, lid, s->every))
			continue;
		uint32_t dsw = dest_sw(f, f->lid_port[lid]);
		s->lids[s->nlids++] = lid;
		if (s->dist_row[dsw] == VT_NONE) {
			s->dist_row[dsw] = s->ndsw;
			s->dsws[s->ndsw++] = dsw;
		}
	}
	if (s->skip_min)
		return plane_rows(s);
	s->dist = malloc(((size_t)s->ndsw * nsw + 1) * sizeof(*s->dist));
	return s->dist ? 0 : -1;
}

static void free_shared(struct shared *s)
{
	free(s->chan_sw);
	free(s->linked);
	free(s->first);
	free(s->nports);
	free(s->ca);
	free(s->lids);
	free(s->dsws);
	free(s->dist_row);
	free(s->dist);
}

int vt_audit_run_threads(const vt_fabric *f, const vt_lfts *t, unsigned nthreads, vt_audit *a,
			 vt_err *e)
{
	struct vt_audit_opts o = {.threads = nthreads};

	return vt_audit_run_opts(f, t, &o, a, e);
}

int vt_audit_run_opts(const vt_fabric *f, const vt_lfts *t, const struct vt_audit_opts *o,
		      vt_audit *a, vt_err *e)
{
	struct shared s = {.f = f,
			   .t = t,
			   .nsw = f->nswitches,
			   .every = o->every_source,
			   .vl = o->vl,
			   .nvls = o->vl && o->vl->nvls > 1 ? o->vl->nvls : 1,
			   .skip_min = o->skip_minimal};
	unsigned nthreads = o->threads;
	struct ctx w[VT_AUDIT_MAX_THREADS];
	unsigned n = nthreads < 1		       ? 1
		     : nthreads > VT_AUDIT_MAX_THREADS ? VT_AUDIT_MAX_THREADS
						       : nthreads;
	int rc = 0, bad = 0;

	memset(a, 0, sizeof(*a));
	memset(w, 0, sizeof(w));
	for (int k = 0; k < VT_AUDIT_NKINDS; k++)
		a->item[k].sw = VT_NONE;
	bad = setup(&s);
	for (unsigned i = 0; i < n && !bad; i++) {
		struct ctx *c = &w[i];
		c->s = &s;
		/* contiguous LID ranges, so the first offence is the first worker's that has one */
		c->lo = (uint32_t)((uint64_t)s.nlids * i / n);
		c->hi = (uint32_t)((uint64_t)s.nlids * (i + 1) / n);
		c->dlo = (uint32_t)((uint64_t)s.ndsw * i / n);
		c->dhi = (uint32_t)((uint64_t)s.ndsw * (i + 1) / n);
		for (int k = 0; k < VT_AUDIT_NKINDS; k++)
			c->a.item[k].sw = VT_NONE;
		c->out = malloc((s.nsw + 1) * sizeof(*c->out));
		c->state = malloc(s.nsw + 1);
		c->seen = malloc((s.nsw + 1) * sizeof(*c->seen));
		c->stack = malloc((s.nsw + 1) * sizeof(*c->stack));
		c->blk = malloc((size_t)VT_AUDIT_BLOCK * s.nsw + 1);
		bad |= !c->out || !c->state || !c->seen || !c->stack || !c->blk;
		for (unsigned v = 0; v < s.nvls; v++) {
			c->edges[v] = calloc((size_t)f->nports * 4 + 1, sizeof(*c->edges[v]));
			bad |= !c->edges[v];
		}
	}
	if (bad) {
		rc = vt_err_nomem(e, "out of memory auditing %u switches", s.nsw);
		goto out;
	}
	if (!s.skip_min)
		run_workers(w, n, distances_worker);
	run_workers(w, n, lids_worker);
	for (unsigned i = 0; i < n; i++) {
		for (int k = 0; k < VT_AUDIT_CREDIT_LOOP; k++) {
			const struct vt_audit_item *src = &w[i].a.item[k];
			if (src->count && !a->item[k].count)
				a->item[k] = *src;
			else
				a->item[k].count += src->count;
		}
		if (i)
			for (unsigned v = 0; v < s.nvls; v++)
				for (size_t j = 0; j < (size_t)f->nports * 4; j++)
					w[0].edges[v][j] |= w[i].edges[v][j];
	}
	for (unsigned v = 0; v < s.nvls; v++)
		credit_loops(&w[0], w[0].edges[v], v, a);
	if (w[0].fail)
		rc = vt_err_nomem(e, "out of memory auditing %u switches", s.nsw);
out:
	for (unsigned i = 0; i < n; i++) {
		free(w[i].out);
		free(w[i].state);
		free(w[i].seen);
		free(w[i].stack);
		free(w[i].blk);
		for (unsigned v = 0; v < VT_VL_MAX; v++)
			free(w[i].edges[v]);
	}
	free_shared(&s);
	return rc;
}

int vt_audit_run(const vt_fabric *f, const vt_lfts *t, vt_audit *a, vt_err *e)
{
	return vt_audit_run_threads(f, t, VT_AUDIT_MAX_THREADS, a, e);
}
