/*
 * afl_faults.c - the fuzz-afl-magic fault (faults_afl.h): a crash behind an
 * 8-byte value that no list exposes. Each byte is its own branch, with a
 * store between them so the compiler cannot merge the comparisons into one
 * 8-byte load: AFL's edge coverage then rewards every byte that matches, and
 * the value is found byte by byte, which black-box generation cannot do.
 */
#include "server.h"

#include <stdlib.h>

static const char *argument_value(const cJSON *params)
{
    const cJSON *arg = cJSON_GetObjectItemCaseSensitive(params, "argument");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(arg, "value");
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* How many leading bytes of v match the magic "Mq7#zK!e", one branch per byte. */
static unsigned magic_depth(rs_server *s, const char *v)
{
    s->afl_depth = 0;
    if (v[0] == 'M') {
        s->afl_depth = 1;
        if (v[1] == 'q') {
            s->afl_depth = 2;
            if (v[2] == '7') {
                s->afl_depth = 3;
                if (v[3] == '#') {
                    s->afl_depth = 4;
                    if (v[4] == 'z') {
                        s->afl_depth = 5;
                        if (v[5] == 'K') {
                            s->afl_depth = 6;
                            if (v[6] == '!') {
                                s->afl_depth = 7;
                                if (v[7] == 'e')
                                    s->afl_depth = 8;
                            }
                        }
                    }
                }
            }
        }
    }
    return s->afl_depth;
}

void rs_afl_after(rs_server *s, const rs_req *req, const rs_reply *r)
{
    if (!rs_fault_on(s, RS_FAULT_FUZZ_AFL_MAGIC) || r->code || !s->fuzz_armed ||
        !rs_streq(req->method, "completion/complete"))
        return;
    const char *v = argument_value(req->params);
    if (v && magic_depth(s, v) == 8)
        abort(); /* a completion answered without error for the magic value */
}
