/* SPDX-License-Identifier: MIT */
/*
 * A switch stranded between levels: a failed top took every up-link of a
 * switch whose switches below keep theirs (a level-1 switch of a pruned tree
 * whose one top, over parallel links, is gone; or its up-links cut). Counted
 * down from the roots it lands below its own leaves, which then read as
 * hanging off level 1. Giving it its level from the leaves is no option: its
 * own LID is then reached by a down-up turn while leaves route through it,
 * which closes a credit loop. So the levels leave it out and the routing goes
 * around it (vt_route_strand.c): it carries no route but its own and its CAs',
 * an end point below its children. A leaf whose every switch link leads to
 * the stranded switch (an orphan) is cut with it, hung below it: its CAs stop
 * being compute nodes (their traffic crosses the switch and one of its other
 * children, no congestion-free route). Only where such a leaf also has links
 * elsewhere is the tree refused, naming the stranded switch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vt_uf.h"
#include "tree/vt_tree_int.h"

/* Hops from the leaves over switch links into dist (VT_NONE: unreached); q is scratch. */
static void leaf_hops(const vt_tree *t, const uint8_t *is_leaf, uint32_t *dist, uint32_t *q)
{
	uint32_t nq = 0;

	memset(dist, 0xff, t->nsw * sizeof(*dist));
	for (uint32_t s = 0; s < t->nsw; s++)
		if (is_leaf[s]) {
			dist[s] = 0;
			q[nq++] = s;
		}
	vt_tree_bfs(t->f, q, nq, dist);
}

/* The switches the roots (top level) reach going down only (one hop nearer the leaves each). */
static void down_from_roots(const vt_tree *t, const uint32_t *dist, uint8_t *down, uint32_t *q)
{
	const vt_fabric *f = t->f;
	uint32_t nq = 0;

	for (uint32_t s = 0; s < t->nsw; s++)
		if (t->level[s] == t->nlevels - 1) {
			down[s] = 1;
			q[nq++] = s;
		}
	for (uint32_t h = 0; h < nq; h++) {
		uint32_t x = q[h], node = f->switches[x];

		for (unsigned p = 1; dist[x] != VT_NONE && p <= f->nodes[node].nports; p++) {
			uint32_t r = vt_tree_peer_sw(f, vt_port_index(f, node, p));

			if (r != VT_NONE && !down[r] && dist[r] + 1 == dist[x]) {
				down[r] = 1;
				q[nq++] = r;
			}
		}
	}
}

/*
 * Hops from the leaves (dist), the switches the roots reach going down
 * (down), the lowest level of a leaf they reach, and the fewest hops from the
 * leaves to a root (near).
 */
struct strand_scan {
	uint32_t *dist, *q, lowest, near;
	uint8_t *down;
};

/*
 * Is s stranded: no root reaches it going down, every switch link of s goes
 * down (towards the leaves) to a switch the roots reach, or to a leaf they
 * do not (its other up-links failed too, or lead to stranded switches), or
 * to a host-less switch they count on the leaves' level nearer the leaves
 * than a root (a top a root list left out is as far), at least one of the
 * first or third kind, and counted from the roots it lies below every leaf
 * they reach? *orphan: the first such leaf, VT_NONE when none.
 */
static int stranded(const vt_tree *t, const uint8_t *is_leaf, const struct strand_scan *sc,
		    uint32_t s, uint32_t *orphan)
{
	const vt_fabric *f = t->f;
	const uint32_t *dist = sc->dist, lowest = sc->lowest;
	const uint8_t *down = sc->down;
	uint32_t node = f->switches[s], kept = 0;

	*orphan = VT_NONE;
	if (is_leaf[s] || down[s] || t->level[s] == VT_TREE_OUTSIDE || t->level[s] >= lowest ||
	    dist[s] == VT_NONE || !dist[s])
		return 0;
	for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
		uint32_t r = vt_tree_peer_sw(f, vt_port_index(f, node, p));

		if (r == VT_NONE)
			continue;
		if (!is_leaf[r] && t->level[r] == lowest && dist[r] < sc->near) { /* host-less */
			kept++;
			continue;
		}
		if (dist[r] + 1 != dist[s] || !(down[r] || is_leaf[r]))
			return 0;
		kept += down[r];
		if (!down[r] && *orphan == VT_NONE)
			*orphan = r;
	}
	return kept > 0;
}

