/* SPDX-License-Identifier: MIT */
/*
 * Topology generators. Every family first becomes a plan: switch counts per
 * level, one radix, hosts per leaf on the low ports, and a list of
 * switch-to-switch links. One builder then turns a plan into a fabric, once
 * per rail plane, applying the seeded removals, so naming, GUIDs and the
 * degrading options work the same way for every family.
 */
#include "vt_gen.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vt_rand.h"

#define OUI	   0x0002c9ull
#define MAX_RAILS  8
#define MAX_LINKS  (1u << 24)
#define LID_BUDGET VT_MAX_UC_LID

struct glink {
	uint32_t a, b; /* switch index in plan order (level-major) */
	uint8_t pa, pb;
};

struct plan {
	unsigned levels;
	uint32_t count[VT_GEN_MAX_LEVELS];
	uint32_t first[VT_GEN_MAX_LEVELS]; /* plan index of the level's first switch */
	uint32_t nsw;
	unsigned radix;
	unsigned hpl; /* host ports per leaf: ports 1..hpl */
	struct glink *links;
	uint32_t nlinks, cap;
};

/* ---- spec parsing */

static int bad(vt_err *e, const char *text, const char *why)
{
	return vt_err_set(e, "bad spec '%s': %s", text, why);
}

/* Reads unsigned numbers separated by sep into v (at most max); returns count or -1. */
static int numlist(const char *s, size_t len, char sep, unsigned *v, int max)
{
	int n = 0;
	size_t i = 0;

	while (i < len) {
		unsigned long x = 0;
		size_t st = i;

		while (i < len && isdigit((unsigned char)s[i])) {
			x = x * 10 + (unsigned)(s[i] - '0');
			if (x > 1000000)
				return -1;
			i++;
		}
		if (i == st || n == max)
			return -1;
		v[n++] = (unsigned)x;
		if (i < len) {
			if (s[i] != sep || i + 1 == len)
				return -1;
			i++;
		}
	}
	return n;
}

/* "a:b,c" forms: splits at the first ':' */
static int split2(const char *s, char c, size_t *la)
{
	const char *p = strchr(s, c);

	if (!p)
		return -1;
	*la = (size_t)(p - s);
	return 0;
}

static int parse_varary(struct vt_gen_spec *s, const char *arg, vt_err *e)
{
	unsigned v[3][VT_GEN_MAX_LEVELS];
	int n[3] = {0, 0, 0}, parts = 0;
	const char *p = arg;

	while (parts < 3) {
		const char *q = strchr(p, ':');
		size_t len = q ? (size_t)(q - p) : strlen(p);

		n[parts] = len ? numlist(p, len, ',', v[parts], VT_GEN_MAX_LEVELS) : 0;
		if (n[parts] < 0)
			return -1;
		parts++;
		if (!q)
			break;
		p = q + 1;
		if (parts == 3)
			return -1;
	}
	if (n[0] < 1 || (n[0] > 1 && (parts < 2 || n[1] != n[0] - 1)) ||
	    (parts == 3 && n[2] != n[0] - 1))
		return -1;
	s->levels = (unsigned)n[0];
	for (unsigned r = 0; r < s->levels; r++) {
		s->down[r] = v[0][r];
		s->up[r] = r + 1 < s->levels ? v[1][r] : 0;
		s->par[r] = r + 1 < s->levels ? (parts == 3 ? v[2][r] : 1) : 0;
		if (!s->down[r] || (r + 1 < s->levels && (!s->up[r] || !s->par[r])))
			return vt_err_set(e, "bad spec '%s': counts must be at least 1", s->text);
	}
	return 0;
}

static void as_varary(struct vt_gen_spec *s, unsigned k, unsigned kp, unsigned n)
{
	s->levels = n;
	for (unsigned r = 0; r < n; r++) {
		s->down[r] = k;
		s->up[r] = r + 1 < n ? kp : 0;
		s->par[r] = r + 1 < n ? 1 : 0;
	}
}

