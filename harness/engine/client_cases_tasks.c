/*
 * client_cases_tasks.c - the client checks of the tasks scenario (2025-11-25):
 * the scripted server declares tasks.requests.tools.call and serves one tool
 * whose execution.taskSupport is "required"; a task-augmented call creates
 * the one task (working, pollInterval MCPS_CLIENT_POLL_MS), tasks/get moves it
 * to input_required for a client declaring elicitation (completed otherwise),
 * and tasks/result then draws an elicitation/create tied to the task. These
 * checks grade the client as the requestor: it calls the tool as a task,
 * polls no faster than pollInterval, fetches the result on input_required and
 * answers the task's request with the related-task _meta, keeps that _meta off
 * tasks/get, list and cancel, and never cancels the task with
 * notifications/cancelled.
 *
 * A table of its own, appended after client_cases_http.c's by
 * mcps_client_check_at, as that one is; the verdict helpers are the same
 * small ones (static in each file).
 */
#include "engine/client_cases.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "codec/rev.h"
#include "codec/rpc.h"

/* How early a poll may be read against pollInterval: our clock reads a message late by up
 * to a slice, so the gap between two readings can look shorter than the client waited. */
#define POLL_SLACK_MS 100

static int verdict(mcps_client_grade *g, mcps_verdict v, mcps_buf *into, const char *fmt,
                   va_list ap)
{
    g->verdict = v;
    mcps_buf_clear(into);
    mcps_buf_vprintf(into, fmt, ap);
    return 0;
}

