/*
 * report.h - turn a run's results into the files people and CI systems read.
 *
 * One run, five renderings, each for a different reader:
 *   report.json   the complete, versioned record (docs/report-format.md)
 *   junit.xml     CI test dashboards: one testsuite per suite@revision
 *   summary.md    GitHub job summaries ($GITHUB_STEP_SUMMARY), capped at 1 MiB
 *   report.html   a self-contained page for a developer chasing a failure
 *   report.sarif  SARIF 2.1.0 for GitHub code scanning
 *
 * Every rendering shows, per case, what was expected, what was observed and
 * the wire log. Wire bytes come from a hostile peer: every writer escapes for
 * its own language and never emits invalid UTF-8 or forbidden characters.
 * Renderers only read the run; they hold no state between calls.
 */
#ifndef MCPS_REPORT_REPORT_H
#define MCPS_REPORT_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "engine/result.h"

/* Formats, as bits of a set. */
#define MCPS_REPORT_JSON     (1u << 0)
#define MCPS_REPORT_JUNIT    (1u << 1)
#define MCPS_REPORT_MARKDOWN (1u << 2)
#define MCPS_REPORT_HTML     (1u << 3)
#define MCPS_REPORT_SARIF    (1u << 4)
#define MCPS_REPORT_ALL      0x1fu

/* GitHub rejects step summaries over 1 MiB; summary.md stays within this. */
#define MCPS_REPORT_MARKDOWN_MAX ((size_t)1024 * 1024)

/*
 * Write the formats in the set (0: all) into dir, creating it like mkdir -p.
 * Each file is written under a temporary name and renamed into place, so a
 * reader never sees half a report. On failure returns false with err set.
 */
bool mcps_report_write(const mcps_run_result *run, const char *dir, unsigned formats, char *err,
                       size_t errlen);

/* mkdir -p dir; false with err set. */
bool mcps_report_make_dirs(const char *dir, char *err, size_t errlen);
/* Write data as dir/name (dir made like mkdir -p) atomically, as mcps_report_write does
 * its files: for reports built outside this layer (mcpspec matrix's index). */
bool mcps_report_write_file(const char *dir, const char *name, const mcps_buf *data, char *err,
                            size_t errlen);

/* Render one format (a single bit) into out. False on allocation failure. */
bool mcps_report_render(const mcps_run_result *run, unsigned format, mcps_buf *out);

bool mcps_report_json(const mcps_run_result *run, mcps_buf *out);
bool mcps_report_junit(const mcps_run_result *run, mcps_buf *out);
bool mcps_report_markdown(const mcps_run_result *run, mcps_buf *out);
bool mcps_report_html(const mcps_run_result *run, mcps_buf *out);
bool mcps_report_sarif(const mcps_run_result *run, mcps_buf *out);

/* "report.json", "junit.xml", ... for a single format bit; NULL otherwise. */
const char *mcps_report_file_name(unsigned format);

/*
 * Parse a comma-separated list of format names (json, junit, markdown, html,
 * sarif, all) as a command line gives it. False, with *out untouched, on an
 * unknown name.
 */
bool mcps_report_parse_formats(const char *list, unsigned *out);

/* What an exit code of mcps_run_result_exit_code() means, for a person. */
const char *mcps_report_exit_meaning(int exit_code);

#endif
