/*
 * fuzz_sse.c - fuzz target for the event-stream parser (harness/codec/sse.h).
 *
 * Input: two header bytes, then the byte stream.
 *   byte 0  max_event: 0..254 as it is (small, so the cut paths are hit
 *           often; 0 is taken as 1, as sse.h says), 255 for no practical limit
 *   byte 1  how to cut the stream into feeds for the chunked run, as
 *           fuzz_frame does: bits 0-4 scale the largest chunk (1..125 bytes);
 *           bit 6 adds an empty feed before each chunk; bit 7 takes each
 *           chunk's length from the stream byte it starts at, otherwise from
 *           a generator seeded by this byte.
 *
 * Invariants, each an abort when broken:
 *  - the stream in one feed, split in two at a point derived from the input,
 *    cut as byte 1 says, and (up to BYTEWISE_MAX bytes) one byte at a time
 *    gives the same blocks, field for field;
 *  - those blocks are what a reference gives, written here from the WHATWG
 *    text on whole lines with unbounded buffers, the limit applied at the end;
 *  - every block: type never empty, no CR in data, no CR or LF in type or id,
 *    data empty unless dispatched, data, id and a set type at most max_event
 *    bytes, at least one line;
 *  - memory stays bounded: after each feed no buffer holds more than
 *    max_event + 1 bytes or has grown past twice that (or buf.c's first 64).
 */
#include "fuzz.h"

#include "base/buf.h"
#include "codec/sse.h"

#include <limits.h>
#include <string.h>

#define SSE_MAX_LEN 16384 /* keep in step with -max_len in fuzz/sse.options */

#define HEADER       2
#define BYTEWISE_MAX 1024
#define NO_LIMIT     255

bool fuzz_seed_wellformed(const uint8_t *data, size_t size, bool handwritten, const char **why)
{
    return fuzz_two_byte_header_ok(
        data, size, handwritten, SSE_MAX_LEN,
        "longer than -max_len in fuzz/sse.options: the fuzzer would cut it", why);
}

/* ---- blocks, serialized so that two runs compare with one memcmp ------------------------ */

typedef struct run {
    mcps_buf out;
    size_t asked;     /* the limit handed to mcps_sse_init */
    size_t max_event; /* the limit it applies */
} run;

static void put_bytes(mcps_buf *b, const char *s, size_t n)
{
    mcps_buf_append(b, &n, sizeof n);
    mcps_buf_append(b, s, n);
}

static void put_block(mcps_buf *b, const mcps_sse_event *ev)
{
    put_bytes(b, ev->type, ev->type_len);
    put_bytes(b, ev->data, ev->data_len);
    put_bytes(b, ev->id, ev->id_len);
    unsigned char flags = (unsigned char)(ev->has_id_field | ev->id_cut << 1 | ev->dispatched << 2 |
                                          ev->oversize << 3);
    mcps_buf_append(b, &flags, 1);
    mcps_buf_append(b, &ev->retry_ms, sizeof ev->retry_ms);
    mcps_buf_append(b, &ev->fields, sizeof ev->fields);
    mcps_buf_append(b, &ev->comments, sizeof ev->comments);
}

static void check_block(const mcps_sse_event *ev, size_t max_event)
{
    FUZZ_CHECK(ev->type && ev->data && ev->id);
    FUZZ_CHECK(ev->type_len > 0); /* so a dispatched event always has a type */
    FUZZ_CHECK(ev->type_len <= max_event || (ev->type_len == 7 && !memcmp(ev->type, "message", 7)));
    FUZZ_CHECK(ev->data_len <= max_event && ev->id_len <= max_event);
    FUZZ_CHECK(ev->dispatched || ev->data_len == 0);
    FUZZ_CHECK(!memchr(ev->data, '\r', ev->data_len));
    FUZZ_CHECK(!memchr(ev->type, '\r', ev->type_len) && !memchr(ev->type, '\n', ev->type_len));
    FUZZ_CHECK(!memchr(ev->id, '\r', ev->id_len) && !memchr(ev->id, '\n', ev->id_len));
    FUZZ_CHECK(ev->retry_ms >= -1);
    FUZZ_CHECK(ev->fields + ev->comments > 0);
    FUZZ_CHECK(!ev->oversize || ev->dispatched || ev->type_len == max_event);
}

