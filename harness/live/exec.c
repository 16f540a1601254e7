/*
 * exec.c - one execution: a fresh process, the prefix, the inputs each
 * followed by a ping, then the oracles (crash, hang, sanitizer report,
 * malformed response, a file disclosed). Every wait has a deadline; the
 * process is always reaped (mcps_session_free).
 */
#include "live/exec.h"

#include "base/clock.h"
#include "codec/json.h"
#include "live/growth.h"
#include "live/oracle.h"
#include "live/server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define INIT_ID        "live-init"
#define WIRE_KEEP      (256 * 1024) /* per execution: enough for every stderr line we judge */
#define DRAIN_EXIT_MS  2000         /* after an exit, for the rest of stderr (a sanitizer report) */
#define SHUTDOWN_GRACE 0.5
/* HTTP: how long an input's exchange may take before its ping goes, and how long a server
 * that answered a ping's POST may still take to die of it. */
#define SETTLE_MS         100
#define ANSWERED_DEATH_MS 250
#define PLAY_PART         MCPS_LIVE_PLAY_PART /* inputs per round trip at most */
#define WRITE_BYTES       (64 * 1024)         /* a pipe's worth: one write, one send deadline */

const char *mcps_live_liveness_method(const char *revision)
{
    return mcps_rev_is_handshake(mcps_rev_parse(revision)) ? "ping" : "server/discover";
}

cJSON *mcps_live_ping(size_t i, const char *revision)
{
    char id[48];
    snprintf(id, sizeof id, "\"live-ping-%zu\"", i + 1);
    return mcps_rpc_request(id, mcps_live_liveness_method(revision), NULL);
}

static bool id_is(const cJSON *msg, const char *id)
{
    const cJSON *got = cJSON_GetObjectItemCaseSensitive(msg, "id");
    return cJSON_IsString(got) && strcmp(got->valuestring, id) == 0;
}

const cJSON *mcps_live_await(mcps_session *s, const char *id, int64_t deadline_ms)
{
    for (;;) {
        for (size_t i = 0; i < s->ninbox; i++)
            if (s->inbox[i].shape == MCPS_SHAPE_RESPONSE && id_is(s->inbox[i].msg, id))
                return s->inbox[i].msg;
        /* Over HTTP, once every exchange has ended nothing more can arrive. */
        if (s->http && mcps_session_idle(s))
            return NULL;
        if (!mcps_session_poll(s, deadline_ms))
            return NULL;
    }
}

static cJSON *initialize_request(const char *revision)
{
    cJSON *params = cJSON_CreateObject();
    cJSON_AddStringToObject(params, "protocolVersion", revision);
    cJSON_AddItemToObject(params, "capabilities", cJSON_CreateObject());
    cJSON *info = cJSON_AddObjectToObject(params, "clientInfo");
    cJSON_AddStringToObject(info, "name", "mcpspec-fuzz");
    cJSON_AddStringToObject(info, "version", MCPS_VERSION);
    return mcps_rpc_request("\"" INIT_ID "\"", "initialize", params);
}

static bool send_owned(mcps_session *s, cJSON *msg, char *err, size_t errlen)
{
    bool ok = msg && mcps_session_send(s, msg, err, errlen);
    cJSON_Delete(msg);
    return ok;
}

/* The prefix's first request, not awaited: initialize, or in 2026-07-28, which has no
 * handshake, server/discover (stamped by the session), which shows the target answers at all
 * (every later request carries its own _meta). */
static bool prefix_send(mcps_session *s, const mcps_live_target *t, char *err, size_t errlen)
{
    if (!mcps_rev_is_handshake(mcps_rev_parse(t->revision)))
        return send_owned(s, mcps_rpc_request("\"" INIT_ID "\"", "server/discover", NULL), err,
                          errlen);
    return send_owned(s, initialize_request(t->revision), err, errlen);
}

static bool discover_prefix(mcps_session *s, const mcps_live_target *t, char *err, size_t errlen)
{
    const cJSON *got = mcps_live_await(s, INIT_ID, mcps_clock_deadline(t->start_timeout));
    if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(got, "result")))
        return true;
    snprintf(err, errlen, "%s",
             !got ? "the target did not answer server/discover in time"
                  : "the target refused server/discover");
    return false;
}

/* The rest of the prefix: the first request's result, the negotiated revision,
 * notifications/initialized. */
