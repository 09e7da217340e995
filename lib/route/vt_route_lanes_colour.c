/* SPDX-License-Identifier: MIT */
/*
 * The lanes' spines as a colouring (issue 23 goal 2). On a split core a
 * lane destination climbs from every source leaf's lane line to a spine and
 * down to its own lane line (vt_route_lanes.c). Give each destination one
 * colour, a (spine, parallel link) pair that every line takes up for it and
 * the spine takes down: its flows then load one link a stage wherever two
 * destinations that meet on a line's up-links in some shift stage, or that
 * share their lane line, differ in colour. A proper colouring of that graph
 * is a shift at one flow a link. On cores 2,8,4,24,10 one exists with 15 of
 * the 16 colours (a line's 15 leaves, lane k by the destination leaf's
 * third of the ring: 3k + b / 8), and DSatur finds one where the lanes'
 * line-by-line greedy choice stalled at 2/1.77.
 *
 * Where the shift stays above the cut bound of 1, no proper colouring
 * exists (graphs as lanes_graph builds them; an exact DSatur search with
 * the colours' symmetry broken, every colour allowed to every node):
 * cores 2,10,5,24,8 (2/1.69; 10 colours, cliques of 10) has no 11-colouring
 * (63,949 search nodes on a 48-node component) and a 12-colouring;
 * cores 2,18,9,60,10 (2/1.95; 18 colours, cliques of 17) none with 18
 * (5,458,676 nodes on each chassis' 300); cores 2,16,8,36,12 (2/1.82) has a
 * clique of 27 against 16 colours. There only the lines' own choices
 * (vt_route_lanes.c) could still reach 1, and they stall at 2. With a spine
 * down no lanes plan at all reaches 1, the spines used evenly or not:
 * cores 2,8,4,24,10 --drop-switches 1 leaves that chassis' lines 12 spine
 * links under 15 leaf links, and its lane destinations turn at a line only
 * from leaves a = b mod 8 (a's lane-o line is b's), so in 186 of the 239
 * stages some line has 13 to 15 of its 15 lane destinations come down its
 * 12 spine links (2/1.85); cores 2,6,2,12,10 --drop-switches 1 the same
 * with 5 links under 10, turns from a = b mod 6 only, 100 of 119 stages
 * (2/1.66). At one flow a link, a stage that sends every leaf's hosts off
 * their leaf (k from 10 to n - 10) loads every leaf link with one flow, so
 * each line of that chassis turns 3 (5) of its flows down to a leaf: routes
 * that turn at the lines, which the lanes are not, may reach the bound.
 * Such a table is lanes at both ends all the same (cores deals, each leaf
 * as many up-links as hosts, all of them in such stages): leaf a's up-link
 * for a destination depends on its offset alone (the H-rank windows slide
 * by one, each a permutation of a's up-links), and every flow to a
 * destination comes down one line whatever its source (at each split of a
 * window between source leaves a - 1 and a, their arrival lines, each a
 * permutation of the leaf's up-links, must agree on every prefix). Only
 * a's climbs and b's arrivals need not be the same lane: flows turn where
 * they meet. On cores 2,6,2,12,10 --drop-switches 1 an annealing over both
 * (spine links left free) still put 394 to 488 flows past the damaged
 * chassis' 5 spine links a line (5,424 where both are the lane): open.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "route/vt_route_int.h"

/*
 * The repair's work (moves x nodes x colours, every clashing node scored on
 * every colour a move) past which it stops: cores 2,18,9,40,10 (400 ranks,
 * 18 colours) left DSatur 10 clashes, which 213 moves repaired; where
 * no colouring is proper (a lost spine) each move costs, and the lanes' own
 * choice goes on from the best found.
 */
#define COLOUR_MAX_WORK (1ull << 25)
/* Moves a node's old colour stays forbidden: the least, and the spread added. */
#define COLOUR_TABU	   10
#define COLOUR_TABU_SPREAD 10

