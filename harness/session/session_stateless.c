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
 * Mcp-Method and Mcp-Name headers (HDR-*); mcps_stateless_header_values() is
 * the seam that derives the values from a stamped request, for the HTTP half
 * to set once it speaks 2026-07-28.
 */
#include "session/session.h"

#include "codec/json.h"

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
static void stamp_one(const mcps_session *s, cJSON *msg)
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
    put(meta, META_VERSION, cJSON_CreateString(mcps_rev_name(s->cfg.rev)));
    put(meta, META_CAPS,
        s->client_caps ? cJSON_Duplicate(s->client_caps, true) : cJSON_CreateObject());
    put(meta, META_INFO, client_info());
}

cJSON *mcps_session_stamp(const mcps_session *s, const cJSON *msg)
{
    if (!mcps_session_stateless(s) || !needs_stamp(msg))
        return NULL;
    cJSON *copy = cJSON_Duplicate(msg, true);
    if (!copy)
        return NULL;
    if (cJSON_IsArray(copy))
        for (cJSON *item = copy->child; item; item = item->next)
            stamp_one(s, item);
    else
        stamp_one(s, copy);
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
