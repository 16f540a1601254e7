/*
 * faults_http.h - refserver faults of the HTTP front end (refserver --http):
 * Streamable HTTP, the legacy HTTP+SSE transport and authorization.
 * One X(ENUM_SUFFIX, "name", "REQUIREMENT-IDS", "one-line description") per fault;
 * faults.h joins the areas into one table. On stdio they change nothing.
 */
#ifndef RS_FAULTS_HTTP_H
#define RS_FAULTS_HTTP_H

#define RS_FAULTS_HTTP(X)                                                                          \
    X(HTTP_WRONG_CONTENT_TYPE, "http-wrong-content-type", "HTTP-011",                              \
      "answer POSTed requests with Content-Type text/plain (the body unchanged)")                  \
    X(HTTP_NOTIFICATION_200, "http-notification-200", "HTTP-009",                                  \
      "answer POSTs of only notifications or responses with 200 and the body {}, not 202 "         \
      "(2026-07-28 too)")                                                                          \
    X(HTTP_ACCEPT_INVALID, "http-accept-invalid", "HTTP-010",                                      \
      "answer a POST that is not JSON or not a JSON-RPC message with 202, not 400")                \
    X(HTTP_SESSION_ID_SPACE, "http-session-id-space", "HTTP-035",                                  \
      "issue session ids with a space in the middle (not visible ASCII)")                          \
    X(HTTP_NO_SESSION_CHECK, "http-no-session-check", "HTTP-037",                                  \
      "process requests without Mcp-Session-Id (in the newest session) instead of answering 400")  \
    X(HTTP_SESSION_SURVIVES_DELETE, "http-session-survives-delete", "HTTP-038",                    \
      "answer DELETE with 200 but keep the session working")                                       \
    X(HTTP_IGNORE_PROTOCOL_VERSION, "http-ignore-protocol-version", "HTTP-045",                    \
      "accept any MCP-Protocol-Version header value instead of answering 400 (2026-07-28: "        \
      "answer its -32022 with 200)")                                                               \
    X(HTTP_GET_404, "http-get-404", "HTTP-001 HTTP-024",                                           \
      "answer GET on the MCP endpoint with 404 instead of an SSE stream or 405")                   \
    X(HTTP_NO_ORIGIN_CHECK, "http-no-origin-check", "HTTP-002 HTTP-003 SSE-005",                   \
      "accept requests with any Origin header (no DNS-rebinding defence)")                         \
    X(HTTP_ORIGIN_400, "http-origin-400", "HTTP-003",                                              \
      "refuse a foreign Origin with 400 instead of 403")                                           \
    X(HTTP_NO_PRIMING, "http-no-priming", "HTTP-018",                                              \
      "in 2025-11-25 start SSE streams without the priming event (id, empty data)")                \
    X(HTTP_STREAM_LINGERS, "http-stream-lingers", "HTTP-016",                                      \
      "keep a POST's SSE stream open 30 s after its response instead of closing it (2026-07-28 "   \
      "too)")                                                                                      \
    X(HTTP_RESPONSE_ON_GET, "http-response-on-get", "HTTP-025",                                    \
      "send every response also on the session's open GET stream (a duplicate)")                   \
    X(SSE_ENDPOINT_NOT_FIRST, "sse-endpoint-not-first", "SSE-002",                                 \
      "open the legacy SSE stream with a log message event before the endpoint event")             \
    X(SSE_RESPONSE_IN_POST, "sse-response-in-post", "SSE-004",                                     \
      "answer legacy POSTed requests in the POST's body (200) instead of on the SSE stream")       \
    X(AUTH_NO_WWW_AUTHENTICATE, "auth-no-www-authenticate", "AUTH-007 AUTH-008",                   \
      "with --auth answer 401 without the WWW-Authenticate header")                                \
    X(AUTH_NO_PRM_DISCOVERY, "auth-no-prm-discovery", "AUTH-008 AUTH-006",                         \
      "with --auth publish the protected resource metadata nowhere: no resource_metadata in the "  \
      "401 challenge, 404 at the well-known URIs")                                                 \
    X(AUTH_ACCEPT_ANY_TOKEN, "auth-accept-any-token", "AUTH-004",                                  \
      "with --auth accept any bearer token, not only the configured one")                          \
    X(HTTP_EVENT_IDS_PER_STREAM, "http-event-ids-per-stream", "HTTP-028",                          \
      "number SSE event ids per stream (1, 2, ...), so two streams of a session reuse ids")        \
    X(HTTP_RESUME_FOREIGN, "http-resume-foreign", "HTTP-029 HTTP-032",                             \
      "on resumption with Last-Event-ID replay the events of every stream, not only that one")     \
    X(HTTP_STREAM_ENDS_EARLY, "http-stream-ends-early", "HTTP-015 HTTP-013",                       \
      "end a POST's SSE stream when its response is due, without sending the response")            \
    X(HTTP_PROGRESS_ON_GET, "http-progress-on-get", "HTTP-026",                                    \
      "send progress notifications on the GET stream, when open, not on their request's stream")   \
    X(HTTP_BROADCAST, "http-broadcast", "HTTP-027",                                                \
      "send each notification also on the GET stream, when open (on two streams at once)")         \
    X(HTTP_SESSION_ID_COUNTER, "http-session-id-counter", "HTTP-034",                              \
      "issue session ids from a counter (mcp-session-1, mcp-session-2, ...)")                      \
    X(HTTP_REQUIRE_PROTOCOL_VERSION, "http-require-protocol-version", "HTTP-044",                  \
      "from 2025-06-18 refuse a request without MCP-Protocol-Version with 400")                    \
    X(AUTH_NO_AS_METADATA, "auth-no-as-metadata", "AUTH-005",                                      \
      "with --auth serve no authorization server metadata and none of the default endpoints")      \
    X(AUTH_PRM_NO_SERVERS, "auth-prm-no-servers", "AUTH-006",                                      \
      "with --auth publish protected resource metadata with an empty authorization_servers")       \
    X(AUTH_NO_SCOPE, "auth-no-scope", "AUTH-009",                                                  \
      "with --auth give no scope parameter in the 401 challenge")                                  \
    X(HTTP_BIND_ALL, "http-bind-all", "HTTP-004 SSE-006",                                          \
      "listen on 0.0.0.0 instead of --bind (connections from other than loopback still refused)")

#endif
