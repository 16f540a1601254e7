/*
 * test_functions.c - suite functions (engine/functions.h) whose output a check's verdict rests
 * on: mcp_param_probes, the Mcp-Param-* headers a client sends for the x-mcp-header arguments
 * of a call (HDR-009, HDR-010, encoded as HDR-007 says) and the probes the stateless-http
 * cases send with them (HDR-011, HDR-012). The refserver proofs run them end to end against
 * one tool; the shapes a tool list may take (nesting, booleans, no value) are here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/json.h"
#include "engine/functions.h"

static cJSON *parse(const char *text)
{
    cJSON *v = mcps_json_parse_simple(text, strlen(text));
    assert_non_null(v);
    return v;
}

/* mcp_param_probes(schema, args); NULL (with why) when it computes nothing. */
static cJSON *probes(const char *schema, const char *args, char *why, size_t n)
{
    cJSON *s = parse(schema), *a = parse(args);
    const cJSON *argv[2] = {s, a};
    cJSON *out = mcps_function_call("mcp_param_probes", argv, 2, why, n);
    mcps_json_delete(s);
    mcps_json_delete(a);
    return out;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const cJSON *item(const cJSON *o, const char *key, int index)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, key), index);
}

#define SCHEMA                                                                                     \
    "{\"type\":\"object\",\"required\":[\"region\"],\"properties\":{"                              \
    "\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},"                                \
    "\"shard\":{\"type\":\"integer\",\"x-mcp-header\":\"Shard\"},"                                 \
    "\"opts\":{\"type\":\"object\",\"properties\":{"                                               \
    "\"dry\":{\"type\":\"boolean\",\"x-mcp-header\":\"Dry-Run\"}}},"                               \
    "\"list\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"x-mcp-header\":\"Item\"}},"     \
    "\"text\":{\"type\":\"string\"}}}"

static void test_headers_a_client_sends(void **state)
{
    (void)state;
    char why[200] = "";
    cJSON *p = probes(SCHEMA,
                      "{\"region\":\"Hello, \\u4e16\\u754c\",\"shard\":42,\"opts\":{\"dry\":true},"
                      "\"list\":[\"a\"],\"text\":\"t\"}",
                      why, sizeof why);
    assert_non_null(p);
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(p, "headers");
    /* Not plain ASCII: the sentinel (the spec's own example); integers in decimal; booleans
     * in lower case; nested properties too, items never (no annotation reached that way). */
    assert_string_equal(str(h, "Mcp-Param-Region"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
    assert_string_equal(str(h, "Mcp-Param-Shard"), "42");
    assert_string_equal(str(h, "Mcp-Param-Dry-Run"), "true");
    assert_int_equal(cJSON_GetArraySize(h), 3);
    /* Three refusals per valued argument, a control character for each. */
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p, "refused")), 6);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p, "invalid")), 3);
    const cJSON *missing = cJSON_GetObjectItemCaseSensitive(item(p, "refused", 0), "headers");
    assert_null(cJSON_GetObjectItemCaseSensitive(missing, "Mcp-Param-Region"));
    assert_string_equal(str(missing, "Mcp-Param-Shard"), "42");
    const cJSON *other = cJSON_GetObjectItemCaseSensitive(item(p, "refused", 3), "headers");
    assert_string_equal(str(other, "Mcp-Param-Shard"), "43");
    other = cJSON_GetObjectItemCaseSensitive(item(p, "refused", 5), "headers");
    assert_string_equal(str(other, "Mcp-Param-Dry-Run"), "false");
    const cJSON *ctl = cJSON_GetObjectItemCaseSensitive(item(p, "invalid", 1), "headers");
    const char *shard = str(ctl, "Mcp-Param-Shard");
    assert_non_null(shard);
    assert_int_equal(shard[0], 1); /* U+0001, then the value as sent */
    assert_string_equal(shard + 1, "42");
    /* The argument left out is one the schema does not require (shard), absent then null. */
    const cJSON *absent = item(p, "absent", 0), *null = item(p, "absent", 1);
    assert_false(
        cJSON_HasObjectItem(cJSON_GetObjectItemCaseSensitive(absent, "arguments"), "shard"));
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(null, "arguments"), "shard")));
    assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(null, "headers"),
                                                 "Mcp-Param-Shard"));
    assert_string_equal(str(cJSON_GetObjectItemCaseSensitive(null, "headers"), "Mcp-Param-Dry-Run"),
                        "true");
    /* 42 in the body, 42.0 in the header; the other headers as a client sends them. */
    const cJSON *integer =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p, "integer"), "headers");
    assert_string_equal(str(integer, "Mcp-Param-Shard"), "42.0");
    assert_string_equal(str(integer, "Mcp-Param-Dry-Run"), "true");
    mcps_json_delete(p);
}

static void test_nested_argument_left_out(void **state)
{
    (void)state;
    char why[200] = "";
    cJSON *p = probes(SCHEMA, "{\"region\":\"eu\",\"opts\":{\"dry\":false}}", why, sizeof why);
    assert_non_null(p);
    /* region is required, dry is not: dry is the one left out, inside opts. */
    const cJSON *absent = cJSON_GetObjectItemCaseSensitive(item(p, "absent", 0), "arguments");
    assert_string_equal(str(absent, "region"), "eu");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(absent, "opts")), 0);
    /* No integer argument has a value: nothing for HDR-012. */
    assert_null(cJSON_GetObjectItemCaseSensitive(p, "integer"));
    mcps_json_delete(p);
}

static void test_nothing_to_mirror(void **state)
{
    (void)state;
    char why[200] = "";
    assert_null(probes(SCHEMA, "{\"text\":\"t\",\"shard\":null,\"region\":1.5}", why, sizeof why));
    assert_non_null(strstr(why, "no x-mcp-header property a value"));
    assert_null(probes("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}",
                       "{\"a\":\"x\"}", why, sizeof why));
    assert_non_null(strstr(why, "marks no property"));
    assert_null(probes("{\"type\":\"object\"}", "[]", why, sizeof why));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headers_a_client_sends),
        cmocka_unit_test(test_nested_argument_left_out),
        cmocka_unit_test(test_nothing_to_mirror),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
