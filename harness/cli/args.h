/*
 * args.h - a small long-option parser shared by the sub-commands.
 *
 * POSIX getopt has no long options and getopt_long is a GNU extension, so the
 * CLI walks argv itself: "--name value", "--name=value", flags, and "--" to
 * end options. Errors name the option, for a usage message.
 */
#ifndef MCPS_CLI_ARGS_H
#define MCPS_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct mcps_args {
    int argc;
    char **argv;
    int i;             /* next argument to look at */
    bool options_done; /* after "--" */
    const char *value; /* value of the option just matched */
    char error[160];
} mcps_args;

void mcps_args_init(mcps_args *a, int argc, char **argv);
/* True while arguments remain. */
bool mcps_args_more(const mcps_args *a);
/* The current argument is an option (starts with "-" and is not "-"). */
bool mcps_args_is_option(const mcps_args *a);
/* Match a flag "--name"; consumes it. */
bool mcps_args_flag(mcps_args *a, const char *name);
/* Match "--name VALUE" or "--name=VALUE"; consumes both, value in a->value.
 * A missing value sets a->error and returns false. */
bool mcps_args_option(mcps_args *a, const char *name);
/* Take the current argument as a positional one. */
const char *mcps_args_positional(mcps_args *a);
/* Parse a size like 4096, 64K, 4M, 1G. */
bool mcps_args_size(const char *s, size_t *out);
/* Parse a duration in seconds, e.g. 5, 0.5. */
bool mcps_args_seconds(const char *s, double *out);

#endif
