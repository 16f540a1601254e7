/*
 * matrix_file.c - the targets of a matrix: from a matrix file, or one per
 * repeated `--config` (see matrix.h, and docs/matrix.md for the format).
 *
 *   {"targets": [
 *     {"name": "refserver", "config": "targets/refserver/mcpspec.json"},
 *     {"name": "ping-null", "server": "build/release/refserver --fault ping-result-null"},
 *     {"name": "everything", "server": "node server.js", "url": "http://127.0.0.1:3001/mcp",
 *      "env": {"PORT": "3001"}, "revision": "2025-06-18", "args": ["--isolation", "fresh"]}
 *   ]}
 *
 * Each target becomes the `mcpspec run` options that test it. Everything is
 * checked before anything runs, like a suite file: a broken matrix file, a
 * target configuration it names, or a client where only servers can be
 * tested, stops the command (exit 2) with the file and the line. Unknown
 * members are errors, so a typo cannot silently change what is tested.
 */
#include "base/array.h"
#include "base/buf.h"
#include "base/file.h"
#include "cli/cli.h"
#include "cli/matrix.h"
#include "codec/json.h"
#include "codec/rev.h"
#include "engine/config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MATRIX_MAX_FILE ((size_t)1 << 20) /* a list of targets; larger is not one */

typedef struct mfile {
    const char *path;
    const char *text;
    size_t len;
    const cJSON *root;
    mcps_json_spots spots; /* where each node starts, for lines */
} mfile;

/* ---- targets ------------------------------------------------------------------------ */

bool mcps_matrix_target_arg(mcps_matrix_target *t, const char *arg)
{
    char *copy = strdup(arg);
    if (!copy || !mcps_array_reserve(&t->args, &t->args_cap, t->nargs + 2, sizeof *t->args, 16)) {
        free(copy);
        return false;
    }
    t->args[t->nargs++] = copy;
    t->args[t->nargs] = NULL;
    return true;
}

static bool target_arg2(mcps_matrix_target *t, const char *option, const char *value)
{
    return mcps_matrix_target_arg(t, option) && mcps_matrix_target_arg(t, value);
}

static mcps_matrix_target *new_target(mcps_matrix *m)
{
    if (!mcps_array_reserve(&m->targets, &m->targets_cap, m->ntargets + 1, sizeof *m->targets, 8))
        return NULL;
    mcps_matrix_target *t = &m->targets[m->ntargets++];
    *t = (mcps_matrix_target){0};
    return t;
}

static bool name_taken(const mcps_matrix *m, const char *name, size_t n)
{
    for (size_t i = 0; i < m->ntargets; i++)
        if (m->targets[i].name && strlen(m->targets[i].name) == n &&
            strncmp(m->targets[i].name, name, n) == 0)
            return true;
    return false;
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

/* The matrix report's own files, beside the targets' folders. */
static bool name_reserved(const char *s)
{
    return strcmp(s, "index.html") == 0 || strcmp(s, "matrix.json") == 0 ||
           strcmp(s, "summary.md") == 0;
}

/* A folder name of its own under --out: no path, no dot file, no "..". */
static bool name_valid(const char *s)
{
    size_t n = strlen(s);
    if (!n || n > MCPS_MATRIX_NAME_MAX || s[0] == '.' || name_reserved(s))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!name_char(s[i]))
            return false;
    return true;
}

void mcps_matrix_free(mcps_matrix *m)
{
    for (size_t i = 0; i < m->ntargets; i++) {
        mcps_matrix_target *t = &m->targets[i];
        for (size_t a = 0; a < t->nargs; a++)
            free(t->args[a]);
        free(t->args);
        free(t->name);
        free(t->origin);
        free(t->reason);
        if (t->report)
            mcps_diff_report_free(t->report);
        free(t->report);
    }
    for (size_t r = 0; r < m->nrows; r++)
        free((void *)m->rows[r].cells);
    free(m->rows);
    free(m->targets);
    *m = (mcps_matrix){0};
}