static bool prefix_finish(mcps_session *s, const mcps_live_target *t, char *err, size_t errlen)
{
    if (!mcps_rev_is_handshake(mcps_rev_parse(t->revision)))
        return discover_prefix(s, t, err, errlen);
    const cJSON *got = mcps_live_await(s, INIT_ID, mcps_clock_deadline(t->start_timeout));
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(got, "result");
    if (!cJSON_IsObject(result)) {
        snprintf(err, errlen, "%s",
                 !got ? "the target did not answer initialize in time"
                      : "the target refused initialize");
        return false;
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(result, "protocolVersion");
    mcps_rev rev = cJSON_IsString(v) ? mcps_rev_parse(v->valuestring) : MCPS_REV_NONE;
    if (rev != MCPS_REV_NONE)
        mcps_session_set_rev(s, rev);
    return send_owned(s, mcps_rpc_notification("notifications/initialized", NULL), err, errlen);
}

static mcps_session *open_session(const mcps_live_target *t, mcps_session_finding_fn fn, void *ctx,
                                  char *err, size_t errlen)
{
    mcps_session_config sc = {.target = t->transport,
                              .rev = mcps_rev_parse(t->revision),
                              .wire_max_bytes = WIRE_KEEP,
                              .wire_no_messages = true, /* only stderr is judged from the log */
                              .on_finding = fn,
                              .ctx = ctx};
    sc.target.close_grace = sc.target.term_grace = SHUTDOWN_GRACE;
    sc.target.send_timeout = t->hang_timeout;
    return mcps_session_open(&sc, err, errlen);
}

static mcps_session *start_once(const mcps_live_target *t, mcps_session_finding_fn fn, void *ctx,
                                char *err, size_t errlen)
{
    if (t->server && !mcps_live_server_ensure(t->server, err, errlen))
        return NULL;
    mcps_session *s = open_session(t, fn, ctx, err, errlen);
    if (s && !(prefix_send(s, t, err, errlen) && prefix_finish(s, t, err, errlen))) {
        mcps_session_free(s);
        return NULL;
    }
    return s;
}

mcps_session *mcps_live_start_begin(const mcps_live_target *t, mcps_session_finding_fn fn,
                                    void *ctx, char *err, size_t errlen)
{
    mcps_session *s = t->server ? NULL : open_session(t, fn, ctx, err, errlen);
    if (s && !prefix_send(s, t, err, errlen)) {
        mcps_session_free(s);
        return NULL;
    }
    return s;
}

bool mcps_live_start_finish(mcps_session *s, const mcps_live_target *t, char *err, size_t errlen)
{
    return prefix_finish(s, t, err, errlen);
}

mcps_session *mcps_live_start(const mcps_live_target *t, mcps_session_finding_fn fn, void *ctx,
                              char *err, size_t errlen)
{
    mcps_session *s = start_once(t, fn, ctx, err, errlen);
    /* A launched server seen alive may have been on its way out (the last input killed it). */
    if (!s && t->server && !mcps_live_server_alive(t->server))
        s = start_once(t, fn, ctx, err, errlen);
    return s;
}

pid_t mcps_live_target_pid(const mcps_live_target *t, const mcps_session *s)
{
    if (t->server)
        return mcps_live_server_pid(t->server);
    return s->http ? -1 : mcps_stdio_pid(s->t);
}

/* Header lines "Name: value" (or "Name:") into obj, replacing a member of the same name. */
static void set_header(cJSON *obj, const char *name, cJSON *value)
{
    for (cJSON *m = obj->child; m; m = m->next)
        if (strcasecmp(m->string, name) == 0) {
            cJSON_DeleteItemFromObject(obj, m->string);
            break;
        }
    cJSON_AddItemToObject(obj, name, value);
}

/* The headers an input goes with: in 2026-07-28 those its body calls for (a string body gets
 * none from the session), then its corrupted ones over them. */
static cJSON *input_headers(mcps_session *s, const mcps_live_input *in)
{
    cJSON *out = cJSON_CreateObject();
    if (mcps_session_stateless(s)) {
        cJSON *msg = mcps_json_parse_simple(in->bytes, in->len);
        char *lines[MCPS_STATELESS_HEADERS];
        size_t n = mcps_stateless_header_lines(s, msg, lines);
        for (size_t i = 0; i < n; i++) {
            char *colon = strchr(lines[i], ':');
            if (colon && colon[1] == ' ') {
                *colon = '\0';
                set_header(out, lines[i], cJSON_CreateString(colon + 2));
            }
            free(lines[i]);
        }
        mcps_json_delete(msg);
    }
    cJSON *given = cJSON_Parse(in->headers);
    for (cJSON *m = given ? given->child : NULL; m; m = m->next)
        set_header(out, m->string, cJSON_Duplicate(m, true));
    cJSON_Delete(given);
    return out;
}

/* Over HTTP an input with headers of its own goes as a suite's `--> http` step would. */
static bool send_with_headers(mcps_session *s, const mcps_live_input *in)
{
    char err[200];
    cJSON *spec = cJSON_CreateObject();
    cJSON_AddItemToObject(spec, "headers", input_headers(s, in));
    cJSON_AddItemToObject(spec, "body", cJSON_CreateString(in->bytes));
    bool ok = mcps_session_send_http(s, spec, err, sizeof err);
    cJSON_Delete(spec);
    return ok;
}

static bool send_input(mcps_session *s, const mcps_live_input *in, mcps_buf *line)
{
    char err[200];
    if (s->http && in->headers)
        return send_with_headers(s, in);
    mcps_buf_clear(line);
    mcps_buf_append(line, in->bytes, in->len);
    mcps_buf_putc(line, '\n');
    return mcps_session_send_raw(s, line->data, line->len, err, sizeof err);
}

bool mcps_live_pinged(const mcps_live_target *t, size_t i, size_t n)
{
    return t->ping_every <= 1 || (i + 1) % t->ping_every == 0 || i + 1 == n;
}

/* The line of the liveness request after input i, as the session would write it (stamped with
 * the revision's _meta where there is no handshake). */
static void put_ping(mcps_session *s, const mcps_live_target *t, size_t i, mcps_buf *b)
{
    if (!mcps_session_stateless(s)) {
        mcps_buf_printf(b, "{\"jsonrpc\":\"2.0\",\"id\":\"live-ping-%zu\",\"method\":\"ping\"}\n",
                        i + 1);
        return;
    }
    cJSON *ping = mcps_live_ping(i, t->revision);
    cJSON *stamped = mcps_session_stamp(s, ping);
    size_t len;
    char *line = mcps_rpc_line(stamped ? stamped : ping, &len);
    if (line)
        mcps_buf_append(b, line, len);
    free(line);
    cJSON_Delete(stamped);
    cJSON_Delete(ping);
}

/* Write the lines in b (their lengths in lens) in one send, then empty both. */
static bool flush_lines(mcps_session *s, mcps_buf *b, size_t *lens, size_t *k)
{
    char err[200];
    bool ok = !*k || mcps_session_send_lines(s, b->data, lens, *k, err, sizeof err);
    mcps_buf_clear(b);
    *k = 0;
    return ok;
}

/* Inputs and pings, pipelined (a system call per line was most of the fuzz loop's own cost), in
 * writes of WRITE_BYTES or so: each has the send deadline (--hang-timeout) a message had, so a
 * slow target that keeps reading is not taken for one that stopped, and the buffer stays small
 * enough for the allocator to keep. A send that fails leaves the pings to say why (the target is
 * gone or stopped reading). Ping numbers go on from first. */
static void send_all(mcps_session *s, const mcps_live_target *t, const mcps_live_seq *q,
                     size_t first)
{
    mcps_buf buf = {0};
    size_t *lens = malloc(2 * q->n * sizeof *lens + 1), k = 0;
    bool ok = lens != NULL;
    for (size_t i = 0; ok && i < q->n; i++) {
        size_t at = buf.len;
        mcps_buf_append(&buf, q->items[i].bytes, q->items[i].len);
        mcps_buf_putc(&buf, '\n');
        lens[k++] = buf.len - at;
        if (mcps_live_pinged(t, i, q->n)) {
            at = buf.len;
            put_ping(s, t, first + i, &buf);
            lens[k++] = buf.len - at;
        }
        if (buf.len >= WRITE_BYTES)
            ok = flush_lines(s, &buf, lens, &k);
    }
    if (ok)
        flush_lines(s, &buf, lens, &k);
    free(lens);
    mcps_buf_free(&buf);
}

/* What HTTP said of request req: its status, or -1 when it failed below HTTP, 0 if neither.
 * A long sequence fills the inbox, which then keeps no more records: the session's last
 * status stands in when the last record was req's (lockstep makes it so). */
static int http_outcome(const mcps_session *s, unsigned req)
{
    int got = 0;
    if (s->request == req)
        got = s->http_failed ? -1 : s->http_status;
    for (size_t i = 0; i < s->ninbox; i++) {
        const mcps_inmsg *m = &s->inbox[i];
        if (m->shape != MCPS_SHAPE_HTTP || m->request != req)
            continue;
        const cJSON *event = cJSON_GetObjectItemCaseSensitive(m->msg, "event");
        const cJSON *status = cJSON_GetObjectItemCaseSensitive(m->msg, "status");
        if (cJSON_IsString(event) && strcmp(event->valuestring, "error") == 0)
            got = -1;
        else if (cJSON_IsNumber(status))
            got = (int)status->valuedouble;
    }
    return got;
}

/* Over HTTP, the ping's exchange ended without its answer (status: http_outcome's). */
static void judge_dropped(mcps_live_judge *j, size_t at, int status)
{
    char why[120] = "its exchange ended without the answer";
    if (status < 0)
        snprintf(why, sizeof why, "the HTTP request failed (connection refused, reset or cut)");
    else if (status >= 400)
        snprintf(why, sizeof why, "answered HTTP %d", status);
    mcps_live_judge_dropped(j, at, why);
}

/* The ping after input i went unanswered (over HTTP its request was req): why. */
static void judge_unanswered(mcps_session *s, const mcps_live_target *t, size_t i, unsigned req,
                             mcps_live_judge *j)
{
    int status = s->http ? http_outcome(s, req) : 0;
    /* One that failed to answer HTTP may be on its way out; one that answered may yet die of
     * what it answered (a session's worker gone, then the whole server). */
    if (t->server && mcps_live_server_judge_death(t->server, j, i,
                                                  status > 0 ? ANSWERED_DEATH_MS : DRAIN_EXIT_MS))
        return;
    if (s->http && !s->cut && mcps_session_request_done(s, req))
        judge_dropped(j, i, status);
    else if (s->exited || s->gone)
        mcps_live_judge_exit(j, s, i);
    else if (!s->cut)
        mcps_live_judge_hang(j, i, t->hang_timeout);
}

static char *ping_id(size_t i, char *id, size_t n)
{
    snprintf(id, n, "live-ping-%zu", i + 1);
    return id;
}

size_t mcps_live_ping_number(const cJSON *msg)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    if (!cJSON_IsString(id) || strncmp(id->valuestring, "live-ping-", 10) != 0)
        return 0;
    const char *p = id->valuestring + 10;
    size_t k = 0;
    for (; *p >= '0' && *p <= '9' && k < SIZE_MAX / 10 - 1 && (k || *p != '0'); p++)
        k = k * 10 + (size_t)(*p - '0');
    return *p ? 0 : k;
}

