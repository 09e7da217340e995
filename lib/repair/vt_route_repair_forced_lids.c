/* SPDX-License-Identifier: MIT */
/*
 * The repair candidate that moves only the CA LIDs' entries a fault forces
 * off a minimal route (vt_route_repair_forced_lids.h): per CA LID, the
 * switches with an up*-down* route to it in the degraded fabric keep their
 * previous entry wherever it still starts a shortest such route, and the
 * others take one that does, spread over the ports like the fresh routing's.
 * Every other previous entry stays: where a whole repair (every entry tried
 * in turn against the fresh tables) moves the hosts' entries behind the ones
 * it had to move, or congests shift with them (a level-1 switch down), this
 * leaves them be.
 *
 * VT_FORCED_SIBLING: a switch that CA traffic to a LID crosses going up and
 * did not before (or whose port for it is forced off) takes the port it uses
 * for the other CA LIDs of the LID's leaf. Those entries were spare: the old
 * routing filled them by a rule of its own (fat 8,3: a level-1 switch sent
 * every spare LID up one port), so the destinations a dead level-1 switch
 * carried all went up one link of each sibling and met in one shift stage;
 * the sibling's ports for the leaf's other LIDs are the ones the old routing
 * spread over the tops for that leaf (the tree is symmetric: a sibling plays
 * the dead switch's role), so the moved destinations of one shift window
 * keep apart (fat 8,3, the first level-1 switch down: shift worst 3 with the
 * spare ports, 2 as fresh with these).
 */
#include "repair/vt_route_repair_forced_lids.h"

#include <stdlib.h>
#include <string.h>

#define DIST_NONE 0xFFFFFFFFu
#define GAP_FAR	  64u /* ranks: farther than this counts as far enough */

struct forced_lids {
	uint32_t *dist;	 /* per switch: hops of its shortest up*-down* route, DIST_NONE */
	uint8_t *down;	 /* per switch: that route goes only down */
	uint32_t *queue; /* switches in the order the search reached them */
	/*
	 * the leaf searched from last (VT_NONE: none) and how many switches its
	 * search reached: dist, down and queue depend on the leaf alone, and the
	 * CA LIDs of a leaf come one after another (pruned 36,12: 3888 searches of
	 * the whole fabric, 1.25 G instructions, for 324 leaves)
	 */
	uint32_t leaf, nq;
	/*
	 * per switch x, its neighbours search reaches through it, each once, in
	 * the order of its first port to them: adj[adj_at[x] .. adj_at[x + 1]),
	 * neighbour * 2 + 1 for a parent, * 2 for a child (parallel links and
	 * links within a level, which search passes over, left out)
	 */
	uint32_t *adj_at, *adj;
	uint32_t *now; /* per switch: the LID whose CA traffic crosses it (route_lid) */
	/* per switch and port (r->stride): the CA LIDs whose traffic crosses it there */
	uint32_t *use;
	/*
	 * far mode (VT_FORCED_FAR), per switch, for the LID in redir_lid / tport_lid
	 * only: the CA traffic to it that went down into switch x goes to parent
	 * redir[x] instead; switch x takes port tport[x] (far_parent)
	 */
	uint32_t *redir, *redir_lid, *tport, *tport_lid;
	/* VT_FORCED_SIBLING, per leaf switch, its CA LIDs: leaf_lid[leaf_at[x] .. leaf_at[x + 1])
	 */
	uint32_t *leaf_at, *leaf_lid;
	/* r->used_now: per switch and LID, CA traffic crosses it (the LIDs done so far:
	 * under r->t, the others: under r->prev) */
};

static void set_bit(uint8_t *m, size_t i, int v)
{
	if (v)
		m[i >> 3] |= (uint8_t)(1u << (i & 7));
	else
		m[i >> 3] &= (uint8_t) ~(1u << (i & 7));
}

/* The switch a CA LID hangs off, VT_NONE for none. */
static uint32_t lid_switch(const struct repair *r, uint32_t lid)
{
	const vt_fabric *f = r->f;
	uint32_t q = f->ports[f->lid_port[lid]].peer;

	if (q == VT_NONE || f->nodes[f->ports[q].node].type != VT_SWITCH)
		return VT_NONE;
	return f->nodes[f->ports[q].node].sw;
}

