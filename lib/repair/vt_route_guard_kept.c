/* SPDX-License-Identifier: MIT */
/* The previous tables' shift count, kept between sweeps (vt_route_guard_kept.h). */
#include "repair/vt_route_guard_kept.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/vt_mem.h"
#include "repair/vt_repair.h"

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int order_copy(vt_order *to, const vt_order *o)
{
	to->n = o->n;
	to->port = malloc(((size_t)o->n + 1) * sizeof(*to->port));
	if (!to->port)
		return -1;
	memcpy(to->port, o->port, (size_t)o->n * sizeof(*to->port));
	return 0;
}

static int lfts_copy(vt_lfts *to, const vt_lfts *t)
{
	size_t n = (size_t)t->nsw * t->nlid;

	*to = *t;
	if (!(to->port = vt_alloc_big(n + 1)))
		return -1;
	memcpy(to->port, t->port, n);
	return 0;
}

vt_guard_kept *vt_guard_kept_new(const vt_fabric *f, const vt_lfts *t, const vt_order *o, vt_err *e)
{
	vt_guard_kept *k;
	double t0 = thread_cpu();

	if (o->n < 2) {
		vt_err_set(e, "no shift count over %u ranks", o->n);
		return NULL;
	}
	if (!(k = calloc(1, sizeof(*k))) || lfts_copy(&k->t, t) || order_copy(&k->o, o)) {
		vt_guard_kept_free(k);
		vt_err_nomem(e, "out of memory keeping the shift count");
		return NULL;
	}
	k->f = f;
	if (vt_routes_build_walked(&k->rt, f, &k->t, &k->o, e))
		goto fail;
	if (!(k->count = vt_shift_count_new(&k->rt, e))) {
		vt_routes_free(&k->rt);
		goto fail;
	}
	k->count_s = thread_cpu() - t0;
	return k;
fail:
	vt_guard_kept_free(k);
	return NULL;
}

void vt_guard_kept_free(vt_guard_kept *k)
{
	if (!k)
		return;
	if (k->count)
		vt_routes_free(&k->rt);
	vt_shift_count_free(k->count);
	free(k->t.port);
	free(k->o.port);
	free(k);
}

/*
 * Per LID, does k->t route it on some switch out of a port whose channel
 * map[] lost (map NULL: a port with no link in k->f)? Those entries emptied
 * in cut (NULL: none). Switches with no such port are skipped whole.
 */
static void mark_lost(const vt_guard_kept *k, const uint32_t *map, uint8_t *lost, vt_lfts *cut)
{
	const vt_fabric *f = k->f;

	memset(lost, 0, (size_t)k->t.nlid + 1);
	for (uint32_t s = 0; s < f->nswitches && s < k->t.nsw; s++) {
		const struct vt_node *nd = &f->nodes[f->switches[s]];
		uint64_t bad[4] = {0};
		int any = 0;
		const uint8_t *row = vt_lft_row(&k->t, s);

		for (unsigned p = 1; p <= nd->nports; p++) {
			uint32_t c = nd->first_port + p;
			int gone = map ? f->ports[c].peer != VT_NONE && map[c] == VT_NONE
				       : f->ports[c].peer == VT_NONE;

			if (gone && p != VT_LFT_NONE) {
				bad[p >> 6] |= 1ull << (p & 63);
				any = 1;
			}
		}
		for (uint32_t l = 0; any && l < k->t.nlid; l++) {
			if (!(bad[row[l] >> 6] >> (row[l] & 63) & 1))
				continue;
			lost[l] = 1;
			if (cut)
				vt_lft_set(cut, s, l, VT_LFT_NONE);
		}
	}
}

/*
 * The paths of k->t that leave on a channel map[] lost cut there (the entry
 * emptied: a path that does not deliver loads nothing), and the count
 * updated for the LIDs they serve: the paths that avoid the lost part are
 * the same before and after and cancel, so it costs the LIDs the fault
 * touched. Then k counts, channel for channel, what k->t mapped onto the
 * degraded fabric counts there. 0, -1 with e.
 */
static int cut_lost(vt_guard_kept *k, const uint32_t *map, vt_err *e)
{
	uint8_t *lost = malloc((size_t)k->t.nlid + 1);
	vt_lfts b;

	if (!lost || lfts_copy(&b, &k->t)) {
		free(lost);
		return vt_err_nomem(e, "out of memory remapping the shift count");
	}
	mark_lost(k, map, lost, &b);
	if (vt_shift_count_update(k->count, &k->rt, &k->t, &b, lost, e)) {
		free(b.port);
		free(lost);
		return -1;
	}
	free(k->t.port);
	free(lost);
	k->t.port = b.port;
	k->rt.t = &k->t;
	return 0;
}

int vt_guard_kept_settle(vt_guard_kept *k, vt_err *e)
{
	uint8_t *lost = malloc((size_t)k->t.nlid + 1);
	int rc;

	if (!lost)
		return vt_err_nomem(e, "out of memory keeping the shift count");
	/* the walks vt_guard_kept_remap makes for them, before and after: all cancel */
	mark_lost(k, NULL, lost, NULL);
	rc = vt_shift_count_update(k->count, &k->rt, &k->t, &k->t, lost, e);
	k->rt.t = &k->t;
	free(lost);
	return rc;
}

