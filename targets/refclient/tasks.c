/*
 * tasks.c - refclient as the receiver of task-augmented requests
 * (2025-11-25): it declares tasks for elicitation/create only, so that a
 * task-augmented sampling/createMessage is served plainly (TASK-007). A task
 * holds its result from the start and stays working until it is asked about
 * (a tasks/get or tasks/result completes it; tasks/cancel of a working one
 * cancels it), so that a server sees both a working and a cancelled task.
 * Faults (faults.h) bend one rule each.
 */
#include "refclient.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "codec/rev.h"

#define RELATED_TASK "io.modelcontextprotocol/related-task"

bool rc_tasks_declared(const rc_client *c)
{
    mcps_rev r = mcps_rev_parse(c->version);
    return c->caps && r == MCPS_REV_2025_11_25;
}

cJSON *rc_tasks_capability(const rc_client *c)
{
    cJSON *tasks = cJSON_CreateObject();
    cJSON_AddObjectToObject(tasks, "list");
    cJSON_AddObjectToObject(tasks, "cancel");
    cJSON *requests = cJSON_AddObjectToObject(tasks, "requests");
    if (rc_on(c, RC_FAULT_TASKS_CAP_BAD))
        cJSON_AddTrueToObject(requests, "elicitation");
    else
        cJSON_AddObjectToObject(cJSON_AddObjectToObject(requests, "elicitation"), "create");
    return tasks;
}

static cJSON *task_json(const rc_task *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "taskId", t->id);
    cJSON_AddStringToObject(o, "status", t->status);
    cJSON_AddStringToObject(o, "createdAt", t->created);
    cJSON_AddStringToObject(o, "lastUpdatedAt", t->created);
    cJSON_AddNumberToObject(o, "ttl", t->ttl);
    return o;
}

cJSON *rc_task_create(rc_client *c, const cJSON *params, cJSON *result)
{
    if (c->ntasks >= RC_MAX_TASKS)
        return result; /* served plainly: it ran out of room for tasks */
    rc_task *t = &c->tasks[c->ntasks];
    const cJSON *ttl =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(params, "task"), "ttl");
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(t->created, sizeof t->created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    /* distinct per run and per task (TASK-010), not guessable from the count alone */
    snprintf(t->id, sizeof t->id, "refclient-%lx-%d", (unsigned long)now ^ (unsigned long)c,
             c->ntasks + 1);
    t->status = "working";
    t->ttl = cJSON_IsNumber(ttl) && ttl->valuedouble > 0 ? ttl->valuedouble : 60000;
    t->result = result;
    t->token =
        cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(
                            cJSON_GetObjectItemCaseSensitive(params, "_meta"), "progressToken"),
                        true);
    c->ntasks++;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "task", task_json(t));
    return r;
}

static rc_task *find(rc_client *c, const cJSON *params)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(params, "taskId");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(params, "_meta"),
                                         RELATED_TASK),
        "taskId");
    if (rc_on(c, RC_FAULT_TASK_GET_BY_META) && cJSON_IsString(meta))
        id = meta;
    for (int i = 0; cJSON_IsString(id) && i < c->ntasks; i++)
        if (strcmp(c->tasks[i].id, id->valuestring) == 0)
            return &c->tasks[i];
    return NULL;
}

static cJSON *list(const rc_client *c)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *a = cJSON_AddArrayToObject(r, "tasks");
    for (int i = 0; i < c->ntasks && !rc_on(c, RC_FAULT_TASK_LIST_EMPTY); i++)
        cJSON_AddItemToArray(a, task_json(&c->tasks[i]));
    return r;
}

/* tasks/result: the real result, tied to its task (TASK-015, TASK-016). */
static cJSON *result_of(const rc_client *c, rc_task *t)
{
    cJSON *r = cJSON_Duplicate(t->result, true);
    if (strcmp(t->status, "working") == 0)
        t->status = "completed";
    if (!rc_on(c, RC_FAULT_TASK_RESULT_NO_META)) {
        cJSON *meta = cJSON_GetObjectItemCaseSensitive(r, "_meta");
        if (!meta)
            meta = cJSON_AddObjectToObject(r, "_meta");
        cJSON_DeleteItemFromObjectCaseSensitive(meta, RELATED_TASK);
        cJSON_AddStringToObject(cJSON_AddObjectToObject(meta, RELATED_TASK), "taskId", t->id);
    }
    return r;
}

cJSON *rc_task_request(rc_client *c, const char *method, const cJSON *params, int *code,
                       const char **message)
{
    if (strcmp(method, "tasks/list") == 0)
        return list(c);
    rc_task *t = find(c, params);
    *code = -32602;
    *message = "Invalid params: unknown taskId";
    if (!t)
        return rc_on(c, RC_FAULT_TASK_UNKNOWN_RESULT) ? cJSON_CreateObject() : NULL;
    bool terminal = strcmp(t->status, "working") != 0;
    if (strcmp(method, "tasks/get") == 0) {
        if (!terminal)
            t->status = "completed"; /* its work is done the moment someone asks */
        return task_json(t);
    }
    if (strcmp(method, "tasks/result") == 0) {
        if (strcmp(t->status, "cancelled") == 0) {
            *message = "Invalid params: the task was cancelled";
            return NULL;
        }
        return result_of(c, t);
    }
    if (strcmp(method, "tasks/cancel") == 0) {
        if (terminal && !rc_on(c, RC_FAULT_TASK_CANCEL_TERMINAL)) {
            *message = "Invalid params: the task is already terminal";
            return NULL;
        }
        if (!terminal)
            t->status = "cancelled";
        return task_json(t);
    }
    *code = -32601;
    *message = "Method not found";
    return NULL;
}

void rc_tasks_free(rc_client *c)
{
    for (int i = 0; i < c->ntasks; i++) {
        cJSON_Delete(c->tasks[i].result);
        cJSON_Delete(c->tasks[i].token);
    }
    c->ntasks = 0;
}

const cJSON *rc_task_token(rc_client *c, const cJSON *params)
{
    const rc_task *t = find(c, params);
    return t ? t->token : NULL;
}
