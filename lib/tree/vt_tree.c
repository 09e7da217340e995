/* SPDX-License-Identifier: MIT */
/* var-ary-n-tree extraction: levels, port groups, tuples, host order, subtrees, departures. */
#include "tree/vt_tree_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vt_uf.h"

#define MAX_DEP_LINES 200

void vt_tree_dep(vt_tree *t, const char *fmt, ...)
{
	char buf[800];
	va_list ap;
	char **d;

	t->ndep_total++;
	if (t->ndep >= MAX_DEP_LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	d = realloc(t->dep, (t->ndep + 1) * sizeof(*d));
	if (!d)
		return;
	t->dep = d;
	d[t->ndep] = strdup(buf);
	if (d[t->ndep])
		t->ndep++;
}

void vt_tree_free(vt_tree *t)
{
	free(t->level);
	free(t->strand);
	free(t->by_level);
	free(t->pos);
	free(t->up_start);
	free(t->dn_start);
	free(t->up_port);
	free(t->dn_port);
	free(t->up_peer);
	free(t->dn_peer);
	free(t->tuple);
	free(t->is_cn);
	vt_order_free(&t->order);
	free(t->rank_leaf);
	free(t->sub);
	free(t->subs);
	free(t->desc);
	free(t->ureach);
	for (uint32_t i = 0; i < t->ndep; i++)
		free(t->dep[i]);
	free(t->dep);
	memset(t, 0, sizeof(*t));
}

/* Switch s named by description and GUID; buf holds NAME_LEN bytes. */
#define NAME_LEN 300
static const char *swname(const vt_tree *t, uint32_t s, char *buf)
{
	return vt_node_name(t->f, t->f->switches[s], buf, NAME_LEN);
}

/* Switch ordinal at the far end of switch port q (loop-backs left out). */
static uint32_t peer_sw(const vt_fabric *f, uint32_t q)
{
	return vt_tree_peer_sw(f, q);
}

/*
 * Loop-back cables (a switch port cabled to another port of the same switch,
 * common on directors and in labs) carry no route: one line names them.
 */
static void note_loopbacks(vt_tree *t)
{
	const vt_fabric *f = t->f;
	uint32_t n = 0, first = VT_NONE;
	unsigned fp = 0, fq = 0;
	char a[NAME_LEN];

	for (uint32_t s = 0; s < t->nsw; s++) {
		uint32_t node = f->switches[s];

		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t q = vt_port_index(f, node, p), r = f->ports[q].peer;

			if (r == VT_NONE || f->ports[r].node != node || f->ports[r].num < p)
				continue;
			if (!n++) {
				first = s;
				fp = p;
				fq = f->ports[r].num;
			}
		}
	}
	if (n)
		vt_tree_dep(t, "%u loop-back cable%s ignored for routing: switch %s ports %u-%u%s",
			    n, n > 1 ? "s" : "", swname(t, first, a), fp, fq,
			    n > 1 ? " and others" : "");
}

/* Links must join adjacent levels. */
static int check_links(vt_tree *t, vt_err *e)
{
	const vt_fabric *f = t->f;

	for (uint32_t s = 0; s < t->nsw; s++) {
		uint32_t node = f->switches[s];

		if (t->level[s] == VT_TREE_OUTSIDE)
			continue;
		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t q = vt_port_index(f, node, p), r = peer_sw(f, q);

			if (r == VT_NONE || t->level[r] == VT_TREE_OUTSIDE)
				continue;
			if (t->level[r] == t->level[s]) {
				char a[NAME_LEN], b[NAME_LEN];

				return vt_err_node(e, f, node, p,
						   "switches %s port %u and %s port %u are linked "
						   "but both at level %u; an up/down tree links "
						   "only adjacent levels",
						   swname(t, s, a), p, swname(t, r, b),
						   f->ports[f->ports[q].peer].num, t->level[s]);
			}
		}
	}
	return 0;
}

struct leaf_key {
	uint32_t k[VT_TREE_MAX_LEVELS];
	uint32_t leaf;
};

static int leaf_key_cmp(const void *a, const void *b)
{
	const struct leaf_key *x = a, *y = b;

	for (int i = 0; i < VT_TREE_MAX_LEVELS; i++)
		if (x->k[i] != y->k[i])
			return x->k[i] < y->k[i] ? -1 : 1;
	return 0;
}

