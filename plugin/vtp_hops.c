/* SPDX-License-Identifier: MIT */
/*
 * OpenSM's min-hop matrices (osm_switch_t.hops), filled by the plugin so that
 * OpenSM need not run osm_ucast_mgr_build_lid_matrices, whose Bellman-Ford
 * relaxation over every switch's ports dominated the routing step.
 *
 * What OpenSM 3.3.23 computes (osm_ucast_mgr.c, osm_switch.c), and so what is
 * written here: rows only for switch base LIDs; in the row of switch T at
 * switch S, entry p (a port whose physp is valid and has a remote physp on
 * another switch R) holds 1 when R is T, else 1 + least(R, T) when the link is
 * healthy on both ends; entry 0 holds least(S, T), the smallest entry (0 at
 * S's own LID); every other entry is OSM_NO_PATH. Hop weights are all 1
 * (without hop_weights_file, the caller's condition).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <complib/cl_qmap.h>
#include <opensm/osm_node.h>
#include <opensm/osm_port.h>
#include <opensm/osm_switch.h>

#include "vtp.h"

/* One switch-to-switch link end: S's port, the switch R behind it, its health. */
struct edge {
	uint32_t peer;
	uint8_t port;
	uint8_t healthy;
};

/* The switch graph as OpenSM's hop propagation sees it, in sw_guid_tbl order. */
struct graph {
	uint32_t n;
	osm_switch_t **sw;
	uint16_t *lid;	  /* base LID of each switch, 0 if none */
	uint32_t *first;  /* edges of switch i: first[i] .. first[i + 1] - 1 */
	struct edge *out; /* S's own ports, through which S learns its neighbours' counts */
};

/*
 * A switch's port table (osm_node_t holds it inline), so that the switch
 * behind a link is found by the address of its port record: reading the far
 * records (their node, its switch, their health), scattered across OpenSM's
 * memory, was most of the switch graph's cost, and it ran beside the routing.
 */
struct sw_span {
	uintptr_t lo, hi;
	uint32_t idx, first; /* sw_guid_tbl index; its ports' place in healthy[] */
};

static int cmp_span(const void *a, const void *b)
{
	uintptr_t x = ((const struct sw_span *)a)->lo, y = ((const struct sw_span *)b)->lo;

	return x < y ? -1 : x > y;
}

/* The span holding port record rp, NULL: no switch of the table has it. */
static const struct sw_span *span_of(const struct sw_span *sp, uint32_t n, const osm_physp_t *rp)
{
	uintptr_t a = (uintptr_t)rp;
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (a < sp[mid].lo)
			hi = mid;
		else if (a >= sp[mid].hi)
			lo = mid + 1;
		else
			return &sp[mid];
	}
	return NULL;
}

static void graph_free(struct graph *g)
{
	free(g->sw);
	free(g->lid);
	free(g->first);
	free(g->out);
	memset(g, 0, sizeof(*g));
}

/*
 * The switch-to-switch links, as ucast_mgr_process_hop_0_1 and _neighbors
 * find them: port p of S valid with a remote record on another switch of the
 * table; healthy where both ends are. sp sorted by address; healthy[] holds
 * every port record's health, read from its own switch.
 */
static void scan_edges(struct graph *g, const struct sw_span *sp, const uint8_t *healthy)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < g->n; i++) {
		osm_switch_t *sw = g->sw[i];

		g->first[i] = k;
		for (unsigned p = 1; p < sw->num_ports; p++) {
			const osm_physp_t *ph = osm_node_get_physp_ptr(sw->p_node, p), *rp;
			const struct sw_span *r;
			unsigned q;

			if (!ph || !(rp = ph->p_remote_physp) || !(r = span_of(sp, g->n, rp)) ||
			    r->idx == i)
				continue;
			q = (unsigned)(((uintptr_t)rp - r->lo) / sizeof(osm_physp_t));
			g->out[k++] = (struct edge){r->idx, (uint8_t)p,
						    ph->healthy && healthy[r->first + q]};
		}
	}
	g->first[g->n] = k;
}

