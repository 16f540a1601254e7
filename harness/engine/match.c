/*
 * match.c - structural matchers and templates; see match.h for the language.
 *
 * Matching recurses along the pattern, never along the actual message, so a
 * hostile target cannot deepen the recursion: suites are ours and shallow.
 * Captures made inside a branch that fails ($oneOf, $not) are rolled back.
 */
#include "engine/match.h"

#include "base/array.h"
#include "base/buf.h"
#include "base/utf8.h"
#include "codec/json.h"
#include "schema/jsonschema.h"
#include "uri/uri.h"
#include "uri/uritemplate.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- variables --------------------------------------------------------------- */

static mcps_var *find_var(const mcps_vars *v, const char *name)
{
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->items[i].name, name) == 0)
            return &v->items[i];
    return NULL;
}

static void set_var_owned(mcps_vars *v, const char *name, cJSON *value)
{
    mcps_var *var = find_var(v, name);
    if (var) {
        mcps_json_delete(var->value);
        var->value = value;
        return;
    }
    if (!mcps_array_reserve(&v->items, &v->cap, v->n + 1, sizeof *v->items, 16)) {
        mcps_json_delete(value);
        return;
    }
    char *copy = strdup(name);
    if (!copy) {
        mcps_json_delete(value);
        return;
    }
    v->items[v->n++] = (mcps_var){copy, value};
}

void mcps_vars_set(mcps_vars *v, const char *name, const cJSON *value)
{
    set_var_owned(v, name, cJSON_Duplicate(value, true));
}

void mcps_vars_set_string(mcps_vars *v, const char *name, const char *value)
{
    set_var_owned(v, name, cJSON_CreateString(value));
}

void mcps_vars_unset(mcps_vars *v, const char *name)
{
    mcps_var *var = find_var(v, name);
    if (!var)
        return;
    free(var->name);
    mcps_json_delete(var->value);
    *var = v->items[--v->n];
}

/* One step of a dotted path: an object member, or an array index. */
static const cJSON *step_into(const cJSON *v, const char *seg, size_t n)
{
    char key[128];
    if (!v || n >= sizeof key)
        return NULL;
    memcpy(key, seg, n);
    key[n] = '\0';
    if (cJSON_IsArray(v)) {
        char *end;
        long i = strtol(key, &end, 10);
        return *end || i < 0 ? NULL : cJSON_GetArrayItem(v, (int)i);
    }
    return cJSON_GetObjectItemCaseSensitive(v, key);
}

/* "name", or "name.member.0.member": the variable, then members and indexes. */
const cJSON *mcps_vars_get(const mcps_vars *v, const char *name)
{
    const char *dot = strchr(name, '.');
    if (!dot) {
        const mcps_var *var = find_var(v, name);
        return var ? var->value : NULL;
    }
    char head[64];
    if ((size_t)(dot - name) >= sizeof head)
        return NULL;
    memcpy(head, name, (size_t)(dot - name));
    head[dot - name] = '\0';
    const mcps_var *var = find_var(v, head);
    const cJSON *cur = var ? var->value : NULL;
    for (const char *seg = dot + 1; cur && *seg;) {
        size_t n = strcspn(seg, ".");
        cur = step_into(cur, seg, n);
        seg += n + (seg[n] == '.');
    }
    return cur;
}

/* Drop variables past index keep: rolls back captures of a failed branch. */
static void vars_truncate(mcps_vars *v, size_t keep)
{
    while (v->n > keep) {
        v->n--;
        free(v->items[v->n].name);
        mcps_json_delete(v->items[v->n].value);
    }
}

void mcps_vars_free(mcps_vars *v)
{
    vars_truncate(v, 0);
    free(v->items);
    *v = (mcps_vars){0};
}

/* ---- ${NAME} references -------------------------------------------------------- */

/* Names may continue with dots: ${probe.uri}, ${prompt.arguments.0.name}. */
static bool is_name_char(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && ((c >= '0' && c <= '9') || c == '.'));
}

/* Length of "${NAME}" at s, or 0 when s does not start a well-formed reference. */
static size_t var_ref_len(const char *s)
{
    if (s[0] != '$' || s[1] != '{' || !is_name_char(s[2], true))
        return 0;
    size_t i = 3;
    while (is_name_char(s[i], false))
        i++;
    return s[i] == '}' ? i + 1 : 0;
}

/* When s is exactly "${NAME}", copy NAME into name and return true. */
static bool whole_var(const char *s, char *name, size_t n)
{
    size_t len = var_ref_len(s);
    if (!len || s[len] != '\0' || len - 3 >= n)
        return false;
    memcpy(name, s + 2, len - 3);
    name[len - 3] = '\0';
    return true;
}

static void append_var_text(mcps_buf *b, const cJSON *value)
{
    if (cJSON_IsString(value)) {
        mcps_buf_puts(b, value->valuestring);
        return;
    }
    char *s = mcps_json_print(value, NULL);
    if (s)
        mcps_buf_puts(b, s);
    free(s);
}

