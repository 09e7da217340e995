/* SPDX-License-Identifier: MIT */
#include "out/vt_heat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void level_name(char *buf, size_t n, uint32_t d)
{
	if (d)
		snprintf(buf, n, "L%u", d - 1);
	else
		snprintf(buf, n, "hosts");
}

/* Row k of 3 per distance: 0 up (d -> d+1), 1 down (d+1 -> d), 2 within d. */
static uint32_t row_of(uint32_t da, uint32_t db)
{
	if (db == da + 1)
		return 3 * da;
	if (da == db + 1)
		return 3 * db + 1;
	return da == db ? 3 * da + 2 : UINT32_MAX; /* no other kind in a BFS layering */
}

static void row_label(char *buf, size_t n, uint32_t row)
{
	char a[12], b[12];
	uint32_t d = row / 3;

	level_name(a, sizeof(a), d);
	level_name(b, sizeof(b), d + 1);
	if (row % 3 == 0)
		snprintf(buf, n, "%s->%s", a, b);
	else if (row % 3 == 1)
		snprintf(buf, n, "%s->%s", b, a);
	else
		snprintf(buf, n, "%s-%s", a, a);
}

/* Which row each port's channel belongs to (UINT32_MAX: none); returns the row count. */
static uint32_t assign_rows(const vt_fabric *f, const uint32_t *dist, uint32_t *row_of_port)
{
	uint32_t nrows = 0;

	for (uint32_t p = 0; p < f->nports; p++) {
		const struct vt_port *pt = &f->ports[p];
		uint32_t a, b;

		row_of_port[p] = UINT32_MAX;
		if (pt->peer == VT_NONE || pt->num == 0)
			continue;
		a = dist[pt->node];
		b = dist[f->ports[pt->peer].node];
		if (a == UINT32_MAX || b == UINT32_MAX)
			continue;
		row_of_port[p] = row_of(a, b);
		if (row_of_port[p] != UINT32_MAX && row_of_port[p] + 1 > nrows)
			nrows = row_of_port[p] + 1;
	}
	return nrows;
}

static int fill(vt_heat *h, const vt_fabric *f, const uint32_t *row_of_port, uint32_t nrows,
		const double *out_value)
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
		row_label(h->labels[used], sizeof(h->labels[used]), r);
		h->rows[used] =
			(struct vt_plot_heat_row){h->labels[used], h->v + start, off - start};
		used++;
	}
	h->plot.rows = h->rows;
	h->plot.nrows = used;
	return 0;
}

int vt_heat_build(vt_heat *h, const vt_fabric *f, const double *out_value, vt_err *e)
{
	uint32_t *dist = vt_fabric_ca_distance(f);
	uint32_t *rows = malloc((f->nports ? f->nports : 1) * sizeof(*rows));
	int rc = -1;

	memset(h, 0, sizeof(*h));
	if (dist && rows)
		rc = fill(h, f, rows, assign_rows(f, dist, rows), out_value);
	free(dist);
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
