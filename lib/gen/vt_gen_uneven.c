/* SPDX-License-Identifier: MIT */
/*
 * Irregular trees as real clusters grow them (issue 23): leaves with their
 * own host counts and up-link counts, spines with different down-link
 * counts, leaves cabled with fewer up-links than their level, mixed speeds.
 *
 *   uneven H0,H1,..:U0,U1,..:SPINES  2-level tree: leaf i has Hi hosts
 *       (0: a host-less switch) on its low ports and Ui up-links, up-link u
 *       to spine u mod SPINES, every leaf starting at spine 0, so the first
 *       spines get more down-links where Ui is no multiple of SPINES.
 *   leaf-uplinks=N:U  N leaves (by seed) keep only their first U up-links.
 *   slow-leaves=N[@SPEED]  N leaves (by seed) run every link, host and
 *       up-links, at SPEED (default DDR), as an older part of a cluster.
 *
 * The seeded choices use streams of their own, so a spec's other removals
 * draw what they drew without these options.
 */
#include <stdlib.h>
#include <string.h>

#include "gen/vt_gen_plan_int.h"
#include "base/vt_rand.h"

/* The numbers "a,b,.." of len characters into v (at most max); count, or -1. */
static int numbers(const char *p, size_t len, unsigned *v, int max)
{
	int n = 0;
	size_t i = 0;

	while (i < len) {
		unsigned long x = 0;
		size_t st = i;

		for (; i < len && p[i] >= '0' && p[i] <= '9'; i++)
			if ((x = x * 10 + (unsigned)(p[i] - '0')) > 100000)
				return -1;
		if (i == st || n == max)
			return -1;
		v[n++] = (unsigned)x;
		if (i < len && (p[i] != ',' || ++i == len))
			return -1;
	}
	return n;
}

static int bad(const struct vt_gen_spec *s, vt_err *e, const char *why)
{
	return vt_err_set(e, "bad spec '%s': %s", s->text, why);
}

int vt_gen_uneven_family(struct vt_gen_spec *s, const char *fam, const char *arg, vt_err *e)
{
	unsigned h[VT_GEN_UNEVEN_MAX], u[VT_GEN_UNEVEN_MAX], sp;
	const char *c1, *c2;
	int nh, nu;

	if (strcmp(fam, "uneven"))
		return 1;
	c1 = arg ? strchr(arg, ':') : NULL;
	c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (!c2 || (nh = numbers(arg, (size_t)(c1 - arg), h, VT_GEN_UNEVEN_MAX)) < 1 ||
	    (nu = numbers(c1 + 1, (size_t)(c2 - c1 - 1), u, VT_GEN_UNEVEN_MAX)) < 1 ||
	    numbers(c2 + 1, strlen(c2 + 1), &sp, 1) != 1)
		return bad(s, e, "expected uneven H0,H1,..:U0,U1,..:SPINES (at most 64 leaves)");
	if (nh != nu)
		return bad(s, e, "as many up-link counts as host counts (one per leaf)");
	if (!sp)
		return bad(s, e, "SPINES must be at least 1");
	for (int i = 0; i < nh; i++) {
		if (!u[i])
			return bad(s, e, "every leaf needs an up-link");
		s->uneven_h[i] = h[i];
		s->uneven_u[i] = u[i];
	}
	s->uneven_n = (unsigned)nh;
	s->spines = sp;
	s->family = VT_GEN_UNEVEN;
	s->levels = 2;
	return 0;
}

int vt_gen_uneven_plan(struct plan *p, const struct vt_gen_spec *s, vt_err *e)
{
	uint64_t count[2] = {s->uneven_n, s->spines}, radix = 0;
	unsigned hmax = 0, umax = 0, sp = s->spines;

	for (unsigned i = 0; i < s->uneven_n; i++) {
		hmax = s->uneven_h[i] > hmax ? s->uneven_h[i] : hmax;
		umax = s->uneven_u[i] > umax ? s->uneven_u[i] : umax;
	}
	/* spine 0 is the fullest: every leaf's first up-link goes there */
	for (unsigned i = 0; i < s->uneven_n; i++)
		radix += (s->uneven_u[i] + sp - 1) / sp;
	if (hmax + umax > radix)
		radix = hmax + umax;
	p->levels = 2;
	p->hpl = hmax ? hmax : 1;
	if (vt_gen_plan_levels(p, s, count, radix, e))
		return -1;
	uint32_t *fill = calloc(sp, sizeof(*fill));

	if (!fill)
		return vt_err_nomem(e, "out of memory");
	for (uint32_t l = 0; l < s->uneven_n; l++)
		for (unsigned k = 0; k < s->uneven_u[l]; k++)
			if (vt_gen_plan_link(p, l, p->hpl + k + 1, p->first[1] + k % sp,
					     ++fill[k % sp], e)) {
				free(fill);
				return -1;
			}
	free(fill);
	return 0;
}

