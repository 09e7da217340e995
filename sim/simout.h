/* SPDX-License-Identifier: MIT */
/* vartree-sim's options and results, and how it prints and plots them (simout.c). */
#ifndef VT_SIMOUT_H
#define VT_SIMOUT_H

#include <stdint.h>

#include <jansson.h>

#include "model/vt_fabric.h"
#include "model/vt_lft.h"
#include "model/vt_order.h"
#include "sim/vt_sim.h"
#include "sim/vt_simwork.h"

#define MAX_ROUTINGS 4
#define MAX_SEEDS    256

/* One figure of a routing over the seeds of --seeds (simseeds.c). */
struct seedfig {
	double v[MAX_SEEDS];
};
#define MAX_JOBS 256

struct vt_jobs;

struct routing {
	const char *name;   /* --label, else source */
	const char *source; /* "vartree" or the LFT file */
	vt_lfts t;
	vt_order o;
	int have_order;
	vt_sim_result r;
	double wall_s;
	/* --seeds: per seed (the first is r's) total time, accepted load, mean latency */
	struct seedfig *seed_total, *seed_acc, *seed_lat;
};

struct opts {
	const char *fabric, *gen, *order, *pattern, *causal, *open, *plot;
	const char *trace;	 /* --trace: an OTF2 anchor file */
	int trace_compute;	 /* --trace-compute: replay the traces' compute gaps */
	const char *plot_format; /* --plot-format: png, svg or pdf; NULL: png and svg */
	const char *name_map;	 /* --node-name-map */
	const char *rspec[MAX_ROUTINGS];
	const char *label[MAX_ROUTINGS]; /* --label, in routing order */
	unsigned nr, nlabel;
	const char *preset;
	enum vt_simwork_mode mode;
	int mode_set, json, quiet, links;
	int lmc; /* --lmc, -1: the fabric file's, else the one the first --lfts shows */
	/* options refused where they mean nothing */
	int load_set, duration_set, reps_set, ar_select_set, rail_choice_set;
	uint32_t size;
	unsigned reps;
	double load, duration_us, warmup_us;
	uint64_t seeds[MAX_SEEDS]; /* --seeds: the seeds of every run, first = --seed */
	unsigned nseeds;	   /* 0: --seeds not given */
	struct vt_sim_params p;
	int fig6, navaridas;
	const char *job[MAX_JOBS]; /* --job specs and --jobs FILE lines, in the order given */
	char *job_own[MAX_JOBS];   /* a --jobs line's copy (job[k]), else NULL */
	char *job_where[MAX_JOBS]; /* "FILE:LINE" of a --jobs line, else NULL */
	unsigned njobs;
	const struct vt_jobs *jobs; /* placed and built, for the output */
};

/* The JSON object (jansson, keys in a fixed order); -1 with e set when it cannot be written. */
int simout_json(const struct opts *o, const vt_fabric *f, const vt_simwork *w, struct routing *rt,
		unsigned nr, vt_err *e);
void simout_table(const struct opts *o, const vt_fabric *f, const vt_simwork *w, struct routing *rt,
		  unsigned nr);
/*
 * --seeds: runs routing r again under every seed but the first (r->r holds
 * the first's result) and keeps each run's figures; 1 if a run ended in a
 * credit deadlock (said on stderr), else 0. A run that fails exits the command.
 */
int simseeds_run(const struct opts *o, const vt_fabric *f, const vt_order *ord, const vt_simwork *w,
		 struct routing *r);
void simseeds_free(struct routing *r);
/* The mean and 95 % interval over the seeds: JSON member / table lines. */
json_t *simseeds_json(const struct opts *o, const struct routing *r);
void simseeds_table(const struct opts *o, const struct routing *r);

/* --plot DIR: stage times of every routing, link utilisation of the first (PNG and SVG) */
int simout_plot(const struct opts *o, const vt_fabric *f, struct routing *rt, unsigned nr,
		vt_err *e);

#endif
