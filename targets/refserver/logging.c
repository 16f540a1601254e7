/*
 * logging.c - logging/setLevel and notifications/message.
 *
 * The threshold starts at "info" (LOG-005 leaves the choice to the server):
 * every tools/call logs at "debug", so nothing is sent for it until a client
 * asks for debug; the log tool sends at any level. After setLevel only
 * messages at or above the level are sent (LOG-004).
 */
#include "server.h"

#include "codec/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const rs_level_list[RS_LOG_COUNT + 1] = {
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency", NULL,
};

bool rs_level_parse(const char *name, rs_level *out)
{
    for (int i = 0; i < RS_LOG_COUNT; i++) {
        if (name && strcmp(rs_level_list[i], name) == 0) {
            *out = (rs_level)i;
            return true;
        }
    }
    return false;
}

const char *rs_level_name(rs_level level)
{
    return rs_level_list[level];
}

void rs_logging_set_level(rs_server *s, const rs_req *req, rs_reply *r)
{
    if (rs_fault_on(s, RS_FAULT_LOGGING_UNDECLARED_SILENT)) {
        r->handled = true; /* never answered */
        return;
    }
    const char *name = rs_param_string(s, req->params, "level", true, r);
    if (r->code)
        return;
    if (rs_fault_on(s, RS_FAULT_SET_LEVEL_ERROR)) {
        rs_fail(r, RS_INTERNAL_ERROR, "Internal error");
        return;
    }
    rs_level level;
    if (!rs_level_parse(name, &level)) {
        if (rs_fault_on(s, RS_FAULT_INVALID_LEVEL_ACCEPTED))
            rs_ok(r, cJSON_CreateObject());
        else
            rs_fail(r, RS_INVALID_PARAMS, "Invalid log level");
        return;
    }
    s->log_level = level;
    rs_ok(r, cJSON_CreateObject());
    /* Say so at info, which reaches the client only when the new level lets it. */
    char text[64];
    snprintf(text, sizeof text, "log level set to %s", name);
    rs_log(s, RS_LOG_INFO, cJSON_CreateString(text));
    const char *key = getenv("REFSERVER_API_KEY");
    if (key && rs_fault_on(s, RS_FAULT_LOG_SECRET)) {
        char leak[160];
        snprintf(leak, sizeof leak, "configured with API key %.100s", key);
        rs_log(s, RS_LOG_EMERGENCY, cJSON_CreateString(leak));
    }
}

/* Send data at level if the threshold lets it through; takes data. */
void rs_log(rs_server *s, rs_level level, cJSON *data)
{
    if (level < s->log_level && !rs_fault_on(s, RS_FAULT_LOG_IGNORES_LEVEL)) {
        mcps_json_delete(data);
        return;
    }
    cJSON *params = cJSON_CreateObject();
    cJSON_AddStringToObject(
        params, "level", rs_fault_on(s, RS_FAULT_LOG_BAD_LEVEL) ? "verbose" : rs_level_name(level));
    cJSON_AddStringToObject(params, "logger", "refserver");
    if (rs_fault_on(s, RS_FAULT_LOG_NO_DATA))
        mcps_json_delete(data);
    else
        cJSON_AddItemToObject(params, "data", data);
    rs_notify(s, "notifications/message", params);
}
