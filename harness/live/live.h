/*
 * live.h - the live fuzzer's shared types: the target, one input sequence,
 * and what an oracle saw. `mcpspec fuzz` (fuzz.c) generates sequences
 * (gen.c), runs them on a target process started with a valid session
 * prefix and kept for many sequences (runner.c, exec.c), and minimizes on
 * fresh processes (minimize.c, ddmin.c) and records (finding.c, report.c) what
 * the oracles find; `mcpspec replay` (replay.c) runs a recorded finding again.
 */
#ifndef MCPS_LIVE_LIVE_H
#define MCPS_LIVE_LIVE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session/session.h"

/* What the growth oracle watches (growth.h). */
typedef enum mcps_live_watch {
    MCPS_LIVE_WATCH_NONE, /* --growth off */
    MCPS_LIVE_WATCH_FDS,  /* descriptors only: memory is not a leak's measure here (ASan) */
    MCPS_LIVE_WATCH_ALL,  /* descriptors and resident memory */
} mcps_live_watch;

struct mcps_live_server;

/* What to fuzz and how long each wait may last. */
typedef struct mcps_live_target {
    mcps_target_config transport;    /* stdio (argv, cwd, env, guard) or Streamable HTTP (url) */
    struct mcps_live_server *server; /* --server CMD --url URL: the process behind the URL */
    const char *revision;            /* protocolVersion the prefix asks for */
    double start_timeout;            /* seconds for the initialize answer */
    double hang_timeout;             /* seconds for each liveness ping's answer */
    mcps_live_watch growth;          /* the resource-growth oracle (growth.h) */
    size_t ping_every;               /* stdio: a liveness ping after every Kth input of a
                                        sequence and after its last (0 or 1: after each) */
} mcps_live_target;

/* Whether input i of a sequence of n is followed by a liveness ping. */
bool mcps_live_pinged(const mcps_live_target *t, size_t i, size_t n);

/* One input: the bytes of one line as sent (without the newline). */
typedef struct mcps_live_input {
    char *bytes;
    size_t len;
    char *headers; /* over HTTP: JSON object text of header lines to send instead (headers.h) */
} mcps_live_input;

typedef struct mcps_live_seq {
    mcps_live_input *items;
    size_t n, cap;
} mcps_live_seq;

void mcps_live_seq_push(mcps_live_seq *q, const char *bytes, size_t len);
/* Append bytes (malloc'd, NUL-terminated at len) as an input without copying them: q owns them,
 * or they are freed when q cannot grow. */
void mcps_live_seq_adopt(mcps_live_seq *q, char *bytes, size_t len);
/* A copy of in, its headers too. */
void mcps_live_seq_push_input(mcps_live_seq *q, const mcps_live_input *in);
/* Drop the last input. */
void mcps_live_seq_pop(mcps_live_seq *q);
/* Drop the first n inputs (all, when there are fewer); how many went. */
size_t mcps_live_seq_drop_front(mcps_live_seq *q, size_t n);
void mcps_live_seq_free(mcps_live_seq *q);

/* Inputs made on demand: input(ctx, i) for i < n, valid until the next call (NULL when it cannot
 * be made). A process's whole history, remade from the seed a sequence at a time, is one: it
 * is played and minimized without ever being in memory whole. */
typedef struct mcps_live_source {
    size_t n;
    const mcps_live_input *(*input)(void *ctx, size_t i);
    void *ctx;
} mcps_live_source;

/* q's inputs as a source (q must outlive it). */
mcps_live_source mcps_live_seq_source(const mcps_live_seq *q);
/* From index *from of src's first n, the next inputs that keep marks (all, when keep is NULL),
 * copied into out (zeroed here) until it holds max; *from moves past them and past the unmarked
 * ones after them. */
void mcps_live_source_take(const mcps_live_source *src, const bool *keep, size_t n, size_t *from,
                           size_t max, mcps_live_seq *out);

typedef enum mcps_live_oracle {
    MCPS_LIVE_NONE,
    MCPS_LIVE_CRASH,      /* the target exited or was killed */
    MCPS_LIVE_HANG,       /* a liveness ping went unanswered past its deadline */
    MCPS_LIVE_SANITIZER,  /* an ASan/UBSan/MSan report on stderr */
    MCPS_LIVE_CONTRACT,   /* a request answered with a malformed response */
    MCPS_LIVE_GROWTH,     /* a local target's memory or descriptors grew over a window */
    MCPS_LIVE_DISCLOSURE, /* a response holds a file no server should serve (a traversal) */
} mcps_live_oracle;

#define MCPS_LIVE_ORACLES (MCPS_LIVE_DISCLOSURE + 1)

const char *mcps_live_oracle_name(mcps_live_oracle o);
mcps_live_oracle mcps_live_oracle_parse(const char *name);

typedef struct mcps_live_outcome {
    mcps_live_oracle oracle;
    size_t at;                  /* the input after which it fired (0-based) */
    int exit_code, term_signal; /* CRASH */
    char evidence[300];         /* the first line of evidence, for a person */
    char signature[200];        /* what deduplicates findings: oracle, signal, stderr */
    char reqs[200];             /* requirement IDs the observer cited on the target's side */
} mcps_live_outcome;

#endif