static int graph_build(struct graph *g, const osm_subn_t *subn, vt_err *e)
{
	const cl_qmap_t *tbl = &subn->sw_guid_tbl;
	struct sw_span *sp;
	uint8_t *healthy = NULL;
	uint32_t np = 0, i = 0;

	memset(g, 0, sizeof(*g));
	g->n = (uint32_t)cl_qmap_count(tbl);
	g->sw = calloc(g->n + 1, sizeof(*g->sw));
	g->lid = calloc(g->n + 1, sizeof(*g->lid));
	g->first = calloc(g->n + 1, sizeof(*g->first));
	sp = calloc(g->n + 1, sizeof(*sp));
	if (!g->sw || !g->lid || !g->first || !sp)
		goto oom;
	for (const cl_map_item_t *it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it), i++) {
		const osm_node_t *nd;

		g->sw[i] = (osm_switch_t *)it;
		nd = g->sw[i]->p_node;
		g->lid[i] = cl_ntoh16(osm_node_get_base_lid(nd, 0));
		sp[i] = (struct sw_span){(uintptr_t)&nd->physp_table[0],
					 (uintptr_t)&nd->physp_table[nd->physp_tbl_size], i, np};
		np += nd->physp_tbl_size;
	}
	healthy = malloc(np + 1);
	g->out = calloc(np + 1, sizeof(*g->out)); /* at most one edge a port */
	if (!healthy || !g->out)
		goto oom;
	for (i = 0; i < g->n; i++) {
		const osm_node_t *nd = g->sw[i]->p_node;

		for (uint32_t p = 0; p < nd->physp_tbl_size; p++)
			healthy[sp[i].first + p] = nd->physp_table[p].healthy != 0;
	}
	qsort(sp, g->n, sizeof(*sp), cmp_span);
	scan_edges(g, sp, healthy);
	free(sp);
	free(healthy);
	return 0;
oom:
	free(sp);
	free(healthy);
	graph_free(g);
	return vt_err_nomem(e, "out of memory for the switch graph");
}

/*
 * least(S, T) for all S and the 64 targets from t0 on, into dist[S * n + T]:
 * a breadth-first search from each target, 64 at a time in the bits of a word.
 * T's neighbours learn T over any link (hop_0_1), farther switches only over
 * links healthy at both ends (process_neighbors).
 */
static void distances_block(const struct graph *g, uint32_t t0, uint8_t *dist, uint64_t *seen,
			    uint64_t *front, uint64_t *next)
{
	uint32_t n = g->n, nt = n - t0 < 64 ? n - t0 : 64;
	uint64_t any = 1;

	memset(seen, 0, n * sizeof(*seen));
	memset(front, 0, n * sizeof(*front));
	for (uint32_t j = 0; j < nt; j++) {
		seen[t0 + j] = front[t0 + j] = 1ull << j;
		dist[(size_t)(t0 + j) * n + t0 + j] = 0;
	}
	for (unsigned level = 1; any && level < OSM_NO_PATH; level++) {
		any = 0;
		for (uint32_t s = 0; s < n; s++) {
			uint64_t got = 0;

			for (uint32_t k = g->first[s]; k < g->first[s + 1]; k++)
				if (level == 1 || g->out[k].healthy)
					got |= front[g->out[k].peer];
			got &= ~seen[s];
			next[s] = got;
			seen[s] |= got;
			any |= got;
			for (; got; got &= got - 1)
				dist[(size_t)s * n + t0 + (uint32_t)__builtin_ctzll(got)] =
					(uint8_t)level;
		}
		memcpy(front, next, n * sizeof(*front));
	}
}

/* Where S's row for T lives: NULL if OpenSM would have none (T unreachable or LID out of range). */
static uint8_t **row_slot(const struct graph *g, uint32_t s, uint32_t t, const uint8_t *dist)
{
	osm_switch_t *sw = g->sw[s];
	uint16_t lid = g->lid[t];

	if (dist[(size_t)s * g->n + t] == OSM_NO_PATH || !lid || lid > sw->max_lid_ho ||
	    lid >= sw->num_hops)
		return NULL;
	return &sw->hops[lid];
}

