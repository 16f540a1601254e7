/*
 * test_report.c - the report writers: report.json against its schema and its
 * documentation, JUnit well-formedness and totals, SARIF structure, Markdown
 * escaping and its size cap, HTML escaping, atomic writing, and the console
 * on a terminal and in a CI log, and how each format shows a baseline (an
 * excused failure, stale and expired entries). The run is built by hand with every verdict,
 * several revisions and hostile wire bytes (invalid UTF-8, NUL, ESC, "]]>",
 * "<script>").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "codec/json.h"
#include "schema/jsonschema.h"
#include "report/console.h"
#include "report/report.h"
#include "report/report_internal.h"
#include "testutil.h"

/* ---- building a run ------------------------------------------------------------ */

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void add_wire(mcps_case_result *c, int64_t t_us, mcps_wire_dir dir, const char *bytes,
                     size_t len, size_t wire_len)
{
    c->wire = realloc(c->wire, (c->nwire + 1) * sizeof *c->wire);
    assert_non_null(c->wire);
    mcps_wire_entry *w = &c->wire[c->nwire++];
    w->t_us = t_us;
    w->dir = dir;
    w->bytes = malloc(len + 1);
    assert_non_null(w->bytes);
    memcpy(w->bytes, bytes, len);
    w->bytes[len] = '\0';
    w->len = len;
    w->wire_len = wire_len;
}

static void add_note(mcps_case_result *c, const char *reqs, const char *message)
{
    c->notes = realloc(c->notes, (c->nnotes + 1) * sizeof *c->notes);
    assert_non_null(c->notes);
    c->notes[c->nnotes].reqs = dup_or_null(reqs);
    c->notes[c->nnotes].message = dup_or_null(message);
    c->nnotes++;
}

typedef struct case_spec {
    const char *id, *suite;
    mcps_rev rev;
    const char *reqs;
    mcps_level level;
    mcps_verdict verdict;
    const char *observed, *reason;
} case_spec;

static mcps_case_result *add_case(mcps_run_result *run, const case_spec *s)
{
    run->cases = realloc(run->cases, (run->ncases + 1) * sizeof *run->cases);
    assert_non_null(run->cases);
    mcps_case_result *c = &run->cases[run->ncases++];
    *c = (mcps_case_result){0};
    c->id = dup_or_null(s->id);
    c->suite = dup_or_null(s->suite);
    c->title = strcmp(s->suite, "misc") == 0 ? NULL : strdup("what the case checks");
    c->section = strcmp(s->suite, "misc") == 0 ? NULL : strdup("basic/lifecycle");
    c->revision = s->rev;
    c->requirements = dup_or_null(s->reqs);
    c->level = s->level;
    c->verdict = s->verdict;
    c->expected = strdup("the server echoes the requested version");
    c->observed = dup_or_null(s->observed);
    c->reason = dup_or_null(s->reason);
    c->seconds = 0.0125;
    return c;
}

/* Wire bytes a hostile peer might send; lengths are explicit (NUL inside). */
static const char bad_utf8[] = "{\"x\":\"\xff\xfe\xc3\"}";
static const char nul_esc[] = "a\0b\x1b[31mred]]><script>alert(1)</script>&amp;";
#define NUL_ESC_LEN (sizeof nul_esc - 1)

static void add_fail_wire(mcps_case_result *c)
{
    const char *req = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}";
    add_wire(c, 123, MCPS_WIRE_SENT, req, strlen(req), strlen(req));
    add_wire(c, 2500, MCPS_WIRE_RECEIVED, bad_utf8, strlen(bad_utf8), strlen(bad_utf8));
    add_wire(c, 2600, MCPS_WIRE_RECEIVED, nul_esc, NUL_ESC_LEN, NUL_ESC_LEN);
    add_wire(c, 2700, MCPS_WIRE_STDERR, "line1 ```\nline2\r\n", 17, 17);
    char big[100];
    memset(big, 'A', sizeof big);
    add_wire(c, 3000, MCPS_WIRE_RECEIVED, big, sizeof big, 5000);
    add_wire(c, 1000000, MCPS_WIRE_EVENT, "exited with status 1", 20, 20);
    c->wire_dropped = 2;
    add_note(c, "LIFE-VER-003", "answered with an older version | <b>");
    add_note(c, NULL, "harness note");
}

static const case_spec fixture_cases[] = {
    {"lifecycle/initialize-result", "lifecycle", MCPS_REV_2025_06_18, "LIFE-INIT-003 LIFE-VER-003",
     MCPS_LEVEL_MUST, MCPS_VERDICT_PASS, "initialize answered", NULL},
    {"lifecycle/version-echo", "lifecycle", MCPS_REV_2025_06_18, "LIFE-VER-003", MCPS_LEVEL_MUST,
     MCPS_VERDICT_FAIL, "answered `2024-11-05` | a|b | <script>alert(1)</script> & *bold*", NULL},
    {"lifecycle/version-echo", "lifecycle", MCPS_REV_2025_03_26, "LIFE-VER-003", MCPS_LEVEL_MUST,
     MCPS_VERDICT_FAIL, "control \x01\x02\x1b]0;pwned\x07 bytes\nsecond line", NULL},
    {"lifecycle/ping-timeout", "lifecycle", MCPS_REV_2025_03_26, "LIFE-TIME-001", MCPS_LEVEL_SHOULD,
     MCPS_VERDICT_WARN, "no timeout applied", NULL},
    {"lifecycle/shutdown", "lifecycle", MCPS_REV_2025_06_18, "LIFE-SHUT-002", MCPS_LEVEL_MAY,
     MCPS_VERDICT_INFO, "server exits on stdin close", NULL},
    {"tools/list", "tools", MCPS_REV_2025_06_18, "TOOLS-001", MCPS_LEVEL_MUST, MCPS_VERDICT_SKIP,
     NULL, "server has no tools capability"},
    {"tools/call", "tools", MCPS_REV_2025_06_18, "", MCPS_LEVEL_MUST, MCPS_VERDICT_ERROR, NULL,
     "timed out after 5 s"},
    {"misc/unknown-req", "misc", MCPS_REV_2024_11_05, "XX-NOT-IN-CATALOG", MCPS_LEVEL_MUST,
     MCPS_VERDICT_FAIL, "bad \xff byte", NULL},
    {"misc/no-req", "misc", MCPS_REV_2024_11_05, NULL, MCPS_LEVEL_SHOULD, MCPS_VERDICT_WARN,
     "a SHOULD without an ID", NULL},
};
#define NFIXTURE (sizeof fixture_cases / sizeof *fixture_cases)

