/*
 * run.h - a conformance run: discover revisions, run the cases, grade them.
 *
 * For each handshake-era revision the target is probed with `initialize` on
 * a fresh process (the catalog's negotiation section); each case then runs,
 * for each revision it applies to that the target speaks, on a process of its
 * own or (--isolation shared, the default) on one it shares with other cases
 * that leave the session clean (suite.h: mcps_case_shareable). The stateless 2026-07-28 revision
 * is probed with server/discover instead, and its cases run without a handshake, every request
 * carrying its own _meta (session.h: mcps_session_stamp).
 * Observer checks (what every message must satisfy) are graded per revision
 * from everything the target sent in all cases.
 */
#ifndef MCPS_ENGINE_RUN_H
#define MCPS_ENGINE_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/match.h"
#include "engine/result.h"
#include "engine/suite.h"
#include "transport/transport.h"

typedef struct mcps_run_hooks {
    /* Called before and after each case, for progress output; may be NULL. */
    void (*case_started)(void *ctx, const char *case_id, mcps_rev rev, size_t index, size_t total);
    void (*case_finished)(void *ctx, const mcps_case_result *result, size_t index, size_t total);
    void *ctx;
} mcps_run_hooks;

typedef struct mcps_run_config {
    mcps_target_config target;      /* argv, cwd, env, limits */
    const char *target_text;        /* the command as the user wrote it, for the report */
    mcps_rev_set revisions;         /* --revision filter (0: all) */
    const char *const *suite_globs; /* --suite filters (NULL-terminated; NULL: all) */
    const char *const *case_globs;  /* --case filters */
    double timeout;                 /* default seconds to wait for an expected message */
    double probe_timeout;           /* seconds to wait for an initialize probe answer */
    bool strict;
    const mcps_vars *config_vars; /* from the target configuration (call_tool, ...); may be NULL */
    size_t jobs;                  /* cases run at once (default 8) */
    bool fresh_processes;         /* --isolation fresh: every case on a process of its own */
    bool transport_auto;  /* --transport auto: Streamable HTTP first, then legacy HTTP+SSE */
    mcps_run_hooks hooks; /* called under a lock, from whichever thread ran the case */
} mcps_run_config;

/* Defaults: 5 s expectations, 10 s probes, 8 jobs, limits from the transport. */
void mcps_run_config_defaults(mcps_run_config *cfg);

/*
 * Run the selected cases of suites against the target and fill out (the
 * caller frees it with mcps_run_result_free). Always fills a complete result,
 * even when the target cannot be started (out->fatal says why).
 */
void mcps_run(const mcps_suite_set *suites, const mcps_run_config *cfg, mcps_run_result *out);

/* The observer checks, for listing: false past the last one. name is "json-text" etc. */
bool mcps_run_observer_rule(size_t i, const char **name, const char **title, const char **reqs);
/* The discovery checks (discovery/initialize, discovery/server-discover,
 * discovery/loopback-only), for listing: false past the last one. revs: the revisions it is
 * graded on. */
bool mcps_run_discovery_check(size_t i, const char **id, const char **title, const char **reqs,
                              mcps_rev_set *revs);
/* The transports discovery check i is graded on: a bit (1u << mcps_transport_kind) each; 0: any. */
unsigned mcps_run_discovery_transports(size_t i);

/* True when the case passes the --suite and --case filters. */
bool mcps_run_selects(const mcps_run_config *cfg, const mcps_suite *suite, const mcps_case *c);

#endif
