/* SPDX-License-Identifier: MIT */
/*
 * Which CA ports are compute nodes, which switches are leaves, and the level
 * of every switch, from the structure of the fabric (vt_tree.h says the rules).
 *
 * Real fabrics break the simple rule "a switch with a CA is a leaf": SHArP
 * aggregation nodes sit on every switch, storage and management HCAs on
 * spines, and leaves may have no hosts yet. So: aggregation nodes are never
 * compute nodes; a CA-bearing switch that lies on a shortest path between two
 * other CA-bearing switches is a spine with CAs, not a leaf; and the roots are
 * the highest switches that carry shortest paths between leaves, so host-less
 * leaves and pods fall to the bottom where they belong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree/vt_tree_int.h"

struct cand {
	uint32_t cas, s;
};

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->cas != y->cas)
		return x->cas < y->cas ? -1 : 1;
	return (x->s > y->s) - (x->s < y->s);
}

/* Is s a far end: every switch neighbour nearer to the leaves (dist) than s? */
static int far_end(const struct vt_nblist *nl, const uint32_t *dist, uint32_t s)
{
	uint32_t i = nl->start[s];

	if (dist[s] == VT_NONE || !dist[s] || i == nl->start[s + 1])
		return 0;
	while (i < nl->start[s + 1] && dist[nl->v[i]] < dist[s])
		i++;
	return i == nl->start[s + 1];
}

/*
 * Do the fullest leaves (most CAs) all share their neighbours (hosts on one
 * leaf or on one pod's leaves), and s does not? Only then can a switch with
 * fewer CAs be a top one that lies between no two leaves.
 */
static int one_fullest_class(const vt_tree *t, const struct vt_nblist *nl, const uint8_t *is_leaf,
			     uint32_t most, uint32_t s)
{
	uint32_t rep = VT_NONE;

	for (uint32_t x = 0; x < t->nsw; x++) {
		if (!is_leaf[x] || vt_tree_cn_count(t, x) != most)
			continue;
		if (rep == VT_NONE)
			rep = x;
		else if (!vt_tree_same_neighbours(nl, rep, x))
			return 0;
	}
	return rep != VT_NONE && !vt_tree_same_neighbours(nl, rep, s);
}

/* Is some switch neighbour of s CA-bearing? */
static int next_to_leaf(const struct vt_nblist *nl, const uint8_t *is_leaf, uint32_t s)
{
	for (uint32_t i = nl->start[s]; i < nl->start[s + 1]; i++)
		if (is_leaf[nl->v[i]])
			return 1;
	return 0;
}

/* dist: per switch, the hops from the nearest leaf with `most` CAs (q: scratch). */
static void hops_from_fullest(const vt_tree *t, const uint8_t *is_leaf, uint32_t most, uint32_t *q,
			      uint32_t *dist)
{
	uint32_t nq = 0;

	memset(dist, 0xff, t->nsw * sizeof(*dist));
	for (uint32_t s = 0; s < t->nsw; s++)
		if (is_leaf[s] && vt_tree_cn_count(t, s) == most) {
			dist[s] = 0;
			q[nq++] = s;
		}
	vt_tree_bfs(t->f, q, nq, dist);
}

/*
 * The CA-bearing switches and the far ends seen from the fullest leaves (most
 * CAs): with hosts in one pod only, a top switch with storage CAs lies between
 * those and the empty pods' host-less leaves. A far end cabled to a CA-bearing
 * switch is no host-less leaf but a spine the fullest leaf lost its links to
 * (a damaged 2-level tree whose one fullest leaf lost up-links): leaves
 * between it and the fullest leaf stay leaves. NULL when out of memory; q and
 * dist are scratch.
 */
static uint8_t *leaves_and_far_ends(const vt_tree *t, const struct vt_nblist *nl,
				    const uint8_t *is_leaf, uint32_t most, uint32_t *q,
				    uint32_t *dist)
{
	uint8_t *m = malloc(t->nsw + 1);

	if (!m)
		return NULL;
	hops_from_fullest(t, is_leaf, most, q, dist);
	for (uint32_t s = 0; s < t->nsw; s++)
		m[s] = is_leaf[s] || (far_end(nl, dist, s) && !next_to_leaf(nl, is_leaf, s));
	return m;
}

