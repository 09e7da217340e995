/* SPDX-License-Identifier: MIT */
/* Reading an OTF2 archive's MPI events into per-rank operation lists (vt_otf2.h). */
#include "work/vt_otf2.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

struct grp {
	uint32_t id, n;
	uint8_t type, mpi;
	uint32_t flags;
	uint64_t *m;
};

struct cdef {
	uint32_t id, group, name;
};

struct locrank {
	uint64_t loc;
	uint32_t rank;
};

/* A rank's time outside MPI: the end of its last MPI call, the gap before its next. */
struct clk {
	uint64_t leave, gap;
	uint32_t depth; /* MPI calls entered, not left */
	int seen;	/* leave is set */
	int over;	/* gap overflowed */
};

/* The open isends of a rank: request id and operation index. */
struct reqs {
	uint64_t *id, *op;
	uint32_t n, cap;
};

struct rd {
	vt_mpitrace *t;
	vt_err *e;
	const char *path;
	int failed;
	char **str; /* string definitions by id */
	uint32_t nstr;
	uint64_t *loc; /* every location defined, in order */
	uint32_t nloc, cap_loc;
	struct grp *grp;
	uint32_t ngrp, cap_grp;
	struct cdef *cdef; /* sorted by id once read; comm c of the trace is cdef[c] */
	uint32_t ncdef, cap_cdef;
	uint8_t *global;    /* per communicator: ranks in events are world ranks */
	uint8_t *other;	    /* per communicator: another paradigm's (OpenMP, CUDA...), no MPI */
	struct locrank *lr; /* sorted by location */
	uint32_t nlr;
	struct reqs *req;    /* per rank */
	uint8_t *mpi_region; /* per region id: 1 if an MPI call */
	uint32_t nregion;
	uint64_t res;	 /* timer ticks per second */
	struct clk *clk; /* per rank */
};

/* An error of the trace's content: names the file, stops the reading. */
__attribute__((format(printf, 2, 3))) static OTF2_CallbackCode bad(struct rd *d, const char *fmt,
								   ...)
{
	char msg[VT_ERR_MAX];
	va_list ap;

	if (!d->failed) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		vt_err_set(d->e, "%s: %s", d->path, msg);
	}
	d->failed = 1;
	return OTF2_CALLBACK_INTERRUPT;
}

/* Grows *a (elements of size sz) to hold n + 1. */
static int grow(void *a, uint32_t n, uint32_t *cap, size_t sz)
{
	void **p = a, *q;
	uint32_t nc;

	if (n < *cap)
		return 0;
	nc = *cap ? 2 * *cap : 16;
	q = realloc(*p, (size_t)nc * sz);
	if (!q)
		return -1;
	*p = q;
	*cap = nc;
	return 0;
}

static OTF2_CallbackCode def_string(void *ud, OTF2_StringRef self, const char *s)
{
	struct rd *d = ud;

	if (self >= d->nstr) {
		uint32_t n = self < (1u << 24) ? self + 1 : 0;
		char **p = n ? realloc(d->str, (size_t)n * sizeof(*p)) : NULL;

		if (!p)
			return n ? bad(d, "out of memory for strings") : OTF2_CALLBACK_SUCCESS;
		memset(p + d->nstr, 0, (size_t)(n - d->nstr) * sizeof(*p));
		d->str = p;
		d->nstr = n;
	}
	free(d->str[self]);
	d->str[self] = strdup(s);
	return d->str[self] ? OTF2_CALLBACK_SUCCESS : bad(d, "out of memory for strings");
}

