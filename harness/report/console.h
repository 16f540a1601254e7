/*
 * console.h - what a person or a CI log sees while a run progresses.
 *
 * On a terminal: one progress line rewritten in place ("[ 37/412] 2025-06-18
 * lifecycle/initialize-result ...") and a line for every case that did not
 * pass. Elsewhere (CI logs): one plain line per case. A failure a baseline
 * excuses says so on its line; the summary lists the baseline's stale entries.
 * Colour only on a terminal, and never when NO_COLOR is set
 * (https://no-color.org). Text from the target is made safe first, so a
 * server cannot drive the terminal.
 *
 * The caller owns the struct; nothing is global, so tests drive it with a
 * memory stream.
 */
#ifndef MCPS_REPORT_CONSOLE_H
#define MCPS_REPORT_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "engine/baseline.h"
#include "engine/result.h"

typedef struct mcps_console {
    FILE *out;
    bool tty;                      /* rewrite a progress line in place */
    bool color;                    /* ANSI colours (only ever with tty) */
    size_t total;                  /* cases expected, 0 when unknown */
    size_t started;                /* cases started so far */
    size_t columns;                /* progress lines are cut to fit this width */
    bool line_open;                /* a progress line is on screen */
    const mcps_baseline *baseline; /* --baseline: mark the cases it excuses as they finish */
    char today[11];
} mcps_console;

/* Colour is asked for only when is_tty; it is used only when is_tty too. */
void mcps_console_init(mcps_console *c, FILE *out, bool is_tty, bool color);
/* The decision the CLI makes: a terminal, and NO_COLOR (the value given) unset or empty. */
bool mcps_console_wants_color(bool is_tty, const char *no_color);
/* init from the stream itself: isatty, NO_COLOR and COLUMNS from the environment. */
void mcps_console_init_auto(mcps_console *c, FILE *out);

void mcps_console_set_total(mcps_console *c, size_t total);
/* The run's baseline (NULL: none) and today's date, "YYYY-MM-DD" (engine/baseline.h). */
void mcps_console_set_baseline(mcps_console *c, const mcps_baseline *b, const char *today);
void mcps_console_case_started(mcps_console *c, const char *case_id, mcps_rev rev);
void mcps_console_case_finished(mcps_console *c, const mcps_case_result *r);
/* Clear the progress line and print the run's totals and what the exit code means. */
void mcps_console_summary(mcps_console *c, const mcps_run_result *run);

#endif
