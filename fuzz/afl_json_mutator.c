/*
 * afl_json_mutator.c - an AFL++ custom mutator (AFL_CUSTOM_MUTATOR_LIBRARY) for the inputs of
 * `mcpspec fuzz --afl`: JSON-RPC messages, one a line. AFL's own havoc edits bytes anywhere:
 * on a 250-byte session, a given byte value at a given offset is a 1 in 64,000 draw for its
 * byte-setting mutation, one of some 40 kinds, and most edits stacked with it break the JSON
 * before the handler is reached. This mutator makes one edit that keeps the input JSON: inside
 * one string value (a byte set, inserted or deleted; a dictionary token written over it or
 * into it), or on the sequence (a line dropped or duplicated, or a line of another queue entry
 * inserted). The same byte is then about a 1 in 20,000 draw, a whole token 1 in 10,000
 * (fuzz/README.md). Strings inside a _meta object are left alone (below). It knows nothing of any
 * target: the values it writes are random bytes or the tokens of the dictionaries named in
 * MCPS_AFL_MUTATOR_DICT (AFL's -x format, files separated by ':'), such as the compiler's
 * (scripts/afl-build's DIR/refserver.dict). AFL still chooses what to keep, by coverage; havoc runs
 * too unless AFL_CUSTOM_MUTATOR_ONLY is set. Built by scripts/afl-build into
 * DIR/afl-json-mutator.so with the system compiler (not instrumented).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hex.h"

#define MCPS_AFLMUT_SPANS  64   /* string values considered per input */
#define MCPS_AFLMUT_TOKENS 4096 /* dictionary tokens kept */
#define MCPS_AFLMUT_TOKLEN 128  /* longest token kept */

typedef struct mcps_aflmut_span {
    size_t start, len; /* the bytes between the quotes */
} mcps_aflmut_span;

typedef struct mcps_aflmut {
    uint64_t rng;
    unsigned char *out;
    size_t cap;
    char *tokens[MCPS_AFLMUT_TOKENS];
    size_t token_len[MCPS_AFLMUT_TOKENS];
    size_t ntokens;
} mcps_aflmut;

/* The AFL++ custom mutator interface (its names are AFL's, not ours). */
void *afl_custom_init(void *afl, unsigned int seed);
size_t afl_custom_fuzz(void *data, unsigned char *buf, size_t buf_size, unsigned char **out_buf,
                       unsigned char *add_buf, size_t add_buf_size, size_t max_size);
void afl_custom_deinit(void *data);

