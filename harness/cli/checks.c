/*
 * checks.c - every check as one JSON record: its requirements, revisions,
 * where it is written and the faults that prove it.
 *
 * `mcpspec list --json` prints these records and `mcpspec explain` reads
 * them, so what a check is and what proves it has one source: the suite case
 * (with its proven-by lines), or for the built-in checks the observer rule
 * table and suites/builtin.proofs.
 */
#include "cli/cli.h"
#include "engine/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static cJSON *id_array(const char *ids)
{
    cJSON *a = cJSON_CreateArray();
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", ids ? ids : "");
    for (char *id = strtok(copy, " ,"); a && id; id = strtok(NULL, " ,"))
        cJSON_AddItemToArray(a, cJSON_CreateString(id));
    return a;
}

cJSON *mcps_cli_rev_array(mcps_rev_set revs)
{
    cJSON *a = cJSON_CreateArray();
    for (int r = 0; a && r < MCPS_REV_COUNT; r++)
        if (mcps_rev_set_has(revs, (mcps_rev)r))
            cJSON_AddItemToArray(a, cJSON_CreateString(mcps_rev_name((mcps_rev)r)));
    return a;
}

const char *mcps_cli_shown_path(const char *path)
{
    char cwd[4096];
    if (!path || !getcwd(cwd, sizeof cwd))
        return path ? path : "";
    size_t n = strlen(cwd);
    return strncmp(path, cwd, n) == 0 && path[n] == '/' ? path + n + 1 : path;
}

/* A proof with its suites resolved: none written means the check's own suite. */
static cJSON *proof_json(const mcps_proof *p, const char *check_suite, const char *file)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "fault", p->fault);
    cJSON_AddStringToObject(o, "verdict", mcps_verdict_name(p->verdict));
    cJSON *suites = cJSON_AddArrayToObject(o, "suites");
    for (size_t i = 0; i < p->nsuites; i++)
        cJSON_AddItemToArray(suites, cJSON_CreateString(p->suites[i]));
    if (!p->nsuites)
        cJSON_AddItemToArray(suites, cJSON_CreateString(check_suite));
    cJSON_AddStringToObject(o, "file", mcps_cli_shown_path(file));
    cJSON_AddNumberToObject(o, "line", (double)p->line);
    return o;
}

static cJSON *record(const char *id, const char *kind, const char *suite, const char *title,
                     const char *reqs, mcps_rev_set revs)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", id);
    cJSON_AddStringToObject(o, "kind", kind);
    cJSON_AddStringToObject(o, "suite", suite);
    cJSON_AddStringToObject(o, "title", title);
    cJSON_AddItemToObject(o, "requirements", id_array(reqs));
    cJSON_AddItemToObject(o, "revisions", mcps_cli_rev_array(revs));
    cJSON_AddArrayToObject(o, "proofs");
    return o;
}

/* The transports a case runs on: all three when it names none. */
static cJSON *transport_array(unsigned transports)
{
    cJSON *a = cJSON_CreateArray();
    for (unsigned k = 0; k < MCPS_TRANSPORT_KINDS; k++)
        if (!transports || (transports & (1u << k)))
            cJSON_AddItemToArray(
                a, cJSON_CreateString(mcps_transport_kind_name((mcps_transport_kind)k)));
    return a;
}

static cJSON *case_record(const mcps_suite *s, const mcps_case *c)
{
    cJSON *o = record(c->id, "case", s->name, c->title, c->requirements, c->revisions);
    cJSON_AddItemToObject(o, "transports", transport_array(c->transports));
    static const char *const sharing[] = {"own", "shared", "on trial"};
    cJSON_AddStringToObject(o, "process", sharing[mcps_case_sharing(c)]);
    cJSON_AddStringToObject(o, "file", mcps_cli_shown_path(c->file));
    cJSON_AddNumberToObject(o, "line", (double)c->line);
    cJSON *proofs = cJSON_GetObjectItemCaseSensitive(o, "proofs");
    for (size_t i = 0; i < c->nproofs; i++)
        cJSON_AddItemToArray(proofs, proof_json(&c->proofs[i], s->name, c->file));
    return o;
}

static void add_builtin_proofs(cJSON *o, const char *id, const char *suite,
                               const mcps_builtin_proofs *bp)
{
    cJSON *proofs = cJSON_GetObjectItemCaseSensitive(o, "proofs");
    for (size_t i = 0; bp && i < bp->n; i++)
        if (strcmp(bp->items[i].check, id) == 0) {
            cJSON *p = proof_json(&bp->items[i].proof, suite, bp->file);
            cJSON_AddItemToObject(p, "breaks", id_array(bp->items[i].breaks));
            cJSON_AddItemToArray(proofs, p);
        }
}

static void add_builtins(cJSON *checks, const mcps_run_config *cfg, const mcps_builtin_proofs *bp)
{
    const char *name, *title, *reqs;
    static const mcps_suite observe = {.name = "observe"}, discovery = {.name = "discovery"};
    mcps_rev_set revs;
    for (size_t i = 0; mcps_run_discovery_check(i, &name, &title, &reqs, &revs); i++) {
        mcps_case c = {.id = (char *)name, .name = (char *)strchr(name, '/') + 1};
        if (!cfg || mcps_run_selects(cfg, &discovery, &c)) {
            cJSON *o = record(name, "discovery", "discovery", title, reqs, revs);
            cJSON_AddItemToObject(o, "transports",
                                  transport_array(mcps_run_discovery_transports(i)));
            add_builtin_proofs(o, name, "discovery", bp);
            cJSON_AddItemToArray(checks, o);
        }
    }
    for (size_t i = 0; mcps_run_observer_rule(i, &name, &title, &reqs); i++) {
        char id[96];
        snprintf(id, sizeof id, "observe/%s", name);
        mcps_case c = {.id = id, .name = (char *)name};
        if (cfg && !mcps_run_selects(cfg, &observe, &c))
            continue;
        /* Graded once per revision the run covers. */
        cJSON *o = record(id, "observer", "observe", title, reqs, MCPS_REV_ALL);
        add_builtin_proofs(o, id, "observe", bp);
        cJSON_AddItemToArray(checks, o);
    }
}

cJSON *mcps_cli_checks_json(const mcps_suite_set *set, const mcps_builtin_proofs *bp,
                            const mcps_run_config *cfg)
{
    cJSON *checks = cJSON_CreateArray();
    for (size_t s = 0; checks && s < set->nsuites; s++)
        for (size_t i = 0; i < set->suites[s].ncases; i++) {
            const mcps_case *c = &set->suites[s].cases[i];
            if (!cfg || mcps_run_selects(cfg, &set->suites[s], c))
                cJSON_AddItemToArray(checks, case_record(&set->suites[s], c));
        }
    if (checks)
        add_builtins(checks, cfg, bp);
    return checks;
}

bool mcps_cli_load_builtin_proofs(const char *given, mcps_builtin_proofs *out)
{
    char buf[4096], path[4200], err[600];
    snprintf(path, sizeof path, "%s/builtin.proofs", mcps_cli_suites_dir(given, buf, sizeof buf));
    if (mcps_builtin_proofs_load(path, out, err, sizeof err))
        return true;
    fprintf(stderr, "mcpspec: %s\n", err);
    return false;
}
