/* SPDX-License-Identifier: MIT */
/* vartree-sim --job: setup and output of several jobs at once. */
#include "simjobs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vt_io.h"
#include "out/vt_json.h"

static void fail(const char *msg, int status)
{
	fprintf(stderr, "vartree-sim: %s\n", msg);
	exit(status);
}

/* Leading and trailing blanks off s. */
static char *trim(char *s)
{
	char *end = s + strlen(s);

	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = 0;
	return s;
}

/* Line ln of path as job k of o, or exit 2 naming file and line. */
static void file_job(struct opts *o, const char *path, unsigned ln, const char *spec)
{
	char where[1024];
	struct vt_job j;
	vt_err e;

	snprintf(where, sizeof(where), "%s:%u", path, ln);
	if (o->njobs == MAX_JOBS) {
		fprintf(stderr, "vartree-sim: %s: at most %d jobs\n", where, MAX_JOBS);
		exit(2);
	}
	if (vt_job_parse(&j, spec, &e)) {
		fprintf(stderr, "vartree-sim: %s: %s\n", where, e.msg);
		exit(2);
	}
	o->job_own[o->njobs] = strdup(spec);
	o->job_where[o->njobs] = strdup(where);
	if (!o->job_own[o->njobs] || !o->job_where[o->njobs])
		fail("out of memory", 1);
	o->job[o->njobs] = o->job_own[o->njobs];
	o->njobs++;
}

void simjobs_read(struct opts *o, const char *path)
{
	char *buf, *line, *next;
	unsigned ln = 0, before = o->njobs;
	size_t len;
	vt_err e;

	if (vt_read_text(path, &buf, &len, &e))
		fail(e.msg, 2);
	for (line = buf; line && *line; line = next) {
		char *hash;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		ln++;
		hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		line = trim(line);
		if (*line)
			file_job(o, path, ln, line);
	}
	free(buf);
	if (o->njobs == before) {
		fprintf(stderr, "vartree-sim: %s: no jobs\n", path);
		exit(2);
	}
}

void simjobs_opts_free(struct opts *o)
{
	for (unsigned k = 0; k < o->njobs; k++) {
		free(o->job_own[k]);
		free(o->job_where[k]);
	}
}

/* A placement or build error, named by its job's --jobs line when it has one. */
static void job_fail(const struct opts *o, const vt_jobs *js, const char *msg)
{
	if (js->bad < js->n && o->job_where[js->bad]) {
		fprintf(stderr, "vartree-sim: %s: %s\n", o->job_where[js->bad], msg);
		exit(2);
	}
	fail(msg, 2);
}

void simjobs_setup(const struct opts *o, const vt_fabric *f, const vt_order *ord, vt_jobs *js,
		   vt_simwork *w, vt_order *gord)
{
	vt_err e;

	memset(js, 0, sizeof(*js));
	js->job = calloc(o->njobs, sizeof(*js->job));
	if (!js->job)
		fail("out of memory", 1);
	js->n = o->njobs;
	for (unsigned k = 0; k < o->njobs; k++) {
		if (vt_job_parse(&js->job[k], o->job[k], &e))
			fail(e.msg, 2);
		js->job[k].trace_compute = o->trace_compute;
		for (unsigned i = 0; i < k; i++)
			if (!strcmp(js->job[i].name, js->job[k].name)) {
				snprintf(e.msg, sizeof(e.msg), "%s: two jobs named %s",
					 o->job_where[k] ? o->job_where[k] : "--job",
					 js->job[k].name);
				fail(e.msg, 2);
			}
	}
	if (vt_jobs_place(js, f, ord, o->p.seed, &e) ||
	    vt_jobs_build(js, f, ord, o->mode_set ? o->mode : VT_WORK_B2B, o->reps, w, gord, &e))
		job_fail(o, js, e.msg);
}

static int stats(const vt_jobs *js, const struct routing *rt, struct vt_jobstat **job,
		 struct vt_nodestat **node)
{
	vt_err e;

	*job = calloc((size_t)js->n + 1, sizeof(**job));
	*node = calloc((size_t)vt_jobs_nnodes(js) + 1, sizeof(**node));
	if (!*job || !*node || vt_jobs_stats(js, &rt->r, *job, *node, &e)) {
		fprintf(stderr, "vartree-sim: %s\n", *job && *node ? e.msg : "out of memory");
		free(*job);
		free(*node);
		return -1;
	}
	return 0;
}

static void table_row(const char *name, const char *place, const struct vt_jobstat *s)
{
	printf("%-12.12s %-13s %8llu %12llu %10llu %12.3f %6u %8.3f %8.3f %8.3f\n", name, place,
	       (unsigned long long)s->msgs, (unsigned long long)s->bytes,
	       (unsigned long long)s->bytes_local, (double)(s->end_ps - s->start_ps) / 1e6,
	       s->active_nodes, s->bw_min, s->bw_avg, s->bw_max);
}

