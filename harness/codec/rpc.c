/*
 * rpc.c - JSON-RPC 2.0 / MCP message classification; see rpc.h.
 *
 * The rules and their requirement IDs come from ../shared/spec/requirements.md
 * (RPC-*, BATCH-*). Where the catalog records a contradiction (conflict 3:
 * parse-error ids), the lenient reading is taken and noted.
 */
#include "codec/rpc.h"

#include "codec/json.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void violate(mcps_rpc_info *out, mcps_finding_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void violate(mcps_rpc_info *out, mcps_finding_kind kind, const char *fmt, ...)
{
    if (out->nviolations < MCPS_RPC_MAX_VIOLATIONS) {
        mcps_rpc_violation *v = &out->violations[out->nviolations];
        v->kind = kind;
        v->reqs = mcps_finding_kind_reqs(kind);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(v->message, sizeof v->message, fmt, ap);
        va_end(ap);
    }
    out->nviolations++;
}

const char *mcps_rpc_kind_name(mcps_rpc_kind kind)
{
    switch (kind) {
    case MCPS_RPC_REQUEST:
        return "request";
    case MCPS_RPC_NOTIFICATION:
        return "notification";
    case MCPS_RPC_RESULT:
        return "result";
    case MCPS_RPC_ERROR:
        return "error";
    case MCPS_RPC_BATCH:
        return "batch";
    default:
        return "invalid";
    }
}

static const char *json_type_name(const cJSON *v)
{
    switch (v ? v->type & 0xFF : 0) {
    case cJSON_False:
    case cJSON_True:
        return "boolean";
    case cJSON_NULL:
        return "null";
    case cJSON_Number:
        return "number";
    case cJSON_String:
        return "string";
    case cJSON_Array:
        return "array";
    case cJSON_Object:
        return "object";
    default:
        return "nothing";
    }
}

bool mcps_rpc_id_valid(const cJSON *id)
{
    if (cJSON_IsString(id))
        return true;
    return cJSON_IsNumber(id) && mcps_json_number_is_integer(id);
}

bool mcps_rpc_id_equal(const cJSON *a, const cJSON *b)
{
    if (!a || !b)
        return a == b;
    if ((a->type & 0xFF) != (b->type & 0xFF))
        return false;
    return mcps_json_equal(a, b);
}

void mcps_rpc_id_text(const cJSON *id, char *dst, size_t n)
{
    if (!id) {
        snprintf(dst, n, "(none)");
        return;
    }
    size_t len;
    char *s = mcps_json_print(id, &len);
    if (!s) {
        snprintf(dst, n, "?");
        return;
    }
    /* Cut by hand: snprintf would walk all of a 70 KB id to count it. */
    if (n) {
        len = len < n - 1 ? len : n - 1;
        memcpy(dst, s, len);
        dst[len] = '\0';
    }
    free(s);
}

static void check_jsonrpc_member(const cJSON *msg, mcps_rpc_info *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");
    if (!v)
        violate(out, MCPS_FINDING_ENVELOPE, "no \"jsonrpc\" member");
    else if (!cJSON_IsString(v) || strcmp(v->valuestring, "2.0") != 0)
        violate(out, MCPS_FINDING_ENVELOPE, "\"jsonrpc\" is %s, not the string \"2.0\"",
                cJSON_IsString(v) ? "another string" : json_type_name(v));
}

static void check_params(mcps_rpc_info *out)
{
    if (out->params && !cJSON_IsObject(out->params))
        violate(out, MCPS_FINDING_ENVELOPE, "\"params\" is %s; MCP params are an object",
                json_type_name(out->params));
}

