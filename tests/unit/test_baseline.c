/*
 * test_baseline.c - the expected-failure baseline (engine/baseline.h): what a
 * file sets, every malformed file refused with its file, line and field, and
 * the judgement of entries against a run built by hand: excused, stale (what
 * it lists passes, or fails on another requirement, or no check names it),
 * expired, and not judged (revision not run, SKIP, ERROR), with the exit
 * codes that follow. Also: a rendered baseline parses back to the same entries,
 * in JSON and in YAML, and a broken YAML file is refused with its line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/baseline.h"

#define TODAY "2026-06-01"

static bool parse(const char *text, mcps_baseline *b, char *err, size_t n)
{
    return mcps_baseline_parse("b.json", text, strlen(text), b, err, n);
}

/* ---- reading ----------------------------------------------------------------------- */

static void test_parse(void **state)
{
    (void)state;
    const char *text = "{\n"
                       "  \"schema\": \"mcpspec-baseline\", \"version\": 1,\n"
                       "  \"description\": \"known failures of our SDK\",\n"
                       "  \"expected\": [\n"
                       "    {\"case\": \"errors/parse-error\", \"revision\": \"2025-06-18\",\n"
                       "     \"reason\": \"issue #12\", \"expires\": \"2028-02-29\"},\n"
                       "    {\"requirement\": \"RPC-ERR-002\", \"revision\": \"all\",\n"
                       "     \"verdicts\": [\"WARN\", \"ERROR\"], \"reason\": \"issue #13\"}\n"
                       "  ]\n"
                       "}\n";
    mcps_baseline b;
    char err[300];
    assert_true(parse(text, &b, err, sizeof err));
    assert_string_equal(b.file, "b.json");
    assert_int_equal(b.n, 2);
    assert_false(b.entries[0].requirement);
    assert_string_equal(b.entries[0].match, "errors/parse-error");
    assert_int_equal(b.entries[0].revision, MCPS_REV_2025_06_18);
    assert_int_equal(b.entries[0].verdicts, MCPS_BASELINE_DEFAULT_VERDICTS);
    assert_string_equal(b.entries[0].reason, "issue #12");
    assert_string_equal(b.entries[0].expires, "2028-02-29");
    assert_int_equal(b.entries[0].line, 5);
    assert_true(b.entries[1].requirement);
    assert_int_equal(b.entries[1].revision, MCPS_REV_NONE);
    assert_int_equal(b.entries[1].verdicts, MCPS_BASELINE_VERDICT(MCPS_VERDICT_WARN) |
                                                MCPS_BASELINE_VERDICT(MCPS_VERDICT_ERROR));
    assert_string_equal(b.entries[1].expires, "");
    assert_int_equal(b.entries[1].line, 7);
    mcps_baseline_free(&b);

    assert_true(parse("{\"schema\":\"mcpspec-baseline\",\"version\":1,\"expected\":[]}", &b, err,
                      sizeof err));
    assert_int_equal(b.n, 0);
    mcps_baseline_free(&b);
}

#define HEAD "{\"schema\": \"mcpspec-baseline\", \"version\": 1,\n\"expected\": [\n"
#define OK0  "{\"case\": \"a/b\", \"revision\": \"all\", \"reason\": \"r\"},\n"

