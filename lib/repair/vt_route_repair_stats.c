/* SPDX-License-Identifier: MIT */
/*
 * The repair's figures (vt_route_repair_stats.h): what a set of tables changes
 * against the previous sweep's, what no repair can keep, whether the fabric
 * gained something (a heal), and the tree levels the turns are judged by.
 */
#include "repair/vt_route_repair_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repair/vt_route_forced.h"
#include "tree/vt_tree.h"

#define BLOCK 64u /* LIDs per LFT block, the unit OpenSM sends */

/*
 * Entries and 64-LID blocks of t that differ from prev, for the LIDs still in
 * the fabric (those that left change alike under any routing).
 */
void vt_repair_count_changes(const vt_fabric *f, const vt_lfts *prev, const vt_lfts *t,
			     uint64_t *changed, uint64_t *blocks)
{
	*changed = *blocks = 0;
	for (uint32_t s = 0; s < t->nsw; s++) {
		const uint8_t *a = vt_lft_row(prev, s), *b = vt_lft_row(t, s);

		for (uint32_t b0 = 0; b0 < t->nlid; b0 += BLOCK) {
			uint32_t n = 0, k = t->nlid - b0 < BLOCK ? t->nlid - b0 : BLOCK;

			/* most blocks of a repair are the previous ones: compared whole first */
			if (!memcmp(a + b0, b + b0, k))
				continue;
			for (uint32_t lid = b0; lid < t->nlid && lid < b0 + BLOCK; lid++)
				n += a[lid] != b[lid] && f->lid_port[lid] != VT_NONE;
			*changed += n;
			*blocks += n > 0;
		}
	}
}

/* Entries that must change: prev's port lost its link (LIDs still in the fabric). */
uint64_t vt_repair_forced_lost(const vt_fabric *f, const vt_lfts *prev)
{
	uint64_t n = 0;

	for (uint32_t s = 0; s < prev->nsw; s++) {
		const uint8_t *row = vt_lft_row(prev, s);
		uint8_t down[256]; /* per port: entries through it lost their link */

		vt_repair_ports_down(f, s, down);
		for (uint32_t lid = 1; lid < prev->nlid; lid++)
			n += down[row[lid]] && f->lid_port[lid] != VT_NONE;
	}
	return n;
}

/*
 * Did the fabric gain something since prev: a switch prev has no table for,
 * a LID the fresh tables route and prev does not, or a port the fresh tables
 * use that no previous entry of its switch used? Says which in why.
 */
int vt_repair_gained(const vt_fabric *f, const vt_lfts *prev, const vt_lfts *t, char *why,
		     size_t len)
{
	char nm[VT_NODE_NAME_MAX];

	for (uint32_t s = 0; s < t->nsw; s++) {
		const uint8_t *a = vt_lft_row(prev, s), *b = vt_lft_row(t, s);
		uint8_t used[256] = {0};
		uint32_t node = f->switches[s];
		int any = 0;

		for (uint32_t lid = 0; lid < t->nlid; lid++) {
			used[a[lid]] = 1;
			any |= a[lid] != VT_LFT_NONE;
		}
		if (!any) {
			snprintf(why, len, "switch %s has no previous table",
				 vt_node_name(f, node, nm, sizeof(nm)));
			return 1;
		}
		for (uint32_t lid = 1; lid < t->nlid; lid++) {
			/* an entry as prev's passes below: 64 LIDs the same, all pass */
			if (!(lid & 63) && t->nlid - lid >= 64 && !memcmp(a + lid, b + lid, 64)) {
				lid += 63;
				continue;
			}
			if (b[lid] == VT_LFT_NONE || (a[lid] != VT_LFT_NONE && used[b[lid]]))
				continue;
			if (a[lid] == VT_LFT_NONE)
				snprintf(why, len, "LID %u is new to switch %s", lid,
					 vt_node_name(f, node, nm, sizeof(nm)));
			else
				snprintf(why, len, "port %u of switch %s is new", b[lid],
					 vt_node_name(f, node, nm, sizeof(nm)));
			return 1;
		}
	}
	return 0;
}

