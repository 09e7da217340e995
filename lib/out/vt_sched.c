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
	static const char *const names[] = {"ca-order", "hostfile", "rankfile", "machinefile"};

	for (int i = 0; i < 4; i++)
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

int vt_host_name(const vt_fabric *f, uint32_t node, enum vt_host_use use, char *buf, size_t len,
		 vt_err *e)
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
	/* a name every host answers to: mpirun would start the rank on itself */
	if (!strcmp(buf, "localhost"))
		return vt_err_set(e,
				  "\"%s\" (0x%016" PRIx64 "): host name \"localhost\" names no one "
				  "host; give the hosts their names in a node name map",
				  nd->desc, nd->guid);
	/* Open MPI's node-name regex refuses it: mpirun stops ("illegal character") */
	if (use == VT_HOST_MPI && strchr(buf, '_'))
		return vt_err_set(
			e,
			"\"%s\" (0x%016" PRIx64 "): host name \"%s\" has '_', which Open "
			"MPI's mpirun refuses in a node name; give the host its real name "
			"in a node name map",
			nd->desc, nd->guid, buf);
	return 0;
}

/* ---- hosts: each compute rank's host, one entry per host name */

struct host_rank {
	char *name;
	const struct vt_node *nd;
	uint32_t node, rank;
};

typedef struct vt_hosts {
	uint32_t n;	   /* hosts */
	uint32_t *of_rank; /* per rank of the order: host, VT_NONE for a place-keeper */
	uint32_t *first;   /* per host: its first rank */
	char **name;	   /* per host */
} vt_hosts;

static void hosts_free(vt_hosts *h)
{
	for (uint32_t i = 0; h->name && i < h->n; i++)
		free(h->name[i]);
	free(h->name);
	free(h->first);
	free(h->of_rank);
	memset(h, 0, sizeof(*h));
}

/* By name, then description: two nodes of one description sort next to each other. */
static int cmp_host_rank(const void *a, const void *b)
{
	const struct host_rank *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (!c)
		c = strcmp(x->nd->desc, y->nd->desc);
	if (!c)
		c = x->node < y->node ? -1 : x->node > y->node;
	return c ? c : x->rank < y->rank ? -1 : x->rank > y->rank;
}

/*
 * Two nodes (two GUIDs) with one description have one host name but cannot be
 * one host's adapters, which differ after the first word ("gpu017 mlx5_1"):
 * a default NodeDesc ("MT4119 ConnectX5 Mellanox Technologies") on unnamed hosts.
 */
static int same_desc_nodes(const struct host_rank *r, uint32_t i, uint32_t n, vt_err *e)
{
	uint32_t j = i, k;

	while (j > 0 && !strcmp(r[j - 1].name, r[i].name))
		j--;
	for (k = i; k < n && !strcmp(r[k].name, r[i].name); k++)
		;
	uint32_t nodes = 0;
	for (uint32_t m = j; m < k; m++)
		nodes += m == j || r[m].node != r[m - 1].node;
	return vt_err_set(e,
			  "\"%s\" (0x%016" PRIx64 ") and \"%s\" (0x%016" PRIx64 "): two nodes of "
			  "one description, so one host name \"%s\" for two hosts (%u nodes have "
			  "it); give the hosts their names in a node name map",
			  r[i - 1].nd->desc, r[i - 1].nd->guid, r[i].nd->desc, r[i].nd->guid,
			  r[i].name, nodes);
}

static int hosts_group(vt_hosts *h, struct host_rank *r, uint32_t nr, vt_err *e)
{
	h->name = calloc((size_t)nr + 1, sizeof(*h->name));
	h->first = malloc(((size_t)nr + 1) * sizeof(*h->first));
	if (!h->name || !h->first)
		return vt_err_nomem(e, "out of memory");
	for (uint32_t i = 0; i < nr; i++) {
		int same = h->n && !strcmp(h->name[h->n - 1], r[i].name);
		if (same && r[i - 1].node != r[i].node && !strcmp(r[i - 1].nd->desc, r[i].nd->desc))
			return same_desc_nodes(r, i, nr, e);
		if (!same) {
			if (!(h->name[h->n] = strdup(r[i].name)))
				return vt_err_nomem(e, "out of memory");
			h->first[h->n++] = r[i].rank;
		} else if (r[i].rank < h->first[h->n - 1]) {
			h->first[h->n - 1] = r[i].rank;
		}
		h->of_rank[r[i].rank] = h->n - 1;
	}
	return 0;
}

