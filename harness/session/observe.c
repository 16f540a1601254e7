/*
 * observe.c - the passive observer; see observe.h.
 *
 * Requests are remembered by (direction, exact id text) in a hash table, so a
 * long session costs constant time per message. Memory is bounded by
 * max_tracked: past it the observer stops remembering and, so as not to
 * report false mismatches, stops judging unknown response ids too. Explaining
 * a mismatch (same value, other type) looks back over the newest requests only.
 */
#include "session/observe.h"

#include "base/array.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TRACKED_DEFAULT 65536
#define MAX_HELD_LINES      256
#define LOOSE_LOOKBACK      256

/* Every finding goes out through mcps_observe_report (observe.h). */
#define report(...) mcps_observe_report(__VA_ARGS__)

void mcps_observe_report(mcps_observer *obs, mcps_finding_kind kind, mcps_dir dir, uint64_t offset,
                         size_t line, const char *fmt, ...)
{
    mcps_finding f = {.kind = kind,
                      .reqs = mcps_finding_kind_reqs(kind),
                      .dir = dir,
                      .offset = offset,
                      .line = line};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f.message, sizeof f.message, fmt, ap);
    va_end(ap);
    if (obs->on_finding)
        obs->on_finding(obs->ctx, &f);
}

void mcps_observer_init(mcps_observer *obs, mcps_rev rev, size_t max_message,
                        mcps_finding_fn on_finding, void *ctx)
{
    *obs = (mcps_observer){
        .rev = rev,
        .max_message = max_message,
        .on_finding = on_finding,
        .ctx = ctx,
        .max_tracked = MAX_TRACKED_DEFAULT,
    };
}

static void free_request(mcps_tracked_request *r)
{
    mcps_json_delete(r->id);
    mcps_json_delete(r->progress_token);
    free(r->key);
}

void mcps_observer_free(mcps_observer *obs)
{
    for (size_t i = 0; i < obs->nrequests; i++)
        free_request(&obs->requests[i]);
    free(obs->requests);
    free(obs->slots);
    for (size_t i = 0; i < obs->nsubscribed; i++)
        free(obs->subscribed[i]);
    obs->nsubscribed = 0;
    obs->slots = NULL;
    obs->nslots = 0;
    mcps_buf_free(&obs->held);
    obs->requests = NULL;
    obs->nrequests = obs->cap_requests = 0;
}

void mcps_observer_set_rev(mcps_observer *obs, mcps_rev rev)
{
    obs->rev = rev;
}

/* ---- request bookkeeping ------------------------------------------------------ */

static mcps_dir other_side(mcps_dir dir)
{
    return dir == MCPS_DIR_TO_SERVER     ? MCPS_DIR_FROM_SERVER
           : dir == MCPS_DIR_FROM_SERVER ? MCPS_DIR_TO_SERVER
                                         : MCPS_DIR_UNKNOWN;
}

/* "<dir><id as printed>": ids of different JSON types print differently. */
static char *request_key(const cJSON *id, mcps_dir dir)
{
    size_t n;
    char *text = mcps_json_print(id, &n);
    char *key = text ? malloc(n + 2) : NULL;
    if (key) {
        key[0] = (char)('0' + dir);
        memcpy(key + 1, text, n + 1);
    }
    free(text);
    return key;
}

static size_t hash_key(const char *s)
{
    uint64_t h = 5381;
    for (; *s; s++)
        h = h * 33 + (unsigned char)*s;
    /* Mixed (splitmix64's finalizer): ids that differ in their last digit ("live-ping-17",
     * "live-ping-18") would otherwise take adjacent slots, and every new id probed the run. */
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9u;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebu;
    return (size_t)(h ^ (h >> 31));
}

/* The slot of key, whose hash_key is hash (kept with each request: an id may be 70 KB long). */
static size_t *slot_for(const mcps_observer *obs, const char *key, size_t hash)
{
    size_t mask = obs->nslots - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        size_t *slot = &obs->slots[i];
        if (!*slot || strcmp(obs->requests[*slot - 1].key, key) == 0)
            return slot;
    }
}

/* Every remembered request put in the (cleared) table again. */
static void reindex(mcps_observer *obs)
{
    memset(obs->slots, 0, obs->nslots * sizeof *obs->slots);
    for (size_t i = 0; i < obs->nrequests; i++)
        *slot_for(obs, obs->requests[i].key, obs->requests[i].hash) = i + 1;
}

static bool grow_slots(mcps_observer *obs)
{
    size_t n = obs->nslots ? obs->nslots * 2 : 128;
    size_t *slots = malloc(n * sizeof *slots);
    if (!slots)
        return false;
    free(obs->slots);
    obs->slots = slots;
    obs->nslots = n;
    reindex(obs);
    return true;
}