/*
 * The stranded switch to name, into *orphan its leaf with no other way up:
 * the first with such a leaf (that leaf made the levels skew), else the
 * first; VT_NONE when none is stranded.
 */
static uint32_t first_stranded(const vt_tree *t, const uint8_t *is_leaf,
			       const struct strand_scan *sc, uint32_t *orphan)
{
	uint32_t found = VT_NONE, leaf;

	*orphan = VT_NONE;
	for (uint32_t s = 0; s < t->nsw && *orphan == VT_NONE; s++)
		if (stranded(t, is_leaf, sc, s, &leaf) && (found == VT_NONE || leaf != VT_NONE)) {
			found = s;
			*orphan = leaf;
		}
	return found;
}

static int scan(const vt_tree *t, const uint8_t *is_leaf, struct strand_scan *sc)
{
	sc->dist = malloc((t->nsw + 1) * sizeof(*sc->dist));
	sc->q = malloc((t->nsw + 1) * sizeof(*sc->q));
	sc->down = calloc(t->nsw + 1, 1);
	sc->lowest = VT_TREE_OUTSIDE;
	sc->near = VT_NONE;
	if (!sc->dist || !sc->q || !sc->down)
		return -1;
	leaf_hops(t, is_leaf, sc->dist, sc->q);
	down_from_roots(t, sc->dist, sc->down, sc->q);
	for (uint32_t x = 0; x < t->nsw; x++)
		if (is_leaf[x] && sc->down[x] && t->level[x] < sc->lowest)
			sc->lowest = t->level[x];
	for (uint32_t x = 0; x < t->nsw; x++)
		if (t->level[x] == t->nlevels - 1 && sc->dist[x] < sc->near)
			sc->near = sc->dist[x];
	return 0;
}

static void scan_free(struct strand_scan *sc)
{
	free(sc->dist);
	free(sc->q);
	free(sc->down);
}

/*
 * Do the leaves stranded s leaves without another way up (linked to s, which
 * the roots do not reach going down) hang off stranded switches alone (s, or
 * others stranded or cut before), every switch link of theirs to one? Such
 * orphans can be cut with s; mark: t->strand says so.
 */
static int orphans_hang(vt_tree *t, const uint8_t *is_leaf, const struct strand_scan *sc,
			uint32_t s, int mark)
{
	const vt_fabric *f = t->f;
	uint32_t node = f->switches[s], leaf;

	for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
		uint32_t r = vt_tree_peer_sw(f, vt_port_index(f, node, p)), rn;

		if (r == VT_NONE || sc->down[r] || !is_leaf[r])
			continue;
		rn = f->switches[r];
		for (unsigned k = 1; k <= f->nodes[rn].nports; k++) {
			uint32_t x = vt_tree_peer_sw(f, vt_port_index(f, rn, k));

			if (x != VT_NONE && x != s && t->strand[x] != VT_STRAND_SWITCH &&
			    !stranded(t, is_leaf, sc, x, &leaf))
				return 0;
		}
		if (mark)
			t->strand[r] = VT_STRAND_ORPHAN;
	}
	return 1;
}

/* May switch s be of a part behind host-less leaves: below every leaf the roots reach? */
static int below_leaves(const vt_tree *t, const uint8_t *is_leaf, uint32_t lowest, uint32_t s)
{
	return !is_leaf[s] && !t->strand[s] && t->level[s] != VT_TREE_OUTSIDE &&
	       t->level[s] < lowest;
}

/*
 * A part behind host-less leaves: switches that, counted from the roots, lie
 * below every leaf, whose component over such switches is linked to the
 * tree through switches of the leaves' level without compute nodes only (a
 * level-1 switch that kept one host-less leaf of its pod, and the tops left
 * with it). A compute node's route would turn down-up at the host-less
 * switch to cross it, so the part is cut, each switch VT_STRAND_BEHIND,
 * routed around through the part. Returns how many were marked, -1 when out
 * of memory.
 */