/*
 * Subtrees by incremental union-find (level by level), then the leaf order:
 * leaves sorted by the natural rank of the first leaf of each enclosing
 * subtree, top level first, so every subtree is a contiguous run of leaves.
 */
static int subtrees_and_order(vt_tree *t, const uint8_t *is_leaf, uint32_t *leaf_pos,
			      uint32_t *nleaves, vt_err *e)
{
	const vt_fabric *f = t->f;
	uint32_t nsw = t->nsw, L = t->nlevels, nl = 0;
	uint32_t *uf = malloc((nsw + 1) * sizeof(*uf));
	uint32_t *leaves = malloc((nsw + 1) * sizeof(*leaves));
	uint32_t *nr = malloc((nsw + 1) * sizeof(*nr));
	uint32_t *minnr = malloc(((size_t)L * nsw + 1) * sizeof(*minnr));
	struct leaf_key *keys = NULL;
	int rc = -1;

	t->sub = malloc(((size_t)L * nsw + 1) * sizeof(*t->sub));
	if (!uf || !leaves || !nr || !minnr || !t->sub) {
		vt_err_nomem(e, "out of memory");
		goto out;
	}
	for (uint32_t s = 0; s < nsw; s++) {
		uf[s] = s;
		if (is_leaf[s])
			leaves[nl++] = f->switches[s];
	}
	if (vt_order_sort_nodes(f, leaves, nl, e))
		goto out;
	for (uint32_t i = 0; i < nl; i++)
		nr[f->nodes[leaves[i]].sw] = i;
	for (uint32_t l = 0; l < L; l++) {
		for (uint32_t s = 0; s < nsw; s++) {
			uint32_t node = f->switches[s];

			if (t->level[s] != l)
				continue;
			for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
				uint32_t r = peer_sw(f, vt_port_index(f, node, p));

				if (r != VT_NONE && t->level[r] != VT_TREE_OUTSIDE &&
				    t->level[r] < l)
					vt_uf_union_into(uf, r, s);
			}
		}
		for (uint32_t s = 0; s < nsw; s++) {
			t->sub[(size_t)l * nsw + s] =
				t->level[s] <= l && t->level[s] != VT_TREE_OUTSIDE
					? vt_uf_find(uf, s)
					: VT_NONE;
			minnr[(size_t)l * nsw + s] = VT_NONE;
		}
		for (uint32_t s = 0; s < nsw; s++) {
			uint32_t c = t->sub[(size_t)l * nsw + s];

			if (is_leaf[s] && nr[s] < minnr[(size_t)l * nsw + c])
				minnr[(size_t)l * nsw + c] = nr[s];
		}
	}
	keys = calloc(nl + 1, sizeof(*keys));
	if (!keys) {
		vt_err_nomem(e, "out of memory");
		goto out;
	}
	nl = 0;
	for (uint32_t s = 0; s < nsw; s++) {
		if (!is_leaf[s])
			continue;
		for (uint32_t l = L; l-- > 0;)
			keys[nl].k[L - 1 - l] =
				minnr[(size_t)l * nsw + t->sub[(size_t)l * nsw + s]];
		keys[nl].k[L - 1] = nr[s];
		keys[nl++].leaf = s;
	}
	qsort(keys, nl, sizeof(*keys), leaf_key_cmp);
	for (uint32_t i = 0; i < nl; i++)
		leaf_pos[i] = keys[i].leaf;
	*nleaves = nl;
	rc = 0;
out:
	free(uf);
	free(leaves);
	free(nr);
	free(minnr);
	free(keys);
	return rc;
}

