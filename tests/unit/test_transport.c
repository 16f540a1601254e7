/*
 * test_transport.c - the stdio transport against well-behaved and hostile
 * targets: framing, event order, exit and signal reporting, stderr limits,
 * send timeouts without deadlock, the shutdown ladder, no process left behind,
 * bounded memory under a 1 GiB flood; the run's guard (deadline, stop
 * switch, wire budget, watchdog); and mcps_argv_split.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include "base/clock.h"
#include "transport/transport.h"

#define HOSTILE(name) MCPS_SOURCE_DIR "/tests/hostile/" name
/* Seconds allowed beyond any deadline the transport promises. ASan makes the targets and us
 * several times slower, beside the sanitized fault table on a busy 2-core machine. */
#ifdef __has_feature
#if __has_feature(address_sanitizer)
#define SLACK 8.0
#endif
#endif
#ifndef SLACK
#define SLACK 2.0
#endif

/* ---- helpers ---- */

static mcps_transport *open_argv(char *const *argv, const mcps_target_config *base)
{
    mcps_target_config cfg = base ? *base : (mcps_target_config){0};
    cfg.argv = argv;
    if (!cfg.close_grace)
        cfg.close_grace = 0.3;
    if (!cfg.term_grace)
        cfg.term_grace = 0.3;
    char err[256] = "";
    mcps_transport *t = mcps_stdio_open(&cfg, err, sizeof err);
    if (!t)
        fail_msg("cannot start %s: %s", argv[0], err);
    return t;
}

static mcps_transport *open_sh(const char *script, const mcps_target_config *base)
{
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
    return open_argv(argv, base);
}

static void next_in(mcps_transport *t, double secs, mcps_tevent *ev)
{
    t->ops->next(t, mcps_clock_deadline(secs), ev);
}

/* The next event must be of this kind, within secs. */
static void expect(mcps_transport *t, mcps_tevent_kind kind, double secs, mcps_tevent *ev)
{
    next_in(t, secs, ev);
    if (ev->kind != kind)
        fail_msg("expected event %d, got %d (%.*s) [%s]", (int)kind, (int)ev->kind,
                 (int)(ev->len > 80 ? 80 : ev->len), ev->data ? ev->data : "", ev->detail);
}

static void expect_line(mcps_transport *t, const char *text, double secs)
{
    mcps_tevent ev;
    expect(t, MCPS_TEV_MESSAGE, secs, &ev);
    assert_int_equal(ev.len, strlen(text));
    assert_memory_equal(ev.data, text, ev.len);
}

static void send_str(mcps_transport *t, const char *s)
{
    char err[256] = "";
    if (!t->ops->send(t, s, strlen(s), err, sizeof err))
        fail_msg("send failed: %s", err);
}

/* On failure: what is left of the group, one "pid state ppid (comm)" per line. */
static void print_group(int pgid)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[300], line[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = e->d_name[0] >= '1' && e->d_name[0] <= '9' ? fopen(path, "r") : NULL;
        if (!f)
            continue;
        const char *close_paren = fgets(line, sizeof line, f) ? strrchr(line, ')') : NULL;
        char state;
        int ppid, pgrp;
        if (close_paren && sscanf(close_paren + 1, " %c %d %d", &state, &ppid, &pgrp) == 3 &&
            pgrp == pgid)
            fprintf(stderr, "left in group %d: %s %c ppid %d %.*s\n", pgid, e->d_name, state, ppid,
                    (int)(close_paren - line + 1), line);
        fclose(f);
    }
    if (d)
        closedir(d);
}

/*
 * Members killed after the transport's last reap (a loaded machine delivers
 * SIGKILL late) are our zombies, since main() makes us their subreaper: reap
 * them here as they come, and allow 5 s before the group must be gone.
 */
static void assert_group_gone(int pgid)
{
    for (int i = 0; i < 500 && kill(-pgid, 0) == 0; i++) {
        while (waitpid(-pgid, NULL, WNOHANG) > 0)
            ;
        poll(NULL, 0, 10);
    }
    errno = 0;
    if (kill(-pgid, 0) == 0)
        print_group(pgid);
    assert_int_equal(kill(-pgid, 0), -1);
    assert_int_equal(errno, ESRCH);
}

/* Shut down, check how it ended and that nothing of its process group is left. */
static mcps_shutdown_report shut(mcps_transport *t, mcps_shutdown_how how)
{
    int pid = mcps_stdio_pid(t);
    mcps_shutdown_report r;
    t->ops->shutdown(t, &r);
    if (r.how != how)
        fail_msg("shutdown ended as %d, expected %d", (int)r.how, (int)how);
    assert_group_gone(pid);
    return r;
}

static void finish(mcps_transport *t, mcps_shutdown_how how)
{
    shut(t, how);
    t->ops->destroy(t);
}

static double seconds_since(int64_t start_ms)
{
    return (double)(mcps_clock_ms() - start_ms) / 1000.0;
}

