/*
 * client_play_headers.c - what the scripted 2026-07-28 server does in the
 * modern-headers scenario (HTTP, client_internal.h), apart from
 * client_play.c's plain answers so that it grows on its own:
 *
 * - its one tool is named MCPS_CLIENT_NAMED_TOOL, non-ASCII, which Mcp-Name
 *   can carry only as =?base64?...?= (HDR-007);
 * - the tool's text argument is an x-mcp-header one (Mcp-Param-Text); the
 *   first tools/call that has a value for it is when the server changes its
 *   schema: the header becomes Mcp-Param-Word, and the call, without it, is
 *   refused with -32020 (HeaderMismatch, 400) as a validating server does.
 *   The tool list says Word from then on; later calls are served plainly, so
 *   what the client did next is in the trace (HDR-014: tools/list, then the
 *   call again with the new header). A call without a value for text could
 *   miss no header: it is served, and nothing is changed.
 */
#include "engine/client_internal.h"

#include <string.h>

static const cJSON *member(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name);
}

static void send_owned(mcps_play *play, cJSON *m)
{
    mcps_play_send(play, m);
    cJSON_Delete(m);
}

static cJSON *envelope(const cJSON *req)
{
    cJSON *m = cJSON_CreateObject();
    const cJSON *id = member(req, "id");
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
    return m;
}

static cJSON *tool_list(bool changed)
{
    cJSON *r = mcps_client_echo_tool_list(
        MCPS_CLIENT_NAMED_TOOL, changed ? MCPS_CLIENT_NEW_HEADER : MCPS_CLIENT_PARAM_HEADER);
    return mcps_client_cacheable(r, 0); /* nothing to keep: it is about to change */
}

/* -32020 for a call that came without the header the changed schema asks for (400 on HTTP). */
static cJSON *mismatch(const cJSON *req)
{
    cJSON *m = envelope(req);
    cJSON *e = cJSON_AddObjectToObject(m, "error");
    cJSON_AddNumberToObject(e, "code", -32020);
    cJSON_AddStringToObject(e, "message",
                            "Header mismatch: Mcp-Param-" MCPS_CLIENT_NEW_HEADER
                            " is missing; the tool's inputSchema changed (list the tools again)");
    return m;
}

/* Whether a tools/call has a value for the x-mcp-header argument (null counts as none). */
static bool has_text(const cJSON *req)
{
    const cJSON *text = member(member(member(req, "params"), "arguments"), "text");
    return text && !cJSON_IsNull(text);
}

bool mcps_client_headers_request(mcps_play *play, mcps_client_trace *t, const cJSON *req,
                                 const char *method)
{
    if (t->scenario != MCPS_CSC_MODERN_HEADERS)
        return false;
    cJSON *m;
    if (strcmp(method, "tools/list") == 0) {
        m = envelope(req);
        cJSON_AddItemToObject(m, "result", tool_list(t->header_changed));
    } else if (strcmp(method, "tools/call") == 0 && !t->header_changed && has_text(req)) {
        t->header_changed = true;
        t->header_changed_at = t->nmsgs;
        m = mismatch(req);
        mcps_play_event(play, "the tool's x-mcp-header is now %s: the call is refused (-32020)",
                        MCPS_CLIENT_NEW_HEADER);
    } else if (strcmp(method, "tools/call") == 0) {
        m = envelope(req);
        cJSON_AddItemToObject(m, "result", mcps_client_stamp(mcps_client_tool_result()));
    } else
        return false;
    send_owned(play, m);
    return true;
}
