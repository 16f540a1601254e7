/*
 * test_observe_forget.c - mcps_observer_forget_answered, which keeps a fuzz
 * process's request table to the sequences in flight: answered requests up to
 * the mark go, unanswered ones and later marks stay and still pair with their
 * answers, and a second answer to a forgotten request is still a finding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "codec/json.h"
#include "session/observe.h"

typedef struct seen {
    int unpaired, second;
} seen;

static void on_finding(void *ctx, const mcps_finding *f)
{
    seen *s = ctx;
    s->unpaired += f->kind == MCPS_FINDING_RESPONSE_ID;
    s->second += f->kind == MCPS_FINDING_SECOND_RESPONSE;
}

static void line(mcps_observer *obs, mcps_dir dir, const char *text)
{
    mcps_observed out = {0};
    if (mcps_observer_line(obs, dir, text, strlen(text), 0, 1, &out))
        mcps_json_delete(out.msg);
}

static void request(mcps_observer *obs, int id, uint64_t mark)
{
    char text[128];
    snprintf(text, sizeof text, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}", id);
    obs->mark = mark;
    line(obs, MCPS_DIR_TO_SERVER, text);
}

static void answer(mcps_observer *obs, int id)
{
    char text[128];
    snprintf(text, sizeof text, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{}}", id);
    line(obs, MCPS_DIR_FROM_SERVER, text);
}

static void test_forgets_only_answered_up_to_the_mark(void **state)
{
    (void)state;
    seen s = {0};
    mcps_observer obs;
    mcps_observer_init(&obs, MCPS_REV_2025_11_25, 1 << 20, on_finding, &s);
    request(&obs, 1, 1);
    request(&obs, 2, 1);
    request(&obs, 3, 2);
    answer(&obs, 1);
    answer(&obs, 3);
    mcps_observer_forget_answered(&obs, 1);
    assert_int_equal(obs.nrequests, 2); /* 2 (unanswered) and 3 (a later mark) */
    answer(&obs, 2);                    /* still pairs */
    answer(&obs, 3);                    /* still a second answer */
    assert_int_equal(s.second, 1);
    assert_int_equal(s.unpaired, 0);
    answer(&obs, 1); /* forgotten: answers no request it knows */
    assert_int_equal(s.unpaired, 1);
    mcps_observer_forget_answered(&obs, 2);
    assert_int_equal(obs.nrequests, 0);
    request(&obs, 4, 3); /* the table works on after a forget */
    answer(&obs, 4);
    assert_int_equal(s.unpaired, 1);
    assert_int_equal(s.second, 1);
    mcps_observer_free(&obs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forgets_only_answered_up_to_the_mark),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