/* Compute ranks: each leaf gets hosts_per_leaf ranks, missing hosts are place-keepers. */
static int build_order(vt_tree *t, const uint32_t *leaf_seq, uint32_t nl, vt_err *e)
{
	const vt_fabric *f = t->f;
	uint8_t used[VT_MAX_PORTS + 2] = {0};
	uint32_t H = 0, nused = 0;
	uint8_t slot_of[VT_MAX_PORTS + 2];

	for (uint32_t i = 0; i < nl; i++) {
		uint32_t node = f->switches[leaf_seq[i]], c = 0;

		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t q = vt_port_index(f, node, p);

			if (f->ports[q].peer != VT_NONE && t->is_cn[f->ports[q].peer]) {
				c++;
				used[p] = 1;
			}
		}
		if (c > H)
			H = c;
	}
	for (unsigned p = 0; p <= VT_MAX_PORTS; p++) {
		slot_of[p] = (uint8_t)nused;
		nused += used[p];
	}
	t->hosts_per_leaf = H;
	t->nleaves = nl;
	t->order.n = nl * H;
	t->order.port = malloc(((size_t)nl * H + 1) * sizeof(*t->order.port));
	t->rank_leaf = malloc(((size_t)nl * H + 1) * sizeof(*t->rank_leaf));
	if (!t->order.port || !t->rank_leaf)
		return vt_err_nomem(e, "out of memory");
	for (uint32_t i = 0; i < nl; i++) {
		uint32_t s = leaf_seq[i], node = f->switches[s], base = i * H, c = 0;

		for (uint32_t k = 0; k < H; k++) {
			t->order.port[base + k] = VT_NONE;
			t->rank_leaf[base + k] = s;
		}
		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t q = vt_port_index(f, node, p);

			if (f->ports[q].peer == VT_NONE || !t->is_cn[f->ports[q].peer])
				continue;
			/* a host keeps the slot of its port when every leaf uses the
			 * same host ports, so a missing host leaves its own hole */
			t->order.port[base + (nused == H ? slot_of[p] : c)] = f->ports[q].peer;
			c++;
		}
		if (c < H) {
			char a[NAME_LEN];

			vt_tree_dep(t,
				    "leaf %s has %u compute nodes, the fullest has %u (%u "
				    "place-keepers)",
				    swname(t, s, a), c, H, H - c);
		}
	}
	return 0;
}

/* Switches of each level in tree order: by subtree, then BFS discovery order. */
static int order_switches(vt_tree *t, const uint32_t *leaf_seq, uint32_t nl, vt_err *e)
{
	const vt_fabric *f = t->f;
	uint32_t nsw = t->nsw, nq = 0;
	uint32_t *q = malloc((nsw + 1) * sizeof(*q)), *seen = malloc((nsw + 1) * sizeof(*seen));
	uint32_t cnt[VT_TREE_MAX_LEVELS + 1] = {0};

	t->by_level = malloc((nsw + 1) * sizeof(*t->by_level));
	t->pos = malloc((nsw + 1) * sizeof(*t->pos));
	if (!q || !seen || !t->by_level || !t->pos) {
		free(q);
		free(seen);
		return vt_err_nomem(e, "out of memory");
	}
	memset(seen, 0, nsw * sizeof(*seen));
	for (uint32_t i = 0; i < nl; i++) {
		q[nq++] = leaf_seq[i];
		seen[leaf_seq[i]] = 1;
	}
	for (uint32_t h = 0; h < nq; h++) {
		uint32_t node = f->switches[q[h]];

		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t r = peer_sw(f, vt_port_index(f, node, p));

			if (r != VT_NONE && !seen[r] && t->level[r] != VT_TREE_OUTSIDE) {
				seen[r] = 1;
				q[nq++] = r;
			}
		}
	}
	for (uint32_t s = 0; s < nsw; s++)
		if (t->level[s] != VT_TREE_OUTSIDE)
			cnt[t->level[s] + 1]++;
	for (uint32_t l = 0; l < t->nlevels; l++)
		t->lvl_start[l + 1] = t->lvl_start[l] + cnt[l + 1];
	for (uint32_t l = t->nlevels; l < VT_TREE_MAX_LEVELS; l++)
		t->lvl_start[l + 1] = t->lvl_start[l];
	/* BFS from leaves in tree order reaches switches in subtree order too */
	memset(cnt, 0, sizeof(cnt));
	for (uint32_t h = 0; h < nq; h++) {
		uint32_t s = q[h], l = t->level[s];

		t->pos[s] = cnt[l];
		t->by_level[t->lvl_start[l] + cnt[l]++] = s;
	}
	for (uint32_t s = 0; s < nsw; s++)
		if (t->level[s] == VT_TREE_OUTSIDE)
			t->pos[s] = VT_NONE;
	free(q);
	free(seen);
	return 0;
}

