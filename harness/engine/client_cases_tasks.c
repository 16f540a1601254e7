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
 * notifications/cancelled. A client declaring tasks for sampling or
 * elicitation (capabilities.tasks.requests, CAP-CLI-005) is then graded as
 * the receiver of the steps of mcps_client_task_step: a CreateTaskResult,
 * tasks/get led by its taskId, tasks/list, tasks/result with the related-task
 * _meta, tasks/cancel (-32602 once terminal), -32602 for an unknown taskId,
 * and a request type it declared no tasks for served plainly (TASK-007).
 *
 * A table of its own, which mcps_client_check_at lists after the others;
 * verdicts go through client_grade.c, as every table's do.
 */
#include "engine/client_cases.h"

#include <stdio.h>
#include <string.h>

#include "codec/rev.h"
#include "codec/rpc.h"

/* How early a poll may be read against pollInterval: our clock reads a message late by up
 * to a slice, so the gap between two readings can look shorter than the client waited. */
#define POLL_SLACK_MS 100

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

/* Why the scenario offered no tasks at all; NULL when it did (2025-11-25 negotiated). */
static const char *tasks_not_offered(const mcps_client_trace *t)
{
    if (!t->answered[0])
        return "the client sent no initialize request";
    if (!t->tasks_offered)
        return "the scripted server offers tasks on 2025-11-25 only, and another revision was "
               "negotiated";
    return NULL;
}

/* Why the tasks scenario has nothing to grade; NULL when a task was created. */
static const char *no_task(const mcps_client_trace *t)
{
    const char *why = tasks_not_offered(t);
    if (why)
        return why;
    if (!t->task_created)
        return "the client created no task (no task-augmented tools/call)";
    return NULL;
}

static int task_required(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->answered[0] || !t->tasks_offered)
        return mcps_client_skip(g, "%s", no_task(t));
    size_t calls = 0;
    for (size_t i = 0; i < t->nmsgs; i++) {
        if (!is(t, i, "tools/call", true))
            continue;
        calls++;
        if (!cJSON_IsObject(member(member(t->msgs[i].json, "params"), "task")))
            return mcps_client_broke(
                g, "TASK-005",
                "tools/call of a tool whose execution.taskSupport is \"required\" came "
                "without params.task");
    }
    if (!calls)
        return mcps_client_skip(g, "the client called no tool");
    return mcps_client_pass(g, "%zu tools/call of the task-only tool, each with params.task",
                            calls);
}

static int task_polling(const mcps_client_trace *t, mcps_client_grade *g)
{
    const char *why = no_task(t);
    if (why)
        return mcps_client_skip(g, "%s", why);
    size_t polls = 0, results = 0;
    int64_t prev = t->task_created_ms;
    for (size_t i = t->task_created_at; i < t->nmsgs; i++) {
        results += is(t, i, "tasks/result", true);
        if (!is(t, i, "tasks/get", true))
            continue;
        long long gap = (long long)(t->msgs[i].at_ms - prev);
        if (gap < MCPS_CLIENT_POLL_MS - POLL_SLACK_MS)
            return mcps_client_broke(
                g, "TASK-014",
                "tasks/get %zu came %lld ms after the answer before it; every Task "
                "said pollInterval %d",
                polls + 1, gap, MCPS_CLIENT_POLL_MS);
        prev = t->msgs[i].at_ms;
        polls++;
    }
    if (!polls && results)
        return mcps_client_info(
            g, "the client did not poll: it asked tasks/result straight away (which "
               "waits for the task to finish)");
    if (!polls)
        return mcps_client_skip(g, "the client neither polled the task nor asked its result");
    return mcps_client_pass(
        g, "%zu tasks/get, each at least %d ms after the answer before it (pollInterval)", polls,
        MCPS_CLIENT_POLL_MS - POLL_SLACK_MS);
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
        return mcps_client_skip(g, "%s", why);
    if (!t->task_input_required)
        return mcps_client_skip(g,
                                "the task never went input_required (it does so for a client that "
                                "declared elicitation and polled tasks/get twice)");
    if (!t->task_input_asked)
        return mcps_client_broke(
            g, "TASK-020",
            "tasks/get said input_required; the client never called tasks/result to "
            "receive what the task needs");
    if (!t->inject_answer)
        return mcps_client_skip(g, "the client did not answer the task's elicitation/create");
    const cJSON *result = member(t->inject_answer, "result");
    if (!result)
        return mcps_client_info(
            g, "the client refused the task's elicitation/create with an error (an "
               "error response has no _meta to tie it to the task)");
    const char *id = related_task(result);
    if (!id)
        return mcps_client_broke(
            g, "TASK-017",
            "the answer to the task's elicitation/create (which carried _meta %s) came "
            "without that _meta",
            MCPS_CLIENT_RELATED_TASK);
    if (strcmp(id, MCPS_CLIENT_TASK_ID) != 0)
        return mcps_client_broke(
            g, "TASK-017", "the answer to the task's elicitation/create names task %.60s", id);
    return mcps_client_pass(
        g,
        "input_required: the client called tasks/result and answered the task's "
        "elicitation/create with _meta %s {taskId: %s}",
        MCPS_CLIENT_RELATED_TASK, MCPS_CLIENT_TASK_ID);
}

