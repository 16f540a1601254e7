/*
 * yaml_absent.c - stands in for harness/engine/yaml_tree.c in the OSS-Fuzz
 * build, whose image has no libyaml: every YAML file is refused. No fuzz
 * target reads a baseline; the engine objects that name these links still.
 */
#include "engine/yaml_tree.h"

#include <stdio.h>
#include <stdlib.h>

bool mcps_yaml_parse(const char *text, size_t len, mcps_yaml_tree *out, size_t *err_line, char *err,
                     size_t errlen)
{
    (void)text;
    (void)len;
    *out = (mcps_yaml_tree){0};
    *err_line = 0;
    snprintf(err, errlen, "this build reads no YAML (no libyaml)");
    return false;
}

size_t mcps_yaml_line_of(const mcps_yaml_tree *t, const cJSON *node)
{
    (void)t;
    (void)node;
    return 0;
}

void mcps_yaml_free(mcps_yaml_tree *t)
{
    *t = (mcps_yaml_tree){0};
}