struct gport {
	uint32_t peerpos, port, peer;
};

static int gport_cmp(const void *a, const void *b)
{
	const struct gport *x = a, *y = b;

	if (x->peerpos != y->peerpos)
		return x->peerpos < y->peerpos ? -1 : 1;
	return (x->port > y->port) - (x->port < y->port);
}

/* Up and down port lists per switch, grouped by remote switch, groups in tree order. */
static int port_groups(vt_tree *t, vt_err *e)
{
	const vt_fabric *f = t->f;
	uint32_t nsw = t->nsw, nup = 0, ndn = 0;
	struct gport g[VT_MAX_PORTS + 1];

	t->up_start = calloc(nsw + 1, sizeof(uint32_t));
	t->dn_start = calloc(nsw + 1, sizeof(uint32_t));
	if (!t->up_start || !t->dn_start)
		return vt_err_nomem(e, "out of memory");
	for (int pass = 0; pass < 2; pass++) {
		nup = ndn = 0;
		for (uint32_t s = 0; s < nsw; s++) {
			uint32_t node = f->switches[s], n = 0;

			t->up_start[s] = nup;
			t->dn_start[s] = ndn;
			if (t->level[s] == VT_TREE_OUTSIDE)
				continue;
			for (int dir = 0; dir < 2; dir++) {
				n = 0;
				for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
					uint32_t r = peer_sw(f, vt_port_index(f, node, p));

					if (r == VT_NONE || t->level[r] == VT_TREE_OUTSIDE ||
					    t->level[r] != t->level[s] + (dir ? -1 : 1))
						continue;
					g[n++] = (struct gport){t->pos[r], p, r};
				}
				if (pass) {
					qsort(g, n, sizeof(*g), gport_cmp);
					for (uint32_t i = 0; i < n; i++) {
						if (dir) {
							t->dn_port[ndn + i] = (uint8_t)g[i].port;
							t->dn_peer[ndn + i] = g[i].peer;
						} else {
							t->up_port[nup + i] = (uint8_t)g[i].port;
							t->up_peer[nup + i] = g[i].peer;
						}
					}
				}
				if (dir)
					ndn += n;
				else
					nup += n;
			}
		}
		t->up_start[nsw] = nup;
		t->dn_start[nsw] = ndn;
		if (!pass) {
			t->up_port = malloc(nup + 1);
			t->dn_port = malloc(ndn + 1);
			t->up_peer = malloc((nup + 1) * sizeof(uint32_t));
			t->dn_peer = malloc((ndn + 1) * sizeof(uint32_t));
			if (!t->up_port || !t->dn_port || !t->up_peer || !t->dn_peer)
				return vt_err_nomem(e, "out of memory");
		}
	}
	return 0;
}

static uint32_t groups_of(const uint32_t *peer, uint32_t a, uint32_t b)
{
	uint32_t n = 0;

	for (uint32_t i = a; i < b; i++)
		n += i == a || peer[i] != peer[i - 1];
	return n;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Most common value of v[0..n) (sorts v); the larger one on a tie. */
static uint32_t mode(uint32_t *v, uint32_t n)
{
	uint32_t best = 0, bestc = 0;

	qsort(v, n, sizeof(*v), cmp_u32);
	for (uint32_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		if (j - i >= bestc) {
			bestc = j - i;
			best = v[i];
		}
	}
	return best;
}

/*
 * up0_leaves and up0_others: the most common up-link and group counts of the
 * leaves (leaf[]: the switches with ranks) and of level 0's other switches,
 * for the summary, whose leaf line counts the leaves only. v: room for every
 * switch.
 */
static void level0_up(vt_tree *t, const uint8_t *leaf, uint32_t *v)
{
	for (uint8_t want = 0; want < 2; want++) {
		struct vt_tree_up0 *u = want ? &t->up0_leaves : &t->up0_others;
		uint32_t n = 0;

		for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++) {
			uint32_t s = t->by_level[i];

			if (leaf[s] == want)
				v[n++] = t->up_start[s + 1] - t->up_start[s];
		}
		u->up_links = n ? mode(v, n) : 0;
		n = 0;
		for (uint32_t i = t->lvl_start[0]; i < t->lvl_start[1]; i++) {
			uint32_t s = t->by_level[i];

			if (leaf[s] == want)
				v[n++] = groups_of(t->up_peer, t->up_start[s], t->up_start[s + 1]);
		}
		u->up_groups = n ? mode(v, n) : 0;
	}
}

