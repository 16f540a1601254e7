/*
 * faults_stateless_http.h - refserver faults of protocol revision 2026-07-28
 * over Streamable HTTP (http_modern.c): the request headers, the status
 * codes and the absence of sessions. One X(ENUM_SUFFIX, "name",
 * "REQUIREMENT-IDS", "one-line description") per fault; faults.h joins the
 * areas into one table.
 */
#ifndef RS_FAULTS_STATELESS_HTTP_H
#define RS_FAULTS_STATELESS_HTTP_H

#define RS_FAULTS_STATELESS_HTTP(X)                                                                \
    X(HTTP_MODERN_HEADER_MISMATCH, "http-modern-header-mismatch", "HDR-002 HDR-006",               \
      "2026-07-28 over HTTP: serve a request whose MCP-Protocol-Version, Mcp-Method or Mcp-Name "  \
      "disagrees with the body")                                                                   \
    X(HTTP_MODERN_NO_VERSION_HEADER, "http-modern-no-version-header", "HDR-004 HDR-006",           \
      "2026-07-28 over HTTP: serve a request without MCP-Protocol-Version or Mcp-Method")          \
    X(HTTP_MODERN_NO_405, "http-modern-no-405", "HTTP-054",                                        \
      "2026-07-28 over HTTP: answer GET and DELETE with 400, not 405 Method Not Allowed")          \
    X(HTTP_MODERN_UNKNOWN_200, "http-modern-unknown-200", "HTTP-053",                              \
      "2026-07-28 over HTTP: answer an unknown method's -32601 with HTTP 200, not 404")            \
    X(HTTP_MODERN_SESSION_ID, "http-modern-session-id", "HTTP-055",                                \
      "2026-07-28 over HTTP: issue an Mcp-Session-Id with every answer")                           \
    X(HTTP_MODERN_DISCOVER_202, "http-modern-discover-202", "HTTP-047",                            \
      "2026-07-28 over HTTP: answer server/discover with status 202, not 200")                     \
    X(HTTP_MODERN_NO_SENTINEL, "http-modern-no-sentinel", "HDR-008",                               \
      "2026-07-28 over HTTP: compare a base64-sentinel Mcp-Name undecoded (-32020)")               \
    X(HTTP_MODERN_HEADER_CASE, "http-modern-header-case", "HDR-013",                               \
      "2026-07-28 over HTTP: know MCP-Protocol-Version and Mcp-Method only in that spelling "      \
      "(other cases of the name: missing, -32020)")                                                \
    X(HTTP_MODERN_NO_ACCEL_BUFFERING, "http-modern-no-accel-buffering", "HTTP-051",                \
      "2026-07-28 over HTTP: send SSE responses without X-Accel-Buffering: no")                    \
    X(HTTP_MODERN_LAST_EVENT_ID, "http-modern-last-event-id", "HTTP-056",                          \
      "2026-07-28 over HTTP: refuse a POST carrying Last-Event-ID with 400 (no resumption)")       \
    X(HTTP_MODERN_FOREIGN_PROGRESS, "http-modern-foreign-progress", "HTTP-049",                    \
      "2026-07-28 over HTTP: start a request's SSE stream with a progress notification for "       \
      "another progress token")                                                                    \
    X(HTTP_MODERN_STREAM_REQUEST, "http-modern-stream-request", "HTTP-050",                        \
      "2026-07-28 over HTTP: start a request's SSE stream with a ping request of the server's")    \
    X(HTTP_MODERN_PARAM_UNCHECKED, "http-modern-param-unchecked", "HDR-011",                       \
      "2026-07-28 over HTTP: serve a tools/call whose Mcp-Param headers are missing or disagree "  \
      "with the body's x-mcp-header arguments")                                                    \
    X(HTTP_MODERN_PARAM_TEXTUAL, "http-modern-param-textual", "HDR-012",                           \
      "2026-07-28 over HTTP: compare an integer Mcp-Param header with the body as text (42.0 "     \
      "is not 42: -32020)")

#endif
