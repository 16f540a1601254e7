/*
 * play.h - the session layer's side of `mcpspec run --client`: one client
 * case, with mcpspec playing the server over relay connections
 * (transport/relay.h).
 *
 * It frames and parses what the client sends, writes what the scripted
 * server says, and keeps the case's wire log in the same records a server
 * run keeps (wirelog.h), so every report format shows client runs too. A
 * case may see several connections (a client restarting its server); the
 * log spans them all.
 */
#ifndef MCPS_SESSION_PLAY_H
#define MCPS_SESSION_PLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "session/wirelog.h"
#include "transport/relay.h"

typedef struct mcps_play {
    mcps_guard *guard; /* NULL: none */
    int64_t t0_us;
    mcps_relay_conn conn; /* the current connection; conn.fd < 0: none */
    mcps_wire_entry *wire;
    size_t nwire, cap_wire, wire_dropped, wire_bytes;
    mcps_wire_note *notes;
    size_t nnotes, cap_notes;
    size_t sent, received; /* messages, over all connections */
    bool peer_gone;        /* the last connection ended without its stdin being closed */
} mcps_play;

void mcps_play_init(mcps_play *p, mcps_guard *guard);
/* Take over an accepted connection (closing the previous one). */
void mcps_play_attach(mcps_play *p, mcps_relay_conn *c);
/* Close the current connection, if any. */
void mcps_play_hang_up(mcps_play *p);
bool mcps_play_connected(const mcps_play *p);

/*
 * The next thing the client did on the connection, waiting until deadline_ms:
 * MESSAGE (*msg the parsed JSON, owned by the caller, or NULL when the line is
 * not JSON; of a line past 64 KiB only the members of up to 4 KiB), OVERSIZE,
 * CLOSED, TIMEOUT, STOPPED. Logged either way.
 */
mcps_tevent_kind mcps_play_next(mcps_play *p, int64_t deadline_ms, cJSON **msg);
/* Send one message (or raw bytes, newline added), logged; false when it could not go. */
bool mcps_play_send(mcps_play *p, const cJSON *msg);
bool mcps_play_send_raw(mcps_play *p, const char *bytes, size_t len);

/* Add an entry to the log: the client's own output (STDERR), or an EVENT. */
void mcps_play_log(mcps_play *p, mcps_wire_dir dir, const char *bytes, size_t len);
void mcps_play_event(mcps_play *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hand the log over (p keeps none of it). */
void mcps_play_take_log(mcps_play *p, mcps_wire_log *out);
void mcps_play_free(mcps_play *p);

#endif
