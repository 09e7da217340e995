/* SPDX-License-Identifier: MIT */
/* Communication patterns (see vt_pattern.h for the definition of each). */
#include "model/vt_pattern.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vt_io.h"
#include "base/vt_rand.h"

static uint32_t ceil_log2(uint32_t n)
{
	uint32_t k = 0;

	while (k < 32 && (1ull << k) < n)
		k++;
	return k;
}

/* Largest divisor of n not above its square root. */
static uint32_t divisor_below_sqrt(uint32_t n)
{
	uint32_t best = 1;

	for (uint64_t d = 1; d * d <= n; d++)
		if (n % d == 0)
			best = (uint32_t)d;
	return best;
}

static void default_grid(uint32_t n, unsigned nd, uint32_t dim[3])
{
	dim[2] = 1;
	if (nd == 2) {
		dim[1] = divisor_below_sqrt(n);
		dim[0] = n / dim[1];
		return;
	}
	uint32_t z = 1;
	for (uint64_t d = 1; d * d * d <= n; d++)
		if (n % d == 0)
			z = (uint32_t)d;
	uint32_t m = n / z, y = divisor_below_sqrt(m);
	uint32_t v[3] = {m / y, y, z};
	/* sort descending so X >= Y >= Z */
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2 - i; j++)
			if (v[j] < v[j + 1]) {
				uint32_t t = v[j];
				v[j] = v[j + 1];
				v[j + 1] = t;
			}
	memcpy(dim, v, sizeof(v));
}

/* Parses "u" at *s; advances *s. */
static int parse_u64(const char **s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)**s))
		return -1;
	errno = 0;
	*v = strtoull(*s, &end, 10);
	if (errno)
		return -1;
	*s = end;
	return 0;
}

static int bad(vt_err *e, const char *spec, const char *why)
{
	return vt_err_set(e, "pattern '%s': %s", spec, why);
}

static int parse_grid(vt_pattern *p, const char *spec, const char *a, unsigned nd, vt_err *e)
{
	uint64_t prod = 1;

	p->dim[2] = 1;
	if (!a) {
		default_grid(p->nranks, nd, p->dim);
	} else {
		for (unsigned i = 0; i < nd; i++) {
			uint64_t v;
			if (i && *a++ != 'x')
				return bad(e, spec,
					   nd == 2 ? "expected grid XxY" : "expected grid XxYxZ");
			if (parse_u64(&a, &v) || v == 0 || v > UINT32_MAX)
				return bad(e, spec, "grid sizes must be positive integers");
			p->dim[i] = (uint32_t)v;
		}
		if (*a)
			return bad(e, spec, "trailing text after the grid");
	}
	for (unsigned i = 0; i < 3; i++)
		prod *= p->dim[i];
	if (prod > p->nranks)
		return vt_err_set(e, "pattern '%s': grid of %" PRIu64 " ranks exceeds the %u ranks",
				  spec, prod, p->nranks);
	if (prod < 2)
		return bad(e, spec, "grid needs at least 2 ranks");
	return 0;
}

/* "seed=S,count=C" in any order, both optional. */
static int parse_seeded(vt_pattern *p, const char *spec, const char *a, uint32_t defcount,
			vt_err *e)
{
	uint64_t v;

	p->seed = 1;
	p->nstages = defcount;
	while (a && *a) {
		if (!strncmp(a, "seed=", 5)) {
			a += 5;
			if (parse_u64(&a, &v))
				return bad(e, spec, "seed must be an unsigned integer");
			p->seed = v;
		} else if (!strncmp(a, "count=", 6)) {
			a += 6;
			if (parse_u64(&a, &v) || v == 0 || v > 100000000)
				return bad(e, spec, "count must be 1 .. 100000000");
			p->nstages = (uint32_t)v;
		} else {
			return bad(e, spec, "expected seed=S or count=C");
		}
		if (*a == ',')
			a++;
		else if (*a)
			return bad(e, spec, "expected ',' between options");
	}
	return 0;
}

/* State of one pattern file being read. */
struct pat_reader {
	vt_pattern *p;
	const char *path;
	unsigned line;
	size_t nflows, cap, capst;
	uint32_t nst;
	int open; /* the current stage has flows */
};