static void on_block(void *ctx, const mcps_sse_event *ev)
{
    run *r = ctx;
    check_block(ev, r->max_event);
    put_block(&r->out, ev);
}

static void check_bounded(const mcps_sse_parser *p, size_t max_event)
{
    if (max_event > SSE_MAX_LEN)
        return;
    FUZZ_CHECK(p->data.len <= max_event + 1);
    FUZZ_CHECK(p->type.len <= max_event && p->id.len <= max_event && p->value.len <= max_event);
    size_t cap = 2 * (max_event + 2) < 64 ? 64 : 2 * (max_event + 2); /* buf.c starts at 64 */
    FUZZ_CHECK(p->data.cap <= cap && p->type.cap <= cap && p->id.cap <= cap && p->value.cap <= cap);
}

/* Feed the stream in pieces ending at cuts[0..n) (ascending), then end it. */
static void parse_cut(run *r, const uint8_t *s, size_t n, const size_t *cuts, size_t ncuts)
{
    mcps_sse_parser p;
    mcps_sse_init(&p, r->asked, on_block, r);
    size_t at = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t end = i < ncuts ? cuts[i] : n;
        FUZZ_CHECK(end >= at && end <= n);
        FUZZ_CHECK(mcps_sse_feed(&p, (const char *)s + at, end - at));
        check_bounded(&p, r->max_event);
        at = end;
    }
    mcps_sse_finish(&p);
    mcps_sse_free(&p);
}

/* ---- the reference: WHATWG on whole lines, unbounded, the limit applied at dispatch ----- */

typedef struct ref {
    mcps_buf data, type, id;
    bool has_id;
    long retry;
    size_t fields, comments;
    size_t max_event;
} ref;

static bool named(const uint8_t *name, size_t n, const char *want)
{
    return n == strlen(want) && memcmp(name, want, n) == 0;
}

static long digits_value(const uint8_t *v, size_t n)
{
    if (n == 0)
        return -1;
    long x = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return -1;
        int d = v[i] - '0';
        x = x > (LONG_MAX - d) / 10 ? LONG_MAX : x * 10 + d;
    }
    return x;
}

static void ref_field(ref *f, const uint8_t *name, size_t nn, const uint8_t *v, size_t vn)
{
    f->fields++;
    if (named(name, nn, "event")) {
        mcps_buf_clear(&f->type);
        mcps_buf_append(&f->type, v, vn);
    } else if (named(name, nn, "data")) {
        mcps_buf_append(&f->data, v, vn);
        mcps_buf_putc(&f->data, '\n');
    } else if (named(name, nn, "id")) {
        if (memchr(v, '\0', vn))
            return;
        mcps_buf_clear(&f->id);
        mcps_buf_append(&f->id, v, vn);
        f->has_id = true;
    } else if (named(name, nn, "retry")) {
        long x = digits_value(v, vn);
        if (x >= 0)
            f->retry = x;
    }
}

static void ref_dispatch(ref *f, mcps_buf *out)
{
    if (f->fields + f->comments == 0)
        return;
    size_t lim = f->max_event;
    size_t data_len = f->data.len ? f->data.len - 1 : 0; /* the final LF removed */
    mcps_sse_event ev = {
        .type = f->type.len ? f->type.data : "message",
        .type_len = f->type.len ? (f->type.len < lim ? f->type.len : lim) : 7,
        .data = f->data.len ? f->data.data : "",
        .data_len = data_len < lim ? data_len : lim,
        .id = f->id.len ? f->id.data : "",
        .id_len = f->id.len < lim ? f->id.len : lim,
        .has_id_field = f->has_id,
        .id_cut = f->id.len > lim,
        .retry_ms = f->retry,
        .dispatched = f->data.len > 0,
        .oversize = data_len > lim || f->type.len > lim,
        .fields = f->fields,
        .comments = f->comments,
    };
    put_block(out, &ev);
    mcps_buf_clear(&f->data);
    mcps_buf_clear(&f->type);
    f->has_id = false;
    f->retry = -1;
    f->fields = f->comments = 0;
}

