/* SPDX-License-Identifier: MIT */
#include "out/vt_svg.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/vt_heat.h"
#include "base/vt_io.h"
#include "out/vt_plot.h"

/* Geometry, in SVG user units (pixels at zoom 1). */
#define PITCH 72.0 /* horizontal room per box in the fullest row */
#define BOX_W 60.0
#define BOX_H 22.0
#define ROW_H 150.0
#define LEFT  70.0
#define TOP   60.0
#define RIGHT 110.0

/* A box: one switch, or the CAs on one switch. */
struct box {
	uint32_t sw;	/* switch ordinal */
	uint32_t row;	/* vt_heat level: 0 the CAs */
	uint32_t ncas;	/* CA box: CA nodes in it; 0 for a switch box */
	uint64_t key;	/* order within the row */
	uint32_t first; /* CA box: its first CA node */
	double x, y;
};

/* One cable, the boxes it joins (lo < hi). */
struct cable {
	uint32_t lo, hi, port;
};

/* The cables between two boxes, drawn as one line. */
struct group {
	uint32_t lo, hi, count;
	uint32_t hot; /* the port whose outgoing channel is the group's hottest */
	double v;     /* that channel's value */
};

struct draw {
	const vt_fabric *f;
	const double *v;    /* per port: its outgoing channel's value */
	const uint32_t *lv; /* per node: vt_heat level, UINT32_MAX outside the tree */
	uint32_t nsw, nbox, maxrow;
	uint32_t *box_of; /* per node: its box index, UINT32_MAX for none */
	uint32_t
		*slot_of; /* per box id (switch s: s, CAs of s: nsw + s): index in boxes, or none */
	struct box *boxes;
	struct group *groups;
	uint32_t ngroups, ncables;
	double w, h, vmax;
};

/* ---- text */

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t l = s[0] < 0x80		   ? 1
		   : (s[0] & 0xE0) == 0xC0 ? 2
		   : (s[0] & 0xF0) == 0xE0 ? 3
		   : (s[0] & 0xF8) == 0xF0 ? 4
					   : 0;
	uint32_t c;

	if (!l || l > n)
		return 0;
	c = l == 1 ? s[0] : s[0] & (0x7F >> l);
	for (size_t i = 1; i < l; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3F);
	}
	/* no overlong forms, surrogates or values past U+10FFFF */
	if ((l == 2 && c < 0x80) || (l == 3 && c < 0x800) || (l == 4 && c < 0x10000) ||
	    (c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF)
		return 0;
	return l;
}

/* s escaped for XML text and attributes; at most max characters, "..." when cut. */
static void put_text(FILE *fp, const char *s, size_t max)
{
	size_t n = strlen(s), chars = 0;

	for (size_t i = 0; i < n; chars++) {
		const unsigned char c = (unsigned char)s[i];
		size_t l = utf8_len((const unsigned char *)s + i, n - i);

		if (chars == max) {
			fputs("...", fp);
			return;
		}
		if (!l) {
			fputs("\xEF\xBF\xBD", fp); /* U+FFFD for a byte that is not UTF-8 */
			i++;
			continue;
		}
		if (c == '&')
			fputs("&amp;", fp);
		else if (c == '<')
			fputs("&lt;", fp);
		else if (c == '>')
			fputs("&gt;", fp);
		else if (c == '"')
			fputs("&quot;", fp);
		else if (c < 0x20) /* XML 1.0 allows no control characters */
			fputc(' ', fp);
		else
			fwrite(s + i, 1, l, fp);
		i += l;
	}
}

static uint16_t node_lid(const vt_fabric *f, uint32_t n)
{
	const struct vt_node *nd = &f->nodes[n];

	return nd->type == VT_SWITCH ? f->ports[nd->first_port].lid : 0;
}

/* "DESC port N (GUID 0x..., LID L)": a port as an administrator finds it. */
static void put_port(FILE *fp, const vt_fabric *f, uint32_t p)
{
	const struct vt_port *pt = &f->ports[p];
	uint16_t lid = f->nodes[pt->node].type == VT_SWITCH ? node_lid(f, pt->node) : pt->lid;

	put_text(fp, f->nodes[pt->node].desc, SIZE_MAX);
	fprintf(fp, " port %u (GUID 0x%016" PRIx64 ", LID %u)", pt->num, pt->guid, lid);
}

