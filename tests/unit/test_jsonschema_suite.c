/*
 * test_jsonschema_suite.c - the official JSON Schema Test Suite (draft 2020-12
 * and draft-07) against our validator.
 *
 * The suite, its remotes and the published meta-schemas are copied into
 * tests/data/json-schema-suite/ (MIT and BSD-3 licences beside them), so the
 * test needs nothing outside the checkout and never the network: every file
 * under remotes/ is handed to the validator as a document known by its
 * http://localhost:1234/ URI, the meta-schemas by their json-schema.org URIs.
 *
 * Every test outside optional/ must pass. A test under optional/ must pass
 * unless docs/json-schema-unsupported.md lists it (or its group, or its file,
 * with "*") with the reason: a listed test that fails counts as skipped, one
 * that passes as passed, and a row none of whose tests fails any more fails
 * the run, so the list cannot go stale. Tests under optional/format/ run with format as an
 * assertion. Per draft, the run prints passed, failed and skipped (= listed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "codec/json.h"
#include "schema/jsonschema.h"
#include "testutil.h"

#define SUITE_DIR  MCPS_SOURCE_DIR "/tests/data/json-schema-suite"
#define DOC_PATH   MCPS_SOURCE_DIR "/docs/json-schema-unsupported.md"
#define MAX_DOCS   256
#define REMOTE_URI "http://localhost:1234/"

/* The documents $ref may reach: remotes and meta-schemas, loaded once. */
typedef struct registry {
    mcps_schema_document docs[MAX_DOCS];
    cJSON *trees[MAX_DOCS];
    char *uris[MAX_DOCS];
    size_t n;
} registry;

/* One row of the documented skip list, and whether any test it covers passed or failed. */
typedef struct skip_row {
    char draft[32], file[128], group[256], test[256];
    size_t covered, passed;
    bool used;
} skip_row;

typedef struct tally {
    size_t passed, failed, skipped;
    size_t opt_passed, opt_skipped;
} tally;

typedef struct run {
    const char *draft;
    registry reg;
    skip_row rows[256];
    size_t nrows;
    tally t;
} run;

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = malloc(n);
    assert_non_null(s);
    snprintf(s, n, "%s/%s", a, b);
    return s;
}

static cJSON *load_json(const char *path)
{
    size_t len = 0;
    char *text = testutil_read_file(path, &len);
    if (!text)
        fail_msg("cannot read %s", path);
    cJSON *v = mcps_json_parse_simple(text, len);
    free(text);
    if (!v)
        fail_msg("%s is not JSON", path);
    return v;
}

static void add_doc(registry *r, const char *uri, const char *path)
{
    assert_true(r->n < MAX_DOCS);
    r->trees[r->n] = load_json(path);
    r->uris[r->n] = strdup(uri);
    r->docs[r->n] = (mcps_schema_document){r->uris[r->n], r->trees[r->n]};
    r->n++;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Every *.json under dir, known as uri_prefix + its relative path. */
static void add_tree(registry *r, const char *dir, const char *uri_prefix)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *path = join(dir, e->d_name);
        size_t n = strlen(uri_prefix) + strlen(e->d_name) + 2;
        char *uri = malloc(n);
        assert_non_null(uri);
        snprintf(uri, n, "%s%s", uri_prefix, e->d_name);
        if (is_dir(path)) {
            strcat(uri, "/");
            add_tree(r, path, uri);
        } else if (strlen(e->d_name) > 5 &&
                   strcmp(e->d_name + strlen(e->d_name) - 5, ".json") == 0) {
            add_doc(r, uri, path);
        }
        free(uri);
        free(path);
    }
    closedir(d);
}

static void load_registry(registry *r)
{
    static const char *const meta2020[] = {"applicator",        "content",          "core",
                                           "format-annotation", "format-assertion", "meta-data",
                                           "unevaluated",       "validation"};
    char path[512], uri[256];
    add_tree(r, SUITE_DIR "/remotes", REMOTE_URI);
    add_doc(r, "https://json-schema.org/draft/2020-12/schema",
            SUITE_DIR "/metaschemas/draft2020-12/schema.json");
    for (size_t i = 0; i < sizeof meta2020 / sizeof *meta2020; i++) {
        snprintf(path, sizeof path, "%s/metaschemas/draft2020-12/meta/%s.json", SUITE_DIR,
                 meta2020[i]);
        snprintf(uri, sizeof uri, "https://json-schema.org/draft/2020-12/meta/%s", meta2020[i]);
        add_doc(r, uri, path);
    }
    add_doc(r, "http://json-schema.org/draft-07/schema",
            SUITE_DIR "/metaschemas/draft7/schema.json");
}

