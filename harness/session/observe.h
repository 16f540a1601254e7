/*
 * observe.h - the passive observer every message passes through.
 *
 * Whatever a case is testing, every line on the wire is also judged here:
 * valid UTF-8, valid JSON, a valid JSON-RPC envelope, ids of the right type,
 * responses that answer a request actually sent (same id type and value) and
 * answer it once, no request id reused, and nothing but MCP messages on a
 * stdio stream; and progress notifications that name a token the peer issued,
 * increase, and stop with the final response. `mcpspec lint` runs the same observer over a captured
 * transcript, so a live run and an offline lint agree on what is wrong.
 *
 * A line that is an incomplete JSON text is held and joined with the lines
 * after it (bounded), so a peer that pretty-prints is reported once, as a
 * message with raw newlines, instead of as a dozen broken lines.
 */
#ifndef MCPS_SESSION_OBSERVE_H
#define MCPS_SESSION_OBSERVE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "codec/findings.h"
#include "codec/json.h"
#include "codec/rev.h"
#include "codec/rpc.h"

typedef enum mcps_dir {
    MCPS_DIR_UNKNOWN,
    MCPS_DIR_TO_SERVER,   /* client -> server ("-->" in transcripts) */
    MCPS_DIR_FROM_SERVER, /* server -> client ("<--") */
} mcps_dir;

typedef struct mcps_finding {
    mcps_finding_kind kind; /* what is wrong: names the observer rule it breaks */
    const char *reqs;       /* the kind's requirement IDs, space-separated; NULL for a note */
    char message[240];      /* what is wrong, for a person */
    mcps_dir dir;           /* who sent the offending message */
    uint64_t offset;        /* byte offset of the message in its stream */
    size_t line;            /* 1-based line in its stream */
} mcps_finding;

typedef void (*mcps_finding_fn)(void *ctx, const mcps_finding *finding);

/* One message that came through whole, for the caller to act on. */
typedef struct mcps_observed {
    cJSON *msg; /* the caller owns it (mcps_json_delete) */
    mcps_rpc_info info;
    mcps_dir dir;
    uint64_t offset;
    size_t line;
    size_t last_line; /* differs from line when the message spanned lines */
} mcps_observed;

typedef struct mcps_tracked_request {
    cJSON *id;
    char *key; /* direction + exact id text: the hash key */
    mcps_dir dir;
    char method[64];
    size_t line;
    bool answered;
    cJSON *progress_token; /* params._meta.progressToken of the request, if any */
    double last_progress;  /* the last progress value reported for it */
    bool progress_seen;
    bool task_created; /* answered with a CreateTaskResult: progress goes on (PROG-010) */
    unsigned caps;     /* 2026-07-28: MCPS_OBS_CAP_* the request's _meta declared */
    bool log_level;    /* 2026-07-28: its _meta set io.modelcontextprotocol/logLevel */
    uint64_t mark;     /* the observer's mark when it was remembered */
    size_t hash;       /* of key */
} mcps_tracked_request;

/* Client capabilities a 2026-07-28 request declared, for what its InputRequiredResult may ask. */
enum {
    MCPS_OBS_CAP_SAMPLING = 1,
    MCPS_OBS_CAP_ELICITATION_FORM = 2,
    MCPS_OBS_CAP_ELICITATION_URL = 4,
    MCPS_OBS_CAP_ROOTS = 8,
};

typedef struct mcps_observer {
    mcps_rev rev;
    size_t max_message; /* longest message judged; longer ones are a finding */
    mcps_finding_fn on_finding;
    void *ctx;
    /* requests seen, for id matching and reuse; bounded by max_tracked */
    mcps_tracked_request *requests;
    size_t nrequests, cap_requests, max_tracked;
    size_t *slots; /* hash of requests by key: index + 1, 0 = empty */
    size_t nslots;
    bool tracking_full;
    uint64_t mark; /* the caller's: each request remembered keeps it (forget_answered) */
    /* resources/subscribe URIs of each side, for RES-008 (bounded) */
    char *subscribed[32];
    mcps_dir subscribed_by[32];
    size_t nsubscribed;
    /* an incomplete line waiting for its continuation (stdio; never when framed) */
    bool framed; /* each message arrives whole (an HTTP body, an SSE event): none is held */
    mcps_buf held;
    mcps_dir held_dir;
    uint64_t held_offset;
    size_t held_line, held_lines;
} mcps_observer;

void mcps_observer_init(mcps_observer *obs, mcps_rev rev, size_t max_message,
                        mcps_finding_fn on_finding, void *ctx);
void mcps_observer_free(mcps_observer *obs);
/* The revision in force changes once it is negotiated. */
void mcps_observer_set_rev(mcps_observer *obs, mcps_rev rev);
/* Forget the answered requests remembered with a mark of at most mark: a fuzz process takes
 * tens of thousands of requests, which would fill max_tracked (and stop the observer pairing
 * answers) while only those of the sequences in flight can still be answered. */
void mcps_observer_forget_answered(mcps_observer *obs, uint64_t mark);

/*
 * Judge one line as it came off the wire (without its newline). Returns true
 * and fills *out when a whole message is ready (this line, or held lines
 * joined with it). Findings go to the callback as they are found.
 */
bool mcps_observer_line(mcps_observer *obs, mcps_dir dir, const char *data, size_t len,
                        uint64_t offset, size_t line, mcps_observed *out);

/* A line longer than the limit was cut off (see mcps_framer): report it. */
void mcps_observer_oversize(mcps_observer *obs, mcps_dir dir, size_t len, uint64_t offset,
                            size_t line);

/*
 * Judge a message built or parsed elsewhere (e.g. sent by the harness, or one
 * element of a batch) for the id bookkeeping only.
 */
void mcps_observer_track(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir,
                         uint64_t offset, size_t line);

/* End of the conversation: report held lines that never completed. */
void mcps_observer_finish(mcps_observer *obs);

/* The request a response answers, or NULL; for callers that want its method. */
const mcps_tracked_request *mcps_observer_request_for(const mcps_observer *obs, const cJSON *id,
                                                      mcps_dir request_dir);

/* 2026-07-28 (observe_stateless.c): judge one whole message; a result of resultType
 * "input_required" (1) or not (0), for the count of what the input-required rule judged. */
void mcps_observe_stateless(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir,
                            uint64_t offset, size_t line);
unsigned mcps_observe_request_caps(const cJSON *params, bool *log_level);
int mcps_observe_input_required(const mcps_rpc_info *info);
/* 2026-07-28 (observe_mcp_header.c): the x-mcp-header annotations in a tools/list result, for
 * the count of what the mcp-headers rule judged; and judging them (TOOL-020, TOOL-022). */
size_t mcps_observe_mcp_headers(const mcps_rpc_info *info);
void mcps_observe_judge_mcp_headers(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir,
                                    uint64_t offset, size_t line);
/* Report a finding (observe.c), for the observer's other files. */
void mcps_observe_report(mcps_observer *obs, mcps_finding_kind kind, mcps_dir dir, uint64_t offset,
                         size_t line, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* A short, printable, quoted excerpt of raw bytes for a message: non-ASCII,
 * control bytes, quotes and backslashes become \xHH; cut to fit dst. */
void mcps_excerpt(const char *data, size_t len, char *dst, size_t n);

#endif
