/* SPDX-License-Identifier: MIT */
/*
 * Zahavi et al., Algorithm 1: switch tuples by a BFS from the first leaf, then
 * every pair of adjacent levels checked against Definition 2 (linked iff the
 * tuples differ at most in digit r); what breaks it becomes departures.
 *
 * The paper finds the lowest free digit by a scan of all switches (O(N_S)
 * each); here a hash of (level, tuple with digit i masked) keeps one rising
 * counter per "column" and a hash of (level, tuple) says what is taken, so a
 * switch costs O(1) amortised and the whole BFS O(E).
 *
 * One refinement over the paper's rule: going down into a level-(r-1)
 * subtree that already has its digit r-1 (a sibling switch got it), the new
 * switch takes the same digit; a new subtree takes the next index of its
 * parent subtree. The paper's per-column "lowest free" would number the
 * subtrees in the port order of whichever switch first reached each column,
 * and a fabric cabled in another port order would get tuples that break
 * Definition 2 although it is a regular tree.
 */
#include "tree/vt_tree_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vt_hash.h"

#define MASK 0xFFFFu /* the masked digit of a column key; digits of an unreached switch */

/* Keys of `width` halfwords (level, then the digits), entries numbered as added. */
struct tmap {
	uint32_t width, n, cap;
	uint16_t *keys; /* cap * width */
	uint32_t *val;
	vt_hidx idx; /* entry index by key */
};

static int tmap_init(struct tmap *m, uint32_t width, uint32_t cap)
{
	memset(m, 0, sizeof(*m));
	m->width = width;
	m->cap = cap;
	m->keys = malloc(((size_t)cap * width + 1) * sizeof(*m->keys));
	m->val = malloc(((size_t)cap + 1) * sizeof(*m->val));
	if (!m->keys || !m->val || vt_hidx_init(&m->idx, cap))
		return -1;
	return 0;
}

static void tmap_free(struct tmap *m)
{
	free(m->keys);
	free(m->val);
	vt_hidx_free(&m->idx);
}

/* Entry of key k; added with value v0 when absent and add is set, else VT_NONE. */
static uint32_t tmap_get(struct tmap *m, const uint16_t *k, int add, uint32_t v0)
{
	size_t kb = m->width * sizeof(*k);
	uint32_t h = vt_hidx_start(&m->idx, vt_hash_bytes(k, kb)), x;

	for (; (x = m->idx.slot[h]) != VT_HASH_EMPTY; h = vt_hidx_next(&m->idx, h))
		if (!memcmp(&m->keys[(size_t)x * m->width], k, kb))
			return x;
	if (!add || m->n == m->cap)
		return VT_NONE;
	x = m->n++;
	memcpy(&m->keys[(size_t)x * m->width], k, kb);
	m->val[x] = v0;
	m->idx.slot[h] = x;
	return x;
}

struct tstate {
	vt_tree *t;
	uint32_t D;	   /* digits per tuple: nlevels - 1 */
	struct tmap m;	   /* (level, tuple) -> switch; (level, tuple, digit i masked) -> counter */
	uint16_t *key;	   /* D + 1 halfwords of scratch */
	uint32_t *podval;  /* per subtree id: its digit at its own level, VT_NONE when not yet */
	uint32_t *podnext; /* per subtree id: next index for a new child subtree */
	uint32_t *queue;
	uint32_t nq;
};

static uint16_t *tup(const struct tstate *st, uint32_t s)
{
	return &st->t->tuple[(size_t)s * st->D];
}

static uint32_t sub_of(const vt_tree *t, uint32_t l, uint32_t s)
{
	return t->sub ? t->sub[(size_t)l * t->nsw + s] : VT_NONE;
}

static const uint16_t *keyof(struct tstate *st, uint32_t lvl, const uint16_t *digits,
			     uint32_t masked)
{
	st->key[0] = (uint16_t)lvl;
	memcpy(&st->key[1], digits, st->D * sizeof(*digits));
	if (masked != VT_NONE)
		st->key[1 + masked] = MASK;
	return st->key;
}

static int taken(struct tstate *st, uint32_t lvl, const uint16_t *digits)
{
	return tmap_get(&st->m, keyof(st, lvl, digits, VT_NONE), 0, 0) != VT_NONE;
}

/*
 * Sets digit i of switch x (its other digits already in place) to v, or when
 * v is MASK or taken to the lowest digit free in its column, and claims the
 * tuple. The column's counter only rises past taken values, so every value
 * below it is taken and the first free one is the lowest.
 */
