/* SPDX-License-Identifier: MIT */
/*
 * Features of real fabrics on generated trees, copied from ibnetdiscover dumps
 * of real installations: SHArP Aggregation Nodes, director chassis, loop-back
 * cables, host-less leaves, storage HCAs on the top switches, multi-PF
 * adapters, and a GPU-cluster preset. They are applied to a finished plan's
 * fabric by copying it into a new one, because switches gain ports and the
 * fabric model fixes a node's port count when the node is added. Director
 * chassis are vt_gen_director.c's.
 */
#include "gen/vt_gen.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gen/vt_gen_real_int.h"
#include "base/vt_rand.h"

#define AN_DESC	    "Mellanox Technologies Aggregation Node"
#define DEVID_AN    0xcf09 /* SHArP Aggregation Node, as Switch-IB 2 and Quantum report it */
#define DEVID_SWIB2 0xcf08 /* Switch-IB 2 (MSB7800, CS7500) */
#define DEVID_QNTM  0xd2f0 /* Quantum (QM8700, CS8500) */
#define DEVID_CX5   0x1017
#define DEVID_CX6   0x101b

/* GPU preset: 20 nodes of 4 HCAs per pod, HCA r on the pod's rail-r leaf. */
#define GPU_NODES 20
#define GPU_RAILS 4
#define GPU_LINKS 5 /* links per switch pair: 20 up-links of a 40-port switch over 4 parents */
#define GPU_MGMT  4

/* salts of the seeded choices, so each feature draws its own sequence */
#define SALT_HOSTLESS 0x686f73746c657373ull
#define SALT_LOOPS    0x6c6f6f706261636bull

static const struct {
	const char *name;
	uint16_t devid;
} models[] = {
	{"CS7500", DEVID_SWIB2},
	{"CS7510", DEVID_SWIB2},
	{"CS7520", DEVID_SWIB2},
	{"CS8500", DEVID_QNTM},
};
#define NMODELS (sizeof(models) / sizeof(models[0]))

/* ---- spec words */

static int number(const char *v, size_t len, unsigned *out)
{
	unsigned long x = 0;

	if (!len)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)v[i]))
			return -1;
		x = x * 10 + (unsigned)(v[i] - '0');
		if (x > 1000000)
			return -1;
	}
	*out = (unsigned)x;
	return 0;
}

int vt_gen_real_family(struct vt_gen_spec *s, const char *fam, const char *arg, vt_err *e)
{
	unsigned pods = 4;

	if (strcmp(fam, "gpu"))
		return 1;
	if (arg && (number(arg, strlen(arg), &pods) || pods < 1 || pods > 8))
		return vt_err_set(e, "bad spec '%s': expected gpu [PODS], PODS 1..8", s->text);
	if (s->rails > 1)
		return vt_err_set(
			e, "bad spec '%s': a GPU cluster has its rails on leaves, not planes",
			s->text);
	s->family = VT_GEN_GPU;
	s->levels = 3;
	/* varary 20,4,PODS:4,4:5,5: leaves and middle switches use 40 ports, the top 5*PODS */
	s->down[0] = GPU_NODES;
	s->down[1] = GPU_RAILS;
	s->down[2] = pods;
	s->up[0] = s->up[1] = GPU_RAILS;
	s->par[0] = s->par[1] = GPU_LINKS;
	s->pods = pods;
	s->aggregation = 1;
	s->spine_cas = GPU_MGMT;
	s->speed = VT_HDR;
	return 0;
}

int vt_gen_real_is_flag(const char *w)
{
	while (*w == '-')
		w++;
	return !strcmp(w, "aggregation-nodes") || !strcmp(w, "multi-pf");
}

