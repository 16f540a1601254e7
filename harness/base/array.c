/*
 * array.c - growing an array by doubling; see array.h.
 */
#include "base/array.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool mcps_array_reserve(void *items_field, size_t *cap, size_t need, size_t size, size_t min)
{
    void *items;
    memcpy(&items, items_field, sizeof items); /* any object pointer, read as void * */
    if (need <= *cap && (items || need == 0))
        return true;
    size_t n = *cap ? *cap : (min ? min : 1);
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return false;
        n *= 2;
    }
    if (size && n > SIZE_MAX / size)
        return false;
    void *bigger = realloc(items, n * size);
    if (!bigger)
        return false;
    memcpy(items_field, &bigger, sizeof bigger);
    *cap = n;
    return true;
}
