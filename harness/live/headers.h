/*
 * headers.h - HTTP header corruption for `mcpspec fuzz --url` (headers.c).
 * Over Streamable HTTP an input may carry header lines that replace what the
 * session would send, leave one out, or add one it never sends. They are kept
 * as JSON object text (name: value, or null to leave the header out), the
 * shape of a suite's `--> http` step, so a finding file can say them.
 */
#ifndef MCPS_LIVE_HEADERS_H
#define MCPS_LIVE_HEADERS_H

#include "live/live.h"

#include <stdint.h>

/* Give about one input in eight of q (seeded by seed) a corrupted header. Only inputs whose
 * body is UTF-8 without NUL get one: a suite's JSON string could not hold other bytes. */
void mcps_live_headers_corrupt(mcps_live_seq *q, uint64_t seed);

#endif