char *mcps_template_text(const char *text, const mcps_vars *vars, char *err, size_t errlen)
{
    mcps_buf b = {0};
    for (const char *p = text; *p;) {
        size_t len = var_ref_len(p);
        if (!len) {
            mcps_buf_putc(&b, *p++);
            continue;
        }
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(len - 3), p + 2);
        const cJSON *value = mcps_vars_get(vars, name);
        if (!value) {
            snprintf(err, errlen, "variable ${%s} is not set", name);
            mcps_buf_free(&b);
            return NULL;
        }
        append_var_text(&b, value);
        p += len;
    }
    return mcps_buf_take(&b);
}

/* ---- matching -------------------------------------------------------------------- */

typedef struct matcher {
    mcps_vars *pending; /* captures of this attempt */
    const mcps_vars *vars;
    mcps_match_result *out;
    char path[200];
} matcher;

static void describe(const cJSON *v, char *dst, size_t n)
{
    if (!v) {
        snprintf(dst, n, "nothing (member absent)");
        return;
    }
    char *s = mcps_json_print(v, NULL);
    if (!s) {
        snprintf(dst, n, "?");
        return;
    }
    if (strlen(s) > 120)
        snprintf(dst, n, "%.117s...", s);
    else
        snprintf(dst, n, "%s", s);
    free(s);
}