void mcps_observer_forget_answered(mcps_observer *obs, uint64_t mark)
{
    size_t kept = 0;
    for (size_t i = 0; i < obs->nrequests; i++) {
        mcps_tracked_request *r = &obs->requests[i];
        if (r->answered && r->mark <= mark)
            free_request(r);
        else
            obs->requests[kept++] = *r;
    }
    if (kept == obs->nrequests)
        return;
    obs->nrequests = kept;
    reindex(obs);
}

static mcps_tracked_request *find_request(const mcps_observer *obs, const cJSON *id, mcps_dir dir)
{
    if (!obs->nslots)
        return NULL;
    char *key = request_key(id, dir);
    size_t index = key ? *slot_for(obs, key, hash_key(key)) : 0;
    free(key);
    return index ? &obs->requests[index - 1] : NULL;
}

const mcps_tracked_request *mcps_observer_request_for(const mcps_observer *obs, const cJSON *id,
                                                      mcps_dir request_dir)
{
    return find_request(obs, id, request_dir);
}

/* Same value, different JSON type: 42 and "42". Only used to explain a mismatch. */
static const mcps_tracked_request *find_loose(const mcps_observer *obs, const cJSON *id,
                                              mcps_dir dir)
{
    const char *want = cJSON_IsString(id) ? id->valuestring : mcps_json_number_text(id);
    if (!want)
        return NULL;
    size_t stop = obs->nrequests > LOOSE_LOOKBACK ? obs->nrequests - LOOSE_LOOKBACK : 0;
    for (size_t i = obs->nrequests; i-- > stop;) {
        const mcps_tracked_request *r = &obs->requests[i];
        const char *have =
            cJSON_IsString(r->id) ? r->id->valuestring : mcps_json_number_text(r->id);
        if (r->dir == dir && have && strcmp(have, want) == 0)
            return r;
    }
    return NULL;
}

/* An integer id beyond 2^53-1 that came back rounded through a double: JSON-INT-001. */
static const mcps_tracked_request *find_rounded(const mcps_observer *obs, const cJSON *id,
                                                mcps_dir dir)
{
    if (!cJSON_IsNumber(id) ||
        (id->valuedouble < 9007199254740992.0 && id->valuedouble > -9007199254740992.0))
        return NULL;
    size_t stop = obs->nrequests > LOOSE_LOOKBACK ? obs->nrequests - LOOSE_LOOKBACK : 0;
    for (size_t i = obs->nrequests; i-- > stop;) {
        const mcps_tracked_request *r = &obs->requests[i];
        if (r->dir == dir && cJSON_IsNumber(r->id) && r->id->valuedouble == id->valuedouble)
            return r;
    }
    return NULL;
}

/* A reused request id: what it breaks depends on the revision; NOTE: nothing. */
static mcps_finding_kind reuse_kind(mcps_rev rev, bool answered)
{
    if (rev == MCPS_REV_2026_07_28)
        return answered ? MCPS_FINDING_NOTE : MCPS_FINDING_REQUEST_ID_PENDING;
    if (rev == MCPS_REV_NONE)
        return answered ? MCPS_FINDING_REQUEST_ID_REUSED : MCPS_FINDING_REQUEST_ID_REUSED_PENDING;
    return MCPS_FINDING_REQUEST_ID_REUSED;
}

static bool reserve_request(mcps_observer *obs)
{
    if (!mcps_array_reserve(&obs->requests, &obs->cap_requests, obs->nrequests + 1,
                            sizeof *obs->requests, 64))
        return false;
    return (obs->nrequests + 1) * 2 <= obs->nslots || grow_slots(obs);
}

static void remember_request(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir,
                             size_t line)
{
    if (obs->nrequests >= obs->max_tracked || !reserve_request(obs)) {
        obs->tracking_full = true;
        return;
    }
    mcps_tracked_request *r = &obs->requests[obs->nrequests];
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(info->params, "_meta");
    const cJSON *token = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");
    *r = (mcps_tracked_request){.id = cJSON_Duplicate(info->id, true),
                                .key = request_key(info->id, dir),
                                .dir = dir,
                                .line = line,
                                .mark = obs->mark,
                                .progress_token = token ? cJSON_Duplicate(token, true) : NULL};
    if (obs->rev == MCPS_REV_2026_07_28)
        r->caps = mcps_observe_request_caps(info->params, &r->log_level);
    snprintf(r->method, sizeof r->method, "%s", info->method ? info->method : "");
    if (!r->id || !r->key) {
        cJSON_Delete(r->id);
        free(r->key);
        obs->tracking_full = true;
        return;
    }
    r->hash = hash_key(r->key);
    *slot_for(obs, r->key, r->hash) = ++obs->nrequests;
}