static int parse_family(struct vt_gen_spec *s, const char *fam, const char *arg, vt_err *e)
{
	unsigned v[4];
	size_t la;

	if (!strcmp(fam, "fat")) {
		if (!arg || numlist(arg, strlen(arg), ',', v, 2) != 2)
			return bad(e, s->text, "expected K,N");
		if (v[0] < 1 || v[1] < 1)
			return bad(e, s->text, "K and N must be at least 1");
		if (v[1] > VT_GEN_MAX_LEVELS)
			return bad(e, s->text, "N too big");
		s->family = VT_GEN_FAT;
		s->k = s->kp = v[0];
		s->n = v[1];
		as_varary(s, v[0], v[0], v[1]);
		return 0;
	}
	if (!strcmp(fam, "thin") || !strcmp(fam, "slender")) {
		int thin = fam[0] == 't';

		if (!arg || split2(arg, ':', &la) || numlist(arg, la, ',', v, 1) != 1 ||
		    numlist(arg + la + 1, strlen(arg + la + 1), ',', v + 1, 2) != 2)
			return bad(e, s->text, "expected K:K',N");
		if (v[0] < 1 || v[1] < 1 || v[2] < 1)
			return bad(e, s->text, "K, K' and N must be at least 1");
		if (v[2] > VT_GEN_MAX_LEVELS)
			return bad(e, s->text, "N too big");
		if (!thin && (v[1] >= v[0] || v[0] % v[1]))
			return bad(e, s->text, "a slender-tree needs K' < K and K' dividing K");
		s->family = thin ? VT_GEN_THIN : VT_GEN_SLENDER;
		s->k = v[0];
		s->kp = v[1];
		s->n = v[2];
		if (thin)
			as_varary(s, v[0], v[1], v[2]);
		else
			s->levels = v[2];
		return 0;
	}
	if (!strcmp(fam, "varary")) {
		if (!arg || parse_varary(s, arg, e))
			return e->msg[0] ? -1 : bad(e, s->text, "expected D0,D1,..:U0,..[:P0,..]");
		s->family = VT_GEN_VARARY;
		return 0;
	}
	if (!strcmp(fam, "pruned")) {
		if (!arg || numlist(arg, strlen(arg), ',', v, 2) != 2)
			return bad(e, s->text, "expected RADIX,PODS");
		if (v[0] < 4 || v[0] % 2)
			return bad(e, s->text, "RADIX must be even and at least 4");
		if (v[1] < 1 || v[1] > v[0])
			return bad(e, s->text, "PODS must be 1..RADIX");
		s->family = VT_GEN_PRUNED;
		s->radix = v[0];
		s->pods = v[1];
		s->levels = 3;
		return 0;
	}
	if (!strcmp(fam, "oversub")) {
		if (!arg || numlist(arg, strlen(arg), ',', v, 4) != 4)
			return bad(e, s->text,
				   "expected LEAVES,HOSTS_PER_LEAF,UPLINKS_PER_LEAF,SPINES");
		if (!v[0] || !v[1] || !v[2] || !v[3])
			return bad(e, s->text, "counts must be at least 1");
		s->family = VT_GEN_OVERSUB;
		s->leaves = v[0];
		s->hpl = v[1];
		s->upl = v[2];
		s->spines = v[3];
		s->levels = 2;
		return 0;
	}
	if (!strcmp(fam, "clique")) {
		if (!arg || numlist(arg, strlen(arg), ',', v, 1) != 1)
			return bad(e, s->text, "expected N");
		if (v[0] < 4 || v[0] % 2)
			return bad(e, s->text, "N must be even and at least 4");
		s->family = VT_GEN_CLIQUE;
		s->k = v[0];
		s->levels = 1;
		return 0;
	}
	if (vt_gen_real_family(s, fam, arg, e) != 1)
		return e->msg[0] ? -1 : 0;
	return vt_err_set(e,
			  "bad spec '%s': unknown family '%s' (fat, thin, slender, varary, "
			  "pruned, oversub, clique, gpu, rails)",
			  s->text, fam);
}

static int level_opt(const char *v, unsigned *n, uint32_t *lvl)
{
	unsigned x[2];
	const char *at = strchr(v, '@');
	size_t l1 = at ? (size_t)(at - v) : strlen(v);

	if (numlist(v, l1, ',', x, 1) != 1)
		return -1;
	*n = x[0];
	if (at) {
		if (numlist(at + 1, strlen(at + 1), ',', x + 1, 1) != 1)
			return -1;
		*lvl = x[1];
	}
	return 0;
}

