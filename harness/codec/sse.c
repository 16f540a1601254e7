/*
 * sse.c - the WHATWG event-stream parser with bounded memory; see sse.h.
 *
 * The parser is a byte-level state machine rather than a line splitter, so
 * that a line is never held whole: a data value streams into the data
 * buffer, other values into a value buffer capped at max_event, and comments
 * and unknown fields are skipped as they pass. Every state lives in the
 * parser, so a feed may end anywhere, inside a CRLF or the BOM included.
 */
#include "codec/sse.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

static const unsigned char BOM[3] = {0xEF, 0xBB, 0xBF};

void mcps_sse_init(mcps_sse_parser *p, size_t max_event, mcps_sse_fn fn, void *ctx)
{
    if (max_event > SIZE_MAX / 2)
        max_event = SIZE_MAX / 2; /* the data buffer holds max_event + 1 */
    if (max_event < 1)
        max_event = 1; /* 0 would cut every event type to nothing, which reads as "message" */
    *p = (mcps_sse_parser){.max_event = max_event, .fn = fn, .ctx = ctx, .retry_ms = -1};
}

void mcps_sse_free(mcps_sse_parser *p)
{
    mcps_buf_free(&p->data);
    mcps_buf_free(&p->type);
    mcps_buf_free(&p->id);
    mcps_buf_free(&p->value);
}

/* Append up to a cap; true when everything fitted. */
static bool append_capped(mcps_buf *b, size_t cap, const unsigned char *s, size_t n)
{
    size_t room = b->len < cap ? cap - b->len : 0;
    mcps_buf_append(b, s, n < room ? n : room);
    return n <= room;
}

static mcps_sse_field field_named(const char *name, size_t len)
{
    static const struct {
        const char *name;
        mcps_sse_field field;
    } known[] = {{"event", MCPS_SSE_EVENT},
                 {"data", MCPS_SSE_DATA},
                 {"id", MCPS_SSE_ID},
                 {"retry", MCPS_SSE_RETRY}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strlen(known[i].name) == len && memcmp(known[i].name, name, len) == 0)
            return known[i].field;
    return MCPS_SSE_UNKNOWN;
}

/* The colon (or the end of a line without one) names the field; its value starts empty. */
static void start_value(mcps_sse_parser *p)
{
    p->field = field_named(p->name, p->name_len);
    mcps_buf_clear(&p->value);
    p->value_cut = false;
    p->value_nul = false;
    p->retry_ok = true;
    p->retry_any = false;
    p->retry_acc = 0;
}

static void retry_digits(mcps_sse_parser *p, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n && p->retry_ok; i++) {
        if (s[i] < '0' || s[i] > '9') {
            p->retry_ok = false;
            break;
        }
        long d = s[i] - '0';
        p->retry_any = true;
        p->retry_acc = p->retry_acc > (LONG_MAX - d) / 10 ? LONG_MAX : p->retry_acc * 10 + d;
    }
}

static void keep_value(mcps_sse_parser *p, const unsigned char *s, size_t n)
{
    if (!p->value_cut && !append_capped(&p->value, p->max_event, s, n))
        p->value_cut = true;
}

/* A piece of the current line's value (no CR or LF in it). */
static void value_bytes(mcps_sse_parser *p, const unsigned char *s, size_t n)
{
    switch (p->field) {
    case MCPS_SSE_DATA:
        if (!p->data_cut && !append_capped(&p->data, p->max_event + 1, s, n))
            p->data_cut = true;
        break;
    case MCPS_SSE_ID:
        if (memchr(s, '\0', n))
            p->value_nul = true;
        keep_value(p, s, n);
        break;
    case MCPS_SSE_EVENT:
        keep_value(p, s, n);
        break;
    case MCPS_SSE_RETRY:
        retry_digits(p, s, n);
        break;
    case MCPS_SSE_UNKNOWN:
        break;
    }
}

static void set_buf(mcps_buf *to, const mcps_buf *from)
{
    mcps_buf_clear(to);
    if (from->len)
        mcps_buf_append(to, from->data, from->len);
}

/* The end of a field line: WHATWG's "process the field". */
static void process_field(mcps_sse_parser *p)
{
    static const unsigned char lf = '\n';
    p->fields++;
    switch (p->field) {
    case MCPS_SSE_DATA:
        if (!p->data_cut && !append_capped(&p->data, p->max_event + 1, &lf, 1))
            p->data_cut = true;
        break;
    case MCPS_SSE_EVENT:
        set_buf(&p->type, &p->value);
        p->type_cut = p->value_cut;
        break;
    case MCPS_SSE_ID:
        if (p->value_nul)
            break;
        set_buf(&p->id, &p->value);
        p->id_cut = p->value_cut;
        p->has_id = true;
        break;
    case MCPS_SSE_RETRY:
        /* "only ASCII digits": an empty value has none, and is ignored as browsers do */
        if (p->retry_ok && p->retry_any)
            p->retry_ms = p->retry_acc;
        break;
    case MCPS_SSE_UNKNOWN:
        break;
    }
}

/* Past this, an emptied buffer is freed rather than kept: a stream that carried one large
 * event would otherwise hold its pages for as long as the stream lasts. */
#define KEEP_CAPACITY ((size_t)64 * 1024)

