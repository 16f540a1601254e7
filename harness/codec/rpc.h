/*
 * rpc.h - JSON-RPC 2.0 / MCP message classification and serialization.
 *
 * Given a parsed message and the revision in force, say what it is (request,
 * notification, result, error, batch or invalid) and list every rule it
 * breaks, each with the catalog requirement IDs it violates. This judges one
 * message in isolation; rules that need the conversation (does a response id
 * match a request we sent?) belong to the session observers.
 */
#ifndef MCPS_CODEC_RPC_H
#define MCPS_CODEC_RPC_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "codec/findings.h"
#include "codec/rev.h"

typedef enum mcps_rpc_kind {
    MCPS_RPC_INVALID,
    MCPS_RPC_REQUEST,
    MCPS_RPC_NOTIFICATION,
    MCPS_RPC_RESULT,
    MCPS_RPC_ERROR,
    MCPS_RPC_BATCH,
} mcps_rpc_kind;

#define MCPS_RPC_MAX_VIOLATIONS 8

typedef struct mcps_rpc_violation {
    mcps_finding_kind kind;
    const char *reqs;  /* the kind's requirement IDs, space-separated, e.g. "RPC-RSP-002" */
    char message[160]; /* what is wrong, for a person */
} mcps_rpc_violation;

typedef struct mcps_rpc_info {
    mcps_rpc_kind kind;
    const char *method;   /* requests and notifications; NULL otherwise */
    const cJSON *id;      /* the "id" member as sent, or NULL when absent */
    const cJSON *params;  /* NULL when absent */
    const cJSON *result;  /* results only */
    const cJSON *error;   /* errors only */
    long long error_code; /* errors with an integer code */
    size_t nviolations;   /* all of them, even past MCPS_RPC_MAX_VIOLATIONS */
    mcps_rpc_violation violations[MCPS_RPC_MAX_VIOLATIONS];
} mcps_rpc_info;

/*
 * Classify msg under revision rev (MCPS_REV_NONE: skip revision-specific
 * rules). A batch gets kind MCPS_RPC_BATCH and only batch-level violations;
 * classify its elements with mcps_rpc_classify_batch_item().
 */
void mcps_rpc_classify(const cJSON *msg, mcps_rev rev, mcps_rpc_info *out);
/* Classify one element of a batch: a nested array is invalid. */
void mcps_rpc_classify_batch_item(const cJSON *item, mcps_rev rev, mcps_rpc_info *out);

const char *mcps_rpc_kind_name(mcps_rpc_kind kind);

/* True when the id is a string or a JSON integer (RPC-ID-001). */
bool mcps_rpc_id_valid(const cJSON *id);
/* Exact id comparison: same JSON type and same text ("42" is not 42, 1.0 is not 1). */
bool mcps_rpc_id_equal(const cJSON *a, const cJSON *b);
/* The id as it appears on the wire, into dst (truncated); "(none)" when NULL. */
void mcps_rpc_id_text(const cJSON *id, char *dst, size_t n);

/*
 * Serialize a message as one line for stdio framing: compact JSON with no raw
 * newline, then '\n'. Returns a malloc'd string; *len gets its length.
 */
char *mcps_rpc_line(const cJSON *msg, size_t *len);

/* Builders; each returns a new tree the caller owns. params may be NULL (omitted)
 * and is taken over by the message. id_json is the id's JSON text, e.g. "1" or "\"a\"". */
cJSON *mcps_rpc_request(const char *id_json, const char *method, cJSON *params);
cJSON *mcps_rpc_notification(const char *method, cJSON *params);

#endif