static mcps_run_result *make_run(void)
{
    mcps_run_result *run = calloc(1, sizeof *run);
    assert_non_null(run);
    run->tool_version = strdup("0.1.0");
    run->target = strdup("node server.js --name \"a|b\" <script>x</script>");
    run->transport = strdup("stdio");
    run->started_at = strdup("2025-06-18T12:00:00Z");
    run->seconds = 3.25;
    for (int r = 0; r < MCPS_REV_COUNT; r++)
        run->probes[r].revision = (mcps_rev)r;
    run->probes[MCPS_REV_2024_11_05] =
        (mcps_rev_probe){.revision = MCPS_REV_2024_11_05,
                         .probed = true,
                         .detail = strdup("answered 2025-06-18 instead")};
    run->probes[MCPS_REV_2025_03_26] = (mcps_rev_probe){
        .revision = MCPS_REV_2025_03_26, .probed = true, .supported = true, .tested = true};
    run->probes[MCPS_REV_2025_06_18] =
        (mcps_rev_probe){.revision = MCPS_REV_2025_06_18,
                         .probed = true,
                         .supported = true,
                         .tested = true,
                         .detail = strdup("initialize answered 2025-06-18")};
    for (size_t i = 0; i < NFIXTURE; i++) {
        mcps_case_result *c = add_case(run, &fixture_cases[i]);
        if (i == 0)
            add_wire(c, 5, MCPS_WIRE_SENT, "{}", 2, 2);
        if (i == 1)
            add_fail_wire(c);
    }
    mcps_run_result_count(run);
    return run;
}

static void free_run(mcps_run_result *run)
{
    mcps_run_result_free(run);
    free(run);
}

static char *render(const mcps_run_result *run, unsigned format, size_t *len)
{
    mcps_buf b = {0};
    assert_true(mcps_report_render(run, format, &b));
    *len = b.len;
    return mcps_buf_take(&b);
}

static cJSON *render_json(const mcps_run_result *run, unsigned format, char **text)
{
    size_t len;
    *text = render(run, format, &len);
    mcps_json_result r;
    if (!mcps_json_parse(*text, len, NULL, &r))
        fail_msg("not JSON: %s at %zu", r.error, r.error_offset);
    assert_int_equal(r.nfindings, 0);
    return r.root;
}

static const cJSON *get(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        fail_msg("missing member \"%s\"", key);
    return v;
}

static const char *get_str(const cJSON *o, const char *key)
{
    const cJSON *v = get(o, key);
    assert_true(cJSON_IsString(v));
    return v->valuestring;
}

static double get_num(const cJSON *o, const char *key)
{
    const cJSON *v = get(o, key);
    assert_true(cJSON_IsNumber(v));
    return v->valuedouble;
}

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* ---- report.json --------------------------------------------------------------- */

static void check_members(const cJSON *o, const char *const *keys)
{
    for (; *keys; keys++)
        get(o, *keys);
}

static const char *const top_keys[] = {
    "schema",  "schema_version", "tool",  "tool_version", "target",  "transport", "started_at",
    "seconds", "strict",         "fatal", "revisions",    "summary", "cases",     NULL};
static const char *const case_keys[] = {"id",       "suite",        "title",        "section",
                                        "revision", "requirements", "level",        "verdict",
                                        "expected", "observed",     "reason",       "seconds",
                                        "notes",    "wire",         "wire_dropped", NULL};
static const char *const wire_keys[] = {"t", "dir", "text", "bytes", "truncated", NULL};

static void check_summary(const cJSON *root)
{
    const cJSON *summary = get(root, "summary");
    const cJSON *counts = get(summary, "counts");
    static const double want[] = {1, 3, 2, 1, 1, 1};
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
        assert_true(get_num(counts, mcps_verdict_name((mcps_verdict)v)) == want[v]);
    assert_true(get_num(summary, "total") == NFIXTURE);
    assert_true(get_num(summary, "exit_code") == 1);
    assert_string_equal(get_str(summary, "outcome"), "fail");
}

static void check_cases(const cJSON *cases)
{
    assert_int_equal(cJSON_GetArraySize(cases), NFIXTURE);
    const cJSON *c;
    cJSON_ArrayForEach(c, cases)
    {
        check_members(c, case_keys);
        const cJSON *w;
        cJSON_ArrayForEach(w, get(c, "wire")) check_members(w, wire_keys);
    }
    const cJSON *req = cJSON_GetArrayItem(get(cJSON_GetArrayItem(cases, 0), "requirements"), 1);
    assert_string_equal(get_str(req, "id"), "LIFE-VER-003");
    assert_string_equal(get_str(req, "level"), "MUST");
    assert_string_equal(get_str(req, "text"), mcps_catalog_find("LIFE-VER-003")->text);
    const cJSON *unknown = cJSON_GetArrayItem(get(cJSON_GetArrayItem(cases, 7), "requirements"), 0);
    assert_true(cJSON_IsNull(get(unknown, "level")));
    assert_true(cJSON_IsNull(get(cJSON_GetArrayItem(cases, 7), "title")));
    assert_string_equal(get_str(cJSON_GetArrayItem(cases, 2), "revision"), "2025-03-26");
}

static size_t base64_decode(const char *in, unsigned char *out)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (; *in && *in != '='; in++) {
        acc = (acc << 6) | (uint32_t)(strchr(digits, *in) - digits);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (unsigned char)(acc >> bits);
        }
    }
    return n;
}

static void check_wire(const cJSON *cases, const char *text)
{
    const cJSON *wire = get(cJSON_GetArrayItem(cases, 1), "wire");
    const cJSON *bad = cJSON_GetArrayItem(wire, 1);
    assert_non_null(strstr(get_str(bad, "text"), "\xEF\xBF\xBD"));
    unsigned char raw[64];
    size_t n = base64_decode(get_str(bad, "base64"), raw);
    assert_int_equal(n, strlen(bad_utf8));
    assert_memory_equal(raw, bad_utf8, n);
    const cJSON *nul = cJSON_GetArrayItem(wire, 2);
    assert_null(cJSON_GetObjectItemCaseSensitive(nul, "base64")); /* NUL and ESC are valid UTF-8 */
    assert_non_null(strstr(text, "a\\u0000b\\u001b[31mred]]><script>"));
    const cJSON *cut = cJSON_GetArrayItem(wire, 4);
    assert_true(cJSON_IsTrue(get(cut, "truncated")));
    assert_true(get_num(cut, "bytes") == 5000);
    assert_true(cJSON_IsFalse(get(cJSON_GetArrayItem(wire, 0), "truncated")));
    assert_non_null(strstr(text, "\"t\":0.000123,\"dir\":\"sent\""));
    assert_non_null(strstr(text, "\"t\":1.000000,\"dir\":\"event\""));
    const cJSON *notes = get(cJSON_GetArrayItem(cases, 1), "notes");
    assert_string_equal(get(notes->child, "requirements")->child->valuestring, "LIFE-VER-003");
    assert_int_equal(cJSON_GetArraySize(get(notes->child->next, "requirements")), 0);
    assert_true(get_num(cJSON_GetArrayItem(cases, 1), "wire_dropped") == 2);
}

