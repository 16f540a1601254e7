/*
 * suite.c - the suite file loader; see suite.h and suites/README.md.
 *
 * Line oriented: a directive or a step per line, except that the JSON after
 * "-->" or "<--" may continue on the following lines until it is complete.
 * Everything is validated at load time (requirement IDs against the catalog,
 * matchers, variable references, durations) so a suite error is reported
 * with its file and line instead of surfacing mid-run.
 */
#include "engine/suite.h"

#include "base/array.h"
#include "base/buf.h"
#include "base/file.h"
#include "base/hex.h"
#include "codec/json.h"
#include "engine/catalog.h"
#include "engine/functions.h"
#include "engine/match.h"
#include "transport/transport.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_JSON_LINES  400
#define MAX_NESTING     8
#define SUITE_MAX_BYTES ((size_t)16 * 1024 * 1024) /* a suite is read whole; none comes near */

typedef struct line_reader {
    const char *text, *end;
    const char *pos;
    size_t lineno; /* number of the line last returned */
    char *line;    /* current line, NUL-terminated, without newline */
    size_t cap;
} line_reader;

typedef struct loader {
    const char *file;
    line_reader lr;
    char *err;
    size_t errlen;
    mcps_suite *suite;
    bool http_steps; /* the case being read has `--> http` or `<-- http` steps */
} loader;

