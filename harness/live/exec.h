/*
 * exec.h - run one input sequence on a fresh target process and judge it.
 *
 * A fresh process per sequence makes a finding a function of its inputs
 * alone, which is what lets ddmin shrink it and `mcpspec replay` reproduce it.
 * The inputs are pipelined, each followed by a liveness ping, and the pings
 * are then awaited in order, each with its own deadline.
 */
#ifndef MCPS_LIVE_EXEC_H
#define MCPS_LIVE_EXEC_H

#include "live/live.h"
#include "live/oracle.h"

#include <sys/types.h>

/* Start the target and play the session prefix (initialize for t->revision, then
 * notifications/initialized); NULL with err when it cannot be started or refuses it. */
mcps_session *mcps_live_start(const mcps_live_target *t, mcps_session_finding_fn fn, void *ctx,
                              char *err, size_t errlen);

/* The same in two halves, for a process started ahead of need (the fuzz loop's spare): begin
 * starts it and sends the prefix's first request (NULL with err when it cannot be started; a
 * launched HTTP server has no spare), finish awaits the answer and completes the prefix
 * (false with err: the caller frees s). */
mcps_session *mcps_live_start_begin(const mcps_live_target *t, mcps_session_finding_fn fn,
                                    void *ctx, char *err, size_t errlen);
bool mcps_live_start_finish(mcps_session *s, const mcps_live_target *t, char *err, size_t errlen);

/* The response to the request with this string id, or NULL once deadline_ms passed or
 * the target is gone. */
const cJSON *mcps_live_await(mcps_session *s, const char *id, int64_t deadline_ms);

/* Run q after the prefix; out says which oracle fired (MCPS_LIVE_NONE: none). False with
 * err when the prefix itself could not be played (the run cannot be done). */
bool mcps_live_exec(const mcps_live_target *t, const mcps_live_seq *q, mcps_live_outcome *out,
                    char *err, size_t errlen);
/* The same for the inputs keep marks (all, when NULL) among src's first n, made a part at a
 * time; out->at indexes the inputs played. */
bool mcps_live_exec_source(const mcps_live_target *t, const mcps_live_source *src, const bool *keep,
                           size_t n, mcps_live_outcome *out, char *err, size_t errlen);

/* Run q on a fresh process for the growth oracle (growth.h): played once to warm up, then
 * again until about MCPS_LIVE_GROWTH_WINDOW inputs are measured (mcps_live_growth_reps
 * times at most; *reps says how many), sampled every MCPS_LIVE_GROWTH_EVERY inputs, and
 * stopped at the sample that passes a threshold. The other oracles judge it too. */
bool mcps_live_exec_growth(const mcps_live_target *t, const mcps_live_seq *q,
                           mcps_live_outcome *out, size_t *reps, char *err, size_t errlen);

/* Take the session's wire log and free it: the fuzz loop judges stderr as it comes and keeps
 * no log. */
void mcps_live_drop_log(mcps_session *s);
/* After a batch was judged: drop the wire log and empty the inbox, so a process that lives
 * for many batches holds one batch's worth at most. */
void mcps_live_next_batch(mcps_session *s, mcps_live_judge *j);

/* Whether the process can take more input: not gone, cut, stuck or reported on. */
bool mcps_live_alive(const mcps_session *s, const mcps_live_judge *j);

/* Send q on a running session (inputs numbered from first, each followed by its ping), await
 * the pings and tell j what happened (an exit, a hang, stderr). */
void mcps_live_play(mcps_session *s, const mcps_live_target *t, const mcps_live_seq *q,
                    size_t first, mcps_live_judge *j);

/* The fuzz loop's pipeline (runner.c), stdio only and q of PLAY_PART inputs at most: send
 * q's inputs and pings (numbered from first) without awaiting them; later, collect: await
 * them, tell j what happened (an unanswered ping: an exit or a hang; a file served) and return
 * the inbox index just past the answer to q's last ping (what is after it belongs to what was
 * written later). tail: nothing was written after q, so a late exit is q's. */
#define MCPS_LIVE_PLAY_PART 256
void mcps_live_send(mcps_session *s, const mcps_live_target *t, const mcps_live_seq *q,
                    size_t first);
size_t mcps_live_collect(mcps_session *s, const mcps_live_target *t, const mcps_live_seq *q,
                         size_t first, mcps_live_judge *j, bool tail);
/* The number K of a response's id "live-ping-K" (digits only, no leading zero), or 0. */
size_t mcps_live_ping_number(const cJSON *msg);

/* The liveness request sent after input i: {"jsonrpc":"2.0","id":"live-ping-I","method":M},
 * M a ping, or in 2026-07-28, which has none, server/discover (the session adds its _meta). */
const char *mcps_live_liveness_method(const char *revision);
/* The process the growth oracle watches: the stdio target's, the launched HTTP server's, or -1
 * (a remote URL). */
pid_t mcps_live_target_pid(const mcps_live_target *t, const mcps_session *s);
cJSON *mcps_live_ping(size_t i, const char *revision);

#endif