static void test_json_report(void **state)
{
    (void)state;
    mcps_run_result *run = make_run();
    char *text;
    cJSON *root = render_json(run, MCPS_REPORT_JSON, &text);
    check_members(root, top_keys);
    assert_string_equal(get_str(root, "schema"), "mcpspec-report");
    assert_true(get_num(root, "schema_version") == MCPS_REPORT_SCHEMA_VERSION);
    assert_true(cJSON_IsNull(get(root, "fatal")));
    assert_int_equal(cJSON_GetArraySize(get(root, "revisions")), MCPS_REV_COUNT);
    const cJSON *rev0 = cJSON_GetArrayItem(get(root, "revisions"), 0);
    assert_string_equal(get_str(rev0, "revision"), "2024-11-05");
    assert_true(cJSON_IsTrue(get(rev0, "probed")) && cJSON_IsFalse(get(rev0, "supported")));
    check_summary(root);
    check_cases(get(root, "cases"));
    check_wire(get(root, "cases"), text);
    mcps_json_delete(root);
    free(text);
    free_run(run);
}

/* Whatever the engine hands over, a case's wire log in the report stays bounded. */
static void test_json_bounded(void **state)
{
    (void)state;
    mcps_run_result *run = make_run();
    size_t big = 100 * 1024;
    char *bytes = malloc(big);
    assert_non_null(bytes);
    memset(bytes, 'z', big);
    for (int i = 0; i < 40; i++)
        add_wire(&run->cases[0], i, MCPS_WIRE_RECEIVED, bytes, big, big);
    free(bytes);
    char *text;
    cJSON *root = render_json(run, MCPS_REPORT_JSON, &text);
    const cJSON *c0 = cJSON_GetArrayItem(get(root, "cases"), 0);
    const cJSON *wire = get(c0, "wire");
    int shown = cJSON_GetArraySize(wire);
    assert_true(shown > 1 && shown < 41);
    assert_true(get_num(c0, "wire_dropped") == 41 - shown);
    const cJSON *cut = cJSON_GetArrayItem(wire, 1);
    assert_true(cJSON_IsTrue(get(cut, "truncated")));
    assert_true(get_num(cut, "bytes") == (double)big);
    assert_true(strlen(get_str(cut, "text")) <= MCPS_REPORT_WIRE_ENTRY_MAX);
    assert_true(strlen(text) < 2 * MCPS_REPORT_CASE_WIRE_MAX);
    mcps_json_delete(root);
    free(text);
    free_run(run);
}

/* Every member name the report uses is documented, as `name`, in docs/report-format.md. */
static void check_documented(const cJSON *node, const char *doc)
{
    for (const cJSON *c = node->child; c; c = c->next) {
        if (c->string) {
            char needle[80];
            snprintf(needle, sizeof needle, "`%s`", c->string);
            if (!strstr(doc, needle))
                fail_msg("report.json member \"%s\" is not in docs/report-format.md", c->string);
        }
        check_documented(c, doc);
    }
}

static void test_json_documented(void **state)
{
    (void)state;
    size_t len;
    char *doc = testutil_read_file(MCPS_SOURCE_DIR "/docs/report-format.md", &len);
    assert_non_null(doc);
    mcps_run_result *run = make_run();
    char *text;
    cJSON *root = render_json(run, MCPS_REPORT_JSON, &text);
    check_documented(root, doc);
    mcps_json_delete(root);
    free(text);
    free_run(run);
    free(doc);
}

static mcps_schema_verdict validate(const cJSON *schema, const cJSON *doc)
{
    mcps_schema_result r;
    mcps_schema_verdict v = mcps_schema_validate(schema, doc, NULL, &r);
    for (size_t i = 0; i < r.nkept; i++)
        print_message("schema: %s at '%s' (%s)\n", r.errors[i].message, r.errors[i].instance_path,
                      r.errors[i].schema_path);
    mcps_schema_result_free(&r);
    return v;
}

static void test_json_schema(void **state)
{
    (void)state;
    size_t len = 0;
    char *schema_text = testutil_read_file(MCPS_SOURCE_DIR "/docs/report.schema.json", &len);
    assert_non_null(schema_text);
    cJSON *schema = mcps_json_parse_simple(schema_text, len);
    assert_non_null(schema);
    mcps_schema_result check;
    assert_int_equal(mcps_schema_check(schema, NULL, &check), MCPS_SCHEMA_VALID);
    mcps_schema_result_free(&check);

    mcps_run_result *run = make_run();
    run->fatal = strdup("target would not start");
    char *text;
    cJSON *root = render_json(run, MCPS_REPORT_JSON, &text);
    assert_int_equal(validate(schema, root), MCPS_SCHEMA_VALID);
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetArrayItem(get(root, "cases"), 1), "verdict");
    assert_int_equal(validate(schema, root), MCPS_SCHEMA_INVALID);
    mcps_json_delete(root);
    free(text);
    free_run(run);
    mcps_json_delete(schema);
    free(schema_text);
}

/* ---- junit.xml ----------------------------------------------------------------- */

