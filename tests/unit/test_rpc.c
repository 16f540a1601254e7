/*
 * test_rpc.c - JSON-RPC classification (each violation with its requirement
 * IDs), exact ids, serialization, revisions and newline framing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "codec/frame.h"
#include "codec/json.h"
#include "codec/rev.h"
#include "codec/rpc.h"

typedef struct classify_case {
    const char *text;
    mcps_rev rev;
    mcps_rpc_kind kind;
    const char *reqs; /* requirement IDs of the first violation, NULL when clean */
} classify_case;

static const classify_case cases[] = {
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", MCPS_REV_2025_06_18, MCPS_RPC_REQUEST,
     NULL},
    {"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", MCPS_REV_2025_06_18,
     MCPS_RPC_NOTIFICATION, NULL},
    {"{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{}}", MCPS_REV_2025_06_18, MCPS_RPC_RESULT,
     NULL},
    {"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}",
     MCPS_REV_2024_11_05, MCPS_RPC_ERROR, NULL},
    {"{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}",
     MCPS_REV_2025_11_25, MCPS_RPC_ERROR, NULL},
    {"{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", MCPS_REV_2025_06_18, MCPS_RPC_INVALID,
     "RPC-MSG-001"},
    {"{\"id\":1,\"method\":\"ping\"}", MCPS_REV_2025_06_18, MCPS_RPC_INVALID, "RPC-MSG-001"},
    {"{\"jsonrpc\":2.0,\"id\":1,\"method\":\"ping\"}", MCPS_REV_2025_06_18, MCPS_RPC_INVALID,
     "RPC-MSG-001"},
    {"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", MCPS_REV_2025_06_18, MCPS_RPC_REQUEST,
     "RPC-ID-002"},
    {"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", MCPS_REV_2025_06_18, MCPS_RPC_REQUEST,
     "RPC-ID-001"},
    {"{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"ping\"}", MCPS_REV_2025_06_18, MCPS_RPC_REQUEST,
     "RPC-ID-001"},
    {"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"notifications/progress\"}", MCPS_REV_2025_06_18,
     MCPS_RPC_REQUEST, "RPC-NOT-001"},
    {"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":123}", MCPS_REV_2025_06_18, MCPS_RPC_INVALID,
     "RPC-MSG-001 RPC-ERR-004"},
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{\"code\":1,\"message\":\"x\"}}",
     MCPS_REV_2025_06_18, MCPS_RPC_INVALID, "RPC-RSP-002"},
    {"{\"jsonrpc\":\"2.0\",\"id\":1}", MCPS_REV_2025_06_18, MCPS_RPC_INVALID,
     "RPC-MSG-001 RPC-RSP-002"},
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":[]}", MCPS_REV_2025_06_18, MCPS_RPC_RESULT,
     "RPC-RSP-003"},
    {"{\"jsonrpc\":\"2.0\",\"result\":{}}", MCPS_REV_2025_06_18, MCPS_RPC_RESULT, "RPC-RSP-001"},
    {"{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}", MCPS_REV_2025_06_18, MCPS_RPC_RESULT,
     "RPC-RSP-001"},
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":\"-32600\",\"message\":\"x\"}}",
     MCPS_REV_2025_06_18, MCPS_RPC_ERROR, "RPC-ERR-001"},
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32600.5,\"message\":\"x\"}}",
     MCPS_REV_2025_06_18, MCPS_RPC_ERROR, "RPC-ERR-001"},
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32600}}", MCPS_REV_2025_06_18,
     MCPS_RPC_ERROR, "RPC-ERR-001"},
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":\"boom\"}", MCPS_REV_2025_06_18, MCPS_RPC_ERROR,
     "RPC-ERR-001"},
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":[1]}", MCPS_REV_2025_06_18,
     MCPS_RPC_INVALID, "RPC-MSG-001"},
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", MCPS_REV_2026_07_28, MCPS_RPC_RESULT,
     "RPC-RT-001"},
    {"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", MCPS_REV_2025_03_26, MCPS_RPC_BATCH,
     NULL},
    {"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", MCPS_REV_2025_06_18, MCPS_RPC_BATCH,
     "BATCH-005"},
    {"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", MCPS_REV_2024_11_05, MCPS_RPC_BATCH,
     "BATCH-006"},
    {"[]", MCPS_REV_2025_03_26, MCPS_RPC_BATCH, "BATCH-004"},
    {"[]", MCPS_REV_NONE, MCPS_RPC_BATCH, "BATCH-004"},
    {"\"ping\"", MCPS_REV_2025_06_18, MCPS_RPC_INVALID, "RPC-MSG-001"},
};