static OTF2_CallbackCode def_clock(void *ud, uint64_t res, uint64_t offset, uint64_t len,
				   uint64_t realtime)
{
	((struct rd *)ud)->res = res;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
				    OTF2_StringRef canonical, OTF2_StringRef desc,
				    OTF2_RegionRole role, OTF2_Paradigm paradigm,
				    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin,
				    uint32_t end)
{
	struct rd *d = ud;

	if (paradigm != OTF2_PARADIGM_MPI || self >= (1u << 24))
		return OTF2_CALLBACK_SUCCESS; /* not MPI's (or too far out to count) */
	if (self >= d->nregion) {
		uint8_t *p = realloc(d->mpi_region, self + 1);

		if (!p)
			return bad(d, "out of memory for regions");
		memset(p + d->nregion, 0, self + 1 - d->nregion);
		d->mpi_region = p;
		d->nregion = self + 1;
	}
	d->mpi_region[self] = 1;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
				      OTF2_LocationType type, uint64_t nev,
				      OTF2_LocationGroupRef lg)
{
	struct rd *d = ud;

	if (grow(&d->loc, d->nloc, &d->cap_loc, sizeof(*d->loc)))
		return bad(d, "out of memory for locations");
	d->loc[d->nloc++] = self;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
				   OTF2_GroupType type, OTF2_Paradigm paradigm,
				   OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
	struct rd *d = ud;
	struct grp *g;

	if (grow(&d->grp, d->ngrp, &d->cap_grp, sizeof(*d->grp)))
		return bad(d, "out of memory for groups");
	g = &d->grp[d->ngrp];
	*g = (struct grp){self, n, type, paradigm == OTF2_PARADIGM_MPI, flags, NULL};
	g->m = malloc((n ? n : 1) * sizeof(uint64_t));
	if (!g->m)
		return bad(d, "out of memory for group %u", self);
	if (n)
		memcpy(g->m, members, n * sizeof(uint64_t));
	d->ngrp++;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
				  OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
	struct rd *d = ud;

	if (grow(&d->cdef, d->ncdef, &d->cap_cdef, sizeof(*d->cdef)))
		return bad(d, "out of memory for communicators");
	d->cdef[d->ncdef++] = (struct cdef){self, group, name};
	return OTF2_CALLBACK_SUCCESS;
}

static int cmp_locrank(const void *a, const void *b)
{
	uint64_t x = ((const struct locrank *)a)->loc, y = ((const struct locrank *)b)->loc;

	return x < y ? -1 : x > y;
}

static int cmp_cdef(const void *a, const void *b)
{
	uint32_t x = ((const struct cdef *)a)->id, y = ((const struct cdef *)b)->id;

	return x < y ? -1 : x > y;
}

static const struct grp *find_group(const struct rd *d, uint32_t id)
{
	for (uint32_t i = 0; i < d->ngrp; i++)
		if (d->grp[i].id == id)
			return &d->grp[i];
	return NULL;
}

