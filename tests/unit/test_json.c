/*
 * test_json.c - the strict JSON codec: JSONTestSuite, exact numbers, limits,
 * findings, error offsets and the printer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <string.h>

#include "codec/json.h"
#include "testutil.h"

/*
 * JSONTestSuite's test_parsing files, as committed for the fuzz corpus
 * (fuzz/seeds.py copies them as jts-<name>), so the test needs nothing
 * beside the checkout. The two it leaves out for being longer than the
 * fuzzer's max_len are rebuilt here (deep_rejections).
 */
#define SUITE_DIR    MCPS_SOURCE_DIR "/corpus/json"
#define SUITE_PREFIX "jts-"

static bool parse_text(const char *text, mcps_json_result *r)
{
    return mcps_json_parse(text, strlen(text), NULL, r);
}

static cJSON *must_parse(const char *text)
{
    mcps_json_result r;
    if (!parse_text(text, &r))
        fail_msg("rejected %s: %s at %zu", text, r.error, r.error_offset);
    return r.root;
}

/* Look up our documented decision for an i_ file in docs/json-implementation-defined.md. */
static const char *documented_decision(const char *doc, const char *name)
{
    char needle[300];
    snprintf(needle, sizeof needle, "| %s | ", name);
    const char *row = strstr(doc, needle);
    if (!row)
        return NULL;
    row += strlen(needle);
    return strncmp(row, "accept", 6) == 0   ? "accept"
           : strncmp(row, "reject", 6) == 0 ? "reject"
                                            : NULL;
}

/* n_structure_100000_opening_arrays and n_structure_open_array_object: must be rejected. */
static int deep_rejections(void)
{
    const char *units[] = {"[", "[{\"\":"};
    const size_t repeats[] = {100000, 50000};
    int rejected = 0;
    for (size_t i = 0; i < 2; i++) {
        size_t unit = strlen(units[i]), len = unit * repeats[i];
        char *text = malloc(len + 1);
        assert_non_null(text);
        for (size_t k = 0; k < repeats[i]; k++)
            memcpy(text + k * unit, units[i], unit);
        text[len] = '\n';
        mcps_json_result r;
        rejected += !mcps_json_parse(text, i == 0 ? len : len + 1, NULL, &r);
        mcps_json_delete(r.root);
        free(text);
    }
    return rejected;
}

static void test_json_test_suite(void **state)
{
    (void)state;
    size_t doclen;
    char *doc = testutil_read_file(MCPS_SOURCE_DIR "/docs/json-implementation-defined.md", &doclen);
    assert_non_null(doc);
    DIR *dir = opendir(SUITE_DIR);
    assert_non_null(dir);
    int counts[3] = {0, 0, 0}; /* y accepted, n rejected, i as documented */
    int totals[3] = {0, 0, 0};
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (strncmp(e->d_name, SUITE_PREFIX, strlen(SUITE_PREFIX)) != 0)
            continue;
        const char *name = e->d_name + strlen(SUITE_PREFIX);
        char kind = name[0];
        if (kind != 'y' && kind != 'n' && kind != 'i')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", SUITE_DIR, e->d_name);
        size_t len = 0;
        char *text = testutil_read_file(path, &len);
        assert_non_null(text);
        mcps_json_result r;
        bool ok = mcps_json_parse(text, len, NULL, &r);
        int slot = kind == 'y' ? 0 : kind == 'n' ? 1 : 2;
        totals[slot]++;
        if (kind == 'y' && ok)
            counts[0]++;
        else if (kind == 'n' && !ok)
            counts[1]++;
        else if (kind == 'i') {
            const char *want = documented_decision(doc, name);
            if (want && strcmp(want, ok ? "accept" : "reject") == 0)
                counts[2]++;
            else
                print_error("%s: parser says %s, docs say %s\n", e->d_name,
                            ok ? "accept" : "reject", want ? want : "nothing");
        } else {
            print_error("%s: %s (%s at %zu)\n", e->d_name, ok ? "accepted" : "rejected", r.error,
                        r.error_offset);
        }
        if (!ok)
            assert_true(r.error[0] != '\0');
        mcps_json_delete(r.root);
        free(text);
    }
    closedir(dir);
    free(doc);
    totals[1] += 2;
    counts[1] += deep_rejections();
    assert_int_equal(totals[0], 95);
    assert_int_equal(totals[1], 188);
    assert_int_equal(counts[0], totals[0]);
    assert_int_equal(counts[1], totals[1]);
    assert_int_equal(counts[2], totals[2]);
}

