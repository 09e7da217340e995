/* SPDX-License-Identifier: MIT */
/*
 * Split cores: trees whose top level falls into groups that share no switch
 * below them, as most large InfiniBand clusters of the last years are cabled.
 *
 *   superpod SUS,RAILS,NODES,SPINES,CORES[,GROUPS]  NVIDIA's DGX SuperPOD
 *       reference design: scalable unit u has one leaf per rail r (leaf
 *       u*RAILS + r, NODES hosts: HCA r of the unit's nodes); rail r has a spine
 *       group of SPINES spines (spine r*SPINES + j), each reached by every leaf
 *       of the rail over NODES/SPINES links; GROUPS core groups (default
 *       SPINES) of CORES tops each (top g*CORES + m); spine j of every rail is
 *       linked to each top of group j / (SPINES/GROUPS) over
 *       SUS*NODES/(SPINES*CORES) links. Every spine gives as many links up as
 *       it has down.
 *   cores CHASSIS,LINES,SPINES,LEAVES,HOSTS  two or more director chassis as
 *       the core: chassis c's LINES line ASICs (level 1) and SPINES spine ASICs
 *       (the tops) linked inside the chassis only; each leaf has HOSTS hosts
 *       and HOSTS up-links, dealt round robin over the line ASICs with the
 *       chassis alternating, so every leaf reaches every chassis.
 */
#include <stdlib.h>
#include <string.h>

#include "gen/vt_gen_plan_int.h"

/* want to max numbers "a,b,.."; returns how many, -1 when malformed */
static int numbers(const char *arg, unsigned *v, int want, int max)
{
	int n = 0;

	if (!arg)
		return -1;
	for (;;) {
		char *end;
		unsigned long x = strtoul(arg, &end, 10);

		if (n == max || end == arg || *arg == '-' || *arg == '+' || x > 100000)
			return -1;
		v[n++] = (unsigned)x;
		if (!*end)
			return n >= want ? n : -1;
		if (*end != ',')
			return -1;
		arg = end + 1;
	}
}

static int bad(const struct vt_gen_spec *s, vt_err *e, const char *why)
{
	return vt_err_set(e, "bad spec '%s': %s", s->text, why);
}

int vt_gen_split_family(struct vt_gen_spec *s, const char *fam, const char *arg, vt_err *e)
{
	unsigned *v = s->split;
	int pod = !strcmp(fam, "superpod");

	if (!pod && strcmp(fam, "cores"))
		return 1;
	int n = numbers(arg, v, 5, pod ? 6 : 5);

	if (n < 0)
		return bad(s, e,
			   pod ? "expected superpod SUS,RAILS,NODES,SPINES,CORES[,GROUPS]"
			       : "expected cores CHASSIS,LINES,SPINES,LEAVES,HOSTS");
	if (pod && n == 5)
		v[5] = v[3]; /* a core group per spine of a rail */
	for (int i = 0; i < (pod ? 6 : 5); i++)
		if (!v[i])
			return bad(s, e, "counts must be at least 1");
	if (pod && v[2] % v[3])
		return bad(s, e,
			   "SPINES must divide NODES (each leaf as many links to each spine)");
	if (pod && v[3] % v[5])
		return bad(s, e, "GROUPS must divide SPINES (as many spines of a rail per group)");
	if (pod && v[0] * (v[2] / v[3]) < v[4])
		return bad(s, e,
			   "CORES must be at most SUS*NODES/SPINES (each spine at least one link "
			   "to each top of its core group)");
	if (!pod && v[0] < 2)
		return bad(s, e, "a split core needs two or more chassis");
	if (!pod && v[4] < v[0])
		return bad(s, e, "HOSTS (up-links per leaf) must be at least CHASSIS");
	s->family = pod ? VT_GEN_SUPERPOD : VT_GEN_CORES;
	s->levels = 3;
	return 0;
}

