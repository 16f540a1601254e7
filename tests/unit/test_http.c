/*
 * test_http.c - the HTTP transport against a scripted server
 * (tests/unit/http_server.py, started through the server host it also
 * tests): JSON and SSE responses and their records, 202, the session id
 * kept, sent, overridden and forgotten after 404, headers and their
 * redaction, oversize bodies, deadlines and the guard against a server that
 * never answers, connection refused, a foreign redirect, a flooding stream,
 * legacy HTTP+SSE; and the host's shutdown ladder and output tail.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"
#include "transport/host.h"
#include "transport/http.h"

#define SLACK 2.0 /* seconds allowed beyond any deadline the transport promises */

typedef struct fixture {
    mcps_host *server;
    char base[64]; /* http://127.0.0.1:PORT */
} fixture;

/* ---- helpers ---- */

static int setup_server(void **state)
{
    static fixture fx; /* the group's, for its lifetime */
    char *argv[] = {"/usr/bin/python3", MCPS_SOURCE_DIR "/tests/unit/http_server.py", NULL};
    mcps_target_config cfg = {.argv = argv, .term_grace = 1};
    char err[256];
    fx.server = mcps_host_start(&cfg, err, sizeof err);
    if (!fx.server)
        fail_msg("cannot start the server: %s", err);
    int port = 0;
    for (int64_t end = mcps_clock_deadline(10); !port && mcps_clock_ms() < end;) {
        char *out = mcps_host_output(fx.server);
        const char *p = strstr(out, "PORT ");
        if (p)
            port = atoi(p + 5);
        free(out);
        if (!port)
            poll(NULL, 0, 20);
    }
    assert_true(port > 0);
    snprintf(fx.base, sizeof fx.base, "http://127.0.0.1:%d", port);
    assert_true(mcps_http_wait_listening(fx.base, mcps_clock_deadline(5), NULL, err, sizeof err));
    *state = &fx;
    return 0;
}

static int teardown_server(void **state)
{
    fixture *fx = *state;
    mcps_host_free(fx->server);
    return 0;
}

static mcps_transport *open_at(const fixture *fx, const char *path, mcps_target_config cfg)
{
    char url[128], err[256];
    snprintf(url, sizeof url, "%s%s", fx->base, path);
    cfg.url = url;
    if (!cfg.kind)
        cfg.kind = MCPS_TRANSPORT_STREAMABLE_HTTP;
    mcps_transport *t = mcps_http_open(&cfg, err, sizeof err);
    if (!t)
        fail_msg("cannot open %s: %s", url, err);
    return t;
}

static void send_json(mcps_transport *t, const char *json)
{
    char err[256];
    if (!t->ops->send(t, json, strlen(json), err, sizeof err))
        fail_msg("send failed: %s", err);
}

/* Every event text seen, for the redaction checks. */
typedef struct seen {
    char all[65536];
    size_t len;
} seen;

static void next_ev(mcps_transport *t, double secs, mcps_tevent *ev, seen *s)
{
    t->ops->next(t, mcps_clock_deadline(secs), ev);
    if (s && s->len + ev->len + strlen(ev->detail) + 2 < sizeof s->all) {
        memcpy(s->all + s->len, ev->data ? ev->data : "", ev->len);
        s->len += ev->len;
        s->len += (size_t)sprintf(s->all + s->len, "\n%s", ev->detail);
    }
}

/* The next event, which must be of this kind; its text (valid until the next call). */
static const char *expect(mcps_transport *t, mcps_tevent_kind kind, seen *s)
{
    static mcps_tevent ev; /* its detail outlives the call */
    next_ev(t, 5, &ev, s);
    if (ev.kind != kind)
        fail_msg("expected event %d, got %d: %.*s %s", kind, ev.kind, (int)ev.len,
                 ev.data ? ev.data : "", ev.detail);
    return ev.kind == MCPS_TEV_HTTP || ev.kind == MCPS_TEV_MESSAGE ? ev.data : ev.detail;
}

static void expect_has(mcps_transport *t, mcps_tevent_kind kind, const char *needle, seen *s)
{
    const char *text = expect(t, kind, s);
    if (!strstr(text, needle))
        fail_msg("'%s' not in: %s", needle, text);
}