/* Each broken file, and the start of the message it must get. */
static const struct {
    const char *text, *want;
} broken[] = {
    {HEAD "{\"case\": \"a/b\",, }]}", "b.json:3: invalid JSON"},
    {"[]", "b.json:1: a baseline is a JSON object"},
    {"{\"schema\": \"mcpspec-report\", \"schema_version\": 1}", "b.json:1: this is a report"},
    {"{\"version\": 1, \"expected\": []}", "b.json:1: schema: \"mcpspec-baseline\" is required"},
    {"{\"schema\": \"mcpspec-baseline\",\n\"version\": 2, \"expected\": []}",
     "b.json:2: version 2 is not one this mcpspec reads"},
    {"{\"schema\": \"mcpspec-baseline\", \"version\": 1,\n\"expectd\": []}",
     "b.json:2: unknown member \"expectd\""},
    {"{\"schema\": \"mcpspec-baseline\", \"version\": 1}", "b.json:1: expected: an array"},
    {HEAD OK0 "\"x\"]}", "b.json:4: expected[1]: an entry is an object"},
    {HEAD OK0 "{\"case\": \"a/c\", \"revision\": \"all\"}]}",
     "b.json:4: expected[1]: \"reason\" is required"},
    {HEAD OK0 "{\"case\": \"a/c\", \"revision\": \"all\",\n \"reason\": \" \\t\"}]}",
     "b.json:5: expected[1].reason: is a non-empty string"},
    {HEAD "{\"case\": \"a/b\", \"revision\": \"all\", \"reason\": \"r\",\n\"expires\": "
          "\"2027-02-29\"}]}",
     "b.json:4: expected[0].expires: is a date written YYYY-MM-DD"},
    {HEAD "{\"case\": \"a/b\", \"revision\": \"all\", \"reason\": \"r\", \"expires\": "
          "\"27-01-01\"}]}",
     "b.json:3: expected[0].expires:"},
    {HEAD "{\"case\": \"a/b\",\n\"revision\": \"2025-13-01\", \"reason\": \"r\"}]}",
     "b.json:4: expected[0].revision: unknown revision \"2025-13-01\""},
    {HEAD "{\"case\": \"a/b\", \"reason\": \"r\"}]}",
     "b.json:3: expected[0]: \"revision\" is required"},
    {HEAD "{\"case\": \"a/b\", \"revision\": \"all\", \"reason\": \"r\",\n\"expire\": "
          "\"2030-01-01\"}]}",
     "b.json:4: expected[0].expire: unknown member"},
    {HEAD "{\"case\": \"a/b\", \"requirement\": \"X-1\", \"revision\": \"all\", \"reason\": "
          "\"r\"}]}",
     "b.json:3: expected[0].requirement: an entry names a case or a requirement, not both"},
    {HEAD "{\"revision\": \"all\", \"reason\": \"r\"}]}", "b.json:3: expected[0]: names no"},
    {HEAD "{\"case\": \"parse-error\", \"revision\": \"all\", \"reason\": \"r\"}]}",
     "b.json:3: expected[0].case: \"parse-error\" is not a case id"},
    {HEAD "{\"requirement\": \"RPC ERR\", \"revision\": \"all\", \"reason\": \"r\"}]}",
     "b.json:3: expected[0].requirement: is a string without spaces"},
    {HEAD "{\"case\": \"a/b\", \"revision\": \"all\", \"reason\": \"r\", \"verdicts\": "
          "[\"PASS\"]}]}",
     "b.json:3: expected[0].verdicts: \"PASS\" cannot be baselined"},
    {HEAD "{\"case\": \"a/b\", \"revision\": \"all\", \"reason\": \"r\", \"verdicts\": []}]}",
     "b.json:3: expected[0].verdicts: is a non-empty array"},
    {HEAD OK0 "{\"case\": \"a/b\", \"revision\": \"all\", \"reason\": \"again\"}]}",
     "b.json:4: expected[1].case: \"a/b\" on all is already listed on line 3"},
    {HEAD "{\"case\": \"a/b\", \"revision\": \"all\",\n\"reason\": \"r\", \"reason\": \"s\"}]}",
     "b.json:4: key \"reason\" appears twice"},
};

static void test_broken_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof broken / sizeof *broken; i++) {
        mcps_baseline b;
        char err[400];
        if (parse(broken[i].text, &b, err, sizeof err))
            fail_msg("accepted broken file %zu", i);
        if (strncmp(err, broken[i].want, strlen(broken[i].want)) != 0)
            fail_msg("file %zu: got \"%s\", want \"%s...\"", i, err, broken[i].want);
        assert_null(b.entries);
    }
}