static bool fail(loader *ld, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(loader *ld, size_t line, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(ld->err, ld->errlen, "%s:%zu: %s", ld->file, line, msg);
    return false;
}

/* ---- lines ------------------------------------------------------------------------ */

static bool next_line(line_reader *lr)
{
    if (lr->pos >= lr->end)
        return false;
    const char *nl = memchr(lr->pos, '\n', (size_t)(lr->end - lr->pos));
    size_t n = nl ? (size_t)(nl - lr->pos) : (size_t)(lr->end - lr->pos);
    if (n && lr->pos[n - 1] == '\r')
        n--;
    if (n + 1 > lr->cap) {
        char *bigger = realloc(lr->line, n + 1);
        if (!bigger)
            return false;
        lr->line = bigger;
        lr->cap = n + 1;
    }
    memcpy(lr->line, lr->pos, n);
    lr->line[n] = '\0';
    lr->pos = nl ? nl + 1 : lr->end;
    lr->lineno++;
    return true;
}

static char *skip_space(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static void trim_end(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
}

/* Directive lines may end in "  # comment"; JSON lines may not (strings hold '#'). */
static void strip_comment(char *s)
{
    for (char *p = s; *p; p++)
        if (*p == '#' && (p == s || p[-1] == ' ' || p[-1] == '\t')) {
            *p = '\0';
            break;
        }
    trim_end(s);
}

/* Split "word rest": terminates the word, returns rest (never NULL). */
static char *split_word(char *s)
{
    char *p = s;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    if (*p)
        *p++ = '\0';
    return skip_space(p);
}

/* ---- values ---------------------------------------------------------------------- */

static bool parse_duration(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0 || v > 3600)
        return false;
    if (strcmp(end, "ms") == 0)
        v /= 1000.0;
    else if (strcmp(end, "s") != 0)
        return false;
    *out = v;
    return true;
}

static bool valid_name(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-' || *s == '.'))
            return false;
    return true;
}

/*
 * Read a JSON value starting at text; when it is incomplete, continue with
 * the following lines of the file. Errors point at the right line.
 */
static cJSON *read_json(loader *ld, const char *text)
{
    mcps_buf b = {0};
    size_t first = ld->lr.lineno;
    mcps_buf_puts(&b, text);
    for (size_t lines = 1;; lines++) {
        mcps_json_result r;
        if (mcps_json_parse(b.data, b.len, NULL, &r)) {
            mcps_buf_free(&b);
            if (r.nfindings)
                mcps_json_delete(r.root),
                    r.root = NULL,
                    fail(ld, first, "JSON has a duplicate key or lone surrogate: %s",
                         r.findings[0].detail);
            return r.root;
        }
        if (!r.incomplete || lines >= MAX_JSON_LINES || !next_line(&ld->lr)) {
            size_t line = first - 1 + mcps_file_line_at(b.data, b.len, r.error_offset, NULL);
            if (line == first)
                fail(ld, line, "invalid JSON: %s", r.error);
            else
                fail(ld, line, "invalid JSON (in the message from line %zu): %s", first, r.error);
            mcps_buf_free(&b);
            return NULL;
        }
        mcps_buf_putc(&b, '\n');
        mcps_buf_puts(&b, ld->lr.line);
    }
}

/* Decode C-style escapes of a raw send: \n \r \t \\ \" \0 \xHH. */
static bool decode_raw(loader *ld, const char *s, char **out, size_t *outlen)
{
    mcps_buf b = {0};
    for (; *s; s++) {
        if (*s != '\\') {
            mcps_buf_putc(&b, *s);
            continue;
        }
        char c = *++s;
        if (c == 'x' && mcps_hex_byte(s + 1) >= 0) {
            mcps_buf_putc(&b, (char)mcps_hex_byte(s + 1));
            s += 2;
        } else if (c && strchr("nrt\\\"0", c)) {
            mcps_buf_putc(&b, c == 'n'   ? '\n'
                              : c == 'r' ? '\r'
                              : c == 't' ? '\t'
                              : c == '0' ? '\0'
                                         : c);
        } else {
            mcps_buf_free(&b);
            return fail(ld, ld->lr.lineno,
                        "bad escape '\\%c' in raw text (use \\n \\r \\t \\\\ \\\" \\0 \\xHH)",
                        c ? c : ' ');
        }
    }
    *outlen = b.len;
    *out = b.data ? mcps_buf_take(&b) : calloc(1, 1);
    return *out != NULL;
}

/* ---- steps ------------------------------------------------------------------------- */

typedef struct step_list {
    mcps_step *items;
    size_t n, cap;
} step_list;

static mcps_step *push_step(step_list *l, mcps_step_kind kind, size_t line)
{
    if (!mcps_array_reserve(&l->items, &l->cap, l->n + 1, sizeof *l->items, 8))
        return NULL;
    mcps_step *s = &l->items[l->n++];
    *s = (mcps_step){.kind = kind, .line = line};
    return s;
}

static bool check_pattern(loader *ld, const cJSON *p, size_t line)
{
    char err[200];
    if (!mcps_pattern_validate(p, err, sizeof err))
        return fail(ld, line, "%s", err);
    if (!cJSON_IsObject(p) && !cJSON_IsArray(p))
        return fail(ld, line, "an expected message is a JSON object (or array for a batch)");
    return true;
}

static bool parse_send(loader *ld, step_list *l, char *rest)
{
    size_t line = ld->lr.lineno;
    if (strncmp(rest, "raw ", 4) == 0 || strcmp(rest, "raw") == 0) {
        mcps_step *s = push_step(l, MCPS_STEP_SEND_RAW, line);
        return s && decode_raw(ld, skip_space(rest + 3), &s->raw, &s->raw_len);
    }
    bool http = strncmp(rest, "http ", 5) == 0;
    if (http) {
        rest = skip_space(rest + 5);
        ld->http_steps = true;
    }
    cJSON *json = read_json(ld, rest);
    if (!json)
        return false;
    char err[200];
    if (!mcps_pattern_validate(json, err, sizeof err) && strstr(err, "variable")) {
        mcps_json_delete(json);
        return fail(ld, line, "%s", err);
    }
    mcps_step *s = push_step(l, http ? MCPS_STEP_SEND_HTTP : MCPS_STEP_SEND, line);
    if (!s) {
        mcps_json_delete(json);
        return fail(ld, line, "out of memory");
    }
    s->json = json;
    if (http && !cJSON_IsObject(json))
        return fail(ld, line, "an HTTP request is {\"method\":...,\"headers\":{...},\"body\":...}");
    return true;
}

static bool parse_grade(const char *word, mcps_verdict *out)
{
    static const struct {
        const char *name;
        mcps_verdict v;
    } grades[] = {{"pass", MCPS_VERDICT_PASS}, {"info", MCPS_VERDICT_INFO},
                  {"warn", MCPS_VERDICT_WARN}, {"fail", MCPS_VERDICT_FAIL},
                  {"skip", MCPS_VERDICT_SKIP}, {"error", MCPS_VERDICT_ERROR}};
    for (size_t i = 0; i < sizeof grades / sizeof *grades; i++)
        if (strcmp(word, grades[i].name) == 0) {
            *out = grades[i].v;
            return true;
        }
    return false;
}

/* Is id one of the space-separated ids? */
static bool has_word(const char *ids, const char *id)
{
    size_t n = strlen(id);
    for (const char *p = ids ? strstr(ids, id) : NULL; p; p = strstr(p + 1, id))
        if ((p == ids || p[-1] == ' ' || p[-1] == ',') &&
            (p[n] == '\0' || p[n] == ' ' || p[n] == ','))
            return true;
    return false;
}

/*
 * "breaks ID ID ..." up to the quoted reason: every ID is one the case
 * requires, so the case's requirement list stays the whole story.
 */
static bool parse_breaks(loader *ld, char **rest, char **out)
{
    size_t line = ld->lr.lineno;
    const mcps_case *c = &ld->suite->cases[ld->suite->ncases - 1];
    mcps_buf b = {0};
    while (**rest && **rest != '"') {
        char *id = *rest;
        *rest = split_word(id);
        if (!mcps_catalog_find(id) || !has_word(c->requirements, id)) {
            mcps_buf_free(&b);
            return fail(ld, line, "'breaks %s': name requirements of the case's 'requires' line",
                        id);
        }
        if (b.len)
            mcps_buf_putc(&b, ' ');
        mcps_buf_puts(&b, id);
    }
    if (!b.len)
        return fail(ld, line, "'breaks' needs the requirement IDs the observation breaks");
    *out = mcps_buf_take(&b);
    return *out != NULL;
}

/* "<-- else [GRADE] [breaks ID...] "reason" {pattern}|silence" */
static bool parse_alternative(loader *ld, step_list *l, char *rest)
{
    size_t line = ld->lr.lineno;
    if (!l->n ||
        (l->items[l->n - 1].kind != MCPS_STEP_EXPECT && l->items[l->n - 1].kind != MCPS_STEP_EACH))
        return fail(ld, line, "'<-- else' must follow an expected message");
    mcps_alternative a = {.line = line};
    if (*rest != '"' && strncmp(rest, "breaks ", 7) != 0) {
        char *after = split_word(rest);
        if (!parse_grade(rest, &a.grade))
            return fail(ld, line,
                        "'<-- else' needs a grade (pass, info, warn, fail, skip, error) or "
                        "'breaks ID...'");
        a.graded = true;
        rest = after;
    }
    if (strncmp(rest, "breaks ", 7) == 0) {
        if (a.graded && (a.grade == MCPS_VERDICT_PASS || a.grade == MCPS_VERDICT_SKIP ||
                         a.grade == MCPS_VERDICT_ERROR))
            return fail(ld, line,
                        "an alternative that breaks a requirement is not pass, skip "
                        "or error");
        rest = skip_space(rest + 7);
        if (!parse_breaks(ld, &rest, &a.breaks))
            return false;
    }
    if (!a.graded && !a.breaks)
        return fail(ld, line, "'<-- else' needs a grade or 'breaks ID...'");
    if (*rest != '"') {
        free(a.breaks);
        return fail(ld, line, "'<-- else' needs a quoted reason");
    }
    char *close = strchr(rest + 1, '"');
    if (!close) {
        free(a.breaks);
        return fail(ld, line, "unterminated reason");
    }
    *close = '\0';
    mcps_step *s = &l->items[l->n - 1];
    mcps_alternative *alts = realloc(s->alts, (s->nalts + 1) * sizeof *alts);
    if (!alts) {
        free(a.breaks);
        return fail(ld, line, "out of memory");
    }
    s->alts = alts;
    a.reason = strdup(rest + 1);
    s->alts[s->nalts++] = a;
    char *what = skip_space(close + 1);
    if (strcmp(what, "silence") == 0)
        return true; /* graded when nothing correlates before the timeout */
    bool http = strncmp(what, "http ", 5) == 0;
    if (s->http && !http)
        return fail(ld, line, "an alternative to '<-- http' is 'http {record}' or silence");
    if (http && s->kind != MCPS_STEP_EXPECT)
        return fail(ld, line, "'http {record}' is an alternative to '<-- {message}' only");
    if (http)
        what = skip_space(what + 5);
    mcps_alternative *added = &s->alts[s->nalts - 1];
    added->http = http && !s->http; /* judged when the message does not come */
    added->pattern = read_json(ld, what);
    return added->pattern && check_pattern(ld, added->pattern, line);
}

static bool parse_timed(loader *ld, step_list *l, mcps_step_kind kind, const char *duration)
{
    size_t line = ld->lr.lineno;
    double t;
    if (!parse_duration(duration, &t))
        return fail(ld, line, "bad duration '%s' (write e.g. 500ms or 2s)", duration);
    mcps_step *s = push_step(l, kind, line);
    if (!s)
        return fail(ld, line, "out of memory");
    s->seconds = t;
    return true;
}

/* "<-- no {pattern} for T": the pattern is one line, followed by the duration. */
static bool parse_no_match(loader *ld, step_list *l, char *rest, bool http)
{
    size_t line = ld->lr.lineno;
    char *for_word = strstr(rest, "} for ");
    if (!for_word)
        return fail(ld, line, "write '<-- no {pattern} for DURATION' on one line");
    for_word[1] = '\0';
    double t;
    if (!parse_duration(for_word + 6, &t))
        return fail(ld, line, "bad duration '%s' (write e.g. 500ms or 2s)", for_word + 6);
    mcps_json_result r;
    if (!mcps_json_parse(rest, strlen(rest), NULL, &r))
        return fail(ld, line, "invalid JSON: %s", r.error);
    mcps_step *s = push_step(l, MCPS_STEP_NO_MATCH, line);
    if (!s) {
        mcps_json_delete(r.root);
        return fail(ld, line, "out of memory");
    }
    s->json = r.root;
    s->seconds = t;
    s->http = http;
    ld->http_steps |= http;
    return check_pattern(ld, r.root, line);
}

static bool parse_each(loader *ld, step_list *l, char *rest)
{
    size_t line = ld->lr.lineno;
    cJSON *pattern = read_json(ld, rest);
    if (!pattern)
        return false;
    mcps_step *s = push_step(l, MCPS_STEP_EACH, line);
    if (!s) {
        mcps_json_delete(pattern);
        return fail(ld, line, "out of memory");
    }
    s->json = pattern;
    return check_pattern(ld, pattern, line);
}

static bool parse_expect(loader *ld, step_list *l, char *rest)
{
    size_t line = ld->lr.lineno;
    if (strncmp(rest, "else ", 5) == 0)
        return parse_alternative(ld, l, skip_space(rest + 5));
    if (strncmp(rest, "no response for ", 16) == 0)
        return parse_timed(ld, l, MCPS_STEP_NO_RESPONSE, rest + 16);
    if (strncmp(rest, "nothing for ", 12) == 0)
        return parse_timed(ld, l, MCPS_STEP_NOTHING, rest + 12);
    if (strncmp(rest, "exit within ", 12) == 0)
        return parse_timed(ld, l, MCPS_STEP_EXIT, rest + 12);
    if (strncmp(rest, "no {", 4) == 0)
        return parse_no_match(ld, l, rest + 3, false);
    if (strncmp(rest, "no http {", 9) == 0)
        return parse_no_match(ld, l, rest + 8, true);
    if (strncmp(rest, "each ", 5) == 0)
        return parse_each(ld, l, skip_space(rest + 5));
    double within = 0;
    if (strncmp(rest, "within ", 7) == 0) {
        char *json = split_word(rest + 7);
        if (!parse_duration(rest + 7, &within))
            return fail(ld, line, "bad duration after 'within'");
        rest = json;
    }
    bool http = strncmp(rest, "http ", 5) == 0;
    if (http)
        rest = skip_space(rest + 5);
    cJSON *pattern = read_json(ld, rest);
    if (!pattern)
        return false;
    mcps_step *s = push_step(l, MCPS_STEP_EXPECT, line);
    if (!s) {
        mcps_json_delete(pattern);
        return fail(ld, line, "out of memory");
    }
    s->json = pattern;
    s->seconds = within;
    s->http = http;
    ld->http_steps |= http;
    return check_pattern(ld, pattern, line);
}

static bool parse_steps(loader *ld, step_list *l, int depth, bool *ended);

static bool parse_repeat(loader *ld, step_list *l, char *rest, int depth)
{
    size_t line = ld->lr.lineno;
    unsigned long max = 0;
    char var[64];
    int used = 0;
    if (sscanf(rest, "max %lu while ${%63[A-Za-z0-9_]}%n", &max, var, &used) != 2 ||
        rest[used] != '\0' || max == 0 || max > 100000)
        return fail(ld, line, "write 'repeat max N while ${VAR}' (N from 1 to 100000)");
    if (depth >= MAX_NESTING)
        return fail(ld, line, "repeat nested too deeply");
    step_list body = {0};
    bool ended = false;
    mcps_step *s = push_step(l, MCPS_STEP_REPEAT, line);
    if (!s)
        return fail(ld, line, "out of memory");
    s->while_var = strdup(var);
    s->max_iterations = max;
    bool ok = parse_steps(ld, &body, depth + 1, &ended);
    s = &l->items[l->n - 1];
    s->body = body.items;
    s->nbody = body.n;
    if (ok && !ended)
        return fail(ld, line, "'repeat' without 'end'");
    if (ok && !body.n)
        return fail(ld, line, "'repeat' with no steps");
    return ok;
}

static bool parse_foreach(loader *ld, step_list *l, char *rest, int depth)
{
    size_t line = ld->lr.lineno;
    unsigned long max = 0;
    char name[64], list[64];
    int used = 0;
    if (sscanf(rest, "%63[A-Za-z0-9_] in ${%63[A-Za-z0-9_]} max %lu%n", name, list, &max, &used) !=
            3 ||
        max == 0 || max > 100000)
        return fail(ld, line, "write 'foreach NAME in ${LIST} max N [else skip \"why\"]'");
    char *tail = skip_space(rest + used);
    char reason[200] = "";
    if (*tail && sscanf(tail, "else skip \"%199[^\"]\"", reason) != 1)
        return fail(ld, line, "after 'max N' only 'else skip \"why\"' may follow");
    if (depth >= MAX_NESTING)
        return fail(ld, line, "foreach nested too deeply");
    mcps_step *s = push_step(l, MCPS_STEP_FOREACH, line);
    if (!s)
        return fail(ld, line, "out of memory");
    s->name = strdup(name);
    s->while_var = strdup(list);
    s->max_iterations = max;
    s->skip_reason = reason[0] ? strdup(reason) : NULL;
    step_list body = {0};
    bool ended = false;
    bool ok = parse_steps(ld, &body, depth + 1, &ended);
    s = &l->items[l->n - 1];
    s->body = body.items;
    s->nbody = body.n;
    if (ok && !ended)
        return fail(ld, line, "'foreach' without 'end'");
    return ok;
}

/* "FUNC(${A}, ${B})" into s->func and s->args. */
static bool parse_call(loader *ld, mcps_step *s, char *text)
{
    size_t line = ld->lr.lineno;
    char *open = strchr(text, '('), *close = strrchr(text, ')');
    if (!open || !close || close < open || close[1] != '\0')
        return fail(ld, line, "write 'let NAME = FUNCTION(${A}, ...)' or 'let NAME = {json}'");
    *open = '\0';
    *close = '\0';
    s->func = strdup(text);
    for (char *a = strtok(open + 1, ", "); a; a = strtok(NULL, ", ")) {
        size_t n = strlen(a);
        if (n < 4 || a[0] != '$' || a[1] != '{' || a[n - 1] != '}')
            return fail(ld, line, "function arguments are variables: '%s'", a);
        char **args = realloc(s->args, (s->nargs + 1) * sizeof *args);
        if (!args)
            return fail(ld, line, "out of memory");
        s->args = args;
        s->args[s->nargs++] = strdup(a);
    }
    if (!mcps_function_known(s->func, s->nargs))
        return fail(ld, line, "unknown function '%s' with %zu argument%s (see engine/functions.h)",
                    s->func, s->nargs, s->nargs == 1 ? "" : "s");
    return true;
}

/* "require ${VAR} else skip "why"": nothing to judge without VAR. */
static bool parse_require(loader *ld, step_list *l, char *rest)
{
    size_t line = ld->lr.lineno;
    char var[64], reason[200];
    if (sscanf(rest, "${%63[A-Za-z0-9_.]} else skip \"%199[^\"]\"", var, reason) != 2)
        return fail(ld, line, "write 'require ${VAR} else skip \"why\"'");
    mcps_step *s = push_step(l, MCPS_STEP_REQUIRE, line);
    if (!s)
        return fail(ld, line, "out of memory");
    s->name = strdup(var);
    s->skip_reason = strdup(reason);
    return true;
}

static bool parse_let(loader *ld, step_list *l, char *rest)
{
    size_t line = ld->lr.lineno;
    char name[64];
    int used = 0;
    if (sscanf(rest, "%63[A-Za-z0-9_] = %n", name, &used) != 1 || !used)
        return fail(ld, line, "write 'let NAME = FUNCTION(${A}, ...)' or 'let NAME = {json}'");
    char *value = rest + used; /* {json}, [json], "text" or a number */
    mcps_step *s = push_step(l, MCPS_STEP_LET, line);
    if (!s)
        return fail(ld, line, "out of memory");
    s->name = strdup(name);
    if (*value == '{' || *value == '[' || *value == '"' || *value == '-' ||
        (*value >= '0' && *value <= '9')) {
        s->json = read_json(ld, value);
        return s->json != NULL;
    }
    return parse_call(ld, s, value);
}

/* One step line; *is_step false when the line is not a step. */
static bool parse_step_line(loader *ld, step_list *l, char *s, int depth, bool *is_step)
{
    *is_step = true;
    if (strncmp(s, "-->", 3) == 0)
        return parse_send(ld, l, skip_space(s + 3));
    if (strncmp(s, "<--", 3) == 0)
        return parse_expect(ld, l, skip_space(s + 3));
    strip_comment(s);
    char *rest = split_word(s);
    if (strcmp(s, "repeat") == 0)
        return parse_repeat(ld, l, rest, depth);
    if (strcmp(s, "foreach") == 0)
        return parse_foreach(ld, l, rest, depth);
    if (strcmp(s, "let") == 0)
        return parse_let(ld, l, rest);
    if (strcmp(s, "require") == 0)
        return parse_require(ld, l, rest);
    if (strcmp(s, "wait") == 0)
        return parse_timed(ld, l, MCPS_STEP_WAIT, rest);
    if (strcmp(s, "close") == 0 && strcmp(rest, "stdin") == 0)
        return push_step(l, MCPS_STEP_CLOSE_INPUT, ld->lr.lineno) != NULL;
    *is_step = false;
    return true;
}

/* ---- cases ---------------------------------------------------------------------------- */

static bool add_requirements(loader *ld, mcps_case *c, const char *ids)
{
    char copy[512];
    snprintf(copy, sizeof copy, "%s", ids);
    for (char *id = strtok(copy, " ,"); id; id = strtok(NULL, " ,"))
        if (!mcps_catalog_find(id))
            return fail(ld, ld->lr.lineno, "unknown requirement ID '%s' (not in the catalog)", id);
    mcps_buf b = {0};
    if (c->requirements) {
        mcps_buf_puts(&b, c->requirements);
        mcps_buf_putc(&b, ' ');
    }
    mcps_buf_puts(&b, ids);
    free(c->requirements);
    c->requirements = mcps_buf_take(&b);
    return c->requirements != NULL;
}

static bool add_words(char ***list, size_t *n, char *rest)
{
    for (char *w = strtok(rest, " ,"); w; w = strtok(NULL, " ,")) {
        char **grown = realloc(*list, (*n + 1) * sizeof *grown);
        if (!grown)
            return false;
        *list = grown;
        (*list)[(*n)++] = strdup(w);
    }
    return true;
}

static bool add_capabilities(mcps_case *c, char *rest)
{
    return add_words(&c->capabilities, &c->ncapabilities, rest);
}

static bool append_text(char **dst, const char *text)
{
    mcps_buf b = {0};
    if (*dst) {
        mcps_buf_puts(&b, *dst);
        mcps_buf_putc(&b, ' ');
    }
    mcps_buf_puts(&b, text);
    free(*dst);
    *dst = mcps_buf_take(&b);
    return *dst != NULL;
}

/* "transport stdio|http|streamable-http|sse ...": the transports the case means anything on. */
static bool parse_transports(loader *ld, mcps_case *c, char *rest)
{
    while (*rest) {
        char *word = rest;
        rest = split_word(rest);
        mcps_transport_kind kind;
        if (strcmp(word, "http") == 0)
            c->transports |= (1u << MCPS_TRANSPORT_STREAMABLE_HTTP) | (1u << MCPS_TRANSPORT_SSE);
        else if (mcps_transport_kind_parse(word, &kind))
            c->transports |= 1u << kind;
        else
            return fail(ld, ld->lr.lineno,
                        "transport '%s': write stdio, http, streamable-http or sse", word);
    }
    return c->transports ? true : fail(ld, ld->lr.lineno, "transport needs a name");
}

/* "isolation fresh|shared": whether the case may run on a process other cases use too. */
static bool parse_isolation(loader *ld, mcps_case *c, const char *rest)
{
    if (strcmp(rest, "fresh") == 0)
        c->isolation = MCPS_ISOLATION_FRESH;
    else if (strcmp(rest, "shared") == 0)
        c->isolation = MCPS_ISOLATION_SHARED;
    else
        return fail(ld, ld->lr.lineno, "isolation is 'fresh' or 'shared'");
    return true;
}

/* proven-by FAULT VERDICT [SUITES...] (proofs.h) */
static bool add_proof(loader *ld, mcps_case *c, char *rest)
{
    mcps_proof *grown = realloc(c->proofs, (c->nproofs + 1) * sizeof *grown);
    if (!grown)
        return fail(ld, ld->lr.lineno, "out of memory");
    c->proofs = grown;
    char why[200];
    if (!mcps_proof_parse(rest, ld->lr.lineno, &c->proofs[c->nproofs], why, sizeof why))
        return fail(ld, ld->lr.lineno, "%s", why);
    c->nproofs++;
    return true;
}

static bool parse_case_directive(loader *ld, mcps_case *c, char *word, char *rest)
{
    size_t line = ld->lr.lineno;
    if (strcmp(word, "title") == 0)
        return append_text(&c->title, rest);
    if (strcmp(word, "expect") == 0)
        return append_text(&c->expect, rest);
    if (strcmp(word, "requires") == 0)
        return add_requirements(ld, c, rest);
    if (strcmp(word, "section") == 0) {
        free(c->section);
        return (c->section = strdup(rest)) != NULL;
    }
    if (strcmp(word, "revisions") == 0)
        return mcps_rev_set_parse(rest, &c->revisions) && c->revisions
                   ? true
                   : fail(ld, line, "bad revisions '%s' (write all, X+, X..Y or a list)", rest);
    if (strcmp(word, "capability") == 0)
        return add_capabilities(c, rest);
    if (strcmp(word, "needs") == 0)
        return add_words(&c->needs, &c->nneeds, rest);
    if (strcmp(word, "session") == 0) {
        if (strcmp(rest, "raw") == 0)
            c->session = MCPS_SESSION_RAW;
        else if (strcmp(rest, "initialized") == 0)
            c->session = MCPS_SESSION_INITIALIZED;
        else
            return fail(ld, line, "session is 'raw' or 'initialized'");
        return true;
    }
    if (strcmp(word, "timeout") == 0)
        return parse_duration(rest, &c->timeout) ? true : fail(ld, line, "bad timeout '%s'", rest);
    if (strcmp(word, "isolation") == 0)
        return parse_isolation(ld, c, rest);
    if (strcmp(word, "transport") == 0)
        return parse_transports(ld, c, rest);
    if (strcmp(word, "proven-by") == 0)
        return add_proof(ld, c, rest);
    return fail(ld, line, "unknown directive '%s'", word);
}

static bool parse_client_capabilities(loader *ld, mcps_case *c, char *rest)
{
    cJSON *caps = read_json(ld, rest);
    if (!caps)
        return false;
    mcps_json_delete(c->client_capabilities);
    c->client_capabilities = caps;
    return cJSON_IsObject(caps) ? true
                                : fail(ld, ld->lr.lineno, "client-capabilities is a JSON object");
}

/* The steps of a repeat body, up to its 'end'. */
static bool parse_steps(loader *ld, step_list *l, int depth, bool *ended)
{
    while (next_line(&ld->lr)) {
        char *s = skip_space(ld->lr.line);
        if (!*s || *s == '#')
            continue;
        if (strncmp(s, "end", 3) == 0 && (s[3] == '\0' || s[3] == ' ' || s[3] == '#')) {
            *ended = true;
            return true;
        }
        if (strncmp(s, "case ", 5) == 0)
            return fail(ld, ld->lr.lineno, "'case' inside a repeat: is an 'end' missing?");
        bool is_step;
        if (!parse_step_line(ld, l, s, depth, &is_step))
            return false;
        if (!is_step)
            return fail(ld, ld->lr.lineno, "'%s' is not a step", s);
    }
    return true;
}

static void free_steps(mcps_step *steps, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        mcps_step *s = &steps[i];
        mcps_json_delete(s->json);
        free(s->raw);
        for (size_t a = 0; a < s->nalts; a++) {
            free(s->alts[a].reason);
            free(s->alts[a].breaks);
            mcps_json_delete(s->alts[a].pattern);
        }
        free(s->alts);
        free(s->while_var);
        free(s->name);
        free(s->func);
        for (size_t a = 0; a < s->nargs; a++)
            free(s->args[a]);
        free(s->args);
        free(s->skip_reason);
        free_steps(s->body, s->nbody);
    }
    free(steps);
}

