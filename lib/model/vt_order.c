/* SPDX-License-Identifier: MIT */
/* Host orders: natural leaf order, the ca-order dump form, plain name lists, seeded shuffles. */
#include "model/vt_order.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/vt_io.h"
#include "base/vt_rand.h"

void vt_order_free(vt_order *o)
{
	free(o->port);
	o->port = NULL;
	o->n = 0;
}

/* Natural order: digit runs compare as numbers, so "S2" < "S10". */
static int natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *x = a, *y = b;
			size_t lx, ly;

			while (*x == '0' && isdigit((unsigned char)x[1]))
				x++;
			while (*y == '0' && isdigit((unsigned char)y[1]))
				y++;
			for (a = x; isdigit((unsigned char)*a); a++)
				;
			for (b = y; isdigit((unsigned char)*b); b++)
				;
			lx = (size_t)(a - x);
			ly = (size_t)(b - y);
			if (lx != ly)
				return lx < ly ? -1 : 1;
			for (size_t i = 0; i < lx; i++)
				if (x[i] != y[i])
					return x[i] < y[i] ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

struct nat_key {
	const vt_fabric *f;
	uint32_t node;
};

static int node_natcmp(const void *pa, const void *pb)
{
	const struct nat_key *a = pa, *b = pb;
	const struct vt_node *x = &a->f->nodes[a->node], *y = &b->f->nodes[b->node];
	int c = natcmp(x->desc, y->desc);

	if (c)
		return c;
	return x->guid < y->guid   ? -1
	       : x->guid > y->guid ? 1
				   : (a->node > b->node) - (a->node < b->node);
}

int vt_order_sort_nodes(const vt_fabric *f, uint32_t *nodes, uint32_t n, vt_err *e)
{
	struct nat_key *k = malloc((n ? n : 1) * sizeof(*k));

	if (!k)
		return vt_err_nomem(e, "out of memory");
	for (uint32_t i = 0; i < n; i++)
		k[i] = (struct nat_key){f, nodes[i]};
	qsort(k, n, sizeof(*k), node_natcmp);
	for (uint32_t i = 0; i < n; i++)
		nodes[i] = k[i].node;
	free(k);
	return 0;
}

/* A host's port: a CA's, but not a SHArP aggregation node's, which runs no ranks. */
static int is_ca_port(const vt_fabric *f, uint32_t port)
{
	uint32_t n = vt_peer_node(f, port);

	return n != VT_NONE && f->nodes[n].type == VT_CA && !vt_node_is_agg(f, n);
}

int vt_order_leaf(vt_order *o, const vt_fabric *f, vt_err *e)
{
	uint32_t *leaves = malloc((f->nswitches + 1) * sizeof(*leaves)), nl = 0, n = 0;

	o->n = 0;
	o->port = NULL;
	if (!leaves)
		return vt_err_nomem(e, "out of memory");
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t node = f->switches[s], c = 0;

		for (unsigned p = 1; p <= f->nodes[node].nports; p++)
			c += is_ca_port(f, vt_port_index(f, node, p));
		if (c) {
			leaves[nl++] = node;
			n += c;
		}
	}
	if (vt_order_sort_nodes(f, leaves, nl, e)) {
		free(leaves);
		return -1;
	}
	o->port = malloc((n ? n : 1) * sizeof(*o->port));
	if (!o->port) {
		free(leaves);
		return vt_err_nomem(e, "out of memory");
	}
	for (uint32_t i = 0; i < nl; i++)
		for (unsigned p = 1; p <= f->nodes[leaves[i]].nports; p++) {
			uint32_t q = vt_port_index(f, leaves[i], p);

			if (is_ca_port(f, q))
				o->port[o->n++] = f->ports[q].peer;
		}
	free(leaves);
	return 0;
}

int vt_order_write(const vt_order *o, const vt_fabric *f, FILE *fp, vt_err *e)
{
	for (uint32_t i = 0; i < o->n; i++) {
		if (o->port[i] == VT_NONE) {
			fputs("0xFFFF\tDUMMY\n", fp);
			continue;
		}
		const struct vt_port *p = &f->ports[o->port[i]];

		fprintf(fp, "0x%04x\t%s\n", p->lid, f->nodes[p->node].desc);
	}
	if (ferror(fp))
		return vt_err_set(e, "write error");
	return 0;
}

