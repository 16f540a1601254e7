/*
 * http_modern.c - protocol revision 2026-07-28 on /mcp: no sessions, every
 * POST a request of its own.
 *
 * A POST is a 2026-07-28 one when its body's _meta names a protocol version
 * or its MCP-Protocol-Version header names no handshake-era revision (with
 * --modern-only: always); any Mcp-Session-Id is then ignored. The front end checks
 * what only HTTP shows, the standard headers against the body (HDR-002,
 * HDR-004, HDR-006, HDR-008: 400 with HeaderMismatch -32020), and the
 * Mcp-Param-* headers of a tools/call against the arguments its tool marks
 * with x-mcp-header (HDR-011, integers by value, HDR-012), and hands the
 * request to a child of its own (refserver on stdio, which judges the rest
 * the 2026-07-28 way, stateless.c) that ends once it answered: nothing
 * outlives a request (STATE-006), and no session id is ever issued
 * (HTTP-055). The answer goes as one JSON body whose status follows its error
 * code (-32601: 404, HTTP-053; the protocol errors: 400), or, when the
 * request asked for progress, as an SSE stream (status 200 then, whatever the
 * answer), which nothing but that request's messages uses (HTTP-049, HTTP-050) and which
 * no Last-Event-ID resumes (HTTP-056). GET and DELETE naming 2026-07-28 get 405 (HTTP-054).
 */
#include "http.h"
#include "tools.h"

#include "codec/json.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define META_VERSION "io.modelcontextprotocol/protocolVersion"
#define MODERN       "2026-07-28"
#define SENTINEL     "=?base64?"

static const cJSON *meta_version(const cJSON *msg)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(params, "_meta"),
                                            META_VERSION);
}

/* A version header that names no handshake-era revision (2026-07-28, or garbage a modern
 * server refuses with -32022). With a session id, only 2026-07-28 itself: a legacy session's
 * garbage version is that session's to refuse (HTTP-045), whereas a 2026-07-28 request
 * ignores any session id (HTTP-055). */
static bool modern_header(struct MHD_Connection *conn)
{
    const char *v = rs_hheader(conn, "MCP-Protocol-Version");
    if (!v)
        return false;
    mcps_rev rev = mcps_rev_parse(v);
    return rs_hheader(conn, "Mcp-Session-Id") ? rev == MCPS_REV_2026_07_28
                                              : !mcps_rev_is_handshake(rev);
}

bool rs_hmodern_wants(const rs_hserver *h, struct MHD_Connection *conn, const cJSON *msg)
{
    if (h->cfg->modern_only)
        return true;
    if (cJSON_IsArray(msg))
        return modern_header(conn);
    return meta_version(msg) != NULL || modern_header(conn);
}

bool rs_hmodern_refuses(const rs_hserver *h, struct MHD_Connection *conn)
{
    return h->cfg->modern_only || modern_header(conn);
}

enum MHD_Result rs_hmodern_not_allowed(const rs_hserver *h, struct MHD_Connection *conn)
{
    /* No JSON-RPC body: 2026-07-28 has no code for it, and -32000.. are legacy (RPC-CODE-002). */
    static const char body[] = "Method Not Allowed: 2026-07-28 has no GET stream and no sessions";
    if (rs_hfault(h, RS_FAULT_HTTP_MODERN_NO_405))
        return rs_hreply_error(conn, 400, -32000, "Bad Request: no session");
    return rs_hreply(conn, 405, "text/plain", body, sizeof body - 1, "Allow", "POST");
}

/* ---- the standard headers against the body ---- */

static int b64_digit(char c)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = c ? strchr(digits, c) : NULL;
    return p ? (int)(p - digits) : -1;
}

/* "=?base64?...?=" decoded (malloc'd), or NULL when it is not well-formed base64. */
static char *sentinel_decode(const char *v)
{
    size_t n = strlen(v), head = strlen(SENTINEL);
    if (n < head + 2 || strcmp(v + n - 2, "?=") != 0)
        return NULL;
    const char *in = v + head;
    size_t len = n - head - 2;
    if (len % 4)
        return NULL;
    char *out = malloc(len / 4 * 3 + 1);
    size_t o = 0;
    for (size_t i = 0; out && i < len; i += 4) {
        int d[4];
        for (int k = 0; k < 4; k++)
            d[k] = in[i + k] == '=' && i + 4 == len && k >= 2 ? 0 : b64_digit(in[i + k]);
        if (d[0] < 0 || d[1] < 0 || d[2] < 0 || d[3] < 0 ||
            (in[i + 2] == '=' && in[i + 3] != '=')) {
            free(out);
            return NULL;
        }
        unsigned bits =
            (unsigned)d[0] << 18 | (unsigned)d[1] << 12 | (unsigned)d[2] << 6 | (unsigned)d[3];
        out[o++] = (char)(bits >> 16);
        if (in[i + 2] != '=')
            out[o++] = (char)(bits >> 8 & 0xff);
        if (in[i + 3] != '=')
            out[o++] = (char)(bits & 0xff);
    }
    if (out)
        out[o] = '\0';
    return out;
}

