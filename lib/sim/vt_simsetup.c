/* SPDX-License-Identifier: MIT */
#include "sim/vt_sim_int.h"

#include <stdlib.h>
#include <string.h>

static uint64_t port_mbps(const sim *s, uint32_t port)
{
	const struct vt_port *pt = &s->f->ports[port];

	if (s->p.link_mbps)
		return s->p.link_mbps;
	if (s->p.speed != VT_SPEED_UNKNOWN)
		return 4ull * vt_speed_lane_mbps(s->p.speed);
	return (uint64_t)(pt->width ? pt->width : 4) * vt_speed_lane_mbps(pt->speed);
}

static void *zalloc(size_t n, size_t sz, int *bad)
{
	void *p = calloc(n ? n : 1, sz);

	if (!p)
		*bad = 1;
	return p;
}

/* n zeroed elements of sz bytes (a multiple of 64) on a cache-line boundary */
static void *lines_alloc(size_t n, size_t sz, int *bad)
{
	void *p = aligned_alloc(64, (n ? n : 1) * sz);

	if (!p)
		*bad = 1;
	else
		memset(p, 0, (n ? n : 1) * sz);
	return p;
}

/* Per port: the flat hop view, output state and rate; returns the fastest 64-byte time. */
static uint64_t setup_ports(sim *s)
{
	const vt_fabric *f = s->f;
	uint64_t nslot = (uint64_t)f->nports * s->nvl, min_ser = UINT64_MAX;

	for (uint64_t i = 0; i < nslot; i++) {
		s->slot[i].head = s->slot[i].tail = UINT32_MAX;
		s->slot[i].credits = (int32_t)s->p.buf_credits;
	}
	for (uint32_t i = 0; i < f->nports; i++) {
		const struct vt_node *nd = &f->nodes[f->ports[i].node];

		s->hp[i] = (struct hport){
			.peer = f->ports[i].peer,
			.first_port = nd->first_port,
			.sw = nd->type == VT_SWITCH ? nd->sw : VT_NONE,
			.nports = nd->nports,
			.num = f->ports[i].num,
		};
		s->st[i].blocked_since = NO_T;
		s->op[i].wake_t = NO_T;
		s->op[i].ppb_fx = vts_ppb_of_mbps(port_mbps(s, i));
		if (f->ports[i].peer != VT_NONE && ser(s->op[i].ppb_fx, 64) < min_ser)
			min_ser = ser(s->op[i].ppb_fx, 64);
	}
	return min_ser;
}

/* Ranks: the order's port, then the CA's other connected ports (rails). */
static int setup_rails(sim *s, const vt_order *order)
{
	const vt_fabric *f = s->f;
	uint64_t nrails = 0;
	int bad = 0;

	for (uint32_t r = 0; r < s->nranks; r++) {
		uint32_t pt = order->port[r];

		if (pt != VT_NONE) {
			const struct vt_node *nd = &f->nodes[f->ports[pt].node];

			if (nd->type == VT_SWITCH)
				return vt_err_set(s->e, "rank %u is a switch port", r);
			for (unsigned k = 1; k <= nd->nports; k++)
				nrails += f->ports[nd->first_port + k].peer != VT_NONE;
		}
	}
	s->rail_port = zalloc(nrails, sizeof(uint32_t), &bad);
	if (bad)
		return vt_err_nomem(s->e, "out of memory");
	nrails = 0;
	for (uint32_t r = 0; r < s->nranks; r++) {
		uint32_t pt = order->port[r];

		s->rail_off[r] = (uint32_t)nrails;
		if (pt == VT_NONE)
			continue;
		if (f->ports[pt].peer == VT_NONE)
			return vt_err_set(s->e, "rank %u: port of \"%s\" is not connected", r,
					  f->nodes[f->ports[pt].node].id);
		const struct vt_node *nd = &f->nodes[f->ports[pt].node];

		s->rail_port[nrails++] = pt;
		for (unsigned k = 1; k <= nd->nports; k++) {
			uint32_t q = nd->first_port + k;

			if (q != pt && f->ports[q].peer != VT_NONE)
				s->rail_port[nrails++] = q;
		}
	}
	s->rail_off[s->nranks] = (uint32_t)nrails;
	return 0;
}

