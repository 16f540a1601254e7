/*
 * afl.h - `mcpspec fuzz --afl`: the coverage-guided mode for a target built
 * with afl-clang-fast. The target's lists are read once over stdio (as the
 * black-box mode does), a seed corpus and a dictionary are written
 * (afl_seeds.c; in 2026-07-28 the prefix is server/discover and every
 * request carries the revision's _meta), afl-fuzz runs the target on whole
 * sessions as stdin (or,
 * with --afl-target, a program that plays the prefix itself on the requests
 * alone, seeds without the prefix), and every crash or hang it saves is
 * replayed through the live layer on the server, its prefix played again,
 * minimized and written as a finding of the black-box mode's format
 * (afl_import.c).
 */
#ifndef MCPS_LIVE_AFL_H
#define MCPS_LIVE_AFL_H

#include "live/fuzz.h"

/* Run; the exit code as mcps_live_fuzz: 0 nothing found, 1 found, 3 the run could not be
 * done (afl-fuzz missing or refusing the target: the message says why). o->seconds bounds
 * afl-fuzz (killed and reaped a few seconds past it, or at SIGINT/SIGTERM). */
int mcps_live_afl(const mcps_live_options *o);

#endif