static void test_classify_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const classify_case *c = &cases[i];
        cJSON *msg = mcps_json_parse_simple(c->text, strlen(c->text));
        assert_non_null(msg);
        mcps_rpc_info info;
        mcps_rpc_classify(msg, c->rev, &info);
        if (info.kind != c->kind)
            fail_msg("case %zu %s: kind %s, want %s", i, c->text, mcps_rpc_kind_name(info.kind),
                     mcps_rpc_kind_name(c->kind));
        if (!c->reqs && info.nviolations)
            fail_msg("case %zu %s: unexpected violation %s: %s", i, c->text,
                     info.violations[0].reqs, info.violations[0].message);
        if (c->reqs && (!info.nviolations || strcmp(info.violations[0].reqs, c->reqs) != 0))
            fail_msg("case %zu %s: want %s, got %s", i, c->text, c->reqs,
                     info.nviolations ? info.violations[0].reqs : "nothing");
        mcps_json_delete(msg);
    }
}

static void test_batch_items(void **state)
{
    (void)state;
    const char *text = "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},[],3]";
    cJSON *msg = mcps_json_parse_simple(text, strlen(text));
    mcps_rpc_info info;
    mcps_rpc_classify_batch_item(msg->child, MCPS_REV_2025_03_26, &info);
    assert_int_equal(info.kind, MCPS_RPC_REQUEST);
    mcps_rpc_classify_batch_item(msg->child->next, MCPS_REV_2025_03_26, &info);
    assert_int_equal(info.kind, MCPS_RPC_INVALID);
    assert_string_equal(info.violations[0].reqs, "RPC-MSG-001");
    mcps_json_delete(msg);
}

static void test_ids_compare_exactly(void **state)
{
    (void)state;
    const char *ids[] = {"\"42\"",           "42", "42.0", "9007199254740993", "9007199254740992",
                         "\"abc-\xC3\xBC\"", "0"};
    size_t n = sizeof ids / sizeof *ids;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            cJSON *a = mcps_json_parse_simple(ids[i], strlen(ids[i]));
            cJSON *b = mcps_json_parse_simple(ids[j], strlen(ids[j]));
            assert_int_equal(mcps_rpc_id_equal(a, b), i == j);
            mcps_json_delete(a);
            mcps_json_delete(b);
        }
    char text[64];
    cJSON *id = mcps_json_parse_simple("\"x\"", 3);
    mcps_rpc_id_text(id, text, sizeof text);
    assert_string_equal(text, "\"x\"");
    mcps_rpc_id_text(NULL, text, sizeof text);
    assert_string_equal(text, "(none)");
    mcps_json_delete(id);
}

