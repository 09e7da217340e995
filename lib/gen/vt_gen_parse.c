/* SPDX-License-Identifier: MIT */
/*
 * Spec parsing for the topology generators: the family word and its
 * numbers, then NAME=VALUE options (grammar in vt_gen.h). The real-fabric
 * families and options are handed to vt_gen_real.c.
 */
#include "gen/vt_gen.h"
#include "gen/vt_gen_plan_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RAILS 8

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

static int parse_fat(struct vt_gen_spec *s, const char *arg, vt_err *e)
{
	unsigned v[2];

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

/* thin K:K',N and slender K:K',N share their grammar */
static int parse_thin(struct vt_gen_spec *s, int thin, const char *arg, vt_err *e)
{
	unsigned v[3];
	size_t la;

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

static int parse_pruned(struct vt_gen_spec *s, const char *arg, vt_err *e)
{
	unsigned v[2];

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

static int parse_oversub(struct vt_gen_spec *s, const char *arg, vt_err *e)
{
	unsigned v[4];

	if (!arg || numlist(arg, strlen(arg), ',', v, 4) != 4)
		return bad(e, s->text, "expected LEAVES,HOSTS_PER_LEAF,UPLINKS_PER_LEAF,SPINES");
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

static int parse_clique(struct vt_gen_spec *s, const char *arg, vt_err *e)
{
	unsigned v[1];

	if (!arg || numlist(arg, strlen(arg), ',', v, 1) != 1)
		return bad(e, s->text, "expected N");
	if (v[0] < 4 || v[0] % 2)
		return bad(e, s->text, "N must be even and at least 4");
	s->family = VT_GEN_CLIQUE;
	s->k = v[0];
	s->levels = 1;
	return 0;
}

static int parse_family(struct vt_gen_spec *s, const char *fam, const char *arg, vt_err *e)
{
	if (!strcmp(fam, "fat"))
		return parse_fat(s, arg, e);
	if (!strcmp(fam, "thin") || !strcmp(fam, "slender"))
		return parse_thin(s, fam[0] == 't', arg, e);
	if (!strcmp(fam, "varary")) {
		if (!arg || parse_varary(s, arg, e))
			return e->msg[0] ? -1 : bad(e, s->text, "expected D0,D1,..:U0,..[:P0,..]");
		s->family = VT_GEN_VARARY;
		return 0;
	}
	if (!strcmp(fam, "pruned"))
		return parse_pruned(s, arg, e);
	if (!strcmp(fam, "oversub"))
		return parse_oversub(s, arg, e);
	if (!strcmp(fam, "clique"))
		return parse_clique(s, arg, e);
	if (vt_gen_real_family(s, fam, arg, e) != 1 || vt_gen_split_family(s, fam, arg, e) != 1 ||
	    vt_gen_uneven_family(s, fam, arg, e) != 1)
		return e->msg[0] ? -1 : 0;
	return vt_err_set(e,
			  "bad spec '%s': unknown family '%s' (fat, thin, slender, varary, "
			  "pruned, oversub, clique, gpu, superpod, cores, uneven, rails)",
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
		int rc = vt_gen_uneven_option(s, opt, kl, v, e);

		if (rc == 1)
			rc = vt_gen_real_option(s, opt, kl, v, e);

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
