/*
 * faults_fuzz.h - refserver faults for the live fuzzer (`mcpspec fuzz`), fuzz_faults.c.
 * One X(ENUM_SUFFIX, "name", "REQUIREMENT-IDS", "one-line description") per fault;
 * faults.h joins the areas into one table. These are fuzz-only: no conformance
 * check is meant to catch them (their names start with "fuzz-", which the proof
 * tests read as such); tests/e2e/test_fuzz_live.py proves the fuzzer finds each.
 */
#ifndef RS_FAULTS_FUZZ_H
#define RS_FAULTS_FUZZ_H

#define RS_FAULTS_FUZZ(X)                                                                          \
    X(FUZZ_SEQUENCE_CRASH, "fuzz-sequence-crash", "RPC-RSP-004",                                   \
      "abort on a tools/list page past the first once prompts/get \"plain\" was answered")         \
    X(FUZZ_HANG, "fuzz-hang", "RPC-RSP-004",                                                       \
      "stop answering for good on prompts/get \"greet\" with an empty \"name\" argument")          \
    X(FUZZ_ASAN_OVERFLOW, "fuzz-asan-overflow", "RPC-RSP-004",                                     \
      "read one byte past a heap copy of a params string of 1024 bytes or more (only ASan sees "   \
      "it)")                                                                                       \
    X(FUZZ_LEAK, "fuzz-leak", "RPC-RSP-004",                                                       \
      "keep 256 KiB for good (an unbounded cache) on every tools/list answered")                   \
    X(FUZZ_FD_LEAK, "fuzz-fd-leak", "RPC-RSP-004",                                                 \
      "open a descriptor and never close it on every resources/list answered")                     \
    X(FUZZ_SERVER_CRASH, "fuzz-server-crash", "RPC-RSP-004",                                       \
      "with --http: the whole server aborts when a session's child is killed by a signal, as a "   \
      "one-process server dies (with fuzz-sequence-crash: a crash over HTTP)")                     \
    X(FUZZ_SCHEMA_BOUNDARY, "fuzz-schema-boundary", "RPC-RSP-004",                                 \
      "abort on tools/call route with shard 1024, its inputSchema's maximum + 1 (an off-by-one "   \
      "range check)")                                                                              \
    X(FUZZ_TRAVERSAL, "fuzz-traversal", "RES-010",                                                 \
      "abort on resources/read or resources/subscribe of a file: URI whose percent-decoded path "  \
      "climbs above the root with \"..\" (a check made before decoding misses %2e%2e)")            \
    X(FUZZ_HEADER_CRASH, "fuzz-header-crash", "RPC-RSP-004",                                       \
      "with --http: the whole server aborts on a session's MCP-Protocol-Version header of 32 "     \
      "bytes or more (a fixed buffer whose bound is asserted)")
#endif