static int behind_cut(vt_tree *t, const uint8_t *is_leaf, uint32_t lowest)
{
	const vt_fabric *f = t->f;
	uint32_t *q = malloc((t->nsw + 1) * sizeof(*q)), nq, n = 0;
	uint8_t *seen = calloc(t->nsw + 1, 1);
	int rc = q && seen ? 0 : -1;

	for (uint32_t s = 0; !rc && s < t->nsw; s++) {
		int ok = 1;

		if (seen[s] || !below_leaves(t, is_leaf, lowest, s))
			continue;
		seen[s] = 1;
		q[0] = s;
		nq = 1;
		for (uint32_t h = 0; h < nq; h++)
			for (unsigned p = 1; p <= f->nodes[f->switches[q[h]]].nports; p++) {
				uint32_t r =
					vt_tree_peer_sw(f, vt_port_index(f, f->switches[q[h]], p));

				if (r == VT_NONE || seen[r])
					continue;
				if (!below_leaves(t, is_leaf, lowest, r)) {
					ok &= !is_leaf[r] && !t->strand[r] && t->level[r] == lowest;
					continue;
				}
				seen[r] = 1;
				q[nq++] = r;
			}
		for (uint32_t i = 0; ok && i < nq; i++)
			t->strand[q[i]] = VT_STRAND_BEHIND;
		n += ok ? nq : 0;
	}
	t->nstrand += n;
	free(seen);
	free(q);
	return rc ? -1 : (int)n;
}

/*
 * The stranded switches vt_tree_refuse_stranded() names, when each one's
 * leaves without another way up hang off it alone (orphans_hang) and each lies
 * nearer the leaves than the roots (one as far is a top a root list left out,
 * not a fault): each is marked in t->strand (allocated here), with its
 * orphans, to be left out of the levels and routed around. Returns how many
 * were newly marked (0 otherwise: the refusal names one), -1 when out of
 * memory.
 */
static int strand_cut(vt_tree *t, const uint8_t *is_leaf, vt_err *e)
{
	struct strand_scan sc;
	uint32_t leaf, n = 0;
	int keep = 0, rc = 0;

	if (scan(t, is_leaf, &sc) || (!t->strand && !(t->strand = calloc(t->nsw + 1, 1)))) {
		scan_free(&sc);
		return vt_err_nomem(e, "out of memory");
	}
	/* keep (refuse) a leaf with no other way up but also linked elsewhere, or a top the
	 * root list left out (as far from the leaves as a root): no fault stranded those */
	for (uint32_t s = 0; s < t->nsw && !keep; s++)
		if (stranded(t, is_leaf, &sc, s, &leaf))
			keep = (leaf != VT_NONE && !orphans_hang(t, is_leaf, &sc, s, 0)) ||
			       sc.dist[s] >= sc.near;
	for (uint32_t s = 0; s < t->nsw && !keep; s++)
		if (!t->strand[s] && stranded(t, is_leaf, &sc, s, &leaf)) {
			t->strand[s] = VT_STRAND_SWITCH;
			t->nstrand++;
			n++;
			orphans_hang(t, is_leaf, &sc, s, 1);
		}
	if (!n && !keep && sc.lowest != VT_TREE_OUTSIDE &&
	    (rc = behind_cut(t, is_leaf, sc.lowest)) < 0)
		vt_err_nomem(e, "out of memory");
	scan_free(&sc);
	return n ? (int)n : rc;
}

int vt_tree_refuse_stranded(vt_tree *t, const uint8_t *is_leaf, vt_err *e)
{
	struct strand_scan sc;
	uint32_t s, leaf;
	char a[300], nm[VT_NODE_NAME_MAX], b[VT_NODE_NAME_MAX + 40] = "";

	if (scan(t, is_leaf, &sc)) {
		scan_free(&sc);
		return vt_err_nomem(e, "out of memory");
	}
	s = first_stranded(t, is_leaf, &sc, &leaf);
	scan_free(&sc);
	if (s == VT_NONE)
		return 0;
	if (leaf != VT_NONE)
		snprintf(b, sizeof(b), ", and its leaf %s has no other way up",
			 vt_node_name(t->f, t->f->switches[leaf], nm, sizeof(nm)));
	return vt_err_node(
		e, t->f, t->f->switches[s], 0,
		"switch %s has no up-link left but switches below it have others: a "
		"failed top (or its failed up-links) cut it off%s; vartree routes no tree "
		"with a switch stranded between levels",
		vt_node_name(t->f, t->f->switches[s], a, sizeof(a)), b);
}