/* Mark which of the n pings numbered from first the inbox answers, from *scanned on: each
 * message is looked at once, however long the sequence (the pings' scan was quadratic).
 * *end: the inbox index just past the last ping's answer, once seen. */
static void note_pings(const mcps_session *s, size_t first, size_t n, bool *seen, size_t *scanned,
                       size_t *end)
{
    for (; *scanned < s->ninbox; (*scanned)++) {
        if (s->inbox[*scanned].shape != MCPS_SHAPE_RESPONSE)
            continue;
        size_t k = mcps_live_ping_number(s->inbox[*scanned].msg);
        if (k > first && k <= first + n)
            seen[k - first - 1] = true;
        if (k == first + n)
            *end = *scanned + 1;
    }
}

/* The pings in order, each with its own deadline from when its wait begins (so the queue
 * ahead of it, answered meanwhile, does not count against it): the first unanswered one is a
 * crash (the target is gone) or a hang. tail: nothing more was written after these, so a
 * late exit is theirs. Returns the inbox index just past the last ping's answer (the inbox's
 * length when one went unanswered). */
static size_t await_pings(mcps_session *s, const mcps_live_target *t, size_t n, size_t first,
                          mcps_live_judge *j, bool tail)
{
    bool *seen = calloc(n + 1, sizeof *seen);
    size_t scanned = 0, end = 0;
    for (size_t i = 0; seen && i < n; i++) {
        if (!mcps_live_pinged(t, i, n))
            continue;
        int64_t deadline = mcps_clock_deadline(t->hang_timeout);
        for (note_pings(s, first, n, seen, &scanned, &end); !seen[i];
             note_pings(s, first, n, seen, &scanned, &end))
            if (!mcps_session_poll(s, deadline)) {
                judge_unanswered(s, t, first + i, 0, j);
                free(seen);
                return s->ninbox;
            }
    }
    free(seen);
    if (!tail)
        return end;
    /* Everything answered: take in what is already queued (a late exit, a report). */
    while (mcps_session_poll(s, mcps_clock_ms()))
        ;
    if (s->exited)
        mcps_live_judge_exit(j, s, first + n ? first + n - 1 : 0);
    return s->ninbox;
}

