/*
 * rng.c - the live fuzzer's choices over splitmix64 (mcps_schema_prng: every
 * seed, 0 included, gives a full-period stream).
 */
#include "live/rng.h"

void mcps_live_rng_seed(mcps_live_rng *r, uint64_t seed)
{
    mcps_schema_prng_seed(r, seed);
}

uint64_t mcps_live_rng_next(mcps_live_rng *r)
{
    return mcps_schema_prng_next(r);
}

size_t mcps_live_rng_below(mcps_live_rng *r, size_t n)
{
    /* Modulo, not the schema generator's rejection: its bias is below 2^-40 for the small n
     * used here, and the seeded streams (and the stated times to find) stay what they are. */
    return n ? (size_t)(mcps_schema_prng_next(r) % n) : 0;
}

bool mcps_live_rng_chance(mcps_live_rng *r, unsigned num, unsigned den)
{
    return mcps_live_rng_below(r, den) < num;
}

uint64_t mcps_live_rng_derive(uint64_t seed, uint64_t n)
{
    mcps_live_rng r;
    mcps_schema_prng_seed(&r, seed ^ (n * 0xd1b54a32d192ed03ULL));
    mcps_schema_prng_next(&r);
    return mcps_schema_prng_next(&r);
}