/* Are all leaves the roots reach on one level, as the levels want? */
static int leaves_level0(const vt_tree *t, const uint8_t *is_leaf)
{
	for (uint32_t s = 0; s < t->nsw; s++)
		if (is_leaf[s] && t->level[s] != VT_TREE_OUTSIDE && t->level[s])
			return 0;
	return 1;
}

/*
 * Hops from the roots in q[0 .. nq) into t->level (VT_TREE_OUTSIDE: unreached, or a
 * stranded switch the routing goes around, which the count passes through
 * to none); q beyond nq is scratch.
 */
static int count_levels(vt_tree *t, const uint8_t *is_leaf, uint32_t *dist, uint32_t *q,
			uint32_t nq, vt_err *e)
{
	uint32_t maxd = 0;
	char a[300];

	memset(dist, 0xff, t->nsw * sizeof(*dist));
	for (uint32_t s = 0; t->strand && s < t->nsw; s++)
		dist[s] = t->strand[s] ? 0 : VT_NONE; /* not VT_NONE: the BFS takes no step there */
	for (uint32_t i = 0; i < nq; i++)	      /* roots are never stranded */
		dist[q[i]] = 0;
	vt_tree_bfs(t->f, q, nq, dist);
	for (uint32_t s = 0; t->strand && s < t->nsw; s++)
		dist[s] = t->strand[s] ? VT_NONE : dist[s];
	for (uint32_t s = 0; s < t->nsw; s++)
		if (dist[s] != VT_NONE && dist[s] > maxd)
			maxd = dist[s];
	if (maxd >= VT_TREE_MAX_LEVELS)
		return vt_err_set(e, "%s: %u switch levels, more than %u", t->f->source, maxd + 1,
				  VT_TREE_MAX_LEVELS);
	for (uint32_t s = 0; s < t->nsw; s++) {
		t->level[s] = dist[s] == VT_NONE ? VT_TREE_OUTSIDE : (uint8_t)(maxd - dist[s]);
		if (dist[s] != VT_NONE || (t->strand && t->strand[s]))
			continue;
		if (is_leaf[s])
			return vt_err_node(e, t->f, t->f->switches[s], 0,
					   "switch %s with compute nodes is not connected "
					   "to the roots",
					   vt_node_name(t->f, t->f->switches[s], a, sizeof(a)));
	}
	t->nlevels = maxd + 1;
	return 0;
}

/* The stranded switch orphan o hangs off: its first switch neighbour. */
uint32_t vt_tree_orphan_of(const vt_tree *t, uint32_t o)
{
	const vt_fabric *f = t->f;
	uint32_t node = f->switches[o], x = VT_NONE;

	for (unsigned p = 1; x == VT_NONE && p <= f->nodes[node].nports; p++)
		x = vt_tree_peer_sw(f, vt_port_index(f, node, p));
	return x;
}

/* Does an orphan hang off stranded switch s? */
static int has_orphan(const vt_tree *t, uint32_t s)
{
	for (uint32_t o = 0; o < t->nsw; o++)
		if (t->strand[o] == VT_STRAND_ORPHAN && vt_tree_orphan_of(t, o) == s)
			return 1;
	return 0;
}

/* Orphan o's CAs stop being compute nodes (no rank); one departure line. */
static void orphan_dep(vt_tree *t, uint8_t *is_leaf, uint32_t o)
{
	const vt_fabric *f = t->f;
	char a[300], b[300], more[80] = "";
	uint32_t ncn = t->ncn, node = f->switches[o], s = vt_tree_orphan_of(t, o), nother = 0;

	for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
		uint32_t x = vt_tree_peer_sw(f, vt_port_index(f, node, p));
		unsigned k = 1;

		while (k < p && vt_tree_peer_sw(f, vt_port_index(f, node, k)) != x)
			k++;
		nother += x != VT_NONE && x != s && k == p; /* each other switch once */
	}
	if (nother)
		snprintf(more, sizeof(more), " (and to %u other stranded switch%s, unused)", nother,
			 nother > 1 ? "es" : "");
	vt_tree_unmark_cns(t, o);
	is_leaf[o] = 0;
	vt_tree_dep(t,
		    "leaf %s has no up-link but to stranded switch %s%s: routed around with it, "
		    "through the switch's other leaves; its %u CAs are not compute nodes "
		    "(no rank: their routes cannot be free of congestion)",
		    vt_node_name(f, node, a, sizeof(a)),
		    vt_node_name(f, f->switches[s], b, sizeof(b)), more, ncn - t->ncn);
}