static void classify_call(const cJSON *msg, mcps_rpc_info *out)
{
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    if (!cJSON_IsString(method)) {
        violate(out, MCPS_FINDING_METHOD_NOT_STRING, "\"method\" is %s, not a string",
                json_type_name(method));
        return;
    }
    out->method = method->valuestring;
    if (cJSON_HasObjectItem(msg, "result") || cJSON_HasObjectItem(msg, "error")) {
        violate(out, MCPS_FINDING_ENVELOPE,
                "a message with \"method\" also carries \"result\" or \"error\"");
        return;
    }
    check_params(out);
    if (!out->id) {
        out->kind = MCPS_RPC_NOTIFICATION;
        return;
    }
    out->kind = MCPS_RPC_REQUEST;
    if (cJSON_IsNull(out->id))
        violate(out, MCPS_FINDING_REQUEST_ID_NULL, "request id is null");
    else if (!mcps_rpc_id_valid(out->id))
        violate(out, MCPS_FINDING_REQUEST_ID_TYPE, "request id is %s, not a string or an integer",
                cJSON_IsNumber(out->id) ? "a non-integer number" : json_type_name(out->id));
    if (strncmp(out->method, "notifications/", 14) == 0)
        violate(out, MCPS_FINDING_NOTIFICATION_ID, "notification \"%s\" carries an id",
                out->method);
}

/* An integer code beyond long long still is an integer; keep its sign. */
static long long clamp_code(double d)
{
    if (d >= 0x1p63)
        return LLONG_MAX;
    if (d < -0x1p63)
        return LLONG_MIN;
    return (long long)d;
}

static void check_error_object(mcps_rpc_info *out)
{
    const cJSON *err = out->error;
    if (!cJSON_IsObject(err)) {
        violate(out, MCPS_FINDING_ERROR_SHAPE, "\"error\" is %s, not an object",
                json_type_name(err));
        return;
    }
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(err, "code");
    const cJSON *message = cJSON_GetObjectItemCaseSensitive(err, "message");
    if (!cJSON_IsNumber(code) || !mcps_json_number_is_integer(code))
        violate(out, MCPS_FINDING_ERROR_SHAPE, "error \"code\" is %s, not an integer",
                cJSON_IsNumber(code) ? "a non-integer number" : json_type_name(code));
    else
        out->error_code = clamp_code(code->valuedouble);
    if (!cJSON_IsString(message))
        violate(out, MCPS_FINDING_ERROR_SHAPE, "error \"message\" is %s, not a string",
                json_type_name(message));
}

/* Parse errors cannot echo an id: null (JSON-RPC) or absent (MCP 2025-11-25+) are
 * both accepted in every revision (catalog conflict 3). */
static void check_error_id(mcps_rpc_info *out)
{
    if (!out->id || cJSON_IsNull(out->id) || mcps_rpc_id_valid(out->id))
        return;
    violate(out, MCPS_FINDING_RESPONSE_ID,
            "error response id is %s, not a string, an integer or null", json_type_name(out->id));
}

static void check_result(mcps_rpc_info *out, mcps_rev rev)
{
    if (!out->id)
        violate(out, MCPS_FINDING_RESPONSE_ID, "result response without an id");
    else if (!mcps_rpc_id_valid(out->id))
        violate(out, MCPS_FINDING_RESPONSE_ID,
                "result response id is %s, not a string or an integer",
                cJSON_IsNumber(out->id) ? "a non-integer number" : json_type_name(out->id));
    if (!cJSON_IsObject(out->result)) {
        violate(out, MCPS_FINDING_RESULT_NOT_OBJECT, "\"result\" is %s, not an object",
                json_type_name(out->result));
        return;
    }
    if (rev == MCPS_REV_2026_07_28 &&
        !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(out->result, "resultType")))
        violate(out, MCPS_FINDING_NO_RESULT_TYPE, "result has no string \"resultType\"");
}

static void classify_response(const cJSON *msg, mcps_rev rev, mcps_rpc_info *out)
{
    out->result = cJSON_GetObjectItemCaseSensitive(msg, "result");
    out->error = cJSON_GetObjectItemCaseSensitive(msg, "error");
    if (out->result && out->error) {
        violate(out, MCPS_FINDING_RESULT_AND_ERROR,
                "response carries both \"result\" and \"error\"");
        return;
    }
    if (!out->result && !out->error) {
        violate(out, MCPS_FINDING_NOT_A_MESSAGE,
                "neither a request (no \"method\") nor a response (no \"result\" or \"error\")");
        return;
    }
    if (out->result) {
        out->kind = MCPS_RPC_RESULT;
        check_result(out, rev);
    } else {
        out->kind = MCPS_RPC_ERROR;
        check_error_object(out);
        check_error_id(out);
    }
}

