/*
 * test_client.c - the pieces under `mcpspec run --client`: the relay
 * (transport/relay.c) between a relay process and the controller (framing,
 * CRLF, over-long lines, the two ways a connection ends, deadlines) and the
 * {server} expansion (engine/client_run.c), and the rules of the client/meta-keys
 * observer (engine/client_cases.c) on hand-made traces.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "engine/client.h"
#include "engine/client_cases.h"
#include "transport/relay.h"

/* A relay process on two pipes: *in_w feeds its stdin, *out_r reads its stdout. */
static pid_t start_relay(const char *path, int *in_w, int *out_r)
{
    int in[2], out[2];
    assert_int_equal(pipe(in), 0);
    assert_int_equal(pipe(out), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char err[200];
        close(in[1]);
        close(out[0]);
        _exit(mcps_relay_serve(path, in[0], out[1], err, sizeof err));
    }
    close(in[0]);
    close(out[1]);
    *in_w = in[1];
    *out_r = out[0];
    return pid;
}

static void expect_line(mcps_relay_conn *c, mcps_tevent_kind kind, const char *text)
{
    mcps_tevent ev;
    mcps_relay_next(c, NULL, mcps_clock_deadline(5), &ev);
    assert_int_equal(ev.kind, kind);
    if (text) {
        assert_int_equal(ev.len, strlen(text));
        assert_memory_equal(ev.data, text, ev.len);
    }
}