static void add_subscription(mcps_observer *obs, const char *uri, mcps_dir dir)
{
    if (obs->nsubscribed >= sizeof obs->subscribed / sizeof *obs->subscribed)
        return;
    obs->subscribed[obs->nsubscribed] = strdup(uri);
    obs->subscribed_by[obs->nsubscribed] = dir;
    obs->nsubscribed += obs->subscribed[obs->nsubscribed] != NULL;
}

/* 2026-07-28: a subscriptions/listen names its resources in notifications.resourceSubscriptions
 * (which stream gets an update is the listen suite's to judge). */
static void track_listen(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir)
{
    const cJSON *filter = cJSON_GetObjectItemCaseSensitive(info->params, "notifications");
    const cJSON *uris = cJSON_GetObjectItemCaseSensitive(filter, "resourceSubscriptions");
    for (const cJSON *u = cJSON_IsArray(uris) ? uris->child : NULL; u; u = u->next)
        if (cJSON_IsString(u))
            add_subscription(obs, u->valuestring, dir);
}

/* resources/subscribe and unsubscribe (and listen), for RES-008. */
static void track_subscription(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir)
{
    if (info->method && strcmp(info->method, "subscriptions/listen") == 0)
        track_listen(obs, info, dir);
    const cJSON *uri = cJSON_GetObjectItemCaseSensitive(info->params, "uri");
    if (!info->method || !cJSON_IsString(uri))
        return;
    if (strcmp(info->method, "resources/subscribe") == 0)
        add_subscription(obs, uri->valuestring, dir);
    for (size_t i = 0; strcmp(info->method, "resources/unsubscribe") == 0 && i < obs->nsubscribed;)
        if (strcmp(obs->subscribed[i], uri->valuestring) == 0) {
            free(obs->subscribed[i]);
            obs->subscribed[i] = obs->subscribed[--obs->nsubscribed];
            obs->subscribed_by[i] = obs->subscribed_by[obs->nsubscribed];
        } else {
            i++;
        }
}

/* RES-008: an update names a resource (or a sub-resource of one) the other side subscribed to. */
static void judge_resource_update(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir,
                                  uint64_t offset, size_t line)
{
    const cJSON *uri = cJSON_GetObjectItemCaseSensitive(info->params, "uri");
    if (!cJSON_IsString(uri))
        return;
    for (size_t i = 0; i < obs->nsubscribed; i++)
        if (obs->subscribed_by[i] == other_side(dir) &&
            strncmp(uri->valuestring, obs->subscribed[i], strlen(obs->subscribed[i])) == 0)
            return;
    report(obs, MCPS_FINDING_UPDATE_UNSUBSCRIBED, dir, offset, line,
           "resources/updated for %.120s, which was not subscribed to", uri->valuestring);
}

static void track_request(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir,
                          uint64_t offset, size_t line)
{
    track_subscription(obs, info, dir);
    if (!mcps_rpc_id_valid(info->id))
        return;
    mcps_tracked_request *prev = find_request(obs, info->id, dir);
    if (prev) {
        mcps_finding_kind kind = reuse_kind(obs->rev, prev->answered);
        char id[64];
        mcps_rpc_id_text(info->id, id, sizeof id);
        if (kind != MCPS_FINDING_NOTE)
            report(obs, kind, dir, offset, line, "request id %s reused; line %zu already used it%s",
                   id, prev->line, prev->answered ? "" : " and is still unanswered");
        /* Track the newest use so the next response pairs with it. */
        prev->line = line;
        prev->answered = false;
        snprintf(prev->method, sizeof prev->method, "%s", info->method ? info->method : "");
        return;
    }
    remember_request(obs, info, dir, line);
}

static void track_response(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir,
                           uint64_t offset, size_t line)
{
    if (!info->id || cJSON_IsNull(info->id) || !mcps_rpc_id_valid(info->id))
        return; /* shape problems were reported by the classifier */
    char id[64] = "";
    mcps_tracked_request *req = find_request(obs, info->id, other_side(dir));
    if (!req || req->answered) /* only a finding quotes it: most responses pair at once */
        mcps_rpc_id_text(info->id, id, sizeof id);
    if (!req) {
        if (obs->tracking_full)
            return;
        const mcps_tracked_request *loose = find_loose(obs, info->id, other_side(dir));
        const mcps_tracked_request *rounded = find_rounded(obs, info->id, other_side(dir));
        if (!loose && rounded)
            report(obs, MCPS_FINDING_RESPONSE_ID_ROUNDED, dir, offset, line,
                   "response id %s is the id of the request on line %zu rounded through a double "
                   "(RFC 8259: integers beyond 2^53-1 are not interoperable)",
                   id, rounded->line);
        else if (loose)
            report(obs, MCPS_FINDING_RESPONSE_ID, dir, offset, line,
                   "response id %s has the wrong JSON type: the request on line %zu used the same "
                   "value as a %s",
                   id, loose->line, cJSON_IsString(loose->id) ? "string" : "number");
        else
            report(obs, MCPS_FINDING_RESPONSE_ID, dir, offset, line,
                   "response id %s answers no request", id);
        return;
    }
    if (req->answered) {
        report(obs, MCPS_FINDING_SECOND_RESPONSE, dir, offset, line,
               "second response to request %s (line %zu); a request gets exactly one", id,
               req->line);
        return;
    }
    req->answered = true;
    req->task_created = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(info->result, "task"));
}