int vt_gen_option(struct vt_gen_spec *s, const char *opt, vt_err *e)
{
	const char *eq, *v;
	unsigned x;
	size_t kl;

	while (*opt == '-')
		opt++;
	eq = strchr(opt, '=');
	if (!eq) {
		int rc = vt_gen_real_option(s, opt, strlen(opt), NULL, e);

		return rc == 1 ? vt_err_set(e, "bad option '%s': expected NAME=VALUE", opt) : rc;
	}
	kl = (size_t)(eq - opt);
	v = eq + 1;
#define KEY(k) (kl == strlen(k) && !strncmp(opt, k, kl))
	if (KEY("drop-links"))
		return level_opt(v, &s->drop_links, &s->drop_link_level)
			       ? vt_err_set(e, "bad option '%s': expected N[@LEVEL]", opt)
			       : 0;
	if (KEY("drop-switches"))
		return level_opt(v, &s->drop_switches, &s->drop_switch_level)
			       ? vt_err_set(e, "bad option '%s': expected N[@LEVEL]", opt)
			       : 0;
	if (KEY("speed")) {
		enum vt_speed sp = vt_speed_parse(v, (unsigned)strlen(v));

		if (sp == VT_SPEED_UNKNOWN)
			return vt_err_set(e, "bad option '%s': unknown speed", opt);
		s->speed = sp;
		return 0;
	}
	if (KEY("seed")) {
		char *end;
		unsigned long long sd = strtoull(v, &end, 0);

		if (!*v || *end || *v == '-')
			return vt_err_set(e, "bad option '%s': expected a number", opt);
		s->seed = sd;
		return 0;
	}
	if (!KEY("hosts-per-leaf") && !KEY("drop-hosts") && !KEY("width")) {
		int rc = vt_gen_real_option(s, opt, kl, v, e);

		return rc == 1 ? vt_err_set(e, "unknown option '%.*s'", (int)kl, opt) : rc;
	}
	if (numlist(v, strlen(v), ',', &x, 1) != 1)
		return vt_err_set(e, "bad option '%s': expected a number", opt);
	if (KEY("hosts-per-leaf")) {
		if (!x)
			return vt_err_set(e, "bad option '%s': at least 1", opt);
		s->hosts_per_leaf = x;
	} else if (KEY("drop-hosts")) {
		s->drop_hosts = x;
	} else if (KEY("width")) {
		if (x != 1 && x != 2 && x != 4 && x != 8 && x != 12)
			return vt_err_set(e, "bad option '%s': width is 1, 2, 4, 8 or 12", opt);
		s->width = x;
	}
#undef KEY
	return 0;
}

int vt_gen_parse(struct vt_gen_spec *s, const char *text, vt_err *e)
{
	char buf[sizeof(s->text)], *tok[16], *save = NULL;
	int nt = 0, i = 0, has_arg;
	size_t o = 0;

	memset(s, 0, sizeof(*s));
	s->rails = 1;
	s->seed = 1;
	s->width = 4;
	s->speed = VT_QDR;
	s->drop_link_level = VT_GEN_ANY_LEVEL;
	s->drop_switch_level = VT_GEN_ANY_LEVEL;
	s->director_level = VT_GEN_ANY_LEVEL;
	e->msg[0] = 0;
	/* normalised copy: single blanks */
	for (const char *p = text; *p; p++) {
		if (isspace((unsigned char)*p)) {
			if (o && s->text[o - 1] != ' ' && o + 1 < sizeof(s->text))
				s->text[o++] = ' ';
		} else if (o + 1 < sizeof(s->text)) {
			s->text[o++] = *p;
		} else {
			return vt_err_set(e, "bad spec: longer than %zu characters",
					  sizeof(s->text) - 1);
		}
	}
	while (o && s->text[o - 1] == ' ')
		o--;
	s->text[o] = 0;
	memcpy(buf, s->text, sizeof(buf));
	for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		if (nt == 16)
			return bad(e, s->text, "too many words");
		tok[nt++] = t;
	}
	if (!nt)
		return vt_err_set(e, "bad spec '': empty");
	if (!strcmp(tok[0], "rails")) {
		unsigned r;

		if (nt < 3 || numlist(tok[1], strlen(tok[1]), ',', &r, 1) != 1)
			return bad(e, s->text, "expected rails R FAMILY ...");
		if (r < 1 || r > MAX_RAILS)
			return bad(e, s->text, "R must be 1..8");
		s->rails = r;
		i = 2;
	}
	has_arg = i + 1 < nt && !strchr(tok[i + 1], '=') && !vt_gen_real_is_flag(tok[i + 1]);
	if (parse_family(s, tok[i], has_arg ? tok[i + 1] : NULL, e))
		return -1;
	i += 1 + has_arg;
	for (; i < nt; i++)
		if (vt_gen_option(s, tok[i], e))
			return -1;
	return 0;
}

