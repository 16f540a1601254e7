/*
 * sse.h - a strict, streaming parser of Server-Sent Events (text/event-stream),
 * as the WHATWG HTML standard's "event stream interpretation" reads them.
 *
 * MCP's Streamable HTTP and HTTP+SSE transports carry JSON-RPC messages as
 * SSE events, so a conformance harness must read an event stream exactly as
 * a browser would: a looser parser would accept streams real clients choke
 * on, a stricter one would fail servers that are right. The grammar kept:
 * CR, LF and CRLF line ends (a CRLF may be split between two feeds), one
 * UTF-8 BOM skipped at the very start of the stream only, comment lines
 * (':'), a line without a colon as a field name with an empty value, one
 * space after the colon dropped, the fields event, data (lines joined with
 * LF), id (ignored when its value holds NUL; the last-event-id buffer
 * persists across events), retry (ASCII digits only), other fields ignored,
 * dispatch at a blank line, and an unterminated event at end of stream
 * discarded.
 *
 * Bytes are kept as they came: WHATWG decodes the stream as UTF-8 with
 * replacement characters first, which changes no line end, colon or field
 * name, only the bytes inside values, so judging UTF-8 is left to the
 * caller (the JSON parser does it for the data of MCP messages).
 *
 * Memory is bounded by max_event: the data of one event (its first
 * max_event bytes are kept, the rest dropped and `oversize` set), the event
 * type and an id value (cut to max_event bytes) and any line, however long,
 * which is read in passing and never held whole. At most about 4 * max_event
 * bytes are held at any time. No globals: parsers are independent.
 */
#ifndef MCPS_CODEC_SSE_H
#define MCPS_CODEC_SSE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

/*
 * One blank-line-terminated block that had at least one line (a field of any
 * name, or a comment). Every such block is reported, not only the events
 * WHATWG dispatches, so a harness sees keep-alive comments, id-only and
 * retry-only blocks, and the 2025-11-25 priming event (`id:` and an empty
 * `data:`: its data buffer is "\n", so WHATWG dispatches it with empty data).
 * The pointers are valid only during the callback.
 */
typedef struct mcps_sse_event {
    const char *type; /* the event type; "message" when the block set none (or set it empty) */
    size_t type_len;
    const char *data; /* data lines joined with LF, without the final LF */
    size_t data_len;
    const char *id; /* the last-event-id buffer after this block (may come from earlier ones) */
    size_t id_len;
    bool has_id_field; /* this block had an id field WHATWG took (no NUL in its value) */
    bool id_cut;       /* the id buffer holds only the first max_event bytes of its id */
    long retry_ms;     /* this block's last valid retry value, or -1 (saturates at LONG_MAX) */
    bool dispatched;   /* WHATWG dispatches it: the data buffer was not empty */
    bool oversize;     /* the data or the event type was longer than max_event and was cut */
    size_t fields;     /* field lines in the block (known or not) */
    size_t comments;   /* comment lines in the block */
} mcps_sse_event;

typedef void (*mcps_sse_fn)(void *ctx, const mcps_sse_event *ev);

/* Where the parser is inside the current line. */
typedef enum mcps_sse_where {
    MCPS_SSE_LINE_START,  /* nothing of this line read yet */
    MCPS_SSE_NAME,        /* in the field name */
    MCPS_SSE_COMMENT,     /* after a leading ':' */
    MCPS_SSE_VALUE_START, /* right after the colon: one space may follow */
    MCPS_SSE_VALUE,
} mcps_sse_where;

/* The field a line names; only its first bytes are needed to tell. */
typedef enum mcps_sse_field {
    MCPS_SSE_UNKNOWN,
    MCPS_SSE_EVENT,
    MCPS_SSE_DATA,
    MCPS_SSE_ID,
    MCPS_SSE_RETRY,
} mcps_sse_field;

/* Caller-allocated; its members are the parser's own (read none of them). */
typedef struct mcps_sse_parser {
    size_t max_event;
    mcps_sse_fn fn;
    void *ctx;
    mcps_buf data;  /* WHATWG's data buffer, at most max_event + 1 bytes (its last LF) */
    mcps_buf type;  /* the event type buffer, at most max_event bytes */
    mcps_buf id;    /* the last-event-id buffer, at most max_event bytes */
    mcps_buf value; /* the value of the current event or id line, at most max_event bytes */
    mcps_sse_where where;
    mcps_sse_field field;
    char name[6]; /* the field name's first bytes: enough for "retry" and one more */
    size_t name_len;
    unsigned bom;   /* BOM bytes matched at the stream's start; 3 when past it */
    bool after_cr;  /* the last byte was a CR: an LF now ends nothing */
    bool value_cut; /* the current value passed max_event */
    bool value_nul; /* the current value holds a NUL */
    bool retry_ok;  /* the current value is ASCII digits so far */
    bool retry_any; /* ... and has at least one */
    long retry_acc;
    bool data_cut, type_cut, id_cut; /* those buffers passed max_event */
    bool has_id;
    long retry_ms;
    size_t fields, comments;
} mcps_sse_parser;

/* max_event (at least 1) bounds the data, event type and id of an event (see above). */
void mcps_sse_init(mcps_sse_parser *p, size_t max_event, mcps_sse_fn fn, void *ctx);
/* Read the next bytes of the stream, calling fn for each block they end; false when memory
 * ran out (sticky: the parser drops what it could not keep). */
bool mcps_sse_feed(mcps_sse_parser *p, const char *bytes, size_t len);
/* When the block being read has already been cut (its data or event type passed max_event),
 * report it now as it stands, oversize, and return true: for a reader that will not read the
 * rest of such a stream (a 200 MB event is not worth downloading to drop it), the stream ends
 * with this block. False, and nothing reported, otherwise. */
bool mcps_sse_end_cut(mcps_sse_parser *p);
/* The bytes of the stream the parser holds now (the block being read, the last id). */
size_t mcps_sse_held(const mcps_sse_parser *p);
/* End of stream: an unterminated block is discarded, as WHATWG says. The parser is then at
 * the start of a new stream (a BOM may come again, every buffer is empty). */
void mcps_sse_finish(mcps_sse_parser *p);
void mcps_sse_free(mcps_sse_parser *p);

#endif