/* Has port p of switch s lost its link (a port the switch has, linked to nothing now)? */
static int lost_port(const struct repair *r, uint32_t s, unsigned p)
{
	const struct vt_node *n = sw_node(r, s);

	return p >= 1 && p <= n->nports && r->f->ports[n->first_port + p].peer == VT_NONE;
}

/* Is switch b a level above switch a in the tree (both in it)? */
static int above(const struct repair *r, uint32_t a, uint32_t b)
{
	return r->level[a] != VT_TREE_OUTSIDE && r->level[b] != VT_TREE_OUTSIDE &&
	       r->level[b] == r->level[a] + 1;
}

/*
 * fl->adj_at, fl->adj (struct forced_lids) from r->peer and r->level: what
 * search walks instead of every port of every switch, once per leaf (pruned
 * 36,12: 3 parallel links to most neighbours). -1 when out of memory.
 */
static int adjacency(const struct repair *r, struct forced_lids *fl)
{
	uint32_t nsw = r->f->nswitches, m = 0;

	fl->adj_at = malloc(((size_t)nsw + 1) * sizeof(*fl->adj_at));
	fl->adj = malloc(((size_t)nsw * r->stride + 1) * sizeof(*fl->adj));
	if (!fl->adj_at || !fl->adj)
		return -1;
	for (uint32_t x = 0; x < nsw; x++) {
		fl->adj_at[x] = m;
		for (unsigned p = 1; p < r->stride; p++) {
			uint32_t n = sw_peer(r, x, p), k;

			if (n == VT_NONE || (!above(r, x, n) && !above(r, n, x)))
				continue;
			for (k = fl->adj_at[x]; k < m && fl->adj[k] >> 1 != n; k++)
				;
			if (k == m) /* the first link to n */
				fl->adj[m++] = n << 1 | (uint32_t)above(r, x, n);
		}
	}
	fl->adj_at[nsw] = m;
	return 0;
}

/*
 * fl->dist and fl->down from the switch leaf the LID hangs off: a switch
 * above one that reaches it going only down does too; any other switch goes
 * up first. Breadth first, so each switch's first distance is its shortest
 * (on a layered tree a route only down is always the shortest). Returns how
 * many switches fl->queue holds.
 */
static uint32_t search(const struct repair *r, struct forced_lids *fl, uint32_t leaf)
{
	uint32_t head = 0, tail = 0;

	if (leaf == fl->leaf)
		return fl->nq; /* searched already: the same answer */
	for (uint32_t s = 0; s < r->f->nswitches; s++)
		fl->dist[s] = DIST_NONE;
	fl->dist[leaf] = 0;
	fl->down[leaf] = 1;
	fl->queue[tail++] = leaf;
	while (head < tail) {
		uint32_t x = fl->queue[head++];

		for (uint32_t k = fl->adj_at[x]; k < fl->adj_at[x + 1]; k++) {
			uint32_t n = fl->adj[k] >> 1;

			if (fl->dist[n] != DIST_NONE)
				continue;
			if (fl->adj[k] & 1) { /* a parent */
				if (!fl->down[x])
					continue;
				fl->down[n] = 1; /* n goes down to x */
			} else {
				fl->down[n] = 0; /* n goes up to x */
			}
			fl->dist[n] = fl->dist[x] + 1;
			fl->queue[tail++] = n;
		}
	}
	fl->leaf = leaf;
	return fl->nq = tail;
}

/* Does port p of switch s start one of its shortest up*-down* routes (search)? */
static int good_port(const struct repair *r, const struct forced_lids *fl, uint32_t s, unsigned p)
{
	uint32_t n = sw_peer(r, s, p);

	if (p == 0 || p >= r->stride || n == VT_NONE || fl->dist[n] == DIST_NONE ||
	    fl->dist[n] + 1 != fl->dist[s])
		return 0;
	return fl->down[s] ? above(r, n, s) && fl->down[n] : above(r, s, n);
}