static void free_registry(registry *r)
{
    for (size_t i = 0; i < r->n; i++) {
        mcps_json_delete(r->trees[i]);
        free(r->uris[i]);
    }
    r->n = 0;
}

/* ---- the skip list: rows "| draft | file | group | test | why |" of the doc ---- */

static void trim_cell(char *dst, size_t cap, const char *from, const char *to)
{
    while (from < to && *from == ' ')
        from++;
    while (to > from && to[-1] == ' ')
        to--;
    size_t n = (size_t)(to - from) < cap - 1 ? (size_t)(to - from) : cap - 1;
    memcpy(dst, from, n);
    dst[n] = '\0';
    /* Cells quote descriptions in backticks, so a | in them cannot split the row. */
    if (n >= 2 && dst[0] == '`' && dst[n - 1] == '`') {
        memmove(dst, dst + 1, n - 2);
        dst[n - 2] = '\0';
    }
}

/* Split one table row into cells; a | inside `...` does not split. Returns the count. */
static size_t split_row(const char *line, const char *end, const char **cells, size_t max)
{
    size_t n = 0;
    bool code = false;
    for (const char *p = line; p < end && n < max; p++) {
        if (*p == '`')
            code = !code;
        else if (*p == '|' && !code)
            cells[n++] = p;
    }
    return n;
}

static void load_skips(run *r)
{
    size_t len;
    char *doc = testutil_read_file(DOC_PATH, &len);
    assert_non_null(doc);
    for (char *line = doc; line && *line;) {
        char *end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        const char *cells[8];
        size_t n = line[0] == '|' ? split_row(line, end, cells, 8) : 0;
        if (n >= 6 && strncmp(line, "| draft |", 9) != 0 && strncmp(line, "|---", 4) != 0) {
            skip_row *row = &r->rows[r->nrows];
            trim_cell(row->draft, sizeof row->draft, cells[0] + 1, cells[1]);
            trim_cell(row->file, sizeof row->file, cells[1] + 1, cells[2]);
            trim_cell(row->group, sizeof row->group, cells[2] + 1, cells[3]);
            trim_cell(row->test, sizeof row->test, cells[3] + 1, cells[4]);
            if (strcmp(row->draft, r->draft) == 0) {
                if (strncmp(row->file, "optional/", 9) != 0)
                    fail_msg("%s: only optional/ tests may be listed, not %s", DOC_PATH, row->file);
                assert_true(++r->nrows < sizeof r->rows / sizeof *r->rows);
            }
        }
        line = *end ? end + 1 : end;
    }
    free(doc);
}

static bool cell_matches(const char *cell, const char *value)
{
    return strcmp(cell, "*") == 0 || strcmp(cell, value) == 0;
}

static skip_row *listed(run *r, const char *file, const char *group, const char *test)
{
    for (size_t i = 0; i < r->nrows; i++)
        if (strcmp(r->rows[i].file, file) == 0 && cell_matches(r->rows[i].group, group) &&
            cell_matches(r->rows[i].test, test))
            return &r->rows[i];
    return NULL;
}

/* ---- running the tests ------------------------------------------------------------ */

static void report_failure(const char *file, const char *group, const char *test, bool want,
                           const mcps_schema_result *res)
{
    print_error("FAIL %s: %s / %s: expected %s, got %s\n", file, group, test,
                want ? "valid" : "invalid", mcps_schema_verdict_name(res->verdict));
    for (size_t i = 0; i < res->nkept && i < 3; i++)
        print_error("    [%s] at '%s' (schema '%s'): %s\n",
                    mcps_schema_verdict_name(res->errors[i].kind), res->errors[i].instance_path,
                    res->errors[i].schema_path, res->errors[i].message);
}