static int task_meta(const mcps_client_trace *t, mcps_client_grade *g)
{
    static const char *const methods[] = {"tasks/get", "tasks/list", "tasks/cancel"};
    const char *why = no_task(t);
    if (why)
        return mcps_client_skip(g, "%s", why);
    size_t judged = 0;
    for (size_t i = t->task_created_at; i < t->nmsgs; i++)
        for (size_t k = 0; k < sizeof methods / sizeof *methods; k++) {
            if (!is(t, i, methods[k], true))
                continue;
            judged++;
            if (related_task(member(t->msgs[i].json, "params")))
                return mcps_client_broke(
                    g, "TASK-019", "%s carried _meta %s (its taskId param already says which task)",
                    methods[k], MCPS_CLIENT_RELATED_TASK);
        }
    if (!judged)
        return mcps_client_skip(g, "the client sent no tasks/get, tasks/list or tasks/cancel");
    return mcps_client_pass(
        g, "%zu tasks/get, list or cancel requests, none with the related-task _meta", judged);
}

static int task_cancel(const mcps_client_trace *t, mcps_client_grade *g)
{
    const char *why = no_task(t);
    if (why)
        return mcps_client_skip(g, "%s", why);
    bool used_cancel = false;
    for (size_t i = t->task_created_at; i < t->nmsgs; i++) {
        char id[64];
        used_cancel |= is(t, i, "tasks/cancel", true);
        if (!is(t, i, "notifications/cancelled", false))
            continue;
        mcps_rpc_id_text(member(member(t->msgs[i].json, "params"), "requestId"), id, sizeof id);
        if (strcmp(id, t->task_call_id) == 0)
            return mcps_client_broke(
                g, "CANC-008",
                "notifications/cancelled for the task-augmented tools/call (id %s): a "
                "task is cancelled with tasks/cancel",
                id);
    }
    return mcps_client_pass(g, "no notifications/cancelled for the task-augmented tools/call (%s)",
                            used_cancel ? "it used tasks/cancel" : "the client cancelled nothing");
}

/* ---- the client as the receiver of task-augmented requests ---- */

/* Why the receiver's steps have nothing to grade; NULL when they were played. */
static const char *no_script(const mcps_client_trace *t)
{
    const char *why = tasks_not_offered(t);
    if (why)
        return why;
    if (!t->task_kind)
        return "the client declared no tasks for sampling or elicitation "
               "(capabilities.tasks.requests)";
    return NULL;
}

static const cJSON *answer_at(const mcps_client_trace *t, mcps_client_task_step k)
{
    return t->task_steps[k];
}

/* Whether s reads as an ISO 8601 date-time (YYYY-MM-DDTHH:MM). */
static bool iso_time(const cJSON *s)
{
    int y, mo, d, h, mi;
    char tee;
    return cJSON_IsString(s) &&
           sscanf(s->valuestring, "%4d-%2d-%2d%c%2d:%2d", &y, &mo, &d, &tee, &h, &mi) == 6 &&
           (tee == 'T' || tee == 't') && mo >= 1 && mo <= 12 && d >= 1 && d <= 31;
}

static bool valid_status(const char *s)
{
    static const char *const all[] = {"working", "input_required", "completed", "failed",
                                      "cancelled"};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (strcmp(s, all[i]) == 0)
            return true;
    return false;
}

