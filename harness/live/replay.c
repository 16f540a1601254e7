/*
 * replay.c - `mcpspec replay`: run a finding file's inputs once on a fresh
 * process, with the same oracles as the run that found it.
 */
#include "live/exec.h"
#include "live/finding.h"
#include "live/fuzz.h"

#include <stdio.h>

int mcps_live_replay(const mcps_live_target *t, const char *path, FILE *out, char *err,
                     size_t errlen)
{
    mcps_live_seq q = {0};
    mcps_live_oracle want;
    char revision[32] = "";
    if (!mcps_live_finding_read(path, &q, &want, revision, sizeof revision, err, errlen)) {
        mcps_live_seq_free(&q);
        return 3;
    }
    mcps_live_target target = *t;
    if (!target.revision)
        target.revision = revision[0] ? revision : "2025-11-25";
    mcps_live_outcome got;
    bool ran = mcps_live_exec(&target, &q, &got, err, errlen);
    size_t n = q.n;
    mcps_live_seq_free(&q);
    if (!ran)
        return 3;
    bool same = got.oracle != MCPS_LIVE_NONE && (want == MCPS_LIVE_NONE || got.oracle == want);
    if (out && got.oracle == MCPS_LIVE_NONE)
        fprintf(out, "replay: %s: no oracle fired (%zu inputs): it does not reproduce\n", path, n);
    else if (out)
        fprintf(out, "replay: %s: %s: %s%s\n", path, mcps_live_oracle_name(got.oracle),
                got.evidence, same ? "" : " (another oracle than the finding's: not counted)");
    return same ? 1 : 0;
}
