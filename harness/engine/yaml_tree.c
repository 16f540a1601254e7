/*
 * yaml_tree.c - a YAML document read into a cJSON tree with the line of
 * every node (yaml_tree.h). libyaml does the parsing; this file turns its
 * events into a tree and keeps the marks, so that a baseline written in YAML
 * gets the same errors, on the same kind of line, as one written in JSON.
 */
#include "engine/yaml_tree.h"

#include "base/array.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_DEPTH 64

typedef struct reader {
    yaml_parser_t parser;
    mcps_yaml_tree *tree;
    char *err;
    size_t errlen;
    size_t *err_line;
} reader;

static bool fail(reader *r, size_t line, const char *what)
{
    snprintf(r->err, r->errlen, "%s", what);
    *r->err_line = line;
    return false;
}

static size_t line_of_mark(const yaml_mark_t *m)
{
    return m->line + 1;
}

/* The next event; a syntax error is reported with libyaml's own words and mark. */
static bool next(reader *r, yaml_event_t *ev)
{
    if (yaml_parser_parse(&r->parser, ev))
        return true;
    char what[300];
    snprintf(what, sizeof what, "invalid YAML: %s%s%s",
             r->parser.problem ? r->parser.problem : "cannot parse", r->parser.context ? " " : "",
             r->parser.context ? r->parser.context : "");
    return fail(r, line_of_mark(&r->parser.problem_mark), what);
}

static bool remember(reader *r, const cJSON *node, size_t line)
{
    mcps_yaml_tree *t = r->tree;
    if (!mcps_array_reserve(&t->lines, &t->cap, t->nlines + 1, sizeof *t->lines, 64))
        return fail(r, 0, "out of memory");
    t->lines[t->nlines] = (mcps_yaml_line){node, line, t->nlines};
    t->nlines++;
    return true;
}

static bool is_number(const char *s)
{
    const char *p = s + (*s == '-');
    if (!(*p >= '0' && *p <= '9') || (*p == '0' && p[1] >= '0' && p[1] <= '9'))
        return false;
    while (*p >= '0' && *p <= '9')
        p++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            ;
    if (*p == 'e' || *p == 'E') {
        p += 1 + (p[1] == '+' || p[1] == '-');
        if (!(*p >= '0' && *p <= '9'))
            return false;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == '\0';
}

static cJSON *scalar(const yaml_event_t *ev)
{
    const char *v = (const char *)ev->data.scalar.value;
    if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return cJSON_CreateString(v);
    if (!*v || strcmp(v, "~") == 0 || strcmp(v, "null") == 0 || strcmp(v, "Null") == 0 ||
        strcmp(v, "NULL") == 0)
        return cJSON_CreateNull();
    if (strcmp(v, "true") == 0 || strcmp(v, "True") == 0 || strcmp(v, "TRUE") == 0)
        return cJSON_CreateTrue();
    if (strcmp(v, "false") == 0 || strcmp(v, "False") == 0 || strcmp(v, "FALSE") == 0)
        return cJSON_CreateFalse();
    if (is_number(v))
        return cJSON_CreateNumber(strtod(v, NULL));
    return cJSON_CreateString(v);
}

static bool node(reader *r, yaml_event_t *ev, int depth, cJSON **out);

/* The items of a sequence, up to its end. */
static bool sequence(reader *r, cJSON *arr, int depth)
{
    for (;;) {
        yaml_event_t ev;
        if (!next(r, &ev))
            return false;
        if (ev.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&ev);
            return true;
        }
        cJSON *item = NULL;
        bool ok = node(r, &ev, depth + 1, &item);
        if (item)
            cJSON_AddItemToArray(arr, item);
        if (!ok)
            return false;
    }
}

/* One member: its key (a scalar, not seen before in obj) and its value. */
static bool member(reader *r, yaml_event_t *key, cJSON *obj, int depth)
{
    size_t line = line_of_mark(&key->start_mark);
    if (key->type != YAML_SCALAR_EVENT) {
        yaml_event_delete(key);
        return fail(r, line, "a key must be a plain string");
    }
    char *name = strdup((const char *)key->data.scalar.value);
    yaml_event_delete(key);
    if (!name)
        return fail(r, line, "out of memory");
    if (cJSON_GetObjectItemCaseSensitive(obj, name)) {
        char what[200];
        snprintf(what, sizeof what, "the key \"%.80s\" is written twice", name);
        free(name);
        return fail(r, line, what);
    }
    yaml_event_t ev;
    cJSON *value = NULL;
    bool ok = next(r, &ev) && node(r, &ev, depth + 1, &value);
    if (value) {
        cJSON_AddItemToObject(obj, name, value);
        ok = remember(r, value, line) && ok; /* a member's line is its key's */
    }
    free(name);
    return ok;
}

