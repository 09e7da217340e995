/* SPDX-License-Identifier: MIT */
/* Jobs: their specs, their combined program workload, and per-job and per-node bandwidth. */
#include "vt_jobs.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "vt_cli.h"
#include "vt_coll.h"
#include "vt_otf2.h"
#include "vt_pattern.h"
#include "vt_progbuild.h"
#include "vt_replay.h"

static const char *const place_names[] = {"contiguous", "random", "random-leaves", "rr-leaves",
					  "order"};

const char *vt_place_name(enum vt_place p)
{
	return (unsigned)p < sizeof(place_names) / sizeof(place_names[0]) ? place_names[p] : "?";
}

/* A count of n characters at s with an optional K, M or G suffix (vt_cli's), 1 .. 2^31-1. */
static int count(const char *s, size_t n, uint32_t *v)
{
	char buf[32];
	uint64_t x;
	vt_err e;

	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (vt_cli_parse_size("count", buf, 0, (1u << 31) - 1, &x, &e))
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static int ranks_field(struct vt_job *j, const char *s, size_t n)
{
	const char *x = memchr(s, 'x', n);

	j->ppn = 1;
	if (x && count(x + 1, n - (size_t)(x - s) - 1, &j->ppn))
		return -1;
	if (x)
		n = (size_t)(x - s);
	if (n == 3 && !memcmp(s, "all", 3)) {
		j->ranks = 0;
		return j->ppn ? 0 : -1;
	}
	return count(s, n, &j->ranks) || !j->ranks || !j->ppn ? -1 : 0;
}

int vt_job_parse(struct vt_job *j, const char *spec, vt_err *e)
{
	const char *f[5];
	size_t len[4];

	memset(j, 0, sizeof(*j));
	f[0] = spec;
	for (int k = 1; k < 5; k++) {
		f[k] = strchr(f[k - 1], ':');
		if (!f[k])
			return vt_err_set(
				e, "job '%s': want NAME:RANKS[xPPN]:PLACEMENT:SIZE:WORKLOAD", spec);
		len[k - 1] = (size_t)(f[k] - f[k - 1]);
		f[k]++;
	}
	if (!len[0] || len[0] >= sizeof(j->name))
		return vt_err_set(e, "job '%s': name of 1 to %zu characters", spec,
				  sizeof(j->name) - 1);
	memcpy(j->name, spec, len[0]);
	for (size_t i = 0; i < len[0]; i++)
		if (!isalnum((unsigned char)j->name[i]) && !strchr("_.-", j->name[i]))
			return vt_err_set(e, "job '%s': name of letters, digits, '_', '.', '-'",
					  spec);
	if (ranks_field(j, f[1], len[1]))
		return vt_err_set(e, "job '%s': ranks: a count, or 'all', then optionally xPPN",
				  spec);
	j->place = VT_PLACE_ORDER + 1;
	for (unsigned k = 0; k < sizeof(place_names) / sizeof(place_names[0]); k++)
		if (strlen(place_names[k]) == len[2] && !memcmp(f[2], place_names[k], len[2]))
			j->place = (enum vt_place)k;
	if (j->place > VT_PLACE_ORDER)
		return vt_err_set(e,
				  "job '%s': placement: contiguous, random, random-leaves, "
				  "rr-leaves or order",
				  spec);
	if (len[3] == 1 && *f[3] == '-')
		j->size = 0;
	else if (count(f[3], len[3], &j->size))
		return vt_err_set(e, "job '%s': size: bytes (K, M, G suffixes) or '-'", spec);
	if (!*f[4] || strlen(f[4]) >= sizeof(j->work))
		return vt_err_set(e, "job '%s': no workload", spec);
	strcpy(j->work, f[4]);
	if (!strncmp(j->work, "trace:", 6))
		return j->size ? vt_err_set(e,
					    "job '%s': size: '-' for a trace (its messages carry "
					    "their own sizes)",
					    spec)
			       : 0;
	if (!j->size && strcmp(j->work, "barrier"))
		return vt_err_set(e,
				  "job '%s': size: at least 1 byte ('-' is for barrier and "
				  "trace only)",
				  spec);
	return 0;
}

void vt_jobs_free(vt_jobs *js)
{
	for (uint32_t k = 0; k < js->n; k++)
		free(js->job[k].node);
	free(js->job);
	free(js->rank_ca);
	memset(js, 0, sizeof(*js));
}

uint32_t vt_jobs_nnodes(const vt_jobs *js)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < js->n; k++)
		n += js->job[k].nnodes;
	return n;
}