static void test_ids_are_exact(void **state)
{
    (void)state;
    cJSON *a = must_parse("{\"id\":9007199254740993}");
    cJSON *b = must_parse("{\"id\":9007199254740992}");
    cJSON *c = must_parse("{\"id\":1.0}");
    cJSON *d = must_parse("{\"id\":1}");
    cJSON *e = must_parse("{\"id\":\"1\"}");
    assert_string_equal(mcps_json_number_text(cJSON_GetObjectItem(a, "id")), "9007199254740993");
    assert_false(mcps_json_equal(a, b)); /* equal as doubles, not as JSON text */
    assert_false(mcps_json_equal(c, d));
    assert_false(mcps_json_equal(d, e));
    assert_true(mcps_json_number_is_integer(cJSON_GetObjectItem(d, "id")));
    assert_false(mcps_json_number_is_integer(cJSON_GetObjectItem(c, "id")));
    cJSON *d2 = must_parse(" { \"id\" : 1 } ");
    assert_true(mcps_json_equal(d, d2));
    char *printed = mcps_json_print(a, NULL);
    assert_string_equal(printed, "{\"id\":9007199254740993}");
    free(printed);
    cJSON *big = must_parse("-0");
    assert_string_equal(mcps_json_number_text(big), "-0");
    cJSON *values[] = {a, b, c, d, e, d2, big};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++)
        mcps_json_delete(values[i]);
}

static void test_object_equality_ignores_order(void **state)
{
    (void)state;
    cJSON *a = must_parse("{\"a\":1,\"b\":[1,2,{\"c\":null}]}");
    cJSON *b = must_parse("{\"b\":[1,2,{\"c\":null}],\"a\":1}");
    cJSON *c = must_parse("{\"b\":[2,1,{\"c\":null}],\"a\":1}");
    assert_true(mcps_json_equal(a, b));
    assert_false(mcps_json_equal(a, c));
    mcps_json_delete(a);
    mcps_json_delete(b);
    mcps_json_delete(c);
}

static char *nested(size_t depth)
{
    char *s = malloc(depth * 2 + 1);
    memset(s, '[', depth);
    memset(s + depth, ']', depth);
    s[depth * 2] = '\0';
    return s;
}

static void test_deep_nesting_is_bounded(void **state)
{
    (void)state;
    size_t depth = 1000000;
    char *s = nested(depth);
    mcps_json_result r;
    assert_false(mcps_json_parse(s, depth * 2, NULL, &r));
    assert_int_equal(r.error_offset, MCPS_JSON_DEFAULT_MAX_DEPTH);
    assert_non_null(strstr(r.error, "nesting deeper"));
    /* With the limit raised it parses: depth costs heap, not stack. */
    mcps_json_limits lim = {depth, MCPS_JSON_DEFAULT_MAX_BYTES};
    assert_true(mcps_json_parse(s, depth * 2, &lim, &r));
    size_t len;
    char *printed = mcps_json_print(r.root, &len);
    assert_int_equal(len, depth * 2);
    assert_memory_equal(printed, s, len);
    assert_true(mcps_json_equal(r.root, r.root));
    free(printed);
    mcps_json_delete(r.root);
    free(s);
}

