/*
 * test_refserver.c - refserver spawned over pipes (fork/exec): a few
 * exchanges per protocol revision, JSON-RPC errors, batches, the slow tool
 * with progress and cancellation, pagination, file:// confinement, faults,
 * --list-faults, and tasks (2025-11-25) with their faults. The binary is ../refserver next to this
 * test's folder (the build root), or $MCPSPEC_REFSERVER.
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

#include "base/buf.h"
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

#define MODERN_META                                                                                \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                       \
    "\"io.modelcontextprotocol/clientCapabilities\":{}}"

/* 2026-07-28 without a handshake: discover gets a DiscoverResult; then initialize still starts a
 * handshake-era session on a dual-era process (VER-008), and a modern-only one refuses it naming
 * the supported versions (-32022, VER-006). */
static void test_stateless(void **state)
{
    (void)state;
    const char *modern_only[] = {"--modern-only", NULL};
    for (int i = 0; i < 2; i++) {
        child c;
        child_start(&c, i ? modern_only : NULL);
        child_send(
            &c,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" MODERN_META
            "}}");
        char *raw = child_recv_within(&c, TIMEOUT_MS);
        assert_non_null(raw);
        cJSON *r = mcps_json_parse_simple(raw, strlen(raw));
        assert_string_equal(at(r, "result.supportedVersions.0")->valuestring, "2026-07-28");
        assert_string_equal(at(r, "result.resultType")->valuestring, "complete");
        assert_non_null(at(r, "result.ttlMs"));
        mcps_json_delete(r);
        free(raw);
        child_send(&c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{"
                       "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                       "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
        raw = child_recv_within(&c, TIMEOUT_MS);
        assert_non_null(raw);
        r = mcps_json_parse_simple(raw, strlen(raw));
        if (i)
            assert_int_equal(int_at(r, "error.code"), -32022);
        else
            assert_string_equal(at(r, "result.protocolVersion")->valuestring, "2025-11-25");
        mcps_json_delete(r);
        free(raw);
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

/* ---- tasks (2025-11-25) ---- */

typedef struct task_notes {
    int progress, status;
    char last_status[16];
} task_notes;

static bool streq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* The related-task taskId in obj's _meta, or NULL (the key has dots: no at()). */
static const char *related_task(const cJSON *obj)
{
    const cJSON *meta = at(obj, "_meta");
    const cJSON *related =
        meta ? cJSON_GetObjectItemCaseSensitive(meta, "io.modelcontextprotocol/related-task")
             : NULL;
    return str_at(related, "taskId");
}

static void note_seen(const cJSON *note, task_notes *n)
{
    const char *method = str_at(note, "method");
    if (streq(method, "notifications/progress")) {
        assert_string_equal(str_at(note, "params.progressToken"), "tp"); /* PROG-010 */
        assert_non_null(related_task(at(note, "params")));               /* TASK-017 */
        n->progress++;
    } else if (streq(method, "notifications/tasks/status")) {
        assert_null(at(note, "params._meta")); /* TASK-019 */
        snprintf(n->last_status, sizeof n->last_status, "%s", str_at(note, "params.status"));
        n->status++;
    }
}

/* The next response, skipping notifications (counted into n when it is not NULL). */
static cJSON *recv_reply(child *c, task_notes *n)
{
    for (;;) {
        cJSON *msg = child_recv(c);
        if (!at(msg, "method"))
            return msg;
        if (n)
            note_seen(msg, n);
        mcps_json_delete(msg);
    }
}

static cJSON *call_reply(child *c, const char *line)
{
    child_send(c, line);
    return recv_reply(c, NULL);
}

/* YYYY-MM-DDTHH:MM:SS[.fff]Z, the RFC 3339 profile of ISO 8601 refserver writes. */
static bool is_timestamp(const char *t)
{
    static const char shape[] = "dddd-dd-ddTdd:dd:dd";
    if (!t || strlen(t) < sizeof shape)
        return false;
    for (size_t i = 0; i < sizeof shape - 1; i++)
        if (shape[i] == 'd' ? t[i] < '0' || t[i] > '9' : t[i] != shape[i])
            return false;
    const char *rest = t + sizeof shape - 1;
    if (*rest == '.')
        for (rest++; *rest >= '0' && *rest <= '9'; rest++)
            ;
    return strcmp(rest, "Z") == 0;
}

static void check_task(const cJSON *task, const char *status)
{
    const char *id = str_at(task, "taskId");
    assert_non_null(id);
    assert_int_equal(strlen(id), 32); /* 128 random bits (TASK-026) */
    assert_int_equal(strspn(id, "0123456789abcdef"), 32);
    assert_string_equal(str_at(task, "status"), status);
    assert_true(is_timestamp(str_at(task, "createdAt")));
    assert_true(is_timestamp(str_at(task, "lastUpdatedAt")));
    assert_true(cJSON_IsNumber(at(task, "ttl")));
    assert_true(cJSON_IsNumber(at(task, "pollInterval")));
    assert_null(at(task, "_meta")); /* TASK-019 */
}

static void tool_call_line(char *line, size_t n, const char *id, const char *tool, int steps,
                           int interval, const char *task)
{
    snprintf(line, n,
             "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"method\":\"tools/call\",\"params\":{"
             "\"name\":\"%s\",\"arguments\":{\"steps\":%d,\"interval_ms\":%d},"
             "\"_meta\":{\"progressToken\":\"tp\"}%s%s}}",
             id, tool, steps, interval, task ? ",\"task\":" : "", task ? task : "");
}

/* Start a task on tool (slow or slow-task); its id (malloc'd). */
static char *create_task(child *c, const char *id, const char *tool, int steps, int interval)
{
    char line[512];
    tool_call_line(line, sizeof line, id, tool, steps, interval, "{\"ttl\":60000}");
    cJSON *r = call_reply(c, line);
    assert_string_equal(str_at(r, "id"), id);
    assert_null(at(r, "result.content"));
    check_task(at(r, "result.task"), "working"); /* TASK-009, TASK-011, TASK-013 */
    assert_int_equal(int_at(r, "result.task.ttl"), 60000);
    char *task_id = strdup(str_at(r, "result.task.taskId"));
    mcps_json_delete(r);
    return task_id;
}

static void task_line(char *line, size_t n, const char *method, const char *task_id)
{
    snprintf(line, n,
             "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"method\":\"%s\",\"params\":{\"taskId\":\"%s\"}}",
             method, method, task_id);
}

static cJSON *task_request(child *c, const char *method, const char *task_id)
{
    char line[256];
    task_line(line, sizeof line, method, task_id);
    return call_reply(c, line);
}

/* Like expect_error, but past any notifications of running tasks. */
static void expect_code(child *c, const char *line, int code)
{
    cJSON *r = call_reply(c, line);
    assert_int_equal(int_at(r, "error.code"), code);
    mcps_json_delete(r);
}

static void expect_task_error(child *c, const char *method, const char *task_id, int code)
{
    cJSON *r = task_request(c, method, task_id);
    assert_int_equal(int_at(r, "error.code"), code);
    mcps_json_delete(r);
}

static void test_tasks_declared(void **state)
{
    (void)state;
    for (int v = 0; v < 4; v++) {
        child c;
        start_session(&c, NULL, versions[v]);
        cJSON *r = call(&c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
        const cJSON *tools = at(r, "result.tools");
        assert_string_equal(str_at(tools, "3.name"), "slow-task");
        assert_null(at(tools, "1.execution")); /* add: absent means forbidden */
        if (v == 3) {
            assert_string_equal(str_at(tools, "0.execution.taskSupport"), "forbidden");
            assert_string_equal(str_at(tools, "2.execution.taskSupport"), "optional");
            assert_string_equal(str_at(tools, "3.execution.taskSupport"), "required");
        } else {
            assert_null(at(tools, "0.execution"));
            assert_null(at(tools, "3.execution"));
        }
        mcps_json_delete(r);
        assert_int_equal(child_finish(&c), 0);
    }
    child c;
    child_start(&c, NULL);
    cJSON *r = call(&c, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
                        "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                        "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    assert_true(cJSON_IsObject(at(r, "result.capabilities.tasks.list")));
    assert_true(cJSON_IsObject(at(r, "result.capabilities.tasks.cancel")));
    assert_true(cJSON_IsObject(at(r, "result.capabilities.tasks.requests.tools.call")));
    mcps_json_delete(r);
    assert_int_equal(child_finish(&c), 0);
}

/* Create, hold tasks/result until done, progress on the original token, then get/cancel/list. */
static void test_task_lifecycle(void **state)
{
    (void)state;
    child c;
    start_session(&c, NULL, "2025-11-25");
    char *id = create_task(&c, "create", "slow", 3, 50);
    char line[256];
    task_line(line, sizeof line, "tasks/result", id);
    child_send(&c, line);
    task_notes n = {0};
    cJSON *r = recv_reply(&c, &n); /* held until the task is terminal (TASK-015) */
    assert_string_equal(str_at(r, "id"), "tasks/result");
    assert_int_equal(n.progress, 3);
    assert_int_equal(n.status, 1);
    assert_string_equal(n.last_status, "completed");
    assert_string_equal(str_at(r, "result.content.0.text"), "Finished 3 steps.");
    assert_string_equal(related_task(at(r, "result")), id); /* TASK-016 */
    mcps_json_delete(r);

    r = task_request(&c, "tasks/get", id);
    check_task(at(r, "result"), "completed");
    assert_int_equal(int_at(r, "result.ttl"), 60000);
    mcps_json_delete(r);
    expect_task_error(&c, "tasks/cancel", id, -32602); /* TASK-023 */
    r = call_reply(&c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/list\"}");
    assert_int_equal(cJSON_GetArraySize(at(r, "result.tasks")), 1);
    assert_string_equal(str_at(r, "result.tasks.0.taskId"), id);
    assert_null(at(r, "result.nextCursor"));
    assert_null(at(r, "result._meta"));
    mcps_json_delete(r);
    /* Related-task _meta in the request does not override taskId (TASK-018). */
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks/get\",\"params\":{\"taskId\":\"%s\","
             "\"_meta\":{\"io.modelcontextprotocol/related-task\":{\"taskId\":\"other\"}}}}",
             id);
    r = call_reply(&c, line);
    assert_string_equal(str_at(r, "result.taskId"), id);
    mcps_json_delete(r);
    free(id);
    assert_int_equal(child_finish(&c), 0);
}

static void test_task_cancel(void **state)
{
    (void)state;
    child c;
    start_session(&c, NULL, "2025-11-25");
    char *id = create_task(&c, "long", "slow-task", 100, 20);
    /* notifications/cancelled does not cancel a task (CANC-008). */
    child_send(&c, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                   "\"params\":{\"requestId\":\"long\"}}");
    cJSON *r = task_request(&c, "tasks/get", id);
    assert_string_equal(str_at(r, "result.status"), "working");
    mcps_json_delete(r);
    char line[256];
    task_line(line, sizeof line, "tasks/cancel", id);
    child_send(&c, line);
    task_notes n = {0};
    r = recv_reply(&c, &n);
    check_task(at(r, "result"), "cancelled"); /* TASK-024 */
    assert_string_equal(n.last_status, "cancelled");
    mcps_json_delete(r);
    /* The work stopped: no progress after the task became terminal (PROG-010). */
    char *more = child_recv_within(&c, 150);
    assert_null(more);
    r = task_request(&c, "tasks/get", id);
    assert_string_equal(str_at(r, "result.status"), "cancelled");
    mcps_json_delete(r);
    expect_task_error(&c, "tasks/cancel", id, -32602);
    r = task_request(&c, "tasks/result", id);
    assert_true(cJSON_IsTrue(at(r, "result.isError")));
    assert_string_equal(related_task(at(r, "result")), id);
    mcps_json_delete(r);
    free(id);
    assert_int_equal(child_finish(&c), 0);
}

static void test_task_negotiation(void **state)
{
    (void)state;
    child c;
    start_session(&c, NULL, "2025-11-25");
    char line[512];
    /* TASK-004: a tool that forbids tasks, explicitly (echo) or by default (add). */
    expect_error(&c,
                 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"echo\",\"arguments\":{\"text\":\"x\"},\"task\":{\"ttl\":1000}}}",
                 "1", -32601);
    expect_error(&c,
                 "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"add\",\"arguments\":{\"a\":1,\"b\":2},\"task\":{}}}",
                 "2", -32601);
    /* TASK-006: slow-task only as a task; slow either way. */
    tool_call_line(line, sizeof line, "3", "slow-task", 1, 0, NULL);
    expect_error(&c, line, "\"3\"", -32601);
    tool_call_line(line, sizeof line, "4", "slow", 1, 0, NULL);
    cJSON *r = call_reply(&c, line);
    assert_string_equal(str_at(r, "result.content.0.text"), "Finished 1 steps.");
    mcps_json_delete(r);
    /* The effective ttl: at most 300000, and the default when none is asked for. */
    tool_call_line(line, sizeof line, "5", "slow", 1, 0, "{\"ttl\":999999999}");
    r = call_reply(&c, line);
    assert_int_equal(int_at(r, "result.task.ttl"), 300000);
    mcps_json_delete(r);
    tool_call_line(line, sizeof line, "6", "slow", 1, 0, "{}");
    r = call_reply(&c, line);
    assert_int_equal(int_at(r, "result.task.ttl"), 300000);
    mcps_json_delete(r);
    tool_call_line(line, sizeof line, "7", "slow", 1, 0, "true");
    expect_code(&c, line, -32602);
    /* Invalid arguments: the task is created and fails with the isError result. */
    r = call_reply(&c, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{"
                       "\"name\":\"slow\",\"arguments\":{\"steps\":\"many\"},\"task\":{}}}");
    char *id = strdup(str_at(r, "result.task.taskId"));
    assert_string_equal(str_at(r, "result.task.status"), "working");
    mcps_json_delete(r);
    r = task_request(&c, "tasks/result", id);
    assert_true(cJSON_IsTrue(at(r, "result.isError")));
    mcps_json_delete(r);
    r = task_request(&c, "tasks/get", id);
    assert_string_equal(str_at(r, "result.status"), "failed");
    mcps_json_delete(r);
    free(id);
    /* TASK-025: unknown ids. */
    expect_task_error(&c, "tasks/get", "0123456789abcdef0123456789abcdef", -32602);
    expect_task_error(&c, "tasks/result", "nope", -32602);
    expect_task_error(&c, "tasks/cancel", "nope", -32602);
    expect_code(&c, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tasks/get\",\"params\":{}}",
                -32602);
    assert_int_equal(child_finish(&c), 0);
}

static void test_task_list_pages(void **state)
{
    (void)state;
    child c;
    start_session(&c, NULL, "2025-11-25");
    char line[512], want[56][33];
    for (int i = 0; i < 56; i++) {
        char id[16];
        snprintf(id, sizeof id, "t%d", i);
        tool_call_line(line, sizeof line, id, "slow", 1, 0, "{}");
        cJSON *r = call_reply(&c, line);
        snprintf(want[i], sizeof want[i], "%s", str_at(r, "result.task.taskId"));
        for (int j = 0; j < i; j++)
            assert_string_not_equal(want[i], want[j]); /* TASK-010 */
        mcps_json_delete(r);
    }
    cJSON *r = call_reply(&c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/list\"}");
    assert_int_equal(cJSON_GetArraySize(at(r, "result.tasks")), 50);
    assert_string_equal(str_at(r, "result.tasks.0.taskId"), want[0]);
    snprintf(
        line, sizeof line,
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks/list\",\"params\":{\"cursor\":\"%s\"}}",
        str_at(r, "result.nextCursor"));
    mcps_json_delete(r);
    r = call_reply(&c, line);
    assert_int_equal(cJSON_GetArraySize(at(r, "result.tasks")), 6);
    assert_string_equal(str_at(r, "result.tasks.5.taskId"), want[55]);
    assert_null(at(r, "result.nextCursor"));
    mcps_json_delete(r);
    expect_code(&c,
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks/list\","
                "\"params\":{\"cursor\":\"t50-0000\"}}",
                -32602);
    assert_int_equal(child_finish(&c), 0);
}

/* A task lives for its ttl (the 1000 ms floor here), then tasks/get no longer finds it. */
static void test_task_expiry(void **state)
{
    (void)state;
    child c;
    start_session(&c, NULL, "2025-11-25");
    char line[512];
    tool_call_line(line, sizeof line, "e", "slow", 1, 0, "{\"ttl\":1}");
    cJSON *r = call_reply(&c, line);
    assert_int_equal(int_at(r, "result.task.ttl"), 1000);
    char *id = strdup(str_at(r, "result.task.taskId"));
    mcps_json_delete(r);
    r = task_request(&c, "tasks/get", id);
    assert_non_null(at(r, "result"));
    mcps_json_delete(r);
    nanosleep(&(struct timespec){.tv_sec = 1, .tv_nsec = 200000000}, NULL);
    expect_task_error(&c, "tasks/get", id, -32602);
    free(id);
    assert_int_equal(child_finish(&c), 0);
}

/* Before 2025-11-25 params.task means nothing (TASK-007) and the tasks methods do not exist. */
static void test_task_old_revisions(void **state)
{
    (void)state;
    for (int v = 0; v < 3; v++) {
        child c;
        start_session(&c, NULL, versions[v]);
        char line[512];
        tool_call_line(line, sizeof line, "x", "slow-task", 1, 0, "{\"ttl\":1000}");
        cJSON *r = call_reply(&c, line);
        assert_string_equal(str_at(r, "result.content.0.text"), "Finished 1 steps.");
        assert_null(at(r, "result.task"));
        mcps_json_delete(r);
        expect_error(&c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/list\"}", "1", -32601);
        assert_int_equal(child_finish(&c), 0);
    }
}

static void start_faulty(child *c, const char *fault, const char *version)
{
    const char *args[] = {"--fault", fault, NULL};
    start_session(c, args, version);
}

static void test_task_faults_create(void **state)
{
    (void)state;
    child c;
    child_start(&c, (const char *const[]){"--fault", "task-no-capability", NULL});
    cJSON *r = call(&c, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
                        "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                        "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    assert_null(at(r, "result.capabilities.tasks"));
    mcps_json_delete(r);
    char line[512];
    tool_call_line(line, sizeof line, "a", "slow", 1, 0, "{}");
    r = call_reply(&c, line);
    assert_non_null(at(r, "result.task")); /* not ignored, although undeclared */
    mcps_json_delete(r);
    assert_int_equal(child_finish(&c), 0);

    start_faulty(&c, "task-status-not-working", "2025-11-25");
    r = call_reply(&c, line);
    assert_string_equal(str_at(r, "result.task.status"), "submitted");
    mcps_json_delete(r);
    assert_int_equal(child_finish(&c), 0);

    start_faulty(&c, "task-forbidden-accepted", "2025-11-25");
    r = call_reply(&c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                       "\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"},\"task\":{}}}");
    char *id = strdup(str_at(r, "result.task.taskId"));
    mcps_json_delete(r);
    r = task_request(&c, "tasks/result", id);
    assert_string_equal(str_at(r, "result.content.0.text"), "hi");
    mcps_json_delete(r);
    free(id);
    assert_int_equal(child_finish(&c), 0);

    start_faulty(&c, "task-required-plain-accepted", "2025-11-25");
    tool_call_line(line, sizeof line, "p", "slow-task", 1, 0, NULL);
    r = call_reply(&c, line);
    assert_string_equal(str_at(r, "result.content.0.text"), "Finished 1 steps.");
    mcps_json_delete(r);
    assert_int_equal(child_finish(&c), 0);

    start_faulty(&c, "task-bad-timestamps", "2025-11-25");
    tool_call_line(line, sizeof line, "b", "slow", 1, 0, "{}");
    r = call_reply(&c, line);
    assert_true(cJSON_IsNumber(at(r, "result.task.createdAt")));
    mcps_json_delete(r);
    assert_int_equal(child_finish(&c), 0);
}

static void test_task_faults_methods(void **state)
{
    (void)state;
    child c;
    start_faulty(&c, "task-result-no-related-meta", "2025-11-25");
    char *id = create_task(&c, "r", "slow", 1, 0);
    cJSON *r = task_request(&c, "tasks/result", id);
    assert_non_null(at(r, "result.content"));
    assert_null(related_task(at(r, "result")));
    mcps_json_delete(r);
    free(id);
    assert_int_equal(child_finish(&c), 0);

    start_faulty(&c, "task-unknown-id-wrong-code", "2025-11-25");
    expect_task_error(&c, "tasks/get", "nope", -32603);
    assert_int_equal(child_finish(&c), 0);

    start_faulty(&c, "task-cancel-terminal-accepted", "2025-11-25");
    id = create_task(&c, "t", "slow", 1, 0);
    mcps_json_delete(task_request(&c, "tasks/result", id));
    r = task_request(&c, "tasks/cancel", id);
    assert_string_equal(str_at(r, "result.status"), "completed"); /* still no illegal transition */
    mcps_json_delete(r);
    free(id);
    assert_int_equal(child_finish(&c), 0);

    start_faulty(&c, "task-cancel-not-cancelled", "2025-11-25");
    id = create_task(&c, "n", "slow", 100, 20);
    r = task_request(&c, "tasks/cancel", id);
    assert_string_equal(str_at(r, "result.status"), "working");
    mcps_json_delete(r);
    r = task_request(&c, "tasks/get", id);
    assert_string_equal(str_at(r, "result.status"), "cancelled");
    mcps_json_delete(r);
    free(id);
    assert_int_equal(child_finish(&c), 0);

    start_faulty(&c, "task-list-missing", "2025-11-25");
    id = create_task(&c, "l", "slow", 1, 0);
    r = call_reply(&c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/list\"}");
    assert_int_equal(cJSON_GetArraySize(at(r, "result.tasks")), 0);
    mcps_json_delete(r);
    free(id);
    assert_int_equal(child_finish(&c), 0);
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
        cmocka_unit_test(test_stateless),
        cmocka_unit_test(test_jsonrpc_errors),
        cmocka_unit_test(test_batches),
        cmocka_unit_test(test_slow_progress_cancel),
        cmocka_unit_test(test_pagination),
        cmocka_unit_test(test_file_root),
        cmocka_unit_test(test_faults),
        cmocka_unit_test(test_tasks_declared),
        cmocka_unit_test(test_task_lifecycle),
        cmocka_unit_test(test_task_cancel),
        cmocka_unit_test(test_task_negotiation),
        cmocka_unit_test(test_task_list_pages),
        cmocka_unit_test(test_task_expiry),
        cmocka_unit_test(test_task_old_revisions),
        cmocka_unit_test(test_task_faults_create),
        cmocka_unit_test(test_task_faults_methods),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
