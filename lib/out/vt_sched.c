/* SPDX-License-Identifier: MIT */
#include "out/vt_sched.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define SLURM_NAME_MAX 64 /* HOST_NAME_MAX: Slurm refuses longer switch names */

int vt_order_format_parse(const char *s, enum vt_order_format *fmt)
{
	static const char *const names[] = {"ca-order", "hostfile", "rankfile"};

	for (int i = 0; i < 3; i++)
		if (!strcmp(s, names[i])) {
			*fmt = (enum vt_order_format)i;
			return 0;
		}
	return -1;
}

/* Characters a host name keeps through Slurm hostlists, MPI host files and rankfiles. */
static int name_char(int c)
{
	return isalnum(c) || c == '-' || c == '_' || c == '.';
}

static size_t first_word(const char *s, size_t *len)
{
	size_t n = strcspn(s, " \t");
	*len = n;
	for (size_t i = 0; i < n; i++)
		if (!name_char((unsigned char)s[i]))
			return i;
	return n;
}

int vt_host_name(const vt_fabric *f, uint32_t node, char *buf, size_t len, vt_err *e)
{
	const struct vt_node *nd = &f->nodes[node];
	size_t n, ok = first_word(nd->desc, &n);

	if (!n || ok < n || n >= len)
		return vt_err_set(e,
				  "\"%s\" (0x%016" PRIx64 "): %s; a host name is the first word "
				  "of the description, letters, digits, '-', '_' and '.'",
				  nd->desc, nd->guid,
				  !n	   ? "no host name"
				  : ok < n ? "host name with a character Slurm and MPI cannot take"
					   : "host name too long");
	memcpy(buf, nd->desc, n);
	buf[n] = 0;
	return 0;
}

/* ---- hostlist expressions */

struct hname {
	size_t plen;  /* prefix length: up to the numeric suffix */
	unsigned w;   /* digits of the suffix, 0 when it has none (or too many to count) */
	uint32_t num; /* its value */
};

static struct hname split(const char *s)
{
	struct hname h;
	size_t n = strlen(s), p = n;

	while (p && isdigit((unsigned char)s[p - 1]))
		p--;
	h.plen = p;
	h.w = (unsigned)(n - p);
	h.num = 0;
	if (h.w > 9 || !h.w) { /* no suffix, or one past 32 bits: kept whole */
		h.plen = n;
		h.w = 0;
		return h;
	}
	for (size_t i = p; i < n; i++)
		h.num = h.num * 10 + (uint32_t)(s[i] - '0');
	return h;
}

static int put(char *buf, size_t len, size_t *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*at >= len)
		return -1;
	va_start(ap, fmt);
	k = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= len - *at)
		return -1;
	*at += (size_t)k;
	return 0;
}

int vt_hostlist_compress(const char *const *names, uint32_t n, char *buf, size_t len)
{
	size_t at = strlen(buf);

	for (uint32_t i = 0; i < n;) {
		struct hname a = split(names[i]);
		uint32_t j = i + 1;
		/* a group: adjacent names with the same prefix and suffix width */
		while (a.w && j < n) {
			struct hname b = split(names[j]);
			if (b.w != a.w || b.plen != a.plen || strncmp(names[i], names[j], a.plen))
				break;
			j++;
		}
		if (put(buf, len, &at, "%s", i ? "," : ""))
			return -1;
		if (j == i + 1) {
			if (put(buf, len, &at, "%s", names[i]))
				return -1;
			i = j;
			continue;
		}
		if (put(buf, len, &at, "%.*s[", (int)a.plen, names[i]))
			return -1;
		for (uint32_t k = i; k < j;) {
			uint32_t lo = split(names[k]).num, hi = lo, m = k + 1;
			while (m < j && split(names[m]).num == hi + 1)
				hi++, m++;
			if (put(buf, len, &at, "%s%0*u", k > i ? "," : "", (int)a.w, lo) ||
			    (hi > lo && put(buf, len, &at, "-%0*u", (int)a.w, hi)))
				return -1;
			k = m;
		}
		if (put(buf, len, &at, "]"))
			return -1;
		i = j;
	}
	return 0;
}

/* ---- topology.conf */

