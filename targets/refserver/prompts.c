/*
 * prompts.c - prompts/list and prompts/get: greet (a required and an
 * optional argument), with-resource (an embedded resource with mimeType,
 * PROMPT-004), plain (no arguments), and an optional "extra". Unknown prompts
 * and missing required arguments are -32602 (PROMPT-005).
 */
#include "server.h"

#include "codec/json.h"

#include <stdio.h>
#include <string.h>

typedef struct rs_prompt_arg {
    const char *name, *title, *description;
    bool required;
} rs_prompt_arg;

typedef void rs_prompt_fn(const rs_server *s, const cJSON *args, cJSON *messages, rs_reply *r);

typedef struct rs_prompt {
    const char *name, *title, *description;
    const rs_prompt_arg *args;
    size_t nargs;
    rs_prompt_fn *get;
} rs_prompt;

static const rs_prompt_arg greet_args[] = {
    {"name", "Name", "Who to greet", true},
    {"style", "Style", "How to greet: formal, casual, pirate or friendly", false},
};
static const rs_prompt_arg item_args[] = {
    {"id", "Item id", "Three digits, 000 to 119 (default 000)", false},
};

static void add_message(cJSON *messages, const char *role, cJSON *content)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "role", role);
    cJSON_AddItemToObject(m, "content", content);
    cJSON_AddItemToArray(messages, m);
}

static const char *arg_or(const cJSON *args, const char *name, const char *fallback)
{
    const cJSON *v = args ? cJSON_GetObjectItemCaseSensitive(args, name) : NULL;
    return cJSON_IsString(v) ? v->valuestring : fallback;
}

/* The prompt-reads-files fault: a name that opens as a file is replaced by its first bytes. */
static bool greet_file(const char *name, char *text, size_t n)
{
    FILE *f = strchr(name, '/') ? fopen(name, "r") : NULL;
    if (!f)
        return false;
    size_t got = fread(text, 1, n - 1, f);
    text[got] = '\0';
    fclose(f);
    return true;
}

static void get_greet(const rs_server *s, const cJSON *args, cJSON *messages, rs_reply *r)
{
    (void)r;
    char text[256];
    if (rs_fault_on(s, RS_FAULT_PROMPT_READS_FILES) &&
        greet_file(arg_or(args, "name", ""), text, sizeof text)) {
        add_message(messages, "user", rs_text_content(text));
        return;
    }
    snprintf(text, sizeof text, "Please greet %.100s in a %.40s style.", arg_or(args, "name", ""),
             arg_or(args, "style", "friendly"));
    const char *role = rs_fault_on(s, RS_FAULT_PROMPT_SYSTEM_ROLE) ? "system" : "user";
    add_message(messages, role, rs_text_content(text));
}

static void get_with_resource(const rs_server *s, const cJSON *args, cJSON *messages, rs_reply *r)
{
    char uri[64];
    const char *id = arg_or(args, "id", "000");
    snprintf(uri, sizeof uri, "mem://item/%.8s", id);
    cJSON *item = strlen(id) == 3 ? rs_mem_contents(s, uri) : NULL;
    if (!item) {
        rs_fail(r, RS_INVALID_PARAMS, "Invalid argument \"id\": no such item");
        return;
    }
    add_message(messages, "user", rs_text_content("Summarize this item."));
    cJSON *content = cJSON_CreateObject();
    cJSON_AddStringToObject(content, "type", "resource");
    cJSON_AddItemToObject(content, "resource", item);
    add_message(messages, "user", content);
}

static void get_plain(const rs_server *s, const cJSON *args, cJSON *messages, rs_reply *r)
{
    (void)s;
    (void)args;
    (void)r;
    add_message(messages, "user", rs_text_content("Say something plain."));
    add_message(messages, "assistant", rs_text_content("Something plain."));
}

static void get_extra(const rs_server *s, const cJSON *args, cJSON *messages, rs_reply *r)
{
    (void)s;
    (void)args;
    (void)r;
    add_message(messages, "user", rs_text_content("The extra prompt, added by the toggle tool."));
}

#define ARGS(a) a, sizeof a / sizeof *a

static const rs_prompt rs_prompts[] = {
    {"greet", "Greet", "Asks for a greeting", ARGS(greet_args), get_greet},
    {"with-resource", "With resource", "Embeds a mem://item resource", ARGS(item_args),
     get_with_resource},
    {"plain", "Plain", "A two-message conversation without arguments", NULL, 0, get_plain},
    {"extra", "Extra", "Present only after toggle {list: prompts}", NULL, 0, get_extra},
};
#define RS_FIXED_PROMPTS (sizeof rs_prompts / sizeof *rs_prompts - 1)

