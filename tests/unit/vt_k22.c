/* SPDX-License-Identifier: MIT */
#include "vt_k22.h"

#include <check.h>
#include <string.h>

#include "gen/vt_gen.h"

static unsigned port_to(const vt_fabric *f, uint32_t a, uint32_t b)
{
	for (unsigned p = 1; p <= f->nodes[a].nports; p++)
		if (vt_peer_node(f, vt_port_index(f, a, p)) == b)
			return p;
	ck_abort_msg("no link");
	return 0;
}

uint32_t vt_k22_lid(const struct vt_k22 *x, int h)
{
	return vt_port(x->f, x->host[h], 1)->lid;
}

void vt_k22_set(struct vt_k22 *x, uint32_t node, int h, uint32_t to)
{
	vt_lft_set(&x->t, x->f->nodes[node].sw, vt_k22_lid(x, h), (uint8_t)port_to(x->f, node, to));
}

/* Minimal routing with every up-going flow on spine X. */
void vt_k22_setup(struct vt_k22 *x)
{
	struct vt_gen_spec s;
	vt_err e = {0};

	memset(x, 0, sizeof(*x));
	ck_assert_int_eq(vt_gen_parse(&s, "fat 2,2", &e), 0);
	ck_assert_msg(vt_gen_build(&s, &x->f, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(vt_order_leaf(&x->o, x->f, &e), 0);
	ck_assert_uint_eq(x->o.n, 4);
	for (int h = 0; h < 4; h++)
		x->host[h] = x->f->ports[x->o.port[h]].node;
	x->leaf[0] = vt_peer_node(x->f, x->o.port[0]);
	x->leaf[1] = vt_peer_node(x->f, x->o.port[2]);
	ck_assert_uint_ne(x->leaf[0], x->leaf[1]);
	for (uint32_t i = 0, k = 0; i < x->f->nswitches; i++)
		if (x->f->switches[i] != x->leaf[0] && x->f->switches[i] != x->leaf[1])
			x->spine[k++] = x->f->switches[i];
	ck_assert_int_eq(vt_lfts_init(&x->t, x->f, &e), 0);
	for (int h = 0; h < 4; h++) {
		int l = h / 2;
		vt_k22_set(x, x->leaf[l], h, x->host[h]);
		vt_k22_set(x, x->leaf[1 - l], h, x->spine[0]);
		vt_k22_set(x, x->spine[0], h, x->leaf[l]);
		vt_k22_set(x, x->spine[1], h, x->leaf[l]);
	}
}

void vt_k22_teardown(struct vt_k22 *x)
{
	vt_lfts_free(&x->t);
	vt_order_free(&x->o);
	vt_fabric_free(x->f);
}