/*
 * Leaves are never linked to each other, so of two linked CA-bearing switches
 * the one with fewer CAs is a spine when it has other switch neighbours too
 * (with hosts on a single leaf no spine lies between two leaves). Two lone
 * switches linked to each other stay as they are: no tree, refused later.
 */
static int above_fuller_leaf(const vt_tree *t, const struct vt_nblist *nl, const uint8_t *is_leaf,
			     uint32_t s, uint32_t cas)
{
	int fuller = 0;

	if (nl->start[s + 1] - nl->start[s] < 2)
		return 0;
	for (uint32_t i = nl->start[s]; i < nl->start[s + 1] && !fuller; i++)
		fuller = is_leaf[nl->v[i]] && vt_tree_cn_count(t, nl->v[i]) > cas;
	return fuller;
}

/*
 * Without a cn_guid_file, a switch holding fewer compute CAs than the fullest
 * leaf and lying on a shortest path between two other CA-bearing switches is
 * a spine with storage or management CAs: they stop being compute nodes.
 * Fewest CAs first, so spines drop out before they could make a leaf look
 * like it lies between them.
 */
static int demote_spines(vt_tree *t, const struct vt_nblist *nl, uint8_t *is_leaf, uint32_t *q,
			 uint32_t *dist, vt_err *e)
{
	uint32_t nsw = t->nsw, nc = 0, most = 0;
	struct cand *c = malloc((nsw + 1) * sizeof(*c));
	struct vt_classes cl = {0};
	uint8_t *far = NULL;
	int rc;

	if (!c)
		return vt_err_nomem(e, "out of memory");
	for (uint32_t s = 0; s < nsw; s++)
		if (is_leaf[s]) {
			c[nc] = (struct cand){vt_tree_cn_count(t, s), s};
			most = c[nc].cas > most ? c[nc].cas : most;
			nc++;
		}
	qsort(c, nc, sizeof(*c), cand_cmp);
	rc = nc && c[0].cas < most ? vt_tree_classes_build(&cl, t->f, nl, is_leaf, q, dist) : 0;
	for (uint32_t i = 0; rc == 1 && i < nc && c[i].cas < most; i++)
		if (vt_tree_between(&cl, nsw, c[i].s)) {
			vt_tree_unmark_cns(t, c[i].s);
			is_leaf[c[i].s] = 0;
			cl.active[cl.of[c[i].s]]--;
		}
	for (uint32_t i = 0; rc == 1 && i < nc && c[i].cas < most; i++)
		if (is_leaf[c[i].s] && above_fuller_leaf(t, nl, is_leaf, c[i].s, c[i].cas)) {
			vt_tree_unmark_cns(t, c[i].s);
			is_leaf[c[i].s] = 0;
		}
	for (uint32_t i = 0; rc == 1 && i < nc && c[i].cas < most && !far; i++)
		if (is_leaf[c[i].s] && one_fullest_class(t, nl, is_leaf, most, c[i].s)) {
			vt_tree_classes_free(&cl);
			far = leaves_and_far_ends(t, nl, is_leaf, most, q, dist);
			rc = far ? vt_tree_classes_build(&cl, t->f, nl, far, q, dist) : -1;
		}
	for (uint32_t i = 0; rc == 1 && far && i < nc && c[i].cas < most; i++)
		if (is_leaf[c[i].s] && one_fullest_class(t, nl, is_leaf, most, c[i].s) &&
		    vt_tree_between(&cl, nsw, c[i].s)) {
			vt_tree_unmark_cns(t, c[i].s);
			is_leaf[c[i].s] = 0;
			cl.active[cl.of[c[i].s]]--;
		}
	free(far);
	vt_tree_classes_free(&cl);
	free(c);
	return rc < 0 ? vt_err_nomem(e, "out of memory") : 0;
}

/*
 * A switch with fewer CAs than the fullest leaf whose switch neighbours are
 * those of a switch without compute nodes, and at most half as many as a
 * fullest leaf's: a top of a one-pod tree (management HCAs on it) left with
 * its one pod's links, as rank_hostless() tells such a top from a leaf
 * waiting for hosts. No switch lies between it and a leaf, so
 * demote_spines() keeps it; its CAs stop being compute nodes here.
 */