/* World ranks: MPI's COMM_LOCATIONS group, else every location in definition order. */
static int make_ranks(struct rd *d)
{
	const struct grp *w = NULL;
	const uint64_t *m = d->loc;
	uint32_t n = d->nloc;

	for (uint32_t i = 0; i < d->ngrp && !w; i++)
		if (d->grp[i].mpi && d->grp[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS)
			w = &d->grp[i];
	if (w) {
		m = w->m;
		n = w->n;
	}
	if (!n)
		return bad(d, "no MPI ranks (no locations)"), -1;
	d->lr = malloc((size_t)n * sizeof(*d->lr));
	d->req = calloc(n, sizeof(*d->req));
	d->clk = calloc(n, sizeof(*d->clk));
	if (!d->lr || !d->req || !d->clk || vt_mpitrace_init(d->t, n, d->e))
		return bad(d, "out of memory for %u ranks", n), -1;
	for (uint32_t r = 0; r < n; r++)
		d->lr[r] = (struct locrank){m[r], r};
	qsort(d->lr, n, sizeof(*d->lr), cmp_locrank);
	for (uint32_t r = 1; r < n; r++)
		if (d->lr[r].loc == d->lr[r - 1].loc)
			return bad(d, "location %llu is two MPI ranks",
				   (unsigned long long)d->lr[r].loc),
			       -1;
	d->nlr = n;
	return 0;
}

/* Communicator c of the trace from definition cdef[c]. */
static int make_comm(struct rd *d, uint32_t c)
{
	const struct cdef *cd = &d->cdef[c];
	const struct grp *g = find_group(d, cd->group);
	struct vt_mpicomm *cm = &d->t->comm[c];
	const char *s = cd->name < d->nstr ? d->str[cd->name] : NULL;

	snprintf(cm->name, sizeof(cm->name), "%s", s ? s : "");
	if (!s || !*s)
		snprintf(cm->name, sizeof(cm->name), "%u", cd->id);
	/* errors quote the name: a control character (a newline) would break their one line */
	for (char *q = cm->name; *q; q++)
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			*q = '?';
	if (!g)
		return bad(d, "communicator %s: undefined group %u", cm->name, cd->group), -1;
	cm->n = 1;
	/*
	 * Score-P defines thread teams (OpenMP), CUDA streams and the like as
	 * communicators too, their members indices into their own paradigm's
	 * locations: no MPI event names them, and they are no MPI ranks.
	 */
	d->other[c] = !g->mpi;
	if (g->type == OTF2_GROUP_TYPE_COMM_SELF || d->other[c])
		return 0;
	if (g->type != OTF2_GROUP_TYPE_COMM_GROUP && g->type != OTF2_GROUP_TYPE_COMM_LOCATIONS)
		return bad(d, "communicator %s: group %u is not a communicator group", cm->name,
			   g->id),
		       -1;
	d->global[c] = g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS ||
		       (g->flags & OTF2_GROUP_FLAG_GLOBAL_MEMBERS);
	cm->n = g->n;
	cm->world = malloc((g->n ? g->n : 1) * sizeof(uint32_t));
	if (!cm->world)
		return bad(d, "out of memory for communicator %s", cm->name), -1;
	for (uint32_t i = 0; i < g->n; i++) {
		uint64_t w = g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS ? i : g->m[i];

		if (w >= d->t->nranks)
			return bad(d, "communicator %s: member %llu of %u ranks", cm->name,
				   (unsigned long long)w, d->t->nranks),
			       -1;
		cm->world[i] = (uint32_t)w;
	}
	return 0;
}

/* Ranks and communicators, once every global definition is read. */
static int resolve(struct rd *d)
{
	if (make_ranks(d))
		return -1;
	if (d->ncdef) /* a trace may define no communicator: then no NULL to qsort */
		qsort(d->cdef, d->ncdef, sizeof(*d->cdef), cmp_cdef);
	d->t->comm = calloc(d->ncdef ? d->ncdef : 1, sizeof(*d->t->comm));
	d->global = calloc(d->ncdef ? d->ncdef : 1, 1);
	d->other = calloc(d->ncdef ? d->ncdef : 1, 1);
	if (!d->t->comm || !d->global || !d->other)
		return bad(d, "out of memory for communicators"), -1;
	d->t->ncomm = d->ncdef;
	for (uint32_t c = 0; c < d->ncdef; c++)
		if (make_comm(d, c))
			return -1;
	return 0;
}

static int64_t rank_of(const struct rd *d, OTF2_LocationRef loc)
{
	struct locrank key = {loc, 0}, *p = bsearch(&key, d->lr, d->nlr, sizeof(key), cmp_locrank);

	return p ? (int64_t)p->rank : -1;
}

static int64_t comm_of(const struct rd *d, OTF2_CommRef comm)
{
	struct cdef key = {comm, 0, 0}, *p;

	if (!d->ncdef)
		return -1;
	p = bsearch(&key, d->cdef, d->ncdef, sizeof(key), cmp_cdef);
	return p ? p - d->cdef : -1;
}

/* A rank of communicator c (as events give it) as a world rank; -1 if out of range. */
static int64_t world_of(const struct rd *d, uint32_t c, uint32_t rank, uint32_t me)
{
	const struct vt_mpicomm *cm = &d->t->comm[c];

	if (!cm->world)
		return rank == 0 ? (int64_t)me : -1;
	if (d->global[c])
		return rank < d->t->nranks ? (int64_t)rank : -1;
	return rank < cm->n ? (int64_t)cm->world[rank] : -1;
}

/* The rank and communicator of an event; 0, or the callback's failure. */
static OTF2_CallbackCode where(struct rd *d, OTF2_LocationRef loc, OTF2_CommRef comm,
			       uint32_t *rank, uint32_t *c)
{
	int64_t r = rank_of(d, loc), k = comm_of(d, comm);

	if (r < 0)
		return bad(d, "location %llu has MPI events but is no MPI rank",
			   (unsigned long long)loc);
	if (k < 0)
		return bad(d, "rank %lld: undefined communicator %u", (long long)r, comm);
	if (d->other[k])
		return bad(d, "rank %lld: an MPI event on communicator %s, which is not MPI's",
			   (long long)r, d->t->comm[k].name);
	*rank = (uint32_t)r;
	*c = (uint32_t)k;
	return OTF2_CALLBACK_SUCCESS;
}

/* Time stamp ticks as picoseconds; -1 if they are 2^64 or more (no uint64_t holds them). */
static int ticks_ps(const struct rd *d, uint64_t ticks, uint64_t *ps)
{
	long double v = d->res ? (long double)ticks * 1e12L / (long double)d->res + 0.5L : 0;

	if (v >= 18446744073709551616.0L)
		return -1;
	*ps = (uint64_t)v;
	return 0;
}

/* Appends op to rank's operations with the compute gap before it. */
static OTF2_CallbackCode add(struct rd *d, uint32_t rank, const struct vt_mpiop *o)
{
	struct vt_mpiop op = *o;
	struct clk *c = &d->clk[rank];

	if (c->over || ticks_ps(d, c->gap, &op.gap_ps))
		return bad(d,
			   "rank %u: the compute before its operation %llu is 2^64 ps or more "
			   "(213 days)",
			   rank, (unsigned long long)d->t->rank[rank].n + 1);
	c->gap = 0;
	if (vt_mpitrace_add(d->t, rank, &op, d->e))
		return bad(d, "out of memory for the operations of rank %u", rank);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode p2p(struct rd *d, OTF2_LocationRef loc, enum vt_mpiop_kind kind,
			     uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
	struct vt_mpiop op = {.kind = (uint8_t)kind, .tag = tag, .bytes = len};
	uint32_t r;
	int64_t w;

	if (where(d, loc, comm, &r, &op.comm))
		return OTF2_CALLBACK_INTERRUPT;
	w = world_of(d, op.comm, peer, r);
	if (w < 0)
		return bad(d, "rank %u: %s rank %u of communicator %s, which has %u", r,
			   kind == VT_MPI_RECV ? "receive from" : "send to", peer,
			   d->t->comm[op.comm].name, d->t->comm[op.comm].n);
	op.peer = (uint32_t)w;
	return add(d, r, &op);
}

/* The clock of the rank at loc if region is an MPI call; NULL otherwise. */
static struct clk *mpi_clk(struct rd *d, OTF2_LocationRef loc, OTF2_RegionRef region)
{
	int64_t r = rank_of(d, loc);

	return r < 0 || region >= d->nregion || !d->mpi_region[region] ? NULL : &d->clk[r];
}

/* Enter and Leave of MPI calls: the time between two calls is the rank's compute. */
static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc, OTF2_TimeStamp ts, void *ud,
				  OTF2_AttributeList *al, OTF2_RegionRef region)
{
	struct clk *c = mpi_clk(ud, loc, region);

	if (c && c->depth++ == 0 && c->seen && ts > c->leave) {
		c->over |= c->gap > UINT64_MAX - (ts - c->leave); /* ticks beyond 64 bits */
		c->gap += ts - c->leave;
	}
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef loc, OTF2_TimeStamp ts, void *ud,
				  OTF2_AttributeList *al, OTF2_RegionRef region)
{
	struct clk *c = mpi_clk(ud, loc, region);

	if (c && c->depth && --c->depth == 0) {
		c->leave = ts;
		c->seen = 1;
	}
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_send(OTF2_LocationRef loc, OTF2_TimeStamp ts, void *ud,
				 OTF2_AttributeList *al, uint32_t to, OTF2_CommRef comm,
				 uint32_t tag, uint64_t len)
{
	return p2p(ud, loc, VT_MPI_SEND, to, comm, tag, len);
}

static OTF2_CallbackCode ev_recv(OTF2_LocationRef loc, OTF2_TimeStamp ts, void *ud,
				 OTF2_AttributeList *al, uint32_t from, OTF2_CommRef comm,
				 uint32_t tag, uint64_t len)
{
	return p2p(ud, loc, VT_MPI_RECV, from, comm, tag, len);
}

static OTF2_CallbackCode ev_irecv(OTF2_LocationRef loc, OTF2_TimeStamp ts, void *ud,
				  OTF2_AttributeList *al, uint32_t from, OTF2_CommRef comm,
				  uint32_t tag, uint64_t len, uint64_t req)
{
	return p2p(ud, loc, VT_MPI_RECV, from, comm, tag, len);
}

static int req_push(struct reqs *q, uint64_t id, uint64_t op)
{
	if (q->n == q->cap) {
		uint32_t nc = q->cap ? 2 * q->cap : 8;
		uint64_t *a = realloc(q->id, nc * sizeof(*a)), *b;

		if (!a)
			return -1;
		q->id = a;
		b = realloc(q->op, nc * sizeof(*b));
		if (!b)
			return -1;
		q->op = b;
		q->cap = nc;
	}
	q->id[q->n] = id;
	q->op[q->n++] = op;
	return 0;
}

static OTF2_CallbackCode ev_isend(OTF2_LocationRef loc, OTF2_TimeStamp ts, void *ud,
				  OTF2_AttributeList *al, uint32_t to, OTF2_CommRef comm,
				  uint32_t tag, uint64_t len, uint64_t req)
{
	struct rd *d = ud;
	OTF2_CallbackCode rc = p2p(d, loc, VT_MPI_ISEND, to, comm, tag, len);
	uint32_t r = (uint32_t)rank_of(d, loc);
	struct reqs *q = &d->req[r];

	if (rc != OTF2_CALLBACK_SUCCESS)
		return rc;
	if (req_push(q, req, d->t->rank[r].n - 1))
		return bad(d, "out of memory for requests");
	return OTF2_CALLBACK_SUCCESS;
}

/* The wait for an isend: the latest open isend of that request (one before the trace: none). */
static OTF2_CallbackCode ev_isend_done(OTF2_LocationRef loc, OTF2_TimeStamp ts, void *ud,
				       OTF2_AttributeList *al, uint64_t req)
{
	struct rd *d = ud;
	int64_t r = rank_of(d, loc);
	struct reqs *q;

	if (r < 0)
		return bad(d, "location %llu has MPI events but is no MPI rank",
			   (unsigned long long)loc);
	q = &d->req[r];
	for (uint32_t i = q->n; i-- > 0;)
		if (q->id[i] == req) {
			struct vt_mpiop op = {.kind = VT_MPI_ISEND_DONE, .isend = q->op[i]};

			q->id[i] = q->id[q->n - 1];
			q->op[i] = q->op[--q->n];
			return add(d, (uint32_t)r, &op);
		}
	return OTF2_CALLBACK_SUCCESS;
}

static const char *const otf2_coll_names[] = {"barrier",
					      "bcast",
					      "gather",
					      "gatherv",
					      "scatter",
					      "scatterv",
					      "allgather",
					      "allgatherv",
					      "alltoall",
					      "alltoallv",
					      "alltoallw",
					      "allreduce",
					      "reduce",
					      "reduce_scatter",
					      "scan",
					      "exscan",
					      "reduce_scatter_block",
					      "create_handle",
					      "destroy_handle",
					      "allocate",
					      "deallocate",
					      "create_handle_and_allocate",
					      "destroy_handle_and_deallocate"};

/* OTF2's collective operation as ours; -1 where not replayed. */
static int coll_of(OTF2_CollectiveOp op)
{
	switch (op) {
	case OTF2_COLLECTIVE_OP_BARRIER:
		return VT_MPICOLL_BARRIER;
	case OTF2_COLLECTIVE_OP_BCAST:
		return VT_MPICOLL_BCAST;
	case OTF2_COLLECTIVE_OP_GATHER:
		return VT_MPICOLL_GATHER;
	case OTF2_COLLECTIVE_OP_SCATTER:
		return VT_MPICOLL_SCATTER;
	case OTF2_COLLECTIVE_OP_ALLGATHER:
		return VT_MPICOLL_ALLGATHER;
	case OTF2_COLLECTIVE_OP_ALLTOALL:
		return VT_MPICOLL_ALLTOALL;
	case OTF2_COLLECTIVE_OP_ALLREDUCE:
		return VT_MPICOLL_ALLREDUCE;
	case OTF2_COLLECTIVE_OP_REDUCE:
		return VT_MPICOLL_REDUCE;
	case OTF2_COLLECTIVE_OP_GATHERV:
		return VT_MPICOLL_GATHERV;
	case OTF2_COLLECTIVE_OP_SCATTERV:
		return VT_MPICOLL_SCATTERV;
	case OTF2_COLLECTIVE_OP_ALLGATHERV:
		return VT_MPICOLL_ALLGATHERV;
	case OTF2_COLLECTIVE_OP_ALLTOALLV:
		return VT_MPICOLL_ALLTOALLV;
	default:
		return -1;
	}
}

static OTF2_CallbackCode ev_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp ts, void *ud,
				     OTF2_AttributeList *al, OTF2_CollectiveOp cop,
				     OTF2_CommRef comm, uint32_t root, uint64_t sent,
				     uint64_t recvd)
{
	struct rd *d = ud;
	struct vt_mpiop op = {.kind = VT_MPI_COLL, .bytes = sent, .recvd = recvd};
	int k = coll_of(cop);
	uint32_t r;
	int rooted = k >= 0 && vt_mpicoll_rooted((enum vt_mpicoll)k);

	if (where(d, loc, comm, &r, &op.comm))
		return OTF2_CALLBACK_INTERRUPT;
	/*
	 * Communicator and window creation and freeing (MPI_Comm_split,
	 * MPI_Cart_create, MPI_Comm_free, MPI_Win_create...): Score-P records
	 * them as collectives of no bytes; they move no data, so none is replayed.
	 */
	if (cop >= OTF2_COLLECTIVE_OP_CREATE_HANDLE &&
	    cop <= OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE && !sent && !recvd)
		return OTF2_CALLBACK_SUCCESS;
	if (k < 0)
		return bad(d, "rank %u: collective %s is not replayed", r,
			   cop < sizeof(otf2_coll_names) / sizeof(otf2_coll_names[0])
				   ? otf2_coll_names[cop]
				   : "(unknown)");
	op.coll = (uint8_t)k;
	op.root = VT_MPI_NOROOT;
	if (rooted) {
		const struct vt_mpicomm *cm = &d->t->comm[op.comm];
		int64_t w = world_of(d, op.comm, root, r);

		/* the root as a member index: events of GLOBAL_MEMBERS groups give world ranks */
		op.root = d->global[op.comm] ? VT_MPI_NOROOT : root;
		for (uint32_t i = 0; d->global[op.comm] && cm->world && i < cm->n; i++)
			if (cm->world[i] == w)
				op.root = i;
		if (!cm->world && root == 0)
			op.root = 0;
		if (w < 0 || op.root == VT_MPI_NOROOT || op.root >= cm->n)
			return bad(d, "rank %u: %s with root %u on communicator %s of %u", r,
				   vt_mpicoll_name((enum vt_mpicoll)k), root, cm->name, cm->n);
	}
	return add(d, r, &op);
}

/* A non-blocking collective, replayed where it completes as a blocking one. */
static OTF2_CallbackCode ev_nbcoll_done(OTF2_LocationRef loc, OTF2_TimeStamp ts, void *ud,
					OTF2_AttributeList *al, OTF2_CollectiveOp cop,
					OTF2_CommRef comm, uint32_t root, uint64_t sent,
					uint64_t recvd, uint64_t req)
{
	return ev_coll_end(loc, ts, ud, al, cop, comm, root, sent, recvd);
}

static OTF2_ErrorCode silent(void *ud, const char *file, uint64_t line, const char *fn,
			     OTF2_ErrorCode code, const char *fmt, va_list va)
{
	return code;
}

/* A libotf2 failure: the file and libotf2's word for it (ours, if a callback stopped it). */
static int lib_fail(struct rd *d, OTF2_ErrorCode c, const char *what)
{
	if (!d->failed)
		vt_err_set(d->e, "%s: cannot read the %s: libotf2: %s", d->path, what,
			   OTF2_Error_GetDescription(c));
	d->failed = 1;
	return -1;
}

static int read_defs(struct rd *d, OTF2_Reader *rdr)
{
	OTF2_GlobalDefReader *gr = OTF2_Reader_GetGlobalDefReader(rdr);
	OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
	OTF2_ErrorCode c = OTF2_ERROR_MEM_ALLOC_FAILED;
	uint64_t n;

	if (gr && cb) {
		OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
		OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, def_clock);
		OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
		OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_location);
		OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, def_group);
		OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, def_comm);
		c = OTF2_Reader_RegisterGlobalDefCallbacks(rdr, gr, cb, d);
		if (c == OTF2_SUCCESS)
			c = OTF2_Reader_ReadAllGlobalDefinitions(rdr, gr, &n);
	}
	if (cb)
		OTF2_GlobalDefReaderCallbacks_Delete(cb);
	if (gr)
		OTF2_Reader_CloseGlobalDefReader(rdr, gr);
	if (c != OTF2_SUCCESS)
		return lib_fail(d, c, "global definitions");
	return resolve(d);
}

