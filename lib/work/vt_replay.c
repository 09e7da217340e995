/* SPDX-License-Identifier: MIT */
/* MPI trace replay: matching receives to sends, collectives once all members are there. */
#include "work/vt_replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "work/vt_coll.h"

static const char *const coll_names[] = {"barrier",   "bcast",	  "gather",    "scatter",
					 "allgather", "alltoall", "allreduce", "reduce"};

int vt_mpicoll_rooted(enum vt_mpicoll c)
{
	return c == VT_MPICOLL_BCAST || c == VT_MPICOLL_GATHER || c == VT_MPICOLL_SCATTER ||
	       c == VT_MPICOLL_REDUCE || c == VT_MPICOLL_GATHERV || c == VT_MPICOLL_SCATTERV;
}

const char *vt_mpicoll_name(enum vt_mpicoll c)
{
	return (unsigned)c < sizeof(coll_names) / sizeof(coll_names[0]) ? coll_names[c] : "?";
}

int vt_mpitrace_init(vt_mpitrace *t, uint32_t nranks, vt_err *e)
{
	memset(t, 0, sizeof(*t));
	t->rank = calloc(nranks ? nranks : 1, sizeof(*t->rank));
	if (!t->rank)
		return vt_err_set(e, "out of memory for %u ranks", nranks);
	t->nranks = nranks;
	return 0;
}

void vt_mpitrace_free(vt_mpitrace *t)
{
	if (t->rank)
		for (uint32_t r = 0; r < t->nranks; r++)
			free(t->rank[r].v);
	for (uint32_t c = 0; t->comm && c < t->ncomm; c++)
		free(t->comm[c].world);
	free(t->rank);
	free(t->comm);
	memset(t, 0, sizeof(*t));
}

int vt_mpitrace_add(vt_mpitrace *t, uint32_t rank, const struct vt_mpiop *op, vt_err *e)
{
	struct vt_mpiops *o = &t->rank[rank];

	if (o->n == o->cap) {
		uint64_t nc = o->cap ? 2 * o->cap : 64;
		struct vt_mpiop *v = realloc(o->v, nc * sizeof(*v));

		if (!v)
			return vt_err_set(e, "out of memory for the operations of rank %u", rank);
		o->v = v;
		o->cap = nc;
	}
	o->v[o->n++] = *op;
	return 0;
}

/* A send or a receive, by the key MPI matches on, then by program order. */
struct p2p {
	uint32_t comm, src, dst, tag;
	uint64_t seq, op; /* op: index into the flat operation list */
};

struct replay {
	vt_progb *b;
	const vt_mpitrace *t;
	const uint32_t *g;
	int compute;	   /* compute steps for the gaps */
	uint64_t *off;	   /* rank r's operation i is flat operation off[r] + i */
	uint32_t *mi;	   /* per flat operation: its message (sends and receives) */
	uint64_t *cur;	   /* per rank: its next operation */
	uint32_t *arrived; /* per communicator: members waiting in a collective */
	uint32_t *ready, nready, *todo, ntodo;
	uint32_t *memb, *vsz; /* a collective's members (as b's ranks) and blocks */
	uint32_t stage0, ncoll;
};

static int cmp_key(const struct p2p *a, const struct p2p *b)
{
	if (a->comm != b->comm)
		return a->comm < b->comm ? -1 : 1;
	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	if (a->dst != b->dst)
		return a->dst < b->dst ? -1 : 1;
	if (a->tag != b->tag)
		return a->tag < b->tag ? -1 : 1;
	return 0;
}

static int cmp_p2p(const void *pa, const void *pb)
{
	const struct p2p *a = pa, *b = pb;
	int c = cmp_key(a, b);

	return c ? c : a->seq < b->seq ? -1 : a->seq > b->seq;
}

static const char *comm_name(const struct replay *x, uint32_t c)
{
	return x->t->comm[c].name;
}

