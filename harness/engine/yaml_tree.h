/*
 * yaml_tree.h - a YAML document read into a cJSON tree, with the line of
 * every node, for files people write by hand (baselines).
 *
 * One document of mappings, sequences and scalars. Keys are scalars and a
 * key written twice is an error, as in our JSON. Aliases are refused (a
 * baseline has no use for them, and they can make a small file expand into a
 * huge tree). Scalars resolve as YAML 1.2's core schema does, for what a
 * baseline holds: `null`, `~` and nothing are null; `true` and `false` are
 * booleans; decimal numbers are numbers; everything else, and every quoted
 * scalar, is a string (so `2027-03-31` and `no` stay strings).
 */
#ifndef MCPS_ENGINE_YAML_TREE_H
#define MCPS_ENGINE_YAML_TREE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct mcps_yaml_line {
    const cJSON *node;
    size_t line;  /* 1-based; a member's is the line of its key */
    size_t order; /* when it was recorded */
} mcps_yaml_line;

typedef struct mcps_yaml_tree {
    cJSON *root;
    mcps_yaml_line *lines;
    size_t nlines, cap;
} mcps_yaml_tree;

/* Parse text. On failure err holds what is wrong and *err_line where (1-based, 0 unknown). */
bool mcps_yaml_parse(const char *text, size_t len, mcps_yaml_tree *out, size_t *err_line, char *err,
                     size_t errlen);
/* The line node starts on (a member: its key's), or 0 when the tree does not hold it. */
size_t mcps_yaml_line_of(const mcps_yaml_tree *t, const cJSON *node);
void mcps_yaml_free(mcps_yaml_tree *t);

#endif
