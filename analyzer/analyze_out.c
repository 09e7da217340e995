/* SPDX-License-Identifier: MIT */
/* What vartree-analyze writes of its results: the table, JSON, charts and the tree picture. */
#include "analyze.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/vt_io.h"
#include "out/vt_heat.h"
#include "out/vt_json.h"
#include "out/vt_plot.h"
#include "out/vt_svg.h"

static uint32_t active_ranks(const vt_order *o)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < o->n; i++)
		n += o->port[i] != VT_NONE;
	return n;
}

/* ---- people's output */

/* ", first SW to LID L": the first route on VL vl, into buf; its length. */
static size_t first_on(const vt_vl_split *v, const vt_fabric *f, unsigned vl, char *buf, size_t len)
{
	char n[VT_NODE_NAME_MAX];

	for (uint32_t sw = 0; sw < v->nsw; sw++)
		for (uint32_t lid = 1; lid < v->nlid; lid++)
			if (vt_vl_split_get(v, sw, lid) == vl) {
				int r = snprintf(buf, len, ", first %s to LID %u",
						 vt_node_name(f, f->switches[sw], n, sizeof(n)),
						 lid);

				return r < 0 ? 0 : (size_t)r < len ? (size_t)r : len - 1;
			}
	return 0;
}

/* Where the data VLs assumed come from: --vls, the live ports, or the default. */
static const char *vls_source(const struct opts *o, const vt_fabric *f)
{
	if (o->vls)
		return "given (--vls)";
	if (f->vls)
		return "the fabric runs (its switch ports' operational VLs)";
	return "assumed (a topology file does not say how many its links run; --vls N sets it)";
}

/* The VLs the routes use of those the fabric has, or that it has too few. */
static void print_vls(FILE *fp, const struct opts *o, const vt_fabric *f, const vt_vl_split *v)
{
	if (v->nvls > vt_fabric_vls(f))
		fprintf(fp,
			"audit: VLs: the routes need %u data VLs, and the fabric has %u (%s): the "
			"routes off VL 0 are not covered\n",
			v->nvls, vt_fabric_vls(f), o->vls ? "--vls" : vls_source(o, f));
	else
		fprintf(fp, "audit: VLs: the routes use %u of the %u data VLs %s\n", v->nvls,
			v->cap, vls_source(o, f));
}

/*
 * The routes on VLs other than 0, when some are: how many, from how many
 * switches, the first; then the VLs they use of those the fabric has.
 */
static void print_vl1(FILE *fp, const struct opts *o, const vt_fabric *f, const struct routing *r)
{
	const vt_vl_split *v = &r->vl;
	char n[VT_NODE_NAME_MAX], per[(VT_NODE_NAME_MAX + 60) * VT_VL_MAX] = "";
	size_t k = 0;

	if (!v->nvl1)
		return;
	for (unsigned vl = 1; v->nvls > 2 && vl < v->nvls && k < sizeof(per); vl++) {
		k += (size_t)snprintf(per + k, sizeof(per) - k, "%sVL %u: %" PRIu64 " from %u",
				      vl == 1 ? " (" : ", ", vl, v->nvl[vl], v->nsrcs[vl]);
		if (vl > 1) /* the few past VL 1: which they are, for a path record */
			k += first_on(v, f, vl, per + k, sizeof(per) - k);
	}
	for (uint32_t sw = 0; sw < v->nsw; sw++)
		for (uint32_t lid = 1; lid < v->nlid; lid++)
			if (vt_vl_split_get(v, sw, lid)) {
				/* placed one by one, a leaf's routes to switch LIDs may be there */
				fprintf(fp,
					"audit: VL%s%.0u: %" PRIu64
					" routes from %u switches%s%s%s, audited "
					"apart (first: %s to LID %u); every other route on VL 0\n",
					v->nvls > 2 ? "s 1-" : " 1", v->nvls > 2 ? v->nvls - 1 : 0,
					v->nvl1, v->nsrc, v->placed ? "" : " that are not leaves",
					per, k ? ")" : "",
					vt_node_name(f, f->switches[sw], n, sizeof(n)), lid);
				print_vls(fp, o, f, v);
				return;
			}
}

