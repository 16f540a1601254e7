/*
 * result.c - verdict names, counting, exit codes, and a session's log taken into a
 * case; see result.h.
 */
#include "engine/result.h"

#include "engine/internal.h"

#include <stdlib.h>

const char *mcps_verdict_name(mcps_verdict v)
{
    static const char *const names[] = {"PASS", "FAIL", "WARN", "INFO", "SKIP", "ERROR"};
    return v < MCPS_VERDICT_COUNT ? names[v] : "?";
}

void mcps_case_take_log(mcps_case_result *c, mcps_session *s)
{
    mcps_wire_log log;
    mcps_session_take_log(s, &log);
    c->wire = log.entries;
    c->nwire = log.nentries;
    c->wire_dropped = log.dropped;
    c->notes = log.notes;
    c->nnotes = log.nnotes;
    c->cut = log.cut;
    c->stalled_seconds = log.stalled_seconds;
    c->responsive = log.responsive;
}

mcps_verdict mcps_verdict_for_level(mcps_level level)
{
    if (mcps_level_is_hard(level))
        return MCPS_VERDICT_FAIL;
    if (mcps_level_is_soft(level))
        return MCPS_VERDICT_WARN;
    return MCPS_VERDICT_INFO;
}

void mcps_run_result_count(mcps_run_result *run)
{
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
        run->counts[v] = run->baselined[v] = 0;
    for (size_t i = 0; i < run->ncases; i++) {
        run->counts[run->cases[i].verdict]++;
        run->baselined[run->cases[i].verdict] += run->cases[i].baseline != NULL;
    }
}

/* Cases of verdict v that no baseline entry excused. */
static size_t counted(const mcps_run_result *run, mcps_verdict v)
{
    return run->counts[v] - run->baselined[v];
}

/* A FAIL is a definite finding even when the run could not go on (a broken
 * initialize ends it early), so it decides the code before "incomplete"; so is a
 * stale baseline entry, a finding about the gate itself. */
int mcps_run_result_exit_code(const mcps_run_result *run)
{
    if (counted(run, MCPS_VERDICT_FAIL) || (run->baseline && run->baseline->nstale))
        return 1;
    if (run->fatal || counted(run, MCPS_VERDICT_ERROR))
        return 3;
    if (run->strict && counted(run, MCPS_VERDICT_WARN))
        return 1;
    return 0;
}

static void case_baseline_free(mcps_case_baseline *b)
{
    if (!b)
        return;
    free(b->match);
    free(b->revision);
    free(b->reason);
    free(b->expires);
    free(b);
}

static void run_baseline_free(mcps_run_baseline *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->nstale; i++) {
        mcps_stale_entry *e = &b->stale[i];
        free(e->match);
        free(e->revision);
        free(e->reason);
        free(e->expires);
        free(e->detail);
    }
    free(b->stale);
    free(b->file);
    free(b);
}

void mcps_case_result_free(mcps_case_result *c)
{
    free(c->id);
    free(c->suite);
    free(c->title);
    free(c->section);
    free(c->requirements);
    free(c->broken);
    free(c->expected);
    free(c->observed);
    free(c->reason);
    for (size_t i = 0; i < c->nwire; i++)
        free(c->wire[i].bytes);
    free(c->wire);
    for (size_t i = 0; i < c->nnotes; i++) {
        free(c->notes[i].reqs);
        free(c->notes[i].message);
    }
    free(c->notes);
    case_baseline_free(c->baseline);
}

void mcps_run_result_free(mcps_run_result *run)
{
    free(run->tool_version);
    free(run->target);
    free(run->transport);
    free(run->started_at);
    free(run->fatal);
    for (int r = 0; r < MCPS_REV_COUNT; r++)
        free(run->probes[r].detail);
    for (size_t i = 0; i < run->ncases; i++)
        mcps_case_result_free(&run->cases[i]);
    free(run->cases);
    run_baseline_free(run->baseline);
}

bool mcps_run_result_push(mcps_run_result *run, mcps_case_result *c)
{
    mcps_case_result *cases = realloc(run->cases, (run->ncases + 1) * sizeof *cases);
    if (!cases)
        return false;
    run->cases = cases;
    run->cases[run->ncases++] = *c;
    *c = (mcps_case_result){0};
    return true;
}
