/*
 * session_stateless.c - the 2026-07-28 session model: no handshake, every
 * request self-describing.
 *
 * In 2026-07-28 a server keeps no per-connection context (STATE-006), so
 * every request the client sends carries, in params._meta, the protocol
 * version and the client's capabilities (STATE-001, VER-001) and, unless
 * configured otherwise, the client's identity (STATE-003). The session adds
 * them to each request it sends when its revision is 2026-07-28, so suites
 * are written once for both eras; a key the suite already wrote is left as
 * written (to probe a mismatch), and a key the suite wrote as null is left
 * out (to probe its absence, STATE-002). Notifications and raw bytes go as
 * written.
 *
 * Over Streamable HTTP the same requests also need the MCP-Protocol-Version,
 * Mcp-Method and Mcp-Name headers (HDR-001, HDR-005), derived here from the
 * stamped request (mcps_stateless_header_lines), with a name that is not
 * plain ASCII sent as the base64 sentinel (HDR-007, codec/header.c); session_http.c
 * puts them on every POST, below whatever a suite's `--> http` wrote.
 */
#include "session/session.h"

#include "codec/header.h"
#include "codec/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define META_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CAPS    "io.modelcontextprotocol/clientCapabilities"
#define META_INFO    "io.modelcontextprotocol/clientInfo"

bool mcps_session_stateless(const mcps_session *s)
{
    return s->cfg.rev == MCPS_REV_2026_07_28;
}

void mcps_session_set_client(mcps_session *s, const cJSON *client_caps)
{
    mcps_json_delete(s->client_caps);
    s->client_caps = client_caps ? cJSON_Duplicate(client_caps, true) : NULL;
}

/* A request of ours: a method and an id, and no result or error (those are answers). */
static bool is_request(const cJSON *msg)
{
    return cJSON_IsObject(msg) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(msg, "method")) &&
           cJSON_HasObjectItem(msg, "id") && !cJSON_HasObjectItem(msg, "result") &&
           !cJSON_HasObjectItem(msg, "error");
}

static bool needs_stamp(const cJSON *msg)
{
    if (is_request(msg))
        return true;
    if (!cJSON_IsArray(msg))
        return false;
    for (const cJSON *item = msg->child; item; item = item->next)
        if (is_request(item))
            return true;
    return false;
}

/* The suite's value wins; its null means "leave the key out". */
static void put(cJSON *meta, const char *key, cJSON *value)
{
    const cJSON *written = cJSON_GetObjectItemCaseSensitive(meta, key);
    if (cJSON_IsNull(written))
        cJSON_DeleteItemFromObjectCaseSensitive(meta, key);
    if (written) {
        mcps_json_delete(value);
        return;
    }
    cJSON_AddItemToObject(meta, key, value);
}

static cJSON *client_info(void)
{
    cJSON *info = cJSON_CreateObject();
    cJSON_AddStringToObject(info, "name", "mcpspec");
    cJSON_AddStringToObject(info, "version", MCPS_VERSION);
    return info;
}

/* params and _meta that are there but not objects are a suite's probe: left alone. */
static void stamp_one(cJSON *msg, mcps_rev rev, const cJSON *caps)
{
    if (!is_request(msg))
        return;
    cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    if (!params)
        params = cJSON_AddObjectToObject(msg, "params");
    if (!cJSON_IsObject(params))
        return;
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    if (!meta)
        meta = cJSON_AddObjectToObject(params, "_meta");
    if (!cJSON_IsObject(meta))
        return;
    put(meta, META_VERSION, cJSON_CreateString(mcps_rev_name(rev)));
    put(meta, META_CAPS, caps ? cJSON_Duplicate(caps, true) : cJSON_CreateObject());
    put(meta, META_INFO, client_info());
}

void mcps_stateless_stamp(cJSON *msg, mcps_rev rev, const cJSON *caps)
{
    if (cJSON_IsArray(msg))
        for (cJSON *item = msg->child; item; item = item->next)
            stamp_one(item, rev, caps);
    else
        stamp_one(msg, rev, caps);
}

cJSON *mcps_session_stamp(const mcps_session *s, const cJSON *msg)
{
    if (!mcps_session_stateless(s) || !needs_stamp(msg))
        return NULL;
    cJSON *copy = cJSON_Duplicate(msg, true);
    if (!copy)
        return NULL;
    mcps_stateless_stamp(copy, s->cfg.rev, s->client_caps);
    return copy;
}

bool mcps_stateless_header_values(const cJSON *request, const char **version, const char **method,
                                  const char **name)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(request, "method");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(request, "params");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(params, "_meta"), META_VERSION);
    if (!cJSON_IsString(m))
        return false;
    *method = m->valuestring;
    *version = cJSON_IsString(v) ? v->valuestring : NULL;
    /* Mcp-Name: the tool or prompt named, or the resource read (HDR-005). */
    const char *key = strcmp(m->valuestring, "resources/read") == 0 ? "uri" : "name";
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(params, key);
    bool named = strcmp(m->valuestring, "tools/call") == 0 ||
                 strcmp(m->valuestring, "prompts/get") == 0 ||
                 strcmp(m->valuestring, "resources/read") == 0;
    *name = named && cJSON_IsString(n) ? n->valuestring : NULL;
    return true;
}

/* ---- the HTTP headers ------------------------------------------------------------------------ */

static char *header_line(const char *name, const char *value)
{
    if (strpbrk(value, "\r\n"))
        return NULL; /* no header can carry it; the body still shows what was meant */
    size_t n = strlen(name) + strlen(value) + 3;
    char *line = malloc(n);
    if (line)
        snprintf(line, n, "%s: %s", name, value);
    return line;
}

size_t mcps_stateless_header_lines(const mcps_session *s, const cJSON *msg,
                                   char *lines[MCPS_STATELESS_HEADERS])
{
    const char *version = NULL, *method = NULL, *name = NULL;
    size_t n = 0;
    if (!cJSON_IsObject(msg) || !mcps_stateless_header_values(msg, &version, &method, &name))
        method = name = NULL;
    /* A body without a version (a raw probe) still gets the session's: the header is the
     * transport's part, the body the suite's (STATE-002 wants "headers otherwise correct"). */
    if ((lines[n] =
             header_line("MCP-Protocol-Version", version ? version : mcps_rev_name(s->cfg.rev))))
        n++;
    if (method && (lines[n] = header_line("Mcp-Method", method)))
        n++;
    char *encoded = name ? mcps_header_encode(name) : NULL;
    if (encoded && (lines[n] = header_line("Mcp-Name", encoded)))
        n++;
    free(encoded);
    /* 2026-07-28 has no sessions: never echo an id a server issued anyway (HTTP-055). */
    if ((lines[n] = strdup("Mcp-Session-Id:")))
        n++;
    lines[n] = NULL;
    return n;
}
