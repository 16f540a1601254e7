/*
 * write.c - write the report files into a directory, each one atomically.
 *
 * CI collects whatever is in the report directory, even after a cancelled
 * job, so a file must be either the old one or the new one, never half of
 * either: each is written to a temporary file in the same directory, synced,
 * and renamed over the final name.
 */
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct format_info {
    unsigned bit;
    const char *name; /* as --format spells it */
    const char *file;
    bool (*render)(const mcps_run_result *run, mcps_buf *out);
} format_info;

static const format_info formats_table[] = {
    {MCPS_REPORT_JSON, "json", "report.json", mcps_report_json},
    {MCPS_REPORT_JUNIT, "junit", "junit.xml", mcps_report_junit},
    {MCPS_REPORT_MARKDOWN, "markdown", "summary.md", mcps_report_markdown},
    {MCPS_REPORT_HTML, "html", "report.html", mcps_report_html},
    {MCPS_REPORT_SARIF, "sarif", "report.sarif", mcps_report_sarif},
};
#define NFORMATS (sizeof formats_table / sizeof *formats_table)

static const format_info *format_of(unsigned bit)
{
    for (size_t i = 0; i < NFORMATS; i++)
        if (formats_table[i].bit == bit)
            return &formats_table[i];
    return NULL;
}

const char *mcps_report_file_name(unsigned format)
{
    const format_info *f = format_of(format);
    return f ? f->file : NULL;
}

bool mcps_report_render(const mcps_run_result *run, unsigned format, mcps_buf *out)
{
    const format_info *f = format_of(format);
    return f && f->render(run, out);
}

static bool format_named(const char *name, size_t n, unsigned *bits)
{
    if (n == 3 && strncmp(name, "all", 3) == 0) {
        *bits |= MCPS_REPORT_ALL;
        return true;
    }
    for (size_t i = 0; i < NFORMATS; i++) {
        if (strlen(formats_table[i].name) == n && strncmp(name, formats_table[i].name, n) == 0) {
            *bits |= formats_table[i].bit;
            return true;
        }
    }
    return false;
}

bool mcps_report_parse_formats(const char *list, unsigned *out)
{
    unsigned bits = 0;
    while (list && *list) {
        size_t n = strcspn(list, ",");
        if (n && !format_named(list, n, &bits))
            return false;
        list += n + (list[n] == ',');
    }
    if (!bits)
        return false;
    *out = bits;
    return true;
}

/* ---- files --------------------------------------------------------------------- */

static bool fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return false;
}

static bool make_one_dir(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (mkdir(path, 0777) == 0 || (errno == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
        return true;
    return fail(err, errlen, "cannot create directory %s: %s", path,
                errno == EEXIST ? "a file is in the way" : strerror(errno));
}

/* mkdir -p. */
bool mcps_report_make_dirs(const char *dir, char *err, size_t errlen)
{
    char *path = strdup(dir);
    if (!path)
        return fail(err, errlen, "out of memory");
    bool ok = true;
    for (char *p = path + 1; ok && *p; p++) {
        if (*p != '/' || p[-1] == '/')
            continue;
        *p = '\0';
        ok = make_one_dir(path, err, errlen);
        *p = '/';
    }
    if (ok)
        ok = make_one_dir(path, err, errlen);
    free(path);
    return ok;
}

static bool write_all(int fd, const char *data, size_t len)
{
    while (len) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            errno = n < 0 ? errno : EIO;
            return false;
        }
        data += n;
        len -= (size_t)n;
    }
    return true;
}

/* Fill the temporary file and rename it into place; on failure remove it, errno kept. */
static bool fill_and_rename(int fd, const char *tmp, const char *final, const mcps_buf *data)
{
    bool ok = fchmod(fd, 0644) == 0 && write_all(fd, data->data ? data->data : "", data->len) &&
              fsync(fd) == 0;
    int saved = errno;
    if (close(fd) != 0 && ok)
        ok = false, saved = errno;
    if (ok && rename(tmp, final) != 0)
        ok = false, saved = errno;
    if (!ok) {
        unlink(tmp);
        errno = saved;
    }
    return ok;
}

static bool write_atomic(const char *dir, const char *name, const mcps_buf *data, char *err,
                         size_t errlen)
{
    mcps_buf tmp = {0}, final = {0};
    mcps_buf_printf(&tmp, "%s/.%s.XXXXXX", dir, name);
    mcps_buf_printf(&final, "%s/%s", dir, name);
    bool ok = false;
    int fd;
    if (tmp.oom || final.oom)
        fail(err, errlen, "out of memory");
    else if ((fd = mkstemp(tmp.data)) < 0)
        fail(err, errlen, "cannot create %s: %s", tmp.data, strerror(errno));
    else if (!(ok = fill_and_rename(fd, tmp.data, final.data, data)))
        fail(err, errlen, "cannot write %s: %s", final.data, strerror(errno));
    mcps_buf_free(&tmp);
    mcps_buf_free(&final);
    return ok;
}

/* Make the renames durable too; failure here loses nothing already written. */
static void sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

bool mcps_report_write(const mcps_run_result *run, const char *dir, unsigned formats, char *err,
                       size_t errlen)
{
    if (!dir || !*dir)
        return fail(err, errlen, "no report directory given");
    if (!formats)
        formats = MCPS_REPORT_ALL;
    if (!mcps_report_make_dirs(dir, err, errlen))
        return false;
    bool ok = true;
    for (size_t i = 0; ok && i < NFORMATS; i++) {
        if (!(formats & formats_table[i].bit))
            continue;
        mcps_buf data = {0};
        if (!formats_table[i].render(run, &data))
            ok = fail(err, errlen, "out of memory rendering %s", formats_table[i].file);
        else
            ok = write_atomic(dir, formats_table[i].file, &data, err, errlen);
        mcps_buf_free(&data);
    }
    sync_dir(dir);
    return ok;
}

bool mcps_report_write_file(const char *dir, const char *name, const mcps_buf *data, char *err,
                            size_t errlen)
{
    if (!mcps_report_make_dirs(dir, err, errlen) || !write_atomic(dir, name, data, err, errlen))
        return false;
    sync_dir(dir);
    return true;
}
