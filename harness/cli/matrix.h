/*
 * matrix.h - `mcpspec matrix FILE` and `mcpspec run --config A --config B`:
 * several targets in one invocation, one report over all of them.
 *
 * Shared by the command's three files: matrix_file.c reads the matrix file
 * (or the repeated --config options) into targets, each a name and the
 * `mcpspec run` options that test it; matrix.c runs each target as a child
 * `mcpspec run` (in parallel within --jobs, under one deadline) and reads
 * back the report.json each wrote; matrix_render.c writes the matrix report:
 * index.html, matrix.json and summary.md.
 */
#ifndef MCPS_CLI_MATRIX_H
#define MCPS_CLI_MATRIX_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "cli/diff.h"

#define MCPS_MATRIX_SCHEMA_VERSION 1
#define MCPS_MATRIX_NAME_MAX       64 /* a target's name is a folder name */

typedef struct mcps_matrix_target {
    char *name;  /* [A-Za-z0-9._-], its folder under --out */
    char **args; /* its own `mcpspec run` options, NULL-terminated */
    size_t nargs, args_cap;
    char *origin; /* where it was defined, for messages: "FILE:LINE" or "--config FILE" */
    /* What running it gave. */
    bool started;
    int exit_code;            /* the child's, or MCPS_EXIT_INCOMPLETE when it has none */
    char *reason;             /* why it has no report or did not run; NULL otherwise */
    mcps_diff_report *report; /* its report.json, NULL when none could be read */
    double seconds;
    int jobs; /* --jobs it was given */
} mcps_matrix_target;

/* One row of the matrix: a case on a revision, and each target's verdict for it. */
typedef struct mcps_matrix_row {
    const char *rev, *id;
    const mcps_diff_case **cells; /* ntargets of them; NULL where a target did not run it */
    bool differs;                 /* two targets that ran it disagree */
} mcps_matrix_row;

typedef struct mcps_matrix {
    const char *source; /* the matrix file, or NULL for repeated --config */
    mcps_matrix_target *targets;
    size_t ntargets, targets_cap;
    const char *out;
    bool html;           /* the targets write report.html: cells link to it */
    char started_at[32]; /* UTC, ISO 8601 */
    double seconds;
    const char *stopped; /* why the matrix stopped early (a signal), or NULL */
    int exit_code;
    mcps_matrix_row *rows; /* sorted by revision and id */
    size_t nrows;
    size_t ndiffer;
} mcps_matrix;

/* Read a matrix file into m's targets; false after printing "FILE:LINE: why". */
bool mcps_matrix_load_file(mcps_matrix *m, const char *path);
/* A target for one --config FILE, named after the file (unique within m). */
bool mcps_matrix_add_config(mcps_matrix *m, const char *config);
/* Append an argument to a target's options; false when out of memory. */
bool mcps_matrix_target_arg(mcps_matrix_target *t, const char *arg);
void mcps_matrix_free(mcps_matrix *m);

/* Build m->rows from the targets' reports; false when out of memory. */
bool mcps_matrix_build_rows(mcps_matrix *m);
/* The three renderings; false when out of memory. */
bool mcps_matrix_html(const mcps_matrix *m, mcps_buf *out);
bool mcps_matrix_json(const mcps_matrix *m, mcps_buf *out);
bool mcps_matrix_markdown(const mcps_matrix *m, mcps_buf *out);

#endif