static bool xml_char_ok(uint32_t cp)
{
    return cp == 9 || cp == 10 || cp == 13 || (cp >= 0x20 && cp <= 0xD7FF) ||
           (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

/* Length of the entity reference at p, or 0 when it is not one XML knows. */
static size_t entity_len(const char *p)
{
    static const char *const named[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (size_t i = 0; i < 5; i++)
        if (strncmp(p, named[i], strlen(named[i])) == 0)
            return strlen(named[i]);
    if (p[1] != '#')
        return 0;
    size_t n = 2 + (p[2] == 'x');
    size_t digits = strspn(p + n, p[2] == 'x' ? "0123456789abcdefABCDEF" : "0123456789");
    return digits && p[n + digits] == ';' ? n + digits + 1 : 0;
}

/* Character data or an attribute value, up to stop. */
static const char *xml_text(const char *p, const char *stop)
{
    while (*p && !strchr(stop, *p)) {
        if (*p == '&') {
            size_t n = entity_len(p);
            if (!n)
                return NULL;
            p += n;
            continue;
        }
        if (strncmp(p, "]]>", 3) == 0)
            return NULL;
        p++;
    }
    return p;
}

static size_t name_len(const char *p)
{
    return strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_:.");
}

/* After "<name": attributes, then ">" or "/>". NULL when malformed. */
static const char *xml_attrs(const char *p, bool *self_closing)
{
    for (;;) {
        p += strspn(p, " \t\n");
        if (p[0] == '/' && p[1] == '>') {
            *self_closing = true;
            return p + 2;
        }
        if (*p == '>') {
            *self_closing = false;
            return p + 1;
        }
        size_t n = name_len(p);
        if (!n || p[n] != '=' || p[n + 1] != '"')
            return NULL;
        p = xml_text(p + n + 2, "\"<");
        if (!p || *p != '"')
            return NULL;
        p++;
    }
}

/* A well-formedness check good enough for what junit.c writes. NULL when fine. */
static const char *xml_check(const char *doc, size_t len)
{
    size_t bad;
    if (!mcps_json_utf8_valid(doc, len, &bad))
        return "invalid UTF-8";
    for (size_t i = 0; i < len;)
        if (!xml_char_ok(mcps_report_next_cp(doc, len, &i)))
            return "a character XML 1.0 forbids";
    const char *p = doc;
    if (strncmp(p, "<?xml ", 6) == 0)
        p = strstr(p, "?>") + 2;
    char stack[32][64];
    int depth = 0, roots = 0;
    while (*p) {
        if (*p != '<') {
            const char *end = xml_text(p, "<");
            if (!end)
                return "bad & or ]]> in text";
            if (depth == 0 && strspn(p, " \n") < (size_t)(end - p))
                return "text outside the root";
            p = end;
            continue;
        }
        bool closing = p[1] == '/';
        const char *name = p + 1 + closing;
        size_t n = name_len(name);
        if (!n || n >= sizeof stack[0])
            return "bad tag name";
        if (closing) {
            if (!depth || strncmp(stack[depth - 1], name, n) || stack[depth - 1][n] ||
                name[n] != '>')
                return "unbalanced closing tag";
            depth--;
            p = name + n + 1;
            continue;
        }
        bool self_closing;
        p = xml_attrs(name + n, &self_closing);
        if (!p)
            return "bad attributes";
        roots += depth == 0;
        if (!self_closing) {
            if (depth == 32)
                return "too deep";
            memcpy(stack[depth], name, n);
            stack[depth++][n] = '\0';
        }
    }
    return depth ? "unclosed element" : roots != 1 ? "not one root" : NULL;
}

static void check_xml(const char *doc, size_t len)
{
    const char *why = xml_check(doc, len);
    if (why)
        fail_msg("junit.xml is not well-formed: %s\n%s", why, doc);
}

static void test_junit(void **state)
{
    (void)state;
    mcps_run_result *run = make_run();
    size_t len;
    char *xml = render(run, MCPS_REPORT_JUNIT, &len);
    check_xml(xml, len);
    assert_non_null(strstr(xml, "<testsuites name=\"mcpspec\" tests=\"9\" failures=\"3\" "
                                "errors=\"1\" skipped=\"1\""));
    assert_int_equal(count_of(xml, "<testsuite "), 4);
    assert_non_null(strstr(xml, "<testsuite name=\"lifecycle@2025-06-18\" tests=\"3\" "
                                "failures=\"1\" errors=\"0\" skipped=\"0\""));
    assert_non_null(strstr(xml, "<testcase classname=\"lifecycle@2025-03-26\" "
                                "name=\"lifecycle/version-echo\" time=\"0.012500\""));
    assert_int_equal(count_of(xml, "<testcase "), NFIXTURE);
    assert_int_equal(count_of(xml, "<failure "), 3);
    assert_int_equal(count_of(xml, "type=\"FAIL\""), 3);
    assert_int_equal(count_of(xml, "<error "), 1);
    assert_int_equal(count_of(xml, "<skipped message=\"server has no tools capability\"/>"), 1);
    assert_int_equal(count_of(xml, "<system-out>"), 3);   /* two WARN, one INFO */
    assert_non_null(strstr(xml, "]]&gt;&lt;script&gt;")); /* wire bytes, escaped */
    assert_non_null(strstr(xml, "\xE2\x90\x80"));         /* NUL as its Control Picture */
    assert_null(strstr(xml, "<script"));
    free(xml);

    run->strict = true;
    run->fatal = strdup("target would not start");
    xml = render(run, MCPS_REPORT_JUNIT, &len);
    check_xml(xml, len);
    assert_non_null(strstr(xml, "tests=\"10\" failures=\"5\" errors=\"2\" skipped=\"1\""));
    assert_int_equal(count_of(xml, "type=\"WARN\""), 2);
    assert_int_equal(count_of(xml, "<system-out>"), 1);
    assert_non_null(strstr(xml, "name=\"mcpspec/run\""));
    free(xml);
    free_run(run);
}

/* ---- report.sarif -------------------------------------------------------------- */

static void check_sarif_rules(const cJSON *rules)
{
    const cJSON *rule;
    cJSON_ArrayForEach(rule, rules)
    {
        assert_true(strlen(get_str(rule, "id")) > 0);
        assert_true(strlen(get_str(get(rule, "shortDescription"), "text")) > 0);
        get_str(get(rule, "properties"), "level");
        get_str(get(rule, "defaultConfiguration"), "level");
    }
    const cJSON *first = cJSON_GetArrayItem(rules, 0);
    assert_string_equal(get_str(first, "id"), "LIFE-VER-003");
    assert_string_equal(get_str(get(first, "shortDescription"), "text"),
                        mcps_catalog_find("LIFE-VER-003")->text);
    assert_string_equal(get_str(get(first, "properties"), "level"), "MUST");
}

static void check_sarif_result(const cJSON *result, const cJSON *rules)
{
    const char *rule_id = get_str(result, "ruleId");
    const cJSON *rule = cJSON_GetArrayItem(rules, (int)get_num(result, "ruleIndex"));
    assert_non_null(rule);
    assert_string_equal(get_str(rule, "id"), rule_id);
    const char *level = get_str(result, "level");
    assert_true(strcmp(level, "error") == 0 || strcmp(level, "warning") == 0);
    const char *msg = get_str(get(result, "message"), "text");
    const cJSON *loc = cJSON_GetArrayItem(get(result, "locations"), 0);
    const cJSON *art = get(get(loc, "physicalLocation"), "artifactLocation");
    assert_null(cJSON_GetObjectItemCaseSensitive(get(loc, "physicalLocation"), "region"));
    const char *uri = get_str(art, "uri");
    assert_int_equal(strncmp(uri, "suites/", 7), 0);
    assert_string_equal(uri + strlen(uri) - 6, ".suite");
    const char *name = get_str(cJSON_GetArrayItem(get(loc, "logicalLocations"), 0), "name");
    assert_int_equal(strncmp(msg, name, strlen(name)), 0);
    get_str(get(result, "partialFingerprints"), "mcpspecCase/v1");
}

static void test_sarif(void **state)
{
    (void)state;
    mcps_run_result *run = make_run();
    char *text;
    cJSON *root = render_json(run, MCPS_REPORT_SARIF, &text);
    assert_string_equal(get_str(root, "version"), "2.1.0");
    get_str(root, "$schema");
    const cJSON *runs = get(root, "runs");
    assert_int_equal(cJSON_GetArraySize(runs), 1);
    const cJSON *driver = get(get(runs->child, "tool"), "driver");
    assert_string_equal(get_str(driver, "name"), "mcpspec");
    const cJSON *rules = get(driver, "rules");
    check_sarif_rules(rules);
    const cJSON *results = get(runs->child, "results");
    assert_int_equal(cJSON_GetArraySize(results), 5); /* 3 FAIL + 2 WARN */
    const cJSON *r;
    size_t errors = 0;
    cJSON_ArrayForEach(r, results)
    {
        check_sarif_result(r, rules);
        errors += strcmp(get_str(r, "level"), "error") == 0;
    }
    assert_int_equal(errors, 3);
    assert_non_null(strstr(text, "\"uri\":\"suites/lifecycle.suite\""));
    assert_non_null(strstr(text, "\"ruleId\":\"XX-NOT-IN-CATALOG\""));
    assert_non_null(strstr(text, "\"ruleId\":\"mcpspec/unlabelled\""));
    assert_non_null(
        strstr(text, "\"ruleId\":\"LIFE-TIME-001\",\"ruleIndex\":1,\"level\":\"warning\""));
    mcps_json_delete(root);
    free(text);
    free_run(run);
}

/* ---- summary.md ---------------------------------------------------------------- */

/* Pipes not preceded by a backslash: the cell separators GFM sees. */
static size_t bare_pipes(const char *line, size_t n)
{
    size_t pipes = 0;
    for (size_t i = 0; i < n; i++)
        pipes += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
    return pipes;
}

static void check_tables(const char *md)
{
    size_t rows = 0;
    for (const char *line = md; *line;) {
        size_t n = strcspn(line, "\n");
        if (strncmp(line, "| ", 2) == 0 && strncmp(line, "| PASS", 6) != 0 &&
            strncmp(line, "| Verdict", 9) != 0 && !(line[2] >= '0' && line[2] <= '9')) {
            if (bare_pipes(line, n) != 5)
                fail_msg("table row with %zu cells: %.*s", bare_pipes(line, n) - 1, (int)n, line);
            rows++;
        }
        line += n + (line[n] == '\n');
    }
    assert_int_equal(rows, NFIXTURE - 1); /* every case but the PASS */
}

/* md without its fenced code blocks, where raw "<script>" is only text. */
static char *outside_fences(const char *md)
{
    char *out = strdup(md);
    assert_non_null(out);
    char *w = out;
    bool in_fence = false;
    for (const char *line = md; *line;) {
        size_t n = strcspn(line, "\n") + (line[strcspn(line, "\n")] == '\n');
        bool fence = strncmp(line, "```", 3) == 0;
        if (!in_fence && !fence) {
            memcpy(w, line, n);
            w += n;
        }
        in_fence ^= fence;
        line += n;
    }
    *w = '\0';
    return out;
}

static void test_markdown(void **state)
{
    (void)state;
    mcps_run_result *run = make_run();
    size_t len;
    char *md = render(run, MCPS_REPORT_MARKDOWN, &len);
    check_tables(md);
    char *prose = outside_fences(md);
    assert_null(strstr(prose, "<script"));
    assert_non_null(strstr(md, "]]><script>")); /* verbatim inside the fence */
    free(prose);
    assert_non_null(strstr(md, "a\\|b"));
    assert_non_null(strstr(md, "&lt;script&gt;"));
    assert_non_null(strstr(md, "\\*bold\\*"));
    assert_int_equal(count_of(md, "<details>"), 6); /* 3 FAIL, 1 ERROR, 2 WARN */
    assert_non_null(strstr(md, "````text\n"));      /* the wire holds ``` so the fence is longer */
    assert_non_null(strstr(md, "**Exit code 1**"));
    assert_non_null(strstr(md, "## 2025-03-26"));
    size_t bad;
    assert_true(mcps_json_utf8_valid(md, len, &bad));
    free(md);
    free_run(run);
}

/* Many large failures: the summary stops under GitHub's limit and says so. */
static void test_markdown_cap(void **state)
{
    (void)state;
    mcps_run_result *run = make_run();
    char *big = malloc(20001);
    assert_non_null(big);
    memset(big, 'x', 20000);
    big[20000] = '\0';
    for (int i = 0; i < 400; i++) {
        case_spec s = {"big/case",
                       "big",
                       MCPS_REV_2025_06_18,
                       "LIFE-VER-003",
                       MCPS_LEVEL_MUST,
                       MCPS_VERDICT_FAIL,
                       big,
                       NULL};
        add_case(run, &s);
    }
    free(big);
    size_t len;
    char *md = render(run, MCPS_REPORT_MARKDOWN, &len);
    assert_true(len <= MCPS_REPORT_MARKDOWN_MAX);
    assert_true(len > MCPS_REPORT_MARKDOWN_MAX / 2);
    assert_non_null(strstr(md, "This summary was cut"));
    assert_int_equal(count_of(md, "<details>"), count_of(md, "</details>"));
    free(md);
    free_run(run);
}

/* ---- report.html --------------------------------------------------------------- */

/* The wire logs' block of report.html, base64-decoded and inflated: the JSON array. */
static char *html_logs(const char *html)
{
    const char *start = strstr(html, "id=\"wire-logs\"");
    assert_non_null(start);
    start = strchr(start, '>') + 1;
    const char *end = strstr(start, "</script>");
    assert_non_null(end);
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = 0;
    unsigned char *z = malloc((size_t)(end - start));
    assert_non_null(z);
    uint32_t acc = 0;
    int bits = 0;
    for (const char *p = start; p < end && *p != '='; p++) {
        const char *d = strchr(digits, *p);
        assert_non_null(d);
        acc = (acc << 6) | (uint32_t)(d - digits);
        if ((bits += 6) >= 8)
            z[n++] = (unsigned char)(acc >> (bits -= 8));
    }
    uLongf len = 1 << 20;
    char *json = calloc(1, len + 1);
    assert_non_null(json);
    assert_int_equal(uncompress((Bytef *)json, &len, z, n), Z_OK);
    free(z);
    return json;
}

static void test_html(void **state)
{
    (void)state;
    mcps_run_result *run = make_run();
    size_t len;
    char *html = render(run, MCPS_REPORT_HTML, &len);
    size_t bad;
    assert_true(mcps_json_utf8_valid(html, len, &bad));
    for (size_t i = 0; i < len; i++)
        assert_true((unsigned char)html[i] >= 0x20 || html[i] == '\n');
    /* The script and the logs' inert block, nothing else; the CSP admits the script. */
    assert_int_equal(count_of(html, "<script"), 2);
    assert_int_equal(count_of(html, "</script>"), 2);
    assert_non_null(strstr(html, "<script type=\"application/octet-stream\" id=\"wire-logs\""));
    assert_non_null(strstr(html, "script-src 'sha256-"));
    assert_null(strstr(html, "http://"));
    assert_non_null(strstr(html, "Content-Security-Policy"));
    assert_non_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_int_equal(count_of(html, "<details class=\"case"), NFIXTURE);
    assert_int_equal(count_of(html, "</details>"), NFIXTURE);
    assert_non_null(
        strstr(html, "<li><code>LIFE-VER-003</code> <b>MUST</b> If the server supports"));
    assert_non_null(strstr(html, "href=\"#only-FAIL\""));
    assert_int_equal(count_of(html, "class=\"wire-slot\""), 2); /* the cases with a log */

    /* The logs: JSON, one per case that has one, with no character that could close or bend the
     * block. */
    char *logs = html_logs(html);
    cJSON *root = mcps_json_parse_simple(logs, strlen(logs));
    assert_non_null(root);
    assert_int_equal(cJSON_GetArraySize(root), 2);
    cJSON_Delete(root);
    assert_null(strpbrk(logs, "<>&"));
    assert_non_null(strstr(logs, "[\"+0.000123\",\"sent\",46,\"{\\\"jsonrpc\\\":"));
    assert_non_null(
        strstr(logs, "]]\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\\u0026amp;"));
    assert_non_null(strstr(logs, "line1 ```\\nline2\""));
    assert_non_null(strstr(logs, "\"dropped\":2,"));
    assert_int_equal(count_of(logs, "\",1]"), 1); /* the entry that is not UTF-8 */
    free(logs);
    free(html);
    free_run(run);
}

/* MCPS_ESC_JS: a JSON string that nothing can end a <script> element from. */
static void test_escape_js(void **state)
{
    (void)state;
    mcps_buf b = {0};
    const char in[] = "\"\\</script><!--\n\t&\xE2\x80\xA8\xE2\x80\xA9\x01";
    mcps_report_escape(&b, in, sizeof in - 1, MCPS_ESC_JS | MCPS_ESC_LINES);
    assert_string_equal(b.data, "\\\"\\\\\\u003c/script\\u003e\\u003c!--\\n\\t\\u0026\\u2028\\u2029"
                                "\xE2\x90\x81");
    mcps_buf_clear(&b);
    mcps_report_escape(&b, "a\nb", 3, MCPS_ESC_JS);
    assert_string_equal(b.data, "a b");
    mcps_buf_free(&b);
}

/* ---- writing ------------------------------------------------------------------- */

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        unlink(path);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char sub[1024];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        remove_tree(sub);
    }
    closedir(d);
    rmdir(path);
}

static void check_written(const mcps_run_result *run, const char *dir, unsigned format)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", dir, mcps_report_file_name(format));
    size_t len, want_len;
    char *got = testutil_read_file(path, &len);
    assert_non_null(got);
    char *want = render(run, format, &want_len);
    assert_int_equal(len, want_len);
    assert_memory_equal(got, want, len);
    free(got);
    free(want);
}