/* A configuration must load, and name a server unless the target gives one itself. */
static bool check_config(const char *path, bool has_server, const char *origin)
{
    char err[700];
    mcps_target_file f = {0};
    bool ok = mcps_target_file_load(path, &f, err, sizeof err);
    if (!ok)
        fprintf(stderr, "mcpspec matrix: %s\n", err);
    else if (f.is_client) {
        fprintf(stderr,
                "mcpspec matrix: %s: names a client: a matrix runs servers only (test it "
                "with mcpspec run --config)\n",
                path);
        ok = false;
    } else if (!f.command && !has_server) {
        fprintf(stderr, "mcpspec matrix: %s: names no server, and %s gives none\n", path, origin);
        ok = false;
    }
    mcps_target_file_free(&f);
    return ok;
}

/* ---- repeated --config ------------------------------------------------------------- */

/* The file's name without ".json"; for mcpspec.json, its folder's name. */
static void config_name(const char *path, char *buf, size_t n)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".json") == 0)
        len -= 5;
    if (len == 7 && strncmp(base, "mcpspec", 7) == 0 && base != path) {
        const char *end = base - 1, *dir = end;
        while (dir > path && dir[-1] != '/')
            dir--;
        if (end > dir && !(end - dir == 1 && *dir == '.')) {
            base = dir;
            len = (size_t)(end - dir);
        }
    }
    size_t k = 0;
    for (size_t i = 0; i < len && k + 1 < n && k < MCPS_MATRIX_NAME_MAX - 4; i++)
        buf[k++] = name_char(base[i]) ? base[i] : '-';
    buf[k] = '\0';
    if (!k || buf[0] == '.')
        snprintf(buf, n, "target");
}

bool mcps_matrix_add_config(mcps_matrix *m, const char *config)
{
    char origin[4200], name[MCPS_MATRIX_NAME_MAX + 1], unique[MCPS_MATRIX_NAME_MAX + 1];
    snprintf(origin, sizeof origin, "--config %s", config);
    if (!check_config(config, false, origin))
        return false;
    config_name(config, name, sizeof name);
    snprintf(unique, sizeof unique, "%s", name);
    for (int k = 2; name_taken(m, unique, strlen(unique)) || name_reserved(unique); k++)
        snprintf(unique, sizeof unique, "%s-%d", name, k);
    mcps_matrix_target *t = new_target(m);
    if (!t || !(t->name = strdup(unique)) || !(t->origin = strdup(origin)) ||
        !target_arg2(t, "--config", config)) {
        fprintf(stderr, "mcpspec matrix: out of memory\n");
        return false;
    }
    return true;
}

/* ---- the matrix file ----------------------------------------------------------------- */

/* The line of member key in targets[i] (of the top-level member for i == SIZE_MAX): that of the
 * member when the file has it, else of the target (else 1). */
static size_t line_of(const mfile *f, size_t i, const char *key)
{
    const cJSON *targets = cJSON_GetObjectItemCaseSensitive(f->root, "targets");
    const cJSON *holder = i == SIZE_MAX ? f->root : cJSON_GetArrayItem(targets, (int)i);
    const cJSON *member = key[0] ? cJSON_GetObjectItemCaseSensitive(holder, key) : NULL;
    size_t at;
    if (!mcps_json_spot_of(&f->spots, member, &at) &&
        !mcps_json_spot_of(&f->spots, i == SIZE_MAX ? NULL : holder, &at))
        return 1;
    return mcps_file_line_at(f->text, f->len, at, NULL);
}

static bool fail_at(const mfile *f, size_t i, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool fail_at(const mfile *f, size_t i, const char *key, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "mcpspec matrix: %s:%zu: %s\n", f->path, line_of(f, i, key), msg);
    return false;
}

/* path as given when absolute, else relative to the matrix file's folder. */
static char *beside(const mfile *f, const char *path)
{
    const char *slash = strrchr(f->path, '/');
    mcps_buf b = {0};
    if (path[0] == '/' || !slash)
        mcps_buf_puts(&b, path);
    else
        mcps_buf_printf(&b, "%.*s/%s", (int)(slash - f->path), f->path, path);
    return b.oom ? NULL : mcps_buf_take(&b);
}

static const char *const target_members[] = {
    "name", "kind",     "description", "config", "server",   "url",    "transport", "cwd",
    "env",  "revision", "suite",       "case",   "baseline", "strict", "args",      NULL};

static bool known_member(const char *key)
{
    for (size_t i = 0; target_members[i]; i++)
        if (strcmp(key, target_members[i]) == 0)
            return true;
    return false;
}

