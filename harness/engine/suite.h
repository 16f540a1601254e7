/*
 * suite.h - conversation suites: the data model and the loader.
 *
 * A suite is a plain text file under suites/, one conversation per case, read
 * like a go-ethereum JSON-RPC transcript: "-->" lines are sent, "<--" lines
 * are expected (with matchers, see match.h). The format is documented in
 * suites/README.md. A broken file is rejected whole, with an error naming the
 * file and line, before anything runs.
 */
#ifndef MCPS_ENGINE_SUITE_H
#define MCPS_ENGINE_SUITE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "codec/rev.h"
#include "engine/proofs.h"
#include "engine/result.h"

typedef enum mcps_step_kind {
    MCPS_STEP_SEND,        /* --> {json}            a message built from a template */
    MCPS_STEP_SEND_RAW,    /* --> raw TEXT          bytes as written (C escapes), plus '\n' */
    MCPS_STEP_EXPECT,      /* <-- {pattern}         a response, notification or request */
    MCPS_STEP_NO_RESPONSE, /* <-- no response for T  no response arrives within T */
    MCPS_STEP_NOTHING,     /* <-- nothing for T     no message at all within T */
    MCPS_STEP_EXIT,        /* <-- exit within T     the target process exits */
    MCPS_STEP_CLOSE_INPUT, /* close stdin */
    MCPS_STEP_WAIT,        /* wait T                let time pass, collecting messages */
    MCPS_STEP_REPEAT,      /* repeat max N while ${VAR} ... end */
    MCPS_STEP_FOREACH,     /* foreach NAME in ${LIST} max N [else skip "why"] ... end */
    MCPS_STEP_LET,         /* let NAME = FUNC(${A}, ...) | let NAME = {json} */
    MCPS_STEP_NO_MATCH,    /* <-- no {pattern} for T  nothing matching arrives within T */
    MCPS_STEP_EACH,        /* <-- each {pattern}      every queued message of its kind matches */
    MCPS_STEP_REQUIRE,     /* require ${VAR} else skip "why" */
    MCPS_STEP_SEND_HTTP,   /* --> http {request}    an HTTP request as written (HTTP targets) */
} mcps_step_kind;

/*
 * "<-- else GRADE "reason" {pattern}": a tolerated alternative to an
 * expectation; "<-- else GRADE "reason" silence" grades a timeout instead.
 * "<-- else breaks ID... "reason" ..." names the requirements the observation
 * breaks instead of a grade: the case is graded at their level in the revision
 * under test (none applies there: nothing is broken, PASS). "else GRADE breaks
 * ID..." keeps the written grade (a catalog conflict) and records the IDs.
 */
typedef struct mcps_alternative {
    mcps_verdict grade; /* PASS, INFO, WARN or FAIL when this pattern matches instead */
    bool graded;        /* false: the grade follows from breaks */
    char *breaks;       /* space-separated requirement IDs, or NULL */
    char *reason;
    cJSON *pattern; /* NULL: the alternative is silence; an HTTP record after `<-- http` */
    bool http;      /* an HTTP record standing in for a message that did not come */
    size_t line;
} mcps_alternative;

typedef struct mcps_step {
    mcps_step_kind kind;
    size_t line;
    cJSON *json; /* SEND template, EXPECT pattern */
    bool http;   /* EXPECT, NO_MATCH: the pattern is for an HTTP record (`<-- http {...}`) */
    char *raw;   /* SEND_RAW bytes, escapes decoded (may contain NUL) */
    size_t raw_len;
    double seconds; /* NO_RESPONSE, NOTHING, EXIT, WAIT; EXPECT "within"; 0 = default */
    mcps_alternative *alts;
    size_t nalts;
    char *while_var; /* REPEAT: the variable; FOREACH: the list variable */
    size_t max_iterations;
    struct mcps_step *body;
    size_t nbody;
    char *name;  /* FOREACH: the element variable; LET: the variable set */
    char *func;  /* LET: function name, or NULL when json is the value */
    char **args; /* LET: argument texts ("${A}") */
    size_t nargs;
    char *skip_reason; /* FOREACH, REQUIRE: SKIP the case with this when there is nothing */
} mcps_step;

typedef enum mcps_session_mode {
    MCPS_SESSION_INITIALIZED, /* fresh process, initialize + initialized done first */
    MCPS_SESSION_RAW,         /* fresh process, nothing sent yet */
} mcps_session_mode;