/* First connected port of a CA node, VT_NONE if it has none. */
static uint32_t ca_port(const vt_fabric *f, uint32_t node)
{
	if (f->nodes[node].type == VT_SWITCH)
		return VT_NONE;
	for (unsigned p = 1; p <= f->nodes[node].nports; p++)
		if (vt_port(f, node, p)->peer != VT_NONE)
			return vt_port_index(f, node, p);
	return VT_NONE;
}

/* qsort has no context argument in C11: sort pairs that carry the string instead. */
struct desc_pair {
	const char *desc;
	uint32_t node;
};

static int pair_cmp(const void *a, const void *b)
{
	const struct desc_pair *x = a, *y = b;
	int c = strcmp(x->desc, y->desc);

	return c ? c : (x->node > y->node) - (x->node < y->node);
}

/* Resolves one name: id, then GUID (0x...), then description. */
static uint32_t resolve(const vt_fabric *f, const struct desc_pair *descs, uint32_t nd,
			const char *name, int *ambiguous)
{
	uint32_t n = vt_fabric_node_by_id(f, name);
	char *end;

	*ambiguous = 0;
	if (n != VT_NONE)
		return ca_port(f, n);
	if (name[0] == '0' && (name[1] == 'x' || name[1] == 'X')) {
		unsigned long long g = strtoull(name, &end, 16);

		if (*end == '\0') {
			uint32_t p = vt_fabric_port_by_guid(f, g);

			if (p != VT_NONE && f->nodes[f->ports[p].node].type != VT_SWITCH)
				return p;
			n = vt_fabric_node_by_guid(f, g);
			if (n != VT_NONE)
				return ca_port(f, n);
		}
	}
	uint32_t lo = 0, hi = nd;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (strcmp(descs[mid].desc, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < nd && !strcmp(descs[lo].desc, name)) {
		if (lo + 1 < nd && !strcmp(descs[lo + 1].desc, name))
			*ambiguous = 1;
		return ca_port(f, descs[lo].node);
	}
	return VT_NONE;
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

static int push(vt_order *o, uint32_t *cap, uint32_t port)
{
	if (o->n == *cap) {
		uint32_t c = *cap ? *cap * 2 : 64;
		uint32_t *p = realloc(o->port, c * sizeof(*p));

		if (!p)
			return -1;
		o->port = p;
		*cap = c;
	}
	o->port[o->n++] = port;
	return 0;
}

/* Hosts of an MPI hostfile: CA nodes by the first word of their description. */
#define VT_ORDER_MAX_SLOTS 1000000u
struct host_pair {
	const char *desc;
	size_t wlen; /* length of the first word */
	uint32_t node;
};

static size_t first_word_len(const char *d)
{
	return strcspn(d, " \t");
}

/* By host name, then natural order of the whole description (HCA-1 before HCA-2), then node. */
static int host_cmp(const void *a, const void *b)
{
	const struct host_pair *x = a, *y = b;
	size_t n = x->wlen < y->wlen ? x->wlen : y->wlen;
	int c = strncmp(x->desc, y->desc, n);

	if (!c && x->wlen != y->wlen)
		c = x->wlen < y->wlen ? -1 : 1;
	if (!c)
		c = natcmp(x->desc, y->desc);
	return c ? c : (x->node > y->node) - (x->node < y->node);
}

/* 0 when a and b name the same host. */
static int host_cmp_word(const struct host_pair *a, const struct host_pair *b)
{
	return a->wlen != b->wlen || strncmp(a->desc, b->desc, a->wlen);
}

struct order_in {
	vt_order *o;
	const vt_fabric *f;
	const char *path;
	const struct desc_pair *descs;
	struct host_pair *hosts;
	uint32_t nd, nh, cap;
	uint8_t *seen;
};

static int take(struct order_in *in, uint32_t port)
{
	in->seen[port] = 1;
	return push(in->o, &in->cap, port);
}

/* The options of a hostfile line after the host: slots=N (default 1), max_slots=M (ignored). */
static int host_slots(const char *tok, unsigned long *slots)
{
	*slots = 1;
	while (*(tok += strspn(tok, " \t"))) {
		size_t tl = strcspn(tok, " \t");
		int is_slots = !strncmp(tok, "slots=", 6);
		const char *num = tok + (is_slots ? 6 : 10);
		char *end;
		unsigned long v;

		/* max_slots: Open MPI's cap on oversubscription, no meaning for an order */
		if (!is_slots && strncmp(tok, "max_slots=", 10))
			return -1;
		v = strtoul(num, &end, 10);
		if (end == num || end != tok + tl || *num == '-' || *num == '+')
			return -1;
		if (is_slots) {
			if (v < 1 || v > VT_ORDER_MAX_SLOTS)
				return -1;
			*slots = v;
		}
		tok += tl;
	}
	return 0;
}

/*
 * A hostfile line "HOST [slots=N] [max_slots=M]" or "HOST:N": up to N ranks (default 1) on
 * the host's next CA ports not placed yet, its CAs in natural order of
 * description, each CA's ports in port order. vartree places one rank per CA
 * port, so slots beyond the free ports (MPI's ranks per core, "slots=64") add
 * none: the line keeps the host's place in the order. A host listed once per
 * rank (vartree-route --order-format hostfile) places each of its HCAs once.
 */
/* Index of the first host_pair of the host named by t's first wl bytes, VT_NONE if none. */
static uint32_t host_first(const struct order_in *in, const char *t, size_t wl)
{
	struct host_pair key = {t, wl, 0};
	uint32_t lo = 0, hi = in->nh;

	while (lo < hi) { /* the host's first pair: the smallest in host_cmp's order */
		uint32_t mid = lo + (hi - lo) / 2;
		const struct host_pair *m = &in->hosts[mid];
		size_t n = m->wlen < wl ? m->wlen : wl;
		int c = strncmp(m->desc, t, n);

		if (c < 0 || (!c && m->wlen < wl))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < in->nh && !host_cmp_word(&in->hosts[lo], &key) ? lo : VT_NONE;
}

/* MPICH's and Intel MPI's "HOST:N": the host name's length, N in *slots; 0 when t is not so. */
static size_t colon_slots(const char *t, size_t wl, unsigned long *slots)
{
	const char *c = t + wl;
	char *end;

	while (c > t && c[-1] != ':')
		c--;
	if (c <= t + 1 || c == t + wl || strspn(c, "0123456789") != (size_t)(t + wl - c))
		return 0;
	*slots = strtoul(c, &end, 10);
	return *slots >= 1 && *slots <= VT_ORDER_MAX_SLOTS ? (size_t)(c - 1 - t) : 0;
}

/* An unknown host name, with a hint where it looks like a Slurm hostlist or a domain name. */
static int unknown_host(struct order_in *in, const char *t, size_t wl, unsigned line, vt_err *e)
{
	const char *br = memchr(t, '[', wl), *dot = memchr(t, '.', wl);

	if (br && memchr(br, ']', wl - (size_t)(br - t)))
		return vt_err_at(e, in->path, line,
				 "unknown node \"%s\" (a Slurm hostlist? one host a line, as "
				 "'scontrol show hostnames' lists them)",
				 t);
	if (dot && dot > t && host_first(in, t, (size_t)(dot - t)) != VT_NONE)
		return vt_err_at(e, in->path, line,
				 "unknown node \"%s\" (the fabric's host is \"%.*s\": give host "
				 "names without their domain)",
				 t, (int)(dot - t), t);
	return vt_err_at(e, in->path, line, "unknown node \"%s\"", t);
}

static int host_line(struct order_in *in, char *t, unsigned line, vt_err *e)
{
	const vt_fabric *f = in->f;
	size_t wl = first_word_len(t), hl = wl;
	uint32_t lo = host_first(in, t, wl), placed = 0, ports = 0;
	unsigned long slots, colon = 0;

	if (lo == VT_NONE && (hl = colon_slots(t, wl, &colon)))
		lo = host_first(in, t, hl);
	if (lo == VT_NONE)
		return unknown_host(in, t, wl, line, e);
	if (host_slots(t + wl, &slots) || (colon && t[wl]))
		return vt_err_at(e, in->path, line,
				 "\"%s\": expected a node, or a host name and slots=N or :N "
				 "(1 .. %u)",
				 t, VT_ORDER_MAX_SLOTS);
	if (colon)
		slots = colon;
	struct host_pair key = {t, hl, 0};
	for (uint32_t i = lo; i < in->nh && !host_cmp_word(&in->hosts[i], &key); i++) {
		uint32_t nd = in->hosts[i].node;
		for (unsigned p = 1; p <= f->nodes[nd].nports; p++) {
			uint32_t q = vt_port_index(f, nd, p);
			if (f->ports[q].peer == VT_NONE)
				continue;
			ports++;
			if (placed < slots && !in->seen[q]) {
				if (take(in, q))
					return vt_err_nomem(e, "out of memory");
				placed++;
			}
		}
	}
	if (!placed)
		return vt_err_at(e, in->path, line,
				 "host \"%.*s\" listed again, but its %u CA port%s already placed",
				 (int)hl, t, ports, ports == 1 ? " is" : "s are");
	return 0;
}

/* One line of the dump form or a node list: one rank. 1 when it is neither (a hostfile line). */
static int node_line(struct order_in *in, char *t, unsigned line, vt_err *e)
{
	const vt_fabric *f = in->f;
	uint32_t port = VT_NONE;
	int amb = 0;
	/* dump form: "0xLID<TAB>description" */
	char *tab = strchr(t, '\t');

	if (tab && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
		char *end;
		unsigned long lid = strtoul(t, &end, 16);

		if (end != tab)
			return vt_err_at(e, in->path, line, "bad LID \"%.*s\"", (int)(tab - t), t);
		if (lid == 0xFFFF)
			return push(in->o, &in->cap, VT_NONE) ? vt_err_nomem(e, "out of memory")
							      : 0;
		port = vt_fabric_port_by_lid(f, (uint32_t)lid);
		if (port == VT_NONE || f->nodes[f->ports[port].node].type == VT_SWITCH)
			return vt_err_at(e, in->path, line, "no CA has LID 0x%04lx", lid);
	} else {
		port = resolve(f, in->descs, in->nd, t, &amb);
		if (amb)
			return vt_err_at(e, in->path, line, "\"%s\" names several nodes", t);
		if (port == VT_NONE)
			return 1;
	}
	if (in->seen[port])
		return vt_err_at(e, in->path, line, "\"%s\" listed twice",
				 f->nodes[f->ports[port].node].id);
	return take(in, port) ? vt_err_nomem(e, "out of memory") : 0;
}

static int read_lines(struct order_in *in, char *buf, vt_err *e)
{
	unsigned line = 0;

	for (char *s = buf, *next; s && *s; s = next) {
		char *nl = strchr(s, '\n'), *t, *hash;
		int r;

		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		line++;
		hash = strchr(s, '#');
		if (hash)
			*hash = '\0';
		t = trim(s);
		if (!*t)
			continue;
		r = node_line(in, t, line, e);
		if (r == 1)
			r = host_line(in, t, line, e);
		if (r)
			return -1;
	}
	if (!in->o->n)
		return vt_err_at(e, in->path, 0, "no nodes listed");
	return 0;
}

int vt_order_read(vt_order *o, const vt_fabric *f, const char *path, vt_err *e)
{
	struct desc_pair *descs = malloc((f->nnodes + 1) * sizeof(*descs));
	struct host_pair *hosts = malloc((f->nnodes + 1) * sizeof(*hosts));
	struct order_in in = {.o = o, .f = f, .path = path, .descs = descs, .hosts = hosts};
	char *buf = NULL;
	size_t len;
	int rc = -1;

	o->n = 0;
	o->port = NULL;
	in.seen = calloc(f->nports + 1, 1);
	if (!descs || !hosts || !in.seen)
		vt_err_nomem(e, "out of memory");
	else if (!vt_read_text(path, &buf, &len, e)) {
		for (uint32_t i = 0; i < f->nnodes; i++)
			if (f->nodes[i].type != VT_SWITCH) {
				const char *d = f->nodes[i].desc;
				descs[in.nd++] = (struct desc_pair){d, i};
				hosts[in.nh++] = (struct host_pair){d, first_word_len(d), i};
			}
		qsort(descs, in.nd, sizeof(*descs), pair_cmp);
		qsort(hosts, in.nh, sizeof(*hosts), host_cmp);
		rc = read_lines(&in, buf, e);
	}
	if (rc)
		vt_order_free(o);
	free(buf);
	free(descs);
	free(hosts);
	free(in.seen);
	return rc;
}

void vt_order_shuffle(vt_order *o, uint64_t seed)
{
	vt_rand r;

	vt_rand_seed(&r, seed);
	vt_rand_shuffle_u32(&r, o->port, o->n);
}