static void test_serialize_one_line(void **state)
{
    (void)state;
    cJSON *params = cJSON_CreateObject();
    cJSON_AddStringToObject(params, "text", "two\nlines\r\n");
    cJSON *req = mcps_rpc_request("\"r-1\"", "tools/call", params);
    size_t len;
    char *line = mcps_rpc_line(req, &len);
    assert_string_equal(line, "{\"jsonrpc\":\"2.0\",\"id\":\"r-1\",\"method\":\"tools/call\","
                              "\"params\":{\"text\":\"two\\nlines\\r\\n\"}}\n");
    assert_int_equal(len, strlen(line));
    assert_ptr_equal(memchr(line, '\n', len), line + len - 1);
    free(line);
    cJSON_Delete(req);
    cJSON *note = mcps_rpc_notification("notifications/initialized", NULL);
    line = mcps_rpc_line(note, NULL);
    assert_string_equal(line, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    free(line);
    cJSON_Delete(note);
}

static void test_revisions(void **state)
{
    (void)state;
    assert_string_equal(mcps_rev_name(MCPS_REV_2025_03_26), "2025-03-26");
    assert_int_equal(mcps_rev_parse("2025-11-25"), MCPS_REV_2025_11_25);
    assert_int_equal(mcps_rev_parse("2025-11-26"), MCPS_REV_NONE);
    mcps_rev_set s;
    assert_true(mcps_rev_set_parse("all", &s));
    assert_int_equal(s, MCPS_REV_ALL);
    assert_true(mcps_rev_set_parse("2025-06-18+", &s));
    assert_int_equal(s, MCPS_REV_BIT(2) | MCPS_REV_BIT(3) | MCPS_REV_BIT(4));
    assert_true(mcps_rev_set_parse("2024-11-05..2025-11-25", &s));
    assert_int_equal(s, MCPS_REV_HANDSHAKE_ERA);
    assert_true(mcps_rev_set_parse("2024-11-05, 2025-03-26", &s));
    assert_int_equal(s, 3u);
    assert_false(mcps_rev_set_parse("2025-11-25..2024-11-05", &s));
    assert_false(mcps_rev_set_parse("latest", &s));
}

/* Feed text in chunks of the given size; collect lines as "offset:text|". */
static char *frame_all(const char *text, size_t chunk, size_t max_line)
{
    mcps_framer f;
    mcps_framer_init(&f, max_line);
    mcps_buf out = {0};
    size_t n = strlen(text);
    mcps_frame fr;
    for (size_t i = 0; i < n; i += chunk) {
        mcps_framer_feed(&f, text + i, i + chunk > n ? n - i : chunk);
        while (mcps_framer_next(&f, &fr))
            mcps_buf_printf(&out, "%llu:%.*s%s%s|", (unsigned long long)fr.offset, (int)fr.len,
                            fr.data, fr.oversize ? "+" : "", fr.terminated ? "" : "$");
    }
    if (mcps_framer_finish(&f, &fr))
        mcps_buf_printf(&out, "%llu:%.*s$|", (unsigned long long)fr.offset, (int)fr.len, fr.data);
    mcps_framer_free(&f);
    return mcps_buf_take(&out);
}

static void test_framing_any_chunking(void **state)
{
    (void)state;
    const char *text = "{\"a\":1}\n\n[2]\nxxxxxxxxxxxxxxxxxxxx\nshort\ntail";
    const char *want = "0:{\"a\":1}|8:|9:[2]|13:xxxxxxxx+$|34:short|40:tail$|";
    for (size_t chunk = 1; chunk <= strlen(text); chunk++) {
        char *got = frame_all(text, chunk, 8);
        if (strcmp(got, want) != 0) {
            /* A long line that arrives whole with its newline is terminated, not cut. */
            const char *alt = "0:{\"a\":1}|8:|9:[2]|13:xxxxxxxx+|34:short|40:tail$|";
            if (strcmp(got, alt) != 0)
                fail_msg("chunk %zu: %s", chunk, got);
        }
        free(got);
    }
}

static void test_framing_memory_is_bounded(void **state)
{
    (void)state;
    mcps_framer f;
    mcps_framer_init(&f, 1024);
    char chunk[65536];
    memset(chunk, 'x', sizeof chunk);
    mcps_frame fr;
    int reports = 0;
    for (int i = 0; i < 256; i++) { /* 16 MiB without a newline */
        mcps_framer_feed(&f, chunk, sizeof chunk);
        while (mcps_framer_next(&f, &fr))
            reports++;
        assert_true(f.buf.cap <= 4 * sizeof chunk);
    }
    assert_int_equal(reports, 1);
    mcps_framer_feed(&f, "\n{}\n", 4);
    assert_true(mcps_framer_next(&f, &fr));
    assert_int_equal(fr.len, 2);
    assert_int_equal(fr.offset, 256u * 65536u + 1u);
    assert_false(mcps_framer_next(&f, &fr));
    mcps_framer_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classify_table),
        cmocka_unit_test(test_batch_items),
        cmocka_unit_test(test_ids_compare_exactly),
        cmocka_unit_test(test_serialize_one_line),
        cmocka_unit_test(test_revisions),
        cmocka_unit_test(test_framing_any_chunking),
        cmocka_unit_test(test_framing_memory_is_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