static void initialize(mcps_transport *t, seen *s)
{
    send_json(t, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n");
    expect_has(t, MCPS_TEV_HTTP, "\"mcp-session-id\":\"sess-1\"", s);
    expect_has(t, MCPS_TEV_MESSAGE, "2025-06-18", s);
}

static void call(mcps_transport *t, const char *method)
{
    char json[128];
    snprintf(json, sizeof json, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"%s\"}\n", method);
    send_json(t, json);
}

/* ---- Streamable HTTP ---- */

static void test_json_response(void **state)
{
    mcps_transport *t = open_at(*state, "/mcp", (mcps_target_config){0});
    seen s = {0};
    send_json(t, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n");
    const char *rec = expect(t, MCPS_TEV_HTTP, &s);
    assert_non_null(strstr(rec, "{\"request\":1,\"event\":\"response\",\"method\":\"POST\","
                                "\"status\":200,\"headers\":{"));
    assert_non_null(strstr(rec, "\"content-type\":\"application/json\""));
    assert_non_null(strstr(rec, "\"set-cookie\":\"(redacted)\""));
    assert_null(strstr(rec, "\"body\""));
    mcps_tevent ev;
    next_ev(t, 5, &ev, &s);
    assert_int_equal(ev.kind, MCPS_TEV_MESSAGE);
    assert_int_equal(ev.request, 1);
    assert_true(ev.len > 10 && ev.data[0] == '{' && ev.data[ev.len - 1] == '}');
    assert_string_equal(mcps_http_session_id(t), "sess-1");
    assert_string_equal(t->ops->name, "streamable-http");
    assert_null(strstr(s.all, "cookie-secret"));
    t->ops->destroy(t);
}

static void test_session_headers_redaction(void **state)
{
    char *hdrs[] = {"Authorization: Bearer SECRET-TOKEN", NULL};
    mcps_transport *t = open_at(*state, "/mcp", (mcps_target_config){.headers = hdrs});
    seen s = {0};
    initialize(t, &s);
    mcps_http_set_header(t, "X-Test", "yes");
    call(t, "echo");
    expect(t, MCPS_TEV_HTTP, &s);
    const char *msg = expect(t, MCPS_TEV_MESSAGE, &s);
    assert_non_null(strstr(msg, "\"sid\": \"sess-1\""));
    assert_non_null(strstr(msg, "\"x_test\": \"yes\""));
    assert_non_null(strstr(msg, "\"auth_ok\": true"));
    assert_non_null(strstr(msg, "\"accept\": \"application/json, text/event-stream\""));
    assert_non_null(strstr(msg, "\"content_type\": \"application/json\""));
    assert_non_null(strstr(msg, "\"newline\": false"));
    /* Removed again, and the session id removed for one suite request. */
    mcps_http_set_header(t, "X-Test", NULL);
    const char *body = "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"echo\"}";
    const char *const drop[] = {"Mcp-Session-Id:", NULL};
    mcps_http_request rq = {
        .method = "POST", .headers = drop, .body = body, .body_len = strlen(body)};
    char err[256];
    assert_int_equal(mcps_http_send(t, &rq, err, sizeof err), 3);
    expect(t, MCPS_TEV_HTTP, &s);
    msg = expect(t, MCPS_TEV_MESSAGE, &s);
    assert_non_null(strstr(msg, "\"sid\": null"));
    assert_non_null(strstr(msg, "\"x_test\": null"));
    assert_string_equal(mcps_http_session_id(t), "sess-1");
    /* A suite's own (unknown) id gets 404, which does not forget ours. */
    const char *other[] = {"mcp-session-id: nope", NULL};
    rq.headers = other;
    assert_int_equal(mcps_http_send(t, &rq, err, sizeof err), 4);
    expect_has(t, MCPS_TEV_HTTP, "\"status\":404", &s);
    assert_string_equal(mcps_http_session_id(t), "sess-1");
    assert_null(strstr(s.all, "SECRET-TOKEN"));
    assert_null(strstr(s.all, "cookie-secret"));
    t->ops->destroy(t);
}

static void test_forget_session_after_404(void **state)
{
    mcps_transport *t = open_at(*state, "/mcp", (mcps_target_config){0});
    initialize(t, NULL);
    call(t, "end");
    expect(t, MCPS_TEV_HTTP, NULL);
    expect(t, MCPS_TEV_MESSAGE, NULL);
    call(t, "echo");
    expect_has(t, MCPS_TEV_HTTP, "\"status\":404", NULL);
    assert_null(mcps_http_session_id(t));
    call(t, "echo");
    expect(t, MCPS_TEV_HTTP, NULL);
    expect_has(t, MCPS_TEV_MESSAGE, "\"sid\": null", NULL);
    t->ops->destroy(t);
}

static void test_sse_response(void **state)
{
    mcps_transport *t = open_at(*state, "/mcp", (mcps_target_config){0});
    call(t, "sse");
    expect_has(t, MCPS_TEV_HTTP, "\"content-type\":\"text/event-stream\"", NULL);
    expect_has(t, MCPS_TEV_HTTP,
               "{\"request\":1,\"event\":\"sse\",\"id\":\"p0\",\"type\":\"message\","
               "\"data_bytes\":0}",
               NULL);
    expect_has(t, MCPS_TEV_HTTP, "\"id\":\"1\"", NULL);
    expect_has(t, MCPS_TEV_MESSAGE, "notifications/message", NULL);
    expect_has(t, MCPS_TEV_HTTP, "\"id\":\"2\"", NULL);
    expect_has(t, MCPS_TEV_MESSAGE, "\"id\": 7", NULL);
    expect_has(t, MCPS_TEV_HTTP, "\"event\":\"end\"", NULL);
    mcps_tevent ev;
    next_ev(t, 0.2, &ev, NULL);
    assert_int_equal(ev.kind, MCPS_TEV_TIMEOUT);
    t->ops->destroy(t);
}

static void test_202_and_html(void **state)
{
    mcps_transport *t = open_at(*state, "/mcp", (mcps_target_config){0});
    send_json(t, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    expect_has(t, MCPS_TEV_HTTP, "\"status\":202,\"headers\":{", NULL);
    call(t, "html");
    const char *rec = expect(t, MCPS_TEV_HTTP, NULL);
    assert_non_null(strstr(rec, "\"body\":\"<html>hello</html>\"}"));
    /* the 202's record said "body":"" - checked on a fresh one */
    send_json(t, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    expect_has(t, MCPS_TEV_HTTP, ",\"body\":\"\"}", NULL);
    /* Suite-written requests: another method, a path; a foreign URL is refused. */
    char err[256];
    mcps_http_request rq = {.method = "DELETE"};
    assert_int_equal(mcps_http_send(t, &rq, err, sizeof err), 4);
    expect_has(t, MCPS_TEV_HTTP, "\"method\":\"DELETE\",\"status\":405", NULL);
    rq = (mcps_http_request){.method = "GET", .path = "/sse"};
    assert_int_equal(mcps_http_send(t, &rq, err, sizeof err), 5);
    expect_has(t, MCPS_TEV_HTTP, "\"method\":\"GET\",\"status\":200", NULL);
    expect_has(t, MCPS_TEV_HTTP, "\"event\":\"sse\",\"type\":\"endpoint\"", NULL);
    rq.path = "http://127.0.0.2/mcp";
    assert_int_equal(mcps_http_send(t, &rq, err, sizeof err), 0);
    assert_non_null(strstr(err, "not a URL on the endpoint's origin"));
    const char *const bad[] = {"X-Evil: a\r\nInjected: b", NULL};
    rq = (mcps_http_request){.method = "POST", .headers = bad};
    assert_int_equal(mcps_http_send(t, &rq, err, sizeof err), 0);
    t->ops->destroy(t);
}

static void test_oversize_body(void **state)
{
    mcps_transport *t = open_at(*state, "/mcp", (mcps_target_config){.max_message = 65536});
    call(t, "big");
    expect_has(t, MCPS_TEV_HTTP, "\"body_bytes\":", NULL);
    mcps_tevent ev;
    next_ev(t, 5, &ev, NULL);
    assert_int_equal(ev.kind, MCPS_TEV_OVERSIZE);
    assert_int_equal(ev.len, 65536);
    assert_memory_equal(ev.data, "{\"jsonrpc\"", 10);
    /* the rest of the 200 KB body is not downloaded */
    expect_has(t, MCPS_TEV_HTTP,
               "the body passed --max-message (65536 bytes): the transfer was "
               "aborted after",
               NULL);
    t->ops->destroy(t);
}

static void test_deadline_silent_server(void **state)
{
    mcps_transport *t = open_at(*state, "/mcp", (mcps_target_config){0});
    call(t, "stall");
    int64_t start = mcps_clock_ms();
    mcps_tevent ev;
    next_ev(t, 0.3, &ev, NULL);
    int64_t took = mcps_clock_ms() - start;
    assert_int_equal(ev.kind, MCPS_TEV_TIMEOUT);
    assert_true(took >= 290 && took < 300 + SLACK * 1000);
    /* shutdown drops the transfer at once; then GONE */
    mcps_shutdown_report r;
    t->ops->shutdown(t, &r);
    assert_int_equal(r.how, MCPS_SHUT_EXITED_BEFORE);
    next_ev(t, 1, &ev, NULL);
    assert_int_equal(ev.kind, MCPS_TEV_GONE);
    char err[128];
    assert_false(t->ops->send(t, "{}", 2, err, sizeof err));
    t->ops->destroy(t);
}

static void *stop_later(void *arg)
{
    poll(NULL, 0, 200);
    mcps_guard_stop(arg, MCPS_STOP_SIGINT);
    return NULL;
}

static void test_guard_wakes_next(void **state)
{
    mcps_guard g;
    assert_true(mcps_guard_init(&g));
    mcps_transport *t = open_at(*state, "/mcp", (mcps_target_config){.guard = &g});
    call(t, "stall");
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, stop_later, &g), 0);
    int64_t start = mcps_clock_ms();
    mcps_tevent ev;
    next_ev(t, 30, &ev, NULL);
    assert_int_equal(ev.kind, MCPS_TEV_STOPPED);
    assert_true(mcps_clock_ms() - start < (int64_t)(SLACK * 1000));
    pthread_join(th, NULL);
    t->ops->destroy(t);
    mcps_guard_free(&g);
}

static int closed_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd);
    return ntohs(a.sin_port);
}

