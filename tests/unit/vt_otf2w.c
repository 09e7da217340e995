/* SPDX-License-Identifier: MIT */
/* The tests' OTF2 trace writer (vt_otf2w.h). */
#include "vt_otf2w.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#define MAX_COMM 16

struct otf2w {
	OTF2_Archive *a;
	uint32_t n, ncomm;
	OTF2_EvtWriter **ew;
	uint64_t *clock, *nev; /* per rank: ns, events */
	uint32_t *memb[MAX_COMM], nmemb[MAX_COMM];
	uint8_t global[MAX_COMM]; /* group flagged GLOBAL_MEMBERS: events give world ranks */
	const char *sub;	  /* string 5, the other communicators' name */
	uint32_t omp;		  /* 1 + the thread team's communicator id; 0 for none */
	int failed;
};

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cd,
				bool final)
{
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
	return 0;
}

static const OTF2_FlushCallbacks flush = {pre_flush, post_flush};

static uint64_t loc_of(uint32_t r)
{
	return 100 + 7 * (uint64_t)r;
}

static void check(otf2w *w, OTF2_ErrorCode c)
{
	if (c != OTF2_SUCCESS)
		w->failed = 1;
}

/*
 * Every event sits in an MPI call (region 0, paradigm MPI): enter() at the
 * time the last call was left, the events and leave() 1 ns apart; time
 * outside calls is only otf2w_compute's.
 */
static uint64_t now(otf2w *w, uint32_t r)
{
	w->nev[r]++;
	return ++w->clock[r];
}

static void enter(otf2w *w, uint32_t r) /* at the previous leave's time: no gap */
{
	w->nev[r]++;
	check(w, OTF2_EvtWriter_Enter(w->ew[r], NULL, w->clock[r], 0));
}

static void leave(otf2w *w, uint32_t r)
{
	check(w, OTF2_EvtWriter_Leave(w->ew[r], NULL, now(w, r), 0));
}

otf2w *otf2w_open(const char *dir, const char *name, uint32_t n)
{
	otf2w *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->n = n;
	w->ew = calloc(n, sizeof(*w->ew));
	w->clock = calloc(n, sizeof(*w->clock));
	w->nev = calloc(n, sizeof(*w->nev));
	w->a = OTF2_Archive_Open(dir, name, OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20,
				 OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!w->ew || !w->clock || !w->nev || !w->a ||
	    OTF2_Archive_SetFlushCallbacks(w->a, &flush, NULL) != OTF2_SUCCESS ||
	    OTF2_Archive_SetSerialCollectiveCallbacks(w->a) != OTF2_SUCCESS ||
	    OTF2_Archive_OpenEvtFiles(w->a) != OTF2_SUCCESS) {
		if (w->a)
			OTF2_Archive_Close(w->a);
		free(w->ew);
		free(w->clock);
		free(w->nev);
		free(w);
		return NULL;
	}
	for (uint32_t r = 0; r < n; r++) {
		w->ew[r] = OTF2_Archive_GetEvtWriter(w->a, loc_of(r));
		enter(w, r); /* as MPI_Init: compute is measured from its end */
		leave(w, r);
	}
	w->memb[0] = malloc(n * sizeof(uint32_t));
	for (uint32_t r = 0; r < n; r++)
		w->memb[0][r] = r;
	w->nmemb[0] = n;
	w->ncomm = 1;
	return w;
}

uint32_t otf2w_comm(otf2w *w, const uint32_t *members, uint32_t n)
{
	uint32_t c = w->ncomm++;

	w->memb[c] = malloc(n * sizeof(uint32_t));
	memcpy(w->memb[c], members, n * sizeof(uint32_t));
	w->nmemb[c] = n;
	return c;
}

void otf2w_sub_name(otf2w *w, const char *name)
{
	w->sub = name;
}

void otf2w_no_comms(otf2w *w)
{
	for (uint32_t c = 0; c < w->ncomm; c++)
		free(w->memb[c]);
	w->ncomm = 0;
}

uint32_t otf2w_comm_global(otf2w *w, const uint32_t *members, uint32_t n)
{
	uint32_t c = otf2w_comm(w, members, n);

	w->global[c] = 1;
	return c;
}

uint32_t otf2w_omp_team(otf2w *w)
{
	w->omp = 1 + (w->ncomm > 64 ? w->ncomm : 64);
	return w->omp - 1;
}

/* A root (a rank of comm) as the events give it. */
static uint32_t root_of(const otf2w *w, uint32_t comm, uint32_t root)
{
	return w->global[comm] ? w->memb[comm][root] : root;
}

void otf2w_compute(otf2w *w, uint32_t r, uint64_t ns)
{
	w->clock[r] += ns;
}

void otf2w_send(otf2w *w, uint32_t r, uint32_t comm, uint32_t peer, uint32_t tag, uint64_t len)
{
	enter(w, r);
	check(w, OTF2_EvtWriter_MpiSend(w->ew[r], NULL, now(w, r), peer, comm, tag, len));
	leave(w, r);
}