static void test_size_limit(void **state)
{
    (void)state;
    size_t n = (size_t)64 * 1024 * 1024;
    char *s = malloc(n);
    s[0] = '"';
    memset(s + 1, 'x', n - 2);
    s[n - 1] = '"';
    mcps_json_result r;
    assert_true(mcps_json_parse(s, n, NULL, &r));
    assert_int_equal(strlen(r.root->valuestring), n - 2);
    mcps_json_delete(r.root);
    mcps_json_limits lim = {10, 1024};
    assert_false(mcps_json_parse(s, n, &lim, &r));
    assert_int_equal(r.error_offset, 1024);
    assert_non_null(strstr(r.error, "over the limit"));
    free(s);
}

static void test_findings(void **state)
{
    (void)state;
    mcps_json_result r;
    assert_true(parse_text("{\"a\":1,\"b\":2,\"\\u0061\":3}", &r));
    assert_int_equal(r.nfindings, 1);
    assert_int_equal(r.findings[0].kind, MCPS_JSON_DUPLICATE_KEY);
    assert_int_equal(r.findings[0].offset, 13);
    mcps_json_delete(r.root);

    assert_true(parse_text("[\"\\uD800x\", \"\\uDC00\"]", &r));
    assert_int_equal(r.nfindings, 2);
    assert_int_equal(r.findings[0].kind, MCPS_JSON_LONE_SURROGATE);
    assert_int_equal(r.findings[0].offset, 2);
    assert_string_equal(r.root->child->valuestring, "\xEF\xBF\xBDx");
    mcps_json_delete(r.root);

    /* A large object takes the hashed path; the duplicate is still found. */
    char big[8192];
    size_t n = 0;
    n += (size_t)snprintf(big + n, sizeof big - n, "{");
    for (int i = 0; i < 200; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "\"k%d\":%d,", i, i);
    n += (size_t)snprintf(big + n, sizeof big - n, "\"k150\":0}");
    assert_true(parse_text(big, &r));
    assert_int_equal(r.nfindings, 1);
    assert_non_null(strstr(r.findings[0].detail, "k150"));
    mcps_json_delete(r.root);
}

typedef struct reject_case {
    const char *text;
    size_t offset;
    const char *reason;
} reject_case;

static void test_rejections_have_offset_and_reason(void **state)
{
    (void)state;
    static const reject_case cases[] = {
        {"{\"a\":01}", 5, "leading zeros"},
        {"[1,]", 3, "trailing comma"},
        {"\"a\nb\"", 2, "raw control character U+000A"},
        {"\"\\x\"", 1, "invalid escape"},
        {"\"\xC0\xAF\"", 1, "overlong"},
        {"\"\xED\xA0\x80\"", 1, "surrogate encoded in UTF-8"},
        {"\"\xF4\x90\x80\x80\"", 1, "above U+10FFFF"},
        {"\"\xE2\x82\"", 1, "truncated UTF-8"},
        {"{\"a\" 1}", 5, "':' after object key"},
        {"{\"a\":1 \"b\":2}", 7, "',' or '}'"},
        {"[1 2]", 3, "',' or ']'"},
        {"{1:2}", 1, "string as object key"},
        {"nul", 3, "invalid literal"},
        {"[1.]", 3, "after the decimal point"},
        {"1e+", 3, "exponent"},
        {"{} x", 3, "end of input after the JSON value"},
        {"", 0, "end of input"},
        {"\xEF\xBB\xBF{}", 0, "byte order mark"},
        {"\"abc", 4, "unterminated string"},
        {"\"\\u12G4\"", 1, "four hex digits"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mcps_json_result r;
        const char *t = cases[i].text;
        if (mcps_json_parse(t, strlen(t), NULL, &r))
            fail_msg("accepted %s", t);
        if (r.incomplete != (r.error_offset == strlen(t)))
            fail_msg("case %zu: incomplete flag wrong", i);
        if (r.error_offset != cases[i].offset || !strstr(r.error, cases[i].reason))
            fail_msg("case %zu: got '%s' at %zu, want '%s' at %zu", i, r.error, r.error_offset,
                     cases[i].reason, cases[i].offset);
    }
}

static void test_printer_is_one_line_and_exact(void **state)
{
    (void)state;
    const char *src =
        "{ \"s\" : \"line1\\nline2\\t\\u0000\\u001f\\\"q\\\\ \\u00e9 \xF0\x9D\x84\x9E\","
        " \"n\" : [ -0.0e+10 , 1E3 , 123456789012345678901234567890 ], \"t\":true,"
        " \"f\":false, \"z\":null, \"o\":{}, \"a\":[] }";
    cJSON *tree = must_parse(src);
    size_t len;
    char *out = mcps_json_print(tree, &len);
    assert_null(memchr(out, '\n', len));
    assert_string_equal(
        out, "{\"s\":\"line1\\nline2\\t\\u0000\\u001f\\\"q\\\\ \xC3\xA9 \xF0\x9D\x84\x9E\","
             "\"n\":[-0.0e+10,1E3,123456789012345678901234567890],\"t\":true,"
             "\"f\":false,\"z\":null,\"o\":{},\"a\":[]}");
    cJSON *again = must_parse(out);
    assert_true(mcps_json_equal(tree, again));
    char *out2 = mcps_json_print(again, NULL);
    assert_string_equal(out, out2);
    /* U+0000 survives as modified UTF-8, so the C string keeps its length. */
    assert_int_equal(strlen(cJSON_GetObjectItem(tree, "s")->valuestring), 26);
    free(out);
    free(out2);
    mcps_json_delete(tree);
    mcps_json_delete(again);
}

static void test_hand_built_trees_print(void **state)
{
    (void)state;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "i", 42);
    cJSON_AddNumberToObject(o, "f", 0.1);
    cJSON_AddItemToObject(o, "exact", mcps_json_create_number_text("1.50"));
    char *out = mcps_json_print(o, NULL);
    assert_string_equal(out, "{\"i\":42,\"f\":0.1,\"exact\":1.50}");
    free(out);
    mcps_json_delete(o);
    assert_null(mcps_json_create_number_text("\"x\""));
}