static void test_write(void **state)
{
    (void)state;
    char tmp[] = "/tmp/mcps-report-XXXXXX";
    assert_non_null(mkdtemp(tmp));
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/out/nested/", tmp);
    mcps_run_result *run = make_run();
    char err[256] = "";
    assert_true(mcps_report_write(run, dir, 0, err, sizeof err));
    for (unsigned f = 1; f & MCPS_REPORT_ALL; f <<= 1)
        check_written(run, dir, f);
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t files = 0, temporaries = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        bool dot = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
        files += !dot;
        temporaries += !dot && e->d_name[0] == '.';
    }
    closedir(d);
    assert_int_equal(files, 5);
    assert_int_equal(temporaries, 0);

    snprintf(dir, sizeof dir, "%s/file", tmp);
    FILE *f = fopen(dir, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(dir, sizeof dir, "%s/file/sub", tmp);
    assert_false(mcps_report_write(run, dir, MCPS_REPORT_JSON, err, sizeof err));
    assert_true(strlen(err) > 0);
    free_run(run);
    remove_tree(tmp);
}

static void test_formats(void **state)
{
    (void)state;
    unsigned f = 0;
    assert_true(mcps_report_parse_formats("json,sarif", &f));
    assert_int_equal(f, MCPS_REPORT_JSON | MCPS_REPORT_SARIF);
    assert_true(mcps_report_parse_formats("all", &f));
    assert_int_equal(f, MCPS_REPORT_ALL);
    assert_false(mcps_report_parse_formats("json,pdf", &f));
    assert_false(mcps_report_parse_formats("", &f));
    assert_string_equal(mcps_report_file_name(MCPS_REPORT_MARKDOWN), "summary.md");
    assert_null(mcps_report_file_name(MCPS_REPORT_JSON | MCPS_REPORT_HTML));
}

