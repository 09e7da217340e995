/* SPDX-License-Identifier: MIT */
/*
 * Director chassis on generated trees (vartree-gen --director): which switches
 * become a chassis's line and spine ASICs, their names and sysimgguid, and
 * for a bypassed director (leaves cabled straight to every line ASIC) the
 * spine ASICs it adds.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vt_uf.h"
#include "gen/vt_gen_real_int.h"

/*
 * Directors: the switches of the level pair, one chassis per connected group.
 * Bypassed: the line level alone, grouped through its links to the level
 * below (the spine ASICs are added later).
 */
int vt_gen_director_find(struct real *r, vt_err *e)
{
	const vt_fabric *b = r->b;
	unsigned lv = r->s->director_level, by = r->s->director_bypass, lo;
	uint32_t *up, nch = 0, *cnt;

	if (lv == VT_GEN_ANY_LEVEL)
		lv = by ? 1 : r->sh->levels >= 2 ? r->sh->levels - 2 : 0;
	/* higher up, paths through the added spine ASICs are as short as over the tops */
	if (by && lv != 1)
		return vt_err_set(e,
				  "bad spec '%s': a bypassed director has its line ASICs at "
				  "level 1, cabled straight to the leaves",
				  r->s->text);
	if (by && r->sh->levels < 2)
		return vt_err_set(e,
				  "bad spec '%s': a bypassed director needs switch levels 0 and 1, "
				  "the tree has %u",
				  r->s->text, r->sh->levels);
	if (!by && lv + 1 >= r->sh->levels)
		return vt_err_set(e,
				  "bad spec '%s': a director needs switch levels %u and %u, the "
				  "tree has %u",
				  r->s->text, lv, lv + 1, r->sh->levels);
	r->line = lv;
	lo = by ? lv - 1 : lv;
	up = malloc((b->nnodes + 1) * sizeof(*up));
	if (!up)
		return vt_err_nomem(e, "out of memory");
	vt_uf_init(up, b->nnodes);
	for (uint32_t pi = 0; pi < b->nports; pi++) {
		uint32_t n = b->ports[pi].node, q = vt_peer_node(b, pi);

		if (q != VT_NONE && is_switch(r, n) && is_switch(r, q) && r->sh->level[n] == lo &&
		    r->sh->level[q] == lo + 1)
			vt_uf_union_into(up, n, q);
	}
	cnt = calloc((size_t)b->nnodes * 2 + 2, sizeof(*cnt));
	if (!cnt) {
		free(up);
		return vt_err_nomem(e, "out of memory");
	}
	/* chassis numbered by their first switch; ASICs by node order, line and spine apart */
	for (uint32_t n = 0; n < b->nnodes; n++) {
		uint32_t root;

		if (!is_switch(r, n) ||
		    (r->sh->level[n] != lv && (by || r->sh->level[n] != lv + 1)))
			continue;
		root = vt_uf_find(up, n);
		if (r->chassis[root] == VT_NONE)
			r->chassis[root] = nch++;
		r->chassis[n] = r->chassis[root];
		r->asic[n] = cnt[2 * r->chassis[n] + (r->sh->level[n] != lv)]++;
	}
	r->nchassis = nch;
	free(cnt);
	free(up);
	return 0;
}

/*
 * A bypassed director is one whose line ASICs every switch below reaches, so
 * no shortest path between them needs a spine ASIC. Checked on the tree as
 * built; removals are damage to such cabling, not another cabling, and skip it.
 */
static int check_bypass(struct real *r, const uint32_t *first, vt_err *e)
{
	const vt_fabric *b = r->b;
	uint32_t *stamp = calloc(b->nnodes + 1, sizeof(*stamp));

	if (!stamp)
		return vt_err_nomem(e, "out of memory");
	for (uint32_t n = 0; n < b->nnodes; n++) {
		uint32_t cnt = 0, c = 0, want;

		if (!is_switch(r, n) || r->sh->level[n] + 1u != r->line)
			continue;
		for (unsigned p = 1; p <= b->nodes[n].nports; p++) {
			uint32_t q = vt_peer_node(b, vt_port_index(b, n, p));

			if (q != VT_NONE && r->chassis[q] != VT_NONE && stamp[q] != n + 1) {
				stamp[q] = n + 1;
				c = r->chassis[q];
				cnt++;
			}
		}
		want = first[c + 1] - first[c];
		if (cnt && cnt != want) {
			free(stamp);
			return vt_err_set(e,
					  "bad spec '%s': a bypassed director needs every switch "
					  "below its line ASICs cabled to each of them: \"%s\" "
					  "(0x%016llx) reaches %u of %u",
					  r->s->text, b->nodes[n].desc,
					  (unsigned long long)b->nodes[n].guid, cnt, want);
		}
	}
	free(stamp);
	return 0;
}

