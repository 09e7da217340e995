/* SPDX-License-Identifier: MIT */
/* vartree-sim --job: placing and building the jobs, and their part of the output. */
#ifndef VT_SIMJOBS_H
#define VT_SIMJOBS_H

#include <jansson.h>

#include "simout.h"
#include "work/vt_jobs.h"

/*
 * --jobs FILE: one job spec a line ('#' to the end of a line is a comment,
 * blank lines skipped), each checked now; a bad line exits 2 with
 * "PROG: FILE:LINE: cause".
 */
void simjobs_read(struct opts *o, const char *path);
/* What simjobs_read kept in o. */
void simjobs_opts_free(struct opts *o);
/* Parses o->job[], places the jobs on ord's hosts, builds w and the ranks' order gord. */
void simjobs_setup(const struct opts *o, const vt_fabric *f, const vt_order *ord, vt_jobs *js,
		   vt_simwork *w, vt_order *gord);
/* The job table of routing rt (text), or its "jobs" and "nodes" members added to run (JSON). */
void simjobs_table(const vt_jobs *js, const vt_fabric *f, const struct routing *rt);
void simjobs_json(const vt_jobs *js, const vt_fabric *f, const struct routing *rt, json_t *run);

#endif
