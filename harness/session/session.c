/*
 * session.c - one connection to a target; see session.h.
 */
#include "session/session.h"
#include "session/session_internal.h"

#include "base/array.h"
#include "base/buf.h"
#include "codec/json.h"
#include "base/clock.h"
#include "transport/http.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_WIRE_MAX_BYTES   (48 * 1024)
#define DEFAULT_WIRE_ENTRY_BYTES 4096
#define DEFAULT_MAX_NOTES        32
#define MAX_WIRE_ENTRIES         2000
#define DEFAULT_MAX_MESSAGE      ((size_t)4 * 1024 * 1024)
#define MAX_INBOX                4096
#define INBOX_NOTE_BYTES         ((size_t)256 * 1024) /* estimated memory, for all but responses */
#define INBOX_BYTES              ((size_t)8 * 1024 * 1024) /* for responses too */
#define ALLOC_OVERHEAD           16 /* what malloc adds to each block, roughly */
#define MAX_IDS                  65536
#define ID_BLOCK                 10000000LL  /* integer ids of case N: N * ID_BLOCK +- 10^6 */
#define STDERR_WIRE_MAX          (8 * 1024)  /* of wire_max_bytes, for stderr lines */
#define HTTP_WIRE_MAX            (16 * 1024) /* of wire_max_bytes, for HTTP records */
#define WIRE_FLOOR               (4 * 1024) /* kept per session even when the run's budget is out */
#define LATE_POLLS               256        /* queued events still handled past a deadline */

const char *mcps_shape_name(mcps_shape shape)
{
    static const char *const names[] = {"other",    "request", "notification",
                                        "response", "batch",   "HTTP record"};
    return shape <= MCPS_SHAPE_HTTP ? names[shape] : "?";
}

/* ---- the wire log ----------------------------------------------------------------------- */

#define wire_add mcps_session_wire_add

/* Once per session, say in the log why entries go missing from it. */
static void note_cut(mcps_session *s, bool *noted, const char *why)
{
    if (*noted)
        return;
    *noted = true;
    wire_add(s, MCPS_WIRE_EVENT, why, strlen(why));
}

/* Room for keep more bytes: per session, stderr within that, and the run's budget. */
static bool wire_room(mcps_session *s, mcps_wire_dir dir, size_t keep)
{
    if (dir == MCPS_WIRE_EVENT)
        return true;
    if (dir == MCPS_WIRE_HTTP && s->http_bytes + keep > HTTP_WIRE_MAX) {
        note_cut(s, &s->http_cut_noted, "further HTTP records are not kept in this log");
        return false;
    }
    if (s->wire_bytes + keep > s->cfg.wire_max_bytes)
        return false;
    if (dir == MCPS_WIRE_STDERR && s->stderr_bytes + keep > STDERR_WIRE_MAX) {
        note_cut(s, &s->stderr_cut_noted, "further stderr lines are not kept in this log");
        return false;
    }
    if (s->wire_bytes + keep <= WIRE_FLOOR || mcps_guard_take_wire(s->cfg.target.guard, keep))
        return true;
    note_cut(s, &s->budget_cut_noted,
             "the run's wire log budget is used up: further entries are not kept");
    return false;
}

void mcps_session_wire_add(mcps_session *s, mcps_wire_dir dir, const char *bytes, size_t len)
{
    if (s->cfg.wire_no_messages && (dir == MCPS_WIRE_SENT || dir == MCPS_WIRE_RECEIVED))
        return;
    size_t keep = len < s->cfg.wire_entry_bytes ? len : s->cfg.wire_entry_bytes;
    if (s->nwire >= MAX_WIRE_ENTRIES || !wire_room(s, dir, keep)) {
        s->wire_dropped++;
        return;
    }
    if (!mcps_array_reserve(&s->wire, &s->cap_wire, s->nwire + 1, sizeof *s->wire, 32)) {
        s->wire_dropped++;
        return;
    }
    char *copy = malloc(keep + 1);
    if (!copy) {
        s->wire_dropped++;
        return;
    }
    memcpy(copy, bytes, keep);
    copy[keep] = '\0';
    s->wire[s->nwire++] = (mcps_wire_entry){mcps_clock_us() - s->t0_us, dir, copy, keep, len};
    s->wire_bytes += keep;
    if (dir == MCPS_WIRE_STDERR)
        s->stderr_bytes += keep;
    if (dir == MCPS_WIRE_HTTP)
        s->http_bytes += keep;
}