/*
 * Per port of s, the distance in ranks from lid's rank to the nearest other
 * rank whose LID s forwards there (gap_cap when none is nearer): a shift
 * stage sends each host a fixed distance on, so LIDs of nearby ranks on one
 * port tend to share its link in a stage.
 */
static uint32_t gap_cap(const struct repair *r)
{
	return r->how.forced_lids == VT_FORCED_FAR ? r->nrank / 2 + 1 : GAP_FAR;
}

static void gaps(const struct repair *r, uint32_t s, uint32_t lid, uint32_t *gap)
{
	uint32_t n = r->nrank, rank = r->rank_of_lid[lid], cap = gap_cap(r);
	const uint8_t *row = vt_lft_row(r->t, s), *prow = vt_lft_row(r->prev, s);
	size_t base = (size_t)s * r->t->nlid;

	for (unsigned p = 0; p < r->stride; p++)
		gap[p] = cap;
	if (rank == VT_NONE)
		return;
	for (uint32_t d = 1; d < cap && 2 * d <= n; d++)
		for (int side = 0; side < 2; side++) {
			uint32_t l = r->lid_of_rank[side ? (rank + d) % n : (rank + n - d) % n];
			unsigned p;

			if (l == VT_NONE || !bit(r->used_now, base + l))
				continue;
			p = l < lid ? row[l] : prow[l]; /* the LIDs before lid are done */
			if (p < r->stride && gap[p] == cap)
				gap[p] = d; /* the nearest */
		}
}

/*
 * The port s takes for lid among those that start a shortest route (and lead
 * to switch only, unless VT_NONE): keep (0: none) unless another has no LID of
 * a rank nearer than r->how.forced_lids where keep has one, or as few and
 * carries fewer CA LIDs' traffic (then the nearest rank farthest). A near
 * limit of 2 or 4 keeps a moved LID off the ports of its rank neighbours
 * without letting a far neighbour outweigh the load (as the nearest rank
 * alone, one port took every moved LID of a leaf: fat 8,3, the first level-1
 * switch down, shift worst 4); VT_FORCED_FAR has no limit.
 */
static unsigned choose(const struct repair *r, const struct forced_lids *fl, uint32_t s,
		       uint32_t lid, unsigned keep, uint32_t only)
{
	const uint32_t *use = fl->use + (size_t)s * r->stride;
	uint32_t gap[256], near = r->how.forced_lids;
	unsigned best = keep;

	if (near == VT_FORCED_FAR)
		near = gap_cap(r);
	else if (near == VT_FORCED_SIBLING)
		near = 2;
	gaps(r, s, lid, gap);
	for (unsigned p = 1; p < r->stride; p++) {
		if (!good_port(r, fl, s, p) || (only != VT_NONE && sw_peer(r, s, p) != only))
			continue;
		uint32_t gp = gap[p] < near ? gap[p] : near;
		uint32_t gb = best && gap[best] < near ? gap[best] : near;

		if (!best || gp > gb ||
		    (gp == gb &&
		     (use[p] < use[best] || (use[p] == use[best] && gap[p] > gap[best]))))
			best = p;
	}
	return best;
}

/*
 * VT_FORCED_FAR: where lid's CA traffic went down from switch p over a link
 * that is lost while p still starts a shortest route to lid (one of parallel
 * links lost, or the link to one of several children that reach lid), the
 * traffic goes down into p's children over the link, of all their links to
 * parents on a shortest route, whose CA LIDs' ranks are farthest from lid's
 * (p's own first): as the fresh route sends a lost lane's destination to the
 * far lane (vt_route_far_lane), not onto a rank neighbour's link, which
 * congests shift in every stage that sends to both from outside. Where that
 * link's parent is another, the switches that sent the traffic up into p
 * send it there (route_port).
 */
/* far_parent's pick so far: link q of parent best, gap ranks away; gap[] is switch at's */
struct far_pick {
	uint32_t best, q, gap, at, gaps[256];
};

