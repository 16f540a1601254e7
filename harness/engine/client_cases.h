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

typedef struct mcps_client_check {
    const char *id, *title, *section, *reqs;
    mcps_client_scenario scenario;
    bool every; /* an observer: also graded on every other scenario the run plays */
    int (*grade)(const mcps_client_trace *t, mcps_client_grade *g); /* 0 */
    unsigned transports; /* MCPS_CT_*: the transports it applies to */
    bool modern;         /* a 2026-07-28 check: SKIP for a client that sent no 2026-07-28 request */
} mcps_client_check;

#define MCPS_CT_STDIO 1u
#define MCPS_CT_HTTP  2u
#define MCPS_CT_BOTH  3u

/* Check i, or NULL past the last. */
const mcps_client_check *mcps_client_check_at(size_t i);

#endif
