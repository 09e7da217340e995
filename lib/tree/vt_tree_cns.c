/* SPDX-License-Identifier: MIT */
/*
 * Compute nodes (vt_tree.h): which CA ports count as ranks. Aggregation nodes
 * never do; --cn-guid-file / --io-guid-file decide as in OpenSM's ftree; tree
 * extraction (vt_tree_levels.c) then unmarks the CAs of spines.
 */
#include <stdlib.h>
#include <string.h>

#include "tree/vt_tree_int.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static uint64_t *sorted_copy(const uint64_t *g, uint32_t n)
{
	uint64_t *c = malloc((n ? n : 1) * sizeof(*c));

	if (c && n) {
		memcpy(c, g, n * sizeof(*c));
		qsort(c, n, sizeof(*c), cmp_u64);
	}
	return c;
}

static int in_list(const uint64_t *l, uint32_t n, uint64_t g)
{
	return l && n && bsearch(&g, l, n, sizeof(*l), cmp_u64) != NULL;
}

/*
 * None of the `attached` CA ports on switches is a compute node: say which
 * list left none, by its file's name when it was read from one.
 */
static int refuse_no_cns(const vt_tree *t, const struct vt_tree_opts *o, uint32_t attached,
			 vt_err *e)
{
	const vt_fabric *f = t->f;
	uint32_t first = VT_NONE, nsw = 0, ncas = 0;
	char nm[VT_NODE_NAME_MAX];

	for (uint32_t s = 0; t->plane_of && s < t->nsw; s++) {
		uint32_t node = f->switches[s];

		if (t->plane_of[s] != t->plane)
			continue;
		first = first == VT_NONE ? s : first;
		nsw++;
		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t x = vt_peer_node(f, vt_port_index(f, node, p));

			ncas += x != VT_NONE && f->nodes[x].type == VT_CA;
		}
	}
	if (!attached && first != VT_NONE) /* a piece of the fabric: name it */
		return vt_err_node(e, f, f->switches[first], 0,
				   "no compute nodes: %s attached to switch %s%s",
				   ncas ? "only aggregation nodes are" : "no CA is",
				   vt_node_name(f, f->switches[first], nm, sizeof(nm)),
				   nsw > 1 ? " or the other switches of its part" : "");
	if (!attached)
		return vt_err_set(e, "%s: no compute nodes (no CA is attached to a switch)",
				  f->source);
	if (o && o->cn_guids)
		return vt_err_set(
			e, "%s: no compute nodes (no CA attached to a switch is listed in %s)",
			f->source, o->cn_file ? o->cn_file : "the compute-node GUIDs");
	return vt_err_set(e, "%s: no compute nodes (every CA attached to a switch is listed in %s)",
			  f->source, o && o->io_file ? o->io_file : "the I/O-node GUIDs");
}

/*
 * Marks the CA ports that may be compute nodes, the way OpenSM's ftree reads
 * its guid files: only cn_guids when given, else every CA port not in
 * io_guids. Aggregation nodes never are. Leaf selection may unmark more.
 */
int vt_tree_mark_cns(vt_tree *t, const struct vt_tree_opts *o, vt_err *e)
{
	const vt_fabric *f = t->f;
	uint64_t *cn = o && o->cn_guids ? sorted_copy(o->cn_guids, o->ncns) : NULL;
	uint64_t *io = o && o->io_guids ? sorted_copy(o->io_guids, o->nios) : NULL;
	uint32_t ncn = cn ? o->ncns : 0, nio = io ? o->nios : 0, attached = 0;

	t->is_cn = calloc(f->nports + 1, 1);
	if (!t->is_cn || (o && o->cn_guids && !cn) || (o && o->io_guids && !io)) {
		free(cn);
		free(io);
		return vt_err_nomem(e, "out of memory");
	}
	for (uint32_t n = 0; n < f->nnodes; n++) {
		const struct vt_node *nd = &f->nodes[n];

		if (nd->type != VT_CA || vt_node_is_agg(f, n))
			continue;
		for (unsigned p = 1; p <= nd->nports; p++) {
			uint32_t q = vt_port_index(f, n, p), peer = vt_peer_node(f, q);
			uint64_t g = f->ports[q].guid;
			int yes;

			if (peer == VT_NONE || f->nodes[peer].type != VT_SWITCH)
				continue;
			if (t->plane_of && t->plane_of[f->nodes[peer].sw] != t->plane)
				continue;
			attached++;
			if (cn)
				yes = in_list(cn, ncn, g) || in_list(cn, ncn, nd->guid);
			else
				yes = !(in_list(io, nio, g) || in_list(io, nio, nd->guid));
			t->is_cn[q] = (uint8_t)yes;
			t->ncn += (uint32_t)yes;
		}
	}
	free(cn);
	free(io);
	return t->ncn ? 0 : refuse_no_cns(t, o, attached, e);
}

/* Compute-node CA ports on switch s. */
uint32_t vt_tree_cn_count(const vt_tree *t, uint32_t s)
{
	const vt_fabric *f = t->f;
	uint32_t node = f->switches[s], c = 0;

	for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
		uint32_t q = vt_port_index(f, node, p);

		c += f->ports[q].peer != VT_NONE && t->is_cn[f->ports[q].peer];
	}
	return c;
}

uint32_t vt_tree_leaf_ca(const vt_tree *t, uint32_t s)
{
	const vt_fabric *f = t->f;
	uint32_t node = f->switches[s];

	for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
		uint32_t q = vt_port_index(f, node, p);

		if (f->ports[q].peer != VT_NONE && t->is_cn[f->ports[q].peer])
			return f->ports[f->ports[q].peer].node;
	}
	return VT_NONE;
}

/* A switch's CA ports stop being compute nodes (it is a spine with CAs). */
void vt_tree_unmark_cns(vt_tree *t, uint32_t s)
{
	const vt_fabric *f = t->f;
	uint32_t node = f->switches[s];

	for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
		uint32_t q = f->ports[vt_port_index(f, node, p)].peer;

		if (q != VT_NONE && t->is_cn[q]) {
			t->is_cn[q] = 0;
			t->ncn--;
		}
	}
}