static int claim(struct tstate *st, uint32_t x, uint32_t i, uint32_t v, vt_err *e)
{
	uint32_t lvl = st->t->level[x];
	uint16_t *d = tup(st, x);

	if (v != MASK) {
		d[i] = (uint16_t)v;
		if (taken(st, lvl, d))
			v = MASK;
	}
	if (v == MASK) {
		uint32_t c = tmap_get(&st->m, keyof(st, lvl, d, i), 1, 0);

		if (c == VT_NONE)
			return vt_err_nomem(e, "out of memory");
		for (;;) {
			if (st->m.val[c] >= MASK)
				return vt_err_set(e, "more than %u switches in one tuple column",
						  MASK);
			d[i] = (uint16_t)st->m.val[c]++;
			if (!taken(st, lvl, d))
				break;
		}
	}
	if (tmap_get(&st->m, keyof(st, lvl, d, VT_NONE), 1, x) == VT_NONE)
		return vt_err_nomem(e, "out of memory");
	/* its subtree at its own level now has an index (digit lvl) in its parent */
	if (lvl < st->D && st->podval) {
		uint32_t c = sub_of(st->t, lvl, x), p = sub_of(st->t, lvl + 1, x);

		if (c != VT_NONE && st->podval[c] == VT_NONE) {
			st->podval[c] = d[lvl];
			if (p != VT_NONE && st->podnext[p] <= d[lvl])
				st->podnext[p] = d[lvl] + 1u;
		}
	}
	st->queue[st->nq++] = x;
	return 0;
}

/* Algorithm 1 from switch `from` (already numbered): every switch it reaches. */
static int bfs(struct tstate *st, uint32_t h, vt_err *e)
{
	vt_tree *t = st->t;
	const vt_fabric *f = t->f;

	for (; h < st->nq; h++) {
		uint32_t s = st->queue[h], node = f->switches[s], r = t->level[s];

		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t pn = vt_peer_node(f, vt_port_index(f, node, p)), x, i, v = MASK;

			if (pn == VT_NONE || f->nodes[pn].type != VT_SWITCH)
				continue;
			x = f->nodes[pn].sw;
			if (t->level[x] == VT_TREE_OUTSIDE || t->level[x] == r ||
			    tup(st, x)[0] != MASK)
				continue;
			if (t->level[x] == r + 1) {
				i = r;
			} else if (t->level[x] + 1u == r) {
				uint32_t c = sub_of(t, r - 1, x), par = sub_of(t, r, s);

				i = r - 1;
				if (c != VT_NONE && par != VT_NONE)
					v = st->podval[c] != VT_NONE ? st->podval[c]
								     : st->podnext[par];
			} else {
				continue; /* not an adjacent level: check_links refuses it */
			}
			memcpy(tup(st, x), tup(st, s), st->D * sizeof(uint16_t));
			if (claim(st, x, i, v, e))
				return -1;
		}
	}
	return 0;
}

static int assign(struct tstate *st, vt_err *e)
{
	vt_tree *t = st->t;

	for (uint32_t k = 0; k < t->lvl_start[t->nlevels]; k++) {
		uint32_t s = t->by_level[k], h = st->nq;

		if (tup(st, s)[0] != MASK)
			continue;
		/* the first leaf is all zeros; a switch no BFS reached (never, on a
		 * tree vt_tree accepts) starts its own, numbered in its column */
		memset(tup(st, s), 0, st->D * sizeof(uint16_t));
		if (claim(st, s, 0, k ? MASK : 0, e))
			return -1;
		if (!k && st->podval)
			for (uint32_t l = 1; l < st->D; l++) {
				uint32_t c = sub_of(t, l, s), p = sub_of(t, l + 1, s);

				if (c != VT_NONE && st->podval[c] == VT_NONE)
					st->podval[c] = 0;
				if (p != VT_NONE && !st->podnext[p])
					st->podnext[p] = 1;
			}
		if (bfs(st, h, e))
			return -1;
	}
	return 0;
}

static char *fmt_tuple(char *buf, size_t n, const struct tstate *st, uint32_t s)
{
	const uint16_t *d = tup(st, s);
	size_t o = (size_t)snprintf(buf, n, "{%u", st->t->level[s]);

	for (uint32_t j = st->D; j-- > 0 && o < n;)
		o += (size_t)snprintf(buf + o, n - o, ",%u", d[j]);
	if (o < n)
		snprintf(buf + o, n - o, "}");
	return buf;
}

/* Switch s as messages name it (description and GUID) in buf, 300 bytes. */
static const char *swname(const vt_tree *t, uint32_t s, char *buf)
{
	return vt_node_name(t->f, t->f->switches[s], buf, 300);
}

/*
 * linked: a link whose tuples differ in digit j; else a missing link whose
 * tuples differ only there. more: further such pairs of the same upper switch.
 */