/* One message per send, listed with every receive for matching. */
static int list_p2p(struct replay *x, struct p2p *sv, uint64_t *ns, struct p2p *rv, uint64_t *nr)
{
	const vt_mpitrace *t = x->t;

	*ns = *nr = 0;
	for (uint32_t r = 0; r < t->nranks; r++)
		for (uint64_t i = 0; i < t->rank[r].n; i++) {
			const struct vt_mpiop *op = &t->rank[r].v[i];
			int send = op->kind == VT_MPI_SEND || op->kind == VT_MPI_ISEND;
			struct p2p p = {op->comm, send ? r : op->peer, send ? op->peer : r, op->tag,
					i,	  x->off[r] + i};
			int64_t mi;

			if (!send && op->kind != VT_MPI_RECV)
				continue;
			if (op->comm >= t->ncomm)
				return vt_err_set(x->b->e, "rank %u: no communicator %u", r,
						  op->comm);
			if (op->peer >= t->nranks)
				return vt_err_set(x->b->e, "rank %u: %s rank %u of %u", r,
						  send ? "send to" : "receive from", op->peer,
						  t->nranks);
			if (!send) {
				rv[(*nr)++] = p;
				continue;
			}
			if (op->bytes > UINT32_MAX)
				return vt_err_set(x->b->e, "rank %u: a message of %llu bytes", r,
						  (unsigned long long)op->bytes);
			mi = vt_progb_msg(x->b, x->g[r], x->g[op->peer], (uint32_t)op->bytes,
					  x->stage0);
			if (mi < 0)
				return -1;
			x->mi[p.op] = (uint32_t)mi;
			sv[(*ns)++] = p;
		}
	return 0;
}

/* The k-th receive of a key gets the k-th send of that key. */
static int match(struct replay *x)
{
	uint64_t nops = x->off[x->t->nranks], ns, nr, i = 0, j = 0;
	struct p2p *sv = malloc((nops ? nops : 1) * sizeof(*sv));
	struct p2p *rv = malloc((nops ? nops : 1) * sizeof(*rv));
	int rc = -1;

	if (!sv || !rv) {
		vt_err_set(x->b->e, "out of memory for %llu operations", (unsigned long long)nops);
		goto out;
	}
	if (list_p2p(x, sv, &ns, rv, &nr))
		goto out;
	qsort(sv, ns, sizeof(*sv), cmp_p2p);
	qsort(rv, nr, sizeof(*rv), cmp_p2p);
	for (; j < nr; j++) {
		while (i < ns && cmp_key(&sv[i], &rv[j]) < 0)
			i++; /* a send nobody receives */
		if (i == ns || cmp_key(&sv[i], &rv[j])) {
			vt_err_set(x->b->e,
				   "rank %u: receive from rank %u, tag %u, communicator %s has "
				   "no matching send",
				   rv[j].dst, rv[j].src, rv[j].tag, comm_name(x, rv[j].comm));
			goto out;
		}
		x->mi[rv[j].op] = x->mi[sv[i++].op];
	}
	rc = 0;
out:
	free(sv);
	free(rv);
	return rc;
}

/* A compute gap as compute steps: whole nanoseconds, at most VT_STEP_MAX_MSG a step. */
static int compute(vt_progb *b, uint32_t rank, uint64_t ps)
{
	uint64_t ns = ps / 1000 + (ps % 1000 >= 500); /* rounded without wrapping near 2^64 */

	for (; ns; ns -= ns < VT_STEP_MAX_MSG ? ns : VT_STEP_MAX_MSG)
		if (vt_progb_compute(b, rank,
				     ns < VT_STEP_MAX_MSG ? (uint32_t)ns : VT_STEP_MAX_MSG))
			return -1;
	return 0;
}

/* Rank r's steps up to its next collective, where it waits for the other members. */
static int advance(struct replay *x, uint32_t r)
{
	const struct vt_mpiops *ops = &x->t->rank[r];
	vt_progb *b = x->b;
	uint32_t me = x->g[r];

	for (; x->cur[r] < ops->n; x->cur[r]++) {
		const struct vt_mpiop *op = &ops->v[x->cur[r]];
		uint32_t m = x->mi[x->off[r] + x->cur[r]];
		int rc = 0;

		if (x->compute && compute(b, me, op->gap_ps))
			return -1;
		switch (op->kind) {
		case VT_MPI_SEND:
			rc = vt_progb_step(b, me, VT_STEP_POST, m) ||
			     vt_progb_step(b, me, VT_STEP_SENT, m);
			break;
		case VT_MPI_ISEND:
			rc = vt_progb_step(b, me, VT_STEP_POST, m);
			break;
		case VT_MPI_ISEND_DONE:
			if (op->isend >= x->cur[r] || ops->v[op->isend].kind != VT_MPI_ISEND)
				return vt_err_set(b->e, "rank %u: completion of no isend", r);
			rc = vt_progb_step(b, me, VT_STEP_SENT, x->mi[x->off[r] + op->isend]);
			break;
		case VT_MPI_RECV:
			rc = vt_progb_step(b, me, VT_STEP_RECV, m);
			break;
		default:
			if (op->comm >= x->t->ncomm)
				return vt_err_set(b->e, "rank %u: no communicator %u", r, op->comm);
			if (!x->t->comm[op->comm].world)
				break; /* a self communicator: nothing travels */
			if (++x->arrived[op->comm] == x->t->comm[op->comm].n)
				x->ready[x->nready++] = op->comm;
			return 0;
		}
		if (rc)
			return -1;
	}
	return 0;
}

