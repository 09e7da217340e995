/* SPDX-License-Identifier: MIT */
/* Host orders: natural leaf order, the ca-order dump form, plain name lists, seeded shuffles. */
#include "vt_order.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "vt_io.h"
#include "vt_rand.h"

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
		return vt_err_set(e, "out of memory");
	for (uint32_t i = 0; i < n; i++)
		k[i] = (struct nat_key){f, nodes[i]};
	qsort(k, n, sizeof(*k), node_natcmp);
	for (uint32_t i = 0; i < n; i++)
		nodes[i] = k[i].node;
	free(k);
	return 0;
}

static int is_ca_port(const vt_fabric *f, uint32_t port)
{
	uint32_t n = vt_peer_node(f, port);

	return n != VT_NONE && f->nodes[n].type == VT_CA;
}

int vt_order_leaf(vt_order *o, const vt_fabric *f, vt_err *e)
{
	uint32_t *leaves = malloc((f->nswitches + 1) * sizeof(*leaves)), nl = 0, n = 0;

	o->n = 0;
	o->port = NULL;
	if (!leaves)
		return vt_err_set(e, "out of memory");
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
		return vt_err_set(e, "out of memory");
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

static int read_lines(vt_order *o, const vt_fabric *f, const char *path, char *buf,
		      const struct desc_pair *descs, uint32_t nd, uint8_t *seen, vt_err *e)
{
	uint32_t cap = 0;
	unsigned line = 0;

	for (char *s = buf, *next; s && *s; s = next) {
		char *nl = strchr(s, '\n'), *t, *hash;
		uint32_t port = VT_NONE;
		int amb = 0;

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
		/* dump form: "0xLID<TAB>description" */
		char *tab = strchr(t, '\t');

		if (tab && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
			char *end;
			unsigned long lid = strtoul(t, &end, 16);

			if (end != tab)
				return vt_err_at(e, path, line, "bad LID \"%.*s\"", (int)(tab - t),
						 t);
			if (lid == 0xFFFF) {
				if (push(o, &cap, VT_NONE))
					return vt_err_set(e, "out of memory");
				continue;
			}
			port = vt_fabric_port_by_lid(f, (uint32_t)lid);
			if (port == VT_NONE || f->nodes[f->ports[port].node].type == VT_SWITCH)
				return vt_err_at(e, path, line, "no CA has LID 0x%04lx", lid);
		} else {
			port = resolve(f, descs, nd, t, &amb);
			if (amb)
				return vt_err_at(e, path, line, "\"%s\" names several nodes", t);
			if (port == VT_NONE)
				return vt_err_at(e, path, line, "unknown node \"%s\"", t);
		}
		if (seen[port])
			return vt_err_at(e, path, line, "\"%s\" listed twice",
					 f->nodes[f->ports[port].node].id);
		seen[port] = 1;
		if (push(o, &cap, port))
			return vt_err_set(e, "out of memory");
	}
	if (!o->n)
		return vt_err_at(e, path, 0, "no nodes listed");
	return 0;
}

int vt_order_read(vt_order *o, const vt_fabric *f, const char *path, vt_err *e)
{
	struct desc_pair *descs = malloc((f->nnodes + 1) * sizeof(*descs));
	uint8_t *seen = calloc(f->nports + 1, 1);
	uint32_t nd = 0;
	char *buf = NULL;
	size_t len;
	int rc;

	o->n = 0;
	o->port = NULL;
	if (!descs || !seen) {
		free(descs);
		free(seen);
		return vt_err_set(e, "out of memory");
	}
	if (vt_read_text(path, &buf, &len, e)) {
		free(descs);
		free(seen);
		return -1;
	}
	for (uint32_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i].type != VT_SWITCH)
			descs[nd++] = (struct desc_pair){f->nodes[i].desc, i};
	qsort(descs, nd, sizeof(*descs), pair_cmp);
	rc = read_lines(o, f, path, buf, descs, nd, seen, e);
	if (rc)
		vt_order_free(o);
	free(buf);
	free(descs);
	free(seen);
	return rc;
}

void vt_order_shuffle(vt_order *o, uint64_t seed)
{
	vt_rand r;

	vt_rand_seed(&r, seed);
	vt_rand_shuffle_u32(&r, o->port, o->n);
}
