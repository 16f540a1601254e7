/*
 * setup.c - what refserver's two programs share (main.c, the stdio server,
 * and afl_main.c, the AFL++ entry): the options that shape a session
 * (--fault, --without, --root, --verbose, --modern-only) and the session
 * state's setup and teardown. The AFL entry builds a fresh state from its
 * arguments for every input, as a process start would.
 */
#include "server.h"

#include "codec/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int set_root(rs_server *s, const char *dir)
{
    struct stat st;
    free(s->root);
    s->root = realpath(dir, NULL);
    if (!s->root || stat(s->root, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "refserver: --root %s: not a directory\n", dir);
        return RS_EXIT_USAGE;
    }
    return -1;
}

static int take_away(rs_server *s, const char *name)
{
    rs_cap cap;
    if (!rs_cap_parse(name, &cap)) {
        fprintf(stderr,
                "refserver: --without %s: not one of tools, resources, prompts, logging, "
                "completions, tasks\n",
                name);
        return RS_EXIT_USAGE;
    }
    s->refused[cap] = true;
    return -1;
}

static int add_fault(rs_server *s, const char *name)
{
    rs_fault f;
    if (!rs_fault_lookup(name, &f)) {
        fprintf(stderr, "refserver: unknown fault '%s' (see --list-faults)\n", name);
        return RS_EXIT_USAGE;
    }
    s->faults[f] = true;
    return -1;
}

int rs_option(rs_server *s, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    bool has_value = *i + 1 < argc;
    if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0)
        s->verbose = true;
    else if (strcmp(a, "--modern-only") == 0)
        s->modern_only = true;
    else if (strcmp(a, "--fault") == 0 && has_value)
        return add_fault(s, argv[++*i]);
    else if (strcmp(a, "--without") == 0 && has_value)
        return take_away(s, argv[++*i]);
    else if (strcmp(a, "--root") == 0 && has_value)
        return set_root(s, argv[++*i]);
    else
        return RS_OPTION_OTHER;
    return -1;
}

void rs_server_init(rs_server *s)
{
    *s = (rs_server){.in_fd = 0, .out_fd = 1, .rev = MCPS_REV_NONE, .log_level = RS_LOG_INFO};
    mcps_framer_init(&s->framer, RS_MAX_LINE);
}

void rs_server_free(rs_server *s)
{
    rs_jobs_free(s);
    rs_calls_free(s);
    mcps_json_delete(s->client_caps);
    rs_tasks_free(s);
    rs_subs_free(s);
    rs_listen_free(s);
    mcps_framer_free(&s->framer);
    free(s->root);
    free(s->announced);
}
