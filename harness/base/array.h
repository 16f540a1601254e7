/*
 * array.h - growing a caller's array by doubling: the one copy of the
 * realloc-and-double step that buffers, inboxes, logs and tables all need,
 * with the size overflow checked once.
 */
#ifndef MCPS_BASE_ARRAY_H
#define MCPS_BASE_ARRAY_H

#include <stddef.h>

/*
 * Make room for need elements of size bytes in items, which holds *cap: when
 * *cap < need, double it (from min when 0) until it fits and realloc. Returns
 * the array to use from now on, or NULL when memory or size_t ran out; then
 * items and *cap are untouched and still the caller's.
 */
void *mcps_array_grow(void *items, size_t *cap, size_t need, size_t size, size_t min);

#endif