/* ---- text handling ------------------------------------------------------------- */

static void check_json_text(const char *in, size_t n, const char *want, bool want_lossless)
{
    bool lossless;
    char *got = mcps_report_json_text(in, n, 1000, &lossless);
    assert_string_equal(got, want);
    assert_int_equal(lossless, want_lossless);
    free(got);
}

static void test_text(void **state)
{
    (void)state;
    check_json_text("ok \xF0\x9F\x98\x80", 7, "ok \xF0\x9F\x98\x80", true);
    check_json_text("\xED\xA0\x80", 3, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD",
                    false);                                            /* surrogate */
    check_json_text("\xC0\x80", 2, "\xEF\xBF\xBD\xEF\xBF\xBD", false); /* overlong NUL */
    check_json_text("a\0b", 3,
                    "a\xC0\x80"
                    "b",
                    true);
    assert_int_equal(mcps_report_complete_len("ab\xC3", 3), 2);
    assert_int_equal(mcps_report_complete_len("ab\xE2\x82", 4), 2);
    assert_int_equal(mcps_report_complete_len("ab\xC3\xA9", 4), 4);
    assert_int_equal(mcps_report_clip("\xC3\xA9\xC3\xA9", 4, 3), 2);
    mcps_buf b = {0};
    mcps_report_escape_str(&b, "<a href=\"x\">&'\n\x1b", MCPS_ESC_XML | MCPS_ESC_ATTR);
    assert_string_equal(b.data, "&lt;a href=&quot;x&quot;&gt;&amp;&#39; \xE2\x90\x9B");
    mcps_buf_clear(&b);
    mcps_report_escape_str(&b, "a|b *c* `d` $e$ <f>", MCPS_ESC_MD);
    assert_string_equal(b.data, "a\\|b \\*c\\* \\`d\\` \\$e\\$ &lt;f&gt;");
    mcps_buf_free(&b);
}