static void demote_lone_tops(vt_tree *t, const struct vt_nblist *nl, uint8_t *is_leaf)
{
	uint32_t most = 0, wide = 0;
	char name[300];

	for (uint32_t s = 0; s < t->nsw; s++)
		if (is_leaf[s] && vt_tree_cn_count(t, s) > most)
			most = vt_tree_cn_count(t, s);
	for (uint32_t s = 0; s < t->nsw; s++)
		if (is_leaf[s] && vt_tree_cn_count(t, s) == most &&
		    nl->start[s + 1] - nl->start[s] > wide)
			wide = nl->start[s + 1] - nl->start[s];
	for (uint32_t s = 0; s < t->nsw; s++) {
		uint32_t n = nl->start[s + 1] - nl->start[s];

		if (!is_leaf[s] || vt_tree_cn_count(t, s) >= most || !n || 2 * n > wide)
			continue;
		for (uint32_t x = 0; x < t->nsw; x++)
			if (x != s && !is_leaf[x] && vt_tree_leaf_ca(t, x) == VT_NONE &&
			    vt_tree_same_neighbours(nl, s, x)) {
				vt_tree_dep(
					t,
					"switch %s holds CAs but is cabled like a top left with "
					"one pod's links (the switch neighbours of one without "
					"CAs, at most half a leaf's): its CAs are not compute "
					"nodes",
					vt_node_name(t->f, t->f->switches[s], name, sizeof(name)));
				vt_tree_unmark_cns(t, s);
				is_leaf[s] = 0;
				break;
			}
	}
}

/*
 * Every link joins adjacent levels, so a switch an odd number of hops from a
 * leaf is on an odd level: a switch with fewer CAs than the fullest leaf that
 * far from those (a top with storage CAs left with one link down, no switch
 * between it and a leaf) is a spine with CAs, its CAs no compute nodes;
 * only where such switches hold fewer compute nodes than those an even
 * number of hops away (a spine with many storage HCAs is not taken for the
 * leaves), and 3 hops or more away (two switches with hosts linked to each
 * other are no tree: refused, check_links()). q and dist are scratch.
 */
static void demote_odd(vt_tree *t, uint8_t *is_leaf, uint32_t *q, uint32_t *dist)
{
	uint32_t most = 0, cns[2] = {0, 0};
	char name[300];

	for (uint32_t s = 0; s < t->nsw; s++)
		if (is_leaf[s] && vt_tree_cn_count(t, s) > most)
			most = vt_tree_cn_count(t, s);
	hops_from_fullest(t, is_leaf, most, q, dist);
	for (uint32_t s = 0; s < t->nsw; s++)
		if (is_leaf[s] && dist[s] != VT_NONE)
			cns[dist[s] % 2] += vt_tree_cn_count(t, s);
	for (uint32_t s = 0; cns[1] < cns[0] && s < t->nsw; s++) {
		if (!is_leaf[s] || dist[s] == VT_NONE || !(dist[s] % 2) || dist[s] < 3)
			continue;
		vt_tree_dep(t,
			    "switch %s holds CAs but lies an odd number of hops (%u) from the "
			    "fullest leaves, so on no leaf's level: its CAs are not compute nodes",
			    vt_node_name(t->f, t->f->switches[s], name, sizeof(name)), dist[s]);
		vt_tree_unmark_cns(t, s);
		is_leaf[s] = 0;
	}
}

/* Are the n switches ns[] (sorted) all switch neighbours of one leaf? */
static int one_leafs(const struct vt_nblist *nl, const uint8_t *is_leaf, const uint32_t *ns,
		     uint32_t n)
{
	for (uint32_t i = nl->start[ns[0]]; n && i < nl->start[ns[0] + 1]; i++) {
		uint32_t l = nl->v[i], k = 0;

		if (!is_leaf[l])
			continue;
		for (uint32_t j = nl->start[l]; j < nl->start[l + 1] && k < n; j++)
			k += nl->v[j] == ns[k];
		if (k == n)
			return 1;
	}
	return 0;
}

/* Is every switch neighbour of s also one of some leaf's? Then s is a host-less leaf. */
static int twin_of_leaf(const struct vt_nblist *nl, const uint8_t *is_leaf, uint32_t s)
{
	return !is_leaf[s] &&
	       one_leafs(nl, is_leaf, &nl->v[nl->start[s]], nl->start[s + 1] - nl->start[s]);
}