int vt_gen_uneven_absent(const struct plan *p, const struct vt_gen_spec *s, uint64_t h)
{
	return s->family == VT_GEN_UNEVEN && h % p->hpl >= s->uneven_h[h / p->hpl];
}

/* "N:U" or "N@SPEED" (sep, the second part optional when opt) */
static int pair(const char *v, char sep, int opt, unsigned *n, const char **rest)
{
	const char *q = strchr(v, sep);
	size_t l = q ? (size_t)(q - v) : strlen(v);

	if (numbers(v, l, n, 1) != 1 || (!q && !opt) || (q && !q[1]))
		return -1;
	*rest = q ? q + 1 : NULL;
	return 0;
}

int vt_gen_uneven_option(struct vt_gen_spec *s, const char *key, size_t kl, const char *v,
			 vt_err *e)
{
	const char *rest;

	if (kl == strlen("leaf-uplinks") && !strncmp(key, "leaf-uplinks", kl)) {
		if (!v || pair(v, ':', 0, &s->short_leaves, &rest) ||
		    numbers(rest, strlen(rest), &s->short_uplinks, 1) != 1)
			return vt_err_set(e, "bad option 'leaf-uplinks=%s': expected N:U",
					  v ? v : "");
		return 0;
	}
	if (kl == strlen("slow-leaves") && !strncmp(key, "slow-leaves", kl)) {
		if (!v || pair(v, '@', 1, &s->slow_leaves, &rest))
			return vt_err_set(e, "bad option 'slow-leaves=%s': expected N[@SPEED]",
					  v ? v : "");
		s->slow_speed = rest ? vt_speed_parse(rest, (unsigned)strlen(rest)) : VT_DDR;
		if (s->slow_speed == VT_SPEED_UNKNOWN)
			return vt_err_set(e, "bad option 'slow-leaves=%s': unknown speed", v);
		return 0;
	}
	return 1;
}

/* n of the plan's leaves drawn by stream (a stream of the seed apart from the removals') */
static int leaves_by_seed(const struct plan *p, const struct vt_gen_spec *s, uint64_t stream,
			  unsigned n, const char *opt, uint8_t *mark, vt_err *e)
{
	uint32_t nl = p->count[0], *cand = malloc((nl + 1) * sizeof(*cand));
	vt_rand r;

	if (!cand)
		return vt_err_nomem(e, "out of memory");
	if (n > nl) {
		free(cand);
		return vt_err_set(e, "bad spec '%s': %s=%u but there are %u leaves", s->text, opt,
				  n, nl);
	}
	for (uint32_t i = 0; i < nl; i++)
		cand[i] = i;
	vt_rand_seed(&r, s->seed ^ stream);
	vt_rand_shuffle_u32(&r, cand, nl);
	for (unsigned i = 0; i < n; i++)
		mark[cand[i]] = 1;
	free(cand);
	return 0;
}

int vt_gen_uneven_drops(const struct plan *p, const struct vt_gen_spec *s, uint8_t *link, vt_err *e)
{
	uint8_t *mark;
	uint32_t *kept;

	if (!s->short_leaves)
		return 0;
	mark = calloc(p->count[0] + 1, 1);
	kept = calloc(p->count[0] + 1, sizeof(*kept));
	if (!mark || !kept) {
		free(mark);
		free(kept);
		return vt_err_nomem(e, "out of memory");
	}
	int rc = leaves_by_seed(p, s, 0x5e0f7ull << 20, s->short_leaves, "leaf-uplinks", mark, e);

	/* plan links list each leaf's up-links in port order: keep the first U */
	for (uint32_t i = 0; !rc && i < p->nlinks; i++) {
		uint32_t a = p->links[i].a;

		if (a < p->count[0] && mark[a] && kept[a]++ >= s->short_uplinks)
			for (uint32_t pl = 0; pl < s->rails; pl++)
				link[(size_t)pl * p->nlinks + i] = 1;
	}
	free(mark);
	free(kept);
	return rc;
}

int vt_gen_uneven_slow(const struct plan *p, const struct vt_gen_spec *s, uint8_t **slow, vt_err *e)
{
	*slow = NULL;
	if (!s->slow_leaves)
		return 0;
	*slow = calloc(p->count[0] + 1, 1);
	if (!*slow)
		return vt_err_nomem(e, "out of memory");
	if (leaves_by_seed(p, s, 0x510eull << 24, s->slow_leaves, "slow-leaves", *slow, e)) {
		free(*slow);
		*slow = NULL;
		return -1;
	}
	return 0;
}