/* Every location selected, its local definitions read (their id mappings), its events opened. */
static int open_locations(struct rd *d, OTF2_Reader *rdr)
{
	OTF2_ErrorCode c = OTF2_SUCCESS;

	for (uint32_t i = 0; i < d->nloc && c == OTF2_SUCCESS; i++)
		c = OTF2_Reader_SelectLocation(rdr, d->loc[i]);
	if (c == OTF2_SUCCESS && OTF2_Reader_OpenDefFiles(rdr) == OTF2_SUCCESS) {
		for (uint32_t i = 0; i < d->nloc && c == OTF2_SUCCESS; i++) {
			OTF2_DefReader *lr = OTF2_Reader_GetDefReader(rdr, d->loc[i]);
			uint64_t n;

			if (!lr)
				continue; /* no local definitions for it */
			c = OTF2_Reader_ReadAllLocalDefinitions(rdr, lr, &n);
			OTF2_Reader_CloseDefReader(rdr, lr);
		}
		OTF2_Reader_CloseDefFiles(rdr);
	}
	if (c == OTF2_SUCCESS)
		c = OTF2_Reader_OpenEvtFiles(rdr);
	for (uint32_t i = 0; i < d->nloc && c == OTF2_SUCCESS; i++)
		if (!OTF2_Reader_GetEvtReader(rdr, d->loc[i]))
			c = OTF2_ERROR_FILE_INTERACTION;
	return c == OTF2_SUCCESS ? 0 : lib_fail(d, c, "local definitions");
}

