/* SPDX-License-Identifier: MIT */
/*
 * Topology generators: k-ary-n-trees and var-ary-n-trees (Zahavi et al.,
 * Definitions 1-2), thin- and slender-trees (Navaridas et al., Table 1),
 * pruned 3-level fat-trees (Wolfe et al.), 2-level trees with an
 * oversubscribed top, multi-rail planes and Matsuoka's clique of small
 * switches; each optionally degraded by a seeded removal of hosts, links or
 * switches.
 *
 * Spec grammar (words separated by blanks; numbers decimal):
 *   fat K,N                      k-ary-n-tree: K^N hosts, N*K^(N-1) switches of 2K ports
 *   thin K:K',N                  k:k',n-thin-tree, switches of K+K' ports
 *   slender K:K',N               k:k',n-slender-tree (K' < K, K' divides K)
 *   varary D0,D1,..:U0,U1,..[:P0,P1,..]
 *                                var-ary-n-tree, levels from the leaves up: Dr children
 *                                per level-r switch (D0 hosts per leaf), Ur parents per
 *                                level-r switch (r < n-1), Pr links per parent (port-group
 *                                width, default 1); all switches get the largest radix needed
 *   pruned RADIX,PODS            3-level fat-tree of RADIX-port switches cut to PODS of its
 *                                RADIX pods (Wolfe's pods: RADIX/2 leaves, RADIX/2 middle);
 *                                the top switches bundle the links of the missing pods
 *   oversub LEAVES,HPL,UPL,SPINES 2-level tree: HPL hosts and UPL up-links per leaf
 *   clique N                     N/2+1 switches of N ports, N/2 hosts each, fully connected
 *   gpu [PODS]                   GPU cluster (vt_gen_real.c): 3-level tree of 40-port switches,
 *                                PODS (1..8, default 4) pods of 20 nodes with 4 HCAs each,
 *                                HCA r of a node on the pod's rail-r leaf; aggregation nodes and
 *                                4 management HCAs on the top switches; HDR
 *   superpod SUS,RAILS,NODES,SPINES,CORES[,GROUPS]
 *                                split core (vt_gen_split.c), NVIDIA SuperPOD style: SUS scalable
 *                                units of RAILS rail leaves with NODES hosts each; per rail a
 *                                group of SPINES spines that every leaf of the rail reaches;
 *                                GROUPS (default SPINES) core groups of CORES tops, each
 *                                linked to its share of every rail's spines only (the core
 *                                groups share no switch below them)
 *   cores CHASSIS,LINES,SPINES,LEAVES,HOSTS
 *                                split core: CHASSIS director chassis as the core, each LINES
 *                                line and SPINES spine ASICs linked inside the chassis only;
 *                                LEAVES leaves with HOSTS hosts and HOSTS up-links dealt
 *                                round robin over the line ASICs, chassis by chassis
 *   uneven H0,H1,..:U0,U1,..:SPINES
 *                                irregular 2-level tree (vt_gen_uneven.c): leaf i with Hi hosts
 *                                (0: host-less) and Ui up-links, up-link u to spine u mod SPINES
 *                                (the first spines get more down-links); at most 64 leaves
 *   rails R <family ...>         every host has R ports, port r on plane r (R copies)
 * followed by options (also accepted as separate command-line words):
 *   hosts-per-leaf=H             populate only the first H host ports of each leaf
 *   drop-hosts=N                 remove N hosts chosen by seed
 *   drop-links=N[@LEVEL]         remove N switch-to-switch links (between LEVEL and LEVEL+1)
 *   drop-switches=N[@LEVEL]      remove N switches (default level: the top)
 *   seed=S                       seed of the removals (default 1)
 *   speed=QDR width=4            link rate written on every link (default 4xQDR)
 *   leaf-uplinks=N:U             N leaves (by seed) keep only their first U up-links
 *   slow-leaves=N[@SPEED]        N leaves (by seed) run all their links at SPEED (default DDR)
 * and the features of real fabrics (vt_gen_real.c), applied after the removals:
 *   aggregation-nodes[=0|1]      a SHArP Aggregation Node (CA, devid 0xcf09, the switch's
 *                                sysimgguid) on one extra port past each switch's ports
 *   director=MODEL[@LEVEL]       switches of levels LEVEL and LEVEL+1 (default: the top two)
 *                                become line and spine ASICs of director chassis (CS7500,
 *                                CS7510, CS7520, CS8500), one chassis per connected group
 *   director=MODEL[@LEVEL]:bypass  switches of LEVEL (default: the top) become line ASICs,
 *                                one chassis per group joined through the level below;
 *                                half as many spine ASICs added, each on every line ASIC
 *   loopbacks=N                  N cables from a free switch port to another free port of
 *                                the same switch, placed by seed
 *   hostless-leaves=N            N leaves (chosen by seed) lose every host
 *   spine-cas=N[:dual]           N storage HCAs on the top switches (free ports first, then
 *                                extra ports), single-homed or with two ports on two switches
 *   multi-pf[=0|1]               hosts as multi-PF adapters: node GUID = port GUID, GUIDs of
 *                                one adapter's PFs consecutive (ibsim cannot load these)
 */
