/*
 * jobs.c - the slow tool: a call that runs on the event loop's timer,
 * sends notifications/progress when the request carried
 * _meta.progressToken (strictly increasing progress, total, and message from
 * 2025-03-26), and stops without a response on notifications/cancelled.
 *
 * Run as a task (2025-11-25) the job answers nothing itself: its result
 * finishes the task, progress keeps the original token until then
 * (PROG-010), tasks/cancel stops it, and notifications/cancelled for the
 * creating request does not (CANC-008).
 */
#include "tools.h"

#include "codec/json.h"
#include "codec/rpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rs_job {
    cJSON *id;       /* the request id as sent; NULL when run as a task */
    char *task_id;   /* the task it runs for, or NULL */
    cJSON *token;    /* its progress token, or NULL */
    rs_batch *batch; /* the batch reply it belongs to, or NULL */
    unsigned steps, done, interval_ms;
    int64_t due; /* when the next step runs */
    rs_job *next;
};

static cJSON *progress_token(const cJSON *params)
{
    const cJSON *meta = params ? cJSON_GetObjectItemCaseSensitive(params, "_meta") : NULL;
    const cJSON *token =
        cJSON_IsObject(meta) ? cJSON_GetObjectItemCaseSensitive(meta, "progressToken") : NULL;
    /* A progress token is a string or an integer (PROG-001), like an id. */
    return mcps_rpc_id_valid(token) ? cJSON_Duplicate(token, true) : NULL;
}

static void job_free(rs_job *job)
{
    mcps_json_delete(job->id);
    mcps_json_delete(job->token);
    free(job->task_id);
    free(job);
}

/* A task job is tied to its task, not to the request (answered already) or its batch. */
static bool job_bind(rs_job *job, const rs_req *req)
{
    if (req->task_id)
        return (job->task_id = strdup(req->task_id)) != NULL;
    if (!(job->id = cJSON_Duplicate(req->id, true)))
        return false;
    job->batch = req->batch;
    if (job->batch)
        rs_batch_retain(job->batch);
    return true;
}

void rs_tool_slow(rs_server *s, const rs_req *req, const cJSON *args, rs_reply *r)
{
    rs_job *job = calloc(1, sizeof *job);
    if (!job || !job_bind(job, req)) {
        if (job)
            job_free(job);
        rs_fail(r, RS_INTERNAL_ERROR, "Out of memory");
        return;
    }
    job->token = progress_token(req->params);
    job->steps = (unsigned)rs_arg_number(args, "steps", 5);
    job->interval_ms = (unsigned)rs_arg_number(args, "interval_ms", 100);
    job->due = rs_now_ms() + job->interval_ms;
    rs_job **tail = &s->jobs;
    while (*tail)
        tail = &(*tail)->next;
    *tail = job;
    r->handled = true; /* answered when the last step ran */
}

int64_t rs_jobs_timeout(const rs_server *s)
{
    if (!s->jobs)
        return -1;
    int64_t next = s->jobs->due;
    for (const rs_job *j = s->jobs->next; j; j = j->next)
        if (j->due < next)
            next = j->due;
    int64_t wait = next - rs_now_ms();
    return wait < 0 ? 0 : wait;
}

static void send_progress(rs_server *s, const rs_job *job)
{
    cJSON *params = cJSON_CreateObject();
    cJSON_AddItemToObject(params, "progressToken", cJSON_Duplicate(job->token, true));
    cJSON_AddNumberToObject(params, "progress", job->done);
    cJSON_AddNumberToObject(params, "total", job->steps);
    if (rs_rev_at_least(s, MCPS_REV_2025_03_26)) {
        char message[64] = "";
        if (!rs_fault_on(s, RS_FAULT_PROGRESS_EMPTY_MESSAGE))
            snprintf(message, sizeof message, "Step %u of %u", job->done, job->steps);
        cJSON_AddStringToObject(params, "message", message);
    }
    /* TASK-017: a notification belonging to a task names it. */
    if (job->task_id)
        cJSON_AddItemToObject(params, "_meta", rs_related_task_meta(job->task_id));
    rs_notify(s, "notifications/progress", params);
}

