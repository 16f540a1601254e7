/*
 * tasks.c - the tasks utility of 2025-11-25: tasks created by task-augmented
 * tools/call (tools.c), and tasks/get, tasks/result, tasks/list,
 * tasks/cancel (dispatch offers them from 2025-11-25 only).
 *
 * A task is working until its job (jobs.c) or an immediate outcome finishes
 * it as completed or failed (isError), or tasks/cancel makes it cancelled;
 * terminal statuses never change (TASK-012). Each change is announced with
 * notifications/tasks/status (TASK-021 MAY). tasks/result holds its answer
 * until the task is terminal (TASK-015). Tasks live for their ttl from
 * creation, capped, and are then deleted whatever their status. Ids are 128
 * random bits from /dev/urandom: there is no authorization context to bind
 * tasks to on stdio (TASK-026).
 */
#include "server.h"

#include "codec/json.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RS_TASK_TTL_MIN 1000   /* ms: long enough to fetch a result */
#define RS_TASK_TTL_MAX 300000 /* ms: also the default when none is requested */
#define RS_TASK_POLL_MS 200
#define RS_TASK_MAX     1000 /* stored at once; more is refused (resource limits) */
#define RS_RELATED_TASK "io.modelcontextprotocol/related-task"

typedef enum rs_task_status {
    RS_TASK_WORKING,
    RS_TASK_COMPLETED,
    RS_TASK_FAILED,
    RS_TASK_CANCELLED
} rs_task_status;

/* A tasks/result request waiting for its task to finish. */
typedef struct rs_waiter {
    cJSON *id;
    rs_batch *batch;
    struct rs_waiter *next;
} rs_waiter;

struct rs_task {
    char id[33]; /* 32 hex digits */
    size_t seq;  /* creation number: tasks/list order and cursors */
    rs_task_status status;
    const char *status_message; /* static text, or NULL */
    int64_t created, updated;   /* wall clock, ms */
    int64_t ttl, expires;       /* ms; expires on the monotonic clock */
    rs_reply outcome;           /* once terminal: what tasks/result answers */
    rs_waiter *waiters;
    rs_task *next;
};

static const char *status_name(rs_task_status status)
{
    static const char *const names[] = {"working", "completed", "failed", "cancelled"};
    return names[status];
}

static bool terminal(const rs_task *t)
{
    return t->status != RS_TASK_WORKING;
}

/* ---- rendering ---- */

/* RFC 3339 UTC with milliseconds, e.g. 2025-11-25T10:30:00.123Z (TASK-013). */
static void iso8601(int64_t ms, char *out, size_t n)
{
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    char day_time[32] = "1970-01-01T00:00:00";
    if (gmtime_r(&secs, &tm))
        strftime(day_time, sizeof day_time, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, n, "%s.%03dZ", day_time, (int)(ms % 1000));
}

static void add_time(cJSON *j, const char *key, int64_t ms)
{
    char text[48];
    iso8601(ms, text, sizeof text);
    cJSON_AddStringToObject(j, key, text);
}

/* The Task object; created: for the CreateTaskResult (the task-status-not-working fault). */
static cJSON *task_json(const rs_server *s, const rs_task *t, bool created)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "taskId", t->id);
    bool submitted = created && rs_fault_on(s, RS_FAULT_TASK_STATUS_NOT_WORKING);
    cJSON_AddStringToObject(j, "status", submitted ? "submitted" : status_name(t->status));
    if (t->status_message)
        cJSON_AddStringToObject(j, "statusMessage", t->status_message);
    if (rs_fault_on(s, RS_FAULT_TASK_BAD_TIMESTAMPS))
        cJSON_AddNumberToObject(j, "createdAt", (double)t->created);
    else
        add_time(j, "createdAt", t->created);
    add_time(j, "lastUpdatedAt", t->updated);
    cJSON_AddNumberToObject(j, "ttl", (double)t->ttl);
    cJSON_AddNumberToObject(j, "pollInterval", RS_TASK_POLL_MS);
    return j;
}

cJSON *rs_related_task_meta(const char *task_id)
{
    cJSON *meta = cJSON_CreateObject();
    cJSON *related = cJSON_AddObjectToObject(meta, RS_RELATED_TASK);
    cJSON_AddStringToObject(related, "taskId", task_id);
    return meta;
}

