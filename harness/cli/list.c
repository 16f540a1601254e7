/*
 * list.c - `mcpspec list`: every case, the requirements it tests and the
 * revisions it applies to; --suite and --case filter with globs. --json
 * prints the whole record of each check (checks.c), proofs included: what
 * the fault tests, the refserver README's fault table and scripts/coverage
 * are built from. --client lists the checks of `run --client` instead, with the
 * revisions each grades over each transport (scripts/coverage counts client rows by them).
 */
#include "cli/args.h"
#include "cli/cli.h"
#include "engine/client.h"
#include "engine/run.h"

#include "codec/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void list_observers(const mcps_run_config *cfg)
{
    const char *name, *title, *reqs;
    static const mcps_suite observe = {.name = "observe"};
    for (size_t i = 0; mcps_run_observer_rule(i, &name, &title, &reqs); i++) {
        char id[96];
        snprintf(id, sizeof id, "observe/%s", name);
        mcps_case c = {.id = id, .name = (char *)name};
        if (mcps_run_selects(cfg, &observe, &c))
            printf("%-44s %-36s %s\n", id, reqs, title);
    }
}

/* A client check as `list --json` shows it, in the shape of a server check's record: id,
 * kind "client", suite, title, requirements, revisions and transports; plus the revisions
 * per transport (over Streamable HTTP, 2025-03-26 on; over HTTP+SSE, 2024-11-05). */
static cJSON *client_check_json(size_t i, const char *id, const char *title, const char *reqs)
{
    mcps_rev_set stdio = 0, http = 0, sse = 0;
    mcps_client_case_revisions(i, &stdio, &http, &sse);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", id);
    cJSON_AddStringToObject(o, "kind", "client");
    cJSON_AddStringToObject(o, "suite", "client");
    cJSON_AddStringToObject(o, "title", title);
    cJSON *ids = cJSON_AddArrayToObject(o, "requirements");
    for (const char *r = reqs; ids && *r;) {
        size_t n = strcspn(r, " ");
        char one[64];
        snprintf(one, sizeof one, "%.*s", (int)n, r);
        if (n)
            cJSON_AddItemToArray(ids, cJSON_CreateString(one));
        r += n + (r[n] == ' ');
    }
    cJSON_AddItemToObject(o, "revisions", mcps_cli_rev_array(stdio | http | sse));
    cJSON *transports = cJSON_AddArrayToObject(o, "transports");
    cJSON *by = cJSON_AddObjectToObject(o, "revisions_by_transport");
    if (stdio) {
        cJSON_AddItemToArray(transports, cJSON_CreateString("stdio"));
        cJSON_AddItemToObject(by, "stdio", mcps_cli_rev_array(stdio));
    }
    if (http) {
        cJSON_AddItemToArray(transports, cJSON_CreateString("streamable-http"));
        cJSON_AddItemToObject(by, "streamable-http", mcps_cli_rev_array(http));
    }
    if (sse) {
        cJSON_AddItemToArray(transports, cJSON_CreateString("sse"));
        cJSON_AddItemToObject(by, "sse", mcps_cli_rev_array(sse));
    }
    return o;
}

/* revs for a person: "2024-11-05..2025-11-25" for a run of consecutive revisions, else a
 * comma-separated list. */
static void rev_span(mcps_rev_set revs, char *out, size_t n)
{
    int first = -1, last = -1, count = 0;
    for (int r = 0; r < MCPS_REV_COUNT; r++)
        if (mcps_rev_set_has(revs, (mcps_rev)r)) {
            first = first < 0 ? r : first;
            last = r;
            count++;
        }
    out[0] = '\0';
    if (count > 1 && last - first + 1 == count) {
        snprintf(out, n, "%s..%s", mcps_rev_name((mcps_rev)first), mcps_rev_name((mcps_rev)last));
        return;
    }
    for (int r = 0; r < MCPS_REV_COUNT; r++)
        if (mcps_rev_set_has(revs, (mcps_rev)r)) {
            size_t len = strlen(out);
            snprintf(out + len, n - len, "%s%s", len ? "," : "", mcps_rev_name((mcps_rev)r));
        }
}

/* One check as a line: id, requirements, the revisions it grades, its transports, title. */
static void print_client_line(size_t i, const char *id, const char *title, const char *reqs)
{
    mcps_rev_set stdio = 0, http = 0, sse = 0;
    char span[96], transports[32];
    mcps_client_case_revisions(i, &stdio, &http, &sse);
    rev_span(stdio | http | sse, span, sizeof span);
    snprintf(transports, sizeof transports, "%s%s%s%s%s", stdio ? "stdio" : "",
             stdio && (http || sse) ? "," : "", http ? "http" : "", http && sse ? "," : "",
             sse ? "sse" : "");
    printf("%-44s %-36s %-22s %-10s %s\n", id, reqs, span, transports, title);
}

