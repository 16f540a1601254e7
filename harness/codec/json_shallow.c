/*
 * json_shallow.c - the short top-level members of a long JSON object, without
 * building the rest: what the session needs to track the id of a robustness
 * probe that is 100000 levels deep or has 100000 members (see json.h). The
 * scan only skips values (string-aware, bracket-counting); every member it
 * keeps is parsed by the strict parser.
 */
#include "codec/json.h"

#include <string.h>

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static size_t skip_space(const char *p, size_t len, size_t i)
{
    while (i < len && is_space(p[i]))
        i++;
    return i;
}

/* The index of the quote that ends the string whose body starts at p[i] (one not escaped: after
 * an even run of backslashes), or len. memchr, because the strings here are the long ones. */
static size_t string_end(const char *p, size_t len, size_t i)
{
    size_t body = i;
    for (const char *q; i < len && (q = memchr(p + i, '"', len - i)) != NULL; i++) {
        i = (size_t)(q - p);
        size_t run = 0;
        while (i - run > body && p[i - run - 1] == '\\')
            run++;
        if (run % 2 == 0)
            return i;
    }
    return len;
}

/* The end of the JSON value starting at p[i], string-aware, without building it. */
static size_t skip_value(const char *p, size_t len, size_t i)
{
    size_t depth = 0;
    for (; i < len; i++) {
        char c = p[i];
        if (c == '"') {
            i = string_end(p, len, i + 1);
            if (depth == 0)
                return i < len ? i + 1 : len;
        } else if (c == '[' || c == '{') {
            depth++;
        } else if (c == ']' || c == '}') {
            if (depth == 0)
                return i; /* the end of the enclosing object */
            if (--depth == 0)
                return i + 1;
        } else if (depth == 0 && (c == ',' || is_space(c))) {
            return i;
        }
    }
    return len;
}

cJSON *mcps_json_parse_shallow(const char *p, size_t len, size_t max_member)
{
    size_t i = skip_space(p, len, 0);
    if (i >= len || p[i] != '{')
        return NULL;
    cJSON *obj = cJSON_CreateObject();
    for (i = skip_space(p, len, i + 1); obj && i < len && p[i] == '"';) {
        size_t k = i;
        i = skip_value(p, len, i);
        cJSON *key = mcps_json_parse_simple(p + k, i - k);
        i = skip_space(p, len, i);
        size_t v = i < len && p[i] == ':' ? skip_space(p, len, i + 1) : len;
        i = skip_value(p, len, v);
        cJSON *value =
            key && v < len && i - v <= max_member ? mcps_json_parse_simple(p + v, i - v) : NULL;
        if (value)
            cJSON_AddItemToObject(obj, key->valuestring, value);
        mcps_json_delete(key);
        i = skip_space(p, len, i);
        i = i < len && p[i] == ',' ? skip_space(p, len, i + 1) : len;
    }
    return obj;
}