static int read_events(struct rd *d, OTF2_Reader *rdr)
{
	OTF2_GlobalEvtReader *gr = OTF2_Reader_GetGlobalEvtReader(rdr);
	OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New();
	OTF2_ErrorCode c = OTF2_ERROR_MEM_ALLOC_FAILED;
	uint64_t n;

	if (gr && cb) {
		OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
		OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
		OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
		OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
		OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, ev_isend_done);
		OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
		OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
		OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll_end);
		OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(
			cb, ev_nbcoll_done);
		c = OTF2_Reader_RegisterGlobalEvtCallbacks(rdr, gr, cb, d);
		if (c == OTF2_SUCCESS)
			c = OTF2_Reader_ReadAllGlobalEvents(rdr, gr, &n);
	}
	if (cb)
		OTF2_GlobalEvtReaderCallbacks_Delete(cb);
	if (gr)
		OTF2_Reader_CloseGlobalEvtReader(rdr, gr);
	OTF2_Reader_CloseEvtFiles(rdr);
	return c == OTF2_SUCCESS ? 0 : lib_fail(d, c, "events");
}

static void rd_free(struct rd *d)
{
	for (uint32_t i = 0; i < d->nstr; i++)
		free(d->str[i]);
	for (uint32_t i = 0; i < d->ngrp; i++)
		free(d->grp[i].m);
	for (uint32_t r = 0; d->req && r < d->nlr; r++) {
		free(d->req[r].id);
		free(d->req[r].op);
	}
	free(d->str);
	free(d->loc);
	free(d->grp);
	free(d->cdef);
	free(d->global);
	free(d->other);
	free(d->lr);
	free(d->req);
	free(d->clk);
	free(d->mpi_region);
}