/* Whole numbers below 1e17 skip snprintf; they must print what "%.0f" prints. */
static void test_whole_numbers_print_as_printf_does(void **state)
{
    (void)state;
    static const struct {
        double value;
        const char *text;
    } cases[] = {
        {0.0, "0"},
        {-0.0, "-0"},
        {-42.0, "-42"},
        {9007199254740993.0, "9007199254740992"}, /* 2^53 + 1 is not a double */
        {99999999999999984.0, "99999999999999984"},
        {-99999999999999984.0, "-99999999999999984"},
        {1e17, "1e+17"}, /* past the fast path: %.15g */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char printf_text[64];
        snprintf(printf_text, sizeof printf_text, "%.0f", cases[i].value);
        if (cases[i].value < 1e17)
            assert_string_equal(printf_text, cases[i].text);
        cJSON *n = cJSON_CreateNumber(cases[i].value);
        char *out = mcps_json_print(n, NULL);
        assert_string_equal(out, cases[i].text);
        free(out);
        mcps_json_delete(n);
    }
}

/* Found by fuzz_observe: a print that writes nothing must still be a C string. */
static void test_empty_prints_are_strings(void **state)
{
    (void)state;
    size_t n = 99;
    char *out = mcps_json_print(NULL, &n);
    assert_non_null(out);
    assert_int_equal(n, 0);
    assert_string_equal(out, "");
    free(out);
    cJSON *raw = cJSON_CreateRaw("");
    out = mcps_json_print(raw, &n);
    assert_int_equal(n, 0);
    assert_string_equal(out, "");
    free(out);
    cJSON_Delete(raw);
}

static void test_utf8_validator(void **state)
{
    (void)state;
    size_t bad = 99;
    const char *good = "h\xC3\xA9llo \xE2\x9C\x93 \xF0\x9D\x84\x9E";
    assert_true(mcps_json_utf8_valid(good, strlen(good), &bad));
    assert_false(mcps_json_utf8_valid("ab\xC0\x80", 4, &bad));
    assert_int_equal(bad, 2);
    assert_false(mcps_json_utf8_valid("\xFF", 1, &bad));
    assert_int_equal(bad, 0);
}