/*
 * Level l's switches whose link counts depart from the level's. On a level 0
 * with switches that have no ranks (bypassed director spines, host-less
 * switches), the leaves' up-links are compared with the leaves' count, the
 * summary's leaf line, and the others' with theirs (its "level 0 also" line).
 */
static void level_departures(vt_tree *t, uint32_t l, const uint8_t *leaf)
{
	const struct vt_tree_level *lv = &t->lv[l];
	int apart = l == 0 && lv->nsw > t->nleaves;

	for (uint32_t i = t->lvl_start[l]; i < t->lvl_start[l + 1]; i++) {
		uint32_t s = t->by_level[i];
		uint32_t u = t->up_start[s + 1] - t->up_start[s];
		uint32_t d = t->dn_start[s + 1] - t->dn_start[s];
		uint32_t want = !apart	  ? lv->up_links
				: leaf[s] ? t->up0_leaves.up_links
					  : t->up0_others.up_links;
		char nm[NAME_LEN];

		if (u != want)
			vt_tree_dep(t, "switch %s at level %u has %u up-links, %s %u",
				    swname(t, s, nm), l, u,
				    !apart    ? "its level has"
				    : leaf[s] ? "the leaf switches have"
					      : "the other level-0 switches have",
				    want);
		if (l > 0 && d != lv->down_links)
			vt_tree_dep(t, "switch %s at level %u has %u down-links, its level has %u",
				    swname(t, s, nm), l, d, lv->down_links);
	}
}

/* Per-level regular shape, and each switch that departs from it. */
static int level_shapes(vt_tree *t, vt_err *e)
{
	uint32_t *v = malloc((t->nsw + 1) * sizeof(*v));
	uint8_t *leaf = calloc(t->nsw + 1, 1);

	if (!v || !leaf) {
		free(v);
		free(leaf);
		return vt_err_nomem(e, "out of memory");
	}
	for (uint32_t k = 0; k < t->order.n; k++)
		leaf[t->rank_leaf[k]] = 1;
	for (uint32_t l = 0; l < t->nlevels; l++) {
		uint32_t a = t->lvl_start[l], b = t->lvl_start[l + 1], n = b - a;
		struct vt_tree_level *lv = &t->lv[l];

		lv->nsw = n;
		for (int what = 0; what < 5; what++) {
			for (uint32_t i = 0; i < n; i++) {
				uint32_t s = t->by_level[a + i];
				uint32_t u0 = t->up_start[s], u1 = t->up_start[s + 1];
				uint32_t d0 = t->dn_start[s], d1 = t->dn_start[s + 1];

				v[i] = what == 0   ? groups_of(t->up_peer, u0, u1)
				       : what == 1 ? groups_of(t->dn_peer, d0, d1)
				       : what == 2 ? u1 - u0
				       : what == 3 ? d1 - d0
						   : (u1 > u0 ? (u1 - u0) / groups_of(t->up_peer,
										      u0, u1)
							      : 0);
			}
			uint32_t m = n ? mode(v, n) : 0;

			if (what == 0)
				lv->up_groups = m;
			else if (what == 1)
				lv->down_groups = m;
			else if (what == 2)
				lv->up_links = m;
			else if (what == 3)
				lv->down_links = m;
			else
				lv->group_width = m;
		}
	}
	t->lv[0].max_hosts = t->hosts_per_leaf;
	if (t->nlevels)
		level0_up(t, leaf, v);
	for (uint32_t l = 0; l < t->nlevels; l++)
		level_departures(t, l, leaf);
	free(v);
	free(leaf);
	return 0;
}

