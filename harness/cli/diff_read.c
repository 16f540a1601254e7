/*
 * diff_read.c - reading a report.json into the digest diff.h describes, for
 * `mcpspec diff` and `mcpspec matrix` alike.
 *
 * Reports are read with the strict codec and boiled down to ids, verdicts and
 * a clipped observation, so the parsed tree (wire logs and all) is freed at
 * once: memory is one input at a time plus a little per case. A report is
 * checked as far as these readers rely on it, and what is wrong is said with
 * the file (and the line, for invalid JSON).
 */
#include "base/array.h"
#include "base/buf.h"
#include "base/file.h"
#include "cli/diff.h"
#include "codec/json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DIFF_MAX_FILE MCPS_JSON_DEFAULT_MAX_BYTES /* what the codec parses at most */
#define DIFF_KEEP     ((size_t)1024)              /* bytes kept of an observation or detail */
#define ELLIPSIS      "\xE2\x80\xA6"

int mcps_diff_case_order(const void *a, const void *b)
{
    const mcps_diff_case *x = a, *y = b;
    int c = strcmp(x->rev, y->rev);
    return c ? c : strcmp(x->id, y->id);
}

void mcps_diff_report_free(mcps_diff_report *r)
{
    for (size_t i = 0; i < r->ncases; i++) {
        free(r->cases[i].rev);
        free(r->cases[i].id);
        free(r->cases[i].broken);
        free(r->cases[i].detail);
    }
    for (size_t i = 0; i < r->nrevs; i++) {
        free(r->revs[i].name);
        free(r->revs[i].detail);
    }
    free(r->cases);
    free(r->revs);
    free(r->target);
    free(r->started_at);
    free(r->tool_version);
    free(r->fatal);
}