static bool mismatch(matcher *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool mismatch(matcher *m, const char *fmt, ...)
{
    snprintf(m->out->path, sizeof m->out->path, "%s", m->path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->out->detail, sizeof m->out->detail, fmt, ap);
    va_end(ap);
    return false;
}

static bool mismatch_value(matcher *m, const char *expected, const cJSON *actual)
{
    char got[160];
    describe(actual, got, sizeof got);
    return mismatch(m, "expected %s, got %s", expected, got);
}

static bool match_any(matcher *m, const cJSON *pattern, const cJSON *actual);

static bool match_type(matcher *m, const char *kw, const cJSON *actual)
{
    bool ok;
    if (strcmp(kw, "any") == 0)
        ok = actual != NULL;
    else if (strcmp(kw, "absent") == 0)
        ok = actual == NULL;
    else if (strcmp(kw, "string") == 0)
        ok = cJSON_IsString(actual);
    else if (strcmp(kw, "number") == 0)
        ok = cJSON_IsNumber(actual);
    else if (strcmp(kw, "integer") == 0)
        ok = cJSON_IsNumber(actual) && mcps_json_number_is_integer(actual);
    else if (strcmp(kw, "boolean") == 0)
        ok = cJSON_IsBool(actual);
    else if (strcmp(kw, "object") == 0)
        ok = cJSON_IsObject(actual);
    else if (strcmp(kw, "array") == 0)
        ok = cJSON_IsArray(actual);
    else if (strcmp(kw, "null") == 0)
        ok = cJSON_IsNull(actual);
    else /* nonempty */
        ok = (cJSON_IsString(actual) && actual->valuestring[0]) ||
             ((cJSON_IsArray(actual) || cJSON_IsObject(actual)) && actual->child);
    if (ok)
        return true;
    char want[40];
    bool absent = strcmp(kw, "absent") == 0;
    snprintf(want, sizeof want, "%s%s", absent ? "no member" : "$", absent ? "" : kw);
    return mismatch_value(m, want, actual);
}

/* $regex: is the schema's "pattern" dialect, ECMA-262, on the same linear-time engine. */
static bool match_regex(matcher *m, const char *re, const cJSON *actual)
{
    if (!cJSON_IsString(actual))
        return mismatch_value(m, "a string", actual);
    mcps_schema_regex *rx = NULL;
    if (mcps_schema_regex_compile(re, strlen(re), &rx, NULL, 0) != MCPS_SCHEMA_REGEX_OK)
        return mismatch(m, "bad regular expression /%s/", re);
    /* Linear in program x input, both bounded (suite patterns, --max-message): no budget cap. */
    size_t budget = SIZE_MAX;
    int found =
        mcps_schema_regex_search(rx, actual->valuestring, strlen(actual->valuestring), &budget);
    mcps_schema_regex_free(rx);
    if (found < 0)
        return mismatch(m, "out of memory matching /%s/", re);
    if (found)
        return true;
    char want[160];
    snprintf(want, sizeof want, "a string matching /%.120s/", re);
    return mismatch_value(m, want, actual);
}

static bool capture(matcher *m, const char *name, const cJSON *actual, bool optional)
{
    if (!actual && !optional)
        return mismatch(m, "expected a value to capture as ${%s}, got nothing", name);
    /* An absent optional member unsets the variable: that is how a loop over
     * pages sees the last one (no nextCursor). */
    set_var_owned(m->pending, name, actual ? cJSON_Duplicate(actual, true) : NULL);
    return true;
}

/* Append to the array NAME (pending first, then committed), creating it. */
static bool collect(matcher *m, const char *name, const cJSON *actual)
{
    if (!actual)
        return mismatch(m, "expected a value to collect into ${%s}, got nothing", name);
    const cJSON *have = mcps_vars_get(m->pending, name);
    if (!have)
        have = mcps_vars_get(m->vars, name);
    cJSON *list = cJSON_IsArray(have) ? cJSON_Duplicate(have, true) : cJSON_CreateArray();
    if (!list)
        return mismatch(m, "out of memory");
    cJSON_AddItemToArray(list, cJSON_Duplicate(actual, true));
    set_var_owned(m->pending, name, list);
    return true;
}

static bool match_var(matcher *m, const char *name, const cJSON *actual)
{
    const cJSON *value = mcps_vars_get(m->pending, name);
    if (!value)
        value = mcps_vars_get(m->vars, name);
    if (!value)
        return mismatch(m, "variable ${%s} is not set", name);
    if (actual && mcps_json_equal(value, actual))
        return true;
    char want[160];
    describe(value, want, sizeof want);
    return mismatch_value(m, want, actual);
}

static bool undecidable(matcher *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool undecidable(matcher *m, const char *fmt, ...)
{
    snprintf(m->out->path, sizeof m->out->path, "%s", m->path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->out->detail, sizeof m->out->detail, fmt, ap);
    va_end(ap);
    m->out->undecidable = true;
    return false;
}

static bool is_base64(const char *s)
{
    size_t n = strlen(s), pad = 0;
    if (n % 4)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (c == '=' && i >= n - 2)
            pad++;
        else if (pad || !(alnum || c == '+' || c == '/'))
            return false;
    }
    return true;
}

/* Validate actual against schema; undecidable verdicts are not findings. */
static bool match_schema(matcher *m, const cJSON *schema, const cJSON *actual, bool assert_format)
{
    mcps_schema_options opts = mcps_schema_default_options();
    opts.format_assertion = assert_format;
    mcps_schema_result r;
    mcps_schema_verdict v = mcps_schema_validate(schema, actual, &opts, &r);
    bool ok = v == MCPS_SCHEMA_VALID;
    if (v == MCPS_SCHEMA_INVALID)
        mismatch(m, "%s at %s", r.nerrors ? r.errors[0].message : "does not validate",
                 r.nerrors ? r.errors[0].instance_path : "");
    else if (!ok)
        undecidable(m, "cannot validate against the schema (%s)%s%s", mcps_schema_verdict_name(v),
                    r.nerrors ? ": " : "", r.nerrors ? r.errors[0].message : "");
    mcps_schema_result_free(&r);
    return ok;
}

static bool check_schema(matcher *m, const cJSON *actual)
{
    mcps_schema_result r;
    mcps_schema_verdict v = mcps_schema_check(actual, NULL, &r);
    bool ok = v == MCPS_SCHEMA_VALID;
    if (v == MCPS_SCHEMA_SCHEMA_ERROR || v == MCPS_SCHEMA_INVALID)
        mismatch(m, "not a valid JSON Schema: %s at %s",
                 r.nerrors ? r.errors[0].message : "invalid",
                 r.nerrors ? r.errors[0].schema_path : "");
    else if (!ok)
        undecidable(m, "cannot check the schema (%s)%s%s", mcps_schema_verdict_name(v),
                    r.nerrors ? ": " : "", r.nerrors ? r.errors[0].message : "");
    mcps_schema_result_free(&r);
    return ok;
}

static bool check_date_time(matcher *m, const cJSON *actual)
{
    static const char schema_text[] = "{\"type\":\"string\",\"format\":\"date-time\"}";
    cJSON *schema = mcps_json_parse_simple(schema_text, sizeof schema_text - 1);
    bool ok = schema && match_schema(m, schema, actual, true);
    mcps_json_delete(schema);
    return ok;
}

/*
 * Format matchers ("$uri", "$uri-template", "$base64", "$date-time",
 * "$json-schema"): -1 when kw is none of them; otherwise 0, with out->detail
 * empty on a match and describing the mismatch otherwise.
 */
static int match_format(matcher *m, const char *kw, const cJSON *actual)
{
    static const char *const formats[] = {"uri", "uri-template", "base64", "date-time",
                                          "json-schema"};
    size_t which = 0;
    while (which < sizeof formats / sizeof *formats && strcmp(kw, formats[which]) != 0)
        which++;
    if (which == sizeof formats / sizeof *formats)
        return -1;
    m->out->detail[0] = '\0';
    if (which == 4) {
        check_schema(m, actual);
        return 0;
    }
    if (!cJSON_IsString(actual)) {
        mismatch_value(m, "a string", actual);
        return 0;
    }
    const char *s = actual->valuestring;
    mcps_uri_error ue;
    mcps_tmpl_error te;
    if (which == 0 && !mcps_uri_validate(s, strlen(s), &ue))
        mismatch(m, "not an RFC 3986 URI: %s (byte %zu) in \"%.80s\"", ue.reason, ue.offset, s);
    else if (which == 1 && !mcps_tmpl_validate(s, strlen(s), &te))
        mismatch(m, "not an RFC 6570 URI template: %s (byte %zu) in \"%.80s\"", te.reason,
                 te.offset, s);
    else if (which == 2 && !is_base64(s))
        mismatch(m, "not strict base64 (RFC 4648, padded, no whitespace)");
    else if (which == 3)
        check_date_time(m, actual);
    return 0;
}

static bool match_literal_string(matcher *m, const char *text, const cJSON *actual)
{
    char err[120];
    char *want =
        strstr(text, "${") ? mcps_template_text(text, m->vars, err, sizeof err) : strdup(text);
    if (!want)
        return mismatch(m, "%s", err);
    bool ok = cJSON_IsString(actual) && strcmp(actual->valuestring, want) == 0;
    if (!ok) {
        char quoted[200];
        snprintf(quoted, sizeof quoted, "\"%.180s\"", want);
        mismatch_value(m, quoted, actual);
    }
    free(want);
    return ok;
}

static bool match_string(matcher *m, const char *s, const cJSON *actual)
{
    char name[64];
    if (s[0] == '$' && s[1] == '$')
        return match_literal_string(m, s + 1, actual);
    if (whole_var(s, name, sizeof name))
        return match_var(m, name, actual);
    if (strncmp(s, "$regex:", 7) == 0)
        return match_regex(m, s + 7, actual);
    if (strncmp(s, "$capture?:", 10) == 0)
        return capture(m, s + 10, actual, true);
    if (strncmp(s, "$capture:", 9) == 0)
        return capture(m, s + 9, actual, false);
    if (strncmp(s, "$collect:", 9) == 0)
        return collect(m, s + 9, actual);
    if (s[0] == '$' && s[1] != '{' && match_format(m, s + 1, actual) >= 0)
        return m->out->detail[0] == '\0';
    if (s[0] == '$' && s[1] != '{')
        return match_type(m, s + 1, actual);
    return match_literal_string(m, s, actual);
}

/* Run a sub-match with the path extended; restores the path afterwards. */
static bool match_at(matcher *m, const char *fmt, const void *arg, const cJSON *pattern,
                     const cJSON *actual)
{
    size_t len = strlen(m->path);
    if (strcmp(fmt, "index") == 0)
        snprintf(m->path + len, sizeof m->path - len, "[%zu]", *(const size_t *)arg);
    else
        snprintf(m->path + len, sizeof m->path - len, ".%s", (const char *)arg);
    bool ok = match_any(m, pattern, actual);
    m->path[len] = '\0';
    return ok;
}

static const char *member_name(const cJSON *member)
{
    const char *k = member->string;
    return k[0] == '$' && k[1] == '$' ? k + 1 : k;
}

static bool object_allows(const cJSON *pattern, const char *key)
{
    for (const cJSON *p = pattern->child; p; p = p->next)
        if (p->string[0] != '$' || p->string[1] == '$')
            if (strcmp(member_name(p), key) == 0)
                return true;
    return false;
}

static bool match_object(matcher *m, const cJSON *pattern, const cJSON *actual)
{
    if (!cJSON_IsObject(actual))
        return mismatch_value(m, "an object", actual);
    for (const cJSON *p = pattern->child; p; p = p->next) {
        if (p->string[0] == '$' && p->string[1] != '$')
            continue; /* "$closed", "$in-batch", "$via": options, not members */
        const char *key = member_name(p);
        if (!match_at(m, "member", key, p, cJSON_GetObjectItemCaseSensitive(actual, key)))
            return false;
    }
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pattern, "$closed")))
        for (const cJSON *a = actual->child; a; a = a->next)
            if (!object_allows(pattern, a->string))
                return mismatch(m, "unexpected member \"%.80s\"", a->string);
    return true;
}

