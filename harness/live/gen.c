/*
 * gen.c - one message at a time: a request of a known method (params built
 * from the dictionary), a notification, an unknown method or a batch; then,
 * most of the time, mutated. Tool calls come only from the consented calls,
 * and their method and tool name are never mutated (mutate.c); their arguments
 * are the configuration's or made from the tool's inputSchema (args.h), and a
 * boundary or one-constraint-broken value is sent as made. A URI is one the
 * target listed, or one of the attacks built from its lists (uris.h).
 *
 * The schema arguments and the URI attacks draw from a second stream (aux):
 * what the first stream draws, and so every other input of a seed, is what it
 * was before they existed (up to the first boundary or broken argument, whose
 * skipped mutation leaves the first stream's draws to the inputs after it).
 */
#include "live/gen.h"

#include "codec/json.h"
#include "live/args.h"
#include "live/mutate.h"
#include "live/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gen {
    mcps_live_rng rng;
    mcps_live_rng aux; /* schema arguments and URI attacks (see above) */
    const mcps_live_dict *d;
    unsigned next_id;
    bool precise; /* the input holds a boundary or broken argument: sent unmutated */
} gen;

/* The aux stream is derived from the sequence's seed as a sequence of this number would be. */
#define AUX_STREAM 0xa0c5u

static const char *const list_methods[] = {"tools/list", "prompts/list", "resources/list",
                                           "resources/templates/list"};
static const char *const levels[] = {"debug",    "info",  "notice",    "warning", "error",
                                     "critical", "alert", "emergency", "loud",    ""};
static const char *const odd_strings[] = {
    "",
    "a",
    "../../../../etc/passwd",
    "%2e%2e%2f%2e%2e%2f",
    "file:///etc/passwd",
    "é",
    "\xf0\x9d\x84\x9e",
    "null",
    "42",
    "mem://item/999",
    "{{x}}",
    "\\",
    " ",
};

static const char *pick_from(mcps_live_rng *rng, const cJSON *list)
{
    const cJSON *v =
        cJSON_GetArrayItem(list, (int)mcps_live_rng_below(rng, (size_t)cJSON_GetArraySize(list)));
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const char *pick_text(gen *g, const cJSON *list)
{
    return pick_from(&g->rng, list);
}

/* A cursor the list of method gave (of another list, one time in five). */
static const char *pick_cursor(gen *g, const char *method)
{
    size_t n = (size_t)cJSON_GetArraySize(g->d->cursors);
    const cJSON *own = cJSON_GetObjectItemCaseSensitive(g->d->cursors, method);
    if (!method || !cJSON_GetArraySize(own) || mcps_live_rng_chance(&g->rng, 1, 5))
        own = cJSON_GetArrayItem(g->d->cursors, (int)mcps_live_rng_below(&g->rng, n));
    return pick_text(g, own);
}

/* A string: one the target listed, or an odd one. */
static cJSON *any_string(gen *g)
{
    const char *cursor = pick_cursor(g, NULL);
    const cJSON *lists[] = {g->d->uris, g->d->tools, g->d->templates};
    const char *s = NULL;
    if (mcps_live_rng_chance(&g->rng, 1, 2))
        s = mcps_live_rng_chance(&g->rng, 1, 4)
                ? cursor
                : pick_text(g, lists[mcps_live_rng_below(&g->rng, 3)]);
    if (!s)
        s = odd_strings[mcps_live_rng_below(&g->rng, sizeof odd_strings / sizeof *odd_strings)];
    return cJSON_CreateString(s);
}

static cJSON *id_value(gen *g)
{
    unsigned n = ++g->next_id;
    if (mcps_live_rng_chance(&g->rng, 1, 2))
        return cJSON_CreateNumber(n);
    char id[24];
    snprintf(id, sizeof id, "f-%u", n);
    return cJSON_CreateString(id);
}

static void list_params(gen *g, const char *method, cJSON *p)
{
    if (mcps_live_rng_chance(&g->rng, 1, 2)) {
        const char *c = pick_cursor(g, method);
        cJSON_AddItemToObject(p, "cursor", c ? cJSON_CreateString(c) : any_string(g));
    }
}

static const cJSON *pick_prompt(gen *g)
{
    return cJSON_GetArrayItem(
        g->d->prompts,
        (int)mcps_live_rng_below(&g->rng, (size_t)cJSON_GetArraySize(g->d->prompts)));
}

static void prompt_params(gen *g, cJSON *p)
{
    const cJSON *prompt = pick_prompt(g);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(prompt, "name");
    cJSON_AddItemToObject(
        p, "name", cJSON_IsString(name) ? cJSON_CreateString(name->valuestring) : any_string(g));
    cJSON *args = cJSON_AddObjectToObject(p, "arguments");
    const cJSON *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(
                              prompt, "args")) if (mcps_live_rng_chance(&g->rng, 3, 4))
        cJSON_AddItemToObject(args, a->valuestring, any_string(g));
}