static void print_audit(FILE *fp, const vt_fabric *f, const struct routing *r)
{
	if (!vt_audit_failed(&r->audit))
		fprintf(fp, "audit: ok (no unreachable destination, loop, misdelivery "
			    "or credit loop)\n");
	for (int k = 0; k < VT_AUDIT_NKINDS; k++) {
		const struct vt_audit_item *it = &r->audit.item[k];
		if (it->count)
			fprintf(fp, "audit: %s: %" PRIu64 " (first: %s)\n",
				vt_audit_name((enum vt_audit_kind)k), it->count, it->detail);
	}
}

/* Loads past this many are shown as this many equal ranges (a line, not 130 KB). */
#define HIST_RANGES 16

/* The histogram of link loads: per load, or per range of loads where there are many. */
static void print_hist(FILE *fp, const char *tag, const vt_congest *c)
{
	uint32_t w =
		c->worst / HIST_RANGES + 1; /* loads per range: 1 while the worst is under 16 */

	fprintf(fp, "\n%s%s: link loads (link-stages per load):", tag, c->pattern);
	for (uint32_t a = 0; a <= c->worst; a += w) {
		uint32_t b = c->worst - a < w ? c->worst : a + w - 1;
		uint64_t n = 0;

		for (uint32_t l = a; l <= b; l++)
			n += c->hist[l];
		if (a == b)
			fprintf(fp, " %u:%" PRIu64, a, n);
		else
			fprintf(fp, " %u-%u:%" PRIu64, a, b, n);
	}
	fputc('\n', fp);
}

void analyze_print_table(FILE *fp, const struct opts *o, const vt_fabric *f, struct routing *rs,
			 unsigned nr)
{
	fprintf(fp, "fabric: %s: %u CA ports, %u switches\n", f->source, vt_fabric_count_cas(f),
		f->nswitches);
	for (unsigned k = 0; k < nr; k++) {
		fprintf(fp, "routing%s%s: %s, %u ranks (%u hosts)\n", nr > 1 ? " " : "",
			nr > 1 ? (k ? "B" : "A") : "", rs[k].name, rs[k].order.n,
			active_ranks(&rs[k].order));
		print_audit(fp, f, &rs[k]);
		print_vl1(fp, o, f, &rs[k]);
	}
	if (nr == 1) {
		fprintf(fp, "%-28s %7s %12s %6s %8s %6s %8s %8s\n", "pattern", "stages", "flows",
			"worst", "avg", "bound", "bnd-avg", "ebb");
		for (unsigned i = 0; i < rs[0].npat; i++) {
			const vt_congest *c = &rs[0].res[i];
			char ebb[32] = "-";
			if (c->has_ebb)
				snprintf(ebb, sizeof(ebb), "%.4f", c->ebb);
			fprintf(fp, "%-28s %7u %12" PRIu64 " %6u %8.2f %6u %8.2f %8s\n", c->pattern,
				c->nstages, c->nflows, c->worst, c->avg, c->bound_worst,
				c->bound_avg, ebb);
			if (c->unrouted)
				fprintf(fp, "  %" PRIu64 " flows unrouted (not counted)\n",
					c->unrouted);
			if (c->stage_climb && c->climb_avg > c->bound_avg)
				fprintf(fp,
					"  up*-down* bound %u/%.2f: no route that climbs, then "
					"descends, the tree's levels does better\n",
					c->climb_worst, c->climb_avg);
		}
	} else {
		fprintf(fp, "%-28s %7s %9s %9s %9s %9s %6s\n", "pattern", "stages", "A-worst",
			"A-avg", "B-worst", "B-avg", "bound");
		for (unsigned i = 0; i < rs[0].npat; i++) {
			const vt_congest *a = &rs[0].res[i], *b = &rs[1].res[i];
			fprintf(fp, "%-28s %7u %9u %9.2f %9u %9.2f %6u\n", a->pattern, a->nstages,
				a->worst, a->avg, b->worst, b->avg, a->bound_worst);
		}
	}
	for (unsigned k = 0; k < nr; k++)
		for (unsigned i = 0; i < rs[k].npat; i++) {
			const vt_congest *c = &rs[k].res[i];
			const char *tag = nr > 1 ? (k ? "B " : "A ") : "";
			if (!o->quiet)
				print_hist(fp, tag, c);
			if (!o->top)
				continue;
			uint32_t *top = malloc((size_t)o->top * sizeof(*top));
			if (!top)
				continue;
			uint32_t m = vt_congest_top(&rs[k].routes, c, o->top, top);
			fprintf(fp,
				"%s%s: most loaded links (max load, load summed over stages):\n",
				tag, c->pattern);
			for (uint32_t j = 0; j < m; j++) {
				char name[600];
				vt_chan_name(f, top[j], name, sizeof(name));
				fprintf(fp, "  %6u %10" PRIu64 "  %s\n", c->chan_max[top[j]],
					c->chan_sum[top[j]], name);
			}
			free(top);
		}
}

