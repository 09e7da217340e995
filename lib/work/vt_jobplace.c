/* SPDX-License-Identifier: MIT */
/* Job placement: which free nodes each job gets, by its scheme (vt_jobs.h). */
#include <stdlib.h>
#include <string.h>

#include "work/vt_jobs.h"
#include "base/vt_rand.h"

struct hosts {
	uint32_t n, *ca, *port; /* every host once, in host order, and its port there */
	uint32_t *contig;	/* host indices in leaf order */
	uint32_t nleaf;		/* leaf switches, in leaf order */
	uint32_t *leaf_off;	/* leaf l's hosts are contig[leaf_off[l] .. leaf_off[l + 1]) */
	uint8_t *used;
};

static void hosts_free(struct hosts *h)
{
	free(h->ca);
	free(h->port);
	free(h->contig);
	free(h->leaf_off);
	free(h->used);
}

/* Leaf-order position of every CA (UINT32_MAX: not in it) */
static uint32_t *leaf_positions(const vt_fabric *f, vt_err *e)
{
	vt_order lo = {0};
	uint32_t *pos = malloc((size_t)f->nnodes * sizeof(uint32_t));

	if (!pos) {
		vt_err_set(e, "out of memory");
		return NULL;
	}
	for (uint32_t n = 0; n < f->nnodes; n++)
		pos[n] = UINT32_MAX;
	if (vt_order_leaf(&lo, f, e)) {
		free(pos);
		return NULL;
	}
	for (uint32_t i = 0; i < lo.n; i++)
		if (lo.port[i] != VT_NONE && pos[f->ports[lo.port[i]].node] == UINT32_MAX)
			pos[f->ports[lo.port[i]].node] = i;
	vt_order_free(&lo);
	return pos;
}

struct keyed {
	uint32_t key, host;
};

static int by_key(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->host > y->host) - (x->host < y->host);
}

/* Hosts of ord, their leaf order and leaf groups. */
static int hosts_of(struct hosts *h, const vt_fabric *f, const vt_order *ord, vt_err *e)
{
	uint32_t *pos = leaf_positions(f, e);
	struct keyed *key;
	uint8_t *seen = calloc(f->nnodes, 1);

	memset(h, 0, sizeof(*h));
	h->ca = malloc(((size_t)ord->n + 1) * sizeof(uint32_t));
	h->port = malloc(((size_t)ord->n + 1) * sizeof(uint32_t));
	h->contig = malloc(((size_t)ord->n + 1) * sizeof(uint32_t));
	h->leaf_off = malloc(((size_t)ord->n + 2) * sizeof(uint32_t));
	h->used = calloc((size_t)ord->n + 1, 1);
	key = malloc(((size_t)ord->n + 1) * sizeof(*key));
	if (!pos || !seen || !h->ca || !h->port || !h->contig || !h->leaf_off || !h->used || !key) {
		free(pos);
		free(seen);
		free(key);
		return pos ? vt_err_set(e, "out of memory") : -1;
	}
	for (uint32_t r = 0; r < ord->n; r++) {
		uint32_t pt = ord->port[r], ca = pt == VT_NONE ? VT_NONE : f->ports[pt].node;

		if (ca == VT_NONE || seen[ca])
			continue;
		seen[ca] = 1;
		key[h->n] = (struct keyed){pos[ca], h->n};
		h->port[h->n] = pt;
		h->ca[h->n++] = ca;
	}
	qsort(key, h->n, sizeof(*key), by_key);
	for (uint32_t i = 0; i < h->n; i++)
		h->contig[i] = key[i].host;
	/* leaf groups: runs of one leaf switch in leaf order */
	for (uint32_t i = 0, prev = VT_NONE; i < h->n; i++) {
		uint32_t leaf = vt_peer_node(f, h->port[h->contig[i]]);

		if (!i || leaf != prev)
			h->leaf_off[h->nleaf++] = i;
		prev = leaf;
	}
	h->leaf_off[h->nleaf] = h->n;
	free(pos);
	free(seen);
	free(key);
	return 0;
}