/* Child c's links to parents on a shortest route (p's own only, or the others) into k. */
static void far_links(const struct repair *r, const struct forced_lids *fl, uint32_t lid,
		      uint32_t p, uint32_t c, int own, struct far_pick *k)
{
	const vt_fabric *f = r->f;

	for (unsigned u = 1; u < r->stride; u++) {
		uint32_t pp = sw_peer(r, c, u), q;

		if (pp == VT_NONE || (pp == p) != own || !above(r, c, pp) ||
		    fl->dist[pp] != fl->dist[p] || !fl->down[pp])
			continue;
		q = f->ports[f->ports[sw_node(r, c)->first_port + u].peer].num;
		if (pp != k->at) /* parallel links are numbered together */
			gaps(r, pp, lid, k->gaps);
		k->at = pp;
		if (good_port(r, fl, pp, q) && (k->best == VT_NONE || k->gaps[q] > k->gap)) {
			k->best = pp;
			k->q = q;
			k->gap = k->gaps[q];
		}
	}
}

static void far_parent(struct repair *r, struct forced_lids *fl, uint32_t lid, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		uint32_t p = fl->queue[i];
		unsigned old = vt_lft_get(r->prev, p, lid);
		struct far_pick k; /* gaps[] filled where at changes: not cleared for nothing */

		if (!fl->down[p] || !bit(r->used_now, (size_t)p * r->t->nlid + lid) ||
		    good_port(r, fl, p, old))
			continue;
		k.best = k.at = VT_NONE;
		k.q = k.gap = 0;
		for (int own = 1; own >= 0; own--)
			for (unsigned w = 1; w < r->stride; w++) /* each child once */
				if (good_port(r, fl, p, w) &&
				    (w == 1 || sw_peer(r, p, w - 1) != sw_peer(r, p, w)))
					far_links(r, fl, lid, p, sw_peer(r, p, w), own, &k);
		if (k.best == VT_NONE)
			continue;
		fl->tport[k.best] = k.q;
		fl->tport_lid[k.best] = lid;
		if (k.best != p) {
			fl->redir[p] = k.best;
			fl->redir_lid[p] = lid;
		}
	}
}

/*
 * VT_FORCED_SIBLING: the port switch s takes for the other CA LIDs of lid's
 * leaf that CA traffic crosses s towards (the LIDs before lid as chosen, the
 * others as before), where they all take one and it goes up a shortest
 * route to lid; else 0.
 */
static unsigned sibling_port(const struct repair *r, const struct forced_lids *fl, uint32_t s,
			     uint32_t lid)
{
	uint32_t leaf = lid_switch(r, lid), n;
	const uint8_t *row = vt_lft_row(r->t, s), *prow = vt_lft_row(r->prev, s);
	size_t base = (size_t)s * r->t->nlid;
	unsigned got = 0;

	if (leaf == VT_NONE)
		return 0;
	for (uint32_t i = fl->leaf_at[leaf]; i < fl->leaf_at[leaf + 1]; i++) {
		uint32_t l = fl->leaf_lid[i];
		unsigned p;

		if (l == lid || !bit(r->used_now, base + l))
			continue;
		p = l < lid ? row[l] : prow[l];
		if (got && p != got)
			return 0;
		got = p;
	}
	n = got && got < r->stride ? sw_peer(r, s, got) : VT_NONE;
	return n != VT_NONE && above(r, s, n) && good_port(r, fl, s, got) ? got : 0;
}

/*
 * The port switch s takes for lid (0: none, the fresh entry stays), its
 * previous one old; now, was: CA traffic to lid crosses s now, did before.
 * *fix: keep_lid is to leave the entry (VT_FORCED_SIBLING's ports).
 */
static unsigned route_port(const struct repair *r, const struct forced_lids *fl, uint32_t s,
			   uint32_t lid, unsigned old, int now, int was, int *fix)
{
	uint32_t to = old < r->stride ? sw_peer(r, s, old) : VT_NONE;
	unsigned p = 0;

	/*
	 * a LID outside the ranks: no shift stage to spread it over, and its
	 * previous route, longer now, may stay (keep_lid, vt_forced_any_length):
	 * real-shaped pruned 36,6, the first level-1 switch down, the leaves'
	 * routes to the aggregation nodes through the dead switch's peers stay
	 */
	if (vt_forced_any_length(r, lid) && !lost_port(r, s, old))
		return good_port(r, fl, s, old) ? old : 0;
	if (r->how.forced_lids == VT_FORCED_FAR && now) {
		if (to != VT_NONE && fl->redir_lid[to] == lid) /* up to the far link's parent */
			p = choose(r, fl, s, lid, 0, fl->redir[to]);
		else if (fl->tport_lid[s] == lid)
			p = fl->tport[s]; /* down the far link */
		if (p)
			return p;
	}
	if (r->how.forced_lids == VT_FORCED_SIBLING && now && (!was || !good_port(r, fl, s, old)) &&
	    (p = sibling_port(r, fl, s, lid)) != 0) {
		*fix = p != old;
		return p;
	}
	if (!good_port(r, fl, s, old))
		return choose(r, fl, s, lid, 0, VT_NONE);
	if (now && !was)
		return choose(r, fl, s, lid, old, VT_NONE);
	return old;
}