/* ---- plans */

static int add_link(struct plan *p, uint32_t a, unsigned pa, uint32_t b, unsigned pb, vt_err *e)
{
	if (p->nlinks == p->cap) {
		uint32_t c = p->cap ? p->cap * 2 : 256;
		void *n = c > MAX_LINKS ? NULL : realloc(p->links, c * sizeof(*p->links));

		if (!n)
			return vt_err_set(e, "out of memory");
		p->links = n;
		p->cap = c;
	}
	p->links[p->nlinks++] = (struct glink){a, b, (uint8_t)pa, (uint8_t)pb};
	return 0;
}

/* Sets counts and first indices; refuses fabrics that cannot be addressed. */
static int plan_levels(struct plan *p, const struct vt_gen_spec *s, const uint64_t *count,
		       uint64_t radix, vt_err *e)
{
	uint64_t nsw = 0, hosts;

	if (radix > VT_MAX_PORTS)
		return vt_err_set(e, "bad spec '%s': switch radix %llu exceeds %u", s->text,
				  (unsigned long long)radix, VT_MAX_PORTS);
	for (unsigned r = 0; r < p->levels; r++) {
		if (count[r] > LID_BUDGET)
			goto big;
		p->count[r] = (uint32_t)count[r];
		p->first[r] = (uint32_t)nsw;
		nsw += count[r];
	}
	hosts = count[0] * p->hpl;
	if ((nsw + hosts) * s->rails > LID_BUDGET)
		goto big;
	p->nsw = (uint32_t)nsw;
	p->radix = (unsigned)radix;
	return 0;
big:
	return vt_err_set(e, "bad spec '%s': too big (more nodes than the %u unicast LIDs)",
			  s->text, LID_BUDGET);
}

static int plan_varary(struct plan *p, const struct vt_gen_spec *s, vt_err *e)
{
	uint64_t count[VT_GEN_MAX_LEVELS] = {0}, radix = 0;
	unsigned n = s->levels;

	p->levels = n;
	p->hpl = s->down[0];
	for (unsigned r = 0; r < n; r++) {
		uint64_t c = 1, dp = r ? (uint64_t)s->down[r] * s->par[r - 1] : s->down[0];
		uint64_t up = r + 1 < n ? (uint64_t)s->up[r] * s->par[r] : 0;

		for (unsigned i = 0; i < r && c <= LID_BUDGET; i++)
			c *= s->up[i];
		for (unsigned i = r + 1; i < n && c <= LID_BUDGET; i++)
			c *= s->down[i];
		count[r] = c;
		if (dp + up > radix)
			radix = dp + up;
	}
	if (plan_levels(p, s, count, radix, e))
		return -1;
	/* Definition 2: level r and r+1 switches are linked iff their digits agree
	 * except digit r, which is the child's position below the parent (0..D[r+1))
	 * on the child and the parent's position above the child (0..U[r]) on the
	 * parent; digits below r range over U, the others over D. */
	for (unsigned r = 0; r + 1 < n; r++) {
		uint64_t lo = 1, hi_child = 1, hi_par = 1;
		unsigned dp = r ? s->down[r] * s->par[r - 1] : s->down[0];

		for (unsigned i = 0; i < r; i++)
			lo *= s->up[i];
		hi_child = lo * s->down[r + 1];
		hi_par = lo * s->up[r];
		for (uint32_t c = 0; c < p->count[r]; c++) {
			uint64_t low = c % lo, d = (c / lo) % s->down[r + 1], high = c / hi_child;

			for (unsigned u = 0; u < s->up[r]; u++) {
				uint64_t pi = low + u * lo + high * hi_par;

				for (unsigned j = 0; j < s->par[r]; j++)
					if (add_link(p, p->first[r] + c, dp + u * s->par[r] + j + 1,
						     p->first[r + 1] + (uint32_t)pi,
						     (unsigned)d * s->par[r] + j + 1, e))
						return -1;
			}
		}
	}
	return 0;
}