static void free_case(mcps_case *c)
{
    free(c->id);
    free(c->name);
    free(c->title);
    free(c->section);
    free(c->requirements);
    for (size_t i = 0; i < c->ncapabilities; i++)
        free(c->capabilities[i]);
    free(c->capabilities);
    for (size_t i = 0; i < c->nneeds; i++)
        free(c->needs[i]);
    free(c->needs);
    mcps_json_delete(c->client_capabilities);
    free(c->expect);
    free_steps(c->steps, c->nsteps);
    for (size_t i = 0; i < c->nproofs; i++)
        mcps_proof_free(&c->proofs[i]);
    free(c->proofs);
    free(c->file);
}

static bool finish_case(loader *ld, mcps_case *c)
{
    if (!c->title)
        return fail(ld, c->line, "case '%s' has no title", c->name);
    if (!c->requirements)
        return fail(ld, c->line, "case '%s' names no requirement (requires ID ...)", c->name);
    if (!c->expect)
        return fail(ld, c->line, "case '%s' has no expect line (what conformance looks like)",
                    c->name);
    if (!c->nsteps)
        return fail(ld, c->line, "case '%s' has no steps", c->name);
    bool http_only = c->transports && !(c->transports & (1u << MCPS_TRANSPORT_STDIO));
    if (ld->http_steps && !http_only)
        return fail(ld, c->line, "case '%s' has HTTP steps: say 'transport http' (or sse)",
                    c->name);
    ld->http_steps = false;
    if (!c->section && ld->suite->section)
        c->section = strdup(ld->suite->section);
    return true;
}