static bool match_array(matcher *m, const cJSON *pattern, const cJSON *actual)
{
    if (!cJSON_IsArray(actual))
        return mismatch_value(m, "an array", actual);
    int want = cJSON_GetArraySize(pattern), got = cJSON_GetArraySize(actual);
    if (want != got)
        return mismatch(m, "expected an array of %d elements, got %d", want, got);
    size_t i = 0;
    for (const cJSON *p = pattern->child, *a = actual->child; p; p = p->next, a = a->next, i++)
        if (!match_at(m, "index", &i, p, a))
            return false;
    return true;
}

static bool try_branch(matcher *m, const cJSON *pattern, const cJSON *actual)
{
    size_t keep = m->pending->n;
    if (match_any(m, pattern, actual))
        return true;
    vars_truncate(m->pending, keep);
    return false;
}

static bool match_one_of(matcher *m, const cJSON *alts, const cJSON *actual)
{
    for (const cJSON *p = alts->child; p; p = p->next)
        if (try_branch(m, p, actual))
            return true;
    char got[160];
    describe(actual, got, sizeof got);
    char want[160];
    describe(alts, want, sizeof want);
    return mismatch(m, "expected one of %s, got %s", want, got);
}

/* {"$keys": P}: an object whose every member name matches P. */
static bool match_keys(matcher *m, const cJSON *inner, const cJSON *actual)
{
    if (!cJSON_IsObject(actual))
        return mismatch_value(m, "an object", actual);
    for (const cJSON *c = actual->child; c; c = c->next) {
        cJSON *name = cJSON_CreateString(c->string);
        bool ok = name && match_at(m, "member", c->string, inner, name);
        cJSON_Delete(name);
        if (!ok)
            return false;
    }
    return true;
}

/* {"$values": P}: an object whose every member value matches P. */
static bool match_values(matcher *m, const cJSON *inner, const cJSON *actual)
{
    if (!cJSON_IsObject(actual))
        return mismatch_value(m, "an object", actual);
    for (const cJSON *c = actual->child; c; c = c->next)
        if (!match_at(m, "member", c->string, inner, c))
            return false;
    return true;
}

