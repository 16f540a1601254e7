/*
 * test_sse.c - the event-stream parser (codec/sse.h) against the WHATWG
 * "event stream interpretation": each grammar point, the blocks reported
 * beside dispatched events, end of stream, bounded memory, and the same
 * events however the stream is cut into feeds (one byte at a time and at
 * every 2-way split of every stream here).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "codec/sse.h"

/* ---- recording: every reported block as one readable line ------------------------------ */

static void put_escaped(mcps_buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n')
            mcps_buf_puts(b, "\\n");
        else if (c < 0x20 || c >= 0x7F || c == '\\' || c == '|')
            mcps_buf_printf(b, "\\x%02X", c);
        else
            mcps_buf_putc(b, (char)c);
    }
}

/* type|data|id, then flags: D dispatched, I id field, C id cut, O oversize, r retry, f/c counts. */
static void record(void *ctx, const mcps_sse_event *ev)
{
    mcps_buf *b = ctx;
    assert_non_null(ev->type);
    assert_non_null(ev->data);
    assert_non_null(ev->id);
    put_escaped(b, ev->type, ev->type_len);
    mcps_buf_putc(b, '|');
    put_escaped(b, ev->data, ev->data_len);
    mcps_buf_putc(b, '|');
    put_escaped(b, ev->id, ev->id_len);
    mcps_buf_printf(b, "|%s%s%s%s", ev->dispatched ? "D" : "", ev->has_id_field ? "I" : "",
                    ev->id_cut ? "C" : "", ev->oversize ? "O" : "");
    if (ev->retry_ms >= 0)
        mcps_buf_printf(b, " r%ld", ev->retry_ms);
    mcps_buf_printf(b, " f%zu c%zu\n", ev->fields, ev->comments);
}

/* Parse `s` fed in the given cut points (ascending, each < n), then end the stream. */
static char *parse_cut(const char *s, size_t n, size_t max_event, const size_t *cuts, size_t ncuts)
{
    mcps_buf out = {0};
    mcps_sse_parser p;
    mcps_sse_init(&p, max_event, record, &out);
    size_t at = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t end = i < ncuts ? cuts[i] : n;
        assert_true(mcps_sse_feed(&p, s + at, end - at));
        at = end;
    }
    mcps_sse_finish(&p);
    mcps_sse_free(&p);
    mcps_buf_putc(&out, '\0'); /* an empty result is still a string */
    return mcps_buf_take(&out);
}

static char *parse_n(const char *s, size_t n, size_t max_event)
{
    return parse_cut(s, n, max_event, NULL, 0);
}

#define BIG 4096

static void expect_n(const char *s, size_t n, const char *want)
{
    char *got = parse_n(s, n, BIG);
    assert_string_equal(got, want);
    free(got);
}

static void expect(const char *s, const char *want)
{
    expect_n(s, strlen(s), want);
}

/* ---- the grammar ------------------------------------------------------------------------ */

static void test_simple_event(void **state)
{
    (void)state;
    expect("data: hello\n\n", "message|hello||D f1 c0\n");
    expect("data:hello\n\n", "message|hello||D f1 c0\n");
    expect("event: ping\ndata: {}\n\n", "ping|{}||D f2 c0\n");
    expect("data: a:b: c\n\n", "message|a:b: c||D f1 c0\n");
}

static void test_line_ends(void **state)
{
    (void)state;
    const char *want = "message|a\\nb\\nc||D f3 c0\n";
    expect("data:a\ndata:b\ndata:c\n\n", want);
    expect("data:a\rdata:b\rdata:c\r\r", want);
    expect("data:a\r\ndata:b\r\ndata:c\r\n\r\n", want);
    expect("data:a\rdata:b\r\ndata:c\n\r", want);
    /* LF CR is two line ends, the second one blank; CR LF is one. */
    expect("data:a\n\rdata:b\r\n\r\n", "message|a||D f1 c0\nmessage|b||D f1 c0\n");
    /* CR CR LF: a line end, then a blank line. */
    expect("data:a\r\r\ndata:b\n\n", "message|a||D f1 c0\nmessage|b||D f1 c0\n");
}

