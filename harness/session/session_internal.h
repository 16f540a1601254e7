/*
 * session_internal.h - what session.c shares with session_http.c, the HTTP
 * half of a session (records, suite-written requests, the version header).
 */
#ifndef MCPS_SESSION_SESSION_INTERNAL_H
#define MCPS_SESSION_SESSION_INTERNAL_H

#include "session/session.h"

void mcps_session_wire_add(mcps_session *s, mcps_wire_dir dir, const char *bytes, size_t len);
/* Queue msg (owned) for the engine; dropped once the inbox is full. */
void mcps_session_enqueue(mcps_session *s, cJSON *msg, mcps_shape shape, bool in_batch,
                          size_t line);
/* Remember the requests in msg (ours) so that answers pair with them. */
void mcps_session_track_sent(mcps_session *s, const cJSON *msg);

/* An MCPS_TEV_HTTP record: logged and queued (shape HTTP). */
void mcps_session_receive_http(mcps_session *s, const mcps_tevent *ev);
/* An MCPS_TEV_ERROR on HTTP: logged; false once the run has stopped. */
bool mcps_session_http_error(mcps_session *s, const mcps_tevent *ev);
/* A message received over HTTP: the answer to initialize settles MCP-Protocol-Version. */
void mcps_session_http_answer(mcps_session *s, const cJSON *msg);

/* 2026-07-28: POST bytes with the headers msg (bytes parsed, or NULL) calls for. */
bool mcps_session_post_stateless(mcps_session *s, const cJSON *msg, const char *bytes, size_t len,
                                 char *err, size_t errlen);

#endif
