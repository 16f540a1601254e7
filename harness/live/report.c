/*
 * report.c - report.json and report.sarif of a fuzz run, each written to a
 * temporary name and renamed, so a reader never sees half a file.
 */
#include "live/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cJSON *reqs_array(const char *reqs)
{
    cJSON *a = cJSON_CreateArray();
    char word[40];
    for (const char *p = reqs; *p;) {
        size_t n = strcspn(p, " ");
        if (n && n < sizeof word) {
            memcpy(word, p, n);
            word[n] = '\0';
            cJSON_AddItemToArray(a, cJSON_CreateString(word));
        }
        p += n;
        p += strspn(p, " ");
    }
    return a;
}

/* A finding's file relative to the report's folder. */
static const char *relative(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && path[n] == '/' ? path + n + 1 : path;
}

static cJSON *finding_json(const mcps_live_finding *f, const char *dir)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "name", f->name);
    cJSON_AddStringToObject(j, "oracle", mcps_live_oracle_name(f->outcome.oracle));
    cJSON_AddStringToObject(j, "evidence", f->outcome.evidence);
    cJSON_AddStringToObject(j, "signature", f->outcome.signature);
    cJSON_AddItemToObject(j, "requirements", reqs_array(f->outcome.reqs));
    cJSON_AddStringToObject(j, "file", relative(f->path, dir));
    cJSON_AddNumberToObject(j, "seed", (double)f->seed);
    cJSON_AddNumberToObject(j, "sequence", (double)f->sequence);
    cJSON_AddNumberToObject(j, "inputs", (double)f->inputs.n);
    if (f->history_inputs) /* its file holds its sequence alone (finding.h) */
        cJSON_AddNumberToObject(j, "history_inputs", (double)f->history_inputs);
    cJSON_AddNumberToObject(j, "minimized_from", (double)f->original);
    cJSON_AddBoolToObject(j, "reproduced", f->reproduced);
    if (f->found_executions) {
        cJSON_AddNumberToObject(j, "found_after_executions", (double)f->found_executions);
        cJSON_AddNumberToObject(j, "found_after_seconds", f->found_seconds);
    }
    return j;
}

/* The largest growth the run saw beside the thresholds: for a clean target, how far below. */
static void growth_json(cJSON *j, const mcps_live_growth *g)
{
    cJSON *o = cJSON_AddObjectToObject(j, "growth");
    cJSON_AddNumberToObject(o, "samples", (double)g->samples);
    cJSON_AddNumberToObject(o, "max_rss_kib", (double)g->peak_rss_kib);
    cJSON_AddNumberToObject(o, "max_fds", (double)g->peak_fds);
    /* The least of it: a target of more than 8 MiB has half its baseline as its threshold. */
    cJSON_AddNumberToObject(o, "threshold_rss_kib", MCPS_LIVE_GROWTH_RSS_KIB);
    cJSON_AddNumberToObject(o, "threshold_fds", MCPS_LIVE_GROWTH_FDS);
}

static cJSON *report_json(const mcps_live_summary *s, const char *dir)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "tool", "mcpspec fuzz");
    cJSON_AddStringToObject(j, "version", MCPS_VERSION);
    cJSON_AddStringToObject(j, "command", s->command);
    cJSON_AddStringToObject(j, "revision", s->revision);
    cJSON_AddNumberToObject(j, "seed", (double)s->seed);
    if (s->shards) { /* as --shard takes it: I of N, from 1; its sequences are I - 1 mod N */
        cJSON *sh = cJSON_AddObjectToObject(j, "shard");
        cJSON_AddNumberToObject(sh, "index", (double)s->shard + 1);
        cJSON_AddNumberToObject(sh, "count", (double)s->shards);
    }
    cJSON_AddNumberToObject(j, "executions", (double)s->executions);
    cJSON_AddNumberToObject(j, "sequences", (double)s->sequences);
    cJSON_AddNumberToObject(j, "seconds", s->seconds);
    cJSON_AddNumberToObject(j, "minimize_seconds", s->minimize_seconds);
    cJSON_AddNumberToObject(j, "discover_seconds", s->discover_seconds);
    cJSON_AddNumberToObject(j, "exec_per_second",
                            s->seconds > 0 ? (double)s->executions / s->seconds : 0);
    /* The fuzzing rate proper: minimizing runs fresh processes, and only finds cost it, and
     * discovery is once a run (server-everything's lists took 5 to 10 s of a 30 s run). With
     * several jobs, minimize_seconds is job-seconds: the wall time it took is about a share. */
    size_t jobs = s->jobs ? s->jobs : 1;
    cJSON_AddNumberToObject(j, "jobs", (double)jobs);
    double fuzzing = s->seconds - s->discover_seconds - s->minimize_seconds / (double)jobs;
    cJSON_AddNumberToObject(j, "fuzz_exec_per_second",
                            fuzzing > 0 ? (double)s->executions / fuzzing : 0);
    /* What mcpspec's own work costs, apart from the target's (scripts/bench-fuzz-live). */
    cJSON_AddNumberToObject(j, "cpu_seconds", s->cpu_seconds);
    cJSON_AddNumberToObject(j, "cpu_us_per_execution",
                            s->executions ? s->cpu_seconds * 1e6 / (double)s->executions : 0);
    cJSON_AddNumberToObject(j, "exit_code", s->exit_code);
    if (s->error)
        cJSON_AddStringToObject(j, "error", s->error);
    if (s->growth)
        growth_json(j, s->growth);
    cJSON *list = cJSON_AddArrayToObject(j, "findings");
    for (size_t i = 0; i < s->nfindings; i++)
        cJSON_AddItemToArray(list, finding_json(&s->findings[i], dir));
    return j;
}

