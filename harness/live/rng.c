/*
 * rng.c - splitmix64 (Steele, Lea, Flood 2014): tiny, fast, and every seed,
 * 0 included, gives a full-period stream.
 */
#include "live/rng.h"

void mcps_live_rng_seed(mcps_live_rng *r, uint64_t seed)
{
    r->state = seed;
}

uint64_t mcps_live_rng_next(mcps_live_rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

size_t mcps_live_rng_below(mcps_live_rng *r, size_t n)
{
    /* The modulo bias is below 2^-40 for the small n the generator uses. */
    return n ? (size_t)(mcps_live_rng_next(r) % n) : 0;
}

bool mcps_live_rng_chance(mcps_live_rng *r, unsigned num, unsigned den)
{
    return mcps_live_rng_below(r, den) < num;
}

uint64_t mcps_live_rng_derive(uint64_t seed, uint64_t n)
{
    mcps_live_rng r = {seed ^ (n * 0xd1b54a32d192ed03ULL)};
    mcps_live_rng_next(&r);
    return mcps_live_rng_next(&r);
}