static int plan_superpod(struct plan *p, const struct vt_gen_spec *s, vt_err *e)
{
	unsigned su = s->split[0], rails = s->split[1], nodes = s->split[2];
	unsigned sp = s->split[3], co = s->split[4], per = sp / s->split[5];
	/* links per leaf-spine pair; per spine-top pair b, or b + 1 for the first extra tops */
	unsigned a = nodes / sp, b = su * a / co, extra = su * a % co, bmax = b + !!extra;
	uint64_t count[3] = {(uint64_t)su * rails, (uint64_t)rails * sp,
			     (uint64_t)s->split[5] * co};
	uint64_t radix = 2ull * nodes;

	if (2ull * su * a > radix)
		radix = 2ull * su * a;
	if ((uint64_t)rails * per * bmax > radix)
		radix = (uint64_t)rails * per * bmax;
	p->levels = 3;
	p->hpl = nodes;
	if (vt_gen_plan_levels(p, s, count, radix, e))
		return -1;
	for (unsigned u = 0; u < su; u++)
		for (unsigned r = 0; r < rails; r++)
			for (unsigned j = 0; j < sp; j++)
				for (unsigned x = 0; x < a; x++)
					if (vt_gen_plan_link(
						    p, u * rails + r, nodes + j * a + x + 1,
						    p->first[1] + r * sp + j, u * a + x + 1, e))
						return -1;
	for (unsigned r = 0; r < rails; r++)
		for (unsigned j = 0; j < sp; j++)
			for (unsigned m = 0, k = 0; m < co; m++)
				for (unsigned y = 0; y < b + (m < extra); y++, k++)
					if (vt_gen_plan_link(p, p->first[1] + r * sp + j,
							     su * a + k + 1,
							     p->first[2] + j / per * co + m,
							     (r * per + j % per) * bmax + y + 1, e))
						return -1;
	return 0;
}

/* Line ASIC g of the round robin: chassis g % CHASSIS, line g / CHASSIS of it. */
static uint32_t line_of(const struct vt_gen_spec *s, uint64_t g)
{
	unsigned ch = s->split[0], lines = s->split[1];

	g %= (uint64_t)ch * lines;
	return (uint32_t)(g % ch * lines + g / ch);
}

static int plan_cores(struct plan *p, const struct vt_gen_spec *s, vt_err *e)
{
	unsigned ch = s->split[0], lines = s->split[1], sp = s->split[2];
	unsigned leaves = s->split[3], h = s->split[4];
	uint64_t nl = (uint64_t)ch * lines, down = ((uint64_t)leaves * h + nl - 1) / nl;
	uint64_t q = (down + sp - 1) / sp; /* links per line-spine pair: as many up as down */
	uint64_t count[3] = {leaves, nl, (uint64_t)ch * sp}, radix = 2ull * h;
	uint32_t *fill;

	if (down + sp * q > radix)
		radix = down + sp * q;
	if (lines * q > radix)
		radix = lines * q;
	p->levels = 3;
	p->hpl = h;
	if (vt_gen_plan_levels(p, s, count, radix, e))
		return -1;
	fill = calloc(nl, sizeof(*fill));
	if (!fill)
		return vt_err_nomem(e, "out of memory");
	for (uint32_t l = 0; l < leaves; l++)
		for (unsigned u = 0; u < h; u++) {
			uint32_t g = line_of(s, (uint64_t)l * h + u);

			if (vt_gen_plan_link(p, l, h + u + 1, p->first[1] + g, ++fill[g], e)) {
				free(fill);
				return -1;
			}
		}
	free(fill);
	for (unsigned c = 0; c < ch; c++)
		for (unsigned i = 0; i < lines; i++)
			for (unsigned j = 0; j < sp; j++)
				for (unsigned y = 0; y < q; y++)
					if (vt_gen_plan_link(p, p->first[1] + c * lines + i,
							     (unsigned)(down + j * q + y + 1),
							     p->first[2] + c * sp + j,
							     (unsigned)(i * q + y + 1), e))
						return -1;
	return 0;
}

int vt_gen_split_plan(struct plan *p, const struct vt_gen_spec *s, vt_err *e)
{
	return s->family == VT_GEN_SUPERPOD ? plan_superpod(p, s, e) : plan_cores(p, s, e);
}