static long maxrss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static char *repeat(char c, size_t n, bool newline)
{
    char *s = malloc(n + 2);
    assert_non_null(s);
    memset(s, c, n);
    s[n] = newline ? '\n' : '\0';
    s[n + 1] = '\0';
    return s;
}

/* ---- hostile: the flood (first, so the maxrss baseline is low) ---- */

static void test_hostile_flood_memory_bounded(void **state)
{
    (void)state;
    char *argv[] = {HOSTILE("flood-no-newline"), NULL};
    long rss0 = maxrss_kib();
    int64_t start = mcps_clock_ms();
    mcps_transport *t = open_argv(argv, NULL);
    mcps_tevent ev;
    expect(t, MCPS_TEV_OVERSIZE, 2 + SLACK, &ev);
    assert_int_equal(ev.len, 4u << 20);
    assert_int_equal(ev.offset, 0);
    assert_int_equal(ev.line, 1);
    assert_int_equal(ev.data[0], 'x');
    assert_int_equal(ev.data[ev.len - 1], 'x');
    expect(t, MCPS_TEV_STDERR, 20, &ev); /* the whole GiB went through */
    assert_int_equal(ev.len, strlen("flooded 1073741824 bytes"));
    assert_memory_equal(ev.data, "flooded 1073741824 bytes", ev.len);
    double secs = seconds_since(start);
    long grew = maxrss_kib() - rss0;
    print_message("flood: 1 GiB in %.2f s, maxrss grew %ld KiB\n", secs, grew);
    assert_true(grew < 64 * 1024);
    expect(t, MCPS_TEV_TIMEOUT, 0.1, &ev);
    mcps_shutdown_report r = shut(t, MCPS_SHUT_SIGTERM);
    assert_int_equal(r.term_signal, SIGTERM);
    assert_int_equal(r.exit_code, -1);
    expect(t, MCPS_TEV_CLOSED, 0, &ev);
    expect(t, MCPS_TEV_EXITED, 0, &ev);
    assert_string_equal(ev.detail, "target killed by signal 15 (Terminated)");
    expect(t, MCPS_TEV_GONE, 0, &ev);
    t->ops->destroy(t);
}

/* ---- well-behaved targets ---- */

static void test_cat_round_trip(void **state)
{
    (void)state;
    char *argv[] = {"cat", NULL};
    mcps_transport *t = open_argv(argv, NULL);
    assert_string_equal(t->ops->name, "stdio");
    send_str(t, "hello\n");
    const char *ping = "{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}\n";
    send_str(t, ping);
    mcps_tevent ev;
    expect(t, MCPS_TEV_MESSAGE, 2, &ev);
    assert_int_equal(ev.line, 1);
    assert_int_equal(ev.offset, 0);
    assert_true(ev.terminated);
    assert_memory_equal(ev.data, "hello", 5);
    expect(t, MCPS_TEV_MESSAGE, 2, &ev);
    assert_int_equal(ev.line, 2);
    assert_int_equal(ev.offset, 6);
    assert_int_equal(ev.len, strlen(ping) - 1);
    expect(t, MCPS_TEV_TIMEOUT, 0.05, &ev);
    t->ops->close_input(t);
    char err[128];
    assert_false(t->ops->send(t, "x\n", 2, err, sizeof err));
    assert_non_null(strstr(err, "stdin is already closed"));
    expect(t, MCPS_TEV_CLOSED, 2, &ev);
    assert_string_equal(ev.detail, "target closed its stdout");
    expect(t, MCPS_TEV_EXITED, 2, &ev);
    assert_int_equal(ev.exit_code, 0);
    assert_int_equal(ev.term_signal, 0);
    assert_string_equal(ev.detail, "target exited with status 0");
    int64_t start = mcps_clock_ms();
    expect(t, MCPS_TEV_GONE, 5, &ev);
    expect(t, MCPS_TEV_GONE, 5, &ev);
    assert_true(seconds_since(start) < SLACK); /* not the 5 s asked for */
    mcps_shutdown_report r = shut(t, MCPS_SHUT_EXITED_BEFORE);
    assert_int_equal(r.exit_code, 0);
    assert_false(r.killed_leftovers);
    mcps_shutdown_report again;
    t->ops->shutdown(t, &again); /* idempotent */
    assert_memory_equal(&r, &again, sizeof r);
    t->ops->destroy(t);
}