static int director_opt(struct vt_gen_spec *s, const char *opt, const char *v, vt_err *e)
{
	const char *at = strchr(v, '@'), *colon = strchr(v, ':');
	size_t ml = at ? (size_t)(at - v) : colon ? (size_t)(colon - v) : strlen(v);
	unsigned lv;

	if (colon && (strcmp(colon, ":bypass") || (at && at > colon)))
		return vt_err_set(e, "bad option '%s': expected MODEL[@LEVEL][:bypass]", opt);
	for (size_t m = 0; m < NMODELS; m++)
		if (strlen(models[m].name) == ml && !strncasecmp(models[m].name, v, ml)) {
			if (at &&
			    number(at + 1, colon ? (size_t)(colon - at - 1) : strlen(at + 1), &lv))
				return vt_err_set(
					e, "bad option '%s': expected MODEL[@LEVEL][:bypass]", opt);
			snprintf(s->director, sizeof(s->director), "%s", models[m].name);
			s->director_level = at ? lv : VT_GEN_ANY_LEVEL;
			s->director_bypass = colon != NULL;
			return 0;
		}
	return vt_err_set(e, "bad option '%s': unknown model (CS7500, CS7510, CS7520, CS8500)",
			  opt);
}

int vt_gen_real_option(struct vt_gen_spec *s, const char *opt, size_t kl, const char *v, vt_err *e)
{
	unsigned x;
#define KEY(k) (kl == strlen(k) && !strncmp(opt, k, kl))
	if (KEY("aggregation-nodes") || KEY("multi-pf")) {
		if (v && (number(v, strlen(v), &x) || x > 1))
			return vt_err_set(e, "bad option '%s': expected 0 or 1", opt);
		*(KEY("multi-pf") ? &s->multi_pf : &s->aggregation) = v ? x : 1;
		return 0;
	}
	if (!KEY("director") && !KEY("loopbacks") && !KEY("hostless-leaves") && !KEY("spine-cas"))
		return 1;
	if (!v)
		return vt_err_set(e, "bad option '%s': expected NAME=VALUE", opt);
	if (KEY("director"))
		return director_opt(s, opt, v, e);
	if (KEY("spine-cas")) {
		const char *c = strchr(v, ':');

		if (number(v, c ? (size_t)(c - v) : strlen(v), &x) || (c && strcmp(c, ":dual")))
			return vt_err_set(e, "bad option '%s': expected N[:dual]", opt);
		s->spine_cas = x;
		s->spine_dual = c != NULL;
		return 0;
	}
	if (number(v, strlen(v), &x))
		return vt_err_set(e, "bad option '%s': expected a number", opt);
	*(KEY("loopbacks") ? &s->loopbacks : &s->hostless) = x;
#undef KEY
	return 0;
}

int vt_gen_real_wanted(const struct vt_gen_spec *s)
{
	return s->family == VT_GEN_GPU || s->aggregation || s->director[0] || s->loopbacks ||
	       s->hostless || s->spine_cas || s->multi_pf;
}

/* ---- choices on the base fabric */

/* A base port holds a link, or is reserved for one, in the new fabric. */
static int busy(const struct real *r, uint32_t pi)
{
	return (r->b->ports[pi].peer != VT_NONE && !r->cut[pi]) || r->taken[pi];
}

int vt_gen_real_too_big(const struct real *r, vt_err *e, const char *why)
{
	return vt_err_set(e, "bad spec '%s': %s", r->s->text, why);
}

/* Host-less leaves: every CA link of N seeded leaves (among those with hosts) is cut. */
static int choose_hostless(struct real *r, vt_err *e)
{
	const vt_fabric *b = r->b;
	uint32_t *cand = malloc((b->nnodes + 1) * sizeof(*cand)), nc = 0;
	vt_rand rnd;

	if (!cand)
		return vt_err_nomem(e, "out of memory");
	for (uint32_t n = 0; n < b->nnodes; n++) {
		int hosts = 0;

		if (!is_switch(r, n) || r->sh->level[n])
			continue;
		for (unsigned p = 1; p <= b->nodes[n].nports; p++) {
			uint32_t q = vt_peer_node(b, vt_port_index(b, n, p));

			hosts |= q != VT_NONE && b->nodes[q].type == VT_CA;
		}
		if (hosts)
			cand[nc++] = n;
	}
	if (r->s->hostless > nc) {
		free(cand);
		return vt_err_set(e,
				  "bad spec '%s': cannot make %u leaves host-less, %u have hosts",
				  r->s->text, r->s->hostless, nc);
	}
	vt_rand_seed(&rnd, r->s->seed ^ SALT_HOSTLESS);
	vt_rand_shuffle_u32(&rnd, cand, nc);
	for (uint32_t i = 0; i < r->s->hostless; i++)
		for (unsigned p = 1; p <= b->nodes[cand[i]].nports; p++) {
			uint32_t pi = vt_port_index(b, cand[i], p), q = b->ports[pi].peer;

			if (q != VT_NONE && b->nodes[b->ports[q].node].type == VT_CA)
				r->cut[pi] = r->cut[q] = 1;
		}
	free(cand);
	return 0;
}

