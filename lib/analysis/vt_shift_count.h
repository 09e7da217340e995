/* SPDX-License-Identifier: MIT */
/*
 * The shift pattern's worst and average stage maximum (vt_congest.h's worst
 * and avg for "shift"), kept up to date as tables change a few columns at a
 * time: the repair's quality guard measures many candidates that differ from
 * the tables measured before in a few hundred columns. Per channel the load
 * over the stages is kept as runs of constant load, and per load the stages'
 * count of channels carrying it (difference arrays), so a change costs the
 * changed destinations' paths, the channels they cross and one pass over the
 * loads and stages (a few times n), not a count of the whole fabric.
 */
#ifndef VT_SHIFT_COUNT_H
#define VT_SHIFT_COUNT_H

#include <stdint.h>

#include "analysis/vt_routes.h"
#include "base/vt_err.h"
#include "model/vt_lft.h"

typedef struct vt_shift_count vt_shift_count;

/*
 * An update walks each changed column's paths twice (before and after) and
 * rebuilds every channel they touch: some six times what a whole count
 * spends on a column (pruned 36,12, a top switch down: 684 of 3888 columns
 * 40-45 ms, a whole count 20). Past n / VT_SHIFT_COUNT_WHOLE changed
 * columns vt_shift_count_update counts whole (it was n / 2).
 */
#define VT_SHIFT_COUNT_WHOLE 8

/* The count of routes model r (a whole count); NULL with e when out of memory. */
vt_shift_count *vt_shift_count_new(const vt_routes *r, vt_err *e);
/*
 * r (the model c counts) retabled for tables t (vt_routes_retable, with
 * changed: per LID, does t's column differ from from's, the tables c counted
 * last, which the paths taken away are walked in; changed or from NULL:
 * every column, counted whole) and c counted again for the ranks whose
 * columns changed. -1 with e when out of memory (c then must not be used
 * again).
 */
int vt_shift_count_update(vt_shift_count *c, vt_routes *r, const vt_lfts *from, const vt_lfts *t,
			  const uint8_t *changed, vt_err *e);
/*
 * c, counted over routes model r0, moved onto routes model r of another
 * fabric with the same ranks (a fault's: switches and ports renumbered):
 * map[ch] is old channel ch's new one (VT_NONE: lost). c then counts, over
 * r, the tables whose paths take the mapped channels; the caller sees to it
 * that those are r's tables (every path crossing a lost channel taken away
 * before, by an update). 1 (c untouched) where the ranks differ in number
 * or a lost channel carries a load; 0; -1 with e when out of memory (c
 * untouched).
 */
int vt_shift_count_remap(vt_shift_count *c, const vt_routes *r, const uint32_t *map, vt_err *e);
/* The figures vt_congest_run gives for pattern "shift" over r as counted last. */
void vt_shift_count_figures(const vt_shift_count *c, uint32_t *worst, double *avg);
void vt_shift_count_free(vt_shift_count *c);

#endif
