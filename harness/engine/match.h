/*
 * match.h - structural matchers and templates for conversation suites.
 *
 * A suite writes the message it expects as JSON; most of it matches exactly
 * and the places where exact bytes do not fit use matchers:
 *
 *   "$any"  "$absent"  "$string"  "$number"  "$integer"  "$boolean"
 *   "$object"  "$array"  "$null"  "$nonempty"  "$regex:ERE"
 *   "$capture:NAME"  "$capture?:NAME" (member may be absent: NAME unset)
 *   "$collect:NAME"  (append the value to the array NAME)
 *   "$uri"  "$uri-template"  "$base64"  "$date-time"  "$json-schema"
 *   {"$valid-against": "${SCHEMA}"}  {"$json": P}  (a string holding JSON matching P)
 *   {"$all": [P, ...]}  {"$between": [min, max]}  {"$keys": P}  {"$values": P}
 *   {"$capture": "NAME", "$collect": "LIST", "$is": P, "$optional": true}
 * A variable may be a path into a value: ${probe.uri}, ${prompt.arguments.0.name}.
 *   {"$oneOf": [P, ...]}  {"$not": P}  {"$each": P}  {"$contains": P}
 *   {"$capture": "NAME", "$is": P}  {"$size": {"min": N, "max": M}}
 *   {"$gt": "${VAR}"}  (a number greater than VAR)
 *   {"$in": "${VAR}"}  (equal to an element of the array VAR, or of a literal array)
 *   "$$text" is the literal string "$text".
 *
 * Objects match when every listed member matches (members not listed are
 * allowed; "$closed": true forbids them); arrays match element by element.
 * Numbers compare by exact JSON text, so 1 and 1.0 differ, as ids must.
 * "${NAME}" inside a pattern or a template stands for a variable: a whole
 * string "${NAME}" is the variable's JSON value, and inside a longer string
 * its text. In a template, a member or element whose value is an unset
 * "${NAME}" is left out, which is how a first page is sent without a cursor.
 */
#ifndef MCPS_ENGINE_MATCH_H
#define MCPS_ENGINE_MATCH_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct mcps_var {
    char *name;
    cJSON *value;
} mcps_var;

/* Variables of one running case: built-ins and captures. */
typedef struct mcps_vars {
    mcps_var *items;
    size_t n, cap;
} mcps_vars;

void mcps_vars_set(mcps_vars *v, const char *name, const cJSON *value); /* copies value */
void mcps_vars_set_string(mcps_vars *v, const char *name, const char *value);
void mcps_vars_unset(mcps_vars *v, const char *name);
const cJSON *mcps_vars_get(const mcps_vars *v, const char *name);
void mcps_vars_free(mcps_vars *v);

typedef struct mcps_match_result {
    bool matched;
    bool undecidable; /* not matched because mcpspec cannot judge it (e.g. a schema
                         feature it does not implement): not a finding */
    char path[200];   /* where the first mismatch is, e.g. "$.result.tools[3].name" */
    char detail[300]; /* expected vs got, for a person */
} mcps_match_result;

/*
 * Match actual (NULL = the member is absent) against pattern. Captures are
 * written into vars only when the whole match succeeds.
 */
bool mcps_match(const cJSON *pattern, const cJSON *actual, mcps_vars *vars, mcps_match_result *out);

/* Like mcps_match, but vars is only read: no capture is kept. For correlation. */
bool mcps_match_peek(const cJSON *pattern, const cJSON *actual, const mcps_vars *vars,
                     mcps_match_result *out);

/*
 * Instantiate a template: substitute variables, drop members whose value is
 * an unset variable. Returns a new tree, or NULL with err set (e.g. an unset
 * variable inside a longer string).
 */
cJSON *mcps_template_expand(const cJSON *tmpl, const mcps_vars *vars, char *err, size_t errlen);

/* Substitute variables into plain text (raw sends); malloc'd; NULL + err on failure. */
char *mcps_template_text(const char *text, const mcps_vars *vars, char *err, size_t errlen);

/*
 * Check a pattern once, when the suite is loaded: known matcher keywords,
 * regexes that compile, well-formed ${...}. False with err set otherwise.
 */
bool mcps_pattern_validate(const cJSON *pattern, char *err, size_t errlen);

#endif
