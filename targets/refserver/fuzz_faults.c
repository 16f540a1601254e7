/*
 * fuzz_faults.c - the fuzz-* faults (faults_fuzz.h): bugs a live fuzzer must
 * find, minimize and replay, that no conformance check is meant to catch.
 * Each needs an input a conformance suite never sends: a sequence of two
 * requests, an empty argument, a long cursor, many repetitions of a list, a
 * tool argument one past its schema's bound, an encoded ".." in a file: URI.
 */
#include "server.h"

#include "base/buf.h"
#include "base/hex.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOARD_BLOCK (256 * 1024)
#define SHARDS      1024 /* route's shard table; its schema says 0..1023 */

static const char *param_text(const cJSON *params, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void hang_for_good(void)
{
    for (;;)
        pause(); /* stdin unread, nothing answered; a signal ends it */
}

/* A heap copy read one byte too far: harmless in a release build, a report under ASan. */
static void overread_copy(const char *text, size_t len)
{
    char *copy = malloc(len);
    if (!copy)
        return;
    memcpy(copy, text, len);
    volatile char past = copy[len];
    (void)past;
    free(copy);
}

/* Every string of 1024 bytes or more in params, down to depth levels (prompt arguments, a
 * cursor, a URI), copied carelessly. */
static void copy_long_strings(const cJSON *v, int depth)
{
    const cJSON *child;
    cJSON_ArrayForEach(child, v)
    {
        if (cJSON_IsString(child) && strlen(child->valuestring) >= 1024)
            overread_copy(child->valuestring, strlen(child->valuestring));
        else if (depth > 1 && (cJSON_IsObject(child) || cJSON_IsArray(child)))
            copy_long_strings(child, depth - 1);
    }
}

/* fuzz-schema-boundary: a range check written "<= SHARDS" lets the table's size through. */
static void route_shard(const cJSON *params)
{
    if (!rs_streq(param_text(params, "name"), "route"))
        return;
    const cJSON *shard = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(params, "arguments"), "shard");
    if (cJSON_IsNumber(shard) && shard->valuedouble == SHARDS)
        abort(); /* shard_table[SHARDS]: one past the end */
}

/* Whether path has a ".." segment. */
static bool has_dotdot(const char *path)
{
    for (const char *seg = path; *seg;) {
        size_t n = strcspn(seg, "/");
        if (n == 2 && seg[0] == '.' && seg[1] == '.')
            return true;
        seg += n + (seg[n] == '/');
    }
    return false;
}

/* Whether the segments of path, ".." popping one, ever climb above where they start. */
static bool climbs_out(const char *path)
{
    long depth = 0;
    for (const char *seg = path; *seg;) {
        size_t n = strcspn(seg, "/");
        if (n == 2 && seg[0] == '.' && seg[1] == '.') {
            if (--depth < 0)
                return true;
        } else if (n && !(n == 1 && seg[0] == '.')) {
            depth++;
        }
        seg += n + (seg[n] == '/');
    }
    return false;
}

/* fuzz-traversal: ".." is refused in the URI as sent, then the path is decoded and used, so
 * %2e%2e climbs out of the root; the assertion meant to catch that is what goes off. */
static void file_uri(const cJSON *params)
{
    static const char prefix[] = "file://";
    const char *uri = param_text(params, "uri");
    if (!uri || strncmp(uri, prefix, sizeof prefix - 1) != 0)
        return;
    const char *path = strchr(uri + sizeof prefix - 1, '/');
    if (!path || has_dotdot(path))
        return;
    mcps_buf decoded = {0};
    bool out = mcps_percent_decode(path, &decoded) && decoded.data && climbs_out(decoded.data);
    mcps_buf_free(&decoded);
    if (out)
        abort();
}

void rs_fuzz_before(rs_server *s, const rs_req *req)
{
    if (rs_fault_on(s, RS_FAULT_FUZZ_SCHEMA_BOUNDARY) && rs_streq(req->method, "tools/call"))
        route_shard(req->params);
    if (rs_fault_on(s, RS_FAULT_FUZZ_TRAVERSAL) &&
        (rs_streq(req->method, "resources/read") || rs_streq(req->method, "resources/subscribe")))
        file_uri(req->params);
    if (rs_fault_on(s, RS_FAULT_FUZZ_HANG) && rs_streq(req->method, "prompts/get") &&
        rs_streq(param_text(req->params, "name"), "greet")) {
        const char *who =
            param_text(cJSON_GetObjectItemCaseSensitive(req->params, "arguments"), "name");
        if (who && !*who)
            hang_for_good();
    }
    if (rs_fault_on(s, RS_FAULT_FUZZ_ASAN_OVERFLOW))
        copy_long_strings(req->params, 2);
}

/* fuzz-leak: a cache that never evicts (reachable, so LeakSanitizer says nothing at exit; only
 * the growth of the process shows it); fuzz-fd-leak: a descriptor opened and forgotten. */
static void leak(rs_server *s, const rs_req *req)
{
    if (rs_fault_on(s, RS_FAULT_FUZZ_LEAK) && rs_streq(req->method, "tools/list")) {
        void **block = malloc(HOARD_BLOCK);
        if (!block)
            return;
        memset(block, 0x5a, HOARD_BLOCK); /* touched: resident, as a real cache's would be */
        *block = s->fuzz_hoard;
        s->fuzz_hoard = block;
    } else if (rs_fault_on(s, RS_FAULT_FUZZ_FD_LEAK) && rs_streq(req->method, "resources/list")) {
        (void)open("/dev/null", O_RDONLY | O_CLOEXEC);
    }
}

void rs_fuzz_after(rs_server *s, const rs_req *req, const rs_reply *r)
{
    rs_afl_after(s, req, r);
    if (!r->code)
        leak(s, req);
    bool arms =
        rs_fault_on(s, RS_FAULT_FUZZ_SEQUENCE_CRASH) || rs_fault_on(s, RS_FAULT_FUZZ_AFL_MAGIC);
    if (!arms || r->code)
        return;
    if (rs_streq(req->method, "prompts/get") && rs_streq(param_text(req->params, "name"), "plain"))
        s->fuzz_armed = true;
    else if (rs_fault_on(s, RS_FAULT_FUZZ_SEQUENCE_CRASH) && s->fuzz_armed &&
             rs_streq(req->method, "tools/list") && param_text(req->params, "cursor"))
        abort(); /* a page past the first: answered without error, so the cursor was valid */
}