/* ---- boxes */

static int box_cmp(const void *a, const void *b)
{
	const struct box *x = a, *y = b;

	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->ncas > 0) - (y->ncas > 0);
}

/* The switch a CA node hangs off (its first cabled port's), VT_NONE for none. */
static uint32_t ca_switch(const vt_fabric *f, uint32_t n)
{
	const struct vt_node *nd = &f->nodes[n];

	for (uint32_t p = 1; p <= nd->nports; p++) {
		uint32_t m = vt_peer_node(f, nd->first_port + p);

		if (m != VT_NONE && f->nodes[m].type == VT_SWITCH)
			return f->nodes[m].sw;
	}
	return VT_NONE;
}

/* Switch boxes of the tree's switches, a CA box per switch with CAs; positions by row. */
static int place_boxes(struct draw *d, const vt_tree *t)
{
	const vt_fabric *f = d->f;
	uint32_t *count = calloc(d->maxrow + 1, sizeof(*count)), widest = 1;

	d->boxes = calloc(2 * (size_t)d->nsw + 1, sizeof(*d->boxes));
	if (!count || !d->boxes) {
		free(count);
		return -1;
	}
	for (uint32_t s = 0; s < d->nsw; s++) {
		uint32_t row = d->lv[f->switches[s]];
		uint64_t pos = t ? t->pos[s] : s;

		if (row != UINT32_MAX)
			d->boxes[d->nbox++] = (struct box){s, row, 0, pos, 0, 0, 0};
	}
	for (uint32_t n = 0; n < f->nnodes; n++) {
		uint32_t s = f->nodes[n].type == VT_SWITCH ? VT_NONE : ca_switch(f, n), row;

		if (s == VT_NONE || (row = d->lv[f->switches[s]]) == UINT32_MAX)
			continue;
		uint32_t k = d->slot_of[d->nsw + s];
		uint64_t pos = t ? t->pos[s] : s;

		if (k == UINT32_MAX) { /* the CA boxes: in the order of their switches' rows */
			k = d->slot_of[d->nsw + s] = d->nbox++;
			d->boxes[k] = (struct box){s, 0, 0, (uint64_t)row << 32 | pos, n, 0, 0};
		}
		d->boxes[k].ncas++;
	}
	qsort(d->boxes, d->nbox, sizeof(*d->boxes), box_cmp);
	for (uint32_t i = 0; i < d->nbox; i++)
		if (++count[d->boxes[i].row] > widest)
			widest = count[d->boxes[i].row];
	d->w = LEFT + RIGHT + widest * PITCH;
	d->h = TOP + d->maxrow * ROW_H + BOX_H + 40;
	for (uint32_t i = 0, at = 0; i < d->nbox; i++) {
		struct box *b = &d->boxes[i];
		uint32_t n = count[b->row];

		at = i && d->boxes[i - 1].row == b->row ? at + 1 : 0;
		b->x = round(LEFT + (at + 0.5) * widest * PITCH / n);
		b->y = TOP + (d->maxrow - b->row) * ROW_H;
		d->slot_of[b->ncas ? d->nsw + b->sw : b->sw] = i;
	}
	free(count);
	return 0;
}

/* ---- lines */

static int cable_cmp(const void *a, const void *b)
{
	const struct cable *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port;
}

/* Each cable once (from its lower port index), between two different boxes. */
static struct cable *list_cables(struct draw *d, uint32_t *n)
{
	const vt_fabric *f = d->f;
	struct cable *c = malloc((f->nports ? f->nports : 1) * sizeof(*c));

	*n = 0;
	if (!c)
		return NULL;
	for (uint32_t p = 0; p < f->nports; p++) {
		uint32_t q = f->ports[p].peer, a, b;

		if (q == VT_NONE || q < p || f->ports[p].num == 0)
			continue;
		a = d->box_of[f->ports[p].node];
		b = d->box_of[f->ports[q].node];
		if (a == UINT32_MAX || b == UINT32_MAX || a == b)
			continue; /* outside the tree, or within one box (a loop-back cable) */
		c[(*n)++] = (struct cable){a < b ? a : b, a < b ? b : a, p};
	}
	qsort(c, *n, sizeof(*c), cable_cmp);
	return c;
}

