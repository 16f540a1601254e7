/*
 * test_proofs.c - `proven-by` lines in suite cases and suites/builtin.proofs:
 * what they hold, and that a bad one stops loading with its file and line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/proofs.h"
#include "engine/suite.h"

#define CASE_HEAD                                                                                  \
    "suite t\ntitle t\n"                                                                           \
    "case a\n"                                                                                     \
    "title t\n"                                                                                    \
    "requires PING-001\n"                                                                          \
    "expect e\n"

static void test_case_proofs(void **state)
{
    (void)state;
    const char *text = CASE_HEAD "proven-by ping-no-response FAIL\n"
                                 "proven-by id-as-number warn ping, errors  # comment\n"
                                 "--> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
    mcps_suite s;
    char err[300];
    if (!mcps_suite_parse("t.suite", text, strlen(text), &s, err, sizeof err))
        fail_msg("%s", err);
    const mcps_case *c = &s.cases[0];
    assert_int_equal(c->nproofs, 2);
    assert_string_equal(c->proofs[0].fault, "ping-no-response");
    assert_int_equal(c->proofs[0].verdict, MCPS_VERDICT_FAIL);
    assert_int_equal(c->proofs[0].nsuites, 0);
    assert_int_equal(c->proofs[0].line, 7);
    assert_int_equal(c->proofs[1].verdict, MCPS_VERDICT_WARN);
    assert_int_equal(c->proofs[1].nsuites, 2);
    assert_string_equal(c->proofs[1].suites[1], "errors");
    mcps_suite_free(&s);
}

static void test_bad_case_proofs(void **state)
{
    (void)state;
    static const struct {
        const char *line, *want;
    } bad[] = {
        {"proven-by ping-no-response\n", "t.suite:7: write proven-by FAULT VERDICT"},
        {"proven-by ping-no-response PASS\n", "t.suite:7: proof verdict 'PASS'"},
        {"proven-by Ping_No FAIL\n", "t.suite:7: fault name 'Ping_No'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[512];
        snprintf(text, sizeof text, "%s%s--> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
                 CASE_HEAD, bad[i].line);
        mcps_suite s;
        char err[300] = "";
        if (mcps_suite_parse("t.suite", text, strlen(text), &s, err, sizeof err))
            fail_msg("accepted %s", bad[i].line);
        if (strncmp(err, bad[i].want, strlen(bad[i].want)) != 0)
            fail_msg("%s: got '%s', want '%s...'", bad[i].line, err, bad[i].want);
    }
}

static bool load_builtin(const char *text, mcps_builtin_proofs *out, char *err, size_t n)
{
    char path[] = "/tmp/mcpspec-proofs-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    bool ok = mcps_builtin_proofs_load(path, out, err, n);
    unlink(path);
    if (!ok) /* the temporary name is not worth comparing */
        memmove(err, strchr(err, ':') ? strchr(err, ':') + 1 : err, strlen(err) + 1);
    return ok;
}

static void test_builtin_proofs(void **state)
{
    (void)state;
    mcps_builtin_proofs p;
    char err[300];
    if (!load_builtin(
            "# c\n\nobserve/json-text JSON-SYNTAX-001 proven-by stdout-noise FAIL ping\n"
            "discovery/initialize LIFE-INIT-003 proven-by init-no-protocol-version FAIL\n",
            &p, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(p.n, 2);
    assert_string_equal(p.items[0].check, "observe/json-text");
    assert_int_equal(p.items[0].proof.line, 3);
    assert_string_equal(p.items[0].proof.suites[0], "ping");
    assert_string_equal(p.items[0].breaks, "JSON-SYNTAX-001");
    mcps_builtin_proofs_free(&p);

    /* The IDs: present, in the catalog, and the check's own. */
    assert_false(load_builtin("observe/json-text proven-by x FAIL ping\n", &p, err, sizeof err));
    assert_non_null(strstr(err, "1: name the requirement IDs"));
    assert_false(
        load_builtin("observe/json-text NOPE-001 proven-by x FAIL ping\n", &p, err, sizeof err));
    assert_non_null(strstr(err, "'NOPE-001' is not a catalog ID"));
    assert_false(
        load_builtin("observe/json-text PING-001 proven-by x FAIL ping\n", &p, err, sizeof err));
    assert_non_null(strstr(err, "'PING-001' is not a requirement of that check"));

    assert_false(
        load_builtin("observe/no-such-rule PING-001 proven-by x FAIL ping\n", &p, err, sizeof err));
    assert_string_equal(strstr(err, "1:") ? "ok" : err, "ok");
    assert_non_null(strstr(err, "no built-in check"));
    assert_false(
        load_builtin("\nobserve/json-text STDIO-002 proven-by x FAIL\n", &p, err, sizeof err));
    assert_non_null(strstr(err, "2: an observer proof names the suites"));
    assert_false(
        load_builtin("ping/empty-result PING-001 proven-by x FAIL\n", &p, err, sizeof err));

    assert_true(mcps_builtin_proofs_load("/nonexistent/builtin.proofs", &p, err, sizeof err));
    assert_int_equal(p.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case_proofs),
        cmocka_unit_test(test_bad_case_proofs),
        cmocka_unit_test(test_builtin_proofs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
