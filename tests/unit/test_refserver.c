/*
 * test_refserver.c - refserver spawned over pipes (fork/exec): a few
 * exchanges per protocol revision, JSON-RPC errors, batches, the slow tool
 * with progress and cancellation, pagination, file:// confinement, faults,
 * and --list-faults. The binary is ../refserver next to this test's folder
 * (the build root), or $MCPSPEC_REFSERVER.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "codec/buf.h"
#include "codec/json.h"

#define TIMEOUT_MS 5000

typedef struct child {
    pid_t pid;
    int in, out; /* its stdin (we write) and stdout (we read) */
    mcps_buf pending;
    bool eof;
} child;

static char refserver_path[PATH_MAX + 32];

static bool find_refserver(void)
{
    const char *env = getenv("MCPSPEC_REFSERVER");
    if (env) {
        snprintf(refserver_path, sizeof refserver_path, "%s", env);
        return access(refserver_path, X_OK) == 0;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return false;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    *slash = '\0';
    snprintf(refserver_path, sizeof refserver_path, "%s/../refserver", self);
    if (access(refserver_path, X_OK) == 0)
        return true;
    snprintf(refserver_path, sizeof refserver_path, "%s/refserver", self);
    return access(refserver_path, X_OK) == 0;
}

/* ---- the child process ---- */

static void child_start(child *c, const char *const *args)
{
    int to[2], from[2];
    assert_int_equal(pipe(to), 0);
    assert_int_equal(pipe(from), 0);
    *c = (child){0};
    c->pid = fork();
    assert_true(c->pid >= 0);
    if (c->pid == 0) {
        dup2(to[0], 0);
        dup2(from[1], 1);
        close(to[0]);
        close(to[1]);
        close(from[0]);
        close(from[1]);
        const char *argv[16] = {refserver_path};
        for (int i = 0; args && args[i] && i < 14; i++)
            argv[i + 1] = args[i];
        execv(refserver_path, (char *const *)argv);
        _exit(127);
    }
    close(to[0]);
    close(from[1]);
    c->in = to[1];
    c->out = from[0];
}

static void child_send(child *c, const char *line)
{
    size_t n = strlen(line);
    assert_int_equal(write(c->in, line, n), (ssize_t)n);
    assert_int_equal(write(c->in, "\n", 1), 1);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The next stdout line (malloc'd, without newline), or NULL after timeout_ms or EOF. */
static char *child_recv_within(child *c, int timeout_ms)
{
    int64_t deadline = now_ms() + timeout_ms;
    for (;;) {
        char *nl = c->pending.data ? memchr(c->pending.data, '\n', c->pending.len) : NULL;
        if (nl) {
            size_t n = (size_t)(nl - c->pending.data);
            char *line = strndup(c->pending.data, n);
            mcps_buf_consume(&c->pending, n + 1);
            return line;
        }
        int64_t left = deadline - now_ms();
        struct pollfd p = {.fd = c->out, .events = POLLIN};
        if (c->eof || left <= 0 || poll(&p, 1, (int)left) <= 0)
            return NULL;
        char chunk[65536];
        ssize_t got = read(c->out, chunk, sizeof chunk);
        if (got <= 0)
            c->eof = true;
        else
            mcps_buf_append(&c->pending, chunk, (size_t)got);
    }
}

static cJSON *child_recv(child *c)
{
    char *line = child_recv_within(c, TIMEOUT_MS);
    assert_non_null(line);
    cJSON *msg = mcps_json_parse_simple(line, strlen(line));
    if (!msg)
        fail_msg("not one JSON text: %s", line);
    free(line);
    return msg;
}

/* Close stdin and return the exit status; refserver must exit promptly on EOF. */
static int child_finish(child *c)
{
    close(c->in);
    int status = -1;
    int64_t deadline = now_ms() + TIMEOUT_MS;
    while (waitpid(c->pid, &status, WNOHANG) == 0) {
        if (now_ms() > deadline) {
            kill(c->pid, SIGKILL);
            waitpid(c->pid, &status, 0);
            return -1;
        }
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    }
    close(c->out);
    mcps_buf_free(&c->pending);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---- JSON helpers ---- */

static const cJSON *at(const cJSON *obj, const char *path)
{
    char key[64];
    while (obj && *path) {
        size_t n = strcspn(path, ".");
        snprintf(key, sizeof key, "%.*s", (int)n, path);
        obj = cJSON_IsArray(obj) ? cJSON_GetArrayItem(obj, atoi(key))
                                 : cJSON_GetObjectItemCaseSensitive(obj, key);
        path += n + (path[n] == '.');
    }
    return obj;
}

static const char *str_at(const cJSON *obj, const char *path)
{
    const cJSON *v = at(obj, path);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int int_at(const cJSON *obj, const char *path)
{
    const cJSON *v = at(obj, path);
    assert_true(cJSON_IsNumber(v));
    return (int)v->valuedouble;
}

static cJSON *call(child *c, const char *line)
{
    child_send(c, line);
    return child_recv(c);
}

static void initialize(child *c, const char *version, const char *expect)
{
    char line[512];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
             "\"protocolVersion\":\"%s\",\"capabilities\":{},"
             "\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}",
             version);
    cJSON *r = call(c, line);
    assert_string_equal(str_at(r, "result.protocolVersion"), expect);
    assert_string_equal(str_at(r, "result.serverInfo.name"), "mcpspec-refserver");
    mcps_json_delete(r);
    child_send(c, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
}

static void start_session(child *c, const char *const *args, const char *version)
{
    child_start(c, args);
    initialize(c, version, version);
}

/* ---- tests ---- */

static void test_list_faults(void **state)
{
    (void)state;
    child c;
    const char *args[] = {"--list-faults", NULL};
    child_start(&c, args);
    int lines = 0;
    bool ping = false;
    char *line;
    while ((line = child_recv_within(&c, TIMEOUT_MS)) != NULL) {
        const char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        assert_non_null(t2);
        assert_null(strchr(t2 + 1, '\t'));
        ping |= strncmp(line, "ping-no-response\tPING-001", 25) == 0;
        lines++;
        free(line);
    }
    assert_true(ping);
    assert_true(lines >= 37);
    assert_int_equal(child_finish(&c), 0);
}

static const char *const versions[] = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"};

static void check_revision(int v)
{
    child c;
    child_start(&c, NULL);
    child_send(&c, "{\"jsonrpc\":\"2.0\",\"id\":\"early\",\"method\":\"ping\"}");
    cJSON *r = child_recv(&c);
    assert_true(cJSON_IsObject(at(r, "result")));
    mcps_json_delete(r);
    initialize(&c, versions[v], versions[v]);

    r = call(&c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                 "\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":40}}}");
    assert_string_equal(str_at(r, "result.content.0.text"), "{\"sum\":42}");
    assert_int_equal(at(r, "result.structuredContent.sum") != NULL, v >= 2);
    mcps_json_delete(r);

    /* Invalid arguments: protocol error up to 2025-06-18, isError from 2025-11-25. */
    r = call(&c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
                 "\"name\":\"echo\",\"arguments\":{\"text\":5}}}");
    if (v < 3)
        assert_int_equal(int_at(r, "error.code"), -32602);
    else
        assert_true(cJSON_IsTrue(at(r, "result.isError")));
    mcps_json_delete(r);

    r = call(&c, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}");
    const cJSON *echo = at(r, "result.tools.0");
    assert_string_equal(str_at(echo, "name"), "echo");
    assert_int_equal(at(echo, "annotations") != NULL, v >= 1);
    assert_int_equal(at(echo, "title") != NULL, v >= 2);
    mcps_json_delete(r);
    assert_int_equal(child_finish(&c), 0);
}

static void test_revisions(void **state)
{
    (void)state;
    for (int v = 0; v < 4; v++)
        check_revision(v);
}

static void test_capabilities(void **state)
{
    (void)state;
    for (int v = 0; v < 4; v++) {
        child c;
        child_start(&c, NULL);
        char line[512];
        snprintf(line, sizeof line,
                 "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
                 "\"protocolVersion\":\"%s\",\"capabilities\":{},"
                 "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
                 versions[v]);
        cJSON *r = call(&c, line);
        assert_int_equal(at(r, "result.capabilities.completions") != NULL, v >= 1);
        assert_true(cJSON_IsTrue(at(r, "result.capabilities.resources.subscribe")));
        assert_int_equal(at(r, "result.serverInfo.title") != NULL, v >= 2);
        mcps_json_delete(r);
        assert_int_equal(child_finish(&c), 0);
    }
}

static void test_unknown_version(void **state)
{
    (void)state;
    const char *asked[] = {"1999-01-01", "2026-07-28"};
    for (int i = 0; i < 2; i++) {
        child c;
        child_start(&c, NULL);
        initialize(&c, asked[i], "2025-11-25");
        assert_int_equal(child_finish(&c), 0);
    }
}

static void expect_error(child *c, const char *line, const char *id_text, int code)
{
    child_send(c, line);
    char *raw = child_recv_within(c, TIMEOUT_MS);
    assert_non_null(raw);
    char want[64];
    snprintf(want, sizeof want, "\"id\":%s,", id_text);
    if (!strstr(raw, want))
        fail_msg("expected id %s in %s", id_text, raw);
    cJSON *r = mcps_json_parse_simple(raw, strlen(raw));
    assert_int_equal(int_at(r, "error.code"), code);
    mcps_json_delete(r);
    free(raw);
}

static void test_jsonrpc_errors(void **state)
{
    (void)state;
    child c;
    child_start(&c, NULL);
    expect_error(&c, "{\"jsonrpc\":\"2.0\",\"id\":\"t\",\"method\":\"tools/list\"}", "\"t\"",
                 -32600);
    initialize(&c, "2025-06-18", "2025-06-18");
    expect_error(&c, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"", "null", -32700);
    expect_error(&c, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":123}", "7", -32600);
    expect_error(&c, "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", "1", -32600);
    expect_error(&c, "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", "null", -32600);
    expect_error(&c, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"harness/none\"}", "8", -32601);
    expect_error(&c, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"resources/read\",\"params\":{}}",
                 "9", -32602);
    expect_error(&c, "{\"jsonrpc\":\"2.0\",\"id\":\"abc-\xc3\xbc\",\"method\":\"initialize\"}",
                 "\"abc-\xc3\xbc\"", -32600);
    /* Ids come back byte-identical: no double, no string-to-number. */
    child_send(&c, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x-probe\"}");
    child_send(&c, "{\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"ping\"}");
    char *raw = child_recv_within(&c, TIMEOUT_MS);
    assert_string_equal(raw, "{\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"result\":{}}");
    free(raw);
    child_send(&c, "{\"jsonrpc\":\"2.0\",\"id\":\"42\",\"method\":\"ping\"}");
    raw = child_recv_within(&c, TIMEOUT_MS);
    assert_string_equal(raw, "{\"jsonrpc\":\"2.0\",\"id\":\"42\",\"result\":{}}");
    free(raw);
    assert_int_equal(child_finish(&c), 0);
}

static void test_batches(void **state)
{
    (void)state;
    child c;
    start_session(&c, NULL, "2025-03-26");
    cJSON *r = call(&c, "[{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\"},"
                        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"},"
                        "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/list\"}]");
    assert_int_equal(cJSON_GetArraySize(r), 2);
    assert_int_equal(int_at(r, "0.id"), 10);
    assert_int_equal(int_at(r, "1.id"), 11);
    mcps_json_delete(r);
    r = call(&c, "[]");
    assert_true(cJSON_IsObject(r));
    assert_int_equal(int_at(r, "error.code"), -32600);
    mcps_json_delete(r);
    child_send(&c, "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x-probe\"}]");
    r = call(&c, "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"ping\"}");
    assert_int_equal(int_at(r, "id"), 12); /* the notification batch got no reply */
    mcps_json_delete(r);
    assert_int_equal(child_finish(&c), 0);

    start_session(&c, NULL, "2025-06-18");
    r = call(&c, "[{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\"}]");
    assert_true(cJSON_IsObject(r));
    assert_true(cJSON_IsNull(at(r, "id")));
    assert_int_equal(int_at(r, "error.code"), -32600);
    mcps_json_delete(r);
    assert_int_equal(child_finish(&c), 0);
}

static void test_slow_progress_cancel(void **state)
{
    (void)state;
    child c;
    start_session(&c, NULL, "2025-03-26");
    child_send(&c, "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"tools/call\",\"params\":{"
                   "\"name\":\"slow\",\"arguments\":{\"steps\":3,\"interval_ms\":20},"
                   "\"_meta\":{\"progressToken\":\"tok\"}}}");
    for (int i = 1; i <= 3; i++) {
        cJSON *n = child_recv(&c);
        assert_string_equal(str_at(n, "method"), "notifications/progress");
        assert_null(at(n, "id"));
        assert_string_equal(str_at(n, "params.progressToken"), "tok");
        assert_int_equal(int_at(n, "params.progress"), i);
        assert_int_equal(int_at(n, "params.total"), 3);
        assert_non_null(str_at(n, "params.message"));
        mcps_json_delete(n);
    }
    cJSON *r = child_recv(&c);
    assert_string_equal(str_at(r, "id"), "s");
    mcps_json_delete(r);

    /* Responsive while slow runs; cancelled calls get no response. */
    child_send(&c, "{\"jsonrpc\":\"2.0\",\"id\":\"long\",\"method\":\"tools/call\",\"params\":{"
                   "\"name\":\"slow\",\"arguments\":{\"steps\":50,\"interval_ms\":40}}}");
    r = call(&c, "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}");
    assert_string_equal(str_at(r, "id"), "p");
    mcps_json_delete(r);
    child_send(&c, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                   "\"params\":{\"requestId\":\"long\",\"reason\":\"test\"}}");
    char *line = child_recv_within(&c, 300);
    assert_null(line);
    assert_int_equal(child_finish(&c), 0);
}

static void test_pagination(void **state)
{
    (void)state;
    child c;
    start_session(&c, NULL, "2025-11-25");
    char line[256];
    const char *cursor = NULL;
    int total = 0, pages = 0;
    cJSON *r = NULL;
    do {
        if (cursor)
            snprintf(line, sizeof line,
                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\","
                     "\"params\":{\"cursor\":\"%s\"}}",
                     cursor);
        else
            snprintf(line, sizeof line,
                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\"}");
        mcps_json_delete(r);
        r = call(&c, line);
        total += cJSON_GetArraySize(at(r, "result.resources"));
        pages++;
        cursor = str_at(r, "result.nextCursor");
    } while (cursor);
    mcps_json_delete(r);
    assert_int_equal(pages, 3);
    assert_int_equal(total, 122);
    expect_error(&c,
                 "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\","
                 "\"params\":{\"cursor\":\"harness-bogus-cursor\"}}",
                 "2", -32602);
    assert_int_equal(child_finish(&c), 0);
}

static void test_file_root(void **state)
{
    (void)state;
    char dir[] = "/tmp/refserver-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/hello.txt", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("hello\n", f);
    fclose(f);
    const char *args[] = {"--root", dir, NULL};
    child c;
    start_session(&c, args, "2025-06-18");
    cJSON *r = call(&c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\","
                        "\"params\":{\"uri\":\"file:///hello.txt\"}}");
    assert_string_equal(str_at(r, "result.contents.0.text"), "hello\n");
    mcps_json_delete(r);
    const char *escapes[] = {"file:///../hello.txt", "file:///%2e%2e/etc/passwd",
                             "file:///etc/passwd", "file:///hello.txt%00"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path,
                 "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\","
                 "\"params\":{\"uri\":\"%s\"}}",
                 escapes[i]);
        r = call(&c, path);
        assert_int_equal(int_at(r, "error.code"), -32002);
        assert_string_equal(str_at(r, "error.data.uri"), escapes[i]);
        mcps_json_delete(r);
    }
    assert_int_equal(child_finish(&c), 0);
    snprintf(path, sizeof path, "%s/hello.txt", dir);
    unlink(path);
    rmdir(dir);
}

static void test_faults(void **state)
{
    (void)state;
    child c;
    const char *no_ping[] = {"--fault", "ping-no-response", NULL};
    start_session(&c, no_ping, "2025-06-18");
    child_send(&c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
    cJSON *r = call(&c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"logging/setLevel\","
                        "\"params\":{\"level\":\"error\"}}");
    assert_int_equal(int_at(r, "id"), 2);
    mcps_json_delete(r);
    assert_int_equal(child_finish(&c), 0);

    const char *lossy[] = {"--fault", "id-lossy", NULL};
    start_session(&c, lossy, "2025-06-18");
    child_send(&c, "{\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"ping\"}");
    char *raw = child_recv_within(&c, TIMEOUT_MS);
    assert_string_equal(raw, "{\"jsonrpc\":\"2.0\",\"id\":9007199254740992,\"result\":{}}");
    free(raw);
    assert_int_equal(child_finish(&c), 0);

    const char *bad[] = {"--fault", "no-such-fault", NULL};
    child_start(&c, bad);
    assert_int_equal(child_finish(&c), 2);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    if (!find_refserver()) {
        fprintf(stderr, "test_refserver: refserver binary not found (build it first)\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_faults),
        cmocka_unit_test(test_revisions),
        cmocka_unit_test(test_capabilities),
        cmocka_unit_test(test_unknown_version),
        cmocka_unit_test(test_jsonrpc_errors),
        cmocka_unit_test(test_batches),
        cmocka_unit_test(test_slow_progress_cancel),
        cmocka_unit_test(test_pagination),
        cmocka_unit_test(test_file_root),
        cmocka_unit_test(test_faults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