/* The lowest free port of a switch, else one more port past its last. */
int vt_gen_real_take_port(struct real *r, uint32_t sw, unsigned *port, vt_err *e)
{
	const struct vt_node *nd = &r->b->nodes[sw];

	for (unsigned p = 1; p <= nd->nports; p++)
		if (!busy(r, vt_port_index(r->b, sw, p))) {
			r->taken[vt_port_index(r->b, sw, p)] = 1;
			*port = p;
			return 0;
		}
	if (nd->nports + r->extra[sw] + 1u + (r->s->aggregation != 0) > VT_MAX_PORTS)
		return vt_gen_real_too_big(
			r, e,
			r->s->director_bypass
				? "storage HCAs and spine ASICs need more than 254 switch ports"
				: "storage HCAs need more than 254 switch ports");
	*port = nd->nports + ++r->extra[sw];
	return 0;
}

/* Storage HCA i of the top switches of plane i % rails, round robin; dual: two neighbours. */
static int place_storage(struct real *r, vt_err *e)
{
	const vt_fabric *b = r->b;
	unsigned R = r->s->rails, ports = r->s->spine_dual ? 2 : 1;
	uint32_t *top = malloc((b->nnodes + 1) * sizeof(*top)), first[9] = {0};

	if (!top)
		return vt_err_nomem(e, "out of memory");
	for (unsigned pl = 0, nt = 0; pl < R; pl++) {
		first[pl] = nt;
		for (uint32_t n = 0; n < b->nnodes; n++)
			if (is_switch(r, n) && r->sh->plane[n] == pl &&
			    r->sh->level[n] + 1u == r->sh->levels)
				top[nt++] = n;
		first[pl + 1] = nt;
	}
	for (uint32_t i = 0; i < r->s->spine_cas; i++) {
		unsigned pl = i % R, k = i / R, nt = first[pl + 1] - first[pl], port = 0;

		if (nt < ports) {
			free(top);
			return vt_gen_real_too_big(
				r, e,
				ports == 2 ? "dual-homed storage HCAs need two top switches"
					   : "no top switch for the storage HCAs");
		}
		for (unsigned j = 0; j < ports; j++) {
			uint32_t sw = top[first[pl] + (ports * k + j) % nt];

			if (vt_gen_real_take_port(r, sw, &port, e)) {
				free(top);
				return -1;
			}
			r->att[i * ports + j] = sw << 8 | port;
		}
	}
	free(top);
	return 0;
}

