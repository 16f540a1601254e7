/*
 * fileroot.c - file:///{+path} resources, confined to the --root directory.
 *
 * RES-010: the URI is percent-decoded exactly once; an encoded NUL, a query or
 * fragment, and any ".." segment are refused; the joined path is then
 * canonicalized with realpath() (resolving symlinks) and must still lie under
 * the canonical root. Anything refused reads as "not found", so probes learn
 * nothing about files outside the root. It also lists the files below the
 * root and finds the files the read tool may open.
 */
#include "server.h"

#include "base/buf.h"
#include "base/hex.h"
#include "codec/json.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RS_MAX_FILE ((size_t)8 * 1024 * 1024)

/* Decode %XX once; false on a malformed escape or an encoded NUL. */
static bool percent_decode(const char *in, mcps_buf *out)
{
    for (; *in; in++) {
        if (*in != '%') {
            mcps_buf_putc(out, *in);
            continue;
        }
        int v = mcps_hex_byte(in + 1);
        if (v <= 0) /* malformed, or an encoded NUL */
            return false;
        mcps_buf_putc(out, (char)v);
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

/* "/a/b/../c" -> "/a/c" in place, with nothing above "/": the resource-traversal fault. */
static char *fold_dotdot(char *path)
{
    size_t out = 0;
    for (char *seg = path; *seg;) {
        while (*seg == '/')
            seg++;
        size_t n = strcspn(seg, "/");
        if (n == 2 && seg[0] == '.' && seg[1] == '.') {
            while (out > 0 && path[--out] != '/')
                ;
        } else if (n && !(n == 1 && seg[0] == '.')) {
            path[out++] = '/';
            memmove(path + out, seg, n);
            out += n;
        }
        seg += n;
    }
    path[out ? out : 1] = '\0';
    if (!out)
        path[0] = '/';
    return path;
}

/* root + the URI's normalized path, or NULL when the URI is refused. */
static char *joined_path(const char *root, const char *uri, bool rs_traversal_fault)
{
    static const char prefix[] = "file:///";
    if (strncmp(uri, prefix, sizeof prefix - 1) != 0 || strpbrk(uri, "?#"))
        return NULL;
    mcps_buf decoded = {0}, joined = {0};
    char *result = NULL;
    if (percent_decode(uri + sizeof prefix - 1, &decoded) && decoded.data) {
        if (rs_traversal_fault) {
            /* resource-traversal fault: join, then fold ".." lexically, as path.join() does */
            mcps_buf_puts(&joined, root);
            mcps_buf_putc(&joined, '/');
            mcps_buf_puts(&joined, decoded.data);
            result = joined.oom ? NULL : fold_dotdot(mcps_buf_take(&joined));
            mcps_buf_free(&decoded);
            return result;
        }
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
static char *resolve(const rs_server *s, const char *uri)
{
    bool fault = rs_fault_on(s, RS_FAULT_RESOURCE_TRAVERSAL);
    char *joined = joined_path(s->root, uri, fault);
    char *real = joined ? realpath(joined, NULL) : NULL;
    free(joined);
    struct stat st;
    if (real &&
        ((!fault && !inside(s->root, real)) || stat(real, &st) != 0 || !S_ISREG(st.st_mode))) {
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
    char *path = s->root ? resolve(s, uri) : NULL;
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

/* ---- listing and the read tool ---- */

static void collect(const char *dir, const char *rel, int depth, char **out, size_t max, size_t *n)
{
    struct dirent **names;
    int count = scandir(dir, &names, NULL, alphasort);
    for (int i = 0; i < count; i++) {
        const char *name = names[i]->d_name;
        mcps_buf path = {0}, sub = {0};
        mcps_buf_printf(&path, "%s/%s", dir, name);
        mcps_buf_printf(&sub, "%s%s%s", rel, *rel ? "/" : "", name);
        struct stat st;
        bool ok = name[0] != '.' && !path.oom && !sub.oom && lstat(path.data, &st) == 0;
        if (ok && S_ISREG(st.st_mode) && *n < max && !strpbrk(sub.data, "%?# \\"))
            out[(*n)++] = mcps_buf_take(&sub);
        else if (ok && S_ISDIR(st.st_mode) && depth > 0)
            collect(path.data, sub.data, depth - 1, out, max, n);
        mcps_buf_free(&path);
        mcps_buf_free(&sub);
        free(names[i]);
    }
    free(names);
}

size_t rs_root_files(const rs_server *s, char **out, size_t max)
{
    size_t n = 0;
    if (s->root)
        collect(s->root, "", 2, out, max, &n);
    return n;
}

/*
 * The read tool's path: relative to the working directory or absolute, canonicalized with
 * realpath() (symlinks resolved) and kept only when it is a regular file under the root. No
 * decoding of any kind: a path is not a URI. The tool-traversal fault skips the root check.
 */
char *rs_tool_path(const rs_server *s, const char *path)
{
    if (!s->root || !*path)
        return NULL;
    char *real = realpath(path, NULL);
    struct stat st;
    if (real && ((!rs_fault_on(s, RS_FAULT_TOOL_TRAVERSAL) && !inside(s->root, real)) ||
                 stat(real, &st) != 0 || !S_ISREG(st.st_mode))) {
        free(real);
        real = NULL;
    }
    return real;
}

/* The text of a file found by rs_tool_path, or NULL when it is unreadable or not UTF-8. */
char *rs_tool_read(const char *path)
{
    mcps_buf bytes = {0};
    bool too_large = false, ok = read_file(path, &bytes, &too_large);
    size_t bad;
    if (ok && (memchr(bytes.data ? bytes.data : "", '\0', bytes.len) ||
               !mcps_json_utf8_valid(bytes.data ? bytes.data : "", bytes.len, &bad)))
        ok = false;
    if (!ok) {
        mcps_buf_free(&bytes);
        return NULL;
    }
    mcps_buf_putc(&bytes, '\0');
    return mcps_buf_take(&bytes);
}
