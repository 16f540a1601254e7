/*
 * http_front.c - the HTTP front end's request handler: paths and methods,
 * the Origin and bearer-token gates shared by every MCP endpoint, plain
 * replies, and the protected resource metadata of --auth (RFC 9728).
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

/* Origin (403) and, with --auth, the bearer token (401); true when the request may go on. */
static bool gate(rs_hserver *h, struct MHD_Connection *conn, enum MHD_Result *ret)
{
    const char *origin = rs_hheader(conn, "Origin");
    if (origin && !rs_hfault(h, RS_FAULT_HTTP_NO_ORIGIN_CHECK) && !origin_ok(h, origin)) {
        unsigned status = rs_hfault(h, RS_FAULT_HTTP_ORIGIN_400) ? 400 : 403;
        *ret = rs_hreply_error(conn, status, -32000, "Forbidden: Origin not allowed");
        return false;
    }
    if (h->opts->auth && !token_ok(h, rs_hheader(conn, "Authorization"))) {
        char *body = error_body(-32000, "Unauthorized: a valid bearer token is required");
        char challenge[160];
        snprintf(challenge, sizeof challenge,
                 "Bearer resource_metadata=\"%s/.well-known/oauth-protected-resource/mcp\"",
                 h->base);
        bool hide = rs_hfault(h, RS_FAULT_AUTH_NO_WWW_AUTHENTICATE);
        *ret = body ? rs_hreply(conn, 401, "application/json", body, strlen(body),
                                hide ? NULL : "WWW-Authenticate", challenge)
                    : MHD_NO;
        free(body);
        return false;
    }
    return true;
}

static enum MHD_Result metadata(rs_hserver *h, struct MHD_Connection *conn)
{
    char resource[96], server[96];
    snprintf(resource, sizeof resource, "%s/mcp", h->base);
    snprintf(server, sizeof server, "%s/", h->base);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "resource", resource);
    cJSON *servers = cJSON_AddArrayToObject(root, "authorization_servers");
    cJSON_AddItemToArray(servers, cJSON_CreateString(server));
    cJSON *methods = cJSON_AddArrayToObject(root, "bearer_methods_supported");
    cJSON_AddItemToArray(methods, cJSON_CreateString("header"));
    char *body = mcps_json_print(root, NULL);
    mcps_json_delete(root);
    if (!body)
        return MHD_NO;
    enum MHD_Result ok = rs_hreply(conn, 200, "application/json", body, strlen(body), NULL, NULL);
    free(body);
    return ok;
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
    if (h->opts->auth && (strcmp(url, "/.well-known/oauth-protected-resource") == 0 ||
                          strcmp(url, "/.well-known/oauth-protected-resource/mcp") == 0)) {
        if (!get)
            return not_allowed(conn, "GET");
        return metadata(h, conn);
    }
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
