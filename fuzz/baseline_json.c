/*
 * baseline_json.c - the yardstick for fuzz_json's speed: the work cJSON's own
 * fuzzer does (parse, print, free), done by our codec, with no invariant.
 * scripts/bench-fuzz runs it beside fuzz_json on the same corpus and machine
 * and prints the ratio, so the price of fuzz_json's checks is a measured
 * figure rather than a guess. Not a fuzz target (no fuzz_ prefix, no corpus).
 */
#include "codec/json.h"

#include <stdint.h>
#include <stdlib.h>

#define JSON_MAX_LEN 4096 /* as in fuzz_json.c */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mcps_json_result r;
    if (size > JSON_MAX_LEN || !mcps_json_parse((const char *)data, size, NULL, &r))
        return 0;
    free(mcps_json_print(r.root, NULL));
    mcps_json_delete(r.root);
    return 0;
}