/* The stranded switches cut, one departure line each, and their orphans. */
static void strand_deps(vt_tree *t, uint8_t *is_leaf)
{
	char a[300];

	for (uint32_t s = 0; s < t->nsw; s++)
		if (t->strand[s] == VT_STRAND_SWITCH)
			vt_tree_dep(t,
				    "switch %s has no up-link left but switches below it have "
				    "others (a failed top or failed up-links cut it off): routed "
				    "around, it carries only its own%s routes",
				    vt_node_name(t->f, t->f->switches[s], a, sizeof(a)),
				    has_orphan(t, s) ? ", its CAs' and its orphan leaves'"
						     : " and its CAs'");
	for (uint32_t s = 0; s < t->nsw; s++)
		if (t->strand[s] == VT_STRAND_BEHIND)
			vt_tree_dep(t,
				    "switch %s reaches the leaves only through switches without "
				    "compute nodes (a part behind a host-less leaf, its other "
				    "links failed): routed around, it carries only its own and "
				    "its CAs' routes",
				    vt_node_name(t->f, t->f->switches[s], a, sizeof(a)));
	for (uint32_t s = 0; s < t->nsw; s++)
		if (t->strand[s] == VT_STRAND_ORPHAN)
			orphan_dep(t, is_leaf, s);
}

/*
 * Count the levels from the roots in q[0 .. nq), cutting stranded switches
 * while that brings leaves to level 0: 1 when a cut put every leaf there
 * (t->strand kept), 0 otherwise, -1 with e.
 */
static int cut_levels(vt_tree *t, uint8_t *is_leaf, uint32_t *dist, uint32_t *q, uint32_t nq,
		      vt_err *e)
{
	int n = 1, rc;

	while (!(rc = count_levels(t, is_leaf, dist, q, nq, e)) && n > 0 &&
	       !leaves_level0(t, is_leaf))
		if ((n = strand_cut(t, is_leaf, e)) < 0)
			return -1;
	if (rc)
		return -1;
	return t->nstrand && leaves_level0(t, is_leaf);
}

static void uncut(vt_tree *t)
{
	free(t->strand);
	t->strand = NULL;
	t->nstrand = 0;
}

/*
 * The switches as far from the leaves as the roots that the roots left out
 * as host-less leaves (each has a leaf's switch neighbours): a top that kept
 * links to one pod only reads so. Appended to q[0 .. nq); the new count,
 * VT_NONE when out of memory.
 */
static uint32_t twin_tops(const vt_tree *t, const uint8_t *is_leaf, uint32_t *q, uint32_t nq)
{
	struct strand_scan sc;
	uint32_t n = nq, h = 0;

	if (scan(t, is_leaf, &sc)) {
		scan_free(&sc);
		return VT_NONE;
	}
	for (uint32_t i = 0; i < nq; i++)
		if (sc.dist[q[i]] != VT_NONE && sc.dist[q[i]] > h)
			h = sc.dist[q[i]];
	for (uint32_t s = 0; h && s < t->nsw; s++) {
		uint32_t i = 0;

		while (i < nq && q[i] != s)
			i++;
		if (i == nq && !is_leaf[s] && sc.dist[s] == h)
			q[n++] = s;
	}
	scan_free(&sc);
	return n;
}

/* Twin tops q[from .. to) taken as roots, one departure line each. */
static void twin_deps(vt_tree *t, const uint32_t *q, uint32_t from, uint32_t to)
{
	char a[300];

	for (uint32_t i = from; i < to; i++)
		vt_tree_dep(t,
			    "switch %s is cabled like a host-less leaf but as far from the leaves "
			    "as the roots: a top left with one pod's links, taken as a root (as a "
			    "host-less leaf, a switch below it would be stranded)",
			    vt_node_name(t->f, t->f->switches[q[i]], a, sizeof(a)));
}

