/* SPDX-License-Identifier: MIT */
/*
 * Adaptive routing as InfiniBand switches do it. The subnet manager gives a
 * switch adaptive-routing groups of ports and the LFT port says which group
 * a LID uses; in a fat-tree the group of a LID routed upwards is the
 * switch's up-ports (every parent reaches every host), and the way down is
 * fixed. Per packet, the switch takes the group's port with the most free
 * credits for the packet's VL downstream, less what already queues here for
 * it (Navaridas et al.: "the one with more available credits"; Wolfe et al.:
 * token counts), or the port with the fewest bytes queued; ties keep the LFT
 * port, then go to the next port after it. The LFT port is kept without a
 * look at the others while it is idle, nothing queues for it and it has the
 * credits for the packet: a switch deviates where its static route is congested, so a
 * well-routed pattern stays as it was routed. Flow mode chooses for a message's
 * first packet only, so its packets stay in order (on one rail: with the rail
 * chosen per packet, a plane whose switch lacks that up-port chooses afresh).
 *
 * A parent is a candidate for a LID only if its own table routes the LID and
 * not back down the same link (a degraded fabric may have parents that do
 * not reach every host); switches where every up-port passes for every LID
 * they route up skip that check per packet.
 */
#include "sim/vt_sim_int.h"

#include <stdlib.h>

/* Does up-port c (a ports[] index) lead towards LID lid without coming back? */
static int candidate_ok(const sim *s, uint32_t c, uint32_t lid)
{
	uint32_t q = s->hp[c].peer;
	uint8_t op = vt_lft_get(s->t, s->hp[q].sw, lid);

	return op != VT_LFT_NONE && op != 0 && op <= s->hp[q].nports &&
	       s->hp[q].first_port + op != q && s->hp[s->hp[q].first_port + op].peer != VT_NONE;
}

/* 1 if some LID that switch sw routes up has an up-port that does not lead to it. */
static uint8_t needs_check(const sim *s, uint32_t sw, uint32_t first_port)
{
	for (uint32_t lid = 1; lid < s->t->nlid; lid++) {
		uint8_t op = vt_lft_get(s->t, sw, lid);

		if (op == VT_LFT_NONE || op == 0 || !s->hp[first_port + op].up)
			continue;
		for (uint32_t k = s->up_off[sw]; k < s->up_off[sw + 1]; k++)
			if (!candidate_ok(s, s->up_port[k], lid))
				return 1;
	}
	return 0;
}

int vts_ar_setup(sim *s)
{
	const vt_fabric *f = s->f;
	uint32_t *lv = vt_fabric_ca_distance(f), n = 0;

	s->up_off = calloc((size_t)f->nswitches + 1, sizeof(uint32_t));
	s->up_port = calloc(f->nports ? f->nports : 1, sizeof(uint32_t));
	s->ar_check = calloc(f->nswitches ? f->nswitches : 1, 1);
	if (!lv || !s->up_off || !s->up_port || !s->ar_check) {
		free(lv);
		return vt_err_nomem(s->e, "out of memory");
	}
	/* switches in ordinal order: nodes[].sw numbers them 0..nswitches-1 */
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct vt_node *nd = &f->nodes[i];

		if (nd->type != VT_SWITCH)
			continue;
		for (unsigned k = 1; k <= nd->nports; k++) {
			uint32_t pi = nd->first_port + k, q = f->ports[pi].peer;

			if (q == VT_NONE || s->hp[q].sw == VT_NONE || lv[f->ports[q].node] <= lv[i])
				continue;
			s->hp[pi].up = 1;
		}
	}
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct vt_node *nd = &f->nodes[i];

		if (nd->type != VT_SWITCH)
			continue;
		s->up_off[nd->sw] = n;
		for (unsigned k = 1; k <= nd->nports; k++)
			if (s->hp[nd->first_port + k].up)
				s->up_port[n++] = nd->first_port + k;
		s->up_off[nd->sw + 1] = n;
	}
	free(lv);
	for (uint32_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i].type == VT_SWITCH)
			s->ar_check[f->nodes[i].sw] =
				needs_check(s, f->nodes[i].sw, f->nodes[i].first_port);
	return 0;
}

/* How much a packet of VL vl would like output c: higher is better. */
static int64_t score(sim *s, uint32_t c, unsigned vl)
{
	struct oport *o = &s->op[c];

	if (s->p.ar_select == VT_AR_QUEUE)
		return -(int64_t)o->qcr;
	struct slot *os = &s->slot[c * s->nvl + vl];

	vts_absorb(s, os);
	return (int64_t)os->credits - (int64_t)o->qcr;
}

/* The up-port for packet p at the switch of h; out is the LFT's (up) port. */
static uint32_t choose(sim *s, const struct hport *h, const struct pkt *p, uint32_t out)
{
	uint32_t a = s->up_off[h->sw], n = s->up_off[h->sw + 1] - a, at = 0, best = out;
	struct slot *os = &s->slot[out * s->nvl + p->vl];
	int check = s->ar_check[h->sw];
	int64_t best_sc;

	/* the LFT port stays while it could take the packet at once */
	vts_absorb(s, os);
	if (!s->op[out].qcr && s->op[out].busy_until <= s->now && os->credits >= (int32_t)p->cr)
		return out;
	best_sc = score(s, out, p->vl);
	while (at < n && s->up_port[a + at] != out)
		at++;
	/* from the port after the LFT's, wrapping: equal scores keep the earlier */
	for (uint32_t k = 1; k < n; k++) {
		uint32_t c = s->up_port[a + (at + k) % n];
		int64_t sc;

		if (check && !candidate_ok(s, c, p->lid))
			continue;
		sc = score(s, c, p->vl);
		if (sc > best_sc) {
			best_sc = sc;
			best = c;
		}
	}
	return best;
}

uint32_t vts_ar_route(sim *s, const struct hport *h, struct pkt *p, uint32_t out)
{
	uint8_t *memo;

	if (s->up_off[h->sw + 1] - s->up_off[h->sw] < 2)
		return out;
	if (s->p.ar != VT_AR_FLOW || p->hops > VTS_AR_HOPS)
		return choose(s, h, p, out);
	memo = &s->m[p->msg].ar[p->hops - 1];
	if (!*memo)
		*memo = (uint8_t)(choose(s, h, p, out) - h->first_port);
	/* per-packet rails: a port chosen in another plane need not be an up-port here */
	if (*memo > h->nports || !s->hp[h->first_port + *memo].up)
		return choose(s, h, p, out);
	return h->first_port + *memo;
}