/*
 * lid's entries at the switches with an up*-down* route to it, farthest
 * first: a switch knows then whether CA traffic to lid crosses it. The
 * previous entry stays where it starts a shortest route, unless that traffic
 * crosses it now and did not before (the previous routing left such entries
 * unbalanced: nobody used them), or VT_FORCED_FAR moves it to the far link
 * (far_parent).
 */
static void route_lid(struct repair *r, struct forced_lids *fl, uint32_t lid)
{
	uint32_t leaf = lid_switch(r, lid), n;
	int far = r->how.forced_lids == VT_FORCED_FAR;

	if (leaf == VT_NONE)
		return;
	n = search(r, fl, leaf);
	if (far)
		far_parent(r, fl, lid, n);
	for (uint32_t i = 0; i < r->nentry; i++)
		fl->now[r->entry[i]] = lid;
	for (uint32_t i = n; i-- > 1;) { /* queue[0]: leaf, whose port is the CA's */
		uint32_t s = fl->queue[i];
		size_t b = (size_t)s * r->t->nlid + lid;
		unsigned old = vt_lft_get(r->prev, s, lid), p;
		int was = bit(r->used_now, b), now = fl->now[s] == lid, fix = far;

		if ((p = route_port(r, fl, s, lid, old, now, was, &fix)) == 0)
			continue; /* none: the fresh entry stays */
		vt_lft_set(r->t, s, lid, (uint8_t)p);
		if (fix)
			set_bit(r->fixed, b, 1); /* keep_lid leaves it */
		if (was && old < r->stride && sw_peer(r, s, old) != VT_NONE)
			fl->use[(size_t)s * r->stride + old]--;
		set_bit(r->used_now, b, now);
		if (now) {
			fl->use[(size_t)s * r->stride + p]++;
			fl->now[sw_peer(r, s, p)] = lid;
		}
	}
}

/*
 * r->used_now and fl->use from the CA traffic under the previous tables:
 * used_now starts as r->used_prev, counted once per repair (the whole
 * candidates' rebalance counted it already), and so is fl->use (r->fl_use).
 */
static void count_use(struct repair *r, struct forced_lids *fl)
{
	uint32_t nlid = r->t->nlid;
	size_t nuse = (size_t)r->f->nswitches * r->stride;

	memcpy(r->used_now, vt_repair_used_prev(r), ((size_t)r->t->nsw * nlid + 7) / 8);
	if (r->fl_use_ok) {
		memcpy(fl->use, r->fl_use, nuse * sizeof(*fl->use));
		return;
	}
	for (uint32_t s = 0; s < r->f->nswitches; s++) {
		const uint8_t *row = vt_lft_row(r->prev, s);
		uint32_t *use = fl->use + (size_t)s * r->stride;

		for (uint32_t lid = 1; lid < nlid; lid++)
			if (bit(r->used_now, (size_t)s * nlid + lid) && row[lid] < r->stride &&
			    sw_peer(r, s, row[lid]) != VT_NONE)
				use[row[lid]]++;
	}
	if (!r->fl_use)
		r->fl_use =
			malloc((nuse + 1) * sizeof(*r->fl_use)); /* optional: NULL, counted again */
	if (r->fl_use) {
		memcpy(r->fl_use, fl->use, nuse * sizeof(*fl->use));
		r->fl_use_ok = 1;
	}
}