/* What tasks/result answers for a terminal task: the call's own answer, tagged (TASK-016). */
static void outcome_reply(const rs_server *s, const rs_task *t, rs_reply *r)
{
    if (t->outcome.code) {
        rs_fail(r, t->outcome.code, "%s", t->outcome.message);
        r->data = t->outcome.data ? cJSON_Duplicate(t->outcome.data, true) : NULL;
        return;
    }
    cJSON *result = cJSON_Duplicate(t->outcome.result, true);
    if (result && !rs_fault_on(s, RS_FAULT_TASK_RESULT_NO_RELATED_META)) {
        cJSON *meta = cJSON_GetObjectItemCaseSensitive(result, "_meta");
        if (!cJSON_IsObject(meta)) {
            cJSON_DeleteItemFromObjectCaseSensitive(result, "_meta");
            meta = cJSON_AddObjectToObject(result, "_meta");
        }
        cJSON *related = cJSON_AddObjectToObject(meta, RS_RELATED_TASK);
        cJSON_AddStringToObject(related, "taskId", t->id);
    }
    rs_ok(r, result);
}

/* ---- the store ---- */

static rs_task *task_find(const rs_server *s, const char *id)
{
    for (rs_task *t = s->tasks; t; t = t->next)
        if (strcmp(t->id, id) == 0)
            return t;
    return NULL;
}

static bool read_random(unsigned char *buf, size_t n)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, buf + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    return got == n;
}

/* 128 random bits as hex: unguessable (TASK-026) and, in practice, unique (TASK-010). */
static bool new_task_id(const rs_server *s, char out[33])
{
    unsigned char bytes[16];
    do {
        if (!read_random(bytes, sizeof bytes))
            return false;
        for (size_t i = 0; i < sizeof bytes; i++)
            snprintf(out + 2 * i, 3, "%02x", bytes[i]);
    } while (task_find(s, out));
    return true;
}

/* The requested ttl, kept within [RS_TASK_TTL_MIN, RS_TASK_TTL_MAX] (receivers MAY override). */
static bool effective_ttl(const rs_server *s, const cJSON *task, int64_t *ttl, rs_reply *r)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(task, "ttl");
    *ttl = RS_TASK_TTL_MAX;
    if (!v || cJSON_IsNull(v))
        return true;
    if (!cJSON_IsNumber(v)) {
        rs_fail_params(s, r, "Invalid params: \"task.ttl\" must be a number");
        return false;
    }
    double want = v->valuedouble;
    *ttl = want < RS_TASK_TTL_MIN   ? RS_TASK_TTL_MIN
           : want > RS_TASK_TTL_MAX ? RS_TASK_TTL_MAX
                                    : (int64_t)want;
    return true;
}

const char *rs_task_create(rs_server *s, const cJSON *task, rs_reply *r)
{
    int64_t ttl;
    if (!effective_ttl(s, task, &ttl, r))
        return NULL;
    if (s->ntasks >= RS_TASK_MAX) {
        rs_fail(r, RS_INTERNAL_ERROR, "Too many tasks (at most %d at once)", RS_TASK_MAX);
        return NULL;
    }
    rs_task *t = calloc(1, sizeof *t);
    if (!t || !new_task_id(s, t->id)) {
        free(t);
        rs_fail(r, RS_INTERNAL_ERROR, "Internal error: cannot create a task");
        return NULL;
    }
    t->seq = ++s->task_seq;
    t->status = RS_TASK_WORKING;
    t->created = t->updated = rs_wall_ms();
    t->ttl = ttl;
    t->expires = rs_now_ms() + ttl;
    rs_task **tail = &s->tasks;
    while (*tail)
        tail = &(*tail)->next;
    *tail = t;
    s->ntasks++;
    rs_debug(s, "task %s created (ttl %lld ms)", t->id, (long long)ttl);
    return t->id;
}

cJSON *rs_task_created_result(const rs_server *s, const char *task_id)
{
    const rs_task *t = task_find(s, task_id);
    if (!t)
        return NULL;
    cJSON *result = cJSON_CreateObject();
    cJSON_AddItemToObject(result, "task", task_json(s, t, true));
    return result;
}

/* Answer one held tasks/result with r, then let go of its batch. */
static void answer_waiter(rs_server *s, rs_waiter *w, rs_reply *r)
{
    rs_answer(s, w->id, w->batch, r);
    if (w->batch)
        rs_batch_release(s, w->batch);
    mcps_json_delete(w->id);
    free(w);
}