void mcps_observer_track(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir,
                         uint64_t offset, size_t line)
{
    if (info->kind == MCPS_RPC_REQUEST)
        track_request(obs, info, dir, offset, line);
    else if (info->kind == MCPS_RPC_RESULT || info->kind == MCPS_RPC_ERROR)
        track_response(obs, info, dir, offset, line);
}

/* ---- _meta keys (GEN-META-001..004, from 2025-06-18) --------------------------------- */

static bool label_ok(const char *s, size_t n)
{
    if (!n || !isalpha((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '-')
            return false;
    return true;
}

static bool name_ok(const char *s)
{
    size_t n = strlen(s);
    if (!n)
        return true;
    if (!isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("-_.", s[i]))
            return false;
    return true;
}

/* The prefix "a.b.c/" split into labels, each well formed. */
static bool prefix_ok(const char *p, size_t n, size_t *labels, const char **second,
                      size_t *second_n)
{
    *labels = 0;
    for (size_t start = 0; start < n;) {
        size_t end = start;
        while (end < n && p[end] != '.')
            end++;
        if (!label_ok(p + start, end - start))
            return false;
        if (++*labels == 2) {
            *second = p + start;
            *second_n = end - start;
        }
        start = end + 1;
    }
    return true;
}

static bool reserved_label(const char *s, size_t n)
{
    return (n == 20 && strncmp(s, "modelcontextprotocol", 20) == 0) ||
           (n == 3 && strncmp(s, "mcp", 3) == 0);
}

/* The keys under reserved prefixes the spec defines (GEN-META-003), per era. */
static bool defined_key(const mcps_observer *obs, const char *key)
{
    static const char *const keys[] = {"io.modelcontextprotocol/related-task",
                                       "io.modelcontextprotocol/model-immediate-response"};
    static const char *const stateless[] = {
        "io.modelcontextprotocol/protocolVersion",    "io.modelcontextprotocol/clientInfo",
        "io.modelcontextprotocol/clientCapabilities", "io.modelcontextprotocol/logLevel",
        "io.modelcontextprotocol/subscriptionId",     "io.modelcontextprotocol/serverInfo"};
    bool modern = obs->rev == MCPS_REV_2026_07_28;
    for (size_t i = 0; !modern && i < sizeof keys / sizeof *keys; i++)
        if (strcmp(key, keys[i]) == 0)
            return true;
    for (size_t i = 0; modern && i < sizeof stateless / sizeof *stateless; i++)
        if (strcmp(key, stateless[i]) == 0)
            return true;
    return false;
}

/* Forward-DNS prefixes end in a top-level domain: "example.com/" (GEN-META-004). */
static bool forward_dns(const char *p, size_t n)
{
    static const char *const tlds[] = {"com", "org", "net", "io", "dev", "ai", "app", "co"};
    const char *dot = NULL;
    for (size_t i = 0; i < n; i++)
        if (p[i] == '.')
            dot = p + i;
    if (!dot)
        return false;
    size_t len = n - (size_t)(dot + 1 - p);
    for (size_t i = 0; i < sizeof tlds / sizeof *tlds; i++)
        if (strlen(tlds[i]) == len && strncmp(dot + 1, tlds[i], len) == 0)
            return true;
    return false;
}

static void judge_meta_key(mcps_observer *obs, const char *key, mcps_dir dir, uint64_t offset,
                           size_t line)
{
    const char *slash = strchr(key, '/');
    size_t labels = 0, second_n = 0;
    const char *second = NULL;
    if ((slash && !prefix_ok(key, (size_t)(slash - key), &labels, &second, &second_n)) ||
        !name_ok(slash ? slash + 1 : key)) {
        report(obs, MCPS_FINDING_META_KEY_MALFORMED, dir, offset, line,
               "malformed _meta key \"%.80s\"", key);
        return;
    }
    if (!slash || defined_key(obs, key))
        return;
    /* 2025-11-25: the second label is modelcontextprotocol or mcp (io.modelcontextprotocol/);
     * 2025-06-18: such a label followed by another one (modelcontextprotocol.io/). */
    bool reserved =
        obs->rev >= MCPS_REV_2025_11_25
            ? second && reserved_label(second, second_n)
            : strncmp(key, "modelcontextprotocol.", 21) == 0 || strncmp(key, "mcp.", 4) == 0;
    if (reserved)
        report(obs, MCPS_FINDING_META_KEY_RESERVED, dir, offset, line,
               "_meta key \"%.80s\" uses a prefix MCP reserves", key);
    else if (obs->rev >= MCPS_REV_2025_11_25 && forward_dns(key, (size_t)(slash - key)))
        report(obs, MCPS_FINDING_META_KEY_FORWARD_DNS, dir, offset, line,
               "_meta prefix of \"%.80s\" is forward DNS; reverse DNS (com.example/) is advised",
               key);
}

/* Every "_meta" object in the message, walked without recursion, bounded. */
static void judge_meta(mcps_observer *obs, const cJSON *msg, mcps_dir dir, uint64_t offset,
                       size_t line)
{
    if (obs->rev != MCPS_REV_NONE && obs->rev < MCPS_REV_2025_06_18)
        return;
    const cJSON *stack[64];
    size_t n = 0, visited = 0;
    stack[n++] = msg;
    while (n && visited++ < 10000) {
        const cJSON *v = stack[--n];
        for (const cJSON *c = v->child; c; c = c->next) {
            if (c->string && strcmp(c->string, "_meta") == 0 && cJSON_IsObject(c))
                for (const cJSON *k = c->child; k; k = k->next)
                    judge_meta_key(obs, k->string, dir, offset, line);
            if ((cJSON_IsObject(c) || cJSON_IsArray(c)) && n < 64)
                stack[n++] = c;
        }
    }
}

/* ELIC-013/014: -32042 carries the URL elicitations it requires (2025-11-25). */
static void judge_url_elicitation_error(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir,
                                        uint64_t offset, size_t line)
{
    if (info->error_code != -32042 ||
        (obs->rev != MCPS_REV_2025_11_25 && obs->rev != MCPS_REV_NONE))
        return;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(info->error, "data"), "elicitations");
    bool ok = cJSON_IsArray(list) && list->child;
    for (const cJSON *e = ok ? list->child : NULL; e; e = e->next) {
        const cJSON *mode = cJSON_GetObjectItemCaseSensitive(e, "mode");
        ok = ok && cJSON_IsString(mode) && strcmp(mode->valuestring, "url") == 0 &&
             cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "elicitationId")) &&
             cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "url")) &&
             cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "message"));
    }
    if (!ok)
        report(obs, MCPS_FINDING_URL_ELICITATION_ERROR, dir, offset, line,
               "-32042 without data.elicitations of URL-mode entries (mode, elicitationId, url, "
               "message)");
}

