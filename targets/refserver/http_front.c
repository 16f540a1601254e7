/*
 * http_front.c - the HTTP front end's request handler: paths and methods,
 * the Origin and bearer-token gates shared by every MCP endpoint, plain
 * replies, and the metadata of --auth: protected resource (RFC 9728) and, for
 * 2025-03-26 discovery, authorization server (RFC 8414).
 */
#include "http.h"

#include "codec/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum MHD_Result rs_hreply(struct MHD_Connection *conn, unsigned status, const char *type,
                          const char *body, size_t len, const char *hname, const char *hvalue)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        body ? len : 0, (void *)(body ? body : ""), MHD_RESPMEM_MUST_COPY);
    if (!resp)
        return MHD_NO;
    if (type)
        MHD_add_response_header(resp, "Content-Type", type);
    if (hname && hvalue)
        MHD_add_response_header(resp, hname, hvalue);
    enum MHD_Result ok = MHD_queue_response(conn, status, resp);
    MHD_destroy_response(resp);
    return ok;
}

static char *error_body(int code, const char *message)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "jsonrpc", "2.0");
    cJSON *err = cJSON_AddObjectToObject(root, "error");
    cJSON_AddNumberToObject(err, "code", code);
    cJSON_AddStringToObject(err, "message", message);
    char *text = mcps_json_print(root, NULL);
    mcps_json_delete(root);
    return text;
}

enum MHD_Result rs_hreply_error(struct MHD_Connection *conn, unsigned status, int code,
                                const char *message)
{
    char *body = error_body(code, message);
    if (!body)
        return MHD_NO;
    enum MHD_Result ok =
        rs_hreply(conn, status, "application/json", body, strlen(body), NULL, NULL);
    free(body);
    return ok;
}

/* ---- gates ---- */

/* http://localhost, 127.0.0.1 or [::1] on our port: the only origins of our own pages. */
static bool origin_ok(const rs_hserver *h, const char *origin)
{
    static const char *const hosts[] = {"localhost", "127.0.0.1", "[::1]"};
    if (strncasecmp(origin, "http://", 7) != 0)
        return false;
    const char *host = origin + 7;
    for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++) {
        size_t n = strlen(hosts[i]);
        if (strncasecmp(host, hosts[i], n) != 0)
            continue;
        const char *rest = host + n;
        if (*rest == '\0')
            return h->port == 80;
        char port[16];
        snprintf(port, sizeof port, ":%u", h->port);
        if (strcmp(rest, port) == 0)
            return true;
    }
    return false;
}

static bool token_ok(const rs_hserver *h, const char *value)
{
    if (!value || strncasecmp(value, "Bearer ", 7) != 0)
        return false;
    const char *token = value + 7;
    while (*token == ' ')
        token++;
    if (rs_hfault(h, RS_FAULT_AUTH_ACCEPT_ANY_TOKEN))
        return *token != '\0';
    return strcmp(token, h->opts->auth) == 0;
}

/* A refusal before any JSON-RPC is read: a JSON-RPC error without id, except for a
 * 2026-07-28 request, where -32000 is a legacy code (RPC-CODE-002) and no code of that
 * revision fits, so plain text (as for its 405). */
static char *refusal_body(const rs_hserver *h, struct MHD_Connection *conn, const char *message,
                          const char **type)
{
    bool modern = rs_hmodern_refuses(h, conn);
    *type = modern ? "text/plain" : "application/json";
    return modern ? strdup(message) : error_body(-32000, message);
}