#ifndef VT_GEN_H
#define VT_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "base/vt_err.h"
#include "model/vt_fabric.h"

#define VT_GEN_MAX_LEVELS 16
#define VT_GEN_ANY_LEVEL  UINT32_MAX

enum vt_gen_family {
	VT_GEN_FAT = 1,
	VT_GEN_THIN,
	VT_GEN_SLENDER,
	VT_GEN_VARARY,
	VT_GEN_PRUNED,
	VT_GEN_OVERSUB,
	VT_GEN_CLIQUE,
	VT_GEN_GPU,	 /* a varary plan with GPU-cluster names and features (vt_gen_real.c) */
	VT_GEN_SUPERPOD, /* split cores (vt_gen_split.c): rail spine groups, core groups */
	VT_GEN_CORES,	 /* split cores: director chassis as the core, apart */
	VT_GEN_UNEVEN,	 /* irregular 2-level trees (vt_gen_uneven.c) */
};

#define VT_GEN_UNEVEN_MAX 64 /* leaves of an uneven tree */

struct vt_gen_spec {
	enum vt_gen_family family;
	/* fat / thin / slender: k down, kp up, n levels; clique: k ports */
	unsigned k, kp, n;
	/* varary (also filled for fat and thin): per switch level, leaves = 0 */
	unsigned levels;
	unsigned down[VT_GEN_MAX_LEVELS];
	unsigned up[VT_GEN_MAX_LEVELS];
	unsigned par[VT_GEN_MAX_LEVELS];
	/* pruned */
	unsigned radix, pods;
	/* oversub */
	unsigned leaves, hpl, upl, spines;
	unsigned rails; /* 1 unless "rails R" */
	/* split cores (vt_gen_split.c), their numbers as given:
	 * superpod SUS,RAILS,NODES,SPINES,CORES,GROUPS; cores CHASSIS,LINES,SPINES,LEAVES,HOSTS */
	unsigned split[6];
	/* degrading */
	unsigned hosts_per_leaf; /* 0: every host port populated */
	unsigned drop_hosts, drop_links, drop_switches;
	uint32_t drop_link_level;   /* VT_GEN_ANY_LEVEL: any level */
	uint32_t drop_switch_level; /* VT_GEN_ANY_LEVEL: the top level */
	uint64_t seed;
	unsigned width;
	enum vt_speed speed;
	/* features of real fabrics (vt_gen_real.c) */
	unsigned aggregation;	  /* a SHArP Aggregation Node on every switch */
	char director[16];	  /* chassis model, "" for none */
	uint32_t director_level;  /* line-ASIC level, VT_GEN_ANY_LEVEL: the top two levels */
	unsigned director_bypass; /* line ASICs at director_level (default: the top), spine
				     ASICs added on them: the leaves' up-links bypass those */
	unsigned loopbacks, hostless;
	unsigned spine_cas, spine_dual;
	unsigned multi_pf;
	char text[256]; /* the spec as given, normalised; becomes the fabric's source */
	/* irregular trees (vt_gen_uneven.c): uneven's hosts and up-links per leaf (spines in
	 * spines), leaf-uplinks=N:U, slow-leaves=N@SPEED */
	unsigned uneven_n;
	uint16_t uneven_h[VT_GEN_UNEVEN_MAX], uneven_u[VT_GEN_UNEVEN_MAX];
	unsigned short_leaves, short_uplinks, slow_leaves;
	enum vt_speed slow_speed;
};