/* ---- progress ------------------------------------------------------------------ */

static mcps_tracked_request *request_with_token(const mcps_observer *obs, const cJSON *token,
                                                mcps_dir dir)
{
    for (size_t i = obs->nrequests; i-- > 0;) {
        mcps_tracked_request *r = &obs->requests[i];
        if (r->dir == dir && r->progress_token && mcps_rpc_id_equal(r->progress_token, token))
            return r;
    }
    return NULL;
}

/* PROG-003 shape, PROG-006 issued token, PROG-007 not after completion, PROG-004 increasing. */
static void judge_progress(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir,
                           uint64_t offset, size_t line)
{
    const cJSON *token = cJSON_GetObjectItemCaseSensitive(info->params, "progressToken");
    const cJSON *progress = cJSON_GetObjectItemCaseSensitive(info->params, "progress");
    const cJSON *total = cJSON_GetObjectItemCaseSensitive(info->params, "total");
    const cJSON *message = cJSON_GetObjectItemCaseSensitive(info->params, "message");
    if (!mcps_rpc_id_valid(token) || !cJSON_IsNumber(progress) ||
        (total && !cJSON_IsNumber(total)) || (message && !cJSON_IsString(message))) {
        report(obs, MCPS_FINDING_PROGRESS_SHAPE, dir, offset, line,
               "progress notification without a string or integer progressToken and a numeric "
               "progress (or with a non-numeric total, a non-string message)");
        return;
    }
    mcps_tracked_request *req = request_with_token(obs, token, other_side(dir));
    char text[64];
    mcps_rpc_id_text(token, text, sizeof text);
    if (!req) {
        if (!obs->tracking_full)
            report(obs, MCPS_FINDING_PROGRESS_UNKNOWN_TOKEN, dir, offset, line,
                   "progress for token %s, which no request issued", text);
        return;
    }
    if (req->answered && !req->task_created)
        report(obs, MCPS_FINDING_PROGRESS_AFTER_RESPONSE, dir, offset, line,
               "progress for token %s after the final response to its request (line %zu)", text,
               req->line);
    else if (req->progress_seen && !(progress->valuedouble > req->last_progress))
        report(obs, MCPS_FINDING_PROGRESS_NOT_INCREASING, dir, offset, line,
               "progress for token %s went from %g to %g", text, req->last_progress,
               progress->valuedouble);
    req->last_progress = progress->valuedouble;
    req->progress_seen = true;
}

