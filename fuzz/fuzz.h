/*
 * fuzz.h - what every mcpspec fuzz target provides and shares.
 *
 * A target is one file defining LLVMFuzzerTestOneInput (the libFuzzer entry,
 * also driven by AFL++ and the plain replay driver) and fuzz_seed_wellformed,
 * which says whether an input is in the target's format at all (right prefix,
 * parseable body, within max_len). Only the seed test calls the latter: a seed
 * the target throws away before reaching the code under test wastes the
 * corpus silently, so the test fails on it instead.
 */
#ifndef MCPS_FUZZ_FUZZ_H
#define MCPS_FUZZ_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * True when data is an input this target can use; on false, *why says what is
 * wrong. Every corpus file must reach the code under test; handwritten seeds
 * (files named seed-*) must also follow the format's readable conventions
 * (header line, header bytes), which fuzzer-found inputs need not.
 */
bool fuzz_seed_wellformed(const uint8_t *data, size_t size, bool handwritten, const char **why);

/* A broken invariant: say which and where, then abort so every engine records a crash. */
#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#endif
