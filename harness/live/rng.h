/*
 * rng.h - the live fuzzer's seeded choices, drawn from the project's one
 * splitmix64 stream (schema/jsonschema.h, mcps_schema_prng).
 *
 * Findings must be reproducible from a seed on any machine and libc, so the
 * fuzzer never calls rand(): every choice comes from this state, and each
 * sequence has a seed of its own derived from the run's (mcps_live_rng_derive),
 * so sequence N is the same whatever came before it.
 */
#ifndef MCPS_LIVE_RNG_H
#define MCPS_LIVE_RNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schema/jsonschema.h"

typedef mcps_schema_prng mcps_live_rng;

void mcps_live_rng_seed(mcps_live_rng *r, uint64_t seed);
uint64_t mcps_live_rng_next(mcps_live_rng *r);
/* Uniform in [0, n); 0 when n is 0. */
size_t mcps_live_rng_below(mcps_live_rng *r, size_t n);
/* True with probability num/den. */
bool mcps_live_rng_chance(mcps_live_rng *r, unsigned num, unsigned den);
/* The seed of sequence n of a run seeded with seed. */
uint64_t mcps_live_rng_derive(uint64_t seed, uint64_t n);

#endif
