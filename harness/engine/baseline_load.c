/*
 * baseline_load.c - reading a baseline file; see baseline.h and docs/baseline.md.
 *
 * A baseline gates CI, so a mistake in it must stop the run (exit 2) with the
 * file, the line and the field, rather than excuse too much or too little:
 * unknown members are errors (a typo must not drop an expiry), every entry
 * needs a reason, and an entry written twice is refused. The file is parsed
 * with the strict codec, which records where each node starts. A file named
 * *.yaml or *.yml is YAML (yaml_tree.c), read into the same tree, its lines
 * kept per node; the rules are the same.
 */
#include "engine/baseline.h"
#include "engine/yaml_tree.h"

#include "base/array.h"
#include "base/file.h"
#include "codec/json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct loader {
    const char *path;
    const char *text;
    size_t len;
    char *err;
    size_t errlen;
    const cJSON *root;
    mcps_json_spots spots;      /* a JSON file: where its nodes start */
    const mcps_yaml_tree *yaml; /* a YAML file: the lines of its nodes */
} loader;

/* ---- where things are in the file ------------------------------------------------- */

static size_t line_at(const loader *ld, size_t offset)
{
    return mcps_file_line_at(ld->text, ld->len, offset, NULL);
}

/* The line node is written on (a member: its key's), or 0 when it is not in the file. */
static size_t node_line(const loader *ld, const cJSON *node)
{
    size_t at;
    if (ld->yaml)
        return mcps_yaml_line_of(ld->yaml, node);
    return mcps_json_spot_of(&ld->spots, node, &at) ? line_at(ld, at) : 0;
}

/* ---- messages ---------------------------------------------------------------------- */

static bool fail(loader *ld, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(loader *ld, size_t line, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line)
        snprintf(ld->err, ld->errlen, "%s:%zu: %s", ld->path, line, msg);
    else
        snprintf(ld->err, ld->errlen, "%s: %s", ld->path, msg);
    return false;
}

/* The line of the top-level member key, else 1. */
static size_t root_line(const loader *ld, const char *key)
{
    size_t line = node_line(ld, cJSON_GetObjectItemCaseSensitive(ld->root, key));
    return line ? line : 1;
}

/* The line of entry i's member key, else of the entry itself. */
static size_t entry_line(const loader *ld, size_t i, const char *key)
{
    const cJSON *expected = cJSON_GetObjectItemCaseSensitive(ld->root, "expected");
    const cJSON *entry = cJSON_GetArrayItem(expected, (int)i);
    size_t line = key ? node_line(ld, cJSON_GetObjectItemCaseSensitive(entry, key)) : 0;
    return line ? line : node_line(ld, entry);
}

/* A failure about expected[i].key, on the line that holds it. */
static bool fail_entry(loader *ld, size_t i, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool fail_entry(loader *ld, size_t i, const char *key, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (key)
        return fail(ld, entry_line(ld, i, key), "expected[%zu].%s: %s", i, key, msg);
    return fail(ld, entry_line(ld, i, NULL), "expected[%zu]: %s", i, msg);
}

/* ---- values -------------------------------------------------------------------------- */

static bool is_leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* A real calendar date written YYYY-MM-DD. */
static bool valid_date(const char *s)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    for (int i = 0; i < 10; i++)
        if (i == 4 || i == 7 ? s[i] != '-' : (s[i] < '0' || s[i] > '9'))
            return false;
    if (s[10])
        return false;
    int y = atoi(s), m = atoi(s + 5), d = atoi(s + 8);
    if (m < 1 || m > 12 || d < 1)
        return false;
    return d <= days[m - 1] + (m == 2 && is_leap(y));
}

/* A case id or requirement ID: printable, no spaces or commas (the separators of ID lists). */
static bool valid_name(const char *s)
{
    if (!*s)
        return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p <= ' ' || *p == ',' || *p == 0x7f)
            return false;
    return true;
}

static bool blank(const char *s)
{
    return s[strspn(s, " \t\r\n")] == '\0';
}