void mcps_session_event(mcps_session *s, const char *fmt, ...)
{
    char text[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    wire_add(s, MCPS_WIRE_EVENT, text, strlen(text));
}

/* ---- findings ------------------------------------------------------------------------------ */

static void add_note(mcps_session *s, const mcps_finding *f)
{
    if (s->nnotes >= s->cfg.max_notes) {
        s->notes_dropped++;
        return;
    }
    mcps_wire_note *notes = realloc(s->notes, (s->nnotes + 1) * sizeof *notes);
    if (!notes)
        return;
    s->notes = notes;
    mcps_buf msg = {0};
    mcps_buf_printf(&msg, "line %zu: %s", f->line, f->message);
    s->notes[s->nnotes++] = (mcps_wire_note){f->reqs ? strdup(f->reqs) : NULL, mcps_buf_take(&msg)};
}

/* Only the target's messages are judged; ours are tracked for id matching. */
static void on_finding(void *ctx, const mcps_finding *f)
{
    mcps_session *s = ctx;
    if (f->dir == MCPS_DIR_TO_SERVER)
        return;
    add_note(s, f);
    if (s->cfg.on_finding) {
        char excerpt[200] = "";
        if (s->judging)
            mcps_excerpt(s->judging, s->judging_len, excerpt, sizeof excerpt);
        s->cfg.on_finding(s->cfg.ctx, f, excerpt);
    }
}

/* ---- opening and sending ----------------------------------------------------------------------
 */

static void apply_defaults(mcps_session_config *c)
{
    if (!c->wire_max_bytes)
        c->wire_max_bytes = DEFAULT_WIRE_MAX_BYTES;
    if (!c->wire_entry_bytes)
        c->wire_entry_bytes = DEFAULT_WIRE_ENTRY_BYTES;
    if (!c->max_notes)
        c->max_notes = DEFAULT_MAX_NOTES;
    if (!c->target.max_message)
        c->target.max_message = DEFAULT_MAX_MESSAGE;
}

mcps_session *mcps_session_open(const mcps_session_config *cfg, char *err, size_t errlen)
{
    mcps_session *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    apply_defaults(&s->cfg);
    s->t0_us = mcps_clock_us();
    bool http = s->http = cfg->target.kind != MCPS_TRANSPORT_STDIO;
    s->t = http ? mcps_http_open(&s->cfg.target, err, errlen)
                : mcps_stdio_open(&s->cfg.target, err, errlen);
    if (!s->t) {
        free(s);
        return NULL;
    }
    mcps_observer_init(&s->obs, cfg->rev, s->cfg.target.max_message, on_finding, s);
    s->obs.framed = http;
    if (http)
        mcps_session_event(s, "new %s session at %s", s->t->ops->name, cfg->target.url);
    else
        mcps_session_event(s, "started %s (pid %d)", cfg->target.argv[0], mcps_stdio_pid(s->t));
    return s;
}

void mcps_session_set_rev(mcps_session *s, mcps_rev rev)
{
    mcps_observer_set_rev(&s->obs, rev);
}

/* msg: bytes parsed, or NULL; over HTTP in 2026-07-28 it gives the POST its headers. */
static bool deliver(mcps_session *s, const cJSON *msg, const char *bytes, size_t len, char *err,
                    size_t errlen)
{
    if (s->input_closed) {
        snprintf(err, errlen, "the target's input is already closed");
        return false;
    }
    s->counts.sent++;
    bool sent = s->http && mcps_session_stateless(s)
                    ? mcps_session_post_stateless(s, msg, bytes, len, err, errlen)
                    : s->t->ops->send(s->t, bytes, len, err, errlen);
    if (sent)
        return true;
    if (mcps_guard_stopped(s->cfg.target.guard))
        s->cut = true;
    mcps_session_event(s, "send failed: %s", err);
    return false;
}

/*
 * Remember what we send with an id, however broken (a request without a
 * method still deserves an answer naming its id), so the target's answer
 * pairs with it. Our own responses to the target's requests are not requests.
 */
static void track_one(mcps_session *s, const cJSON *msg)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    if (!cJSON_IsObject(msg) || !mcps_rpc_id_valid(id) || cJSON_HasObjectItem(msg, "result") ||
        cJSON_HasObjectItem(msg, "error"))
        return;
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    if (!s->pending_since_us) {
        s->pending_since_us = mcps_clock_us();
        s->pending_init = cJSON_IsString(method) && strcmp(method->valuestring, "initialize") == 0;
    }
    if (s->http && cJSON_IsString(method) && strcmp(method->valuestring, "initialize") == 0) {
        mcps_json_delete(s->init_id);
        s->init_id = cJSON_Duplicate(id, true);
    }
    mcps_rpc_info info = {.kind = MCPS_RPC_REQUEST,
                          .id = id,
                          .method = cJSON_IsString(method) ? method->valuestring : "",
                          .params = cJSON_GetObjectItemCaseSensitive(msg, "params")};
    mcps_observer_track(&s->obs, &info, MCPS_DIR_TO_SERVER, 0, 0);
}