static void test_crlf_split_across_feeds(void **state)
{
    (void)state;
    const char *s = "data:a\r\ndata:b\r\n\r\n";
    size_t n = strlen(s);
    /* Cut right after each CR: the LF that opens the next feed ends nothing. */
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\r')
            continue;
        size_t cut = i + 1;
        char *got = parse_cut(s, n, BIG, &cut, 1);
        assert_string_equal(got, "message|a\\nb||D f2 c0\n");
        free(got);
    }
    /* An empty feed between the CR and the LF changes nothing either. */
    size_t cuts[] = {7, 7, 7};
    char *got = parse_cut(s, n, BIG, cuts, 3);
    assert_string_equal(got, "message|a\\nb||D f2 c0\n");
    free(got);
}

static void test_bom_only_at_start(void **state)
{
    (void)state;
    expect("\xEF\xBB\xBF"
           "data:x\n\n",
           "message|x||D f1 c0\n");
    /* A second BOM is part of the first field's name: an unknown field. */
    expect("\xEF\xBB\xBF\xEF\xBB\xBF"
           "data:x\n\n",
           "message||| f1 c0\n");
    /* Not at the start: the same. */
    expect("data:a\n\n\xEF\xBB\xBF"
           "data:b\n\n",
           "message|a||D f1 c0\nmessage||| f1 c0\n");
    /* Half a BOM is no BOM: its bytes begin the name. */
    expect("\xEF\xBB"
           "data:x\n\n",
           "message||| f1 c0\n");
    expect("\xEF\xBB\xBF\n"
           "data:x\n\n",
           "message|x||D f1 c0\n");
    /* A BOM alone, or half of one, at end of stream is nothing. */
    expect("\xEF\xBB\xBF", "");
    expect("\xEF", "");
    expect("\xEF\n\n", "message||| f1 c0\n");
}

static void test_comments(void **state)
{
    (void)state;
    /* A comment-only block is reported, not dispatched (a keep-alive). */
    expect(": keep-alive\n\n", "message||| f0 c1\n");
    expect(":\n:x\ndata:y\n:z\n\n", "message|y||D f1 c3\n");
    /* Only a leading colon makes a comment. */
    expect(" :x\n\n", "message||| f1 c0\n");
}

static void test_field_without_colon(void **state)
{
    (void)state;
    /* "data" alone appends an empty line: the buffer is "\n", dispatched with empty data. */
    expect("data\n\n", "message|||D f1 c0\n");
    expect("data\ndata\n\n", "message|\\n||D f2 c0\n");
    expect("event\ndata:x\n\n", "message|x||D f2 c0\n");
    expect("id\n\n", "message|||I f1 c0\n");
    expect("retry\n\n", "message||| f1 c0\n");
    expect("dat\n\n", "message||| f1 c0\n");
}

static void test_one_space_removed(void **state)
{
    (void)state;
    expect("data:  x\n\n", "message| x||D f1 c0\n");
    expect("data: \n\n", "message|||D f1 c0\n");
    expect("data:\tx\n\n", "message|\\x09x||D f1 c0\n");
    expect("data:x \n\n", "message|x ||D f1 c0\n");
    expect("event:  t\ndata:x\n\n", " t|x||D f2 c0\n");
    expect("id:  7\n\n", "message|| 7|I f1 c0\n");
}

static void test_event_type(void **state)
{
    (void)state;
    /* The last event field wins; an empty one means "message"; each block starts afresh. */
    expect("event:a\nevent:b\ndata:x\n\ndata:y\n\n", "b|x||D f3 c0\nmessage|y||D f1 c0\n");
    expect("event:a\nevent:\ndata:x\n\n", "message|x||D f3 c0\n");
    /* Without data the type is reported but nothing is dispatched, and it does not leak on. */
    expect("event:a\n\ndata:x\n\n", "a||| f1 c0\nmessage|x||D f1 c0\n");
    /* Field names are case-sensitive and exact. */
    expect("Event:a\nevents:b\ndata :c\ndata:x\n\n", "message|x||D f4 c0\n");
}

static void test_multiline_data(void **state)
{
    (void)state;
    expect("data:a\ndata:\ndata:b\n\n", "message|a\\n\\nb||D f3 c0\n");
    /* Only the one final LF is removed. */
    expect("data:a\ndata:\n\n", "message|a\\n||D f2 c0\n");
    expect("data:\ndata:\n\n", "message|\\n||D f2 c0\n");
    /* Data is bytes: NUL and invalid UTF-8 are kept as they came. */
    expect_n("data:a\0b\xFF\n\n", 12, "message|a\\x00b\\xFF||D f1 c0\n");
    /* Fields between data lines change nothing in the data. */
    expect("data:a\nfoo:bar\n:c\ndata:b\n\n", "message|a\\nb||D f3 c1\n");
}