static bool mapping(reader *r, cJSON *obj, int depth)
{
    for (;;) {
        yaml_event_t ev;
        if (!next(r, &ev))
            return false;
        if (ev.type == YAML_MAPPING_END_EVENT) {
            yaml_event_delete(&ev);
            return true;
        }
        if (!member(r, &ev, obj, depth))
            return false;
    }
}

/* The node ev starts (ev is consumed); *out is set to what was built, even on failure. */
static bool node(reader *r, yaml_event_t *ev, int depth, cJSON **out)
{
    size_t line = line_of_mark(&ev->start_mark);
    yaml_event_type_t type = ev->type;
    if (type == YAML_SCALAR_EVENT)
        *out = scalar(ev);
    else if (type == YAML_SEQUENCE_START_EVENT)
        *out = cJSON_CreateArray();
    else if (type == YAML_MAPPING_START_EVENT)
        *out = cJSON_CreateObject();
    yaml_event_delete(ev);
    if (type == YAML_ALIAS_EVENT)
        return fail(r, line, "aliases (*name) are not allowed");
    if (!*out)
        return fail(r, line,
                    type == YAML_SCALAR_EVENT || type == YAML_SEQUENCE_START_EVENT ||
                            type == YAML_MAPPING_START_EVENT
                        ? "out of memory"
                        : "a value was expected");
    if (depth > MAX_DEPTH)
        return fail(r, line, "nested too deeply");
    if (!remember(r, *out, line))
        return false;
    if (type == YAML_SEQUENCE_START_EVENT)
        return sequence(r, *out, depth);
    if (type == YAML_MAPPING_START_EVENT)
        return mapping(r, *out, depth);
    return true;
}

/* Expect an event of this type (stream and document marks), and nothing else. */
static bool expect(reader *r, yaml_event_type_t type, const char *what)
{
    yaml_event_t ev;
    if (!next(r, &ev))
        return false;
    bool ok = ev.type == type;
    size_t line = line_of_mark(&ev.start_mark);
    yaml_event_delete(&ev);
    return ok || fail(r, line, what);
}

static bool document(reader *r)
{
    yaml_event_t ev;
    if (!expect(r, YAML_STREAM_START_EVENT, "not a YAML stream") || !next(r, &ev))
        return false;
    if (ev.type == YAML_STREAM_END_EVENT) {
        yaml_event_delete(&ev);
        return fail(r, 1, "the file is empty");
    }
    bool started = ev.type == YAML_DOCUMENT_START_EVENT;
    yaml_event_delete(&ev);
    if (!started)
        return fail(r, 1, "not a YAML document");
    return next(r, &ev) && node(r, &ev, 0, &r->tree->root) &&
           expect(r, YAML_DOCUMENT_END_EVENT, "the document goes on after its value") &&
           expect(r, YAML_STREAM_END_EVENT, "one YAML document only (a second one follows)");
}

/* By node, and for one node in the order recorded: a member's key line comes after its value's. */
static int by_node(const void *a, const void *b)
{
    const mcps_yaml_line *x = a, *y = b;
    if (x->node != y->node)
        return (uintptr_t)x->node < (uintptr_t)y->node ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

bool mcps_yaml_parse(const char *text, size_t len, mcps_yaml_tree *out, size_t *err_line, char *err,
                     size_t errlen)
{
    *out = (mcps_yaml_tree){0};
    *err_line = 0;
    reader r = {.tree = out, .err = err, .errlen = errlen, .err_line = err_line};
    if (!yaml_parser_initialize(&r.parser))
        return fail(&r, 0, "out of memory");
    yaml_parser_set_input_string(&r.parser, (const unsigned char *)text, len);
    bool ok = document(&r);
    yaml_parser_delete(&r.parser);
    if (!ok)
        mcps_yaml_free(out);
    else if (out->nlines)
        qsort(out->lines, out->nlines, sizeof *out->lines, by_node);
    return ok;
}

size_t mcps_yaml_line_of(const mcps_yaml_tree *t, const cJSON *node)
{
    size_t lo = 0, hi = t->nlines; /* the first record past node's */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uintptr_t)t->lines[mid].node <= (uintptr_t)node)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo && t->lines[lo - 1].node == node ? t->lines[lo - 1].line : 0;
}

void mcps_yaml_free(mcps_yaml_tree *t)
{
    cJSON_Delete(t->root);
    free(t->lines);
    *t = (mcps_yaml_tree){0};
}
