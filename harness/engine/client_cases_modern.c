/*
 * client_cases_modern.c - 2026-07-28 client checks over stdio and HTTP that
 * need scenarios of their own: a paged tools/list whose cursors include ""
 * (a real cursor) and an empty page (modern-paged), and a server that
 * advertises an extension nobody knows and answers the first tools/call with
 * a code from -32000..-32019 (modern-odd); and, over stdio, a legacy server
 * refusing a dual-era client's 2026-07-28 probe with -32600 (probe-code).
 *
 * A table of its own, appended after client_cases_http.c's by
 * mcps_client_check_at, so that these grow apart from the handshake era's and
 * from the other tables. Verdicts go through client_grade.c, as every
 * table's do.
 */
#include "engine/client_cases.h"

#include <stdio.h>
#include <string.h>

#include "codec/json.h"
#include "codec/rev.h"
#include "codec/rpc.h"

static const cJSON *member(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name);
}

/* ---- modern-paged: pages [echo] -> [echo-2] with nextCursor "" -> [] -> [echo-3] ---- */

/* Which page a tools/list asks for: 1 without a cursor, 2..4 for the cursors given (page 3's is
 * ""), 0 for any other (an edited cursor). */
static int page_asked(const cJSON *req)
{
    const cJSON *c = member(member(req, "params"), "cursor");
    if (!c)
        return 1;
    if (!cJSON_IsString(c))
        return 0;
    if (!c->valuestring[0])
        return 3;
    if (strcmp(c->valuestring, MCPS_CLIENT_MODERN_CURSOR) == 0)
        return 2;
    return strcmp(c->valuestring, MCPS_CLIENT_MODERN_CURSOR4) == 0 ? 4 : 0;
}

static int modern_paging(const mcps_client_trace *t, mcps_client_grade *g)
{
    bool asked[5] = {false, false, false, false, false};
    for (size_t i = 0; i < t->nmsgs; i++) {
        if (!mcps_client_request_is(t, i, "tools/list") ||
            !mcps_client_meta_version(t->msgs[i].json))
            continue;
        int page = page_asked(t->msgs[i].json);
        if (!page)
            return mcps_client_broke(g, "PAGE-008",
                                     "a tools/list carried a cursor the server never gave "
                                     "(a nextCursor edited or made up)");
        if (page > 1 && asked[4])
            return mcps_client_broke(g, "PAGE-007",
                                     "after page 4, which had no nextCursor (the last), the "
                                     "client asked for another page");
        asked[page] = true;
    }
    if (!asked[1])
        return mcps_client_skip(g, "the client sent no 2026-07-28 tools/list");
    if (!asked[2])
        return mcps_client_skip(
            g, "the client did not ask for the page after the first (it need not)");
    if (!asked[3])
        return mcps_client_broke(
            g, "PAGE-008",
            "page 2 ended with nextCursor \"\" (a real cursor), and the client, which "
            "pages, asked no page with cursor \"\" (as if \"\" ended the list)");
    if (!asked[4])
        return mcps_client_broke(
            g, "PAGE-003",
            "page 3 was empty but had a nextCursor, and the client asked no further (as "
            "if an empty page ended the list)");
    return mcps_client_pass(
        g, "the client followed nextCursor \"\" and an empty page to page 4, the last, "
           "and asked nothing after it");
}

/* ---- modern-odd: an unknown extension advertised; -32001 to the first tools/call ---- */

/* A request after message i that goes on with the core protocol: any but server/discover and
 * initialize. */
static bool core_request_after(const mcps_client_trace *t, size_t i)
{
    for (size_t j = i + 1; j < t->nmsgs; j++)
        if (mcps_client_request_is(t, j, NULL) &&
            !mcps_client_request_is(t, j, "server/discover") &&
            !mcps_client_request_is(t, j, "initialize"))
            return true;
    return false;
}

static int extension_fallback(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->discovered)
        return mcps_client_skip(
            g, "the client did not ask server/discover: it never saw the extension");
    size_t d = mcps_client_find_request(t, 0, "server/discover");
    if (core_request_after(t, d))
        return mcps_client_pass(
            g,
            "after a DiscoverResult advertising %s, unknown to it, the client went on "
            "with core requests",
            MCPS_CLIENT_ODD_EXTENSION);
    return mcps_client_broke(
        g, "VER-010", "after a DiscoverResult advertising %s, the client sent no core request%s",
        MCPS_CLIENT_ODD_EXTENSION, t->exited ? " (it exited)" : "");
}