static void take(struct hosts *h, struct vt_job *j, uint32_t host)
{
	h->used[host] = 1;
	j->node[j->nnodes++] = h->ca[host];
}

/* Fills j->node with `want` free hosts by its scheme; the caller checked there are enough. */
static void place_one(struct hosts *h, struct vt_job *j, uint32_t want, vt_rand *rng, uint32_t *tmp)
{
	uint32_t n = 0;

	switch (j->place) {
	case VT_PLACE_ORDER:
		for (uint32_t i = 0; i < h->n && j->nnodes < want; i++)
			if (!h->used[i])
				take(h, j, i);
		break;
	case VT_PLACE_CONTIG:
		for (uint32_t i = 0; i < h->n && j->nnodes < want; i++)
			if (!h->used[h->contig[i]])
				take(h, j, h->contig[i]);
		break;
	case VT_PLACE_RANDOM:
		for (uint32_t i = 0; i < h->n; i++)
			if (!h->used[h->contig[i]])
				tmp[n++] = h->contig[i];
		vt_rand_shuffle_u32(rng, tmp, n);
		for (uint32_t i = 0; i < want; i++)
			take(h, j, tmp[i]);
		break;
	case VT_PLACE_RANDLEAF:
		for (uint32_t l = 0; l < h->nleaf; l++)
			tmp[l] = l;
		vt_rand_shuffle_u32(rng, tmp, h->nleaf);
		for (uint32_t l = 0; l < h->nleaf && j->nnodes < want; l++)
			for (uint32_t i = h->leaf_off[tmp[l]];
			     i < h->leaf_off[tmp[l] + 1] && j->nnodes < want; i++)
				if (!h->used[h->contig[i]])
					take(h, j, h->contig[i]);
		break;
	case VT_PLACE_RRLEAF:
		memcpy(tmp, h->leaf_off, h->nleaf * sizeof(uint32_t)); /* next host per leaf */
		while (j->nnodes < want)
			for (uint32_t l = 0; l < h->nleaf && j->nnodes < want; l++) {
				while (tmp[l] < h->leaf_off[l + 1] && h->used[h->contig[tmp[l]]])
					tmp[l]++;
				if (tmp[l] < h->leaf_off[l + 1])
					take(h, j, h->contig[tmp[l]++]);
			}
		break;
	}
}

int vt_jobs_place(vt_jobs *js, const vt_fabric *f, const vt_order *ord, uint64_t seed, vt_err *e)
{
	struct hosts h;
	uint32_t *tmp, nfree;
	vt_rand rng;
	int rc = 0;

	js->bad = UINT32_MAX;
	if (hosts_of(&h, f, ord, e))
		return -1;
	tmp = malloc(((size_t)h.n + 1) * sizeof(uint32_t));
	if (!tmp) {
		hosts_free(&h);
		return vt_err_set(e, "out of memory");
	}
	vt_rand_seed(&rng, seed);
	nfree = h.n;
	for (uint32_t k = 0; k < js->n && !rc; k++) {
		struct vt_job *j = &js->job[k];
		uint32_t want = j->ranks ? (j->ranks + j->ppn - 1) / j->ppn : nfree;

		if (!want || want > nfree) {
			js->bad = k;
			rc = vt_err_set(e, "job %s: needs %u nodes, %u of %u are free", j->name,
					want, nfree, h.n);
			break;
		}
		if (!j->ranks)
			j->ranks = want * j->ppn;
		free(j->node);
		j->nnodes = 0;
		j->node = malloc((size_t)want * sizeof(uint32_t));
		if (!j->node) {
			rc = vt_err_set(e, "out of memory");
			break;
		}
		place_one(&h, j, want, &rng, tmp);
		nfree -= want;
	}
	free(tmp);
	hosts_free(&h);
	return rc;
}
