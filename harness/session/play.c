/*
 * play.c - one client case's connections and wire log (play.h).
 *
 * Bounded like a server session's log: each entry is cut at 64 KiB, a case
 * keeps at most 4000 entries and 4 MiB, and past a floor every byte is taken
 * from the run's shared budget (guard.h), so a flooding client cannot make
 * the report grow without end.
 */
#include "session/play.h"
#include "session/play_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/clock.h"
#include "codec/json.h"

#define ENTRY_MAX   (64 * 1024)
#define ENTRIES_MAX 4000
#define BYTES_MAX   ((size_t)4 * 1024 * 1024)
#define BYTES_FLOOR (64 * 1024) /* kept whatever the run's budget says */
#define SEND_SECS   5.0
#define PARSE_WHOLE (64 * 1024) /* longer lines: only their small members (id, method) */
#define MEMBER_MAX  4096

void mcps_play_init(mcps_play *p, mcps_guard *guard)
{
    *p = (mcps_play){.guard = guard, .t0_us = mcps_clock_us()};
    p->conn.fd = -1;
}

bool mcps_play_connected(const mcps_play *p)
{
    return p->conn.fd >= 0;
}

void mcps_play_attach(mcps_play *p, mcps_relay_conn *c)
{
    mcps_play_hang_up(p);
    p->conn = *c;
    *c = (mcps_relay_conn){.fd = -1};
}

void mcps_play_hang_up(mcps_play *p)
{
    mcps_relay_conn_close(&p->conn);
}

static bool room(mcps_play *p, size_t keep)
{
    if (p->nwire >= ENTRIES_MAX || p->wire_bytes + keep > BYTES_MAX)
        return false;
    return p->wire_bytes + keep <= BYTES_FLOOR || !p->guard || mcps_guard_take_wire(p->guard, keep);
}

void mcps_play_log(mcps_play *p, mcps_wire_dir dir, const char *bytes, size_t len)
{
    size_t keep = len < ENTRY_MAX ? len : ENTRY_MAX;
    char *copy = NULL;
    if (!room(p, keep) ||
        !mcps_array_reserve(&p->wire, &p->cap_wire, p->nwire + 1, sizeof *p->wire, 32) ||
        !(copy = malloc(keep + 1))) {
        p->wire_dropped++;
        return;
    }
    memcpy(copy, bytes, keep);
    copy[keep] = '\0';
    p->wire_bytes += keep;
    p->wire[p->nwire++] = (mcps_wire_entry){.t_us = mcps_clock_us() - p->t0_us,
                                            .dir = dir,
                                            .bytes = copy,
                                            .len = keep,
                                            .wire_len = len};
}

void mcps_play_event(mcps_play *p, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    mcps_play_log(p, MCPS_WIRE_EVENT, text, strlen(text));
}

cJSON *mcps_play_parse(const char *bytes, size_t len)
{
    /* A long line of small tokens would cost tens of times its size as a tree. */
    return len <= PARSE_WHOLE ? mcps_json_parse_simple(bytes, len)
                              : mcps_json_parse_shallow(bytes, len, MEMBER_MAX);
}

mcps_tevent_kind mcps_play_next(mcps_play *p, int64_t deadline_ms, cJSON **msg)
{
    *msg = NULL;
    p->raw = NULL;
    p->raw_len = 0;
    if (p->http)
        return mcps_play_http_next(p, deadline_ms, msg);
    if (p->conn.fd < 0)
        return MCPS_TEV_CLOSED;
    mcps_tevent ev;
    mcps_relay_next(&p->conn, p->guard, deadline_ms, &ev);
    switch (ev.kind) {
    case MCPS_TEV_MESSAGE:
        p->received++;
        mcps_play_log(p, MCPS_WIRE_RECEIVED, ev.data, ev.len);
        *msg = mcps_play_parse(ev.data, ev.len);
        p->raw = ev.data;
        p->raw_len = ev.len;
        break;
    case MCPS_TEV_OVERSIZE:
        p->received++;
        p->raw = ev.data;
        p->raw_len = ev.len;
        mcps_play_log(p, MCPS_WIRE_RECEIVED, ev.data, ev.len);
        mcps_play_event(p, "the line above was longer than the longest message judged: cut");
        break;
    case MCPS_TEV_CLOSED:
        p->peer_gone = p->conn.peer_gone;
        mcps_play_event(p, "%s", ev.detail);
        mcps_play_hang_up(p);
        break;
    case MCPS_TEV_STOPPED:
        mcps_play_event(p, "run stopped: %s", ev.detail);
        break;
    default:
        break;
    }
    return ev.kind;
}

bool mcps_play_send_raw(mcps_play *p, const char *bytes, size_t len)
{
    mcps_play_log(p, MCPS_WIRE_SENT, bytes, len);
    if (p->http)
        return mcps_play_http_send(p, bytes, len, false);
    if (p->conn.fd < 0)
        return false;
    p->sent++;
    char nl = '\n';
    int64_t deadline = mcps_clock_deadline(SEND_SECS);
    bool ok = mcps_relay_send(&p->conn, bytes, len, deadline) &&
              mcps_relay_send(&p->conn, &nl, 1, deadline);
    if (!ok)
        mcps_play_event(p, "the message could not be delivered: the client stopped reading");
    return ok;
}

bool mcps_play_send(mcps_play *p, const cJSON *msg)
{
    size_t len;
    char *text = mcps_json_print(msg, &len);
    if (!text)
        return false;
    bool ok = mcps_play_send_raw(p, text, len);
    free(text);
    return ok;
}

bool mcps_play_send_stream(mcps_play *p, const cJSON *msg)
{
    if (!p->http)
        return mcps_play_send(p, msg);
    size_t len;
    char *text = mcps_json_print(msg, &len);
    if (!text)
        return false;
    mcps_play_log(p, MCPS_WIRE_SENT, text, len);
    bool ok = mcps_play_http_send(p, text, len, true);
    free(text);
    return ok;
}

void mcps_play_take_log(mcps_play *p, mcps_wire_log *out)
{
    *out = (mcps_wire_log){.entries = p->wire,
                           .nentries = p->nwire,
                           .dropped = p->wire_dropped,
                           .notes = p->notes,
                           .nnotes = p->nnotes};
    p->wire = NULL;
    p->notes = NULL;
    p->nwire = p->cap_wire = p->nnotes = p->cap_notes = p->wire_dropped = 0;
}

void mcps_play_free(mcps_play *p)
{
    mcps_play_hang_up(p);
    mcps_play_http_free(p);
    for (size_t i = 0; i < p->nwire; i++)
        free(p->wire[i].bytes);
    free(p->wire);
    for (size_t i = 0; i < p->nnotes; i++) {
        free(p->notes[i].reqs);
        free(p->notes[i].message);
    }
    free(p->notes);
    p->wire = NULL;
    p->notes = NULL;
    p->nwire = p->nnotes = 0;
}
