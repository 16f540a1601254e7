/*
 * mutate.c - the mutation operators. Values a cJSON tree cannot hold as
 * such (numbers beyond a double, invalid UTF-8, nesting deeper than is wise
 * to build) go in as raw nodes, printed as written.
 */
#include "live/mutate.h"

#include "codec/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NODES 256

static const char *const boundary_numbers[] = {
    "0",
    "-1",
    "-0",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967296",
    "9007199254740993",
    "-9007199254740993",
    "18446744073709551616",
    "1e308",
    "-1e308",
    "1e400",
    "1E-400",
    "0.1",
    "1.0",
    "3.14e-10",
};

static const char *const bad_strings[] = {
    "\"\xff\xfe\"",         /* bytes that are never UTF-8 */
    "\"a\xc0\xaf\"",        /* an overlong encoding */
    "\"\xed\xa0\x80\"",     /* a UTF-16 surrogate encoded as UTF-8 */
    "\"\\ud800\"",          /* a lone surrogate escape */
    "\"\\udc00\\ud800\"",   /* surrogates in the wrong order */
    "\"x\\u0000y\"",        /* an escaped NUL */
    "\"\xf4\x90\x80\x80\"", /* beyond U+10FFFF */
    "\"\x01\x1f\"",         /* raw control characters */
};

typedef struct node_ref {
    cJSON *parent, *node;
} node_ref;

/* Every node below root (at most MAX_NODES), depth first. */
static size_t collect(cJSON *root, node_ref *out, size_t n)
{
    cJSON *child;
    cJSON_ArrayForEach(child, root)
    {
        if (n >= MAX_NODES)
            return n;
        out[n++] = (node_ref){root, child};
        if (cJSON_IsArray(child) || cJSON_IsObject(child))
            n = collect(child, out, n);
    }
    return n;
}

static cJSON *long_string(mcps_live_rng *r)
{
    static const size_t sizes[] = {256, 1024, 1500, 4096, 16384, 70000};
    size_t len = sizes[mcps_live_rng_below(r, sizeof sizes / sizeof *sizes)];
    char *s = malloc(len + 1);
    if (!s)
        return cJSON_CreateString("");
    char fill = (char)('A' + mcps_live_rng_below(r, 26));
    memset(s, fill, len);
    s[len] = '\0';
    cJSON *v = cJSON_CreateString(s);
    free(s);
    return v;
}

static cJSON *deep_nesting(mcps_live_rng *r)
{
    size_t depth = 8 + mcps_live_rng_below(r, 120);
    bool objects = mcps_live_rng_chance(r, 1, 2);
    mcps_buf b = {0};
    for (size_t i = 0; i < depth; i++)
        mcps_buf_puts(&b, objects ? "{\"a\":" : "[");
    mcps_buf_puts(&b, "1");
    for (size_t i = 0; i < depth; i++)
        mcps_buf_putc(&b, objects ? '}' : ']');
    cJSON *v = cJSON_CreateRaw(b.data ? b.data : "1");
    mcps_buf_free(&b);
    return v;
}

static cJSON *huge_number(mcps_live_rng *r)
{
    size_t digits = mcps_live_rng_chance(r, 1, 2) ? 400 : 1200;
    char *s = malloc(digits + 1);
    if (!s)
        return cJSON_CreateNumber(0);
    for (size_t i = 0; i < digits; i++)
        s[i] = (char)('1' + mcps_live_rng_below(r, 9));
    s[digits] = '\0';
    cJSON *v = cJSON_CreateRaw(s);
    free(s);
    return v;
}

cJSON *mcps_live_random_value(mcps_live_rng *r)
{
    switch (mcps_live_rng_below(r, 9)) {
    case 0:
        return cJSON_CreateNull();
    case 1:
        return cJSON_CreateBool(mcps_live_rng_chance(r, 1, 2));
    case 2:
        return cJSON_CreateNumber((double)mcps_live_rng_below(r, 100));
    case 3:
        return cJSON_CreateRaw(boundary_numbers[mcps_live_rng_below(
            r, sizeof boundary_numbers / sizeof *boundary_numbers)]);
    case 4:
        return cJSON_CreateString("");
    case 5:
        return cJSON_CreateArray();
    case 6:
        return cJSON_CreateObject();
    case 7:
        return cJSON_CreateString("x");
    default:
        return cJSON_CreateRaw(
            bad_strings[mcps_live_rng_below(r, sizeof bad_strings / sizeof *bad_strings)]);
    }
}

/* A replacement for one node, by a random operator. */
static cJSON *replacement(mcps_live_rng *r)
{
    switch (mcps_live_rng_below(r, 6)) {
    case 0:
        return long_string(r);
    case 1:
        return deep_nesting(r);
    case 2:
        return mcps_live_rng_chance(r, 1, 8)
                   ? huge_number(r)
                   : cJSON_CreateRaw(boundary_numbers[mcps_live_rng_below(
                         r, sizeof boundary_numbers / sizeof *boundary_numbers)]);
    case 3:
        return cJSON_CreateRaw(
            bad_strings[mcps_live_rng_below(r, sizeof bad_strings / sizeof *bad_strings)]);
    default:
        return mcps_live_random_value(r);
    }
}