int vts_setup(sim *s, const vt_order *order)
{
	const vt_fabric *f = s->f;
	const vt_simwork *w = s->w;
	int bad = 0;
	uint64_t nslot = (uint64_t)f->nports * s->nvl, min_ser;
	unsigned width_log = 0;

	s->nranks = w->nranks;
	if (order->n < w->nranks)
		return vt_err_set(s->e, "workload has %u ranks but the host order only %u",
				  w->nranks, order->n);
	s->slot = lines_alloc(nslot, sizeof(*s->slot), &bad);
	s->op = lines_alloc(f->nports, sizeof(*s->op), &bad);
	if (s->p.flit)
		s->lv = zalloc(nslot, sizeof(*s->lv), &bad);
	s->st = zalloc(f->nports, sizeof(*s->st), &bad);
	s->hp = zalloc(f->nports, sizeof(*s->hp), &bad);
	s->sink_free = zalloc(f->nports, sizeof(*s->sink_free), &bad);
	s->rail_off = zalloc(s->nranks + 1, sizeof(uint32_t), &bad);
	if (bad)
		return vt_err_nomem(s->e, "out of memory");
	min_ser = setup_ports(s);
	s->gen_ppb_fx = vts_ppb_of_mbps(s->p.gen_mbps);
	s->sink_ppb_fx = vts_ppb_of_mbps(s->p.sink_mbps);
	if (setup_rails(s, order))
		return -1;
	/* bucket width: about a sixteenth of the fastest 64-byte serialisation */
	while (width_log < 20 && ((uint64_t)2 << width_log) * 16 <= min_ser)
		width_log++;
	if (vt_simq_init(&s->q, width_log, 12, s->e))
		return -1;
	s->cap_pk = 1024;
	s->npk = 1; /* index 0 means "none" */
	s->pk = malloc(s->cap_pk * sizeof(*s->pk));
	s->cap_cq = 1024;
	s->ncq = 1;
	s->cq = malloc(s->cap_cq * sizeof(*s->cq));
	s->cap_ch = 1024;
	s->nch = 1;
	s->ch = malloc(s->cap_ch * sizeof(*s->ch));
	if (!s->pk || !s->cq || !s->ch)
		return vt_err_nomem(s->e, "out of memory");
	vt_rand_seed(&s->rng, s->p.seed);
	return 0;
}

int vts_setup_messages(sim *s)
{
	const vt_simwork *w = s->w;
	uint32_t ns = w->nstages;
	int bad = 0;

	s->r->nstages = ns;
	s->r->stage_end_ps = zalloc(ns, sizeof(uint64_t), &bad);
	s->stage_left = zalloc(ns, sizeof(uint64_t), &bad);
	s->rank_off = zalloc(s->nranks + 1, sizeof(uint32_t), &bad);
	s->cursor = zalloc(s->nranks, sizeof(uint32_t), &bad);
	s->outstanding = zalloc(s->nranks, sizeof(uint32_t), &bad);
	if (bad)
		return vt_err_nomem(s->e, "out of memory");
	if (w->mode == VT_WORK_OPEN)
		return 0;
	if (w->mode == VT_WORK_PROGRAM)
		return vts_prog_setup(s);
	if (w->nmsg >= UINT32_MAX)
		return vt_err_set(s->e, "too many messages (%llu)", (unsigned long long)w->nmsg);
	s->nmsg = w->nmsg;
	s->src = w->src;
	s->dst = w->dst;
	s->stg = w->stage;
	s->m = zalloc(s->nmsg, sizeof(*s->m), &bad);
	s->rank_msg = zalloc(s->nmsg, sizeof(uint32_t), &bad);
	if (w->mode == VT_WORK_CAUSAL) {
		s->exp = zalloc((uint64_t)s->nranks * ns, sizeof(uint32_t), &bad);
		s->got = zalloc((uint64_t)s->nranks * ns, sizeof(uint32_t), &bad);
		s->ready_upto = zalloc(s->nranks, sizeof(uint32_t), &bad);
	}
	if (bad)
		return vt_err_nomem(s->e, "out of memory for %llu messages",
				    (unsigned long long)s->nmsg);
	/* messages from or to a place-keeper are not sent */
	for (uint64_t i = 0; i < s->nmsg; i++) {
		uint32_t a = s->src[i], b = s->dst[i];

		if (a >= s->nranks || b >= s->nranks)
			return vt_err_set(s->e, "message %u -> %u: rank out of range", a, b);
		if (s->rail_off[a] == s->rail_off[a + 1] || s->rail_off[b] == s->rail_off[b + 1] ||
		    a == b)
			continue;
		s->rank_off[a + 1]++;
		s->stage_left[s->stg[i]]++;
		s->r->msgs++;
		if (s->exp)
			s->exp[(uint64_t)b * ns + s->stg[i]]++;
	}
	for (uint32_t r = 0; r < s->nranks; r++)
		s->rank_off[r + 1] += s->rank_off[r];
	memcpy(s->cursor, s->rank_off, s->nranks * sizeof(uint32_t));
	for (uint64_t i = 0; i < s->nmsg; i++) {
		uint32_t a = s->src[i], b = s->dst[i];

		if (s->rail_off[a] == s->rail_off[a + 1] || s->rail_off[b] == s->rail_off[b + 1] ||
		    a == b)
			continue;
		s->rank_msg[s->cursor[a]++] = (uint32_t)i;
	}
	memcpy(s->cursor, s->rank_off, s->nranks * sizeof(uint32_t));
	if (s->exp)
		for (uint32_t r = 0; r < s->nranks; r++)
			while (s->ready_upto[r] < ns &&
			       !s->exp[(uint64_t)r * ns + s->ready_upto[r]])
				s->ready_upto[r]++;
	return 0;
}

