/*
 * fuzz_observe.c - fuzz target for the passive observer (harness/session/observe.h).
 *
 * Input: one header byte, an optional newline, then a transcript as
 * `mcpspec lint` reads it: lines, each optionally marked "--> " (client to
 * server) or "<-- " (server to client). The header keeps seeds readable:
 *   bits 0-2  revision: 0 none, 1..5 2024-11-05..2026-07-28 (6, 7: none)
 *   bit 3     small limits: max_message 256 bytes and 4 tracked requests, so
 *             the oversize, held-line and tracking-full paths are reached
 *   bit 6     learn the revision from an initialize exchange, as lint does
 * so "0\n" grades with no revision, "3\n" as 2025-06-18, "8\n" is "0\n" with
 * small limits, "C\n" learns the revision starting from 2025-06-18.
 *
 * Invariants, each an abort when broken: nothing crashes or leaks; every
 * finding cites requirement IDs the catalog has (only the oversize note cites
 * none) with a message and an offset inside the stream; memory stays bounded
 * (held text within max_message, held lines and tracked requests within their
 * caps); whole messages come back with their lines in order.
 */
#include "fuzz.h"

#include "codec/frame.h"
#include "engine/catalog.h"
#include "session/observe.h"

#include <string.h>

#define OBSERVE_MAX_LEN 16384 /* keep in step with -max_len in fuzz/observe.options */
#define MAX_HELD_LINES  256   /* observe.c's cap on lines joined into one message */

typedef struct ctx {
    size_t stream_len;
    size_t line;
    size_t findings;
} ctx;

bool fuzz_seed_wellformed(const uint8_t *data, size_t size, bool handwritten, const char **why)
{
    if (size > OBSERVE_MAX_LEN) {
        *why = "longer than -max_len in fuzz/observe.options: the fuzzer would cut it";
        return false;
    }
    if (size < 1) {
        *why = "empty: not even the header byte";
        return false;
    }
    if (handwritten && (size < 2 || data[1] != '\n')) {
        *why = "no header line: the first line must be one header byte, e.g. \"0\" or \"3\"";
        return false;
    }
    if (handwritten && (data[0] & 7) > 5) {
        *why = "header byte names revision 6 or 7; seeds use 0 (none) to 5";
        return false;
    }
    return true;
}

static void check_ids(const char *reqs)
{
    FUZZ_CHECK(reqs[0] != '\0');
    for (const char *p = reqs; *p;) {
        size_t n = strcspn(p, " ");
        char id[64];
        FUZZ_CHECK(n > 0 && n < sizeof id);
        memcpy(id, p, n);
        id[n] = '\0';
        if (!mcps_catalog_find(id)) {
            fprintf(stderr, "fuzz_observe: finding cites \"%s\", not in the catalog\n", id);
            abort();
        }
        p += n + (p[n] == ' ');
    }
}

static void on_finding(void *arg, const mcps_finding *f)
{
    ctx *c = arg;
    c->findings++;
    if (f->reqs) /* NULL only for the not-judged note on an oversize message */
        check_ids(f->reqs);
    FUZZ_CHECK(f->message[0] != '\0' && memchr(f->message, '\0', sizeof f->message));
    FUZZ_CHECK(f->offset <= c->stream_len);
    FUZZ_CHECK(f->line >= 1 && f->line <= c->line);
}

static size_t direction_prefix(const char *s, size_t n, mcps_dir *dir)
{
    *dir = MCPS_DIR_UNKNOWN;
    if (n >= 3 && memcmp(s, "-->", 3) == 0)
        *dir = MCPS_DIR_TO_SERVER;
    else if (n >= 3 && memcmp(s, "<--", 3) == 0)
        *dir = MCPS_DIR_FROM_SERVER;
    else
        return 0;
    return n > 3 && s[3] == ' ' ? 4 : 3;
}

