/*
 * array.h - growing a caller's array by doubling: the one copy of the
 * realloc-and-double step that logs, inboxes, tables and parsers all need,
 * with the size overflow checked once.
 */
#ifndef MCPS_BASE_ARRAY_H
#define MCPS_BASE_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

/*
 * items_field is the address of the caller's array pointer (any element type),
 * holding *cap elements of size bytes. Make room for need of them: when *cap <
 * need, double the capacity (from min when it is 0) until it fits and realloc.
 * False when memory or size_t ran out; the array and *cap are then untouched.
 */
bool mcps_array_reserve(void *items_field, size_t *cap, size_t need, size_t size, size_t min);

#endif
