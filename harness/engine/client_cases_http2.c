/*
 * client_cases_http2.c - more client checks only Streamable HTTP ({url})
 * shows: each message a POST of its own (HTTP-005), answers read in both
 * forms, a JSON body and an SSE stream (HTTP-012; on 2026-07-28 with header
 * names in lower case, HDR-013, and SSE comment lines, HTTP-052), no fall
 * back to HTTP+SSE after a modern error (HTTP-059), a token sent as
 * Authorization: Bearer on every request, never in the query (AUTH-003), and
 * what a client does with a 401 (scenario auth, mcps_play_http_auth): where it
 * looks for metadata (AUTH-005, AUTH-008) and how it registers (AUTH-014).
 * The authorization itself (a browser, a user's consent) is beyond a generic
 * run: suites/uncovered-client-http.tsv says so of the rows that need it.
 *
 * A table of its own (mcps_client_check_at lists it after
 * client_cases_http.c's), so that these grow apart from the first HTTP
 * checks; verdicts go through client_grade.c, as every table's do.
 */
#include "engine/client_cases.h"

#include <stdio.h>
#include <string.h>

#include "codec/json.h"
#include "codec/rev.h"

#define HTTP_ALL    MCPS_CLIENT_HTTP_REVS
#define HTTP_HS     (MCPS_CLIENT_HTTP_REVS & ~MCPS_REV_BIT(MCPS_REV_2026_07_28))
#define HTTP_MODERN MCPS_REV_BIT(MCPS_REV_2026_07_28)

static bool is_post(const mcps_http_seen *e)
{
    return strcmp(e->verb, "POST") == 0;
}

/* ---- HTTP-005: one message, one POST ---- */

/* How many lines of raw parse as JSON objects on their own: two or more is several messages
 * packed into one body. */
static size_t messages_in(const char *raw)
{
    size_t n = 0;
    for (const char *p = raw; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        cJSON *m = len ? mcps_json_parse_simple(p, len) : NULL;
        n += cJSON_IsObject(m);
        cJSON_Delete(m);
        p += len + (eol != NULL);
    }
    return n;
}

static int one_post(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t posts = 0;
    for (size_t i = 0; i < t->nhttp; i++) {
        const char *verb = t->http_reqs[i].verb;
        posts += is_post(&t->http_reqs[i]);
        if (strcmp(verb, "POST") != 0 && strcmp(verb, "GET") != 0 && strcmp(verb, "DELETE") != 0)
            return mcps_client_broke(
                g, "HTTP-005", "an HTTP %s to the endpoint: the client's messages go in POSTs",
                verb);
    }
    for (size_t i = 0; i < t->nmsgs; i++) {
        size_t n = t->msgs[i].raw ? messages_in(t->msgs[i].raw) : 0;
        if (n >= 2)
            return mcps_client_broke(g, "HTTP-005",
                                     "one POST body held %zu JSON-RPC messages, a line each: "
                                     "every message is a POST of its own",
                                     n);
    }
    if (!posts)
        return mcps_client_skip(g, "the client POSTed nothing");
    return mcps_client_pass(g, "%zu POSTs, each body one JSON-RPC message (or a batch)", posts);
}

/* ---- HTTP-012: answers as JSON and as SSE ---- */

typedef struct forms_seen {
    size_t answered[2]; /* [0] JSON bodies, [1] SSE streams */
    bool followed[2];   /* a POST came after an answer of that form */
    char last[2][48];   /* the method of the last request answered in that form */
} forms_seen;

static void tally_forms(const mcps_client_trace *t, forms_seen *f)
{
    *f = (forms_seen){0};
    for (size_t i = 0; i < t->nhttp; i++) {
        const mcps_http_seen *e = &t->http_reqs[i];
        if (!is_post(e) || !e->rpc_id[0] || e->status != 200)
            continue;
        int form = e->sse ? 1 : 0;
        f->answered[form]++;
        snprintf(f->last[form], sizeof f->last[form], "%s", e->rpc);
        for (size_t j = i + 1; j < t->nhttp && !f->followed[form]; j++)
            f->followed[form] = is_post(&t->http_reqs[j]);
    }
}

