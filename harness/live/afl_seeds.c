/*
 * afl_seeds.c - the seed corpus and dictionary of `mcpspec fuzz --afl`.
 * Seeds are small on purpose: AFL mutates a byte anywhere in the file, so
 * every byte of a seed that does not matter dilutes the bytes that do. Each
 * seed is the prefix and one request, or a prompts/get followed by another
 * request (the shape of a bug that needs a sequence); without the prefix
 * when the target AFL runs plays it itself (--afl-target). In 2026-07-28,
 * which has no handshake, the prefix is a server/discover request and every
 * request carries the revision's _meta, as the black-box mode sends them.
 */
#include "live/afl_seeds.h"

#include "session/session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* server/discover with the revision's _meta: a request like every other of the session. */
static char *discover_prefix(mcps_rev rev)
{
    cJSON *msg = cJSON_CreateObject();
    cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
    cJSON_AddNumberToObject(msg, "id", 0);
    cJSON_AddStringToObject(msg, "method", "server/discover");
    mcps_stateless_stamp(msg, rev, NULL);
    char *text = cJSON_PrintUnformatted(msg);
    cJSON_Delete(msg);
    size_t n = text ? strlen(text) : 0;
    char *line = text ? malloc(n + 2) : NULL;
    if (line) {
        memcpy(line, text, n);
        memcpy(line + n, "\n", 2);
    }
    free(text);
    return line;
}

char *mcps_live_afl_prefix(const char *revision)
{
    mcps_rev rev = mcps_rev_parse(revision);
    if (rev != MCPS_REV_NONE && !mcps_rev_is_handshake(rev))
        return discover_prefix(rev);
    char buf[512];
    snprintf(buf, sizeof buf,
             "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
             "{\"protocolVersion\":\"%s\",\"capabilities\":{},\"clientInfo\":"
             "{\"name\":\"mcpspec-fuzz\",\"version\":\"%s\"}}}\n"
             "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
             revision, MCPS_VERSION);
    return strdup(buf);
}

static cJSON *request(const char *method, cJSON *params)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "jsonrpc", "2.0");
    cJSON_AddNumberToObject(r, "id", 1);
    cJSON_AddStringToObject(r, "method", method);
    if (params)
        cJSON_AddItemToObject(r, "params", params);
    return r;
}

static void add_unformatted(cJSON *list, cJSON *req)
{
    char *text = cJSON_PrintUnformatted(req);
    if (text)
        cJSON_AddItemToArray(list, cJSON_CreateString(text));
    free(text);
    cJSON_Delete(req);
}

/* The lists: each first page, then every page past the first. */
static void list_requests(const mcps_live_dict *d, cJSON *out)
{
    static const char *const lists[] = {"tools/list", "prompts/list", "resources/list",
                                        "resources/templates/list"};
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++)
        add_unformatted(out, request(lists[i], NULL));
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) {
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(d->cursors, lists[i]))
        {
            cJSON *p = cJSON_CreateObject();
            cJSON_AddStringToObject(p, "cursor", c->valuestring);
            add_unformatted(out, request(lists[i], p));
        }
    }
}

static cJSON *completion(const char *type, const char *key, const char *ref, const char *arg)
{
    cJSON *p = cJSON_CreateObject();
    cJSON *r = cJSON_AddObjectToObject(p, "ref");
    cJSON_AddStringToObject(r, "type", type);
    cJSON_AddStringToObject(r, key, ref);
    cJSON *a = cJSON_AddObjectToObject(p, "argument");
    cJSON_AddStringToObject(a, "name", arg);
    cJSON_AddStringToObject(a, "value", "abcdefgh");
    return request("completion/complete", p);
}

/* prompts/get for each prompt (into gets), completions of its arguments (into out). */
static void prompt_requests(const mcps_live_dict *d, cJSON *gets, cJSON *out)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, d->prompts)
    {
        const char *name = cJSON_GetObjectItemCaseSensitive(p, "name")->valuestring;
        cJSON *params = cJSON_CreateObject();
        cJSON_AddStringToObject(params, "name", name);
        cJSON *args = cJSON_AddObjectToObject(params, "arguments");
        const cJSON *a;
        cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(p, "args"))
        {
            cJSON_AddStringToObject(args, a->valuestring, "x");
            add_unformatted(out, completion("ref/prompt", "name", name, a->valuestring));
        }
        add_unformatted(gets, request("prompts/get", params));
    }
}

static void resource_requests(const mcps_live_dict *d, cJSON *out)
{
    const cJSON *u;
    cJSON_ArrayForEach(u, d->uris)
    {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "uri", u->valuestring);
        add_unformatted(out, request("resources/read", p));
    }
    cJSON_ArrayForEach(u, d->templates)
        add_unformatted(out, completion("ref/resource", "uri", u->valuestring, "id"));
    add_unformatted(out, request("ping", NULL));
}

static bool write_seed(const char *dir, unsigned n, const char *prefix, const char *a,
                       const char *b, char *err, size_t errlen)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/seed-%03u", dir, n);
    FILE *f = fopen(path, "wb");
    bool ok = f && fputs(prefix, f) >= 0 && fprintf(f, "%s\n", a) >= 0 &&
              (!b || fprintf(f, "%s\n", b) >= 0);
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return ok;
}

/* Every other request after every prompts/get (the others in the order made: lists
 * first), then each request alone, up to MCPS_LIVE_AFL_SEEDS files. */