void mcps_session_track_sent(mcps_session *s, const cJSON *msg)
{
    if (cJSON_IsArray(msg))
        for (const cJSON *item = msg->child; item; item = item->next)
            track_one(s, item);
    else
        track_one(s, msg);
}

/* ---- unique ids on a shared process ---------------------------------------------------------- */

/* The id a request of case s->case_no goes out with, or NULL to send it as written. */
static cJSON *fresh_id(const mcps_session *s, const cJSON *id)
{
    char text[400];
    if (cJSON_IsString(id)) {
        if (strlen(id->valuestring) > 300)
            return NULL;
        /* "42" stays digits ("42000007"), so a server that mistakes such ids for numbers still
         * does; the fixed width keeps two cases' ids apart. */
        const char *v = id->valuestring;
        bool digits = *v && strspn(v, "0123456789") == strlen(v);
        snprintf(text, sizeof text, digits ? "%s%06u" : "%s~%u", v, s->case_no);
        return cJSON_CreateString(text);
    }
    if (!cJSON_IsNumber(id) || !mcps_json_number_is_integer(id) || !(id->valuedouble > -1e6) ||
        !(id->valuedouble < 1e6))
        return NULL;
    snprintf(text, sizeof text, "%lld",
             (long long)id->valuedouble + (long long)s->case_no * ID_BLOCK);
    return mcps_json_create_number_text(text);
}

static bool remember_id(mcps_session *s, const cJSON *wire, const cJSON *written)
{
    if (s->nids >= MAX_IDS)
        return false;
    if (!mcps_array_reserve(&s->ids, &s->cap_ids, s->nids + 1, sizeof *s->ids, 16))
        return false;
    s->ids[s->nids++] =
        (mcps_session_id){cJSON_Duplicate(wire, true), cJSON_Duplicate(written, true), s->case_no};
    return true;
}

static const mcps_session_id *find_id(const mcps_session *s, const cJSON *id, bool by_wire)
{
    for (size_t i = s->nids; i-- > 0;)
        if (mcps_rpc_id_equal(by_wire ? s->ids[i].wire : s->ids[i].written, id) &&
            (by_wire || s->ids[i].case_no == s->case_no))
            return &s->ids[i];
    return NULL;
}

/* A request of ours (method and id) in msg, which the caller owns, gets its unique id. */
static void rewrite_request(mcps_session *s, cJSON *msg)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    if (!cJSON_IsObject(msg) || !id || !cJSON_HasObjectItem(msg, "method"))
        return;
    cJSON *wire = fresh_id(s, id);
    if (wire && remember_id(s, wire, id))
        cJSON_ReplaceItemInObjectCaseSensitive(msg, "id", wire);
    else
        mcps_json_delete(wire);
}