/* What is wrong with a Task object (TASK-013 and its shape); NULL when nothing. */
static const char *task_wrong(const cJSON *task)
{
    const cJSON *id = member(task, "taskId"), *st = member(task, "status");
    const cJSON *ttl = member(task, "ttl");
    if (!cJSON_IsObject(task))
        return "no Task object";
    if (!cJSON_IsString(id) || !id->valuestring[0])
        return "a Task without a string taskId";
    if (!cJSON_IsString(st) || !valid_status(st->valuestring))
        return "a Task whose status is none of working, input_required, completed, failed, "
               "cancelled";
    if (!iso_time(member(task, "createdAt")) || !iso_time(member(task, "lastUpdatedAt")))
        return "a Task without ISO 8601 createdAt and lastUpdatedAt";
    if (!ttl || !(cJSON_IsNumber(ttl) || cJSON_IsNull(ttl)))
        return "a Task without ttl (a number, or null for unlimited)";
    return NULL;
}

static const char *status_in(const cJSON *task)
{
    const cJSON *st = member(task, "status");
    return cJSON_IsString(st) ? st->valuestring : "";
}

static const char *id_in(const cJSON *task)
{
    const cJSON *id = member(task, "taskId");
    return cJSON_IsString(id) ? id->valuestring : "";
}

static int receiver_create(const mcps_client_trace *t, mcps_client_grade *g)
{
    const char *why = no_script(t), *wrong;
    if (why)
        return mcps_client_skip(g, "%s", why);
    const cJSON *a = answer_at(t, MCPS_CTS_CREATE), *b = answer_at(t, MCPS_CTS_CREATE2);
    if (!a)
        return mcps_client_skip(g, "the client did not answer the task-augmented %s", t->task_kind);
    const cJSON *r = member(a, "result"), *task = member(r, "task");
    if (!r)
        return mcps_client_broke(
            g, "TASK-009",
            "a task-augmented %s, which it declared tasks for, was answered with an "
            "error",
            t->task_kind);
    if (!task)
        return mcps_client_broke(
            g, "TASK-009",
            "a task-augmented %s, which it declared tasks for, got the plain result, "
            "not a CreateTaskResult",
            t->task_kind);
    if ((wrong = task_wrong(task)))
        return mcps_client_broke(g, "TASK-013", "the CreateTaskResult holds %s", wrong);
    if (strcmp(status_in(task), "working") != 0)
        return mcps_client_broke(g, "TASK-011", "a new task's status is %s, not working",
                                 status_in(task));
    const cJSON *task2 = member(member(b, "result"), "task");
    if (task2 && strcmp(id_in(task), id_in(task2)) == 0)
        return mcps_client_broke(g, "TASK-010", "two tasks got the same taskId %.60s", id_in(task));
    return mcps_client_pass(
        g, "CreateTaskResult: task %.60s, working, with createdAt, lastUpdatedAt, ttl%s",
        id_in(task), task2 ? "; a second task got another id" : "");
}

static int receiver_get(const mcps_client_trace *t, mcps_client_grade *g)
{
    const char *why = no_script(t), *wrong;
    if (why)
        return mcps_client_skip(g, "%s", why);
    const cJSON *created = member(member(answer_at(t, MCPS_CTS_CREATE), "result"), "task");
    const cJSON *a = answer_at(t, MCPS_CTS_GET);
    if (!a)
        return mcps_client_skip(g, "no task to ask about, or tasks/get unanswered");
    const cJSON *task = member(a, "result");
    if (!task)
        return mcps_client_broke(
            g, "TASK-018",
            "tasks/get of task %.60s (with a related-task _meta naming %s) was "
            "answered with an error",
            id_in(created), MCPS_CLIENT_OTHER_TASK);
    if (strcmp(id_in(task), id_in(created)) != 0)
        return mcps_client_broke(
            g, "TASK-018",
            "tasks/get of task %.60s answered about task \"%.60s\": the taskId param "
            "decides, not the related-task _meta",
            id_in(created), id_in(task));
    if ((wrong = task_wrong(task)))
        return mcps_client_broke(g, "TASK-013", "tasks/get answered %s", wrong);
    return mcps_client_pass(
        g, "tasks/get answered about task %.60s (%s), the _meta naming another ignored",
        id_in(task), status_in(task));
}