/* LIDs prev routes (on any switch) that no port of f has. */
static uint32_t lids_gone(const vt_fabric *f, const vt_lfts *prev)
{
	uint32_t n = 0;

	for (uint32_t lid = 1; lid < prev->nlid; lid++) {
		int any = 0;

		if (lid <= f->max_lid && f->lid_port[lid] != VT_NONE)
			continue;
		for (uint32_t s = 0; s < prev->nsw && !any; s++)
			any = vt_lft_get(prev, s, lid) != VT_LFT_NONE;
		n += (uint32_t)any;
	}
	return n;
}

int vt_repair_foreign(const vt_fabric *f, const vt_lfts *prev, char *why, size_t len)
{
	uint32_t cas = 0, known = 0;

	for (uint32_t q = 0; q < f->nports; q++) {
		uint32_t lid = f->ports[q].lid;
		int any = 0;

		if (f->nodes[f->ports[q].node].type == VT_SWITCH || !lid || lid >= prev->nlid)
			continue;
		for (uint32_t s = 0; s < prev->nsw && !any; s++)
			any = vt_lft_get(prev, s, lid) != VT_LFT_NONE;
		cas++;
		known += any;
	}
	/* a heal that brought back most hosts: every LID prev routes is still here */
	if (!cas || 2 * known >= cas || known >= lids_gone(f, prev))
		return 0;
	snprintf(why, len, "they route %u of the fabric's %u CA LIDs", known, cas);
	return 1;
}

/*
 * Switch levels of every plane's tree, extracted without the routing's GUID
 * files (the repair sees only the tables): where root_guid_file gives other
 * levels, the turns may be judged wrongly and the audit decides alone.
 */
int vt_repair_tree_levels(const vt_fabric *f, uint8_t *level, vt_err *e)
{
	struct vt_tree_opts to = {0};
	uint32_t *plane = malloc(((size_t)f->nswitches + 1) * sizeof(*plane)), np;

	if (!plane || (np = vt_route_planes(f, plane)) == VT_NONE) {
		free(plane);
		return vt_err_nomem(e, "out of memory");
	}
	to.plane_of = np > 1 ? plane : NULL;
	memset(level, VT_TREE_OUTSIDE, f->nswitches);
	for (uint32_t p = 0; p < (np ? np : 1); p++) {
		vt_tree t;

		to.plane = p;
		if (vt_tree_build(&t, f, &to, e)) {
			free(plane);
			return -1;
		}
		for (uint32_t s = 0; s < f->nswitches; s++)
			if (t.level[s] != VT_TREE_OUTSIDE)
				level[s] = t.level[s];
		vt_tree_free(&t);
	}
	free(plane);
	return 0;
}

int vt_repair_forced_figures(const vt_fabric *f, const vt_lfts *prev, const vt_lfts *fresh,
			     struct vt_repair_stats *st, vt_err *e)
{
	uint8_t *level;
	struct vt_forced fm;
	int rc;

	st->forced = st->forced_blocks = st->minimum_blocks = 0;
	if (st->mode == VT_REPAIR_HEALED)
		return 0;
	if (!(level = malloc((size_t)f->nswitches + 1)))
		return vt_err_nomem(e, "out of memory");
	rc = vt_repair_tree_levels(f, level, e) || vt_route_forced(f, prev, fresh, level, &fm, e)
		     ? -1
		     : 0;
	free(level);
	if (rc)
		return -1;
	st->forced = fm.forced;
	st->forced_blocks = fm.forced_blocks;
	st->minimum_blocks = fm.lost_blocks;
	return 0;
}

int vt_lfts_remap(const vt_lfts *t, const vt_fabric *from, const vt_fabric *to, vt_lfts *out,
		  vt_err *e)
{
	if (vt_lfts_init(out, to, e))
		return -1;
	for (uint32_t s = 0; s < to->nswitches; s++) {
		uint32_t node = vt_fabric_node_by_guid(from, to->nodes[to->switches[s]].guid);
		uint32_t n = t->nlid < out->nlid ? t->nlid : out->nlid;

		if (node != VT_NONE && from->nodes[node].sw != VT_NONE &&
		    from->nodes[node].sw < t->nsw)
			memcpy(vt_lft_row(out, s), vt_lft_row(t, from->nodes[node].sw), n);
	}
	return 0;
}