static void test_relay_frames_and_closes(void **state)
{
    (void)state;
    mcps_relay r;
    char err[200];
    assert_true(mcps_relay_listen(&r, NULL, err, sizeof err));
    struct stat st;
    assert_int_equal(stat(r.dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700); /* nobody else can connect in its place */
    int in_w, out_r;
    pid_t pid = start_relay(r.path, &in_w, &out_r);
    mcps_relay_conn c;
    assert_int_equal(mcps_relay_accept(&r, mcps_clock_deadline(5), 1024, &c, err, sizeof err), 1);
    char big[2001];
    memset(big, 'x', 2000);
    big[2000] = '\n';
    assert_int_equal(write(in_w, "a\r\nbb\n", 6), 6);
    assert_int_equal(write(in_w, big, sizeof big), (ssize_t)sizeof big);
    assert_int_equal(write(in_w, "c\n", 2), 2);
    expect_line(&c, MCPS_TEV_MESSAGE, "a");
    expect_line(&c, MCPS_TEV_MESSAGE, "bb");
    expect_line(&c, MCPS_TEV_OVERSIZE, NULL);
    expect_line(&c, MCPS_TEV_MESSAGE, "c");
    assert_true(mcps_relay_send(&c, "hello\n", 6, mcps_clock_deadline(5)));
    char got[16] = {0};
    assert_int_equal(read(out_r, got, sizeof got), 6);
    assert_string_equal(got, "hello\n");
    close(in_w); /* the client closes its server's stdin */
    expect_line(&c, MCPS_TEV_CLOSED, NULL);
    assert_false(c.peer_gone);
    mcps_relay_conn_close(&c); /* the relay process then ends */
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(out_r);
    char dir[sizeof r.dir];
    memcpy(dir, r.dir, sizeof dir);
    mcps_relay_close(&r);
    assert_int_not_equal(access(dir, F_OK), 0); /* the private folder is gone */
}

static void test_relay_killed_is_not_a_close(void **state)
{
    (void)state;
    mcps_relay r;
    char err[200];
    assert_true(mcps_relay_listen(&r, NULL, err, sizeof err));
    int in_w, out_r;
    pid_t pid = start_relay(r.path, &in_w, &out_r);
    mcps_relay_conn c;
    assert_int_equal(mcps_relay_accept(&r, mcps_clock_deadline(5), 1024, &c, err, sizeof err), 1);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    expect_line(&c, MCPS_TEV_CLOSED, NULL);
    assert_true(c.peer_gone);
    mcps_relay_conn_close(&c);
    close(in_w);
    close(out_r);
    mcps_relay_close(&r);
}

static void test_relay_waits_have_deadlines(void **state)
{
    (void)state;
    mcps_relay r;
    char err[200];
    assert_true(mcps_relay_listen(&r, NULL, err, sizeof err));
    mcps_relay_conn c;
    int64_t t0 = mcps_clock_ms();
    assert_int_equal(mcps_relay_accept(&r, t0 + 100, 1024, &c, err, sizeof err), 0);
    assert_true(mcps_clock_ms() - t0 < 2000);
    int in_w, out_r;
    pid_t pid = start_relay(r.path, &in_w, &out_r);
    assert_int_equal(mcps_relay_accept(&r, mcps_clock_deadline(5), 1024, &c, err, sizeof err), 1);
    mcps_tevent ev;
    t0 = mcps_clock_ms();
    mcps_relay_next(&c, NULL, t0 + 100, &ev);
    assert_int_equal(ev.kind, MCPS_TEV_TIMEOUT);
    close(in_w);
    mcps_relay_conn_close(&c);
    waitpid(pid, NULL, 0);
    close(out_r);
    mcps_relay_close(&r);
    char path[] = "/nonexistent-mcpspec/s";
    assert_int_equal(mcps_relay_serve(path, 0, 1, err, sizeof err), 1);
    assert_non_null(strstr(err, "cannot connect"));
}

static void test_server_expansion(void **state)
{
    (void)state;
    char *argv[] = {"node", "c.js", "{server}", "--x={server}", NULL};
    char **out = mcps_client_expand(argv, "/opt/my tools/mcpspec", "/tmp/d/s");
    assert_non_null(out);
    const char *want[] = {"node",
                          "c.js",
                          "/opt/my tools/mcpspec",
                          "serve",
                          "--connect",
                          "/tmp/d/s",
                          "--x='/opt/my tools/mcpspec' serve --connect /tmp/d/s",
                          NULL};
    for (size_t i = 0; want[i]; i++)
        assert_string_equal(out[i], want[i]);
    assert_null(out[6 + 1]);
    mcps_argv_free(out);
}

/* Grade check id on a trace of one message (JSON text) at revision rev. */
static mcps_verdict grade_one(const char *id, const char *json, mcps_rev rev, const char **broken)
{
    const mcps_client_check *k = NULL;
    for (size_t i = 0; mcps_client_check_at(i); i++)
        if (strcmp(mcps_client_check_at(i)->id, id) == 0)
            k = mcps_client_check_at(i);
    assert_non_null(k);
    mcps_client_msg msg = {.json = cJSON_Parse(json), .conn = 1};
    assert_non_null(msg.json);
    mcps_client_trace t = {.msgs = &msg, .nmsgs = 1, .connections = 1};
    mcps_client_grade g = {.rev = rev, .verdict = MCPS_VERDICT_ERROR};
    k->grade(&t, &g);
    *broken = g.broken;
    mcps_buf_free(&g.observed);
    mcps_buf_free(&g.reason);
    cJSON_Delete(msg.json);
    return g.verdict;
}

/* _meta keys by the label rules, reserved prefixes per revision, at any depth. */
static void test_meta_keys(void **state)
{
    (void)state;
    static const struct {
        const char *meta; /* the _meta object of a tools/call */
        mcps_rev rev;
        mcps_verdict want;
        const char *broken;
    } cases[] = {
        {"{\"progressToken\":\"p\"}", MCPS_REV_2025_11_25, MCPS_VERDICT_PASS, NULL},
        {"{\"io.modelcontextprotocol/related-task\":{}}", MCPS_REV_2025_11_25, MCPS_VERDICT_PASS,
         NULL},
        {"{\"io.modelcontextprotocol/x\":1}", MCPS_REV_2025_11_25, MCPS_VERDICT_FAIL,
         "GEN-META-003"},
        {"{\"dev.mcp/x\":1}", MCPS_REV_2025_11_25, MCPS_VERDICT_FAIL, "GEN-META-003"},
        {"{\"modelcontextprotocol.io/x\":1}", MCPS_REV_2025_06_18, MCPS_VERDICT_FAIL,
         "GEN-META-003"},
        {"{\"modelcontextprotocol.io/x\":1}", MCPS_REV_2025_11_25, MCPS_VERDICT_WARN,
         "GEN-META-004"},
        {"{\"-bad/x\":1}", MCPS_REV_2025_06_18, MCPS_VERDICT_FAIL, "GEN-META-001"},
        {"{\"a.b-/x\":1}", MCPS_REV_2025_06_18, MCPS_VERDICT_FAIL, "GEN-META-001"},
        {"{\"a/-x\":1}", MCPS_REV_2025_06_18, MCPS_VERDICT_FAIL, "GEN-META-002"},
        {"{\"com.example/x.y_z\":1}", MCPS_REV_2025_11_25, MCPS_VERDICT_PASS, NULL},
        {"{\"example.com/x\":1}", MCPS_REV_2025_11_25, MCPS_VERDICT_WARN, "GEN-META-004"},
        {"{\"example.com/x\":1}", MCPS_REV_2025_06_18, MCPS_VERDICT_PASS, NULL},
        {"{\"traceparent\":\"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\"}",
         MCPS_REV_2026_07_28, MCPS_VERDICT_PASS, NULL},
        {"{\"traceparent\":\"00-00000000000000000000000000000000-00f067aa0ba902b7-01\"}",
         MCPS_REV_2026_07_28, MCPS_VERDICT_FAIL, "GEN-META-006"},
        {"{\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":{\"x\":{}}}}",
         MCPS_REV_2026_07_28, MCPS_VERDICT_FAIL, "VER-009"},
        {"{\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":{\"io.x/y\":{}}}}",
         MCPS_REV_2026_07_28, MCPS_VERDICT_PASS, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char json[400];
        const char *broken;
        snprintf(json, sizeof json,
                 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                 "\"name\":\"t\",\"_meta\":%s}}",
                 cases[i].meta);
        print_message("%s\n", cases[i].meta);
        assert_int_equal(grade_one("client/meta-keys", json, cases[i].rev, &broken), cases[i].want);
        if (cases[i].broken)
            assert_non_null(strstr(broken, cases[i].broken));
    }
    /* inside a content block, as deep as it goes */
    const char *broken;
    assert_int_equal(grade_one("client/meta-keys",
                               "{\"jsonrpc\":\"2.0\",\"id\":\"mcpspec-s1\",\"result\":{\"content\":"
                               "[{\"type\":\"text\",\"text\":\"x\",\"_meta\":{\"-x/y\":1}}]}}",
                               MCPS_REV_2025_11_25, &broken),
                     MCPS_VERDICT_FAIL);
    assert_string_equal(broken, "GEN-META-001");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relay_frames_and_closes),
        cmocka_unit_test(test_relay_killed_is_not_a_close),
        cmocka_unit_test(test_relay_waits_have_deadlines),
        cmocka_unit_test(test_server_expansion),
        cmocka_unit_test(test_meta_keys),
    };
    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