/* Origin (403) and, with --auth, the bearer token (401); true when the request may go on. */
static bool gate(rs_hserver *h, struct MHD_Connection *conn, enum MHD_Result *ret)
{
    const char *origin = rs_hheader(conn, "Origin");
    const char *type;
    if (origin && !rs_hfault(h, RS_FAULT_HTTP_NO_ORIGIN_CHECK) && !origin_ok(h, origin)) {
        unsigned status = rs_hfault(h, RS_FAULT_HTTP_ORIGIN_400) ? 400 : 403;
        char *body = refusal_body(h, conn, "Forbidden: Origin not allowed", &type);
        *ret = body ? rs_hreply(conn, status, type, body, strlen(body), NULL, NULL) : MHD_NO;
        free(body);
        return false;
    }
    if (h->opts->auth && !token_ok(h, rs_hheader(conn, "Authorization"))) {
        char *body = refusal_body(h, conn, "Unauthorized: a valid bearer token is required", &type);
        char challenge[192];
        const char *scope =
            rs_hfault(h, RS_FAULT_AUTH_NO_SCOPE) ? "" : "scope=\"" RS_HTTP_SCOPE "\"";
        if (rs_hfault(h, RS_FAULT_AUTH_NO_PRM_DISCOVERY))
            snprintf(challenge, sizeof challenge, "Bearer %s", scope);
        else
            snprintf(challenge, sizeof challenge,
                     "Bearer resource_metadata=\"%s/.well-known/oauth-protected-resource/mcp\"%s%s",
                     h->base, *scope ? ", " : "", scope);
        bool hide = rs_hfault(h, RS_FAULT_AUTH_NO_WWW_AUTHENTICATE);
        *ret = body ? rs_hreply(conn, 401, type, body, strlen(body),
                                hide ? NULL : "WWW-Authenticate", challenge)
                    : MHD_NO;
        free(body);
        return false;
    }
    return true;
}

static void add_strings(cJSON *obj, const char *name, const char *const *values)
{
    cJSON *arr = cJSON_AddArrayToObject(obj, name);
    for (size_t i = 0; values[i]; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(values[i]));
}

static enum MHD_Result reply_json(struct MHD_Connection *conn, unsigned status, cJSON *root)
{
    char *body = mcps_json_print(root, NULL);
    mcps_json_delete(root);
    if (!body)
        return MHD_NO;
    enum MHD_Result ok =
        rs_hreply(conn, status, "application/json", body, strlen(body), NULL, NULL);
    free(body);
    return ok;
}

/* The protected resource metadata (RFC 9728): we are our own authorization server. */
static enum MHD_Result metadata(rs_hserver *h, struct MHD_Connection *conn)
{
    char resource[96], server[96];
    snprintf(resource, sizeof resource, "%s/mcp", h->base);
    snprintf(server, sizeof server, "%s/", h->base);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "resource", resource);
    const char *servers[] = {server, NULL};
    add_strings(root, "authorization_servers",
                servers + rs_hfault(h, RS_FAULT_AUTH_PRM_NO_SERVERS));
    add_strings(root, "bearer_methods_supported", (const char *[]){"header", NULL});
    add_strings(root, "scopes_supported", (const char *[]){RS_HTTP_SCOPE, NULL});
    return reply_json(conn, 200, root);
}

/*
 * The authorization server metadata (RFC 8414) that 2025-03-26 clients discover at the
 * origin, and its two endpoints. This server issues no tokens (it accepts the one --auth
 * names), so both endpoints answer every request with an OAuth error.
 */
static enum MHD_Result as_metadata(rs_hserver *h, struct MHD_Connection *conn)
{
    char issuer[96], authorize[96], token[96];
    snprintf(issuer, sizeof issuer, "%s/", h->base);
    snprintf(authorize, sizeof authorize, "%s/authorize", h->base);
    snprintf(token, sizeof token, "%s/token", h->base);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "issuer", issuer);
    cJSON_AddStringToObject(root, "authorization_endpoint", authorize);
    cJSON_AddStringToObject(root, "token_endpoint", token);
    add_strings(root, "response_types_supported", (const char *[]){"code", NULL});
    add_strings(root, "grant_types_supported", (const char *[]){"authorization_code", NULL});
    add_strings(root, "code_challenge_methods_supported", (const char *[]){"S256", NULL});
    add_strings(root, "scopes_supported", (const char *[]){RS_HTTP_SCOPE, NULL});
    return reply_json(conn, 200, root);
}

static enum MHD_Result oauth_refusal(struct MHD_Connection *conn)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "error", "invalid_request");
    cJSON_AddStringToObject(root, "error_description",
                            "this server issues no tokens: it accepts the one it was started with");
    return reply_json(conn, 400, root);
}

