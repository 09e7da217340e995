/* SPDX-License-Identifier: MIT */
/*
 * A small OTF2 trace writer for the tests (libotf2's writer API): MPI events
 * of n ranks, communicator 0 being MPI_COMM_WORLD. Location ids are not the
 * ranks (rank r is location 100 + 7 r), so a reader must map them through
 * the COMM_LOCATIONS group. Collectives are written on every member with the
 * byte counts Score-P records (the self copy included). Each call is an
 * MPI region entered and left around its events (1 ns apart), after one as
 * MPI_Init; time between calls is only what otf2w_compute adds.
 */
#ifndef VT_OTF2W_H
#define VT_OTF2W_H

#include <stdint.h>

typedef struct otf2w otf2w;

/* Starts DIR/NAME.otf2 (DIR must not exist yet) for n ranks; NULL on failure. */
otf2w *otf2w_open(const char *dir, const char *name, uint32_t n);
/* A communicator of the given world ranks (its rank i is members[i]); its id. */
uint32_t otf2w_comm(otf2w *w, const uint32_t *members, uint32_t n);
/* Names the communicators other than MPI_COMM_WORLD name (default "sub"). */
void otf2w_sub_name(otf2w *w, const char *name);
/* Writes no communicator definitions at all (not even MPI_COMM_WORLD's). */
void otf2w_no_comms(otf2w *w);
/*
 * Defines an OpenMP thread team as Score-P does: a communicator (its id
 * returned) whose OPENMP-paradigm group's members index the team's threads,
 * n and n + 1 here, beyond the MPI ranks.
 */
uint32_t otf2w_omp_team(otf2w *w);
/* Rank r computes for ns nanoseconds (the time stamps' unit) before its next MPI call. */
void otf2w_compute(otf2w *w, uint32_t r, uint64_t ns);
/* The same, its group flagged GLOBAL_MEMBERS: its events give peers and roots as world ranks. */
uint32_t otf2w_comm_global(otf2w *w, const uint32_t *members, uint32_t n);
/* Point-to-point events of world rank r; peer is a rank of communicator comm. */
void otf2w_send(otf2w *w, uint32_t r, uint32_t comm, uint32_t peer, uint32_t tag, uint64_t len);
void otf2w_isend(otf2w *w, uint32_t r, uint32_t comm, uint32_t peer, uint32_t tag, uint64_t len,
		 uint64_t req);
void otf2w_isend_done(otf2w *w, uint32_t r, uint64_t req);
void otf2w_recv(otf2w *w, uint32_t r, uint32_t comm, uint32_t peer, uint32_t tag, uint64_t len);
void otf2w_irecv(otf2w *w, uint32_t r, uint32_t comm, uint32_t peer, uint32_t tag, uint64_t len,
		 uint64_t req);
/* One rank's collective event as given (root as the event has it: no checks). */
void otf2w_coll_at(otf2w *w, uint32_t r, uint32_t comm, int op, uint32_t root, uint64_t sent,
		   uint64_t recvd);
/*
 * Collective op (OTF2_COLLECTIVE_OP_*) of every member of comm, `block`
 * bytes per member and message as MPI's count x type size, root a rank of comm.
 */
void otf2w_coll(otf2w *w, uint32_t comm, int op, uint32_t root, uint64_t block);
/*
 * A v variant (GATHERV, SCATTERV, ALLGATHERV, ALLTOALLV) with member i's own
 * block[i]; an alltoallv sends block[i] to every member.
 */
void otf2w_coll_v(otf2w *w, uint32_t comm, int op, uint32_t root, const uint64_t *block);
/* A non-blocking allreduce of every member of comm: its request, then its completion. */
void otf2w_iallreduce(otf2w *w, uint32_t comm, uint64_t block, uint64_t req);
/*
 * Rank 0 computes ns0, sends len bytes to rank 1 and waits for them back;
 * rank 1 receives them, computes ns1 and sends them back.
 */
void otf2w_pingpong(otf2w *w, uint64_t ns0, uint64_t ns1, uint64_t len);
/* Writes the definitions and closes; 0 or -1. */
int otf2w_close(otf2w *w);

#endif
