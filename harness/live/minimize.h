/*
 * minimize.h - shrink a failing sequence to the inputs that matter: cut it
 * after the input where the oracle fired, check it still fails on a fresh
 * process, then ddmin over the messages, then shrink the values left in them
 * (shrink.h) with what remains of the budget. "Still fails" means the same
 * signature (oracle, signal, sanitizer frame), not merely some failure.
 */
#ifndef MCPS_LIVE_MINIMIZE_H
#define MCPS_LIVE_MINIMIZE_H

#include "live/live.h"

/* out gets the minimized inputs (a copy of q when it does not fail again), final their
 * outcome; returns whether the failure reproduced on a fresh process. At most budget
 * executions, and no ddmin candidate started after until_ms (mcps_clock_ms() time; 0: no
 * limit), so a run bounded by --time ends in time even when each candidate hangs; the one
 * or two executions that check it reproduces always run. */
bool mcps_live_minimize(const mcps_live_target *t, const mcps_live_seq *q,
                        const mcps_live_outcome *first, size_t budget, int64_t until_ms,
                        mcps_live_seq *out, mcps_live_outcome *final);
/* The most bytes of minimized inputs made whole from a source: a process's history is up to
 * hundreds of megabytes, and a ddmin cut short by the budget or the run's time leaves much of
 * it (as the history's bound of 64 MiB did before it was played from the seed). */
#define MCPS_LIVE_KEEP_BYTES (64u * 1024 * 1024)
/* The same for inputs made on demand (a process's history, remade from the seed): played a
 * part at a time, so only the minimized inputs are ever in memory whole (a growth finding's
 * candidates too, played many times over). out is left empty when it does not fail again, and
 * when the minimized inputs are over MCPS_LIVE_KEEP_BYTES: *over then says how many they are
 * (0 otherwise). */
bool mcps_live_minimize_source(const mcps_live_target *t, const mcps_live_source *src,
                               const mcps_live_outcome *first, size_t budget, int64_t until_ms,
                               mcps_live_seq *out, mcps_live_outcome *final, size_t *over);

#endif