/* ids[form]: what an answer of that form left unread breaks. */
static int grade_forms(const mcps_client_trace *t, mcps_client_grade *g, const char *const ids[2],
                       const char *const how[2])
{
    forms_seen f;
    tally_forms(t, &f);
    if (f.followed[0] && f.followed[1])
        return mcps_client_pass(g, "the client went on after %s and after %s", how[0], how[1]);
    for (int form = 0; form < 2; form++) {
        if (!f.answered[form] || f.followed[form])
            continue;
        if (t->exited && t->exit_code != 0)
            return mcps_client_broke(g, ids[form],
                                     "after %s (to %s) the client sent nothing more and exited "
                                     "with status %d",
                                     how[form], f.last[form], t->exit_code);
    }
    if (!f.answered[0] || !f.answered[1])
        return mcps_client_skip(g,
                                "the client sent too few requests to meet both forms of "
                                "answer (%zu as JSON, %zu as SSE)",
                                f.answered[0], f.answered[1]);
    int form = f.followed[0] ? 1 : 0;
    return mcps_client_info(g,
                            "the client's last answer was %s (to %s); it stopped there without "
                            "an error status: nothing shows whether it read it",
                            how[form], f.last[form]);
}

static int answer_forms(const mcps_client_trace *t, mcps_client_grade *g)
{
    static const char *const ids[2] = {"HTTP-012", "HTTP-012"};
    static const char *const how[2] = {"an answer as a JSON body", "an answer as an SSE stream"};
    return grade_forms(t, g, ids, how);
}

static int modern_answers(const mcps_client_trace *t, mcps_client_grade *g)
{
    static const char *const ids[2] = {"HDR-013 HTTP-012", "HTTP-052 HTTP-012"};
    static const char *const how[2] = {"an answer as a JSON body (its header names in lower case)",
                                       "an answer as an SSE stream (opened by a comment line)"};
    return grade_forms(t, g, ids, how);
}

/* ---- HTTP-059: no HTTP+SSE fallback after a modern error ---- */

static int no_legacy_fallback(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t i = 0;
    while (i < t->nhttp && !(is_post(&t->http_reqs[i]) && t->http_reqs[i].meta_version[0] &&
                             t->http_reqs[i].status == 400))
        i++;
    if (!t->refused || i == t->nhttp)
        return mcps_client_skip(g, "no 2026-07-28 request of the client's was refused with -32022");
    const char *what = t->http_reqs[i].rpc;
    for (i++; i < t->nhttp; i++)
        if (strcmp(t->http_reqs[i].verb, "GET") == 0)
            return mcps_client_broke(g, "HTTP-059",
                                     "%s was refused with 400 and -32022, a modern error; the "
                                     "client then GET the endpoint, as a fallback to HTTP+SSE",
                                     what);
    return mcps_client_pass(g, "%s refused with 400 and -32022: no GET fallback to HTTP+SSE", what);
}

/* ---- AUTH-003: the token on every request, as Bearer ---- */

static int bearer(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t with = 0;
    for (size_t i = 0; i < t->nhttp; i++) {
        const mcps_http_seen *e = &t->http_reqs[i];
        if (e->query_token)
            return mcps_client_broke(g, "AUTH-003", "an HTTP %s carried access_token in its URL",
                                     e->verb);
        with += e->has_auth;
    }
    if (!with)
        return mcps_client_skip(g, "the client sent no Authorization header (give it a token in "
                                   "its configuration to judge AUTH-003)");
    for (size_t i = 0; i < t->nhttp; i++) {
        const mcps_http_seen *e = &t->http_reqs[i];
        if (!e->has_auth)
            return mcps_client_broke(g, "AUTH-003",
                                     "the client sent a token on %zu of %zu requests: the %s of "
                                     "%s came without Authorization",
                                     with, t->nhttp, e->verb, e->rpc[0] ? e->rpc : "nothing");
        if (!e->auth_bearer)
            return mcps_client_broke(g, "AUTH-003",
                                     "the %s of %s carried Authorization in a scheme other "
                                     "than Bearer",
                                     e->verb, e->rpc[0] ? e->rpc : "nothing");
    }
    return mcps_client_pass(g,
                            "%zu requests, each with Authorization: Bearer, none with a token "
                            "in its URL",
                            with);
}

/* ---- a 401: authorization discovery ---- */

/* The revision the client spoke in the trace ("" none). */
static const char *spoken(const mcps_client_trace *t)
{
    return t->asked[0] ? t->asked : t->modern;
}

