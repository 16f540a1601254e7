/*
 * uris.h - the URI attack grammar of the live fuzzer: traversal probes for
 * resources/read and resources/subscribe, built from the target's own lists.
 * Each distinct directory of a listed URI, and of each template expanded with
 * a harmless value, anchors the probes of uri/traverse.h (.. and its encoded,
 * doubled, overlong, backslash, NUL and absolute variants); each template is
 * also expanded with traversal values in its variables, so the expansion's
 * own encoding is exercised. Built once, from the dictionary: the same target
 * gives the same attacks.
 */
#ifndef MCPS_LIVE_URIS_H
#define MCPS_LIVE_URIS_H

#include <cjson/cJSON.h>

/* Most attack URIs kept: enough for every trick on a few anchors. */
#define MCPS_LIVE_MAX_ATTACKS 512

/* Attack URIs from uris and templates (arrays of strings) appended to out (an array). */
void mcps_live_uri_attacks(const cJSON *uris, const cJSON *templates, cJSON *out);

#endif