/* ---- one whole message -------------------------------------------------------- */

static void report_classification(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir,
                                  uint64_t offset, size_t line)
{
    size_t kept =
        info->nviolations < MCPS_RPC_MAX_VIOLATIONS ? info->nviolations : MCPS_RPC_MAX_VIOLATIONS;
    for (size_t i = 0; i < kept; i++)
        report(obs, info->violations[i].kind, dir, offset, line, "%s", info->violations[i].message);
}

static void judge_batch(mcps_observer *obs, const cJSON *msg, mcps_dir dir, uint64_t offset,
                        size_t line)
{
    size_t index = 0;
    for (const cJSON *item = msg->child; item; item = item->next, index++) {
        mcps_rpc_info info;
        mcps_rpc_classify_batch_item(item, obs->rev, &info);
        size_t kept =
            info.nviolations < MCPS_RPC_MAX_VIOLATIONS ? info.nviolations : MCPS_RPC_MAX_VIOLATIONS;
        for (size_t i = 0; i < kept; i++)
            report(obs, info.violations[i].kind, dir, offset, line, "batch element %zu: %s", index,
                   info.violations[i].message);
        mcps_observer_track(obs, &info, dir, offset, line);
    }
}

static void report_json_findings(mcps_observer *obs, const mcps_json_result *r, mcps_dir dir,
                                 uint64_t offset, size_t line)
{
    size_t kept = r->nfindings < MCPS_JSON_MAX_FINDINGS ? r->nfindings : MCPS_JSON_MAX_FINDINGS;
    for (size_t i = 0; i < kept; i++) {
        const mcps_json_finding *f = &r->findings[i];
        if (f->kind == MCPS_JSON_DUPLICATE_KEY)
            report(obs, MCPS_FINDING_DUPLICATE_KEY, dir, offset + f->offset, line, "%s", f->detail);
        else
            report(obs, MCPS_FINDING_LONE_SURROGATE, dir, offset + f->offset, line,
                   "lone surrogate %s", f->detail);
    }
    if (r->nfindings > kept)
        /* Their kinds were not kept; the kept ones already break their rules. */
        report(obs, MCPS_FINDING_NOTE, dir, offset, line,
               "%zu more duplicate keys or lone surrogates in this message, not listed",
               r->nfindings - kept);
}

/* RPC-ERR-002: a short, single-sentence description (catalog: warn when empty,
 * multi-line or over 200 characters). */
static void judge_error_message(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir,
                                uint64_t offset, size_t line)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(info->error, "message");
    if (!cJSON_IsString(m))
        return;
    size_t n = strlen(m->valuestring);
    const char *why = n == 0                         ? "is empty"
                      : strchr(m->valuestring, '\n') ? "spans several lines"
                      : n > 200                      ? "is longer than 200 characters"
                                                     : NULL;
    if (why)
        report(obs, MCPS_FINDING_ERROR_MESSAGE, dir, offset, line, "error message %s (%zu bytes)",
               why, n);
}

static void accept_message(mcps_observer *obs, const mcps_json_result *r, mcps_dir dir,
                           uint64_t offset, size_t line, mcps_observed *out)
{
    report_json_findings(obs, r, dir, offset, line);
    *out = (mcps_observed){
        .msg = r->root, .dir = dir, .offset = offset, .line = line, .last_line = line};
    mcps_rpc_classify(r->root, obs->rev, &out->info);
    report_classification(obs, &out->info, dir, offset, line);
    if (out->info.kind == MCPS_RPC_ERROR) {
        judge_error_message(obs, &out->info, dir, offset, line);
        judge_url_elicitation_error(obs, &out->info, dir, offset, line);
    }
    judge_meta(obs, r->root, dir, offset, line);
    if (out->info.kind == MCPS_RPC_NOTIFICATION &&
        strcmp(out->info.method, "notifications/resources/updated") == 0)
        judge_resource_update(obs, &out->info, dir, offset, line);
    if (out->info.kind == MCPS_RPC_NOTIFICATION &&
        strcmp(out->info.method, "notifications/progress") == 0)
        judge_progress(obs, &out->info, dir, offset, line);
    if (obs->rev == MCPS_REV_2026_07_28 && dir != MCPS_DIR_TO_SERVER)
        mcps_observe_stateless(obs, &out->info, dir, offset, line);
    if (out->info.kind == MCPS_RPC_BATCH)
        judge_batch(obs, r->root, dir, offset, line);
    else
        mcps_observer_track(obs, &out->info, dir, offset, line);
}