static int plan_slender(struct plan *p, const struct vt_gen_spec *s, vt_err *e)
{
	uint64_t count[VT_GEN_MAX_LEVELS] = {0}, q = s->k / s->kp;

	p->levels = s->n;
	p->hpl = s->k;
	for (unsigned l = 0; l < s->n; l++) {
		uint64_t c = s->kp;

		for (unsigned i = l + 1; i < s->n && c <= LID_BUDGET; i++)
			c *= q;
		count[l] = c;
	}
	if (plan_levels(p, s, count, (uint64_t)s->k + s->kp, e))
		return -1;
	/* Navaridas et al. 2.3: nswitch = k' * floor(switch / k) + port, nport = switch mod k */
	for (unsigned l = 0; l + 1 < s->n; l++)
		for (uint32_t c = 0; c < p->count[l]; c++)
			for (unsigned u = 0; u < s->kp; u++)
				if (add_link(p, p->first[l] + c, s->k + u + 1,
					     p->first[l + 1] + s->kp * (c / s->k) + u, c % s->k + 1,
					     e))
					return -1;
	return 0;
}

static int plan_pruned(struct plan *p, const struct vt_gen_spec *s, vt_err *e)
{
	unsigned g = s->radix / 2, P = s->pods;
	unsigned cg = (P * g + s->radix - 1) / s->radix, base = g / cg, rem = g % cg;
	uint64_t count[3] = {(uint64_t)P * g, (uint64_t)P * g, (uint64_t)g * cg};
	uint32_t *fill;

	p->levels = 3;
	p->hpl = g;
	if (plan_levels(p, s, count, s->radix, e))
		return -1;
	/* a pod: g leaves and g middle switches, complete bipartite */
	for (unsigned pod = 0; pod < P; pod++)
		for (unsigned i = 0; i < g; i++)
			for (unsigned j = 0; j < g; j++)
				if (add_link(p, pod * g + i, g + j + 1, p->first[1] + pod * g + j,
					     i + 1, e))
					return -1;
	/* middle switch j of every pod goes to the cg top switches of group j, in
	 * bundles of base or base+1 links; the larger bundles rotate with the pod
	 * so every top switch gets about P*g/cg links */
	fill = calloc(count[2], sizeof(*fill));
	if (!fill)
		return vt_err_set(e, "out of memory");
	for (unsigned pod = 0; pod < P; pod++)
		for (unsigned j = 0; j < g; j++) {
			unsigned port = g + 1;

			for (unsigned c = 0; c < cg; c++) {
				unsigned b = base + ((c + cg - pod % cg) % cg < rem);
				uint32_t top = j * cg + c;

				for (unsigned x = 0; x < b; x++) {
					if (fill[top] >= s->radix) {
						free(fill);
						return vt_err_set(e,
								  "bad spec '%s': pods do not fit "
								  "the top switches",
								  s->text);
					}
					if (add_link(p, p->first[1] + pod * g + j, port++,
						     p->first[2] + top, ++fill[top], e)) {
						free(fill);
						return -1;
					}
				}
			}
		}
	free(fill);
	return 0;
}

/*
 * A 2-level tree needs every two leaves to share a spine (and every spine a
 * link). Round robin of U < S up-links gives leaf l the S-cyclic window
 * [lU, lU+U): leaves 0 and 1 get disjoint windows unless 2U > S, and any two
 * windows of more than S/2 spines meet. One up-link over 4 spines would leave
 * each spine an island of its own leaves.
 */
static int oversub_connected(const struct vt_gen_spec *s, vt_err *e)
{
	if (s->upl >= s->spines)
		return 0; /* every leaf reaches every spine */
	if (s->leaves == 1)
		return vt_err_set(e, "bad spec '%s': not connected: spine %u gets no up-link",
				  s->text, s->upl);
	if (2 * (uint64_t)s->upl <= s->spines)
		return vt_err_set(e,
				  "bad spec '%s': not connected: leaves 0 and 1 share no spine "
				  "(round robin of %u up-link%s over %u spines needs more than "
				  "half the spines per leaf)",
				  s->text, s->upl, s->upl == 1 ? "" : "s", s->spines);
	return 0;
}

