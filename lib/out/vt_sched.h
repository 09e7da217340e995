/* SPDX-License-Identifier: MIT */
/*
 * Scheduler and MPI files from the extracted tree and the host order:
 * - Slurm's topology.conf for the topology/tree plugin (topology.conf(5)):
 *   one line per switch of the tree with a host below it, leaves first and
 *   the top last: "SwitchName=NAME Nodes=HOSTLIST" for a leaf, "SwitchName=NAME
 *   Switches=HOSTLIST" above, each preceded by a comment naming the switch by
 *   description and GUID. A switch with no host below it is left out (a
 *   comment says so): slurmctld stops at a switch with neither nodes nor
 *   switches. Each host is listed once, under the leaf of its first port in
 *   the order: Slurm takes a node on one leaf only, and on a rail-optimised
 *   fabric every rail's leaves group the same hosts, so the first rail's
 *   leaves tell Slurm the locality all rails share. Host names are the first
 *   word of the NodeDesc (what `hostname` gives on most clusters, "node01
 *   HCA-1"); switch names are the first words of the switch descriptions when
 *   every one is a unique word Slurm's hostlist parser takes as it is
 *   (letters, digits, '-', '_', '.'; at most 64 characters), else
 *   "ibsw-lL-NNNN" (level L, position NNNN in the tree order). Lists are
 *   sorted in natural order and compressed as Slurm's hostlist expressions
 *   are written ("node[01-04,07]", "stage[8-12]").
 * - the host order as a plain hostfile (one host name per rank, in rank
 *   order: Open MPI follows it with --map-by seq, MPICH as it is), as an Open
 *   MPI rankfile ("rank N=host slot=S", S counting the ranks already placed
 *   on that host, so each rank gets a core of its own) and as an MPICH machine
 *   file ("host:N", N consecutive ranks on the host). Place-keepers are left
 *   out, so MPI rank N is the N-th host of the order, and each line after one
 *   says so in a comment; a comment at the top gives the launch command.
 * Host names are refused, naming the node by description and GUID, when two
 * nodes of one description would share one (unnamed hosts with a default
 * NodeDesc), when the name is "localhost", and for MPI when it has '_'.
 */
#ifndef VT_SCHED_H
#define VT_SCHED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"
#include "model/vt_order.h"
#include "tree/vt_tree.h"

enum vt_order_format {
	VT_ORDER_CA_ORDER,
	VT_ORDER_HOSTFILE,
	VT_ORDER_RANKFILE,
	VT_ORDER_MACHINEFILE
};

/* Who reads a host name: Open MPI refuses '_' in one, Slurm takes it. */
enum vt_host_use { VT_HOST_SLURM, VT_HOST_MPI };

/* "ca-order", "hostfile", "rankfile", "machinefile" -> format; -1 when unknown. */
int vt_order_format_parse(const char *s, enum vt_order_format *fmt);
/* Writes o in the given form (ca-order: vt_order_write). */
int vt_order_write_format(const vt_order *o, const vt_fabric *f, enum vt_order_format fmt, FILE *fp,
			  vt_err *e);

/*
 * The host name of a node: the first word of its description. Fails (with e
 * naming the node by description and GUID) when that word is empty or holds a
 * character that Slurm's hostlists or MPI host files cannot carry, when it is
 * "localhost", and for VT_HOST_MPI when it has '_'.
 */
int vt_host_name(const vt_fabric *f, uint32_t node, enum vt_host_use use, char *buf, size_t len,
		 vt_err *e);

/* Writes topology.conf for tree t (built on t->f). */
int vt_sched_slurm(const vt_tree *t, FILE *fp, vt_err *e);

/* Sorts host names in natural order: by prefix, then the numeric suffix's value. */
void vt_hostlist_sort(const char **names, uint32_t n);
/*
 * Appends the hostlist expression of names[0..n) (sorted by vt_hostlist_sort)
 * to buf ("a[1-3,07],b"): adjacent names that share a prefix go in one
 * bracket, and those whose numbers follow on fold into ranges that Slurm
 * expands back to the same names (lo's width, "8-12" or "08-12"). Returns -1
 * when buf is too small.
 */
int vt_hostlist_compress(const char *const *names, uint32_t n, char *buf, size_t len);

#endif