/* ---- lines that are not messages ----------------------------------------------- */

static mcps_finding_kind not_json(mcps_dir dir)
{
    return dir == MCPS_DIR_FROM_SERVER ? MCPS_FINDING_NOT_JSON_FROM_SERVER
           : dir == MCPS_DIR_TO_SERVER ? MCPS_FINDING_NOT_JSON_TO_SERVER
                                       : MCPS_FINDING_NOT_JSON;
}

static mcps_finding_kind bad_utf8(mcps_rev rev)
{
    return rev == MCPS_REV_2024_11_05 ? MCPS_FINDING_BAD_UTF8_2024 : MCPS_FINDING_BAD_UTF8;
}

static void report_garbage(mcps_observer *obs, const char *data, size_t len,
                           const mcps_json_result *r, mcps_dir dir, uint64_t offset, size_t line)
{
    size_t bad;
    if (!mcps_json_utf8_valid(data, len, &bad)) {
        report(obs, bad_utf8(obs->rev), dir, offset + bad, line,
               "invalid UTF-8 (byte 0x%02X at column %zu)", (unsigned char)data[bad], bad + 1);
        return;
    }
    if (len == 0) {
        report(obs, not_json(dir), dir, offset, line, "an empty line, which is not an MCP message");
        return;
    }
    char excerpt[80];
    mcps_excerpt(data, len, excerpt, sizeof excerpt);
    report(obs, not_json(dir), dir, offset + r->error_offset, line,
           "not a JSON message: %s (column %zu): %s", r->error, r->error_offset + 1, excerpt);
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0. */
static size_t utf8_len_at(const unsigned char *s, size_t avail)
{
    size_t bad;
    for (size_t n = 1; n <= 4 && n <= avail; n++)
        if (mcps_json_utf8_valid((const char *)s, n, &bad))
            return n;
    return 0;
}

void mcps_excerpt(const char *data, size_t len, char *dst, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *s = (const unsigned char *)data;
    size_t o = 0;
    if (n < 8) {
        if (n)
            dst[0] = '\0';
        return;
    }
    dst[o++] = '"';
    for (size_t i = 0; i < len;) {
        size_t seq = s[i] >= 0x20 && s[i] != 0x7F ? utf8_len_at(s + i, len - i) : 0;
        size_t need = seq ? seq : 4;
        if (o + need + 5 > n) {
            memcpy(dst + o, "\"...", 4);
            dst[o + 4] = '\0';
            return;
        }
        if (seq) {
            memcpy(dst + o, s + i, seq);
            o += seq;
            i += seq;
            continue;
        }
        dst[o++] = '\\';
        dst[o++] = 'x';
        dst[o++] = hex[s[i] >> 4];
        dst[o++] = hex[s[i] & 15];
        i++;
    }
    dst[o++] = '"';
    dst[o] = '\0';
}

/* A copy with every byte that is not part of valid UTF-8 replaced by U+FFFD. */
static void repair_utf8(const char *data, size_t len, mcps_buf *out)
{
    const unsigned char *s = (const unsigned char *)data;
    for (size_t i = 0; i < len;) {
        size_t seq = utf8_len_at(s + i, len - i);
        if (seq) {
            mcps_buf_append(out, s + i, seq);
            i += seq;
        } else {
            mcps_buf_puts(out, "\xEF\xBF\xBD");
            i++;
        }
    }
}

/* Findings in a repaired line point into the repaired bytes; each U+FFFD
 * stands for one original byte. */
static size_t unrepaired_offset(const char *data, size_t len, size_t fixed_offset)
{
    const unsigned char *s = (const unsigned char *)data;
    size_t fixed = 0, i = 0;
    while (i < len && fixed < fixed_offset) {
        size_t seq = utf8_len_at(s + i, len - i);
        fixed += seq ? seq : 3;
        i += seq ? seq : 1;
    }
    return i;
}

static void hold(mcps_observer *obs, mcps_dir dir, const char *data, size_t len, uint64_t offset,
                 size_t line)
{
    mcps_buf_clear(&obs->held);
    mcps_buf_append(&obs->held, data, len);
    obs->held_dir = dir;
    obs->held_offset = offset;
    obs->held_line = line;
    obs->held_lines = 1;
}

/* The held lines never became a message: report them as what they are. */
static void flush_held(mcps_observer *obs)
{
    if (!obs->held_lines)
        return;
    mcps_json_result r;
    mcps_json_parse(obs->held.data, obs->held.len, NULL, &r);
    mcps_json_delete(r.root);
    if (obs->held_lines == 1)
        report_garbage(obs, obs->held.data, obs->held.len, &r, obs->held_dir, obs->held_offset,
                       obs->held_line);
    else
        report(obs, not_json(obs->held_dir), obs->held_dir, obs->held_offset, obs->held_line,
               "lines %zu to %zu are not a JSON message: %s", obs->held_line,
               obs->held_line + obs->held_lines - 1, r.error);
    mcps_buf_clear(&obs->held);
    obs->held_lines = 0;
}

static bool parse_line(mcps_observer *obs, const char *data, size_t len, mcps_json_result *r)
{
    mcps_json_limits lim = mcps_json_default_limits();
    lim.max_bytes = obs->max_message;
    return mcps_json_parse(data, len, &lim, r);
}

/* Continue held lines with this one; true when the joined text became a message. */
static bool continue_held(mcps_observer *obs, const char *data, size_t len, size_t line,
                          mcps_observed *out)
{
    mcps_buf_putc(&obs->held, ' '); /* where the raw newline was */
    mcps_buf_append(&obs->held, data, len);
    obs->held_lines++;
    mcps_json_result r;
    if (parse_line(obs, obs->held.data, obs->held.len, &r)) {
        report(obs, MCPS_FINDING_EMBEDDED_NEWLINE, obs->held_dir, obs->held_offset, obs->held_line,
               "one message spans lines %zu to %zu: it contains raw newlines", obs->held_line,
               line);
        accept_message(obs, &r, obs->held_dir, obs->held_offset, obs->held_line, out);
        out->last_line = line;
        mcps_buf_clear(&obs->held);
        obs->held_lines = 0;
        return true;
    }
    if (!r.incomplete || obs->held_lines >= MAX_HELD_LINES || obs->held.len >= obs->max_message)
        flush_held(obs);
    return false;
}

/*
 * Invalid UTF-8 is reported once; if the line is JSON apart from that, the
 * repaired message goes on, so one bad byte does not hide everything else.
 */
static bool accept_repaired(mcps_observer *obs, const char *data, size_t len, mcps_dir dir,
                            uint64_t offset, size_t line, mcps_observed *out)
{
    size_t bad;
    if (mcps_json_utf8_valid(data, len, &bad))
        return false;
    mcps_buf fixed = {0};
    repair_utf8(data, len, &fixed);
    mcps_json_result r;
    bool ok = !fixed.oom && parse_line(obs, fixed.data, fixed.len, &r);
    if (ok) {
        report(obs, bad_utf8(obs->rev), dir, offset + bad, line,
               "invalid UTF-8 (byte 0x%02X at column %zu); judged the rest with U+FFFD in its "
               "place",
               (unsigned char)data[bad], bad + 1);
        for (size_t i = 0; i < r.nfindings && i < MCPS_JSON_MAX_FINDINGS; i++)
            r.findings[i].offset = unrepaired_offset(data, len, r.findings[i].offset);
        accept_message(obs, &r, dir, offset, line, out);
    }
    mcps_buf_free(&fixed);
    return ok;
}

bool mcps_observer_line(mcps_observer *obs, mcps_dir dir, const char *data, size_t len,
                        uint64_t offset, size_t line, mcps_observed *out)
{
    /* An unmarked line continues a held message: transcripts mark only the first. */
    if (obs->held_lines && (obs->held_dir == dir || dir == MCPS_DIR_UNKNOWN))
        return continue_held(obs, data, len, line, out);
    flush_held(obs);
    mcps_json_result r;
    if (parse_line(obs, data, len, &r)) {
        accept_message(obs, &r, dir, offset, line, out);
        return true;
    }
    if (accept_repaired(obs, data, len, dir, offset, line, out))
        return true;
    if (r.incomplete && len > 0 && !obs->framed)
        hold(obs, dir, data, len, offset, line);
    else
        report_garbage(obs, data, len, &r, dir, offset, line);
    return false;
}

void mcps_observer_oversize(mcps_observer *obs, mcps_dir dir, size_t len, uint64_t offset,
                            size_t line)
{
    flush_held(obs);
    report(obs, MCPS_FINDING_NOTE, dir, offset, line,
           "message longer than the limit of %zu bytes (%zu seen); not judged (raise "
           "--max-message to judge it)",
           obs->max_message, len);
}

void mcps_observer_finish(mcps_observer *obs)
{
    flush_held(obs);
}