static bool plain_value(const char *v)
{
    for (; *v; v++)
        if ((unsigned char)*v < 0x20 || (unsigned char)*v > 0x7e)
            return false;
    return true;
}

/* Whether the header (present) says exactly what the body does, decoded when encoded. */
static bool header_says(const rs_hserver *h, const char *header, const char *body, bool encodable)
{
    if (!plain_value(header))
        return false;
    if (!encodable || strncmp(header, SENTINEL, strlen(SENTINEL)) != 0 ||
        rs_hfault(h, RS_FAULT_HTTP_MODERN_NO_SENTINEL))
        return strcmp(header, body) == 0;
    char *decoded = sentinel_decode(header);
    bool same = decoded && strcmp(decoded, body) == 0;
    free(decoded);
    return same;
}

static const char *named_member(const char *method)
{
    if (strcmp(method, "resources/read") == 0)
        return "uri";
    return strcmp(method, "tools/call") == 0 || strcmp(method, "prompts/get") == 0 ? "name" : NULL;
}

typedef struct exact_lookup {
    const char *name;
    const char *value;
} exact_lookup;

static enum MHD_Result exact_one(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *value)
{
    (void)kind;
    exact_lookup *l = cls;
    if (strcmp(key, l->name) != 0)
        return MHD_YES;
    l->value = value;
    return MHD_NO;
}

/* A standard header, its name matched without regard to case (HDR-013, as libmicrohttpd
 * does); http-modern-header-case knows only the spelling written here. */
static const char *std_header(const rs_hserver *h, struct MHD_Connection *conn, const char *name)
{
    if (!rs_hfault(h, RS_FAULT_HTTP_MODERN_HEADER_CASE))
        return rs_hheader(conn, name);
    exact_lookup l = {name, NULL};
    MHD_get_connection_values(conn, MHD_HEADER_KIND, exact_one, &l);
    return l.value;
}

/* Why the headers do not fit the body, or NULL when they do (HDR-002, HDR-004, HDR-006). */
static const char *header_problem(const rs_hserver *h, struct MHD_Connection *conn,
                                  const cJSON *msg)
{
    const char *version = std_header(h, conn, "MCP-Protocol-Version");
    const char *method = std_header(h, conn, "Mcp-Method");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(msg, "method");
    const cJSON *v = meta_version(msg);
    bool lax = rs_hfault(h, RS_FAULT_HTTP_MODERN_NO_VERSION_HEADER);
    if (!version && !lax)
        return "the MCP-Protocol-Version header is required";
    if (!method && !lax)
        return "the Mcp-Method header is required";
    if (rs_hfault(h, RS_FAULT_HTTP_MODERN_HEADER_MISMATCH))
        return NULL;
    /* A body without a version is malformed (-32602, STATE-002): the child says so. */
    if (version && cJSON_IsString(v) && !header_says(h, version, v->valuestring, false))
        return "MCP-Protocol-Version does not match the body's _meta protocolVersion";
    if (method && !header_says(h, method, m->valuestring, false))
        return "Mcp-Method does not match the body's method";
    const char *member = named_member(m->valuestring);
    const cJSON *n = member ? cJSON_GetObjectItemCaseSensitive(
                                  cJSON_GetObjectItemCaseSensitive(msg, "params"), member)
                            : NULL;
    const char *name = rs_hheader(conn, "Mcp-Name");
    if (cJSON_IsString(n) && !name)
        return "the Mcp-Name header is required for this method";
    if (cJSON_IsString(n) && !header_says(h, name, n->valuestring, true))
        return "Mcp-Name does not match the body";
    return NULL;
}

/* ---- Mcp-Param-* against the arguments (HDR-011, HDR-012) ---- */

