/* SPDX-License-Identifier: MIT */
/*
 * Observed bandwidth as Wolfe et al. measure it: each node divides the bytes
 * it sent over the fabric by the time it spent sending them, the union of
 * its messages' lifetimes (posted to consumed), so idle gaps do not count.
 * A job reports the minimum, mean and maximum over its nodes that sent
 * anything; messages between ranks of one node are counted apart.
 */
#include <stdlib.h>
#include <string.h>

#include "work/vt_jobs.h"

struct span {
	uint32_t node;
	uint64_t from, to;
};

static int by_node_time(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->to > y->to) - (x->to < y->to);
}

/* Global node number of rank g: its job's node base plus its node in the job. */
static uint32_t node_of(const vt_jobs *js, const uint32_t *base, uint32_t g, uint32_t *job)
{
	uint32_t lo = 0, hi = js->n - 1;

	while (lo < hi) {
		uint32_t mid = (lo + hi + 1) / 2;

		if (js->job[mid].first_rank <= g)
			lo = mid;
		else
			hi = mid - 1;
	}
	*job = lo;
	return base[lo] + (g - js->job[lo].first_rank) / js->job[lo].ppn;
}

static void bw_summary(struct vt_jobstat *js, const struct vt_nodestat *nd, uint32_t n,
		       uint32_t job)
{
	double sum = 0;

	js->bw_min = js->bw_max = 0;
	for (uint32_t i = 0; i < n; i++) {
		if ((job != UINT32_MAX && nd[i].job != job) || !nd[i].bytes)
			continue;
		if (!js->active_nodes || nd[i].gbps < js->bw_min)
			js->bw_min = nd[i].gbps;
		if (nd[i].gbps > js->bw_max)
			js->bw_max = nd[i].gbps;
		sum += nd[i].gbps;
		js->active_nodes++;
	}
	js->bw_avg = js->active_nodes ? sum / js->active_nodes : 0;
}

/* Per message: the job's counts and times, and the sender node's span if in the fabric. */
static uint64_t tally(const vt_jobs *js, const vt_simwork *w, const vt_sim_result *r,
		      const uint32_t *base, struct vt_jobstat *job, struct vt_nodestat *node,
		      struct span *sp)
{
	uint64_t nsp = 0;

	for (uint64_t i = 0; i < w->nmsg; i++) {
		uint32_t k, nd = node_of(js, base, w->src[i], &k);
		uint32_t bytes = w->bytes ? w->bytes[i] : w->msg_bytes;
		struct vt_jobstat *s[2] = {&job[k], &job[js->n]};

		for (int a = 0; a < 2; a++) {
			if (!s[a]->msgs || r->msg_post_ps[i] < s[a]->start_ps)
				s[a]->start_ps = r->msg_post_ps[i];
			if (r->msg_end_ps[i] > s[a]->end_ps)
				s[a]->end_ps = r->msg_end_ps[i];
			s[a]->msgs++;
			if (js->rank_ca[w->src[i]] == js->rank_ca[w->dst[i]]) {
				s[a]->msgs_local++;
				s[a]->bytes_local += bytes;
			} else {
				s[a]->bytes += bytes;
			}
		}
		if (js->rank_ca[w->src[i]] == js->rank_ca[w->dst[i]])
			continue;
		node[nd].bytes += bytes;
		sp[nsp++] = (struct span){nd, r->msg_post_ps[i], r->msg_end_ps[i]};
	}
	return nsp;
}

int vt_jobs_stats(const vt_jobs *js, const vt_sim_result *r, struct vt_jobstat *job,
		  struct vt_nodestat *node, vt_err *e)
{
	const vt_simwork *w = js->work;
	uint32_t nn = vt_jobs_nnodes(js), *base = malloc(((size_t)js->n + 1) * sizeof(uint32_t));
	struct span *sp = malloc((size_t)(w->nmsg ? w->nmsg : 1) * sizeof(*sp));
	uint64_t nsp;

	if (!base || !sp || !r->msg_post_ps || !r->msg_end_ps) {
		free(base);
		free(sp);
		return vt_err_set(e, "no per-message times (out of memory?)");
	}
	memset(job, 0, ((size_t)js->n + 1) * sizeof(*job));
	memset(node, 0, (size_t)nn * sizeof(*node));
	for (uint32_t k = 0, b = 0; k < js->n; b += js->job[k++].nnodes) {
		base[k] = b;
		for (uint32_t i = 0; i < js->job[k].nnodes; i++)
			node[b + i] = (struct vt_nodestat){.ca = js->job[k].node[i], .job = k};
	}
	nsp = tally(js, w, r, base, job, node, sp);
	qsort(sp, nsp, sizeof(*sp), by_node_time);
	for (uint64_t i = 0; i < nsp;) {
		uint32_t nd = sp[i].node;
		uint64_t from = sp[i].from, to = sp[i].to, busy = 0;

		for (; i < nsp && sp[i].node == nd; i++) {
			if (sp[i].from > to) {
				busy += to - from;
				from = sp[i].from;
			}
			if (sp[i].to > to)
				to = sp[i].to;
		}
		node[nd].active_ps = busy + (to - from);
	}
	for (uint32_t i = 0; i < nn; i++)
		node[i].gbps = node[i].active_ps
				       ? (double)node[i].bytes * 1e3 / (double)node[i].active_ps
				       : 0;
	for (uint32_t k = 0; k <= js->n; k++)
		bw_summary(&job[k], node, nn, k < js->n ? k : UINT32_MAX);
	free(base);
	free(sp);
	return 0;
}
