/*
 * test_mcp_header.c - the observer's x-mcp-header rule (TOOL-020, TOOL-022) on
 * tools/list results of 2026-07-28: what makes an annotation invalid, what is
 * only a secret mirrored into a header, and what is no annotation at all.
 * The refserver faults prove two of these paths end to end; the rest are here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "codec/json.h"
#include "session/observe.h"

typedef struct seen {
    int invalid, sensitive;
} seen;

static void on_finding(void *ctx, const mcps_finding *f)
{
    seen *s = ctx;
    s->invalid += f->kind == MCPS_FINDING_MCP_HEADER_INVALID;
    s->sensitive += f->kind == MCPS_FINDING_MCP_HEADER_SENSITIVE;
}

/* Judge a tools/list result with one tool of this inputSchema; the annotations it counted. */
static size_t judge(const char *schema, seen *s)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\","
             "\"tools\":[{\"name\":\"t\",\"inputSchema\":%s}]}}",
             schema);
    mcps_observer obs;
    mcps_observer_init(&obs, MCPS_REV_2026_07_28, 1 << 20, on_finding, s);
    mcps_observed out = {0};
    size_t count = 0;
    if (mcps_observer_line(&obs, MCPS_DIR_FROM_SERVER, text, strlen(text), 0, 1, &out)) {
        count = mcps_observe_mcp_headers(&out.info);
        mcps_json_delete(out.msg);
    }
    mcps_observer_free(&obs);
    return count;
}

static void test_valid_annotations(void **state)
{
    (void)state;
    seen s = {0};
    assert_int_equal(judge("{\"type\":\"object\",\"properties\":{"
                           "\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},"
                           "\"n\":{\"type\":\"integer\",\"x-mcp-header\":\"N\"},"
                           "\"o\":{\"type\":\"object\",\"properties\":{"
                           "\"b\":{\"type\":\"boolean\",\"x-mcp-header\":\"Flag\"}}}}}",
                           &s),
                     3);
    assert_int_equal(s.invalid, 0);
    assert_int_equal(s.sensitive, 0);
}

static void test_invalid_annotations(void **state)
{
    (void)state;
    static const char *const bad[] = {
        /* not a token */
        "{\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"A B\"}}}",
        "{\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"\"}}}",
        "{\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":7}}}",
        /* on a number, an object, no type */
        "{\"properties\":{\"a\":{\"type\":\"number\",\"x-mcp-header\":\"A\"}}}",
        "{\"properties\":{\"a\":{\"type\":\"object\",\"x-mcp-header\":\"A\"}}}",
        "{\"properties\":{\"a\":{\"x-mcp-header\":\"A\"}}}",
        /* not reached through properties alone, or on the root */
        ("{\"properties\":{\"a\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
         "\"properties\":{\"b\":{\"type\":\"string\",\"x-mcp-header\":\"B\"}}}}}}"),
        "{\"anyOf\":[{\"properties\":{\"b\":{\"type\":\"string\",\"x-mcp-header\":\"B\"}}}]}",
        "{\"$defs\":{\"d\":{\"type\":\"string\",\"x-mcp-header\":\"D\"}}}",
        "{\"type\":\"object\",\"x-mcp-header\":\"Root\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        seen s = {0};
        assert_int_equal(judge(bad[i], &s), 1);
        if (s.invalid != 1)
            fail_msg("not judged invalid: %s", bad[i]);
    }
}

static void test_repeated_header(void **state)
{
    (void)state;
    seen s = {0};
    judge("{\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},"
          "\"b\":{\"type\":\"string\",\"x-mcp-header\":\"REGION\"}}}",
          &s);
    assert_int_equal(s.invalid, 1);
}

static void test_secret_names(void **state)
{
    (void)state;
    static const char *const names[] = {"password", "clientSecret", "access_token",
                                        "API-Key",  "apikey",       "user_ssn"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char schema[256];
        snprintf(schema, sizeof schema,
                 "{\"properties\":{\"%s\":{\"type\":\"string\",\"x-mcp-header\":\"H\"}}}",
                 names[i]);
        seen s = {0};
        judge(schema, &s);
        if (s.sensitive != 1 || s.invalid != 0)
            fail_msg("%s: sensitive %d, invalid %d", names[i], s.sensitive, s.invalid);
    }
}

static void test_data_is_no_annotation(void **state)
{
    (void)state;
    seen s = {0};
    assert_int_equal(judge("{\"properties\":{\"a\":{\"type\":\"object\","
                           "\"default\":{\"x-mcp-header\":\"X Y\"},"
                           "\"enum\":[{\"x-mcp-header\":\"X Y\"}]},"
                           "\"x-mcp-header\":{\"type\":\"string\"}}}",
                           &s),
                     0);
    assert_int_equal(s.invalid, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_annotations),     cmocka_unit_test(test_invalid_annotations),
        cmocka_unit_test(test_repeated_header),       cmocka_unit_test(test_secret_names),
        cmocka_unit_test(test_data_is_no_annotation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
