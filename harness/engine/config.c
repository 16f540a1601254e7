/*
 * config.c - loading the target configuration file; see config.h.
 */
/* realpath() is XSI. */
#define _XOPEN_SOURCE 700
#include "engine/config.h"

#include "base/buf.h"
#include "base/file.h"
#include "codec/json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct loader {
    const char *path;
    char *err;
    size_t errlen;
    const char *text; /* the file, to find the line of a member */
    size_t len;
    const cJSON *root;
    mcps_json_spots spots; /* where each member of root starts */
} loader;

static bool fail(loader *ld, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(loader *ld, size_t line, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line)
        snprintf(ld->err, ld->errlen, "%s:%zu: %s", ld->path, line, msg);
    else
        snprintf(ld->err, ld->errlen, "%s: %s", ld->path, msg);
    return false;
}

/* The member of obj whose name is the longest leading part of path before a '.' (names may hold
 * dots: tool names do); *rest is what follows it. NULL when none is. */
static const cJSON *member_prefix(const cJSON *obj, const char *path, const char **rest)
{
    for (size_t n = strlen(path);; n--) {
        if (path[n] == '\0' || path[n] == '.')
            for (const cJSON *m = cJSON_IsObject(obj) ? obj->child : NULL; m; m = m->next)
                if (strlen(m->string) == n && strncmp(m->string, path, n) == 0) {
                    *rest = path + n + (path[n] == '.');
                    return m;
                }
        if (n == 0)
            return NULL;
    }
}

/* The line a member "a.b.c" is written on: that of the deepest part of the path the file has. */
static size_t line_of(const loader *ld, const char *member)
{
    const cJSON *node = ld->root, *found = NULL;
    for (const char *rest = member; node && *rest;)
        if ((node = member_prefix(node, rest, &rest)) != NULL)
            found = node;
    size_t at;
    if (!mcps_json_spot_of(&ld->spots, found, &at))
        return 1;
    return mcps_file_line_at(ld->text, ld->len, at, NULL);
}