/* ---- JSON (jansson: keys in insertion order, strings valid UTF-8 whatever a NodeDesc holds) */

static const char *method_name(enum vt_congest_method m)
{
	return m == VT_CONGEST_INTERVAL ? "interval" : m == VT_CONGEST_NAIVE ? "naive" : "walk";
}

static json_t *json_audit(const vt_fabric *f, const vt_audit *a)
{
	json_t *o = json_object();

	for (int k = 0; k < VT_AUDIT_NKINDS; k++) {
		const struct vt_audit_item *it = &a->item[k];
		json_t *j = json_object();

		vt_json_set(j, "count", vt_json_u64(it->count));
		if (it->count) {
			vt_json_set(j, "switch", vt_json_node(f, f->switches[it->sw]));
			vt_json_set(j, "lid", json_integer(it->lid));
			vt_json_set(j, "detail", vt_json_text(it->detail));
		}
		vt_json_set(o, vt_audit_name((enum vt_audit_kind)k), j);
	}
	return o;
}

static json_t *json_top_links(const struct opts *o, const vt_fabric *f, const struct routing *r,
			      const vt_congest *c)
{
	json_t *a = json_array();
	uint32_t *top = o->top ? malloc((size_t)o->top * sizeof(*top)) : NULL;
	uint32_t m = top ? vt_congest_top(&r->routes, c, o->top, top) : 0;

	for (uint32_t j = 0; j < m; j++) {
		json_t *l = json_object();

		vt_json_set(l, "from", vt_json_port(f, top[j]));
		vt_json_set(l, "to", vt_json_port(f, f->ports[top[j]].peer));
		vt_json_set(l, "max", json_integer(c->chan_max[top[j]]));
		vt_json_set(l, "sum", vt_json_u64(c->chan_sum[top[j]]));
		json_array_append_new(a, l);
	}
	free(top);
	return a;
}

static json_t *json_pattern(const struct opts *o, const vt_fabric *f, const struct routing *r,
			    unsigned i)
{
	const vt_congest *c = &r->res[i];
	json_t *p = json_object(), *smax = json_array(), *sbound = json_array(),
	       *hist = json_array();

	vt_json_set(p, "pattern", vt_json_text(c->pattern));
	vt_json_set(p, "stages", json_integer(c->nstages));
	vt_json_set(p, "flows", vt_json_u64(c->nflows));
	vt_json_set(p, "unrouted", vt_json_u64(c->unrouted));
	vt_json_set(p, "worst", json_integer(c->worst));
	vt_json_set(p, "avg", vt_json_real(c->avg, 6));
	vt_json_set(p, "bound_worst", json_integer(c->bound_worst));
	vt_json_set(p, "bound_avg", vt_json_real(c->bound_avg, 6));
	vt_json_set(p, "ebb", c->has_ebb ? vt_json_real(c->ebb, 6) : json_null());
	vt_json_set(p, "method", json_string(method_name(c->method)));
	if (o->timing) /* wall-clock: only when asked, the rest is deterministic */
		vt_json_set(p, "seconds", vt_json_real(r->secs[i], 3));
	for (uint32_t s = 0; s < c->nstages; s++) {
		json_array_append_new(smax, json_integer(c->stage_max[s]));
		json_array_append_new(sbound, json_integer(c->stage_bound[s]));
	}
	for (uint32_t l = 0; l <= c->worst; l++)
		json_array_append_new(hist, vt_json_u64(c->hist[l]));
	vt_json_set(p, "stage_max", smax);
	vt_json_set(p, "stage_bound", sbound);
	if (c->stage_climb) {
		json_t *sclimb = json_array();
		for (uint32_t s = 0; s < c->nstages; s++)
			json_array_append_new(sclimb, json_integer(c->stage_climb[s]));
		vt_json_set(p, "updown_bound_worst", json_integer(c->climb_worst));
		vt_json_set(p, "updown_bound_avg", vt_json_real(c->climb_avg, 6));
		vt_json_set(p, "stage_updown_bound", sclimb);
	}
	vt_json_set(p, "histogram", hist);
	vt_json_set(p, "top_links", json_top_links(o, f, r, c));
	return p;
}

