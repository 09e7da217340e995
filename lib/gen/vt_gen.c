/* SPDX-License-Identifier: MIT */
/*
 * Topology generators. Every family first becomes a plan: switch counts per
 * level, one radix, hosts per leaf on the low ports, and a list of
 * switch-to-switch links. One builder then turns a plan into a fabric, once
 * per rail plane, applying the seeded removals, so naming, GUIDs and the
 * degrading options work the same way for every family.
 */
#include "gen/vt_gen.h"
#include "gen/vt_gen_plan_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vt_rand.h"

#define OUI	   0x0002c9ull
#define MAX_LINKS  (1u << 24)
#define LID_BUDGET VT_MAX_UC_LID

/* ---- plans */

static int add_link(struct plan *p, uint32_t a, unsigned pa, uint32_t b, unsigned pb, vt_err *e)
{
	if (p->nlinks == p->cap) {
		uint32_t c = p->cap ? p->cap * 2 : 256;
		void *n = c > MAX_LINKS ? NULL : realloc(p->links, c * sizeof(*p->links));

		if (!n)
			return vt_err_nomem(e, "out of memory");
		p->links = n;
		p->cap = c;
	}
	p->links[p->nlinks++] = (struct glink){a, b, (uint8_t)pa, (uint8_t)pb};
	return 0;
}

/* Sets counts and first indices; refuses fabrics that cannot be addressed. */
static int plan_levels(struct plan *p, const struct vt_gen_spec *s, const uint64_t *count,
		       uint64_t radix, vt_err *e)
{
	uint64_t nsw = 0, hosts;

	if (radix > VT_MAX_PORTS)
		return vt_err_set(e, "bad spec '%s': switch radix %llu exceeds %u", s->text,
				  (unsigned long long)radix, VT_MAX_PORTS);
	for (unsigned r = 0; r < p->levels; r++) {
		if (count[r] > LID_BUDGET)
			goto big;
		p->count[r] = (uint32_t)count[r];
		p->first[r] = (uint32_t)nsw;
		nsw += count[r];
	}
	hosts = count[0] * p->hpl;
	if ((nsw + hosts) * s->rails > LID_BUDGET)
		goto big;
	p->nsw = (uint32_t)nsw;
	p->radix = (unsigned)radix;
	return 0;
big:
	return vt_err_set(e, "bad spec '%s': too big (more nodes than the %u unicast LIDs)",
			  s->text, LID_BUDGET);
}

static int plan_varary(struct plan *p, const struct vt_gen_spec *s, vt_err *e)
{
	uint64_t count[VT_GEN_MAX_LEVELS] = {0}, radix = 0;
	unsigned n = s->levels;

	p->levels = n;
	p->hpl = s->down[0];
	for (unsigned r = 0; r < n; r++) {
		uint64_t c = 1, dp = r ? (uint64_t)s->down[r] * s->par[r - 1] : s->down[0];
		uint64_t up = r + 1 < n ? (uint64_t)s->up[r] * s->par[r] : 0;

		for (unsigned i = 0; i < r && c <= LID_BUDGET; i++)
			c *= s->up[i];
		for (unsigned i = r + 1; i < n && c <= LID_BUDGET; i++)
			c *= s->down[i];
		count[r] = c;
		if (dp + up > radix)
			radix = dp + up;
	}
	if (plan_levels(p, s, count, radix, e))
		return -1;
	/* Definition 2: level r and r+1 switches are linked iff their digits agree
	 * except digit r, which is the child's position below the parent (0..D[r+1))
	 * on the child and the parent's position above the child (0..U[r]) on the
	 * parent; digits below r range over U, the others over D. */
	for (unsigned r = 0; r + 1 < n; r++) {
		uint64_t lo = 1, hi_child = 1, hi_par = 1;
		unsigned dp = r ? s->down[r] * s->par[r - 1] : s->down[0];

		for (unsigned i = 0; i < r; i++)
			lo *= s->up[i];
		hi_child = lo * s->down[r + 1];
		hi_par = lo * s->up[r];
		for (uint32_t c = 0; c < p->count[r]; c++) {
			uint64_t low = c % lo, d = (c / lo) % s->down[r + 1], high = c / hi_child;

			for (unsigned u = 0; u < s->up[r]; u++) {
				uint64_t pi = low + u * lo + high * hi_par;

				for (unsigned j = 0; j < s->par[r]; j++)
					if (add_link(p, p->first[r] + c, dp + u * s->par[r] + j + 1,
						     p->first[r + 1] + (uint32_t)pi,
						     (unsigned)d * s->par[r] + j + 1, e))
						return -1;
			}
		}
	}
	return 0;
}