/*
 * Stranded switches are cut only where that puts the leaves on one level.
 * Where it does not, found roots (twins: roots not given) are tried with the
 * twin tops as roots too; where that fails as well, the levels are counted
 * with every switch again, for the refusal to name the stranded one.
 */
int vt_tree_levels_around(vt_tree *t, uint8_t *is_leaf, uint32_t *dist, uint32_t *q, uint32_t nq,
			  int twins, vt_err *e)
{
	int rc = cut_levels(t, is_leaf, dist, q, nq, e);
	uint32_t nt = nq;

	if (rc < 0)
		return -1;
	if (!rc && twins && !leaves_level0(t, is_leaf) &&
	    (nt = twin_tops(t, is_leaf, q, nq)) == VT_NONE)
		return vt_err_nomem(e, "out of memory");
	if (!rc && nt > nq) {
		uncut(t);
		if ((rc = cut_levels(t, is_leaf, dist, q, nt, e)) < 0)
			return -1;
		if (rc || leaves_level0(t, is_leaf))
			twin_deps(t, q, nq, nt);
		if (!rc && leaves_level0(t, is_leaf))
			return 0; /* the twin tops alone level the leaves: nothing stranded */
	}
	if (rc) {
		strand_deps(t, is_leaf);
		return 0;
	}
	if (!t->nstrand && nt == nq)
		return 0;
	uncut(t);
	return count_levels(t, is_leaf, dist, q, nq, e);
}

/* Per switch, the first switch of its component of the tree's links; NULL when out of memory. */
static uint32_t *tree_components(const vt_tree *t)
{
	uint32_t *uf = malloc((t->nsw + 1) * sizeof(*uf));

	if (!uf)
		return NULL;
	vt_uf_init(uf, t->nsw);
	for (uint32_t s = 0; s < t->nsw; s++)
		for (uint32_t j = t->up_start[s]; j < t->up_start[s + 1]; j++)
			vt_uf_union_min(uf, s, t->up_peer[j]);
	for (uint32_t s = 0; s < t->nsw; s++)
		uf[s] = vt_uf_find(uf, s);
	return uf;
}

int vt_tree_leaves_meet(vt_tree *t, const uint8_t *is_leaf, vt_err *e)
{
	uint32_t nsw = t->nsw, pa = VT_NONE, pb = VT_NONE, npairs = 0, *comp;
	char n[4][VT_NODE_NAME_MAX];

	for (uint32_t a = 0; a < nsw; a++)
		for (uint32_t b = 0; is_leaf[a] && b < nsw; b++)
			if (is_leaf[b] && !vt_tree_bit(t, t->ureach, a, b)) {
				if (pa == VT_NONE) {
					pa = a;
					pb = b;
				}
				npairs++;
			}
	if (pa == VT_NONE)
		return 0;
	comp = tree_components(t);
	if (!comp)
		return vt_err_nomem(e, "out of memory");
	for (uint32_t a = 0; a < nsw; a++)
		for (uint32_t b = 0; is_leaf[a] && b < nsw; b++)
			if (is_leaf[b] && comp[a] != comp[b]) {
				free(comp);
				return vt_err_node(
					e, t->f, vt_tree_leaf_ca(t, a), 0,
					"no up/down path from CA %s on switch %s to CA %s on "
					"switch %s",
					vt_node_name(t->f, vt_tree_leaf_ca(t, a), n[0],
						     VT_NODE_NAME_MAX),
					vt_node_name(t->f, t->f->switches[a], n[1],
						     VT_NODE_NAME_MAX),
					vt_node_name(t->f, vt_tree_leaf_ca(t, b), n[2],
						     VT_NODE_NAME_MAX),
					vt_node_name(t->f, t->f->switches[b], n[3],
						     VT_NODE_NAME_MAX));
			}
	free(comp);
	t->ca_detours = npairs;
	vt_tree_dep(t,
		    "no up/down path from leaf %s to leaf %s (%u ordered pairs of leaves): "
		    "their CAs' routes turn down-up, every route audited",
		    vt_node_name(t->f, t->f->switches[pa], n[0], VT_NODE_NAME_MAX),
		    vt_node_name(t->f, t->f->switches[pb], n[1], VT_NODE_NAME_MAX), npairs);
	return 0;
}