/* Does some switch in x[0 .. n) reach a leaf without passing s? (-1 when out of memory) */
static int reach_leaves_past(const vt_tree *t, const uint8_t *is_leaf, uint32_t s,
			     const uint32_t *x, uint32_t n)
{
	uint32_t *q = malloc((t->nsw + 1) * sizeof(*q)), *d = malloc((t->nsw + 1) * sizeof(*d));
	uint32_t nq = 0;
	int r = 0;

	if (!q || !d) {
		free(q);
		free(d);
		return -1;
	}
	memset(d, 0xff, t->nsw * sizeof(*d));
	for (uint32_t i = 0; i < t->nsw; i++)
		if (is_leaf[i]) {
			d[i] = 0;
			q[nq++] = i;
		}
	d[s] = 0; /* not VT_NONE: the search takes no step there */
	vt_tree_bfs(t->f, q, nq, d);
	for (uint32_t i = 0; i < n && !r; i++)
		r = d[x[i]] != VT_NONE;
	free(q);
	free(d);
	return r;
}

/*
 * A host-less leaf whose pod lost links may have a leaf's neighbours no more:
 * the level-1 switch that kept it alone of its pod's leaves (and the tops left
 * with it) hang behind it, and by hops from the leaves it stands as high as a
 * top. Its neighbours nearer the leaves (dist) are still one leaf's, and those
 * farther reach the leaves only through it: a host-less leaf too, no root (the
 * part behind it is cut, vt_tree_levels_around()). A top of a tree with hosts
 * in one pod has its farther neighbours (the other pods) reach the leaves over
 * the other tops. ns: scratch for its neighbours.
 */
static int hostless_with_part_behind(const vt_tree *t, const struct vt_nblist *nl,
				     const uint8_t *is_leaf, const uint32_t *dist, uint32_t s,
				     uint32_t *ns)
{
	uint32_t n = 0, far = 0, deg = nl->start[s + 1] - nl->start[s];

	for (uint32_t i = nl->start[s]; i < nl->start[s + 1]; i++) {
		uint32_t x = nl->v[i];

		if (dist[x] < dist[s])
			ns[n++] = x;
		else if (dist[x] != VT_NONE && dist[x] > dist[s])
			ns[deg - ++far] = x; /* the farther ones from the end */
	}
	return !is_leaf[s] && far && one_leafs(nl, is_leaf, ns, n) &&
	       !reach_leaves_past(t, is_leaf, s, ns + deg - far, far);
}

/*
 * With one class of leaves (hosts on one leaf, or on the leaves of one pod) no
 * switch above that pod lies between two leaves, and the roots would come out
 * at the pod's own top. The far ends of the empty parts (the host-less leaves
 * of empty pods) are leaves too, so the roots lie halfway to them: the largest
 * such half, 0 when there is none.
 */
static uint32_t far_middle(const vt_tree *t, const struct vt_nblist *nl, const uint8_t *is_leaf,
			   const uint32_t *dist)
{
	uint32_t mid = 0;

	for (uint32_t s = 0; s < t->nsw; s++)
		if (!is_leaf[s] && dist[s] != VT_NONE && !(dist[s] % 2) && dist[s] / 2 > mid &&
		    far_end(nl, dist, s))
			mid = dist[s] / 2;
	return mid;
}

/*
 * A stranded top with management or storage CAs (fewer than the fullest leaf)
 * looked like a leaf: its CAs stop being compute nodes (no up/down path joins
 * them to the other leaves) and it is a root when it stands that high.
 */
static uint32_t stranded_cas(vt_tree *t, uint8_t *is_leaf, const uint32_t *dist, uint32_t top,
			     const uint32_t *reach, uint32_t *q, uint32_t nq)
{
	const vt_fabric *f = t->f;
	uint32_t most = 0;
	char name[300];

	for (uint32_t s = 0; s < t->nsw; s++)
		if (is_leaf[s] && vt_tree_cn_count(t, s) > most)
			most = vt_tree_cn_count(t, s);
	for (uint32_t s = 0; s < t->nsw; s++) {
		uint32_t node = f->switches[s], d = VT_NONE;

		if (!is_leaf[s] || reach[s] != VT_NONE || vt_tree_cn_count(t, s) >= most)
			continue;
		vt_tree_dep(t,
			    "switch %s holds CAs but reaches the roots only through a leaf: "
			    "a top cut off below, its CAs are not compute nodes",
			    vt_node_name(f, node, name, sizeof(name)));
		vt_tree_unmark_cns(t, s);
		is_leaf[s] = 0;
		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t r = vt_tree_peer_sw(f, vt_port_index(f, node, p));

			if (r != VT_NONE && dist[r] != VT_NONE && dist[r] + 1 < d)
				d = dist[r] + 1;
		}
		if (d == top)
			q[nq++] = s;
	}
	return nq;
}

