/*
 * afl_faults.c - the fuzz-afl-magic fault (faults_afl.h): a crash behind an
 * 8-byte value that no list exposes, compared whole (one 64-bit comparison
 * once compiled). Black-box generation would have to guess 64 bits, and so
 * would AFL's edge coverage alone: the branch is taken or not, with nothing
 * in between. AFL++ gets it from the comparison itself: its CMPLOG build
 * logs the operands and puts the expected one where the input's bytes were,
 * and AFL_LLVM_DICT2FILE writes the constant to the compiler's dictionary.
 * A byte-per-branch version (each matching byte its own edge) was not found
 * by AFL++ in minutes, nor this one split per byte by laf-intel. What found
 * it: the compiler's dictionary written into the value by the JSON-aware
 * custom mutator (fuzz/afl_json_mutator.c) under AFL's rare schedule
 * (fuzz/README.md).
 */
#include "server.h"

#include <stdlib.h>
#include <string.h>

#define RS_AFL_MAGIC     "Mq7#zK!e"
#define RS_AFL_MAGIC_LEN 8

static const char *argument_value(const cJSON *params)
{
    const cJSON *arg = cJSON_GetObjectItemCaseSensitive(params, "argument");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(arg, "value");
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

void rs_afl_after(rs_server *s, const rs_req *req, const rs_reply *r)
{
    if (!rs_fault_on(s, RS_FAULT_FUZZ_AFL_MAGIC) || r->code || !s->fuzz_armed ||
        !rs_streq(req->method, "completion/complete"))
        return;
    const char *v = argument_value(req->params);
    if (v && strlen(v) >= RS_AFL_MAGIC_LEN && memcmp(v, RS_AFL_MAGIC, RS_AFL_MAGIC_LEN) == 0)
        abort(); /* a completion answered without error for the magic value */
}