static int plan_slender(struct plan *p, const struct vt_gen_spec *s, vt_err *e)
{
	uint64_t count[VT_GEN_MAX_LEVELS] = {0}, q = s->k / s->kp;

	p->levels = s->n;
	p->hpl = s->k;
	for (unsigned l = 0; l < s->n; l++) {
		uint64_t c = s->kp;

		for (unsigned i = l + 1; i < s->n && c <= LID_BUDGET; i++)
			c *= q;
		count[l] = c;
	}
	if (plan_levels(p, s, count, (uint64_t)s->k + s->kp, e))
		return -1;
	/* Navaridas et al. 2.3: nswitch = k' * floor(switch / k) + port, nport = switch mod k */
	for (unsigned l = 0; l + 1 < s->n; l++)
		for (uint32_t c = 0; c < p->count[l]; c++)
			for (unsigned u = 0; u < s->kp; u++)
				if (add_link(p, p->first[l] + c, s->k + u + 1,
					     p->first[l + 1] + s->kp * (c / s->k) + u, c % s->k + 1,
					     e))
					return -1;
	return 0;
}

static int plan_pruned(struct plan *p, const struct vt_gen_spec *s, vt_err *e)
{
	unsigned g = s->radix / 2, P = s->pods;
	unsigned cg = (P * g + s->radix - 1) / s->radix, base = g / cg, rem = g % cg;
	uint64_t count[3] = {(uint64_t)P * g, (uint64_t)P * g, (uint64_t)g * cg};
	uint32_t *fill;

	p->levels = 3;
	p->hpl = g;
	if (plan_levels(p, s, count, s->radix, e))
		return -1;
	/* a pod: g leaves and g middle switches, complete bipartite */
	for (unsigned pod = 0; pod < P; pod++)
		for (unsigned i = 0; i < g; i++)
			for (unsigned j = 0; j < g; j++)
				if (add_link(p, pod * g + i, g + j + 1, p->first[1] + pod * g + j,
					     i + 1, e))
					return -1;
	/* middle switch j of every pod goes to the cg top switches of group j, in
	 * bundles of base or base+1 links; the larger bundles rotate with the pod
	 * so every top switch gets about P*g/cg links */
	fill = calloc(count[2], sizeof(*fill));
	if (!fill)
		return vt_err_nomem(e, "out of memory");
	for (unsigned pod = 0; pod < P; pod++)
		for (unsigned j = 0; j < g; j++) {
			unsigned port = g + 1;

			for (unsigned c = 0; c < cg; c++) {
				unsigned b = base + ((c + cg - pod % cg) % cg < rem);
				uint32_t top = j * cg + c;

				for (unsigned x = 0; x < b; x++) {
					if (fill[top] >= s->radix) {
						free(fill);
						return vt_err_set(e,
								  "bad spec '%s': pods do not fit "
								  "the top switches",
								  s->text);
					}
					if (add_link(p, p->first[1] + pod * g + j, port++,
						     p->first[2] + top, ++fill[top], e)) {
						free(fill);
						return -1;
					}
				}
			}
		}
	free(fill);
	return 0;
}

