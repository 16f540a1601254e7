/*
 * array.c - growing an array by doubling; see array.h.
 */
#include "base/array.h"

#include <stdint.h>
#include <stdlib.h>

void *mcps_array_grow(void *items, size_t *cap, size_t need, size_t size, size_t min)
{
    if (need <= *cap && items)
        return items;
    size_t n = *cap ? *cap : (min ? min : 1);
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return NULL;
        n *= 2;
    }
    if (size && n > SIZE_MAX / size)
        return NULL;
    void *bigger = realloc(items, n * size);
    if (!bigger)
        return NULL;
    *cap = n;
    return bigger;
}
