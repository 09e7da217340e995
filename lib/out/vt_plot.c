/* SPDX-License-Identifier: MIT */
#include "out/vt_plot.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/vt_io.h"

#define FONT "sans-serif"

/* ---- colours */

void vt_plot_series_color(uint32_t i, double rgb[3])
{
	/* distinguishable on white and in print (the usual ten-colour palette) */
	static const uint32_t pal[] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
				       0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf};
	uint32_t c = pal[i % (sizeof(pal) / sizeof(pal[0]))];

	rgb[0] = (double)(c >> 16) / 255.0;
	rgb[1] = (double)((c >> 8) & 0xff) / 255.0;
	rgb[2] = (double)(c & 0xff) / 255.0;
}

void vt_plot_heat_color(double t, double rgb[3])
{
	/* five stops of a perceptually even dark-to-bright map, so load reads as brightness */
	static const double stop[5][3] = {{0.267, 0.005, 0.329},
					  {0.229, 0.322, 0.546},
					  {0.128, 0.567, 0.551},
					  {0.369, 0.789, 0.383},
					  {0.993, 0.906, 0.144}};
	double x;
	int k;

	if (!(t > 0))
		t = 0;
	if (t > 1)
		t = 1;
	x = t * 4;
	k = x >= 4 ? 3 : (int)x;
	x -= k;
	for (int c = 0; c < 3; c++)
		rgb[c] = stop[k][c] + (stop[k + 1][c] - stop[k][c]) * x;
}

/* ---- output */

static cairo_status_t write_fp(void *closure, const unsigned char *data, unsigned int len)
{
	return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS
						    : CAIRO_STATUS_WRITE_ERROR;
}

enum plot_format { PLOT_PNG, PLOT_SVG, PLOT_PDF };

static int plot_format(const char *path, enum plot_format *fmt, vt_err *e)
{
	const char *dot = strrchr(path, '.');

	if (dot && !strcasecmp(dot, ".png"))
		*fmt = PLOT_PNG;
	else if (dot && !strcasecmp(dot, ".svg"))
		*fmt = PLOT_SVG;
	else if (dot && !strcasecmp(dot, ".pdf"))
		*fmt = PLOT_PDF;
	else
		return vt_err_set(e, "%s: plot file name must end in .png, .svg or .pdf", path);
	return 0;
}

static cairo_surface_t *make_surface(enum plot_format fmt, FILE *fp, int w, int h,
				     const char *title)
{
	cairo_surface_t *s;

	if (fmt == PLOT_SVG)
		return cairo_svg_surface_create_for_stream(write_fp, fp, w, h);
	if (fmt == PLOT_PNG)
		return cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	s = cairo_pdf_surface_create_for_stream(write_fp, fp, w, h);
	/* a fixed date keeps the same input's PDF byte-identical from run to run */
	cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATE_DATE, "2000-01-01T00:00:00Z");
	cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR, "vartree");
	if (title) /* as text a reader can search, where the drawn title is glyphs */
		cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_TITLE, title);
	return s;
}

typedef void (*draw_fn)(cairo_t *cr, const void *arg, double w, double h);

static int render(const char *path, int w, int h, draw_fn draw, const void *arg, const char *title,
		  vt_err *e)
{
	enum plot_format fmt;
	cairo_surface_t *s;
	cairo_status_t st;
	cairo_t *cr;
	vt_out o;

	if (plot_format(path, &fmt, e) || vt_out_open(&o, path, e))
		return -1;
	s = make_surface(fmt, o.fp, w, h, title);
	cr = cairo_create(s);
	draw(cr, arg, w, h);
	st = cairo_status(cr);
	cairo_destroy(cr);
	if (st == CAIRO_STATUS_SUCCESS && fmt == PLOT_PNG)
		st = cairo_surface_write_to_png_stream(s, write_fp, o.fp);
	cairo_surface_finish(s);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(s);
	cairo_surface_destroy(s);
	if (st != CAIRO_STATUS_SUCCESS) {
		vt_out_abort(&o);
		return vt_err_set(e, "%s: cairo: %s", path, cairo_status_to_string(st));
	}
	return vt_out_commit(&o, e);
}