static bool match_all(matcher *m, const cJSON *list, const cJSON *actual)
{
    for (const cJSON *p = list->child; p; p = p->next)
        if (!match_any(m, p, actual))
            return false;
    return true;
}

/* {"$between": [min, max]}: a number in the closed range. */
static bool match_between(matcher *m, const cJSON *range, const cJSON *actual)
{
    const cJSON *lo = cJSON_GetArrayItem(range, 0), *hi = cJSON_GetArrayItem(range, 1);
    if (cJSON_IsNumber(actual) && actual->valuedouble >= lo->valuedouble &&
        actual->valuedouble <= hi->valuedouble)
        return true;
    char want[80];
    snprintf(want, sizeof want, "a number from %g to %g", lo->valuedouble, hi->valuedouble);
    return mismatch_value(m, want, actual);
}

static bool match_not(matcher *m, const cJSON *inner, const cJSON *actual)
{
    mcps_match_result saved = *m->out;
    bool matched = try_branch(m, inner, actual);
    *m->out = saved;
    if (!matched)
        return true;
    char want[160];
    describe(inner, want, sizeof want);
    char what[200];
    snprintf(what, sizeof what, "anything but %s", want);
    return mismatch_value(m, what, actual);
}

static bool match_each(matcher *m, const cJSON *inner, const cJSON *actual)
{
    if (!cJSON_IsArray(actual))
        return mismatch_value(m, "an array", actual);
    size_t i = 0;
    for (const cJSON *a = actual->child; a; a = a->next, i++)
        if (!match_at(m, "index", &i, inner, a))
            return false;
    return true;
}

static bool match_contains(matcher *m, const cJSON *inner, const cJSON *actual)
{
    if (!cJSON_IsArray(actual))
        return mismatch_value(m, "an array", actual);
    for (const cJSON *a = actual->child; a; a = a->next)
        if (try_branch(m, inner, a))
            return true;
    char want[160];
    describe(inner, want, sizeof want);
    return mismatch(m, "expected an element matching %s; none does", want);
}

static bool match_size(matcher *m, const cJSON *bounds, const cJSON *actual)
{
    double size;
    if (cJSON_IsString(actual))
        size = (double)mcps_utf8_count(actual->valuestring);
    else if (cJSON_IsArray(actual) || cJSON_IsObject(actual))
        size = cJSON_GetArraySize(actual);
    else
        return mismatch_value(m, "a string, array or object", actual);
    const cJSON *min = cJSON_GetObjectItemCaseSensitive(bounds, "min");
    const cJSON *max = cJSON_GetObjectItemCaseSensitive(bounds, "max");
    if ((min && size < min->valuedouble) || (max && size > max->valuedouble))
        return mismatch(m, "size %.0f is outside [%s, %s]", size,
                        min ? mcps_json_number_text(min) : "0",
                        max ? mcps_json_number_text(max) : "any");
    return true;
}

static bool match_gt(matcher *m, const cJSON *bound, const cJSON *actual)
{
    char name[64];
    const cJSON *b = bound;
    if (cJSON_IsString(bound) && whole_var(bound->valuestring, name, sizeof name)) {
        b = mcps_vars_get(m->vars, name);
        if (!b)
            return true; /* nothing to compare with yet: the first value of a series */
    }
    if (!cJSON_IsNumber(actual))
        return mismatch_value(m, "a number", actual);
    if (cJSON_IsNumber(b) && actual->valuedouble > b->valuedouble)
        return true;
    char want[80];
    snprintf(want, sizeof want, "a number greater than %g",
             cJSON_IsNumber(b) ? b->valuedouble : NAN);
    return mismatch_value(m, want, actual);
}

/* {"$in": "${LIST}"}: equal to one element of an array variable (or a literal array). */
static bool match_in(matcher *m, const cJSON *list, const cJSON *actual)
{
    char name[64];
    if (cJSON_IsString(list) && whole_var(list->valuestring, name, sizeof name)) {
        /* Collected in this very match count too: a name twice on one page. */
        const cJSON *pending = mcps_vars_get(m->pending, name);
        list = pending ? pending : mcps_vars_get(m->vars, name);
        if (!list)
            return mismatch(m, "variable ${%s} is not set", name);
    }
    for (const cJSON *e = cJSON_IsArray(list) ? list->child : NULL; e; e = e->next)
        if (actual && mcps_json_equal(e, actual))
            return true;
    char want[180];
    char one[160];
    describe(list, one, sizeof one);
    snprintf(want, sizeof want, "one of %s", one);
    return mismatch_value(m, want, actual);
}

static bool match_valid_against(matcher *m, const cJSON *arg, const cJSON *actual)
{
    char name[64];
    const cJSON *schema = arg;
    if (cJSON_IsString(arg) && whole_var(arg->valuestring, name, sizeof name)) {
        schema = mcps_vars_get(m->vars, name);
        if (!schema)
            return mismatch(m, "variable ${%s} is not set", name);
    }
    if (!actual)
        return mismatch(m, "expected a value to validate, got nothing");
    return match_schema(m, schema, actual, false);
}