/* A member's block from its byte counts as Score-P records them (vt_replay.h). */
static uint64_t member_block(const struct vt_mpiop *op, uint32_t n)
{
	switch (op->coll) {
	case VT_MPICOLL_BARRIER:
		return 0;
	case VT_MPICOLL_BCAST:
	case VT_MPICOLL_SCATTER:
	case VT_MPICOLL_SCATTERV:
		return op->recvd;
	case VT_MPICOLL_GATHER:
	case VT_MPICOLL_GATHERV:
	case VT_MPICOLL_REDUCE:
		return op->bytes;
	default: /* allgather(v), alltoall(v), allreduce: to every member, itself included */
		return op->bytes / n;
	}
}

/* Collective op over x->memb: `bytes` per block, or x->vsz[i] per member (v variants). */
static int coll(struct replay *x, const struct vt_mpiop *op, uint32_t n, uint32_t bytes,
		uint32_t stage)
{
	vt_progb *b = x->b;
	const uint32_t *m = x->memb, *sz = x->vsz;

	switch (op->coll) {
	case VT_MPICOLL_BARRIER:
		return vt_coll_barrier(b, m, n, stage);
	case VT_MPICOLL_BCAST:
		return vt_coll_bcast(b, m, n, op->root, bytes, stage);
	case VT_MPICOLL_GATHER:
		return vt_coll_gather(b, m, n, op->root, bytes, stage);
	case VT_MPICOLL_SCATTER:
		return vt_coll_scatter(b, m, n, op->root, bytes, stage);
	case VT_MPICOLL_ALLGATHER:
		return vt_coll_allgather(b, m, n, bytes, stage);
	case VT_MPICOLL_ALLTOALL:
		return vt_coll_alltoall(b, m, n, bytes, stage);
	case VT_MPICOLL_ALLREDUCE:
		return vt_coll_allreduce(b, m, n, bytes, stage);
	case VT_MPICOLL_REDUCE:
		return vt_coll_reduce(b, m, n, op->root, bytes, stage);
	case VT_MPICOLL_GATHERV:
		return vt_coll_gatherv(b, m, n, op->root, sz, stage);
	case VT_MPICOLL_SCATTERV:
		return vt_coll_scatterv(b, m, n, op->root, sz, stage);
	case VT_MPICOLL_ALLGATHERV:
		return vt_coll_allgatherv(b, m, n, sz, stage);
	default:
		return vt_coll_alltoallv(b, m, n, sz, stage);
	}
}

/* Every member of communicator c waits in a collective on it: its messages, then on. */
static int expand(struct replay *x, uint32_t c)
{
	const struct vt_mpicomm *cm = &x->t->comm[c];
	const struct vt_mpiop *op0 = NULL;
	uint64_t most = 0;

	for (uint32_t i = 0; i < cm->n; i++) {
		uint32_t r = cm->world[i];
		const struct vt_mpiop *op =
			x->cur[r] < x->t->rank[r].n ? &x->t->rank[r].v[x->cur[r]] : NULL;
		uint64_t blk;

		if (!op || op->kind != VT_MPI_COLL || op->comm != c)
			return vt_err_set(
				x->b->e,
				"communicator %s: a rank outside it joined its collective "
				"where its member rank %u did not",
				cm->name, r);
		if (op0 && (op->coll != op0->coll || op->root != op0->root))
			return vt_err_set(x->b->e,
					  "communicator %s: rank %u calls %s (root %d) where rank "
					  "%u calls %s (root %d)",
					  cm->name, r, vt_mpicoll_name(op->coll), (int)op->root,
					  cm->world[0], vt_mpicoll_name(op0->coll), (int)op0->root);
		op0 = op0 ? op0 : op;
		blk = member_block(op, cm->n);
		if (blk > UINT32_MAX)
			return vt_err_set(
				x->b->e, "%s on communicator %s: rank %u's blocks of %llu bytes",
				vt_mpicoll_name(op->coll), cm->name, r, (unsigned long long)blk);
		most = blk > most ? blk : most; /* where members' counts differ: the largest */
		x->vsz[i] = (uint32_t)blk;
		x->memb[i] = x->g[r];
	}
	if (op0->root != VT_MPI_NOROOT && op0->root >= cm->n)
		return vt_err_set(x->b->e, "%s on communicator %s: root %u of %u members",
				  vt_mpicoll_name(op0->coll), cm->name, op0->root, cm->n);
	if (coll(x, op0, cm->n, (uint32_t)most, x->stage0 + 1 + x->ncoll++))
		return -1;
	x->arrived[c] = 0;
	for (uint32_t i = 0; i < cm->n; i++) {
		x->cur[cm->world[i]]++;
		x->todo[x->ntodo++] = cm->world[i];
	}
	return 0;
}

