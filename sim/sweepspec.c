/* SPDX-License-Identifier: MIT */
/* vartree-sweep's spec file: "key = value" lines (see vartree-sweep(1)). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"
#include "cli/vt_cli.h"
#include "gen/vt_gen.h"

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = 0;
	return s;
}

/* Appends v to a list, or fails with the dimension full. */
static int push_str(char **list, unsigned *n, const char *v, vt_err *e)
{
	if (*n == SWEEP_MAX)
		return vt_err_set(e, "more than %d values", SWEEP_MAX);
	list[*n] = strdup(v);
	if (!list[*n])
		return vt_err_set(e, "out of memory");
	(*n)++;
	return 0;
}

/* Comma-separated words into a list (fabrics and patterns take one whole value per line). */
static int push_words(char **list, unsigned *n, char *v, vt_err *e)
{
	for (char *save, *w = strtok_r(v, ",", &save); w; w = strtok_r(NULL, ",", &save))
		if (push_str(list, n, trim(w), e))
			return -1;
	return 0;
}

static int check_fabric(const char *spec, const char *fault, vt_err *e)
{
	struct vt_gen_spec g;

	if (vt_gen_parse(&g, spec, e))
		return -1;
	return fault && strcmp(fault, "none") ? vt_gen_option(&g, fault, e) : 0;
}

