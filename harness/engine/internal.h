/*
 * internal.h - what the engine's files share and nobody else needs:
 * revision discovery, case execution and the observer tally.
 */
#ifndef MCPS_ENGINE_INTERNAL_H
#define MCPS_ENGINE_INTERNAL_H

#include <cjson/cJSON.h>
#include <threads.h>

#include "engine/result.h"
#include "engine/run.h"
#include "engine/suite.h"
#include "session/session.h"

/* Move the session's wire log and notes into the case (result.c). */
void mcps_case_take_log(mcps_case_result *c, mcps_session *s);

/* ---- discovery (discover.c) ---- */

typedef struct mcps_discovery {
    mcps_rev_probe probes[MCPS_REV_COUNT];
    cJSON *init_result[MCPS_REV_COUNT];     /* initialize result per supported revision */
    mcps_case_result cases[MCPS_REV_COUNT]; /* one "discovery" record per probed revision */
    bool has_case[MCPS_REV_COUNT];
    char fatal[300]; /* the target could not be started at all */
} mcps_discovery;

void mcps_discover(const mcps_run_config *cfg, mcps_discovery *d);
void mcps_discovery_free(mcps_discovery *d);
bool mcps_discovery_supports(const mcps_discovery *d, mcps_rev rev);

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

typedef struct mcps_exec_env {
    const mcps_run_config *cfg;
    const mcps_discovery *discovery;
    mcps_tally *tally;
} mcps_exec_env;

/* Run case c on revision rev and fill result (which the caller owns). */
void mcps_exec_case(const mcps_exec_env *env, const mcps_suite *suite, const mcps_case *c,
                    mcps_rev rev, mcps_case_result *result);

/* Fill the descriptive fields of a result from its case. */
void mcps_exec_describe(const mcps_suite *suite, const mcps_case *c, mcps_rev rev,
                        mcps_case_result *result);

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
