/*
 * jsonschema_prng.c - the splitmix64 stream generators draw from; see jsonschema.h.
 */
#include "schema/jsonschema.h"

void mcps_schema_prng_seed(mcps_schema_prng *prng, uint64_t seed)
{
    prng->state = seed;
}

uint64_t mcps_schema_prng_next(mcps_schema_prng *prng)
{
    uint64_t z = (prng->state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

uint64_t mcps_schema_prng_below(mcps_schema_prng *prng, uint64_t n)
{
    if (n == 0)
        return 0;
    uint64_t limit = UINT64_MAX - UINT64_MAX % n, v; /* reject the biased tail */
    do {
        v = mcps_schema_prng_next(prng);
    } while (v >= limit);
    return v % n;
}