static bool duplicate_case(const mcps_suite *s, const char *name)
{
    for (size_t i = 0; i < s->ncases; i++)
        if (strcmp(s->cases[i].name, name) == 0)
            return true;
    return false;
}

static bool starts_step(const char *t)
{
    static const char *const words[] = {"-->",    "<--",      "repeat ", "wait ",
                                        "close ", "foreach ", "let ",    "require "};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strncmp(t, words[i], strlen(words[i])) == 0)
            return true;
    return false;
}

static mcps_case *new_case(loader *ld, const char *name)
{
    mcps_suite *s = ld->suite;
    size_t line = ld->lr.lineno;
    if (!valid_name(name))
        return fail(ld, line, "case name '%s': use lowercase letters, digits, '-' and '.'", name),
               NULL;
    if (duplicate_case(s, name))
        return fail(ld, line, "case '%s' appears twice", name), NULL;
    mcps_case *cases = realloc(s->cases, (s->ncases + 1) * sizeof *cases);
    if (!cases)
        return fail(ld, line, "out of memory"), NULL;
    s->cases = cases;
    mcps_case *c = &s->cases[s->ncases++];
    *c = (mcps_case){.name = strdup(name),
                     .revisions = MCPS_REV_HANDSHAKE_ERA,
                     .line = line,
                     .file = strdup(ld->file)};
    mcps_buf id = {0};
    mcps_buf_printf(&id, "%s/%s", s->name, name);
    c->id = mcps_buf_take(&id);
    return c;
}