/* The one way into a terminal status: announce it, then release held tasks/result calls. */
static void settle(rs_server *s, rs_task *t, rs_task_status status, const char *message)
{
    t->status = status;
    t->status_message = message;
    t->updated = rs_wall_ms();
    rs_notify(s, "notifications/tasks/status", task_json(s, t, false));
    if (rs_fault_on(s, RS_FAULT_TASK_STATUS_REGRESS)) {
        cJSON *back = task_json(s, t, false);
        cJSON_ReplaceItemInObject(back, "status", cJSON_CreateString("working"));
        rs_notify(s, "notifications/tasks/status", back);
    }
    while (t->waiters) {
        rs_waiter *w = t->waiters;
        t->waiters = w->next;
        rs_reply r = {0};
        outcome_reply(s, t, &r);
        answer_waiter(s, w, &r);
    }
}

static bool is_tool_error(const rs_reply *outcome)
{
    return outcome->code ||
           cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(outcome->result, "isError"));
}

void rs_task_finish(rs_server *s, const char *task_id, rs_reply *outcome)
{
    rs_task *t = task_find(s, task_id);
    if (!t || terminal(t)) {
        /* Expired, or cancelled: it stays cancelled whatever the work did (TASK-024). */
        rs_reply_free(outcome);
        return;
    }
    t->outcome = *outcome;
    *outcome = (rs_reply){0};
    if (is_tool_error(&t->outcome))
        settle(s, t, RS_TASK_FAILED, "The tool call failed; tasks/result has its error.");
    else
        settle(s, t, RS_TASK_COMPLETED, NULL);
}

/* ---- expiry ---- */

static void task_free(rs_server *s, rs_task *t, bool at_exit)
{
    while (t->waiters) {
        rs_waiter *w = t->waiters;
        t->waiters = w->next;
        if (at_exit) {
            if (w->batch)
                rs_batch_abandon(w->batch);
            mcps_json_delete(w->id);
            free(w);
        } else {
            rs_reply r = {0};
            rs_fail(&r, RS_INVALID_PARAMS, "Failed to retrieve task: Task has expired");
            answer_waiter(s, w, &r);
        }
    }
    rs_reply_free(&t->outcome);
    free(t);
}

int64_t rs_tasks_timeout(const rs_server *s)
{
    if (!s->tasks)
        return -1;
    int64_t next = s->tasks->expires;
    for (const rs_task *t = s->tasks->next; t; t = t->next)
        if (t->expires < next)
            next = t->expires;
    int64_t wait = next - rs_now_ms();
    return wait < 0 ? 0 : wait;
}

/* Past its ttl a task is deleted whatever its status (MAY); its work stops. */
void rs_tasks_expire(rs_server *s)
{
    int64_t now = rs_now_ms();
    rs_task **link = &s->tasks;
    while (*link && !s->done) {
        rs_task *t = *link;
        if (t->expires > now) {
            link = &t->next;
            continue;
        }
        *link = t->next;
        s->ntasks--;
        rs_debug(s, "task %s expired", t->id);
        rs_jobs_stop_task(s, t->id);
        task_free(s, t, false);
    }
}

void rs_tasks_free(rs_server *s)
{
    while (s->tasks) {
        rs_task *t = s->tasks;
        s->tasks = t->next;
        task_free(s, t, true);
    }
    s->ntasks = 0;
}

/* ---- tasks/get, tasks/result, tasks/list, tasks/cancel ---- */

/* The task-get-follows-meta fault: params._meta's related-task taskId wins over params.taskId. */
static const char *related_task_id(const cJSON *params, const char *fallback)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    const cJSON *related =
        cJSON_GetObjectItemCaseSensitive(meta, "io.modelcontextprotocol/related-task");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(related, "taskId");
    return cJSON_IsString(id) ? id->valuestring : fallback;
}

/* params.taskId names the task, whatever related-task _meta says (TASK-018); unknown → -32602. */
static rs_task *task_param(rs_server *s, const rs_req *req, rs_reply *r)
{
    const char *id = rs_param_string(s, req->params, "taskId", true, r);
    if (!id)
        return NULL;
    if (rs_fault_on(s, RS_FAULT_TASK_GET_FOLLOWS_META))
        id = related_task_id(req->params, id);
    rs_task *t = task_find(s, id);
    if (!t) {
        int code = rs_fault_on(s, RS_FAULT_TASK_UNKNOWN_ID_WRONG_CODE) ? RS_INTERNAL_ERROR
                                                                       : RS_INVALID_PARAMS;
        rs_fail(r, code, "Failed to retrieve task: Task not found");
    }
    return t;
}