/* Cuts a '#' comment (*comment says whether there was one) and surrounding blanks. */
static char *strip_line(char *s, int *comment)
{
	char *h = strchr(s, '#');
	size_t l;

	*comment = h != NULL;
	if (h)
		*h = 0;
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	l = strlen(s);
	while (l && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\r'))
		s[--l] = 0;
	return s;
}

/* Appends the flow a -> b, opening a stage first if none is open. */
static int push_flow(struct pat_reader *r, uint64_t a, uint64_t b, vt_err *e)
{
	vt_pattern *p = r->p;

	if (!r->open) {
		if (r->nst + 2 > r->capst) {
			r->capst = r->capst ? 2 * r->capst : 16;
			uint32_t *n2 = realloc(p->stage_off, r->capst * sizeof(*n2));
			if (!n2)
				return vt_err_at(e, r->path, r->line, "out of memory");
			p->stage_off = n2;
		}
		p->stage_off[r->nst++] = (uint32_t)r->nflows;
		r->open = 1;
	}
	if (r->nflows == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 256;
		struct vt_flow *f2 = realloc(p->flows, r->cap * sizeof(*f2));
		if (!f2)
			return vt_err_at(e, r->path, r->line, "out of memory");
		p->flows = f2;
	}
	if (r->nflows >= UINT32_MAX)
		return vt_err_at(e, r->path, r->line, "too many flows");
	p->flows[r->nflows].src = (uint32_t)a;
	p->flows[r->nflows].dst = (uint32_t)b;
	r->nflows++;
	return 0;
}

/* One "src dst" line, already stripped and not empty. */
static int read_flow(struct pat_reader *r, const char *s, vt_err *e)
{
	uint32_t n = r->p->nranks;
	const char *c = s;
	uint64_t a, b;

	if (parse_u64(&c, &a))
		goto syntax;
	while (*c == ' ' || *c == '\t')
		c++;
	if (parse_u64(&c, &b) || *c)
		goto syntax;
	if (a >= n || b >= n)
		return vt_err_at(e, r->path, r->line, "rank %" PRIu64 " out of range (%u ranks)",
				 a >= n ? a : b, n);
	if (a == b)
		return vt_err_at(e, r->path, r->line, "flow from rank %" PRIu64 " to itself", a);
	return push_flow(r, a, b, e);
syntax:
	return vt_err_at(e, r->path, r->line, "expected 'src dst' ranks, a blank line or 'stage'");
}

static int parse_file(vt_pattern *p, const char *path, vt_err *e)
{
	struct pat_reader r = {.p = p, .path = path};
	char *buf;
	size_t len;
	int rc = 0;

	if (vt_read_text(path, &buf, &len, e))
		return -1;
	p->stage_off = NULL;
	p->flows = NULL;
	for (char *s = buf, *nl; s && *s; s = nl) {
		int comment;

		nl = strchr(s, '\n');
		if (nl)
			*nl++ = 0;
		r.line++;
		s = strip_line(s, &comment);
		/* a blank line or "stage" ends a stage; a comment-only line does not */
		if (!strcmp(s, "stage") || (!*s && !comment)) {
			r.open = 0;
			continue;
		}
		if (*s && (rc = read_flow(&r, s, e)))
			break;
	}
	if (!rc && !r.nst)
		rc = vt_err_set(e, "%s: no flows", path);
	free(buf);
	if (rc) {
		free(p->flows);
		free(p->stage_off);
		p->flows = NULL;
		p->stage_off = NULL;
		return -1;
	}
	p->stage_off[r.nst] = (uint32_t)r.nflows;
	p->nstages = r.nst;
	p->max_flows = 0;
	for (uint32_t t = 0; t < r.nst; t++)
		if (p->stage_off[t + 1] - p->stage_off[t] > p->max_flows)
			p->max_flows = p->stage_off[t + 1] - p->stage_off[t];
	return 0;
}

static void canon_name(vt_pattern *p, const char *base)
{
	switch (p->kind) {
	case VT_PAT_SHIFT:
		if (p->first == 1 && p->nstages == p->nranks - 1)
			snprintf(p->name, sizeof(p->name), "shift");
		else if (p->nstages == 1)
			snprintf(p->name, sizeof(p->name), "shift:%u", p->first);
		else
			snprintf(p->name, sizeof(p->name), "shift:%u-%u", p->first,
				 p->first + p->nstages - 1);
		break;
	case VT_PAT_MESH2D:
	case VT_PAT_WAVE2D:
		snprintf(p->name, sizeof(p->name), "%s:%ux%u", base, p->dim[0], p->dim[1]);
		break;
	case VT_PAT_MESH3D:
	case VT_PAT_WAVE3D:
		snprintf(p->name, sizeof(p->name), "%s:%ux%ux%u", base, p->dim[0], p->dim[1],
			 p->dim[2]);
		break;
	case VT_PAT_BISECTION:
	case VT_PAT_RANDPERM:
		snprintf(p->name, sizeof(p->name), "%s:seed=%" PRIu64 ",count=%u", base, p->seed,
			 p->nstages);
		break;
	default:
		snprintf(p->name, sizeof(p->name), "%s", base);
	}
}

static const struct {
	const char *name;
	enum vt_pattern_kind kind;
} kinds[] = {
	{"shift", VT_PAT_SHIFT},	{"butterfly", VT_PAT_BUTTERFLY},
	{"mesh2d", VT_PAT_MESH2D},	{"mesh3d", VT_PAT_MESH3D},
	{"wavefront2d", VT_PAT_WAVE2D}, {"wavefront3d", VT_PAT_WAVE3D},
	{"bintree", VT_PAT_BINTREE},	{"bisection", VT_PAT_BISECTION},
	{"randperm", VT_PAT_RANDPERM},	{"all2all", VT_PAT_ALL2ALL},
	{"file", VT_PAT_FILE},
};

static int parse_args(vt_pattern *p, const char *spec, const char *a, vt_err *e)
{
	uint64_t lo, hi;
	uint32_t n = p->nranks;

	switch (p->kind) {
	case VT_PAT_SHIFT:
		p->first = 1;
		p->nstages = n - 1;
		if (a) {
			if (parse_u64(&a, &lo))
				return bad(e, spec, "expected shift:S or shift:A-B");
			hi = lo;
			if (*a == '-') {
				a++;
				if (parse_u64(&a, &hi))
					return bad(e, spec, "expected shift:S or shift:A-B");
			}
			if (*a)
				return bad(e, spec, "expected shift:S or shift:A-B");
			if (lo < 1 || hi < lo || hi > n - 1)
				return vt_err_set(e, "pattern '%s': shifts must lie in 1 .. %u",
						  spec, n - 1);
			p->first = (uint32_t)lo;
			p->nstages = (uint32_t)(hi - lo + 1);
		}
		p->max_flows = n;
		return 0;
	case VT_PAT_BUTTERFLY:
	case VT_PAT_BINTREE:
	case VT_PAT_ALL2ALL:
		if (a)
			return bad(e, spec, "takes no arguments");
		if (p->kind == VT_PAT_ALL2ALL) {
			if ((uint64_t)n * (n - 1) > UINT32_MAX)
				return bad(e, spec, "too many flows for one stage");
			p->nstages = 1;
			p->max_flows = n * (n - 1);
		} else {
			p->nstages = ceil_log2(n);
			p->max_flows = n;
		}
		return 0;
	case VT_PAT_MESH2D:
	case VT_PAT_MESH3D:
	case VT_PAT_WAVE2D:
	case VT_PAT_WAVE3D: {
		unsigned nd = p->kind == VT_PAT_MESH2D || p->kind == VT_PAT_WAVE2D ? 2 : 3;
		if (parse_grid(p, spec, a, nd, e))
			return -1;
		if (p->kind == VT_PAT_MESH2D || p->kind == VT_PAT_MESH3D)
			p->nstages = 2 * nd;
		else
			p->nstages = 2 * (p->dim[0] + p->dim[1] + p->dim[2] - 3);
		p->max_flows = n;
		if (p->kind == VT_PAT_WAVE2D || p->kind == VT_PAT_WAVE3D)
			p->max_flows = (uint64_t)nd * n > UINT32_MAX ? UINT32_MAX : nd * n;
		return 0;
	}
	case VT_PAT_BISECTION:
	case VT_PAT_RANDPERM:
		p->max_flows = n;
		return parse_seeded(p, spec, a, p->kind == VT_PAT_BISECTION ? 100 : 10, e);
	case VT_PAT_FILE:
		if (!a || !*a)
			return bad(e, spec, "expected file:PATH");
		return parse_file(p, a, e);
	}
	return bad(e, spec, "unknown kind");
}

/* A control character (a newline from a script) would split the one-line error. */
static int refuse_control(const char *spec, vt_err *e)
{
	char shown[128];
	size_t n = 0;

	for (const unsigned char *c = (const unsigned char *)spec; *c && n + 5 < sizeof(shown); c++)
		if (*c < 0x20 || *c == 0x7f)
			n += (size_t)snprintf(shown + n, sizeof(shown) - n, "\\x%02x", *c);
		else
			shown[n++] = (char)*c;
	shown[n] = '\0';
	return vt_err_set(e, "pattern '%s': control character in the pattern", shown);
}

int vt_pattern_parse(vt_pattern *p, const char *spec, uint32_t nranks, vt_err *e)
{
	const char *colon = strchr(spec, ':');
	size_t blen = colon ? (size_t)(colon - spec) : strlen(spec);
	unsigned i;

	memset(p, 0, sizeof(*p));
	for (const char *c = spec; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return refuse_control(spec, e);
	if (nranks < 2)
		return vt_err_set(e, "pattern '%s': needs at least 2 ranks, have %u", spec, nranks);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strlen(kinds[i].name) == blen && !strncmp(kinds[i].name, spec, blen))
			break;
	if (i == sizeof(kinds) / sizeof(kinds[0]))
		return bad(e, spec,
			   "unknown pattern (shift, butterfly, mesh2d, mesh3d, wavefront2d, "
			   "wavefront3d, bintree, bisection, randperm, all2all, file:PATH)");
	p->kind = kinds[i].kind;
	p->nranks = nranks;
	if (parse_args(p, spec, colon ? colon + 1 : NULL, e)) {
		memset(p, 0, sizeof(*p));
		return -1;
	}
	if (p->kind == VT_PAT_FILE)
		snprintf(p->name, sizeof(p->name), "%s", spec);
	else
		canon_name(p, kinds[i].name);
	return 0;
}

void vt_pattern_free(vt_pattern *p)
{
	free(p->flows);
	free(p->stage_off);
	p->flows = NULL;
	p->stage_off = NULL;
}

uint32_t vt_pattern_nstages(const vt_pattern *p)
{
	return p->nstages;
}

uint32_t vt_pattern_max_flows(const vt_pattern *p)
{
	return p->max_flows;
}

static void stage_rand(const vt_pattern *p, uint32_t s, vt_rand *r)
{
	/* each stage seeded on its own, so stages can be generated in any order */
	vt_rand_seed(r, p->seed ^ ((uint64_t)(s + 1) * 0xd1342543de82ef95ull));
}

static uint32_t *iota(uint32_t n)
{
	uint32_t *a = malloc((size_t)n * sizeof(*a));

	if (a)
		for (uint32_t i = 0; i < n; i++)
			a[i] = i;
	return a;
}

static uint32_t mesh_stage(const vt_pattern *p, uint32_t s, struct vt_flow *out)
{
	uint32_t X = p->dim[0], Y = p->dim[1], Z = p->dim[2], m = 0;
	unsigned axis = s / 2;
	int neg = s & 1;
	uint32_t size[3] = {X, Y, Z}, stride[3] = {1, X, X * Y};

	for (uint32_t z = 0; z < Z; z++)
		for (uint32_t y = 0; y < Y; y++)
			for (uint32_t x = 0; x < X; x++) {
				uint32_t c[3] = {x, y, z}, r = x + X * (y + Y * z);
				if (neg ? c[axis] == 0 : c[axis] + 1 == size[axis])
					continue;
				out[m].src = r;
				out[m].dst = neg ? r - stride[axis] : r + stride[axis];
				m++;
			}
	return m;
}

static uint32_t wave_stage(const vt_pattern *p, uint32_t s, struct vt_flow *out)
{
	uint32_t X = p->dim[0], Y = p->dim[1], Z = p->dim[2], m = 0;
	uint32_t half = p->nstages / 2, top = X + Y + Z - 3;
	int back = s >= half;
	uint32_t d = back ? top - (s - half) : s;
	uint32_t size[3] = {X, Y, Z}, stride[3] = {1, X, X * Y};

	for (uint32_t z = 0; z < Z && z <= d; z++)
		for (uint32_t y = 0; y < Y && y + z <= d; y++) {
			uint32_t x = d - y - z;
			if (x >= X)
				continue;
			uint32_t c[3] = {x, y, z}, r = x + X * (y + Y * z);
			for (unsigned a = 0; a < 3; a++) {
				if (size[a] == 1)
					continue;
				if (back ? c[a] == 0 : c[a] + 1 == size[a])
					continue;
				out[m].src = r;
				out[m].dst = back ? r - stride[a] : r + stride[a];
				m++;
			}
		}
	return m;
}

uint32_t vt_pattern_stage(const vt_pattern *p, uint32_t s, struct vt_flow *out)
{
	uint32_t n = p->nranks, m = 0;
	vt_rand r;
	uint32_t *perm;

	if (s >= p->nstages)
		return 0;
	switch (p->kind) {
	case VT_PAT_SHIFT: {
		uint32_t d = p->first + s;
		for (uint32_t i = 0; i < n; i++) {
			out[i].src = i;
			out[i].dst = i + d < n ? i + d : i + d - n;
		}
		return n;
	}
	case VT_PAT_BUTTERFLY:
		for (uint32_t i = 0; i < n; i++)
			if ((i ^ (1u << s)) < n) {
				out[m].src = i;
				out[m].dst = i ^ (1u << s);
				m++;
			}
		return m;
	case VT_PAT_BINTREE:
		for (uint64_t i = 1ull << s; i < n; i += 2ull << s) {
			out[m].src = (uint32_t)i;
			out[m].dst = (uint32_t)(i - (1ull << s));
			m++;
		}
		return m;
	case VT_PAT_MESH2D:
	case VT_PAT_MESH3D:
		return mesh_stage(p, s, out);
	case VT_PAT_WAVE2D:
	case VT_PAT_WAVE3D:
		return wave_stage(p, s, out);
	case VT_PAT_BISECTION:
		perm = iota(n);
		if (!perm)
			return 0;
		stage_rand(p, s, &r);
		vt_rand_shuffle_u32(&r, perm, n);
		for (uint32_t j = 0; j < n / 2; j++) {
			out[m].src = perm[j];
			out[m++].dst = perm[j + n / 2];
			out[m].src = perm[j + n / 2];
			out[m++].dst = perm[j];
		}
		free(perm);
		return m;
	case VT_PAT_RANDPERM:
		perm = iota(n);
		if (!perm)
			return 0;
		stage_rand(p, s, &r);
		vt_rand_shuffle_u32(&r, perm, n);
		for (uint32_t i = 0; i < n; i++)
			if (perm[i] != i) {
				out[m].src = i;
				out[m++].dst = perm[i];
			}
		free(perm);
		return m;
	case VT_PAT_ALL2ALL:
		return vt_pattern_stage_part(p, s, 0, UINT32_MAX, out);
	case VT_PAT_FILE:
		m = p->stage_off[s + 1] - p->stage_off[s];
		memcpy(out, p->flows + p->stage_off[s], (size_t)m * sizeof(*out));
		return m;
	}
	return 0;
}

uint32_t vt_pattern_stage_part(const vt_pattern *p, uint32_t s, uint64_t first, uint32_t max,
			       struct vt_flow *out)
{
	uint32_t n = p->nranks;

	if (s >= p->nstages)
		return 0;
	if (p->kind == VT_PAT_ALL2ALL) {
		uint64_t total = (uint64_t)n * (n - 1), m = 0;
		for (uint64_t f = first; f < total && m < max; f++, m++) {
			uint32_t src = (uint32_t)(f / (n - 1)), k = (uint32_t)(f % (n - 1));
			out[m].src = src;
			out[m].dst = k < src ? k : k + 1;
		}
		return (uint32_t)m;
	}
	struct vt_flow *all = malloc((size_t)p->max_flows * sizeof(*all));
	if (!all)
		return 0;
	uint32_t cnt = vt_pattern_stage(p, s, all), m = 0;
	for (uint64_t f = first; f < cnt && m < max; f++)
		out[m++] = all[f];
	free(all);
	return m;
}