/* ---- console ------------------------------------------------------------------- */

static char *drive_console(bool tty, bool color, size_t total)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    mcps_console con;
    mcps_console_init(&con, out, tty, color);
    mcps_console_set_total(&con, total);
    mcps_run_result *run = make_run();
    for (size_t i = 0; i < run->ncases; i++) {
        mcps_console_case_started(&con, run->cases[i].id, run->cases[i].revision);
        mcps_console_case_finished(&con, &run->cases[i]);
    }
    mcps_console_summary(&con, run);
    fclose(out);
    free_run(run);
    return text;
}

static void test_console_log(void **state)
{
    (void)state;
    char *out = drive_console(false, true, NFIXTURE);
    assert_non_null(strstr(out, "PASS  2025-06-18 lifecycle/initialize-result "
                                "(LIFE-INIT-003 LIFE-VER-003)\n"));
    assert_non_null(strstr(out, "FAIL  2025-03-26 lifecycle/version-echo (LIFE-VER-003)\n"
                                "      control \xE2\x90\x81\xE2\x90\x82\xE2\x90\x9B]0;pwned"));
    assert_non_null(strstr(out, "SKIP  2025-06-18 tools/list (TOOLS-001)\n      server has no"));
    assert_null(strchr(out, '\033')); /* no colour, and no escape from the target */
    assert_null(strchr(out, '\r'));
    assert_non_null(strstr(out, "PASS 1  FAIL 3  WARN 2  INFO 1  SKIP 1  ERROR 1\n"));
    assert_non_null(strstr(out, "result: FAIL (exit 1)"));
    assert_non_null(strstr(out, "2024-11-05 not supported (answered 2025-06-18 instead)"));
    free(out);
}

static void test_console_tty(void **state)
{
    (void)state;
    char *out = drive_console(true, true, 412);
    assert_non_null(strstr(out, "\r\033[K[  1/412] 2025-06-18 lifecycle/initialize-result ..."));
    assert_non_null(
        strstr(out, "\r\033[K\033[1;31mFAIL \033[0m 2025-06-18 lifecycle/version-echo"));
    assert_null(strstr(out, "PASS  2025-06-18")); /* passes only show as progress */
    assert_null(strstr(out, "\033]0;pwned"));
    assert_non_null(strstr(out, "result: \033[1;31mFAIL\033[0m (exit 1)"));
    free(out);

    out = drive_console(true, false, 0); /* NO_COLOR: progress line, no colour */
    assert_non_null(strstr(out, "\r\033[K[1] 2025-06-18 lifecycle/initialize-result ..."));
    assert_null(strstr(out, "\033[1;"));
    assert_null(strstr(out, "\033[0m"));
    free(out);

    assert_true(mcps_console_wants_color(true, NULL));
    assert_true(mcps_console_wants_color(true, ""));
    assert_false(mcps_console_wants_color(true, "1"));
    assert_false(mcps_console_wants_color(false, NULL));
}

/* A long case id on a narrow terminal stays on one line. */
static void test_console_width(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    mcps_console con;
    mcps_console_init(&con, out, true, false);
    con.columns = 30;
    mcps_console_case_started(&con, "suite/a-very-long-case-identifier-indeed",
                              MCPS_REV_2025_06_18);
    fclose(out);
    assert_non_null(strstr(text, "\xE2\x80\xA6"));
    size_t cps = 0;
    for (const char *p = text + 4; *p; p++) /* after "\r\033[K" */
        cps += ((unsigned char)*p & 0xC0) != 0x80;
    assert_int_equal(cps, 29);
    free(text);
}

/* ---- baselines ----------------------------------------------------------------- */

/* lifecycle/version-echo on 2025-06-18 excused; one stale and one expired entry. */
static void add_baseline(mcps_run_result *run)
{
    mcps_case_baseline *b = calloc(1, sizeof *b);
    assert_non_null(b);
    *b = (mcps_case_baseline){strdup("lifecycle/version-echo"), strdup("2025-06-18"),
                              strdup("upstream issue #7 <b>&</b>"), strdup("2030-01-01"), 4};
    run->cases[1].baseline = b;
    mcps_run_baseline *rb = calloc(1, sizeof *rb);
    mcps_stale_entry *stale = calloc(2, sizeof *stale);
    assert_true(rb && stale);
    const char *fixed = "no longer fails: ping/empty-result is PASS on 2025-06-18";
    stale[0] = (mcps_stale_entry){.match = strdup("ping/empty-result"),
                                  .revision = strdup("all"),
                                  .reason = strdup("r1"),
                                  .line = 5,
                                  .detail = strdup(fixed)};
    stale[1] = (mcps_stale_entry){.match = strdup("RPC-ERR-002"),
                                  .requirement = true,
                                  .revision = strdup("2025-06-18"),
                                  .reason = strdup("r2"),
                                  .expires = strdup("2020-01-01"),
                                  .line = 6,
                                  .expired = true,
                                  .detail = strdup("expired on 2020-01-01")};
    *rb = (mcps_run_baseline){strdup("ci/my baseline.json"), 3, 1, 0, stale, 2};
    run->baseline = rb;
    mcps_run_result_count(run);
}

static void check_baseline_json(const mcps_run_result *run)
{
    size_t len = 0;
    char *schema_text = testutil_read_file(MCPS_SOURCE_DIR "/docs/report.schema.json", &len);
    cJSON *schema = mcps_json_parse_simple(schema_text, len);
    char *doc = testutil_read_file(MCPS_SOURCE_DIR "/docs/report-format.md", &len);
    assert_true(schema && doc);
    char *text;
    cJSON *root = render_json(run, MCPS_REPORT_JSON, &text);
    assert_int_equal(validate(schema, root), MCPS_SCHEMA_VALID);
    check_documented(root, doc);
    const cJSON *cases = get(root, "cases");
    assert_true(cJSON_IsNull(get(cJSON_GetArrayItem(cases, 0), "baseline")));
    const cJSON *mark = get(cJSON_GetArrayItem(cases, 1), "baseline");
    assert_string_equal(get_str(mark, "reason"), "upstream issue #7 <b>&</b>");
    assert_string_equal(get_str(mark, "expires"), "2030-01-01");
    assert_true(get_num(mark, "line") == 4);
    const cJSON *summary = get(root, "summary");
    assert_true(get_num(summary, "baselined") == 1 && get_num(summary, "stale") == 2);
    const cJSON *stale = get(get(root, "baseline"), "stale");
    assert_string_equal(get_str(cJSON_GetArrayItem(stale, 0), "status"), "stale");
    assert_string_equal(get_str(cJSON_GetArrayItem(stale, 1), "kind"), "requirement");
    assert_string_equal(get_str(cJSON_GetArrayItem(stale, 1), "status"), "expired");
    mcps_json_delete(root);
    free(text);
    mcps_json_delete(schema);
    free(schema_text);
    free(doc);
}

