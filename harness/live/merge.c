/*
 * merge.c - `mcpspec fuzz --merge DIR...` (merge.h): the findings of several
 * runs (the shards of one seed, fuzz/README.md "Sharding") as one report.
 * One finding is kept per revision and signature, the one of the lowest
 * (seed, sequence), so the merged set does not depend on which machine was
 * faster, the rule --jobs applies within a run. Kept findings are written
 * again from their files (read as replay reads them), named in (seed,
 * sequence) order as one run names them, and report.json and report.sarif
 * are written as a run's.
 */
#include "live/merge.h"

#include "base/file.h"
#include "live/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define REPORT_MAX ((size_t)64 * 1024 * 1024)

typedef struct candidate {
    const cJSON *f;                       /* a finding of a report */
    const char *dir, *revision, *command; /* its run's */
    double seed, sequence;
    size_t order; /* the run's place on the command line, then the finding's */
} candidate;

static const char *text_of(const cJSON *j, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double number_of(const cJSON *j, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static int by_time(const candidate *a, const candidate *b)
{
    if (a->seed != b->seed)
        return a->seed < b->seed ? -1 : 1;
    if (a->sequence != b->sequence)
        return a->sequence < b->sequence ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* Grouped by revision and signature, the earliest first in each group. */
static int by_key(const void *pa, const void *pb)
{
    const candidate *a = pa, *b = pb;
    int c = strcmp(a->revision, b->revision);
    if (!c)
        c = strcmp(text_of(a->f, "signature"), text_of(b->f, "signature"));
    return c ? c : by_time(a, b);
}

static int by_time_q(const void *pa, const void *pb)
{
    return by_time(pa, pb);
}

/* A finding file's name without its number ("unreproduced-crash" of "unreproduced-crash-2"). */
static void name_prefix(const char *name, char *out, size_t outlen)
{
    size_t n = strlen(name);
    while (n && name[n - 1] >= '0' && name[n - 1] <= '9')
        n--;
    if (n && name[n - 1] == '-')
        n--;
    snprintf(out, outlen, "%.*s", (int)n, n ? name : "finding");
}

/* The next name for prefix: prefix-1, prefix-2, ... (names holds those given so far). */
static void next_name(const char *prefix, char (*names)[64], size_t given, char *out, size_t outlen)
{
    unsigned n = 1;
    for (size_t i = 0; i < given; i++) {
        char p[64];
        name_prefix(names[i], p, sizeof p);
        n += strcmp(p, prefix) == 0;
    }
    snprintf(out, outlen, "%.48s-%u", prefix, n);
}

/* Rewrite candidate c as finding f in findings_dir; false with err. */
static bool rewrite(const candidate *c, mcps_live_finding *f, const char *name,
                    const char *findings_dir, char *err, size_t errlen)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", c->dir, text_of(c->f, "file"));
    mcps_live_finding_head head;
    *f = (mcps_live_finding){.seed = (uint64_t)c->seed,
                             .sequence = (uint64_t)c->sequence,
                             .original = (size_t)number_of(c->f, "minimized_from"),
                             .reproduced =
                                 cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c->f, "reproduced")),
                             .found_executions = (size_t)number_of(c->f, "found_after_executions"),
                             .found_seconds = number_of(c->f, "found_after_seconds")};
    if (!mcps_live_finding_read(path, &f->inputs, &head, err, errlen))
        return false;
    snprintf(f->name, sizeof f->name, "%s", name);
    f->outcome.oracle = head.oracle;
    snprintf(f->outcome.signature, sizeof f->outcome.signature, "%s", head.signature);
    snprintf(f->outcome.evidence, sizeof f->outcome.evidence, "%s", text_of(c->f, "evidence"));
    size_t n = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(c->f, "requirements"))
    {
        if (cJSON_IsString(r) && n < sizeof f->outcome.reqs)
            n += (size_t)snprintf(f->outcome.reqs + n, sizeof f->outcome.reqs - n, "%s%s",
                                  n ? " " : "", r->valuestring);
    }
    mcps_live_finding_meta meta = {c->revision, c->command};
    return mcps_live_finding_write(f, findings_dir, &meta, err, errlen);
}

/* Each run's report.json, parsed into reports (NULL where it cannot be read: err says). */
static bool read_reports(char *const *dirs, size_t n, cJSON **reports, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/report.json", dirs[i]);
        mcps_buf b = {0};
        reports[i] = mcps_file_read(&b, path, REPORT_MAX) == 0 ? cJSON_Parse(b.data) : NULL;
        mcps_buf_free(&b);
        if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(reports[i], "findings"))) {
            snprintf(err, errlen, "%.300s: not a report of mcpspec fuzz", path);
            return false;
        }
    }
    return true;
}

