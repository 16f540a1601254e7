/*
 * faults_afl.h - refserver faults for the coverage-guided mode (`mcpspec fuzz --afl`),
 * afl_faults.c. One X(ENUM_SUFFIX, "name", "REQUIREMENT-IDS", "one-line description") per
 * fault; faults.h joins the areas into one table. Fuzz-only like faults_fuzz.h (the "fuzz-"
 * prefix): a bug behind a magic value that no list exposes, so black-box generation cannot
 * guess it while AFL++ can get it from the comparison (CMPLOG, or the compiler's dictionary).
 * scripts/bench-fuzz-afl compares the two modes on it (fuzz/README.md has the figures: the
 * AFL mode with the compiler's dictionary, afl-json-mutator.so and -p rare found it in 31 to
 * 101 s, the black-box mode not in 300 s; CMPLOG does not work with the afl++ here);
 * tests/e2e/test_fuzz_afl.py proves the mode's pipeline on fuzz-sequence-crash instead.
 */
#ifndef RS_FAULTS_AFL_H
#define RS_FAULTS_AFL_H

#define RS_FAULTS_AFL(X)                                                                           \
    X(FUZZ_AFL_MAGIC, "fuzz-afl-magic", "RPC-RSP-004",                                             \
      "abort on completion/complete with the argument value \"Mq7#zK!e\" once prompts/get "        \
      "\"plain\" was answered (needs the comparison seen from inside to guess)")
#endif