/* A directive line of a case (before its first step). */
static bool parse_case_line(loader *ld, mcps_case *c, char *t)
{
    if (strncmp(t, "client-capabilities", 19) == 0 && (t[19] == ' ' || t[19] == '\t'))
        return parse_client_capabilities(ld, c, skip_space(t + 19));
    strip_comment(t);
    char *rest = split_word(t);
    return parse_case_directive(ld, c, t, rest);
}

/*
 * A case: its directives, then its steps, up to the next "case" line (whose
 * name is left in *next_name) or the end of the file.
 */
static bool parse_case(loader *ld, const char *name, char *next_name, size_t next_size)
{
    mcps_case *c = new_case(ld, name);
    if (!c)
        return false;
    step_list steps = {0};
    bool ok = true;
    next_name[0] = '\0';
    while (ok && next_line(&ld->lr)) {
        char *t = skip_space(ld->lr.line);
        if (!*t || *t == '#')
            continue;
        if (strncmp(t, "case ", 5) == 0) {
            strip_comment(t);
            snprintf(next_name, next_size, "%s", skip_space(t + 5));
            break;
        }
        if (starts_step(t)) {
            bool is_step;
            ok = parse_step_line(ld, &steps, t, 0, &is_step);
        } else if (steps.n) {
            ok = fail(ld, ld->lr.lineno, "'%s' after the first step: directives come first", t);
        } else {
            ok = parse_case_line(ld, c, t);
        }
    }
    c->steps = steps.items;
    c->nsteps = steps.n;
    return ok && finish_case(ld, c);
}

