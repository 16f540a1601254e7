/*
 * judges.c - rules judged over a whole case's traffic once it has ended.
 *
 * Some requirements are about the conversation, not about one message: what a
 * server sends must fit what each side declared (its own capabilities, the
 * client's), the negotiated revision, the requests it made itself, and the
 * secrets it was given. The passive observer sees one message at a time; these
 * judges see the case's whole inbox together with both sides' capabilities.
 * Findings go to the observer tally like any other, under observe/... checks.
 */
#include "engine/internal.h"

#include "codec/json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void finding(const mcps_judge_input *in, mcps_finding_kind kind, const mcps_inmsg *m,
                    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void finding(const mcps_judge_input *in, mcps_finding_kind kind, const mcps_inmsg *m,
                    const char *fmt, ...)
{
    mcps_finding f = {.kind = kind,
                      .reqs = mcps_finding_kind_reqs(kind),
                      .dir = MCPS_DIR_FROM_SERVER,
                      .line = m ? m->line : 0};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f.message, sizeof f.message, fmt, ap);
    va_end(ap);
    char excerpt[200] = "";
    if (m) {
        char *text = mcps_json_print(m->msg, NULL);
        if (text)
            mcps_excerpt(text, strlen(text), excerpt, sizeof excerpt);
        free(text);
    }
    mcps_tally_finding(in->tally, in->rev, in->case_id, &f, excerpt);
}

static const char *method_of(const mcps_inmsg *m)
{
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(m->msg, "method");
    return cJSON_IsString(method) ? method->valuestring : NULL;
}

/* caps.path (dotted) is declared: present, and not false or null. */
static bool declared(const cJSON *caps, const char *path)
{
    const cJSON *v = caps;
    for (const char *seg = path; v && *seg;) {
        char key[64];
        size_t n = strcspn(seg, ".");
        snprintf(key, sizeof key, "%.*s", (int)n, seg);
        v = cJSON_GetObjectItemCaseSensitive(v, key);
        seg += n + (seg[n] == '.');
    }
    return v && !cJSON_IsFalse(v) && !cJSON_IsNull(v);
}

/* ---- the server's own capabilities --------------------------------------------------- */

/*
 * A notification announced by a capability. Log messages have their own rule
 * (CAP-SRV-004); a listChanged or subscribe notification the server did not
 * declare is using a feature it did not negotiate (CAP-GEN-001, a MUST as
 * CAP-GEN-002 from 2025-06-18), whether or not it declared the feature's list.
 */
static void judge_declared_notification(const mcps_judge_input *in, const mcps_inmsg *m)
{
    static const struct {
        const char *method, *cap;
        mcps_finding_kind kind;
    } rules[] = {
        {"notifications/message", "logging", MCPS_FINDING_UNDECLARED_LOGGING},
        {"notifications/tools/list_changed", "tools.listChanged",
         MCPS_FINDING_UNDECLARED_TOOLS_CHANGED},
        {"notifications/prompts/list_changed", "prompts.listChanged",
         MCPS_FINDING_UNDECLARED_PROMPTS_CHANGED},
        {"notifications/resources/list_changed", "resources.listChanged",
         MCPS_FINDING_UNDECLARED_RESOURCES_NOTICE},
        {"notifications/resources/updated", "resources.subscribe",
         MCPS_FINDING_UNDECLARED_RESOURCES_NOTICE},
    };
    const char *method = method_of(m);
    for (size_t r = 0; method && r < sizeof rules / sizeof *rules; r++)
        if (strcmp(method, rules[r].method) == 0 && !declared(in->server_caps, rules[r].cap))
            finding(in, rules[r].kind, m, "%s sent, but the server did not declare %s", method,
                    rules[r].cap);
}

/* ---- what the client declared ---------------------------------------------------------- */

static mcps_finding_kind client_undeclared(mcps_rev rev)
{
    return rev <= MCPS_REV_2025_03_26 ? MCPS_FINDING_CLIENT_UNDECLARED_2024
                                      : MCPS_FINDING_CLIENT_UNDECLARED;
}