/* A line too big to parse whole still gives up its short top-level members. */
static void test_shallow_keeps_short_members(void **state)
{
    (void)state;
    size_t depth = 100000;
    const char *head = "{\"jsonrpc\":\"2.0\",\"id\":\"deep\",\"params\":";
    const char *tail = ",\"method\":\"ping\"}";
    size_t n = strlen(head) + 2 * depth + strlen(tail);
    char *line = malloc(n + 1);
    assert_non_null(line);
    strcpy(line, head);
    memset(line + strlen(head), '[', depth);
    memset(line + strlen(head) + depth, ']', depth);
    strcpy(line + strlen(head) + 2 * depth, tail);
    assert_null(mcps_json_parse_simple(line, n)); /* deeper than the parser's limit */
    cJSON *obj = mcps_json_parse_shallow(line, n, 1024);
    assert_non_null(obj);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(obj, "id")->valuestring, "deep");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(obj, "method")->valuestring, "ping");
    assert_null(cJSON_GetObjectItemCaseSensitive(obj, "params"));
    mcps_json_delete(obj);
    free(line);

    /* Where every member is short it is the full parse; a non-object is nothing. */
    const char *small = " { \"a\" : [1, {\"b\":\"],}\\\"\"}] , \"c\":-2.50e3 } ";
    cJSON *full = mcps_json_parse_simple(small, strlen(small));
    cJSON *shallow = mcps_json_parse_shallow(small, strlen(small), 1024);
    assert_true(mcps_json_equal(full, shallow));
    mcps_json_delete(full);
    mcps_json_delete(shallow);
    assert_null(mcps_json_parse_shallow("[1,2]", 5, 1024));
}

/* Spots: where each node starts (a member: its key), for loaders that name lines. */
static void test_spots_say_where_nodes_start(void **state)
{
    (void)state;
    static const char text[] = " {\"a\": 1,\n \"b\": [true,\n {\"c\": \"x\"}]}";
    mcps_json_result r;
    mcps_json_spots spots = {0};
    assert_true(mcps_json_parse_spotted(text, strlen(text), NULL, &r, &spots));
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(r.root, "b");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(b, 1), "c");
    struct {
        const cJSON *node;
        const char *at;
    } want[] = {
        {r.root, "{\"a\""},
        {cJSON_GetObjectItemCaseSensitive(r.root, "a"), "\"a\""},
        {b, "\"b\""},
        {cJSON_GetArrayItem(b, 0), "true"},
        {cJSON_GetArrayItem(b, 1), "{\"c\""},
        {c, "\"c\""},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        size_t at;
        assert_true(mcps_json_spot_of(&spots, want[i].node, &at));
        assert_int_equal(at, (size_t)(strstr(text, want[i].at) - text));
    }
    size_t at;
    assert_false(mcps_json_spot_of(&spots, NULL, &at));
    mcps_json_delete(r.root);
    mcps_json_spots_free(&spots);
    /* A rejected text leaves no spot of a freed node behind. */
    assert_false(mcps_json_parse_spotted("[1,", 3, NULL, &r, &spots));
    assert_int_equal(spots.n, 0);
    mcps_json_spots_free(&spots);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_test_suite),
        cmocka_unit_test(test_ids_are_exact),
        cmocka_unit_test(test_object_equality_ignores_order),
        cmocka_unit_test(test_deep_nesting_is_bounded),
        cmocka_unit_test(test_size_limit),
        cmocka_unit_test(test_findings),
        cmocka_unit_test(test_rejections_have_offset_and_reason),
        cmocka_unit_test(test_printer_is_one_line_and_exact),
        cmocka_unit_test(test_empty_prints_are_strings),
        cmocka_unit_test(test_hand_built_trees_print),
        cmocka_unit_test(test_whole_numbers_print_as_printf_does),
        cmocka_unit_test(test_utf8_validator),
        cmocka_unit_test(test_shallow_keeps_short_members),
        cmocka_unit_test(test_spots_say_where_nodes_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