/* ---- the file ------------------------------------------------------------------------- */

static bool parse_header(loader *ld, char *word, char *rest)
{
    mcps_suite *s = ld->suite;
    size_t line = ld->lr.lineno;
    if (strcmp(word, "suite") == 0) {
        if (s->name && strcmp(rest, s->name) != 0)
            return fail(ld, line, "suite '%s' is in a file named for '%s'", rest, s->name);
        if (!s->name)
            s->name = strdup(rest);
        return true;
    }
    if (strcmp(word, "title") == 0)
        return append_text(&s->title, rest);
    if (strcmp(word, "section") == 0) {
        free(s->section);
        return (s->section = strdup(rest)) != NULL;
    }
    return fail(ld, line, "unknown suite directive '%s' (expected suite, title, section or case)",
                word);
}

static char *file_stem(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t n = dot ? (size_t)(dot - base) : strlen(base);
    char *stem = malloc(n + 1);
    if (stem) {
        memcpy(stem, base, n);
        stem[n] = '\0';
    }
    return stem;
}

bool mcps_suite_parse(const char *name, const char *text, size_t len, mcps_suite *out, char *err,
                      size_t errlen)
{
    *out = (mcps_suite){.name = file_stem(name), .file = strdup(name)};
    loader ld = {.file = name,
                 .lr = {.text = text, .end = text + len, .pos = text},
                 .err = err,
                 .errlen = errlen,
                 .suite = out};
    bool ok = true, seen_suite = false;
    while (ok && next_line(&ld.lr)) {
        char *s = skip_space(ld.lr.line);
        strip_comment(s);
        if (!*s)
            continue;
        char *rest = split_word(s);
        if (strcmp(s, "case") == 0) {
            if (!seen_suite)
                ok = fail(&ld, ld.lr.lineno, "a suite file starts with 'suite NAME'");
            char case_name[128];
            snprintf(case_name, sizeof case_name, "%s", rest);
            while (ok && case_name[0]) {
                char next[128];
                ok = parse_case(&ld, case_name, next, sizeof next);
                memcpy(case_name, next, sizeof case_name);
            }
            break;
        }
        seen_suite |= strcmp(s, "suite") == 0;
        ok = parse_header(&ld, s, rest);
    }
    if (ok && !out->ncases)
        ok = fail(&ld, ld.lr.lineno ? ld.lr.lineno : 1, "no cases");
    if (ok && !out->title)
        ok = fail(&ld, 1, "suite has no title");
    free(ld.lr.line);
    if (!ok)
        mcps_suite_free(out);
    return ok;
}

