/* SPDX-License-Identifier: MIT */
#include "out/vt_heat.h"
#include "out/vt_plot.h"
#include "base/vt_io.h"
#include "out/vt_svg.h"
#include "vt_test.h"

#include <cairo.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/vt-plot-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];
	void (*fc_fini)(void);

	/* cairo and fontconfig keep font caches for the process: drop them for LeakSanitizer */
	cairo_debug_reset_static_data();
	*(void **)&fc_fini = dlsym(RTLD_DEFAULT, "FcFini");
	if (fc_fini)
		fc_fini();

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static const char *in_dir(const char *name)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

static void head(const char *path, char *buf, size_t n)
{
	FILE *fp = fopen(path, "rb");

	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fread(buf, 1, n, fp), n);
	fclose(fp);
}

static cairo_surface_t *load_png(const char *path, int w, int h)
{
	cairo_surface_t *s = cairo_image_surface_create_from_png(path);
	char magic[8];

	head(path, magic, 8);
	ck_assert_int_eq(memcmp(magic, "\x89PNG\r\n\x1a\n", 8), 0);
	ck_assert_int_eq(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
	ck_assert_int_eq(cairo_image_surface_get_width(s), w);
	ck_assert_int_eq(cairo_image_surface_get_height(s), h);
	return s;
}

static uint32_t pixel(cairo_surface_t *s, int x, int y)
{
	const unsigned char *d = cairo_image_surface_get_data(s);
	uint32_t v;

	memcpy(&v, d + y * cairo_image_surface_get_stride(s) + x * 4, 4);
	return v & 0xffffff;
}

static uint32_t rgb24(const double c[3])
{
	return (uint32_t)lround(c[0] * 255) << 16 | (uint32_t)lround(c[1] * 255) << 8 |
	       (uint32_t)lround(c[2] * 255);
}

static int near(uint32_t a, uint32_t b, int tol)
{
	for (int sh = 0; sh < 24; sh += 8)
		if (abs((int)((a >> sh) & 0xff) - (int)((b >> sh) & 0xff)) > tol)
			return 0;
	return 1;
}

static int close_to(uint32_t a, uint32_t b)
{
	return near(a, b, 2);
}

static uint32_t series_rgb(uint32_t i)
{
	double c[3];

	vt_plot_series_color(i, c);
	return rgb24(c);
}

/* Topmost row holding colour c among columns x0..x1, -1 when none. */
static int top_of(cairo_surface_t *s, uint32_t c, int x0, int x1)
{
	int h = cairo_image_surface_get_height(s);

	for (int y = 0; y < h; y++)
		for (int x = x0; x <= x1; x++)
			if (pixel(s, x, y) == c)
				return y;
	return -1;
}

START_TEST(line_chart_png)
{
	const double a[] = {10, 8, 6, 4, 2, 0}, b[] = {1, 1, 1, 1, 1, 1};
	const struct vt_plot_series ser[] = {{"falling", a}, {"flat", b}};
	const struct vt_plot_lines p = {
		"max link load per stage", "stage", "max link load", 6, ser, 2, 0};
	cairo_surface_t *s;
	vt_err e;

	ck_assert_msg(vt_plot_lines(&p, in_dir("l.png"), &e) == 0, "%s", e.msg);
	cairo_surface_flush(s = load_png(in_dir("l.png"), 900, 540));
	ck_assert_uint_eq(pixel(s, 2, 2), 0xffffff);
	/* the falling series starts high on the left and ends low on the right */
	int left = top_of(s, series_rgb(0), 85, 120), right = top_of(s, series_rgb(0), 820, 860);
	ck_assert_int_ge(left, 0);
	ck_assert_int_gt(right, left + 300);
	/* the flat one stays at y = 1 of 12 (a step of headroom over 10) across the plot:
	 * Y(1) = 50 + 430 * 11 / 12 = 444.2 */
	ck_assert_int_ge(top_of(s, series_rgb(1), 400, 420), 441);
	ck_assert_int_le(top_of(s, series_rgb(1), 400, 420), 444);
	cairo_surface_destroy(s);
}
END_TEST

/* Step chart: y holds over [x, x+1). Geometry: plot 80..870 x 50..480, y axis 0..4 (3 and
 * a step of headroom, so the top line does not run along the frame). */
START_TEST(step_chart_pixels)
{
	const double a[] = {1, 3};
	const struct vt_plot_series ser[] = {{"r", a}};
	const struct vt_plot_lines p = {"t", "stage", "load", 2, ser, 1, 1};
	cairo_surface_t *s;
	vt_err e;

	ck_assert_msg(vt_plot_lines(&p, in_dir("s.png"), &e) == 0, "%s", e.msg);
	s = load_png(in_dir("s.png"), 900, 540);
	/* stage 0 at load 1 (y 372.5, line 2.5 wide), stage 1 at load 3 (y 157.5) */
	ck_assert_uint_eq(pixel(s, 277, 372), series_rgb(0));
	ck_assert_uint_ne(pixel(s, 277, 157), series_rgb(0));
	ck_assert_uint_eq(pixel(s, 672, 157), series_rgb(0));
	ck_assert_uint_ne(pixel(s, 672, 372), series_rgb(0));
	ck_assert_uint_ne(pixel(s, 672, 50), series_rgb(0));
	cairo_surface_destroy(s);
}
END_TEST

/* Three equal series: each colour shows somewhere along the shared line, none hidden. */
START_TEST(equal_series_all_show)
{
	const double a[] = {2, 2, 2, 2, 2, 2, 2, 2};
	const struct vt_plot_series ser[] = {{"a", a}, {"b", a}, {"c", a}};
	const struct vt_plot_lines p = {"t", "stage", "load", 8, ser, 3, 1};
	cairo_surface_t *s;
	int seen[3] = {0};
	vt_err e;

	ck_assert_msg(vt_plot_lines(&p, in_dir("e.png"), &e) == 0, "%s", e.msg);
	s = load_png(in_dir("e.png"), 900, 540);
	/* load 2 on an axis to 2.5: y = 50 + 430 / 5 = 136; columns left of the legend */
	for (int x = 85; x < 600; x++)
		for (int k = 0; k < 3; k++)
			seen[k] += pixel(s, x, 136) == series_rgb((uint32_t)k);
	for (int k = 0; k < 3; k++)
		ck_assert_int_gt(seen[k], 100);
	cairo_surface_destroy(s);
}
END_TEST

START_TEST(svg_by_extension)
{
	const double a[] = {2, 1};
	const struct vt_plot_series ser[] = {{"r", a}};
	const struct vt_plot_lines p = {"t", "stage", "load", 2, ser, 1, 0};
	const double v[] = {1, 2};
	const struct vt_plot_heat_row rows[] = {{"L1", v, 2}};
	const struct vt_plot_heat h = {"heat", "load", rows, 1, 0};
	char buf[6] = {0};
	vt_err e;

	ck_assert_msg(vt_plot_lines(&p, in_dir("l.SVG"), &e) == 0, "%s", e.msg);
	head(in_dir("l.SVG"), buf, 5);
	ck_assert_str_eq(buf, "<?xml");
	ck_assert_msg(vt_plot_heatmap(&h, in_dir("h.svg"), &e) == 0, "%s", e.msg);
	head(in_dir("h.svg"), buf, 5);
	ck_assert_str_eq(buf, "<?xml");
}
END_TEST

static char *slurp(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	char *b;

	ck_assert_ptr_nonnull(fp);
	fseek(fp, 0, SEEK_END);
	*n = (size_t)ftell(fp);
	rewind(fp);
	b = malloc(*n + 1);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(fread(b, 1, *n, fp), *n);
	b[*n] = 0;
	fclose(fp);
	return b;
}

/* strstr over binary data: a PDF's font streams hold NUL bytes */
static int contains(const char *b, size_t n, const char *s)
{
	size_t l = strlen(s);

	for (size_t i = 0; i + l <= n; i++)
		if (!memcmp(b + i, s, l))
			return 1;
	return 0;
}

/* PDF by extension: one page, and the same input gives the same bytes (no creation time). */
START_TEST(pdf_by_extension)
{
	const double y[] = {1, 3, 2};
	const struct vt_plot_series ser[] = {{"vartree", y}};
	const struct vt_plot_lines p = {"t", "stage", "max link load", 3, ser, 1, 1};
	size_t n1, n2;
	char *a, *b;
	vt_err e;

	ck_assert_msg(vt_plot_lines(&p, in_dir("a.pdf"), &e) == 0, "%s", e.msg);
	ck_assert_msg(vt_plot_lines(&p, in_dir("b.PDF"), &e) == 0, "%s", e.msg);
	a = slurp(in_dir("a.pdf"), &n1);
	b = slurp(in_dir("b.PDF"), &n2);
	ck_assert_int_eq(memcmp(a, "%PDF-", 5), 0);
	ck_assert(contains(a, n1, "/Type /Pages"));
	ck_assert(contains(a, n1, "/Count 1"));
	/* not the time of the run, so the bytes cannot differ between runs */
	ck_assert(contains(a, n1, "/CreationDate (20000101000000Z)"));
	ck_assert_uint_eq(n1, n2);
	ck_assert_int_eq(memcmp(a, b, n1), 0);
	free(a);
	free(b);
}
END_TEST

/* Rows at y 50..94 and 102..146, cells over x 110..880; colours from 0 to the largest value. */
START_TEST(heatmap_pixels)
{
	const double r0[] = {0, 10}, r1[] = {5};
	const struct vt_plot_heat_row rows[] = {{"L1 up", r0, 2}, {"L2 up", r1, 1}};
	const struct vt_plot_heat h = {"link load per level", "load", rows, 2, 0};
	double c0[3], c1[3], ch[3];
	cairo_surface_t *s;
	vt_err e;

	vt_plot_heat_color(0, c0);
	vt_plot_heat_color(1, c1);
	vt_plot_heat_color(0.5, ch);
	ck_assert_msg(vt_plot_heatmap(&h, in_dir("h.png"), &e) == 0, "%s", e.msg);
	s = load_png(in_dir("h.png"), 1000, 200);
	ck_assert(close_to(pixel(s, 300, 72), rgb24(c0)));
	ck_assert(close_to(pixel(s, 690, 72), rgb24(c1)));
	ck_assert(close_to(pixel(s, 495, 124), rgb24(ch)));
	ck_assert(!close_to(rgb24(c0), rgb24(c1)));
	/* colour bar at x 910..930, y 50..170: the largest value's colour on top */
	ck_assert(near(pixel(s, 920, 50), rgb24(c1), 6));
	ck_assert(near(pixel(s, 920, 169), rgb24(c0), 6));
	cairo_surface_destroy(s);
}
END_TEST

/* 4000 links in 770 pixel columns: the one hot link still shows, where it lies. */
START_TEST(heatmap_many_links)
{
	static double v[4000];
	const struct vt_plot_heat_row rows[] = {{"L0 up", v, 4000}};
	const struct vt_plot_heat h = {"link load", "load", rows, 1, 0};
	double c0[3], c1[3];
	cairo_surface_t *s;
	int hot = 0, cold = 0;
	vt_err e;

	v[2001] = 7; /* column 2001 * 770 / 4000 = 385: x = 110 + 385 */
	vt_plot_heat_color(0, c0);
	vt_plot_heat_color(1, c1);
	ck_assert_msg(vt_plot_heatmap(&h, in_dir("m.png"), &e) == 0, "%s", e.msg);
	s = load_png(in_dir("m.png"), 1000, 200);
	for (int x = 110; x < 880; x++) {
		hot += close_to(pixel(s, x, 72), rgb24(c1));
		cold += close_to(pixel(s, x, 72), rgb24(c0));
	}
	ck_assert_int_eq(hot, 1);
	ck_assert_int_eq(cold, 769);
	ck_assert(close_to(pixel(s, 110 + 385, 72), rgb24(c1)));
	cairo_surface_destroy(s);
}
END_TEST

/* fat 4,3: 64 links between each pair of neighbouring levels, each way, in port order. */
START_TEST(heat_rows_by_level)
{
	static const char *want[] = {"hosts->L0", "L0->hosts", "L0->L1",
				     "L1->L0",	  "L1->L2",    "L2->L1"};
	vt_fabric *f = vt_test_gen("fat 4,3");
	double *val = malloc(f->nports * sizeof(double));
	vt_heat h;
	vt_err e;

	ck_assert_ptr_nonnull(val);
	for (uint32_t p = 0; p < f->nports; p++)
		val[p] = p;
	ck_assert_int_eq(vt_heat_build(&h, f, NULL, val, &e), 0);
	ck_assert_uint_eq(h.plot.nrows, 6);
	for (uint32_t r = 0; r < 6; r++) {
		ck_assert_str_eq(h.plot.rows[r].label, want[r]);
		ck_assert_uint_eq(h.plot.rows[r].n, 64);
		for (uint32_t i = 1; i < 64; i++) /* values are port indices: port order */
			ck_assert(h.plot.rows[r].v[i - 1] < h.plot.rows[r].v[i]);
	}
	/* the first host->leaf link is the first host's port 1 */
	ck_assert(f->nodes[f->ports[(uint32_t)h.plot.rows[0].v[0]].node].type != VT_SWITCH);
	vt_heat_free(&h);
	free(val);
	vt_fabric_free(f);
}
END_TEST

/*
 * fat 4,3 with 2 storage CAs on top switches: rows by the extracted tree's levels, so the
 * tops stay L2 ("hosts->L2"); by hops from the nearest CA they were "L0" (issue 25).
 */
START_TEST(heat_rows_by_tree_level)
{
	static const char *want[] = {"hosts->L0", "L0->hosts", "hosts->L2", "L2->hosts",
				     "L0->L1",	  "L1->L0",    "L1->L2",    "L2->L1"};
	static const uint32_t nwant[] = {64, 64, 2, 2, 64, 64, 64, 64};
	vt_fabric *f = vt_test_gen("fat 4,3 spine-cas=2");
	double *val = calloc(f->nports, sizeof(double));
	vt_tree t;
	vt_heat h;
	vt_err e;

	ck_assert_ptr_nonnull(val);
	ck_assert_msg(vt_tree_build(&t, f, &(struct vt_tree_opts){0}, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(vt_heat_build(&h, f, &t, val, &e), 0);
	ck_assert_uint_eq(h.plot.nrows, 8);
	for (uint32_t r = 0; r < 8; r++) {
		ck_assert_str_eq(h.plot.rows[r].label, want[r]);
		ck_assert_uint_eq(h.plot.rows[r].n, nwant[r]);
	}
	vt_heat_free(&h);
	vt_tree_free(&t);
	free(val);
	vt_fabric_free(f);
}
END_TEST

/*
 * vt_svg_tree on fat 4,3 with 2 storage CAs on tops: 48 switch boxes and 18 CA boxes (16 leaves'
 * 4 hosts, 2 tops' storage CA), 194 cables as 146 lines; --hot 1 keeps the line of the hottest
 * channel; a bad value is refused and nothing is written.
 */
START_TEST(svg_counts_and_hot)
{
	vt_fabric *f = vt_test_gen("fat 4,3 spine-cas=2");
	double *val = calloc(f->nports, sizeof(double));
	struct vt_svg_stats st;
	vt_tree t;
	vt_err e;
	uint32_t hot = VT_NONE;

	ck_assert_ptr_nonnull(val);
	ck_assert_msg(vt_tree_build(&t, f, &(struct vt_tree_opts){0}, &e) == 0, "%s", e.msg);
	for (uint32_t p = 0; p < f->nports && hot == VT_NONE; p++) /* a leaf's first up-link */
		if (f->ports[p].peer != VT_NONE &&
		    !strcmp(f->nodes[f->ports[p].node].desc, "L0-S0003") &&
		    f->nodes[vt_peer_node(f, p)].type == VT_SWITCH)
			hot = p;
	ck_assert_uint_ne(hot, VT_NONE);
	val[hot] = 7;
	val[f->ports[hot].peer] = 2;
	ck_assert_msg(vt_svg_tree(f, &t, val, &(struct vt_svg_opts){0}, in_dir("t.svg"), &st, &e) ==
			      0,
		      "%s", e.msg);
	ck_assert_uint_eq(st.boxes, 66);
	ck_assert_uint_eq(st.lines, 146);
	ck_assert_uint_eq(st.groups, 146);
	ck_assert_uint_eq(st.cables, 194);
	ck_assert_int_eq(
		vt_svg_tree(f, &t, val, &(struct vt_svg_opts){.hot = 1}, in_dir("h.svg"), &st, &e),
		0);
	ck_assert_uint_eq(st.lines, 1);
	char *buf;
	size_t len;
	ck_assert_int_eq(vt_read_file(in_dir("h.svg"), &buf, &len, &e), 0);
	ck_assert_ptr_nonnull(
		strstr(buf, "<title>L0-S0003 port 5 (GUID 0x0002c95000000003, LID 4) -&gt; "
			    "L1-S0000 port 4 (GUID 0x0002c95001000000, LID 17): load 7 "
			    "(back 2)</title></line>"));
	free(buf);
	val[hot] = NAN;
	ck_assert_int_eq(
		vt_svg_tree(f, &t, val, &(struct vt_svg_opts){0}, in_dir("n.svg"), &st, &e), -1);
	ck_assert_str_eq(e.msg, "L0-S0003 port 5 (GUID 0x0002c95000000003): value nan is not a "
				"finite number >= 0");
	ck_assert_int_ne(access(in_dir("n.svg"), F_OK), 0);
	vt_tree_free(&t);
	free(val);
	vt_fabric_free(f);
}
END_TEST

START_TEST(errors_write_nothing)
{
	const double bad[] = {1, NAN};
	const struct vt_plot_series ser[] = {{"a", bad}};
	const struct vt_plot_lines p = {"t", "x", "y", 2, ser, 1, 0};
	const struct vt_plot_heat h = {"t", "u", NULL, 0, 0};
	vt_err e;

	ck_assert_int_eq(vt_plot_lines(&p, in_dir("x.png"), &e), -1);
	ck_assert_str_eq(e.msg, "series 'a': value 1 is not a finite number >= 0");
	ck_assert_int_ne(access(in_dir("x.png"), F_OK), 0);
	ck_assert_int_eq(vt_plot_lines(&p, "out.jpg", &e), -1);
	ck_assert_str_eq(e.msg, "out.jpg: plot file name must end in .png, .svg or .pdf");
	ck_assert_int_eq(vt_plot_heatmap(&h, "h.png", &e), -1);
	ck_assert_str_eq(e.msg, "h.png: nothing to plot (no rows)");
	const double ok[] = {1, 2};
	const struct vt_plot_series s2[] = {{"a", ok}};
	const struct vt_plot_lines p2 = {"t", "x", "y", 2, s2, 1, 0};

	ck_assert_int_eq(vt_plot_lines(&p2, "/nonexistent/dir/x.png", &e), -1);
	ck_assert_str_eq(e.msg, "/nonexistent/dir/x.png: cannot create: No such file or directory");
}
END_TEST

static Suite *plot_suite(void)
{
	Suite *s = suite_create("plot");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, line_chart_png);
	tcase_add_test(tc, step_chart_pixels);
	tcase_add_test(tc, equal_series_all_show);
	tcase_add_test(tc, svg_by_extension);
	tcase_add_test(tc, pdf_by_extension);
	tcase_add_test(tc, heatmap_pixels);
	tcase_add_test(tc, heatmap_many_links);
	tcase_add_test(tc, heat_rows_by_level);
	tcase_add_test(tc, heat_rows_by_tree_level);
	tcase_add_test(tc, svg_counts_and_hot);
	tcase_add_test(tc, errors_write_nothing);
	suite_add_tcase(s, tc);
	return s;
}

VT_TEST_MAIN(plot_suite)
