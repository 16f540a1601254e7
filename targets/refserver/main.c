/*
 * main.c - refserver's command line and process setup: the conformant
 * reference MCP stdio server of mcpspec, with named faults (--fault NAME)
 * that each break one requirement.
 */
#include "server.h"

#include "codec/json.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { RS_EXIT_OK = 0, RS_EXIT_FAIL = 1, RS_EXIT_USAGE = 2 };

static void usage(FILE *out)
{
    fprintf(out, "usage: refserver [--fault NAME]... [--without CAP]... [--root DIR] [--verbose]\n"
                 "       refserver --list-faults | --help | --version\n\n"
                 "A reference MCP server on stdin/stdout (protocol revisions 2024-11-05,\n"
                 "2025-03-26, 2025-06-18, 2025-11-25). Exits on end of input.\n\n"
                 "  --fault NAME   switch on a fault (repeatable); see --list-faults\n"
                 "  --list-faults  print NAME<TAB>REQUIREMENT-IDS<TAB>description per fault\n"
                 "  --without CAP  neither declare nor serve CAP (repeatable): tools, resources,\n"
                 "                 prompts, logging, completions or tasks\n"
                 "  --root DIR     serve files below DIR as file:///{+path} resources\n"
                 "  --verbose      diagnostics on stderr (default: quiet)\n");
}

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

/* -1 to run the server, otherwise the exit status. */
static int parse_args(int argc, char **argv, rs_server *s)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        int status = -1;
        if (strcmp(a, "--list-faults") == 0) {
            rs_fault_list(stdout);
            return RS_EXIT_OK;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return RS_EXIT_OK;
        } else if (strcmp(a, "--version") == 0) {
            printf("refserver %s\n", MCPS_VERSION);
            return RS_EXIT_OK;
        } else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) {
            s->verbose = true;
        } else if (strcmp(a, "--fault") == 0 && has_value) {
            status = add_fault(s, argv[++i]);
        } else if (strcmp(a, "--without") == 0 && has_value) {
            status = take_away(s, argv[++i]);
        } else if (strcmp(a, "--root") == 0 && has_value) {
            status = set_root(s, argv[++i]);
        } else {
            fprintf(stderr, "refserver: bad argument '%s'\n", a);
            usage(stderr);
            return RS_EXIT_USAGE;
        }
        if (status >= 0)
            return status;
    }
    return -1;
}

static void server_init(rs_server *s)
{
    *s = (rs_server){.in_fd = 0, .out_fd = 1, .rev = MCPS_REV_NONE, .log_level = RS_LOG_INFO};
    mcps_framer_init(&s->framer, RS_MAX_LINE);
}

static void server_free(rs_server *s)
{
    rs_jobs_free(s);
    rs_calls_free(s);
    mcps_json_delete(s->client_caps);
    rs_tasks_free(s);
    rs_subs_free(s);
    mcps_framer_free(&s->framer);
    free(s->root);
    free(s->announced);
}

int main(int argc, char **argv)
{
    rs_server s;
    server_init(&s);
    int status = parse_args(argc, argv, &s);
    if (status < 0) {
        /* A vanished client shows up as EPIPE on write, handled as a clean exit. */
        struct sigaction ignore = {.sa_handler = SIG_IGN};
        sigemptyset(&ignore.sa_mask);
        sigaction(SIGPIPE, &ignore, NULL);
        if (rs_fault_on(&s, RS_FAULT_STDOUT_NOISE))
            rs_write_text(&s, "refserver ready (this banner is not JSON)\n");
        status = rs_run(&s) ? RS_EXIT_FAIL : RS_EXIT_OK;
    }
    server_free(&s);
    return status;
}
