/*
 * output.c - every byte refserver writes to stdout: responses (single or
 * collected into a batch reply), notifications, and the output faults.
 *
 * Each message is one compact line (mcps_rpc_line escapes every control
 * character, so no raw newline can appear). Response ids are the request's
 * parsed id node copied verbatim, so their type and exact text survive.
 */
#include "server.h"

#include "base/buf.h"
#include "codec/json.h"
#include "codec/rpc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct rs_batch {
    cJSON *responses; /* the reply array being assembled */
    unsigned refs;    /* the batch being read, plus each slow call still running */
};

/* ---- raw writing ---- */

static void write_all(rs_server *s, const char *p, size_t n)
{
    while (n && !s->done) {
        ssize_t w = write(s->out_fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            /* EPIPE (SIGPIPE is ignored) or worse: the client is gone. */
            rs_debug(s, "stdout closed (%s); exiting", strerror(errno));
            s->done = true;
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

void rs_write_text(rs_server *s, const char *text)
{
    write_all(s, text, strlen(text));
}

static void write_line(rs_server *s, const cJSON *msg)
{
    size_t n;
    char *line = mcps_rpc_line(msg, &n);
    if (!line) {
        rs_debug(s, "out of memory serializing a message");
        return;
    }
    write_all(s, line, n);
    free(line);
}

/* ---- pretty-print fault: re-indent compact JSON, strings untouched ---- */

static void newline_indent(mcps_buf *b, int depth)
{
    mcps_buf_putc(b, '\n');
    for (int i = 0; i < depth; i++)
        mcps_buf_puts(b, "  ");
}

static char *pretty(const char *c)
{
    mcps_buf b = {0};
    int depth = 0;
    bool in_string = false;
    for (; *c; c++) {
        mcps_buf_putc(&b, *c);
        if (in_string) {
            if (*c == '\\' && c[1])
                mcps_buf_putc(&b, *++c);
            else if (*c == '"')
                in_string = false;
        } else if (*c == '"') {
            in_string = true;
        } else if ((*c == '{' || *c == '[') && c[1] != '}' && c[1] != ']') {
            newline_indent(&b, ++depth);
        } else if (*c == ',') {
            newline_indent(&b, depth);
        } else if (*c == ':') {
            mcps_buf_putc(&b, ' ');
        }
        if (!in_string && (c[1] == '}' || c[1] == ']') && *c != '{' && *c != '[')
            newline_indent(&b, --depth);
    }
    mcps_buf_putc(&b, '\n');
    return mcps_buf_take(&b);
}

static void write_pretty(rs_server *s, const cJSON *msg)
{
    char *compact = mcps_json_print(msg, NULL);
    char *text = compact ? pretty(compact) : NULL;
    if (text)
        rs_write_text(s, text);
    free(text);
    free(compact);
}

/* A response line (a single response or a batch reply); takes msg. */
void rs_write_response(rs_server *s, cJSON *msg)
{
    if (cJSON_IsObject(msg) && rs_fault_on(s, RS_FAULT_BATCH_RESPONSES_ALWAYS)) {
        cJSON *wrap = cJSON_CreateArray();
        cJSON_AddItemToArray(wrap, msg);
        msg = wrap;
    }
    if (rs_fault_on(s, RS_FAULT_PRETTY_PRINT))
        write_pretty(s, msg);
    else
        write_line(s, msg);
    mcps_json_delete(msg);
}

/* ---- batches ---- */

rs_batch *rs_batch_new(void)
{
    rs_batch *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->responses = cJSON_CreateArray();
    b->refs = 1;
    if (!b->responses) {
        free(b);
        return NULL;
    }
    return b;
}

void rs_batch_retain(rs_batch *b)
{
    b->refs++;
}

/* The last reference sends the reply array: nothing when it is empty (BATCH-004). */
void rs_batch_release(rs_server *s, rs_batch *b)
{
    if (--b->refs)
        return;
    bool empty = cJSON_GetArraySize(b->responses) == 0;
    if (!empty || rs_fault_on(s, RS_FAULT_BATCH_NOTIFICATION_REPLY))
        rs_write_response(s, b->responses);
    else
        mcps_json_delete(b->responses);
    free(b);
}

/* At exit: drop a reference without ever sending. */
void rs_batch_abandon(rs_batch *b)
{
    if (--b->refs)
        return;
    mcps_json_delete(b->responses);
    free(b);
}

/* ---- building responses ---- */

static bool looks_integer(const char *t)
{
    if (*t == '-')
        t++;
    if (*t == '0')
        return t[1] == '\0';
    if (*t < '1' || *t > '9')
        return false;
    while (*t >= '0' && *t <= '9')
        t++;
    return *t == '\0';
}

/* Fault id-ascii-only: every byte of a non-ASCII character becomes one '?'. */
static cJSON *ascii_only(const char *text)
{
    char *copy = strdup(text);
    if (!copy)
        return NULL;
    size_t n = 0;
    for (const char *p = text; *p; p++)
        if ((*p & 0xC0) != 0x80) /* one '?' per character, not per byte */
            copy[n++] = (*p & 0x80) ? '?' : *p;
    copy[n] = '\0';
    cJSON *id = cJSON_CreateString(copy);
    free(copy);
    return id;
}

/* The request id as sent: same JSON type, same exact text (RPC-RSP-001). */
static cJSON *echo_id(const rs_server *s, const cJSON *id)
{
    if (!id)
        return cJSON_CreateNull();
    if (cJSON_IsString(id) && rs_fault_on(s, RS_FAULT_ID_ASCII_ONLY))
        return ascii_only(id->valuestring);
    if (cJSON_IsString(id) && rs_fault_on(s, RS_FAULT_ID_AS_NUMBER) &&
        looks_integer(id->valuestring))
        return mcps_json_create_number_text(id->valuestring);
    if (cJSON_IsNumber(id) && rs_fault_on(s, RS_FAULT_ID_LOSSY))
        return cJSON_CreateNumber(id->valuedouble); /* no exact text: printed from the double */
    return cJSON_Duplicate(id, true);
}

cJSON *rs_response_new(const rs_server *s, const cJSON *id)
{
    cJSON *m = cJSON_CreateObject();
    if (!rs_fault_on(s, RS_FAULT_JSONRPC_MISSING))
        cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddItemToObject(m, "id", echo_id(s, id));
    return m;
}

static char *long_message(const char *message)
{
    mcps_buf b = {0};
    mcps_buf_puts(&b, message);
    while (b.len < 400)
        mcps_buf_puts(&b, "\nThis line pads the error message far beyond one short sentence.");
    if (!b.oom)
        b.data[400] = '\0';
    return mcps_buf_take(&b);
}

/* message on one line: a name a client sent (a prompt's, say) may hold a line break, and an
 * error message is a single sentence (RPC-ERR-002). */
static char *one_line(const char *message)
{
    char *copy = strdup(message);
    for (char *c = copy; c && *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7F)
            *c = ' ';
    return copy;
}

cJSON *rs_error_object(const rs_server *s, int code, const char *message, cJSON *data)
{
    cJSON *e = cJSON_CreateObject();
    if (rs_fault_on(s, RS_FAULT_ERROR_CODE_STRING)) {
        char text[16];
        snprintf(text, sizeof text, "%d", code);
        cJSON_AddStringToObject(e, "code", text);
    } else {
        cJSON_AddNumberToObject(e, "code", code);
    }
    char *flat = one_line(message);
    const char *text = flat ? flat : "";
    char *longer = rs_fault_on(s, RS_FAULT_ERROR_MESSAGE_LONG) ? long_message(text) : NULL;
    cJSON_AddStringToObject(e, "message", longer ? longer : text);
    free(longer);
    free(flat);
    if (data)
        cJSON_AddItemToObject(e, "data", data);
    return e;
}

/* Send msg (a complete response) now, or add it to its batch reply; takes msg. */
void rs_emit_response(rs_server *s, rs_batch *batch, cJSON *msg)
{
    rs_stateless_result(s, msg);
    if (rs_fault_on(s, RS_FAULT_DUPLICATE_KEY))
        cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
    if (batch)
        cJSON_AddItemToArray(batch->responses, msg);
    else
        rs_write_response(s, msg);
}

void rs_reply_free(rs_reply *r)
{
    mcps_json_delete(r->result);
    mcps_json_delete(r->data);
    r->result = r->data = NULL;
}

/* Turn a handler's reply into its response; the reply is emptied. */
void rs_answer(rs_server *s, const cJSON *id, rs_batch *batch, rs_reply *r)
{
    if (r->handled) {
        rs_reply_free(r);
        return;
    }
    cJSON *msg = rs_response_new(s, id);
    if (r->code) {
        cJSON_AddItemToObject(msg, "error", rs_error_object(s, r->code, r->message, r->data));
        r->data = NULL;
    } else if (r->result) {
        cJSON_AddItemToObject(msg, "result", r->result);
        r->result = NULL;
    } else {
        cJSON_AddItemToObject(msg, "error",
                              rs_error_object(s, RS_INTERNAL_ERROR, "Internal error", NULL));
    }
    rs_reply_free(r);
    rs_emit_response(s, batch, msg);
}

void rs_answer_error(rs_server *s, const cJSON *id, rs_batch *batch, int code, const char *message)
{
    rs_reply r = {0};
    rs_fail(&r, code, "%s", message);
    rs_answer(s, id, batch, &r);
}

/* ---- notifications ---- */

void rs_notify(rs_server *s, const char *method, cJSON *params)
{
    rs_cap cap = rs_cap_of(method);
    if (rs_stateless(s) && rs_listen_routed(method)) { /* 2026-07-28: only on listen streams */
        rs_listen_deliver(s, method, params);
        mcps_json_delete(params);
        return;
    }
    rs_listen_misroute(s, method, params);
    /* --without: nothing of it is sent; 2026-07-28: nothing that is not request-scoped */
    if ((cap != RS_CAP_COUNT && s->refused[cap]) || !rs_stateless_notification_ok(s, method)) {
        mcps_json_delete(params);
        return;
    }
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    if (rs_fault_on(s, RS_FAULT_NOTIFICATION_WITH_ID))
        cJSON_AddNumberToObject(m, "id", (double)++s->notify_id);
    cJSON_AddStringToObject(m, "method", method);
    if (params)
        cJSON_AddItemToObject(m, "params", params);
    write_line(s, m);
    mcps_json_delete(m);
}