/*
 * A 2-level tree needs every two leaves to share a spine (and every spine a
 * link). Round robin of U < S up-links gives leaf l the S-cyclic window
 * [lU, lU+U): leaves 0 and 1 get disjoint windows unless 2U > S, and any two
 * windows of more than S/2 spines meet. One up-link over 4 spines would leave
 * each spine an island of its own leaves.
 */
static int oversub_connected(const struct vt_gen_spec *s, vt_err *e)
{
	if (s->upl >= s->spines)
		return 0; /* every leaf reaches every spine */
	if (s->leaves == 1)
		return vt_err_set(e, "bad spec '%s': not connected: spine %u gets no up-link",
				  s->text, s->upl);
	if (2 * (uint64_t)s->upl <= s->spines)
		return vt_err_set(e,
				  "bad spec '%s': not connected: leaves 0 and 1 share no spine "
				  "(round robin of %u up-link%s over %u spines needs more than "
				  "half the spines per leaf)",
				  s->text, s->upl, s->upl == 1 ? "" : "s", s->spines);
	return 0;
}

static int plan_oversub(struct plan *p, const struct vt_gen_spec *s, vt_err *e)
{
	uint64_t count[2] = {s->leaves, s->spines}, load, radix;
	uint32_t *fill;
	int bundle = s->upl % s->spines == 0;

	p->levels = 2;
	p->hpl = s->hpl;
	/* busiest spine: bundles spread evenly; round robin gives some spines one more */
	load = ((uint64_t)s->leaves * s->upl + s->spines - 1) / s->spines;
	radix = (uint64_t)s->hpl + s->upl > load ? (uint64_t)s->hpl + s->upl : load;
	if (plan_levels(p, s, count, radix, e) || oversub_connected(s, e))
		return -1;
	fill = calloc(s->spines, sizeof(*fill));
	if (!fill)
		return vt_err_nomem(e, "out of memory");
	for (uint32_t l = 0; l < s->leaves; l++)
		for (unsigned u = 0; u < s->upl; u++) {
			uint32_t sp = bundle ? u / (s->upl / s->spines)
					     : (uint32_t)(((uint64_t)l * s->upl + u) % s->spines);

			if (fill[sp] >= p->radix ||
			    add_link(p, l, s->hpl + u + 1, p->first[1] + sp, ++fill[sp], e)) {
				free(fill);
				return e->msg[0] ? -1 : vt_err_set(e, "spine overfull");
			}
		}
	free(fill);
	return 0;
}

static int plan_clique(struct plan *p, const struct vt_gen_spec *s, vt_err *e)
{
	unsigned h = s->k / 2;
	uint64_t count[1] = {h + 1};

	p->levels = 1;
	p->hpl = h;
	if (plan_levels(p, s, count, s->k, e))
		return -1;
	/* switch i reaches switch j on port h+1+j (j < i) or h+j (j > i) */
	for (unsigned i = 0; i <= h; i++)
		for (unsigned j = i + 1; j <= h; j++)
			if (add_link(p, i, h + j, j, h + i + 1, e))
				return -1;
	return 0;
}

static int make_plan(struct plan *p, const struct vt_gen_spec *s, vt_err *e)
{
	memset(p, 0, sizeof(*p));
	switch (s->family) {
	case VT_GEN_FAT:
	case VT_GEN_THIN:
	case VT_GEN_VARARY:
	case VT_GEN_GPU:
		return plan_varary(p, s, e);
	case VT_GEN_SLENDER:
		return plan_slender(p, s, e);
	case VT_GEN_PRUNED:
		return plan_pruned(p, s, e);
	case VT_GEN_OVERSUB:
		return plan_oversub(p, s, e);
	case VT_GEN_CLIQUE:
		return plan_clique(p, s, e);
	case VT_GEN_SUPERPOD:
	case VT_GEN_CORES:
		return vt_gen_split_plan(p, s, e);
	case VT_GEN_UNEVEN:
		return vt_gen_uneven_plan(p, s, e);
	}
	return vt_err_set(e, "no family");
}

