/*
 * guard.h - what bounds a whole run, shared by every transport and session
 * of it: a hard deadline, a stop switch, a memory budget for the wire logs
 * the report keeps, and a watchdog that kills the targets if we die.
 *
 * The stop switch is a socket pair: writing one byte to it (from a signal
 * handler, or from the engine when it judges the target dead) makes its
 * other end readable for good, so every poll() of every thread wakes at
 * once; the first byte says why. No global state: the CLI owns one guard per
 * run and passes it down in mcps_target_config.
 */
#ifndef MCPS_TRANSPORT_GUARD_H
#define MCPS_TRANSPORT_GUARD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Why a run stopped: the byte written to the switch (a deadline needs none). */
enum {
    MCPS_STOP_NONE = 0,
    MCPS_STOP_DEADLINE = 'D',     /* the run's --deadline passed */
    MCPS_STOP_SIGTERM = 'T',      /* mcpspec got SIGTERM */
    MCPS_STOP_SIGINT = 'I',       /* mcpspec got SIGINT */
    MCPS_STOP_UNRESPONSIVE = 'U', /* the engine judged the target stopped responding */
};

typedef struct mcps_guard {
    int fd[2];           /* the stop switch: fd[1] written, fd[0] polled; -1 when absent */
    int64_t deadline_ms; /* mcps_clock_ms() time the whole run ends by; 0: none */
    size_t wire_budget;  /* wire-log bytes all sessions of the run may keep together */
    atomic_size_t wire_used;
    size_t big_budget; /* bytes all sessions may hold together in messages past 256 KiB */
    atomic_size_t big_used;
    int watchdog_fd; /* write end of the watchdog's pipe; -1 without one */
    char mark[48];   /* MCPS_GUARD_MARK "=<watchdog pid>", put in each target's environment; "" */
} mcps_guard;

/* The environment variable that marks a run's targets for its watchdog. */
#define MCPS_GUARD_MARK "MCPSPEC_WATCHDOG"

/* Default wire_budget: what the report may hold in wire logs over a whole run. */
#define MCPS_GUARD_WIRE_BUDGET ((size_t)12 * 1024 * 1024)
/* Default big_budget: --jobs sessions each reading a --max-message event would hold jobs
 * times 4 MiB; past this, a session waits for another to be done with its large message.
 * A message held whole is also copied on its way up (queue, session), so the memory it
 * costs is two to three times what it takes of this budget. */
#define MCPS_GUARD_BIG_BUDGET ((size_t)8 * 1024 * 1024)

/* A running guard with no deadline; false when the socket pair cannot be made. */
bool mcps_guard_init(mcps_guard *g);
void mcps_guard_free(mcps_guard *g);

/* Stop the run (async-signal-safe; the first reason given wins). */
void mcps_guard_stop(const mcps_guard *g, char why);
/* MCPS_STOP_NONE while the run may go on, else why it stopped. NULL: never stops. */
char mcps_guard_stopped(const mcps_guard *g);
/* A few words for a stop reason: "the run deadline passed", ... */
const char *mcps_guard_reason(char why);
/* The earlier of deadline_ms and the run's deadline. */
int64_t mcps_guard_clamp(const mcps_guard *g, int64_t deadline_ms);
/* The descriptor to poll for the stop (readable once stopped), or -1. */
int mcps_guard_fd(const mcps_guard *g);

/* Take n bytes of the run's wire budget; false when they are not left. */
bool mcps_guard_take_wire(mcps_guard *g, size_t n);
/* Take n bytes of the budget for large messages; false when they are not left, unless no one
 * holds any (one message may always be read, whatever --max-message is). Give them back once
 * the message is handed on or dropped. */
bool mcps_guard_take_big(mcps_guard *g, size_t n);
void mcps_guard_give_big(mcps_guard *g, size_t n);

/*
 * Fork a watchdog (before any thread starts): a small process that outlives
 * us by a moment and SIGKILLs every target process group still registered
 * when our end of its pipe closes - however we died, SIGKILL included.
 */
bool mcps_guard_start_watchdog(mcps_guard *g);
/* Register (add) or forget a target's process group with the watchdog. A target killed
 * between its start and its registration is still found: the watchdog also kills every
 * process whose environment holds g->mark. */
void mcps_guard_watch(const mcps_guard *g, pid_t pgid, bool add);

#endif