bool mcps_suite_load_file(const char *path, mcps_suite *out, char *err, size_t errlen)
{
    mcps_buf b = {0};
    int why = mcps_file_read(&b, path, SUITE_MAX_BYTES);
    if (why) {
        snprintf(err, errlen, "%s: %s%s", path, why == EFBIG ? "" : "cannot open: ",
                 why == EFBIG ? "larger than 16 MiB" : strerror(why));
        mcps_buf_free(&b);
        return false;
    }
    bool ok = mcps_suite_parse(path, b.data ? b.data : "", b.len, out, err, errlen);
    mcps_buf_free(&b);
    return ok;
}

void mcps_suite_free(mcps_suite *s)
{
    for (size_t i = 0; i < s->ncases; i++)
        free_case(&s->cases[i]);
    free(s->cases);
    free(s->name);
    free(s->title);
    free(s->section);
    free(s->file);
    *s = (mcps_suite){0};
}

void mcps_suite_set_free(mcps_suite_set *set)
{
    for (size_t i = 0; i < set->nsuites; i++)
        mcps_suite_free(&set->suites[i]);
    free(set->suites);
    *set = (mcps_suite_set){0};
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool list_suite_files(const char *dir, char ***names, size_t *n, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: cannot open suites folder: %s", dir, strerror(errno));
        return false;
    }
    struct dirent *e;
    *names = NULL;
    *n = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 7 || strcmp(e->d_name + len - 6, ".suite") != 0)
            continue;
        char **grown = realloc(*names, (*n + 1) * sizeof **names);
        if (!grown)
            break;
        *names = grown;
        (*names)[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(*names, *n, sizeof **names, compare_names);
    return true;
}