/* {"$json": P}: a string whose text is JSON matching P. */
static bool match_json_text(matcher *m, const cJSON *inner, const cJSON *actual)
{
    if (!cJSON_IsString(actual))
        return mismatch_value(m, "a string holding JSON", actual);
    mcps_json_result r;
    if (!mcps_json_parse(actual->valuestring, strlen(actual->valuestring), NULL, &r))
        return mismatch(m, "the string is not JSON: %s (byte %zu)", r.error, r.error_offset);
    bool ok = match_any(m, inner, r.root);
    mcps_json_delete(r.root);
    return ok;
}

/* {"$capture": "NAME", "$collect": "LIST", "$is": P, "$optional": true}: either or both. */
static bool match_capture_object(matcher *m, const cJSON *pattern, const cJSON *actual)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(pattern, "$capture");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(pattern, "$collect");
    const cJSON *is = cJSON_GetObjectItemCaseSensitive(pattern, "$is");
    bool optional = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pattern, "$optional"));
    if (!actual && optional)
        return !name || capture(m, name->valuestring, NULL, true);
    if (is && !match_any(m, is, actual))
        return false;
    if (list && !collect(m, list->valuestring, actual))
        return false;
    return !name || capture(m, name->valuestring, actual, optional);
}

/* The operator of a matcher object ({"$oneOf": ...}), or NULL for a plain object. */
static const char *matcher_keyword(const cJSON *pattern)
{
    static const char *const keywords[] = {
        "$oneOf", "$not",  "$each", "$contains", "$capture",       "$collect", "$size",  "$gt",
        "$in",    "$json", "$all",  "$between",  "$valid-against", "$keys",    "$values"};
    for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
        if (cJSON_GetObjectItemCaseSensitive(pattern, keywords[i]))
            return keywords[i];
    return NULL;
}

static bool match_matcher_object(matcher *m, const char *kw, const cJSON *pattern,
                                 const cJSON *actual)
{
    const cJSON *arg = cJSON_GetObjectItemCaseSensitive(pattern, kw);
    if (strcmp(kw, "$oneOf") == 0)
        return match_one_of(m, arg, actual);
    if (strcmp(kw, "$not") == 0)
        return match_not(m, arg, actual);
    if (strcmp(kw, "$each") == 0)
        return match_each(m, arg, actual);
    if (strcmp(kw, "$contains") == 0)
        return match_contains(m, arg, actual);
    if (strcmp(kw, "$size") == 0)
        return match_size(m, arg, actual);
    if (strcmp(kw, "$gt") == 0)
        return match_gt(m, arg, actual);
    if (strcmp(kw, "$in") == 0)
        return match_in(m, arg, actual);
    if (strcmp(kw, "$json") == 0)
        return match_json_text(m, arg, actual);
    if (strcmp(kw, "$all") == 0)
        return match_all(m, arg, actual);
    if (strcmp(kw, "$keys") == 0)
        return match_keys(m, arg, actual);
    if (strcmp(kw, "$values") == 0)
        return match_values(m, arg, actual);
    if (strcmp(kw, "$between") == 0)
        return match_between(m, arg, actual);
    if (strcmp(kw, "$valid-against") == 0)
        return match_valid_against(m, arg, actual);
    return match_capture_object(m, pattern, actual); /* $capture, $collect */
}

static bool match_any(matcher *m, const cJSON *pattern, const cJSON *actual)
{
    if (cJSON_IsString(pattern))
        return match_string(m, pattern->valuestring, actual);
    if (cJSON_IsObject(pattern)) {
        const char *kw = matcher_keyword(pattern);
        return kw ? match_matcher_object(m, kw, pattern, actual) : match_object(m, pattern, actual);
    }
    if (cJSON_IsArray(pattern))
        return match_array(m, pattern, actual);
    if (actual && mcps_json_equal(pattern, actual))
        return true;
    char want[160];
    describe(pattern, want, sizeof want);
    return mismatch_value(m, want, actual);
}

bool mcps_match(const cJSON *pattern, const cJSON *actual, mcps_vars *vars, mcps_match_result *out)
{
    mcps_vars pending = {0};
    *out = (mcps_match_result){.matched = false};
    matcher m = {.pending = &pending, .vars = vars, .out = out, .path = "$"};
    out->matched = match_any(&m, pattern, actual);
    if (out->matched)
        out->undecidable = false; /* a branch that could not judge lost to one that did */
    for (size_t i = 0; out->matched && i < pending.n; i++) {
        const mcps_var *p = &pending.items[i];
        if (p->value)
            set_var_owned(vars, p->name, cJSON_Duplicate(p->value, true));
        else
            mcps_vars_unset(vars, p->name);
    }
    mcps_vars_free(&pending);
    return out->matched;
}

bool mcps_match_peek(const cJSON *pattern, const cJSON *actual, const mcps_vars *vars,
                     mcps_match_result *out)
{
    mcps_vars pending = {0};
    *out = (mcps_match_result){.matched = false};
    matcher m = {.pending = &pending, .vars = vars, .out = out, .path = "$"};
    out->matched = match_any(&m, pattern, actual);
    if (out->matched)
        out->undecidable = false;
    mcps_vars_free(&pending);
    return out->matched;
}

