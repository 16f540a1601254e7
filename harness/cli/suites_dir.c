/*
 * suites_dir.c - where the conversation suites are, and loading them.
 *
 * --suites DIR wins; then $MCPSPEC_SUITES; then share/mcpspec/suites beside
 * the binary (PREFIX/share/mcpspec/suites for PREFIX/bin/mcpspec), so an installed or
 * unpacked mcpspec uses the suites it was packaged with wherever it lands;
 * then the folder this build was configured with (MCPS_SUITES_DIR, the source
 * tree's suites/), which is what a binary in its build folder finds, having
 * no share/ beside it.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_dir(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* PREFIX/share/mcpspec/suites into buf, for a binary at PREFIX/DIR/mcpspec, if that
 * folder exists. /proc/self/exe has every symlink resolved, so PREFIX is cut from
 * the text: a path without "..", as error messages and --version show it. */
static bool beside_binary(char *buf, size_t n)
{
    ssize_t len = readlink("/proc/self/exe", buf, n - 1);
    if (len <= 0)
        return false;
    buf[len] = '\0';
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(buf, '/');
        if (!slash)
            return false;
        *slash = '\0';
    }
    size_t used = strlen(buf);
    int w = snprintf(buf + used, n - used, "/share/mcpspec/suites");
    return w > 0 && (size_t)w < n - used && is_dir(buf);
}

const char *mcps_cli_suites_dir(const char *given, char *buf, size_t n)
{
    if (given)
        return given;
    const char *env = getenv("MCPSPEC_SUITES");
    if (env && *env)
        return env;
    if (beside_binary(buf, n))
        return buf;
    return MCPS_SUITES_DIR;
}

bool mcps_cli_load_suites(const char *given, mcps_suite_set *set)
{
    char buf[4096];
    const char *dir = mcps_cli_suites_dir(given, buf, sizeof buf);
    char err[600];
    if (mcps_suite_load_dir(dir, set, err, sizeof err))
        return true;
    fprintf(stderr, "mcpspec: %s\n", err);
    return false;
}