void otf2w_isend(otf2w *w, uint32_t r, uint32_t comm, uint32_t peer, uint32_t tag, uint64_t len,
		 uint64_t req)
{
	enter(w, r);
	check(w, OTF2_EvtWriter_MpiIsend(w->ew[r], NULL, now(w, r), peer, comm, tag, len, req));
	leave(w, r);
}

void otf2w_isend_done(otf2w *w, uint32_t r, uint64_t req)
{
	enter(w, r);
	check(w, OTF2_EvtWriter_MpiIsendComplete(w->ew[r], NULL, now(w, r), req));
	leave(w, r);
}

void otf2w_recv(otf2w *w, uint32_t r, uint32_t comm, uint32_t peer, uint32_t tag, uint64_t len)
{
	enter(w, r);
	check(w, OTF2_EvtWriter_MpiRecv(w->ew[r], NULL, now(w, r), peer, comm, tag, len));
	leave(w, r);
}

void otf2w_irecv(otf2w *w, uint32_t r, uint32_t comm, uint32_t peer, uint32_t tag, uint64_t len,
		 uint64_t req)
{
	enter(w, r);
	check(w, OTF2_EvtWriter_MpiIrecvRequest(w->ew[r], NULL, now(w, r), req));
	check(w, OTF2_EvtWriter_MpiIrecv(w->ew[r], NULL, now(w, r), peer, comm, tag, len, req));
	leave(w, r);
}

void otf2w_pingpong(otf2w *w, uint64_t ns0, uint64_t ns1, uint64_t len)
{
	otf2w_compute(w, 0, ns0);
	otf2w_send(w, 0, 0, 1, 0, len);
	otf2w_recv(w, 0, 0, 1, 0, len);
	otf2w_recv(w, 1, 0, 0, 0, len);
	otf2w_compute(w, 1, ns1);
	otf2w_send(w, 1, 0, 0, 0, len);
}

void otf2w_coll_at(otf2w *w, uint32_t r, uint32_t comm, int op, uint32_t root, uint64_t sent,
		   uint64_t recvd)
{
	enter(w, r);
	check(w, OTF2_EvtWriter_MpiCollectiveBegin(w->ew[r], NULL, now(w, r)));
	check(w, OTF2_EvtWriter_MpiCollectiveEnd(w->ew[r], NULL, now(w, r), (OTF2_CollectiveOp)op,
						 comm, root, sent, recvd));
	leave(w, r);
}

void otf2w_coll(otf2w *w, uint32_t comm, int op, uint32_t root, uint64_t block)
{
	uint32_t n = w->nmemb[comm];
	int rooted = op == OTF2_COLLECTIVE_OP_BCAST || op == OTF2_COLLECTIVE_OP_SCATTER ||
		     op == OTF2_COLLECTIVE_OP_GATHER || op == OTF2_COLLECTIVE_OP_REDUCE;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = w->memb[comm][i];
		uint64_t sent = 0, recvd = 0;

		switch (op) {
		case OTF2_COLLECTIVE_OP_BCAST:
		case OTF2_COLLECTIVE_OP_SCATTER:
			sent = i == root ? n * block : 0;
			recvd = block;
			break;
		case OTF2_COLLECTIVE_OP_GATHER:
		case OTF2_COLLECTIVE_OP_REDUCE:
			sent = block;
			recvd = i == root ? n * block : 0;
			break;
		case OTF2_COLLECTIVE_OP_BARRIER:
			break;
		default:
			sent = recvd = n * block;
			break;
		}
		otf2w_coll_at(w, r, comm, op,
			      rooted ? root_of(w, comm, root) : OTF2_COLLECTIVE_ROOT_NONE, sent,
			      recvd);
	}
}

void otf2w_coll_v(otf2w *w, uint32_t comm, int op, uint32_t root, const uint64_t *block)
{
	uint32_t n = w->nmemb[comm];
	int rooted = op == OTF2_COLLECTIVE_OP_GATHERV || op == OTF2_COLLECTIVE_OP_SCATTERV;
	uint64_t total = 0;

	for (uint32_t i = 0; i < n; i++)
		total += block[i];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = w->memb[comm][i];
		uint64_t sent, recvd;

		switch (op) {
		case OTF2_COLLECTIVE_OP_GATHERV:
			sent = block[i];
			recvd = i == root ? total : 0;
			break;
		case OTF2_COLLECTIVE_OP_SCATTERV:
			sent = i == root ? total : 0;
			recvd = block[i];
			break;
		default: /* allgatherv, alltoallv */
			sent = n * block[i];
			recvd = total;
			break;
		}
		otf2w_coll_at(w, r, comm, op,
			      rooted ? root_of(w, comm, root) : OTF2_COLLECTIVE_ROOT_NONE, sent,
			      recvd);
	}
}

void otf2w_iallreduce(otf2w *w, uint32_t comm, uint64_t block, uint64_t req)
{
	uint32_t n = w->nmemb[comm];

	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = w->memb[comm][i];

		enter(w, r);
		check(w,
		      OTF2_EvtWriter_NonBlockingCollectiveRequest(w->ew[r], NULL, now(w, r), req));
		check(w, OTF2_EvtWriter_NonBlockingCollectiveComplete(
				 w->ew[r], NULL, now(w, r), OTF2_COLLECTIVE_OP_ALLREDUCE, comm,
				 OTF2_COLLECTIVE_ROOT_NONE, n * block, n * block, req));
		leave(w, r);
	}
}