static size_t collect(char *const *dirs, size_t n, cJSON **reports, candidate *c, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const cJSON *f;
        cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(reports[i], "findings"))
        {
            if (k == cap)
                return k;
            c[k] = (candidate){f,
                               dirs[i],
                               text_of(reports[i], "revision"),
                               text_of(reports[i], "command"),
                               number_of(f, "seed"),
                               number_of(f, "sequence"),
                               k};
            k++;
        }
    }
    return k;
}

/* The first of each (revision, signature) group, moved to the front; their count. */
static size_t keep_earliest(candidate *c, size_t n)
{
    qsort(c, n, sizeof *c, by_key);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        bool first = i == 0 || strcmp(c[i].revision, c[i - 1].revision) != 0 ||
                     strcmp(text_of(c[i].f, "signature"), text_of(c[i - 1].f, "signature")) != 0;
        if (first)
            c[kept++] = c[i];
    }
    qsort(c, kept, sizeof *c, by_time_q);
    return kept < MCPS_LIVE_MAX_FINDINGS ? kept : MCPS_LIVE_MAX_FINDINGS;
}

static int merge(const mcps_live_merge_options *o, cJSON **reports, char *err, size_t errlen)
{
    size_t cap = 0;
    for (size_t i = 0; i < o->ndirs; i++)
        cap += (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(reports[i], "findings"));
    candidate *c = calloc(cap ? cap : 1, sizeof *c);
    mcps_live_finding *f = calloc(MCPS_LIVE_MAX_FINDINGS, sizeof *f);
    char(*names)[64] = calloc(MCPS_LIVE_MAX_FINDINGS, sizeof *names);
    char findings_dir[1200];
    snprintf(findings_dir, sizeof findings_dir, "%s/findings", o->out_dir);
    bool ok = c && f && names && (mkdir(o->out_dir, 0777) == 0 || errno == EEXIST) &&
              (mkdir(findings_dir, 0777) == 0 || errno == EEXIST);
    if (!ok)
        snprintf(err, errlen, "cannot create %.300s: %s", findings_dir, strerror(errno));
    size_t kept = ok ? keep_earliest(c, collect(o->dirs, o->ndirs, reports, c, cap)) : 0, n = 0;
    for (; ok && n < kept; n++) {
        char prefix[64];
        name_prefix(text_of(c[n].f, "name"), prefix, sizeof prefix);
        next_name(prefix, names, n, names[n], sizeof names[n]);
        ok = rewrite(&c[n], &f[n], names[n], findings_dir, err, errlen);
    }
    mcps_live_summary s = {.command = o->command,
                           .revision = o->ndirs ? text_of(reports[0], "revision") : "",
                           .error = ok ? NULL : err,
                           .seed = o->ndirs ? (uint64_t)number_of(reports[0], "seed") : 0,
                           .exit_code = !ok ? 3
                                        : n ? 1
                                            : 0,
                           .findings = f,
                           .nfindings = ok ? n : 0};
    for (size_t i = 0; i < o->ndirs; i++) {
        s.executions += (size_t)number_of(reports[i], "executions");
        s.sequences += (size_t)number_of(reports[i], "sequences");
        s.seconds += number_of(reports[i], "seconds"); /* machine-seconds: runs side by side */
    }
    char werr[300];
    if (!mcps_live_report_write(&s, o->out_dir, werr, sizeof werr) && ok) {
        snprintf(err, errlen, "%s", werr);
        s.exit_code = 3;
    }
    if (o->progress && s.exit_code != 3)
        fprintf(o->progress, "fuzz --merge: %zu findings of %zu in %zu runs -> %s\n", n, cap,
                o->ndirs, o->out_dir);
    for (size_t i = 0; f && i < MCPS_LIVE_MAX_FINDINGS; i++)
        mcps_live_seq_free(&f[i].inputs);
    free(c);
    free(f);
    free(names);
    return s.exit_code;
}

int mcps_live_merge(const mcps_live_merge_options *o, char *err, size_t errlen)
{
    cJSON **reports = calloc(o->ndirs ? o->ndirs : 1, sizeof *reports);
    int code = 3;
    if (!reports)
        snprintf(err, errlen, "out of memory");
    else if (read_reports(o->dirs, o->ndirs, reports, err, errlen))
        code = merge(o, reports, err, errlen);
    for (size_t i = 0; reports && i < o->ndirs; i++)
        cJSON_Delete(reports[i]);
    free(reports);
    return code;
}