static void test_last_event_id(void **state)
{
    (void)state;
    /* The id buffer persists across blocks; has_id_field says which block set it. */
    expect("id: 7\ndata:x\n\ndata:y\n\n", "message|x|7|DI f2 c0\nmessage|y|7|D f1 c0\n");
    /* An empty id resets it. */
    expect("id:7\n\nid:\ndata:y\n\n", "message||7|I f1 c0\nmessage|y||DI f2 c0\n");
    /* NUL in the value: the field is ignored, the buffer keeps its value. */
    expect_n("id:7\n\nid:a\0b\ndata:y\n\n", 21, "message||7|I f1 c0\nmessage|y|7|D f2 c0\n");
    expect_n("id:\0\n\n", 6, "message||| f1 c0\n");
    /* An id without data is not dispatched, but it sets the buffer. */
    expect("id:1\n\ndata:x\n\n", "message||1|I f1 c0\nmessage|x|1|D f1 c0\n");
    /* The last id field of a block wins. */
    expect("id:1\nid:2\ndata:x\n\n", "message|x|2|DI f3 c0\n");
}

static void test_retry(void **state)
{
    (void)state;
    expect("retry: 1000\n\n", "message||| r1000 f1 c0\n");
    expect("retry:0\ndata:x\n\n", "message|x||D r0 f2 c0\n");
    /* Only ASCII digits; anything else, and the empty value, is ignored. */
    expect("retry: 10a\n\n", "message||| f1 c0\n");
    expect("retry: -1\n\n", "message||| f1 c0\n");
    expect("retry: +1\n\n", "message||| f1 c0\n");
    expect("retry:  1\n\n", "message||| f1 c0\n");
    expect("retry: 1 \n\n", "message||| f1 c0\n");
    expect("retry: 1.5\n\n", "message||| f1 c0\n");
    expect("retry:\n\n", "message||| f1 c0\n");
    /* An ignored retry keeps the block's earlier valid one; the last valid one wins. */
    expect("retry:5\nretry:x\n\n", "message||| r5 f2 c0\n");
    expect("retry:5\nretry:6\n\n", "message||| r6 f2 c0\n");
    /* It is per block. */
    expect("retry:5\n\ndata:x\n\n", "message||| r5 f1 c0\nmessage|x||D f1 c0\n");
    /* Beyond long: saturated, still valid. */
    char want[64];
    snprintf(want, sizeof want, "message||| r%ld f1 c0\n", LONG_MAX);
    expect("retry:99999999999999999999999999999\n\n", want);
}

static void test_unknown_fields_ignored(void **state)
{
    (void)state;
    expect("foo: bar\ndata:x\n\n", "message|x||D f2 c0\n");
    expect("foo: bar\n\n", "message||| f1 c0\n");
    expect("retryx:1\ndatadata:1\nid2:1\n\n", "message||| f3 c0\n");
}

static void test_priming_event(void **state)
{
    (void)state;
    /* 2025-11-25 Streamable HTTP: an id and an empty data line, dispatched with empty data. */
    expect("id: 0-1\ndata:\n\n", "message||0-1|DI f2 c0\n");
    expect("id: 0-1\ndata\n\n", "message||0-1|DI f2 c0\n");
    expect("id: 0-1\nretry: 3000\ndata:\n\n", "message||0-1|DI r3000 f3 c0\n");
}

static void test_dispatch_and_end_of_stream(void **state)
{
    (void)state;
    /* Blank lines alone report nothing. */
    expect("\n\n\r\n\r\r", "");
    /* An unterminated block, or an unterminated last line, is discarded. */
    expect("data:x\n", "");
    expect("data:x", "");
    expect("data:x\n\ndata:y\n", "message|x||D f1 c0\n");
    expect("data:x\n\ndata:y", "message|x||D f1 c0\n");
    expect(": c\n", "");
}

static void test_finish_starts_a_new_stream(void **state)
{
    (void)state;
    mcps_buf out = {0};
    mcps_sse_parser p;
    mcps_sse_init(&p, BIG, record, &out);
    const char *one = "id:9\ndata:x\n\ndata:half";
    const char *two = "\xEF\xBB\xBF"
                      "data:y\n\n";
    assert_true(mcps_sse_feed(&p, one, strlen(one)));
    mcps_sse_finish(&p);
    assert_true(mcps_sse_feed(&p, two, strlen(two)));
    mcps_sse_finish(&p);
    mcps_sse_free(&p);
    mcps_buf_putc(&out, '\0');
    /* The second stream's BOM is skipped again, "half" is gone, and its id buffer is empty. */
    assert_string_equal(out.data, "message|x|9|DI f2 c0\nmessage|y||D f1 c0\n");
    mcps_buf_free(&out);
}

