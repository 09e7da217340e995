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
/* The figures vt_congest_run gives for pattern "shift" over r as counted last. */
void vt_shift_count_figures(const vt_shift_count *c, uint32_t *worst, double *avg);
void vt_shift_count_free(vt_shift_count *c);

#endif