static int plan_oversub(struct plan *p, const struct vt_gen_spec *s, vt_err *e)
{
	uint64_t count[2] = {s->leaves, s->spines}, load, radix;
	uint32_t *fill;
	int bundle = s->upl % s->spines == 0;

	p->levels = 2;
	p->hpl = s->hpl;
	/* busiest spine: bundles spread evenly; round robin gives some spines one more */
	load = ((uint64_t)s->leaves * s->upl + s->spines - 1) / s->spines;
	radix = (uint64_t)s->hpl + s->upl > load ? (uint64_t)s->hpl + s->upl : load;
	if (plan_levels(p, s, count, radix, e) || oversub_connected(s, e))
		return -1;
	fill = calloc(s->spines, sizeof(*fill));
	if (!fill)
		return vt_err_set(e, "out of memory");
	for (uint32_t l = 0; l < s->leaves; l++)
		for (unsigned u = 0; u < s->upl; u++) {
			uint32_t sp = bundle ? u / (s->upl / s->spines)
					     : (uint32_t)(((uint64_t)l * s->upl + u) % s->spines);

			if (fill[sp] >= p->radix ||
			    add_link(p, l, s->hpl + u + 1, p->first[1] + sp, ++fill[sp], e)) {
				free(fill);
				return e->msg[0] ? -1 : vt_err_set(e, "spine overfull");
			}
		}
	free(fill);
	return 0;
}

static int plan_clique(struct plan *p, const struct vt_gen_spec *s, vt_err *e)
{
	unsigned h = s->k / 2;
	uint64_t count[1] = {h + 1};

	p->levels = 1;
	p->hpl = h;
	if (plan_levels(p, s, count, s->k, e))
		return -1;
	/* switch i reaches switch j on port h+1+j (j < i) or h+j (j > i) */
	for (unsigned i = 0; i <= h; i++)
		for (unsigned j = i + 1; j <= h; j++)
			if (add_link(p, i, h + j, j, h + i + 1, e))
				return -1;
	return 0;
}

static int make_plan(struct plan *p, const struct vt_gen_spec *s, vt_err *e)
{
	memset(p, 0, sizeof(*p));
	switch (s->family) {
	case VT_GEN_FAT:
	case VT_GEN_THIN:
	case VT_GEN_VARARY:
	case VT_GEN_GPU:
		return plan_varary(p, s, e);
	case VT_GEN_SLENDER:
		return plan_slender(p, s, e);
	case VT_GEN_PRUNED:
		return plan_pruned(p, s, e);
	case VT_GEN_OVERSUB:
		return plan_oversub(p, s, e);
	case VT_GEN_CLIQUE:
		return plan_clique(p, s, e);
	}
	return vt_err_set(e, "no family");
}

/* ---- names and GUIDs: decimal digits inside the hex, so ids sort like descriptions */

static uint64_t bcd(uint64_t x)
{
	uint64_t r = 0;

	for (unsigned sh = 0; x; sh += 4, x /= 10)
		r |= (x % 10) << sh;
	return r;
}

static uint64_t sw_guid(unsigned plane, unsigned level, uint32_t idx)
{
	return OUI << 40 | 5ull << 36 | (uint64_t)plane << 32 | bcd(level) << 24 | bcd(idx);
}

static uint64_t ca_guid(uint32_t host)
{
	return OUI << 40 | 1ull << 36 | bcd(host) << 4;
}

/* ---- removals */

/* Marks n of the cand[0..ncand) entries in mark[] (by value), drawn by r. */
static int pick(vt_rand *r, uint32_t *cand, uint32_t ncand, unsigned n, uint8_t *mark,
		const char *what, const struct vt_gen_spec *s, vt_err *e)
{
	if (n > ncand)
		return vt_err_set(e, "bad spec '%s': cannot drop %u %s, there are %u", s->text, n,
				  what, ncand);
	vt_rand_shuffle_u32(r, cand, ncand);
	for (unsigned i = 0; i < n; i++)
		mark[cand[i]] = 1;
	return 0;
}

struct drops {
	uint8_t *sw;   /* per plane * nsw */
	uint8_t *link; /* per plane * nlinks */
	uint8_t *host; /* per host */
};

static unsigned level_of(const struct plan *p, uint32_t sw)
{
	unsigned l = 0;

	while (l + 1 < p->levels && sw >= p->first[l + 1])
		l++;
	return l;
}

