/* SPDX-License-Identifier: MIT */
/* event_plugin_options: OpenSM hands every plugin the same string, so ours are prefixed "vartree.".
 */
#include <stdio.h>
#include <string.h>

#include "vtp_opts.h"

#define PREFIX "vartree."

static int parse_bool(const char *v, size_t n, int *out)
{
	static const char *const yes[] = {"1", "on", "yes", "true"};
	static const char *const no[] = {"0", "off", "no", "false"};

	for (unsigned i = 0; i < 4; i++) {
		if (strlen(yes[i]) == n && !strncmp(v, yes[i], n))
			return *out = 1, 0;
		if (strlen(no[i]) == n && !strncmp(v, no[i], n))
			return *out = 0, 0;
	}
	return -1;
}

static int parse_level(const char *v, size_t n, enum vt_log_level *out)
{
	static const char *const names[] = {"error", "info", "verbose", "debug"};

	for (unsigned i = 0; i < 4; i++)
		if (strlen(names[i]) == n && !strncmp(v, names[i], n))
			return *out = (enum vt_log_level)i, 0;
	return -1;
}

static int parse_hops(const char *v, size_t n, enum vtp_hops_mode *out)
{
	static const char *const names[] = {"vartree", "opensm"};

	for (unsigned i = 0; i < 2; i++)
		if (strlen(names[i]) == n && !strncmp(v, names[i], n))
			return *out = (enum vtp_hops_mode)i, 0;
	return -1;
}

/* off, or what a repair keeps: guarded (the default; also for on/yes/1), minimal or fewest */
static int parse_repair(const char *v, size_t n, struct vtp_opts *o)
{
	/* in the order of enum vt_repair_policy */
	static const char *const names[] = {"minimal", "fewest", "guarded"};

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && !strncmp(v, names[i], n)) {
			o->repair = 1;
			o->repair_policy = (enum vt_repair_policy)i;
			return 0;
		}
	return parse_bool(v, n, &o->repair);
}

/* Applies one "KEY=VALUE" (the part after "vartree."); NULL when done, else why not. */
static const char *one(struct vtp_opts *o, const char *tok, size_t len)
{
	const char *eq = memchr(tok, '=', len), *v;
	size_t klen, vlen;

	if (!eq)
		return len ? "no value (vartree.KEY=VALUE)" : "no option name";
	klen = (size_t)(eq - tok);
	v = eq + 1;
	vlen = len - klen - 1;
	if (klen == 10 && !strncmp(tok, "order_dump", klen))
		return parse_bool(v, vlen, &o->order_dump)
			       ? "not a boolean (on, off, yes, no, 1, 0)"
			       : NULL;
	if (klen == 10 && !strncmp(tok, "order_file", klen)) {
		if (!vlen || vlen >= sizeof(o->order_file))
			return "empty or longer than 255 bytes";
		memcpy(o->order_file, v, vlen);
		o->order_file[vlen] = '\0';
		return NULL;
	}
	if (klen == 6 && !strncmp(tok, "repair", klen))
		return parse_repair(v, vlen, o) ? "not guarded, minimal, fewest or a boolean"
						: NULL;
	if (klen == 7 && !strncmp(tok, "detours", klen)) {
		if (vlen == 4 && !strncmp(v, "turn", 4))
			o->shortest_detours = 0;
		else if (vlen == 8 && !strncmp(v, "shortest", 8))
			o->shortest_detours = 1;
		else
			return "not turn or shortest";
		return NULL;
	}
	if (klen == 4 && !strncmp(tok, "hops", klen))
		return parse_hops(v, vlen, &o->hops) ? "not vartree or opensm" : NULL;
	if (klen == 3 && !strncmp(tok, "log", klen)) {
		if (parse_level(v, vlen, &o->level))
			return "not error, info, verbose or debug";
		o->level_set = 1;
		return NULL;
	}
	return "unknown option";
}

int vtp_opts_parse(struct vtp_opts *o, const char *opt, vtp_bad_fn bad, void *ctx)
{
	const size_t plen = strlen(PREFIX);
	const char *s = opt ? opt : "";
	int nbad = 0;

	o->order_dump = 1;
	o->hops = VTP_HOPS_VARTREE;
	snprintf(o->order_file, sizeof(o->order_file), "%s", VTP_ORDER_FILE);
	o->level = VT_LOG_INFO;
	o->level_set = 0;
	/* guarded: fewer changed blocks, and the quality guard gives fresh tables
	 * wherever the repaired ones would congest shift more (vartree-plugin(8)) */
	o->repair = 1;
	o->repair_policy = VT_REPAIR_GUARDED;
	o->shortest_detours = 0; /* their VL 1 needs QoS on */
	while (*s) {
		const char *why;
		size_t n;

		s += strspn(s, " \t,");
		n = strcspn(s, " \t,");
		if (!n)
			break;
		/* every bad token is reported, not only the first */
		if (n >= plen && !strncmp(s, PREFIX, plen) && (why = one(o, s + plen, n - plen))) {
			nbad++;
			if (bad)
				bad(ctx, s, (int)n, why);
		}
		s += n;
	}
	return nbad;
}