static void test_connection_refused(void **state)
{
    (void)state;
    char url[64], err[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/mcp", closed_port());
    mcps_target_config cfg = {.kind = MCPS_TRANSPORT_STREAMABLE_HTTP, .url = url};
    mcps_transport *t = mcps_http_open(&cfg, err, sizeof err);
    assert_non_null(t);
    send_json(t, "{}\n");
    expect_has(t, MCPS_TEV_HTTP, "{\"request\":1,\"event\":\"error\",\"error\":", NULL);
    expect_has(t, MCPS_TEV_ERROR, "HTTP request 1 (POST)", NULL);
    t->ops->destroy(t);
    int64_t start = mcps_clock_ms();
    assert_false(mcps_http_wait_listening(url, mcps_clock_deadline(0.3), NULL, err, sizeof err));
    assert_true(mcps_clock_ms() - start < 300 + (int64_t)(SLACK * 1000));
    assert_non_null(strstr(err, "nothing accepted connections"));
    cfg.url = "ftp://example.org/";
    assert_null(mcps_http_open(&cfg, err, sizeof err));
}

static void test_foreign_redirect(void **state)
{
    mcps_transport *t = open_at(*state, "/mcp", (mcps_target_config){.follow_redirects = true});
    call(t, "redirect");
    expect_has(t, MCPS_TEV_HTTP, "redirect to another host refused", NULL);
    expect(t, MCPS_TEV_ERROR, NULL);
    t->ops->destroy(t);
    /* Not following: the 307 is the response. */
    t = open_at(*state, "/mcp", (mcps_target_config){0});
    call(t, "redirect");
    expect_has(t, MCPS_TEV_HTTP, "\"status\":307", NULL);
    t->ops->destroy(t);
}

static void test_flooding_stream(void **state)
{
    mcps_transport *t = open_at(*state, "/mcp", (mcps_target_config){0});
    call(t, "flood");
    expect(t, MCPS_TEV_HTTP, NULL);
    /* Not reading for a while must not grow memory: the stream is paused. */
    poll(NULL, 0, 300);
    mcps_tevent ev;
    for (int i = 0; i < 3000; i++) {
        next_ev(t, 5, &ev, NULL);
        assert_true(ev.kind == MCPS_TEV_HTTP || ev.kind == MCPS_TEV_MESSAGE);
    }
    t->ops->shutdown(t, NULL);
    size_t left = 0;
    do {
        next_ev(t, 1, &ev, NULL);
        left++;
    } while (ev.kind != MCPS_TEV_GONE);
    /* What was queued at shutdown is bounded by the pause threshold. */
    assert_true(left < 4000);
    t->ops->destroy(t);
}

/* ---- legacy HTTP+SSE ---- */

static void test_legacy(void **state)
{
    mcps_transport *t = open_at(*state, "/sse", (mcps_target_config){.kind = MCPS_TRANSPORT_SSE});
    send_json(t, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n");
    bool endpoint = false, accepted = false;
    mcps_tevent ev;
    char message[512] = "";
    unsigned message_request = 0;
    while (!message[0] || !accepted) { /* the 202 and the stream race */
        next_ev(t, 5, &ev, NULL);
        assert_true(ev.kind == MCPS_TEV_HTTP || ev.kind == MCPS_TEV_MESSAGE);
        if (ev.kind == MCPS_TEV_MESSAGE) {
            snprintf(message, sizeof message, "%.*s", (int)ev.len, ev.data);
            message_request = ev.request;
            continue;
        }
        endpoint |= strstr(ev.data, "\"request\":1,\"event\":\"sse\",\"type\":\"endpoint\"") != 0;
        accepted |= strstr(ev.data, "\"request\":2,\"event\":\"response\"") &&
                    strstr(ev.data, "\"status\":202") && strstr(ev.data, "\"body\":\"Accepted\"");
    }
    assert_int_equal(message_request, 1);
    assert_string_equal(t->ops->name, "sse");
    assert_non_null(strstr(message, "\"legacy\": true"));
    assert_true(endpoint);
    assert_true(accepted);
    t->ops->destroy(t);
}

static void test_legacy_foreign_endpoint(void **state)
{
    mcps_transport *t =
        open_at(*state, "/sse-foreign", (mcps_target_config){.kind = MCPS_TRANSPORT_SSE});
    char err[256];
    assert_false(t->ops->send(t, "{}", 2, err, sizeof err));
    assert_non_null(strstr(err, "http://127.0.0.2:1/x"));
    mcps_tevent ev;
    do
        next_ev(t, 5, &ev, NULL);
    while (ev.kind == MCPS_TEV_HTTP);
    assert_int_equal(ev.kind, MCPS_TEV_ERROR);
    assert_non_null(strstr(ev.detail, "not a URI on the origin"));
    t->ops->destroy(t);
}

/* ---- the server host ---- */

static mcps_host *host_sh(const char *script, double term_grace)
{
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
    mcps_target_config cfg = {.argv = argv, .term_grace = term_grace};
    char err[256];
    mcps_host *h = mcps_host_start(&cfg, err, sizeof err);
    if (!h)
        fail_msg("cannot start: %s", err);
    return h;
}

static void test_host_ignores_sigterm(void **state)
{
    (void)state;
    mcps_host *h = host_sh("trap '' TERM; echo ready; while :; do sleep 0.05; done", 0.3);
    for (int i = 0; i < 200; i++) {
        char *out = mcps_host_output(h);
        bool ready = strstr(out, "ready") != NULL;
        free(out);
        if (ready)
            break;
        poll(NULL, 0, 10);
    }
    assert_true(mcps_host_alive(h));
    pid_t pid = mcps_host_pid(h);
    mcps_shutdown_report r;
    mcps_host_stop(h, &r);
    assert_int_equal(r.how, MCPS_SHUT_SIGKILL);
    assert_int_equal(r.term_signal, SIGKILL);
    assert_false(mcps_host_alive(h));
    assert_true(kill(pid, 0) < 0); /* reaped (its group's leftovers are proc.c's, tested there) */
    char how[128];
    mcps_host_describe_exit(h, how, sizeof how);
    assert_non_null(strstr(how, "signal 9"));
    mcps_host_free(h);
}

static void test_host_flood_and_exit(void **state)
{
    (void)state;
    mcps_host *h = host_sh("yes flood", 2);
    poll(NULL, 0, 300);
    assert_true(mcps_host_alive(h));
    char *out = mcps_host_output(h);
    assert_non_null(strstr(out, "earlier bytes of output dropped]\n"));
    assert_true(strlen(out) < MCPS_HOST_KEEP + 100);
    assert_non_null(strstr(out + strlen(out) - 12, "flood\n"));
    free(out);
    mcps_shutdown_report r;
    mcps_host_stop(h, &r);
    assert_int_equal(r.how, MCPS_SHUT_SIGTERM);
    mcps_host_free(h);
    /* One that exits by itself: its last words are kept. */
    h = host_sh("echo listening failed >&2; exit 3", 2);
    for (int i = 0; i < 200 && mcps_host_alive(h); i++)
        poll(NULL, 0, 10);
    assert_false(mcps_host_alive(h));
    mcps_host_stop(h, &r);
    assert_int_equal(r.how, MCPS_SHUT_EXITED_BEFORE);
    assert_int_equal(r.exit_code, 3);
    out = mcps_host_output(h);
    assert_string_equal(out, "listening failed\n");
    free(out);
    mcps_host_free(h);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_response),
        cmocka_unit_test(test_session_headers_redaction),
        cmocka_unit_test(test_forget_session_after_404),
        cmocka_unit_test(test_sse_response),
        cmocka_unit_test(test_202_and_html),
        cmocka_unit_test(test_oversize_body),
        cmocka_unit_test(test_deadline_silent_server),
        cmocka_unit_test(test_guard_wakes_next),
        cmocka_unit_test(test_connection_refused),
        cmocka_unit_test(test_foreign_redirect),
        cmocka_unit_test(test_flooding_stream),
        cmocka_unit_test(test_legacy),
        cmocka_unit_test(test_legacy_foreign_endpoint),
        cmocka_unit_test(test_host_ignores_sigterm),
        cmocka_unit_test(test_host_flood_and_exit),
    };
    return cmocka_run_group_tests(tests, setup_server, teardown_server);
}