/* The VL split's figures: routes off VL 0, per VL from 1 on, and those not covered. */
static void json_vls(json_t *rj, const vt_vl_split *vl)
{
	json_t *per = json_array();

	vt_json_set(rj, "vl1_routes", vt_json_u64(vl->nvl1));
	vt_json_set(rj, "vls_used", json_integer(vl->nvls));
	for (unsigned v = 1; v < vl->nvls && v < VT_VL_MAX; v++)
		json_array_append_new(per, vt_json_u64(vl->nvl[v]));
	vt_json_set(rj, "vl_routes", per);
	vt_json_set(rj, "routes_not_covered", vt_json_u64(vl->nopen));
}

int analyze_print_json(FILE *fp, const struct opts *o, const vt_fabric *f, struct routing *rs,
		       unsigned nr, vt_err *e)
{
	json_t *top = json_object(), *routings = json_array();

	vt_json_set(top, "fabric", vt_json_text(f->source));
	vt_json_set(top, "ca_ports", json_integer(vt_fabric_count_cas(f)));
	vt_json_set(top, "switches", json_integer(f->nswitches));
	for (unsigned k = 0; k < nr; k++) {
		const struct routing *r = &rs[k];
		json_t *rj = json_object(), *pats = json_array();

		vt_json_set(rj, "name", vt_json_text(r->name));
		vt_json_set(rj, "ranks", json_integer(r->order.n));
		vt_json_set(rj, "hosts", json_integer(active_ranks(&r->order)));
		vt_json_set(rj, "audit", json_audit(f, &r->audit));
		if (r->vl.bits)
			json_vls(rj, &r->vl);
		for (unsigned i = 0; i < r->npat; i++)
			json_array_append_new(pats, json_pattern(o, f, r, i));
		vt_json_set(rj, "patterns", pats);
		json_array_append_new(routings, rj);
	}
	vt_json_set(top, "routings", routings);
	return vt_json_dump(top, fp, e);
}

/* ---- plots */

