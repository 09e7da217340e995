/* SPDX-License-Identifier: MIT */
/*
 * Private to vartree-analyze: its options, the routings under analysis, and
 * what analyze_out.c writes of them (the table, JSON, charts, the tree picture).
 */
#ifndef ANALYZE_H
#define ANALYZE_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "analysis/vt_audit.h"
#include "analysis/vt_bound.h"
#include "analysis/vt_congest.h"
#include "analysis/vt_routes.h"
#include "cli/vt_cli.h"
#include "model/vt_fabric.h"
#include "model/vt_lft.h"
#include "model/vt_order.h"
#include "model/vt_pattern.h"
#include "tree/vt_tree.h"

#define PROG	     "vartree-analyze"
#define MAX_PATTERNS 64
#define MAX_THRESH   64

struct opts {
	const char *topo, *lfts, *route, *order, *plot, *plot_ext, *cmp[2], *name_map, *svg;
	const char *label[2]; /* --label: names of the routings, in order */
	unsigned nlabel;
	int live, json, quiet, have_seed, all_sources, vl_split, timing;
	int shortest_detours;	  /* --shortest-detours: vt_route_opts' */
	unsigned vls;		  /* --vls: data VLs of the fabric, 0 not given */
	struct vt_cli_live local; /* --live: -C CA -P PORT */
	uint64_t order_seed;
	const char *patterns[MAX_PATTERNS];
	unsigned npatterns;
	const char *th_name[MAX_THRESH];
	uint32_t th_val[MAX_THRESH];
	unsigned nth;
	unsigned top, threads, hot;
	int lmc; /* --lmc, -1: the fabric file's, else the one the tables show */
	uint32_t stage_limit;
	enum vt_congest_method method;
	struct timespec t0; /* start of the run, for progress notes */
};

/* One routing under analysis: its tables, order and results per pattern. */
struct routing {
	const char *name;
	vt_lfts lfts;
	vt_order order;
	vt_routes routes;
	vt_cuts cuts;
	vt_audit audit;
	vt_vl_split vl; /* routes on VL 1 (--all-sources: vartree's own, or --vl-split) */
	vt_pattern pat[MAX_PATTERNS];
	vt_congest res[MAX_PATTERNS];
	double secs[MAX_PATTERNS]; /* counting time per pattern */
	unsigned npat;
};

/* The text table of every pattern and routing, the audits and histograms (stdout). */
void analyze_print_table(FILE *fp, const struct opts *o, const vt_fabric *f, struct routing *rs,
			 unsigned nr);
/* The same as one JSON document (--json). */
int analyze_print_json(FILE *fp, const struct opts *o, const vt_fabric *f, struct routing *rs,
		       unsigned nr, vt_err *e);
/* --plot: per-stage charts and link heat maps, one file each, in o->plot. */
int analyze_plot_all(const struct opts *o, const vt_fabric *f, const vt_tree *tree,
		     struct routing *rs, unsigned nr, vt_err *e);
/* --svg: the extracted tree with link loads of the first pattern, written whole. */
int analyze_draw_svg(const struct opts *o, const vt_fabric *f, const vt_tree *tree,
		     const struct routing *r, vt_err *e);

#endif
