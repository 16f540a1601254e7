/*
 * catalog.c - lookups in the compiled-in requirement catalog; see catalog.h.
 */
#include "engine/catalog.h"

#include <stdlib.h>
#include <string.h>

extern const mcps_req mcps_catalog_rows[];
extern const unsigned long mcps_catalog_nrows;

static int compare_id(const void *key, const void *row)
{
    return strcmp((const char *)key, ((const mcps_req *)row)->id);
}

const mcps_req *mcps_catalog_find(const char *id)
{
    return bsearch(id, mcps_catalog_rows, mcps_catalog_nrows, sizeof(mcps_req), compare_id);
}

size_t mcps_catalog_count(void)
{
    return mcps_catalog_nrows;
}

const mcps_req *mcps_catalog_at(size_t i)
{
    return i < mcps_catalog_nrows ? &mcps_catalog_rows[i] : NULL;
}

const char *mcps_level_name(mcps_level level)
{
    static const char *const names[] = {"MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"};
    return level <= MCPS_LEVEL_MAY ? names[level] : "?";
}

bool mcps_level_is_hard(mcps_level level)
{
    return level == MCPS_LEVEL_MUST || level == MCPS_LEVEL_MUST_NOT;
}

bool mcps_level_is_soft(mcps_level level)
{
    return level == MCPS_LEVEL_SHOULD || level == MCPS_LEVEL_SHOULD_NOT;
}

/* Lower rank is stricter. */
static int rank(mcps_level level)
{
    return mcps_level_is_hard(level) ? 0 : mcps_level_is_soft(level) ? 1 : 2;
}

bool mcps_catalog_level_of(const char *ids, mcps_rev rev, mcps_level *out)
{
    bool found = false;
    char id[64];
    while (*ids) {
        size_t n = strcspn(ids, " ,");
        if (n && n < sizeof id) {
            memcpy(id, ids, n);
            id[n] = '\0';
            const mcps_req *r = mcps_catalog_find(id);
            if (r && (rev == MCPS_REV_NONE || mcps_rev_set_has(r->revs, rev)) &&
                (!found || rank(r->level) < rank(*out))) {
                *out = r->level;
                found = true;
            }
        }
        ids += n;
        ids += strspn(ids, " ,");
    }
    return found;
}
