/*
 * replay.c - `mcpspec replay`: run a finding file's inputs once on a fresh
 * process, with the same oracles as the run that found it; a growth finding's
 * over the growth window, repeated (growth.h), since one pass of a leak shows
 * nothing.
 */
#include "live/exec.h"
#include "live/finding.h"
#include "live/fuzz.h"
#include "live/growth.h"

#include <stdio.h>
#include <string.h>

/* Whether got is the finding again: its oracle (any, if the file names none); for a growth
 * finding, what grew too (descriptors or memory). */
static bool same(const mcps_live_finding_head *head, const mcps_live_outcome *got)
{
    if (got->oracle == MCPS_LIVE_NONE)
        return false;
    if (head->oracle == MCPS_LIVE_GROWTH && head->signature[0])
        return strcmp(got->signature, head->signature) == 0;
    return head->oracle == MCPS_LIVE_NONE || got->oracle == head->oracle;
}

int mcps_live_replay(const mcps_live_target *t, const char *path, FILE *out, char *err,
                     size_t errlen)
{
    mcps_live_seq q = {0};
    mcps_live_finding_head head;
    if (!mcps_live_finding_read(path, &q, &head, err, errlen)) {
        mcps_live_seq_free(&q);
        return 3;
    }
    if (head.oracle == MCPS_LIVE_GROWTH && t->transport.url && !t->server) {
        mcps_live_seq_free(&q);
        snprintf(err, errlen,
                 "a growth finding is measured on the server's processes: with --url, give "
                 "--server CMD too, so that mcpspec starts the server and watches it");
        return 3;
    }
    mcps_live_target target = *t;
    if (!target.revision)
        target.revision = head.revision[0] ? head.revision : "2025-11-25";
    target.growth = mcps_live_growth_watch(head.signature);
    mcps_live_outcome got;
    size_t reps = 1;
    bool ran = head.oracle == MCPS_LIVE_GROWTH
                   ? mcps_live_exec_growth(&target, &q, &got, &reps, err, errlen)
                   : mcps_live_exec(&target, &q, &got, err, errlen);
    size_t n = q.n;
    mcps_live_seq_free(&q);
    if (!ran)
        return 3;
    bool again = same(&head, &got);
    if (out && got.oracle == MCPS_LIVE_NONE)
        fprintf(out,
                "replay: %s: no oracle fired (%zu inputs, played %zu times): it does not "
                "reproduce\n",
                path, n, reps);
    else if (out)
        fprintf(out, "replay: %s: %s: %s%s\n", path, mcps_live_oracle_name(got.oracle),
                got.evidence, again ? "" : " (not the finding's oracle or signature: not counted)");
    return again ? 1 : 0;
}