static void dep_pair(struct tstate *st, uint32_t lo, uint32_t hi, int linked, uint32_t j,
		     uint32_t more)
{
	char a[128], b[128], m[360] = "", nl[300], nh[300];

	swname(st->t, lo, nl);
	swname(st->t, hi, nh);
	if (more)
		snprintf(m, sizeof(m), " (and %u more %s of %s)", more,
			 linked ? "down-links" : "missing down-links", nh);
	vt_tree_dep(st->t, "switches %s %s and %s %s %s, but their tuples differ %sin digit %u%s",
		    nl, fmt_tuple(a, sizeof(a), st, lo), nh, fmt_tuple(b, sizeof(b), st, hi),
		    linked ? "are linked" : "are not linked", linked ? "" : "only ", j, m);
}

/*
 * Definition 2, level pair (r, r+1), per upper switch X in tree order: its
 * down-links whose tuples differ elsewhere than digit r, then the switches of
 * its column at level r (X's tuple, digit r free) it has no link to; one line
 * for each kind naming the first, so a fabric far from a tree (slender) does
 * not bury the rest.
 */
static int check_def2(struct tstate *st, vt_err *e)
{
	vt_tree *t = st->t;
	uint32_t nsw = t->nsw, D = st->D;
	uint32_t *next = malloc((nsw + 1) * sizeof(*next));
	uint32_t *tail = malloc((nsw + 1) * sizeof(*tail));
	uint32_t *stamp = malloc((nsw + 1) * sizeof(*stamp));
	struct tmap cols = {0};
	int rc = -1;

	if (!next || !tail || !stamp || tmap_init(&cols, D + 1, nsw + 1)) {
		vt_err_nomem(e, "out of memory");
		goto out;
	}
	memset(stamp, 0xff, nsw * sizeof(*stamp));
	for (uint32_t r = 0; r < D; r++) {
		for (uint32_t k = t->lvl_start[r]; k < t->lvl_start[r + 1]; k++) {
			uint32_t s = t->by_level[k];
			uint32_t c = tmap_get(&cols, keyof(st, r, tup(st, s), r), 1, s);

			next[s] = VT_NONE;
			if (c == VT_NONE) {
				vt_err_nomem(e, "out of memory");
				goto out;
			}
			if (cols.val[c] != s)
				next[tail[c]] = s;
			tail[c] = s;
		}
		for (uint32_t k = t->lvl_start[r + 1]; k < t->lvl_start[r + 2]; k++) {
			uint32_t x = t->by_level[k], c, nb = 0, nm = 0, fb = 0, fj = 0, fm = 0;

			for (uint32_t q = t->dn_start[x]; q < t->dn_start[x + 1]; q++) {
				uint32_t s = t->dn_peer[q];

				if (stamp[s] == x)
					continue;
				stamp[s] = x;
				for (uint32_t j = 0; j < D; j++)
					if (j != r && tup(st, s)[j] != tup(st, x)[j]) {
						if (!nb++)
							fb = s, fj = j;
						break;
					}
			}
			c = tmap_get(&cols, keyof(st, r, tup(st, x), r), 0, 0);
			for (uint32_t s = c == VT_NONE ? VT_NONE : cols.val[c]; s != VT_NONE;
			     s = next[s])
				if (stamp[s] != x && !nm++)
					fm = s;
			if (nb)
				dep_pair(st, fb, x, 1, fj, nb - 1);
			if (nm)
				dep_pair(st, fm, x, 0, r, nm - 1);
		}
	}
	rc = 0;
out:
	free(next);
	free(tail);
	free(stamp);
	tmap_free(&cols);
	return rc;
}

int vt_tree_tuples(vt_tree *t, vt_err *e)
{
	struct tstate st = {.t = t, .D = t->nlevels ? t->nlevels - 1 : 0};
	uint32_t nsw = t->nsw;
	int rc = -1;

	free(t->tuple);
	t->tuple = malloc(((size_t)nsw * st.D + 1) * sizeof(*t->tuple));
	if (!t->tuple)
		return vt_err_nomem(e, "out of memory");
	memset(t->tuple, 0xff, (size_t)nsw * st.D * sizeof(*t->tuple));
	if (!st.D) /* one level: a lone switch needs no digits */
		return 0;
	st.key = malloc((st.D + 1) * sizeof(*st.key));
	st.queue = malloc((nsw + 1) * sizeof(*st.queue));
	if (t->sub) {
		st.podval = malloc(((size_t)t->nsubs + 1) * sizeof(*st.podval));
		st.podnext = calloc((size_t)t->nsubs + 1, sizeof(*st.podnext));
	}
	if (!st.key || !st.queue || (t->sub && (!st.podval || !st.podnext)) ||
	    tmap_init(&st.m, st.D + 1, 2 * nsw + 1)) {
		vt_err_nomem(e, "out of memory");
		goto out;
	}
	if (st.podval)
		memset(st.podval, 0xff, t->nsubs * sizeof(*st.podval));
	if (assign(&st, e) || check_def2(&st, e))
		goto out;
	rc = 0;
out:
	tmap_free(&st.m);
	free(st.key);
	free(st.queue);
	free(st.podval);
	free(st.podnext);
	return rc;
}
