/*
 * bench_session.c - mcpspec's own CPU cost per message in steady traffic.
 *
 * One refserver process, N pings answered one at a time. Measured twice in
 * this process: through the full session (serialize, log, send, frame,
 * parse, observe, classify, queue, match the expected response) and, as the
 * baseline, the same bytes over bare pipes with no parsing at all (write a
 * line, read up to the newline). Only this process's CPU is counted
 * (getrusage RUSAGE_SELF); the target's is not.
 *
 * usage: bench_session REFSERVER [PINGS]
 */
#include "codec/json.h"
#include "engine/match.h"
#include "session/session.h"
#include "base/clock.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static const char INIT[] = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
                           "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{"
                           "\"name\":\"bench\",\"version\":\"1\"}}}\n";

/* Wait for the inbox to hold a response matching pattern; false on timeout. */
static bool await(mcps_session *s, const cJSON *pattern, mcps_vars *vars)
{
    int64_t deadline = mcps_clock_deadline(5.0);
    for (;;) {
        for (size_t i = 0; i < s->ninbox; i++) {
            mcps_match_result r;
            if (!s->inbox[i].consumed && mcps_match(pattern, s->inbox[i].msg, vars, &r)) {
                s->inbox[i].consumed = true;
                return true;
            }
        }
        if (!mcps_session_poll(s, deadline))
            return false;
    }
}

static double through_session(char **argv, int pings)
{
    char err[300];
    mcps_session_config cfg = {
        .target = {.argv = argv}, .rev = MCPS_REV_2025_06_18, .wire_max_bytes = 1024};
    mcps_session *s = mcps_session_open(&cfg, err, sizeof err);
    if (!s || !mcps_session_send_raw(s, INIT, strlen(INIT), err, sizeof err)) {
        fprintf(stderr, "bench_session: %s\n", err);
        exit(1);
    }
    mcps_vars vars = {0};
    cJSON *init = mcps_json_parse_simple("{\"id\":0}", 8);
    await(s, init, &vars);
    double t0 = cpu_seconds();
    for (int i = 1; i <= pings; i++) {
        char text[96];
        snprintf(text, sizeof text, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}", i);
        cJSON *msg = mcps_json_parse_simple(text, strlen(text));
        snprintf(text, sizeof text, "{\"id\":%d,\"result\":{\"$closed\":true}}", i);
        cJSON *pattern = mcps_json_parse_simple(text, strlen(text));
        if (!mcps_session_send(s, msg, err, sizeof err) || !await(s, pattern, &vars)) {
            fprintf(stderr, "bench_session: ping %d was not answered\n", i);
            exit(1);
        }
        mcps_json_delete(msg);
        mcps_json_delete(pattern);
        /* Each ping answered is done with, as a case is: the session's own reset keeps its
         * inbox (and the bound on it) from growing over the run. */
        mcps_session_begin_case(s, 0, NULL, NULL);
    }
    double spent = cpu_seconds() - t0;
    mcps_json_delete(init);
    mcps_vars_free(&vars);
    mcps_session_free(s);
    return spent;
}

/* The floor: the same exchange through the bare transport, nothing parsed. */
static double bare_pipes(char **argv, int pings)
{
    char err[300];
    mcps_target_config cfg = {.argv = argv};
    mcps_transport *t = mcps_stdio_open(&cfg, err, sizeof err);
    mcps_tevent ev;
    if (!t || !t->ops->send(t, INIT, strlen(INIT), err, sizeof err)) {
        fprintf(stderr, "bench_session: %s\n", err);
        exit(1);
    }
    t->ops->next(t, mcps_clock_deadline(5.0), &ev);
    double t0 = cpu_seconds();
    for (int i = 1; i <= pings; i++) {
        char text[96];
        int n =
            snprintf(text, sizeof text, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n", i);
        t->ops->send(t, text, (size_t)n, err, sizeof err);
        do
            t->ops->next(t, mcps_clock_deadline(5.0), &ev);
        while (ev.kind == MCPS_TEV_STDERR);
        if (ev.kind != MCPS_TEV_MESSAGE) {
            fprintf(stderr, "bench_session: no answer over bare pipes\n");
            exit(1);
        }
    }
    double spent = cpu_seconds() - t0;
    t->ops->destroy(t);
    return spent;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_session REFSERVER [PINGS]\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    int pings = argc > 2 ? atoi(argv[2]) : 20000;
    char *target[] = {argv[1], NULL};
    double bare = bare_pipes(target, pings);
    double full = through_session(target, pings);
    double msgs = 2.0 * pings;
    printf("mcpspec per-message CPU, %d pings answered one at a time (%g messages)\n", pings, msgs);
    printf("bare transport (baseline)  %6.2f us/message\n", bare / msgs * 1e6);
    printf("full session               %6.2f us/message  (ratio %.2fx; the difference, %.2f us, is "
           "parsing, observing, logging and matching)\n",
           full / msgs * 1e6, full / bare, (full - bare) / msgs * 1e6);
    return 0;
}
