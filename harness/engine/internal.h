/*
 * internal.h - what the engine's files share and nobody else needs:
 * revision discovery, case execution and the observer tally.
 */
#ifndef MCPS_ENGINE_INTERNAL_H
#define MCPS_ENGINE_INTERNAL_H

#include <cjson/cJSON.h>
#include <stdatomic.h>
#include <threads.h>

#include "engine/result.h"
#include "engine/run.h"
#include "engine/suite.h"
#include "session/session.h"
#include "transport/listening.h"

/* Move the session's wire log and notes into the case (result.c). */
void mcps_case_take_log(mcps_case_result *c, mcps_session *s);

/* ---- discovery (discover.c) ---- */

typedef struct mcps_discovery {
    mcps_rev_probe probes[MCPS_REV_COUNT];
    cJSON *init_result[MCPS_REV_COUNT];     /* initialize result per supported revision (2026-07-28:
                                               the server/discover result; both hold capabilities) */
    mcps_case_result cases[MCPS_REV_COUNT]; /* one "discovery" record per probed revision */
    bool has_case[MCPS_REV_COUNT];
    int http_status[MCPS_REV_COUNT]; /* HTTP: the status that refused the probe, else 0 */
    char fatal[300];                 /* the target could not be started at all */
    _Atomic int64_t answered_ms;     /* when a handshake probe was first answered (clock ms), or 0:
                                        the 2026-07-28 probe waits on a live target no longer */
} mcps_discovery;