/* A file-name part from a pattern or routing name: letters and digits, '_' for the rest. */
static void file_part(char *out, size_t n, const char *name)
{
	size_t l = 0;

	for (const char *s = name; *s && l + 1 < n; s++)
		out[l++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
					   (*s >= '0' && *s <= '9')
				   ? *s
				   : '_';
	out[l] = 0;
}

/* A routing's name on a plot: its --label, else the file name without directories. */
static const char *plot_name(const struct routing *r)
{
	const char *slash = strrchr(r->name, '/');

	return slash && slash[1] ? slash + 1 : r->name;
}

/* PATTERN-stages.EXT: each routing's max link load per stage beside the cut bound. */
static int plot_stages(const struct opts *o, struct routing *rs, unsigned nr, unsigned i, vt_err *e)
{
	const vt_congest *c0 = &rs[0].res[i];
	struct vt_plot_series ser[3];
	double *y[3] = {0};
	char path[4096], file[160], title[300];
	int rc = 0;

	for (unsigned k = 0; k < nr + 1 && !rc; k++) {
		const vt_congest *c = &rs[k < nr ? k : 0].res[i];

		y[k] = malloc(((size_t)c->nstages + 1) * sizeof(double));
		if (!y[k]) {
			rc = vt_err_set(e, "out of memory");
			break;
		}
		for (uint32_t s = 0; s < c->nstages; s++)
			y[k][s] = k < nr ? c->stage_max[s] : c->stage_bound[s];
		ser[k].name = k < nr ? plot_name(&rs[k]) : "cut lower bound";
		ser[k].y = y[k];
	}
	file_part(file, sizeof(file), c0->pattern);
	snprintf(path, sizeof(path), "%s/%s-stages.%s", o->plot, file, o->plot_ext);
	snprintf(title, sizeof(title), "%s: max link load per stage", c0->pattern);
	struct vt_plot_lines pl = {.title = title,
				   .xlabel = "stage",
				   .ylabel = "max link load (flows)",
				   .npoints = c0->nstages,
				   .series = ser,
				   .nseries = nr + 1,
				   .step = 1};
	if (!rc)
		rc = vt_plot_lines(&pl, path, e);
	for (unsigned k = 0; k < 3; k++)
		free(y[k]);
	return rc ? -1 : 0;
}

/* PATTERN-links-ROUTING.EXT: each link's max load over the stages, a strip per level pair. */
static int plot_links(const struct opts *o, const vt_fabric *f, const vt_tree *tree,
		      const struct routing *r, unsigned i, vt_err *e)
{
	const vt_congest *c = &r->res[i];
	double *v = malloc((f->nports ? f->nports : 1) * sizeof(double));
	char path[4096], file[160], rname[160], title[400];
	vt_heat h;

	if (!v)
		return vt_err_set(e, "out of memory");
	for (uint32_t p = 0; p < f->nports; p++)
		v[p] = c->chan_max[p];
	int rc = vt_heat_build(&h, f, tree, v, e);
	free(v);
	if (rc)
		return -1;
	file_part(file, sizeof(file), c->pattern);
	file_part(rname, sizeof(rname), plot_name(r));
	snprintf(path, sizeof(path), "%s/%s-links-%s.%s", o->plot, file, rname, o->plot_ext);
	snprintf(title, sizeof(title), "%s under %s: max load per link over the stages", c->pattern,
		 plot_name(r));
	h.plot.title = title;
	h.plot.unit = "max link load (flows)";
	rc = h.plot.nrows ? vt_plot_heatmap(&h.plot, path, e) : 0;
	vt_heat_free(&h);
	return rc;
}

int analyze_plot_all(const struct opts *o, const vt_fabric *f, const vt_tree *tree,
		     struct routing *rs, unsigned nr, vt_err *e)
{
	if (mkdir(o->plot, 0777) && errno != EEXIST)
		return vt_err_set(e, "%s: %s", o->plot, strerror(errno));
	for (unsigned i = 0; i < rs[0].npat; i++) {
		if (plot_stages(o, rs, nr, i, e))
			return -1;
		for (unsigned k = 0; k < nr; k++)
			if (plot_links(o, f, tree, &rs[k], i, e))
				return -1;
	}
	return 0;
}

/* --svg: the tree drawn with the first routing's loads under the first pattern. */
int analyze_draw_svg(const struct opts *o, const vt_fabric *f, const vt_tree *tree,
		     const struct routing *r, vt_err *e)
{
	const vt_congest *c = &r->res[0];
	double *v = malloc((f->nports ? f->nports : 1) * sizeof(double));
	char title[400];
	int rc;

	if (!v)
		return vt_err_set(e, "out of memory");
	for (uint32_t p = 0; p < f->nports; p++)
		v[p] = c->chan_max[p];
	snprintf(title, sizeof(title), "%s under %s: max load per link over the %u stages",
		 c->pattern, plot_name(r), c->nstages);
	rc = vt_svg_tree(f, tree, v,
			 &(struct vt_svg_opts){
				 .title = title, .unit = "max link load (flows)", .hot = o->hot},
			 o->svg, NULL, e);
	free(v);
	return rc;
}

/* ---- main */