static void test_partial_and_unterminated_lines(void **state)
{
    (void)state;
    mcps_transport *t = open_sh("printf ab; sleep 0.1; printf 'c\\nde'", NULL);
    mcps_tevent ev;
    expect(t, MCPS_TEV_MESSAGE, 2, &ev);
    assert_int_equal(ev.len, 3);
    assert_memory_equal(ev.data, "abc", 3);
    assert_true(ev.terminated);
    expect(t, MCPS_TEV_MESSAGE, 2, &ev);
    assert_int_equal(ev.len, 2);
    assert_memory_equal(ev.data, "de", 2);
    assert_false(ev.terminated);
    assert_int_equal(ev.offset, 4);
    assert_int_equal(ev.line, 2);
    expect(t, MCPS_TEV_CLOSED, 2, &ev);
    expect(t, MCPS_TEV_EXITED, 2, &ev);
    expect(t, MCPS_TEV_GONE, 2, &ev);
    finish(t, MCPS_SHUT_EXITED_BEFORE);
}

static void expect_open_error(mcps_target_config cfg, const char *want)
{
    char err[256] = "";
    mcps_transport *t = mcps_stdio_open(&cfg, err, sizeof err);
    if (t) {
        t->ops->destroy(t);
        fail_msg("%s started", cfg.argv ? cfg.argv[0] : "(null)");
    }
    if (!strstr(err, want))
        fail_msg("error '%s' does not contain '%s'", err, want);
}

static void test_exec_failure(void **state)
{
    (void)state;
    char *missing[] = {"/nonexistent/mcpspec-no-such", NULL};
    char *unknown[] = {"mcpspec-no-such-program", NULL};
    char *not_exec[] = {"README.md", NULL};
    char *cat[] = {"cat", NULL};
    char *none[] = {NULL};
    char *path_only[] = {"PATH=/nonexistent", NULL};
    expect_open_error((mcps_target_config){.argv = missing},
                      "cannot run '/nonexistent/mcpspec-no-such': No such file or directory");
    expect_open_error((mcps_target_config){.argv = unknown},
                      "cannot run 'mcpspec-no-such-program': No such file or directory");
    expect_open_error((mcps_target_config){.argv = not_exec, .cwd = MCPS_SOURCE_DIR},
                      "cannot run 'README.md': No such file or directory");
    char *not_exec2[] = {"./README.md", NULL};
    expect_open_error((mcps_target_config){.argv = not_exec2, .cwd = MCPS_SOURCE_DIR},
                      "cannot run './README.md': Permission denied");
    expect_open_error((mcps_target_config){.argv = cat, .cwd = "/nonexistent-dir"},
                      "cannot run 'cat': cannot change to directory '/nonexistent-dir': No such");
    expect_open_error((mcps_target_config){.argv = cat, .env_extra = path_only},
                      "cannot run 'cat': No such file or directory");
    expect_open_error((mcps_target_config){.argv = none}, "no command to run");
    char script[64];
    snprintf(script, sizeof script, "/tmp/mcps-test-interp-%d", (int)getpid());
    FILE *f = fopen(script, "w");
    assert_non_null(f);
    fputs("#!/nonexistent/interpreter\n", f);
    fclose(f);
    chmod(script, 0700);
    char *bad_interp[] = {script, NULL};
    expect_open_error((mcps_target_config){.argv = bad_interp},
                      "No such file or directory (is its #! interpreter missing?)");
    unlink(script);
}

static void test_env_and_cwd(void **state)
{
    (void)state;
    setenv("MCPS_TEST_DROP", "present", 1);
    setenv("MCPS_TEST_KEEP", "kept", 1);
    char *extra[] = {"MCPS_TEST_FOO=old", "MCPS_TEST_FOO=bar", "MCPS_TEST_DROP", NULL};
    mcps_target_config cfg = {.cwd = "/tmp", .env_extra = extra};
    mcps_transport *t = open_sh("echo \"$MCPS_TEST_FOO\"; pwd; echo \"${MCPS_TEST_DROP-unset}\"; "
                                "echo \"$MCPS_TEST_KEEP\"; exec cat 3>&1 >/dev/null",
                                &cfg);
    expect_line(t, "bar", 2);
    expect_line(t, "/tmp", 2);
    expect_line(t, "unset", 2);
    expect_line(t, "kept", 2);
    finish(t, MCPS_SHUT_ON_CLOSE);
}

static void test_exit_with_signal(void **state)
{
    (void)state;
    mcps_transport *t = open_sh("kill -9 $$", NULL);
    mcps_tevent ev;
    expect(t, MCPS_TEV_CLOSED, 2, &ev);
    expect(t, MCPS_TEV_EXITED, 2, &ev);
    assert_int_equal(ev.exit_code, -1);
    assert_int_equal(ev.term_signal, 9);
    assert_non_null(strstr(ev.detail, "target killed by signal 9"));
    expect(t, MCPS_TEV_GONE, 2, &ev);
    mcps_shutdown_report r = shut(t, MCPS_SHUT_EXITED_BEFORE);
    assert_int_equal(r.term_signal, 9);
    t->ops->destroy(t);
}