/* ---- drawing helpers */

static void set_rgb(cairo_t *cr, const double rgb[3])
{
	cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
}

/* Text anchored at (x, y): ax 0 left, 0.5 centre, 1 right; ay likewise top to bottom. */
static void text(cairo_t *cr, double x, double y, double ax, double ay, const char *s)
{
	cairo_text_extents_t te;

	cairo_text_extents(cr, s, &te);
	cairo_move_to(cr, x - te.x_advance * ax, y - te.y_bearing - te.height * ay);
	cairo_show_text(cr, s);
}

static void font(cairo_t *cr, double size, int bold)
{
	cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
			       bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
}

/* A round step (1, 2 or 5 times a power of ten) giving about n ticks over [0, range]. */
static double nice_step(double range, double n)
{
	double raw = range / n, mag = pow(10, floor(log10(raw))), r = raw / mag;

	return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

static void fmt_num(char *buf, size_t n, double v)
{
	if (fabs(v - round(v)) < 1e-9)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%g", v);
}

static void background(cairo_t *cr, double w, double h)
{
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_rectangle(cr, 0, 0, w, h);
	cairo_fill(cr);
}

/* ---- line / step chart */

#define L_LEFT	 80.0
#define L_RIGHT	 30.0
#define L_TOP	 50.0
#define L_BOTTOM 60.0

/* Plot area and scales of a line chart. */
struct lframe {
	double pw, ph;	    /* plot area size */
	double xspan, ymax; /* data range drawn across the plot area */
	double xstep, ystep;
};

static double lx(const struct lframe *f, double v)
{
	return L_LEFT + v / f->xspan * f->pw;
}

static double ly(const struct lframe *f, double v)
{
	return L_TOP + f->ph - v / f->ymax * f->ph;
}

static void lines_frame(const struct vt_plot_lines *p, double w, double h, struct lframe *f)
{
	double ymax = 0;

	f->pw = w - L_LEFT - L_RIGHT;
	f->ph = h - L_TOP - L_BOTTOM;
	f->xspan = p->step ? p->npoints : (p->npoints > 1 ? p->npoints - 1 : 1);
	for (uint32_t s = 0; s < p->nseries; s++)
		for (uint32_t i = 0; i < p->npoints; i++)
			ymax = fmax(ymax, p->series[s].y[i]);
	f->ystep = nice_step(ymax > 0 ? ymax : 1, 5);
	/* a step of headroom: a line at the maximum must not run along the frame */
	f->ymax = (floor((ymax > 0 ? ymax : 1) / f->ystep + 1e-9) + 1) * f->ystep;
	f->xstep = fmax(1, round(nice_step(f->xspan, 8)));
}

/* Grid, ticks, axes, axis labels and title. */
static void lines_axes(cairo_t *cr, const struct vt_plot_lines *p, const struct lframe *f, double w,
		       double h)
{
	char buf[64];

	/* grid and y ticks */
	font(cr, 12, 0);
	cairo_set_line_width(cr, 1);
	for (double v = 0; v <= f->ymax + f->ystep / 2; v += f->ystep) {
		cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
		cairo_move_to(cr, L_LEFT, round(ly(f, v)) + 0.5);
		cairo_line_to(cr, L_LEFT + f->pw, round(ly(f, v)) + 0.5);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		fmt_num(buf, sizeof(buf), v);
		text(cr, L_LEFT - 6, ly(f, v), 1, 0.5, buf);
	}
	for (double v = 0; v <= f->xspan + 1e-9; v += f->xstep) {
		fmt_num(buf, sizeof(buf), v);
		text(cr, lx(f, v), L_TOP + f->ph + 6, 0.5, 0, buf);
	}
	/* axes */
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_move_to(cr, L_LEFT + 0.5, L_TOP);
	cairo_line_to(cr, L_LEFT + 0.5, L_TOP + f->ph + 0.5);
	cairo_line_to(cr, L_LEFT + f->pw, L_TOP + f->ph + 0.5);
	cairo_stroke(cr);
	font(cr, 13, 0);
	if (p->xlabel)
		text(cr, L_LEFT + f->pw / 2, h - 22, 0.5, 0, p->xlabel);
	if (p->ylabel) {
		cairo_save(cr);
		cairo_translate(cr, 18, L_TOP + f->ph / 2);
		cairo_rotate(cr, -M_PI / 2);
		text(cr, 0, 0, 0.5, 0.5, p->ylabel);
		cairo_restore(cr);
	}
	font(cr, 16, 1);
	if (p->title)
		text(cr, w / 2, 16, 0.5, 0, p->title);
}

/*
 * Series equal at every point would hide each other: the first of a group of
 * equal series is drawn solid, member r of g as dashes filling the r-th of g
 * equal parts of a period, so each shows somewhere along the line.
 */
struct dup {
	uint32_t first; /* the first series equal to this one (itself when none before) */
	uint32_t rank;	/* position among the series equal to it, 0 for the first */
	uint32_t size;	/* how many series are equal to it, itself included */
};

static int same_y(const struct vt_plot_lines *p, uint32_t a, uint32_t b)
{
	return !memcmp(p->series[a].y, p->series[b].y, p->npoints * sizeof(double));
}

static struct dup dup_of(const struct vt_plot_lines *p, uint32_t s)
{
	struct dup d = {s, 0, 0};

	for (uint32_t j = 0; j < p->nseries; j++) {
		if (!same_y(p, j, s))
			continue;
		if (d.size == 0)
			d.first = j;
		if (j < s)
			d.rank++;
		d.size++;
	}
	return d;
}

static void dash_for(cairo_t *cr, const struct vt_plot_lines *p, uint32_t s)
{
	struct dup d = dup_of(p, s);
	double on = 10, off = 10.0 * (d.size - 1);

	if (d.rank == 0)
		cairo_set_dash(cr, NULL, 0, 0);
	else
		cairo_set_dash(cr, (const double[]){on, off}, 2, -on * d.rank);
}

static void lines_series(cairo_t *cr, const struct vt_plot_lines *p, const struct lframe *f)
{
	cairo_set_line_width(cr, 2.5);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	for (uint32_t s = 0; s < p->nseries; s++) {
		const double *y = p->series[s].y;
		double rgb[3];

		vt_plot_series_color(s, rgb);
		set_rgb(cr, rgb);
		dash_for(cr, p, s);
		for (uint32_t i = 0; i < p->npoints; i++) {
			if (i == 0)
				cairo_move_to(cr, lx(f, 0), ly(f, y[0]));
			else if (p->step)
				cairo_line_to(cr, lx(f, i), ly(f, y[i - 1]));
			if (i > 0 || p->step)
				cairo_line_to(cr, lx(f, i), ly(f, y[i]));
			if (p->step)
				cairo_line_to(cr, lx(f, i + 1.0), ly(f, y[i]));
		}
		cairo_stroke(cr);
	}
	cairo_set_dash(cr, NULL, 0, 0);
}

/* A series' legend text: its name, and which earlier series it equals ("b (= a)"). */
static void legend_name(const struct vt_plot_lines *p, uint32_t s, char *buf, size_t n)
{
	struct dup d = dup_of(p, s);
	const char *name = p->series[s].name ? p->series[s].name : "";

	if (d.rank)
		snprintf(buf, n, "%s (= %s)", name,
			 p->series[d.first].name ? p->series[d.first].name : "");
	else
		snprintf(buf, n, "%s", name);
}

/* Legend, top right inside the plot. */
static void lines_legend(cairo_t *cr, const struct vt_plot_lines *p, const struct lframe *f)
{
	double lw = 0, x0, y0 = L_TOP + 10;
	cairo_text_extents_t te;
	char name[400];

	for (uint32_t s = 0; s < p->nseries; s++) {
		legend_name(p, s, name, sizeof(name));
		cairo_text_extents(cr, name, &te);
		lw = fmax(lw, te.x_advance);
	}
	x0 = L_LEFT + f->pw - lw - 48;
	cairo_set_source_rgba(cr, 1, 1, 1, 0.9);
	cairo_rectangle(cr, x0 - 8, y0 - 6, lw + 48, 18.0 * p->nseries + 10);
	cairo_fill_preserve(cr);
	cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
	cairo_set_line_width(cr, 1);
	cairo_stroke(cr);
	for (uint32_t s = 0; s < p->nseries; s++) {
		double rgb[3], yy = y0 + 18.0 * s + 6;

		vt_plot_series_color(s, rgb);
		set_rgb(cr, rgb);
		cairo_set_line_width(cr, 2.5);
		/* a dashed series gets a short dash in the legend, so it reads as dashed */
		cairo_set_dash(cr, (const double[]){dup_of(p, s).rank ? 5 : 24, 3}, 2, 0);
		cairo_move_to(cr, x0, yy);
		cairo_line_to(cr, x0 + 24, yy);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
		cairo_set_source_rgb(cr, 0, 0, 0);
		legend_name(p, s, name, sizeof(name));
		text(cr, x0 + 30, yy, 0, 0.5, name);
	}
}

static void draw_lines(cairo_t *cr, const void *arg, double w, double h)
{
	const struct vt_plot_lines *p = arg;
	struct lframe f;

	lines_frame(p, w, h, &f);
	background(cr, w, h);
	lines_axes(cr, p, &f, w, h);
	lines_series(cr, p, &f);
	font(cr, 12, 0);
	if (p->nseries)
		lines_legend(cr, p, &f);
}

static int check_values(const double *v, uint32_t n, const char *what, const char *name, vt_err *e)
{
	for (uint32_t i = 0; i < n; i++)
		if (!isfinite(v[i]) || v[i] < 0)
			return vt_err_set(e, "%s '%s': value %u is not a finite number >= 0", what,
					  name ? name : "", i);
	return 0;
}

int vt_plot_lines(const struct vt_plot_lines *p, const char *path, vt_err *e)
{
	enum plot_format fmt;

	if (plot_format(path, &fmt, e))
		return -1;
	if (!p->npoints)
		return vt_err_set(e, "%s: nothing to plot (no points)", path);
	for (uint32_t s = 0; s < p->nseries; s++)
		if (check_values(p->series[s].y, p->npoints, "series", p->series[s].name, e))
			return -1;
	return render(path, 900, 540, draw_lines, p, p->title, e);
}

/* ---- heat map */

#define H_LEFT	 110.0
#define H_RIGHT	 120.0
#define H_TOP	 50.0
#define H_BOTTOM 30.0
#define H_ROW	 44.0
#define H_GAP	 8.0

static double heat_vmax(const struct vt_plot_heat *h)
{
	double m = 0;

	if (h->vmax > 0)
		return h->vmax;
	for (uint32_t r = 0; r < h->nrows; r++)
		for (uint32_t i = 0; i < h->rows[r].n; i++)
			m = fmax(m, h->rows[r].v[i]);
	return m > 0 ? m : 1;
}

/*
 * One strip of cells. Where the row has more cells than the strip has pixel
 * columns (thousands of links), each column shows the largest value of the
 * cells falling into it, so a hot link is never painted over by a cold one.
 */
static int draw_heat_row(cairo_t *cr, const struct vt_plot_heat_row *row, double y, double pw,
			 double vmax)
{
	uint32_t cols = row->n < (uint32_t)pw ? row->n : (uint32_t)pw;
	double rgb[3];
	char buf[64];

	for (uint32_t c = 0; c < cols; c++) {
		/* cells [first, last) of column c */
		uint32_t first = (uint32_t)((uint64_t)c * row->n / cols);
		uint32_t last = (uint32_t)((uint64_t)(c + 1) * row->n / cols);
		double v = 0, x0 = round(H_LEFT + c * pw / cols),
		       x1 = round(H_LEFT + (c + 1) * pw / cols);

		for (uint32_t i = first; i < last; i++)
			v = fmax(v, row->v[i]);
		vt_plot_heat_color(v / vmax, rgb);
		set_rgb(cr, rgb);
		/* whole pixels, so neighbouring cells do not blend into a third colour */
		cairo_rectangle(cr, x0, y, x1 - x0, H_ROW);
		cairo_fill(cr);
	}
	cairo_set_source_rgb(cr, 0, 0, 0);
	font(cr, 13, 0);
	text(cr, H_LEFT - 8, y + H_ROW / 2 - 7, 1, 0.5, row->label ? row->label : "");
	font(cr, 10, 0);
	snprintf(buf, sizeof(buf), "%u links%s", row->n, cols < row->n ? "*" : "");
	text(cr, H_LEFT - 8, y + H_ROW / 2 + 8, 1, 0.5, buf);
	return cols < row->n;
}

static void draw_heat(cairo_t *cr, const void *arg, double w, double hgt)
{
	const struct vt_plot_heat *h = arg;
	double pw = w - H_LEFT - H_RIGHT, vmax = heat_vmax(h), rgb[3], step;
	double bx = w - H_RIGHT + 30, by = H_TOP, bh = hgt - H_TOP - H_BOTTOM, bw = 20;
	char buf[64];

	background(cr, w, hgt);
	font(cr, 16, 1);
	cairo_set_source_rgb(cr, 0, 0, 0);
	if (h->title)
		text(cr, w / 2, 16, 0.5, 0, h->title);
	int binned = 0;

	for (uint32_t r = 0; r < h->nrows; r++)
		binned |= draw_heat_row(cr, &h->rows[r], H_TOP + r * (H_ROW + H_GAP), pw, vmax);
	if (binned) {
		font(cr, 10, 0);
		cairo_set_source_rgb(cr, 0, 0, 0);
		text(cr, H_LEFT, hgt - H_BOTTOM + 8, 0, 0,
		     "* more links than pixel columns: each column shows the largest of its links");
	}
	/* colour bar: vmax at the top */
	for (int i = 0; i < (int)bh; i++) {
		vt_plot_heat_color(1.0 - (i + 0.5) / bh, rgb);
		set_rgb(cr, rgb);
		cairo_rectangle(cr, bx, by + i, bw, 1);
		cairo_fill(cr);
	}
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 1);
	cairo_rectangle(cr, bx - 0.5, by - 0.5, bw + 1, bh + 1);
	cairo_stroke(cr);
	font(cr, 11, 0);
	step = nice_step(vmax, 4);
	for (double v = 0; v <= vmax * (1 + 1e-9); v += step) {
		double y = by + bh - v / vmax * bh;

		cairo_move_to(cr, bx + bw, round(y) + 0.5);
		cairo_line_to(cr, bx + bw + 4, round(y) + 0.5);
		cairo_stroke(cr);
		fmt_num(buf, sizeof(buf), v);
		text(cr, bx + bw + 6, y, 0, 0.5, buf);
	}
	if (h->unit) {
		cairo_save(cr);
		cairo_translate(cr, bx - 10, by + bh / 2);
		cairo_rotate(cr, -M_PI / 2);
		text(cr, 0, 0, 0.5, 0.5, h->unit);
		cairo_restore(cr);
	}
}

int vt_plot_heatmap(const struct vt_plot_heat *h, const char *path, vt_err *e)
{
	int height = (int)(H_TOP + H_BOTTOM + h->nrows * (H_ROW + H_GAP));
	enum plot_format fmt;

	if (plot_format(path, &fmt, e))
		return -1;
	if (!h->nrows)
		return vt_err_set(e, "%s: nothing to plot (no rows)", path);
	for (uint32_t r = 0; r < h->nrows; r++)
		if (check_values(h->rows[r].v, h->rows[r].n, "row", h->rows[r].label, e))
			return -1;
	return render(path, 1000, height < 200 ? 200 : height, draw_heat, h, h->title, e);
}