/*
 * glibc's thread arenas (OpenSM routes on a thread of its own) grow by the
 * page a small malloc needs, one mprotect call each: 2.6 M rows (pruned
 * 36,36) made 32 K of them. Taking RESERVE bytes and giving them back grows
 * the arena once for the next RESERVE / row bytes of rows (measured: 3.2 K
 * calls). Below 64 KB, so the free neither trims nor consolidates the arena.
 * Elsewhere it is a harmless malloc and free.
 */
#define RESERVE (32u << 10)

static void reserve_room(void)
{
	void *volatile room = malloc(RESERVE); /* volatile: the pair is not optimised away */

	free(room);
}

/*
 * The rows OpenSM does not have yet (only the first sweep of a switch). One
 * malloc per row is OpenSM's layout, not a choice: osm_switch_delete frees
 * every hops[lid] on its own, so rows cannot share one block. Every row's
 * address is also kept in rows[S * n + T], so that the writing reads them in
 * order, not from hops[lid], one cache miss per row (n * n pointers: 2.3 MB
 * at 540 switches, 21 MB at 1620, for the sweep).
 */
static int alloc_rows(const struct graph *g, const uint8_t *dist, uint8_t **rows,
		      struct vtp_hops_stats *st)
{
	size_t since = RESERVE;

	for (uint32_t s = 0; s < g->n; s++) {
		unsigned np = g->sw[s]->num_ports;

		for (uint32_t t = 0; t < g->n; t++) {
			uint8_t **slot = row_slot(g, s, t, dist),
				**at = rows + (size_t)s * g->n + t;

			*at = slot ? *slot : NULL;
			if (!slot)
				continue;
			st->rows++;
			if (*slot)
				continue;
			if (since >= RESERVE) {
				reserve_room();
				since = 0;
			}
			*at = *slot = malloc(np);
			if (!*slot)
				return -1;
			since += np + 16; /* with malloc's header and alignment, about */
			st->new_rows++;
		}
	}
	return 0;
}

/*
 * The entry a healthy link to R gives for each target: 1 + least(R, T), or
 * OSM_NO_PATH when least(R, T) >= OSM_NO_PATH - 1 (so 1 at T == R).
 */
static void one_hop_more(const uint8_t *dist, uint8_t *hop1, size_t cells)
{
	for (size_t i = 0; i < cells; i++)
		hop1[i] = (uint8_t)(dist[i] + (dist[i] < OSM_NO_PATH));
}

/*
 * S's row for every switch LID, as osm_switch_set_hops would leave them. Each
 * port's entries form one column: S's own distances for port 0, hop1 of the
 * switch behind a healthy link, OSM_NO_PATH (none) otherwise. A row is then a
 * branch-free gather written in order, not a memset and a pass per port that
 * tests every entry. An unhealthy link still gives 1 in its peer's row
 * (hop_0_1), set afterwards.
 */
static void fill_switch(const struct graph *g, uint32_t s, const uint8_t *dist, const uint8_t *hop1,
			const uint8_t *none, uint8_t **rows)
{
	const uint32_t n = g->n, k0 = g->first[s], k1 = g->first[s + 1];
	const unsigned np = g->sw[s]->num_ports;
	const uint8_t *src[256]; /* num_ports is a uint8_t */

	for (unsigned p = 0; p < np; p++)
		src[p] = none;
	src[0] = dist + (size_t)s * n;
	for (uint32_t k = k0; k < k1; k++)
		if (g->out[k].healthy)
			src[g->out[k].port] = hop1 + (size_t)g->out[k].peer * n;
	for (uint32_t t = 0; t < n; t++) {
		uint8_t *row = rows[t];

		if (row)
			for (unsigned p = 0; p < np; p++)
				row[p] = src[p][t];
	}
	for (uint32_t k = k0; k < k1; k++)
		if (!g->out[k].healthy && rows[g->out[k].peer])
			rows[g->out[k].peer][g->out[k].port] = 1;
}