/* ---- bounded memory --------------------------------------------------------------------- */

static void test_oversize_data(void **state)
{
    (void)state;
    const char *s = "data:0123456789\n\n";
    char *got = parse_n(s, strlen(s), 10);
    assert_string_equal(got, "message|0123456789||D f1 c0\n"); /* exactly the limit */
    free(got);
    got = parse_n(s, strlen(s), 9);
    assert_string_equal(got, "message|012345678||DO f1 c0\n");
    free(got);
    /* Data lines joined: "1234\n5678" is 9 bytes. */
    s = "data:1234\ndata:5678\n\ndata:z\n\n";
    got = parse_n(s, strlen(s), 9);
    assert_string_equal(got, "message|1234\\n5678||D f2 c0\nmessage|z||D f1 c0\n");
    free(got);
    got = parse_n(s, strlen(s), 8);
    assert_string_equal(got, "message|1234\\n567||DO f2 c0\nmessage|z||D f1 c0\n");
    free(got);
    /* A limit of 1 (0 is taken as 1, so that a cut event type is never empty). */
    s = "data:\n\ndata:x\n\ndata:xy\n\nevent:ab\n\n";
    for (size_t limit = 0; limit <= 1; limit++) {
        got = parse_n(s, strlen(s), limit);
        assert_string_equal(got, "message|||D f1 c0\nmessage|x||D f1 c0\n"
                                 "message|x||DO f1 c0\na|||O f1 c0\n");
        free(got);
    }
}

static void test_oversize_type_and_id(void **state)
{
    (void)state;
    const char *s = "event:abcdef\nid:0123456\ndata:x\n\ndata:y\n\nid:1\n\n";
    char *got = parse_n(s, strlen(s), 4);
    assert_string_equal(got, "abcd|x|0123|DICO f3 c0\n"  /* type cut: oversize */
                             "message|y|0123|DC f1 c0\n" /* the cut id persists */
                             "message||1|I f1 c0\n");
    free(got);
    /* A NUL past the cut still makes the id ignored. */
    got = parse_n("id:123456\0\n\n", 12, 4);
    assert_string_equal(got, "message||| f1 c0\n");
    free(got);
}

/* A reader that stops at a cut event (mcps_sse_end_cut) gets it at once, oversize, as the
 * blank line would have ended it; a block not cut is not ended early. */
static void test_end_cut(void **state)
{
    (void)state;
    mcps_buf out = {0};
    mcps_sse_parser p;
    mcps_sse_init(&p, 4, record, &out);
    assert_true(mcps_sse_feed(&p, "id:7\ndata:ab", 12));
    assert_false(mcps_sse_end_cut(&p));
    assert_true(mcps_sse_feed(&p, "cdef", 4));
    assert_true(mcps_sse_end_cut(&p));
    assert_false(mcps_sse_end_cut(&p));                   /* reported once */
    assert_true(mcps_sse_feed(&p, "event:abcdefgh", 14)); /* a type line being cut */
    assert_true(mcps_sse_end_cut(&p));
    mcps_sse_free(&p);
    mcps_buf_putc(&out, '\0');
    assert_string_equal(out.data, "message|abcd|7|DIO f2 c0\nabcd||7|O f1 c0\n");
    mcps_buf_free(&out);
}

/* Feed a block of `fill` bytes after `head`, a chunk at a time, and check no buffer grew. */
static void flood(const char *head, char fill, const char *tail, size_t max_event)
{
    enum { CHUNK = 4096, TOTAL = 1 << 22 };
    static char chunk[CHUNK];
    memset(chunk, fill, sizeof chunk);
    size_t events = 0;
    mcps_sse_parser p;
    mcps_sse_init(&p, max_event, NULL, &events);
    assert_true(mcps_sse_feed(&p, head, strlen(head)));
    for (size_t sent = 0; sent < TOTAL; sent += CHUNK)
        assert_true(mcps_sse_feed(&p, chunk, CHUNK));
    assert_true(mcps_sse_feed(&p, tail, strlen(tail)));
    size_t bound = 2 * (max_event + 2);
    assert_true(p.data.cap <= bound && p.type.cap <= bound);
    assert_true(p.id.cap <= bound && p.value.cap <= bound);
    mcps_sse_free(&p);
}

