/*
 * args.h - the arguments of a consented tool call, from the tool's own
 * inputSchema (tools/list): the configuration's arguments, a generated valid
 * value, a valid value with one property at its bound, or a valid value broken
 * in exactly one constraint (one past a bound, a wrong type, a required
 * property missing, ...). engine/jsonschema_gen.h makes and breaks the values;
 * the schema alone decides what is valid. Only the tool's arguments change:
 * which tool is called stays the configuration's choice.
 */
#ifndef MCPS_LIVE_ARGS_H
#define MCPS_LIVE_ARGS_H

#include "live/rng.h"

#include <cjson/cJSON.h>

typedef enum mcps_live_args_kind {
    MCPS_LIVE_ARGS_CONFIGURED, /* the configuration's own arguments */
    MCPS_LIVE_ARGS_VALID,      /* generated from the schema */
    MCPS_LIVE_ARGS_BOUNDARY,   /* valid, one property at a bound (maximum, maxLength, ...) */
    MCPS_LIVE_ARGS_INVALID,    /* valid but for one constraint */
} mcps_live_args_kind;

/*
 * Arguments of kind for a tool whose inputSchema is schema (NULL: none known,
 * the configured arguments are used); a kind the schema cannot give (nothing
 * bounded, nothing to break) falls back to a valid value, then to configured.
 * *made says which kind the result is. The caller owns the result.
 */
cJSON *mcps_live_args_make(const cJSON *schema, const cJSON *configured, mcps_live_args_kind kind,
                           mcps_live_rng *rng, mcps_live_args_kind *made);

#endif
