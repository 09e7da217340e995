/* SPDX-License-Identifier: MIT */
/*
 * Per-link values of a fabric grouped into heat-map rows (vt_plot_heatmap) by
 * the levels each link joins, so analyzer and simulator label their maps the
 * same way. A node's level is its hop distance from the nearest CA: CAs are
 * "hosts", switches at distance d are "L<d-1>" (leaves L0, as vartree-gen
 * names them). Rows, bottom up: "hosts->L0", "L0->hosts", "L0->L1",
 * "L1->L0", ..., and "L1-L1" for links within a level. Within a row, links
 * keep the fabric's port order, so the same input gives the same picture.
 */
#ifndef VT_HEAT_H
#define VT_HEAT_H

#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "out/vt_plot.h"

typedef struct vt_heat {
	struct vt_plot_heat plot; /* rows point into the storage below */
	struct vt_plot_heat_row *rows;
	char (*labels)[32];
	double *v;
} vt_heat;

/*
 * out_value[p]: the value of the channel leaving port p (ports[] index) towards
 * its peer; ports without a peer are skipped. Rows without links are left out.
 */
int vt_heat_build(vt_heat *h, const vt_fabric *f, const double *out_value, vt_err *e);
void vt_heat_free(vt_heat *h);

#endif
