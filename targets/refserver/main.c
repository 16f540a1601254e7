/*
 * main.c - refserver's command line and process setup: the conformant
 * reference MCP stdio server of mcpspec, with named faults (--fault NAME)
 * that each break one requirement.
 */
#include "http.h"
#include "server.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out)
{
    fprintf(out, "usage: refserver [--fault NAME]... [--without CAP]... [--root DIR] [--verbose]\n"
                 "                 [--modern-only]\n"
                 "                 [--http PORT [--bind ADDR] [--port-file FILE] [--auth TOKEN]]\n"
                 "       refserver --list-faults | --help | --version\n\n"
                 "A reference MCP server on stdin/stdout (protocol revisions 2024-11-05,\n"
                 "2025-03-26, 2025-06-18, 2025-11-25 and, stateless, 2026-07-28). Exits on end\n"
                 "of input.\n\n"
                 "  --fault NAME   switch on a fault (repeatable); see --list-faults\n"
                 "  --list-faults  print NAME<TAB>REQUIREMENT-IDS<TAB>description per fault\n"
                 "  --without CAP  neither declare nor serve CAP (repeatable): tools, resources,\n"
                 "                 prompts, logging, completions or tasks\n"
                 "  --root DIR     serve files below DIR as file:///{+path} resources\n"
                 "  --verbose      diagnostics on stderr (default: quiet)\n"
                 "  --modern-only  speak 2026-07-28 alone: refuse initialize (default: both eras)\n"
                 "  --http PORT    serve Streamable HTTP on /mcp and HTTP+SSE on /sse instead\n"
                 "                 (PORT 0: any free port); one stdio child per session;\n"
                 "                 runs until SIGTERM or SIGINT\n"
                 "  --bind ADDR    listening IPv4 address (default 127.0.0.1)\n"
                 "  --port-file FILE  write the port there once listening\n"
                 "  --auth TOKEN   require Authorization: Bearer TOKEN\n");
}

static int set_port(rs_http_opts *http, const char *text)
{
    char *end;
    long port = strtol(text, &end, 10);
    if (!*text || *end || port < 0 || port > 65535) {
        fprintf(stderr, "refserver: --http %s: not a port number\n", text);
        return RS_EXIT_USAGE;
    }
    http->port = (unsigned)port;
    return -1;
}

/* The HTTP front end's options: kept from its stdio children's arguments. */
static bool http_option(const char *a, bool has_value)
{
    return has_value && (strcmp(a, "--http") == 0 || strcmp(a, "--bind") == 0 ||
                         strcmp(a, "--port-file") == 0 || strcmp(a, "--auth") == 0);
}

static int parse_http(char **argv, int *i, rs_http_opts *http, bool *use_http)
{
    const char *a = argv[*i], *value = argv[++*i];
    if (strcmp(a, "--http") == 0) {
        *use_http = true;
        return set_port(http, value);
    }
    if (strcmp(a, "--bind") == 0)
        http->bind = value;
    else if (strcmp(a, "--port-file") == 0)
        http->port_file = value;
    else
        http->auth = value;
    return -1;
}

/* -1 to run the server, otherwise the exit status. */
static int parse_args(int argc, char **argv, rs_server *s, rs_http_opts *http, bool *use_http)
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
        } else if (http_option(a, has_value)) {
            status = parse_http(argv, &i, http, use_http);
        } else if ((status = rs_option(s, argc, argv, &i)) == RS_OPTION_OTHER) {
            fprintf(stderr, "refserver: bad argument '%s'\n", a);
            usage(stderr);
            return RS_EXIT_USAGE;
        }
        if (status >= 0)
            return status;
    }
    return -1;
}

/* The path of the program NAME in this executable's own folder; false if it does not fit. */
static bool sibling_path(const char *name, char *out, size_t n)
{
    ssize_t len = readlink("/proc/self/exe", out, n - 1);
    if (len <= 0)
        return false;
    out[len] = '\0';
    char *slash = strrchr(out, '/');
    size_t dir = slash ? (size_t)(slash - out) + 1 : 0;
    return snprintf(out + dir, n - dir, "%s", name) < (int)(n - dir);
}

#ifdef RS_HTTP_FRONT
/* argv without the HTTP options: what each session's stdio child runs with. */
static char **child_args(int argc, char **argv)
{
    char **out = calloc((size_t)argc + 1, sizeof *out);
    if (!out)
        return NULL;
    int n = 0;
    for (int i = 0; i < argc; i++) {
        if (i > 0 && http_option(argv[i], i + 1 < argc))
            i++;
        else
            out[n++] = argv[i];
    }
    return out;
}

static int run_http(const rs_server *s, rs_http_opts *http, int argc, char **argv)
{
    char child[PATH_MAX];
    if (!sibling_path("refserver", child, sizeof child)) {
        fprintf(stderr, "refserver: cannot find the stdio refserver beside this program\n");
        return RS_EXIT_FAIL;
    }
    if (!http->bind)
        http->bind = "127.0.0.1";
    http->child_path = child;
    http->child_argv = child_args(argc, argv);
    if (!http->child_argv)
        return RS_EXIT_FAIL;
    int status = rs_http_run(s, http) ? RS_EXIT_FAIL : RS_EXIT_OK;
    free(http->child_argv);
    return status;
}
#else
/* A run starts the stdio server hundreds of times: it leaves libmicrohttpd, and the GnuTLS
 * that loads with it, to refserver-http, the front end --http hands over to. */
static int run_http(const rs_server *s, rs_http_opts *http, int argc, char **argv)
{
    (void)s, (void)http, (void)argc;
    char front[PATH_MAX];
    if (sibling_path("refserver-http", front, sizeof front))
        execv(front, argv);
    fprintf(stderr, "refserver: --http needs refserver-http beside refserver: %s\n",
            strerror(errno));
    return RS_EXIT_FAIL;
}
#endif

int main(int argc, char **argv)
{
    rs_server s;
    rs_http_opts http = {0};
    bool use_http = false;
    rs_server_init(&s);
    int status = parse_args(argc, argv, &s, &http, &use_http);
    if (status < 0 && use_http) {
        status = run_http(&s, &http, argc, argv);
    } else if (status < 0) {
        /* A vanished client shows up as EPIPE on write, handled as a clean exit. */
        struct sigaction ignore = {.sa_handler = SIG_IGN};
        sigemptyset(&ignore.sa_mask);
        sigaction(SIGPIPE, &ignore, NULL);
        if (rs_fault_on(&s, RS_FAULT_STDOUT_NOISE))
            rs_write_text(&s, "refserver ready (this banner is not JSON)\n");
        status = rs_run(&s) ? RS_EXIT_FAIL : RS_EXIT_OK;
    }
    rs_server_free(&s);
    return status;
}
