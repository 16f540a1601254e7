/*
 * fuzz_schema.c - fuzz target for JSON Schema validation and schema checking
 * (harness/schema/jsonschema.h): the schemas come from the servers under test.
 *
 * Input: one header byte, an optional newline, then one JSON text: an array
 * whose first element is the schema and whose other elements are instances
 * (a non-array is a schema validated against null). The header:
 *   bit 0  format as an assertion
 *   bit 1  draft-07 rules when the schema has no $schema
 *   bit 2  small limits (depth 16, 4000 steps), so the budget paths are reached
 *   bit 3  hand the schema over a second time as a document known by the URI
 *          "http://fuzz.example/doc.json", so cross-document $refs resolve
 * so "0\n" validates with the defaults and "4\n" with small limits.
 *
 * Invariants, each an abort when broken:
 *  - nothing crashes or leaks; the verdict is one of the five, and kept errors
 *    are at most MCPS_SCHEMA_MAX_ERRORS and at most those counted;
 *  - VALID has no error counted, INVALID and the other verdicts at least one,
 *    and each kept error's kind is a non-VALID verdict;
 *  - an INVALID error's instance_path names a node of the instance;
 *  - the same call twice gives the same verdict, error count and steps;
 *  - a verdict reached under the small limits (VALID or INVALID) is the
 *    verdict under the default limits too: a budget never changes an answer,
 *    it only withholds one;
 *  - mcps_schema_check answers in range, and when it finds the schema sound
 *    (VALID), validation reports no schema error.
 */
#include "fuzz.h"

#include "codec/json.h"
#include "schema/jsonschema.h"

#include <string.h>

#define SCHEMA_MAX_LEN 8192 /* keep in step with -max_len in fuzz/schema.options */
#define DOC_URI        "http://fuzz.example/doc.json"

bool fuzz_seed_wellformed(const uint8_t *data, size_t size, bool handwritten, const char **why)
{
    if (size > SCHEMA_MAX_LEN) {
        *why = "longer than -max_len in fuzz/schema.options: the fuzzer would cut it";
        return false;
    }
    if (size < 1) {
        *why = "empty: not even the header byte";
        return false;
    }
    size_t skip = size > 1 && data[1] == '\n' ? 2 : 1;
    cJSON *v = mcps_json_parse_simple((const char *)data + skip, size - skip);
    mcps_json_delete(v);
    if (!v) {
        *why = "the body after the header is not JSON: the target would stop at the parser";
        return false;
    }
    if (handwritten && skip != 2) {
        *why = "no header line: the first line must be one header byte, e.g. \"0\" or \"4\"";
        return false;
    }
    return true;
}

/* ---- JSON Pointers into the instance ------------------------------------------------ */

/* The node pointer names in root, NULL if none (RFC 6901, ~0 and ~1 decoded). */
static const cJSON *pointer_target(const cJSON *root, const char *pointer)
{
    const cJSON *node = root;
    char token[1024];
    const char *p = pointer;
    while (node && *p == '/') {
        size_t n = 0;
        for (p++; *p && *p != '/'; p++) {
            char c = *p;
            if (c == '~') {
                FUZZ_CHECK(p[1] == '0' || p[1] == '1');
                c = *++p == '0' ? '~' : '/';
            }
            if (n + 1 >= sizeof token)
                return root; /* too long to follow here: assume it resolves */
            token[n++] = c;
        }
        token[n] = '\0';
        if (cJSON_IsObject(node))
            node = cJSON_GetObjectItemCaseSensitive(node, token);
        else if (cJSON_IsArray(node))
            node = cJSON_GetArrayItem(node, atoi(token));
        else
            node = NULL;
    }
    FUZZ_CHECK(*p == '\0');
    return node;
}

/* ---- one validation ------------------------------------------------------------------ */