static void test_long_lines_stay_bounded(void **state)
{
    (void)state;
    flood("data:", 'x', "\n\n", 100);
    flood("data:", 'x', "\n", 100);
    flood("event:", 'x', "\n", 100);
    flood("id:", 'x', "\n", 100);
    flood("retry:", '7', "\n", 100);
    flood(":", 'x', "\n", 100);
    flood("unknown:", 'x', "\n", 100);
    flood("", 'x', "\n", 100); /* a field name without end */
    /* Many data lines of one event: the event is bounded, not just each line. */
    flood("", '\n', "", 100);
    mcps_sse_parser p;
    mcps_sse_init(&p, 64, NULL, NULL);
    for (int i = 0; i < 100000; i++)
        assert_true(mcps_sse_feed(&p, "data:abc\n", 9));
    assert_true(p.data.cap <= 2 * 66);
    mcps_sse_free(&p);
}

/* ---- chunking --------------------------------------------------------------------------- */

/* Every stream above, and some more, cut at each byte and at every 2-way split. */
static const char *const STREAMS[] = {
    "data: hello\n\n",
    "event: ping\r\ndata: {}\r\n\r\n",
    "data:a\rdata:b\r\ndata:c\n\r",
    "data:a\n\rdata:b\r\n\r\n",
    "data:a\r\r\ndata:b\n\n",
    "\xEF\xBB\xBF"
    "data:x\r\n\r\n",
    "\xEF\xBB\xBF\xEF\xBB\xBF"
    "data:x\n\n",
    "\xEF\xBB"
    "data:x\n\n",
    "\xEF\xBB\xBF\r\rdata:x\r\r",
    ": keep-alive\r\n\r\nid: 0-1\r\ndata:\r\n\r\n",
    "data\rid\rretry:12\r\r",
    "event:a\nevent:\ndata:x\n\ndata:y\n\nretry:5\nretry:x\n\n",
    "id:7\r\rid:\rdata:y\r\r",
    "foo: bar\ndata:x\n\n:c\n",
    "data:x\n\ndata:y",
    "\r\n\r\n\n\r\r",
};

static void test_every_byte_boundary(void **state)
{
    (void)state;
    size_t limits[] = {0, 1, 3, 8, BIG};
    for (size_t s = 0; s < sizeof STREAMS / sizeof STREAMS[0]; s++) {
        const char *text = STREAMS[s];
        size_t n = strlen(text);
        for (size_t l = 0; l < sizeof limits / sizeof limits[0]; l++) {
            char *whole = parse_n(text, n, limits[l]);
            /* One byte at a time. */
            size_t cuts[256];
            assert_true(n <= 256);
            for (size_t i = 1; i < n; i++)
                cuts[i - 1] = i;
            char *bytes = parse_cut(text, n, limits[l], cuts, n ? n - 1 : 0);
            if (strcmp(whole, bytes) != 0)
                fail_msg("stream %zu, limit %zu: byte by byte gave\n%s\nnot\n%s", s, limits[l],
                         bytes, whole);
            free(bytes);
            /* Every 2-way split, including the empty halves. */
            for (size_t cut = 0; cut <= n; cut++) {
                char *two = parse_cut(text, n, limits[l], &cut, 1);
                if (strcmp(whole, two) != 0)
                    fail_msg("stream %zu, limit %zu, cut at %zu: gave\n%s\nnot\n%s", s, limits[l],
                             cut, two, whole);
                free(two);
            }
            free(whole);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simple_event),
        cmocka_unit_test(test_line_ends),
        cmocka_unit_test(test_crlf_split_across_feeds),
        cmocka_unit_test(test_bom_only_at_start),
        cmocka_unit_test(test_comments),
        cmocka_unit_test(test_field_without_colon),
        cmocka_unit_test(test_one_space_removed),
        cmocka_unit_test(test_event_type),
        cmocka_unit_test(test_multiline_data),
        cmocka_unit_test(test_last_event_id),
        cmocka_unit_test(test_retry),
        cmocka_unit_test(test_unknown_fields_ignored),
        cmocka_unit_test(test_priming_event),
        cmocka_unit_test(test_dispatch_and_end_of_stream),
        cmocka_unit_test(test_finish_starts_a_new_stream),
        cmocka_unit_test(test_oversize_data),
        cmocka_unit_test(test_oversize_type_and_id),
        cmocka_unit_test(test_end_cut),
        cmocka_unit_test(test_long_lines_stay_bounded),
        cmocka_unit_test(test_every_byte_boundary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