/* A URI: listed, a template with its variables left in, an odd one, or (one time in two,
 * drawn from aux) an attack. */
static void uri_params(gen *g, cJSON *p)
{
    const char *u =
        pick_text(g, mcps_live_rng_chance(&g->rng, 3, 4) ? g->d->uris : g->d->templates);
    if (cJSON_GetArraySize(g->d->attacks) && mcps_live_rng_chance(&g->aux, 1, 2))
        u = pick_from(&g->aux, g->d->attacks);
    cJSON_AddItemToObject(p, "uri", u ? cJSON_CreateString(u) : any_string(g));
}

static void completion_params(gen *g, cJSON *p)
{
    const cJSON *prompt = pick_prompt(g);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(prompt, "name");
    cJSON *ref = cJSON_AddObjectToObject(p, "ref");
    cJSON_AddStringToObject(ref, "type", "ref/prompt");
    cJSON_AddItemToObject(
        ref, "name", cJSON_IsString(name) ? cJSON_CreateString(name->valuestring) : any_string(g));
    cJSON *arg = cJSON_AddObjectToObject(p, "argument");
    const char *an = pick_text(g, cJSON_GetObjectItemCaseSensitive(prompt, "args"));
    cJSON_AddStringToObject(arg, "name", an ? an : "x");
    cJSON_AddItemToObject(arg, "value", any_string(g));
}

/* A consented call's arguments: configured, valid, boundary or invalid, one in four each
 * when the tool listed an inputSchema. */
static cJSON *call_arguments(gen *g, const cJSON *call)
{
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(call, "inputSchema");
    const cJSON *configured = cJSON_GetObjectItemCaseSensitive(call, "arguments");
    if (!schema)
        return cJSON_Duplicate(configured, true);
    mcps_live_args_kind made,
        kind = (mcps_live_args_kind)mcps_live_rng_below(&g->aux, MCPS_LIVE_ARGS_INVALID + 1);
    cJSON *args = mcps_live_args_make(schema, configured, kind, &g->aux, &made);
    g->precise |= made == MCPS_LIVE_ARGS_BOUNDARY || made == MCPS_LIVE_ARGS_INVALID;
    return args;
}

/* A request: a known method with params built for it. */
static cJSON *request(gen *g)
{
    cJSON *msg = cJSON_CreateObject();
    cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
    cJSON_AddItemToObject(msg, "id", id_value(g));
    cJSON *p = cJSON_CreateObject();
    size_t calls = (size_t)cJSON_GetArraySize(g->d->calls);
    const char *method;
    switch (mcps_live_rng_below(&g->rng, calls ? 10 : 9)) {
    case 0:
    case 1:
        method = list_methods[mcps_live_rng_below(&g->rng, 4)];
        list_params(g, method, p);
        break;
    case 2:
    case 3:
        method = "prompts/get";
        prompt_params(g, p);
        break;
    case 4:
        method = mcps_live_rng_chance(&g->rng, 3, 4) ? "resources/read" : "resources/subscribe";
        uri_params(g, p);
        break;
    case 5:
        method = "completion/complete";
        completion_params(g, p);
        break;
    case 6:
        method = "logging/setLevel";
        cJSON_AddStringToObject(p, "level", levels[mcps_live_rng_below(&g->rng, 10)]);
        break;
    case 7:
        method = "ping";
        break;
    case 8:
        method = mcps_live_rng_chance(&g->rng, 1, 2) ? "x-fuzz/unknown" : "PING";
        break;
    default: {
        const cJSON *call =
            cJSON_GetArrayItem(g->d->calls, (int)mcps_live_rng_below(&g->rng, calls));
        method = "tools/call";
        cJSON_AddItemToObject(
            p, "name", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(call, "name"), true));
        cJSON_AddItemToObject(p, "arguments", call_arguments(g, call));
    }
    }
    cJSON_AddStringToObject(msg, "method", method);
    cJSON_AddItemToObject(msg, "params", p);
    return msg;
}

