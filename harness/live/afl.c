/*
 * afl.c - `mcpspec fuzz --afl` (afl.h): discover, write seeds and the
 * dictionary, run afl-fuzz, import what it saved, and write the black-box
 * mode's report with AFL's figures added ("mode": "afl", its executions and
 * rate, the time to its first crash).
 */
#define _XOPEN_SOURCE 700 /* nftw, realpath */

#include "live/afl.h"

#include "base/clock.h"
#include "base/file.h"
#include "live/afl_import.h"
#include "live/afl_run.h"
#include "live/afl_seeds.h"
#include "live/dict.h"
#include "live/report.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MCPS_LIVE_AFL_IMPORT_SECONDS 60.0 /* to replay and minimize what AFL saved */

typedef struct afl_paths {
    char out[PATH_MAX], afl[PATH_MAX + 8], in[PATH_MAX + 16], dict[PATH_MAX + 16];
    char aout[PATH_MAX + 16], log[PATH_MAX + 24], findings[PATH_MAX + 16];
} afl_paths;

static bool make_dir(const char *path)
{
    return mkdir(path, 0777) == 0 || errno == EEXIST;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* Absolute paths (afl-fuzz runs in the target's cwd); a previous AFL output set aside. */
static bool prepare(const mcps_live_options *o, afl_paths *p, char *err, size_t errlen)
{
    if (!make_dir(o->out_dir) || !realpath(o->out_dir, p->out)) {
        snprintf(err, errlen, "cannot create %.300s: %s", o->out_dir, strerror(errno));
        return false;
    }
    snprintf(p->afl, sizeof p->afl, "%s/afl", p->out);
    snprintf(p->in, sizeof p->in, "%s/in", p->afl);
    snprintf(p->dict, sizeof p->dict, "%s/dict", p->afl);
    snprintf(p->aout, sizeof p->aout, "%s/out", p->afl);
    snprintf(p->log, sizeof p->log, "%s/afl-fuzz.log", p->afl);
    snprintf(p->findings, sizeof p->findings, "%s/findings", p->out);
    /* AFL refuses an output folder with a previous run in it; this run starts afresh. */
    nftw(p->aout, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    nftw(p->in, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (!make_dir(p->afl) || !make_dir(p->in) || !make_dir(p->findings)) {
        snprintf(err, errlen, "cannot create %.300s: %s", p->in, strerror(errno));
        return false;
    }
    return true;
}

/* The last line of AFL's log that says why it stopped ("PROGRAM ABORT", "Error"). */
static void log_reason(const char *log, char *out, size_t outlen)
{
    FILE *f = fopen(log, "r");
    char line[600];
    *out = '\0';
    while (f && fgets(line, sizeof line, f)) {
        char *why = strstr(line, "PROGRAM ABORT");
        if (!why)
            why = strstr(line, "Looks like");
        if (why) {
            why[strcspn(why, "\r\n\033")] = '\0';
            snprintf(out, outlen, "%s", why);
        }
    }
    if (f)
        fclose(f);
}

/* --afl-mutator: AFL_CUSTOM_MUTATOR_LIBRARY (absolute: afl-fuzz runs in the target's cwd), and
 * the mutator's tokens (MCPS_AFL_MUTATOR_DICT, fuzz/afl_json_mutator.c) from our dictionary and
 * --afl-dict's, unless the environment names its own. Strings into lib and dict; false with err. */
static bool mutator_env(const mcps_live_options *o, const afl_paths *p, char *lib, size_t liblen,
                        char *dict, size_t dictlen, char *err, size_t errlen)
{
    char path[PATH_MAX], extra[PATH_MAX];
    if (!realpath(o->afl_mutator, path)) {
        snprintf(err, errlen, "--afl-mutator %.300s: %s", o->afl_mutator, strerror(errno));
        return false;
    }
    snprintf(lib, liblen, "AFL_CUSTOM_MUTATOR_LIBRARY=%s", path);
    bool second = o->afl_dict && realpath(o->afl_dict, extra);
    if (getenv("MCPS_AFL_MUTATOR_DICT"))
        *dict = '\0';
    else
        snprintf(dict, dictlen, "MCPS_AFL_MUTATOR_DICT=%s%s%s", p->dict, second ? ":" : "",
                 second ? extra : "");
    return true;
}

static int run_afl(const mcps_live_options *o, const afl_paths *p, char *err, size_t errlen)
{
    /* --runs means nothing to AFL: without --time, the black-box mode's default time. */
    double seconds = o->seconds > 0 ? o->seconds : 60.0;
    char secs[32], seed[32];
    snprintf(secs, sizeof secs, "%.0f", seconds > 1 ? seconds : 1);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
    /* -p rare: energy to the entries that reach edges few others reach, which in session
     * fuzzing are the deep states (fuzz/README.md: the default schedule starved them). */
    const char *head[] = {"afl-fuzz", "-i", p->in, "-o", p->aout, "-x", p->dict,    "-p",
                          "rare",     "-V", secs,  "-s", seed,    "-x", o->afl_dict};
    /* The second -x only with a second dictionary. */
    size_t nh = sizeof head / sizeof *head - (o->afl_dict ? 0 : 2), nt = 0;
    char *const *target = o->afl_target ? o->afl_target : o->target.transport.argv;
    while (target[nt])
        nt++;
    char **argv = calloc(nh + nt + 2, sizeof *argv);
    if (!argv)
        return -1;
    memcpy(argv, head, nh * sizeof *argv);
    argv[nh++] = "--";
    memcpy(argv + nh, target, nt * sizeof *argv);
    char lib[PATH_MAX + 40] = "", dict[3 * PATH_MAX] = "";
    if (o->afl_mutator && !mutator_env(o, p, lib, sizeof lib, dict, sizeof dict, err, errlen)) {
        free(argv);
        return -1;
    }
    /* A CI box: no UI, no CPU governor or core-pattern demands, no core pinning; a seed that
     * crashes the target is left out rather than stopping AFL at start-up; the mutator, if
     * any (lib empty: none, and no dict either). Set in the child. */
    char *afl_env[] = {
        "AFL_NO_UI=1",       "AFL_SKIP_CPUFREQ=1",    "AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1",
        "AFL_NO_AFFINITY=1", "AFL_NO_UPDATE_CHECK=1", "AFL_SKIP_CRASHES=1",
        lib[0] ? lib : NULL, dict[0] ? dict : NULL,   NULL};
    /* afl-fuzz's start-up (calibration) comes on top of -V: give it a few seconds. */
    mcps_live_afl_child child = {o->target.transport.cwd, afl_env, o->target.transport.env_extra,
                                 p->log};
    int rc =
        mcps_live_afl_exec(argv, &child, o->target.transport.guard, seconds + 10.0, err, errlen);
    free(argv);
    if (rc > 0) {
        char why[400];
        log_reason(p->log, why, sizeof why);
        snprintf(err, errlen, "afl-fuzz failed (exit %d): %.300s (log: %.300s)", rc,
                 why[0] ? why : "see its log", p->log);
        rc = -1;
    }
    return rc;
}

/* report.json with AFL's figures and each finding's AFL file; report.sarif says the mode. */
static void add_afl_figures(const afl_paths *p, const mcps_live_afl_stats *st,
                            const mcps_live_afl_found *found)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/report.json", p->out);
    mcps_buf b = {0};
    cJSON *j = mcps_file_read(&b, path, 64u * 1024 * 1024) == 0 ? cJSON_Parse(b.data) : NULL;
    mcps_buf_free(&b);
    if (!j)
        return;
    cJSON_AddStringToObject(j, "mode", "afl");
    cJSON_AddNumberToObject(j, "execs_done", st->execs_done);
    cJSON_AddNumberToObject(j, "execs_per_sec", st->execs_per_sec);
    if (found->first_ms >= 0)
        cJSON_AddNumberToObject(j, "seconds_to_first_crash", found->first_ms / 1000.0);
    else
        cJSON_AddNullToObject(j, "seconds_to_first_crash");
    cJSON_AddNumberToObject(j, "afl_duplicates", (double)found->duplicates);
    cJSON_AddNumberToObject(j, "seed_findings", (double)found->from_seeds);
    cJSON_AddNumberToObject(j, "afl_not_imported", (double)found->skipped);
    cJSON *f;
    size_t i = 0;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(j, "findings"))
    {
        if (i < found->n)
            cJSON_AddStringToObject(f, "afl_input", found->sources[i++]);
    }
    char *text = cJSON_Print(j);
    char tmp[PATH_MAX + 40];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *out = text ? fopen(tmp, "wb") : NULL;
    bool ok = out && fputs(text, out) >= 0 && fputc('\n', out) != EOF;
    if (out && fclose(out) != 0)
        ok = false;
    if (!ok || rename(tmp, path) != 0)
        remove(tmp);
    free(text);
    cJSON_Delete(j);
}

static int report(const mcps_live_options *o, const afl_paths *p, const mcps_live_afl_found *found,
                  const char *error, int code)
{
    mcps_live_afl_stats st;
    char stats[PATH_MAX + 40];
    snprintf(stats, sizeof stats, "%s/default/fuzzer_stats", p->aout);
    mcps_live_afl_stats_read(stats, &st);
    mcps_live_summary s = {.command = o->command,
                           .revision = o->target.revision,
                           .error = error,
                           .seed = o->seed,
                           .executions = (size_t)st.execs_done,
                           .seconds = st.run_time,
                           .exit_code = code,
                           .findings = found->findings,
                           .nfindings = found->n};
    char err[400];
    if (!mcps_live_report_write(&s, p->out, err, sizeof err)) {
        fprintf(stderr, "mcpspec fuzz: %s\n", err);
        return 3;
    }
    add_afl_figures(p, &st, found);
    if (o->progress)
        fprintf(o->progress, "fuzz --afl: %.0f executions, %.0f exec/s, %zu findings%s\n",
                st.execs_done, st.execs_per_sec, found->n,
                found->skipped ? " (some AFL inputs not imported in time: afl_not_imported)" : "");
    return code;
}

static int fuzz_with_afl(const mcps_live_options *o, const afl_paths *p, mcps_live_afl_found *found,
                         char *err, size_t errlen)
{
    mcps_live_dict d;
    mcps_live_dict_init(&d);
    bool ok = mcps_live_dict_discover(&d, &o->target, err, errlen) &&
              mcps_live_afl_seeds(&d, o->target.revision, !o->afl_target, p->in, err, errlen) &&
              mcps_live_afl_dict(&d, p->dict, err, errlen);
    mcps_live_dict_free(&d);
    if (!ok)
        return 3;
    mcps_live_afl_check_seeds(o, p->in, p->findings, found);
    if (o->progress)
        fprintf(o->progress, "fuzz --afl: afl-fuzz for %.0f s (log: %s)\n",
                o->seconds > 0 ? o->seconds : 60.0, p->log);
    if (run_afl(o, p, err, errlen) < 0)
        return 3;
    /* Each AFL input costs a fresh process or more (a hang, its deadline): bounded too. */
    found->until_ms = mcps_clock_deadline(MCPS_LIVE_AFL_IMPORT_SECONDS);
    mcps_live_afl_import(o, p->aout, p->findings, found);
    return found->n ? 1 : 0;
}

int mcps_live_afl(const mcps_live_options *o)
{
    char err[700] = "";
    if (!mcps_live_afl_available()) {
        fprintf(stderr, "mcpspec fuzz: --afl needs afl-fuzz on PATH (Debian: apt-get install "
                        "afl++), and a target built with afl-clang-fast (scripts/afl-build)\n");
        return 3;
    }
    afl_paths *p = calloc(1, sizeof *p);
    mcps_live_afl_found *found = calloc(1, sizeof *found);
    int code = 3;
    if (p && found) {
        found->first_ms = -1;
        if (prepare(o, p, err, sizeof err)) {
            code = fuzz_with_afl(o, p, found, err, sizeof err);
            if (code == 3)
                fprintf(stderr, "mcpspec fuzz: %s\n", err);
            code = report(o, p, found, code == 3 ? err : NULL, code);
        } else {
            fprintf(stderr, "mcpspec fuzz: %s\n", err);
        }
        for (size_t i = 0; i < found->n; i++)
            mcps_live_seq_free(&found->findings[i].inputs);
    }
    free(p);
    free(found);
    return code;
}