/*
 * Per port of k->f, the same port of f (node GUID, port number) where its
 * link joins the same two ports in both; VT_NONE elsewhere.
 */
static uint32_t *chan_map(const vt_fabric *a, const vt_fabric *b)
{
	uint32_t *map = malloc(((size_t)a->nports + 1) * sizeof(*map)), *node;

	if (!map || !(node = malloc(((size_t)a->nnodes + 1) * sizeof(*node)))) {
		free(map);
		return NULL;
	}
	for (uint32_t i = 0; i < a->nnodes; i++)
		node[i] = vt_fabric_node_by_guid(b, a->nodes[i].guid);
	for (uint32_t c = 0; c < a->nports; c++) {
		const struct vt_port *p = &a->ports[c];
		uint32_t m = node[p->node], q = p->peer, mq;

		map[c] = VT_NONE;
		if (m == VT_NONE || q == VT_NONE || (mq = node[a->ports[q].node]) == VT_NONE ||
		    p->num > b->nodes[m].nports || a->ports[q].num > b->nodes[mq].nports)
			continue;
		if (b->ports[vt_port_index(b, m, p->num)].peer ==
		    vt_port_index(b, mq, a->ports[q].num))
			map[c] = vt_port_index(b, m, p->num);
	}
	free(node);
	return map;
}

/* Are the ranks of o on f those k counts: the same CA ports (GUIDs, LIDs) in the same order? */
static int same_ranks(const vt_guard_kept *k, const vt_fabric *f, const vt_order *o)
{
	if (o->n != k->o.n)
		return 0;
	for (uint32_t a = 0; a < o->n; a++) {
		uint32_t x = k->o.port[a], y = o->port[a];

		if ((x == VT_NONE) != (y == VT_NONE))
			return 0;
		if (x != VT_NONE && (k->f->ports[x].guid != f->ports[y].guid ||
				     k->f->ports[x].lid != f->ports[y].lid))
			return 0;
	}
	return 1;
}

/* Do r and s group the ranks into the same runs? (A rank's leaf moved: not.) */
static int same_runs(const vt_routes *r, const vt_routes *s)
{
	if (r->nruns != s->nruns)
		return 0;
	for (uint32_t i = 0; i < r->nruns; i++)
		if (r->run_first[i] != s->run_first[i] || r->run_len[i] != s->run_len[i])
			return 0;
	return 1;
}

/* k's count moved onto f (its tables nt, ranks no): 0, 1 cannot, -1 with e. */
static int move_onto(vt_guard_kept *k, const vt_fabric *f, vt_lfts *nt, vt_order *no,
		     const uint32_t *map, vt_err *e)
{
	vt_routes nr;
	int rc;

	if (vt_routes_build_walked(&nr, f, nt, no, e))
		return -1;
	rc = same_runs(&k->rt, &nr) ? vt_shift_count_remap(k->count, &nr, map, e) : 1;
	if (rc) {
		vt_routes_free(&nr);
		return rc;
	}
	vt_routes_free(&k->rt);
	free(k->t.port);
	free(k->o.port);
	k->t = *nt;
	k->o = *no;
	k->rt = nr;
	k->rt.t = &k->t;
	k->rt.o = &k->o;
	k->f = f;
	return 0;
}

int vt_guard_kept_remap(vt_guard_kept *k, const vt_fabric *f, const vt_order *o, vt_err *e)
{
	double t0 = thread_cpu();
	uint32_t *map = NULL;
	vt_lfts nt = {0};
	vt_order no = {0};
	int rc = -1;

	if (!k->count)
		return 1;
	if (!same_ranks(k, f, o)) {
		rc = 1;
		goto out;
	}
	if (!(map = chan_map(k->f, f)))
		goto oom;
	if (cut_lost(k, map, e))
		goto out;
	if (vt_lfts_remap(&k->t, k->f, f, &nt, e))
		goto out;
	if (order_copy(&no, o))
		goto oom;
	if (!(rc = move_onto(k, f, &nt, &no, map, e)))
		nt.port = NULL, no.port = NULL; /* k's now */
	goto out;
oom:
	vt_err_nomem(e, "out of memory remapping the shift count");
out:
	free(map);
	free(nt.port);
	free(no.port);
	k->remap_s = thread_cpu() - t0;
	if (rc && k->count) { /* it cannot serve: fits no more */
		vt_routes_free(&k->rt);
		vt_shift_count_free(k->count);
		k->count = NULL;
	}
	return rc;
}

int vt_guard_kept_fits(const vt_guard_kept *k, const vt_fabric *f, const vt_order *o,
		       const vt_lfts *t)
{
	return k && k->count && k->f == f && k->t.nsw == t->nsw && k->t.nlid == t->nlid &&
	       k->o.n == o->n && !memcmp(k->o.port, o->port, (size_t)o->n * sizeof(*o->port));
}