/* The cables between the same two boxes become one group: its hottest channel. */
static int make_groups(struct draw *d)
{
	const vt_fabric *f = d->f;
	const double *v = d->v;
	uint32_t n;
	struct cable *c = list_cables(d, &n);

	d->groups = malloc((n ? n : 1) * sizeof(*d->groups));
	if (!c || !d->groups) {
		free(c);
		return -1;
	}
	d->ncables = n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = c[i].port, q = f->ports[p].peer;
		uint32_t hot = v[q] > v[p] ? q : p;
		struct group *g = d->ngroups ? &d->groups[d->ngroups - 1] : NULL;

		if (!g || g->lo != c[i].lo || g->hi != c[i].hi) {
			g = &d->groups[d->ngroups++];
			*g = (struct group){c[i].lo, c[i].hi, 0, hot, v[hot]};
		} else if (v[hot] > g->v) {
			g->hot = hot;
			g->v = v[hot];
		}
		g->count++;
	}
	free(c);
	return 0;
}

/* Coldest first, so hot lines are drawn last, on top; ties in box order. */
static int group_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/* A box's name in a line's tooltip: the switch, or "the N CAs on SWITCH". */
static void put_box_name(FILE *fp, const struct draw *d, const struct box *b)
{
	if (b->ncas)
		fprintf(fp, "the %u CA%s on ", b->ncas, b->ncas > 1 ? "s" : "");
	put_text(fp, d->f->nodes[d->f->switches[b->sw]].desc, SIZE_MAX);
}

static void put_color(FILE *fp, double t)
{
	double rgb[3];

	vt_plot_heat_color(t, rgb);
	fprintf(fp, "#%02x%02x%02x", (unsigned)lround(rgb[0] * 255), (unsigned)lround(rgb[1] * 255),
		(unsigned)lround(rgb[2] * 255));
}

static void put_line(FILE *fp, const struct draw *d, const struct group *g)
{
	const vt_fabric *f = d->f;
	const struct box *a = &d->boxes[g->lo], *b = &d->boxes[g->hi];
	uint32_t back = f->ports[g->hot].peer;
	/* a line leaves a box at its top or bottom edge, towards the other box's row */
	double ya = a->y + (a->row < b->row ? 0 : a->row > b->row ? BOX_H : BOX_H / 2);
	double yb = b->y + (b->row < a->row ? 0 : b->row > a->row ? BOX_H : BOX_H / 2);

	fprintf(fp,
		"<line class=\"link\" x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"",
		a->x, ya, b->x, yb);
	put_color(fp, g->v / d->vmax);
	fprintf(fp, "\" stroke-width=\"%.1f\" data-load=\"%.6g\" data-cables=\"%u\"><title>",
		1.5 + log2(g->count), g->v, g->count);
	put_port(fp, f, g->hot);
	fputs(" -&gt; ", fp);
	put_port(fp, f, back);
	fprintf(fp, ": load %.6g (back %.6g)", g->v, d->v[back]);
	if (g->count > 1) {
		fprintf(fp, "; the hottest of %u cables between ", g->count);
		if (a->ncas && !b->ncas && a->sw == b->sw) { /* a switch and its own CAs */
			put_text(fp, f->nodes[f->switches[b->sw]].desc, SIZE_MAX);
			fprintf(fp, " and its %u CAs", a->ncas);
		} else {
			put_box_name(fp, d, a);
			fputs(" and ", fp);
			put_box_name(fp, d, b);
		}
	}
	fputs("</title></line>\n", fp);
}

/* ---- boxes, labels, legend */

static void put_node(FILE *fp, const vt_fabric *f, uint32_t n)
{
	uint16_t lid = node_lid(f, n);
	const struct vt_node *nd = &f->nodes[n];

	for (uint32_t p = 1; !lid && p <= nd->nports; p++) /* a CA: its first port's LID */
		lid = f->ports[nd->first_port + p].lid;
	put_text(fp, nd->desc, SIZE_MAX);
	fprintf(fp, " (GUID 0x%016" PRIx64 ", LID %u)", nd->guid, lid);
}

