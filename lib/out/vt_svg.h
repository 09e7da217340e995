/* SPDX-License-Identifier: MIT */
/*
 * A drawing of the extracted tree as one self-contained SVG file, where a hot
 * link can be found: the tree's levels as rows (top level at the top, the
 * CAs at the bottom, levels as vt_heat_levels gives them), switches as boxes
 * in tree order, every switch's CAs as one box below it, and the links
 * coloured by load (vt_plot_heat_color, 0 .. vmax, with a colour bar).
 *
 * Readable on thousands of links: the cables between the same two boxes (a
 * port group, or a leaf's host links) are drawn as one line whose width grows
 * with their count and whose load is their hottest channel's; with hot > 0
 * only the hot hottest lines are drawn. Lines are drawn coldest first, so hot
 * ones lie on top. The viewBox lets a browser zoom.
 *
 * Every line's tooltip (<title>) names its hottest channel's two ports by
 * description, port number, GUID and LID, with that channel's load and the
 * load back; a box's names its node(s). Node descriptions are escaped for XML,
 * bytes that are not UTF-8 become U+FFFD. The same input gives the same bytes;
 * the file is written whole or not at all (vt_out).
 */
#ifndef VT_SVG_H
#define VT_SVG_H

#include <stdint.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "tree/vt_tree.h"

struct vt_svg_opts {
	const char *title; /* top line, e.g. "shift under vartree: ..." */
	const char *unit;  /* colour bar label, e.g. "max link load (flows)" */
	uint32_t hot;	   /* > 0: only the hot hottest lines */
	double vmax;	   /* value of the top colour; <= 0: the largest value */
};

/* What vt_svg_tree drew, for callers' messages and tests. */
struct vt_svg_stats {
	uint32_t boxes;	 /* switch boxes and CA boxes */
	uint32_t lines;	 /* lines drawn */
	uint32_t groups; /* lines there are (aggregated), before the hot filter */
	uint32_t cables; /* cables they aggregate */
};

/*
 * out_value[p]: the value of the channel leaving port p towards its peer, finite
 * and >= 0 (a bad one is refused, nothing written). t: the tree extracted from f,
 * or NULL (levels by hops from the CAs, switches in fabric order). st may be NULL.
 */
int vt_svg_tree(const vt_fabric *f, const vt_tree *t, const double *out_value,
		const struct vt_svg_opts *o, const char *path, struct vt_svg_stats *st, vt_err *e);

#endif