/* Loop-backs: free ports of one switch paired in port order; N pairs drawn by seed. */
static int place_loopbacks(struct real *r, vt_err *e)
{
	const vt_fabric *b = r->b;
	uint32_t nc = 0, *idx;
	vt_rand rnd;

	r->loops = malloc((b->nports / 2 + 1) * sizeof(*r->loops));
	if (!r->loops)
		return vt_err_nomem(e, "out of memory");
	for (uint32_t n = 0; n < b->nnodes; n++) {
		unsigned held = 0;

		for (unsigned p = 1; is_switch(r, n) && p <= b->nodes[n].nports; p++) {
			if (busy(r, vt_port_index(b, n, p)))
				continue;
			if (held) {
				r->loops[nc++] = (struct loop){n, (uint8_t)held, (uint8_t)p};
				held = 0;
			} else {
				held = p;
			}
		}
	}
	if (r->s->loopbacks > nc)
		return vt_err_set(e,
				  "bad spec '%s': cannot place %u loop-backs, the switches have %u "
				  "pairs of free ports",
				  r->s->text, r->s->loopbacks, nc);
	idx = malloc((nc + 1) * sizeof(*idx));
	if (!idx)
		return vt_err_nomem(e, "out of memory");
	for (uint32_t i = 0; i < nc; i++)
		idx[i] = i;
	vt_rand_seed(&rnd, r->s->seed ^ SALT_LOOPS);
	vt_rand_shuffle_u32(&rnd, idx, nc);
	/* the drawn pairs, kept in switch and port order: mark them, then compact */
	for (uint32_t i = 0; i < r->s->loopbacks; i++)
		r->taken[vt_port_index(b, r->loops[idx[i]].sw, r->loops[idx[i]].a)] = 1;
	for (uint32_t i = 0; i < nc; i++) {
		const struct loop l = r->loops[i];

		if (r->taken[vt_port_index(b, l.sw, l.a)]) {
			r->taken[vt_port_index(b, l.sw, l.b)] = 1;
			r->loops[r->nloops++] = l;
		}
	}
	free(idx);
	return 0;
}

/* ---- the new fabric */

uint64_t vt_gen_bcd(uint64_t x)
{
	uint64_t v = 0;

	for (unsigned sh = 0; x; sh += 4, x /= 10)
		v |= (x % 10) << sh;
	return v;
}

static int add_switches(struct real *r, vt_fabric *f, vt_err *e)
{
	const vt_fabric *b = r->b;
	char desc[64];

	for (uint32_t n = 0; n < b->nnodes; n++) {
		const struct vt_node *nd = &b->nodes[n];
		unsigned np = nd->nports + r->extra[n] + (r->s->aggregation != 0);
		uint32_t c = r->chassis[n], out;

		if (!is_switch(r, n))
			continue;
		if (c != VT_NONE)
			vt_gen_director_desc(r, desc, sizeof(desc), c,
					     r->sh->level[n] == r->line ? 'L' : 'S', r->asic[n]);
		else
			snprintf(desc, sizeof(desc), "%s", nd->desc);
		if (vt_fabric_add_node(f, VT_SWITCH, np, nd->guid, nd->id, desc, &out, e))
			return -1;
		f->nodes[out].sysguid = c != VT_NONE ? vt_gen_director_sysguid(c) : nd->sysguid;
		f->nodes[out].devid = r->sw_devid;
		for (unsigned p = 1; p <= nd->nports; p++)
			r->map[vt_port_index(b, n, p)] = vt_port_index(f, out, p);
	}
	return vt_gen_director_add_spines(r, f, e);
}

/* GPU preset: host h sits on leaf h / 20 port h % 20; leaf c is rail c % 4 of pod c / 4. */
static void gpu_place(const struct real *r, uint32_t h, uint32_t *node, unsigned *rail)
{
	uint32_t leaf = h / r->sh->hpl;

	*node = leaf / GPU_RAILS * r->sh->hpl + h % r->sh->hpl;
	*rail = leaf % GPU_RAILS;
}

/*
 * One CA node: name, GUID, devid. Multi-PF: one node per PF, node GUID = port
 * GUID, the PFs of one adapter consecutive (a GPU node's HCAs, a multi-rail
 * host's ports, or two neighbouring hosts).
 */
