/*
 * client_cases_http3.c - the client checks of the modern-headers scenario
 * (Streamable HTTP, 2026-07-28; client_play_headers.c): the Mcp-Name of a
 * tool whose name is not safe plain ASCII, sent as =?base64?...?= (HDR-007),
 * and what a client does when a call is refused with -32020 because the
 * tool's x-mcp-header changed: tools/list again, then the call again with
 * the new Mcp-Param-* header (HDR-014).
 *
 * A table of its own, appended by mcps_client_check_at, so that these grow
 * apart from client_cases_http.c's; verdicts go through client_grade.c.
 */
#include "engine/client_cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "codec/header.h"
#include "codec/json.h"
#include "codec/rpc.h"

#define HTTP_MODERN MCPS_REV_BIT(MCPS_REV_2026_07_28)

static const cJSON *member(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name);
}

/* A request POSTed to the 2026-07-28 endpoint (its body names a version in _meta). */
static bool modern_request(const mcps_http_seen *e, const char *method)
{
    return strcmp(e->verb, "POST") == 0 && e->meta_version[0] && e->rpc_id[0] &&
           strcmp(e->rpc, method) == 0;
}

/* ---- HDR-007: Mcp-Name of a name that is not plain ASCII ---- */

/* One named request: false once it graded a break. */
static bool name_ok(const mcps_http_seen *e, const char *want, mcps_client_grade *g)
{
    if (!e->has_mcp_name)
        return mcps_client_broke(g, "HDR-007", "%s of \"%s\" came without Mcp-Name", e->rpc,
                                 e->body_name),
               false;
    if (strcmp(e->mcp_name, want) == 0)
        return true;
    if (strcmp(e->mcp_name, e->body_name) == 0)
        return mcps_client_broke(g, "HDR-007",
                                 "%s of \"%s\" with Mcp-Name: %s, the name as is; a name that is "
                                 "not safe plain ASCII goes as %s",
                                 e->rpc, e->body_name, e->mcp_name, want),
               false;
    return mcps_client_broke(g, "HDR-007", "%s of \"%s\" with Mcp-Name: %s, not %s", e->rpc,
                             e->body_name, e->mcp_name, want),
           false;
}

static int name_encoded(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t judged = 0;
    char last[160] = "";
    for (size_t i = 0; i < t->nhttp; i++) {
        const mcps_http_seen *e = &t->http_reqs[i];
        if (!modern_request(e, "tools/call") || !mcps_header_needs_encoding(e->body_name))
            continue;
        char *want = mcps_header_encode(e->body_name);
        bool ok = want && name_ok(e, want, g);
        if (want)
            snprintf(last, sizeof last, "%s", want);
        free(want);
        if (!ok)
            return 0;
        judged++;
    }
    if (!judged)
        return mcps_client_skip(g, "the client called no tool whose name needs the "
                                   "=?base64?...?= form in Mcp-Name");
    return mcps_client_pass(g, "%zu tools/call POSTs of \"%s\", each with Mcp-Name: %s", judged,
                            MCPS_CLIENT_NAMED_TOOL, last);
}

/* ---- HDR-014: after -32020, tools/list and the call again with the new header ---- */

#define NEW_PARAM "Mcp-Param-" MCPS_CLIENT_NEW_HEADER

static int judge_retry(const mcps_client_trace *t, mcps_client_grade *g,
                       const mcps_http_seen *listed, const mcps_http_seen *retry)
{
    char buf[160], got[160];
    if (!listed)
        return mcps_client_broke(g, "HDR-014",
                                 "refused with -32020 (the tool's x-mcp-header changed), the "
                                 "client called the tool again without listing the tools first");
    const cJSON *call = mcps_client_call_with_id(t, retry->rpc_id);
    const char *text = mcps_json_scalar_text(
        member(member(member(call, "params"), "arguments"), "text"), buf, sizeof buf);
    if (!text)
        return mcps_client_info(g, "refused with -32020, the client listed the tools again and "
                                   "called the tool again without a text argument: no header due");
    const char *have = mcps_client_header_in(retry->mcp_params, NEW_PARAM, got, sizeof got);
    char *want = mcps_header_encode(text);
    if (!want)
        return mcps_client_skip(g, "out of memory");
    bool same = have && strcmp(have, want) == 0;
    if (!same)
        mcps_client_broke(g, "HDR-014",
                          "refused with -32020, the client listed the tools again (its "
                          "x-mcp-header now %s) and called the tool again with %s: %s, not %s",
                          MCPS_CLIENT_NEW_HEADER, NEW_PARAM, have ? have : "(none)", want);
    else
        mcps_client_pass(g,
                         "refused with -32020: the client listed the tools again and called "
                         "the tool again with %s: %s",
                         NEW_PARAM, have);
    free(want);
    return 0;
}

static int header_relist(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->header_changed)
        return mcps_client_skip(g, "the client called the tool without a value for its "
                                   "x-mcp-header argument (text), or not at all: no "
                                   "Mcp-Param-* header could be missing, nothing was refused");
    size_t i = 0;
    while (i < t->nhttp &&
           !(modern_request(&t->http_reqs[i], "tools/call") && t->http_reqs[i].status == 400))
        i++;
    if (i == t->nhttp)
        return mcps_client_skip(g, "the refused tools/call is not in the HTTP record");
    const mcps_http_seen *listed = NULL;
    for (i++; i < t->nhttp; i++) {
        const mcps_http_seen *e = &t->http_reqs[i];
        if (!listed && modern_request(e, "tools/list"))
            listed = e;
        if (modern_request(e, "tools/call"))
            return judge_retry(t, g, listed, e);
    }
    return mcps_client_broke(g, "HDR-014",
                             "refused with -32020 (the tool's x-mcp-header changed), the client "
                             "%s and did not call the tool again",
                             listed ? "listed the tools again" : "did not list the tools again");
}

static const mcps_client_check http3_checks[] = {
    {"client/http-name-encoded",
     "2026-07-28: a tool name that is not plain ASCII goes in Mcp-Name as =?base64?...?=",
     "basic/transports", "HDR-007", MCPS_CSC_MODERN_HEADERS, false, name_encoded, MCPS_CT_HTTP,
     true, HTTP_MODERN},
    {"client/http-header-relist",
     "2026-07-28: a call refused with -32020 after the tool's x-mcp-header changed: tools/list, "
     "then the call again with the new Mcp-Param-* header",
     "basic/transports", "HDR-014", MCPS_CSC_MODERN_HEADERS, false, header_relist, MCPS_CT_HTTP,
     true, HTTP_MODERN},
};

const mcps_client_check *mcps_client_http3_check_at(size_t i)
{
    size_t n = sizeof http3_checks / sizeof *http3_checks;
    return i < n ? &http3_checks[i] : NULL;
}
