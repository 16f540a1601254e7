/*
 * list.c - `mcpspec list`: every case, the requirements it tests and the
 * revisions it applies to; --suite and --case filter with globs.
 */
#include "cli/args.h"
#include "cli/cli.h"
#include "engine/run.h"

#include <stdio.h>
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

static int usage(const char *why)
{
    if (why)
        fprintf(stderr, "mcpspec list: %s\n", why);
    fprintf(stderr, "usage: mcpspec list [--suite GLOB]... [--case GLOB]... [--suites DIR]\n");
    return MCPS_EXIT_USAGE;
}

int mcps_cli_list(int argc, char **argv)
{
    const char *suite_globs[65] = {0}, *case_globs[65] = {0}, *dir = NULL;
    size_t ns = 0, nc = 0;
    mcps_args a;
    mcps_args_init(&a, argc, argv);
    while (mcps_args_more(&a)) {
        if (mcps_args_option(&a, "--suite") && ns < 64)
            suite_globs[ns++] = a.value;
        else if (mcps_args_option(&a, "--case") && nc < 64)
            case_globs[nc++] = a.value;
        else if (mcps_args_option(&a, "--suites"))
            dir = a.value;
        else
            return usage(a.error[0] ? a.error : "unknown argument");
    }
    mcps_suite_set set;
    if (!mcps_cli_load_suites(dir, &set))
        return MCPS_EXIT_USAGE;
    mcps_run_config cfg;
    mcps_run_config_defaults(&cfg);
    cfg.suite_globs = ns ? suite_globs : NULL;
    cfg.case_globs = nc ? case_globs : NULL;
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