/* Whether a case may run on a process other cases use too (--isolation shared). */
typedef enum mcps_isolation {
    MCPS_ISOLATION_AUTO,  /* no directive: shared only when mcps_case_shareable() proves it clean */
    MCPS_ISOLATION_FRESH, /* `isolation fresh`: always its own process */
    MCPS_ISOLATION_SHARED, /* `isolation shared`: the author vouches it leaves the session clean */
} mcps_isolation;

typedef struct mcps_case {
    char *id;   /* "suite/name" */
    char *name; /* "name" as written after `case` */
    char *title;
    char *section;
    char *requirements; /* space-separated IDs */
    mcps_rev_set revisions;
    char **capabilities; /* "tools", "resources.subscribe", "!completions" */
    size_t ncapabilities;
    char **needs; /* variables the target configuration must set, e.g. "call_tool" */
    size_t nneeds;
    mcps_session_mode session;
    mcps_isolation isolation;
    unsigned transports; /* `transport ...`: bit (1u << mcps_transport_kind) each; 0: any */
    cJSON *client_capabilities; /* NULL: {} */
    char *expect;               /* the expectation, for a person */
    double timeout;             /* default wait for an expectation in this case; 0 = run default */
    mcps_step *steps;
    size_t nsteps;
    mcps_proof *proofs; /* proven-by: the faults that make the check fail (proofs.h) */
    size_t nproofs;
    char *file;
    size_t line;
} mcps_case;

typedef struct mcps_suite {
    char *name; /* the file stem, e.g. "lifecycle" */
    char *title;
    char *section;
    char *file;
    mcps_case *cases;
    size_t ncases;
} mcps_suite;

typedef struct mcps_suite_set {
    mcps_suite *suites;
    size_t nsuites;
} mcps_suite_set;

/* Load one suite file. On failure err holds "FILE:LINE: what is wrong". */
bool mcps_suite_load_file(const char *path, mcps_suite *out, char *err, size_t errlen);
/* Load every *.suite file of dir in name order; case ids must be unique across them. */
bool mcps_suite_load_dir(const char *dir, mcps_suite_set *out, char *err, size_t errlen);
/* Parse suite text held in memory (name stands in for the file name in errors). */
bool mcps_suite_parse(const char *name, const char *text, size_t len, mcps_suite *out, char *err,
                      size_t errlen);

void mcps_suite_free(mcps_suite *s);
void mcps_suite_set_free(mcps_suite_set *set);

/*
 * May the case share a process with other cases? `isolation` decides when
 * written; otherwise only a case that provably leaves the session as it found
 * it: initialized session, no client capabilities of its own, no tool calls
 * (needs), no raw bytes, no close/exit, no silence window that a message of an
 * older case could break ("nothing for", "no {...} for"), and every message a
 * request for a read-only method (ping, the lists, resources/read,
 * prompts/get, completion/complete) whose id is a string or a small integer,
 * so that it can be made unique on the shared session.
 */
bool mcps_case_shareable(const mcps_case *c);

/*
 * How a case may use a shared process. On trial: a case that sends malformed
 * or odd input (raw bytes, a wrong jsonrpc, a method that is not a string, a
 * batch) but nothing that could change server state (no initialize, no
 * notification, no tool call, no subscription or log level). It runs on the
 * shared process; its verdict stands only when it is PASS or SKIP and the
 * ping after it is answered. Otherwise nothing it observed is kept and it runs
 * again on a process of its own, so its verdict is the one --isolation fresh
 * gives. A correct server costs no process for it; a wrong one costs one, as
 * before.
 */
typedef enum mcps_sharing {
    MCPS_SHARE_NEVER,    /* a process of its own */
    MCPS_SHARE_ALWAYS,   /* the shared process (mcps_case_shareable's proof) */
    MCPS_SHARE_ON_TRIAL, /* the shared process, again on its own unless it passes there */
} mcps_sharing;

/* The case's way of sharing; mcps_case_shareable() is true for ALWAYS and ON_TRIAL. */
mcps_sharing mcps_case_sharing(const mcps_case *c);

/* The seconds a case spends in waits it cannot cut short ("wait", silence windows),
 * a loop's body counted once: a lower bound of its time, to start slow cases first. */
double mcps_case_wait_seconds(const mcps_case *c);

/* Shell-style glob match (*, ?, [...]) for --suite and --case filters. */
bool mcps_glob_match(const char *pattern, const char *text);

#endif
