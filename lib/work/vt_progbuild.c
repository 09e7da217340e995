/* SPDX-License-Identifier: MIT */
#include "work/vt_progbuild.h"

#include <stdlib.h>
#include <string.h>

static int fail(vt_progb *b, const char *what)
{
	if (!b->failed)
		vt_err_set(b->e, "out of memory for %s", what);
	b->failed = 1;
	return -1;
}

int vt_progb_init(vt_progb *b, vt_simwork *w, uint32_t nranks, vt_err *e)
{
	memset(b, 0, sizeof(*b));
	memset(w, 0, sizeof(*w));
	b->w = w;
	b->e = e;
	w->mode = VT_WORK_PROGRAM;
	w->nranks = nranks;
	b->prog = calloc(nranks ? nranks : 1, sizeof(*b->prog));
	return b->prog ? 0 : fail(b, "programs");
}

static int grow(uint32_t **a, uint64_t n)
{
	uint32_t *p = realloc(*a, n * sizeof(**a));

	if (!p)
		return -1;
	*a = p;
	return 0;
}

int64_t vt_progb_msg(vt_progb *b, uint32_t src, uint32_t dst, uint32_t bytes, uint32_t stage)
{
	vt_simwork *w = b->w;
	uint64_t n = w->nmsg;

	if (b->failed)
		return -1;
	if (src >= w->nranks || dst >= w->nranks) {
		b->failed = 1;
		return vt_err_set(b->e, "message %u -> %u: rank out of range 0..%u", src, dst,
				  w->nranks - 1);
	}
	if (n >= VT_STEP_MAX_MSG) {
		b->failed = 1;
		return vt_err_set(b->e, "more than %u messages", VT_STEP_MAX_MSG);
	}
	if (n == b->cap_msg) {
		uint64_t nc = n ? 2 * n : 64;

		if (grow(&w->src, nc) || grow(&w->dst, nc) || grow(&w->stage, nc) ||
		    grow(&w->bytes, nc))
			return fail(b, "messages");
		b->cap_msg = nc;
	}
	w->src[n] = src;
	w->dst[n] = dst;
	w->bytes[n] = bytes;
	w->stage[n] = stage;
	w->nmsg++;
	if (stage + 1 > w->nstages)
		w->nstages = stage + 1;
	return (int64_t)n;
}

int vt_progb_step(vt_progb *b, uint32_t rank, uint32_t kind, uint64_t mi)
{
	struct vt_progstep *ps = &b->prog[rank];

	if (b->failed)
		return -1;
	if (ps->n == ps->cap) {
		uint32_t nc = ps->cap ? 2 * ps->cap : 8;

		if (nc < ps->cap || grow(&ps->v, nc))
			return fail(b, "program steps");
		ps->cap = nc;
	}
	ps->v[ps->n++] = kind | (uint32_t)mi;
	return 0;
}

int vt_progb_compute(vt_progb *b, uint32_t rank, uint32_t ns)
{
	if (ns > VT_STEP_MAX_MSG) {
		b->failed = 1;
		return vt_err_set(b->e, "compute step of %u ns: at most %u ns", ns,
				  VT_STEP_MAX_MSG);
	}
	return vt_progb_step(b, rank, VT_STEP_COMPUTE, ns);
}

int vt_progb_sendrecv(vt_progb *b, uint32_t src, uint32_t dst, uint32_t bytes, uint32_t stage)
{
	int64_t mi = vt_progb_msg(b, src, dst, bytes, stage);

	if (mi < 0 || vt_progb_step(b, src, VT_STEP_POST, (uint64_t)mi) ||
	    vt_progb_step(b, dst, VT_STEP_RECV, (uint64_t)mi))
		return -1;
	return 0;
}

/* The steps of one pattern stage whose messages are first .. w->nmsg - 1. */
static int stage_steps(vt_progb *b, uint64_t first, enum vt_simwork_mode mode)
{
	const vt_simwork *w = b->w;
	int rc = 0;

	for (uint64_t i = first; !rc && i < w->nmsg; i++)
		rc = vt_progb_step(b, w->src[i], VT_STEP_POST, i);
	for (uint64_t i = first; !rc && i < w->nmsg; i++) {
		if (mode == VT_WORK_B2B)
			rc = vt_progb_step(b, w->src[i], VT_STEP_SENT, i);
		else if (mode == VT_WORK_CAUSAL)
			rc = vt_progb_step(b, w->dst[i], VT_STEP_RECV, i);
	}
	return rc;
}

int vt_progb_pattern(vt_progb *b, const vt_pattern *p, const uint32_t *g, uint32_t bytes,
		     unsigned reps, enum vt_simwork_mode mode, uint32_t stage0, uint32_t gap_ns)
{
	uint32_t ns = vt_pattern_nstages(p), mf = vt_pattern_max_flows(p);
	struct vt_flow *fl;
	int rc = 0;

	if (mode != VT_WORK_B2B && mode != VT_WORK_CAUSAL && mode != VT_WORK_BURST) {
		b->failed = 1;
		return vt_err_set(b->e, "pattern '%s': only b2b, causal and burst release per rank",
				  p->name);
	}
	fl = malloc((size_t)(mf ? mf : 1) * sizeof(*fl));
	if (!fl)
		return fail(b, "flows");
	for (unsigned r = 0; !rc && r < reps; r++)
		for (uint32_t s = 0; !rc && s < ns; s++) {
			uint32_t k = vt_pattern_stage(p, s, fl);
			uint64_t first = b->w->nmsg;

			for (uint32_t i = 0; gap_ns && (r || s) && !rc && i < p->nranks; i++)
				rc = vt_progb_compute(b, g[i], gap_ns);

			for (uint32_t i = 0; !rc && i < k; i++)
				if (vt_progb_msg(b, g[fl[i].src], g[fl[i].dst], bytes,
						 stage0 + r * ns + s) < 0)
					rc = -1;
			if (!rc)
				rc = stage_steps(b, first, mode);
		}
	free(fl);
	return rc;
}

static void free_prog(vt_progb *b)
{
	if (b->prog)
		for (uint32_t r = 0; r < b->w->nranks; r++)
			free(b->prog[r].v);
	free(b->prog);
	b->prog = NULL;
}

int vt_progb_finish(vt_progb *b)
{
	vt_simwork *w = b->w;
	uint64_t n = 0;

	if (b->failed) {
		vt_progb_abort(b);
		return -1;
	}
	for (uint32_t r = 0; r < w->nranks; r++)
		n += b->prog[r].n;
	if (n >= UINT32_MAX) {
		vt_progb_abort(b);
		return vt_err_set(b->e, "too many program steps (%llu)", (unsigned long long)n);
	}
	w->step_off = malloc(((size_t)w->nranks + 1) * sizeof(uint32_t));
	w->step = malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
	if (!w->step_off || !w->step) {
		fail(b, "program steps");
		vt_progb_abort(b);
		return -1;
	}
	n = 0;
	for (uint32_t r = 0; r < w->nranks; r++) {
		w->step_off[r] = (uint32_t)n;
		if (b->prog[r].n)
			memcpy(w->step + n, b->prog[r].v, b->prog[r].n * sizeof(uint32_t));
		n += b->prog[r].n;
	}
	w->step_off[w->nranks] = (uint32_t)n;
	free_prog(b);
	return 0;
}

void vt_progb_abort(vt_progb *b)
{
	free_prog(b);
	vt_simwork_free(b->w);
}