/* ---- templates ----------------------------------------------------------------------- */

typedef enum expand_status { EXPAND_OK, EXPAND_DROP, EXPAND_FAIL } expand_status;

static expand_status expand_node(const cJSON *t, const mcps_vars *vars, cJSON **out, char *err,
                                 size_t errlen);

static expand_status expand_string(const cJSON *t, const mcps_vars *vars, cJSON **out, char *err,
                                   size_t errlen)
{
    char name[64];
    if (whole_var(t->valuestring, name, sizeof name)) {
        const cJSON *value = mcps_vars_get(vars, name);
        if (!value)
            return EXPAND_DROP;
        *out = cJSON_Duplicate(value, true);
        return *out ? EXPAND_OK : EXPAND_FAIL;
    }
    if (!strstr(t->valuestring, "${")) {
        *out = cJSON_Duplicate(t, true);
        return *out ? EXPAND_OK : EXPAND_FAIL;
    }
    char *text = mcps_template_text(t->valuestring, vars, err, errlen);
    if (!text)
        return EXPAND_FAIL;
    *out = cJSON_CreateString(text);
    free(text);
    return *out ? EXPAND_OK : EXPAND_FAIL;
}

/* Member names are templates too: {"${arg.name}": "value"} sends the argument's real name. */
static bool add_member(cJSON *obj, const char *key, cJSON *v, const mcps_vars *vars, char *err,
                       size_t errlen)
{
    char *name = strstr(key, "${") ? mcps_template_text(key, vars, err, errlen) : NULL;
    if (strstr(key, "${") && !name) {
        mcps_json_delete(v);
        return false;
    }
    cJSON_AddItemToObject(obj, name ? name : key, v);
    free(name);
    return true;
}

static expand_status expand_container(const cJSON *t, const mcps_vars *vars, cJSON **out, char *err,
                                      size_t errlen)
{
    bool object = cJSON_IsObject(t);
    cJSON *c = object ? cJSON_CreateObject() : cJSON_CreateArray();
    if (!c)
        return EXPAND_FAIL;
    for (const cJSON *child = t->child; child; child = child->next) {
        cJSON *v = NULL;
        expand_status st = expand_node(child, vars, &v, err, errlen);
        if (st == EXPAND_FAIL) {
            mcps_json_delete(c);
            return EXPAND_FAIL;
        }
        if (st == EXPAND_DROP)
            continue;
        if (object && !add_member(c, child->string, v, vars, err, errlen)) {
            mcps_json_delete(c);
            return EXPAND_FAIL;
        }
        if (!object)
            cJSON_AddItemToArray(c, v);
    }
    *out = c;
    return EXPAND_OK;
}

static expand_status expand_node(const cJSON *t, const mcps_vars *vars, cJSON **out, char *err,
                                 size_t errlen)
{
    if (cJSON_IsString(t))
        return expand_string(t, vars, out, err, errlen);
    if (cJSON_IsObject(t) || cJSON_IsArray(t))
        return expand_container(t, vars, out, err, errlen);
    *out = cJSON_Duplicate(t, true);
    return *out ? EXPAND_OK : EXPAND_FAIL;
}

cJSON *mcps_template_expand(const cJSON *tmpl, const mcps_vars *vars, char *err, size_t errlen)
{
    cJSON *out = NULL;
    expand_status st = expand_node(tmpl, vars, &out, err, errlen);
    if (st == EXPAND_DROP) {
        snprintf(err, errlen, "the whole message is an unset variable");
        return NULL;
    }
    if (st == EXPAND_FAIL && !err[0])
        snprintf(err, errlen, "out of memory");
    return st == EXPAND_OK ? out : NULL;
}

/* ---- validation ------------------------------------------------------------------------- */

static bool validate_node(const cJSON *p, char *err, size_t errlen);

static bool validate_refs(const char *s, char *err, size_t errlen)
{
    for (const char *q = strstr(s, "${"); q; q = strstr(q + 1, "${"))
        if (!var_ref_len(q)) {
            snprintf(err, errlen, "malformed variable reference in \"%.60s\"", s);
            return false;
        }
    return true;
}

static bool validate_string(const char *s, char *err, size_t errlen)
{
    static const char *const types[] = {
        "any",  "absent",   "string", "number", "integer",      "boolean",   "object",     "array",
        "null", "nonempty", "uri",    "base64", "uri-template", "date-time", "json-schema"};
    if (!validate_refs(s, err, errlen))
        return false;
    if (s[0] != '$' || s[1] == '$' || s[1] == '{')
        return true;
    if (strncmp(s, "$regex:", 7) == 0) {
        char why[96];
        mcps_schema_regex *rx = NULL;
        mcps_schema_regex_status st =
            mcps_schema_regex_compile(s + 7, strlen(s + 7), &rx, why, sizeof why);
        mcps_schema_regex_free(rx);
        if (st != MCPS_SCHEMA_REGEX_OK)
            snprintf(err, errlen, "regular expression /%.60s/ %s: %s", s + 7,
                     st == MCPS_SCHEMA_REGEX_SYNTAX ? "is not ECMA-262"
                                                    : "is beyond the regex engine",
                     why);
        return st == MCPS_SCHEMA_REGEX_OK;
    }
    const char *name = strncmp(s, "$capture?:", 10) == 0 ? s + 10
                       : strncmp(s, "$capture:", 9) == 0 ? s + 9
                       : strncmp(s, "$collect:", 9) == 0 ? s + 9
                                                         : NULL;
    if (name) {
        bool ok = is_name_char(*name, true);
        for (const char *c = name; ok && *c; c++)
            ok = is_name_char(*c, false);
        if (!ok)
            snprintf(err, errlen, "bad capture name in \"%.60s\"", s);
        return ok;
    }
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (strcmp(s + 1, types[i]) == 0)
            return true;
    snprintf(err, errlen, "unknown matcher \"%.60s\" (write \"$%.60s\" for the literal text)", s,
             s);
    return false;
}