void simjobs_table(const vt_jobs *js, const vt_fabric *f, const struct routing *rt)
{
	struct vt_jobstat *job;
	struct vt_nodestat *node;

	if (stats(js, rt, &job, &node))
		return;
	printf("%s: jobs (observed bandwidth per node: fabric bytes sent / time sending, GB/s)\n",
	       rt->name);
	printf("%-12s %-13s %8s %12s %10s %12s %6s %8s %8s %8s\n", "job", "placement", "messages",
	       "fabric bytes", "local", "time us", "nodes", "bw min", "bw avg", "bw max");
	for (uint32_t k = 0; k < js->n; k++)
		table_row(js->job[k].name, vt_place_name(js->job[k].place), &job[k]);
	table_row("(all)", "", &job[js->n]);
	for (uint32_t k = 0; k < js->n; k++) {
		const struct vt_job *j = &js->job[k];

		printf("%s: %u ranks, %u per node, %s on", j->name, j->ranks, j->ppn, j->work);
		for (uint32_t i = 0; i < j->nnodes; i++)
			printf(" %s", f->nodes[j->node[i]].desc);
		printf("\n");
	}
	free(job);
	free(node);
}

static json_t *stat_json(const char *name, const struct vt_jobstat *s)
{
	json_t *o = json_object(), *bw = json_object();

	vt_json_set(o, "job", vt_json_text(name));
	vt_json_set(o, "messages", vt_json_u64(s->msgs));
	vt_json_set(o, "messages_local", vt_json_u64(s->msgs_local));
	vt_json_set(o, "bytes", vt_json_u64(s->bytes));
	vt_json_set(o, "bytes_local", vt_json_u64(s->bytes_local));
	vt_json_set(o, "time_us", vt_json_real((double)(s->end_ps - s->start_ps) / 1e6, 6));
	vt_json_set(o, "active_nodes", json_integer(s->active_nodes));
	vt_json_set(bw, "min", vt_json_real(s->bw_min, 6));
	vt_json_set(bw, "avg", vt_json_real(s->bw_avg, 6));
	vt_json_set(bw, "max", vt_json_real(s->bw_max, 6));
	vt_json_set(o, "bw_gbps", bw);
	return o;
}

static json_t *job_json(const vt_jobs *js, const vt_fabric *f, uint32_t k,
			const struct vt_jobstat *s)
{
	const struct vt_job *j = &js->job[k];
	json_t *o = stat_json(j->name, s), *nodes = json_array();

	vt_json_set(o, "ranks", json_integer(j->ranks));
	vt_json_set(o, "ppn", json_integer(j->ppn));
	vt_json_set(o, "placement", json_string(vt_place_name(j->place)));
	vt_json_set(o, "message_bytes", json_integer(j->size));
	vt_json_set(o, "workload", vt_json_text(j->work));
	vt_json_set(o, "root", j->rooted ? json_integer(j->root) : json_null());
	vt_json_set(o, "compute_us", vt_json_real(j->compute_ns / 1e3, 3));
	for (uint32_t i = 0; i < j->nnodes; i++)
		json_array_append_new(nodes, vt_json_text(f->nodes[j->node[i]].desc));
	vt_json_set(o, "nodes", nodes);
	return o;
}

static json_t *node_json(const vt_jobs *js, const vt_fabric *f, const struct vt_nodestat *n)
{
	json_t *o = json_object();

	vt_json_set(o, "node", vt_json_node(f, n->ca));
	vt_json_set(o, "job", vt_json_text(js->job[n->job].name));
	vt_json_set(o, "bytes", vt_json_u64(n->bytes));
	vt_json_set(o, "active_us", vt_json_real((double)n->active_ps / 1e6, 6));
	vt_json_set(o, "bw_gbps", vt_json_real(n->gbps, 6));
	return o;
}

void simjobs_json(const vt_jobs *js, const vt_fabric *f, const struct routing *rt, json_t *run)
{
	struct vt_jobstat *job;
	struct vt_nodestat *node;
	json_t *jobs, *nodes;

	if (stats(js, rt, &job, &node))
		return;
	jobs = json_array();
	nodes = json_array();
	for (uint32_t k = 0; k < js->n; k++)
		json_array_append_new(jobs, job_json(js, f, k, &job[k]));
	json_array_append_new(jobs, stat_json("(all)", &job[js->n]));
	for (uint32_t i = 0; i < vt_jobs_nnodes(js); i++)
		json_array_append_new(nodes, node_json(js, f, &node[i]));
	vt_json_set(run, "bytes_local", vt_json_u64(rt->r.bytes_local));
	vt_json_set(run, "messages_local", vt_json_u64(rt->r.msgs_local));
	vt_json_set(run, "jobs", jobs);
	vt_json_set(run, "nodes", nodes);
	free(job);
	free(node);
}
