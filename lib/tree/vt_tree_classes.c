/* SPDX-License-Identifier: MIT */
/*
 * Switches alike (vt_tree_int.h): every switch's switch neighbours, and the
 * classes of switches that share them, with a BFS distance row per class.
 * The levels (vt_tree_levels.c) ask of these which switches lie between leaves.
 */
#include <stdlib.h>
#include <string.h>

#include "tree/vt_tree_int.h"

/* Distance tables past this many leaf classes cost too much: plain rules instead. */
#define MAX_CLASSES 256u
#define FAR	    0xFFFFu

void vt_tree_bfs(const vt_fabric *f, uint32_t *queue, uint32_t nq, uint32_t *dist)
{
	for (uint32_t h = 0; h < nq; h++) {
		uint32_t s = queue[h], node = f->switches[s];

		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t r = vt_tree_peer_sw(f, vt_port_index(f, node, p));

			if (r != VT_NONE && dist[r] == VT_NONE) {
				dist[r] = dist[s] + 1;
				queue[nq++] = r;
			}
		}
	}
}

void vt_tree_classes_free(struct vt_classes *c)
{
	free(c->of);
	free(c->rep);
	free(c->active);
	free(c->dist);
	memset(c, 0, sizeof(*c));
}

/* Sorted distinct switch neighbours of s into out; returns their count. */
static uint32_t neighbours(const vt_fabric *f, uint32_t s, uint32_t *out)
{
	uint32_t node = f->switches[s], n = 0;

	for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
		uint32_t r = vt_tree_peer_sw(f, vt_port_index(f, node, p)), i;

		if (r == VT_NONE)
			continue;
		for (i = n; i > 0 && out[i - 1] > r; i--)
			;
		if (i > 0 && out[i - 1] == r)
			continue;
		memmove(&out[i + 1], &out[i], (n - i) * sizeof(*out));
		out[i] = r;
		n++;
	}
	return n;
}

int vt_tree_nblist_build(struct vt_nblist *nl, const vt_fabric *f)
{
	uint32_t nsw = f->nswitches, n = 0, buf[VT_MAX_PORTS + 1];

	nl->start = malloc((nsw + 1) * sizeof(*nl->start));
	nl->v = NULL;
	if (!nl->start)
		return -1;
	for (uint32_t s = 0; s < nsw; s++) {
		nl->start[s] = n;
		n += neighbours(f, s, buf);
	}
	nl->start[nsw] = n;
	nl->v = malloc((n + 1) * sizeof(*nl->v));
	if (!nl->v)
		return -1;
	for (uint32_t s = 0; s < nsw; s++)
		neighbours(f, s, &nl->v[nl->start[s]]);
	return 0;
}

int vt_tree_same_neighbours(const struct vt_nblist *nl, uint32_t a, uint32_t b)
{
	uint32_t n = nl->start[a + 1] - nl->start[a];

	return n == nl->start[b + 1] - nl->start[b] &&
	       !memcmp(&nl->v[nl->start[a]], &nl->v[nl->start[b]], n * sizeof(*nl->v));
}

/*
 * Classes of the member switches (member[s] set), each with its BFS distance
 * row. Returns 1 when built, 0 when there are more than MAX_CLASSES, -1 when
 * out of memory.
 */
int vt_tree_classes_build(struct vt_classes *c, const vt_fabric *f, const struct vt_nblist *nl,
			  const uint8_t *member, uint32_t *q, uint32_t *dist)
{
	uint32_t nsw = f->nswitches;

	memset(c, 0, sizeof(*c));
	c->of = malloc((nsw + 1) * sizeof(*c->of));
	c->rep = malloc((MAX_CLASSES + 1) * sizeof(*c->rep));
	c->active = calloc(MAX_CLASSES + 1, sizeof(*c->active));
	if (!c->of || !c->rep || !c->active)
		return -1;
	for (uint32_t s = 0; s < nsw; s++) {
		uint32_t k = 0;

		c->of[s] = VT_NONE;
		if (!member[s])
			continue;
		while (k < c->n && !vt_tree_same_neighbours(nl, c->rep[k], s))
			k++;
		if (k == c->n) {
			if (c->n == MAX_CLASSES)
				return 0;
			c->rep[c->n++] = s;
		}
		c->of[s] = k;
		c->active[k]++;
	}
	c->dist = malloc(((size_t)c->n * nsw + 1) * sizeof(*c->dist));
	if (!c->dist)
		return -1;
	for (uint32_t k = 0; k < c->n; k++) {
		uint16_t *row = &c->dist[(size_t)k * nsw];

		memset(dist, 0xff, nsw * sizeof(*dist));
		dist[c->rep[k]] = 0;
		q[0] = c->rep[k];
		vt_tree_bfs(f, q, 1, dist);
		for (uint32_t s = 0; s < nsw; s++)
			row[s] = dist[s] < FAR ? (uint16_t)dist[s] : FAR;
	}
	return 1;
}

/*
 * Does switch s lie on a shortest path between two active members of the
 * classes, neither of them s? Two members of one class are two hops apart
 * (they share their neighbours), so s lies between them when it is one of
 * those neighbours.
 */
int vt_tree_between(const struct vt_classes *c, uint32_t nsw, uint32_t s)
{
	uint32_t own = c->of[s];

	for (uint32_t b = 0; b < c->n; b++) {
		uint32_t db = c->dist[(size_t)b * nsw + s];
		uint32_t nb = c->active[b] - (b == own);

		if (!nb || db == FAR)
			continue;
		if (nb >= 2 && db == 1 && b != own)
			return 1;
		for (uint32_t k = b + 1; k < c->n; k++) {
			uint32_t dk = c->dist[(size_t)k * nsw + s];

			if (k == own || b == own || !(c->active[k] - (k == own)) || dk == FAR)
				continue;
			if (db + dk == c->dist[(size_t)b * nsw + c->rep[k]])
				return 1;
		}
	}
	return 0;
}
