/*
 * shrink.h - value shrinking, after ddmin has kept the messages that matter:
 * in each remaining message that is JSON, strings are emptied or halved,
 * numbers made 0, and array elements and object members dropped, one at a
 * time, each change kept only when the failure still happens. What is left
 * is the part of each message the bug needs, not the fuzzer's padding (a
 * 70 kB string where 1 kB was enough, members that play no part).
 */
#ifndef MCPS_LIVE_SHRINK_H
#define MCPS_LIVE_SHRINK_H

#include "live/live.h"

/* True when the inputs q still fail the same way. */
typedef bool (*mcps_live_shrink_test)(void *ctx, const mcps_live_seq *q);

/* Shrink the values of q's messages in place, running test at most max_tests times. Returns
 * the tests run. A message that is not JSON (a cut line, stray bytes) is left as it is. */
size_t mcps_live_shrink(mcps_live_seq *q, mcps_live_shrink_test test, void *ctx, size_t max_tests);

#endif