static void ref_line(ref *f, const uint8_t *line, size_t n, mcps_buf *out)
{
    if (n == 0) {
        ref_dispatch(f, out);
        return;
    }
    if (line[0] == ':') {
        f->comments++;
        return;
    }
    const uint8_t *colon = memchr(line, ':', n);
    if (!colon) {
        ref_field(f, line, n, line, 0);
        return;
    }
    size_t nn = (size_t)(colon - line);
    const uint8_t *v = colon + 1;
    size_t vn = n - nn - 1;
    if (vn && *v == ' ') {
        v++;
        vn--;
    }
    ref_field(f, line, nn, v, vn);
}

static void reference(mcps_buf *out, const uint8_t *s, size_t n, size_t max_event)
{
    ref f = {.retry = -1, .max_event = max_event};
    size_t pos = n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3) ? 3 : 0;
    while (pos < n) {
        size_t e = pos;
        while (e < n && s[e] != '\r' && s[e] != '\n')
            e++;
        if (e == n)
            break; /* an unterminated last line: discarded with its block */
        ref_line(&f, s + pos, e - pos, out);
        pos = e + (s[e] == '\r' && e + 1 < n && s[e + 1] == '\n' ? 2 : 1);
    }
    mcps_buf_free(&f.data);
    mcps_buf_free(&f.type);
    mcps_buf_free(&f.id);
}

/* ---- the runs ----------------------------------------------------------------------------- */

static void same(const run *a, const mcps_buf *b)
{
    FUZZ_CHECK(!a->out.oom && !b->oom);
    FUZZ_CHECK(a->out.len == b->len);
    FUZZ_CHECK(a->out.len == 0 || memcmp(a->out.data, b->data, b->len) == 0);
}

static size_t split_point(const uint8_t *s, size_t n)
{
    uint32_t h = 2166136261u ^ (uint32_t)n;
    for (size_t i = 0; i < n && i < 32; i++)
        h = (h ^ s[i]) * 16777619u;
    return n ? h % (n + 1) : 0;
}

/* The chunked run's cut points, as byte 1 says; *ncuts of them. */
static size_t *chunk_cuts(const uint8_t *s, size_t n, unsigned cut, size_t *ncuts)
{
    size_t *cuts = calloc(2 * n + 1, sizeof *cuts);
    FUZZ_CHECK(cuts != NULL);
    size_t largest = 1 + (cut & 31) * 4, k = 0;
    uint32_t state = cut * 2654435761u + 1;
    for (size_t pos = 0; pos < n;) {
        size_t c;
        if (cut & 0x80) {
            c = 1 + s[pos] % largest;
        } else {
            state = state * 1103515245u + 12345u;
            c = 1 + (state >> 16) % largest;
        }
        if (c > n - pos)
            c = n - pos;
        if (cut & 0x40)
            cuts[k++] = pos; /* an empty feed */
        pos += c;
        if (pos < n)
            cuts[k++] = pos;
    }
    *ncuts = k;
    return cuts;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < HEADER || size > SSE_MAX_LEN)
        return 0;
    size_t asked = data[0] == NO_LIMIT ? SIZE_MAX / 2 : data[0];
    size_t max_event = asked ? asked : 1;
    const uint8_t *s = data + HEADER;
    size_t n = size - HEADER;

    run whole = {.asked = asked, .max_event = max_event};
    parse_cut(&whole, s, n, NULL, 0);

    mcps_buf want = {0};
    reference(&want, s, n, max_event);
    same(&whole, &want);
    mcps_buf_free(&want);

    run two = {.asked = asked, .max_event = max_event};
    size_t at = split_point(s, n);
    parse_cut(&two, s, n, &at, 1);
    same(&two, &whole.out);
    mcps_buf_free(&two.out);

    run chunked = {.asked = asked, .max_event = max_event};
    size_t ncuts;
    size_t *cuts = chunk_cuts(s, n, data[1], &ncuts);
    parse_cut(&chunked, s, n, cuts, ncuts);
    same(&chunked, &whole.out);
    mcps_buf_free(&chunked.out);

    if (n <= BYTEWISE_MAX) {
        for (size_t i = 1; i < n; i++)
            cuts[i - 1] = i;
        run bytes = {.asked = asked, .max_event = max_event};
        parse_cut(&bytes, s, n, cuts, n ? n - 1 : 0);
        same(&bytes, &whole.out);
        mcps_buf_free(&bytes.out);
    }
    free(cuts);
    mcps_buf_free(&whole.out);
    return 0;
}