static bool got_401(const mcps_client_trace *t)
{
    for (size_t i = 0; i < t->nhttp; i++)
        if (t->http_reqs[i].refused_401)
            return true;
    return false;
}

/* The first discovery request whose path holds needle (or equals exact); NULL when none. */
static const mcps_http_seen *auth_req(const mcps_client_trace *t, const char *needle,
                                      const char *exact)
{
    for (size_t i = 0; i < t->nauth; i++) {
        const char *path = t->auth_reqs[i].path;
        if (strstr(path, needle) || (exact && strcmp(path, exact) == 0))
            return &t->auth_reqs[i];
    }
    return NULL;
}

/* Why an auth check has nothing to judge; NULL when it has. */
static const char *auth_unjudged(const mcps_client_trace *t)
{
    if (!got_401(t))
        return "no request of the client's was answered 401 (it sent a token, or nothing)";
    if (!t->nauth)
        return "after the 401 the client asked for no authorization metadata (it has no "
               "authorization support, or none configured)";
    return NULL;
}

static int auth_metadata(const mcps_client_trace *t, mcps_client_grade *g)
{
    const char *why = auth_unjudged(t);
    if (why)
        return mcps_client_skip(g, "%s", why);
    if (strcmp(spoken(t), "2025-03-26") != 0)
        return mcps_client_skip(g,
                                "the client asked for %s: the location of AUTH-005 is "
                                "2025-03-26's (later ones start at protected resource metadata)",
                                spoken(t));
    const mcps_http_seen *e = auth_req(t, "oauth-authorization-server", NULL);
    if (!e)
        e = auth_req(t, "openid-configuration", NULL);
    if (!e)
        return mcps_client_broke(g, "AUTH-005",
                                 "after the 401 the client asked for %s, but never for "
                                 "/.well-known/oauth-authorization-server",
                                 t->auth_reqs[0].path);
    if (strcmp(e->path, "/.well-known/oauth-authorization-server") != 0)
        return mcps_client_broke(
            g, "AUTH-005",
            "authorization server metadata asked at %s, not at "
            "/.well-known/oauth-authorization-server of the origin (2025-03-26 "
            "drops the endpoint's path)",
            e->path);
    return mcps_client_pass(g, "after the 401: GET /.well-known/oauth-authorization-server");
}

static int auth_resource_metadata(const mcps_client_trace *t, mcps_client_grade *g)
{
    const char *why = auth_unjudged(t);
    if (why)
        return mcps_client_skip(g, "%s", why);
    mcps_rev r = mcps_rev_parse(spoken(t));
    if (r == MCPS_REV_NONE || r < MCPS_REV_2025_11_25)
        return mcps_client_skip(g, "the client asked for %s: AUTH-008 binds from 2025-11-25",
                                spoken(t));
    const mcps_http_seen *e = auth_req(t, "oauth-protected-resource", MCPS_PLAY_AUTH_PRM);
    if (!e)
        return mcps_client_broke(g, "AUTH-008",
                                 "after the 401 (resource_metadata in WWW-Authenticate) the client "
                                 "asked for %s, never for protected resource metadata",
                                 t->auth_reqs[0].path);
    if (strcmp(e->path, MCPS_PLAY_AUTH_PRM) != 0)
        return mcps_client_broke(g, "AUTH-008",
                                 "the 401's WWW-Authenticate named resource_metadata %s; the "
                                 "client asked at %s first (the header is to be preferred)",
                                 MCPS_PLAY_AUTH_PRM, e->path);
    return mcps_client_pass(g, "after the 401: GET %s, the resource_metadata the header named",
                            MCPS_PLAY_AUTH_PRM);
}

static int auth_register(const mcps_client_trace *t, mcps_client_grade *g)
{
    const char *why = auth_unjudged(t);
    if (why)
        return mcps_client_skip(g, "%s", why);
    const mcps_http_seen *e = auth_req(t, "/register", NULL);
    if (!e || strcmp(e->verb, "POST") != 0)
        return mcps_client_skip(g, "the client registered no client at the registration_endpoint "
                                   "(no dynamic client registration)");
    if (strcmp(e->app_type, "native") != 0 && strcmp(e->app_type, "web") != 0)
        return mcps_client_broke(
            g, "AUTH-014", "POST /register with application_type %s (native or web)", e->app_type);
    return mcps_client_pass(g, "POST /register with application_type \"%s\"", e->app_type);
}