/* The hosts of order o's ranks; refuses names the use cannot take and ambiguous ones. */
static int hosts_build(vt_hosts *h, const vt_order *o, const vt_fabric *f, enum vt_host_use use,
		       vt_err *e)
{
	struct host_rank *r = calloc((size_t)o->n + 1, sizeof(*r));
	uint32_t nr = 0;
	char b[256];
	int rc = -1;

	memset(h, 0, sizeof(*h));
	h->of_rank = malloc(((size_t)o->n + 1) * sizeof(*h->of_rank));
	if (!r || !h->of_rank) {
		vt_err_nomem(e, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < o->n; i++) {
		uint32_t p = o->port[i];
		h->of_rank[i] = VT_NONE;
		if (p == VT_NONE)
			continue;
		uint32_t node = f->ports[p].node;
		if (vt_host_name(f, node, use, b, sizeof(b), e))
			goto out;
		r[nr] = (struct host_rank){strdup(b), &f->nodes[node], node, i};
		if (!r[nr++].name) {
			vt_err_nomem(e, "out of memory");
			goto out;
		}
	}
	qsort(r, nr, sizeof(*r), cmp_host_rank);
	rc = hosts_group(h, r, nr, e);
out:
	for (uint32_t i = 0; r && i < nr; i++)
		free(r[i].name);
	free(r);
	if (rc)
		hosts_free(h);
	return rc;
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

/* Natural order: by prefix, a name without a numeric suffix first, then the number, then width. */
static int cmp_hostname(const void *pa, const void *pb)
{
	const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
	struct hname x = split(a), y = split(b);
	size_t m = x.plen < y.plen ? x.plen : y.plen;
	int c = memcmp(a, b, m);

	if (c || x.plen != y.plen)
		return c ? c : x.plen < y.plen ? -1 : 1;
	if (x.num != y.num)
		return x.num < y.num ? -1 : 1;
	return x.w < y.w ? -1 : x.w > y.w;
}

void vt_hostlist_sort(const char **names, uint32_t n)
{
	qsort(names, n, sizeof(*names), cmp_hostname);
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

/*
 * Does name b (number one past the range's last) continue a range whose first
 * number has w digits? Slurm expands "lo-hi" with lo's width ("%0*u"): so b
 * has w digits, or more without a leading zero ("n[8-12]", "n[08-12]").
 */
static int continues(const char *b, struct hname y, unsigned w)
{
	return y.w == w || (y.w > w && b[y.plen] != '0');
}

/* The ranges of names[i..j), which share a prefix: "01-04,07". */
static int put_ranges(const char *const *names, uint32_t i, uint32_t j, char *buf, size_t len,
		      size_t *at)
{
	for (uint32_t k = i; k < j;) {
		struct hname lo = split(names[k]);
		uint32_t m = k;
		while (m + 1 < j) {
			struct hname y = split(names[m + 1]);
			if (y.num != split(names[m]).num + 1 || !continues(names[m + 1], y, lo.w))
				break;
			m++;
		}
		if (put(buf, len, at, "%s%s", k > i ? "," : "", names[k] + lo.plen) ||
		    (m > k && put(buf, len, at, "-%s", names[m] + split(names[m]).plen)))
			return -1;
		k = m + 1;
	}
	return 0;
}

int vt_hostlist_compress(const char *const *names, uint32_t n, char *buf, size_t len)
{
	size_t at = strlen(buf);

	for (uint32_t i = 0; i < n;) {
		struct hname a = split(names[i]);
		uint32_t j = i + 1;
		/* a group: adjacent names with the same prefix and a numeric suffix */
		while (a.w && j < n) {
			struct hname b = split(names[j]);
			if (!b.w || b.plen != a.plen || strncmp(names[i], names[j], a.plen))
				break;
			j++;
		}
		if (put(buf, len, &at, "%s", i ? "," : ""))
			return -1;
		if (j == i + 1) {
			if (put(buf, len, &at, "%s", names[i]))
				return -1;
		} else if (put(buf, len, &at, "%.*s[", (int)a.plen, names[i]) ||
			   put_ranges(names, i, j, buf, len, &at) || put(buf, len, &at, "]")) {
			return -1;
		}
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

/* One SwitchName line: KEY=the sorted, compressed list of names (n > 0). */
static int slurm_line(FILE *fp, const char *name, const char *key, const char **list, uint32_t n,
		      vt_err *e)
{
	size_t len = 64;
	for (uint32_t i = 0; i < n; i++)
		len += strlen(list[i]) + 4;
	char *buf = malloc(len);
	if (!buf)
		return vt_err_nomem(e, "out of memory");
	buf[0] = 0;
	vt_hostlist_sort(list, n);
	if (vt_hostlist_compress(list, n, buf, len)) {
		free(buf);
		return vt_err_set(e, "hostlist of switch %s does not fit", name);
	}
	fprintf(fp, "SwitchName=%s %s=%s\n", name, key, buf);
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

/*
 * What topology.conf lists: each host once, under the leaf of its first rank
 * (a multi-rail host's HCA on the first rail in the order: Slurm takes a node
 * on one leaf only), and each switch that has a listed host below it.
 */
struct slurm_plan {
	vt_hosts h;
	uint32_t *leaf_start; /* per switch + 1: CSR offsets into by_leaf */
	const char **by_leaf; /* host names grouped by leaf */
	uint8_t *keep;	      /* per switch: a host below it */
};

static void plan_free(struct slurm_plan *p)
{
	hosts_free(&p->h);
	free(p->leaf_start);
	free(p->by_leaf);
	free(p->keep);
}

static int slurm_plan(const vt_tree *t, struct slurm_plan *p, vt_err *e)
{
	if (hosts_build(&p->h, &t->order, t->f, VT_HOST_SLURM, e))
		return -1;
	p->leaf_start = calloc((size_t)t->nsw + 2, sizeof(*p->leaf_start));
	p->by_leaf = malloc(((size_t)p->h.n + 1) * sizeof(*p->by_leaf));
	p->keep = calloc((size_t)t->nsw + 1, 1);
	if (!p->leaf_start || !p->by_leaf || !p->keep)
		return vt_err_nomem(e, "out of memory");
	for (uint32_t i = 0; i < p->h.n; i++)
		p->leaf_start[t->rank_leaf[p->h.first[i]] + 2]++;
	for (uint32_t s = 0; s < t->nsw; s++)
		p->leaf_start[s + 2] += p->leaf_start[s + 1];
	for (uint32_t i = 0; i < p->h.n; i++)
		p->by_leaf[p->leaf_start[t->rank_leaf[p->h.first[i]] + 1]++] = p->h.name[i];
	/* levels upwards: a switch is kept when a child is (a bare SwitchName is fatal to
	 * slurmctld) */
	for (uint32_t l = 0; l < t->nlevels; l++)
		for (uint32_t i = t->lvl_start[l]; i < t->lvl_start[l + 1]; i++) {
			uint32_t s = t->by_level[i];
			if (l == 0)
				p->keep[s] = p->leaf_start[s + 1] > p->leaf_start[s];
			for (uint32_t k = t->dn_start[s]; l > 0 && k < t->dn_start[s + 1]; k++)
				p->keep[s] |= p->keep[t->dn_peer[k]];
		}
	return 0;
}

static int slurm_switch(const vt_tree *t, const struct names *sw, const struct slurm_plan *p,
			uint32_t s, const char **kids, FILE *fp, vt_err *e)
{
	uint32_t n = 0;

	slurm_comment(fp, t->f, t->f->switches[s], t->level[s]);
	if (!p->keep[s]) {
		fprintf(fp, "# (left out: no host listed below it)\n");
		return 0;
	}
	if (t->level[s] == 0)
		return slurm_line(fp, sw->s[s], "Nodes", p->by_leaf + p->leaf_start[s],
				  p->leaf_start[s + 1] - p->leaf_start[s], e);
	/* entries are grouped by remote switch: one name per group */
	for (uint32_t i = t->dn_start[s]; i < t->dn_start[s + 1]; i++)
		if ((i == t->dn_start[s] || t->dn_peer[i] != t->dn_peer[i - 1]) &&
		    p->keep[t->dn_peer[i]])
			kids[n++] = sw->s[t->dn_peer[i]];
	return slurm_line(fp, sw->s[s], "Switches", kids, n, e);
}

int vt_sched_slurm(const vt_tree *t, FILE *fp, vt_err *e)
{
	struct names sw = {0};
	struct slurm_plan p = {0};
	const char **kids = calloc((size_t)t->nsw + 1, sizeof(*kids));
	int rc = -1;

	if (!kids) {
		vt_err_nomem(e, "out of memory");
		goto out;
	}
	if (slurm_plan(t, &p, e) || switch_names(t, &sw, e))
		goto out;
	fprintf(fp,
		"# Slurm topology.conf (topology/tree) written by vartree from %s:\n"
		"# %u switch levels, %u compute-node ports on %u hosts, each host under the\n"
		"# leaf of its first port in vartree's order; leaves first, the top last.\n",
		t->f->source, t->nlevels, t->ncn, p.h.n);
	for (uint32_t l = 0; l < t->nlevels; l++)
		for (uint32_t i = t->lvl_start[l]; i < t->lvl_start[l + 1]; i++)
			if (slurm_switch(t, &sw, &p, t->by_level[i], kids, fp, e))
				goto out;
	rc = 0;
out:
	free(kids);
	plan_free(&p);
	names_free(&sw);
	return rc;
}

/* ---- host orders for MPI */

/* The header: what the file is and the launch line that follows it. */
static void order_header(FILE *fp, const vt_fabric *f, enum vt_order_format fmt, uint32_t nranks)
{
	static const char *const what[] = {"", "hostfile", "Open MPI rankfile",
					   "MPICH machine file"};

	fprintf(fp, "# vartree host order (%s) of %s: MPI rank N is the N-th host; %s\n", what[fmt],
		f->source, "place-keepers left out");
	if (fmt == VT_ORDER_HOSTFILE)
		fprintf(fp,
			"# Open MPI: mpirun --hostfile FILE --map-by seq -np %u PROGRAM\n"
			"# MPICH: mpiexec -f FILE -n %u PROGRAM\n",
			nranks, nranks);
	else if (fmt == VT_ORDER_RANKFILE)
		fprintf(fp, "# Open MPI: mpirun --rankfile FILE -np %u PROGRAM\n", nranks);
	else
		fprintf(fp, "# MPICH: mpiexec -f FILE -n %u PROGRAM\n", nranks);
}

/* MPICH's "host:N": N consecutive ranks on one host, from rank r on. */
static uint32_t host_run(const vt_hosts *h, const vt_order *o, uint32_t r)
{
	uint32_t n = 1;

	for (uint32_t q = r + 1; q < o->n && h->of_rank[q] != VT_NONE; q++, n++)
		if (h->of_rank[q] != h->of_rank[r])
			break;
	return n;
}

static void order_lines(const vt_order *o, const vt_hosts *h, enum vt_order_format fmt,
			uint32_t *slot, FILE *fp)
{
	uint32_t mpi = 0;

	for (uint32_t r = 0; r < o->n;) {
		uint32_t host = h->of_rank[r], n = 1;
		if (host == VT_NONE) {
			fprintf(fp, "# vartree rank %u: place-keeper (no host)\n", r++);
			continue;
		}
		if (fmt == VT_ORDER_HOSTFILE) {
			fprintf(fp, "%s\n", h->name[host]);
		} else if (fmt == VT_ORDER_RANKFILE) {
			/* the host's cores in turn: each rank its own (slot=0 for all binds one) */
			fprintf(fp, "rank %u=%s slot=%u\n", mpi, h->name[host], slot[host]++);
		} else {
			n = host_run(h, o, r);
			fprintf(fp, "%s:%u\n", h->name[host], n);
		}
		mpi += n;
		r += n;
	}
}

int vt_order_write_format(const vt_order *o, const vt_fabric *f, enum vt_order_format fmt, FILE *fp,
			  vt_err *e)
{
	vt_hosts h;
	uint32_t *slot, nranks = 0;

	if (fmt == VT_ORDER_CA_ORDER)
		return vt_order_write(o, f, fp, e);
	if (hosts_build(&h, o, f, VT_HOST_MPI, e))
		return -1;
	/* rankfile slots: ranks already placed on the host, counted per host */
	slot = calloc((size_t)h.n + 1, sizeof(*slot));
	if (!slot) {
		hosts_free(&h);
		return vt_err_nomem(e, "out of memory");
	}
	for (uint32_t r = 0; r < o->n; r++)
		nranks += h.of_rank[r] != VT_NONE;
	order_header(fp, f, fmt, nranks);
	order_lines(o, &h, fmt, slot, fp);
	free(slot);
	hosts_free(&h);
	return 0;
}