/* A failure about the member at this dotted path, reported on the line that holds it. */
static bool fail_at(loader *ld, const char *member, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail_at(loader *ld, const char *member, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fail(ld, line_of(ld, member), "%s", msg);
}

static bool only_members(loader *ld, const cJSON *obj, const char *where,
                         const char *const *allowed)
{
    const char *prefix = strcmp(where, "the configuration") ? where : "";
    for (const cJSON *m = obj->child; m; m = m->next) {
        bool ok = false;
        for (size_t i = 0; allowed[i]; i++)
            ok |= strcmp(m->string, allowed[i]) == 0;
        if (!ok) {
            char member[192];
            snprintf(member, sizeof member, "%s%s%s", prefix, prefix[0] ? "." : "", m->string);
            return fail_at(ld, member, "unknown member \"%s\" in %s", m->string, where);
        }
    }
    return true;
}

/* The folder of path, for a relative cwd. */
static char *relative_to_file(const char *path, const char *cwd)
{
    const char *slash = strrchr(path, '/');
    mcps_buf b = {0};
    if (cwd[0] == '/' || !slash)
        mcps_buf_puts(&b, cwd);
    else
        mcps_buf_printf(&b, "%.*s/%s", (int)(slash - path), path, cwd);
    return mcps_buf_take(&b);
}

static bool load_env(loader *ld, const char *what, const cJSON *env, mcps_target_file *out)
{
    char member[192];
    snprintf(member, sizeof member, "%s.env", what);
    if (!cJSON_IsObject(env))
        return fail_at(ld, member, "%s.env is an object of strings", what);
    size_t n = (size_t)cJSON_GetArraySize(env), k = 0;
    out->env = calloc(n + 1, sizeof *out->env);
    if (!out->env)
        return fail(ld, 0, "out of memory");
    for (const cJSON *v = env->child; v; v = v->next) {
        if (!cJSON_IsString(v)) {
            snprintf(member, sizeof member, "%s.env.%s", what, v->string);
            return fail_at(ld, member, "%s.env.%s is not a string", what, v->string);
        }
        mcps_buf b = {0};
        mcps_buf_printf(&b, "%s=%s", v->string, v->valuestring);
        out->env[k++] = mcps_buf_take(&b);
    }
    return true;
}

/* "server" or "client" (what): a command string, or {command, cwd, env} (a client also
 * "stays": it keeps running once it has done its work). */
static bool load_program(loader *ld, const char *what, const cJSON *prog, mcps_target_file *out)
{
    static const char *const server_allowed[] = {"command", "cwd", "env", NULL};
    static const char *const client_allowed[] = {"command", "cwd", "env", "stays", NULL};
    bool client = strcmp(what, "client") == 0;
    char member[64];
    if (cJSON_IsString(prog)) {
        out->is_client = client;
        out->command = strdup(prog->valuestring);
        return true;
    }
    if (!cJSON_IsObject(prog) ||
        !only_members(ld, prog, what, client ? client_allowed : server_allowed))
        return ld->err[0] ? false : fail_at(ld, what, "%s is a command string or an object", what);
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(prog, "command");
    const cJSON *cwd = cJSON_GetObjectItemCaseSensitive(prog, "cwd");
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(prog, "env");
    const cJSON *stays = cJSON_GetObjectItemCaseSensitive(prog, "stays");
    snprintf(member, sizeof member, "%s.command", what);
    if (!cJSON_IsString(cmd))
        return fail_at(ld, cmd ? member : what, "%s.command is required and is a string", what);
    snprintf(member, sizeof member, "%s.cwd", what);
    if (cwd && !cJSON_IsString(cwd))
        return fail_at(ld, member, "%s.cwd is a string", what);
    if (stays && !cJSON_IsBool(stays))
        return fail_at(ld, "client.stays", "client.stays is true or false");
    out->command = strdup(cmd->valuestring);
    out->is_client = client;
    out->client_stays = cJSON_IsTrue(stays);
    if (cwd)
        out->cwd = relative_to_file(ld->path, cwd->valuestring);
    return !env || load_env(ld, what, env, out);
}

static bool load_path_argument(loader *ld, const cJSON *call, const char *where, const char *prefix,
                               mcps_vars *vars)
{
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(call, "path_argument");
    if (!key)
        return strcmp(prefix, "read") != 0 ||
               fail_at(ld, where, "%s.path_argument names the argument that holds the path", where);
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(call, "arguments");
    const cJSON *path =
        cJSON_IsString(key) ? cJSON_GetObjectItemCaseSensitive(args, key->valuestring) : NULL;
    char member[192];
    snprintf(member, sizeof member, "%s.arguments.%s", where,
             cJSON_IsString(key) ? key->valuestring : "");
    if (!cJSON_IsString(path))
        return fail_at(ld, member, "%s.arguments.%s must be a path", where,
                       cJSON_IsString(key) ? key->valuestring : "?");
    char var[64];
    if (path->valuestring[0] != '/') {
        /* Relative to this file, like server.cwd, and made absolute for the probes. */
        char *rel = relative_to_file(ld->path, path->valuestring);
        char *abs = rel ? realpath(rel, NULL) : NULL;
        free(rel);
        if (!abs)
            return fail_at(ld, member, "%s.arguments.%s: cannot find %s", where, key->valuestring,
                           path->valuestring);
        snprintf(var, sizeof var, "%s_arguments", prefix);
        cJSON *fixed = cJSON_Duplicate(mcps_vars_get(vars, var), true);
        cJSON_ReplaceItemInObjectCaseSensitive(fixed, key->valuestring, cJSON_CreateString(abs));
        mcps_vars_set(vars, var, fixed);
        cJSON_Delete(fixed);
        free(abs);
    }
    snprintf(var, sizeof var, "%s_path_argument", prefix);
    mcps_vars_set(vars, var, key);
    return true;
}

/* "uri_argument" names the argument holding the URI of the resource the call changes
 * (update_resource only): ${update_resource_uri}, so a listen can subscribe to it. */
static bool load_uri_argument(loader *ld, const cJSON *call, const char *where, const char *prefix,
                              mcps_vars *vars)
{
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(call, "uri_argument");
    bool wanted = strcmp(prefix, "update_resource") == 0;
    if (!key && !wanted)
        return true;
    if (!wanted)
        return fail_at(ld, where, "%s.uri_argument belongs to update_resource only", where);
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(call, "arguments");
    const cJSON *uri =
        cJSON_IsString(key) ? cJSON_GetObjectItemCaseSensitive(args, key->valuestring) : NULL;
    if (!cJSON_IsString(uri) || !uri->valuestring[0])
        return fail_at(ld, where,
                       "%s.uri_argument names the argument that holds the changed resource's URI",
                       where);
    char var[64];
    snprintf(var, sizeof var, "%s_uri", prefix);
    mcps_vars_set(vars, var, uri);
    return true;
}

/* calls.tool -> call_tool, call_arguments; calls.slow_tool -> slow_tool, slow_arguments. */
static bool load_call(loader *ld, const cJSON *call, const char *key, const char *prefix,
                      mcps_vars *vars)
{
    static const char *const allowed[] = {"name", "arguments", "path_argument", "uri_argument",
                                          NULL};
    char where[64], var[64];
    snprintf(where, sizeof where, "calls.%s", key);
    if (!cJSON_IsObject(call) || !only_members(ld, call, where, allowed))
        return ld->err[0]
                   ? false
                   : fail_at(ld, where, "%s is {\"name\": ..., \"arguments\": {...}}", where);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(call, "name");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(call, "arguments");
    char member[96];
    snprintf(member, sizeof member, "%s.name", where);
    if (!cJSON_IsString(name) || !name->valuestring[0])
        return fail_at(ld, member, "%s.name is the tool's name", where);
    snprintf(member, sizeof member, "%s.arguments", where);
    if (args && !cJSON_IsObject(args))
        return fail_at(ld, member, "%s.arguments is an object", where);
    snprintf(var, sizeof var, "%s_tool", prefix);
    mcps_vars_set(vars, var, name);
    snprintf(var, sizeof var, "%s_arguments", prefix);
    cJSON *empty = cJSON_CreateObject();
    mcps_vars_set(vars, var, args ? args : empty);
    cJSON_Delete(empty);
    return load_path_argument(ld, call, where, prefix, vars) &&
           load_uri_argument(ld, call, where, prefix, vars);
}

/* The calls a configuration may consent to, and the variable prefix each gets. */
static const struct {
    const char *key, *prefix;
} call_kinds[] = {
    {"tool", "call"},                    /* a harmless call that succeeds */
    {"slow_tool", "slow"},               /* runs a second or more: cancellation, progress, tasks */
    {"read_tool", "read"},               /* reads the file named by path_argument: traversal */
    {"failing_tool", "failing"},         /* fails inside the tool: isError */
    {"sampling_tool", "sampling"},       /* makes the server send sampling/createMessage */
    {"elicitation_tool", "elicitation"}, /* makes the server send a form elicitation/create */
    {"url_elicitation_tool", "url_elicitation"}, /* makes it send a URL-mode one (2025-11-25) */
    {"task_required_tool", "task_required"},     /* a tool whose taskSupport is "required" */
    {"toggle_tools", "toggle_tools"},            /* changes the tool list: list_changed */
    {"toggle_resources", "toggle_resources"},
    {"toggle_prompts", "toggle_prompts"},
    {"update_resource", "update_resource"}, /* changes the resource uri_argument names: updated */
    {"header_tool", "header"}, /* has x-mcp-header arguments: Mcp-Param-* checks (2026-07-28) */
};

static bool load_calls(loader *ld, const cJSON *calls, mcps_target_file *out)
{
    const size_t n = sizeof call_kinds / sizeof *call_kinds;
    const char *allowed[sizeof call_kinds / sizeof *call_kinds + 1];
    for (size_t i = 0; i < n; i++)
        allowed[i] = call_kinds[i].key;
    allowed[n] = NULL;
    if (!cJSON_IsObject(calls) || !only_members(ld, calls, "calls", allowed))
        return ld->err[0] ? false : fail_at(ld, "calls", "calls is an object");
    for (size_t i = 0; i < n; i++) {
        const cJSON *call = cJSON_GetObjectItemCaseSensitive(calls, call_kinds[i].key);
        if (call && !load_call(ld, call, call_kinds[i].key, call_kinds[i].prefix, &out->vars))
            return false;
    }
    return true;
}

/* "resources": {"failing_uri": "..."}: a resource whose read fails inside the server. */
static bool load_resources(loader *ld, const cJSON *res, mcps_target_file *out)
{
    static const char *const allowed[] = {"failing_uri", NULL};
    if (!cJSON_IsObject(res) || !only_members(ld, res, "resources", allowed))
        return ld->err[0] ? false : fail_at(ld, "resources", "resources is an object");
    const cJSON *uri = cJSON_GetObjectItemCaseSensitive(res, "failing_uri");
    if (uri && !cJSON_IsString(uri))
        return fail_at(ld, "resources.failing_uri", "resources.failing_uri is a string");
    if (uri)
        mcps_vars_set(&out->vars, "failing_uri", uri);
    return true;
}

/*
 * "secrets": {"env": ["API_KEY"]}: mcpspec puts a canary value in each of these
 * variables of the target's environment and fails any log message that repeats
 * it (LOG-007). ${canaries} holds the values.
 */
static bool load_secrets(loader *ld, const cJSON *sec, mcps_target_file *out, unsigned seed)
{
    static const char *const allowed[] = {"env", NULL};
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(sec, "env");
    if (!cJSON_IsObject(sec) || !only_members(ld, sec, "secrets", allowed) || !cJSON_IsArray(env))
        return ld->err[0] ? false : fail_at(ld, "secrets", "secrets is {\"env\": [\"NAME\", ...]}");
    size_t have = 0;
    while (out->env && out->env[have])
        have++;
    size_t add = (size_t)cJSON_GetArraySize(env);
    char **grown = realloc(out->env, (have + add + 1) * sizeof *grown);
    if (!grown)
        return fail(ld, 0, "out of memory");
    out->env = grown;
    cJSON *values = cJSON_CreateArray();
    for (const cJSON *name = env->child; name; name = name->next, have++) {
        if (!cJSON_IsString(name)) {
            out->env[have] = NULL;
            cJSON_Delete(values);
            return fail_at(ld, "secrets.env", "secrets.env holds variable names");
        }
        char value[64];
        snprintf(value, sizeof value, "mcpspec-canary-%08x%04zx", seed, have);
        cJSON_AddItemToArray(values, cJSON_CreateString(value));
        mcps_buf b = {0};
        mcps_buf_printf(&b, "%s=%s", name->valuestring, value);
        out->env[have] = mcps_buf_take(&b);
    }
    out->env[have] = NULL;
    mcps_vars_set(&out->vars, "canaries", values);
    cJSON_Delete(values);
    return true;
}

/* A configuration is written by hand: 1 MiB is far past any; a longer file is refused whole
 * rather than read in part. */
#define CONFIG_MAX_BYTES ((size_t)1024 * 1024)

static char *read_all(loader *ld, size_t *len)
{
    mcps_buf b = {0};
    int err = mcps_file_read(&b, ld->path, CONFIG_MAX_BYTES);
    if (err) {
        fail(ld, 0, "%s%s", err == EFBIG ? "" : "cannot open: ",
             err == EFBIG ? "larger than 1 MiB" : strerror(err));
        mcps_buf_free(&b);
        return NULL;
    }
    *len = b.len;
    return mcps_buf_take(&b);
}

bool mcps_target_file_load(const char *path, mcps_target_file *out, char *err, size_t errlen)
{
    static const char *const allowed[] = {"server",  "client",  "calls",       "resources",
                                          "secrets", "$schema", "description", NULL};
    loader ld = {.path = path, .err = err, .errlen = errlen};
    *out = (mcps_target_file){0};
    err[0] = '\0';
    size_t len = 0;
    char *text = read_all(&ld, &len);
    if (!text)
        return false;
    ld.text = text;
    ld.len = len;
    mcps_json_result r;
    bool ok = mcps_json_parse_spotted(text, len, NULL, &r, &ld.spots);
    ld.root = r.root;
    if (!ok) {
        fail(&ld, mcps_file_line_at(text, len, r.error_offset, NULL), "invalid JSON: %s", r.error);
    } else if (!cJSON_IsObject(r.root)) {
        ok = fail(&ld, 1, "the configuration is a JSON object");
    } else {
        const cJSON *server = cJSON_GetObjectItemCaseSensitive(r.root, "server");
        const cJSON *client = cJSON_GetObjectItemCaseSensitive(r.root, "client");
        const cJSON *calls = cJSON_GetObjectItemCaseSensitive(r.root, "calls");
        const cJSON *res = cJSON_GetObjectItemCaseSensitive(r.root, "resources");
        const cJSON *sec = cJSON_GetObjectItemCaseSensitive(r.root, "secrets");
        ok = only_members(&ld, r.root, "the configuration", allowed) &&
             (!(server && client) ||
              fail_at(&ld, "client", "a configuration names a server or a client, not both")) &&
             (!server || load_program(&ld, "server", server, out)) &&
             (!client || load_program(&ld, "client", client, out)) &&
             (!calls || load_calls(&ld, calls, out)) && (!res || load_resources(&ld, res, out)) &&
             (!sec || load_secrets(&ld, sec, out, (unsigned)len * 2654435761u));
    }
    mcps_json_delete(r.root);
    mcps_json_spots_free(&ld.spots);
    free(text);
    if (!ok)
        mcps_target_file_free(out);
    return ok;
}

void mcps_target_file_free(mcps_target_file *f)
{
    free(f->command);
    free(f->cwd);
    for (size_t i = 0; f->env && f->env[i]; i++)
        free(f->env[i]);
    free(f->env);
    mcps_vars_free(&f->vars);
    *f = (mcps_target_file){0};
}
