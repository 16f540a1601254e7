/*
 * clock.c - monotonic milliseconds; see clock.h.
 */
#include "base/clock.h"

#include <time.h>

int64_t mcps_clock_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t mcps_clock_ms(void)
{
    return mcps_clock_us() / 1000;
}

int64_t mcps_clock_deadline(double seconds)
{
    return mcps_clock_ms() + (int64_t)(seconds * 1000.0);
}