/*
 * A top left with one of its down-links (its other switches failed or cut)
 * has a leaf's neighbours, like a host-less leaf; but a host-less leaf is
 * reached from the roots without passing a leaf (host-less or not), a
 * stranded top only through one (its switch below leads nowhere else). Such twins at the roots'
 * height are roots too, so the leaves stay at level 0. Appends them to q[0 .. nq) and returns the
 * new count; reach is scratch.
 */
static uint32_t stranded_tops(vt_tree *t, uint8_t *is_leaf, const uint8_t *twin,
			      const uint32_t *dist, uint32_t top, uint32_t *q, uint32_t nq,
			      uint32_t *reach, int listed)
{
	const vt_fabric *f = t->f;
	uint32_t n = nq;

	if (!top)
		return nq;
	memset(reach, 0xff, t->nsw * sizeof(*reach));
	for (uint32_t i = 0; i < nq; i++)
		reach[q[i]] = 0;
	for (uint32_t h = 0; h < n; h++) {
		uint32_t s = q[h], node = f->switches[s];

		for (unsigned p = 1; !is_leaf[s] && !twin[s] && p <= f->nodes[node].nports; p++) {
			uint32_t r = vt_tree_peer_sw(f, vt_port_index(f, node, p));

			if (r != VT_NONE && reach[r] == VT_NONE) {
				reach[r] = 0;
				q[n++] = r;
			}
		}
	}
	if (!listed) /* listed compute nodes stay so, as in demote_spines() */
		nq = stranded_cas(t, is_leaf, dist, top, reach, q, nq);
	for (uint32_t s = 0; s < t->nsw; s++)
		if (twin[s] && dist[s] == top && reach[s] == VT_NONE)
			q[nq++] = s;
	return nq;
}

/*
 * Split director cores: where every two leaves share a line ASIC (at `top`),
 * no shortest path between leaves crosses the chassis' spine ASICs above the
 * lines, and the roots found by find_roots() would be the lines, the spines
 * dead ends below them. A switch one hop farther than the roots, no host-less
 * leaf (twin), whose every switch link goes to a root, is such a spine: when
 * the spines reach every root, they are the roots (their distance returned),
 * else top. The rule reads only links, so a full director (each leaf on every
 * line: spines twins of a leaf) and a top of a one-pod tree keep their levels.
 * seen: scratch for nsw switches.
 */
static uint32_t spines_above(const vt_tree *t, const struct vt_nblist *nl, const uint8_t *twin,
			     const uint32_t *dist, uint32_t top, uint32_t *seen)
{
	uint32_t nsp = 0;

	memset(seen, 0, t->nsw * sizeof(*seen));
	for (uint32_t s = 0; s < t->nsw; s++) {
		uint32_t i = nl->start[s];

		if (dist[s] != top + 1 || twin[s] || i == nl->start[s + 1])
			continue;
		while (i < nl->start[s + 1] && dist[nl->v[i]] == top && !twin[nl->v[i]])
			i++;
		for (uint32_t j = nl->start[s]; i == nl->start[s + 1] && j < i; j++)
			seen[nl->v[j]] = 1;
		nsp += i == nl->start[s + 1];
	}
	for (uint32_t s = 0; nsp && s < t->nsw; s++)
		if (dist[s] == top && !twin[s] && !seen[s])
			return top;
	return nsp ? top + 1 : top;
}

/*
 * The roots without a root_guid_file: by hops from the leaves (dist), the
 * highest switches that lie on a shortest path between two leaves, and every
 * other switch that high that is not a host-less leaf (a twin of a leaf), or
 * the spines one hop beyond them (spines_above) where those reach them all. A
 * fabric with too many leaf classes, or one whose leaves no switch lies
 * between, takes the farthest switches that are not host-less leaves.
 * Fills q with the roots and returns their count; listed: compute nodes given.
 */