/* A built-in collective by name, reps times; 1 if name is none. */
static int collective(vt_progb *b, const struct vt_job *j, const uint32_t *g, unsigned reps,
		      uint32_t stage0)
{
	const char *w = j->work;
	uint32_t segs = 8;
	int rc = 0;

	if (!strncmp(w, "ring-bcast:", 11)) {
		if (count(w + 11, strlen(w + 11), &segs) || !segs)
			return vt_err_set(b->e, "job %s: ring-bcast:SEGMENTS, SEGMENTS >= 1",
					  j->name);
		w = "ring-bcast";
	}
	static const char *const names[] = {"barrier",	"bcast",	  "reduce",    "allreduce",
					    "alltoall", "ring-allgather", "ring-bcast"};
	unsigned k = 0;

	while (k < 7 && strcmp(w, names[k]))
		k++;
	if (k == 7)
		return 1;
	for (unsigned r = 0; !rc && r < reps; r++) {
		uint32_t st = stage0 + r, n = j->ranks, sz = j->size;

		switch (k) {
		case 0:
			rc = vt_coll_barrier(b, g, n, st);
			break;
		case 1:
			rc = vt_coll_bcast(b, g, n, 0, sz, st);
			break;
		case 2:
			rc = vt_coll_reduce(b, g, n, 0, sz, st);
			break;
		case 3:
			rc = vt_coll_allreduce(b, g, n, sz, st);
			break;
		case 4:
			rc = vt_coll_alltoall(b, g, n, sz, st);
			break;
		case 5:
			rc = vt_coll_allgather(b, g, n, sz, st);
			break;
		default:
			rc = vt_coll_ring_bcast(b, g, n, 0, sz, segs, st);
			break;
		}
	}
	return rc ? -1 : 0;
}

/* trace:FILE, an OTF2 trace of exactly the job's ranks, replayed reps times. */
static int job_trace(vt_progb *b, const struct vt_job *j, const uint32_t *g, unsigned reps)
{
	const char *path = j->work + 6;
	vt_mpitrace t;
	int rc;

	if (vt_otf2_read(&t, path, b->e))
		return -1;
	if (t.nranks != j->ranks) {
		vt_err_set(b->e, "job %s: %s has %u ranks, the job %u", j->name, path, t.nranks,
			   j->ranks);
		vt_mpitrace_free(&t);
		return -1;
	}
	rc = vt_replay_reps(b, &t, g, reps, path);
	vt_mpitrace_free(&t);
	return rc;
}

static int job_work(vt_progb *b, const struct vt_job *j, const uint32_t *g,
		    enum vt_simwork_mode mode, unsigned reps)
{
	uint32_t stage0 = b->w->nstages;
	vt_pattern p;
	int rc;

	if (!strncmp(j->work, "trace:", 6))
		return job_trace(b, j, g, reps);
	rc = collective(b, j, g, reps, stage0);

	if (rc <= 0)
		return rc;
	if (j->ranks < 2)
		return vt_err_set(b->e, "job %s: a pattern needs at least 2 ranks", j->name);
	if (vt_pattern_parse(&p, j->work, j->ranks, b->e))
		return -1;
	rc = vt_progb_pattern(b, &p, g, j->size, reps, mode, stage0);
	vt_pattern_free(&p);
	return rc;
}

/* Rank g's CA and port: the host order's port of the CA its job placed it on. */
static int rank_ports(vt_jobs *js, const vt_fabric *f, const vt_order *ord, vt_order *gord,
		      vt_err *e)
{
	uint32_t *port_of = malloc((size_t)f->nnodes * sizeof(uint32_t));

	js->rank_ca = malloc((size_t)js->nranks * sizeof(uint32_t));
	gord->n = js->nranks;
	gord->port = malloc((size_t)js->nranks * sizeof(uint32_t));
	if (!port_of || !js->rank_ca || !gord->port) {
		free(port_of);
		return vt_err_set(e, "out of memory");
	}
	for (uint32_t n = 0; n < f->nnodes; n++)
		port_of[n] = VT_NONE;
	for (uint32_t r = ord->n; r-- > 0;)
		if (ord->port[r] != VT_NONE)
			port_of[f->ports[ord->port[r]].node] = ord->port[r];
	for (uint32_t k = 0; k < js->n; k++) {
		const struct vt_job *j = &js->job[k];

		for (uint32_t i = 0; i < j->ranks; i++) {
			uint32_t ca = j->node[i / j->ppn];

			js->rank_ca[j->first_rank + i] = ca;
			gord->port[j->first_rank + i] = port_of[ca];
		}
	}
	free(port_of);
	return 0;
}

int vt_jobs_build(vt_jobs *js, const vt_fabric *f, const vt_order *ord, enum vt_simwork_mode mode,
		  unsigned reps, vt_simwork *w, vt_order *gord, vt_err *e)
{
	vt_progb b;
	uint64_t n = 0;
	uint32_t *g;
	int rc = 0;

	for (uint32_t k = 0; k < js->n; k++) {
		js->job[k].first_rank = (uint32_t)n;
		n += js->job[k].ranks;
	}
	if (n >= UINT32_MAX)
		return vt_err_set(e, "too many ranks (%llu)", (unsigned long long)n);
	js->nranks = (uint32_t)n;
	memset(gord, 0, sizeof(*gord));
	if (rank_ports(js, f, ord, gord, e))
		return -1;
	g = malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
	if (!g)
		return vt_err_set(e, "out of memory");
	for (uint32_t i = 0; i < n; i++)
		g[i] = i;
	if (vt_progb_init(&b, w, js->nranks, e)) {
		free(g);
		return -1;
	}
	for (uint32_t k = 0; k < js->n && !rc; k++)
		rc = job_work(&b, &js->job[k], g + js->job[k].first_rank, mode, reps);
	free(g);
	if (rc) {
		vt_progb_abort(&b);
		return -1;
	}
	if (vt_progb_finish(&b))
		return -1;
	snprintf(w->name, sizeof(w->name), "%u job%s", js->n, js->n == 1 ? "" : "s");
	js->work = w;
	return 0;
}