static void learn_revision(mcps_observer *obs, const mcps_observed *m)
{
    if (m->info.kind != MCPS_RPC_RESULT)
        return;
    mcps_dir asker = m->dir == MCPS_DIR_FROM_SERVER ? MCPS_DIR_TO_SERVER
                     : m->dir == MCPS_DIR_TO_SERVER ? MCPS_DIR_FROM_SERVER
                                                    : MCPS_DIR_UNKNOWN;
    const mcps_tracked_request *req = mcps_observer_request_for(obs, m->info.id, asker);
    if (!req || strcmp(req->method, "initialize") != 0)
        return;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m->info.result, "protocolVersion");
    mcps_rev rev = cJSON_IsString(v) ? mcps_rev_parse(v->valuestring) : MCPS_REV_NONE;
    if (rev != MCPS_REV_NONE)
        mcps_observer_set_rev(obs, rev);
}

static void check_excerpt(const char *data, size_t len)
{
    char dst[100];
    size_t n = (len * 7 + 3) % sizeof dst;
    memset(dst, 'x', sizeof dst);
    mcps_excerpt(data, len, dst, n);
    if (n >= 8)
        FUZZ_CHECK(memchr(dst, '\0', n) != NULL);
    else if (n > 0)
        FUZZ_CHECK(dst[0] == '\0');
    FUZZ_CHECK(dst[sizeof dst - 1] == 'x' || n == sizeof dst);
}

static void judge(mcps_observer *obs, ctx *c, const mcps_frame *fr, bool learn)
{
    if (fr->oversize) {
        mcps_observer_oversize(obs, MCPS_DIR_UNKNOWN, fr->len, fr->offset, c->line);
        return;
    }
    check_excerpt(fr->data, fr->len);
    mcps_dir dir;
    size_t skip = direction_prefix(fr->data, fr->len, &dir);
    mcps_observed m;
    if (mcps_observer_line(obs, dir, fr->data + skip, fr->len - skip, fr->offset + skip, c->line,
                           &m)) {
        FUZZ_CHECK(m.msg != NULL);
        FUZZ_CHECK(m.line <= m.last_line && m.last_line == c->line);
        FUZZ_CHECK(m.offset <= fr->offset + skip);
        if (learn)
            learn_revision(obs, &m);
        mcps_json_delete(m.msg);
    }
    FUZZ_CHECK(obs->held.len <= obs->max_message);
    FUZZ_CHECK(obs->held_lines <= MAX_HELD_LINES);
    FUZZ_CHECK(obs->nrequests <= obs->max_tracked);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > OBSERVE_MAX_LEN)
        return 0;
    unsigned header = data[0];
    size_t skip = size >= 2 && data[1] == '\n' ? 2 : 1;
    const char *stream = (const char *)data + skip;
    size_t n = size - skip;
    int revbits = (int)(header & 7);
    mcps_rev rev =
        revbits >= 1 && revbits <= MCPS_REV_COUNT ? (mcps_rev)(revbits - 1) : MCPS_REV_NONE;
    bool small = header & 8, learn = header & 0x40;
    size_t max_message = small ? 256 : OBSERVE_MAX_LEN;

    ctx c = {.stream_len = n};
    mcps_observer obs;
    mcps_observer_init(&obs, rev, max_message, on_finding, &c);
    if (small)
        obs.max_tracked = 4;
    mcps_framer fr;
    mcps_framer_init(&fr, max_message);
    FUZZ_CHECK(mcps_framer_feed(&fr, stream, n));
    mcps_frame f;
    while (mcps_framer_next(&fr, &f)) {
        c.line++; /* one feed: every frame, oversize or not, is a line of its own */
        judge(&obs, &c, &f, learn);
    }
    if (mcps_framer_finish(&fr, &f)) {
        c.line++;
        judge(&obs, &c, &f, learn);
    }
    mcps_observer_finish(&obs);
    FUZZ_CHECK(obs.held_lines == 0);
    mcps_observer_free(&obs);
    mcps_framer_free(&fr);
    return 0;
}
