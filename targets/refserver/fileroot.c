/*
 * fileroot.c - file:///{+path} resources, confined to the --root directory.
 *
 * RES-010: the URI is percent-decoded exactly once; an encoded NUL, a query or
 * fragment, and any ".." segment are refused; the joined path is then
 * canonicalized with realpath() (resolving symlinks) and must still lie under
 * the canonical root. Anything refused reads as "not found", so probes learn
 * nothing about files outside the root.
 */
#include "server.h"

#include "codec/buf.h"
#include "codec/json.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RS_MAX_FILE ((size_t)8 * 1024 * 1024)

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decode %XX once; false on a malformed escape or an encoded NUL. */
static bool percent_decode(const char *in, mcps_buf *out)
{
    for (; *in; in++) {
        if (*in != '%') {
            mcps_buf_putc(out, *in);
            continue;
        }
        int hi = hex_value(in[1]), lo = hi < 0 ? -1 : hex_value(in[2]);
        if (lo < 0 || (hi == 0 && lo == 0))
            return false;
        mcps_buf_putc(out, (char)(hi * 16 + lo));
        in += 2;
    }
    return !out->oom;
}

/* Append the segments of path to out, dropping "" and "."; false on "..". */
static bool append_segments(char *path, mcps_buf *out)
{
    char *save = NULL;
    for (char *seg = strtok_r(path, "/", &save); seg; seg = strtok_r(NULL, "/", &save)) {
        if (strcmp(seg, ".") == 0)
            continue;
        if (strcmp(seg, "..") == 0)
            return false;
        mcps_buf_putc(out, '/');
        mcps_buf_puts(out, seg);
    }
    return !out->oom;
}

/* root + the URI's normalized path, or NULL when the URI is refused. */
static char *joined_path(const char *root, const char *uri)
{
    static const char prefix[] = "file:///";
    if (strncmp(uri, prefix, sizeof prefix - 1) != 0 || strpbrk(uri, "?#"))
        return NULL;
    mcps_buf decoded = {0}, joined = {0};
    char *result = NULL;
    if (percent_decode(uri + sizeof prefix - 1, &decoded) && decoded.data) {
        mcps_buf_puts(&joined, strcmp(root, "/") == 0 ? "" : root);
        size_t root_len = joined.len;
        if (append_segments(decoded.data, &joined) && joined.len > root_len)
            result = mcps_buf_take(&joined);
    }
    mcps_buf_free(&decoded);
    mcps_buf_free(&joined);
    return result;
}

static bool inside(const char *root, const char *path)
{
    size_t n = strlen(root);
    if (strcmp(root, "/") == 0)
        return path[0] == '/' && path[1] != '\0';
    return strncmp(path, root, n) == 0 && path[n] == '/';
}

/* The canonical path of a regular file under root, or NULL. */
static char *resolve(const char *root, const char *uri)
{
    char *joined = joined_path(root, uri);
    char *real = joined ? realpath(joined, NULL) : NULL;
    free(joined);
    struct stat st;
    if (real && (!inside(root, real) || stat(real, &st) != 0 || !S_ISREG(st.st_mode))) {
        free(real);
        real = NULL;
    }
    return real;
}

/* Read a whole regular file of at most RS_MAX_FILE bytes; O_NOFOLLOW closes the symlink race. */
static bool read_file(const char *path, mcps_buf *out, bool *too_large)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    char chunk[65536];
    ssize_t n;
    while (ok && (n = read(fd, chunk, sizeof chunk)) != 0) {
        if (n < 0 || out->len + (size_t)n > RS_MAX_FILE) {
            *too_large = n > 0;
            ok = false;
            break;
        }
        mcps_buf_append(out, chunk, (size_t)n);
    }
    close(fd);
    return ok && !out->oom;
}

static const char *mime_type(const char *path, bool text)
{
    static const char *const table[][2] = {
        {".txt", "text/plain"}, {".md", "text/markdown"}, {".json", "application/json"},
        {".csv", "text/csv"},   {".html", "text/html"},   {".png", "image/png"},
        {".gif", "image/gif"},  {".jpg", "image/jpeg"},   {".pdf", "application/pdf"},
    };
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && !strchr(dot, '/') && i < sizeof table / sizeof *table; i++)
        if (strcmp(dot, table[i][0]) == 0)
            return table[i][1];
    return text ? "text/plain" : "application/octet-stream";
}

static cJSON *file_item(const char *uri, const char *path, const mcps_buf *bytes)
{
    const char *data = bytes->data ? bytes->data : "";
    size_t bad;
    bool text = !memchr(data, '\0', bytes->len) && mcps_json_utf8_valid(data, bytes->len, &bad);
    char *b64 = text ? NULL : rs_base64((const unsigned char *)data, bytes->len);
    if (!text && !b64)
        return NULL;
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "uri", uri);
    cJSON_AddStringToObject(c, "mimeType", mime_type(path, text));
    cJSON_AddStringToObject(c, text ? "text" : "blob", text ? data : b64);
    free(b64);
    return c;
}

cJSON *rs_file_contents(const rs_server *s, const char *uri, rs_reply *r)
{
    char *path = s->root ? resolve(s->root, uri) : NULL;
    if (!path)
        return NULL;
    mcps_buf bytes = {0};
    bool too_large = false;
    cJSON *item = NULL;
    if (read_file(path, &bytes, &too_large))
        item = file_item(uri, path, &bytes);
    if (!item && too_large)
        rs_fail(r, RS_INTERNAL_ERROR, "Resource too large");
    else if (!item)
        rs_fail(r, RS_INTERNAL_ERROR, "Resource could not be read");
    mcps_buf_free(&bytes);
    free(path);
    return item;
}