/*
 * Over HTTP every message is a POST of its own, and concurrent POSTs reach the server in no set
 * order: each input's exchange ends before its ping goes (or SETTLE_MS pass: a request the
 * server leaves open is the ping's to judge), and the ping is answered before the next input,
 * so the same inputs arrive the same way every time.
 */
static void play_lockstep(mcps_session *s, const mcps_live_target *t, const mcps_live_seq *q,
                          size_t first, mcps_live_judge *j)
{
    char err[200], id[48];
    mcps_buf line = {0};
    for (size_t i = 0; i < q->n; i++) {
        if (!send_input(s, &q->items[i], &line))
            break;
        unsigned req = mcps_session_last_request(s);
        int64_t deadline = mcps_clock_deadline(SETTLE_MS / 1000.0);
        while (!mcps_session_request_done(s, req) && mcps_session_poll(s, deadline))
            ;
        int status = http_outcome(s, req);
        if (status >= 500)
            mcps_live_judge_server_error(j, first + i, status);
        if (!send_owned(s, mcps_live_ping(first + i, t->revision), err, sizeof err))
            break;
        req = mcps_session_last_request(s);
        if (!mcps_live_await(s, ping_id(first + i, id, sizeof id),
                             mcps_clock_deadline(t->hang_timeout))) {
            judge_unanswered(s, t, first + i, req, j);
            break;
        }
    }
    mcps_buf_free(&line);
}

