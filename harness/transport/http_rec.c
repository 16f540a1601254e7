/*
 * http_rec.c - the HTTP transport's event queue and the pieces its
 * MCPS_TEV_HTTP records are made of (see http_int.h): JSON strings that stay
 * valid whatever bytes a server sends, and response headers kept bounded and
 * rendered with credentials redacted.
 */
#include "transport/http_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/utf8.h"

#define HDR_BYTES_MAX (16 * 1024) /* header bytes kept per response */

/* ---- event queue ---- */

bool mcps_http_evq_push(mcps_http_evq *q, mcps_tevent_kind kind, unsigned request, const char *data,
                        size_t len, const char *detail)
{
    mcps_http_ev *e = malloc(sizeof *e + len + 1);
    if (!e)
        return false;
    *e = (mcps_http_ev){.kind = kind, .request = request, .len = len};
    if (len)
        memcpy(e->data, data, len);
    e->data[len] = '\0';
    if (detail)
        snprintf(e->detail, sizeof e->detail, "%s", detail);
    if (q->tail)
        q->tail->next = e;
    else
        q->head = e;
    q->tail = e;
    q->bytes += mcps_http_ev_size(len);
    return true;
}

mcps_http_ev *mcps_http_evq_pop(mcps_http_evq *q)
{
    mcps_http_ev *e = q->head;
    if (!e)
        return NULL;
    q->head = e->next;
    if (!q->head)
        q->tail = NULL;
    q->bytes -= mcps_http_ev_size(e->len);
    e->next = NULL;
    return e;
}

void mcps_http_evq_free(mcps_http_evq *q)
{
    mcps_http_ev *e;
    while ((e = mcps_http_evq_pop(q)))
        free(e);
}

/* ---- JSON text ---- */

void mcps_http_json_str(mcps_buf *b, const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    mcps_buf_putc(b, '"');
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = mcps_utf8_decode(u + i, len - i, &cp, NULL);
        if (n == 0) {
            mcps_buf_puts(b, "\\ufffd");
            i++;
            continue;
        }
        if (cp == '"' || cp == '\\')
            mcps_buf_printf(b, "\\%c", (char)cp);
        else if (cp < 0x20 || cp == 0x7f)
            mcps_buf_printf(b, "\\u%04x", (unsigned)cp);
        else
            mcps_buf_append(b, s + i, n);
        i += n;
    }
    mcps_buf_putc(b, '"');
}

bool mcps_http_is_secret(const char *name, size_t len)
{
    static const char *const secret[] = {"authorization", "proxy-authorization", "cookie",
                                         "set-cookie", "x-api-key"};
    for (size_t i = 0; i < sizeof secret / sizeof *secret; i++)
        if (strlen(secret[i]) == len && strncasecmp(secret[i], name, len) == 0)
            return true;
    return false;
}

/* ---- response headers ---- */

static char *dup_range(const char *s, size_t n, bool lower)
{
    char *d = malloc(n + 1);
    if (!d)
        return NULL;
    for (size_t i = 0; i < n; i++)
        d[i] = lower ? (char)tolower((unsigned char)s[i]) : s[i];
    d[n] = '\0';
    return d;
}

static void trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t')) {
        (*s)++;
        (*n)--;
    }
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r' ||
                  (*s)[*n - 1] == '\n'))
        (*n)--;
}

static bool join_value(mcps_http_hdrs *h, size_t i, const char *v, size_t vlen)
{
    size_t old = strlen(h->value[i]);
    char *joined = realloc(h->value[i], old + 2 + vlen + 1);
    if (!joined)
        return false;
    memcpy(joined + old, ", ", 2);
    memcpy(joined + old + 2, v, vlen);
    joined[old + 2 + vlen] = '\0';
    h->value[i] = joined;
    return true;
}

void mcps_http_hdrs_add(mcps_http_hdrs *h, const char *line, size_t len)
{
    const char *colon = memchr(line, ':', len);
    if (!colon || colon == line || line[0] == ' ' || line[0] == '\t')
        return; /* a status line, the blank line, or an obsolete continuation */
    const char *name = line, *v = colon + 1;
    size_t nlen = (size_t)(colon - line), vlen = len - nlen - 1;
    trim(&name, &nlen);
    trim(&v, &vlen);
    if (h->bytes + nlen + vlen > HDR_BYTES_MAX) {
        h->dropped++;
        return;
    }
    for (size_t i = 0; i < h->count; i++)
        if (strlen(h->name[i]) == nlen && strncasecmp(h->name[i], name, nlen) == 0) {
            if (join_value(h, i, v, vlen))
                h->bytes += vlen + 2;
            else
                h->dropped++;
            return;
        }
    if (h->count == MCPS_HTTP_HDR_MAX) {
        h->dropped++;
        return;
    }
    char *n = dup_range(name, nlen, true), *val = dup_range(v, vlen, false);
    if (!n || !val) {
        free(n);
        free(val);
        h->dropped++;
        return;
    }
    h->name[h->count] = n;
    h->value[h->count++] = val;
    h->bytes += nlen + vlen;
}

const char *mcps_http_hdrs_get(const mcps_http_hdrs *h, const char *name)
{
    for (size_t i = 0; i < h->count; i++)
        if (strcmp(h->name[i], name) == 0)
            return h->value[i];
    return NULL;
}

void mcps_http_hdrs_render(const mcps_http_hdrs *h, mcps_buf *b)
{
    mcps_buf_puts(b, ",\"headers\":{");
    for (size_t i = 0; i < h->count; i++) {
        const char *v =
            mcps_http_is_secret(h->name[i], strlen(h->name[i])) ? "(redacted)" : h->value[i];
        if (i)
            mcps_buf_putc(b, ',');
        mcps_http_json_str(b, h->name[i], strlen(h->name[i]));
        mcps_buf_putc(b, ':');
        mcps_http_json_str(b, v, strlen(v));
    }
    mcps_buf_putc(b, '}');
    if (h->dropped)
        mcps_buf_printf(b, ",\"headers_dropped\":%zu", h->dropped);
}

void mcps_http_hdrs_reset(mcps_http_hdrs *h)
{
    for (size_t i = 0; i < h->count; i++) {
        free(h->name[i]);
        free(h->value[i]);
    }
    *h = (mcps_http_hdrs){0};
}