static void test_stderr_lines(void **state)
{
    (void)state;
    mcps_transport *t = open_sh("echo oops >&2; head -c 5000 /dev/zero | tr '\\0' e >&2; "
                                "echo >&2; printf tail >&2",
                                NULL);
    const char *want[] = {"oops", NULL, "tail"};
    size_t seen = 0;
    mcps_tevent ev;
    do {
        next_in(t, 2, &ev);
        assert_int_not_equal(ev.kind, MCPS_TEV_TIMEOUT);
        if (ev.kind != MCPS_TEV_STDERR)
            continue;
        assert_true(seen < 3);
        if (want[seen]) {
            assert_int_equal(ev.len, strlen(want[seen]));
            assert_memory_equal(ev.data, want[seen], ev.len);
            assert_string_equal(ev.detail, "");
        } else {
            assert_int_equal(ev.len, 4096);
            assert_int_equal(ev.data[4095], 'e');
            assert_string_equal(ev.detail, "line truncated to its first 4096 bytes");
        }
        seen++;
    } while (ev.kind != MCPS_TEV_EXITED);
    assert_int_equal(seen, 3);
    expect(t, MCPS_TEV_GONE, 2, &ev);
    finish(t, MCPS_SHUT_EXITED_BEFORE);
}

/* While send() waits, stderr is drained into a capped queue: the oldest lines go. */
static void test_stderr_flood_drops_oldest(void **state)
{
    (void)state;
    mcps_target_config cfg = {.send_timeout = 10};
    mcps_transport *t = open_sh("yes err | head -n 300000 >&2; exec cat 3>&1 >/dev/null", &cfg);
    char *big = repeat('x', 512 * 1024, true);
    send_str(t, big);
    free(big);
    mcps_tevent ev;
    expect(t, MCPS_TEV_STDERR, 2, &ev);
    assert_memory_equal(ev.data, "err", 3);
    assert_non_null(strstr(ev.detail, "earlier stderr lines"));
    assert_non_null(strstr(ev.detail, "dropped"));
    size_t kept = 1;
    while (next_in(t, 0.2, &ev), ev.kind == MCPS_TEV_STDERR) {
        /* A loaded machine can fall behind again: later drops are announced too. */
        if (ev.detail[0] != '\0')
            assert_non_null(strstr(ev.detail, "earlier stderr lines"));
        kept++;
    }
    assert_int_equal(ev.kind, MCPS_TEV_TIMEOUT);
    assert_true(kept < 300000);
    assert_true(kept * 4 <= 256 * 1024);
    finish(t, MCPS_SHUT_ON_CLOSE);
}

/* ---- sending ---- */

static void test_send_to_target_not_reading(void **state)
{
    (void)state;
    char *argv[] = {"sleep", "30", NULL};
    mcps_target_config cfg = {.send_timeout = 0.5, .close_grace = 0.1};
    mcps_transport *t = open_argv(argv, &cfg);
    size_t n = 1 << 20;
    char *big = repeat('x', n, true);
    char err[256] = "";
    int64_t start = mcps_clock_ms();
    assert_false(t->ops->send(t, big, n + 1, err, sizeof err));
    double secs = seconds_since(start);
    free(big);
    assert_true(secs >= 0.45 && secs < 0.5 + SLACK);
    assert_non_null(strstr(err, "target is not reading its stdin (pipe full for 0.5 s)"));
    assert_non_null(strstr(err, "of 1048577 bytes written"));
    assert_false(t->ops->send(t, "{}\n", 3, err, sizeof err));
    assert_non_null(strstr(err, "only partly written"));
    mcps_shutdown_report r = shut(t, MCPS_SHUT_SIGTERM);
    assert_int_equal(r.term_signal, SIGTERM);
    t->ops->destroy(t);
}

/* The target writes a lot before it reads: send() must drain it, not deadlock. */
static void test_send_while_target_writes(void **state)
{
    (void)state;
    mcps_target_config cfg = {.send_timeout = 10};
    mcps_transport *t = open_sh("yes '{}' | head -n 100000; exec cat 3>&1 >/dev/null", &cfg);
    char *big = repeat('y', 1 << 20, true);
    int64_t start = mcps_clock_ms();
    send_str(t, big);
    free(big);
    assert_true(seconds_since(start) < 5);
    size_t lines = 0;
    mcps_tevent ev;
    while (next_in(t, 2, &ev), ev.kind == MCPS_TEV_MESSAGE) {
        assert_int_equal(ev.len, 2);
        assert_int_equal(ev.line, ++lines);
        if (lines == 100000)
            break;
    }
    assert_int_equal(lines, 100000);
    t->ops->close_input(t);
    expect(t, MCPS_TEV_CLOSED, 2, &ev);
    expect(t, MCPS_TEV_EXITED, 2, &ev);
    assert_int_equal(ev.exit_code, 0);
    finish(t, MCPS_SHUT_EXITED_BEFORE);
}

/* A target that floods short lines and never reads: we stop reading at our
 * limit instead of queueing without bound, and say so. */
