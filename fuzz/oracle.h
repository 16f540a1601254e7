/*
 * oracle.h - a second copy of the JSON codec, for the fuzz targets' own checks.
 *
 * An invariant often re-runs the codec on text derived from the input: the
 * printed form parsed back, a prefix of a rejected input, the input under a
 * tighter limit. Those runs test the same source, but their coverage is not
 * the input's: counted, it would credit the input with paths it did not take,
 * and libFuzzer would spend its per-feature bookkeeping on them (measured: a
 * third of the JSON target's time). So derived runs call this copy, compiled
 * from the same files by oracle_json.c with the sanitizers but without
 * coverage instrumentation; what the fuzzer steers by is the input alone.
 */
#ifndef MCPS_FUZZ_ORACLE_H
#define MCPS_FUZZ_ORACLE_H

#include "codec/json.h"

bool oracle_mcps_json_parse(const char *buf, size_t len, const mcps_json_limits *limits,
                            mcps_json_result *out);
char *oracle_mcps_json_print(const cJSON *item, size_t *out_len);
void oracle_mcps_json_delete(cJSON *item);

#endif
