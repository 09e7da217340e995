/* SPDX-License-Identifier: MIT */
/*
 * vartree-sweep: a sweep spec (sweepspec.c), the runs it names, how one run
 * is done (sweeprun.c) and how the gathered results are written (sweepout.c).
 */
#ifndef VT_SWEEP_H
#define VT_SWEEP_H

#include <stdint.h>

#include "base/vt_err.h"
#include "sim/vt_sim.h"

#define SWEEP_MAX 64 /* values per dimension */

/* Figures of one run, all doubles so ranks can sum them (MPI_SUM) into one table. */
enum sweep_field {
	SF_DONE,   /* 1 from the one worker that ran it: the gathered sum must be exactly 1 */
	SF_STATUS, /* 0 ok, 1 the run failed, 2 credit deadlock */
	SF_TOTAL_US,
	SF_MSGS,
	SF_MSGS_DONE,
	SF_BYTES,
	SF_EVENTS,
	SF_HOPS,
	SF_LAT_MEAN_US,
	SF_LAT_P99_US,
	SF_OFFERED,
	SF_ACCEPTED,
	SF_HOSTS,
	SF_COST_PER_HOST,
	SF_N
};

struct sweep_spec {
	char *fabric[SWEEP_MAX];  /* vartree-gen specs */
	char *fault[SWEEP_MAX];	  /* "none" or vartree-gen options (drop-links=1@0 ...) */
	char *routing[SWEEP_MAX]; /* static, packet, flow: vartree's tables, adaptive or not */
	char *pattern[SWEEP_MAX]; /* analyzer pattern, causal:NAME or open:uniform|perm|pair */
	uint32_t size[SWEEP_MAX];
	uint64_t seed[SWEEP_MAX];
	unsigned nfabric, nfault, nrouting, npattern, nsize, nseed;
	char preset[16];
	double load, duration_us, warmup_us;
	struct vt_sim_params p; /* the preset's model */
};

/* Reads a spec file; one-line error naming file and line. */
int sweep_spec_read(struct sweep_spec *s, const char *path, vt_err *e);
void sweep_spec_free(struct sweep_spec *s);

/* Run i's coordinates: fabric, fault, routing, pattern, size, seed (the last varies fastest). */
struct sweep_at {
	unsigned fabric, fault, routing, pattern, size, seed;
};
uint64_t sweep_nruns(const struct sweep_spec *s);
void sweep_at(const struct sweep_spec *s, uint64_t i, struct sweep_at *a);

/* A worker's fabric and tables, kept while consecutive runs share fabric and fault. */
struct sweep_cache;
struct sweep_cache *sweep_cache_new(void);
void sweep_cache_free(struct sweep_cache *c);
/* Does run i into out[SF_N]; a failing run is a result (status 1, message on stderr). */
void sweep_run(const struct sweep_spec *s, struct sweep_cache *c, uint64_t i, double *out);

/* Writers: CSV of every run; JSON with runs, the mean and 95 % interval over seeds, phi. */
int sweep_write_csv(const struct sweep_spec *s, const double *res, const char *path, vt_err *e);
int sweep_write_json(const struct sweep_spec *s, const double *res, const char *path, vt_err *e);
/* Per pattern a chart of mean total time over the sizes, one series per fabric x fault x routing.
 */
int sweep_plot(const struct sweep_spec *s, const double *res, const char *dir, const char *fmt,
	       vt_err *e);

#endif