static void test_send_while_target_floods_lines(void **state)
{
    (void)state;
    mcps_target_config cfg = {.send_timeout = SLACK / 4, .max_message = 1 << 20};
    mcps_transport *t = open_sh("yes | head -c 100000000; exec sleep 30", &cfg);
    long rss0 = maxrss_kib();
    char *big = repeat('z', 1 << 20, true);
    char err[256] = "";
    assert_false(t->ops->send(t, big, (1 << 20) + 1, err, sizeof err));
    free(big);
    assert_non_null(strstr(err, "bytes of its own output wait unread, our limit"));
    assert_true(maxrss_kib() - rss0 < 16 * 1024);
    finish(t, MCPS_SHUT_SIGTERM);
}

static void test_send_epipe(void **state)
{
    (void)state;
    mcps_transport *t = open_sh("exec 0<&-; echo ready; exec sleep 30", NULL);
    expect_line(t, "ready", 2);
    char err[256] = "";
    assert_false(t->ops->send(t, "{}\n", 3, err, sizeof err));
    assert_string_equal(err, "cannot send: target closed its stdin");
    finish(t, MCPS_SHUT_SIGTERM);
}

static void test_oversize_lines(void **state)
{
    (void)state;
    char *argv[] = {"cat", NULL};
    mcps_target_config cfg = {.max_message = 16};
    mcps_transport *t = open_argv(argv, &cfg);
    char *long_line = repeat('a', 40, true);
    send_str(t, "short\n");
    send_str(t, long_line);
    send_str(t, "after\n");
    free(long_line);
    mcps_tevent ev;
    expect_line(t, "short", 2);
    expect(t, MCPS_TEV_OVERSIZE, 2, &ev);
    assert_int_equal(ev.len, 16);
    assert_int_equal(ev.line, 2);
    assert_int_equal(ev.offset, 6);
    assert_memory_equal(ev.data, "aaaaaaaaaaaaaaaa", 16);
    expect(t, MCPS_TEV_MESSAGE, 2, &ev);
    assert_int_equal(ev.line, 3);
    assert_int_equal(ev.offset, 47);
    assert_memory_equal(ev.data, "after", 5);
    /* Exactly max_message is still a message. */
    send_str(t, "0123456789abcdef\n");
    expect_line(t, "0123456789abcdef", 2);
    finish(t, MCPS_SHUT_ON_CLOSE);
}

static void test_destroy_without_shutdown(void **state)
{
    (void)state;
    char *argv[] = {"cat", NULL};
    mcps_transport *t = open_argv(argv, NULL);
    int pid = mcps_stdio_pid(t);
    assert_true(pid > 0);
    t->ops->destroy(t);
    assert_group_gone(pid);
    errno = 0;
    assert_int_equal(kill(pid, 0), -1); /* reaped, not a zombie */
    assert_int_equal(errno, ESRCH);
}

/* ---- several transports, several threads ---- */

static void *echo_worker(void *arg)
{
    (void)arg;
    char *argv[] = {"cat", NULL};
    mcps_target_config cfg = {.argv = argv};
    char err[256];
    mcps_transport *t = mcps_stdio_open(&cfg, err, sizeof err);
    if (!t)
        return "open failed";
    const char *problem = NULL;
    for (int i = 0; i < 200 && !problem; i++) {
        char line[32];
        int n = snprintf(line, sizeof line, "{\"n\":%d}\n", i);
        mcps_tevent ev;
        if (!t->ops->send(t, line, (size_t)n, err, sizeof err))
            problem = "send failed";
        else if (t->ops->next(t, mcps_clock_deadline(5), &ev), ev.kind != MCPS_TEV_MESSAGE)
            problem = "no echo";
        else if (ev.len != (size_t)n - 1 || memcmp(ev.data, line, ev.len) != 0)
            problem = "wrong echo";
    }
    mcps_shutdown_report r;
    t->ops->shutdown(t, &r);
    if (!problem && r.how != MCPS_SHUT_ON_CLOSE)
        problem = "shutdown";
    t->ops->destroy(t);
    return (void *)problem;
}

static void test_threads(void **state)
{
    (void)state;
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&th[i], NULL, echo_worker, NULL), 0);
    for (int i = 0; i < 4; i++) {
        void *problem;
        pthread_join(th[i], &problem);
        if (problem)
            fail_msg("worker %d: %s", i, (const char *)problem);
    }
}

/* ---- the other hostile fixtures ---- */

static void test_hostile_exit_at_once(void **state)
{
    (void)state;
    char *argv[] = {HOSTILE("exit-at-once"), NULL};
    mcps_transport *t = open_argv(argv, NULL);
    mcps_tevent ev;
    expect(t, MCPS_TEV_CLOSED, SLACK, &ev);
    expect(t, MCPS_TEV_EXITED, SLACK, &ev);
    assert_int_equal(ev.exit_code, 3);
    assert_string_equal(ev.detail, "target exited with status 3");
    expect(t, MCPS_TEV_GONE, 0, &ev);
    char err[128];
    assert_false(t->ops->send(t, "{}\n", 3, err, sizeof err));
    assert_string_equal(err, "cannot send: target exited with status 3");
    mcps_shutdown_report r = shut(t, MCPS_SHUT_EXITED_BEFORE);
    assert_int_equal(r.exit_code, 3);
    assert_true(r.seconds == 0.0);
    t->ops->destroy(t);
}

