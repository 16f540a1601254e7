/*
 * wirelog.h - what a session hands up when it is done: the bytes on the wire
 * (cut to the session's limits) and the observer's notes. These are the
 * session's own types, so that it reports to the engine without knowing the
 * engine's case result; the engine moves them into one (engine/result.h).
 */
#ifndef MCPS_SESSION_WIRELOG_H
#define MCPS_SESSION_WIRELOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum mcps_wire_dir {
    MCPS_WIRE_SENT,     /* harness -> target */
    MCPS_WIRE_RECEIVED, /* target -> harness, on its message stream */
    MCPS_WIRE_STDERR,   /* target's diagnostics */
    MCPS_WIRE_EVENT,    /* what happened around the bytes: started, exited, timed out */
    MCPS_WIRE_HTTP,     /* what HTTP said: status, headers, SSE framing (one JSON record) */
} mcps_wire_dir;

typedef struct mcps_wire_entry {
    int64_t t_us; /* microseconds since the session started */
    mcps_wire_dir dir;
    char *bytes;     /* as on the wire (may be invalid UTF-8), NUL-terminated, cut to a limit */
    size_t len;      /* bytes kept */
    size_t wire_len; /* bytes on the wire; > len when cut */
} mcps_wire_entry;

/* Something the observer saw (the observer checks carry the verdicts). */
typedef struct mcps_wire_note {
    char *reqs; /* requirement IDs, or NULL for a harness note */
    char *message;
} mcps_wire_note;

/* A session's log, owned by whoever took it. */
typedef struct mcps_wire_log {
    mcps_wire_entry *entries;
    size_t nentries;
    size_t dropped; /* entries not kept once the session's limit was hit */
    mcps_wire_note *notes;
    size_t nnotes;
    /* for the run's liveness judgement */
    bool cut;               /* a wait or send was cut short because the run stopped */
    double stalled_seconds; /* how long the target, still running, had not answered */
    bool responsive;        /* the target answered a request other than initialize */
} mcps_wire_log;

const char *mcps_wire_dir_name(mcps_wire_dir d); /* "sent", "received", "stderr", "event", "http" */

#endif