/* notifications/cancelled names a request of this case by the id it went out with. */
static void rewrite_cancel(mcps_session *s, cJSON *msg)
{
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    if (!cJSON_IsString(method) || strcmp(method->valuestring, "notifications/cancelled") != 0)
        return;
    const mcps_session_id *known =
        find_id(s, cJSON_GetObjectItemCaseSensitive(params, "requestId"), false);
    if (known)
        cJSON_ReplaceItemInObjectCaseSensitive(params, "requestId",
                                               cJSON_Duplicate(known->wire, true));
}

static cJSON *with_fresh_ids(mcps_session *s, const cJSON *msg)
{
    cJSON *copy = cJSON_Duplicate(msg, true);
    if (!copy)
        return NULL;
    cJSON *item = cJSON_IsArray(copy) ? copy->child : copy;
    for (; item; item = cJSON_IsArray(copy) ? item->next : NULL) {
        rewrite_request(s, item);
        rewrite_cancel(s, item);
    }
    return copy;
}

/* An answer's id back as the suite wrote it. False: it answers an earlier case's request. */
static bool restore_id(mcps_session *s, cJSON *msg)
{
    if (!cJSON_IsObject(msg) || cJSON_HasObjectItem(msg, "method"))
        return true;
    const mcps_session_id *known = find_id(s, cJSON_GetObjectItemCaseSensitive(msg, "id"), true);
    if (!known)
        return true;
    if (known->case_no != s->case_no)
        return false;
    cJSON_ReplaceItemInObjectCaseSensitive(msg, "id", cJSON_Duplicate(known->written, true));
    return true;
}

void mcps_session_begin_case(mcps_session *s, unsigned case_no, mcps_session_finding_fn fn,
                             void *ctx)
{
    s->cfg.on_finding = fn;
    s->cfg.ctx = ctx;
    s->case_no = case_no;
    if (!s->nwire) /* a later case on a shared process: its log's times count from its start */
        s->t0_us = mcps_clock_us();
    for (size_t i = 0; i < s->ninbox; i++)
        mcps_json_delete(s->inbox[i].msg);
    s->ninbox = s->inbox_bytes = s->inbox_dropped = 0;
}

static bool send_line(mcps_session *s, const cJSON *msg, char *err, size_t errlen)
{
    size_t len;
    char *line = mcps_rpc_line(msg, &len);
    if (!line) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    wire_add(s, MCPS_WIRE_SENT, line, len - 1);
    mcps_session_track_sent(s, msg);
    bool ok = deliver(s, msg, line, len, err, errlen);
    free(line);
    return ok;
}

static bool send_msg(mcps_session *s, const cJSON *msg, char *err, size_t errlen)
{
    if (!s->case_no)
        return send_line(s, msg, err, errlen);
    cJSON *copy = with_fresh_ids(s, msg);
    if (!copy) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    bool ok = send_line(s, copy, err, errlen);
    mcps_json_delete(copy);
    return ok;
}

/* 2026-07-28: each request carries its own _meta (session_stateless.c). */
bool mcps_session_send(mcps_session *s, const cJSON *msg, char *err, size_t errlen)
{
    cJSON *stamped = mcps_session_stamp(s, msg);
    bool ok = send_msg(s, stamped ? stamped : msg, err, errlen);
    mcps_json_delete(stamped);
    return ok;
}

/* Raw lines longer than this (robustness probes: 100000 levels deep, 100000 members) are not
 * parsed whole to track their id: a tree of them costs megabytes per case. */
#define RAW_TREE_MAX   ((size_t)64 * 1024)
#define RAW_MEMBER_MAX 1024

/* Log and track one raw line before it is sent: its parse (the caller's), or NULL. */
static cJSON *note_raw(mcps_session *s, const char *bytes, size_t len)
{
    size_t shown = len && bytes[len - 1] == '\n' ? len - 1 : len;
    wire_add(s, MCPS_WIRE_SENT, bytes, shown);
    cJSON *parsed = shown <= RAW_TREE_MAX ? mcps_json_parse_simple(bytes, shown)
                                          : mcps_json_parse_shallow(bytes, shown, RAW_MEMBER_MAX);
    if (parsed)
        mcps_session_track_sent(s, parsed);
    return parsed;
}