/* /.well-known/oauth-authorization-server, /authorize, /token (--auth only). */
static bool oauth_route(rs_hserver *h, struct MHD_Connection *conn, const char *url,
                        enum MHD_Result *ret)
{
    if (!h->opts->auth || rs_hfault(h, RS_FAULT_AUTH_NO_AS_METADATA))
        return false;
    if (strcmp(url, "/.well-known/oauth-authorization-server") == 0)
        *ret = as_metadata(h, conn);
    else if (strcmp(url, "/authorize") == 0 || strcmp(url, "/token") == 0)
        *ret = oauth_refusal(conn);
    else
        return false;
    return true;
}

/* ---- routing by path and method ---- */

static enum MHD_Result not_allowed(struct MHD_Connection *conn, const char *allow)
{
    char *body = error_body(-32000, "Method Not Allowed");
    enum MHD_Result ok =
        body ? rs_hreply(conn, 405, "application/json", body, strlen(body), "Allow", allow)
             : MHD_NO;
    free(body);
    return ok;
}

static enum MHD_Result dispatch(rs_hserver *h, struct MHD_Connection *conn, const char *url,
                                const char *method, rs_hreq *r)
{
    bool get = strcmp(method, "GET") == 0, post = strcmp(method, "POST") == 0;
    bool del = strcmp(method, "DELETE") == 0;
    enum MHD_Result ret = MHD_NO;
    if (strcmp(url, "/mcp") == 0) {
        if (!get && !post && !del)
            return not_allowed(conn, "GET, POST, DELETE");
        if (get && rs_hfault(h, RS_FAULT_HTTP_GET_404))
            return rs_hreply_error(conn, 404, -32000, "Not Found");
        if (!gate(h, conn, &ret))
            return ret;
        return post  ? rs_hmcp_post(h, conn, r)
               : get ? rs_hmcp_get(h, conn)
                     : rs_hmcp_delete(h, conn);
    }
    if (strcmp(url, "/sse") == 0) {
        if (!get)
            return not_allowed(conn, "GET");
        return gate(h, conn, &ret) ? rs_hlegacy_get(h, conn) : ret;
    }
    if (strcmp(url, "/messages") == 0) {
        if (!post)
            return not_allowed(conn, "POST");
        return gate(h, conn, &ret) ? rs_hlegacy_post(h, conn, r) : ret;
    }
    if (h->opts->auth && !rs_hfault(h, RS_FAULT_AUTH_NO_PRM_DISCOVERY) &&
        (strcmp(url, "/.well-known/oauth-protected-resource") == 0 ||
         strcmp(url, "/.well-known/oauth-protected-resource/mcp") == 0)) {
        if (!get)
            return not_allowed(conn, "GET");
        return metadata(h, conn);
    }
    if (oauth_route(h, conn, url, &ret))
        return ret;
    return rs_hreply_error(conn, 404, -32000, "Not Found");
}

enum MHD_Result rs_hhandle(void *cls, struct MHD_Connection *conn, const char *url,
                           const char *method, const char *version, const char *upload,
                           size_t *upload_size, void **con_cls)
{
    (void)version;
    rs_hserver *h = cls;
    rs_hreq *r = *con_cls;
    if (!r) {
        /* Headers only so far: keep state for the body and the final call. */
        r = calloc(1, sizeof *r);
        *con_cls = r;
        return r ? MHD_YES : MHD_NO;
    }
    if (*upload_size) {
        if (r->body.len + *upload_size > RS_HTTP_MAX_BODY)
            r->too_big = true; /* read on, keep nothing: answered 413 at the end */
        if (!r->too_big)
            mcps_buf_append(&r->body, upload, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    if (r->wait)
        return rs_hmcp_answer(h, conn, r);
    if (r->body.oom)
        return rs_hreply_error(conn, 503, -32000, "Service Unavailable: out of memory");
    return dispatch(h, conn, url, method, r);
}

void rs_hcompleted(void *cls, struct MHD_Connection *conn, void **con_cls,
                   enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)conn;
    (void)toe;
    rs_hreq *r = *con_cls;
    if (!r)
        return;
    if (r->wait) {
        /* The client left (or the daemon stops) while its answer was awaited. */
        r->wait->conn = NULL;
        rs_hsession_drop_stream(r->wait->session, r->wait);
    }
    mcps_buf_free(&r->body);
    free(r);
    *con_cls = NULL;
}
