/*
 * cli.h - the sub-commands of the mcpspec program, one file each.
 *
 * Each takes the arguments after its name and returns the process exit code:
 * 0 success, 1 findings (FAIL / violations), 2 usage or input error,
 * 3 incomplete (the target could not be run or a check could not be judged).
 */
#ifndef MCPS_CLI_CLI_H
#define MCPS_CLI_CLI_H

#define MCPS_EXIT_OK         0
#define MCPS_EXIT_FAIL       1
#define MCPS_EXIT_USAGE      2
#define MCPS_EXIT_INCOMPLETE 3

#include <stdbool.h>
#include <stddef.h>

#include "engine/proofs.h"
#include "engine/run.h"
#include "engine/suite.h"

int mcps_cli_lint(int argc, char **argv);
int mcps_cli_run(int argc, char **argv);
int mcps_cli_list(int argc, char **argv);
int mcps_cli_explain(int argc, char **argv);
int mcps_cli_diff(int argc, char **argv);
int mcps_cli_baseline(int argc, char **argv);
int mcps_cli_matrix(int argc, char **argv);
int mcps_cli_serve(int argc, char **argv);

/* What `mcpspec run --client` takes from the options it shares with server runs (client.c). */
typedef struct mcps_cli_client_opts {
    const char *command; /* --client, {server} unexpanded */
    const char *argv0;
    const char *cwd;
    char *const *env;              /* NULL-terminated, or NULL */
    const char *const *case_globs; /* NULL-terminated, or NULL */
    const char *out;               /* NULL: reports/client */
    unsigned formats;
    double timeout;         /* 0: default */
    double connect_timeout; /* --probe-timeout: for the client to start its server; 0: default */
    double deadline;        /* 0: none */
    size_t max_message;     /* 0: default */
    double grace; /* --shutdown-grace: after closing its stdin, then after SIGTERM; 0: default */
    bool stays;   /* the client keeps running once done (configuration "stays") */
    bool quiet;
} mcps_cli_client_opts;
int mcps_cli_client(const mcps_cli_client_opts *o);
/* `mcpspec fuzz` and `mcpspec replay`: the live fuzzer (fuzz.c, harness/live/). */
int mcps_cli_fuzz(int argc, char **argv);
int mcps_cli_replay(int argc, char **argv);
/* `mcpspec run` with --config given more than once: a matrix of those targets (matrix.c). */
int mcps_cli_matrix_configs(int argc, char **argv);
/* Whether `mcpspec run` takes these options; if not, it has said why on stderr (run.c). */
bool mcps_cli_run_options_ok(int argc, char **argv);

/*
 * On SIGTERM and SIGINT, write the stop reason's byte to fd (the write end of
 * the run's guard switch) instead of dying; fd -1 restores the defaults. The
 * handler lives in main.c, which holds the one global it needs.
 */
void mcps_cli_catch_stop_signals(int fd);

/* The suites folder to use (see suites_dir.c); buf is scratch space. */
const char *mcps_cli_suites_dir(const char *given, char *buf, size_t n);
/* Load every suite; prints the error (file:line: why) and returns false on failure. */
bool mcps_cli_load_suites(const char *given, mcps_suite_set *set);
/* Load SUITES/builtin.proofs (missing: none); prints the error and returns false on failure. */
bool mcps_cli_load_builtin_proofs(const char *given, mcps_builtin_proofs *out);
/* A path below the working directory relative to it, as a person would type it (checks.c). */
const char *mcps_cli_shown_path(const char *path);
/* The names of the revisions in revs, oldest first, as a JSON array (list --json). */
cJSON *mcps_cli_rev_array(mcps_rev_set revs);
/* Every check (cases, discovery, observer rules) with its proofs, as a JSON array
 * (checks.c); cfg's --suite/--case filters apply when cfg is not NULL. */
cJSON *mcps_cli_checks_json(const mcps_suite_set *set, const mcps_builtin_proofs *bp,
                            const mcps_run_config *cfg);

#endif