bool mcps_session_send_raw(mcps_session *s, const char *bytes, size_t len, char *err, size_t errlen)
{
    cJSON *parsed = note_raw(s, bytes, len);
    bool ok = deliver(s, parsed, bytes, len, err, errlen);
    mcps_json_delete(parsed);
    return ok;
}

bool mcps_session_send_lines(mcps_session *s, const char *bytes, const size_t *lens, size_t n,
                             char *err, size_t errlen)
{
    size_t total = 0;
    for (size_t i = 0; i < n; total += lens[i++])
        if (s->http && !mcps_session_send_raw(s, bytes + total, lens[i], err, errlen))
            return false; /* a POST each */
    if (s->http || !n)
        return true;
    for (size_t i = 0, from = 0; i < n; from += lens[i++])
        mcps_json_delete(note_raw(s, bytes + from, lens[i]));
    s->counts.sent += n - 1; /* deliver counts one */
    return deliver(s, NULL, bytes, total, err, errlen);
}

/* ---- receiving
 * ----------------------------------------------------------------------------------- */

static mcps_shape shape_of(const cJSON *msg)
{
    if (cJSON_IsArray(msg))
        return MCPS_SHAPE_BATCH;
    if (!cJSON_IsObject(msg))
        return MCPS_SHAPE_OTHER;
    if (cJSON_HasObjectItem(msg, "method"))
        return cJSON_HasObjectItem(msg, "id") ? MCPS_SHAPE_REQUEST : MCPS_SHAPE_NOTIFICATION;
    if (cJSON_HasObjectItem(msg, "result") || cJSON_HasObjectItem(msg, "error"))
        return MCPS_SHAPE_RESPONSE;
    return MCPS_SHAPE_OTHER;
}

static void count_kind(mcps_session *s, mcps_rpc_kind kind)
{
    switch (kind) {
    case MCPS_RPC_REQUEST:
        s->counts.requests++;
        break;
    case MCPS_RPC_NOTIFICATION:
        s->counts.notifications++;
        break;
    case MCPS_RPC_RESULT:
        s->counts.responses++;
        s->counts.results++;
        break;
    case MCPS_RPC_ERROR:
        s->counts.responses++;
        s->counts.errors++;
        break;
    default:
        break;
    }
}

static void enqueue(mcps_session *s, cJSON *msg, bool in_batch, size_t line)
{
    mcps_session_enqueue(s, msg, shape_of(msg), in_batch, line);
}

/* What a parsed message takes in memory, roughly: its nodes and their strings with the
 * allocator's overhead, so that a flood of small notifications counts for what it costs. */
static size_t footprint(const cJSON *j)
{
    size_t n = 0;
    for (; j; j = j->next) {
        n += sizeof *j + ALLOC_OVERHEAD;
        if (j->string && !(j->type & cJSON_StringIsConst))
            n += strlen(j->string) + 1 + ALLOC_OVERHEAD;
        if (j->valuestring && !(j->type & cJSON_IsReference))
            n += strlen(j->valuestring) + 1 + ALLOC_OVERHEAD;
        n += footprint(j->child); /* as deep as the parser's depth limit lets a message be */
    }
    return n;
}

/* Room in the inbox for one more message: responses, which steps wait for, get far more of
 * it than a target's notifications and our own HTTP records, so that a flood of those cannot
 * crowd them out, and neither can grow memory by --jobs times 4096 messages. */
static bool inbox_room(const mcps_session *s, mcps_shape shape)
{
    if (s->ninbox >= MAX_INBOX)
        return false;
    return s->inbox_bytes < (shape == MCPS_SHAPE_RESPONSE ? INBOX_BYTES : INBOX_NOTE_BYTES);
}

/* A message left out of the inbox is still logged and judged by the observer; the log says
 * that the case's steps could not see it. */
static void inbox_drop(mcps_session *s, cJSON *msg)
{
    mcps_json_delete(msg);
    if (!s->inbox_dropped++)
        mcps_session_event(s,
                           "the inbox is full (%zu messages, about %zu KiB): further messages are "
                           "logged and judged but not kept for this case's steps",
                           s->ninbox, s->inbox_bytes / 1024);
}