static void classify_object(const cJSON *msg, mcps_rev rev, mcps_rpc_info *out)
{
    check_jsonrpc_member(msg, out);
    out->id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    out->params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    if (cJSON_HasObjectItem(msg, "method"))
        classify_call(msg, out);
    else
        classify_response(msg, rev, out);
    if (out->nviolations && out->kind != MCPS_RPC_INVALID) {
        /* Keep the kind readable for reports, but a broken envelope is invalid. */
        for (size_t i = 0; i < out->nviolations && i < MCPS_RPC_MAX_VIOLATIONS; i++)
            if (mcps_finding_kind_rule(out->violations[i].kind) == MCPS_RULE_ENVELOPE)
                out->kind = MCPS_RPC_INVALID;
    }
}

static void classify_batch(const cJSON *msg, mcps_rev rev, mcps_rpc_info *out)
{
    out->kind = MCPS_RPC_BATCH;
    if (rev == MCPS_REV_2024_11_05)
        violate(out, MCPS_FINDING_BATCH_2024,
                "a JSON-RPC batch, which 2024-11-05 MCP does not have");
    else if (rev > MCPS_REV_2025_03_26)
        violate(out, MCPS_FINDING_BATCH_REMOVED,
                "a JSON-RPC batch, removed from MCP in 2025-06-18");
    /* Other revisions have no batches at all: BATCH-005/006 already say so. */
    if (!msg->child && (rev == MCPS_REV_2025_03_26 || rev == MCPS_REV_NONE))
        violate(out, MCPS_FINDING_EMPTY_BATCH, "an empty batch array");
}

static void reset(mcps_rpc_info *out)
{
    memset(out, 0, offsetof(mcps_rpc_info, violations));
}

void mcps_rpc_classify(const cJSON *msg, mcps_rev rev, mcps_rpc_info *out)
{
    reset(out);
    if (cJSON_IsArray(msg))
        classify_batch(msg, rev, out);
    else if (cJSON_IsObject(msg))
        classify_object(msg, rev, out);
    else
        violate(out, MCPS_FINDING_ENVELOPE, "message is %s, not an object", json_type_name(msg));
}

void mcps_rpc_classify_batch_item(const cJSON *item, mcps_rev rev, mcps_rpc_info *out)
{
    reset(out);
    if (cJSON_IsObject(item))
        classify_object(item, rev, out);
    else
        violate(out, MCPS_FINDING_ENVELOPE, "batch element is %s, not an object",
                json_type_name(item));
}

char *mcps_rpc_line(const cJSON *msg, size_t *len)
{
    size_t n;
    char *s = mcps_json_print(msg, &n);
    if (!s)
        return NULL;
    char *line = realloc(s, n + 2);
    if (!line) {
        free(s);
        return NULL;
    }
    line[n] = '\n';
    line[n + 1] = '\0';
    if (len)
        *len = n + 1;
    return line;
}

static cJSON *envelope(void)
{
    cJSON *m = cJSON_CreateObject();
    if (m)
        cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    return m;
}

cJSON *mcps_rpc_request(const char *id_json, const char *method, cJSON *params)
{
    cJSON *m = envelope();
    cJSON *id = mcps_json_parse_simple(id_json, strlen(id_json));
    if (!m || !id) {
        cJSON_Delete(m);
        cJSON_Delete(id);
        cJSON_Delete(params);
        return NULL;
    }
    cJSON_AddItemToObject(m, "id", id);
    cJSON_AddStringToObject(m, "method", method);
    if (params)
        cJSON_AddItemToObject(m, "params", params);
    return m;
}

cJSON *mcps_rpc_notification(const char *method, cJSON *params)
{
    cJSON *m = envelope();
    if (!m) {
        cJSON_Delete(params);
        return NULL;
    }
    cJSON_AddStringToObject(m, "method", method);
    if (params)
        cJSON_AddItemToObject(m, "params", params);
    return m;
}
