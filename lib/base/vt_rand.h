/* SPDX-License-Identifier: MIT */
/* Seeded PRNG (xoshiro256**), so every seeded result is the same on every machine. */
#ifndef VT_RAND_H
#define VT_RAND_H

#include <stdint.h>

typedef struct vt_rand {
	uint64_t s[4];
} vt_rand;

void vt_rand_seed(vt_rand *r, uint64_t seed);
uint64_t vt_rand_next(vt_rand *r);
/* Uniform in [0, n), n > 0, without modulo bias. */
uint64_t vt_rand_below(vt_rand *r, uint64_t n);
/* Uniform in [0, 1). */
double vt_rand_unit(vt_rand *r);
/* Fisher-Yates shuffle of a uint32_t array. */
void vt_rand_shuffle_u32(vt_rand *r, uint32_t *a, uint32_t n);

#endif