/* The input (numbered on from first) whose id is id (JSON text); the last one when none is:
 * a batch's or a mutated id's answer still fired after it. */
static size_t input_with_id(const mcps_live_seq *q, size_t first, const char *id)
{
    for (size_t i = 0; i < q->n; i++) {
        cJSON *msg = cJSON_ParseWithLength(q->items[i].bytes, q->items[i].len);
        char *got = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(msg, "id"));
        bool same = got && strcmp(got, id) == 0;
        free(got);
        cJSON_Delete(msg);
        if (same)
            return first + i;
    }
    return first + (q->n ? q->n - 1 : 0);
}

/* A file served in the first n messages of the inbox, charged to the input of its id. */
static void judge_disclosure(const mcps_session *s, const mcps_live_seq *q, size_t first,
                             mcps_live_judge *j, size_t n)
{
    bool disclosed = j->disclosure;
    mcps_live_judge_inbox_n(j, s, n);
    if (j->disclosure && !disclosed)
        j->disclosure_at = input_with_id(q, first, j->disclosure_id);
}

/* One round trip: the part's inputs and pings, its answers awaited and looked at. */
static void play_part(mcps_session *s, const mcps_live_target *t, const mcps_live_seq *q,
                      size_t first, mcps_live_judge *j)
{
    if (s->http) {
        play_lockstep(s, t, q, first, j);
    } else {
        send_all(s, t, q, first);
        await_pings(s, t, q->n, first, j, true);
    }
    judge_disclosure(s, q, first, j, s->ninbox);
}

/* A long sequence (a process's whole history, minimized or replayed) goes in parts of PLAY_PART
 * inputs, each judged and dropped before the next: the inbox holds one part's answers, not
 * thousands, and only the part is in memory. */
static void play_source(mcps_session *s, const mcps_live_target *t, const mcps_live_source *src,
                        const bool *keep, size_t n, size_t first, mcps_live_judge *j)
{
    size_t from = 0, played = 0;
    do {
        if (played) {
            mcps_live_judge_stderr(j, s);
            mcps_live_next_batch(s, j);
            if (!mcps_live_alive(s, j))
                break;
        }
        mcps_live_seq part;
        mcps_live_source_take(src, keep, n, &from, PLAY_PART, &part);
        play_part(s, t, &part, first + played, j);
        played += part.n;
        mcps_live_seq_free(&part);
    } while (from < n);
    if (s->exited || s->gone) {
        int64_t until = mcps_clock_deadline(DRAIN_EXIT_MS / 1000.0);
        while (mcps_session_poll(s, until))
            ;
    }
    mcps_live_judge_stderr(j, s);
}