/* fl->leaf_at, fl->leaf_lid: the CA LIDs of each leaf switch (sibling_port). -1 when out of memory.
 */
static int leaf_index(const struct repair *r, struct forced_lids *fl)
{
	uint32_t nsw = r->f->nswitches, nlid = r->t->nlid, x;

	fl->leaf_at = calloc((size_t)nsw + 2, sizeof(*fl->leaf_at));
	fl->leaf_lid = malloc(((size_t)nlid + 1) * sizeof(*fl->leaf_lid));
	if (!fl->leaf_at || !fl->leaf_lid)
		return -1;
	/* counted into leaf_at[x + 2], summed, then filled from leaf_at[x + 1] */
	for (uint32_t lid = 1; lid < nlid; lid++)
		if (r->ca[lid] && r->f->lid_port[lid] != VT_NONE &&
		    (x = lid_switch(r, lid)) != VT_NONE)
			fl->leaf_at[x + 2]++;
	for (uint32_t i = 2; i < nsw + 2; i++)
		fl->leaf_at[i] += fl->leaf_at[i - 1];
	for (uint32_t lid = 1; lid < nlid; lid++)
		if (r->ca[lid] && r->f->lid_port[lid] != VT_NONE &&
		    (x = lid_switch(r, lid)) != VT_NONE)
			fl->leaf_lid[fl->leaf_at[x + 1]++] = lid;
	return 0;
}

/*
 * The CA LIDs of leaf x whose every previous entry starts a shortest
 * up*-down* route, where every switch has one (clean[lid] set): route_lid
 * keeps each such entry (farthest switch first, so the traffic follows the
 * previous paths, crosses what it crossed before, and no port's use moves;
 * VT_FORCED_FAR fixes them), so they are kept here, a row at a time, before
 * the other LIDs are routed in LID order (which read the entries of the LIDs
 * before theirs: these hold the same then). Pruned 36,12 with a level-1
 * switch's up-link down: route_lid walked every CA LID's column down every
 * switch, where a few hundred of 3888 are not clean. known: clean holds the
 * answer already, found by an earlier candidate (it reads the fabric and the
 * previous tables alone: pruned 36,36 with a level-1 switch down tries three
 * forced-lids candidates, some 80 ms each finding it).
 */
static void keep_clean(struct repair *r, struct forced_lids *fl, uint32_t x, uint8_t *clean,
		       int known)
{
	uint32_t nlid = r->t->nlid, at = fl->leaf_at[x], m = fl->leaf_at[x + 1] - at;
	const uint32_t *lids = fl->leaf_lid + at;
	int far = r->how.forced_lids == VT_FORCED_FAR;

	if (!m || (!known && search(r, fl, x) != r->f->nswitches))
		return; /* a switch with no such route: route_lid decides */
	for (uint32_t i = 0; !known && i < m; i++)
		clean[lids[i]] = 1;
	for (uint32_t s = 0; !known && s < r->f->nswitches; s++) {
		const uint8_t *row = vt_lft_row(r->prev, s);

		for (uint32_t i = 0; s != x && i < m; i++)
			if (clean[lids[i]] && !good_port(r, fl, s, row[lids[i]]))
				clean[lids[i]] = 0;
	}
	for (uint32_t s = 0; s < r->f->nswitches; s++) {
		const uint8_t *row = vt_lft_row(r->prev, s);

		for (uint32_t i = 0; s != x && i < m; i++) {
			if (!clean[lids[i]])
				continue;
			vt_lft_set(r->t, s, lids[i], row[lids[i]]);
			if (far)
				set_bit(r->fixed, (size_t)s * nlid + lids[i], 1);
		}
	}
}

