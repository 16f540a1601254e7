/*
 * test_http_queue.c - the HTTP transport's event queue (http_int.h) counts
 * what its events take in memory, headers included, not only their payload:
 * the transport pauses a flooding SSE stream on that count, and a flood of
 * small events costs mostly headers (tests/hostile/http-endless-sse.py).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "transport/http_int.h"

static void test_counts_headers(void **state)
{
    (void)state;
    mcps_http_evq q = {0};
    static const char note[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}";
    size_t n = 1000, len = sizeof note - 1;
    for (size_t i = 0; i < n; i++)
        assert_true(mcps_http_evq_push(&q, MCPS_TEV_MESSAGE, 1, note, len, NULL));
    assert_int_equal(q.bytes, n * mcps_http_ev_size(len));
    assert_true(q.bytes >= n * (len + sizeof(mcps_http_ev)));
    /* an empty event (a record with no payload) still takes its header */
    assert_true(mcps_http_evq_push(&q, MCPS_TEV_ERROR, 1, NULL, 0, "reset"));
    assert_true(q.bytes > n * mcps_http_ev_size(len));
    mcps_http_ev *e = mcps_http_evq_pop(&q);
    assert_non_null(e);
    assert_string_equal(e->data, note);
    free(e);
    assert_int_equal(q.bytes, (n - 1) * mcps_http_ev_size(len) + mcps_http_ev_size(0));
    mcps_http_evq_free(&q);
    assert_int_equal(q.bytes, 0);
    assert_null(q.head);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_headers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
