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

/*
 * For targets whose input starts with two header bytes (a limit and a
 * chunking pattern) before a text stream: within max_len (named after its
 * options file), long enough for the header, and, for a handwritten seed, not
 * bare text whose first two characters would be taken for the header.
 */
static inline bool fuzz_two_byte_header_ok(const uint8_t *data, size_t size, bool handwritten,
                                           size_t max_len, const char *too_long, const char **why)
{
    if (size > max_len) {
        *why = too_long;
        return false;
    }
    if (size < 2) {
        *why = "shorter than the two header bytes (limit, chunking)";
        return false;
    }
    if (handwritten && data[0] >= 0x20 && data[0] < 0x7F && data[1] >= 0x20 && data[1] < 0x7F) {
        *why = "starts with two printable bytes: the header (limit, chunking) is missing";
        return false;
    }
    return true;
}

/* A broken invariant: say which and where, then abort so every engine records a crash. */
#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#endif