static int numbers(struct sweep_spec *s, const char *key, char *v, vt_err *e)
{
	for (char *save, *w = strtok_r(v, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		uint64_t x;

		w = trim(w);
		if (!strcmp(key, "size")) {
			if (s->nsize == SWEEP_MAX)
				return vt_err_set(e, "more than %d sizes", SWEEP_MAX);
			if (vt_parse_size("size", w, 1, 1 << 30, &x, e))
				return -1;
			s->size[s->nsize++] = (uint32_t)x;
		} else {
			if (s->nseed == SWEEP_MAX)
				return vt_err_set(e, "more than %d seeds", SWEEP_MAX);
			if (vt_parse_uint("seed", w, 0, UINT64_MAX, &x, e))
				return -1;
			s->seed[s->nseed++] = x;
		}
	}
	return 0;
}

static int set_preset(struct sweep_spec *s, const char *v, vt_err *e)
{
	vt_sim_defaults(&s->p);
	if (!strcmp(v, "fig6"))
		vt_sim_preset_fig6(&s->p);
	else if (!strcmp(v, "navaridas"))
		vt_sim_preset_navaridas(&s->p);
	else if (strcmp(v, "default"))
		return vt_err_set(e, "preset '%s' is not one of default, fig6 or navaridas", v);
	snprintf(s->preset, sizeof(s->preset), "%s", v);
	return 0;
}

static int check_value(const char *key, char *v, vt_err *e)
{
	static const char *const routings[] = {"static", "packet", "flow", NULL};

	if (!strcmp(key, "routing")) {
		for (unsigned k = 0; routings[k]; k++)
			if (!strcmp(v, routings[k]))
				return 0;
		return vt_err_set(e, "routing '%s' is not one of static, packet or flow", v);
	}
	if (!strcmp(key, "pattern") && !strncmp(v, "open:", 5) && strcmp(v + 5, "uniform") &&
	    strcmp(v + 5, "perm") && strcmp(v + 5, "pair"))
		return vt_err_set(e, "pattern '%s': open:uniform, open:perm or open:pair", v);
	if (!strcmp(key, "fault") && strcmp(v, "none") && strncmp(v, "drop-", 5))
		return vt_err_set(e,
				  "fault '%s': none, drop-links=N[@L], drop-switches=N[@L] or "
				  "drop-hosts=N",
				  v);
	return 0;
}

/* One "key = value" line. */
static int line(struct sweep_spec *s, char *key, char *v, vt_err *e)
{
	double *num = !strcmp(key, "load")	 ? &s->load
		      : !strcmp(key, "duration") ? &s->duration_us
		      : !strcmp(key, "warmup")	 ? &s->warmup_us
						 : NULL;

	if (num)
		return vt_parse_double(key, v, !strcmp(key, "warmup") ? 0 : 1e-6,
				       !strcmp(key, "load") ? 4 : 1e7, num, e);
	if (!strcmp(key, "fabric"))
		return check_fabric(v, NULL, e) || push_str(s->fabric, &s->nfabric, v, e);
	if (!strcmp(key, "pattern"))
		return check_value(key, v, e) || push_str(s->pattern, &s->npattern, v, e);
	if (!strcmp(key, "size") || !strcmp(key, "seeds"))
		return numbers(s, key, v, e);
	if (!strcmp(key, "preset"))
		return set_preset(s, v, e);
	if (!strcmp(key, "routing") || !strcmp(key, "fault")) {
		char **list = key[0] == 'r' ? s->routing : s->fault;
		unsigned *n = key[0] == 'r' ? &s->nrouting : &s->nfault;
		unsigned from = *n;

		if (push_words(list, n, v, e))
			return -1;
		for (unsigned k = from; k < *n; k++)
			if (check_value(key, list[k], e))
				return -1;
		return 0;
	}
	return vt_err_set(e, "unknown key '%s'", key);
}

/* Dimensions left empty take their one default; every fabric is checked with every fault. */
static int finish(struct sweep_spec *s, vt_err *e)
{
	if (!s->nfabric)
		return vt_err_set(e, "no fabric given");
	if (!s->nfault && push_str(s->fault, &s->nfault, "none", e))
		return -1;
	if (!s->nrouting && push_str(s->routing, &s->nrouting, "static", e))
		return -1;
	if (!s->npattern && push_str(s->pattern, &s->npattern, "shift", e))
		return -1;
	if (!s->nsize)
		s->size[s->nsize++] = 4096;
	if (!s->nseed)
		s->seed[s->nseed++] = 1;
	if (s->warmup_us >= s->duration_us)
		return vt_err_set(e, "warmup %g us does not end before duration %g us",
				  s->warmup_us, s->duration_us);
	for (unsigned f = 0; f < s->nfabric; f++)
		for (unsigned k = 0; k < s->nfault; k++)
			if (check_fabric(s->fabric[f], s->fault[k], e))
				return -1;
	return 0;
}

int sweep_spec_read(struct sweep_spec *s, const char *path, vt_err *e)
{
	FILE *fp = fopen(path, "r");
	char buf[1024];
	unsigned ln = 0;
	vt_err le;

	memset(s, 0, sizeof(*s));
	set_preset(s, "default", &le);
	s->load = 0.5;
	s->duration_us = 100;
	if (!fp)
		return vt_err_set(e, "%s: cannot open: %m", path);
	while (fgets(buf, sizeof(buf), fp)) {
		char *hash = strchr(buf, '#'), *eq, *key;

		ln++;
		if (hash)
			*hash = 0;
		key = trim(buf);
		if (!*key)
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			fclose(fp);
			return vt_err_set(e, "%s:%u: expected 'key = value'", path, ln);
		}
		*eq = 0;
		if (line(s, trim(key), trim(eq + 1), &le)) {
			fclose(fp);
			return vt_err_set(e, "%s:%u: %s", path, ln, le.msg);
		}
	}
	fclose(fp);
	if (finish(s, &le))
		return vt_err_set(e, "%s: %s", path, le.msg);
	return 0;
}

void sweep_spec_free(struct sweep_spec *s)
{
	char **lists[] = {s->fabric, s->fault, s->routing, s->pattern};
	unsigned ns[] = {s->nfabric, s->nfault, s->nrouting, s->npattern};

	for (unsigned l = 0; l < 4; l++)
		for (unsigned k = 0; k < ns[l]; k++)
			free(lists[l][k]);
}

uint64_t sweep_nruns(const struct sweep_spec *s)
{
	return (uint64_t)s->nfabric * s->nfault * s->nrouting * s->npattern * s->nsize * s->nseed;
}

void sweep_at(const struct sweep_spec *s, uint64_t i, struct sweep_at *a)
{
	a->seed = (unsigned)(i % s->nseed);
	i /= s->nseed;
	a->size = (unsigned)(i % s->nsize);
	i /= s->nsize;
	a->pattern = (unsigned)(i % s->npattern);
	i /= s->npattern;
	a->routing = (unsigned)(i % s->nrouting);
	i /= s->nrouting;
	a->fault = (unsigned)(i % s->nfault);
	a->fabric = (unsigned)(i / s->nfault);
}
