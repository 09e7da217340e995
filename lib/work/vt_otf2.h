/* SPDX-License-Identifier: MIT */
/*
 * OTF2 traces (Score-P's format, read with Debian's libotf2): the MPI
 * operations of every rank, for replay (vt_replay.h).
 *
 * Ranks are MPI_COMM_WORLD's: rank i is location members[i] of the MPI
 * group of type COMM_LOCATIONS; without that group every location defined
 * is a rank, in the order defined. Communicators are the MPI Comm
 * definitions: a COMM_GROUP group lists its members' world ranks (ranks in
 * events are translated through it unless the group is flagged
 * GLOBAL_MEMBERS), a COMM_SELF group is each rank alone. Events read, per
 * location in time order: MpiSend, MpiIsend, MpiIsendComplete, MpiRecv,
 * MpiIrecv (the completion of a non-blocking receive) and MpiCollectiveEnd
 * for barrier, bcast, gather(v), scatter(v), allgather(v), alltoall(v),
 * allreduce and reduce, and NonBlockingCollectiveComplete for the same (a
 * non-blocking collective replayed where it completes, as a blocking one).
 * Communicator and window creation and freeing (MPI_Comm_split,
 * MPI_Cart_create, MPI_Comm_free, MPI_Win_create...), which Score-P records
 * as collectives of no bytes, move no data and are skipped. Other
 * collectives (alltoallw, scans, reduce-scatter, handle operations with
 * bytes) are refused by name; every other event is skipped. Communicators
 * of other paradigms (Score-P's OpenMP thread teams, CUDA streams) are no MPI
 * communicators: their groups' members are not MPI ranks, and an MPI event
 * on one is refused. A trace without one MPI message or collective is
 * refused (there is nothing to replay). Enter and Leave of MPI
 * regions (paradigm MPI) give each operation its gap_ps: the time since the
 * rank left its previous MPI call, up to the call holding the operation
 * (the first call has none), at the archive's timer resolution.
 */
#ifndef VT_OTF2_H
#define VT_OTF2_H

#include "base/vt_err.h"
#include "work/vt_replay.h"

/*
 * Reads the archive of anchor file `path` (NAME.otf2) into t. Errors are one
 * line naming the file and the cause (libotf2's description of a damaged
 * or missing file, or the location and event that cannot be replayed).
 */
int vt_otf2_read(vt_mpitrace *t, const char *path, vt_err *e);
/*
 * Checks the layout of anchor file `path` before libotf2 reads it (it trusts
 * the counts and lengths there): header, chunk sizes within OTF2's limits,
 * every string terminated, as many properties as the file has room for, the
 * end mark. 0, or -1 with one line naming the file and the cause.
 */
int vt_otf2_anchor_check(const char *path, vt_err *e);

#endif
