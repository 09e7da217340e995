/* SPDX-License-Identifier: MIT */
/*
 * Shared by vt_gen.c and the plan builders of other generator files
 * (vt_gen_split.c): a plan is switch counts per level, one radix, hosts per
 * leaf on the low ports, and the switch-to-switch links.
 */
#ifndef VT_GEN_PLAN_INT_H
#define VT_GEN_PLAN_INT_H

#include "gen/vt_gen.h"

struct glink {
	uint32_t a, b; /* switch index in plan order (level-major) */
	uint8_t pa, pb;
};

struct plan {
	unsigned levels;
	uint32_t count[VT_GEN_MAX_LEVELS];
	uint32_t first[VT_GEN_MAX_LEVELS]; /* plan index of the level's first switch */
	uint32_t nsw;
	unsigned radix;
	unsigned hpl; /* host ports per leaf: ports 1..hpl */
	struct glink *links;
	uint32_t nlinks, cap;
};

/* A link from switch a's port pa to switch b's port pb (plan indices). */
int vt_gen_plan_link(struct plan *p, uint32_t a, unsigned pa, uint32_t b, unsigned pb, vt_err *e);
/* Sets counts and first indices from count[0 .. p->levels); refuses fabrics too big. */
int vt_gen_plan_levels(struct plan *p, const struct vt_gen_spec *s, const uint64_t *count,
		       uint64_t radix, vt_err *e);

/* Split cores (vt_gen_split.c): parses "superpod" and "cores"; 1 when fam is neither. */
int vt_gen_split_family(struct vt_gen_spec *s, const char *fam, const char *arg, vt_err *e);
/* The plan of a split-core family. */
int vt_gen_split_plan(struct plan *p, const struct vt_gen_spec *s, vt_err *e);

/* Irregular trees (vt_gen_uneven.c): "uneven"; 1 when fam is not it. */
int vt_gen_uneven_family(struct vt_gen_spec *s, const char *fam, const char *arg, vt_err *e);
int vt_gen_uneven_plan(struct plan *p, const struct vt_gen_spec *s, vt_err *e);
/* One option (val after '='); 1 when the key is not one of these. */
int vt_gen_uneven_option(struct vt_gen_spec *s, const char *key, size_t klen, const char *val,
			 vt_err *e);
/* Is host h (leaf h / hpl, port h % hpl + 1) beyond its leaf's count? */
int vt_gen_uneven_absent(const struct plan *p, const struct vt_gen_spec *s, uint64_t h);
/* leaf-uplinks: marks the up-links the chosen leaves lose in link (per plane * nlinks). */
int vt_gen_uneven_drops(const struct plan *p, const struct vt_gen_spec *s, uint8_t *link,
			vt_err *e);
/* slow-leaves: *slow per leaf (NULL without the option), caller frees. */
int vt_gen_uneven_slow(const struct plan *p, const struct vt_gen_spec *s, uint8_t **slow,
		       vt_err *e);

#endif