/* The client checks (engine/client.h), filtered by --case: a line each, or JSON. */
static int list_clients(const char *const *case_globs, bool json)
{
    const char *id, *title, *reqs;
    cJSON *root = json ? cJSON_CreateObject() : NULL;
    cJSON *checks = root ? cJSON_AddArrayToObject(root, "checks") : NULL;
    for (size_t i = 0; mcps_client_case_at(i, &id, &title, &reqs); i++) {
        bool selected = !case_globs[0];
        for (size_t g = 0; case_globs[g]; g++)
            selected |= mcps_glob_match(case_globs[g], id);
        if (selected && json)
            cJSON_AddItemToArray(checks, client_check_json(i, id, title, reqs));
        else if (selected)
            print_client_line(i, id, title, reqs);
    }
    if (!json)
        return MCPS_EXIT_OK;
    char *text = checks ? mcps_json_print(root, NULL) : NULL;
    cJSON_Delete(root);
    if (!text)
        return fprintf(stderr, "mcpspec list: out of memory\n"), MCPS_EXIT_INCOMPLETE;
    puts(text);
    free(text);
    return MCPS_EXIT_OK;
}

static int print_json(const char *dir, const mcps_suite_set *set, const mcps_run_config *cfg)
{
    mcps_builtin_proofs bp;
    if (!mcps_cli_load_builtin_proofs(dir, &bp))
        return MCPS_EXIT_USAGE;
    cJSON *root = cJSON_CreateObject();
    cJSON *checks = mcps_cli_checks_json(set, &bp, cfg);
    mcps_builtin_proofs_free(&bp);
    char *text = NULL;
    if (root && checks) {
        cJSON_AddItemToObject(root, "checks", checks);
        checks = NULL;
        text = mcps_json_print(root, NULL);
    }
    cJSON_Delete(checks);
    mcps_json_delete(root);
    if (!text) {
        fprintf(stderr, "mcpspec list: out of memory\n");
        return MCPS_EXIT_INCOMPLETE;
    }
    puts(text);
    free(text);
    return MCPS_EXIT_OK;
}

static int usage(const char *why)
{
    FILE *out = why ? stderr : stdout;
    if (why)
        fprintf(stderr, "mcpspec list: %s\n", why);
    fprintf(out, "usage: mcpspec list [--suite GLOB]... [--case GLOB]... [--suites DIR] [--json]\n"
                 "       mcpspec list --client [--case GLOB]...: the checks of run --client\n");
    return why ? MCPS_EXIT_USAGE : MCPS_EXIT_OK;
}

int mcps_cli_list(int argc, char **argv)
{
    const char *suite_globs[65] = {0}, *case_globs[65] = {0}, *dir = NULL;
    size_t ns = 0, nc = 0;
    bool json = false, client = false;
    mcps_args a;
    mcps_args_init(&a, argc, argv);
    while (mcps_args_more(&a)) {
        if (mcps_args_option(&a, "--suite") && ns < 64)
            suite_globs[ns++] = a.value;
        else if (mcps_args_option(&a, "--case") && nc < 64)
            case_globs[nc++] = a.value;
        else if (mcps_args_option(&a, "--suites"))
            dir = a.value;
        else if (mcps_args_flag(&a, "--json"))
            json = true;
        else if (mcps_args_flag(&a, "--client"))
            client = true;
        else if (mcps_args_flag(&a, "--help"))
            return usage(NULL);
        else
            return usage(a.error[0] ? a.error : "unknown argument");
    }
    if (client)
        return list_clients(case_globs, json);
    mcps_suite_set set;
    if (!mcps_cli_load_suites(dir, &set))
        return MCPS_EXIT_USAGE;
    mcps_run_config cfg;
    mcps_run_config_defaults(&cfg);
    cfg.suite_globs = ns ? suite_globs : NULL;
    cfg.case_globs = nc ? case_globs : NULL;
    if (json) {
        int rc = print_json(dir, &set, &cfg);
        mcps_suite_set_free(&set);
        return rc;
    }
    for (size_t s = 0; s < set.nsuites; s++)
        for (size_t i = 0; i < set.suites[s].ncases; i++) {
            const mcps_case *c = &set.suites[s].cases[i];
            if (!mcps_run_selects(&cfg, &set.suites[s], c))
                continue;
            printf("%-44s %-36s %s\n", c->id, c->requirements, c->title);
        }
    list_observers(&cfg);
    mcps_suite_set_free(&set);
    return MCPS_EXIT_OK;
}
