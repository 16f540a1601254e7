/*
 * observe_stateless.c - the passive observer's rules of protocol revision
 * 2026-07-28, where the server only answers: every result says what it is
 * (resultType), an InputRequiredResult asks the client only for what that
 * request declared, error codes stay out of the ranges the revision closed,
 * the server never sends a request of its own, and notifications are
 * request-scoped. See observe.h; the rules are graded in engine/observers.c.
 */
#include "session/observe.h"

#include <string.h>

#define META_CAPS      "io.modelcontextprotocol/clientCapabilities"
#define META_LOG_LEVEL "io.modelcontextprotocol/logLevel"
#define META_SERVER    "io.modelcontextprotocol/serverInfo"
#define LOOKBACK       256

static const cJSON *member(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

unsigned mcps_observe_request_caps(const cJSON *params, bool *log_level)
{
    const cJSON *meta = member(params, "_meta");
    const cJSON *caps = member(meta, META_CAPS);
    *log_level = member(meta, META_LOG_LEVEL) != NULL;
    const cJSON *elicitation = member(caps, "elicitation");
    unsigned out = 0;
    if (cJSON_IsObject(member(caps, "sampling")))
        out |= MCPS_OBS_CAP_SAMPLING;
    if (cJSON_IsObject(member(caps, "roots")))
        out |= MCPS_OBS_CAP_ROOTS;
    /* elicitation: {} is form mode only; {"url": {}} alone is URL mode only. */
    if (cJSON_IsObject(elicitation) &&
        (!elicitation->child || cJSON_IsObject(member(elicitation, "form"))))
        out |= MCPS_OBS_CAP_ELICITATION_FORM;
    if (cJSON_IsObject(member(elicitation, "url")))
        out |= MCPS_OBS_CAP_ELICITATION_URL;
    return out;
}

static bool is_input_required(const cJSON *result)
{
    const cJSON *type = member(result, "resultType");
    return cJSON_IsString(type) && strcmp(type->valuestring, "input_required") == 0;
}

int mcps_observe_input_required(const mcps_rpc_info *info)
{
    return info->kind == MCPS_RPC_RESULT && is_input_required(info->result);
}

/* ---- results ---- */

/* RPC-RT-004, VER-010: mcpspec advertises no extension, so only the core values are accepted. */
static void judge_result_type(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir,
                              uint64_t offset, size_t line)
{
    const cJSON *type = member(info->result, "resultType");
    if (!cJSON_IsString(type) || strcmp(type->valuestring, "complete") == 0 ||
        strcmp(type->valuestring, "input_required") == 0)
        return; /* absence is the result-object rule's (RPC-RT-001) */
    mcps_observe_report(obs, MCPS_FINDING_RESULT_TYPE_UNKNOWN, dir, offset, line,
                        "resultType \"%.60s\" is neither \"complete\" nor \"input_required\", and "
                        "the client advertised no extension",
                        type->valuestring);
}

/* The capability an input request needs, or 0 for a method MRTR does not allow. */
static unsigned needed_cap(const char *method, const cJSON *params)
{
    if (strcmp(method, "sampling/createMessage") == 0)
        return MCPS_OBS_CAP_SAMPLING;
    if (strcmp(method, "roots/list") == 0)
        return MCPS_OBS_CAP_ROOTS;
    if (strcmp(method, "elicitation/create") != 0)
        return 0;
    const cJSON *mode = member(params, "mode");
    return cJSON_IsString(mode) && strcmp(mode->valuestring, "url") == 0
               ? MCPS_OBS_CAP_ELICITATION_URL
               : MCPS_OBS_CAP_ELICITATION_FORM;
}

static void judge_input_request(mcps_observer *obs, const cJSON *entry,
                                const mcps_tracked_request *req, mcps_dir dir, uint64_t offset,
                                size_t line)
{
    const cJSON *method = member(entry, "method");
    const cJSON *params = member(entry, "params");
    unsigned need = cJSON_IsString(method) ? needed_cap(method->valuestring, params) : 0;
    if (!cJSON_IsObject(entry) || !need || (params && !cJSON_IsObject(params)) ||
        member(entry, "jsonrpc") || member(entry, "id")) {
        mcps_observe_report(obs, MCPS_FINDING_INPUT_REQUEST_SHAPE, dir, offset, line,
                            "inputRequests[\"%.40s\"] is not a {method, params} request for "
                            "elicitation/create, sampling/createMessage or roots/list (without "
                            "jsonrpc and id)",
                            entry->string ? entry->string : "");
        return;
    }
    if (req && !(req->caps & need))
        mcps_observe_report(obs, MCPS_FINDING_INPUT_REQUEST_UNDECLARED, dir, offset, line,
                            "inputRequests[\"%.40s\"] asks for %s, which the request's "
                            "clientCapabilities did not declare",
                            entry->string ? entry->string : "", method->valuestring);
}

/* MRTR-003, MRTR-004, MRTR-005, CACHE-003. */
static void judge_input_required(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir,
                                 uint64_t offset, size_t line)
{
    const cJSON *requests = member(info->result, "inputRequests");
    const cJSON *state = member(info->result, "requestState");
    if (!requests && !state)
        mcps_observe_report(obs, MCPS_FINDING_INPUT_REQUIRED_EMPTY, dir, offset, line,
                            "an InputRequiredResult with neither inputRequests nor requestState");
    if ((requests && !cJSON_IsObject(requests)) || (state && !cJSON_IsString(state)))
        mcps_observe_report(obs, MCPS_FINDING_INPUT_REQUEST_SHAPE, dir, offset, line,
                            "inputRequests is not an object, or requestState not a string");
    const mcps_tracked_request *req = mcps_observer_request_for(obs, info->id, MCPS_DIR_TO_SERVER);
    for (const cJSON *e = cJSON_IsObject(requests) ? requests->child : NULL; e; e = e->next)
        judge_input_request(obs, e, req, dir, offset, line);
    if (member(info->result, "ttlMs") || member(info->result, "cacheScope"))
        mcps_observe_report(obs, MCPS_FINDING_INPUT_REQUIRED_CACHED, dir, offset, line,
                            "an InputRequiredResult carries caching hints (ttlMs, cacheScope)");
}

/* STATE-004 (and DISC-004 for server/discover): a SHOULD, so only a warning. */
static void judge_server_info(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir,
                              uint64_t offset, size_t line)
{
    const cJSON *server = member(member(info->result, "_meta"), META_SERVER);
    if (cJSON_IsString(member(server, "name")) && cJSON_IsString(member(server, "version")))
        return;
    const mcps_tracked_request *req = mcps_observer_request_for(obs, info->id, MCPS_DIR_TO_SERVER);
    bool discover = req && strcmp(req->method, "server/discover") == 0;
    mcps_observe_report(
        obs, discover ? MCPS_FINDING_NO_SERVER_INFO_DISCOVER : MCPS_FINDING_NO_SERVER_INFO, dir,
        offset, line, "a result%s without _meta \"%s\" naming the server (name, version)",
        discover ? " of server/discover" : "", META_SERVER);
}

/* ---- errors ---- */

static void judge_error_code(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir,
                             uint64_t offset, size_t line)
{
    long long c = info->error_code;
    if (c == -32002 || c == -32042 || c < -32768 || c > -32000)
        return; /* the retired codes are RPC-CODE-004's (stateless/resource-not-found) */
    if (c <= -32020 && c >= -32099) {
        if (c < -32022)
            mcps_observe_report(obs, MCPS_FINDING_CODE_MCP_UNDEFINED, dir, offset, line,
                                "error code %lld is in MCP's range -32020..-32099 but not one it "
                                "defines (-32020, -32021, -32022)",
                                c);
    } else if (c >= -32019) {
        mcps_observe_report(obs, MCPS_FINDING_CODE_LEGACY_RANGE, dir, offset, line,
                            "error code %lld is in the legacy range -32000..-32019", c);
    } else if (c != -32700 && !(c <= -32600 && c >= -32603)) {
        mcps_observe_report(obs, MCPS_FINDING_CODE_RESERVED_BLOCK, dir, offset, line,
                            "error code %lld is in JSON-RPC's reserved block -32768..-32000 but "
                            "neither a JSON-RPC nor an MCP code",
                            c);
    }
}

/* ---- requests and notifications ---- */

/* LOG-009: some request still awaiting its answer asked for log messages. */
static bool log_level_pending(const mcps_observer *obs)
{
    size_t stop = obs->nrequests > LOOKBACK ? obs->nrequests - LOOKBACK : 0;
    for (size_t i = obs->nrequests; i-- > stop;) {
        const mcps_tracked_request *r = &obs->requests[i];
        if (r->dir == MCPS_DIR_TO_SERVER && !r->answered && r->log_level)
            return true;
    }
    return obs->tracking_full;
}

static void judge_notification(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir,
                               uint64_t offset, size_t line)
{
    if (strcmp(info->method, "notifications/message") == 0 && !log_level_pending(obs))
        mcps_observe_report(obs, MCPS_FINDING_LOG_WITHOUT_LEVEL, dir, offset, line,
                            "notifications/message while no pending request set %s",
                            META_LOG_LEVEL);
    if (strcmp(info->method, "notifications/cancelled") != 0)
        return;
    const cJSON *id = member(info->params, "requestId");
    const mcps_tracked_request *req =
        mcps_rpc_id_valid(id) ? mcps_observer_request_for(obs, id, MCPS_DIR_TO_SERVER) : NULL;
    if ((!req && obs->tracking_full) || (req && strcmp(req->method, "subscriptions/listen") == 0))
        return;
    mcps_observe_report(obs, MCPS_FINDING_CANCELLED_NOT_LISTEN, dir, offset, line,
                        "notifications/cancelled from the server for a request that is not a "
                        "subscriptions/listen");
}

void mcps_observe_stateless(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir,
                            uint64_t offset, size_t line)
{
    switch (info->kind) {
    case MCPS_RPC_RESULT:
        judge_result_type(obs, info, dir, offset, line);
        if (is_input_required(info->result))
            judge_input_required(obs, info, dir, offset, line);
        judge_server_info(obs, info, dir, offset, line);
        mcps_observe_judge_mcp_headers(obs, info, dir, offset, line);
        break;
    case MCPS_RPC_ERROR:
        judge_error_code(obs, info, dir, offset, line);
        break;
    case MCPS_RPC_REQUEST:
        if (dir == MCPS_DIR_FROM_SERVER)
            mcps_observe_report(
                obs, obs->framed ? MCPS_FINDING_SERVER_REQUEST : MCPS_FINDING_SERVER_REQUEST_STDIO,
                dir, offset, line,
                "the server sent a JSON-RPC request (%.60s); in 2026-07-28 it "
                "asks for input inside an InputRequiredResult",
                info->method);
        break;
    case MCPS_RPC_NOTIFICATION:
        judge_notification(obs, info, dir, offset, line);
        break;
    default:
        break;
    }
}