static int add_ca(struct real *r, vt_fabric *f, uint32_t n, unsigned p, vt_err *e)
{
	const struct vt_node *nd = &r->b->nodes[n];
	uint32_t h = r->sh->host[n], grp = h, out;
	unsigned idx = p ? p - 1 : 0, gpu = r->s->family == VT_GEN_GPU;
	uint64_t g = nd->guid;
	char id[32], desc[64];

	if (gpu)
		gpu_place(r, h, &grp, &idx);
	else if (r->s->multi_pf && nd->nports == 1)
		grp = h / 2, idx = h % 2;
	if (r->s->multi_pf)
		g = OUI << 40 | 1ull << 36 | vt_gen_bcd(grp) << 4 | idx;
	if (gpu)
		snprintf(desc, sizeof(desc), "gpu%03u mlx5_%u", grp, idx);
	else if (r->s->multi_pf)
		snprintf(desc, sizeof(desc), "node%04u mlx5_%u", grp, idx);
	else
		snprintf(desc, sizeof(desc), "%s", nd->desc);
	snprintf(id, sizeof(id), "H-%016llx", (unsigned long long)g);
	if (vt_fabric_add_node(f, VT_CA, p ? 1 : nd->nports, g, id, desc, &out, e))
		return -1;
	f->nodes[out].devid = gpu || r->s->multi_pf ? DEVID_CX6 : nd->devid;
	for (unsigned q = 1; q <= nd->nports; q++) {
		uint32_t pi = vt_port_index(r->b, n, q);

		if (!p)
			vt_port(f, out, q)->guid = r->s->multi_pf ? g : r->b->ports[pi].guid;
		else if (q == p)
			vt_port(f, out, 1)->guid = g;
		if (!p || q == p)
			r->map[pi] = vt_port_index(f, out, p ? 1 : q);
	}
	return 0;
}

static int add_cas(struct real *r, vt_fabric *f, vt_err *e)
{
	const vt_fabric *b = r->b;

	for (uint32_t n = 0; n < b->nnodes; n++) {
		const struct vt_node *nd = &b->nodes[n];
		int split = r->s->multi_pf && nd->nports > 1, live = 0;

		if (nd->type != VT_CA)
			continue;
		for (unsigned p = 1; p <= nd->nports; p++) {
			uint32_t pi = vt_port_index(b, n, p);
			int up = b->ports[pi].peer != VT_NONE && !r->cut[pi];

			if (split && up && add_ca(r, f, n, p, e))
				return -1;
			live |= up;
		}
		if (!split && live && add_ca(r, f, n, 0, e))
			return -1;
	}
	return 0;
}

static int add_storage(struct real *r, vt_fabric *f, vt_err *e)
{
	unsigned ports = r->s->spine_dual ? 2 : 1, gpu = r->s->family == VT_GEN_GPU;
	char id[32], desc[64];

	for (uint32_t i = 0; i < r->s->spine_cas; i++) {
		uint64_t g = OUI << 40 | 2ull << 36 | vt_gen_bcd(i) << 4;
		uint32_t out;

		snprintf(id, sizeof(id), "H-%016llx", (unsigned long long)g);
		snprintf(desc, sizeof(desc), "%s%02u mlx5_0", gpu ? "mgmt" : "stor", i + 1);
		if (vt_fabric_add_node(f, VT_CA, ports, g, id, desc, &out, e))
			return -1;
		f->nodes[out].devid = gpu ? DEVID_CX6 : DEVID_CX5;
		for (unsigned p = 1; p <= ports; p++) {
			uint32_t a = r->att[i * ports + p - 1], sw = a >> 8;
			/* new switch nodes keep the base's indices: switches come first in both */
			vt_port(f, out, p)->guid = g + p; /* ibsim: node GUID + port */
			if (vt_fabric_connect(f, sw, a & 0xff, out, p, r->s->width, r->s->speed, e))
				return -1;
		}
	}
	return 0;
}

/* One aggregation node per switch on its last port, sharing the switch's sysimgguid. */
static int add_aggregation(struct real *r, vt_fabric *f, vt_err *e)
{
	uint32_t nsw = 0, nn = f->nnodes;
	char id[32];

	for (uint32_t n = 0; n < nn; n++) {
		uint64_t g = OUI << 40 | 3ull << 36 | vt_gen_bcd(nsw) << 4;
		uint32_t out;

		if (f->nodes[n].type != VT_SWITCH)
			continue;
		nsw++;
		snprintf(id, sizeof(id), "H-%016llx", (unsigned long long)g);
		if (vt_fabric_add_node(f, VT_CA, 1, g, id, AN_DESC, &out, e))
			return -1;
		f->nodes[out].sysguid = f->nodes[n].sysguid;
		f->nodes[out].devid = DEVID_AN;
		vt_port(f, out, 1)->guid = g + 1; /* ibsim: node GUID + port */
		if (vt_fabric_connect(f, n, f->nodes[n].nports, out, 1, r->s->width, r->s->speed,
				      e))
			return -1;
	}
	return 0;
}

