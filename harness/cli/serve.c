/*
 * serve.c - `mcpspec serve --connect SOCKET`: the server command a client
 * under test runs ({server} in `mcpspec run --client`). It relays its stdin
 * and stdout to the controller over the Unix socket (transport/relay.h) and
 * ends when either side does; it judges nothing itself.
 */
#include "cli/args.h"
#include "cli/cli.h"
#include "transport/relay.h"

#include <stdio.h>
#include <unistd.h>

static int usage(const char *why)
{
    if (why)
        fprintf(stderr, "mcpspec serve: %s\n", why);
    fprintf(stderr, "usage: mcpspec serve --connect SOCKET\n"
                    "  relays stdin and stdout to the `mcpspec run --client` that made SOCKET;\n"
                    "  it is what {server} expands to, not meant to be run by hand\n");
    return MCPS_EXIT_USAGE;
}

int mcps_cli_serve(int argc, char **argv)
{
    const char *path = NULL;
    mcps_args a;
    mcps_args_init(&a, argc, argv);
    while (mcps_args_more(&a)) {
        if (mcps_args_option(&a, "--connect"))
            path = a.value;
        else if (mcps_args_flag(&a, "--help")) {
            usage(NULL);
            return MCPS_EXIT_OK;
        } else
            return usage(a.error[0] ? a.error : "unknown argument");
    }
    if (!path)
        return usage("--connect is required");
    char err[300];
    int rc = mcps_relay_serve(path, STDIN_FILENO, STDOUT_FILENO, err, sizeof err);
    if (rc)
        fprintf(stderr, "mcpspec serve: %s\n", err);
    return rc;
}
