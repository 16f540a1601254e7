/*
 * jsonschema_gen.h - values a JSON Schema accepts, and valid values broken in
 * exactly one way: what the suite functions fill_arguments and
 * invalid_arguments (functions.c) send to a target's tools. They live in the
 * engine, next to those users; the validator (schema/jsonschema.h) is their
 * one authority on what is valid.
 */
#ifndef MCPS_ENGINE_JSONSCHEMA_GEN_H
#define MCPS_ENGINE_JSONSCHEMA_GEN_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "schema/jsonschema.h"

/*
 * A value that validates against schema, drawn from prng; the same prng state
 * gives the same value. Best effort: NULL when no valid value was found within
 * a few attempts (unsatisfiable, or beyond what the generator understands).
 * Validity is judged with format as an assertion, so a "date" is a real date.
 * The caller owns the returned tree (cJSON_Delete).
 */
cJSON *mcps_schema_generate(const cJSON *schema, mcps_schema_prng *prng);

/* A valid instance made invalid in exactly one constraint. */
typedef struct mcps_schema_mutation {
    cJSON *instance;     /* caller owns (cJSON_Delete) */
    char *instance_path; /* where the value was changed (free) */
    char *schema_path;   /* the one keyword it now breaks (free) */
    char *description;   /* what was done, for a person (free) */
} mcps_schema_mutation;

/*
 * Copy valid and change it so that validation fails on exactly one keyword
 * (checked by validating the result, format as an assertion): a wrong type, a
 * bound overstepped, a required property removed, an extra one added, ...
 * Returns false, with *out zeroed, when valid does not validate or no such
 * change was found. The prng picks which constraint; same state, same change.
 */
bool mcps_schema_mutate(const cJSON *schema, const cJSON *valid, mcps_schema_prng *prng,
                        mcps_schema_mutation *out);

/* The same, but the result keeps valid's JSON type at the top: tool arguments
 * must stay an object, or the request breaks MCP's schema rather than the tool's. */
bool mcps_schema_mutate_inside(const cJSON *schema, const cJSON *valid, mcps_schema_prng *prng,
                               mcps_schema_mutation *out);

/* Free everything m holds and zero it. */
void mcps_schema_mutation_free(mcps_schema_mutation *m);

#endif