static int auth_issuer(const mcps_client_trace *t, mcps_client_grade *g)
{
    const char *why = auth_unjudged(t);
    if (why)
        return mcps_client_skip(g, "%s", why);
    size_t i = 0;
    while (i < t->nauth && !strstr(t->auth_reqs[i].path, "oauth-authorization-server") &&
           !strstr(t->auth_reqs[i].path, "openid-configuration"))
        i++;
    if (i == t->nauth)
        return mcps_client_skip(g, "the client never asked for authorization server metadata");
    for (size_t j = i + 1; j < t->nauth; j++)
        if (strstr(t->auth_reqs[j].path, "/register") || strstr(t->auth_reqs[j].path, "/token") ||
            strstr(t->auth_reqs[j].path, "/authorize"))
            return mcps_client_broke(g, "AUTH-016",
                                     "the metadata at %s named issuer <origin>%s, not the issuer "
                                     "it was asked for; the client went on to %s %s",
                                     t->auth_reqs[i].path, MCPS_PLAY_AUTH_OTHER_ISSUER,
                                     t->auth_reqs[j].verb, t->auth_reqs[j].path);
    return mcps_client_pass(g,
                            "the metadata at %s named another issuer: the client used none of "
                            "its endpoints",
                            t->auth_reqs[i].path);
}

static const mcps_client_check http2_checks[] = {
    {"client/http-one-post", "Every message the client sends is a POST of its own",
     "basic/transports", "HTTP-005", MCPS_CSC_PLAIN, true, one_post, MCPS_CT_HTTP, false, HTTP_ALL},
    {"client/http-answer-forms",
     "Answers come as a JSON body or as an SSE stream, alternately: the client reads both",
     "basic/transports", "HTTP-012", MCPS_CSC_PLAIN, false, answer_forms, MCPS_CT_HTTP, false,
     HTTP_HS},
    {"client/http-modern-answers",
     "2026-07-28: JSON answers with lower-case header names and SSE answers with comment lines, "
     "alternately: the client reads both",
     "basic/transports", "HTTP-012 HTTP-052 HDR-013", MCPS_CSC_MODERN, false, modern_answers,
     MCPS_CT_HTTP, true, HTTP_MODERN},
    {"client/http-no-legacy-fallback",
     "2026-07-28: a request refused with a modern error (-32022) leads to no HTTP+SSE fallback",
     "basic/transports", "HTTP-059", MCPS_CSC_MODERN_REFUSE, false, no_legacy_fallback,
     MCPS_CT_HTTP, true, HTTP_MODERN},
    {"client/http-bearer",
     "A client with a token sends it as Authorization: Bearer on every request, never in the URL",
     "basic/authorization", "AUTH-003", MCPS_CSC_PLAIN, true, bearer, MCPS_CT_HTTP, false,
     HTTP_ALL},
    {"client/auth-metadata",
     "2025-03-26: after a 401, authorization server metadata at the origin's "
     "/.well-known/oauth-authorization-server",
     "basic/authorization", "AUTH-005", MCPS_CSC_AUTH, false, auth_metadata, MCPS_CT_HTTP, false,
     MCPS_REV_BIT(MCPS_REV_2025_03_26)},
    {"client/auth-resource-metadata",
     "After a 401 naming resource_metadata, the client asks that URL for protected resource "
     "metadata",
     "basic/authorization", "AUTH-008", MCPS_CSC_AUTH, false, auth_resource_metadata, MCPS_CT_HTTP,
     false, MCPS_REV_BIT(MCPS_REV_2025_11_25) | HTTP_MODERN},
    {"client/auth-register",
     "2026-07-28: dynamic client registration names an application_type (native or web)",
     "basic/authorization", "AUTH-014", MCPS_CSC_AUTH, false, auth_register, MCPS_CT_HTTP, true,
     HTTP_MODERN},
    {"client/auth-issuer",
     "2026-07-28: authorization server metadata naming another issuer than its URL's is not used",
     "basic/authorization", "AUTH-016", MCPS_CSC_AUTH_ISSUER, false, auth_issuer, MCPS_CT_HTTP,
     true, HTTP_MODERN},
};

const mcps_client_check *mcps_client_http2_check_at(size_t i)
{
    size_t n = sizeof http2_checks / sizeof *http2_checks;
    return i < n ? &http2_checks[i] : NULL;
}
