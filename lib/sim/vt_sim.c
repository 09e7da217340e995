/* SPDX-License-Identifier: MIT */
#include "sim/vt_sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/vt_sim_int.h"

void vt_sim_defaults(struct vt_sim_params *p)
{
	memset(p, 0, sizeof(*p));
	p->mtu = 2048;
	p->header = 26; /* LRH 8 + BTH 12 + ICRC 4 + VCRC 2 */
	p->nvl = 1;
	p->sl = 0;
	p->sl_spread = 0;
	p->buf_credits = 256;
	p->speedup = 1;
	p->sw_lat_ps = 100000;
	p->cable_ps = 5000;
	p->seed = 1;
	p->max_hops = 64;
}

void vt_sim_preset_fig6(struct vt_sim_params *p)
{
	vt_sim_defaults(p);
	p->nvl = 1;
	p->buf_credits = 1000;
	p->speedup = 3;
	p->sw_lat_ps = 100000; /* 50 ns + 50 ns */
	p->credit_period_ps = 256000;
	p->gen_mbps = 26000;  /* 3.25 GB/s */
	p->sink_mbps = 32000; /* 4 GB/s */
	p->mtu = 2048;
}

void vt_sim_preset_navaridas(struct vt_sim_params *p)
{
	vt_sim_defaults(p);
	p->mtu = 256;
	p->header = 0;
	p->pad = 64;	     /* 16 phits of 32 bits: a short last packet still takes 64 bytes */
	p->buf_credits = 16; /* four 256-byte packets */
	/* a hop costs one cycle, a 32-bit phit's time through a switch: 1 ns at QDR's 4 GB/s */
	p->sw_lat_ps = 1000;
	p->cable_ps = 0;
	p->arb = VT_ARB_RANDOM;
	p->ar = VT_AR_PACKET;
	p->ar_select = VT_AR_CREDITS;
}

uint32_t vt_sim_wire_bytes(const struct vt_sim_params *p, uint32_t payload)
{
	uint32_t b = payload + p->header;

	if (!p->pad)
		return b;
	return b > p->pad ? (b + p->pad - 1) / p->pad * p->pad : p->pad;
}

void vt_sim_result_free(vt_sim_result *r)
{
	free(r->stage_end_ps);
	free(r->links);
	free(r->msg_post_ps);
	free(r->msg_end_ps);
	memset(r, 0, sizeof(*r));
}

uint64_t vt_sim_lat_quantile(const vt_sim_result *r, double q)
{
	uint64_t n = 0, k, c = 0;

	for (unsigned i = 0; i < VT_SIM_LAT_HIST; i++)
		n += r->lat_hist[i];
	if (!n)
		return 0;
	k = (uint64_t)ceil(q * (double)n);
	if (k < 1)
		k = 1;
	for (unsigned i = 0; i < VT_SIM_LAT_HIST; i++) {
		c += r->lat_hist[i];
		if (c >= k) {
			uint64_t edge = (uint64_t)(1000.0 * exp2((double)(i + 1) / 16.0));

			return edge < r->lat_max_ps ? edge : r->lat_max_ps;
		}
	}
	return r->lat_max_ps;
}

unsigned vt_sim_vl(const struct vt_sim_params *p, uint32_t src, uint32_t dst)
{
	unsigned sl = p->sl_spread ? (src + dst) % p->nvl : p->sl;

	return sl % p->nvl;
}

uint64_t vts_ppb_of_mbps(uint64_t mbps)
{
	/* ps per byte = 8e6 / Mb/s */
	return mbps ? (uint64_t)((8e6 / (double)mbps) * (1 << FX) + 0.5) : 0;
}

void vts_oom(sim *s, const char *what)
{
	if (!s->failed)
		vt_err_nomem(s->e, "out of memory for %s", what);
	s->failed = 1;
}

static void dispatch(sim *s, const struct vt_simq_ev *ev)
{
	switch (ev->type) {
	case EV_ARRIVE:
		vts_on_arrive(s, ev->a);
		break;
	case EV_WAKE:
		if (s->op[ev->a].wake_t == ev->t)
			s->op[ev->a].wake_t = NO_T;
		vts_arbitrate(s, ev->a);
		break;
	case EV_INREL:
		if (s->slot[ev->a].head != UINT32_MAX)
			vts_request(s, s->slot[ev->a].head);
		break;
	case EV_DONE:
		vts_msg_done(s, ev->a);
		break;
	case EV_GEN:
		vts_gen(s, ev->a);
		break;
	case EV_COMPUTE:
		vts_prog_computed(s, ev->a);
		break;
	}
}

int vt_sim_check_params(const struct vt_sim_params *p, vt_err *e)
{
	if (p->mtu < 256 || p->mtu > 4096 || (p->mtu & (p->mtu - 1)))
		return vt_err_set(e, "MTU %u is not one of 256, 512, 1024, 2048, 4096", p->mtu);
	if (p->nvl < 1 || p->nvl > VT_SIM_MAX_VL)
		return vt_err_set(e, "VL count %u out of range 1..%u", p->nvl, VT_SIM_MAX_VL);
	if (p->pad > 4096)
		return vt_err_set(e, "padding to %u bytes is too large", p->pad);
	if (p->header > 512)
		return vt_err_set(e, "header of %u bytes is too large", p->header);
	if ((vt_sim_wire_bytes(p, p->mtu) + VT_SIM_CREDIT - 1) / VT_SIM_CREDIT > p->buf_credits)
		return vt_err_set(e, "buffer of %u credits per VL cannot hold one %u-byte packet",
				  p->buf_credits, vt_sim_wire_bytes(p, p->mtu));
	if (p->buf_credits > 1u << 20)
		return vt_err_set(e, "buffer of %u credits per VL is too large", p->buf_credits);
	if (p->speedup < 1)
		return vt_err_set(e, "speed-up must be at least 1");
	return 0;
}

int vt_sim_run(const vt_fabric *f, const vt_lfts *t, const vt_order *order, const vt_simwork *w,
	       const struct vt_sim_params *p, vt_sim_result *r, vt_err *e)
{
	sim s;
	struct vt_simq_ev ev;
	int rc = 0, popped = 0;

	memset(r, 0, sizeof(*r));
	r->lat_min_ps = UINT64_MAX;
	if (vt_sim_check_params(p, e))
		return -1;
	if (!f->finished)
		return vt_err_set(e, "fabric is not finished");
	if (t->nsw != f->nswitches)
		return vt_err_set(e, "forwarding tables are for %u switches, the fabric has %u",
				  t->nsw, f->nswitches);
	memset(&s, 0, sizeof(s));
	s.f = f;
	s.t = t;
	s.w = w;
	s.p = *p;
	s.r = r;
	s.e = e;
	s.nvl = p->nvl;
	if (vts_setup(&s, order) || (p->ar != VT_AR_STATIC && vts_ar_setup(&s)) ||
	    vts_setup_messages(&s) || vts_start(&s)) {
		rc = -1;
		goto out;
	}
	while (!s.failed && (popped = vt_simq_pop(&s.q, &ev)) > 0) {
		s.now = ev.t;
		dispatch(&s, &ev);
		if (!(++r->events & 0xfffff) && p->progress)
			p->progress(p->progress_ctx, s.now, r->events, r->msgs_done, r->msgs);
	}
	if (popped < 0 && !s.failed)
		vt_err_nomem(e, "out of memory for events");
	if (s.failed || popped < 0) {
		rc = -1;
		goto out;
	}
	vts_finish(&s);
out:
	vts_cleanup(&s);
	if (rc)
		vt_sim_result_free(r);
	return rc;
}
