/* SPDX-License-Identifier: MIT */
#include "sim/vt_simwork.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vt_simwork_free(vt_simwork *w)
{
	free(w->src);
	free(w->dst);
	free(w->stage);
	free(w->bytes);
	free(w->step_off);
	free(w->step);
	memset(w, 0, sizeof(*w));
}

static int reserve(vt_simwork *w, uint64_t n, vt_err *e)
{
	uint32_t *a = realloc(w->src, n * sizeof(*a));

	if (a)
		w->src = a;
	uint32_t *b = a ? realloc(w->dst, n * sizeof(*b)) : NULL;

	if (b)
		w->dst = b;
	uint32_t *c = b ? realloc(w->stage, n * sizeof(*c)) : NULL;

	if (!c)
		return vt_err_nomem(e, "out of memory for %llu messages", (unsigned long long)n);
	w->stage = c;
	return 0;
}

int vt_simwork_add(vt_simwork *w, uint32_t src, uint32_t dst, uint32_t stage, vt_err *e)
{
	uint64_t n = w->nmsg;

	if (src >= w->nranks || dst >= w->nranks)
		return vt_err_set(e, "message %u -> %u: rank out of range 0..%u", src, dst,
				  w->nranks - 1);
	if (n && stage < w->stage[n - 1])
		return vt_err_set(e, "message %u -> %u: stage %u after stage %u", src, dst, stage,
				  w->stage[n - 1]);
	/* grow by doubling: capacity is the next power of two */
	if (!(n & (n - 1)) && reserve(w, n ? 2 * n : 16, e))
		return -1;
	w->src[n] = src;
	w->dst[n] = dst;
	w->stage[n] = stage;
	w->nmsg++;
	if (stage + 1 > w->nstages)
		w->nstages = stage + 1;
	return 0;
}

int vt_simwork_pattern(vt_simwork *w, const vt_pattern *p, uint32_t msg_bytes, unsigned reps,
		       enum vt_simwork_mode mode, vt_err *e)
{
	uint32_t ns = vt_pattern_nstages(p), mf = vt_pattern_max_flows(p);
	uint64_t total = 0;
	struct vt_flow *fl;

	memset(w, 0, sizeof(*w));
	w->mode = mode;
	w->nranks = p->nranks;
	w->msg_bytes = msg_bytes;
	snprintf(w->name, sizeof(w->name), "%s", p->name);
	if (!msg_bytes)
		return vt_err_set(e, "message size must be at least 1 byte");
	fl = malloc((size_t)(mf ? mf : 1) * sizeof(*fl));
	if (!fl)
		return vt_err_nomem(e, "out of memory");
	for (uint32_t s = 0; s < ns; s++)
		total += vt_pattern_stage(p, s, fl);
	if (reserve(w, total * reps + 1, e)) {
		free(fl);
		vt_simwork_free(w);
		return -1;
	}
	for (unsigned r = 0; r < reps; r++)
		for (uint32_t s = 0; s < ns; s++) {
			uint32_t k = vt_pattern_stage(p, s, fl);

			for (uint32_t i = 0; i < k; i++) {
				w->src[w->nmsg] = fl[i].src;
				w->dst[w->nmsg] = fl[i].dst;
				w->stage[w->nmsg++] = r * ns + s;
			}
		}
	w->nstages = ns * reps;
	free(fl);
	return 0;
}

static uint32_t wf_mlength(uint32_t size)
{
	uint32_t l = 0;

	for (uint32_t s = size; s >= 10; s /= 10)
		l++;
	return 8u << l;
}

int vt_simwork_navaridas(vt_simwork *w, const char *name, uint32_t nranks, uint32_t size, vt_err *e)
{
	static const struct {
		const char *name, *spec;
		enum vt_simwork_mode mode;
	} tab[] = {
		{"2W", "wavefront2d", VT_WORK_CAUSAL}, {"3W", "wavefront3d", VT_WORK_CAUSAL},
		{"2M", "mesh2d", VT_WORK_BURST},       {"3M", "mesh3d", VT_WORK_BURST},
		{"BU", "butterfly", VT_WORK_CAUSAL},   {"BT", "bintree", VT_WORK_CAUSAL},
		{"WF", "wavefront2d", VT_WORK_CAUSAL},
	};
	vt_pattern p;
	int rc;

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (strcmp(tab[i].name, name))
			continue;
		if (vt_pattern_parse(&p, tab[i].spec, nranks, e))
			return -1;
		if (strcmp(name, "WF")) {
			rc = vt_simwork_pattern(w, &p, size, 1, tab[i].mode, e);
		} else {
			/* the forward half of the sweep, size / mlength times */
			uint32_t ml = wf_mlength(size), reps = (size + ml - 1) / ml;
			uint32_t fwd = p.dim[0] + p.dim[1] - 2, mf = vt_pattern_max_flows(&p);
			struct vt_flow *fl = malloc((size_t)(mf ? mf : 1) * sizeof(*fl));

			memset(w, 0, sizeof(*w));
			w->mode = VT_WORK_CAUSAL;
			w->nranks = nranks;
			w->msg_bytes = ml;
			rc = fl ? 0 : vt_err_nomem(e, "out of memory");
			for (uint32_t r = 0; !rc && r < reps; r++)
				for (uint32_t s = 0; !rc && s < fwd; s++) {
					uint32_t k = vt_pattern_stage(&p, s, fl);

					for (uint32_t j = 0; !rc && j < k; j++)
						rc = vt_simwork_add(w, fl[j].src, fl[j].dst,
								    r * fwd + s, e);
				}
			w->nstages = reps * fwd;
			free(fl);
			if (rc)
				vt_simwork_free(w);
		}
		if (!rc)
			snprintf(w->name, sizeof(w->name), "%s (%s)", name, p.name);
		vt_pattern_free(&p);
		return rc;
	}
	return vt_err_set(e, "unknown causal workload '%s' (2W, 3W, 2M, 3M, BU, BT, WF)", name);
}

int vt_simwork_open(vt_simwork *w, uint32_t nranks, double load, uint64_t duration_ps,
		    uint32_t msg_bytes, int perm, uint64_t seed, vt_err *e)
{
	memset(w, 0, sizeof(*w));
	if (!(load > 0 && load <= 4))
		return vt_err_set(e, "offered load %g out of range (0, 4]", load);
	if (!msg_bytes)
		return vt_err_set(e, "message size must be at least 1 byte");
	if (nranks < 2)
		return vt_err_set(e, "open loop needs at least 2 ranks");
	w->mode = VT_WORK_OPEN;
	w->nranks = nranks;
	w->nstages = 1;
	w->load = load;
	w->duration_ps = duration_ps;
	w->msg_bytes = msg_bytes;
	w->perm = perm;
	w->seed = seed;
	snprintf(w->name, sizeof(w->name), "%s load %.2f",
		 perm == 2 ? "bisection pairing"
		 : perm	   ? "permutation"
			   : "uniform",
		 load);
	return 0;
}