/* A trace without one MPI message or collective (OpenMP or CUDA alone) has nothing to replay. */
static int no_mpi(struct rd *d)
{
	for (uint32_t r = 0; r < d->t->nranks; r++)
		if (d->t->rank[r].n)
			return 0;
	return bad(d, "no MPI message or collective to replay in its %u locations", d->nloc), -1;
}

int vt_otf2_read(vt_mpitrace *t, const char *path, vt_err *e)
{
	struct rd d = {.t = t, .e = e, .path = path};
	OTF2_Reader *rdr;
	uint64_t nloc;
	OTF2_ErrorCode c;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if (vt_otf2_anchor_check(path, e))
		return -1;
	/* libotf2 prints its errors by default; ours name the file instead */
	OTF2_Error_RegisterCallback(silent, NULL);
	rdr = OTF2_Reader_Open(path);
	if (!rdr)
		return vt_err_set(e, "%s: not an OTF2 anchor file, or a damaged one", path);
	c = OTF2_Reader_SetSerialCollectiveCallbacks(rdr);
	if (c == OTF2_SUCCESS)
		c = OTF2_Reader_GetNumberOfLocations(rdr, &nloc);
	if (c != OTF2_SUCCESS)
		lib_fail(&d, c, "anchor file");
	else if (!read_defs(&d, rdr) && !open_locations(&d, rdr) && !read_events(&d, rdr))
		rc = no_mpi(&d);
	OTF2_Reader_Close(rdr);
	rd_free(&d);
	if (rc)
		vt_mpitrace_free(t);
	return rc;
}