static void replace(cJSON *parent, cJSON *node, cJSON *with)
{
    if (node->string && cJSON_IsObject(parent)) {
        with->string = strdup(node->string);
        if (!with->string) {
            cJSON_Delete(with);
            return;
        }
    }
    cJSON_ReplaceItemViaPointer(parent, node, with);
}

/* Whether this node must stay as it is: the method and tool name of a consented call. */
static bool pinned(const cJSON *root, const node_ref *ref, bool call)
{
    if (!call)
        return false;
    if (ref->parent == root)
        return ref->node->string && strcmp(ref->node->string, "method") == 0;
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "params");
    return ref->parent == params && ref->node->string &&
           strcmp(ref->node->string, "arguments") != 0;
}

static void mutate_node(mcps_live_rng *r, cJSON *msg, bool call)
{
    node_ref refs[MAX_NODES];
    size_t n = collect(msg, refs, 0);
    if (!n)
        return;
    node_ref ref = refs[mcps_live_rng_below(r, n)];
    if (pinned(msg, &ref, call))
        return;
    if (cJSON_IsObject(ref.parent) && mcps_live_rng_chance(r, 1, 6)) {
        cJSON_Delete(cJSON_DetachItemViaPointer(ref.parent, ref.node));
        return;
    }
    replace(ref.parent, ref.node, replacement(r));
}

/* The id: null, a fraction, a huge integer, a non-scalar, a reused one, or none. */
static void id_game(mcps_live_rng *r, cJSON *msg)
{
    static const char *const ids[] = {"null", "1.5",    "-1",   "9007199254740993", "[]",
                                      "{}",   "true",   "\"\"", "\"live-ping-1\"",  "1e2",
                                      "0",    "\"f-1\""};
    cJSON_DeleteItemFromObjectCaseSensitive(msg, "id");
    if (mcps_live_rng_chance(r, 1, 6))
        return; /* a request without id: a notification with a request's method */
    cJSON_AddItemToObject(msg, "id",
                          cJSON_CreateRaw(ids[mcps_live_rng_below(r, sizeof ids / sizeof *ids)]));
}

static void params_shape(mcps_live_rng *r, cJSON *msg)
{
    static const char *const shapes[] = {"[]", "[1,2]", "\"x\"", "null", "1", "true", "{}"};
    cJSON_DeleteItemFromObjectCaseSensitive(msg, "params");
    if (mcps_live_rng_chance(r, 1, 4))
        return;
    cJSON_AddItemToObject(
        msg, "params",
        cJSON_CreateRaw(shapes[mcps_live_rng_below(r, sizeof shapes / sizeof *shapes)]));
}

static bool is_call(const cJSON *msg)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(msg, "method");
    return cJSON_IsString(m) && strcmp(m->valuestring, "tools/call") == 0;
}

void mcps_live_mutate_tree(mcps_live_rng *r, cJSON *msg)
{
    bool call = is_call(msg);
    size_t count = 1 + mcps_live_rng_below(r, 3);
    for (size_t i = 0; i < count; i++) {
        size_t op = mcps_live_rng_below(r, 10);
        if (op == 0 && cJSON_IsObject(msg))
            id_game(r, msg);
        else if (op == 1 && cJSON_IsObject(msg) && !call)
            params_shape(r, msg);
        else if (op == 2 && cJSON_IsObject(msg) && !call)
            cJSON_AddItemToObject(msg, "x-fuzz", mcps_live_random_value(r));
        else
            mutate_node(r, msg, call);
    }
}

/* A duplicate of the first member, with another value, ahead of it: {"id":0,"id":1,...}. */
static void duplicate_key(mcps_live_rng *r, mcps_buf *line)
{
    if (line->len < 2 || line->data[0] != '{' || line->data[1] != '"')
        return;
    const char *end = memchr(line->data + 2, '"', line->len - 2);
    if (!end)
        return;
    size_t keylen = (size_t)(end - line->data); /* the quoted key, from after the brace */
    mcps_buf out = {0};
    mcps_buf_putc(&out, '{');
    mcps_buf_append(&out, line->data + 1, keylen);
    cJSON *v = mcps_live_random_value(r);
    char *text = mcps_json_print(v, NULL);
    mcps_buf_printf(&out, ":%s,", text ? text : "null");
    free(text);
    cJSON_Delete(v);
    mcps_buf_append(&out, line->data + 1, line->len - 1);
    mcps_buf_free(line);
    *line = out;
}

void mcps_live_mutate_text(mcps_live_rng *r, mcps_buf *line)
{
    switch (mcps_live_rng_below(r, 4)) {
    case 0:
        duplicate_key(r, line);
        break;
    case 1: /* a line cut short: incomplete JSON */
        if (line->len > 1)
            line->len = 1 + mcps_live_rng_below(r, line->len - 1);
        break;
    case 2: /* a stray byte somewhere */
        if (line->len) {
            static const char bytes[] = {'\xff', '\0', '\r', '"', '\\', '}', ',', '\x80'};
            line->data[mcps_live_rng_below(r, line->len)] =
                bytes[mcps_live_rng_below(r, sizeof bytes)];
        }
        break;
    default: /* trailing garbage after a complete text */
        mcps_buf_puts(line, mcps_live_rng_chance(r, 1, 2) ? " {}" : "x");
        break;
    }
}