void rs_tasks_get(rs_server *s, const rs_req *req, rs_reply *r)
{
    rs_task *t = task_param(s, req, r);
    if (!t)
        return;
    cJSON *result = task_json(s, t, false);
    if (rs_fault_on(s, RS_FAULT_TASK_GET_RELATED_META))
        cJSON_AddItemToObject(result, "_meta", rs_related_task_meta(t->id));
    rs_ok(r, result);
}

void rs_tasks_result(rs_server *s, const rs_req *req, rs_reply *r)
{
    rs_task *t = task_param(s, req, r);
    if (!t)
        return;
    if (terminal(t)) {
        outcome_reply(s, t, r);
        return;
    }
    rs_waiter *w = calloc(1, sizeof *w);
    if (!w || !(w->id = cJSON_Duplicate(req->id, true))) {
        free(w);
        rs_fail(r, RS_INTERNAL_ERROR, "Out of memory");
        return;
    }
    w->batch = req->batch;
    if (w->batch)
        rs_batch_retain(w->batch);
    rs_waiter **tail = &t->waiters;
    while (*tail)
        tail = &(*tail)->next;
    *tail = w;
    r->handled = true; /* answered by settle() or expiry */
}

/* Pages of RS_PAGE_SIZE in creation order; the cursor is the last creation number shown, so
 * tasks expiring between pages shift nothing (TASK-022). */
void rs_tasks_list(rs_server *s, const rs_req *req, rs_reply *r)
{
    const char *cursor = rs_param_string(s, req->params, "cursor", false, r);
    if (r->code)
        return;
    size_t after = 0;
    if (cursor && (!rs_cursor_read(cursor, 'k', &after) || after == 0 || after > s->task_seq)) {
        rs_fail(r, RS_INVALID_PARAMS, "Invalid cursor");
        return;
    }
    cJSON *result = cJSON_CreateObject();
    cJSON *tasks = cJSON_AddArrayToObject(result, "tasks");
    const rs_task *t = rs_fault_on(s, RS_FAULT_TASK_LIST_MISSING) ? NULL : s->tasks;
    size_t shown = 0, last = 0;
    for (; t && shown < RS_PAGE_SIZE; t = t->next) {
        if (t->seq <= after)
            continue;
        cJSON_AddItemToArray(tasks, task_json(s, t, false));
        last = t->seq;
        shown++;
    }
    if (t) { /* the loop stopped at a full page with more after it */
        char next[48];
        rs_cursor_make(next, sizeof next, 'k', last);
        cJSON_AddStringToObject(result, "nextCursor", next);
    }
    rs_ok(r, result);
}

static void cancel_outcome(rs_task *t)
{
    /* The call was cancelled, so it has no result of its own; tasks/result still answers one. */
    cJSON *result = cJSON_CreateObject();
    cJSON *content = cJSON_AddArrayToObject(result, "content");
    cJSON_AddItemToArray(content, rs_text_content("The task was cancelled before it finished."));
    cJSON_AddBoolToObject(result, "isError", true);
    rs_ok(&t->outcome, result);
}

void rs_tasks_cancel(rs_server *s, const rs_req *req, rs_reply *r)
{
    rs_task *t = task_param(s, req, r);
    if (!t)
        return;
    if (terminal(t)) {
        if (rs_fault_on(s, RS_FAULT_TASK_CANCEL_TERMINAL_ACCEPTED))
            rs_ok(r, task_json(s, t, false));
        else
            rs_fail(r, RS_INVALID_PARAMS, "Cannot cancel task: already in terminal status '%s'",
                    status_name(t->status));
        return;
    }
    if (rs_fault_on(s, RS_FAULT_TASK_CANCEL_NOT_CANCELLED)) {
        /* The answer goes out first, still working; the cancellation follows it. */
        rs_reply early = {0};
        rs_ok(&early, task_json(s, t, false));
        rs_answer(s, req->id, req->batch, &early);
        r->handled = true;
    }
    rs_jobs_stop_task(s, t->id);
    cancel_outcome(t);
    settle(s, t, RS_TASK_CANCELLED, "The task was cancelled by request.");
    if (!r->handled)
        rs_ok(r, task_json(s, t, false)); /* cancelled before answering (TASK-024) */
}