static int pass(mcps_client_grade *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int pass(mcps_client_grade *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verdict(g, MCPS_VERDICT_PASS, &g->observed, fmt, ap);
    va_end(ap);
    return 0;
}

static int info(mcps_client_grade *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int info(mcps_client_grade *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verdict(g, MCPS_VERDICT_INFO, &g->observed, fmt, ap);
    va_end(ap);
    return 0;
}

static int skip(mcps_client_grade *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int skip(mcps_client_grade *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verdict(g, MCPS_VERDICT_SKIP, &g->reason, fmt, ap);
    va_end(ap);
    return 0;
}

/* A broken requirement, on the level it has in the revision graded (FAIL, WARN or INFO). */
static int broke(mcps_client_grade *g, const char *id, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int broke(mcps_client_grade *g, const char *id, const char *fmt, ...)
{
    va_list ap;
    mcps_level level = MCPS_LEVEL_MUST;
    mcps_catalog_level_of(id, g->rev, &level);
    g->broken = id;
    va_start(ap, fmt);
    verdict(g, mcps_verdict_for_level(level), &g->observed, fmt, ap);
    va_end(ap);
    return 0;
}

static const cJSON *member(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name);
}

/* Whether message i is a request (with_id) or notification of method. */
static bool is(const mcps_client_trace *t, size_t i, const char *method, bool with_id)
{
    const cJSON *m = t->msgs[i].json, *v = member(m, "method");
    return cJSON_IsString(v) && strcmp(v->valuestring, method) == 0 &&
           (member(m, "id") != NULL) == with_id;
}

/* Why the tasks scenario has nothing to grade; NULL when a task was created. */
static const char *no_task(const mcps_client_trace *t)
{
    if (!t->answered[0])
        return "the client sent no initialize request";
    if (!t->tasks_offered)
        return "the scripted server offers tasks on 2025-11-25 only, and another revision was "
               "negotiated";
    if (!t->task_created)
        return "the client created no task (no task-augmented tools/call)";
    return NULL;
}

static int task_required(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->answered[0] || !t->tasks_offered)
        return skip(g, "%s", no_task(t));
    size_t calls = 0;
    for (size_t i = 0; i < t->nmsgs; i++) {
        if (!is(t, i, "tools/call", true))
            continue;
        calls++;
        if (!cJSON_IsObject(member(member(t->msgs[i].json, "params"), "task")))
            return broke(g, "TASK-005",
                         "tools/call of a tool whose execution.taskSupport is \"required\" came "
                         "without params.task");
    }
    if (!calls)
        return skip(g, "the client called no tool");
    return pass(g, "%zu tools/call of the task-only tool, each with params.task", calls);
}

static int task_polling(const mcps_client_trace *t, mcps_client_grade *g)
{
    const char *why = no_task(t);
    if (why)
        return skip(g, "%s", why);
    size_t polls = 0, results = 0;
    int64_t prev = t->task_created_ms;
    for (size_t i = t->task_created_at; i < t->nmsgs; i++) {
        results += is(t, i, "tasks/result", true);
        if (!is(t, i, "tasks/get", true))
            continue;
        long long gap = (long long)(t->msgs[i].at_ms - prev);
        if (gap < MCPS_CLIENT_POLL_MS - POLL_SLACK_MS)
            return broke(g, "TASK-014",
                         "tasks/get %zu came %lld ms after the answer before it; every Task "
                         "said pollInterval %d",
                         polls + 1, gap, MCPS_CLIENT_POLL_MS);
        prev = t->msgs[i].at_ms;
        polls++;
    }
    if (!polls && results)
        return info(g, "the client did not poll: it asked tasks/result straight away (which "
                       "waits for the task to finish)");
    if (!polls)
        return skip(g, "the client neither polled the task nor asked its result");
    return pass(g, "%zu tasks/get, each at least %d ms after the answer before it (pollInterval)",
                polls, MCPS_CLIENT_POLL_MS - POLL_SLACK_MS);
}

/* The related-task taskId in o's _meta, or NULL. */
static const char *related_task(const cJSON *o)
{
    const cJSON *id = member(member(member(o, "_meta"), MCPS_CLIENT_RELATED_TASK), "taskId");
    return cJSON_IsString(id) ? id->valuestring : NULL;
}

static int task_input(const mcps_client_trace *t, mcps_client_grade *g)
{
    const char *why = no_task(t);
    if (why)
        return skip(g, "%s", why);
    if (!t->task_input_required)
        return skip(g, "the task never went input_required (it does so for a client that "
                       "declared elicitation and polled tasks/get twice)");
    if (!t->task_input_asked)
        return broke(g, "TASK-020",
                     "tasks/get said input_required; the client never called tasks/result to "
                     "receive what the task needs");
    if (!t->inject_answer)
        return skip(g, "the client did not answer the task's elicitation/create");
    const cJSON *result = member(t->inject_answer, "result");
    if (!result)
        return info(g, "the client refused the task's elicitation/create with an error (an "
                       "error response has no _meta to tie it to the task)");
    const char *id = related_task(result);
    if (!id)
        return broke(g, "TASK-017",
                     "the answer to the task's elicitation/create (which carried _meta %s) came "
                     "without that _meta",
                     MCPS_CLIENT_RELATED_TASK);
    if (strcmp(id, MCPS_CLIENT_TASK_ID) != 0)
        return broke(g, "TASK-017", "the answer to the task's elicitation/create names task %.60s",
                     id);
    return pass(g,
                "input_required: the client called tasks/result and answered the task's "
                "elicitation/create with _meta %s {taskId: %s}",
                MCPS_CLIENT_RELATED_TASK, MCPS_CLIENT_TASK_ID);
}

static int task_meta(const mcps_client_trace *t, mcps_client_grade *g)
{
    static const char *const methods[] = {"tasks/get", "tasks/list", "tasks/cancel"};
    const char *why = no_task(t);
    if (why)
        return skip(g, "%s", why);
    size_t judged = 0;
    for (size_t i = t->task_created_at; i < t->nmsgs; i++)
        for (size_t k = 0; k < sizeof methods / sizeof *methods; k++) {
            if (!is(t, i, methods[k], true))
                continue;
            judged++;
            if (related_task(member(t->msgs[i].json, "params")))
                return broke(g, "TASK-019",
                             "%s carried _meta %s (its taskId param already says which task)",
                             methods[k], MCPS_CLIENT_RELATED_TASK);
        }
    if (!judged)
        return skip(g, "the client sent no tasks/get, tasks/list or tasks/cancel");
    return pass(g, "%zu tasks/get, list or cancel requests, none with the related-task _meta",
                judged);
}

static int task_cancel(const mcps_client_trace *t, mcps_client_grade *g)
{
    const char *why = no_task(t);
    if (why)
        return skip(g, "%s", why);
    bool used_cancel = false;
    for (size_t i = t->task_created_at; i < t->nmsgs; i++) {
        char id[64];
        used_cancel |= is(t, i, "tasks/cancel", true);
        if (!is(t, i, "notifications/cancelled", false))
            continue;
        mcps_rpc_id_text(member(member(t->msgs[i].json, "params"), "requestId"), id, sizeof id);
        if (strcmp(id, t->task_call_id) == 0)
            return broke(g, "CANC-008",
                         "notifications/cancelled for the task-augmented tools/call (id %s): a "
                         "task is cancelled with tasks/cancel",
                         id);
    }
    return pass(g, "no notifications/cancelled for the task-augmented tools/call (%s)",
                used_cancel ? "it used tasks/cancel" : "the client cancelled nothing");
}

#define TASK_REV MCPS_REV_BIT(MCPS_REV_2025_11_25)

static const mcps_client_check task_checks[] = {
    {"client/task-required",
     "A tool whose execution.taskSupport is \"required\" is called as a task",
     "basic/utilities/tasks", "TASK-005", MCPS_CSC_TASKS, false, task_required, MCPS_CT_STDIO,
     false, TASK_REV},
    {"client/task-polling", "A task is polled with tasks/get no faster than its pollInterval",
     "basic/utilities/tasks", "TASK-014", MCPS_CSC_TASKS, false, task_polling, MCPS_CT_STDIO, false,
     TASK_REV},
    {"client/task-input",
     "A task in input_required: tasks/result called, the task's request answered with the "
     "related-task _meta",
     "basic/utilities/tasks", "TASK-020 TASK-017", MCPS_CSC_TASKS, false, task_input, MCPS_CT_STDIO,
     false, TASK_REV},
    {"client/task-meta", "No related-task _meta on tasks/get, tasks/list and tasks/cancel",
     "basic/utilities/tasks", "TASK-019", MCPS_CSC_TASKS, false, task_meta, MCPS_CT_STDIO, false,
     TASK_REV},
    {"client/task-cancel", "A task is never cancelled with notifications/cancelled",
     "basic/utilities/cancellation", "CANC-008", MCPS_CSC_TASKS, false, task_cancel, MCPS_CT_STDIO,
     false, TASK_REV},
};

const mcps_client_check *mcps_client_tasks_check_at(size_t i)
{
    return i < sizeof task_checks / sizeof *task_checks ? &task_checks[i] : NULL;
}