/* The base's links between ports that survive, the loop-backs, the added spine ASICs'. */
static int add_links(struct real *r, vt_fabric *f, vt_err *e)
{
	const vt_fabric *b = r->b;

	for (uint32_t pi = 0; pi < b->nports; pi++) {
		const struct vt_port *pt = &b->ports[pi];
		uint32_t x = r->map[pi], y;

		if (pt->peer == VT_NONE || pt->peer < pi || r->cut[pi])
			continue;
		y = r->map[pt->peer];
		if (x == VT_NONE || y == VT_NONE)
			continue;
		if (vt_fabric_connect(f, f->ports[x].node, f->ports[x].num, f->ports[y].node,
				      f->ports[y].num, pt->width, (enum vt_speed)pt->speed, e))
			return -1;
	}
	for (uint32_t i = 0; i < r->nloops; i++)
		if (vt_fabric_connect(f, r->loops[i].sw, r->loops[i].a, r->loops[i].sw,
				      r->loops[i].b, r->s->width, r->s->speed, e))
			return -1;
	return vt_gen_director_link_spines(r, f, e);
}

static uint16_t switch_devid(const struct vt_gen_spec *s)
{
	for (size_t m = 0; m < NMODELS; m++)
		if (s->director[0] && !strcmp(models[m].name, s->director))
			return models[m].devid;
	if (s->family == VT_GEN_GPU)
		return DEVID_QNTM;
	return s->aggregation ? DEVID_SWIB2 : 0;
}

static int choose(struct real *r, vt_err *e)
{
	if (r->s->hostless && choose_hostless(r, e))
		return -1;
	if (r->s->spine_cas && place_storage(r, e))
		return -1;
	if (r->s->loopbacks && place_loopbacks(r, e))
		return -1;
	if (r->s->director[0] && vt_gen_director_find(r, e))
		return -1;
	if (r->s->director_bypass && vt_gen_director_spines(r, e))
		return -1;
	return 0;
}

int vt_gen_real_apply(const struct vt_gen_spec *s, const vt_fabric *base,
		      const struct vt_gen_shape *sh, vt_fabric **out, vt_err *e)
{
	size_t np = base->nports + 1, nn = base->nnodes + 1;
	struct real r = {
		.s = s,
		.b = base,
		.sh = sh,
		.cut = calloc(np, 1),
		.taken = calloc(np, 1),
		.extra = calloc(nn, 1),
		.chassis = malloc(nn * sizeof(uint32_t)),
		.asic = calloc(nn, sizeof(uint32_t)),
		.map = malloc(np * sizeof(uint32_t)),
		.att = calloc((size_t)s->spine_cas * 2 + 1, sizeof(uint32_t)),
		.sw_devid = switch_devid(s),
	};
	vt_fabric *f = vt_fabric_new(base->source);
	int rc = -1;

	*out = NULL;
	if (!r.cut || !r.taken || !r.extra || !r.chassis || !r.asic || !r.map || !r.att || !f) {
		vt_err_nomem(e, "out of memory");
		goto done;
	}
	memset(r.chassis, 0xff, nn * sizeof(uint32_t));
	memset(r.map, 0xff, np * sizeof(uint32_t));
	if (choose(&r, e) || add_switches(&r, f, e) || add_cas(&r, f, e) || add_links(&r, f, e) ||
	    add_storage(&r, f, e) || (s->aggregation && add_aggregation(&r, f, e)))
		goto done;
	*out = f;
	f = NULL;
	rc = 0;
done:
	vt_fabric_free(f);
	free(r.cut);
	free(r.taken);
	free(r.extra);
	free(r.chassis);
	free(r.asic);
	free(r.map);
	free(r.att);
	free(r.loops);
	free(r.spines);
	free(r.sl);
	return rc;
}
