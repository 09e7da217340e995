/* SPDX-License-Identifier: MIT */
/*
 * Charts for the analyzer, drawn with cairo: PNG, SVG or PDF chosen by the
 * file name's extension (".png", ".svg", ".pdf", any case). Plain arrays in, a file out;
 * nothing here knows the analyzer's types. Files are written whole or not at
 * all (vt_out). Output is deterministic for the same input.
 */
#ifndef VT_PLOT_H
#define VT_PLOT_H

#include <stdint.h>

#include "base/vt_err.h"

/* One curve of a line chart: y[0 .. npoints-1], e.g. one routing's max link load per stage. */
struct vt_plot_series {
	const char *name; /* legend label */
	const double *y;
};

struct vt_plot_lines {
	const char *title;
	const char *xlabel; /* e.g. "stage" */
	const char *ylabel; /* e.g. "max link load" */
	uint32_t npoints;   /* x runs 0 .. npoints-1 */
	const struct vt_plot_series *series;
	uint32_t nseries;
	int step; /* nonzero: step chart (value holds over [x, x+1)), else straight segments */
};

/* Line or step chart, one colour per series, legend, axes from 0, title. */
int vt_plot_lines(const struct vt_plot_lines *p, const char *path, vt_err *e);

/* One row of a heat map: the loads of one tree level's links, left to right. */
struct vt_plot_heat_row {
	const char *label; /* e.g. "L1 up" */
	const double *v;
	uint32_t n;
};

struct vt_plot_heat {
	const char *title;
	const char *unit; /* colour bar label, e.g. "link load" */
	const struct vt_plot_heat_row *rows;
	uint32_t nrows;
	double vmax; /* value of the top colour; <= 0: the largest value given */
};

/* Heat map, one strip per row (cells share the strip's width; where a row has more cells
 * than pixel columns, a column shows the largest of its cells), colour bar from 0 to vmax. */
int vt_plot_heatmap(const struct vt_plot_heat *h, const char *path, vt_err *e);

/* Colour of series i (a fixed palette, repeating), components 0..1. */
void vt_plot_series_color(uint32_t i, double rgb[3]);
/* Heat-map colour of t in [0, 1] (clamped): dark blue through green to yellow. */
void vt_plot_heat_color(double t, double rgb[3]);

#endif
