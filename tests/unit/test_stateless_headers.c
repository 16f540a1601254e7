/*
 * test_stateless_headers.c - the 2026-07-28 HTTP request headers the session
 * derives from a stamped request (session_stateless.c): the base64 sentinel
 * for values that are not plain ASCII (HDR-007, codec/header.c, with the spec's
 * own examples), and which headers a POST of which message gets (HDR-001,
 * HDR-005, no Mcp-Session-Id).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "codec/header.h"
#include "codec/json.h"
#include "session/session.h"

static void expect_encoded(const char *value, const char *want)
{
    char *got = mcps_header_encode(value);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void test_plain_values_unchanged(void **state)
{
    (void)state;
    expect_encoded("get_weather", "get_weather");
    expect_encoded("file:///a b/c.txt", "file:///a b/c.txt");
    expect_encoded("", "");
    /* the sentinel's look is both ends: either alone is a plain value */
    expect_encoded("=?base64?abc", "=?base64?abc");
    expect_encoded("abc?=", "abc?=");
}

static void test_sentinel(void **state)
{
    (void)state;
    expect_encoded("Hello, \xe4\xb8\x96\xe7\x95\x8c", "=?base64?SGVsbG8sIOS4lueVjA==?=");
    expect_encoded(" padded ", "=?base64?IHBhZGRlZCA=?=");
    expect_encoded("line1\nline2", "=?base64?bGluZTEKbGluZTI=?=");
    expect_encoded("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
    expect_encoded("wetter-\xc3\xbc", "=?base64?d2V0dGVyLcO8?=");
    expect_encoded("tab\there", "=?base64?dGFiCWhlcmU=?=");
}

/* The header lines of msg, joined by '|'. */
static char *lines_of(const char *json)
{
    mcps_session s = {0};
    s.cfg.rev = MCPS_REV_2026_07_28;
    cJSON *msg = json ? mcps_json_parse_simple(json, strlen(json)) : NULL;
    char *lines[MCPS_STATELESS_HEADERS];
    size_t n = mcps_stateless_header_lines(&s, msg, lines);
    assert_null(lines[n]);
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(lines[i]) + 1;
    char *out = calloc(1, len);
    for (size_t i = 0; i < n; i++) {
        if (i)
            strcat(out, "|");
        strcat(out, lines[i]);
        free(lines[i]);
    }
    mcps_json_delete(msg);
    return out;
}

static void expect_lines(const char *json, const char *want)
{
    char *got = lines_of(json);
    assert_string_equal(got, want);
    free(got);
}

static void test_lines(void **state)
{
    (void)state;
    expect_lines("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
                 "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}",
                 "MCP-Protocol-Version: 2026-07-28|Mcp-Method: tools/list|Mcp-Session-Id:");
    /* The body's version, however odd, so that header and body agree. */
    expect_lines("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"wetter-\xc3\xbc\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
                 "\"1900-01-01\"}}}",
                 "MCP-Protocol-Version: 1900-01-01|Mcp-Method: tools/call|"
                 "Mcp-Name: =?base64?d2V0dGVyLcO8?=|Mcp-Session-Id:");
    expect_lines("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":"
                 "\"file:///x\"}}",
                 "MCP-Protocol-Version: 2026-07-28|Mcp-Method: resources/read|"
                 "Mcp-Name: file:///x|Mcp-Session-Id:");
    /* No name for methods that have none, even when params has one. */
    expect_lines("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"completion/complete\",\"params\":{"
                 "\"name\":\"x\"}}",
                 "MCP-Protocol-Version: 2026-07-28|Mcp-Method: completion/complete|"
                 "Mcp-Session-Id:");
    /* Raw bytes that are no message, and a GET without a body: the version alone. */
    expect_lines(NULL, "MCP-Protocol-Version: 2026-07-28|Mcp-Session-Id:");
    expect_lines("[1,2]", "MCP-Protocol-Version: 2026-07-28|Mcp-Session-Id:");
    /* A method no header can carry is left to the body. */
    expect_lines("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\\nb\"}",
                 "MCP-Protocol-Version: 2026-07-28|Mcp-Session-Id:");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_values_unchanged),
        cmocka_unit_test(test_sentinel),
        cmocka_unit_test(test_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