static bool only_members(loader *ld, const cJSON *obj, size_t entry, const char *const *allowed)
{
    for (const cJSON *m = obj->child; m; m = m->next) {
        bool ok = false;
        for (size_t i = 0; allowed[i]; i++)
            ok |= strcmp(m->string, allowed[i]) == 0;
        if (ok)
            continue;
        if (entry == (size_t)-1)
            return fail(ld, root_line(ld, m->string), "unknown member \"%.60s\"", m->string);
        return fail_entry(ld, entry, m->string,
                          "unknown member (an entry has case or "
                          "requirement, revision, reason, expires, verdicts)");
    }
    return true;
}

/* ---- an entry ------------------------------------------------------------------------- */

static bool load_match(loader *ld, size_t i, const cJSON *o, mcps_baseline_entry *e)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "case");
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "requirement");
    if (c && r)
        return fail_entry(ld, i, "requirement", "an entry names a case or a requirement, not both");
    if (!c && !r)
        return fail_entry(ld, i, NULL,
                          "names no \"case\" (an id such as \"errors/parse-error\") "
                          "and no \"requirement\" (an ID such as \"RPC-ERR-002\")");
    const char *key = c ? "case" : "requirement";
    const cJSON *v = c ? c : r;
    if (!cJSON_IsString(v) || !valid_name(v->valuestring))
        return fail_entry(ld, i, key, "is a string without spaces or commas");
    if (c && !strchr(v->valuestring, '/'))
        return fail_entry(ld, i, key, "\"%.80s\" is not a case id (suite/name)", v->valuestring);
    e->requirement = r != NULL;
    e->match = strdup(v->valuestring);
    return e->match || fail(ld, 0, "out of memory");
}

static bool load_revision(loader *ld, size_t i, const cJSON *o, mcps_baseline_entry *e)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "revision");
    if (!v)
        return fail_entry(ld, i, NULL,
                          "\"revision\" is required: a revision such as "
                          "\"2025-06-18\", or \"all\"");
    if (!cJSON_IsString(v))
        return fail_entry(ld, i, "revision", "is a string: a revision, or \"all\"");
    e->revision = mcps_rev_parse(v->valuestring);
    if (e->revision == MCPS_REV_NONE && strcmp(v->valuestring, "all") != 0)
        return fail_entry(ld, i, "revision",
                          "unknown revision \"%.40s\" (2024-11-05, 2025-03-26, "
                          "2025-06-18, 2025-11-25, 2026-07-28 or all)",
                          v->valuestring);
    return true;
}

static bool load_reason(loader *ld, size_t i, const cJSON *o, mcps_baseline_entry *e)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "reason");
    if (!v)
        return fail_entry(ld, i, NULL, "\"reason\" is required: why the failure is accepted");
    if (!cJSON_IsString(v) || blank(v->valuestring))
        return fail_entry(ld, i, "reason", "is a non-empty string: why the failure is accepted");
    e->reason = strdup(v->valuestring);
    return e->reason || fail(ld, 0, "out of memory");
}

static bool load_expires(loader *ld, size_t i, const cJSON *o, mcps_baseline_entry *e)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "expires");
    if (!v)
        return true;
    if (!cJSON_IsString(v) || !valid_date(v->valuestring))
        return fail_entry(ld, i, "expires", "is a date written YYYY-MM-DD");
    memcpy(e->expires, v->valuestring, sizeof e->expires);
    return true;
}

static bool load_verdicts(loader *ld, size_t i, const cJSON *o, mcps_baseline_entry *e)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "verdicts");
    e->verdicts = MCPS_BASELINE_DEFAULT_VERDICTS;
    if (!v)
        return true;
    if (!cJSON_IsArray(v) || !v->child)
        return fail_entry(ld, i, "verdicts",
                          "is a non-empty array of \"FAIL\", \"WARN\", \"ERROR\"");
    e->verdicts = 0;
    for (const cJSON *item = v->child; item; item = item->next) {
        const char *s = cJSON_IsString(item) ? item->valuestring : "";
        mcps_verdict verdict = strcmp(s, "FAIL") == 0    ? MCPS_VERDICT_FAIL
                               : strcmp(s, "WARN") == 0  ? MCPS_VERDICT_WARN
                               : strcmp(s, "ERROR") == 0 ? MCPS_VERDICT_ERROR
                                                         : MCPS_VERDICT_COUNT;
        if (verdict == MCPS_VERDICT_COUNT)
            return fail_entry(ld, i, "verdicts",
                              "\"%.20s\" cannot be baselined (FAIL, WARN or "
                              "ERROR)",
                              s);
        e->verdicts |= MCPS_BASELINE_VERDICT(verdict);
    }
    return true;
}