static bool unique_ids(const mcps_suite_set *set, char *err, size_t errlen)
{
    for (size_t a = 0; a < set->nsuites; a++)
        for (size_t b = a + 1; b < set->nsuites; b++)
            if (strcmp(set->suites[a].name, set->suites[b].name) == 0) {
                snprintf(err, errlen, "%s: suite name '%s' also used by %s", set->suites[b].file,
                         set->suites[b].name, set->suites[a].file);
                return false;
            }
    return true;
}

bool mcps_suite_load_dir(const char *dir, mcps_suite_set *out, char *err, size_t errlen)
{
    char **names;
    size_t n;
    *out = (mcps_suite_set){0};
    if (!list_suite_files(dir, &names, &n, err, errlen))
        return false;
    bool ok = true;
    out->suites = calloc(n ? n : 1, sizeof *out->suites);
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (ok && out->suites) {
            ok = mcps_suite_load_file(path, &out->suites[out->nsuites], err, errlen);
            out->nsuites += ok;
        }
        free(names[i]);
    }
    free(names);
    if (!out->suites)
        ok = false;
    if (ok && !n) {
        snprintf(err, errlen, "%s: no .suite files", dir);
        ok = false;
    }
    ok = ok && unique_ids(out, err, errlen);
    if (!ok)
        mcps_suite_set_free(out);
    return ok;
}

/* ---- globs ------------------------------------------------------------------------------ */

static bool class_match(const char **pp, char c)
{
    const char *p = *pp + 1;
    bool negate = *p == '!' || *p == '^';
    if (negate)
        p++;
    bool hit = false;
    for (bool first = true; *p && (*p != ']' || first); first = false, p++) {
        if (p[1] == '-' && p[2] && p[2] != ']') {
            hit |= c >= p[0] && c <= p[2];
            p += 2;
        } else {
            hit |= c == *p;
        }
    }
    *pp = *p ? p : p - 1;
    return hit != negate;
}

bool mcps_glob_match(const char *pattern, const char *text)
{
    const char *star_p = NULL, *star_t = NULL;
    while (*text) {
        if (*pattern == '*') {
            star_p = ++pattern;
            star_t = text;
            continue;
        }
        const char *p = pattern;
        bool ok =
            *p == '?' || (*p == '[' && class_match(&p, *text)) || (*p && *p != '[' && *p == *text);
        if (ok) {
            pattern = p + 1;
            text++;
        } else if (star_p) {
            pattern = star_p;
            text = ++star_t;
        } else {
            return false;
        }
    }
    while (*pattern == '*')
        pattern++;
    return !*pattern;
}