/* desc bottom-up, ureach top-down; then every leaf must reach every leaf. */
static int reachability(vt_tree *t, const uint8_t *is_leaf, vt_err *e)
{
	uint32_t nsw = t->nsw, bw = (nsw + 63) / 64;

	t->bw = bw;
	t->desc = calloc((size_t)nsw * bw + 1, sizeof(uint64_t));
	t->ureach = calloc((size_t)nsw * bw + 1, sizeof(uint64_t));
	if (!t->desc || !t->ureach)
		return vt_err_nomem(e, "out of memory");
	for (uint32_t l = 0; l < t->nlevels; l++)
		for (uint32_t i = t->lvl_start[l]; i < t->lvl_start[l + 1]; i++) {
			uint32_t s = t->by_level[i];
			uint64_t *row = &t->desc[(size_t)s * bw];

			row[s >> 6] |= 1ull << (s & 63);
			for (uint32_t k = t->dn_start[s]; k < t->dn_start[s + 1]; k++) {
				const uint64_t *c = &t->desc[(size_t)t->dn_peer[k] * bw];

				for (uint32_t w = 0; w < bw; w++)
					row[w] |= c[w];
			}
		}
	for (uint32_t l = t->nlevels; l-- > 0;)
		for (uint32_t i = t->lvl_start[l]; i < t->lvl_start[l + 1]; i++) {
			uint32_t s = t->by_level[i];
			uint64_t *row = &t->ureach[(size_t)s * bw];

			memcpy(row, &t->desc[(size_t)s * bw], bw * sizeof(*row));
			for (uint32_t k = t->up_start[s]; k < t->up_start[s + 1]; k++) {
				const uint64_t *p = &t->ureach[(size_t)t->up_peer[k] * bw];

				for (uint32_t w = 0; w < bw; w++)
					row[w] |= p[w];
			}
		}
	return vt_tree_leaves_meet(t, is_leaf, e);
}

/* Subtree table: ids renumbered level by level in rank order. */
static int subtree_table(vt_tree *t, const uint32_t *leaf_seq, uint32_t nl, vt_err *e)
{
	uint32_t nsw = t->nsw, L = t->nlevels, H = t->hosts_per_leaf;
	uint32_t *map = malloc((nsw + 1) * sizeof(*map));

	t->subs = calloc((size_t)L * nsw + 1, sizeof(*t->subs));
	if (!map || !t->subs) {
		free(map);
		return vt_err_nomem(e, "out of memory");
	}
	for (uint32_t l = 0; l < L; l++) {
		uint32_t *sub = &t->sub[(size_t)l * nsw];

		memset(map, 0xff, nsw * sizeof(*map));
		for (uint32_t i = 0; i < nl; i++) {
			uint32_t c = sub[leaf_seq[i]];

			if (map[c] == VT_NONE) {
				map[c] = t->nsubs++;
				t->subs[map[c]] =
					(struct vt_subtree){.level = l, .first_rank = i * H};
			}
			struct vt_subtree *st = &t->subs[map[c]];

			st->nranks += H;
			for (uint32_t k = 0; k < H; k++)
				st->hosts += t->order.port[i * H + k] != VT_NONE;
		}
		for (uint32_t s = 0; s < nsw; s++) {
			if (sub[s] == VT_NONE)
				continue;
			if (map[sub[s]] == VT_NONE) /* a subtree without compute nodes */
				map[sub[s]] = t->nsubs++,
				t->subs[map[sub[s]]] = (struct vt_subtree){.level = l};
			sub[s] = map[sub[s]];
			t->subs[sub[s]].nsw++;
			if (t->level[s] == l)
				t->subs[sub[s]].nup += t->up_start[s + 1] - t->up_start[s];
		}
	}
	free(map);
	return 0;
}