static void suite_test(run *r, const char *file, const cJSON *group, const cJSON *test,
                       const mcps_schema_options *opts)
{
    const char *gdesc = cJSON_GetObjectItem(group, "description")->valuestring;
    const char *tdesc = cJSON_GetObjectItem(test, "description")->valuestring;
    bool want = cJSON_IsTrue(cJSON_GetObjectItem(test, "valid"));
    mcps_schema_result res;
    mcps_schema_validate(cJSON_GetObjectItem(group, "schema"), cJSON_GetObjectItem(test, "data"),
                         opts, &res);
    bool ok = res.verdict == (want ? MCPS_SCHEMA_VALID : MCPS_SCHEMA_INVALID);
    bool optional = strncmp(file, "optional/", 9) == 0;
    skip_row *row = optional ? listed(r, file, gdesc, tdesc) : NULL;
    if (row) {
        row->used = true;
        row->covered++;
        row->passed += ok;
    }
    if (row && !ok) {
        r->t.skipped++;
        r->t.opt_skipped++;
    } else if (ok) {
        r->t.passed++;
        r->t.opt_passed += optional;
    } else {
        r->t.failed++;
        report_failure(file, gdesc, tdesc, want, &res);
    }
    mcps_schema_result_free(&res);
}

static void suite_file(run *r, const char *dir, const char *rel)
{
    char *path = join(dir, rel);
    cJSON *groups = load_json(path);
    mcps_schema_options opts = mcps_schema_default_options();
    opts.documents = r->reg.docs;
    opts.ndocuments = r->reg.n;
    opts.format_assertion = strncmp(rel, "optional/format/", 16) == 0;
    opts.dialect = strcmp(r->draft, "draft7") == 0 ? MCPS_SCHEMA_DIALECT_DRAFT_07
                                                   : MCPS_SCHEMA_DIALECT_2020_12;
    cJSON *group;
    cJSON_ArrayForEach(group, groups)
    {
        cJSON *test;
        cJSON_ArrayForEach(test, cJSON_GetObjectItem(group, "tests"))
        {
            suite_test(r, rel, group, test, &opts);
        }
    }
    mcps_json_delete(groups);
    free(path);
}

static int name_order(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.json under base/rel, in name order so the output is stable. */
static void suite_dir(run *r, const char *base, const char *rel)
{
    char *dir = rel[0] ? join(base, rel) : strdup(base);
    DIR *d = opendir(dir);
    assert_non_null(d);
    char *names[256];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256)
        if (e->d_name[0] != '.')
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, name_order);
    for (size_t i = 0; i < n; i++) {
        char *sub = rel[0] ? join(rel, names[i]) : strdup(names[i]);
        char *full = join(base, sub);
        if (is_dir(full))
            suite_dir(r, base, sub);
        else if (strlen(sub) > 5 && strcmp(sub + strlen(sub) - 5, ".json") == 0)
            suite_file(r, base, sub);
        free(full);
        free(sub);
        free(names[i]);
    }
    free(dir);
}

static void run_draft(const char *draft)
{
    run *r = calloc(1, sizeof *r);
    assert_non_null(r);
    r->draft = draft;
    load_registry(&r->reg);
    load_skips(r);
    char base[512];
    snprintf(base, sizeof base, "%s/tests/%s", SUITE_DIR, draft);
    suite_dir(r, base, "");
    size_t stale = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        skip_row *row = &r->rows[i];
        if (!row->used || row->passed == row->covered) {
            stale++;
            print_error("STALE %s row %s / %s / %s: %s\n", DOC_PATH, row->file, row->group,
                        row->test,
                        row->used ? "every test it covers passes now" : "it matches no test");
        }
    }
    printf("json-schema-suite %s: %zu passed, %zu failed, %zu skipped "
           "(optional/: %zu passed, %zu skipped as documented)\n",
           draft, r->t.passed, r->t.failed, r->t.skipped, r->t.opt_passed, r->t.opt_skipped);
    fflush(stdout);
    free_registry(&r->reg);
    size_t failed = r->t.failed;
    free(r);
    assert_int_equal(failed, 0);
    assert_int_equal(stale, 0);
}

static void test_draft2020_12(void **state)
{
    (void)state;
    run_draft("draft2020-12");
}

static void test_draft7(void **state)
{
    (void)state;
    run_draft("draft7");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_draft2020_12),
        cmocka_unit_test(test_draft7),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