static int receiver_list(const mcps_client_trace *t, mcps_client_grade *g)
{
    const char *why = no_script(t);
    if (why)
        return mcps_client_skip(g, "%s", why);
    const cJSON *created = member(member(answer_at(t, MCPS_CTS_CREATE), "result"), "task");
    const cJSON *a = answer_at(t, MCPS_CTS_LIST), *e;
    if (!a)
        return mcps_client_skip(g, "no task to list, or tasks/list unanswered");
    const cJSON *tasks = member(member(a, "result"), "tasks");
    if (!cJSON_IsArray(tasks))
        return mcps_client_broke(g, "TASK-022", "tasks/list answered without a tasks array");
    cJSON_ArrayForEach(e, tasks)
    {
        if (strcmp(id_in(e), id_in(created)) == 0)
            return mcps_client_pass(g, "tasks/list holds task %.60s", id_in(created));
    }
    if (member(member(a, "result"), "nextCursor"))
        return mcps_client_skip(
            g, "the first page of tasks/list does not hold the task; later pages were "
               "not asked");
    return mcps_client_broke(g, "TASK-022", "tasks/list (one page, no nextCursor) lacks task %.60s",
                             id_in(created));
}

static int receiver_result(const mcps_client_trace *t, mcps_client_grade *g)
{
    const char *why = no_script(t);
    if (why)
        return mcps_client_skip(g, "%s", why);
    const cJSON *created = member(member(answer_at(t, MCPS_CTS_CREATE), "result"), "task");
    const cJSON *a = answer_at(t, MCPS_CTS_RESULT);
    if (!a)
        return mcps_client_skip(g, "no task to ask the result of, or tasks/result unanswered");
    const cJSON *r = member(a, "result");
    bool sampling = strcmp(t->task_kind, "sampling/createMessage") == 0;
    if (!r)
        return mcps_client_broke(
            g, "TASK-015", "tasks/result of task %.60s was answered with an error", id_in(created));
    if (member(r, "task") || !member(r, sampling ? "content" : "action"))
        return mcps_client_broke(g, "TASK-015",
                                 "tasks/result of task %.60s is not the %s result (no %s)",
                                 id_in(created), t->task_kind, sampling ? "content" : "action");
    const char *related = related_task(r);
    if (!related || strcmp(related, id_in(created)) != 0)
        return mcps_client_broke(g, "TASK-016",
                                 "tasks/result of task %.60s came without _meta %s naming it",
                                 id_in(created), MCPS_CLIENT_RELATED_TASK);
    return mcps_client_pass(g, "tasks/result: the %s result, with _meta %s {taskId: %.60s}",
                            t->task_kind, MCPS_CLIENT_RELATED_TASK, related);
}

/* The error code of answer, 0 when it is a result or absent. */
static int error_code(const cJSON *answer)
{
    const cJSON *code = member(member(answer, "error"), "code");
    return cJSON_IsNumber(code) ? (int)code->valuedouble : 0;
}

static int receiver_cancel(const mcps_client_trace *t, mcps_client_grade *g)
{
    const char *why = no_script(t);
    if (why)
        return mcps_client_skip(g, "%s", why);
    const cJSON *done = answer_at(t, MCPS_CTS_CANCEL_DONE), *cancel = answer_at(t, MCPS_CTS_CANCEL);
    const cJSON *after = answer_at(t, MCPS_CTS_GET2);
    if (!done && !cancel)
        return mcps_client_skip(g, "no task to cancel, or tasks/cancel unanswered");
    if (done && error_code(done) != -32602)
        return mcps_client_broke(
            g, "TASK-023",
            "tasks/cancel of a task whose result was already fetched (terminal) was "
            "answered %s, not -32602",
            member(done, "result") ? "with a result" : "with another error");
    const cJSON *task = member(cancel, "result");
    if (cancel && task && strcmp(status_in(task), "cancelled") != 0)
        return mcps_client_broke(g, "TASK-024", "tasks/cancel of a working task answered status %s",
                                 status_in(task));
    const cJSON *later = member(after, "result");
    if (later && strcmp(status_in(later), "cancelled") != 0)
        return mcps_client_broke(g, "TASK-012",
                                 "a cancelled task read back as %s (a terminal status never "
                                 "changes)",
                                 status_in(later));
    if (cancel && !task)
        return mcps_client_info(g,
                                "tasks/cancel of a fresh task was refused (error %d): it may have "
                                "finished already",
                                error_code(cancel));
    return mcps_client_pass(g, "tasks/cancel: -32602 for a terminal task%s",
                            cancel ? "; a working one "
                                     "answered cancelled and stayed so"
                                   : "");
}