static int choose_drops(const struct plan *p, const struct vt_gen_spec *s, struct drops *d,
			vt_err *e)
{
	uint64_t nhost = (uint64_t)p->count[0] * p->hpl;
	uint32_t R = s->rails, nc = 0;
	uint32_t *cand;
	unsigned hpl = s->hosts_per_leaf;
	vt_rand r;
	int rc = -1;

	if (hpl > p->hpl)
		return vt_err_set(e,
				  "bad spec '%s': hosts-per-leaf=%u but leaves have %u host ports",
				  s->text, hpl, p->hpl);
	d->sw = calloc((size_t)p->nsw * R + 1, 1);
	d->link = calloc((size_t)p->nlinks * R + 1, 1);
	d->host = calloc(nhost + 1, 1);
	cand = malloc(((size_t)p->nsw + p->nlinks) * R * sizeof(*cand) + nhost * sizeof(*cand) + 4);
	if (!d->sw || !d->link || !d->host || !cand) {
		vt_err_set(e, "out of memory");
		goto out;
	}
	vt_rand_seed(&r, s->seed);
	if (s->drop_switches) {
		unsigned lv = s->drop_switch_level == VT_GEN_ANY_LEVEL ? p->levels - 1
								       : s->drop_switch_level;

		if (lv >= p->levels) {
			vt_err_set(e, "bad spec '%s': no switch level %u", s->text, lv);
			goto out;
		}
		nc = 0;
		for (uint32_t pl = 0; pl < R; pl++)
			for (uint32_t i = 0; i < p->count[lv]; i++)
				cand[nc++] = pl * p->nsw + p->first[lv] + i;
		if (pick(&r, cand, nc, s->drop_switches, d->sw, "switches", s, e))
			goto out;
	}
	if (s->drop_links) {
		nc = 0;
		if (s->drop_link_level != VT_GEN_ANY_LEVEL && s->drop_link_level + 1 >= p->levels &&
		    s->family != VT_GEN_CLIQUE) {
			vt_err_set(e, "bad spec '%s': no links above level %u", s->text,
				   s->drop_link_level);
			goto out;
		}
		for (uint32_t pl = 0; pl < R; pl++)
			for (uint32_t i = 0; i < p->nlinks; i++) {
				const struct glink *k = &p->links[i];

				if (d->sw[pl * p->nsw + k->a] || d->sw[pl * p->nsw + k->b])
					continue;
				if (s->drop_link_level == VT_GEN_ANY_LEVEL ||
				    level_of(p, k->a) == s->drop_link_level)
					cand[nc++] = pl * p->nlinks + i;
			}
		if (pick(&r, cand, nc, s->drop_links, d->link, "links", s, e))
			goto out;
	}
	nc = 0;
	for (uint32_t h = 0; h < nhost; h++) {
		if (hpl && h % p->hpl >= hpl) {
			d->host[h] = 1;
			continue;
		}
		cand[nc++] = h;
	}
	if (s->drop_hosts && pick(&r, cand, nc, s->drop_hosts, d->host, "hosts", s, e))
		goto out;
	rc = 0;
out:
	free(cand);
	return rc;
}

/* ---- building */

static int build_nodes(vt_fabric *f, const struct plan *p, const struct vt_gen_spec *s,
		       const struct drops *d, uint32_t *swnode, uint32_t *hostnode, vt_err *e)
{
	char id[32], desc[48];
	uint64_t nhost = (uint64_t)p->count[0] * p->hpl;

	for (unsigned pl = 0; pl < s->rails; pl++)
		for (unsigned lv = 0; lv < p->levels; lv++)
			for (uint32_t i = 0; i < p->count[lv]; i++) {
				uint32_t k = pl * p->nsw + p->first[lv] + i;
				uint64_t g = sw_guid(pl, lv, i);

				swnode[k] = VT_NONE;
				if (d->sw[k])
					continue;
				snprintf(id, sizeof(id), "S-%016llx", (unsigned long long)g);
				if (s->rails > 1)
					snprintf(desc, sizeof(desc), "P%u-L%u-S%04u", pl, lv, i);
				else
					snprintf(desc, sizeof(desc), "L%u-S%04u", lv, i);
				if (vt_fabric_add_node(f, VT_SWITCH, p->radix, g, id, desc,
						       &swnode[k], e))
					return -1;
			}
	for (uint32_t h = 0; h < nhost; h++) {
		uint64_t g = ca_guid(h);

		hostnode[h] = VT_NONE;
		if (d->host[h])
			continue;
		snprintf(id, sizeof(id), "H-%016llx", (unsigned long long)g);
		snprintf(desc, sizeof(desc), "H-%04u", h);
		if (vt_fabric_add_node(f, VT_CA, s->rails, g, id, desc, &hostnode[h], e))
			return -1;
		for (unsigned r = 1; r <= s->rails; r++)
			vt_port(f, hostnode[h], r)->guid = g + r; /* ibsim: node GUID + port */
	}
	return 0;
}

