/*
 * suites_dir.c - where the conversation suites are, and loading them.
 *
 * --suites DIR wins; then $MCPSPEC_SUITES; then the folder this build was
 * configured with (MCPS_SUITES_DIR, the source tree's suites/); then
 * share/mcpspec/suites beside an installed binary.
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

const char *mcps_cli_suites_dir(const char *given, char *buf, size_t n)
{
    if (given)
        return given;
    const char *env = getenv("MCPSPEC_SUITES");
    if (env && *env)
        return env;
    if (is_dir(MCPS_SUITES_DIR))
        return MCPS_SUITES_DIR;
    ssize_t len = readlink("/proc/self/exe", buf, n - 1);
    if (len > 0) {
        buf[len] = '\0';
        char *slash = strrchr(buf, '/');
        if (slash) {
            *slash = '\0';
            size_t used = strlen(buf);
            snprintf(buf + used, n - used, "/../share/mcpspec/suites");
            if (is_dir(buf))
                return buf;
        }
    }
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
