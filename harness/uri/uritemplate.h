/*
 * uritemplate.h - RFC 6570 URI templates: strict parser, level 1-4 expander,
 * and a matcher that reads variable values back out of a concrete URI.
 *
 * MCP servers publish resource templates (RES-006) and the harness must
 * validate them, expand them to probe the server, and decide which template a
 * listed or returned URI came from. Values are cJSON trees: a string (or a
 * number, taken as its text) is a string value, an array of strings a list,
 * an object of strings an associative array; null, [] and {} are undefined.
 *
 * Matching semantics. A template is a sequence of literals and expressions.
 * Each expression matches a run of the characters it can produce: its
 * operator's prefix ('.', '/', ';', '?', '&', '#'), then unreserved
 * characters and %HH (plus reserved characters for '+' and '#'), ',' (list
 * items), its separator when it has several variables or an explode, and '='
 * for named operators and explodes. Runs are tried longest first with
 * backtracking; literals must match byte for byte. Inside an expression:
 *   - one unexploded variable of a non-named operator takes the whole run;
 *     for simple operators a ',' there makes it a list, for '+' and '#' never;
 *   - several variables split the run on the separator, one item each, in
 *     order; an exploded variable takes as many items as it can while leaving
 *     one per later variable; surplus items go to the last variable as a list
 *     (only with ',' separators or an explode); missing items leave trailing
 *     variables undefined;
 *   - named operators (; ? &) assign "name=value" items by name, in template
 *     order, skipping variables whose name does not come next;
 *   - exploded items of the form k=v make an object, otherwise a list;
 *   - an empty run of '' or '+' sets the first variable to ""; an empty run of
 *     an operator with a prefix leaves all its variables undefined.
 * Values from '+' and '#' are returned as written (they may hold %HH that was
 * in the value); all others are percent-decoded, except that %00 stays "%00".
 * A variable used more than once must get consistent values (a prefix
 * occurrence must be a prefix of the full value), else backtracking goes on.
 *
 * Guarantee: when mcps_tmpl_is_ambiguous() is false and every variable is
 * given a string (empty allowed) made only of characters its operators emit
 * unencoded (unreserved for simple, '.', '/', ';', '?', '&'; unreserved or
 * reserved for '+' and '#'; the intersection when a variable appears under
 * several), mcps_tmpl_match(t, expand(t, v)) succeeds and returns exactly v.
 *
 * Bound: the matcher stops after MCPS_TMPL_MATCH_WORK_PER_BYTE * (len + 1) +
 * MCPS_TMPL_MATCH_WORK_BASE units of work (about one per byte examined) and
 * returns MCPS_TMPL_MATCH_TOO_COMPLEX. Failed (part, position) states are
 * remembered when no variable repeats, so typical templates stay linear;
 * ambiguous templates (adjacent expressions) on long inputs that do not match
 * are the ones that reach the bound.
 */
#ifndef MCPS_URI_URITEMPLATE_H
#define MCPS_URI_URITEMPLATE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#define MCPS_TMPL_MATCH_WORK_PER_BYTE 32
#define MCPS_TMPL_MATCH_WORK_BASE     65536

typedef struct mcps_tmpl mcps_tmpl; /* opaque parsed template */

typedef struct mcps_tmpl_error {
    size_t offset;   /* byte offset in the template (or 0 for value errors) */
    char reason[96]; /* for a person; empty when there is no error */
} mcps_tmpl_error;

typedef enum mcps_tmpl_match_result {
    MCPS_TMPL_NO_MATCH,
    MCPS_TMPL_MATCH,
    MCPS_TMPL_MATCH_TOO_COMPLEX, /* work bound exceeded; the answer is unknown */
    MCPS_TMPL_MATCH_OOM,
} mcps_tmpl_match_result;

/* Parse and validate s[0..len). NULL with err set (offset + reason) when invalid. */
mcps_tmpl *mcps_tmpl_parse(const char *s, size_t len, mcps_tmpl_error *err);
void mcps_tmpl_free(mcps_tmpl *t);

/* Validate without keeping the result. */
bool mcps_tmpl_validate(const char *s, size_t len, mcps_tmpl_error *err);

/* Lowest RFC 6570 level (1-4) whose syntax the template uses (values not considered). */
int mcps_tmpl_level(const mcps_tmpl *t);

/* Distinct variable names, in order of first appearance; pointers live as long as t. */
size_t mcps_tmpl_var_count(const mcps_tmpl *t);
const char *mcps_tmpl_var_name(const mcps_tmpl *t, size_t i);

/*
 * Expand with values from a cJSON object (NULL means all undefined). Returns a
 * malloc'd NUL-terminated URI (caller frees), or NULL with err naming the
 * variable on a value error (a bool, a nested array, a prefix on a list, ...).
 */
char *mcps_tmpl_expand(const mcps_tmpl *t, const cJSON *values, size_t *out_len,
                       mcps_tmpl_error *err);

/*
 * True when matching cannot be guaranteed to recover the values (see the
 * guarantee above); why (may be NULL) gets the offset and cause of the first
 * reason found: a prefix modifier, an explode, several variables in a '+',
 * '#' or '.' expression, two expressions with nothing between them that
 * delimits the first, or a delimiting character the first can itself produce
 * (an expression followed only by a final literal is fine: its end is fixed).
 */
bool mcps_tmpl_is_ambiguous(const mcps_tmpl *t, mcps_tmpl_error *why);

/*
 * Match uri[0..len) against t. On MCPS_TMPL_MATCH and when values is not NULL,
 * *values receives a new cJSON object (caller frees with cJSON_Delete) holding
 * each defined variable, in order of first appearance.
 */
mcps_tmpl_match_result mcps_tmpl_match(const mcps_tmpl *t, const char *uri, size_t len,
                                       cJSON **values);

#endif
