/*
 * fuzz_uritemplate.c - fuzz target for RFC 6570 templates (harness/uri/uritemplate.h).
 *
 * Input: "TEMPLATE\nVALUES". VALUES is either a JSON object, handed to expand
 * as it is (lists, objects, numbers, bad types: the error paths), or plain
 * text whose space-separated words become the variables' values in order of
 * first appearance, each cut down to unreserved characters (missing words are
 * ""). Plain-text values meet uritemplate.h's guarantee, so:
 *
 * Invariants, each an abort when broken:
 *  - parse, validate, level, expand and match never crash and agree with each
 *    other (validate == parse succeeded, level 1..4, distinct variable names);
 *  - a successful match returns an object of strings, lists and objects naming
 *    only the template's variables;
 *  - when mcps_tmpl_is_ambiguous() says no, match(expand(t, v)) succeeds and
 *    returns exactly v for plain-text values (the module's documented guarantee).
 */
#include "fuzz.h"

#include "codec/json.h"
#include "uri/uri.h"
#include "uri/uritemplate.h"

#include <string.h>

#define TMPL_MAX_LEN 4096 /* keep in step with -max_len in fuzz/uritemplate.options */

bool fuzz_seed_wellformed(const uint8_t *data, size_t size, bool handwritten, const char **why)
{
    if (size > TMPL_MAX_LEN) {
        *why = "longer than -max_len in fuzz/uritemplate.options: the fuzzer would cut it";
        return false;
    }
    const uint8_t *nl = memchr(data, '\n', size);
    if (handwritten && !nl) {
        *why = "no newline: the format is TEMPLATE\\nVALUES";
        return false;
    }
    if (handwritten && nl && memchr(nl + 1, '\n', size - (size_t)(nl + 1 - data))) {
        *why = "more than one newline: the format is TEMPLATE\\nVALUES";
        return false;
    }
    return true;
}

static void check_match_values(const mcps_tmpl *t, const cJSON *values)
{
    FUZZ_CHECK(cJSON_IsObject(values));
    for (const cJSON *v = values->child; v; v = v->next) {
        bool known = false;
        for (size_t i = 0; i < mcps_tmpl_var_count(t) && !known; i++)
            known = strcmp(mcps_tmpl_var_name(t, i), v->string) == 0;
        FUZZ_CHECK(known);
        FUZZ_CHECK(cJSON_IsString(v) || cJSON_IsArray(v) || cJSON_IsObject(v));
    }
}

/* Match whatever the expansion gave; check the shape of what comes back. */
static mcps_tmpl_match_result match_any(const mcps_tmpl *t, const char *uri, size_t len,
                                        cJSON **values)
{
    *values = NULL;
    mcps_tmpl_match_result m = mcps_tmpl_match(t, uri, len, values);
    FUZZ_CHECK(m == MCPS_TMPL_MATCH || *values == NULL);
    if (m == MCPS_TMPL_MATCH)
        check_match_values(t, *values);
    return m;
}

/* The i-th space-separated word of text, kept to unreserved characters. */
static cJSON *word_value(const char *text, size_t len, size_t i)
{
    size_t b = 0;
    for (size_t k = 0; k < i && b <= len; k++) {
        const char *sp = memchr(text + b, ' ', len - b);
        b = sp ? (size_t)(sp - text) + 1 : len + 1;
    }
    char *w = malloc(len + 1);
    FUZZ_CHECK(w != NULL);
    size_t n = 0;
    for (size_t j = b; j < len && text[j] != ' '; j++)
        if (mcps_uri_is_unreserved((unsigned char)text[j]))
            w[n++] = text[j];
    w[n] = '\0';
    cJSON *v = cJSON_CreateString(w);
    free(w);
    FUZZ_CHECK(v != NULL);
    return v;
}

static void round_trip(const mcps_tmpl *t, const char *text, size_t len)
{
    cJSON *values = cJSON_CreateObject();
    FUZZ_CHECK(values != NULL);
    for (size_t i = 0; i < mcps_tmpl_var_count(t); i++)
        cJSON_AddItemToObject(values, mcps_tmpl_var_name(t, i), word_value(text, len, i));
    mcps_tmpl_error err;
    size_t n = 0;
    char *uri = mcps_tmpl_expand(t, values, &n, &err);
    FUZZ_CHECK(uri != NULL); /* strings are always expandable */
    FUZZ_CHECK(strlen(uri) == n);
    cJSON *back = NULL;
    mcps_tmpl_match_result m = match_any(t, uri, n, &back);
    if (!mcps_tmpl_is_ambiguous(t, NULL)) {
        if (m != MCPS_TMPL_MATCH || !mcps_json_equal(back, values)) {
            char *want = cJSON_PrintUnformatted(values);
            char *got = back ? cJSON_PrintUnformatted(back) : NULL;
            fprintf(stderr,
                    "fuzz_uritemplate: unambiguous template, but match(expand(v)) != v\n"
                    "  uri %s\n  values %s\n  match %d: %s\n",
                    uri, want ? want : "?", (int)m, got ? got : "(none)");
            abort();
        }
    }
    cJSON_Delete(back);
    free(uri);
    cJSON_Delete(values);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > TMPL_MAX_LEN)
        return 0;
    const char *in = (const char *)data;
    const char *nl = memchr(in, '\n', size);
    size_t tn = nl ? (size_t)(nl - in) : size;
    const char *rest = nl ? nl + 1 : in + size;
    size_t rn = nl ? size - tn - 1 : 0;

    mcps_tmpl_error err = {0};
    mcps_tmpl *t = mcps_tmpl_parse(in, tn, &err);
    FUZZ_CHECK(mcps_tmpl_validate(in, tn, NULL) == (t != NULL));
    if (!t) {
        FUZZ_CHECK(err.offset <= tn && err.reason[0] != '\0');
        return 0;
    }
    int level = mcps_tmpl_level(t);
    FUZZ_CHECK(level >= 1 && level <= 4);
    size_t nvars = mcps_tmpl_var_count(t);
    for (size_t i = 0; i < nvars; i++) {
        FUZZ_CHECK(mcps_tmpl_var_name(t, i) != NULL);
        for (size_t j = 0; j < i; j++)
            FUZZ_CHECK(strcmp(mcps_tmpl_var_name(t, i), mcps_tmpl_var_name(t, j)) != 0);
    }
    mcps_tmpl_error why;
    if (mcps_tmpl_is_ambiguous(t, &why))
        FUZZ_CHECK(why.offset <= tn && why.reason[0] != '\0');

    /* No values: every variable undefined. */
    size_t n = 0;
    char *bare = mcps_tmpl_expand(t, NULL, &n, &err);
    FUZZ_CHECK(bare != NULL);
    cJSON *got = NULL;
    match_any(t, bare, n, &got);
    cJSON_Delete(got);
    free(bare);

    /* The values line as a URI to match, whatever it holds. */
    match_any(t, rest, rn, &got);
    cJSON_Delete(got);

    cJSON *json = rn && rest[0] == '{' ? mcps_json_parse_simple(rest, rn) : NULL;
    if (json) {
        char *uri = mcps_tmpl_expand(t, json, &n, &err);
        if (uri) {
            FUZZ_CHECK(strlen(uri) == n);
            match_any(t, uri, n, &got);
            cJSON_Delete(got);
            free(uri);
        } else {
            FUZZ_CHECK(err.reason[0] != '\0');
        }
        mcps_json_delete(json);
    } else {
        round_trip(t, rest, rn);
    }
    mcps_tmpl_free(t);
    return 0;
}