int vt_repair_forced_lids(struct repair *r)
{
	size_t nsw = (size_t)r->f->nswitches + 1;
	struct forced_lids fl = {
		.dist = malloc(nsw * sizeof(*fl.dist)),
		.down = malloc(nsw),
		.queue = malloc(nsw * sizeof(*fl.queue)),
		.now = calloc(nsw, sizeof(*fl.now)),
		.use = calloc(nsw * r->stride, sizeof(*fl.use)),
		.redir = malloc(nsw * sizeof(*fl.redir)),
		.redir_lid = calloc(nsw, sizeof(*fl.redir_lid)),
		.tport = malloc(nsw * sizeof(*fl.tport)),
		.tport_lid = calloc(nsw, sizeof(*fl.tport_lid)),
		.leaf = VT_NONE,
	};
	/* keep_clean's answers, kept for the next candidate */
	uint8_t *clean = r->fl_clean ? r->fl_clean : calloc((size_t)r->t->nlid + 1, 1);
	int rc = -1, known = r->fl_clean_ok;

	if (fl.dist && fl.down && fl.queue && fl.now && fl.use && fl.redir && fl.redir_lid &&
	    fl.tport && fl.tport_lid && clean && !leaf_index(r, &fl) && !adjacency(r, &fl)) {
		if (vt_forced_fixes(r))
			memset(r->fixed, 0, ((size_t)r->t->nsw * r->t->nlid + 7) / 8);
		count_use(r, &fl);
		for (uint32_t x = 0; x < r->f->nswitches; x++)
			keep_clean(r, &fl, x, clean, known);
		r->fl_clean = clean;
		r->fl_clean_ok = 1;
		for (uint32_t lid = 1; lid < r->t->nlid; lid++)
			if (r->ca[lid] && r->f->lid_port[lid] != VT_NONE && !clean[lid])
				route_lid(r, &fl, lid);
		rc = 0;
	}
	if (clean != r->fl_clean)
		free(clean);
	free(fl.dist);
	free(fl.down);
	free(fl.queue);
	free(fl.now);
	free(fl.use);
	free(fl.redir);
	free(fl.redir_lid);
	free(fl.tport);
	free(fl.tport_lid);
	free(fl.leaf_at);
	free(fl.leaf_lid);
	free(fl.adj_at);
	free(fl.adj);
	return rc;
}

/* Does a switch whose previous entry for lid lost its link still start a shortest route to it? */
static int far_case(const struct repair *r, struct forced_lids *fl, uint32_t lid)
{
	uint32_t leaf = lid_switch(r, lid), n;

	if (leaf == VT_NONE)
		return 0;
	n = search(r, fl, leaf);
	for (uint32_t i = 1; i < n; i++) {
		uint32_t p = fl->queue[i];

		if (!fl->down[p] || !lost_port(r, p, vt_lft_get(r->prev, p, lid)))
			continue;
		for (unsigned q = 1; q < r->stride; q++)
			if (good_port(r, fl, p, q))
				return 1;
	}
	return 0;
}

int vt_repair_far_applies(const struct repair *r)
{
	size_t nsw = (size_t)r->f->nswitches + 1, nlid = r->t->nlid;
	struct forced_lids fl = {
		.dist = malloc(nsw * sizeof(*fl.dist)),
		.down = malloc(nsw),
		.queue = malloc(nsw * sizeof(*fl.queue)),
		.leaf = VT_NONE,
	};
	uint8_t *lost = calloc(nlid + 1, 1);
	uint32_t x;
	int found = -1;

	if (fl.dist && fl.down && fl.queue && lost && !adjacency(r, &fl)) {
		found = 0;
		/* the LIDs a switch lost its previous port to, where the fresh route goes down */
		for (uint32_t s = 0; s < r->f->nswitches; s++) {
			const uint8_t *row = vt_lft_row(r->prev, s), *fr = vt_lft_row(r->fresh, s);
			uint8_t gone[256]; /* lost_port per port number, asked per entry below */

			for (unsigned p = 0; p < 256; p++)
				gone[p] = (uint8_t)lost_port(r, s, p);
			for (uint32_t lid = 1; lid < nlid; lid++)
				lost[lid] |= r->ca[lid] && gone[row[lid]] &&
					     (x = sw_peer(r, s, fr[lid])) != VT_NONE &&
					     above(r, x, s);
		}
		for (uint32_t lid = 1; !found && lid < nlid; lid++)
			found = lost[lid] && r->f->lid_port[lid] != VT_NONE &&
				far_case(r, &fl, lid);
	}
	free(fl.dist);
	free(fl.down);
	free(fl.queue);
	free(fl.adj_at);
	free(fl.adj);
	free(lost);
	return found;
}