static void test_load_file(void **state)
{
    (void)state;
    mcps_baseline b;
    char err[400];
    assert_false(mcps_baseline_load("/nonexistent/baseline.json", &b, err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent/baseline.json: cannot open"));
    char path[] = "/tmp/mcpspec-baseline-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = HEAD OK0 "{\"case\": \"a/c\", \"revision\": \"all\", \"reason\": 7}]}";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    assert_false(mcps_baseline_load(path, &b, err, sizeof err));
    char want[100];
    snprintf(want, sizeof want, "%s:4: expected[1].reason:", path);
    assert_non_null(strstr(err, want));
    unlink(path);
}

/* ---- judging ----------------------------------------------------------------------- */

typedef struct case_spec {
    const char *id;
    mcps_rev rev;
    mcps_verdict verdict;
    const char *reqs, *broken;
} case_spec;

static const case_spec run_cases[] = {
    {"errors/parse-error", MCPS_REV_2025_06_18, MCPS_VERDICT_FAIL, "RPC-ERR-003", "RPC-ERR-003"},
    {"errors/parse-error", MCPS_REV_2025_11_25, MCPS_VERDICT_PASS, "RPC-ERR-003", NULL},
    {"ping/empty-result", MCPS_REV_2025_06_18, MCPS_VERDICT_PASS, "PING-001", NULL},
    {"tools/call", MCPS_REV_2025_06_18, MCPS_VERDICT_ERROR, "TOOLS-001", NULL},
    {"errors/invalid-params", MCPS_REV_2025_06_18, MCPS_VERDICT_WARN, "RPC-ERR-006", "RPC-ERR-006"},
    {"lifecycle/x", MCPS_REV_2025_06_18, MCPS_VERDICT_FAIL, "A-1 B-2", "B-2"},
    {"tools/skipped", MCPS_REV_2025_06_18, MCPS_VERDICT_SKIP, "TOOLS-002", NULL},
};
#define NRUN (sizeof run_cases / sizeof *run_cases)

static mcps_run_result *make_run(void)
{
    mcps_run_result *run = calloc(1, sizeof *run);
    assert_non_null(run);
    run->cases = calloc(NRUN, sizeof *run->cases);
    assert_non_null(run->cases);
    for (size_t i = 0; i < NRUN; i++) {
        mcps_case_result *c = &run->cases[run->ncases++];
        c->id = strdup(run_cases[i].id);
        c->revision = run_cases[i].rev;
        c->verdict = run_cases[i].verdict;
        c->requirements = strdup(run_cases[i].reqs);
        c->broken = run_cases[i].broken ? strdup(run_cases[i].broken) : NULL;
    }
    mcps_run_result_count(run);
    return run;
}

static void free_run(mcps_run_result *run)
{
    mcps_run_result_free(run);
    free(run);
}

static const mcps_stale_entry *stale_on_line(const mcps_run_result *run, size_t line)
{
    for (size_t i = 0; i < run->baseline->nstale; i++)
        if (run->baseline->stale[i].line == line)
            return &run->baseline->stale[i];
    return NULL;
}

/* One entry a line, from line 3 on. */
static const char judged_file[] =
    HEAD "{\"case\": \"errors/parse-error\", \"revision\": \"2025-06-18\", \"reason\": \"a\"},\n"
         "{\"case\": \"errors/parse-error\", \"revision\": \"all\", \"reason\": \"b\"},\n"
         "{\"case\": \"ping/empty-result\", \"revision\": \"all\", \"reason\": \"c\"},\n"
         "{\"case\": \"errors/parse-error\", \"revision\": \"2024-11-05\", \"reason\": \"d\"},\n"
         "{\"case\": \"tools/call\", \"revision\": \"2025-06-18\", \"reason\": \"e\"},\n"
         "{\"requirement\": \"A-1\", \"revision\": \"all\", \"reason\": \"f\"},\n"
         "{\"requirement\": \"B-2\", \"revision\": \"all\", \"reason\": \"g\"},\n"
         "{\"case\": \"tools/skipped\", \"revision\": \"all\", \"reason\": \"h\"},\n"
         "{\"case\": \"errors/invalid-params\", \"revision\": \"2025-06-18\", \"verdicts\": "
         "[\"FAIL\"], \"reason\": \"i\"},\n"
         "{\"case\": \"errors/parse-error\", \"revision\": \"2025-11-25\", \"reason\": \"j\", "
         "\"expires\": \"2026-05-31\"},\n"
         "{\"case\": \"tools/call\", \"revision\": \"all\", \"verdicts\": [\"ERROR\"], \"reason\": "
         "\"k\", \"expires\": \"2026-06-01\"}\n"
         "]}\n";

static void check_marks(const mcps_run_result *run)
{
    assert_non_null(run->cases[0].baseline); /* the first entry that excuses it is recorded */
    assert_string_equal(run->cases[0].baseline->reason, "a");
    assert_string_equal(run->cases[0].baseline->revision, "2025-06-18");
    assert_int_equal(run->cases[0].baseline->line, 3);
    assert_null(run->cases[1].baseline);
    assert_non_null(run->cases[3].baseline); /* ERROR, by the entry naming ERROR */
    assert_string_equal(run->cases[3].baseline->reason, "k");
    assert_string_equal(run->cases[3].baseline->expires, "2026-06-01");
    assert_null(run->cases[4].baseline); /* WARN, but its entry lists FAIL only */
    assert_non_null(run->cases[5].baseline);
    assert_string_equal(run->cases[5].baseline->match, "B-2");
    assert_int_equal(run->baselined[MCPS_VERDICT_FAIL], 2);
    assert_int_equal(run->baselined[MCPS_VERDICT_ERROR], 1);
}

static void check_stale(const mcps_run_result *run)
{
    const mcps_run_baseline *rb = run->baseline;
    assert_string_equal(rb->file, "b.json");
    assert_int_equal(rb->entries, 11);
    assert_int_equal(rb->matched, 4);    /* a, b, g, k */
    assert_int_equal(rb->not_judged, 3); /* d (not run), e (ERROR), h (SKIP) */
    assert_int_equal(rb->nstale, 4);     /* c, f, i, j */
    const mcps_stale_entry *c = stale_on_line(run, 5);
    assert_non_null(c);
    assert_false(c->expired);
    assert_string_equal(c->detail, "no longer fails: ping/empty-result is PASS on 2025-06-18");
    const mcps_stale_entry *f = stale_on_line(run, 8);
    assert_non_null(f);
    assert_true(f->requirement);
    assert_string_equal(f->detail, "lifecycle/x is FAIL on 2025-06-18 for B-2, not A-1");
    const mcps_stale_entry *i = stale_on_line(run, 11);
    assert_non_null(i);
    assert_non_null(strstr(i->detail, "errors/invalid-params is WARN"));
    const mcps_stale_entry *j = stale_on_line(run, 12);
    assert_non_null(j);
    assert_true(j->expired);
    assert_string_equal(j->expires, "2026-05-31");
    assert_string_equal(j->detail, "expired on 2026-05-31");
}

static void test_apply(void **state)
{
    (void)state;
    mcps_baseline b;
    char err[300];
    if (!parse(judged_file, &b, err, sizeof err))
        fail_msg("%s", err);
    mcps_run_result *run = make_run();
    assert_int_equal(mcps_run_result_exit_code(run), 1);
    assert_true(mcps_baseline_apply(&b, NULL, TODAY, run));
    check_marks(run);
    check_stale(run);
    assert_int_equal(mcps_run_result_exit_code(run), 1); /* stale entries */
    free_run(run);
    mcps_baseline_free(&b);
}

/* Excused failures do not count; ERROR only when an entry names it; WARN under --strict. */
static void test_exit_codes(void **state)
{
    (void)state;
    const char *text = HEAD
        "{\"case\": \"errors/parse-error\", \"revision\": \"2025-06-18\", \"reason\": \"a\"},\n"
        "{\"requirement\": \"B-2\", \"revision\": \"all\", \"reason\": \"g\"}]}";
    mcps_baseline b;
    char err[300];
    assert_true(parse(text, &b, err, sizeof err));
    mcps_run_result *run = make_run();
    assert_true(mcps_baseline_apply(&b, NULL, TODAY, run));
    assert_int_equal(run->baseline->nstale, 0);
    assert_int_equal(mcps_run_result_exit_code(run), 3); /* tools/call is ERROR, not excused */
    run->cases[3].verdict = MCPS_VERDICT_PASS;
    mcps_run_result_count(run);
    assert_int_equal(mcps_run_result_exit_code(run), 0);
    run->strict = true; /* errors/invalid-params WARN */
    assert_int_equal(mcps_run_result_exit_code(run), 1);
    free_run(run);
    mcps_baseline_free(&b);
}

/* A case or requirement no check of this mcpspec has is stale in any run, even one that ran
 * nothing; a known one is not judged there. */
static void test_unknown_checks(void **state)
{
    (void)state;
    mcps_case cases[] = {
        {.id = "errors/parse-error", .name = "parse-error", .requirements = "RPC-ERR-003"}};
    mcps_suite suite = {.name = "errors", .cases = cases, .ncases = 1};
    mcps_suite_set set = {.suites = &suite, .nsuites = 1};
    const char *text =
        HEAD "{\"case\": \"errors/parse-error\", \"revision\": \"all\", \"reason\": \"a\"},\n"
             "{\"case\": \"errors/renamed\", \"revision\": \"all\", \"reason\": \"b\"},\n"
             "{\"requirement\": \"RPC-ERR-003\", \"revision\": \"all\", \"reason\": \"c\"},\n"
             "{\"requirement\": \"NOPE-001\", \"revision\": \"all\", \"reason\": \"d\"},\n"
             "{\"case\": \"observe/json-text\", \"revision\": \"all\", \"reason\": \"e\"},\n"
             "{\"case\": \"discovery/initialize\", \"revision\": \"all\", \"reason\": \"f\"}]}";
    mcps_baseline b;
    char err[300];
    assert_true(parse(text, &b, err, sizeof err));
    mcps_run_result run = {0};
    assert_true(mcps_baseline_apply(&b, &set, TODAY, &run));
    assert_int_equal(run.baseline->nstale, 2);
    assert_int_equal(run.baseline->not_judged, 4);
    assert_string_equal(stale_on_line(&run, 4)->detail, "no such case in this mcpspec's suites");
    assert_string_equal(stale_on_line(&run, 6)->detail,
                        "no check of this mcpspec tests this requirement");
    assert_int_equal(mcps_run_result_exit_code(&run), 1);
    mcps_run_result_free(&run);
    mcps_baseline_free(&b);
}

static void test_find(void **state)
{
    (void)state;
    mcps_baseline b;
    char err[300];
    assert_true(parse(judged_file, &b, err, sizeof err));
    mcps_run_result *run = make_run();
    const mcps_baseline_entry *e = mcps_baseline_find(&b, &run->cases[0], TODAY);
    assert_non_null(e);
    assert_string_equal(e->reason, "a");
    assert_null(mcps_baseline_find(&b, &run->cases[2], TODAY)); /* PASS */
    assert_null(mcps_baseline_find(&b, &run->cases[4], TODAY)); /* WARN, FAIL listed */
    assert_non_null(mcps_baseline_find(&b, &run->cases[3], TODAY));
    assert_null(mcps_baseline_find(&b, &run->cases[3], "2026-06-02")); /* k expired */
    assert_null(mcps_baseline_find(NULL, &run->cases[0], TODAY));
    free_run(run);
    mcps_baseline_free(&b);
}

/* ---- writing ----------------------------------------------------------------------- */

/* Render entries, parse them back under name (its extension picks the format): the same
 * entries; with first_line, entry i on line first_line + i. Then an empty list. */
static void round_trip(void (*render)(const mcps_baseline_entry *, size_t, mcps_buf *),
                       const char *name, const mcps_baseline_entry *entries, size_t n,
                       size_t first_line)
{
    mcps_buf out = {0};
    render(entries, n, &out);
    assert_false(out.oom);
    mcps_baseline b;
    char err[300];
    if (!mcps_baseline_parse(name, out.data, out.len, &b, err, sizeof err))
        fail_msg("%s\n%s", err, out.data);
    assert_int_equal(b.n, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(b.entries[i].requirement, entries[i].requirement);
        assert_string_equal(b.entries[i].match, entries[i].match);
        assert_int_equal(b.entries[i].revision, entries[i].revision);
        assert_int_equal(b.entries[i].verdicts, entries[i].verdicts);
        assert_string_equal(b.entries[i].reason, entries[i].reason);
        assert_string_equal(b.entries[i].expires, entries[i].expires);
        if (first_line)
            assert_int_equal(b.entries[i].line, first_line + i);
    }
    mcps_baseline_free(&b);
    mcps_buf_clear(&out);
    render(NULL, 0, &out);
    assert_true(mcps_baseline_parse(name, out.data, out.len, &b, err, sizeof err));
    assert_int_equal(b.n, 0);
    mcps_baseline_free(&b);
    mcps_buf_free(&out);
}

static void test_render_round_trip(void **state)
{
    (void)state;
    mcps_baseline_entry entries[] = {
        {.match = "errors/parse-error",
         .revision = MCPS_REV_2025_06_18,
         .verdicts = MCPS_BASELINE_VERDICT(MCPS_VERDICT_FAIL),
         .reason = "known failure as of 2026-06-01: \"quoted\" \\ and \xE2\x80\xA6"},
        {.requirement = true,
         .match = "RPC-ERR-002",
         .revision = MCPS_REV_NONE,
         .verdicts = MCPS_BASELINE_DEFAULT_VERDICTS,
         .reason = "r",
         .expires = "2030-01-31"},
    };
    round_trip(mcps_baseline_render, "b.json", entries, 2, 5); /* an entry a line */
}

static bool parse_yaml(const char *text, mcps_baseline *b, char *err, size_t n)
{
    return mcps_baseline_parse("b.yaml", text, strlen(text), b, err, n);
}

static void test_yaml(void **state)
{
    (void)state;
    const char *text = "# known failures\n"
                       "schema: mcpspec-baseline\n"
                       "version: 1\n"
                       "expected:\n"
                       "  - case: errors/parse-error\n"
                       "    revision: 2025-06-18\n"
                       "    reason: 'the SDK answers -32603: sdk#412'\n"
                       "    expires: 2027-03-31\n"
                       "  - requirement: RPC-ERR-002\n"
                       "    revision: all\n"
                       "    verdicts: [WARN]\n"
                       "    reason: >-\n"
                       "      folded\n"
                       "      text\n";
    mcps_baseline b;
    char err[300];
    if (!parse_yaml(text, &b, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(b.n, 2);
    assert_string_equal(b.entries[0].match, "errors/parse-error");
    assert_int_equal(b.entries[0].revision, MCPS_REV_2025_06_18);
    assert_string_equal(b.entries[0].expires, "2027-03-31");
    assert_int_equal(b.entries[0].line, 5);
    assert_true(b.entries[1].requirement);
    assert_int_equal(b.entries[1].verdicts, MCPS_BASELINE_VERDICT(MCPS_VERDICT_WARN));
    assert_string_equal(b.entries[1].reason, "folded text");
    assert_int_equal(b.entries[1].line, 9);
    mcps_baseline_free(&b);
}

#define YHEAD "schema: mcpspec-baseline\nversion: 1\nexpected:\n"
static const struct {
    const char *text, *want;
} broken_yaml[] = {
    {YHEAD "  - case: a/b\n    revision: all\n    reason: r\n    expire: 2030-01-01\n",
     "b.yaml:7: expected[0].expire: unknown member"},
    {YHEAD "  - case: a/b\n    revision: all\n    reason: r\n    reason: s\n",
     "b.yaml:7: the key \"reason\" is written twice"},
    {YHEAD "  - case: [a/b\n", "b.yaml:5: invalid YAML"},
    {"x: &a 1\ny: *a\n", "b.yaml:2: aliases (*name) are not allowed"},
    {YHEAD "  - case: a/b\n    revision: all\n    reason: r\n---\nx: 1\n",
     "b.yaml:7: one YAML document only"},
    {YHEAD "  - ? [a]\n    : b\n", "b.yaml:4: a key must be a plain string"},
    {"schema: mcpspec-baseline\nversion: \"1\"\nexpected: []\n",
     "b.yaml:2: version: the integer 1 is required"},
    {"- 1\n", "b.yaml:1: a baseline is a YAML mapping"},
    {"", "b.yaml:1: the file is empty"},
    {YHEAD "  - case: a/b\n    revision: all\n    reason: r\n  - case: a/b\n    revision: "
           "all\n    reason: s\n",
     "b.yaml:7: expected[1].case: \"a/b\" on all is already listed on line 4"},
};

static void test_yaml_broken(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof broken_yaml / sizeof *broken_yaml; i++) {
        mcps_baseline b;
        char err[400];
        if (parse_yaml(broken_yaml[i].text, &b, err, sizeof err))
            fail_msg("accepted broken YAML %zu", i);
        if (strncmp(err, broken_yaml[i].want, strlen(broken_yaml[i].want)) != 0)
            fail_msg("YAML %zu: got \"%s\", want \"%s...\"", i, err, broken_yaml[i].want);
    }
}

static void test_render_yaml_round_trip(void **state)
{
    (void)state;
    mcps_baseline_entry entries[] = {
        {.match = "errors/parse-error",
         .revision = MCPS_REV_2025_06_18,
         .verdicts =
             MCPS_BASELINE_VERDICT(MCPS_VERDICT_FAIL) | MCPS_BASELINE_VERDICT(MCPS_VERDICT_ERROR),
         .reason = "\"quoted\" \\ \xE2\x80\xA6 C1 \xC2\x85 and \xEF\xBF\xBE: #not a comment"},
        {.requirement = true,
         .match = "RPC-ERR-002",
         .revision = MCPS_REV_NONE,
         .verdicts = MCPS_BASELINE_DEFAULT_VERDICTS,
         .reason = "- r: x",
         .expires = "2030-01-31"},
    };
    round_trip(mcps_baseline_render_yaml, "b.yaml", entries, 2, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_broken_files),
        cmocka_unit_test(test_load_file),
        cmocka_unit_test(test_apply),
        cmocka_unit_test(test_exit_codes),
        cmocka_unit_test(test_unknown_checks),
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_render_round_trip),
        cmocka_unit_test(test_yaml),
        cmocka_unit_test(test_yaml_broken),
        cmocka_unit_test(test_render_yaml_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
