/*
 * config.h - the target configuration file: one per target, checked into the
 * target's repository so its CI runs mcpspec the same way every time.
 *
 *   {
 *     "server": {"command": "node dist/index.js stdio", "cwd": ".", "env": {"K": "V"}},
 *     "calls": {
 *       "tool":      {"name": "echo", "arguments": {"message": "hi"}},
 *       "slow_tool": {"name": "slow", "arguments": {"steps": 20}}
 *     }
 *   }
 *
 * "calls" is the consent: mcpspec calls no tool the file does not name.
 * "tool" is a call without side effects worth worrying about; "slow_tool" one
 * that runs long enough (a second or more) to be cancelled and to report
 * progress. They reach the suites as ${call_tool}, ${call_arguments},
 * ${slow_tool}, ${slow_arguments}. A relative "cwd" is relative to the file.
 * Unknown members are errors, so a typo cannot silently drop a consent.
 * A file may name a "client" instead of a "server" (the same shape, plus "stays"):
 * `mcpspec run --config` then tests that client (engine/client.h).
 * See docs/target-config.md.
 */
#ifndef MCPS_ENGINE_CONFIG_H
#define MCPS_ENGINE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/match.h"

typedef struct mcps_target_file {
    char *command;     /* the server's (or with is_client, the client's); NULL: none named */
    bool is_client;    /* "client" instead of "server": a client under test (run --client) */
    bool client_stays; /* "client": {"stays": true}: it keeps running once done */
    char *cwd;         /* absolute or relative to the process; NULL: inherit */
    char **env;        /* NULL-terminated "K=V" list, or NULL */
    mcps_vars vars;    /* what the suites see */
} mcps_target_file;

/* Load path; on failure err says "FILE:LINE: what is wrong". */
bool mcps_target_file_load(const char *path, mcps_target_file *out, char *err, size_t errlen);
void mcps_target_file_free(mcps_target_file *f);

#endif