static void test_hostile_never_answers(void **state)
{
    (void)state;
    char *argv[] = {HOSTILE("never-answers"), NULL};
    mcps_transport *t = open_argv(argv, NULL);
    send_str(t, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n");
    int64_t start = mcps_clock_ms();
    mcps_tevent ev;
    expect(t, MCPS_TEV_TIMEOUT, 0.3, &ev);
    assert_true(seconds_since(start) >= 0.29 && seconds_since(start) < 0.3 + SLACK);
    mcps_shutdown_report r = shut(t, MCPS_SHUT_ON_CLOSE);
    assert_int_equal(r.exit_code, 0);
    assert_true(r.seconds < 0.3 + SLACK);
    t->ops->destroy(t);
}

static void test_hostile_binary_garbage(void **state)
{
    (void)state;
    char *argv[] = {HOSTILE("binary-garbage"), NULL};
    mcps_transport *t = open_argv(argv, NULL);
    send_str(t, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
    size_t bytes = 0, lines = 0;
    mcps_tevent ev;
    expect(t, MCPS_TEV_MESSAGE, SLACK, &ev); /* at least one line */
    do {
        bytes += ev.len + 1, lines++;
        assert_int_equal(ev.line, lines);
        next_in(t, SLACK / 4, &ev);
    } while (ev.kind == MCPS_TEV_MESSAGE);
    assert_int_equal(ev.kind, MCPS_TEV_TIMEOUT);
    assert_int_equal(bytes, 200 + 6 + 100 + 1); /* every byte accounted for, NULs included */
    assert_true(lines >= 3);
    finish(t, MCPS_SHUT_ON_CLOSE);
}

static void test_hostile_close_stdout(void **state)
{
    (void)state;
    char *argv[] = {HOSTILE("close-stdout"), NULL};
    mcps_transport *t = open_argv(argv, NULL);
    mcps_tevent ev;
    expect(t, MCPS_TEV_CLOSED, SLACK, &ev);
    assert_string_equal(ev.detail, "target closed its stdout");
    expect(t, MCPS_TEV_TIMEOUT, 0.2, &ev); /* still running */
    mcps_shutdown_report r = shut(t, MCPS_SHUT_SIGTERM);
    assert_int_equal(r.term_signal, SIGTERM);
    assert_true(r.seconds >= 0.3 && r.seconds < 0.6 + SLACK);
    expect(t, MCPS_TEV_EXITED, 0, &ev);
    assert_int_equal(ev.term_signal, SIGTERM);
    expect(t, MCPS_TEV_GONE, 0, &ev);
    t->ops->destroy(t);
}

static void test_hostile_ignore_sigterm(void **state)
{
    (void)state;
    char *argv[] = {HOSTILE("ignore-sigterm"), NULL};
    mcps_target_config cfg = {.close_grace = 0.2, .term_grace = 0.3};
    mcps_transport *t = open_argv(argv, &cfg);
    send_str(t, "{}\n");
    mcps_shutdown_report r = shut(t, MCPS_SHUT_SIGKILL);
    assert_int_equal(r.term_signal, SIGKILL);
    assert_int_equal(r.exit_code, -1);
    assert_true(r.seconds >= 0.5 && r.seconds < 0.5 + SLACK);
    mcps_tevent ev;
    expect(t, MCPS_TEV_CLOSED, 0, &ev);
    expect(t, MCPS_TEV_EXITED, 0, &ev);
    assert_string_equal(ev.detail, "target killed by signal 9 (Killed)");
    expect(t, MCPS_TEV_GONE, 0, &ev);
    t->ops->destroy(t);
}

static void test_hostile_fork_keeps_pipes(void **state)
{
    (void)state;
    char *argv[] = {HOSTILE("fork-keeps-pipes"), NULL};
    mcps_transport *t = open_argv(argv, NULL);
    mcps_tevent ev;
    /* The exit is seen although stdout never reaches EOF (the child holds it). */
    expect(t, MCPS_TEV_EXITED, SLACK, &ev);
    assert_int_equal(ev.exit_code, 0);
    expect(t, MCPS_TEV_TIMEOUT, 0.2, &ev);
    char err[128];
    assert_false(t->ops->send(t, "{}\n", 3, err, sizeof err));
    mcps_shutdown_report r = shut(t, MCPS_SHUT_EXITED_BEFORE);
    assert_true(r.killed_leftovers);
    expect(t, MCPS_TEV_CLOSED, 0, &ev); /* the EOF came once its child was killed */
    expect(t, MCPS_TEV_GONE, 0, &ev);
    t->ops->destroy(t);
}

static void test_hostile_fork_keeps_pipes_stay(void **state)
{
    (void)state;
    char *argv[] = {HOSTILE("fork-keeps-pipes"), "stay", NULL};
    mcps_transport *t = open_argv(argv, NULL);
    send_str(t, "{}\n");
    mcps_tevent ev;
    expect(t, MCPS_TEV_TIMEOUT, 0.2, &ev);
    mcps_shutdown_report r = shut(t, MCPS_SHUT_ON_CLOSE);
    assert_true(r.killed_leftovers);
    assert_int_equal(r.exit_code, 0);
    t->ops->destroy(t);
}

static void test_hostile_slow_trickle(void **state)
{
    (void)state;
    char *argv[] = {HOSTILE("slow-trickle"), NULL};
    mcps_transport *t = open_argv(argv, NULL);
    send_str(t, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
    int64_t start = mcps_clock_ms();
    expect_line(t, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", 0.37 + SLACK);
    assert_true(seconds_since(start) >= 0.3);
    finish(t, MCPS_SHUT_ON_CLOSE);
}

/* ---- mcps_argv_split ---- */

static void expect_split(const char *cmd, const char *const *want)
{
    char err[128] = "";
    char **argv = mcps_argv_split(cmd, err, sizeof err);
    if (!argv)
        fail_msg("'%s': %s", cmd, err);
    size_t i = 0;
    for (; want[i]; i++) {
        assert_non_null(argv[i]);
        assert_string_equal(argv[i], want[i]);
    }
    assert_null(argv[i]);
    mcps_argv_free(argv);
}

static void expect_split_error(const char *cmd, const char *want)
{
    char err[128] = "";
    assert_null(mcps_argv_split(cmd, err, sizeof err));
    assert_non_null(strstr(err, want));
}

static void test_argv_split(void **state)
{
    (void)state;
    expect_split("node  server.js\t--stdio ", (const char *[]){"node", "server.js", "--stdio", 0});
    expect_split("a 'b c' \"d \\\"e\\\" \\\\ \\n\"",
                 (const char *[]){"a", "b c", "d \"e\" \\ \\n", 0});
    expect_split("x\\ y 'it''s' '' \"\"", (const char *[]){"x y", "its", "", "", 0});
    expect_split("'$HOME' \\'q", (const char *[]){"$HOME", "'q", 0});
    expect_split("pre'mid'post\"x\"", (const char *[]){"premidpostx", 0});
    expect_split("trailing\\", (const char *[]){"trailing\\", 0});
    expect_split_error("a 'b", "unterminated single quote");
    expect_split_error("a \"b\\\"", "unterminated double quote");
    expect_split_error("   ", "empty command");
    expect_split_error("", "empty command");
}

/* ---- the run's guard: deadline, stop switch, budget, watchdog ---- */

typedef struct delayed_stop {
    mcps_guard *g;
    char why;
} delayed_stop;

static void *stop_later(void *arg)
{
    delayed_stop *d = arg;
    poll(NULL, 0, 200);
    mcps_guard_stop(d->g, d->why);
    return NULL;
}

/* The run's deadline cuts a longer wait short, and then everything ends at once. */
static void test_guard_deadline_cuts_waits(void **state)
{
    (void)state;
    mcps_guard g;
    assert_true(mcps_guard_init(&g));
    g.deadline_ms = mcps_clock_deadline(0.3);
    char *argv[] = {HOSTILE("ignore-sigterm"), NULL};
    mcps_transport *t =
        open_argv(argv, &(mcps_target_config){.close_grace = 5, .term_grace = 5, .guard = &g});
    int64_t t0 = mcps_clock_ms();
    mcps_tevent ev;
    expect(t, MCPS_TEV_STOPPED, 10, &ev);
    assert_non_null(strstr(ev.detail, "deadline"));
    assert_true(mcps_clock_ms() - t0 < 300 + SLACK * 1000);
    expect(t, MCPS_TEV_STOPPED, 10, &ev); /* sticky */
    char err[200];
    assert_false(t->ops->send(t, "{}\n", 3, err, sizeof err));
    assert_non_null(strstr(err, "deadline"));
    /* Graces of 5 s each are skipped once the run is stopped. */
    int64_t t1 = mcps_clock_ms();
    mcps_shutdown_report r;
    t->ops->shutdown(t, &r);
    assert_int_equal(r.how, MCPS_SHUT_SIGKILL);
    assert_true(mcps_clock_ms() - t1 < 1500);
    t->ops->destroy(t);
    mcps_guard_free(&g);
}

/* The stop switch wakes a wait in another thread; the first reason given wins. */
static void test_guard_stop_switch(void **state)
{
    (void)state;
    mcps_guard g;
    assert_true(mcps_guard_init(&g));
    assert_int_equal(mcps_guard_stopped(&g), MCPS_STOP_NONE);
    char *argv[] = {HOSTILE("never-answers"), NULL};
    mcps_transport *t = open_argv(argv, &(mcps_target_config){.guard = &g});
    delayed_stop d = {&g, MCPS_STOP_SIGTERM};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, stop_later, &d), 0);
    int64_t t0 = mcps_clock_ms();
    mcps_tevent ev;
    expect(t, MCPS_TEV_STOPPED, 10, &ev);
    assert_true(mcps_clock_ms() - t0 < 200 + SLACK * 1000);
    assert_non_null(strstr(ev.detail, "SIGTERM"));
    pthread_join(th, NULL);
    mcps_guard_stop(&g, MCPS_STOP_UNRESPONSIVE);
    assert_int_equal(mcps_guard_stopped(&g), MCPS_STOP_SIGTERM);
    t->ops->destroy(t);
    mcps_guard_free(&g);
}

static void test_guard_wire_budget(void **state)
{
    (void)state;
    mcps_guard g;
    assert_true(mcps_guard_init(&g));
    g.wire_budget = 100;
    assert_true(mcps_guard_take_wire(&g, 60));
    assert_false(mcps_guard_take_wire(&g, 41));
    assert_true(mcps_guard_take_wire(&g, 40));
    assert_false(mcps_guard_take_wire(&g, 1));
    assert_true(mcps_guard_take_wire(NULL, 1 << 30)); /* no guard, no budget */
    mcps_guard_free(&g);
}

/* SIGKILL the process that started a target: its watchdog kills the target's group. */
static void test_guard_watchdog(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t owner = fork();
    assert_true(owner >= 0);
    if (owner == 0) {
        mcps_guard g;
        char err[200];
        char *argv[] = {"/bin/sh", "-c", "sleep 600 & exec sleep 600", NULL};
        mcps_target_config cfg = {.argv = argv, .guard = &g};
        if (!mcps_guard_init(&g) || !mcps_guard_start_watchdog(&g))
            _exit(1);
        mcps_transport *t = mcps_stdio_open(&cfg, err, sizeof err);
        int pid = t ? mcps_stdio_pid(t) : -1;
        if (write(p[1], &pid, sizeof pid) != sizeof pid)
            _exit(1);
        for (;;)
            pause();
    }
    close(p[1]);
    int pid = -1;
    assert_int_equal(read(p[0], &pid, sizeof pid), sizeof pid);
    close(p[0]);
    assert_true(pid > 0);
    poll(NULL, 0, 100); /* the group's second sleep starts */
    assert_int_equal(kill(-pid, 0), 0);
    kill(owner, SIGKILL);
    waitpid(owner, NULL, 0);
    int64_t deadline = mcps_clock_deadline(SLACK);
    while (kill(-pid, 0) == 0 && mcps_clock_ms() < deadline) {
        while (waitpid(-1, NULL, WNOHANG) > 0) /* we may be their subreaper */
            ;
        poll(NULL, 0, 10);
    }
    if (kill(-pid, 0) == 0) {
        kill(-pid, SIGKILL);
        fail_msg("the target's process group outlived its SIGKILLed owner");
    }
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    /* Orphaned group members are reparented to us, so shutdown can reap them
     * and kill(-pgid, 0) can report ESRCH even where PID 1 does not reap. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostile_flood_memory_bounded),
        cmocka_unit_test(test_cat_round_trip),
        cmocka_unit_test(test_partial_and_unterminated_lines),
        cmocka_unit_test(test_exec_failure),
        cmocka_unit_test(test_env_and_cwd),
        cmocka_unit_test(test_exit_with_signal),
        cmocka_unit_test(test_stderr_lines),
        cmocka_unit_test(test_stderr_flood_drops_oldest),
        cmocka_unit_test(test_send_to_target_not_reading),
        cmocka_unit_test(test_send_while_target_writes),
        cmocka_unit_test(test_send_while_target_floods_lines),
        cmocka_unit_test(test_send_epipe),
        cmocka_unit_test(test_oversize_lines),
        cmocka_unit_test(test_destroy_without_shutdown),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_hostile_exit_at_once),
        cmocka_unit_test(test_hostile_never_answers),
        cmocka_unit_test(test_hostile_binary_garbage),
        cmocka_unit_test(test_hostile_close_stdout),
        cmocka_unit_test(test_hostile_ignore_sigterm),
        cmocka_unit_test(test_hostile_fork_keeps_pipes),
        cmocka_unit_test(test_hostile_fork_keeps_pipes_stay),
        cmocka_unit_test(test_hostile_slow_trickle),
        cmocka_unit_test(test_argv_split),
        cmocka_unit_test(test_guard_deadline_cuts_waits),
        cmocka_unit_test(test_guard_stop_switch),
        cmocka_unit_test(test_guard_wire_budget),
        cmocka_unit_test(test_guard_watchdog),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
