/*
 * completion.c - completion/complete for prompt arguments (ref/prompt) and
 * template variables (ref/resource). Candidates are matched by prefix and
 * kept in their natural order; at most 100 are sent, with total and hasMore
 * (COMP-002). greet.name has 150 candidates, so hasMore shows up for "".
 */
#include "server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A candidate list: a fixed list, or count values printed from fmt. */
typedef struct rs_candidates {
    const char *const *list;
    const char *fmt;
    size_t count;
} rs_candidates;

static const char *const rs_styles[] = {"casual", "formal", "friendly", "pirate", NULL};

static const rs_candidates rs_none = {NULL, NULL, 0};
static const rs_candidates rs_names = {NULL, "user-%03zu", 150};
static const rs_candidates rs_item_ids = {NULL, "%03zu", RS_ITEM_COUNT};
static const rs_candidates rs_style_list = {rs_styles, NULL, 4};

static void candidate(const rs_candidates *c, size_t i, char *buf, size_t n)
{
    if (c->list)
        snprintf(buf, n, "%s", c->list[i]);
    else
        snprintf(buf, n, c->fmt, i);
}

/* The completion-reads-files fault: a value that opens as a file completes to its first line. */
static cJSON *complete_from_file(const char *value)
{
    char path[256], line[256];
    /* Like a C server would, stop at the first NUL (which the codec keeps as C0 80). */
    snprintf(path, sizeof path, "%.*s", (int)strcspn(value, "\xC0"), value);
    FILE *f = strchr(path, '/') ? fopen(path, "r") : NULL;
    if (!f)
        return NULL;
    bool got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (!got)
        return NULL;
    line[strcspn(line, "\n")] = '\0';
    cJSON *result = cJSON_CreateObject();
    cJSON *values = cJSON_AddArrayToObject(cJSON_AddObjectToObject(result, "completion"), "values");
    cJSON_AddItemToArray(values, cJSON_CreateString(line));
    return result;
}

static cJSON *complete(const rs_server *s, const rs_candidates *c, const char *prefix)
{
    size_t len = strlen(prefix), total = 0;
    size_t max = rs_fault_on(s, RS_FAULT_COMPLETION_TOO_MANY) ? 150 : RS_MAX_VALUES;
    cJSON *result = cJSON_CreateObject();
    cJSON *completion = cJSON_AddObjectToObject(result, "completion");
    cJSON *values = cJSON_AddArrayToObject(completion, "values");
    for (size_t i = 0; i < c->count; i++) {
        char buf[32];
        candidate(c, i, buf, sizeof buf);
        if (strncmp(buf, prefix, len) != 0)
            continue;
        if (total++ < max)
            cJSON_AddItemToArray(values, cJSON_CreateString(buf));
    }
    cJSON_AddNumberToObject(completion, "total", (double)total);
    cJSON_AddBoolToObject(completion, "hasMore", total > max);
    return result;
}

static const rs_candidates *prompt_candidates(const rs_server *s, const cJSON *ref, const char *arg,
                                              rs_reply *r)
{
    const char *name = rs_param_string(s, ref, "name", true, r);
    if (r->code)
        return NULL;
    int known = rs_prompt_arg_known(s, name, arg);
    if (!known && rs_fault_on(s, RS_FAULT_COMPLETION_UNKNOWN_PROMPT_OK))
        return &rs_none;
    if (known < 2) {
        rs_fail(r, RS_INVALID_PARAMS, known ? "Unknown prompt argument" : "Unknown prompt");
        return NULL;
    }
    if (strcmp(name, "greet") == 0)
        return strcmp(arg, "name") == 0 ? &rs_names : &rs_style_list;
    return &rs_item_ids; /* with-resource's id */
}

static const rs_candidates *template_candidates(const rs_server *s, const cJSON *ref,
                                                const char *arg, rs_reply *r)
{
    const char *uri = rs_param_string(s, ref, "uri", true, r);
    if (r->code)
        return NULL;
    if (strcmp(uri, "mem://item/{id}") == 0 && strcmp(arg, "id") == 0)
        return &rs_item_ids;
    /* File names are not offered: completions must not disclose (COMP-005). */
    if (s->root && strcmp(uri, "file:///{+path}") == 0 && strcmp(arg, "path") == 0)
        return &rs_none;
    rs_fail(r, RS_INVALID_PARAMS, "Unknown resource template or variable");
    return NULL;
}

void rs_complete(rs_server *s, const rs_req *req, rs_reply *r)
{
    const cJSON *ref = rs_param_object(s, req->params, "ref", true, r);
    const cJSON *argument = rs_param_object(s, req->params, "argument", true, r);
    const char *type = rs_param_string(s, ref, "type", true, r);
    const char *arg = rs_param_string(s, argument, "name", true, r);
    const char *value = rs_param_string(s, argument, "value", true, r);
    if (r->code)
        return;
    const rs_candidates *c = NULL;
    if (strcmp(type, "ref/prompt") == 0)
        c = prompt_candidates(s, ref, arg, r);
    else if (strcmp(type, "ref/resource") == 0)
        c = template_candidates(s, ref, arg, r);
    else
        rs_fail(r, RS_INVALID_PARAMS, "Unknown reference type");
    cJSON *leaked =
        rs_fault_on(s, RS_FAULT_COMPLETION_READS_FILES) && c ? complete_from_file(value) : NULL;
    if (leaked)
        rs_ok(r, leaked);
    else if (c)
        rs_ok(r, complete(s, c, value));
}
