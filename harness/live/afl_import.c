/*
 * afl_import.c - AFL's crashes and hangs as findings (afl_import.h). Files
 * are taken in name order (AFL numbers them id:000000, ...), so the same AFL
 * output gives the same findings.
 */
#include "live/afl_import.h"

#include "base/clock.h"
#include "base/file.h"
#include "live/exec.h"
#include "live/minimize.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INPUT_FILE ((size_t)1024 * 1024) /* AFL's own maximum input is 1 MiB */

/* Whether line is the initialize request or the initialized notification, or in 2026-07-28
 * the server/discover request a session file starts with. */
static bool is_prefix(const char *line, size_t len)
{
    cJSON *j = cJSON_ParseWithLength(line, len);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "method");
    bool yes = cJSON_IsString(m) && (strcmp(m->valuestring, "initialize") == 0 ||
                                     strcmp(m->valuestring, "notifications/initialized") == 0 ||
                                     strcmp(m->valuestring, "server/discover") == 0);
    cJSON_Delete(j);
    return yes;
}

void mcps_live_afl_split(const char *bytes, size_t len, mcps_live_seq *out)
{
    *out = (mcps_live_seq){0};
    bool leading = true;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(bytes + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (bytes + i)) : len - i;
        if (n && n < len && bytes[i + n - 1] == '\r')
            n--;
        if (n && !(leading && is_prefix(bytes + i, n))) {
            leading = false;
            mcps_live_seq_push(out, bytes + i, n);
        }
        i += (nl ? (size_t)(nl - (bytes + i)) + 1 : len - i);
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* AFL's "time:N" field of a saved input's name (ms since its start); -1 without. */
static double time_field(const char *name)
{
    const char *t = strstr(name, ",time:");
    return t ? strtod(t + 6, NULL) : -1;
}

static bool known(const mcps_live_afl_found *f, const char *signature)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->findings[i].reproduced && strcmp(f->findings[i].outcome.signature, signature) == 0)
            return true;
    return false;
}

/* A finding the live layer could not reproduce: AFL's word, kept with its inputs. */
static void not_reproduced(mcps_live_finding *f, const char *kind, const char *name)
{
    f->outcome = (mcps_live_outcome){.oracle = strcmp(kind, "hangs") == 0 ? MCPS_LIVE_HANG
                                                                          : MCPS_LIVE_CRASH};
    snprintf(f->outcome.evidence, sizeof f->outcome.evidence,
             "AFL saved %s/%.200s, which does not fail outside AFL", kind, name);
    snprintf(f->outcome.signature, sizeof f->outcome.signature, "afl-unreproduced %.150s", name);
    mcps_live_seq_free(&f->inputs);
}

/* Run the AFL file dir/name; a failure (or, for AFL's own crashes and hangs, an input that
 * does not fail here) becomes a finding. Returns whether it failed. */
static bool import_one(const mcps_live_options *o, const char *kind, const char *dir,
                       const char *name, const char *findings_dir, mcps_live_afl_found *found)
{
    char path[1400], err[300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    mcps_buf b = {0};
    if (mcps_file_read(&b, path, MAX_INPUT_FILE) != 0) {
        mcps_buf_free(&b);
        return false;
    }
    mcps_live_seq q;
    mcps_live_afl_split(b.data, b.len, &q);
    mcps_buf_free(&b);
    mcps_live_outcome out;
    bool ok = mcps_live_exec(&o->target, &q, &out, err, sizeof err);
    bool fails = ok && out.oracle != MCPS_LIVE_NONE;
    bool seed = strcmp(kind, "in") == 0;
    if ((seed && !fails) || (fails && known(found, out.signature)) ||
        found->n >= MCPS_LIVE_MAX_FINDINGS) {
        found->duplicates += !seed;
        mcps_live_seq_free(&q);
        return fails;
    }
    mcps_live_finding *f = &found->findings[found->n];
    *f = (mcps_live_finding){.seed = o->seed, .original = q.n};
    if (fails) {
        f->reproduced = mcps_live_minimize(&o->target, &q, &out, o->minimize_runs, found->until_ms,
                                           &f->inputs, &f->outcome);
    } else {
        not_reproduced(f, kind, name);
        f->inputs = q;
        q = (mcps_live_seq){0};
    }
    mcps_live_seq_free(&q);
    snprintf(f->name, sizeof f->name, "%s%s-%u", f->reproduced ? "" : "unreproduced-",
             mcps_live_oracle_name(f->outcome.oracle), ++found->per_oracle[f->outcome.oracle]);
    snprintf(found->sources[found->n], sizeof found->sources[0], "afl/%s%s/%s",
             seed ? "" : "out/default/", kind, name);
    mcps_live_finding_meta meta = {o->target.revision, o->command};
    if (!mcps_live_finding_write(f, findings_dir, &meta, err, sizeof err) && o->progress)
        fprintf(o->progress, "mcpspec fuzz: %s\n", err);
    found->n++;
    if (o->progress)
        fprintf(o->progress, "fuzz --afl: %s: %s (%zu inputs, from %zu) -> %s\n", f->name,
                f->outcome.evidence, f->inputs.n, f->original, f->path);
    return true;
}

/* The names in d that start with prefix (AFL's README.txt and the like left out), sorted;
 * d closed. */
static void collect(DIR *d, const char *prefix, char ***names, size_t *n)
{
    size_t cap = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            char **grown = realloc(*names, cap * sizeof **names);
            if (!grown)
                break;
            *names = grown;
        }
        (*names)[(*n)++] = strdup(e->d_name);
    }
    if (d)
        closedir(d);
    if (*n)
        qsort(*names, *n, sizeof **names, by_name);
}

static void import_dir(const mcps_live_options *o, const char *afl_out, const char *kind,
                       const char *findings_dir, mcps_live_afl_found *found)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/default/%s", afl_out, kind);
    char **names = NULL;
    size_t n = 0;
    collect(opendir(dir), "id:", &names, &n);
    for (size_t i = 0; i < n; i++) {
        double t = time_field(names[i]);
        if (t >= 0 && (found->first_ms < 0 || t < found->first_ms))
            found->first_ms = t;
        bool go = names[i] && !mcps_guard_stopped(o->target.transport.guard);
        if (go && found->until_ms && mcps_clock_ms() >= found->until_ms)
            found->skipped++;
        else if (go)
            import_one(o, kind, dir, names[i], findings_dir, found);
        free(names[i]);
    }
    free(names);
}

/* The seeds in name order: a seed that fails is a finding, and is taken out of the corpus
 * (afl-fuzz would stop at it, or skip it without a word). */
void mcps_live_afl_check_seeds(const mcps_live_options *o, const char *in_dir,
                               const char *findings_dir, mcps_live_afl_found *found)
{
    DIR *d = opendir(in_dir);
    char **names = NULL;
    size_t n = 0;
    collect(d, "seed-", &names, &n);
    for (size_t i = 0; i < n; i++) {
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", in_dir, names[i]);
        if (!mcps_guard_stopped(o->target.transport.guard) &&
            import_one(o, "in", in_dir, names[i], findings_dir, found)) {
            remove(path);
            found->from_seeds++;
        }
        free(names[i]);
    }
    free(names);
}

void mcps_live_afl_import(const mcps_live_options *o, const char *afl_out, const char *findings_dir,
                          mcps_live_afl_found *found)
{
    import_dir(o, afl_out, "crashes", findings_dir, found);
    import_dir(o, afl_out, "hangs", findings_dir, found);
}