/* What a request after an opaque error says the client read into its code: NULL if nothing. */
static const char *meaning_read(const mcps_client_trace *t, size_t j)
{
    if (mcps_client_request_is(t, j, "server/discover"))
        return "probed server/discover again (as if the code meant a version or era change)";
    if (mcps_client_request_is(t, j, "initialize"))
        return "fell back to initialize (as if the code meant a legacy server)";
    const char *v =
        mcps_client_request_is(t, j, NULL) ? mcps_client_meta_version(t->msgs[j].json) : NULL;
    if (v && strcmp(v, MCPS_CLIENT_MODERN) != 0)
        return "switched to another protocol version (as if the code meant a version mismatch)";
    return NULL;
}

static int opaque_codes(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t call = mcps_client_find_request(t, 0, "tools/call");
    if (call >= t->nmsgs)
        return mcps_client_skip(g, "the client called no tool: no error of %d to read",
                                MCPS_CLIENT_ODD_CODE);
    for (size_t j = call + 1; j < t->nmsgs; j++) {
        const char *what = meaning_read(t, j);
        if (what)
            return mcps_client_broke(g, "RPC-CODE-003", "after %d to its tools/call, the client %s",
                                     MCPS_CLIENT_ODD_CODE, what);
    }
    return mcps_client_pass(
        g,
        "after %d to its tools/call, no server/discover, no initialize and no other "
        "version: the code was taken as an opaque error",
        MCPS_CLIENT_ODD_CODE);
}

/* ---- probe-code: a legacy server refusing the 2026-07-28 probe with -32600 ---- */

/* Whether message i speaks 2026-07-28: server/discover, or a request with a _meta version. */
static bool modern_at(const mcps_client_trace *t, size_t i)
{
    return mcps_client_request_is(t, i, "server/discover") ||
           (mcps_client_request_is(t, i, NULL) && mcps_client_meta_version(t->msgs[i].json));
}

static int probe_fallback(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t probe = 0;
    while (probe < t->nmsgs && !modern_at(t, probe) &&
           !mcps_client_request_is(t, probe, "initialize"))
        probe++;
    if (probe >= t->nmsgs || !modern_at(t, probe))
        return mcps_client_skip(g, "the client sent no 2026-07-28 probe before initialize");
    for (size_t j = probe + 1; j < t->nmsgs; j++) {
        if (mcps_client_request_is(t, j, "initialize"))
            return mcps_client_pass(
                g,
                "its 2026-07-28 probe answered %d (not -32601), the client fell back to "
                "initialize",
                MCPS_CLIENT_PROBE_CODE);
        if (modern_at(t, j))
            return mcps_client_broke(
                g, "STDIO-010",
                "its 2026-07-28 probe answered %d by a legacy server, the client went on "
                "with 2026-07-28 requests, not initialize (a fallback tied to -32601?)",
                MCPS_CLIENT_PROBE_CODE);
    }
    return mcps_client_info(
        g,
        "its 2026-07-28 probe answered %d, the client did not go on (allowed for a "
        "client that speaks 2026-07-28 only)",
        MCPS_CLIENT_PROBE_CODE);
}

#define MODERN MCPS_REV_BIT(MCPS_REV_2026_07_28)

static const mcps_client_check modern_checks[] = {
    {"client/modern-paging",
     "2026-07-28: nextCursor \"\" and an empty page are followed; the last page ends the list",
     "basic/utilities/pagination", "PAGE-008 PAGE-003 PAGE-007", MCPS_CSC_MODERN_PAGED, false,
     modern_paging, MCPS_CT_BOTH, true, MODERN},
    {"client/extension-fallback",
     "2026-07-28: a server advertising an unknown extension is used with the core protocol",
     "basic/lifecycle", "VER-010", MCPS_CSC_MODERN_ODD, false, extension_fallback, MCPS_CT_BOTH,
     true, MODERN},
    {"client/opaque-codes",
     "2026-07-28: an error coded -32001 is opaque: no re-probe, no fallback, no other version",
     "basic", "RPC-CODE-003", MCPS_CSC_MODERN_ODD, false, opaque_codes, MCPS_CT_BOTH, true, MODERN},
    {"client/probe-fallback",
     "2026-07-28 probe refused by a legacy server with -32600: a dual-era client initializes",
     "basic/transports", "STDIO-010", MCPS_CSC_PROBE_CODE, false, probe_fallback, MCPS_CT_STDIO,
     true, MODERN},
};

const mcps_client_check *mcps_client_modern_check_at(size_t i)
{
    return i < sizeof modern_checks / sizeof *modern_checks ? &modern_checks[i] : NULL;
}
