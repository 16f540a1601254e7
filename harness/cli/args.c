/*
 * args.c - long-option parsing; see args.h.
 */
#include "cli/args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mcps_args_init(mcps_args *a, int argc, char **argv)
{
    *a = (mcps_args){.argc = argc, .argv = argv, .i = 0};
}

bool mcps_args_more(const mcps_args *a)
{
    return a->i < a->argc;
}

bool mcps_args_is_option(const mcps_args *a)
{
    if (a->options_done || a->i >= a->argc)
        return false;
    const char *s = a->argv[a->i];
    return s[0] == '-' && s[1] != '\0';
}

bool mcps_args_flag(mcps_args *a, const char *name)
{
    if (!mcps_args_is_option(a) || strcmp(a->argv[a->i], name) != 0)
        return false;
    a->i++;
    return true;
}

bool mcps_args_option(mcps_args *a, const char *name)
{
    if (!mcps_args_is_option(a))
        return false;
    const char *s = a->argv[a->i];
    size_t n = strlen(name);
    if (strncmp(s, name, n) != 0)
        return false;
    if (s[n] == '=') {
        a->value = s + n + 1;
        a->i++;
        return true;
    }
    if (s[n] != '\0')
        return false;
    if (a->i + 1 >= a->argc) {
        snprintf(a->error, sizeof a->error, "option %s needs a value", name);
        a->i++;
        return false;
    }
    a->value = a->argv[a->i + 1];
    a->i += 2;
    return true;
}

const char *mcps_args_positional(mcps_args *a)
{
    if (a->i >= a->argc)
        return NULL;
    if (!a->options_done && strcmp(a->argv[a->i], "--") == 0) {
        a->options_done = true;
        a->i++;
        return mcps_args_positional(a);
    }
    return a->argv[a->i++];
}

bool mcps_args_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno || s[0] == '-')
        return false;
    unsigned long long mult = 1;
    if (*end == 'K' || *end == 'k')
        mult = 1024ULL;
    else if (*end == 'M' || *end == 'm')
        mult = 1024ULL * 1024;
    else if (*end == 'G' || *end == 'g')
        mult = 1024ULL * 1024 * 1024;
    else if (*end != '\0')
        return false;
    if (mult != 1 && end[1] != '\0')
        return false;
    if (v > (unsigned long long)((size_t)-1) / mult)
        return false;
    *out = (size_t)(v * mult);
    return true;
}

bool mcps_args_seconds(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno || !(v >= 0) || v > 86400.0)
        return false;
    *out = v;
    return true;
}