static uint32_t find_roots(vt_tree *t, const struct vt_nblist *nl, uint8_t *is_leaf, uint32_t *dist,
			   uint32_t *q, int listed, vt_err *e, int *fail)
{
	uint32_t nsw = t->nsw, top = 0, nq = 0, found = 0, *scratch;
	uint8_t *twin = calloc(nsw + 1, 1);
	struct vt_classes cl;
	int rc;

	scratch = malloc((nsw + 1) * sizeof(*scratch));
	if (!twin || !scratch) {
		free(twin);
		free(scratch);
		*fail = vt_err_nomem(e, "out of memory");
		return 0;
	}
	for (uint32_t s = 0; s < nsw; s++) {
		twin[s] = dist[s] != VT_NONE &&
			  (twin_of_leaf(nl, is_leaf, s) ||
			   hostless_with_part_behind(t, nl, is_leaf, dist, s, scratch));
		if (dist[s] != VT_NONE && !twin[s] && !is_leaf[s] && dist[s] > top)
			top = dist[s];
	}
	rc = vt_tree_classes_build(&cl, t->f, nl, is_leaf, q, scratch);
	if (rc < 0)
		*fail = vt_err_nomem(e, "out of memory");
	for (uint32_t d = top; rc == 1 && !found && d > 0; d--)
		for (uint32_t s = 0; s < nsw && !found; s++)
			if (dist[s] == d && !twin[s] && vt_tree_between(&cl, nsw, s))
				found = d;
	if (rc == 1 && cl.n == 1 && far_middle(t, nl, is_leaf, dist) > found)
		found = far_middle(t, nl, is_leaf, dist);
	vt_tree_classes_free(&cl);
	top = found ? spines_above(t, nl, twin, dist, found, scratch) : top;
	for (uint32_t s = 0; s < nsw; s++)
		if (dist[s] == top && !twin[s] && (top || is_leaf[s]))
			q[nq++] = s;
	nq = stranded_tops(t, is_leaf, twin, dist, top, q, nq, scratch, listed);
	free(twin);
	free(scratch);
	return nq;
}

static const char *swname(const vt_tree *t, uint32_t s, char *buf, size_t len)
{
	return vt_node_name(t->f, t->f->switches[s], buf, len);
}

static int refuse_leaf_level(vt_tree *t, uint32_t s, uint32_t lvl, vt_err *e)
{
	uint32_t ca = vt_tree_leaf_ca(t, s);
	char a[300], b[300];

	return vt_err_node(e, t->f, ca, 0,
			   "CA %s is attached to switch %s at level %u, but compute nodes "
			   "must all hang off level 0",
			   vt_node_name(t->f, ca, a, sizeof(a)), swname(t, s, b, sizeof(b)), lvl);
}

/*
 * Compute nodes must all hang off level 0. When they do not, the switches
 * holding most of them are taken as the true leaves and the first other one
 * is named with its distance from those: a CA on a spine switch then reads
 * "at level 1" or "2", not the level a skewed ranking gave it; unless a switch
 * stranded below the leaves skewed it, which is named instead. dist and q are
 * scratch arrays of nsw entries.
 */
static int check_leaf_levels(vt_tree *t, const uint8_t *is_leaf, uint32_t *dist, uint32_t *q,
			     vt_err *e)
{
	uint32_t cnt[VT_TREE_MAX_LEVELS] = {0}, m = 0, nq = 0, total = 0;

	for (uint32_t s = 0; s < t->nsw; s++)
		if (is_leaf[s] && t->level[s] != VT_TREE_OUTSIDE) {
			cnt[t->level[s]]++;
			total++;
		}
	for (uint32_t l = 1; l < VT_TREE_MAX_LEVELS; l++)
		if (cnt[l] > cnt[m])
			m = l;
	if (cnt[0] == total)
		return 0;
	if (vt_tree_refuse_stranded(t, is_leaf, e))
		return -1;
	memset(dist, 0xff, t->nsw * sizeof(*dist));
	for (uint32_t s = 0; s < t->nsw; s++)
		if (is_leaf[s] && t->level[s] == m) {
			dist[s] = 0;
			q[nq++] = s;
		}
	vt_tree_bfs(t->f, q, nq, dist);
	for (uint32_t s = 0; s < t->nsw; s++)
		if (is_leaf[s] && t->level[s] != VT_TREE_OUTSIDE && t->level[s] != m)
			return refuse_leaf_level(t, s, dist[s], e);
	for (uint32_t s = 0; s < t->nsw; s++)
		if (is_leaf[s] && t->level[s] != VT_TREE_OUTSIDE)
			return refuse_leaf_level(t, s, m, e);
	return 0;
}