static bool same_target(const mcps_baseline_entry *a, const mcps_baseline_entry *b)
{
    return a->requirement == b->requirement && a->revision == b->revision &&
           strcmp(a->match, b->match) == 0;
}

static bool load_entry(loader *ld, size_t i, const cJSON *o, mcps_baseline *out)
{
    static const char *const allowed[] = {"case",    "requirement", "revision", "reason",
                                          "expires", "verdicts",    NULL};
    mcps_baseline_entry *e = &out->entries[out->n];
    *e = (mcps_baseline_entry){.line = entry_line(ld, i, NULL)};
    if (!cJSON_IsObject(o))
        return fail_entry(ld, i, NULL, "an entry is an object");
    bool ok = only_members(ld, o, i, allowed) && load_match(ld, i, o, e) &&
              load_revision(ld, i, o, e) && load_reason(ld, i, o, e) && load_expires(ld, i, o, e) &&
              load_verdicts(ld, i, o, e);
    for (size_t k = 0; ok && k < out->n; k++)
        if (same_target(&out->entries[k], e))
            ok = fail_entry(ld, i, e->requirement ? "requirement" : "case",
                            "\"%.80s\" on %s is already listed on line %zu", e->match,
                            e->revision == MCPS_REV_NONE ? "all" : mcps_rev_name(e->revision),
                            out->entries[k].line);
    out->n++; /* counted even when bad, so mcps_baseline_free frees what it holds */
    return ok;
}

/* ---- the file ------------------------------------------------------------------------- */

static bool load_header(loader *ld, const cJSON *root)
{
    static const char *const allowed[] = {"$schema",     "schema",   "version",
                                          "description", "expected", NULL};
    if (!cJSON_IsObject(root))
        return fail(ld, 1, "a baseline is a %s (docs/baseline.md)",
                    ld->yaml ? "YAML mapping" : "JSON object");
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    if (cJSON_IsString(schema) && strcmp(schema->valuestring, "mcpspec-report") == 0)
        return fail(ld, 1,
                    "this is a report, not a baseline: make one with "
                    "`mcpspec baseline --from %s --out FILE`",
                    ld->path);
    if (!only_members(ld, root, (size_t)-1, allowed))
        return false;
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, MCPS_BASELINE_SCHEMA) != 0)
        return fail(ld, root_line(ld, "schema"),
                    "schema: \"" MCPS_BASELINE_SCHEMA "\" is required");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(root, "version");
    size_t vline = root_line(ld, "version");
    if (!cJSON_IsNumber(version) || !mcps_json_number_is_integer(version))
        return fail(ld, vline, "version: the integer %d is required", MCPS_BASELINE_VERSION);
    if (version->valuedouble != MCPS_BASELINE_VERSION)
        return fail(ld, vline, "version %s is not one this mcpspec reads (%d)",
                    mcps_json_number_text(version), MCPS_BASELINE_VERSION);
    const cJSON *expected = cJSON_GetObjectItemCaseSensitive(root, "expected");
    if (!cJSON_IsArray(expected))
        return fail(ld, root_line(ld, "expected"), "expected: an array of entries is required");
    return true;
}

