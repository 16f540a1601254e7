/*
 * headers.c - the header corruptions of `mcpspec fuzz --url`: the headers a
 * Streamable HTTP server reads before the body (content negotiation, the
 * protocol version, the session, the 2026-07-28 routing headers) given values
 * a server must refuse cleanly, or left out. A crash, a 5xx or a dropped
 * ping after one is a finding like any other.
 */
#include "live/headers.h"

#include "base/buf.h"
#include "base/utf8.h"
#include "codec/json.h"
#include "live/rng.h"

#include <stdlib.h>
#include <string.h>

#define HEADER_STREAM 0x4ead5u /* a stream of its own: the inputs stay what gen.c made */
#define LONG_VALUE    4096

static const char *const names[] = {"Content-Type",   "Accept",     "MCP-Protocol-Version",
                                    "Mcp-Session-Id", "Mcp-Method", "Mcp-Name",
                                    "Last-Event-ID",  "Origin"};

/* Printable ASCII only: a CR or LF would split the request, which libcurl refuses. */
static const char *const values[] = {"",
                                     "text/plain",
                                     "application/json; charset=utf-16",
                                     "*/*",
                                     "text/event-stream",
                                     "1999-01-01",
                                     "2024-11-05",
                                     "2025-11-25",
                                     "2026-07-28",
                                     "2025-06-18, 2025-03-26",
                                     "x y",
                                     "=?base64?AAAA?=",
                                     "../../../etc/passwd",
                                     "http://evil.example",
                                     "-1",
                                     "tools/call"};

static cJSON *value(mcps_live_rng *r)
{
    size_t pick = mcps_live_rng_below(r, sizeof values / sizeof *values + 2);
    if (pick == sizeof values / sizeof *values)
        return cJSON_CreateNull(); /* leave the header out */
    if (pick < sizeof values / sizeof *values)
        return cJSON_CreateString(values[pick]);
    size_t n = mcps_live_rng_chance(r, 1, 2) ? 64 : LONG_VALUE;
    char *text = malloc(n + 1);
    if (!text)
        return cJSON_CreateNull();
    memset(text, 'A' + (int)mcps_live_rng_below(r, 26), n);
    text[n] = '\0';
    cJSON *v = cJSON_CreateString(text);
    free(text);
    return v;
}

static bool sayable(const mcps_live_input *in)
{
    return memchr(in->bytes, '\0', in->len) == NULL && mcps_utf8_valid(in->bytes, in->len, NULL);
}

static void corrupt_one(mcps_live_rng *r, mcps_live_input *in)
{
    cJSON *h = cJSON_CreateObject();
    cJSON_AddItemToObject(h, names[mcps_live_rng_below(r, sizeof names / sizeof *names)], value(r));
    free(in->headers);
    in->headers = cJSON_PrintUnformatted(h);
    cJSON_Delete(h);
}

void mcps_live_headers_corrupt(mcps_live_seq *q, uint64_t seed)
{
    mcps_live_rng r;
    mcps_live_rng_seed(&r, mcps_live_rng_derive(seed, HEADER_STREAM));
    for (size_t i = 0; i < q->n; i++)
        if (mcps_live_rng_chance(&r, 1, 8) && sayable(&q->items[i]))
            corrupt_one(&r, &q->items[i]);
}