static int build_links(vt_fabric *f, const struct plan *p, const struct vt_gen_spec *s,
		       const struct drops *d, const uint32_t *swnode, const uint32_t *hostnode,
		       vt_err *e)
{
	uint64_t nhost = (uint64_t)p->count[0] * p->hpl;

	for (unsigned pl = 0; pl < s->rails; pl++) {
		for (uint32_t h = 0; h < nhost; h++) {
			uint32_t leaf = swnode[pl * p->nsw + h / p->hpl];

			if (hostnode[h] == VT_NONE || leaf == VT_NONE)
				continue;
			if (vt_fabric_connect(f, leaf, h % p->hpl + 1, hostnode[h], pl + 1,
					      s->width, s->speed, e))
				return -1;
		}
		for (uint32_t i = 0; i < p->nlinks; i++) {
			const struct glink *k = &p->links[i];
			uint32_t a = swnode[pl * p->nsw + k->a], b = swnode[pl * p->nsw + k->b];

			if (a == VT_NONE || b == VT_NONE || d->link[pl * p->nlinks + i])
				continue;
			if (vt_fabric_connect(f, a, k->pa, b, k->pb, s->width, s->speed, e))
				return -1;
		}
	}
	return 0;
}

/* Replaces *f by a copy with the real-fabric features, telling them each node's place. */
static int with_features(vt_fabric **f, const struct plan *p, const struct vt_gen_spec *s,
			 const uint32_t *swnode, const uint32_t *hostnode, vt_err *e)
{
	uint32_t nn = (*f)->nnodes, *host = malloc((nn + 1) * sizeof(*host));
	uint8_t *level = calloc(nn + 1, 1), *plane = calloc(nn + 1, 1);
	struct vt_gen_shape sh = {p->levels, p->hpl, level, plane, host};
	vt_fabric *g = NULL;
	int rc = -1;

	if (!host || !level || !plane) {
		vt_err_set(e, "out of memory");
		goto out;
	}
	memset(host, 0xff, (nn + 1) * sizeof(*host));
	for (uint32_t k = 0; k < p->nsw * s->rails; k++)
		if (swnode[k] != VT_NONE) {
			level[swnode[k]] = (uint8_t)level_of(p, k % p->nsw);
			plane[swnode[k]] = (uint8_t)(k / p->nsw);
		}
	for (uint32_t h = 0; h < p->count[0] * p->hpl; h++)
		if (hostnode[h] != VT_NONE)
			host[hostnode[h]] = h;
	if (vt_gen_real_apply(s, *f, &sh, &g, e) == 0) {
		vt_fabric_free(*f);
		*f = g;
		rc = 0;
	}
out:
	free(host);
	free(level);
	free(plane);
	return rc;
}

int vt_gen_build(const struct vt_gen_spec *s, vt_fabric **out, vt_err *e)
{
	struct plan p;
	struct drops d = {0};
	uint32_t *swnode = NULL, *hostnode = NULL;
	vt_fabric *f = NULL;
	int rc = -1;

	*out = NULL;
	if (make_plan(&p, s, e) || choose_drops(&p, s, &d, e))
		goto out;
	swnode = malloc(((size_t)p.nsw * s->rails + 1) * sizeof(*swnode));
	hostnode = malloc(((size_t)p.count[0] * p.hpl + 1) * sizeof(*hostnode));
	f = vt_fabric_new(s->text);
	if (!swnode || !hostnode || !f) {
		vt_err_set(e, "out of memory");
		goto out;
	}
	if (build_nodes(f, &p, s, &d, swnode, hostnode, e) ||
	    build_links(f, &p, s, &d, swnode, hostnode, e) ||
	    (vt_gen_real_wanted(s) && with_features(&f, &p, s, swnode, hostnode, e)) ||
	    vt_fabric_finish(f, 0, e))
		goto out;
	*out = f;
	f = NULL;
	rc = 0;
out:
	vt_fabric_free(f);
	free(swnode);
	free(hostnode);
	free(d.sw);
	free(d.link);
	free(d.host);
	free(p.links);
	return rc;
}