static void empty(mcps_buf *b)
{
    if (b->cap > KEEP_CAPACITY)
        mcps_buf_free(b);
    else
        mcps_buf_clear(b);
}

/* Forget the block: WHATWG empties the data and event type buffers at every blank line. */
static void reset_block(mcps_sse_parser *p)
{
    empty(&p->data);
    empty(&p->type);
    p->data_cut = p->type_cut = p->has_id = false;
    p->retry_ms = -1;
    p->fields = p->comments = 0;
}

/* A blank line: report the block, if it had any line, as WHATWG would dispatch it. */
static void end_block(mcps_sse_parser *p)
{
    if (p->fields == 0 && p->comments == 0)
        return;
    mcps_sse_event ev = {
        .type = p->type.len ? p->type.data : "message",
        .type_len = p->type.len ? p->type.len : strlen("message"),
        .data = p->data.len ? p->data.data : "",
        .id = p->id.len ? p->id.data : "",
        .id_len = p->id.len,
        .has_id_field = p->has_id,
        .id_cut = p->id_cut,
        .retry_ms = p->retry_ms,
        .dispatched = p->data.len > 0,
        .oversize = p->data_cut || p->type_cut,
        .fields = p->fields,
        .comments = p->comments,
    };
    /* Not cut, the buffer ends with the LF of its last data line, which WHATWG removes. */
    if (p->data.len)
        ev.data_len = p->data_cut ? p->max_event : p->data.len - 1;
    if (p->fn)
        p->fn(p->ctx, &ev);
    reset_block(p);
}

static void end_line(mcps_sse_parser *p)
{
    switch (p->where) {
    case MCPS_SSE_LINE_START:
        end_block(p);
        break;
    case MCPS_SSE_COMMENT:
        p->comments++;
        break;
    case MCPS_SSE_NAME: /* no colon: the whole line is the name, the value empty */
        start_value(p);
        process_field(p);
        break;
    case MCPS_SSE_VALUE_START:
    case MCPS_SSE_VALUE:
        process_field(p);
        break;
    }
    p->where = MCPS_SSE_LINE_START;
    p->name_len = 0;
}

static size_t line_end_at(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] != '\r' && s[i] != '\n')
        i++;
    return i;
}

/* The bytes of the current line before its end (no CR or LF among them). */
static void line_bytes(mcps_sse_parser *p, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        switch (p->where) {
        case MCPS_SSE_LINE_START:
            p->where = s[i] == ':' ? MCPS_SSE_COMMENT : MCPS_SSE_NAME;
            if (s[i] == ':')
                i++;
            break;
        case MCPS_SSE_NAME:
            if (s[i] == ':') {
                start_value(p);
                p->where = MCPS_SSE_VALUE_START;
            } else {
                if (p->name_len < sizeof p->name)
                    p->name[p->name_len] = (char)s[i];
                p->name_len++;
            }
            i++;
            break;
        case MCPS_SSE_VALUE_START:
            p->where = MCPS_SSE_VALUE;
            if (s[i] == ' ')
                i++;
            break;
        case MCPS_SSE_VALUE:
            value_bytes(p, s + i, n - i);
            return;
        case MCPS_SSE_COMMENT:
            return;
        }
    }
}

/* The stream after the BOM: lines and their ends. */
static void scan(mcps_sse_parser *p, const unsigned char *s, size_t n)
{
    size_t i = 0;
    if (p->after_cr && n > 0) {
        p->after_cr = false;
        if (s[0] == '\n')
            i = 1; /* the second half of a CRLF that the last feed cut */
    }
    while (i < n) {
        size_t k = line_end_at(s + i, n - i);
        line_bytes(p, s + i, k);
        i += k;
        if (i == n)
            break;
        end_line(p);
        if (s[i++] == '\r') {
            if (i == n)
                p->after_cr = true;
            else if (s[i] == '\n')
                i++;
        }
    }
}

bool mcps_sse_feed(mcps_sse_parser *p, const char *bytes, size_t len)
{
    const unsigned char *s = (const unsigned char *)bytes;
    size_t i = 0;
    while (p->bom < 3 && i < len) {
        if (s[i] == BOM[p->bom]) {
            p->bom++;
            i++;
            continue;
        }
        /* Not a BOM after all: the bytes that looked like one begin the first line. */
        unsigned held = p->bom;
        p->bom = 3;
        scan(p, BOM, held);
    }
    if (i < len)
        scan(p, s + i, len - i);
    return !(p->data.oom || p->type.oom || p->id.oom || p->value.oom);
}

bool mcps_sse_end_cut(mcps_sse_parser *p)
{
    bool in_value = p->where == MCPS_SSE_VALUE || p->where == MCPS_SSE_VALUE_START;
    if (!p->data_cut && !p->type_cut && !(in_value && p->field == MCPS_SSE_EVENT && p->value_cut))
        return false;
    if (p->where != MCPS_SSE_LINE_START)
        end_line(p);
    end_block(p);
    return true;
}

size_t mcps_sse_held(const mcps_sse_parser *p)
{
    return p->data.len + p->type.len + p->id.len + p->value.len;
}

void mcps_sse_finish(mcps_sse_parser *p)
{
    mcps_sse_fn fn = p->fn;
    void *ctx = p->ctx;
    size_t max_event = p->max_event;
    mcps_sse_free(p);
    mcps_sse_init(p, max_event, fn, ctx);
}
