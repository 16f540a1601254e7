/*
 * json_spots.c - looking up where a node of a parsed tree was written
 * (mcps_json_parse_spotted records it), for loaders that name file and line.
 * Lookups happen only on errors, so a scan is enough.
 */
#include "codec/json.h"

#include <stdlib.h>

bool mcps_json_spot_of(const mcps_json_spots *spots, const cJSON *node, size_t *offset)
{
    if (!spots || spots->failed || !node)
        return false;
    for (size_t i = 0; i < spots->n; i++)
        if (spots->v[i].node == node) {
            *offset = spots->v[i].offset;
            return true;
        }
    return false;
}

void mcps_json_spots_free(mcps_json_spots *spots)
{
    free(spots->v);
    *spots = (mcps_json_spots){0};
}
