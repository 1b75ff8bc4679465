/* rng.c — the random generator of the initial models: xoshiro256** (Blackman
 * & Vigna 2018) with its 256-bit state filled from the deck's 64-bit seed by
 * splitmix64.  Both are written out here with fixed-width unsigned arithmetic
 * only (wrap-around modulo 2^64, no floating point until the final scaling),
 * so a deck gives bit-identical bodies on every machine and compiler.
 *
 * splitmix64 (seeding): a counter z starts at the seed; for each of the four
 * state words, z += 0x9e3779b97f4a7c15 (the golden-ratio increment) and the
 * word is the mix of z:
 *     t = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
 *     t = (t ^ (t >> 27)) * 0x94d049bb133111eb
 *     word = t ^ (t >> 31)
 * The mix is a bijection of z, so four consecutive counters cannot all give
 * zero: the all-zero state (the generator's one fixed point) never occurs.
 *
 * xoshiro256** (one step, state s[0..3]):
 *     result = rotl(s[1] * 5, 7) * 9
 *     t = s[1] << 17
 *     s[2] ^= s[0];  s[3] ^= s[1];  s[1] ^= s[2];  s[0] ^= s[3];
 *     s[2] ^= t;     s[3] = rotl(s[3], 45)
 * rng_uniform keeps the top 53 bits of result and multiplies by 2^-53, which
 * is exact in double precision and lies in [0, 1). */
#include "ic/ic.h"

static uint64_t rotl64(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t splitmix64_next(uint64_t *z)
{
    uint64_t t = (*z += UINT64_C(0x9e3779b97f4a7c15));
    t = (t ^ (t >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    t = (t ^ (t >> 27)) * UINT64_C(0x94d049bb133111eb);
    return t ^ (t >> 31);
}

void rng_seed(rng *r, uint64_t seed)
{
    uint64_t z = seed;
    for (int k = 0; k < 4; k++)
        r->s[k] = splitmix64_next(&z);
}

static uint64_t xoshiro256ss_next(rng *r)
{
    uint64_t *s = r->s;
    const uint64_t result = rotl64(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

double rng_uniform(rng *r)
{
    return (double)(xoshiro256ss_next(r) >> 11) * 0x1.0p-53;
}