typedef struct tctx {
    const mfile *f;
    size_t i;
    const cJSON *e;
    mcps_matrix_target *t;
} tctx;

static bool oom(void)
{
    fprintf(stderr, "mcpspec matrix: out of memory\n");
    return false;
}

/* A string member as OPTION VALUE; a path relative to the matrix file when asked. */
static bool string_option(tctx *c, const char *key, const char *option, bool path)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->e, key);
    if (!v)
        return true;
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return fail_at(c->f, c->i, key, "\"%s\" must be a non-empty string", key);
    char *value = path ? beside(c->f, v->valuestring) : strdup(v->valuestring);
    bool ok = value && target_arg2(c->t, option, value);
    free(value);
    return ok || oom();
}

/* A string or an array of strings, each as OPTION VALUE. */
static bool list_option(tctx *c, const char *key, const char *option)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->e, key);
    if (!v)
        return true;
    if (cJSON_IsString(v))
        return target_arg2(c->t, option, v->valuestring) || oom();
    bool ok = cJSON_IsArray(v);
    for (const cJSON *s = ok ? v->child : NULL; s && ok; s = s->next)
        ok = cJSON_IsString(s);
    if (!ok)
        return fail_at(c->f, c->i, key, "\"%s\" must be a string or an array of strings", key);
    for (const cJSON *s = v->child; s; s = s->next)
        if (!target_arg2(c->t, option, s->valuestring))
            return oom();
    return true;
}

static bool env_option(tctx *c)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->e, "env");
    if (!v)
        return true;
    if (!cJSON_IsObject(v))
        return fail_at(c->f, c->i, "env", "\"env\" must be an object of strings");
    for (const cJSON *s = v->child; s; s = s->next) {
        if (!cJSON_IsString(s) || !s->string[0] || strchr(s->string, '='))
            return fail_at(c->f, c->i, "env", "\"env\" must map names to strings");
        mcps_buf kv = {0};
        mcps_buf_printf(&kv, "%s=%s", s->string, s->valuestring);
        bool ok = !kv.oom && target_arg2(c->t, "--env", kv.data);
        mcps_buf_free(&kv);
        if (!ok)
            return oom();
    }
    return true;
}

static bool args_option(tctx *c)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->e, "args");
    if (!v)
        return true;
    bool ok = cJSON_IsArray(v);
    for (const cJSON *s = ok ? v->child : NULL; s && ok; s = s->next)
        ok = cJSON_IsString(s);
    if (!ok)
        return fail_at(c->f, c->i, "args", "\"args\" must be an array of strings");
    for (const cJSON *s = v->child; s; s = s->next)
        if (!mcps_matrix_target_arg(c->t, s->valuestring))
            return oom();
    return true;
}

/* Name, kind and members, before any option is built. */
static bool check_target(tctx *c, mcps_matrix *m)
{
    const mfile *f = c->f;
    if (!cJSON_IsObject(c->e))
        return fail_at(f, c->i, "", "targets[%zu] must be an object", c->i);
    for (const cJSON *k = c->e->child; k; k = k->next)
        if (!known_member(k->string) && strcmp(k->string, "client") != 0)
            return fail_at(f, c->i, k->string, "targets[%zu]: unknown member \"%s\"", c->i,
                           k->string);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(c->e, "name");
    if (!cJSON_IsString(name) || !name_valid(name->valuestring))
        return fail_at(f, c->i, "name",
                       "targets[%zu] needs a \"name\": 1 to %d of A-Z a-z 0-9 . _ -, not "
                       "starting with a dot, not index.html, matrix.json or summary.md (it "
                       "names the target's report folder)",
                       c->i, MCPS_MATRIX_NAME_MAX);
    if (name_taken(m, name->valuestring, strlen(name->valuestring)))
        return fail_at(f, c->i, "name", "two targets are named \"%s\"", name->valuestring);
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(c->e, "kind");
    if (kind && !(cJSON_IsString(kind) && (strcmp(kind->valuestring, "server") == 0 ||
                                           strcmp(kind->valuestring, "client") == 0)))
        return fail_at(f, c->i, "kind", "\"kind\" is \"server\" or \"client\"");
    if ((kind && strcmp(kind->valuestring, "client") == 0) ||
        cJSON_GetObjectItemCaseSensitive(c->e, "client"))
        return fail_at(f, c->i, kind ? "kind" : "client",
                       "target \"%s\" is a client: a matrix lists servers only (test a "
                       "client with mcpspec run --client)",
                       name->valuestring);
    const cJSON *strict = cJSON_GetObjectItemCaseSensitive(c->e, "strict");
    if (strict && !cJSON_IsBool(strict))
        return fail_at(f, c->i, "strict", "\"strict\" must be true or false");
    return true;
}