static int receiver_errors(const mcps_client_trace *t, mcps_client_grade *g)
{
    const char *why = no_script(t);
    if (why)
        return mcps_client_skip(g, "%s", why);
    const cJSON *a = answer_at(t, MCPS_CTS_UNKNOWN);
    if (!a)
        return mcps_client_skip(g, "tasks/get of an unknown taskId was not answered");
    if (error_code(a) != -32602)
        return mcps_client_broke(g, "TASK-025", "tasks/get of taskId %s (nobody's) was answered %s",
                                 MCPS_CLIENT_UNKNOWN_TASK,
                                 member(a, "result") ? "with a result"
                                                     : "with an error other than -32602");
    return mcps_client_pass(g, "tasks/get of an unknown taskId: -32602");
}

static int not_declared(const mcps_client_trace *t, mcps_client_grade *g)
{
    const char *why = no_script(t);
    if (why)
        return mcps_client_skip(g, "%s", why);
    if (!t->task_plain_kind)
        return mcps_client_skip(g,
                                "the client serves no request type without declaring tasks for it");
    const cJSON *a = answer_at(t, MCPS_CTS_PLAIN);
    if (!a)
        return mcps_client_skip(g, "the task-augmented %s was not answered", t->task_plain_kind);
    const cJSON *r = member(a, "result");
    if (!r)
        return mcps_client_broke(
            g, "TASK-007",
            "a task-augmented %s, which it declared no tasks for, was answered with an "
            "error (error %d), not processed as usual",
            t->task_plain_kind, error_code(a));
    if (member(r, "task"))
        return mcps_client_broke(g, "TASK-007",
                                 "a task-augmented %s, which it declared no tasks for, got a "
                                 "CreateTaskResult",
                                 t->task_plain_kind);
    return mcps_client_pass(
        g, "a task-augmented %s, which it declared no tasks for, got its plain result",
        t->task_plain_kind);
}

/* Where the client answered step k (its index in msgs), or nmsgs when it did not. */
static size_t answered_at(const mcps_client_trace *t, mcps_client_task_step k)
{
    char want[32];
    snprintf(want, sizeof want, "mcpspec-t%d", (int)k + 1);
    for (size_t i = 0; i < t->nmsgs; i++) {
        const cJSON *id = member(t->msgs[i].json, "id");
        if (!member(t->msgs[i].json, "method") && cJSON_IsString(id) &&
            strcmp(id->valuestring, want) == 0)
            return i;
    }
    return t->nmsgs;
}

/* Progress for the first task's token: any time while it lives, none once it is terminal
 * (its result fetched) (PROG-010). */
static int receiver_progress(const mcps_client_trace *t, mcps_client_grade *g)
{
    const char *why = no_script(t);
    if (why)
        return mcps_client_skip(g, "%s", why);
    size_t done = answered_at(t, MCPS_CTS_RESULT), before = 0;
    for (size_t i = 0; i < t->nmsgs; i++) {
        const cJSON *tok = member(member(t->msgs[i].json, "params"), "progressToken");
        if (!is(t, i, "notifications/progress", false) || !cJSON_IsString(tok) ||
            strcmp(tok->valuestring, MCPS_CLIENT_TASK_TOKEN) != 0)
            continue;
        if (i > done)
            return mcps_client_broke(
                g, "PROG-010",
                "notifications/progress for the task's token %s after tasks/result "
                "(the task was terminal)",
                MCPS_CLIENT_TASK_TOKEN);
        before++;
    }
    if (!before)
        return mcps_client_skip(g, "the client sent no progress for the task's progressToken");
    return mcps_client_pass(
        g,
        "%zu notifications/progress for the task's token %s, none after the task was "
        "terminal",
        before, MCPS_CLIENT_TASK_TOKEN);
}