/* A request to the client for a feature mcpspec did not declare. */
static void judge_client_request(const mcps_judge_input *in, const mcps_inmsg *m)
{
    const char *method = method_of(m);
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(m->msg, "params");
    const cJSON *caps = in->client_caps;
    if (!method)
        return;
    if (strcmp(method, "roots/list") == 0 && !declared(caps, "roots"))
        finding(in, MCPS_FINDING_ROOTS_UNDECLARED, m,
                "roots/list sent, but mcpspec declared no roots");
    if (strcmp(method, "sampling/createMessage") == 0 && !declared(caps, "sampling"))
        finding(in, client_undeclared(in->rev), m,
                "sampling/createMessage sent, but mcpspec declared no sampling");
    if (strcmp(method, "elicitation/create") == 0 && !declared(caps, "elicitation"))
        finding(in, client_undeclared(in->rev), m,
                "elicitation/create sent, but mcpspec declared no elicitation");
    if (in->rev < MCPS_REV_2025_11_25)
        return;
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(params, "mode");
    if (cJSON_IsString(mode) && strcmp(mode->valuestring, "url") == 0 &&
        !declared(caps, "elicitation.url"))
        finding(in, MCPS_FINDING_URL_ELICITATION_UNDECLARED, m,
                "a URL-mode elicitation, but mcpspec declared no elicitation.url");
    if ((cJSON_HasObjectItem(params, "tools") || cJSON_HasObjectItem(params, "toolChoice")) &&
        !declared(caps, "sampling.tools"))
        finding(in, MCPS_FINDING_SAMPLING_TOOLS_UNDECLARED, m,
                "sampling with tools, but mcpspec declared no sampling.tools");
    const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(params, "includeContext");
    if (cJSON_IsString(ctx) && strcmp(ctx->valuestring, "none") != 0 &&
        !declared(caps, "sampling.context"))
        finding(in, MCPS_FINDING_SAMPLING_CONTEXT_UNDECLARED, m,
                "includeContext \"%.20s\", but mcpspec declared no sampling.context",
                ctx->valuestring);
    if (cJSON_HasObjectItem(params, "task") && !declared(caps, "tasks"))
        finding(in, MCPS_FINDING_TASKS_UNDECLARED, m,
                "a task-augmented %s, but mcpspec declared no tasks", method);
}

/* ---- the negotiated revision ----------------------------------------------------------------- */

/* Methods the server may send that do not exist in every revision (LIFE-OP-001/002). */
static void judge_revision_method(const mcps_judge_input *in, const mcps_inmsg *m)
{
    static const struct {
        const char *prefix;
        mcps_rev since;
    } rules[] = {
        {"elicitation/create", MCPS_REV_2025_06_18},
        {"notifications/elicitation/complete", MCPS_REV_2025_11_25},
        {"tasks/", MCPS_REV_2025_11_25},
        {"notifications/tasks/", MCPS_REV_2025_11_25},
    };
    const char *method = method_of(m);
    for (size_t r = 0; method && r < sizeof rules / sizeof *rules; r++)
        if (strncmp(method, rules[r].prefix, strlen(rules[r].prefix)) == 0 &&
            in->rev < rules[r].since)
            finding(in,
                    in->rev <= MCPS_REV_2025_03_26 ? MCPS_FINDING_METHOD_TOO_NEW_2025_03
                                                   : MCPS_FINDING_METHOD_TOO_NEW,
                    m, "%s does not exist in %s, the negotiated revision", method,
                    mcps_rev_name(in->rev));
}

/* ---- the server's own requests ------------------------------------------------------------------
 */

/* Its progress tokens: a string or integer (PROG-001), never two live at once (PROG-002). */
static void judge_server_tokens(const mcps_judge_input *in)
{
    const mcps_session *s = in->session;
    for (size_t i = 0; i < s->ninbox; i++) {
        const mcps_inmsg *m = &s->inbox[i];
        const cJSON *meta = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(m->msg, "params"), "_meta");
        const cJSON *token = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");
        if (m->shape != MCPS_SHAPE_REQUEST || !token)
            continue;
        if (!mcps_rpc_id_valid(token)) {
            finding(in, MCPS_FINDING_PROGRESS_TOKEN_TYPE, m,
                    "a progressToken that is neither a string nor an integer");
            continue;
        }
        for (size_t k = 0; k < i; k++) {
            const cJSON *other = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(
                    cJSON_GetObjectItemCaseSensitive(s->inbox[k].msg, "params"), "_meta"),
                "progressToken");
            if (s->inbox[k].shape == MCPS_SHAPE_REQUEST && mcps_rpc_id_equal(other, token))
                finding(in, MCPS_FINDING_PROGRESS_TOKEN_REUSED, m,
                        "a progressToken an earlier request already used");
        }
    }
}

/* Its cancellations name one of its own requests (CANC-001), by requestId (CANC-009). */
static void judge_server_cancellation(const mcps_judge_input *in, const mcps_inmsg *m)
{
    const char *method = method_of(m);
    if (!method || strcmp(method, "notifications/cancelled") != 0)
        return;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(m->msg, "params"), "requestId");
    if (!id) {
        if (in->rev >= MCPS_REV_2025_11_25)
            finding(in, MCPS_FINDING_CANCEL_NO_REQUEST_ID, m,
                    "notifications/cancelled without a requestId");
        return;
    }
    const mcps_session *s = in->session;
    for (size_t i = 0; i < s->ninbox && &s->inbox[i] != m; i++)
        if (s->inbox[i].shape == MCPS_SHAPE_REQUEST &&
            mcps_rpc_id_equal(cJSON_GetObjectItemCaseSensitive(s->inbox[i].msg, "id"), id))
            return;
    finding(in, MCPS_FINDING_CANCEL_UNKNOWN_REQUEST, m,
            "notifications/cancelled names a request the server never sent");
}

/* ---- what it put in its results
 * ---------------------------------------------------------------------- */

static bool has_embedded_resource(const cJSON *result)
{
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(result, "content");
    for (const cJSON *c = cJSON_IsArray(content) ? content->child : NULL; c; c = c->next) {
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(c, "type");
        if (cJSON_IsString(type) && strcmp(type->valuestring, "resource") == 0)
            return true;
    }
    return false;
}