/*
 * Root GUID i names no switch: the refusal names its file and line when it
 * was read from one, and the node or CA port that has the GUID, if any.
 */
static int refuse_root(const vt_fabric *f, const struct vt_tree_opts *o, uint32_t i, vt_err *e)
{
	unsigned long long g = o->root_guids[i];
	uint32_t n = vt_fabric_node_by_guid(f, g), q = vt_fabric_port_by_guid(f, g);
	char nm[VT_NODE_NAME_MAX], what[VT_NODE_NAME_MAX + 300];

	if (n == VT_NONE && q != VT_NONE)
		n = f->ports[q].node;
	if (n == VT_NONE)
		snprintf(what, sizeof(what), "no node or port of %s has it", f->source);
	else if (g == f->nodes[n].guid)
		snprintf(what, sizeof(what), "it is %s %s",
			 f->nodes[n].type == VT_CA ? "CA" : "router",
			 vt_node_name(f, n, nm, sizeof(nm)));
	else
		snprintf(what, sizeof(what), "it is port %u of %s %s", f->ports[q].num,
			 f->nodes[n].type == VT_CA ? "CA" : "router",
			 vt_node_name(f, n, nm, sizeof(nm)));
	if (o->root_file && o->root_lines)
		return vt_err_at(e, o->root_file, o->root_lines[i],
				 "root GUID 0x%016llx is not a switch of the fabric: %s", g, what);
	return vt_err_set(e, "root GUID 0x%016llx is not a switch of the fabric: %s", g, what);
}

/*
 * A root GUID that no node or port of the fabric has is a listed top that
 * failed (OpenSM no longer sees it): a departure, left out of the roots.
 */
static void gone_root(vt_tree *t, const struct vt_tree_opts *o, uint32_t i)
{
	char at[300] = "";

	if (o->root_file && o->root_lines)
		snprintf(at, sizeof(at), " (%s:%u)", o->root_file, o->root_lines[i]);
	vt_tree_dep(t,
		    "root GUID 0x%016llx%s is no node of the fabric: a listed top that failed, "
		    "the tree is counted from the other roots",
		    (unsigned long long)o->root_guids[i], at);
}

/*
 * Roots from root_guid_file into q; returns their count, VT_NONE on a bad
 * GUID (one naming a CA, router or CA port) or when every listed root is gone.
 */
static uint32_t given_roots(vt_tree *t, const struct vt_tree_opts *o, uint32_t *dist, uint32_t *q,
			    vt_err *e)
{
	const vt_fabric *f = t->f;
	uint32_t nq = 0, gone = VT_NONE, ngone = 0;

	for (uint32_t i = 0; i < o->nroots; i++) {
		uint32_t n = vt_fabric_node_by_guid(f, o->root_guids[i]);

		if (n == VT_NONE && vt_fabric_port_by_guid(f, o->root_guids[i]) == VT_NONE) {
			gone = gone == VT_NONE ? i : gone;
			ngone++;
			continue;
		}
		if (n == VT_NONE || f->nodes[n].type != VT_SWITCH) {
			refuse_root(f, o, i, e);
			return VT_NONE;
		}
		if (t->plane_of && t->plane_of[f->nodes[n].sw] != t->plane)
			continue;
		if (dist[f->nodes[n].sw] == VT_NONE) {
			dist[f->nodes[n].sw] = 0;
			q[nq++] = f->nodes[n].sw;
		}
	}
	if (ngone == o->nroots) { /* none left: more likely the wrong file than failures */
		refuse_root(f, o, gone, e);
		return VT_NONE;
	}
	for (uint32_t i = 0; ngone && i < o->nroots; i++)
		if (vt_fabric_node_by_guid(f, o->root_guids[i]) == VT_NONE &&
		    vt_fabric_port_by_guid(f, o->root_guids[i]) == VT_NONE)
			gone_root(t, o, i);
	return nq;
}

/* Levels counted down from the roots in q[0 .. nq), found (not given) or not; see vt_tree.h. */
static int levels_from_roots(vt_tree *t, uint8_t *is_leaf, uint32_t *dist, uint32_t *q, uint32_t nq,
			     int found, vt_err *e)
{
	char a[300];

	if (vt_tree_levels_around(t, is_leaf, dist, q, nq, found, e))
		return -1;
	for (uint32_t s = 0; s < t->nsw; s++)
		if (t->level[s] == VT_TREE_OUTSIDE && !(t->strand && t->strand[s]) &&
		    (!t->plane_of || t->plane_of[s] == t->plane))
			vt_tree_dep(t, "switch %s is not connected to the tree",
				    swname(t, s, a, sizeof(a)));
	return check_leaf_levels(t, is_leaf, dist, q, e);
}