/* Spine ASIC k of chassis c: cabled to its line ASICs in ASIC order, on their free ports. */
static int cable_spine(struct real *r, uint32_t c, uint32_t k, const uint32_t *first,
		       const uint32_t *lines, unsigned radix, vt_err *e)
{
	uint32_t nl = first[c + 1] - first[c];
	unsigned port;

	r->spines[r->nspines] = (struct spine){c, k, VT_NONE, nl > radix ? nl : radix};
	if (nl + (r->s->aggregation != 0) > VT_MAX_PORTS)
		return vt_gen_real_too_big(r, e, "spine ASICs need more than 254 ports");
	for (uint32_t i = 0; i < nl; i++) {
		if (vt_gen_real_take_port(r, lines[first[c] + i], &port, e))
			return -1;
		r->sl[r->nsl++] = (struct spine_link){r->nspines, lines[first[c] + i],
						      (uint8_t)(i + 1), (uint8_t)port};
	}
	r->nspines++;
	return 0;
}

/*
 * Bypassed directors: each chassis gets half as many spine ASICs as it has
 * line ASICs (rounded up, as a full CS7500 or CS8500 has), of the switches'
 * radix, each cabled to every line ASIC.
 */
int vt_gen_director_spines(struct real *r, vt_err *e)
{
	const vt_fabric *b = r->b;
	uint32_t nch = r->nchassis, *first = calloc(nch + 2, sizeof(*first));
	uint32_t *lines = malloc((b->nnodes + 1) * sizeof(*lines)), nsl = 0, nsp = 0;
	unsigned radix = 0;
	int rc = -1;

	if (!first || !lines)
		goto nomem;
	for (uint32_t n = 0; n < b->nnodes; n++) {
		if (is_switch(r, n) && b->nodes[n].nports > radix)
			radix = b->nodes[n].nports;
		if (r->chassis[n] != VT_NONE)
			first[r->chassis[n] + 1]++;
	}
	for (uint32_t c = 0; c < nch; c++) {
		nsp += (first[c + 1] + 1) / 2;
		nsl += (first[c + 1] + 1) / 2 * first[c + 1];
		first[c + 1] += first[c];
	}
	for (uint32_t n = 0; n < b->nnodes; n++)
		if (r->chassis[n] != VT_NONE)
			lines[first[r->chassis[n]] + r->asic[n]] = n;
	r->spines = malloc((nsp + 1) * sizeof(*r->spines));
	r->sl = malloc((nsl + 1) * sizeof(*r->sl));
	if (!r->spines || !r->sl)
		goto nomem;
	if (!r->s->drop_links && !r->s->drop_switches && check_bypass(r, first, e))
		goto out;
	for (uint32_t c = 0; c < nch; c++)
		for (uint32_t k = 0; k < (first[c + 1] - first[c] + 1) / 2; k++)
			if (cable_spine(r, c, k, first, lines, radix, e))
				goto out;
	rc = 0;
	goto out;
nomem:
	vt_err_nomem(e, "out of memory");
out:
	free(first);
	free(lines);
	return rc;
}

/* ---- the new fabric */

/* A chassis's sysimgguid and an ASIC's description, as ibnetdiscover shows a director. */
uint64_t vt_gen_director_sysguid(uint32_t c)
{
	return OUI << 40 | 7ull << 36 | vt_gen_bcd(c + 1) << 4;
}

void vt_gen_director_desc(const struct real *r, char *buf, size_t len, uint32_t c, char kind,
			  uint32_t k)
{
	char lower[16];
	size_t i;

	for (i = 0; r->s->director[i] && i + 1 < sizeof(lower); i++)
		lower[i] = (char)tolower((unsigned char)r->s->director[i]);
	lower[i] = 0;
	/* two ASICs per line or spine blade */
	snprintf(buf, len, "MF0;%s-%02u:%s/%c%02u/U%u", lower, c + 1, r->s->director, kind,
		 k / 2 + 1, k % 2 + 1);
}

/* Bypassed directors' spine ASICs, after the base's switches: 0x0002c96 CCCCC KKKK. */
int vt_gen_director_add_spines(struct real *r, vt_fabric *f, vt_err *e)
{
	char id[32], desc[64];

	for (uint32_t j = 0; j < r->nspines; j++) {
		struct spine *sp = &r->spines[j];
		uint64_t g = OUI << 40 | 6ull << 36 | vt_gen_bcd(sp->chassis + 1) << 16 |
			     vt_gen_bcd(sp->k + 1);

		snprintf(id, sizeof(id), "S-%016llx", (unsigned long long)g);
		vt_gen_director_desc(r, desc, sizeof(desc), sp->chassis, 'S', sp->k);
		if (vt_fabric_add_node(f, VT_SWITCH, sp->nports + (r->s->aggregation != 0), g, id,
				       desc, &sp->node, e))
			return -1;
		f->nodes[sp->node].sysguid = vt_gen_director_sysguid(sp->chassis);
		f->nodes[sp->node].devid = r->sw_devid;
	}
	return 0;
}

int vt_gen_director_link_spines(struct real *r, vt_fabric *f, vt_err *e)
{
	/* line ASICs keep their base indices: the base's switches come first */
	for (uint32_t i = 0; i < r->nsl; i++)
		if (vt_fabric_connect(f, r->sl[i].line, r->sl[i].lport,
				      r->spines[r->sl[i].spine].node, r->sl[i].sport, r->s->width,
				      r->s->speed, e))
			return -1;
	return 0;
}