/*
 * A fill prepared (switch graph, distances, every row allocated) and shared:
 * the switches are handed out CHUNK at a time under mu, so the routing
 * thread, once done, fills what the min-hop thread has not reached instead
 * of waiting for it. Each switch writes only its own rows.
 */
#define CHUNK 4u

struct vtp_hops_work {
	struct graph g;
	uint8_t *dist, *hop1, *none, **rows;
	pthread_mutex_t mu;
	uint32_t next; /* the first switch nobody has taken, under mu */
};

void vtp_hops_work_free(struct vtp_hops_work *w)
{
	if (!w)
		return;
	free(w->dist);
	free(w->hop1);
	free(w->none);
	free(w->rows);
	graph_free(&w->g);
	pthread_mutex_destroy(&w->mu);
	free(w);
}

/* w's distances and rows, after its graph; -1 with e. */
static int prepare_rows(struct vtp_hops_work *w, double start, struct vtp_hops_stats *st, vt_err *e)
{
	const uint32_t n = w->g.n;
	uint64_t *words = malloc(3 * (n + 1) * sizeof(*words));
	double mark;

	w->dist = malloc((size_t)n * n + 1);
	w->hop1 = malloc((size_t)n * n + 1);
	w->none = malloc(n + 1);
	w->rows = malloc(((size_t)n * n + 1) * sizeof(*w->rows));
	if (!words || !w->dist || !w->hop1 || !w->none || !w->rows) {
		free(words);
		return vt_err_nomem(e, "out of memory for the hop tables (%u switches)", n);
	}
	memset(w->dist, OSM_NO_PATH, (size_t)n * n);
	for (uint32_t t0 = 0; t0 < n; t0 += 64)
		distances_block(&w->g, t0, w->dist, words, words + n, words + 2 * n);
	free(words);
	mark = vtp_now_ms();
	st->dist_ms = mark - start;
	if (alloc_rows(&w->g, w->dist, w->rows, st))
		return vt_err_nomem(e, "out of memory for the hop tables");
	st->alloc_ms = vtp_now_ms() - mark;
	one_hop_more(w->dist, w->hop1, (size_t)n * n);
	memset(w->none, OSM_NO_PATH, n);
	return 0;
}

int vtp_hops_prepare(osm_subn_t *subn, struct vtp_hops_work **out, struct vtp_hops_stats *st,
		     vt_err *e)
{
	struct vtp_hops_work *w = calloc(1, sizeof(*w));
	double start = vtp_now_ms();

	memset(st, 0, sizeof(*st));
	*out = NULL;
	if (!w)
		return vt_err_nomem(e, "out of memory for the hop tables");
	if (pthread_mutex_init(&w->mu, NULL)) {
		free(w);
		return vt_err_nomem(e, "cannot set up the hop tables' lock");
	}
	if (graph_build(&w->g, subn, e) || prepare_rows(w, start, st, e)) {
		vtp_hops_work_free(w);
		return -1;
	}
	*out = w;
	return 0;
}

uint32_t vtp_hops_fill_share(struct vtp_hops_work *w)
{
	uint32_t done = 0;

	for (;;) {
		uint32_t s0, s1;

		pthread_mutex_lock(&w->mu);
		s0 = w->next;
		if (s0 < w->g.n)
			w->next = s0 + CHUNK < w->g.n ? s0 + CHUNK : w->g.n;
		s1 = w->next;
		pthread_mutex_unlock(&w->mu);
		if (s0 >= s1)
			return done;
		for (uint32_t s = s0; s < s1; s++)
			fill_switch(&w->g, s, w->dist, w->hop1, w->none,
				    w->rows + (size_t)s * w->g.n);
		done += s1 - s0;
	}
}

void vtp_hops_clear(osm_subn_t *subn)
{
	const cl_qmap_t *tbl = &subn->sw_guid_tbl;

	for (const cl_map_item_t *it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it)) {
		osm_switch_t *sw = (osm_switch_t *)it;

		for (unsigned lid = 0; lid < sw->num_hops; lid++)
			if (sw->hops[lid])
				memset(sw->hops[lid], OSM_NO_PATH, sw->num_ports);
	}
}