int vts_start(sim *s)
{
	const vt_simwork *w = s->w;

	if (w->mode == VT_WORK_OPEN) {
		uint32_t *hosts = malloc((size_t)s->nranks * sizeof(uint32_t)), nh = 0;

		s->perm = malloc((size_t)s->nranks * sizeof(uint32_t));
		if (!hosts || !s->perm) {
			free(hosts);
			return vt_err_nomem(s->e, "out of memory");
		}
		for (uint32_t r = 0; r < s->nranks; r++)
			if (s->rail_off[r + 1] > s->rail_off[r])
				hosts[nh++] = r;
		if (nh < 2) {
			free(hosts);
			return vt_err_set(s->e, "open loop needs at least 2 hosts");
		}
		if (w->perm == 2) {
			/* bisection pairing: the k-th host and the one half the hosts on */
			for (uint32_t k = 0; k < nh; k++)
				s->perm[k] = hosts[(k + nh / 2) % nh];
		} else {
			memcpy(s->perm, hosts, nh * sizeof(uint32_t));
			vt_rand_shuffle_u32(&s->rng, s->perm, nh);
		}
		/* perm[] by rank: host hosts[k] sends to perm[k] */
		uint32_t *byrank = calloc(s->nranks, sizeof(uint32_t));

		if (!byrank) {
			free(hosts);
			return vt_err_nomem(s->e, "out of memory");
		}
		for (uint32_t k = 0; k < nh; k++)
			byrank[hosts[k]] = s->perm[k];
		free(s->perm);
		s->perm = byrank;
		s->nhosts_open = 0;
		for (uint32_t k = 0; k < nh; k++) {
			uint32_t r = hosts[k];

			if (w->perm && s->perm[r] == r)
				continue; /* a fixed point stays silent */
			s->nhosts_open++;
			push(s, (uint64_t)vt_rand_below(&s->rng, 1000), EV_GEN, r);
			if (s->failed) {
				free(hosts);
				return -1;
			}
		}
		free(hosts);
		return 0;
	}
	for (uint32_t r = 0; r < s->nranks; r++)
		vts_post_stage_of(s, r);
	if (w->mode == VT_WORK_BARRIER && s->barrier_stage < w->nstages &&
	    !s->stage_left[s->barrier_stage])
		vts_stage_done_barrier(s);
	return s->failed ? -1 : 0;
}

void vts_finish(sim *s)
{
	vt_sim_result *r = s->r;
	const vt_fabric *f = s->f;
	uint32_t n = 0;

	for (uint32_t i = 0; i < f->nports; i++)
		n += f->ports[i].peer != VT_NONE;
	r->links = calloc(n ? n : 1, sizeof(*r->links));
	if (r->links) {
		for (uint32_t i = 0; i < f->nports; i++) {
			struct ostat *o = &s->st[i];

			if (f->ports[i].peer == VT_NONE)
				continue;
			if (o->blocked_since != NO_T)
				o->blocked_ps += s->now - o->blocked_since;
			r->links[r->nlinks++] = (struct vt_sim_link){
				.port = i,
				.busy_ps = o->busy_ps,
				.blocked_ps = o->blocked_ps,
				.bytes = o->bytes,
				.pkts = o->pkts,
			};
		}
	}
	r->last_ps = s->now;
	if (s->in_flight || r->msgs_done < r->msgs) {
		r->deadlock = 1;
		r->stuck_pkts = s->in_flight;
	}
	if (s->w->mode == VT_WORK_OPEN && s->w->duration_ps > s->w->warmup_ps && s->nhosts_open) {
		/* fractions of the first rail's rate of the first host (uniform fabrics) */
		uint32_t port = s->rail_port[0];
		double cap = (double)s->nhosts_open *
			     (double)(s->w->duration_ps - s->w->warmup_ps) /
			     ((double)s->op[port].ppb_fx / (1 << FX));

		r->offered_frac = (double)s->open_bytes / cap;
		r->accepted_frac = (double)s->open_acc_bytes / cap;
	}
	if (s->w->mode == VT_WORK_PROGRAM)
		vts_prog_finish(s);
	if (!r->lat_msgs)
		r->lat_min_ps = 0;
}

void vts_cleanup(sim *s)
{
	vt_simq_free(&s->q);
	free(s->slot);
	free(s->op);
	free(s->lv);
	free(s->st);
	free(s->hp);
	free(s->cq);
	free(s->ch);
	free(s->sink_free);
	free(s->pk);
	free(s->rail_off);
	free(s->rail_port);
	free(s->up_off);
	free(s->up_port);
	free(s->ar_check);
	free(s->rank_off);
	free(s->rank_msg);
	free(s->cursor);
	free(s->outstanding);
	free(s->exp);
	free(s->got);
	free(s->ready_upto);
	free(s->perm);
	free(s->stage_left);
	free(s->m);
	free(s->prog_flag);
	free(s->prog_running);
	if (s->w->mode == VT_WORK_OPEN) {
		free(s->src);
		free(s->dst);
	}
}
