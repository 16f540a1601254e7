/*
 * dict.h - what the generator knows of the target: names, URIs and cursors
 * from its own lists (discovered once, before fuzzing, so the same target
 * gives the same dictionary), the URI attacks built from them (uris.h), and the
 * tool calls the configuration consents to, with their inputSchema (args.h).
 */
#ifndef MCPS_LIVE_DICT_H
#define MCPS_LIVE_DICT_H

#include "live/live.h"

typedef struct mcps_live_dict {
    cJSON *tools;     /* names from tools/list (never called without consent) */
    cJSON *prompts;   /* [{"name":..., "args":[names]}] from prompts/list */
    cJSON *uris;      /* resources/list uris */
    cJSON *templates; /* resources/templates/list uriTemplates */
    cJSON *cursors;   /* {"tools/list": [nextCursor, ...], ...}: every one each list gave */
    cJSON *calls;     /* [{"name":..., "arguments":{...}, "inputSchema":{...}}]: the consented
                         tool calls, each with its schema when tools/list gave one */
    cJSON *schemas;   /* {name: inputSchema} from tools/list; only consented calls use them */
    cJSON *attacks;   /* traversal URIs from uris and templates (uris.h) */
    mcps_rev rev;     /* the revision fuzzed: 2026-07-28 requests carry their own _meta */
} mcps_live_dict;

void mcps_live_dict_init(mcps_live_dict *d);
void mcps_live_dict_free(mcps_live_dict *d);
/* Read the target's lists (a few pages each); false with err when it cannot be started. */
bool mcps_live_dict_discover(mcps_live_dict *d, const mcps_live_target *t, char *err,
                             size_t errlen);
/* A tool call the configuration consents to (arguments copied; NULL: {}); after discovery,
 * so that it gets the tool's inputSchema. */
void mcps_live_dict_consent(mcps_live_dict *d, const char *name, const cJSON *arguments);

#endif