struct vt_gen_stats {
	uint32_t hosts;	      /* CAs but aggregation nodes (a multi-rail host counts once) */
	uint32_t host_ports;  /* their connected ports */
	uint32_t aggregation; /* SHArP Aggregation Nodes */
	uint32_t switches;
	uint32_t links;	     /* every link, host links included (Navaridas Table 2) */
	uint32_t radix;	     /* largest switch port count */
	uint32_t radix_used; /* largest number of connected ports on one switch */
	uint32_t levels; /* switch levels: 1 + largest switch distance from a host-facing switch */
	uint32_t bisection; /* min cut (links) between the first and second half of the hosts */
	double cost;	    /* Navaridas: $150 per link + 5625/16^2 * radix^2 per switch */
	double cost_per_host;
	/*
	 * Navaridas et al. Table 2b/3b "U": the resources a job on used_hosts
	 * central hosts (leaf order, (hosts - used_hosts) / 2 left out before
	 * them) actually uses: its hosts' links, every switch with one of them
	 * below it (reached going down only), the links between used elements,
	 * and their cost. All 0 unless vt_gen_stats_used filled them.
	 */
	uint32_t used_hosts, used_switches, used_links;
	double used_cost, used_cost_per_host;
};

/* Parses a spec (with options); fills every field, defaults included. */
int vt_gen_parse(struct vt_gen_spec *s, const char *text, vt_err *e);
/* Applies one "name=value" option to a parsed spec (the command line's --name=value). */
int vt_gen_option(struct vt_gen_spec *s, const char *opt, vt_err *e);
/* Builds the fabric, finished with LIDs assigned (LMC 0). Caller frees it. */
int vt_gen_build(const struct vt_gen_spec *s, vt_fabric **out, vt_err *e);
/*
 * Counts of any finished fabric. Host halves follow the leaf order (switches in
 * record order, their CA ports in port order), which is the index order of
 * generated fabrics; the bisection is a max-flow over unit-capacity links.
 */
int vt_gen_stats(const vt_fabric *f, struct vt_gen_stats *st);
/* The used_* figures for k central hosts (1 <= k <= hosts); -1 with e set otherwise. */
int vt_gen_stats_used(const vt_fabric *f, uint32_t k, struct vt_gen_stats *st, vt_err *e);

/* ---- real-fabric features (vt_gen_real.c) */

/* What the plan knew about each node of a built fabric, for the features applied after it. */
struct vt_gen_shape {
	unsigned levels;      /* switch levels of the plan */
	unsigned hpl;	      /* host ports per leaf */
	const uint8_t *level; /* per node: switch level (CAs: 0) */
	const uint8_t *plane; /* per node: rail plane */
	const uint32_t *host; /* per node: host index, VT_NONE for switches */
};

/* Parses a family vt_gen.c does not know; 1 when it is not one of these either. */
int vt_gen_real_family(struct vt_gen_spec *s, const char *fam, const char *arg, vt_err *e);
/* Applies one option (val NULL: a flag without '='); 1 when the key is not one of these. */
int vt_gen_real_option(struct vt_gen_spec *s, const char *key, size_t klen, const char *val,
		       vt_err *e);
/* Whether a word is a flag option of a spec ("aggregation-nodes", "multi-pf"). */
int vt_gen_real_is_flag(const char *word);
/* Whether any feature is asked for (then vt_gen_build calls vt_gen_real_apply). */
int vt_gen_real_wanted(const struct vt_gen_spec *s);
/*
 * Builds a new (unfinished) fabric from a generated one with the features of
 * s: the base's switches in order (more ports, chassis names), its CAs, then
 * storage HCAs, then aggregation nodes.
 */
int vt_gen_real_apply(const struct vt_gen_spec *s, const vt_fabric *base,
		      const struct vt_gen_shape *sh, vt_fabric **out, vt_err *e);

#endif