/* A CA box's tooltip: its first CAs by name (a leaf's hosts, a spine's storage). */
static void put_cas(FILE *fp, const struct draw *d, const struct box *b, uint32_t bi)
{
	uint32_t shown = 0;

	fprintf(fp, "%u CA%s on ", b->ncas, b->ncas > 1 ? "s" : "");
	put_text(fp, d->f->nodes[d->f->switches[b->sw]].desc, SIZE_MAX);
	for (uint32_t n = b->first; n < d->f->nnodes && shown < 8; n++)
		if (d->box_of[n] == bi) {
			fputs(shown++ ? ",\n" : ":\n", fp);
			put_node(fp, d->f, n);
		}
	if (b->ncas > shown)
		fprintf(fp, ",\nand %u more", b->ncas - shown);
}

static void put_box(FILE *fp, const struct draw *d, uint32_t bi)
{
	const struct box *b = &d->boxes[bi];
	uint32_t n = d->f->switches[b->sw];
	char lvl[16];

	fprintf(fp,
		"<g class=\"%s\"><rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
		"rx=\"3\"/><text x=\"%.0f\" y=\"%.0f\">",
		b->ncas ? "cas" : "sw", b->x - BOX_W / 2, b->y, BOX_W, BOX_H, b->x,
		b->y + BOX_H / 2 + 3.5);
	if (b->ncas)
		fprintf(fp, "%u CA%s", b->ncas, b->ncas > 1 ? "s" : "");
	else
		put_text(fp, d->f->nodes[n].desc, 10);
	fputs("</text><title>", fp);
	if (b->ncas) {
		put_cas(fp, d, b, bi);
	} else {
		vt_heat_level_name(lvl, sizeof(lvl), b->row);
		put_node(fp, d->f, n);
		fprintf(fp, ", level %s", lvl);
	}
	fputs("</title></g>\n", fp);
}