/* The text of a JSON number and nothing else: strtod alone would take hex, inf or nan. */
static bool number_text(const char *v)
{
    const char *p = v + (*v == '-');
    if (!isdigit((unsigned char)*p))
        return false;
    while (isdigit((unsigned char)*p))
        p++;
    if (*p == '.' && !isdigit((unsigned char)*++p))
        return false;
    while (isdigit((unsigned char)*p))
        p++;
    if (*p == 'e' || *p == 'E') {
        p += p[1] == '+' || p[1] == '-' ? 2 : 1;
        if (!isdigit((unsigned char)*p))
            return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    return *p == '\0';
}

/* Whether a (decoded) header says what the argument v does, as a client stringifies it
 * (HDR-010): strings exactly, booleans as true/false, an integer argument by value, so that
 * 42.0 is 42 (HDR-012; http-modern-param-textual compares its decimal text instead). */
static bool param_says(const rs_hserver *h, const char *text, const cJSON *v, bool integer)
{
    if (cJSON_IsString(v))
        return strcmp(text, v->valuestring) == 0;
    if (cJSON_IsBool(v))
        return strcmp(text, cJSON_IsTrue(v) ? "true" : "false") == 0;
    if (!cJSON_IsNumber(v))
        return false;
    if (integer && !rs_hfault(h, RS_FAULT_HTTP_MODERN_PARAM_TEXTUAL))
        return number_text(text) && strtod(text, NULL) == v->valuedouble;
    char decimal[40];
    snprintf(decimal, sizeof decimal, "%.17g", v->valuedouble);
    return strcmp(text, decimal) == 0;
}

/* Why one Mcp-Param header does not fit its argument v (NULL: absent or null), or NULL. A
 * header without a value in the body is one no conforming client sent: a mismatch too. */
static const char *param_problem(const rs_hserver *h, const char *header, const cJSON *v,
                                 bool integer)
{
    bool valued = v && !cJSON_IsNull(v);
    if (!valued)
        return header ? "is given, but the body has no value for its argument" : NULL;
    if (!header)
        return "is required: the body gives its argument a value";
    if (!plain_value(header))
        return "holds characters a header value may not";
    if (strncmp(header, SENTINEL, strlen(SENTINEL)) != 0 ||
        rs_hfault(h, RS_FAULT_HTTP_MODERN_NO_SENTINEL))
        return param_says(h, header, v, integer) ? NULL : "does not match the body";
    char *decoded = sentinel_decode(header);
    bool same = decoded && param_says(h, decoded, v, integer);
    free(decoded);
    return same ? NULL : "does not match the body";
}

/* The first Mcp-Param header of a tools/call that does not fit the body, described in why
 * (n bytes), or NULL. Only the tool's own annotations are recognised; a call of an unknown
 * tool has none, and the child answers it. */
static const char *params_problem(const rs_hserver *h, struct MHD_Connection *conn,
                                  const cJSON *msg, char *why, size_t n)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(msg, "method");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
    if (strcmp(m->valuestring, "tools/call") != 0 || !cJSON_IsString(name) ||
        rs_hfault(h, RS_FAULT_HTTP_MODERN_PARAM_UNCHECKED))
        return NULL;
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
    size_t count;
    const rs_mcp_header *mh = rs_tool_mcp_headers(name->valuestring, &count);
    for (size_t i = 0; i < count; i++) {
        char header[64]; /* the rows name short headers */
        snprintf(header, sizeof header, "Mcp-Param-%s", mh[i].header);
        const cJSON *v =
            cJSON_IsObject(args) ? cJSON_GetObjectItemCaseSensitive(args, mh[i].property) : NULL;
        const char *problem = param_problem(h, rs_hheader(conn, header), v, mh[i].integer);
        if (problem) {
            snprintf(why, n, "%s %s", header, problem);
            return why;
        }
    }
    return NULL;
}

/* ---- replies ---- */

static enum MHD_Result mismatch(struct MHD_Connection *conn, const cJSON *msg, const char *why)
{
    cJSON *body = cJSON_CreateObject();
    cJSON_AddStringToObject(body, "jsonrpc", "2.0");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    if (id)
        cJSON_AddItemToObject(body, "id", cJSON_Duplicate(id, true));
    cJSON *error = cJSON_AddObjectToObject(body, "error");
    cJSON_AddNumberToObject(error, "code", -32020);
    char message[160];
    snprintf(message, sizeof message, "Header mismatch: %s", why);
    cJSON_AddStringToObject(error, "message", message);
    /* A legacy client's initialize lands here on a modern-only server: name what we speak
     * (VER-006). */
    cJSON *data = cJSON_AddObjectToObject(error, "data");
    cJSON *supported = cJSON_AddArrayToObject(data, "supported");
    cJSON_AddItemToArray(supported, cJSON_CreateString(MODERN));
    size_t n;
    char *text = mcps_json_print(body, &n);
    mcps_json_delete(body);
    enum MHD_Result ret =
        text ? rs_hreply(conn, 400, "application/json", text, n, NULL, NULL) : MHD_NO;
    free(text);
    return ret;
}

/* subscriptions/listen lives on stdio only (listen.c): over HTTP its stream would need an SSE
 * response that outlives the request's child, so it stays unknown here (-32601, 404). */