void mcps_live_play(mcps_session *s, const mcps_live_target *t, const mcps_live_seq *q,
                    size_t first, mcps_live_judge *j)
{
    mcps_live_source src = mcps_live_seq_source(q);
    play_source(s, t, &src, NULL, q->n, first, j);
}

void mcps_live_send(mcps_session *s, const mcps_live_target *t, const mcps_live_seq *q,
                    size_t first)
{
    send_all(s, t, q, first);
}

size_t mcps_live_collect(mcps_session *s, const mcps_live_target *t, const mcps_live_seq *q,
                         size_t first, mcps_live_judge *j, bool tail)
{
    size_t end = await_pings(s, t, q->n, first, j, tail);
    judge_disclosure(s, q, first, j, end);
    return end;
}

bool mcps_live_exec_source(const mcps_live_target *t, const mcps_live_source *src, const bool *keep,
                           size_t n, mcps_live_outcome *out, char *err, size_t errlen)
{
    mcps_live_judge j;
    mcps_live_judge_init(&j, out);
    mcps_session *s = mcps_live_start(t, mcps_live_judge_finding, &j, err, errlen);
    if (!s)
        return false;
    play_source(s, t, src, keep, n, 0, &j);
    mcps_live_judge_done(&j);
    mcps_session_free(s);
    return true;
}

bool mcps_live_exec(const mcps_live_target *t, const mcps_live_seq *q, mcps_live_outcome *out,
                    char *err, size_t errlen)
{
    mcps_live_source src = mcps_live_seq_source(q);
    return mcps_live_exec_source(t, &src, NULL, q->n, out, err, errlen);
}

void mcps_live_drop_log(mcps_session *s)
{
    mcps_wire_log log;
    mcps_session_take_log(s, &log);
    for (size_t i = 0; i < log.nentries; i++)
        free(log.entries[i].bytes);
    free(log.entries);
    for (size_t i = 0; i < log.nnotes; i++) {
        free(log.notes[i].reqs);
        free(log.notes[i].message);
    }
    free(log.notes);
}

void mcps_live_next_batch(mcps_session *s, mcps_live_judge *j)
{
    mcps_live_drop_log(s);
    mcps_session_begin_case(s, 0, mcps_live_judge_finding, j);
}

bool mcps_live_alive(const mcps_session *s, const mcps_live_judge *j)
{
    return !s->exited && !s->gone && !s->cut && !j->hung && !j->exited && !j->dropped &&
           !j->sanitizer;
}

/* The warm-up pass, the baseline, then the blocks, each sampled; stops at a finding. */
static size_t play_growth(mcps_session *s, const mcps_live_target *t, const mcps_live_seq *q,
                          mcps_live_judge *j)
{
    mcps_live_growth g = {0};
    mcps_live_growth_start(&g, mcps_live_target_pid(t, s), t);
    size_t per_block, blocks = mcps_live_growth_plan(q, &per_block), last = q->n - 1;
    mcps_live_seq block = {0};
    for (size_t k = 0; k < per_block; k++)
        for (size_t i = 0; i < q->n; i++)
            mcps_live_seq_push_input(&block, &q->items[i]);
    mcps_live_play(s, t, q, 0, j);
    mcps_live_next_batch(s, j);
    mcps_live_growth_base(&g);
    size_t played = 1, sent = q->n;
    for (size_t b = 0; b < blocks && !j->growth && mcps_live_alive(s, j); b++) {
        mcps_live_play(s, t, &block, sent, j);
        mcps_live_next_batch(s, j);
        played += per_block;
        sent += block.n;
        g.inputs += block.n;
        if (mcps_live_alive(s, j))
            mcps_live_growth_check(&g, last, j);
    }
    mcps_live_seq_free(&block);
    return played;
}

bool mcps_live_exec_growth(const mcps_live_target *t, const mcps_live_seq *q,
                           mcps_live_outcome *out, size_t *reps, char *err, size_t errlen)
{
    mcps_live_judge j;
    mcps_live_judge_init(&j, out);
    *reps = 0;
    mcps_session *s = q->n ? mcps_live_start(t, mcps_live_judge_finding, &j, err, errlen) : NULL;
    if (!s) {
        if (!q->n)
            snprintf(err, errlen, "no inputs to play");
        return false;
    }
    *reps = play_growth(s, t, q, &j);
    mcps_live_judge_done(&j);
    mcps_session_free(s);
    return true;
}