void mcps_session_enqueue(mcps_session *s, cJSON *msg, mcps_shape shape, bool in_batch, size_t line)
{
    if (!inbox_room(s, shape) ||
        !mcps_array_reserve(&s->inbox, &s->cap_inbox, s->ninbox + 1, sizeof *s->inbox, 16)) {
        inbox_drop(s, msg);
        return;
    }
    size_t bytes = footprint(msg);
    s->inbox_bytes += bytes;
    s->inbox[s->ninbox++] = (mcps_inmsg){
        msg, shape, in_batch, false, line, mcps_clock_us() - s->t0_us, s->request, bytes};
}

void mcps_session_inbox_shift(mcps_session *s, size_t n)
{
    n = n < s->ninbox ? n : s->ninbox;
    size_t kept = s->ninbox - n;
    for (size_t i = 0; i < n; i++) {
        s->inbox_bytes -= s->inbox[i].bytes;
        mcps_json_delete(s->inbox[i].msg);
    }
    memmove(s->inbox, s->inbox + n, kept * sizeof *s->inbox);
    s->ninbox = kept;
}

/* A client answers pings (PING-001); other requests wait for the suite to answer them. */
static void answer_ping(mcps_session *s, const cJSON *msg)
{
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    if (!cJSON_IsString(method) || strcmp(method->valuestring, "ping") != 0 || !id)
        return;
    cJSON *reply = cJSON_CreateObject();
    cJSON_AddStringToObject(reply, "jsonrpc", "2.0");
    cJSON_AddItemToObject(reply, "id", cJSON_Duplicate(id, true));
    cJSON_AddItemToObject(reply, "result", cJSON_CreateObject());
    char err[160];
    mcps_session_send(s, reply, err, sizeof err);
    cJSON_Delete(reply);
}

static void count_batch(mcps_session *s, const cJSON *batch)
{
    for (const cJSON *item = batch->child; item; item = item->next) {
        mcps_rpc_info info;
        mcps_rpc_classify_batch_item(item, s->obs.rev, &info);
        count_kind(s, info.kind);
    }
}

/* Answers on a shared process: ids as written for this case's, none of an earlier case's
 * (logged and observed already; the inbox is the case's own). False: nothing left. */
static bool restore_ids(mcps_session *s, mcps_observed *m)
{
    size_t late = 0;
    if (cJSON_IsArray(m->msg)) {
        for (cJSON *item = m->msg->child, *next; item; item = next) {
            next = item->next;
            if (!restore_id(s, item)) {
                mcps_json_delete(cJSON_DetachItemViaPointer(m->msg, item));
                late++;
            }
        }
        if (late && !m->msg->child) {
            mcps_session_event(s, "a batch of answers to an earlier case's requests: not "
                                  "part of this case");
            mcps_json_delete(m->msg);
            return false;
        }
    } else if (!restore_id(s, m->msg)) {
        mcps_session_event(s, "an answer to an earlier case's request: not part of this case");
        mcps_json_delete(m->msg);
        return false;
    }
    if (late)
        mcps_session_event(s, "%zu answer%s in this batch answered an earlier case: left out", late,
                           late == 1 ? "" : "s");
    return true;
}

/* A response, or a batch holding one: an answer of sorts to what waited. Notifications, the
 * target's own requests and oversize fragments are not: a target that sends only those has
 * answered nothing, however busy it is. */
static bool answers(const cJSON *msg)
{
    if (!cJSON_IsArray(msg))
        return shape_of(msg) == MCPS_SHAPE_RESPONSE;
    for (const cJSON *item = msg->child; item; item = item->next)
        if (shape_of(item) == MCPS_SHAPE_RESPONSE)
            return true;
    return false;
}

static void answered(mcps_session *s)
{
    if (s->pending_since_us && !s->pending_init)
        s->responsive = true;
    s->pending_since_us = 0;
}