struct names {
	char **s;
	uint32_t n;
};

static void names_free(struct names *nm)
{
	for (uint32_t i = 0; nm->s && i < nm->n; i++)
		free(nm->s[i]);
	free(nm->s);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Do the first words of the switch descriptions serve as unique Slurm switch names? */
static int own_names_usable(const vt_tree *t, char **words)
{
	const vt_fabric *f = t->f;
	uint32_t k = 0;

	for (uint32_t s = 0; s < t->nsw; s++) {
		const char *d = f->nodes[f->switches[s]].desc;
		size_t n, ok = first_word(d, &n);
		if (t->level[s] == VT_TREE_OUTSIDE)
			continue;
		if (!n || ok < n || n > SLURM_NAME_MAX)
			return 0;
		words[k++] = (char *)d;
	}
	/* descriptions sorted; equal first words sort next to each other */
	qsort(words, k, sizeof(*words), cmp_str);
	for (uint32_t i = 1; i < k; i++) {
		size_t n = strcspn(words[i - 1], " \t");
		if (n == strcspn(words[i], " \t") && !strncmp(words[i - 1], words[i], n))
			return 0;
	}
	return 1;
}

static int switch_names(const vt_tree *t, struct names *nm, vt_err *e)
{
	const vt_fabric *f = t->f;
	char **words = malloc(((size_t)t->nsw + 1) * sizeof(*words));
	int own;

	nm->n = t->nsw;
	nm->s = calloc((size_t)t->nsw + 1, sizeof(*nm->s));
	if (!nm->s || !words) {
		free(words);
		return vt_err_nomem(e, "out of memory");
	}
	own = own_names_usable(t, words);
	free(words);
	for (uint32_t s = 0; s < t->nsw; s++) {
		char b[SLURM_NAME_MAX + 1];
		const char *d = f->nodes[f->switches[s]].desc;
		if (own)
			snprintf(b, sizeof(b), "%.*s", (int)strcspn(d, " \t"), d);
		else
			snprintf(b, sizeof(b), "ibsw-l%u-%04u", t->level[s], t->pos[s]);
		nm->s[s] = strdup(b);
		if (!nm->s[s])
			return vt_err_nomem(e, "out of memory");
	}
	return 0;
}

/* One SwitchName line: KEY=the compressed list of names (none: the name alone). */
static int slurm_line(FILE *fp, const char *name, const char *key, const char *const *list,
		      uint32_t n, vt_err *e)
{
	size_t len = 64;
	for (uint32_t i = 0; i < n; i++)
		len += strlen(list[i]) + 4;
	char *buf = malloc(len);
	if (!buf)
		return vt_err_nomem(e, "out of memory");
	buf[0] = 0;
	if (vt_hostlist_compress(list, n, buf, len)) {
		free(buf);
		return vt_err_set(e, "hostlist of switch %s does not fit", name);
	}
	fprintf(fp, "SwitchName=%s", name);
	if (n)
		fprintf(fp, " %s=%s", key, buf);
	fputc('\n', fp);
	free(buf);
	return 0;
}

/*
 * The comment above a switch's line: its description and GUID. Control bytes
 * and backslashes become '?': Slurm's parser joins a line ending in a backslash to the next.
 */
static void slurm_comment(FILE *fp, const vt_fabric *f, uint32_t node, unsigned level)
{
	fputs("# \"", fp);
	for (const char *c = f->nodes[node].desc; *c; c++)
		fputc((unsigned char)*c < 0x20 || *c == 0x7f || *c == '\\' ? '?' : *c, fp);
	fprintf(fp, "\" 0x%016" PRIx64 " level %u\n", f->nodes[node].guid, level);
}

/* Host names of a leaf's ranks, each once, in rank order. */
static int leaf_hosts(const vt_tree *t, uint32_t s, struct names *h, vt_err *e)
{
	const vt_fabric *f = t->f;
	char b[256];

	h->n = 0;
	for (uint32_t r = 0; r < t->order.n; r++) {
		uint32_t p = t->order.port[r], dup = 0;
		if (p == VT_NONE || t->rank_leaf[r] != s)
			continue;
		if (vt_host_name(f, f->ports[p].node, b, sizeof(b), e))
			return -1;
		for (uint32_t i = 0; i < h->n && !dup; i++)
			dup = !strcmp(h->s[i], b);
		if (dup)
			continue;
		if (!(h->s[h->n] = strdup(b)))
			return vt_err_nomem(e, "out of memory");
		h->n++;
	}
	return 0;
}

static int slurm_switch(const vt_tree *t, const struct names *sw, uint32_t s, struct names *tmp,
			FILE *fp, vt_err *e)
{
	const char **kids = (const char **)tmp->s;
	uint32_t n = 0;

	slurm_comment(fp, t->f, t->f->switches[s], t->level[s]);
	if (t->level[s] == 0) {
		if (leaf_hosts(t, s, tmp, e))
			return -1;
		return slurm_line(fp, sw->s[s], "Nodes", (const char *const *)tmp->s, tmp->n, e);
	}
	/* entries are grouped by remote switch: one name per group */
	for (uint32_t i = t->dn_start[s]; i < t->dn_start[s + 1]; i++)
		if (i == t->dn_start[s] || t->dn_peer[i] != t->dn_peer[i - 1])
			kids[n++] = sw->s[t->dn_peer[i]];
	return slurm_line(fp, sw->s[s], "Switches", kids, n, e);
}

int vt_sched_slurm(const vt_tree *t, FILE *fp, vt_err *e)
{
	struct names sw = {0}, tmp = {0};
	uint32_t cap = t->nsw + t->order.n + 1;
	int rc = -1;

	if (switch_names(t, &sw, e))
		goto out;
	tmp.s = calloc(cap, sizeof(*tmp.s));
	if (!tmp.s) {
		vt_err_nomem(e, "out of memory");
		goto out;
	}
	fprintf(fp,
		"# Slurm topology.conf (topology/tree) written by vartree from %s:\n"
		"# %u switch levels, %u compute-node ports; leaves first, the top last.\n",
		t->f->source, t->nlevels, t->ncn);
	for (uint32_t l = 0; l < t->nlevels; l++)
		for (uint32_t i = t->lvl_start[l]; i < t->lvl_start[l + 1]; i++) {
			int r = slurm_switch(t, &sw, t->by_level[i], &tmp, fp, e);
			if (t->level[t->by_level[i]] == 0) { /* leaf_hosts' strings */
				for (uint32_t k = 0; k < tmp.n; k++)
					free(tmp.s[k]);
				tmp.n = 0;
			}
			if (r)
				goto out;
		}
	rc = 0;
out:
	free(tmp.s);
	names_free(&sw);
	return rc;
}

/* ---- host orders for MPI */

int vt_order_write_format(const vt_order *o, const vt_fabric *f, enum vt_order_format fmt, FILE *fp,
			  vt_err *e)
{
	char b[256];
	uint32_t mpi = 0, *slot = NULL;

	if (fmt == VT_ORDER_CA_ORDER)
		return vt_order_write(o, f, fp, e);
	/* rankfile slots: ranks already on the node, counted per node */
	if (fmt == VT_ORDER_RANKFILE && !(slot = calloc((size_t)f->nnodes + 1, sizeof(*slot))))
		return vt_err_nomem(e, "out of memory");
	fprintf(fp, "# vartree host order (%s) of %s: %s\n",
		fmt == VT_ORDER_HOSTFILE ? "hostfile" : "Open MPI rankfile", f->source,
		"MPI rank N is the N-th host; place-keepers left out");
	for (uint32_t r = 0; r < o->n; r++) {
		uint32_t p = o->port[r];
		if (p == VT_NONE) {
			fprintf(fp, "# vartree rank %u: place-keeper (no host)\n", r);
			continue;
		}
		uint32_t node = f->ports[p].node;
		if (vt_host_name(f, node, b, sizeof(b), e)) {
			free(slot);
			return -1;
		}
		if (fmt == VT_ORDER_HOSTFILE)
			fprintf(fp, "%s\n", b);
		else
			fprintf(fp, "rank %u=%s slot=%u\n", mpi, b, slot[node]++);
		mpi++;
	}
	free(slot);
	return 0;
}