static bool write_all(const cJSON *gets, const cJSON *others, const char *prefix, const char *dir,
                      char *err, size_t errlen)
{
    unsigned n = 0;
    const cJSON *g, *o;
    cJSON_ArrayForEach(o, others) cJSON_ArrayForEach(g, gets)
    {
        if (n >= MCPS_LIVE_AFL_SEEDS / 2)
            break;
        if (!write_seed(dir, n++, prefix, g->valuestring, o->valuestring, err, errlen))
            return false;
    }
    const cJSON *all[] = {gets, others};
    for (size_t i = 0; i < 2; i++)
        cJSON_ArrayForEach(o, all[i])
        {
            if (n >= MCPS_LIVE_AFL_SEEDS)
                return true;
            if (!write_seed(dir, n++, prefix, o->valuestring, NULL, err, errlen))
                return false;
        }
    return true;
}

/* 2026-07-28: each request of list (unformatted texts) with the revision's _meta added. */
static void stamp_all(cJSON *list, mcps_rev rev)
{
    cJSON *item;
    cJSON_ArrayForEach(item, list)
    {
        cJSON *msg = cJSON_Parse(item->valuestring);
        mcps_stateless_stamp(msg, rev, NULL);
        char *text = msg ? cJSON_PrintUnformatted(msg) : NULL;
        if (text)
            cJSON_SetValuestring(item, text);
        free(text);
        cJSON_Delete(msg);
    }
}

bool mcps_live_afl_seeds(const mcps_live_dict *d, const char *revision, bool with_prefix,
                         const char *dir, char *err, size_t errlen)
{
    cJSON *gets = cJSON_CreateArray(), *others = cJSON_CreateArray();
    list_requests(d, others);
    prompt_requests(d, gets, others);
    resource_requests(d, others);
    mcps_rev rev = mcps_rev_parse(revision);
    if (rev != MCPS_REV_NONE && !mcps_rev_is_handshake(rev)) {
        stamp_all(gets, rev);
        stamp_all(others, rev);
    }
    char *prefix = with_prefix ? mcps_live_afl_prefix(revision) : strdup("");
    bool ok = prefix && write_all(gets, others, prefix, dir, err, errlen);
    if (!prefix)
        snprintf(err, errlen, "out of memory");
    free(prefix);
    cJSON_Delete(gets);
    cJSON_Delete(others);
    return ok;
}

/* One dictionary line: printable bytes as they are, the rest, quote and backslash escaped. */
static void token(FILE *f, unsigned *n, const char *value)
{
    if (!value || !*value || strlen(value) > 128)
        return; /* AFL refuses tokens past its MAX_DICT_FILE length */
    fprintf(f, "t%u=\"", (*n)++);
    for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
        if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\')
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
    fputs("\"\n", f);
}

static void tokens_of(FILE *f, unsigned *n, const cJSON *list, const char *key)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, list)
    {
        const cJSON *s = key ? cJSON_GetObjectItemCaseSensitive(v, key) : v;
        if (cJSON_IsString(s))
            token(f, n, s->valuestring);
        cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(v, "args"))
            token(f, n, s->valuestring);
    }
}

bool mcps_live_afl_dict(const mcps_live_dict *d, const char *path, char *err, size_t errlen)
{
    static const char *const words[] = {"initialize",
                                        "notifications/initialized",
                                        "ping",
                                        "tools/list",
                                        "tools/call",
                                        "prompts/list",
                                        "prompts/get",
                                        "resources/list",
                                        "resources/read",
                                        "resources/templates/list",
                                        "resources/subscribe",
                                        "resources/unsubscribe",
                                        "completion/complete",
                                        "logging/setLevel",
                                        "notifications/cancelled",
                                        "notifications/progress",
                                        "jsonrpc",
                                        "2.0",
                                        "id",
                                        "method",
                                        "params",
                                        "result",
                                        "error",
                                        "name",
                                        "arguments",
                                        "cursor",
                                        "uri",
                                        "ref",
                                        "ref/prompt",
                                        "ref/resource",
                                        "argument",
                                        "value",
                                        "type",
                                        "protocolVersion",
                                        "capabilities",
                                        "clientInfo",
                                        "_meta",
                                        "progressToken",
                                        "level",
                                        "requestId"};
    /* 2026-07-28: the prefix and every request's _meta */
    static const char *const stateless_words[] = {
        "server/discover", "io.modelcontextprotocol/protocolVersion",
        "io.modelcontextprotocol/clientCapabilities", "io.modelcontextprotocol/clientInfo",
        "2026-07-28"};
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return false;
    }
    unsigned n = 0;
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        token(f, &n, words[i]);
    bool stateless = d->rev != MCPS_REV_NONE && !mcps_rev_is_handshake(d->rev);
    for (size_t i = 0; stateless && i < sizeof stateless_words / sizeof *stateless_words; i++)
        token(f, &n, stateless_words[i]);
    tokens_of(f, &n, d->tools, NULL);
    tokens_of(f, &n, d->prompts, "name");
    tokens_of(f, &n, d->uris, NULL);
    tokens_of(f, &n, d->templates, NULL);
    const cJSON *list;
    cJSON_ArrayForEach(list, d->cursors) tokens_of(f, &n, list, NULL);
    if (fclose(f) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return false;
    }
    return true;
}
