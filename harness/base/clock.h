/*
 * clock.h - monotonic time in milliseconds, the one time base for deadlines.
 */
#ifndef MCPS_BASE_CLOCK_H
#define MCPS_BASE_CLOCK_H

#include <stdint.h>

/* Milliseconds on CLOCK_MONOTONIC; only differences are meaningful. */
int64_t mcps_clock_ms(void);
/* Microseconds on CLOCK_MONOTONIC, for the wire log's timestamps. */
int64_t mcps_clock_us(void);
/* Deadline seconds from now, in mcps_clock_ms() units. */
int64_t mcps_clock_deadline(double seconds);

#endif