static bool validate_matcher_object(const cJSON *p, const char *kw, char *err, size_t errlen)
{
    const cJSON *arg = cJSON_GetObjectItemCaseSensitive(p, kw);
    for (const cJSON *c = p->child; c; c = c->next) {
        bool capturing = strcmp(kw, "$capture") == 0 || strcmp(kw, "$collect") == 0;
        bool allowed = strcmp(c->string, kw) == 0 ||
                       (capturing &&
                        (strcmp(c->string, "$is") == 0 || strcmp(c->string, "$optional") == 0 ||
                         strcmp(c->string, "$capture") == 0 || strcmp(c->string, "$collect") == 0));
        if (!allowed) {
            snprintf(err, errlen, "\"%s\" cannot be combined with \"%.40s\"", kw, c->string);
            return false;
        }
    }
    if (strcmp(kw, "$oneOf") == 0 && (!cJSON_IsArray(arg) || !arg->child)) {
        snprintf(err, errlen, "\"$oneOf\" takes a non-empty array of patterns");
        return false;
    }
    if ((strcmp(kw, "$capture") == 0 || strcmp(kw, "$collect") == 0) && !cJSON_IsString(arg)) {
        snprintf(err, errlen, "\"%s\" takes a variable name", kw);
        return false;
    }
    if (strcmp(kw, "$between") == 0 &&
        (cJSON_GetArraySize(arg) != 2 || !cJSON_IsNumber(cJSON_GetArrayItem(arg, 0)) ||
         !cJSON_IsNumber(cJSON_GetArrayItem(arg, 1)))) {
        snprintf(err, errlen, "\"$between\" takes [min, max]");
        return false;
    }
    if (strcmp(kw, "$all") == 0 && (!cJSON_IsArray(arg) || !arg->child)) {
        snprintf(err, errlen, "\"$all\" takes a non-empty array of patterns");
        return false;
    }
    if (strcmp(kw, "$size") == 0 && !cJSON_IsObject(arg)) {
        snprintf(err, errlen, "\"$size\" takes {\"min\": N, \"max\": M}");
        return false;
    }
    if (strcmp(kw, "$in") == 0 && !cJSON_IsArray(arg) && !cJSON_IsString(arg)) {
        snprintf(err, errlen, "\"$in\" takes an array or \"${VAR}\"");
        return false;
    }
    if (strcmp(kw, "$capture") == 0 || strcmp(kw, "$collect") == 0 || strcmp(kw, "$size") == 0 ||
        strcmp(kw, "$gt") == 0 || strcmp(kw, "$in") == 0 || strcmp(kw, "$valid-against") == 0 ||
        strcmp(kw, "$between") == 0) {
        const cJSON *is = cJSON_GetObjectItemCaseSensitive(p, "$is");
        return !is || validate_node(is, err, errlen);
    }
    if (cJSON_IsArray(arg)) {
        for (const cJSON *c = arg->child; c; c = c->next)
            if (!validate_node(c, err, errlen))
                return false;
        return true;
    }
    return validate_node(arg, err, errlen);
}

static bool validate_object(const cJSON *p, char *err, size_t errlen)
{
    const char *kw = matcher_keyword(p);
    if (kw)
        return validate_matcher_object(p, kw, err, errlen);
    for (const cJSON *c = p->child; c; c = c->next) {
        if (c->string[0] == '$' && c->string[1] != '$' && strcmp(c->string, "$closed") != 0 &&
            strcmp(c->string, "$in-batch") != 0 && strcmp(c->string, "$via") != 0) {
            snprintf(err, errlen, "unknown matcher key \"%.40s\"", c->string);
            return false;
        }
        if (!validate_node(c, err, errlen))
            return false;
    }
    return true;
}

static bool validate_node(const cJSON *p, char *err, size_t errlen)
{
    if (cJSON_IsString(p))
        return validate_string(p->valuestring, err, errlen);
    if (cJSON_IsObject(p))
        return validate_object(p, err, errlen);
    if (cJSON_IsArray(p)) {
        for (const cJSON *c = p->child; c; c = c->next)
            if (!validate_node(c, err, errlen))
                return false;
    }
    return true;
}

bool mcps_pattern_validate(const cJSON *pattern, char *err, size_t errlen)
{
    err[0] = '\0';
    return validate_node(pattern, err, errlen);
}