/* Strings 0 "", 1 "MPI", 2 "node", 3 "rank", 4 "MPI_COMM_WORLD", 5 "sub", 6 "MPI_Call". */
static void global_defs(otf2w *w, OTF2_GlobalDefWriter *g)
{
	static const char *const s[] = {"",    "MPI",	  "node", "rank", "MPI_COMM_WORLD",
					"sub", "MPI_Call"};
	uint64_t *m = malloc(w->n * sizeof(uint64_t)), end = 0;

	for (uint32_t r = 0; r < w->n; r++)
		end = w->clock[r] > end ? w->clock[r] : end;
	check(w, OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, end + 1, 0));
	for (uint32_t i = 0; i < 7; i++)
		check(w, OTF2_GlobalDefWriter_WriteString(g, i, i == 5 && w->sub ? w->sub : s[i]));
	check(w,
	      OTF2_GlobalDefWriter_WriteRegion(g, 0, 6, 6, 0, OTF2_REGION_ROLE_FUNCTION,
					       OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0));
	check(w, OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 2, 2,
							  OTF2_UNDEFINED_SYSTEM_TREE_NODE));
	for (uint32_t r = 0; r < w->n; r++)
		check(w, OTF2_GlobalDefWriter_WriteLocationGroup(g, r, 3,
								 OTF2_LOCATION_GROUP_TYPE_PROCESS,
								 0, OTF2_UNDEFINED_LOCATION_GROUP));
	for (uint32_t r = 0; r < w->n; r++)
		check(w, OTF2_GlobalDefWriter_WriteLocation(
				 g, loc_of(r), 3, OTF2_LOCATION_TYPE_CPU_THREAD, w->nev[r], r));
	for (uint32_t r = 0; r < w->n; r++)
		m[r] = loc_of(r);
	check(w, OTF2_GlobalDefWriter_WriteGroup(g, 0, 1, OTF2_GROUP_TYPE_COMM_LOCATIONS,
						 OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, w->n, m));
	for (uint32_t c = 0; c < w->ncomm; c++) {
		for (uint32_t i = 0; i < w->nmemb[c]; i++)
			m[i] = w->memb[c][i];
		check(w,
		      OTF2_GlobalDefWriter_WriteGroup(
			      g, 1 + c, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
			      w->global[c] ? OTF2_GROUP_FLAG_GLOBAL_MEMBERS : OTF2_GROUP_FLAG_NONE,
			      w->nmemb[c], m));
		check(w, OTF2_GlobalDefWriter_WriteComm(g, c, c ? 5 : 4, 1 + c,
							c ? 0 : OTF2_UNDEFINED_COMM,
							OTF2_COMM_FLAG_NONE));
	}
	if (w->omp) { /* the team's threads: two locations beyond the ranks' */
		uint64_t team[2] = {w->n, w->n + 1}, threads[2] = {loc_of(w->n), loc_of(w->n + 1)};

		check(w, OTF2_GlobalDefWriter_WriteGroup(g, 200, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS,
							 OTF2_PARADIGM_OPENMP, OTF2_GROUP_FLAG_NONE,
							 2, threads));
		check(w, OTF2_GlobalDefWriter_WriteGroup(g, 201, 0, OTF2_GROUP_TYPE_COMM_GROUP,
							 OTF2_PARADIGM_OPENMP, OTF2_GROUP_FLAG_NONE,
							 2, team));
		check(w, OTF2_GlobalDefWriter_WriteComm(g, w->omp - 1, 0, 201, OTF2_UNDEFINED_COMM,
							OTF2_COMM_FLAG_NONE));
	}
	free(m);
}

int otf2w_close(otf2w *w)
{
	OTF2_GlobalDefWriter *g;
	int rc;

	for (uint32_t r = 0; r < w->n; r++)
		check(w, OTF2_Archive_CloseEvtWriter(w->a, w->ew[r]));
	check(w, OTF2_Archive_CloseEvtFiles(w->a));
	check(w, OTF2_Archive_OpenDefFiles(w->a));
	for (uint32_t r = 0; r < w->n; r++)
		check(w, OTF2_Archive_CloseDefWriter(w->a,
						     OTF2_Archive_GetDefWriter(w->a, loc_of(r))));
	check(w, OTF2_Archive_CloseDefFiles(w->a));
	g = OTF2_Archive_GetGlobalDefWriter(w->a);
	if (!g)
		w->failed = 1;
	else
		global_defs(w, g);
	check(w, OTF2_Archive_Close(w->a));
	rc = w->failed ? -1 : 0;
	for (uint32_t c = 0; c < w->ncomm; c++)
		free(w->memb[c]);
	free(w->ew);
	free(w->clock);
	free(w->nev);
	free(w);
	return rc;
}