static void receive_message(mcps_session *s, const mcps_tevent *ev)
{
    s->counts.lines++;
    wire_add(s, MCPS_WIRE_RECEIVED, ev->data, ev->len);
    s->judging = ev->data;
    s->judging_len = ev->len;
    mcps_observed m;
    bool whole = mcps_observer_line(&s->obs, MCPS_DIR_FROM_SERVER, ev->data, ev->len, ev->offset,
                                    ev->line, &m);
    s->judging = NULL;
    if (!whole)
        return;
    if (answers(m.msg))
        answered(s);
    if (s->nids && !restore_ids(s, &m))
        return;
    if (m.info.kind == MCPS_RPC_BATCH) {
        count_batch(s, m.msg);
        for (const cJSON *item = m.msg->child; item; item = item->next)
            enqueue(s, cJSON_Duplicate(item, true), true, m.line);
    } else {
        count_kind(s, m.info.kind);
        s->counts.input_required += mcps_observe_input_required(&m.info);
        s->counts.mcp_headers += mcps_observe_mcp_headers(&m.info);
        if (m.info.method && strcmp(m.info.method, "notifications/progress") == 0)
            s->counts.progress++;
        if (shape_of(m.msg) == MCPS_SHAPE_REQUEST)
            answer_ping(s, m.msg);
        if (s->http)
            mcps_session_http_answer(s, m.msg);
    }
    enqueue(s, m.msg, false, m.line);
}

static void receive_oversize(mcps_session *s, const mcps_tevent *ev)
{
    s->counts.lines++;
    wire_add(s, MCPS_WIRE_RECEIVED, ev->data, ev->len);
    mcps_observer_oversize(&s->obs, MCPS_DIR_FROM_SERVER, ev->len, ev->offset, ev->line);
}

/* Past its deadline, a wait still takes what is queued, but not for ever (a flood). */
static bool overdue(mcps_session *s, int64_t deadline_ms)
{
    if (mcps_clock_ms() < deadline_ms)
        return false;
    if (s->late_deadline != deadline_ms) {
        s->late_deadline = deadline_ms;
        s->late_polls = 0;
    }
    return ++s->late_polls > LATE_POLLS;
}

static void stopped(mcps_session *s, const mcps_tevent *ev)
{
    s->gone = true;
    s->cut = true;
    mcps_session_event(s, "run stopped: %s", ev->detail);
    snprintf(s->last_event, sizeof s->last_event, "run stopped: %.120s", ev->detail);
}

bool mcps_session_poll(mcps_session *s, int64_t deadline_ms)
{
    if (s->gone || overdue(s, deadline_ms))
        return false;
    mcps_tevent ev;
    s->t->ops->next(s->t, deadline_ms, &ev);
    switch (ev.kind) {
    case MCPS_TEV_MESSAGE:
        s->request = ev.request;
        receive_message(s, &ev);
        return true;
    case MCPS_TEV_OVERSIZE:
        receive_oversize(s, &ev);
        return true;
    case MCPS_TEV_STDERR:
        wire_add(s, MCPS_WIRE_STDERR, ev.data, ev.len);
        return true;
    case MCPS_TEV_CLOSED:
        s->stream_closed = true;
        mcps_observer_finish(&s->obs);
        mcps_session_event(s, "%s", ev.detail[0] ? ev.detail : "target closed its output");
        snprintf(s->last_event, sizeof s->last_event, "%s", ev.detail);
        return true;
    case MCPS_TEV_EXITED:
        s->exited = true;
        s->exit_code = ev.exit_code;
        s->term_signal = ev.term_signal;
        mcps_session_event(s, "%s", ev.detail);
        snprintf(s->last_event, sizeof s->last_event, "%s", ev.detail);
        return true;
    case MCPS_TEV_GONE:
        s->gone = true;
        return false;
    case MCPS_TEV_STOPPED:
        stopped(s, &ev);
        return false;
    case MCPS_TEV_HTTP:
        mcps_session_receive_http(s, &ev);
        return true;
    case MCPS_TEV_ERROR:
        if (s->http) /* one HTTP request failed; the next may not */
            return mcps_session_http_error(s, &ev);
        s->gone = true;
        mcps_session_event(s, "transport error: %s", ev.detail);
        snprintf(s->last_event, sizeof s->last_event, "transport error: %.120s", ev.detail);
        return false;
    default:
        return false;
    }
}

