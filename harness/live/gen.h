/*
 * gen.h - input sequences for the live fuzzer: messages built from the
 * target's own dictionary (known methods with plausible params, names, URIs
 * and cursors it listed), then mutated (mutate.h). A sequence depends only on
 * its seed and the dictionary.
 */
#ifndef MCPS_LIVE_GEN_H
#define MCPS_LIVE_GEN_H

#include "live/dict.h"
#include "live/live.h"

/* Sequence of 1..max_len inputs from seed. */
void mcps_live_gen_seq(const mcps_live_dict *d, uint64_t seed, size_t max_len, mcps_live_seq *out);

#endif
