/*
 * test_httpd.c - the loopback HTTP/1.1 server behind {url}
 * (transport/httpd.c): requests with Content-Length and chunked bodies,
 * headers found regardless of case, 100 Continue, whole answers and SSE
 * streams (an event's newlines split into data lines), and the refusals:
 * another path (404), a head too large (431), a body too large (413). The
 * client side is a plain socket in the same process: loopback connects at
 * once and small requests fit the socket buffers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"
#include "transport/httpd.h"

static void start(mcps_httpd *h, size_t max_body)
{
    char err[200];
    assert_true(mcps_httpd_listen(h, NULL, max_body, err, sizeof err));
    assert_true(strncmp(h->url, "http://127.0.0.1:", 17) == 0);
    assert_int_equal(strlen(h->path), strlen("/mcp/") + 16);
}

static int dial(const mcps_httpd *h)
{
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)h->port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    return fd;
}

static void say(int fd, const char *text)
{
    assert_int_equal(send(fd, text, strlen(text), MSG_NOSIGNAL), (ssize_t)strlen(text));
}

/* What the server wrote until it closed (or 2 s passed). */
static char *hear_all(int fd)
{
    static char buf[8192];
    size_t n = 0;
    int64_t end = mcps_clock_deadline(2);
    while (n + 1 < sizeof buf && mcps_clock_ms() < end) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 100) <= 0)
            continue;
        ssize_t r = recv(fd, buf + n, sizeof buf - 1 - n, 0);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    buf[n] = '\0';
    return buf;
}

static void next_req(mcps_httpd *h, mcps_httpd_req *req)
{
    char err[200];
    assert_int_equal(mcps_httpd_next(h, mcps_clock_deadline(2), req, err, sizeof err), 1);
}

static void test_content_length_and_answer(void **state)
{
    (void)state;
    mcps_httpd h;
    start(&h, 1024);
    int fd = dial(&h);
    char text[512];
    snprintf(text, sizeof text,
             "POST %s HTTP/1.1\r\nHost: x\r\nmcp-session-id:  abc \r\nContent-Length: 7\r\n\r\n"
             "{\"a\":1}",
             h.path);
    say(fd, text);
    mcps_httpd_req req;
    next_req(&h, &req);
    assert_string_equal(req.verb, "POST");
    assert_string_equal(req.target, h.path);
    assert_int_equal(req.body_len, 7);
    assert_string_equal(req.body, "{\"a\":1}");
    char v[64];
    assert_true(mcps_httpd_header(&req, "Mcp-Session-Id", v, sizeof v));
    assert_string_equal(v, "abc");
    assert_false(mcps_httpd_header(&req, "Accept", v, sizeof v));
    assert_true(mcps_httpd_respond(&h, req.handle, 200, "Mcp-Session-Id: s1\r\n",
                                   "application/json", "{}", 2));
    char *got = hear_all(fd);
    assert_non_null(strstr(got, "HTTP/1.1 200 OK\r\n"));
    assert_non_null(strstr(got, "Mcp-Session-Id: s1\r\n"));
    assert_non_null(strstr(got, "Content-Length: 2\r\n"));
    assert_non_null(strstr(got, "\r\n\r\n{}"));
    close(fd);
    mcps_httpd_close(&h);
}

static void test_chunked_and_continue(void **state)
{
    (void)state;
    mcps_httpd h;
    start(&h, 1024);
    int fd = dial(&h);
    char text[512];
    snprintf(text, sizeof text,
             "POST %s HTTP/1.1\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n",
             h.path);
    say(fd, text);
    mcps_httpd_req req;
    char err[200];
    assert_int_equal(mcps_httpd_next(&h, mcps_clock_ms() + 200, &req, err, sizeof err), 0);
    char cont[64] = "";
    assert_true(recv(fd, cont, sizeof cont - 1, 0) > 0);
    assert_string_equal(cont, "HTTP/1.1 100 Continue\r\n\r\n");
    say(fd, "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n");
    next_req(&h, &req);
    assert_string_equal(req.body, "hello world");
    mcps_httpd_respond(&h, req.handle, 202, NULL, NULL, NULL, 0);
    assert_non_null(strstr(hear_all(fd), "HTTP/1.1 202 Accepted\r\n"));
    close(fd);
    mcps_httpd_close(&h);
}