int vt_tree_build(vt_tree *t, const vt_fabric *f, const struct vt_tree_opts *o, vt_err *e)
{
	uint8_t *is_leaf = NULL, *ranked = NULL;
	uint32_t *leaf_seq = NULL, nl = 0;

	memset(t, 0, sizeof(*t));
	t->f = f;
	t->nsw = f->nswitches;
	if (o && o->plane_of) {
		t->plane_of = o->plane_of;
		t->plane = o->plane;
	}
	if (!t->nsw)
		return vt_err_set(e, "%s: no switches", f->source);
	is_leaf = calloc(t->nsw + 1, 1);
	leaf_seq = malloc((t->nsw + 1) * sizeof(*leaf_seq));
	t->level = calloc(t->nsw + 1, 1);
	/* host-less leaves get ranks too, all place-keepers (§3.2), so a partly
	 * populated tree keeps the regular index */
	ranked = calloc(t->nsw + 1, 1);
	if (!is_leaf || !leaf_seq || !t->level || !ranked) {
		vt_err_nomem(e, "out of memory");
		goto fail;
	}
	note_loopbacks(t);
	if (vt_tree_levels(t, o, is_leaf, ranked, e) || check_links(t, e) ||
	    subtrees_and_order(t, ranked, leaf_seq, &nl, e) || build_order(t, leaf_seq, nl, e) ||
	    order_switches(t, leaf_seq, nl, e) || port_groups(t, e) || level_shapes(t, e) ||
	    reachability(t, is_leaf, e) || subtree_table(t, leaf_seq, nl, e) ||
	    vt_tree_tuples(t, e))
		goto fail;
	free(is_leaf);
	free(ranked);
	free(leaf_seq);
	return 0;
fail:
	free(is_leaf);
	free(ranked);
	free(leaf_seq);
	vt_tree_free(t);
	return -1;
}

/*
 * The level-0 switches that are no leaves (no ranks): director spine ASICs
 * the leaves' up-links bypass, and host-less switches not cabled like a leaf
 * with hosts (leaves of pods without hosts, a switch with up to half a leaf's
 * up-links). One line, NULL when there are none.
 */
static const char *level0_others(const vt_tree *t, char *buf, size_t len)
{
	uint32_t other = t->lv[0].nsw - t->nleaves - t->nbypassed;
	char a[96] = "", b[64] = "";

	if (t->lv[0].nsw <= t->nleaves)
		return NULL;
	if (t->nbypassed)
		snprintf(a, sizeof(a), "%u director spine ASIC%s that the leaves' up-links bypass",
			 t->nbypassed, t->nbypassed == 1 ? "" : "s");
	if (other)
		snprintf(b, sizeof(b), "%u %sswitch%s without compute nodes", other,
			 t->nbypassed ? "other " : "", other == 1 ? "" : "es");
	snprintf(buf, len, "level 0 also: %s%s%s, no ranks, %u up-links in %u groups", a,
		 *a && *b ? " and " : "", b, t->up0_others.up_links, t->up0_others.up_groups);
	return buf;
}

void vt_tree_describe(const vt_tree *t, vt_line_fn line, void *ctx)
{
	char buf[320];

	snprintf(buf, sizeof(buf), "%u switch levels, %u compute nodes, %u ranks (%u per leaf)",
		 t->nlevels, t->ncn, t->order.n, t->hosts_per_leaf);
	line(ctx, __func__, buf);
	for (uint32_t l = 0; l < t->nlevels; l++) {
		const struct vt_tree_level *lv = &t->lv[l];

		if (l == 0)
			snprintf(buf, sizeof(buf),
				 "level 0: %u leaf switches, up to %u compute nodes each, %u "
				 "up-links "
				 "in %u groups",
				 t->nleaves, t->hosts_per_leaf, t->up0_leaves.up_links,
				 t->up0_leaves.up_groups);
		else
			snprintf(
				buf, sizeof(buf),
				"level %u: %u switches, %u down-links in %u groups, %u up-links in "
				"%u groups",
				l, lv->nsw, lv->down_links, lv->down_groups, lv->up_links,
				lv->up_groups);
		line(ctx, __func__, buf);
		if (l == 0 && level0_others(t, buf, sizeof(buf)))
			line(ctx, __func__, buf);
	}
	if (!t->ndep_total) {
		line(ctx, __func__, "regular var-ary-n-tree: no departures");
		return;
	}
	snprintf(buf, sizeof(buf), "%u departures from a regular var-ary-n-tree:", t->ndep_total);
	line(ctx, __func__, buf);
	for (uint32_t i = 0; i < t->ndep; i++)
		line(ctx, __func__, t->dep[i]);
	if (t->ndep_total > t->ndep) {
		snprintf(buf, sizeof(buf), "... and %u more", t->ndep_total - t->ndep);
		line(ctx, __func__, buf);
	}
}