bool mcps_session_idle(const mcps_session *s)
{
    return s->t->ops->idle && s->t->ops->idle(s->t);
}

/* ---- ending
 * --------------------------------------------------------------------------------------- */

void mcps_session_close_input(mcps_session *s)
{
    if (s->input_closed)
        return;
    s->t->ops->close_input(s->t);
    s->input_closed = true;
    mcps_session_event(s, "closed the target's stdin");
}

static const char *shutdown_words(mcps_shutdown_how how)
{
    switch (how) {
    case MCPS_SHUT_EXITED_BEFORE:
        return "had already exited";
    case MCPS_SHUT_ON_CLOSE:
        return "exited after its stdin was closed";
    case MCPS_SHUT_SIGTERM:
        return "needed SIGTERM";
    default:
        return "ignored SIGTERM and needed SIGKILL";
    }
}

/* How long the target, still running, has sent no response since a request it never answered. */
static void measure_stall(mcps_session *s)
{
    if (s->stall_measured)
        return;
    s->stall_measured = true;
    if (s->pending_since_us && !s->exited && !s->stream_closed && !s->gone)
        s->stalled_seconds = mcps_session_idle(s)
                                 ? MCPS_STALLED_FOR_GOOD
                                 : (double)(mcps_clock_us() - s->pending_since_us) / 1e6;
}

/* A target that wrote and exited before anyone read it (a send refused: it had exited) still
 * has its last words queued: they belong in the log, before the exit. */
static void take_last_words(mcps_session *s)
{
    int64_t now = mcps_clock_ms();
    while (!s->exited && !s->gone && mcps_session_poll(s, now))
        ;
}

void mcps_session_shutdown(mcps_session *s, mcps_shutdown_report *report)
{
    measure_stall(s); /* before the shutdown ends the silence */
    mcps_shutdown_report r;
    s->t->ops->shutdown(s->t, &r);
    if (r.how == MCPS_SHUT_EXITED_BEFORE && !s->http)
        take_last_words(s);
    s->input_closed = true;
    mcps_observer_finish(&s->obs);
    mcps_session_event(s, "shutdown: target %s after %.3f s%s", shutdown_words(r.how), r.seconds,
                       r.killed_leftovers ? "; killed processes it left behind" : "");
    if (report)
        *report = r;
}

void mcps_session_take_log(mcps_session *s, mcps_wire_log *out)
{
    measure_stall(s);
    if (s->inbox_dropped > 1)
        mcps_session_event(s, "%zu messages in all were left out of the full inbox",
                           s->inbox_dropped);
    s->inbox_dropped = 0;
    *out = (mcps_wire_log){s->wire,   s->nwire, s->wire_dropped,    s->notes,
                           s->nnotes, s->cut,   s->stalled_seconds, s->responsive};
    /* A session that goes on serving cases measures the next one afresh. */
    s->stall_measured = s->responsive = false;
    s->stalled_seconds = 0;
    s->wire = NULL;
    s->nwire = s->cap_wire = s->wire_bytes = s->wire_dropped = s->stderr_bytes = 0;
    s->stderr_cut_noted = s->budget_cut_noted = false;
    s->notes = NULL;
    s->nnotes = 0;
}

void mcps_session_free(mcps_session *s)
{
    if (!s)
        return;
    s->t->ops->destroy(s->t);
    mcps_observer_free(&s->obs);
    mcps_json_delete(s->init_id);
    mcps_json_delete(s->client_caps);
    for (size_t i = 0; i < s->ninbox; i++)
        mcps_json_delete(s->inbox[i].msg);
    free(s->inbox);
    for (size_t i = 0; i < s->nwire; i++)
        free(s->wire[i].bytes);
    free(s->wire);
    for (size_t i = 0; i < s->nnotes; i++) {
        free(s->notes[i].reqs);
        free(s->notes[i].message);
    }
    free(s->notes);
    for (size_t i = 0; i < s->nids; i++) {
        mcps_json_delete(s->ids[i].wire);
        mcps_json_delete(s->ids[i].written);
    }
    free(s->ids);
    free(s);
}