/* capabilities.tasks as 2025-11-25 shapes it (CAP-CLI-005): objects all the way down. */
static int task_capability(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->answered[0] || strcmp(t->answered, "2025-11-25") != 0)
        return mcps_client_skip(g, "2025-11-25 was not negotiated");
    const cJSON *tasks = member(member(t->init_params, "capabilities"), "tasks");
    static const char *const paths[][2] = {{"list", NULL},
                                           {"cancel", NULL},
                                           {"requests", NULL},
                                           {"sampling", "createMessage"},
                                           {"elicitation", "create"}};
    if (!tasks)
        return mcps_client_skip(g, "the client declared no tasks capability");
    if (!cJSON_IsObject(tasks))
        return mcps_client_broke(g, "CAP-CLI-005", "capabilities.tasks is not an object");
    const cJSON *requests = member(tasks, "requests");
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        const cJSON *v = member(i < 3 ? tasks : requests, paths[i][0]);
        if (v && !cJSON_IsObject(v))
            return mcps_client_broke(g, "CAP-CLI-005", "capabilities.tasks.%s%s is not an object",
                                     i < 3 ? "" : "requests.", paths[i][0]);
        if (v && paths[i][1] && member(v, paths[i][1]) && !cJSON_IsObject(member(v, paths[i][1])))
            return mcps_client_broke(g, "CAP-CLI-005",
                                     "capabilities.tasks.requests.%s.%s is not an object",
                                     paths[i][0], paths[i][1]);
    }
    return mcps_client_pass(g,
                            "capabilities.tasks is well formed (list, cancel, requests: objects)");
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
    {"client/task-capability", "capabilities.tasks, when declared, is shaped as 2025-11-25 says",
     "basic/utilities/tasks", "CAP-CLI-005", MCPS_CSC_TASKS, false, task_capability, MCPS_CT_STDIO,
     false, TASK_REV},
    {"client/task-receiver-create",
     "A task-augmented request the client declared tasks for gets a CreateTaskResult (working, "
     "timestamps, ttl, distinct ids)",
     "basic/utilities/tasks", "TASK-009 TASK-011 TASK-013 TASK-010", MCPS_CSC_TASKS, false,
     receiver_create, MCPS_CT_STDIO, false, TASK_REV},
    {"client/task-receiver-get",
     "tasks/get answers about its taskId, whatever a related-task _meta says",
     "basic/utilities/tasks", "TASK-018 TASK-013", MCPS_CSC_TASKS, false, receiver_get,
     MCPS_CT_STDIO, false, TASK_REV},
    {"client/task-receiver-list", "tasks/list holds the client's task", "basic/utilities/tasks",
     "TASK-022", MCPS_CSC_TASKS, false, receiver_list, MCPS_CT_STDIO, false, TASK_REV},
    {"client/task-receiver-result",
     "tasks/result is the request's own result, with the related-task _meta",
     "basic/utilities/tasks", "TASK-015 TASK-016", MCPS_CSC_TASKS, false, receiver_result,
     MCPS_CT_STDIO, false, TASK_REV},
    {"client/task-receiver-cancel",
     "tasks/cancel: -32602 for a terminal task, cancelled for a working one, and it stays so",
     "basic/utilities/tasks", "TASK-023 TASK-024 TASK-012", MCPS_CSC_TASKS, false, receiver_cancel,
     MCPS_CT_STDIO, false, TASK_REV},
    {"client/task-receiver-errors", "tasks/get of an unknown taskId is answered -32602",
     "basic/utilities/tasks", "TASK-025", MCPS_CSC_TASKS, false, receiver_errors, MCPS_CT_STDIO,
     false, TASK_REV},
    {"client/task-progress",
     "Progress for a task-augmented request uses its token while the task lives, none after",
     "basic/utilities/progress", "PROG-010", MCPS_CSC_TASKS, false, receiver_progress,
     MCPS_CT_STDIO, false, TASK_REV},
    {"client/task-not-declared",
     "A task-augmented request of a type the client declared no tasks for is processed as usual",
     "basic/utilities/tasks", "TASK-007", MCPS_CSC_TASKS, false, not_declared, MCPS_CT_STDIO, false,
     TASK_REV},
};

const mcps_client_check *mcps_client_tasks_check_at(size_t i)
{
    size_t n = sizeof task_checks / sizeof *task_checks;
    return i < n ? &task_checks[i] : NULL;
}