static cJSON *sarif_result(const mcps_live_finding *f, const char *dir)
{
    cJSON *r = cJSON_CreateObject();
    char rule[48];
    snprintf(rule, sizeof rule, "fuzz/%s", mcps_live_oracle_name(f->outcome.oracle));
    cJSON_AddStringToObject(r, "ruleId", rule);
    cJSON_AddStringToObject(r, "level", "error");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "message"), "text", f->outcome.evidence);
    cJSON *loc = cJSON_CreateObject();
    cJSON *art = cJSON_AddObjectToObject(cJSON_AddObjectToObject(loc, "physicalLocation"),
                                         "artifactLocation");
    cJSON_AddStringToObject(art, "uri", relative(f->path, dir));
    cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "locations"), loc);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "partialFingerprints"), "mcpspecFuzz/v1",
                            f->outcome.signature);
    return r;
}

static cJSON *report_sarif(const mcps_live_summary *s, const char *dir)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
    cJSON_AddStringToObject(j, "version", "2.1.0");
    cJSON *run = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(j, "runs"), run);
    cJSON *driver = cJSON_AddObjectToObject(cJSON_AddObjectToObject(run, "tool"), "driver");
    cJSON_AddStringToObject(driver, "name", "mcpspec fuzz");
    cJSON_AddStringToObject(driver, "version", MCPS_VERSION);
    cJSON *rules = cJSON_AddArrayToObject(driver, "rules");
    for (int o = MCPS_LIVE_CRASH; o < MCPS_LIVE_ORACLES; o++) {
        cJSON *rule = cJSON_CreateObject();
        char id[48];
        snprintf(id, sizeof id, "fuzz/%s", mcps_live_oracle_name((mcps_live_oracle)o));
        cJSON_AddStringToObject(rule, "id", id);
        cJSON_AddItemToArray(rules, rule);
    }
    cJSON *results = cJSON_AddArrayToObject(run, "results");
    for (size_t i = 0; i < s->nfindings; i++)
        cJSON_AddItemToArray(results, sarif_result(&s->findings[i], dir));
    return j;
}

static bool write_atomic(const char *dir, const char *name, cJSON *doc, char *err, size_t errlen)
{
    char path[1200], tmp[1210];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    char *text = cJSON_Print(doc);
    FILE *f = text ? fopen(tmp, "wb") : NULL;
    bool ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f && fclose(f) != 0)
        ok = false;
    if (ok && rename(tmp, path) != 0)
        ok = false;
    if (!ok) {
        snprintf(err, errlen, "%s: %s", path, text ? strerror(errno) : "out of memory");
        remove(tmp);
    }
    free(text);
    return ok;
}

bool mcps_live_report_write(const mcps_live_summary *s, const char *dir, char *err, size_t errlen)
{
    cJSON *json = report_json(s, dir), *sarif = report_sarif(s, dir);
    bool ok = write_atomic(dir, "report.json", json, err, errlen) &&
              write_atomic(dir, "report.sarif", sarif, err, errlen);
    cJSON_Delete(json);
    cJSON_Delete(sarif);
    return ok;
}