static void check_baseline_junit(const mcps_run_result *run)
{
    size_t len;
    char *xml = render(run, MCPS_REPORT_JUNIT, &len);
    check_xml(xml, len);
    /* 9 cases and 2 stale entries; one FAIL excused: failures 2 + 2 stale, skipped 1 + 1 */
    assert_non_null(strstr(xml, "<testsuites name=\"mcpspec\" tests=\"11\" failures=\"4\" "
                                "errors=\"1\" skipped=\"2\""));
    assert_non_null(strstr(xml, "<skipped message=\"baselined FAIL: upstream issue #7 "
                                "&lt;b&gt;&amp;&lt;/b&gt;\"/>"));
    assert_non_null(strstr(xml, "<testsuite name=\"mcpspec-baseline\" tests=\"2\" "
                                "failures=\"2\""));
    assert_non_null(strstr(xml, "name=\"ping/empty-result@all\""));
    assert_int_equal(count_of(xml, "type=\"STALE\""), 1);
    assert_int_equal(count_of(xml, "type=\"EXPIRED\""), 1);
    free(xml);
}

static void check_baseline_sarif(const mcps_run_result *run)
{
    char *text;
    cJSON *root = render_json(run, MCPS_REPORT_SARIF, &text);
    const cJSON *results = get(get(root, "runs")->child, "results");
    assert_int_equal(cJSON_GetArraySize(results), 7); /* 3 FAIL + 2 WARN + 2 entries */
    const cJSON *excused = cJSON_GetArrayItem(results, 0);
    const cJSON *sup = cJSON_GetArrayItem(get(excused, "suppressions"), 0);
    assert_string_equal(get_str(sup, "kind"), "external");
    assert_string_equal(get_str(sup, "justification"), "upstream issue #7 <b>&</b>");
    assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(results, 1), "suppressions"));
    const cJSON *stale = cJSON_GetArrayItem(results, 5);
    assert_string_equal(get_str(stale, "ruleId"), "mcpspec/baseline-stale");
    const cJSON *phys = get(cJSON_GetArrayItem(get(stale, "locations"), 0), "physicalLocation");
    assert_string_equal(get_str(get(phys, "artifactLocation"), "uri"), "ci/my%20baseline.json");
    assert_true(get_num(get(phys, "region"), "startLine") == 5);
    assert_non_null(strstr(text, "\"id\":\"mcpspec/baseline-stale\""));
    mcps_json_delete(root);
    free(text);
}

static void check_baseline_pages(const mcps_run_result *run)
{
    size_t len;
    char *md = render(run, MCPS_REPORT_MARKDOWN, &len);
    assert_non_null(strstr(md, "FAIL (baselined) | lifecycle/version-echo |"));
    assert_non_null(strstr(md, "**Baseline:** ci/my baseline.json: 1 cases excused"));
    assert_non_null(strstr(md, "| stale | ping/empty-result | all | 5 |"));
    assert_non_null(strstr(md, "| expired | RPC-ERR-002 | 2025-06-18 | 6 |"));
    assert_non_null(strstr(md, "**Baselined:** upstream issue \\#7 &lt;b&gt;&amp;&lt;/b&gt;"));
    free(md);
    char *html = render(run, MCPS_REPORT_HTML, &len);
    assert_non_null(strstr(html, "<span class=\"baselined\">baselined</span> 2025-06-18 "
                                 "<code>lifecycle/version-echo</code>"));
    assert_non_null(strstr(html, "<dt>Baselined</dt><dd>upstream issue #7 &lt;b&gt;"));
    assert_non_null(strstr(html, "<tr><td>expired</td><td><code>RPC-ERR-002</code>"));
    assert_null(strstr(html, "<b>&</b>"));
    free(html);
}

static void check_baseline_console(const mcps_run_result *run)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    mcps_console con;
    mcps_console_init(&con, out, false, false);
    mcps_console_case_finished(&con, &run->cases[1]);
    mcps_console_summary(&con, run);
    fclose(out);
    assert_non_null(strstr(text, "FAIL  2025-06-18 lifecycle/version-echo (LIFE-VER-003) "
                                 "[baselined]\n"));
    assert_non_null(strstr(text, "      baselined: upstream issue #7 <b>&</b>\n"));
    assert_non_null(strstr(text, "baseline: ci/my baseline.json: 1 cases excused, 1 of 3 "
                                 "entries matched, 0 not judged, 2 stale (these fail the run):\n"
                                 "STALE ping/empty-result on all (ci/my baseline.json:5): no "
                                 "longer fails"));
    assert_non_null(strstr(text, "EXPIRED RPC-ERR-002 on 2025-06-18"));
    free(text);
}

/* Only stale entries fail the run: exit 1, and the reports say why. */
static void check_stale_only(mcps_run_result *run)
{
    for (size_t i = 0; i < run->ncases; i++)
        if (run->cases[i].verdict == MCPS_VERDICT_FAIL ||
            run->cases[i].verdict == MCPS_VERDICT_ERROR)
            run->cases[i].verdict = MCPS_VERDICT_PASS;
    run->cases[1].verdict = MCPS_VERDICT_FAIL; /* the excused one */
    mcps_run_result_count(run);
    assert_int_equal(mcps_run_result_exit_code(run), 1);
    char *text;
    cJSON *root = render_json(run, MCPS_REPORT_JSON, &text);
    assert_non_null(strstr(get_str(get(root, "summary"), "exit_meaning"), "stale or expired"));
    mcps_json_delete(root);
    free(text);
    run->baseline->nstale = 0;
    assert_int_equal(mcps_run_result_exit_code(run), 0);
    run->baseline->nstale = 2;
}

static void test_baseline_reports(void **state)
{
    (void)state;
    mcps_run_result *run = make_run();
    add_baseline(run);
    check_baseline_json(run);
    check_baseline_junit(run);
    check_baseline_sarif(run);
    check_baseline_pages(run);
    check_baseline_console(run);
    check_stale_only(run);
    free_run(run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_report),
        cmocka_unit_test(test_json_bounded),
        cmocka_unit_test(test_json_documented),
        cmocka_unit_test(test_json_schema),
        cmocka_unit_test(test_junit),
        cmocka_unit_test(test_sarif),
        cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_markdown_cap),
        cmocka_unit_test(test_html),
        cmocka_unit_test(test_escape_js),
        cmocka_unit_test(test_write),
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_console_log),
        cmocka_unit_test(test_console_tty),
        cmocka_unit_test(test_console_width),
        cmocka_unit_test(test_baseline_reports),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
