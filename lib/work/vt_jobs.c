/* SPDX-License-Identifier: MIT */
/* Jobs: their specs, their combined program workload, and per-job and per-node bandwidth. */
#include "work/vt_jobs.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/vt_parse.h"
#include "work/vt_coll.h"
#include "work/vt_otf2.h"
#include "model/vt_pattern.h"
#include "work/vt_progbuild.h"
#include "work/vt_replay.h"

static const char *const place_names[] = {"contiguous", "random", "random-leaves", "rr-leaves",
					  "order"};

const char *vt_place_name(enum vt_place p)
{
	return (unsigned)p < sizeof(place_names) / sizeof(place_names[0]) ? place_names[p] : "?";
}

/* A count of n characters at s with an optional K, M or G suffix (vt_parse_size's), 1 .. 2^31-1. */
static int count(const char *s, size_t n, uint32_t *v)
{
	char buf[32];
	uint64_t x;
	vt_err e;

	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (vt_parse_size("count", buf, 0, (1u << 31) - 1, &x, &e))
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

/* The collectives by name; rooted ones take NAME@ROOT. */
enum coll {
	C_BARRIER,
	C_BCAST,
	C_REDUCE,
	C_GATHER,
	C_SCATTER,
	C_ALLREDUCE,
	C_ALLTOALL,
	C_ALLGATHER,
	C_RINGBCAST,
	C_N
};
static const char *const coll_names[C_N] = {"barrier",	"bcast",	  "reduce",
					    "gather",	"scatter",	  "allreduce",
					    "alltoall", "ring-allgather", "ring-bcast"};

static int rooted(enum coll c)
{
	return c == C_BCAST || c == C_REDUCE || c == C_GATHER || c == C_SCATTER || c == C_RINGBCAST;
}

/* The collective named by op's first n characters, or C_N. */
static enum coll coll_of(const char *op, size_t n)
{
	for (unsigned k = 0; k < C_N; k++)
		if (strlen(coll_names[k]) == n && !memcmp(op, coll_names[k], n))
			return (enum coll)k;
	return C_N;
}

/* "+TIME" at the end of j->op: a number and ns, us, ms or s, at most 1 s; cut off. */
static int compute_suffix(struct vt_job *j, const char *spec, vt_err *e)
{
	static const char *const units[] = {"ns", "us", "ms", "s"};
	static const double ns_per[] = {1, 1e3, 1e6, 1e9};
	char *plus = strrchr(j->op, '+'), *end;
	double v;

	if (!plus || !isdigit((unsigned char)plus[1]))
		return 0; /* no compute time (a file path may hold other '+') */
	v = strtod(plus + 1, &end);
	for (unsigned k = 0; k < 4; k++)
		if (!strcmp(end, units[k]) && isfinite(v) && v * ns_per[k] <= 1e9) {
			j->compute_ns = (uint32_t)llround(v * ns_per[k]);
			*plus = 0;
			return 0;
		}
	return vt_err_set(e, "job '%s': compute time '%s': a number with ns, us, ms or s, up to 1s",
			  spec, plus + 1);
}

/* "@ROOT" after a collective's name in j->op: the root rank; cut out. */
static int root_suffix(struct vt_job *j, const char *spec, vt_err *e)
{
	char *at = strchr(j->op, '@'), *end;
	enum coll c;
	unsigned long v = ULONG_MAX;

	if (!at || memchr(j->op, ':', (size_t)(at - j->op)))
		return 0; /* none, or in a pattern's arguments (a file path) */
	c = coll_of(j->op, (size_t)(at - j->op));
	if (c == C_N)
		return vt_err_set(e, "job '%s': '@ROOT' follows no collective", spec);
	if (!rooted(c))
		return vt_err_set(e, "job '%s': %s has no root", spec, coll_names[c]);
	end = at + 1;
	if (isdigit((unsigned char)*end))
		v = strtoul(at + 1, &end, 10);
	if (v >= (1ul << 31) || (*end && *end != ':'))
		return vt_err_set(e, "job '%s': %s@ROOT: ROOT a rank of the job (0, 1, ...)", spec,
				  coll_names[c]);
	j->root = (uint32_t)v;
	j->rooted = 1;
	memmove(at, end, strlen(end) + 1);
	return 0;
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
	strcpy(j->op, f[4]);
	if (!strncmp(j->work, "trace:", 6)) /* the path verbatim: no @ROOT or +TIME */
		return j->size ? vt_err_set(e,
					    "job '%s': size: '-' for a trace (its messages carry "
					    "their own sizes)",
					    spec)
			       : 0;
	if (compute_suffix(j, spec, e) || root_suffix(j, spec, e))
		return -1;
	if (!*j->op)
		return vt_err_set(e, "job '%s': no workload", spec);
	if (!j->size && strcmp(j->op, "barrier"))
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

/* One call of collective c over the job's ranks g, under stage st. */
static int coll_call(vt_progb *b, enum coll c, const struct vt_job *j, const uint32_t *g,
		     uint32_t segs, uint32_t st)
{
	uint32_t n = j->ranks, sz = j->size, root = j->root;

	switch (c) {
	case C_BARRIER:
		return vt_coll_barrier(b, g, n, st);
	case C_BCAST:
		return vt_coll_bcast(b, g, n, root, sz, st);
	case C_REDUCE:
		return vt_coll_reduce(b, g, n, root, sz, st);
	case C_GATHER:
		return vt_coll_gather(b, g, n, root, sz, st);
	case C_SCATTER:
		return vt_coll_scatter(b, g, n, root, sz, st);
	case C_ALLREDUCE:
		return vt_coll_allreduce(b, g, n, sz, st);
	case C_ALLTOALL:
		return vt_coll_alltoall(b, g, n, sz, st);
	case C_ALLGATHER:
		return vt_coll_allgather(b, g, n, sz, st);
	default:
		return vt_coll_ring_bcast(b, g, n, root, sz, segs, st);
	}
}

/* A built-in collective by name, reps times, computing between them; 1 if none is named. */
static int collective(vt_progb *b, const struct vt_job *j, const uint32_t *g, unsigned reps,
		      uint32_t stage0)
{
	const char *w = j->op;
	size_t n = strcspn(w, ":");
	enum coll c = coll_of(w, n);
	uint32_t segs = 8;
	int rc = 0;

	if (c == C_N)
		return 1;
	if (c == C_RINGBCAST && w[n] && (count(w + n + 1, strlen(w + n + 1), &segs) || !segs))
		return vt_err_set(b->e, "job %s: ring-bcast:SEGMENTS, SEGMENTS >= 1", j->name);
	if (c != C_RINGBCAST && w[n])
		return 1; /* not a collective's name: a pattern spec */
	if (j->root >= j->ranks)
		return vt_err_set(b->e, "job %s: root %u is not one of its %u ranks", j->name,
				  j->root, j->ranks);
	for (unsigned r = 0; !rc && r < reps; r++) {
		for (uint32_t i = 0; r && j->compute_ns && !rc && i < j->ranks; i++)
			rc = vt_progb_compute(b, g[i], j->compute_ns);
		if (!rc)
			rc = coll_call(b, c, j, g, segs, stage0 + r);
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
	rc = vt_replay_reps(b, &t, g, reps, j->trace_compute, path);
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
	if (vt_pattern_parse(&p, j->op, j->ranks, b->e))
		return -1;
	rc = vt_progb_pattern(b, &p, g, j->size, reps, mode, stage0, j->compute_ns);
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

	js->bad = UINT32_MAX;
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
		if ((rc = job_work(&b, &js->job[k], g + js->job[k].first_rank, mode, reps)))
			js->bad = k;
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