void mcps_discover(const mcps_run_config *cfg, mcps_discovery *d);
void mcps_discovery_free(mcps_discovery *d);
bool mcps_discovery_supports(const mcps_discovery *d, mcps_rev rev);
/* The answer to our request with this id (JSON text), or NULL after deadline or the exit. */
const cJSON *mcps_discovery_await(mcps_session *s, const char *id, int64_t deadline);
void mcps_discovery_detail(mcps_rev_probe *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The 2026-07-28 probe (discover_stateless.c): fills d's 2026-07-28 slots, and fatal when the
 * target cannot be started. */
void mcps_discover_stateless(const mcps_run_config *cfg, mcps_discovery *d, char *fatal,
                             size_t fatal_len);
bool mcps_discovery_stateless_check(const char **id, const char **title, const char **reqs,
                                    mcps_rev_set *revs);
/* discovery/loopback-only (loopback.c): the check, and its records for an HTTP run (none on
 * stdio); l: the sockets of the server mcpspec started (NULL when unreadable), started: whether
 * mcpspec started it at all. */
bool mcps_loopback_check(const char **id, const char **title, const char **reqs,
                         mcps_rev_set *revs);
void mcps_loopback_results(const mcps_run_config *cfg, const mcps_discovery *d,
                           const mcps_listening *l, bool started, mcps_run_result *out);

/* After every probe: a target that spoke no revision at all gives no evidence that it does
 * not speak 2026-07-28 either, so a silent 2026-07-28 probe becomes an ERROR. */
void mcps_discovery_stateless_settle(mcps_discovery *d, bool any_spoken);

/* ---- the observer tally (observers.c) ---- */

typedef struct mcps_tally mcps_tally;

mcps_tally *mcps_tally_new(void);
void mcps_tally_free(mcps_tally *t);
void mcps_tally_finding(mcps_tally *t, mcps_rev rev, const char *case_id, const mcps_finding *f,
                        const char *excerpt);
void mcps_tally_counts(mcps_tally *t, mcps_rev rev, const mcps_session_counts *counts);
/* Messages sent and lines received over the whole run (cases only; probes are added by run.c). */
void mcps_tally_totals(const mcps_tally *t, size_t *sent, size_t *received);
/* Findings no rule could tally (none, by construction; an ERROR check otherwise). */
size_t mcps_tally_unmatched(const mcps_tally *t);
/* Append one "observe/..." case per rule and revision the run covered. */
bool mcps_tally_results(const mcps_tally *t, mcps_rev_set revisions, mcps_run_result *out);

/* ---- what the target did in a whole case (judges.c) ---- */

typedef struct mcps_judge_input {
    mcps_tally *tally;
    mcps_rev rev;
    const char *case_id;
    mcps_session *session;    /* its inbox holds every message the target sent */
    const cJSON *server_caps; /* from discovery */
    const cJSON *client_caps; /* what mcpspec declared in this case (NULL: {}) */
    const mcps_vars *vars;    /* the case's variables (canaries) */
} mcps_judge_input;

/* Judge the case's traffic as a whole; findings go to the tally. */
void mcps_judge_case(const mcps_judge_input *in);

/* ---- one case (exec.c) ---- */

typedef struct mcps_proc mcps_proc; /* a target process for cases, below */

typedef struct mcps_exec_env {
    const mcps_run_config *cfg;
    const mcps_discovery *discovery;
    mcps_tally *tally;
} mcps_exec_env;

/* Run case c on revision rev on a fresh process of its own and fill result (the caller's). */
void mcps_exec_case(const mcps_exec_env *env, const mcps_suite *suite, const mcps_case *c,
                    mcps_rev rev, mcps_case_result *result);

/* The case's needs and capabilities are met on rev (else it is SKIP without a process). */
bool mcps_exec_applicable(const mcps_exec_env *env, const mcps_case *c, mcps_rev rev);

/* Where a case runs (mcps_exec_case_on). */
typedef struct mcps_exec_place {
    mcps_proc **proc;         /* the process; *proc NULL: start one */
    bool keep;                /* shared: leave it in *proc for the next case if it can take one */
    void (*ready)(void *ctx); /* called once the process has done the case's handshake (or
                                 failed to), so the next one's start-up does not compete */
    void *ctx;
    bool trial;            /* with keep: the case is on trial (suite.h: mcps_sharing) */
    bool *rerun;           /* set when a trial's result was dropped: run it again on its own */
    mcps_verdict *dropped; /* with rerun: the verdict the trial had */
    const mcps_verdict *retrial; /* a rerun: the trial's verdict, for the wire log */
} mcps_exec_place;

/*
 * Run case c on *at->proc. With keep, the process is shared: the case gets
 * fresh ids on it, and after the case a ping with an id of its own must be
 * answered (everything before the answer belongs to the case) before it is
 * left in *at->proc for the next case. Otherwise, or when it cannot take
 * another case, it is shut down and *at->proc becomes NULL. Returns false
 * when that ping went unanswered.
 */
bool mcps_exec_case_on(const mcps_exec_env *env, const mcps_suite *suite, const mcps_case *c,
                       mcps_rev rev, const mcps_exec_place *at, mcps_case_result *result);

/* Fill the descriptive fields of a result from its case. */
void mcps_exec_describe(const mcps_suite *suite, const mcps_case *c, mcps_rev rev,
                        mcps_case_result *result);

/* ---- the processes cases run on (process.c) ---- */

/* A target process: started for a case, perhaps with its initialize already sent so that its
 * start-up overlaps the case before; with --isolation shared, kept for the cases after. */
typedef struct mcps_proc {
    mcps_session *s;
    mcps_rev rev;
    char *caps;     /* the client capabilities it was initialized with, printed ("" for none) */
    bool raw;       /* nothing sent: for a `session raw` case */
    bool init_sent; /* our initialize went out; its answer is not read yet */
    bool ready;     /* initialize answered and notifications/initialized sent */
    unsigned cases; /* cases run on it so far */
    char first_case[160]; /* the case whose wire log holds the handshake */
    int pid;
} mcps_proc;

/* Start a process for case c on rev: for an initialized case, initialize is sent at once. */
mcps_proc *mcps_proc_start(const mcps_exec_env *env, const mcps_case *c, mcps_rev rev, char *why,
                           size_t n);
/* Read the answer to initialize (sending it first if needed), then notifications/initialized. */
bool mcps_proc_handshake(mcps_proc *p, const mcps_exec_env *env, const cJSON *client_caps,
                         char *why, size_t n);
/* p was started for what c on rev needs (revision, client capabilities, raw or not). */
bool mcps_proc_fits(const mcps_proc *p, const mcps_case *c, mcps_rev rev);
/* Still there to take another case: running, stdin open, stdout open. */
bool mcps_proc_usable(const mcps_proc *p);
/* Shut it down (if still running) and free it; NULL is fine. */
void mcps_proc_free(mcps_proc *p);

/* ---- a worker's lane of cases (lanes.c) ---- */

typedef struct mcps_lane {
    const mcps_exec_env *env;
    bool shared;                /* --isolation shared */
    mcps_proc *current;         /* the process shareable cases run on */
    mcps_proc *spare;           /* started for the next case while this one runs */
    unsigned *barrier_failures; /* over the run; guarded by lock */
    unsigned *trial_losses;     /* shared processes a case on trial ended; guarded by lock */
    mtx_t *lock;                /* the pool's */
    size_t *processes;          /* processes started over the run; guarded by lock */
} mcps_lane;

/* Run case c on rev (result r), starting next's process meanwhile when it needs one. */
void mcps_lane_run(mcps_lane *l, const mcps_suite *suite, const mcps_case *c, mcps_rev rev,
                   const mcps_case *next, mcps_rev next_rev, mcps_case_result *r);
void mcps_lane_close(mcps_lane *l);

/* ---- has the target stopped responding? (liveness.c) ---- */

typedef struct mcps_liveness {
    mtx_t lock;
    size_t stalls;  /* cases in a row that left the target stalled */
    bool probing;   /* a liveness probe is under way */
    char dead[400]; /* why the target was judged to have stopped responding */
} mcps_liveness;

bool mcps_liveness_init(mcps_liveness *l);
void mcps_liveness_free(mcps_liveness *l);
/* After each case (any thread): count stalls; after enough in a row, probe a fresh
 * process, and stop the run's guard when it does not answer. */
void mcps_liveness_after_case(mcps_liveness *l, const mcps_exec_env *env,
                              const mcps_case_result *r);
/* Why the run stopped: the judgement's words, else the guard's reason. */
void mcps_liveness_stop_reason(mcps_liveness *l, const mcps_guard *g, char *out, size_t n);

/* Shared by discovery and cases: the initialize request mcpspec sends. */
cJSON *mcps_exec_initialize_request(const char *id, const char *version, const cJSON *client_caps);

#endif
