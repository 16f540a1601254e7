/*
 * client_cases.h - the client checks (client_cases.c) as the runner sees
 * them: each watches one scenario and grades its trace.
 */
#ifndef MCPS_ENGINE_CLIENT_CASES_H
#define MCPS_ENGINE_CLIENT_CASES_H

#include "base/buf.h"
#include "engine/catalog.h"
#include "engine/client_internal.h"
#include "engine/result.h"

/* What a check decided; the runner turns it into a case result. */
typedef struct mcps_client_grade {
    mcps_rev rev; /* the revision graded on (levels come from it) */
    mcps_verdict verdict;
    const char *broken; /* the IDs broken (static), or NULL */
    mcps_buf observed;  /* what the client did */
    mcps_buf reason;    /* SKIP and ERROR: why */
} mcps_client_grade;

/* What a roots/list result breaks: "ROOTS-001" (no roots array of roots with a string uri,
 * and a string name if any), "ROOTS-002" (a uri not file://), or NULL. client_cases.c. */
const char *mcps_client_roots_broken(const cJSON *result);
/* A sampling/createMessage result's shape: a string role and model, and content (SAMP-002). */
bool mcps_client_sampling_ok(const cJSON *result);
/* Whether a sampling content type exists in revision r (SAMP-003). */
bool mcps_client_sampling_type_in(const char *type, mcps_rev r);
/* Whether the tool_use and tool_result blocks of a sampling result's content are well formed
 * (SAMP-014: a string id and name and an object input; a string toolUseId and a content
 * array); *n counts them. client_cases_sampling.c. */
bool mcps_client_tool_blocks_ok(const cJSON *result, size_t *n);
/* GEN-JSCH-001: the client's call of the 2020-12 tool (MCPS_CLIENT_SERVE_TOOL) validates
 * against t->echo_schema read as 2020-12; client_cases_modern_serve.c. */
int mcps_client_schema_2020_12(const mcps_client_trace *t, mcps_client_grade *g);
/* Whether message i of t is a request (of method, when not NULL); client_trace.c. */
bool mcps_client_request_is(const mcps_client_trace *t, size_t i, const char *method);
/* The first request (of method, when not NULL) at or after from; t->nmsgs when none. */
size_t mcps_client_find_request(const mcps_client_trace *t, size_t from, const char *method);
/* The client's tools/call whose id, as text (mcps_rpc_id_text), is id; NULL when none. */
const cJSON *mcps_client_call_with_id(const mcps_client_trace *t, const char *id);
/* The value of header name (case-insensitive) among an HTTP record's lines "Name: value\n",
 * into out; NULL when absent. */
const char *mcps_client_header_in(const char *lines, const char *name, char *out, size_t n);

/* A check's verdict (client_grade.c), each returning 0 for the check to return: PASS, INFO and
 * SKIP with what was seen (SKIP: why); broke, the IDs broken, graded FAIL, WARN or INFO by the
 * level the catalog gives them in g->rev. */
int mcps_client_pass(mcps_client_grade *g, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int mcps_client_info(mcps_client_grade *g, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int mcps_client_skip(mcps_client_grade *g, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int mcps_client_broke(mcps_client_grade *g, const char *ids, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

typedef struct mcps_client_check {
    const char *id, *title, *section, *reqs;
    mcps_client_scenario scenario;
    bool every; /* an observer: also graded on every other scenario the run plays */
    int (*grade)(const mcps_client_trace *t, mcps_client_grade *g); /* 0 */
    unsigned transports; /* MCPS_CT_*: the transports it applies to */
    bool modern;         /* a 2026-07-28 check: SKIP for a client that sent no 2026-07-28 request */
    mcps_rev_set revs;   /* the revisions it grades (over HTTP: within MCPS_CLIENT_HTTP_REVS) */
} mcps_client_check;

#define MCPS_CT_STDIO 1u
#define MCPS_CT_HTTP  2u /* Streamable HTTP ({url}) */
#define MCPS_CT_SSE   4u /* 2024-11-05's HTTP+SSE ({sse-url}) */
/* Transport-neutral: every transport (over HTTP+SSE, on the revisions it has: 2024-11-05) */
#define MCPS_CT_BOTH (MCPS_CT_STDIO | MCPS_CT_HTTP | MCPS_CT_SSE)

/* The revisions a client is tested on over Streamable HTTP ({url}): the transport came with
 * 2025-03-26 (2024-11-05's HTTP+SSE is not served). */
#define MCPS_CLIENT_HTTP_REVS                                                                      \
    (MCPS_REV_BIT(MCPS_REV_2025_03_26) | MCPS_REV_BIT(MCPS_REV_2025_06_18) |                       \
     MCPS_REV_BIT(MCPS_REV_2025_11_25) | MCPS_REV_BIT(MCPS_REV_2026_07_28))
/* ...and over HTTP+SSE ({sse-url}): the transport of 2024-11-05, graded as that revision's (a
 * client may speak a later one over it; the checks about the transport grade 2024-11-05). */
#define MCPS_CLIENT_SSE_REVS MCPS_REV_BIT(MCPS_REV_2024_11_05)

/* Check i, or NULL past the last: client_cases.c's, client_cases_http.c's,
 * client_cases_http2.c's, then client_cases_modern.c's, client_cases_tasks.c's,
 * client_cases_oddities.c's, client_cases_modern_client.c's,
 * client_cases_modern_serve.c's, client_cases_sse.c's, client_cases_sampling.c's and
 * client_cases_http3.c's. */
const mcps_client_check *mcps_client_check_at(size_t i);
/* The checks only Streamable HTTP shows (client_cases_http.c): check i of them, or NULL. */
const mcps_client_check *mcps_client_http_check_at(size_t i);
/* More checks only Streamable HTTP shows (client_cases_http2.c): check i of them, or NULL. */
const mcps_client_check *mcps_client_http2_check_at(size_t i);
/* The 2026-07-28 checks of their own scenarios (client_cases_modern.c): check i, or NULL. */
const mcps_client_check *mcps_client_modern_check_at(size_t i);
/* The tasks scenario's checks (client_cases_tasks.c, 2025-11-25): check i of them, or NULL. */
const mcps_client_check *mcps_client_tasks_check_at(size_t i);
/* The oddities scenario's checks (client_cases_oddities.c): check i of them, or NULL. */
const mcps_client_check *mcps_client_oddities_check_at(size_t i);
/* 2026-07-28's deprecated capabilities, their MRTR input requests, an unknown reserved _meta key,
 * and error ids (client_cases_modern_client.c): check i of them, or NULL. */
const mcps_client_check *mcps_client_modern_client_check_at(size_t i);
/* The 2026-07-28 checks of modern-serve and modern-drop (client_cases_modern_serve.c). */
const mcps_client_check *mcps_client_modern_serve_check_at(size_t i);
/* The checks only 2024-11-05's HTTP+SSE shows (client_cases_sse.c). */
const mcps_client_check *mcps_client_sse_check_at(size_t i);
/* The sampling scenario's further requests' checks (client_cases_sampling.c). */
const mcps_client_check *mcps_client_sampling_check_at(size_t i);
/* The modern-headers scenario's checks (client_cases_http3.c: HDR-007, HDR-014). */
const mcps_client_check *mcps_client_http3_check_at(size_t i);

#endif
