/*
 * ddmin.h - delta debugging (Zeller and Hildebrandt 2002) over a set of
 * items: the smallest subset it can find on which test still fails.
 */
#ifndef MCPS_LIVE_DDMIN_H
#define MCPS_LIVE_DDMIN_H

#include <stdbool.h>
#include <stddef.h>

/* True when the items marked in keep (n of them in all) still make the failure happen. */
typedef bool (*mcps_live_ddmin_test)(void *ctx, const bool *keep, size_t n);

/*
 * Shrink keep (n flags, the ones set are the failing input) to a 1-minimal
 * subset, running test at most max_tests times. Returns the tests run.
 */
size_t mcps_live_ddmin(bool *keep, size_t n, mcps_live_ddmin_test test, void *ctx,
                       size_t max_tests);

#endif