struct colouring {
	uint32_t n, words, ncol;
	const uint64_t *adj;
	const uint8_t *allowed;
	uint32_t *used; /* per node * ncol + colour: neighbours so coloured */
	uint32_t *sat;	/* per node: allowed colours a neighbour took */
	uint32_t *deg;
};

/* The uncoloured node to colour next: most saturated, then most neighbours, then first. */
static uint32_t next_node(const struct colouring *c, const uint16_t *col)
{
	uint32_t best = VT_NONE;

	for (uint32_t d = 0; d < c->n; d++) {
		if (col[d] != VT_COLOUR_TODO)
			continue;
		if (best == VT_NONE || c->sat[d] > c->sat[best] ||
		    (c->sat[d] == c->sat[best] && c->deg[d] > c->deg[best]))
			best = d;
	}
	return best;
}

/* Node d's colour: the first allowed one no neighbour has, else the least taken. */
static uint16_t pick_colour(const struct colouring *c, uint32_t d)
{
	const uint32_t *u = &c->used[(size_t)d * c->ncol];
	const uint8_t *a = &c->allowed[(size_t)d * c->ncol];
	uint32_t best = VT_NONE;

	for (uint32_t k = 0; k < c->ncol; k++)
		if (a[k] && (best == VT_NONE || u[k] < u[best]))
			best = k;
	return (uint16_t)best;
}

/* Node d takes colour k (w 1) or gives it up (w -1): its neighbours' counts. */
static void take(struct colouring *c, uint32_t d, uint16_t k, int w)
{
	const uint64_t *row = &c->adj[(size_t)d * c->words];

	for (uint32_t wd = 0; wd < c->words; wd++)
		for (uint64_t m = row[wd]; m; m &= m - 1) {
			uint32_t e = wd * 64 + (uint32_t)__builtin_ctzll(m);
			uint32_t *u = &c->used[(size_t)e * c->ncol + k];

			*u = (uint32_t)((int)*u + w);
			if (c->allowed[(size_t)e * c->ncol + k] && *u == (w > 0))
				c->sat[e] = (uint32_t)((int)c->sat[e] + w);
		}
}

/* A fixed sequence (a 64-bit LCG, Knuth's MMIX constants) for the repair's ties. */
static uint32_t next_rand(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*x >> 33);
}

/*
 * The best move: a clashing node's colour that clashes least, not one the
 * node left in the last few moves unless it beats the fewest clashes seen
 * (tabu search, Hertz and de Werra 1987); ties by the sequence. 0: none.
 */
static int best_move(const struct colouring *c, const uint16_t *col, const uint32_t *tabu,
		     uint32_t it, int64_t room, uint64_t *rnd, uint32_t *bd, uint16_t *bk,
		     int64_t *bdelta)
{
	uint32_t ties = 0;

	*bdelta = INT64_MAX;
	for (uint32_t d = 0; d < c->n; d++) {
		const uint32_t *u = &c->used[(size_t)d * c->ncol];

		if (col[d] >= c->ncol || !u[col[d]])
			continue;
		for (uint32_t k = 0; k < c->ncol; k++) {
			int64_t delta = (int64_t)u[k] - u[col[d]];

			if (k == col[d] || !c->allowed[(size_t)d * c->ncol + k] ||
			    (tabu[(size_t)d * c->ncol + k] >= it && delta >= room) ||
			    delta > *bdelta)
				continue;
			ties = delta < *bdelta ? 1 : ties + 1;
			if (ties == 1 || next_rand(rnd) % ties == 0) {
				*bdelta = delta;
				*bd = d;
				*bk = (uint16_t)k;
			}
		}
	}
	return *bdelta != INT64_MAX;
}