static void test_sse_stream(void **state)
{
    (void)state;
    mcps_httpd h;
    start(&h, 1024);
    int fd = dial(&h);
    char text[512];
    snprintf(text, sizeof text, "GET %s?x=1 HTTP/1.1\r\n\r\n", h.path);
    say(fd, text);
    mcps_httpd_req req;
    next_req(&h, &req);
    assert_true(mcps_httpd_stream_open(&h, req.handle, NULL));
    assert_true(mcps_httpd_streaming(&h, req.handle));
    assert_true(mcps_httpd_stream_event(&h, req.handle, "7", "a\nb", 3));
    /* raw fields (a priming event with retry, as the resume scenario sends), as given */
    assert_true(mcps_httpd_stream_raw(&h, req.handle, "id: 8\nretry: 400\ndata: \n\n", 25));
    mcps_httpd_stream_close(&h, req.handle);
    assert_false(mcps_httpd_open(&h, req.handle));
    assert_false(mcps_httpd_stream_raw(&h, req.handle, "x", 1));
    char *got = hear_all(fd);
    assert_non_null(strstr(got, "Content-Type: text/event-stream\r\n"));
    assert_non_null(
        strstr(got, "\r\n\r\nid: 7\ndata: a\ndata: b\n\nid: 8\nretry: 400\ndata: \n\n"));
    close(fd);
    mcps_httpd_close(&h);
}

/* A request the server refuses itself: the status it answers, and nothing handed out. */
static void expect_refused(mcps_httpd *h, const char *request, const char *status)
{
    int fd = dial(h);
    say(fd, request);
    mcps_httpd_req req;
    char err[200];
    assert_int_equal(mcps_httpd_next(h, mcps_clock_ms() + 300, &req, err, sizeof err), 0);
    assert_non_null(strstr(hear_all(fd), status));
    close(fd);
}

static void test_refusals(void **state)
{
    (void)state;
    mcps_httpd h;
    start(&h, 16);
    expect_refused(&h, "POST /mcp HTTP/1.1\r\nContent-Length: 0\r\n\r\n", "HTTP/1.1 404 ");
    char text[20000];
    snprintf(text, sizeof text, "POST %s HTTP/1.1\r\nContent-Length: 17\r\n\r\n", h.path);
    expect_refused(&h, text, "HTTP/1.1 413 ");
    snprintf(text, sizeof text, "POST %s HTTP/1.1\r\nX: %017000d", h.path, 0);
    expect_refused(&h, text, "HTTP/1.1 431 ");
    expect_refused(&h, "NONSENSE\r\n\r\n", "HTTP/1.1 400 ");
    mcps_httpd_close(&h);
}

/* HTTP+SSE: paths under the endpoint's are served with sub_paths only; a named event. */
static void test_sub_paths_and_named_event(void **state)
{
    (void)state;
    mcps_httpd h;
    start(&h, 1024);
    char text[512];
    snprintf(text, sizeof text, "GET %s/sse HTTP/1.1\r\n\r\n", h.path);
    expect_refused(&h, text, "HTTP/1.1 404 ");
    snprintf(text, sizeof text, "GET %sx HTTP/1.1\r\n\r\n", h.path); /* not under it */
    h.sub_paths = true;
    expect_refused(&h, text, "HTTP/1.1 404 ");
    int fd = dial(&h);
    snprintf(text, sizeof text, "GET %s/sse HTTP/1.1\r\n\r\n", h.path);
    say(fd, text);
    mcps_httpd_req req;
    next_req(&h, &req);
    assert_true(mcps_httpd_stream_open(&h, req.handle, NULL));
    assert_true(mcps_httpd_stream_named(&h, req.handle, "endpoint", "/m?s=1", 6));
    mcps_httpd_stream_close(&h, req.handle);
    assert_non_null(strstr(hear_all(fd), "\r\n\r\nevent: endpoint\ndata: /m?s=1\n\n"));
    close(fd);
    mcps_httpd_close(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_content_length_and_answer),
        cmocka_unit_test(test_chunked_and_continue),
        cmocka_unit_test(test_sse_stream),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_sub_paths_and_named_event),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
