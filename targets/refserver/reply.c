/*
 * reply.c - what handlers share: filling replies, reading params members,
 * and the opaque pagination cursors of the list methods.
 */
#include "server.h"

#include "codec/json.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void fail_v(rs_reply *r, int code, const char *fmt, va_list ap)
{
    if (r->code)
        return; /* keep the first error */
    if (r->result) {
        mcps_json_delete(r->result);
        r->result = NULL;
    }
    r->code = code;
    vsnprintf(r->message, sizeof r->message, fmt, ap);
}

void rs_fail(rs_reply *r, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(r, code, fmt, ap);
    va_end(ap);
}

void rs_fail_params(const rs_server *s, rs_reply *r, const char *fmt, ...)
{
    int code =
        rs_fault_on(s, RS_FAULT_INVALID_PARAMS_WRONG_CODE) ? RS_INTERNAL_ERROR : RS_INVALID_PARAMS;
    va_list ap;
    va_start(ap, fmt);
    fail_v(r, code, fmt, ap);
    va_end(ap);
}

void rs_ok(rs_reply *r, cJSON *result)
{
    if (!result) {
        rs_fail(r, RS_INTERNAL_ERROR, "Out of memory");
        return;
    }
    r->result = result;
}

static const cJSON *member(const cJSON *params, const char *key)
{
    return params ? cJSON_GetObjectItemCaseSensitive(params, key) : NULL;
}

/* Absent optional members give NULL with r untouched; anything else wrong fails r. */
const char *rs_param_string(const rs_server *s, const cJSON *params, const char *key, bool required,
                            rs_reply *r)
{
    const cJSON *v = member(params, key);
    if (cJSON_IsString(v))
        return v->valuestring;
    if (v || required)
        rs_fail_params(s, r, "Invalid params: \"%s\" must be a string", key);
    return NULL;
}

const cJSON *rs_param_object(const rs_server *s, const cJSON *params, const char *key,
                             bool required, rs_reply *r)
{
    const cJSON *v = member(params, key);
    if (cJSON_IsObject(v))
        return v;
    if (v || required)
        rs_fail_params(s, r, "Invalid params: \"%s\" must be an object", key);
    return NULL;
}

/* ---- cursors: "<kind><offset>-<check>", e.g. "t50-6b1e"; opaque to clients ---- */

static unsigned cursor_check(char kind, size_t offset)
{
    return (unsigned)((offset * 40503u + (unsigned char)kind * 977u) ^ 0x5a5au) & 0xffffu;
}

void rs_cursor_make(char *out, size_t n, char kind, size_t value)
{
    snprintf(out, n, "%c%zu-%04x", kind, value, cursor_check(kind, value));
}

/* Only the exact text rs_cursor_make wrote for this kind is accepted. */
bool rs_cursor_read(const char *cursor, char kind, size_t *value)
{
    char k, tail;
    unsigned long v;
    unsigned check;
    if (sscanf(cursor, "%c%lu-%4x%c", &k, &v, &check, &tail) != 3 || k != kind)
        return false;
    char canon[48];
    rs_cursor_make(canon, sizeof canon, kind, v);
    if (strcmp(canon, cursor) != 0)
        return false;
    *value = v;
    return true;
}

/*
 * Items per page: tools and resources are long lists; prompts and templates are short, so they
 * get small pages that still paginate, and every list's cursors can be walked and judged.
 */
size_t rs_page_size(char kind)
{
    return kind == 'p' ? 2 : kind == 'T' ? 1 : RS_PAGE_SIZE;
}

bool rs_page_start(const rs_server *s, const rs_req *req, rs_reply *r, char kind, size_t total,
                   size_t *start)
{
    *start = 0;
    const char *cursor = rs_param_string(s, req->params, "cursor", false, r);
    if (r->code)
        return false;
    if (!cursor)
        return true;
    size_t off, page = rs_page_size(kind);
    /* The cursor-loop fault hands out offset 0, which must then be accepted. */
    bool zero_ok = rs_fault_on(s, RS_FAULT_CURSOR_LOOP);
    if (!rs_cursor_read(cursor, kind, &off) || (off == 0 && !zero_ok) || off % page ||
        off > total) {
        if (rs_fault_on(s, RS_FAULT_CURSOR_UNCHECKED))
            return true; /* the first page again */
        rs_fail(r, RS_INVALID_PARAMS, "Invalid cursor");
        return false;
    }
    *start = off;
    return true;
}

/* The late-page-bad-items fault: the first item of every page but the first loses a required
 * member (a tool its inputSchema, a resource, template or prompt its name). */
static void break_late_page(const rs_server *s, cJSON *result, char kind, size_t start)
{
    if (start == 0 || !rs_fault_on(s, RS_FAULT_LATE_PAGE_BAD_ITEMS))
        return;
    cJSON *list = result->child;
    while (list && !cJSON_IsArray(list))
        list = list->next;
    if (list && list->child)
        cJSON_DeleteItemFromObjectCaseSensitive(list->child, kind == 't' ? "inputSchema" : "name");
}

void rs_page_next(const rs_server *s, cJSON *result, char kind, size_t start, size_t total)
{
    break_late_page(s, result, kind, start);
    size_t next = start + rs_page_size(kind);
    if (next >= total) {
        if (!rs_fault_on(s, RS_FAULT_CURSOR_LOOP))
            return;
        next = 0; /* back to the beginning: the walk never ends */
    }
    if (rs_fault_on(s, RS_FAULT_CURSOR_NUMBER)) {
        cJSON_AddNumberToObject(result, "nextCursor", (double)next);
        return;
    }
    char cursor[48];
    rs_cursor_make(cursor, sizeof cursor, kind, next);
    cJSON_AddStringToObject(result, "nextCursor", cursor);
}

cJSON *rs_text_content(const char *text)
{
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "type", "text");
    cJSON_AddStringToObject(c, "text", text);
    return c;
}
