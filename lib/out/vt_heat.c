/* SPDX-License-Identifier: MIT */
#include "out/vt_heat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vt_heat_level_name(char *buf, size_t n, uint32_t d)
{
	if (d)
		snprintf(buf, n, "L%u", d - 1);
	else
		snprintf(buf, n, "hosts");
}

/*
 * Slots per lower level a: 0 up to a+1, 1 down from a+1, 2 within a, then
 * 3 + 2 (b - a - 2) + {0 up, 1 down} for b > a+1. Rows are a * nslots + slot.
 */
static uint32_t row_of(uint32_t da, uint32_t db, uint32_t nslots)
{
	uint32_t lo = da < db ? da : db, hi = da < db ? db : da, down = da > db;

	if (lo == hi)
		return lo * nslots + 2;
	if (hi == lo + 1)
		return lo * nslots + down;
	return lo * nslots + 3 + 2 * (hi - lo - 2) + down;
}

static void row_label(char *buf, size_t n, uint32_t row, uint32_t nslots)
{
	char a[12], b[12];
	uint32_t lo = row / nslots, slot = row % nslots;
	uint32_t hi = slot < 3 ? lo + 1 : lo + 2 + (slot - 3) / 2;
	int down = slot < 3 ? slot == 1 : (slot - 3) % 2;

	vt_heat_level_name(a, sizeof(a), lo);
	vt_heat_level_name(b, sizeof(b), hi);
	if (slot == 2)
		snprintf(buf, n, "%s-%s", a, a);
	else if (down)
		snprintf(buf, n, "%s->%s", b, a);
	else
		snprintf(buf, n, "%s->%s", a, b);
}

uint32_t *vt_heat_levels(const vt_fabric *f, const vt_tree *t)
{
	uint32_t *lv;

	if (!t) {
		lv = vt_fabric_ca_distance(f);
		return lv;
	}
	lv = malloc((f->nnodes ? f->nnodes : 1) * sizeof(*lv));
	if (!lv)
		return NULL;
	for (uint32_t n = 0; n < f->nnodes; n++) {
		uint32_t sw = f->nodes[n].sw;

		if (f->nodes[n].type != VT_SWITCH)
			lv[n] = 0;
		else
			lv[n] = sw == VT_NONE || t->level[sw] == VT_TREE_OUTSIDE
					? UINT32_MAX
					: t->level[sw] + 1u;
	}
	return lv;
}

/* Which row each port's channel belongs to (UINT32_MAX: none); returns the row count. */
static uint32_t assign_rows(const vt_fabric *f, const uint32_t *lv, uint32_t nslots,
			    uint32_t *row_of_port)
{
	uint32_t nrows = 0;

	for (uint32_t p = 0; p < f->nports; p++) {
		const struct vt_port *pt = &f->ports[p];
		uint32_t a, b;

		row_of_port[p] = UINT32_MAX;
		if (pt->peer == VT_NONE || pt->num == 0)
			continue;
		a = lv[pt->node];
		b = lv[f->ports[pt->peer].node];
		if (a == UINT32_MAX || b == UINT32_MAX)
			continue; /* outside the tree */
		row_of_port[p] = row_of(a, b, nslots);
		if (row_of_port[p] + 1 > nrows)
			nrows = row_of_port[p] + 1;
	}
	return nrows;
}

static int fill(vt_heat *h, const vt_fabric *f, const uint32_t *row_of_port, uint32_t nrows,
		uint32_t nslots, const double *out_value)
{
	uint32_t off = 0, used = 0;

	h->rows = calloc(nrows ? nrows : 1, sizeof(*h->rows));
	h->labels = calloc(nrows ? nrows : 1, sizeof(*h->labels));
	h->v = malloc((f->nports ? f->nports : 1) * sizeof(*h->v));
	if (!h->rows || !h->labels || !h->v)
		return -1;
	for (uint32_t r = 0; r < nrows; r++) {
		uint32_t start = off;

		for (uint32_t p = 0; p < f->nports; p++)
			if (row_of_port[p] == r)
				h->v[off++] = out_value[p];
		if (off == start)
			continue;
		row_label(h->labels[used], sizeof(h->labels[used]), r, nslots);
		h->rows[used] =
			(struct vt_plot_heat_row){h->labels[used], h->v + start, off - start};
		used++;
	}
	h->plot.rows = h->rows;
	h->plot.nrows = used;
	return 0;
}

int vt_heat_build(vt_heat *h, const vt_fabric *f, const vt_tree *t, const double *out_value,
		  vt_err *e)
{
	uint32_t *lv = vt_heat_levels(f, t);
	uint32_t *rows = malloc((f->nports ? f->nports : 1) * sizeof(*rows));
	uint32_t maxlv = 0;
	int rc = -1;

	memset(h, 0, sizeof(*h));
	if (lv && rows) {
		for (uint32_t n = 0; n < f->nnodes; n++)
			if (lv[n] != UINT32_MAX && lv[n] > maxlv)
				maxlv = lv[n];
		/* 3 slots for the neighbour level and within, 2 per level further up */
		uint32_t nslots = 3 + 2 * (maxlv > 1 ? maxlv - 1 : 0);

		rc = fill(h, f, rows, assign_rows(f, lv, nslots, rows), nslots, out_value);
	}
	free(lv);
	free(rows);
	if (rc) {
		vt_heat_free(h);
		return vt_err_nomem(e, "out of memory");
	}
	return 0;
}

void vt_heat_free(vt_heat *h)
{
	free(h->rows);
	free(h->labels);
	free(h->v);
	memset(h, 0, sizeof(*h));
}
