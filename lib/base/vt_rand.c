/* SPDX-License-Identifier: MIT */
#include "base/vt_rand.h"

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void vt_rand_seed(vt_rand *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix(&seed);
}

uint64_t vt_rand_next(vt_rand *r)
{
	uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

uint64_t vt_rand_below(vt_rand *r, uint64_t n)
{
	uint64_t lim = -n % n, x;

	do
		x = vt_rand_next(r);
	while (x < lim);
	return x % n;
}

double vt_rand_unit(vt_rand *r)
{
	return (double)(vt_rand_next(r) >> 11) * 0x1.0p-53;
}

void vt_rand_shuffle_u32(vt_rand *r, uint32_t *a, uint32_t n)
{
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = (uint32_t)vt_rand_below(r, i), t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
}
