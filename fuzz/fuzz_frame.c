/*
 * fuzz_frame.c - fuzz target for stdio line framing (harness/codec/frame.h).
 *
 * Input: two header bytes, then the byte stream.
 *   byte 0  max_line (0..255: small, so the over-long paths are hit often)
 *   byte 1  how to cut the stream into chunks: bits 0-4 scale the largest
 *           chunk (1..125 bytes); bit 6 adds an empty feed before each chunk;
 *           bit 7 takes each chunk's length from the stream byte it starts at,
 *           otherwise from a generator seeded by this byte.
 *
 * Invariants, each an abort when broken:
 *  - feeding the stream in those chunks gives exactly the frames of a single
 *    feed, and both match an independent reference split on '\n' (an over-long
 *    line is reported once with its first max_line bytes; whether that report
 *    says `terminated` depends on where the chunks fell, as frame.h documents);
 *  - every frame's bytes are the stream's bytes at its offset;
 *  - memory stays bounded: after draining, at most max_line bytes are pending
 *    and the buffer holds at most 2 * max_line plus one chunk.
 */
#include "fuzz.h"

#include "codec/frame.h"

#include <string.h>

#define FRAME_MAX_LEN 65536 /* keep in step with -max_len in fuzz/frame.options */
#define HEADER        2

typedef struct seen {
    uint64_t offset;
    size_t len;
    bool oversize;
    bool terminated;
} seen;

typedef struct frames {
    seen *items;
    size_t n, cap;
} frames;

bool fuzz_seed_wellformed(const uint8_t *data, size_t size, bool handwritten, const char **why)
{
    return fuzz_two_byte_header_ok(
        data, size, handwritten, FRAME_MAX_LEN,
        "longer than -max_len in fuzz/frame.options: the fuzzer would cut it", why);
}

static void record(frames *fs, const mcps_frame *fr, const uint8_t *stream, size_t n)
{
    FUZZ_CHECK(fr->offset <= n && fr->len <= n - fr->offset);
    FUZZ_CHECK(memcmp(fr->data, stream + fr->offset, fr->len) == 0);
    FUZZ_CHECK(memchr(fr->data, '\n', fr->len) == NULL);
    if (fs->n)
        FUZZ_CHECK(fr->offset > fs->items[fs->n - 1].offset); /* each frame used up >= 1 byte */
    if (fs->n == fs->cap) {
        fs->cap = fs->cap ? fs->cap * 2 : 64;
        fs->items = realloc(fs->items, fs->cap * sizeof *fs->items);
        FUZZ_CHECK(fs->items != NULL);
    }
    fs->items[fs->n++] = (seen){fr->offset, fr->len, fr->oversize, fr->terminated};
}

static void drain(mcps_framer *f, frames *fs, const uint8_t *stream, size_t n)
{
    mcps_frame fr;
    while (mcps_framer_next(f, &fr))
        record(fs, &fr, stream, n);
}

/* The reference: split on '\n' by hand, with the limit applied per line. */
static void reference(frames *fs, const uint8_t *s, size_t n, size_t max_line)
{
    for (size_t pos = 0; pos < n;) {
        const uint8_t *nl = memchr(s + pos, '\n', n - pos);
        size_t len = nl ? (size_t)(nl - (s + pos)) : n - pos;
        mcps_frame fr = {(const char *)s + pos, len > max_line ? max_line : len, pos, nl != NULL,
                         len > max_line};
        record(fs, &fr, s, n);
        pos += len + (nl ? 1 : 0);
    }
}

static void same_frames(const frames *a, const frames *b)
{
    FUZZ_CHECK(a->n == b->n);
    for (size_t i = 0; i < a->n; i++) {
        const seen *x = &a->items[i], *y = &b->items[i];
        FUZZ_CHECK(x->offset == y->offset && x->len == y->len && x->oversize == y->oversize);
        if (!x->oversize)
            FUZZ_CHECK(x->terminated == y->terminated);
    }
}

static void finish(mcps_framer *f, frames *fs, const uint8_t *stream, size_t n)
{
    mcps_frame fr;
    if (mcps_framer_finish(f, &fr)) {
        FUZZ_CHECK(!fr.terminated && !fr.oversize && fr.len > 0);
        record(fs, &fr, stream, n);
    }
    FUZZ_CHECK(!mcps_framer_finish(f, &fr));
    FUZZ_CHECK(mcps_framer_offset(f) == n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < HEADER || size > FRAME_MAX_LEN)
        return 0;
    size_t max_line = data[0];
    unsigned cut = data[1];
    const uint8_t *stream = data + HEADER;
    size_t n = size - HEADER;

    frames whole = {0}, chunked = {0}, ref = {0};
    mcps_framer f;

    mcps_framer_init(&f, max_line);
    FUZZ_CHECK(mcps_framer_feed(&f, (const char *)stream, n));
    drain(&f, &whole, stream, n);
    finish(&f, &whole, stream, n);
    mcps_framer_free(&f);

    size_t largest = 1 + (cut & 31) * 4;
    uint32_t state = cut * 2654435761u + 1;
    mcps_framer_init(&f, max_line);
    for (size_t pos = 0; pos < n;) {
        size_t c;
        if (cut & 0x80) {
            c = 1 + stream[pos] % largest;
        } else {
            state = state * 1103515245u + 12345u;
            c = 1 + (state >> 16) % largest;
        }
        if (c > n - pos)
            c = n - pos;
        if (cut & 0x40) {
            FUZZ_CHECK(mcps_framer_feed(&f, (const char *)stream + pos, 0));
            drain(&f, &chunked, stream, n);
        }
        FUZZ_CHECK(mcps_framer_feed(&f, (const char *)stream + pos, c));
        drain(&f, &chunked, stream, n);
        pos += c;
        FUZZ_CHECK(mcps_framer_offset(&f) == pos);
        FUZZ_CHECK(f.buf.len - f.start <= max_line);
        FUZZ_CHECK(f.buf.len <= 2 * max_line + c);
    }
    finish(&f, &chunked, stream, n);
    mcps_framer_free(&f);

    reference(&ref, stream, n, max_line);
    same_frames(&whole, &ref);
    same_frames(&chunked, &ref);
    for (size_t i = 0; i < whole.n; i++) /* one feed sees each newline with its line */
        FUZZ_CHECK(whole.items[i].terminated == ref.items[i].terminated);
    free(whole.items);
    free(chunked.items);
    free(ref.items);
    return 0;
}
