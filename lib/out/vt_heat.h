/* SPDX-License-Identifier: MIT */
/*
 * Per-link values of a fabric grouped into heat-map rows (vt_plot_heatmap) by
 * the levels each link joins, so analyzer and simulator label their maps the
 * same way. Levels are the extracted tree's (vt_tree_build): switch level l is
 * "L<l>" (leaves L0, as vartree-gen names them) and every CA is "hosts", so a
 * spine carrying storage CAs stays a spine ("hosts->L2"). Without a tree (a
 * fabric vt_tree_build refuses) a node's level is its hop distance from the
 * nearest CA instead, switches at distance d "L<d-1>". Rows, bottom up, for
 * each level a: "a->b" and "b->a" for b = a+1, "a-a" within a, then the links
 * to levels b > a+1 (both ways); e.g. "hosts->L0", "L0->hosts", "L0->L1",
 * "L1->L0", ..., "L1-L1". Within a row, links keep the fabric's port order, so
 * the same input gives the same picture.
 */
#ifndef VT_HEAT_H
#define VT_HEAT_H

#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "out/vt_plot.h"
#include "tree/vt_tree.h"

typedef struct vt_heat {
	struct vt_plot_heat plot; /* rows point into the storage below */
	struct vt_plot_heat_row *rows;
	char (*labels)[32];
	double *v;
} vt_heat;

/*
 * out_value[p]: the value of the channel leaving port p (ports[] index) towards
 * its peer; ports without a peer are skipped, as are switches outside the tree.
 * t: the tree extracted from f, or NULL. Rows without links are left out.
 */
int vt_heat_build(vt_heat *h, const vt_fabric *f, const vt_tree *t, const double *out_value,
		  vt_err *e);
/*
 * Row levels of every node (hosts 0, tree level l as l + 1; UINT32_MAX outside
 * the tree), from t or, when t is NULL, from hop distances; NULL when out of memory.
 */
uint32_t *vt_heat_levels(const vt_fabric *f, const vt_tree *t);
/* "hosts" for level 0, else "L<level-1>". */
void vt_heat_level_name(char *buf, size_t n, uint32_t level);
void vt_heat_free(vt_heat *h);

#endif