static size_t prompt_count(const rs_server *s)
{
    return RS_FIXED_PROMPTS + (s->extra[RS_LIST_PROMPTS] ? 1 : 0);
}

static const rs_prompt *find_prompt(const rs_server *s, const char *name)
{
    for (size_t i = 0; i < prompt_count(s); i++)
        if (strcmp(rs_prompts[i].name, name) == 0)
            return &rs_prompts[i];
    return NULL;
}

static cJSON *prompt_json(const rs_server *s, const rs_prompt *p)
{
    bool titles = rs_rev_at_least(s, MCPS_REV_2025_06_18);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "name", p->name);
    if (titles)
        cJSON_AddStringToObject(j, "title", p->title);
    cJSON_AddStringToObject(j, "description", p->description);
    if (!p->nargs)
        return j;
    cJSON *args = cJSON_AddArrayToObject(j, "arguments");
    for (size_t i = 0; i < p->nargs; i++) {
        cJSON *a = cJSON_CreateObject();
        cJSON_AddStringToObject(a, "name", p->args[i].name);
        if (titles)
            cJSON_AddStringToObject(a, "title", p->args[i].title);
        cJSON_AddStringToObject(a, "description", p->args[i].description);
        if (rs_fault_on(s, RS_FAULT_PROMPT_REQUIRED_STRING))
            cJSON_AddStringToObject(a, "required", p->args[i].required ? "yes" : "no");
        else
            cJSON_AddBoolToObject(a, "required", p->args[i].required);
        cJSON_AddItemToArray(args, a);
    }
    return j;
}

void rs_prompts_list(rs_server *s, const rs_req *req, rs_reply *r)
{
    size_t total = prompt_count(s), start;
    if (!rs_page_start(s, req, r, 'p', total, &start))
        return;
    cJSON *result = cJSON_CreateObject();
    cJSON *list = cJSON_AddArrayToObject(result, "prompts");
    for (size_t i = start; i < total && i < start + rs_page_size('p'); i++)
        cJSON_AddItemToArray(list, prompt_json(s, &rs_prompts[i]));
    rs_page_next(s, result, 'p', start, total);
    rs_ok(r, result);
}

/* Arguments are a string-to-string map (PROMPT-002); required ones must be there. */
static void check_args(const rs_server *s, const rs_prompt *p, const cJSON *args, rs_reply *r)
{
    for (const cJSON *v = args ? args->child : NULL; v; v = v->next)
        if (!cJSON_IsString(v))
            rs_fail_params(s, r, "Invalid params: prompt arguments must be strings");
    for (size_t i = 0; i < p->nargs && !r->code; i++)
        if (p->args[i].required && !cJSON_HasObjectItem(args, p->args[i].name) &&
            !rs_fault_on(s, RS_FAULT_PROMPT_MISSING_ARGS_ACCEPTED))
            rs_fail(r, RS_INVALID_PARAMS, "Missing required argument \"%s\"", p->args[i].name);
}

void rs_prompts_get(rs_server *s, const rs_req *req, rs_reply *r)
{
    const char *name = rs_param_string(s, req->params, "name", true, r);
    const cJSON *args = rs_param_object(s, req->params, "arguments", false, r);
    if (r->code)
        return;
    const rs_prompt *p = find_prompt(s, name);
    if (!p && rs_fault_on(s, RS_FAULT_PROMPT_UNKNOWN_RESULT)) {
        rs_ok(r, cJSON_CreateObject());
        return;
    }
    if (!p) {
        rs_fail(r, RS_INVALID_PARAMS, "Unknown prompt: %.64s", name);
        return;
    }
    check_args(s, p, args, r);
    if (r->code)
        return;
    cJSON *result = cJSON_CreateObject();
    cJSON_AddStringToObject(result, "description", p->description);
    p->get(s, args, cJSON_AddArrayToObject(result, "messages"), r);
    if (r->code)
        mcps_json_delete(result);
    else
        rs_ok(r, result);
}

int rs_prompt_arg_known(const rs_server *s, const char *prompt, const char *arg)
{
    const rs_prompt *p = find_prompt(s, prompt);
    if (!p)
        return 0;
    for (size_t i = 0; i < p->nargs; i++)
        if (strcmp(p->args[i].name, arg) == 0)
            return 2;
    return 1;
}