static void check_result(const mcps_schema_result *r, const cJSON *instance)
{
    FUZZ_CHECK(r->verdict <= MCPS_SCHEMA_TOO_COMPLEX);
    FUZZ_CHECK(r->nkept <= MCPS_SCHEMA_MAX_ERRORS && r->nkept <= r->nerrors);
    FUZZ_CHECK((r->verdict == MCPS_SCHEMA_VALID) == (r->nerrors == 0));
    for (size_t i = 0; i < r->nkept; i++) {
        const mcps_schema_error *e = &r->errors[i];
        FUZZ_CHECK(e->kind != MCPS_SCHEMA_VALID && e->kind <= MCPS_SCHEMA_TOO_COMPLEX);
        FUZZ_CHECK(e->instance_path && e->schema_path && e->message && e->message[0]);
        if (e->kind == MCPS_SCHEMA_INVALID && instance)
            FUZZ_CHECK(pointer_target(instance, e->instance_path) != NULL);
    }
}

static mcps_schema_verdict validate(const cJSON *schema, const cJSON *instance,
                                    const mcps_schema_options *o)
{
    mcps_schema_result a, b;
    mcps_schema_validate(schema, instance, o, &a);
    check_result(&a, instance);
    mcps_schema_validate(schema, instance, o, &b);
    FUZZ_CHECK(a.verdict == b.verdict && a.nerrors == b.nerrors && a.steps == b.steps);
    mcps_schema_result_free(&a);
    mcps_schema_result_free(&b);
    return a.verdict;
}

static void check_schema(const cJSON *schema, const mcps_schema_options *o,
                         mcps_schema_verdict *checked)
{
    mcps_schema_result r;
    *checked = mcps_schema_check(schema, o, &r);
    FUZZ_CHECK(r.verdict <= MCPS_SCHEMA_TOO_COMPLEX);
    FUZZ_CHECK(r.nkept <= MCPS_SCHEMA_MAX_ERRORS && r.nkept <= r.nerrors);
    FUZZ_CHECK((r.verdict == MCPS_SCHEMA_VALID) == (r.nerrors == 0));
    mcps_schema_result_free(&r);
}

static void run_all(const cJSON *schema, const cJSON *first_instance, uint8_t flags)
{
    mcps_schema_options o = mcps_schema_default_options();
    o.format_assertion = flags & 1;
    o.dialect = flags & 2 ? MCPS_SCHEMA_DIALECT_DRAFT_07 : MCPS_SCHEMA_DIALECT_2020_12;
    mcps_schema_document doc = {DOC_URI, schema};
    if (flags & 8) {
        o.documents = &doc;
        o.ndocuments = 1;
    }
    mcps_schema_options small = o;
    small.max_depth = 16;
    small.max_steps = 4000;
    mcps_schema_verdict checked;
    check_schema(schema, &o, &checked);
    static const cJSON null_instance = {.type = cJSON_NULL};
    const cJSON *inst = first_instance ? first_instance : &null_instance;
    for (; inst; inst = first_instance ? inst->next : NULL) {
        mcps_schema_verdict full = validate(schema, inst, &o);
        FUZZ_CHECK(checked != MCPS_SCHEMA_VALID || full != MCPS_SCHEMA_SCHEMA_ERROR);
        if (flags & 4) {
            mcps_schema_verdict v = validate(schema, inst, &small);
            FUZZ_CHECK((v != MCPS_SCHEMA_VALID && v != MCPS_SCHEMA_INVALID) || v == full);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > SCHEMA_MAX_LEN)
        return 0;
    uint8_t flags = data[0];
    size_t skip = size > 1 && data[1] == '\n' ? 2 : 1;
    mcps_json_result pr;
    if (!mcps_json_parse((const char *)data + skip, size - skip, NULL, &pr)) {
        mcps_json_delete(pr.root);
        return 0;
    }
    cJSON *root = pr.root;
    if (cJSON_IsArray(root) && root->child)
        run_all(root->child, root->child->next, flags);
    else
        run_all(root, NULL, flags);
    mcps_json_delete(root);
    return 0;
}