static void finish(rs_server *s, rs_job *job)
{
    char text[64];
    snprintf(text, sizeof text, "Finished %u steps.", job->steps);
    rs_reply r = {0};
    rs_ok(&r, rs_tool_result(text, false));
    if (job->task_id) {
        rs_task_finish(s, job->task_id, &r);
        if (job->token && rs_fault_on(s, RS_FAULT_TASK_PROGRESS_AFTER_END)) {
            job->done++;
            send_progress(s, job);
        }
        return;
    }
    rs_answer(s, job->id, job->batch, &r);
    if (job->batch)
        rs_batch_release(s, job->batch);
    if (job->token && rs_fault_on(s, RS_FAULT_PROGRESS_AFTER_RESPONSE)) {
        job->done++;
        send_progress(s, job);
    }
}

/* One step; true when the job is over. */
static bool step(rs_server *s, rs_job *job)
{
    job->done++;
    if (job->token)
        send_progress(s, job);
    if (job->token && rs_fault_on(s, RS_FAULT_PROGRESS_NOT_INCREASING))
        send_progress(s, job);
    if (job->done < job->steps) {
        job->due += job->interval_ms;
        return false;
    }
    finish(s, job);
    return true;
}

/* At most one step per job per call, so input is read between steps. */
void rs_jobs_run_due(rs_server *s)
{
    int64_t now = rs_now_ms();
    rs_job **link = &s->jobs;
    while (*link && !s->done) {
        rs_job *job = *link;
        if (job->due <= now && step(s, job)) {
            *link = job->next;
            job_free(job);
        } else {
            link = &job->next;
        }
    }
}

/* CANC-003: stop the work and send no response; unknown ids are ignored (CANC-004/007), and so
 * are ids of task-creating requests: tasks are cancelled with tasks/cancel (CANC-008). */
void rs_on_cancelled(rs_server *s, const rs_req *req)
{
    const cJSON *id =
        req->params ? cJSON_GetObjectItemCaseSensitive(req->params, "requestId") : NULL;
    if (!mcps_rpc_id_valid(id)) {
        if (rs_fault_on(s, RS_FAULT_CANCEL_MALFORMED_ANSWERED))
            rs_answer_error(s, NULL, NULL, RS_INVALID_PARAMS, "Invalid cancellation");
        return;
    }
    if (rs_fault_on(s, RS_FAULT_CANCEL_IGNORED) || rs_listen_cancel(s, id))
        return;
    bool found = false;
    rs_job **link = &s->jobs;
    while (*link) {
        rs_job *job = *link;
        if (!job->id || !mcps_rpc_id_equal(job->id, id)) {
            link = &job->next;
            continue;
        }
        found = true;
        *link = job->next;
        rs_debug(s, "cancelled a slow call after %u of %u steps", job->done, job->steps);
        if (job->batch)
            rs_batch_release(s, job->batch);
        job_free(job);
    }
    if (!found && rs_fault_on(s, RS_FAULT_CANCEL_UNKNOWN_ANSWERED))
        rs_answer_error(s, NULL, NULL, RS_INVALID_PARAMS, "No such request in flight");
}

/* tasks/cancel and expiry: the task's work stops, silently (SHOULD, TASK-024). */
void rs_jobs_stop_task(rs_server *s, const char *task_id)
{
    for (rs_job **link = &s->jobs; *link;) {
        rs_job *job = *link;
        if (!rs_streq(job->task_id, task_id)) {
            link = &job->next;
            continue;
        }
        *link = job->next;
        job_free(job);
    }
}

void rs_jobs_free(rs_server *s)
{
    while (s->jobs) {
        rs_job *job = s->jobs;
        s->jobs = job->next;
        if (job->batch)
            rs_batch_abandon(job->batch);
        job_free(job);
    }
}