static void put_legend(FILE *fp, const struct draw *d, const struct vt_svg_opts *o)
{
	double x = d->w - RIGHT + 40, y = TOP, h = d->maxrow * ROW_H + BOX_H;

	fputs("<defs><linearGradient id=\"heat\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">", fp);
	for (int i = 0; i <= 8; i++) {
		fprintf(fp, "<stop offset=\"%g\" stop-color=\"", i / 8.0);
		put_color(fp, i / 8.0);
		fputs("\"/>", fp);
	}
	fputs("</linearGradient></defs>\n", fp);
	fprintf(fp,
		"<g class=\"legend\"><rect x=\"%.0f\" y=\"%.0f\" width=\"16\" height=\"%.0f\" "
		"fill=\"url(#heat)\" stroke=\"#000\"/>"
		"<text x=\"%.0f\" y=\"%.0f\">%.6g</text><text x=\"%.0f\" y=\"%.0f\">0</text>",
		x, y, h, x + 20, y + 8, d->vmax, x + 20, y + h);
	if (o->unit) {
		fprintf(fp,
			"<text transform=\"translate(%.0f %.0f) rotate(-90)\" "
			"text-anchor=\"middle\">",
			x - 6, y + h / 2);
		put_text(fp, o->unit, SIZE_MAX);
		fputs("</text>", fp);
	}
	fputs("</g>\n", fp);
}

static void put_head(FILE *fp, const struct draw *d, const struct vt_svg_opts *o, uint32_t drawn)
{
	char lvl[16];

	fprintf(fp,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"10\">\n"
		"<style>.sw rect{fill:#f4f4f4;stroke:#333}.cas rect{fill:#dde8f4;stroke:#333}"
		"text{text-anchor:middle}.row,.head{text-anchor:start}"
		".link:hover{stroke-width:6}</style>\n<title>",
		d->w, d->h, d->w, d->h);
	put_text(fp, o->title ? o->title : "vartree", SIZE_MAX);
	fprintf(fp, "</title>\n<text class=\"head\" x=\"10\" y=\"20\" font-size=\"14\">");
	put_text(fp, o->title ? o->title : "", SIZE_MAX);
	fprintf(fp,
		"</text>\n<text class=\"head\" x=\"10\" y=\"38\">%u of %u lines for %u cables: "
		"parallel cables and a switch's CAs as one line, the load of its hottest "
		"channel; hover for its ports</text>\n",
		drawn, d->ngroups, d->ncables);
	for (uint32_t r = 0; r <= d->maxrow; r++) {
		vt_heat_level_name(lvl, sizeof(lvl), r);
		fprintf(fp, "<text class=\"row\" x=\"10\" y=\"%.0f\" font-size=\"13\">%s</text>\n",
			TOP + (d->maxrow - r) * ROW_H + BOX_H / 2 + 4, lvl);
	}
}

/* ---- the file */

static int check_values(const vt_fabric *f, const double *v, vt_err *e)
{
	for (uint32_t p = 0; p < f->nports; p++)
		if (f->ports[p].peer != VT_NONE && !(isfinite(v[p]) && v[p] >= 0)) {
			const struct vt_node *nd = &f->nodes[f->ports[p].node];

			return vt_err_set(e,
					  "%s port %u (GUID 0x%016" PRIx64
					  "): value %g is not a finite number >= 0",
					  nd->desc, f->ports[p].num, nd->guid, v[p]);
		}
	return 0;
}

static int prepare(struct draw *d, const vt_tree *t)
{
	const vt_fabric *f = d->f;

	d->box_of = malloc((f->nnodes ? f->nnodes : 1) * sizeof(*d->box_of));
	d->slot_of = malloc((2 * (size_t)d->nsw + 1) * sizeof(*d->slot_of));
	if (!d->lv || !d->box_of || !d->slot_of)
		return -1;
	for (uint32_t n = 0; n < f->nnodes; n++)
		if (d->lv[n] != UINT32_MAX && d->lv[n] > d->maxrow)
			d->maxrow = d->lv[n];
	for (uint32_t i = 0; i < 2 * d->nsw; i++)
		d->slot_of[i] = UINT32_MAX;
	if (place_boxes(d, t))
		return -1;
	for (uint32_t n = 0; n < f->nnodes; n++) {
		uint32_t s = f->nodes[n].type == VT_SWITCH ? f->nodes[n].sw : ca_switch(f, n);

		d->box_of[n] = s == VT_NONE
				       ? UINT32_MAX
				       : d->slot_of[f->nodes[n].type == VT_SWITCH ? s : d->nsw + s];
	}
	return make_groups(d);
}

static int write_svg(const struct draw *d, const struct vt_svg_opts *o, const char *path,
		     uint32_t first, vt_err *e)
{
	vt_out out;

	if (vt_out_open(&out, path, e))
		return -1;
	put_head(out.fp, d, o, d->ngroups - first);
	fputs("<g class=\"links\" stroke-linecap=\"round\">\n", out.fp);
	for (uint32_t i = first; i < d->ngroups; i++)
		put_line(out.fp, d, &d->groups[i]);
	fputs("</g>\n<g class=\"boxes\">\n", out.fp);
	for (uint32_t i = 0; i < d->nbox; i++)
		put_box(out.fp, d, i);
	fputs("</g>\n", out.fp);
	put_legend(out.fp, d, o);
	fputs("</svg>\n", out.fp);
	if (ferror(out.fp))
		return vt_out_fail(&out, e);
	return vt_out_commit(&out, e);
}

int vt_svg_tree(const vt_fabric *f, const vt_tree *t, const double *out_value,
		const struct vt_svg_opts *o, const char *path, struct vt_svg_stats *st, vt_err *e)
{
	struct draw d = {.f = f, .v = out_value, .nsw = f->nswitches};
	uint32_t first = 0;
	int rc = -1;

	if (check_values(f, out_value, e))
		return -1;
	d.lv = vt_heat_levels(f, t);
	if (prepare(&d, t)) {
		vt_err_nomem(e, "out of memory");
		goto out;
	}
	d.vmax = o->vmax;
	for (uint32_t i = 0; i < d.ngroups && o->vmax <= 0; i++)
		d.vmax = fmax(d.vmax, d.groups[i].v);
	if (d.vmax <= 0)
		d.vmax = 1; /* all idle: any scale shows it */
	qsort(d.groups, d.ngroups, sizeof(*d.groups), group_cmp);
	if (o->hot && d.ngroups > o->hot)
		first = d.ngroups - o->hot; /* the hottest are the last */
	rc = write_svg(&d, o, path, first, e);
	if (!rc && st)
		*st = (struct vt_svg_stats){d.nbox, d.ngroups - first, d.ngroups, d.ncables};
out:
	free((void *)d.lv);
	free(d.box_of);
	free(d.slot_of);
	free(d.boxes);
	free(d.groups);
	return rc;
}