static bool invalid(mcps_diff_report *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static bool invalid(mcps_diff_report *r, const char *fmt, ...)
{
    char why[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(r->err, sizeof r->err, "%s: not an mcpspec report: %s", r->path, why);
    return false;
}

static bool out_of_memory(mcps_diff_report *r)
{
    snprintf(r->err, sizeof r->err, "%s: out of memory", r->path);
    return false;
}

/* A copy of s (NULL stays NULL), cut to max bytes at a code point with an ellipsis. */
static char *keep(mcps_diff_report *r, const char *s, size_t max)
{
    if (!s)
        return NULL;
    size_t n = strlen(s), cut = n;
    if (n > max) {
        cut = max; /* back to the start of a character (the codec's C0 80 stays whole too) */
        while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
            cut--;
    }
    char *c = malloc(cut + sizeof ELLIPSIS);
    if (!c) {
        r->oom = true;
        return NULL;
    }
    memcpy(c, s, cut);
    strcpy(c + cut, cut < n ? ELLIPSIS : "");
    return c;
}

static const char *str_member(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A report folder (mcpspec run --out DIR) stands for the report.json in it. */
static void set_path(mcps_diff_report *r, const char *given)
{
    struct stat st;
    r->path = given;
    if (stat(given, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(r->pathbuf, sizeof r->pathbuf, "%s/report.json", given);
        r->path = r->pathbuf;
    }
}

/* The file's bytes: at most DIFF_MAX_FILE of them, since a report is parsed whole. */
static bool read_all(mcps_diff_report *r, mcps_buf *text)
{
    int err = mcps_file_read(text, r->path, DIFF_MAX_FILE);
    if (err == ENOMEM)
        return out_of_memory(r);
    if (err == EFBIG)
        snprintf(r->err, sizeof r->err, "%s: larger than %zu MiB: not a report mcpspec writes",
                 r->path, DIFF_MAX_FILE >> 20);
    else if (err)
        snprintf(r->err, sizeof r->err, "%s: cannot open: %s", r->path, strerror(err));
    return !err;
}

static cJSON *parse(mcps_diff_report *r, const mcps_buf *text)
{
    const char *s = text->data ? text->data : "";
    mcps_json_result res;
    if (mcps_json_parse(s, text->len, NULL, &res))
        return res.root;
    size_t column, line = mcps_file_line_at(s, text->len, res.error_offset, &column);
    snprintf(r->err, sizeof r->err, "%s:%zu: invalid JSON (column %zu): %s", r->path, line, column,
             res.error);
    return NULL;
}

static bool load_header(mcps_diff_report *r, const cJSON *root)
{
    const char *schema = str_member(root, "schema");
    if (!schema || strcmp(schema, "mcpspec-report") != 0)
        return invalid(r, "no \"schema\": \"mcpspec-report\"");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "schema_version");
    if (!cJSON_IsNumber(v) || !mcps_json_number_is_integer(v))
        return invalid(r, "no integer \"schema_version\"");
    if (v->valuedouble != MCPS_REPORT_SCHEMA_VERSION)
        return invalid(r, "schema_version %g, and this mcpspec reads version %d", v->valuedouble,
                       MCPS_REPORT_SCHEMA_VERSION);
    const cJSON *fatal = cJSON_GetObjectItemCaseSensitive(root, "fatal");
    const cJSON *strict = cJSON_GetObjectItemCaseSensitive(root, "strict");
    if (!cJSON_IsNull(fatal) && !cJSON_IsString(fatal))
        return invalid(r, "\"fatal\" is neither a string nor null");
    if (strict && !cJSON_IsBool(strict))
        return invalid(r, "\"strict\" is not a boolean");
    r->strict = cJSON_IsTrue(strict);
    r->fatal = keep(r, str_member(root, "fatal"), DIFF_KEEP);
    r->target = keep(r, str_member(root, "target"), DIFF_KEEP);
    r->started_at = keep(r, str_member(root, "started_at"), 64);
    r->tool_version = keep(r, str_member(root, "tool_version"), 64);
    return !r->oom || out_of_memory(r);
}

static bool load_revision(mcps_diff_report *r, const cJSON *e, size_t i)
{
    const char *name = str_member(e, "revision");
    const cJSON *probed = cJSON_GetObjectItemCaseSensitive(e, "probed");
    const cJSON *supported = cJSON_GetObjectItemCaseSensitive(e, "supported");
    if (!name || !cJSON_IsBool(probed) || !cJSON_IsBool(supported))
        return invalid(r, "revisions[%zu] needs \"revision\", \"probed\" and \"supported\"", i);
    if (!mcps_array_reserve(&r->revs, &r->revs_cap, r->nrevs + 1, sizeof *r->revs, 8))
        return out_of_memory(r);
    r->revs[r->nrevs++] = (mcps_diff_rev){
        .name = keep(r, name, SIZE_MAX),
        .status = cJSON_IsTrue(supported) ? MCPS_DIFF_SUPPORTED
                  : cJSON_IsTrue(probed)  ? MCPS_DIFF_UNSUPPORTED
                                          : MCPS_DIFF_NOT_PROBED,
        .detail = keep(r, str_member(e, "detail"), DIFF_KEEP),
    };
    return !r->oom || out_of_memory(r);
}

static bool parse_verdict(const char *s, mcps_verdict *v)
{
    for (int i = 0; s && i < MCPS_VERDICT_COUNT; i++)
        if (strcmp(s, mcps_verdict_name((mcps_verdict)i)) == 0) {
            *v = (mcps_verdict)i;
            return true;
        }
    return false;
}

/* What a line shows of a case: for SKIP and ERROR why it did not run, else what was observed. */
static const char *case_detail(const cJSON *e, mcps_verdict v)
{
    const char *observed = str_member(e, "observed"), *reason = str_member(e, "reason");
    bool why_first = v == MCPS_VERDICT_SKIP || v == MCPS_VERDICT_ERROR;
    const char *first = why_first ? reason : observed;
    return first ? first : why_first ? observed : reason;
}

static char *broken_ids(mcps_diff_report *r, const cJSON *e)
{
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(e, "broken");
    mcps_buf b = {0};
    for (const cJSON *id = cJSON_IsArray(ids) ? ids->child : NULL; id; id = id->next)
        if (cJSON_IsString(id))
            mcps_buf_printf(&b, "%s%s", b.len ? " " : "", id->valuestring);
    char *s = b.len || b.oom ? keep(r, b.data, 200) : NULL;
    r->oom |= b.oom;
    mcps_buf_free(&b);
    return s;
}

static bool load_case(mcps_diff_report *r, const cJSON *e, size_t i)
{
    const char *id = str_member(e, "id"), *rev = str_member(e, "revision");
    mcps_verdict v;
    if (!id || !rev || !parse_verdict(str_member(e, "verdict"), &v))
        return invalid(r,
                       "cases[%zu] needs \"id\", \"revision\" and a \"verdict\" (PASS, FAIL, "
                       "WARN, INFO, SKIP or ERROR)",
                       i);
    if (!mcps_array_reserve(&r->cases, &r->cases_cap, r->ncases + 1, sizeof *r->cases, 64))
        return out_of_memory(r);
    r->cases[r->ncases++] = (mcps_diff_case){
        .rev = keep(r, rev, SIZE_MAX),
        .id = keep(r, id, SIZE_MAX),
        .verdict = v,
        .broken = broken_ids(r, e),
        .detail = keep(r, case_detail(e, v), DIFF_KEEP),
        .index = i,
        .baselined = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(e, "baseline")),
    };
    return !r->oom || out_of_memory(r);
}

static bool load_lists(mcps_diff_report *r, const cJSON *root)
{
    const cJSON *revs = cJSON_GetObjectItemCaseSensitive(root, "revisions");
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
    if (!cJSON_IsArray(revs) || !cJSON_IsArray(cases))
        return invalid(r, "no \"revisions\" and \"cases\" arrays");
    size_t i = 0;
    for (const cJSON *e = revs->child; e; e = e->next, i++)
        if (!load_revision(r, e, i))
            return false;
    i = 0;
    for (const cJSON *e = cases->child; e; e = e->next, i++)
        if (!load_case(r, e, i))
            return false;
    return true;
}

/* Sorted by revision and id, so two reports are compared in one walk. */
static bool sort_cases(mcps_diff_report *r)
{
    if (r->ncases)
        qsort(r->cases, r->ncases, sizeof *r->cases, mcps_diff_case_order);
    for (size_t i = 1; i < r->ncases; i++)
        if (mcps_diff_case_order(&r->cases[i - 1], &r->cases[i]) == 0)
            return invalid(r, "case %.200s appears twice on revision %.40s", r->cases[i].id,
                           r->cases[i].rev);
    return true;
}

bool mcps_diff_report_load(mcps_diff_report *r, const char *given)
{
    set_path(r, given);
    mcps_buf text = {0};
    cJSON *root = read_all(r, &text) ? parse(r, &text) : NULL;
    mcps_buf_free(&text);
    bool ok = root && (cJSON_IsObject(root) || invalid(r, "not a JSON object")) &&
              load_header(r, root) && load_lists(r, root) && sort_cases(r);
    mcps_json_delete(root);
    return ok;
}