static uint64_t mcps_aflmut_next(mcps_aflmut *m)
{
    uint64_t z = (m->rng += 0x9e3779b97f4a7c15ULL); /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static size_t mcps_aflmut_below(mcps_aflmut *m, size_t n)
{
    return n ? (size_t)(mcps_aflmut_next(m) % n) : 0;
}

/* A token's value from `name="value"` (AFL's escapes: \\, \", \xNN); it must fit in a JSON
 * string unescaped (no quote, backslash or control byte), else it is skipped. */
static void mcps_aflmut_add_token(mcps_aflmut *m, const char *line)
{
    const char *a = strchr(line, '"'), *b = strrchr(line, '"');
    if (!a || b <= a || m->ntokens == MCPS_AFLMUT_TOKENS)
        return;
    char v[MCPS_AFLMUT_TOKLEN];
    size_t n = 0;
    for (const char *p = a + 1; p < b; p++) {
        int c = (unsigned char)*p;
        if (c == '\\' && p + 1 < b && p[1] == 'x' && p + 3 < b) {
            c = mcps_hex_byte(p + 2);
            if (c < 0)
                return;
            p += 3;
        } else if (c == '\\' && p + 1 < b) {
            c = (unsigned char)*++p;
        }
        if (c < 0x20 || c == '"' || c == '\\' || c == 0x7f || n == sizeof v)
            return;
        v[n++] = (char)c;
    }
    char *t = n ? malloc(n) : NULL;
    if (!t)
        return;
    memcpy(t, v, n);
    m->tokens[m->ntokens] = t;
    m->token_len[m->ntokens++] = n;
}

static void mcps_aflmut_load(mcps_aflmut *m, const char *paths)
{
    char path[4096], line[1024];
    for (const char *p = paths; p && *p;) {
        size_t n = strcspn(p, ":");
        if (n && n < sizeof path) {
            memcpy(path, p, n);
            path[n] = '\0';
            FILE *f = fopen(path, "r");
            while (f && fgets(line, sizeof line, f))
                if (line[0] != '#')
                    mcps_aflmut_add_token(m, line);
            if (f)
                fclose(f);
        }
        p += n;
        p += *p == ':';
    }
}

void *afl_custom_init(void *afl, unsigned int seed)
{
    (void)afl;
    mcps_aflmut *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->rng = seed;
    mcps_aflmut_load(m, getenv("MCPS_AFL_MUTATOR_DICT"));
    return m;
}

void afl_custom_deinit(void *data)
{
    mcps_aflmut *m = data;
    for (size_t i = 0; i < m->ntokens; i++)
        free(m->tokens[i]);
    free(m->out);
    free(m);
}

/* Where a string closed at buf[j] is a key: its ':' (after blanks), else len. */
static size_t mcps_aflmut_colon(const unsigned char *buf, size_t len, size_t j)
{
    size_t k = j + 1;
    while (k < len && (buf[k] == ' ' || buf[k] == '\t'))
        k++;
    return k < len && buf[k] == ':' ? k : len;
}

/* Whether the key buf[i..j] (quotes included) is "_meta" and its value, after the colon at
 * k, an object. */
static bool mcps_aflmut_meta_key(const unsigned char *buf, size_t len, size_t i, size_t j, size_t k)
{
    if (j - i != 6 || memcmp(buf + i + 1, "_meta", 5) != 0)
        return false;
    while (++k < len && (buf[k] == ' ' || buf[k] == '\t'))
        ;
    return k < len && buf[k] == '{';
}

/*
 * The string values of buf: a key is left alone, and so is everything inside a _meta object.
 * 2026-07-28 puts the revision's _meta (protocolVersion, clientInfo, ...) on every request:
 * left in, it holds most of a session's strings, and the handful that reach a handler are
 * lost among them (and past the span limit). The black-box mode fuzzes _meta.
 */
static size_t mcps_aflmut_spans(const unsigned char *buf, size_t len, mcps_aflmut_span *s)
{
    size_t n = 0, depth = 0, meta = 0; /* meta: the depth of the _meta object we are in */
    for (size_t i = 0; i < len && n < MCPS_AFLMUT_SPANS; i++) {
        if (buf[i] == '\n')
            depth = meta = 0; /* one message a line */
        if (buf[i] == '{')
            depth++;
        if (buf[i] == '}' && depth)
            meta = depth-- == meta ? 0 : meta;
        if (buf[i] != '"')
            continue;
        size_t j = i + 1;
        while (j < len && buf[j] != '"' && buf[j] != '\n')
            j += buf[j] == '\\' ? 2 : 1;
        if (j >= len || buf[j] != '"')
            return n;
        size_t k = mcps_aflmut_colon(buf, len, j);
        if (k < len && !meta && mcps_aflmut_meta_key(buf, len, i, j, k))
            meta = depth + 1;
        else if (k == len && !meta)
            s[n++] = (mcps_aflmut_span){i + 1, j - i - 1};
        i = j;
    }
    return n;
}

/* out = buf with [at, at + cut) replaced by ins (ilen bytes); 0 when over max_size. */
static size_t mcps_aflmut_splice(mcps_aflmut *m, const unsigned char *buf, size_t len, size_t at,
                                 size_t cut, const void *ins, size_t ilen, size_t max_size)
{
    size_t n = len - cut + ilen;
    if (n > max_size || n == 0)
        return 0;
    if (n > m->cap) {
        unsigned char *grown = realloc(m->out, n);
        if (!grown)
            return 0;
        m->out = grown;
        m->cap = n;
    }
    memmove(m->out, buf, at);
    memcpy(m->out + at, ins, ilen);
    memcpy(m->out + at + ilen, buf + at + cut, len - at - cut);
    return n;
}

static unsigned char mcps_aflmut_printable(mcps_aflmut *m)
{
    for (;;) { /* printable ASCII but the two bytes a JSON string must escape */
        unsigned char c = (unsigned char)(0x20 + mcps_aflmut_below(m, 0x5f));
        if (c != '"' && c != '\\')
            return c;
    }
}

/* A random whole line [*a, *b) of buf, its newline included; false when buf has none. */
static bool mcps_aflmut_pick_line(mcps_aflmut *m, const unsigned char *buf, size_t len, size_t *a,
                                  size_t *b)
{
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += buf[i] == '\n';
    size_t pick = mcps_aflmut_below(m, lines), seen = 0;
    *a = 0;
    for (size_t i = 0; i < len; i++) {
        if (buf[i] != '\n')
            continue;
        if (seen++ == pick) {
            *b = i + 1;
            return true;
        }
        *a = i + 1;
    }
    return false;
}

/* The message sequence edited: a line dropped or duplicated, or a line of another queue
 * entry (AFL's add_buf) inserted before one of ours, so requests from different inputs
 * meet in one session. */
static size_t mcps_aflmut_line(mcps_aflmut *m, const unsigned char *buf, size_t len,
                               const unsigned char *add, size_t add_len, size_t max_size)
{
    size_t a, b, x, y;
    if (!mcps_aflmut_pick_line(m, buf, len, &a, &b))
        return 0;
    switch (mcps_aflmut_below(m, 3)) {
    case 0:
        if (b - a < len)
            return mcps_aflmut_splice(m, buf, len, a, b - a, "", 0, max_size);
        return 0;
    case 1:
        return mcps_aflmut_splice(m, buf, len, b, 0, buf + a, b - a, max_size);
    default:
        if (!add || !mcps_aflmut_pick_line(m, add, add_len, &x, &y))
            return 0;
        return mcps_aflmut_splice(m, buf, len, a, 0, add + x, y - x, max_size);
    }
}

/* One edit inside the string value s. */
static size_t mcps_aflmut_value(mcps_aflmut *m, const unsigned char *buf, size_t len,
                                mcps_aflmut_span s, size_t max_size)
{
    size_t at = s.start + mcps_aflmut_below(m, s.len + 1);
    unsigned char c = mcps_aflmut_printable(m);
    size_t t = mcps_aflmut_below(m, m->ntokens);
    switch (mcps_aflmut_below(m, m->ntokens ? 5 : 3)) {
    case 0: /* a byte set */
        if (!s.len)
            return mcps_aflmut_splice(m, buf, len, at, 0, &c, 1, max_size);
        at = s.start + mcps_aflmut_below(m, s.len);
        return mcps_aflmut_splice(m, buf, len, at, 1, &c, 1, max_size);
    case 1: /* a byte inserted */
        return mcps_aflmut_splice(m, buf, len, at, 0, &c, 1, max_size);
    case 2: /* a byte deleted */
        if (!s.len)
            return 0;
        at = s.start + mcps_aflmut_below(m, s.len);
        return mcps_aflmut_splice(m, buf, len, at, 1, "", 0, max_size);
    case 3: /* the value replaced by a token */
        return mcps_aflmut_splice(m, buf, len, s.start, s.len, m->tokens[t], m->token_len[t],
                                  max_size);
    default: /* a token inserted */
        return mcps_aflmut_splice(m, buf, len, at, 0, m->tokens[t], m->token_len[t], max_size);
    }
}

size_t afl_custom_fuzz(void *data, unsigned char *buf, size_t buf_size, unsigned char **out_buf,
                       unsigned char *add_buf, size_t add_buf_size, size_t max_size)
{
    mcps_aflmut *m = data;
    mcps_aflmut_span spans[MCPS_AFLMUT_SPANS];
    size_t n = mcps_aflmut_spans(buf, buf_size, spans);
    size_t len = 0;
    if (n && mcps_aflmut_below(m, 8))
        len = mcps_aflmut_value(m, buf, buf_size, spans[mcps_aflmut_below(m, n)], max_size);
    else
        len = mcps_aflmut_line(m, buf, buf_size, add_buf, add_buf_size, max_size);
    if (!len) { /* nothing to do: the input unchanged, AFL skips a repeat cheaply */
        *out_buf = buf;
        return buf_size;
    }
    *out_buf = m->out;
    return len;
}
