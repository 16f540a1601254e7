/*
 * catalog.h - the MCP requirements mcpspec grades against, by ID.
 *
 * Rows come from ../shared/spec/requirements.json (plus a few RFC 8259 rows
 * the catalog leaves implicit, in suites/requirements-extra.json) and are
 * compiled in by scripts/sync-requirements, so a user's machine needs no
 * catalog file. A check's verdict level follows from its requirements' level.
 */
#ifndef MCPS_ENGINE_CATALOG_H
#define MCPS_ENGINE_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "codec/rev.h"

typedef enum mcps_level {
    MCPS_LEVEL_MUST,
    MCPS_LEVEL_MUST_NOT,
    MCPS_LEVEL_SHOULD,
    MCPS_LEVEL_SHOULD_NOT,
    MCPS_LEVEL_MAY,
} mcps_level;

typedef enum mcps_binds {
    MCPS_BINDS_SERVER,
    MCPS_BINDS_CLIENT,
    MCPS_BINDS_BOTH,
} mcps_binds;

typedef struct mcps_req {
    const char *id;    /* e.g. "LIFE-VER-003" */
    mcps_rev_set revs; /* revisions it applies to */
    mcps_level level;
    mcps_binds binds;
    const char *text;   /* the catalog's paraphrase */
    const char *source; /* spec page and section */
} mcps_req;

/* The row with this ID, or NULL. */
const mcps_req *mcps_catalog_find(const char *id);
size_t mcps_catalog_count(void);
const mcps_req *mcps_catalog_at(size_t i);

/* "MUST", "SHOULD NOT", ... */
const char *mcps_level_name(mcps_level level);
/* MUST and MUST NOT are hard; SHOULD and SHOULD NOT warn; MAY informs. */
bool mcps_level_is_hard(mcps_level level);
bool mcps_level_is_soft(mcps_level level);

/*
 * The strictest level among space-separated requirement IDs that apply to rev
 * (MCPS_REV_NONE: all). Unknown IDs are skipped; returns false when none is known.
 */
bool mcps_catalog_level_of(const char *ids, mcps_rev rev, mcps_level *out);

#endif
