/*
 * afl_import.h - AFL's saved inputs (out/default/crashes/ and hangs/) as
 * findings of the black-box mode's format: each file is split into lines,
 * its session prefix dropped (the live layer plays its own), run on a fresh
 * target process, and minimized. An input that does not fail outside AFL is
 * kept as a finding marked not reproduced, never dropped silently.
 */
#ifndef MCPS_LIVE_AFL_IMPORT_H
#define MCPS_LIVE_AFL_IMPORT_H

#include "live/finding.h"
#include "live/fuzz.h"

typedef struct mcps_live_afl_found {
    mcps_live_finding findings[MCPS_LIVE_MAX_FINDINGS];
    char sources[MCPS_LIVE_MAX_FINDINGS][300]; /* the AFL file each came from */
    size_t n;
    size_t duplicates; /* AFL inputs whose signature was already a finding */
    size_t from_seeds; /* findings of the seed check, before AFL ran */
    size_t skipped;    /* AFL inputs left unimported: the import's deadline had passed */
    int64_t until_ms;  /* the import's deadline (mcps_clock_ms()); 0: none */
    double first_ms;   /* time: of the earliest crash or hang AFL saved; -1: none */
    unsigned per_oracle[MCPS_LIVE_ORACLES];
} mcps_live_afl_found;

/* The line inputs of an AFL session file, without its prefix (initialize and
 * notifications/initialized, or server/discover: the live layer plays its own). */
void mcps_live_afl_split(const char *bytes, size_t len, mcps_live_seq *out);
/* Run each seed of in_dir: one that fails already is a finding, taken out of the corpus. */
void mcps_live_afl_check_seeds(const mcps_live_options *o, const char *in_dir,
                               const char *findings_dir, mcps_live_afl_found *found);
/* Import every file of afl_out/default/{crashes,hangs}/ into found. */
void mcps_live_afl_import(const mcps_live_options *o, const char *afl_out, const char *findings_dir,
                          mcps_live_afl_found *found);

#endif