static cJSON *notification(gen *g)
{
    static const char *const methods[] = {"notifications/cancelled", "notifications/progress",
                                          "notifications/roots/list_changed",
                                          "notifications/initialized", "notifications/x-fuzz"};
    cJSON *msg = cJSON_CreateObject();
    cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
    const char *m = methods[mcps_live_rng_below(&g->rng, 5)];
    cJSON_AddStringToObject(msg, "method", m);
    cJSON *p = cJSON_AddObjectToObject(msg, "params");
    if (strcmp(m, "notifications/cancelled") == 0)
        cJSON_AddNumberToObject(p, "requestId", g->next_id);
    else if (strcmp(m, "notifications/progress") == 0) {
        cJSON_AddStringToObject(p, "progressToken", "t");
        cJSON_AddNumberToObject(p, "progress", 1);
    }
    return msg;
}

static cJSON *message(gen *g)
{
    size_t kind = mcps_live_rng_below(&g->rng, 20);
    if (kind < 2)
        return notification(g);
    if (kind == 2) { /* a batch of two requests */
        cJSON *batch = cJSON_CreateArray();
        cJSON_AddItemToArray(batch, request(g));
        cJSON_AddItemToArray(batch, request(g));
        return batch;
    }
    return request(g);
}

static bool is_call(const cJSON *msg)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(msg, "method");
    return cJSON_IsString(m) && strcmp(m->valuestring, "tools/call") == 0;
}

/* A consented call anywhere in msg (a batch element too). */
static bool has_call(const cJSON *msg)
{
    if (!cJSON_IsArray(msg))
        return is_call(msg);
    const cJSON *e;
    cJSON_ArrayForEach(e, msg) if (is_call(e)) return true;
    return false;
}

/* One input line: a message, mutated one time in two (a valid message reaches deeper). */
static void input(gen *g, mcps_live_seq *out)
{
    g->precise = false;
    cJSON *msg = message(g);
    /* Before mutation, so that _meta is fuzzed too. */
    if (g->d->rev != MCPS_REV_NONE && !mcps_rev_is_handshake(g->d->rev))
        mcps_stateless_stamp(msg, g->d->rev, NULL);
    bool call = has_call(msg);
    /* A call keeps its method and tool name: mutate_tree knows that of a lone call only. */
    if (mcps_live_rng_chance(&g->rng, 1, 2) && !(call && cJSON_IsArray(msg)) && !g->precise)
        mcps_live_mutate_tree(&g->rng, msg);
    size_t len = 0;
    char *text = mcps_json_print(msg, &len);
    cJSON_Delete(msg);
    /* The printed text is the line, not copied into one: a copy was 2% of the fuzz loop. */
    mcps_buf line = text ? (mcps_buf){text, len, len + 1, false} : (mcps_buf){0};
    if (!text)
        mcps_buf_puts(&line, "{}");
    /* Text mutations could rename a consented tool: calls keep their text. */
    if (!call && mcps_live_rng_chance(&g->rng, 1, 8))
        mcps_live_mutate_text(&g->rng, &line);
    if (line.data)
        mcps_live_seq_adopt(out, line.data, line.len);
    else
        mcps_live_seq_push(out, "", 0);
}

void mcps_live_gen_seq(const mcps_live_dict *d, uint64_t seed, size_t max_len, mcps_live_seq *out)
{
    gen g = {.d = d};
    mcps_live_rng_seed(&g.rng, seed);
    mcps_live_rng_seed(&g.aux, mcps_live_rng_derive(seed, AUX_STREAM));
    size_t len = 1 + mcps_live_rng_below(&g.rng, max_len ? max_len : 1);
    for (size_t i = 0; i < len; i++)
        input(&g, out);
}