/* ---- names and GUIDs: decimal digits inside the hex, so ids sort like descriptions */

static uint64_t bcd(uint64_t x)
{
	uint64_t r = 0;

	for (unsigned sh = 0; x; sh += 4, x /= 10)
		r |= (x % 10) << sh;
	return r;
}

static uint64_t sw_guid(unsigned plane, unsigned level, uint32_t idx)
{
	return OUI << 40 | 5ull << 36 | (uint64_t)plane << 32 | bcd(level) << 24 | bcd(idx);
}

static uint64_t ca_guid(uint32_t host)
{
	return OUI << 40 | 1ull << 36 | bcd(host) << 4;
}

/* ---- removals */

/* Marks n of the cand[0..ncand) entries in mark[] (by value), drawn by r. */
static int pick(vt_rand *r, uint32_t *cand, uint32_t ncand, unsigned n, uint8_t *mark,
		const char *what, const struct vt_gen_spec *s, vt_err *e)
{
	if (n > ncand)
		return vt_err_set(e, "bad spec '%s': cannot drop %u %s, there are %u", s->text, n,
				  what, ncand);
	vt_rand_shuffle_u32(r, cand, ncand);
	for (unsigned i = 0; i < n; i++)
		mark[cand[i]] = 1;
	return 0;
}

struct drops {
	uint8_t *sw;   /* per plane * nsw */
	uint8_t *link; /* per plane * nlinks */
	uint8_t *host; /* per host */
};

static unsigned level_of(const struct plan *p, uint32_t sw)
{
	unsigned l = 0;

	while (l + 1 < p->levels && sw >= p->first[l + 1])
		l++;
	return l;
}

static int choose_drops(const struct plan *p, const struct vt_gen_spec *s, struct drops *d,
			vt_err *e)
{
	uint64_t nhost = (uint64_t)p->count[0] * p->hpl;
	uint32_t R = s->rails, nc = 0;
	uint32_t *cand;
	unsigned hpl = s->hosts_per_leaf;
	vt_rand r;
	int rc = -1;

	if (hpl > p->hpl)
		return vt_err_set(e,
				  "bad spec '%s': hosts-per-leaf=%u but leaves have %u host ports",
				  s->text, hpl, p->hpl);
	d->sw = calloc((size_t)p->nsw * R + 1, 1);
	d->link = calloc((size_t)p->nlinks * R + 1, 1);
	d->host = calloc(nhost + 1, 1);
	cand = malloc(((size_t)p->nsw + p->nlinks) * R * sizeof(*cand) + nhost * sizeof(*cand) + 4);
	if (!d->sw || !d->link || !d->host || !cand) {
		vt_err_nomem(e, "out of memory");
		goto out;
	}
	vt_rand_seed(&r, s->seed);
	if (s->drop_switches) {
		unsigned lv = s->drop_switch_level == VT_GEN_ANY_LEVEL ? p->levels - 1
								       : s->drop_switch_level;

		if (lv >= p->levels) {
			vt_err_set(e, "bad spec '%s': no switch level %u", s->text, lv);
			goto out;
		}
		nc = 0;
		for (uint32_t pl = 0; pl < R; pl++)
			for (uint32_t i = 0; i < p->count[lv]; i++)
				cand[nc++] = pl * p->nsw + p->first[lv] + i;
		if (pick(&r, cand, nc, s->drop_switches, d->sw, "switches", s, e))
			goto out;
	}
	if (s->drop_links) {
		nc = 0;
		if (s->drop_link_level != VT_GEN_ANY_LEVEL && s->drop_link_level + 1 >= p->levels &&
		    s->family != VT_GEN_CLIQUE) {
			vt_err_set(e, "bad spec '%s': no links above level %u", s->text,
				   s->drop_link_level);
			goto out;
		}
		for (uint32_t pl = 0; pl < R; pl++)
			for (uint32_t i = 0; i < p->nlinks; i++) {
				const struct glink *k = &p->links[i];

				if (d->sw[pl * p->nsw + k->a] || d->sw[pl * p->nsw + k->b])
					continue;
				if (s->drop_link_level == VT_GEN_ANY_LEVEL ||
				    level_of(p, k->a) == s->drop_link_level)
					cand[nc++] = pl * p->nlinks + i;
			}
		if (pick(&r, cand, nc, s->drop_links, d->link, "links", s, e))
			goto out;
	}
	if (vt_gen_uneven_drops(p, s, d->link, e))
		goto out;
	nc = 0;
	for (uint32_t h = 0; h < nhost; h++) {
		if ((hpl && h % p->hpl >= hpl) || vt_gen_uneven_absent(p, s, h)) {
			d->host[h] = 1;
			continue;
		}
		cand[nc++] = h;
	}
	if (s->drop_hosts && pick(&r, cand, nc, s->drop_hosts, d->host, "hosts", s, e))
		goto out;
	rc = 0;
out:
	free(cand);
	return rc;
}