/* TOOL-017: a server that embeds resources in tool results implements resources. */
static void judge_embedded_resources(const mcps_judge_input *in, const mcps_inmsg *m)
{
    if (in->rev < MCPS_REV_2025_06_18 || m->shape != MCPS_SHAPE_RESPONSE ||
        declared(in->server_caps, "resources"))
        return;
    const mcps_tracked_request *req = mcps_observer_request_for(
        &in->session->obs, cJSON_GetObjectItemCaseSensitive(m->msg, "id"), MCPS_DIR_TO_SERVER);
    if (req && strcmp(req->method, "tools/call") == 0 &&
        has_embedded_resource(cJSON_GetObjectItemCaseSensitive(m->msg, "result")))
        finding(in, MCPS_FINDING_UNDECLARED_EMBEDDED_RESOURCE, m,
                "a tool result embeds a resource, but the server declares no resources");
}

/* LOG-007: a secret mcpspec gave the target (a canary) never shows up in a log message. */
static void judge_canaries(const mcps_judge_input *in, const mcps_inmsg *m, size_t *logs)
{
    const cJSON *canaries = mcps_vars_get(in->vars, "canaries");
    const char *method = method_of(m);
    if (!cJSON_IsArray(canaries) || !method || strcmp(method, "notifications/message") != 0)
        return;
    (*logs)++;
    char *text = mcps_json_print(m->msg, NULL);
    for (const cJSON *c = canaries->child; text && c; c = c->next)
        if (cJSON_IsString(c) && strstr(text, c->valuestring))
            finding(in, MCPS_FINDING_SECRET_IN_LOG, m,
                    "a log message repeats the secret mcpspec put in the target's environment");
    free(text);
}

/* ---- task statuses -------------------------------------------------------------------------- */

static int status_rank(const char *s)
{
    static const char *const names[] = {"working", "input_required", "completed", "failed",
                                        "cancelled"};
    for (int i = 0; i < 5; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

/* working -> anything; input_required -> anything but itself... terminal states never change. */
static bool transition_ok(int from, int to)
{
    if (from == to)
        return true;
    if (from >= 2)
        return false;
    return to != -1;
}

/* The task a message reports on: a CreateTaskResult, a get/cancel result, a status notification. */
static const cJSON *task_in(const mcps_inmsg *m)
{
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(m->msg, "result");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(m->msg, "params");
    const char *method = method_of(m);
    if (result && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(result, "task")))
        return cJSON_GetObjectItemCaseSensitive(result, "task");
    if (result && cJSON_HasObjectItem(result, "taskId") && cJSON_HasObjectItem(result, "status"))
        return result;
    if (method && strcmp(method, "notifications/tasks/status") == 0)
        return params;
    return NULL;
}

/* TASK-012: statuses only move forward along the lifecycle. */
static void judge_task_statuses(const mcps_judge_input *in, size_t *seen)
{
    const mcps_session *s = in->session;
    for (size_t i = 0; i < s->ninbox; i++) {
        const cJSON *t = task_in(&s->inbox[i]);
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(t, "taskId");
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(t, "status");
        if (!cJSON_IsString(id) || !cJSON_IsString(st))
            continue;
        (*seen)++;
        for (size_t k = i + 1; k < s->ninbox; k++) {
            const cJSON *later = task_in(&s->inbox[k]);
            const cJSON *lid = cJSON_GetObjectItemCaseSensitive(later, "taskId");
            const cJSON *lst = cJSON_GetObjectItemCaseSensitive(later, "status");
            if (!cJSON_IsString(lid) || !cJSON_IsString(lst) ||
                strcmp(lid->valuestring, id->valuestring))
                continue;
            if (!transition_ok(status_rank(st->valuestring), status_rank(lst->valuestring)))
                finding(in, MCPS_FINDING_TASK_STATUS_BACKWARDS, &s->inbox[k],
                        "task %.40s went from %s to %s", id->valuestring, st->valuestring,
                        lst->valuestring);
            break; /* the next report of this task is judged against this one only */
        }
    }
}

void mcps_judge_case(const mcps_judge_input *in)
{
    mcps_session *s = in->session;
    size_t logs = 0, tasks = 0;
    for (size_t i = 0; i < s->ninbox; i++) {
        const mcps_inmsg *m = &s->inbox[i];
        if (m->shape == MCPS_SHAPE_BATCH)
            continue;
        if (m->shape == MCPS_SHAPE_NOTIFICATION) {
            judge_declared_notification(in, m);
            judge_server_cancellation(in, m);
            judge_canaries(in, m, &logs);
        }
        if (m->shape == MCPS_SHAPE_REQUEST)
            judge_client_request(in, m);
        if (m->shape == MCPS_SHAPE_REQUEST || m->shape == MCPS_SHAPE_NOTIFICATION)
            judge_revision_method(in, m);
        judge_embedded_resources(in, m);
    }
    judge_server_tokens(in);
    judge_task_statuses(in, &tasks);
    s->counts.canary_logs += logs;
    s->counts.task_reports += tasks;
}