/*
 * A spine ASIC of a director names itself "MF0;name:CS7500/S01/U1": it has
 * no external ports, so it never gets hosts.
 */
static int director_spine(const char *desc)
{
	const char *p = desc ? strrchr(desc, '/') : NULL, *q;

	if (!p || p[1] != 'U' || !p[2] || strspn(p + 2, "0123456789") != strlen(p + 2))
		return 0;
	for (q = p; q > desc && q[-1] != '/';)
		q--;
	return q > desc && *q == 'S' && q + 1 < p &&
	       strspn(q + 1, "0123456789") == (size_t)(p - q - 1);
}

/*
 * A host-less switch of level 0 is a leaf waiting for hosts when it is cabled
 * like one: its switch neighbours are a leaf's, or more than half of them.
 * A top switch left with a single link (a one-pod pruned tree) is not, nor is
 * a director's spine ASIC that the leaves' up-links bypass (every leaf reaches
 * every line ASIC).
 */
static void rank_hostless(const vt_tree *t, const struct vt_nblist *nl, const uint8_t *is_leaf,
			  uint8_t *ranked)
{
	for (uint32_t s = 0; s < t->nsw; s++) {
		uint32_t n = nl->start[s + 1] - nl->start[s], x;

		ranked[s] = is_leaf[s];
		if (is_leaf[s] || t->level[s] != 0 || !n || !twin_of_leaf(nl, is_leaf, s) ||
		    director_spine(t->f->nodes[t->f->switches[s]].desc))
			continue;
		x = nl->v[nl->start[s]];
		for (uint32_t i = nl->start[x]; i < nl->start[x + 1] && !ranked[s]; i++) {
			uint32_t l = nl->v[i];

			ranked[s] = is_leaf[l] && 2 * n > nl->start[l + 1] - nl->start[l];
		}
	}
}

int vt_tree_levels(vt_tree *t, const struct vt_tree_opts *o, uint8_t *is_leaf, uint8_t *ranked,
		   vt_err *e)
{
	uint32_t nsw = t->nsw, nq = 0;
	uint32_t *dist = malloc((nsw + 1) * sizeof(*dist)), *q = malloc((nsw + 1) * sizeof(*q));
	struct vt_nblist nl = {0};
	int rc = -1, fail = 0;

	if (!dist || !q || vt_tree_nblist_build(&nl, t->f)) {
		vt_err_nomem(e, "out of memory");
		goto out;
	}
	if (vt_tree_mark_cns(t, o, e))
		goto out;
	for (uint32_t s = 0; s < nsw; s++)
		is_leaf[s] = vt_tree_leaf_ca(t, s) != VT_NONE;
	if (!(o && o->cn_guids) && demote_spines(t, &nl, is_leaf, q, dist, e))
		goto out;
	if (!(o && o->cn_guids)) {
		demote_lone_tops(t, &nl, is_leaf);
		demote_odd(t, is_leaf, q, dist);
	}
	memset(dist, 0xff, nsw * sizeof(*dist));
	if (o && o->root_guids && o->nroots) {
		nq = given_roots(t, o, dist, q, e);
		if (nq == VT_NONE)
			goto out;
	} else {
		for (uint32_t s = 0; s < nsw; s++)
			if (is_leaf[s]) {
				dist[s] = 0;
				q[nq++] = s;
			}
		vt_tree_bfs(t->f, q, nq, dist);
		nq = find_roots(t, &nl, is_leaf, dist, q, o && o->cn_guids, e, &fail);
		if (fail)
			goto out;
	}
	rc = levels_from_roots(t, is_leaf, dist, q, nq, !(o && o->root_guids && o->nroots), e);
	if (!rc)
		rank_hostless(t, &nl, is_leaf, ranked);
	for (uint32_t s = 0; !rc && s < nsw; s++)
		t->nbypassed += t->level[s] == 0 && !ranked[s] &&
				director_spine(t->f->nodes[t->f->switches[s]].desc);
out:
	free(nl.start);
	free(nl.v);
	free(dist);
	free(q);
	return rc;
}
