/*
 * afl_seeds.h - what `mcpspec fuzz --afl` gives afl-fuzz to start from: a
 * seed corpus of session files (the valid prefix, then one or two requests
 * built from the target's own lists, one JSON-RPC message per line) and a
 * dictionary (method and member names, the target's names, URIs and
 * cursors). AFL then mutates whole sessions, and its coverage feedback finds
 * the values the lists never show.
 */
#ifndef MCPS_LIVE_AFL_SEEDS_H
#define MCPS_LIVE_AFL_SEEDS_H

#include "live/dict.h"

#define MCPS_LIVE_AFL_SEEDS 64 /* seed files, at most: AFL calibrates each at start */

/* Write dir/seed-NNN files for d, each starting with the prefix for revision, or without it
 * (the target plays it itself); false with err. */
bool mcps_live_afl_seeds(const mcps_live_dict *d, const char *revision, bool with_prefix,
                         const char *dir, char *err, size_t errlen);
/* Write AFL's dictionary (name="value" lines) to path; false with err. */
bool mcps_live_afl_dict(const mcps_live_dict *d, const char *path, char *err, size_t errlen);
/* The prefix a session file starts with: initialize for revision, then
 * notifications/initialized, each on its own line (malloc'd). */
char *mcps_live_afl_prefix(const char *revision);

#endif