/* DSatur's clashes repaired by tabu moves, within COLOUR_MAX_WORK; the clashes left. */
static uint32_t repair(struct colouring *c, uint16_t *col, uint32_t clash)
{
	uint64_t per = (uint64_t)c->n * c->ncol + 1, rnd = 1;
	uint64_t moves = COLOUR_MAX_WORK / per;
	uint32_t *tabu = calloc((size_t)c->n * c->ncol + 1, sizeof(*tabu)), best = clash;
	uint16_t *keep = malloc(((size_t)c->n + 1) * sizeof(*keep)), k;
	uint32_t d;
	int64_t delta;

	if (keep)
		memcpy(keep, col, (size_t)c->n * sizeof(*col));
	for (uint32_t it = 1; tabu && keep && clash && it <= moves; it++) {
		if (!best_move(c, col, tabu, it, (int64_t)best - clash, &rnd, &d, &k, &delta))
			break;
		tabu[(size_t)d * c->ncol + col[d]] =
			it + COLOUR_TABU + next_rand(&rnd) % COLOUR_TABU_SPREAD;
		take(c, d, col[d], -1);
		col[d] = k;
		take(c, d, k, 1);
		clash = (uint32_t)((int64_t)clash + delta);
		if (clash < best)
			memcpy(keep, col, (size_t)c->n * sizeof(*col));
		best = clash < best ? clash : best;
	}
	if (tabu && keep && best < clash)
		memcpy(col, keep, (size_t)c->n * sizeof(*col));
	free(tabu);
	free(keep);
	return best < clash ? best : clash;
}

/*
 * Colours the n nodes of the graph adj (n rows of words 64-bit words, a
 * bit per neighbour) with ncol colours, node d taking only colours k with
 * allowed[d * ncol + k] (a node with none stays VT_COLOUR_NONE) by DSatur
 * (Brélaz 1979); where every allowed colour is a neighbour's, the least
 * taken, then tabu moves where edges clash. Writes col[n]; returns the
 * edges whose ends share a colour, VT_NONE when out of memory.
 */
uint32_t vt_route_lanes_colour(uint32_t n, uint32_t words, const uint64_t *adj, uint32_t ncol,
			       const uint8_t *allowed, uint16_t *col)
{
	struct colouring c = {n, words, ncol, adj, allowed, NULL, NULL, NULL};
	uint32_t clash = 0, d;

	c.used = calloc((size_t)n * ncol + 1, sizeof(*c.used));
	c.sat = calloc((size_t)n + 1, sizeof(*c.sat));
	c.deg = calloc((size_t)n + 1, sizeof(*c.deg));
	if (!c.used || !c.sat || !c.deg)
		clash = VT_NONE;
	for (d = 0; clash != VT_NONE && d < n; d++) {
		uint32_t any = 0;

		for (uint32_t k = 0; k < ncol; k++)
			any |= allowed[(size_t)d * ncol + k];
		for (uint32_t w = 0; w < words; w++)
			c.deg[d] += (uint32_t)__builtin_popcountll(adj[(size_t)d * words + w]);
		col[d] = any ? VT_COLOUR_TODO : VT_COLOUR_NONE;
	}
	while (clash != VT_NONE && (d = next_node(&c, col)) != VT_NONE) {
		col[d] = pick_colour(&c, d);
		clash += c.used[(size_t)d * ncol + col[d]];
		take(&c, d, col[d], 1);
	}
	if (clash && clash != VT_NONE)
		clash = repair(&c, col, clash);
	free(c.used);
	free(c.sat);
	free(c.deg);
	return clash;
}

/* Marks the m nodes v[] pairwise adjacent in adj (rows of words 64-bit words). */
void vt_route_lanes_clique(uint64_t *adj, uint32_t words, const uint32_t *v, uint32_t m)
{
	for (uint32_t i = 0; i < m; i++)
		for (uint32_t j = 0; j < m; j++)
			if (v[i] != v[j])
				adj[(size_t)v[i] * words + v[j] / 64] |= 1ull << (v[j] % 64);
}