/* ---- building */

static int build_nodes(vt_fabric *f, const struct plan *p, const struct vt_gen_spec *s,
		       const struct drops *d, uint32_t *swnode, uint32_t *hostnode, vt_err *e)
{
	char id[32], desc[48];
	uint64_t nhost = (uint64_t)p->count[0] * p->hpl;

	for (unsigned pl = 0; pl < s->rails; pl++)
		for (unsigned lv = 0; lv < p->levels; lv++)
			for (uint32_t i = 0; i < p->count[lv]; i++) {
				uint32_t k = pl * p->nsw + p->first[lv] + i;
				uint64_t g = sw_guid(pl, lv, i);

				swnode[k] = VT_NONE;
				if (d->sw[k])
					continue;
				snprintf(id, sizeof(id), "S-%016llx", (unsigned long long)g);
				if (s->rails > 1)
					snprintf(desc, sizeof(desc), "P%u-L%u-S%04u", pl, lv, i);
				else
					snprintf(desc, sizeof(desc), "L%u-S%04u", lv, i);
				if (vt_fabric_add_node(f, VT_SWITCH, p->radix, g, id, desc,
						       &swnode[k], e))
					return -1;
			}
	for (uint32_t h = 0; h < nhost; h++) {
		uint64_t g = ca_guid(h);

		hostnode[h] = VT_NONE;
		if (d->host[h])
			continue;
		snprintf(id, sizeof(id), "H-%016llx", (unsigned long long)g);
		snprintf(desc, sizeof(desc), "H-%04u", h);
		if (vt_fabric_add_node(f, VT_CA, s->rails, g, id, desc, &hostnode[h], e))
			return -1;
		for (unsigned r = 1; r <= s->rails; r++)
			vt_port(f, hostnode[h], r)->guid = g + r; /* ibsim: node GUID + port */
	}
	return 0;
}

static int build_links(vt_fabric *f, const struct plan *p, const struct vt_gen_spec *s,
		       const struct drops *d, const uint32_t *swnode, const uint32_t *hostnode,
		       vt_err *e)
{
	uint64_t nhost = (uint64_t)p->count[0] * p->hpl;
	uint8_t *slow;
	int rc = -1;

	if (vt_gen_uneven_slow(p, s, &slow, e))
		return -1;
#define SPEED(leaf) (slow && (leaf) < p->count[0] && slow[leaf] ? s->slow_speed : s->speed)
	for (unsigned pl = 0; pl < s->rails; pl++) {
		for (uint32_t h = 0; h < nhost; h++) {
			uint32_t leaf = swnode[pl * p->nsw + h / p->hpl];

			if (hostnode[h] == VT_NONE || leaf == VT_NONE)
				continue;
			if (vt_fabric_connect(f, leaf, h % p->hpl + 1, hostnode[h], pl + 1,
					      s->width, SPEED(h / p->hpl), e))
				goto out;
		}
		for (uint32_t i = 0; i < p->nlinks; i++) {
			const struct glink *k = &p->links[i];
			uint32_t a = swnode[pl * p->nsw + k->a], b = swnode[pl * p->nsw + k->b];

			if (a == VT_NONE || b == VT_NONE || d->link[pl * p->nlinks + i])
				continue;
			if (vt_fabric_connect(f, a, k->pa, b, k->pb, s->width,
					      SPEED(k->a < k->b ? k->a : k->b), e))
				goto out;
		}
	}
#undef SPEED
	rc = 0;
out:
	free(slow);
	return rc;
}