static bool has(const cJSON *e, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(e, key) != NULL;
}

static bool load_target(tctx *c, mcps_matrix *m)
{
    if (!check_target(c, m))
        return false;
    const cJSON *e = c->e;
    c->t = new_target(m);
    mcps_buf origin = {0};
    mcps_buf_printf(&origin, "%s:%zu", c->f->path, line_of(c->f, c->i, "name"));
    if (!c->t || origin.oom ||
        !(c->t->name = strdup(cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring)))
        return mcps_buf_free(&origin), oom();
    c->t->origin = mcps_buf_take(&origin);
    if (!has(e, "config") && !has(e, "server") && !has(e, "url"))
        return fail_at(c->f, c->i, "name", "target \"%s\" needs \"config\", \"server\" or \"url\"",
                       c->t->name);
    bool ok = string_option(c, "config", "--config", true) &&
              string_option(c, "server", "--server", false) &&
              string_option(c, "url", "--url", false) &&
              string_option(c, "transport", "--transport", false) &&
              string_option(c, "cwd", "--cwd", true) && env_option(c) &&
              list_option(c, "revision", "--revision") && list_option(c, "suite", "--suite") &&
              list_option(c, "case", "--case") &&
              string_option(c, "baseline", "--baseline", true) && args_option(c);
    if (ok && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "strict")))
        ok = mcps_matrix_target_arg(c->t, "--strict") || oom();
    if (ok && has(e, "config"))
        ok = check_config(c->t->args[1], has(e, "server") || has(e, "url"), c->t->origin);
    return ok;
}

static bool load_root(mfile *f, const cJSON *root, mcps_matrix *m)
{
    if (!cJSON_IsObject(root))
        return fail_at(f, SIZE_MAX, "", "a matrix file is a JSON object with \"targets\"");
    for (const cJSON *k = root->child; k; k = k->next)
        if (strcmp(k->string, "targets") != 0 && strcmp(k->string, "description") != 0 &&
            strcmp(k->string, "$schema") != 0)
            return fail_at(f, SIZE_MAX, k->string, "unknown member \"%s\"", k->string);
    const cJSON *targets = cJSON_GetObjectItemCaseSensitive(root, "targets");
    if (!cJSON_IsArray(targets) || !targets->child)
        return fail_at(f, SIZE_MAX, "targets", "\"targets\" must be a non-empty array");
    size_t i = 0;
    for (const cJSON *e = targets->child; e; e = e->next, i++) {
        tctx c = {f, i, e, NULL};
        if (!load_target(&c, m))
            return false;
    }
    return true;
}

static char *read_file(const char *path, size_t *len)
{
    mcps_buf b = {0};
    int err = mcps_file_read(&b, path, MATRIX_MAX_FILE);
    if (err) {
        fprintf(stderr, "mcpspec matrix: %s: %s%s\n", path, err == EFBIG ? "" : "cannot open: ",
                err == EFBIG ? "larger than 1 MiB" : strerror(err));
        mcps_buf_free(&b);
        return NULL;
    }
    *len = b.len;
    return mcps_buf_take(&b);
}

bool mcps_matrix_load_file(mcps_matrix *m, const char *path)
{
    mfile f = {.path = path};
    char *text = read_file(path, &f.len);
    if (!text)
        return false;
    f.text = text;
    mcps_json_result res;
    bool ok = mcps_json_parse_spotted(text, f.len, NULL, &res, &f.spots);
    f.root = res.root;
    if (!ok) {
        size_t column, line = mcps_file_line_at(text, f.len, res.error_offset, &column);
        fprintf(stderr, "mcpspec matrix: %s:%zu: invalid JSON (column %zu): %s\n", path, line,
                column, res.error);
    } else {
        ok = load_root(&f, res.root, m);
        mcps_json_delete(res.root);
    }
    mcps_json_spots_free(&f.spots);
    free(text);
    return ok;
}
