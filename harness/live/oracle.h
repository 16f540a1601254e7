/*
 * oracle.h - the judge of one execution: what exec.c saw (an exit, an
 * unanswered ping, the observer's findings, stderr) turned into one outcome.
 * When several fire, the most specific wins: a sanitizer report explains the
 * crash it causes, a crash explains the pings it leaves unanswered.
 */
#ifndef MCPS_LIVE_ORACLE_H
#define MCPS_LIVE_ORACLE_H

#include "live/live.h"

typedef struct mcps_live_judge {
    mcps_live_outcome *out;
    bool exited, hung, dropped, contract, sanitizer, growth, disclosure;
    size_t exit_at, hang_at, drop_at, growth_at, growth_inputs, disclosure_at;
    long growth_from, growth_to;
    const char *growth_kind; /* "fds" or "rss" */
    int exit_code, term_signal;
    double hang_seconds;
    char contract_kind[48], contract_msg[240], drop_why[160];
    char san_header[200], san_frame[120];
    const char *disclosed_file; /* "/etc/passwd" or "/proc/version" */
    char disclosure_id[64];     /* the id of the response that held it, as JSON */
} mcps_live_judge;

void mcps_live_judge_init(mcps_live_judge *j, mcps_live_outcome *out);
/* The target exited (or was killed) before answering the ping after input at. */
void mcps_live_judge_exit(mcps_live_judge *j, const mcps_session *s, size_t at);
/* The same for a server process known by its exit status or signal (server.h). */
void mcps_live_judge_exit_status(mcps_live_judge *j, int code, int sig, size_t at);
/* Over HTTP: the ping after input at was not answered and its exchange is over (an error
 * status, a stream closed without the answer, a connection refused or reset): why says how. */
void mcps_live_judge_dropped(mcps_live_judge *j, size_t at, const char *why);
void mcps_live_judge_hang(mcps_live_judge *j, size_t at, double seconds);
/* Over HTTP: input at was answered with status (500 or more), the server failing inside (an
 * unhandled error, a worker that died). A broken error contract, when nothing worse fired. */
void mcps_live_judge_server_error(mcps_live_judge *j, size_t at, int status);
/* A growth oracle's threshold was passed (growth.h): kind "fds" or "rss", from and to the
 * counts (KiB for rss) over inputs inputs, the last being input at. */
void mcps_live_judge_growth(mcps_live_judge *j, const char *kind, size_t at, long from, long to,
                            size_t inputs);
/* The session's observer callback (ctx: the judge). */
void mcps_live_judge_finding(void *ctx, const mcps_finding *f, const char *excerpt);
/* Look in the responses queued in s's inbox for the contents of a file the traversal probes
 * aim at (uris.h): /etc/passwd or /proc/version served is a path traversal. The first one
 * found is kept, with its response's id (disclosure_at is the caller's to set). */
void mcps_live_judge_inbox(mcps_live_judge *j, const mcps_session *s);
/* The same in its first n messages only. */
void mcps_live_judge_inbox_n(mcps_live_judge *j, const mcps_session *s, size_t n);
/* Look for sanitizer report headers in the target's stderr (the session's wire log). */
void mcps_live_judge_stderr(mcps_live_judge *j, const mcps_session *s);
/* The same in a text of lines (a launched HTTP server's last output). */
void mcps_live_judge_output(mcps_live_judge *j, const char *text);
/* Write the outcome. */
void mcps_live_judge_done(mcps_live_judge *j);

#endif