/* Replaces *f by a copy with the real-fabric features, telling them each node's place. */
static int with_features(vt_fabric **f, const struct plan *p, const struct vt_gen_spec *s,
			 const uint32_t *swnode, const uint32_t *hostnode, vt_err *e)
{
	uint32_t nn = (*f)->nnodes, *host = malloc((nn + 1) * sizeof(*host));
	uint8_t *level = calloc(nn + 1, 1), *plane = calloc(nn + 1, 1);
	struct vt_gen_shape sh = {p->levels, p->hpl, level, plane, host};
	vt_fabric *g = NULL;
	int rc = -1;

	if (!host || !level || !plane) {
		vt_err_nomem(e, "out of memory");
		goto out;
	}
	memset(host, 0xff, (nn + 1) * sizeof(*host));
	for (uint32_t k = 0; k < p->nsw * s->rails; k++)
		if (swnode[k] != VT_NONE) {
			level[swnode[k]] = (uint8_t)level_of(p, k % p->nsw);
			plane[swnode[k]] = (uint8_t)(k / p->nsw);
		}
	for (uint32_t h = 0; h < p->count[0] * p->hpl; h++)
		if (hostnode[h] != VT_NONE)
			host[hostnode[h]] = h;
	if (vt_gen_real_apply(s, *f, &sh, &g, e) == 0) {
		vt_fabric_free(*f);
		*f = g;
		rc = 0;
	}
out:
	free(host);
	free(level);
	free(plane);
	return rc;
}

int vt_gen_plan_link(struct plan *p, uint32_t a, unsigned pa, uint32_t b, unsigned pb, vt_err *e)
{
	return add_link(p, a, pa, b, pb, e);
}

int vt_gen_plan_levels(struct plan *p, const struct vt_gen_spec *s, const uint64_t *count,
		       uint64_t radix, vt_err *e)
{
	return plan_levels(p, s, count, radix, e);
}

int vt_gen_build(const struct vt_gen_spec *s, vt_fabric **out, vt_err *e)
{
	struct plan p;
	struct drops d = {0};
	uint32_t *swnode = NULL, *hostnode = NULL;
	vt_fabric *f = NULL;
	int rc = -1;

	*out = NULL;
	if (make_plan(&p, s, e) || choose_drops(&p, s, &d, e))
		goto out;
	swnode = malloc(((size_t)p.nsw * s->rails + 1) * sizeof(*swnode));
	hostnode = malloc(((size_t)p.count[0] * p.hpl + 1) * sizeof(*hostnode));
	f = vt_fabric_new(s->text);
	if (!swnode || !hostnode || !f) {
		vt_err_nomem(e, "out of memory");
		goto out;
	}
	if (build_nodes(f, &p, s, &d, swnode, hostnode, e) ||
	    build_links(f, &p, s, &d, swnode, hostnode, e) ||
	    (vt_gen_real_wanted(s) && with_features(&f, &p, s, swnode, hostnode, e)) ||
	    vt_fabric_finish(f, 0, e))
		goto out;
	*out = f;
	f = NULL;
	rc = 0;
out:
	vt_fabric_free(f);
	free(swnode);
	free(hostnode);
	free(d.sw);
	free(d.link);
	free(d.host);
	free(p.links);
	return rc;
}