/* Every rank on until all have run out of operations; a rank left waiting is an error. */
static int run(struct replay *x)
{
	const vt_mpitrace *t = x->t;

	for (uint32_t r = t->nranks; r-- > 0;)
		x->todo[x->ntodo++] = r;
	while (x->ntodo || x->nready) {
		while (x->ntodo)
			if (advance(x, x->todo[--x->ntodo]))
				return -1;
		if (x->nready && expand(x, x->ready[--x->nready]))
			return -1;
	}
	for (uint32_t r = 0; r < t->nranks; r++)
		if (x->cur[r] < t->rank[r].n) {
			const struct vt_mpiop *op = &t->rank[r].v[x->cur[r]];
			const struct vt_mpicomm *cm = &t->comm[op->comm];

			return vt_err_set(x->b->e,
					  "rank %u waits in %s on communicator %s, where %u of "
					  "its %u members arrive",
					  r, vt_mpicoll_name(op->coll), cm->name,
					  x->arrived[op->comm], cm->n);
		}
	return 0;
}

static int setup(struct replay *x)
{
	const vt_mpitrace *t = x->t;
	uint32_t nr = t->nranks ? t->nranks : 1, nc = t->ncomm ? t->ncomm : 1;

	x->off = malloc(((size_t)t->nranks + 1) * sizeof(*x->off));
	x->cur = calloc(nr, sizeof(*x->cur));
	x->arrived = calloc(nc, sizeof(*x->arrived));
	x->ready = malloc(nc * sizeof(*x->ready));
	x->todo = malloc(nr * sizeof(*x->todo));
	x->memb = malloc(nr * sizeof(*x->memb));
	x->vsz = malloc(nr * sizeof(*x->vsz));
	if (!x->off || !x->cur || !x->arrived || !x->ready || !x->todo || !x->memb || !x->vsz)
		return vt_err_set(x->b->e, "out of memory for a trace of %u ranks", t->nranks);
	x->off[0] = 0;
	for (uint32_t r = 0; r < t->nranks; r++)
		x->off[r + 1] = x->off[r] + t->rank[r].n;
	for (uint32_t c = 0; c < t->ncomm; c++) {
		const struct vt_mpicomm *cm = &t->comm[c];

		if (cm->n > t->nranks || (!cm->world && cm->n != 1))
			return vt_err_set(x->b->e, "communicator %s: %u members of %u ranks",
					  cm->name, cm->n, t->nranks);
		for (uint32_t i = 0; cm->world && i < cm->n; i++)
			if (cm->world[i] >= t->nranks)
				return vt_err_set(x->b->e, "communicator %s: member rank %u of %u",
						  cm->name, cm->world[i], t->nranks);
	}
	x->mi = malloc((x->off[t->nranks] ? x->off[t->nranks] : 1) * sizeof(*x->mi));
	if (!x->mi)
		return vt_err_set(x->b->e, "out of memory for %llu operations",
				  (unsigned long long)x->off[t->nranks]);
	return 0;
}

int vt_replay_build(vt_progb *b, const vt_mpitrace *t, const uint32_t *g, int compute)
{
	struct replay x = {.b = b, .t = t, .g = g, .compute = compute, .stage0 = b->w->nstages};
	int rc = b->failed ? -1 : 0;

	if (!rc)
		rc = setup(&x) || match(&x) || run(&x) ? -1 : 0;
	if (rc)
		b->failed = 1;
	free(x.off);
	free(x.mi);
	free(x.cur);
	free(x.arrived);
	free(x.ready);
	free(x.todo);
	free(x.memb);
	free(x.vsz);
	return rc;
}

int vt_replay_reps(vt_progb *b, const vt_mpitrace *t, const uint32_t *g, unsigned reps, int compute,
		   const char *src)
{
	for (unsigned k = 0; k < reps; k++)
		if (vt_replay_build(b, t, g, compute)) {
			char msg[VT_ERR_MAX];

			snprintf(msg, sizeof(msg), "%s", b->e->msg);
			return vt_err_set(b->e, "%s: %s", src, msg);
		}
	return 0;
}
