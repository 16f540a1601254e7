/*
 * test_findings.c - every finding kind reaches an observer rule: the kind
 * names a rule that exists, its requirement IDs are in the catalog and share
 * one with the rule; and the tally drops nothing silently (a finding of no
 * known kind becomes an ERROR check, and real findings leave the count at 0).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/findings.h"
#include "engine/catalog.h"
#include "engine/internal.h"
#include "engine/run.h"

static bool has_id(const char *ids, const char *id)
{
    size_t n = strlen(id);
    for (const char *p = strstr(ids, id); p; p = strstr(p + 1, id))
        if ((p == ids || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
            return true;
    return false;
}

static void test_every_rule_is_described(void **state)
{
    (void)state;
    const char *name, *title, *reqs;
    size_t i = 0;
    for (; mcps_run_observer_rule(i, &name, &title, &reqs); i++) {
        if (!name || !title || !reqs || !*reqs)
            fail_msg("rule %zu has no entry in observers.c", i);
    }
    assert_int_equal(i, MCPS_RULE_COUNT);
}

static void test_every_kind_reaches_its_rule(void **state)
{
    (void)state;
    for (int k = MCPS_FINDING_NOTE + 1; k < MCPS_FINDING_KIND_COUNT; k++) {
        const char *kname = mcps_finding_kind_name((mcps_finding_kind)k);
        const char *ids = mcps_finding_kind_reqs((mcps_finding_kind)k);
        mcps_rule r = mcps_finding_kind_rule((mcps_finding_kind)k);
        const char *name, *title, *reqs;
        if (!ids || !mcps_run_observer_rule((size_t)r, &name, &title, &reqs))
            fail_msg("finding kind %s has no rule", kname);
        bool shared = false;
        char copy[128];
        snprintf(copy, sizeof copy, "%s", ids);
        for (char *id = strtok(copy, " "); id; id = strtok(NULL, " ")) {
            if (!mcps_catalog_find(id))
                fail_msg("finding kind %s: %s is not in the catalog", kname, id);
            shared = shared || has_id(reqs, id);
        }
        if (!shared)
            fail_msg("finding kind %s (%s) shares no requirement with observe/%s (%s)", kname, ids,
                     name, reqs);
    }
    assert_null(mcps_finding_kind_reqs(MCPS_FINDING_NOTE));
    assert_int_equal(mcps_finding_kind_rule(MCPS_FINDING_NOTE), MCPS_RULE_COUNT);
}

static const mcps_case_result *find_case(const mcps_run_result *r, const char *id)
{
    for (size_t i = 0; i < r->ncases; i++)
        if (strcmp(r->cases[i].id, id) == 0)
            return &r->cases[i];
    return NULL;
}

static void test_tally_drops_nothing(void **state)
{
    (void)state;
    mcps_tally *t = mcps_tally_new();
    assert_non_null(t);
    mcps_finding f = {.kind = MCPS_FINDING_DUPLICATE_KEY, .reqs = "JSON-DUP-001", .line = 3};
    snprintf(f.message, sizeof f.message, "duplicate key");
    mcps_tally_finding(t, MCPS_REV_2025_06_18, "ping/x", &f, "");
    f.kind = MCPS_FINDING_NOTE;
    mcps_tally_finding(t, MCPS_REV_2025_06_18, "ping/x", &f, "");
    assert_int_equal(mcps_tally_unmatched(t), 0);

    mcps_run_result r = {0};
    assert_true(mcps_tally_results(t, MCPS_REV_BIT(MCPS_REV_2025_06_18), &r));
    const mcps_case_result *dup = find_case(&r, "observe/duplicate-key");
    assert_non_null(dup);
    assert_int_equal(dup->verdict, MCPS_VERDICT_WARN);
    assert_null(find_case(&r, "observe/unmatched-findings"));
    mcps_run_result_free(&r);

    f.kind = MCPS_FINDING_KIND_COUNT; /* no such kind: must show, not vanish */
    mcps_tally_finding(t, MCPS_REV_2025_06_18, "ping/x", &f, "");
    assert_int_equal(mcps_tally_unmatched(t), 1);
    r = (mcps_run_result){0};
    assert_true(mcps_tally_results(t, MCPS_REV_BIT(MCPS_REV_2025_06_18), &r));
    const mcps_case_result *lost = find_case(&r, "observe/unmatched-findings");
    assert_non_null(lost);
    assert_int_equal(lost->verdict, MCPS_VERDICT_ERROR);
    mcps_run_result_free(&r);
    mcps_tally_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_rule_is_described),
        cmocka_unit_test(test_every_kind_reaches_its_rule),
        cmocka_unit_test(test_tally_drops_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