static bool load_root(loader *ld, const cJSON *root, mcps_baseline *out)
{
    if (!load_header(ld, root))
        return false;
    const cJSON *expected = cJSON_GetObjectItemCaseSensitive(root, "expected");
    size_t n = (size_t)cJSON_GetArraySize(expected);
    if (n > MCPS_BASELINE_MAX_ENTRIES)
        return fail(ld, 0, "%zu entries: at most %zu", n, MCPS_BASELINE_MAX_ENTRIES);
    if (!mcps_array_reserve(&out->entries, &out->cap, n ? n : 1, sizeof *out->entries, 1))
        return fail(ld, 0, "out of memory");
    size_t i = 0;
    for (const cJSON *o = expected->child; o; o = o->next, i++)
        if (!load_entry(ld, i, o, out))
            return false;
    return true;
}

/* Invalid JSON, and the duplicate keys the strict parser reports as findings. */
static bool parse_text(loader *ld, mcps_json_result *r)
{
    if (!mcps_json_parse_spotted(ld->text, ld->len, NULL, r, &ld->spots))
        return fail(ld, line_at(ld, r->error_offset), "invalid JSON: %s", r->error);
    for (size_t k = 0; k < r->nfindings && k < MCPS_JSON_MAX_FINDINGS; k++)
        if (r->findings[k].kind == MCPS_JSON_DUPLICATE_KEY)
            return fail(ld, line_at(ld, r->findings[k].offset), "%s", r->findings[k].detail);
    return true;
}

bool mcps_baseline_is_yaml_name(const char *path)
{
    size_t n = strlen(path);
    return (n > 5 && strcmp(path + n - 5, ".yaml") == 0) ||
           (n > 4 && strcmp(path + n - 4, ".yml") == 0);
}

static bool parse_yaml(loader *ld, mcps_yaml_tree *t)
{
    size_t line;
    char why[400];
    return mcps_yaml_parse(ld->text, ld->len, t, &line, why, sizeof why) ||
           fail(ld, line, "%s", why);
}

/* A YAML file's tree, given to the JSON loader as the strict codec's result. */
static bool parse_any(loader *ld, mcps_yaml_tree *t, mcps_json_result *r)
{
    if (!mcps_baseline_is_yaml_name(ld->path))
        return parse_text(ld, r);
    if (!parse_yaml(ld, t))
        return false;
    ld->yaml = t;
    r->root = t->root;
    return true;
}

bool mcps_baseline_parse(const char *path, const char *text, size_t len, mcps_baseline *out,
                         char *err, size_t errlen)
{
    loader ld = {.path = path, .text = text, .len = len, .err = err, .errlen = errlen};
    *out = (mcps_baseline){0};
    err[0] = '\0';
    mcps_json_result r = {0};
    mcps_yaml_tree yaml = {0};
    bool ok = parse_any(&ld, &yaml, &r);
    ld.root = r.root;
    ok = ok && load_root(&ld, r.root, out);
    if (ok && !(out->file = strdup(path)))
        ok = fail(&ld, 0, "out of memory");
    if (ld.yaml)
        mcps_yaml_free(&yaml);
    else
        mcps_json_delete(r.root);
    mcps_json_spots_free(&ld.spots);
    if (!ok)
        mcps_baseline_free(out);
    return ok;
}

/* The whole file, refused past MCPS_BASELINE_MAX_BYTES. */
static char *read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    mcps_buf b = {0};
    int why = mcps_file_read(&b, path, MCPS_BASELINE_MAX_BYTES);
    if (why) {
        snprintf(err, errlen, "%s: %s%s", path, why == EFBIG ? "" : "cannot open: ",
                 why == EFBIG ? "longer than 4 MiB" : strerror(why));
        mcps_buf_free(&b);
        return NULL;
    }
    *len = b.len;
    return mcps_buf_take(&b);
}

bool mcps_baseline_load(const char *path, mcps_baseline *out, char *err, size_t errlen)
{
    size_t len = 0;
    *out = (mcps_baseline){0};
    char *text = read_file(path, &len, err, errlen);
    if (!text)
        return false;
    bool ok = mcps_baseline_parse(path, text, len, out, err, errlen);
    free(text);
    return ok;
}

void mcps_baseline_free(mcps_baseline *b)
{
    for (size_t i = 0; i < b->n; i++) {
        free(b->entries[i].match);
        free(b->entries[i].reason);
    }
    free(b->entries);
    free(b->file);
    *b = (mcps_baseline){0};
}
