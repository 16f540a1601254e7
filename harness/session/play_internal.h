/*
 * play_internal.h - what play.c (the stdio relay side) and play_http.c (the
 * Streamable HTTP side) share.
 */
#ifndef MCPS_SESSION_PLAY_INTERNAL_H
#define MCPS_SESSION_PLAY_INTERNAL_H

#include "session/play.h"

/* Parse a message the client sent (only the small members of a long one). */
cJSON *mcps_play_parse(const char *bytes, size_t len);
mcps_tevent_kind mcps_play_http_next(mcps_play *p, int64_t deadline_ms, cJSON **msg);
bool mcps_play_http_send(mcps_play *p, const char *bytes, size_t len, bool stream);
void mcps_play_http_free(mcps_play *p);

#endif