static enum MHD_Result listen_unserved(struct MHD_Connection *conn, const cJSON *msg)
{
    cJSON *body = cJSON_CreateObject();
    cJSON_AddStringToObject(body, "jsonrpc", "2.0");
    cJSON_AddItemToObject(body, "id",
                          cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(msg, "id"), true));
    cJSON *error = cJSON_AddObjectToObject(body, "error");
    cJSON_AddNumberToObject(error, "code", -32601);
    cJSON_AddStringToObject(error, "message", "Method not found");
    size_t n;
    char *text = mcps_json_print(body, &n);
    mcps_json_delete(body);
    enum MHD_Result ret =
        text ? rs_hreply(conn, 404, "application/json", text, n, NULL, NULL) : MHD_NO;
    free(text);
    return ret;
}

/* The status a 2026-07-28 answer goes with: its error code decides. */
unsigned rs_hmodern_status(const rs_hserver *h, const char *answer, size_t len)
{
    cJSON *m = mcps_json_parse_simple(answer, len);
    const cJSON *code =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m, "error"), "code");
    unsigned status = 200;
    if (cJSON_IsNumber(code)) {
        int c = (int)code->valuedouble;
        if (c == -32601 && !rs_hfault(h, RS_FAULT_HTTP_MODERN_UNKNOWN_200))
            status = 404;
        else if (c == -32700 || c == -32600 || c == -32602 || c == -32020 || c == -32021 ||
                 c == -32022)
            status = 400;
        /* http-ignore-protocol-version: an unsupported version served as if it were fine. */
        if (c == -32022 && rs_hfault(h, RS_FAULT_HTTP_IGNORE_PROTOCOL_VERSION))
            status = 200;
    }
    if (status == 200 && rs_hfault(h, RS_FAULT_HTTP_MODERN_DISCOVER_202) && m &&
        !cJSON_HasObjectItem(m, "error") &&
        cJSON_HasObjectItem(cJSON_GetObjectItemCaseSensitive(m, "result"), "supportedVersions"))
        status = 202;
    mcps_json_delete(m);
    return status;
}

static bool wants_progress(const cJSON *msg)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    return cJSON_HasObjectItem(cJSON_GetObjectItemCaseSensitive(params, "_meta"), "progressToken");
}

/* The faults that put foreign messages at the head of a request's SSE stream (st): a
 * 2026-07-28 stream carries only its request's notifications (HTTP-049) and no requests of
 * the server's (HTTP-050). */
static void stream_faults(rs_hserver *h, rs_hstream *st)
{
    static const char progress[] =
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":"
        "{\"progressToken\":\"refserver-foreign-token\",\"progress\":1}}";
    static const char ping[] =
        "{\"jsonrpc\":\"2.0\",\"id\":\"refserver-ping\",\"method\":\"ping\"}";
    if (rs_hfault(h, RS_FAULT_HTTP_MODERN_FOREIGN_PROGRESS))
        rs_hstream_event(h, st, progress, sizeof progress - 1);
    if (rs_hfault(h, RS_FAULT_HTTP_MODERN_STREAM_REQUEST))
        rs_hstream_event(h, st, ping, sizeof ping - 1);
}

/* One request on a child of its own; answered as one JSON body, or on an SSE stream. */
static enum MHD_Result relay_request(rs_hserver *h, struct MHD_Connection *conn, rs_hreq *r,
                                     const cJSON *msg)
{
    rs_hsession *s = rs_hsession_new(h, false);
    if (!s)
        return rs_hreply_error(conn, 503, -32000, "Service Unavailable: too many requests");
    s->stateless = true;
    bool json = !wants_progress(msg);
    enum MHD_Result ret = rs_hmcp_relay(h, s, conn, r, msg, json);
    /* rs_hmcp_relay put a stream it opened first in the session's list. */
    if (!json && ret == MHD_YES && s->streams && s->streams->kind == RS_HS_POST)
        stream_faults(h, s->streams);
    return ret;
}

enum MHD_Result rs_hmodern_post(rs_hserver *h, struct MHD_Connection *conn, rs_hreq *r,
                                const cJSON *msg)
{
    if (cJSON_IsArray(msg))
        return rs_hreply_error(conn, 400, -32600,
                               "Invalid Request: 2026-07-28 takes one message per POST");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    if (!cJSON_IsString(method) || !cJSON_HasObjectItem(msg, "id"))
        return rs_hmcp_accepted(h, conn); /* nothing to answer */
    /* 2026-07-28 streams are not resumable: Last-Event-ID means nothing here (HTTP-056). */
    if (rs_hheader(conn, "Last-Event-ID") && rs_hfault(h, RS_FAULT_HTTP_MODERN_LAST_EVENT_ID))
        return rs_hreply_error(conn, 400, -32600, "Bad Request: cannot resume with Last-Event-ID");
    char param_why[128];
    const char *why = header_problem(h, conn, msg);
    if (!why)
        why = params_problem(h, conn, msg, param_why, sizeof param_why);
    if (why)
        return mismatch(conn, msg, why);
    if (strcmp(method->valuestring, "subscriptions/listen") == 0)
        return listen_unserved(conn, msg);
    return relay_request(h, conn, r, msg);
}
