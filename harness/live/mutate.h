/*
 * mutate.h - structure-aware mutation of one JSON-RPC message: on the tree
 * (types swapped, boundary and huge numbers, deep nesting, long strings,
 * invalid UTF-8, members dropped or added, id games, params shapes) and on its
 * text (duplicate keys, a cut line, a stray byte).
 */
#ifndef MCPS_LIVE_MUTATE_H
#define MCPS_LIVE_MUTATE_H

#include <cjson/cJSON.h>

#include "base/buf.h"
#include "live/rng.h"

/* Apply one to three tree mutations to msg. A tools/call keeps its method and tool name
 * (the configuration consented to that call, with any arguments). */
void mcps_live_mutate_tree(mcps_live_rng *r, cJSON *msg);

/* Apply one text mutation to line (one serialized message, no newline). */
void mcps_live_mutate_text(mcps_live_rng *r, mcps_buf *line);

/* A value of a random kind, for a type swap (a string from pool when one is given). */
cJSON *mcps_live_random_value(mcps_live_rng *r);

#endif
