/*
 * test_suite.c - the suite loader (errors name file and line), matchers,
 * templates and globs; and that every bundled suite loads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/json.h"
#include "engine/match.h"
#include "engine/suite.h"

static cJSON *json(const char *text)
{
    cJSON *j = mcps_json_parse_simple(text, strlen(text));
    if (!j)
        fail_msg("bad JSON in test: %s", text);
    return j;
}

static bool matches(const char *pattern, const char *actual, mcps_vars *vars, char *why)
{
    cJSON *p = json(pattern), *a = actual ? json(actual) : NULL;
    mcps_match_result r;
    char err[200];
    if (!mcps_pattern_validate(p, err, sizeof err))
        fail_msg("pattern %s invalid: %s", pattern, err);
    bool ok = mcps_match(p, a, vars, &r);
    if (why)
        snprintf(why, 600, "%s: %s", r.path, r.detail);
    mcps_json_delete(p);
    mcps_json_delete(a);
    return ok;
}

static void test_matchers(void **state)
{
    (void)state;
    mcps_vars v = {0};
    char why[600];
    assert_true(
        matches("{\"id\":1,\"result\":\"$object\"}", "{\"id\":1,\"result\":{},\"x\":2}", &v, NULL));
    assert_false(matches("{\"id\":1}", "{\"id\":1.0}", &v, why));
    assert_string_equal(why, "$.id: expected 1, got 1.0");
    assert_false(matches("{\"id\":\"42\"}", "{\"id\":42}", &v, why));
    assert_true(matches("{\"a\":\"$absent\"}", "{}", &v, NULL));
    assert_false(matches("{\"a\":\"$absent\"}", "{\"a\":null}", &v, NULL));
    assert_true(matches("{\"id\":{\"$oneOf\":[null,\"$absent\"]}}", "{}", &v, NULL));
    assert_true(matches("{\"id\":{\"$oneOf\":[null,\"$absent\"]}}", "{\"id\":null}", &v, NULL));
    assert_false(matches("{\"id\":{\"$oneOf\":[null,\"$absent\"]}}", "{\"id\":0}", &v, NULL));
    assert_true(matches("{\"$closed\":true,\"a\":1}", "{\"a\":1}", &v, NULL));
    assert_false(matches("{\"$closed\":true,\"a\":1}", "{\"a\":1,\"b\":2}", &v, why));
    assert_non_null(strstr(why, "unexpected member \"b\""));
    assert_true(matches("\"$regex:^[0-9]{4}-[0-9]{2}-[0-9]{2}$\"", "\"2025-06-18\"", &v, NULL));
    assert_false(matches("\"$regex:^a+$\"", "\"ab\"", &v, NULL));
    /* ECMA-262, as JSON Schema's pattern: \d is a digit (POSIX ERE read it as "d"), code points */
    assert_true(matches("\"$regex:^\\\\d+$\"", "\"123\"", &v, NULL));
    assert_false(matches("\"$regex:^\\\\d+$\"", "\"ddd\"", &v, NULL));
    assert_true(matches("\"$regex:^\\\\p{Lu}.$\"", "\"\\u00c9\\u00e9\"", &v, NULL));
    assert_true(matches("{\"$each\":{\"name\":\"$string\"}}", "[{\"name\":\"a\"},{\"name\":\"b\"}]",
                        &v, NULL));
    assert_false(
        matches("{\"$each\":{\"name\":\"$string\"}}", "[{\"name\":\"a\"},{\"name\":3}]", &v, why));
    assert_string_equal(why, "$[1].name: expected $string, got 3");
    assert_true(matches("{\"$contains\":2}", "[1,2,3]", &v, NULL));
    assert_true(matches("{\"$not\":\"$null\"}", "1", &v, NULL));
    assert_true(matches("{\"$size\":{\"min\":1,\"max\":2}}", "\"\xC3\xA9\xC3\xA9\"", &v, NULL));
    assert_true(matches("\"$integer\"", "-3", &v, NULL));
    assert_false(matches("\"$integer\"", "3.0", &v, NULL));
    assert_true(matches("\"$$literal\"", "\"$literal\"", &v, NULL));
    assert_true(matches("{\"$$ref\":1}", "{\"$ref\":1}", &v, NULL));
    mcps_vars_free(&v);
}

static void test_captures_and_variables(void **state)
{
    (void)state;
    mcps_vars v = {0};
    mcps_vars_set_string(&v, "revision", "2025-06-18");
    assert_true(matches("{\"protocolVersion\":\"${revision}\"}",
                        "{\"protocolVersion\":\"2025-06-18\"}", &v, NULL));
    assert_false(matches("{\"v\":\"${revision}\"}", "{\"v\":\"2024-11-05\"}", &v, NULL));
    assert_true(
        matches("{\"nextCursor\":\"$capture?:cursor\"}", "{\"nextCursor\":\"abc\"}", &v, NULL));
    assert_string_equal(mcps_vars_get(&v, "cursor")->valuestring, "abc");
    assert_true(matches("{\"nextCursor\":\"$capture?:cursor\"}", "{}", &v, NULL));
    assert_null(mcps_vars_get(&v, "cursor"));
    /* A failed branch keeps no capture. */
    assert_true(matches("{\"$oneOf\":[{\"a\":\"$capture:x\",\"b\":1},{\"a\":\"$any\"}]}",
                        "{\"a\":5,\"b\":2}", &v, NULL));
    assert_null(mcps_vars_get(&v, "x"));
    assert_false(matches("{\"a\":\"$capture:y\",\"b\":1}", "{\"a\":5,\"b\":2}", &v, NULL));
    assert_null(mcps_vars_get(&v, "y"));
    assert_true(matches("{\"progress\":{\"$gt\":\"${last}\"}}", "{\"progress\":1}", &v, NULL));
    cJSON *one = json("5");
    mcps_vars_set(&v, "last", one);
    mcps_json_delete(one);
    assert_false(matches("{\"progress\":{\"$gt\":\"${last}\"}}", "{\"progress\":5}", &v, NULL));
    assert_true(matches("{\"progress\":{\"$gt\":\"${last}\"}}", "{\"progress\":5.5}", &v, NULL));
    mcps_vars_free(&v);
}

static void test_more_matchers(void **state)
{
    (void)state;
    mcps_vars v = {0};
    char why[600];
    assert_true(matches("{\"$each\":{\"name\":\"$collect:names\"}}",
                        "[{\"name\":\"a\"},{\"name\":\"b\"}]", &v, NULL));
    assert_int_equal(cJSON_GetArraySize(mcps_vars_get(&v, "names")), 2);
    /* A name twice on one page is caught by $in over what is being collected. */
    assert_false(
        matches("{\"$each\":{\"$collect\":\"seen\",\"$is\":{\"$not\":{\"$in\":\"${seen}\"}}}}",
                "[\"x\",\"y\",\"x\"]", &v, why));
    assert_true(matches("{\"$all\":[\"$string\",\"$regex:^a\"]}", "\"abc\"", &v, NULL));
    assert_false(matches("{\"$all\":[\"$string\",\"$regex:^a\"]}", "\"bc\"", &v, NULL));
    assert_true(matches("{\"$between\":[0,1]}", "0.5", &v, NULL));
    assert_false(matches("{\"$between\":[0,1]}", "2", &v, NULL));
    assert_true(matches("{\"$keys\":\"$regex:^[a-z]+$\"}", "{\"ab\":1,\"c\":2}", &v, NULL));
    assert_false(matches("{\"$keys\":\"$regex:^[a-z]+$\"}", "{\"ab\":1,\"C\":2}", &v, NULL));
    assert_true(
        matches("{\"$values\":{\"type\":\"string\"}}", "{\"a\":{\"type\":\"string\"}}", &v, NULL));
    assert_true(matches("{\"$json\":{\"sum\":5}}", "\"{\\\"sum\\\":5}\"", &v, NULL));
    assert_false(matches("{\"$json\":{\"sum\":5}}", "\"not json\"", &v, NULL));
    assert_true(matches("\"$uri\"", "\"file:///a/b\"", &v, NULL));
    assert_false(matches("\"$uri\"", "\"a b\"", &v, NULL));
    assert_true(matches("\"$uri-template\"", "\"mem://item/{id}\"", &v, NULL));
    assert_false(matches("\"$uri-template\"", "\"mem://item/{id\"", &v, NULL));
    assert_true(matches("\"$base64\"", "\"aGk=\"", &v, NULL));
    assert_false(matches("\"$base64\"", "\"aGk\"", &v, NULL));
    assert_true(matches("\"$date-time\"", "\"2026-11-22T09:00:00Z\"", &v, NULL));
    assert_false(matches("\"$date-time\"", "\"yesterday\"", &v, NULL));
    assert_true(
        matches("\"$json-schema\"", "{\"type\":\"object\",\"required\":[\"a\"]}", &v, NULL));
    assert_false(matches("\"$json-schema\"", "{\"type\":\"object\",\"required\":\"a\"}", &v, NULL));
    cJSON *schema = json("{\"type\":\"object\",\"properties\":{\"sum\":{\"type\":\"number\"}}}");
    mcps_vars_set(&v, "schema", schema);
    mcps_json_delete(schema);
    assert_true(matches("{\"$valid-against\":\"${schema}\"}", "{\"sum\":1.5}", &v, NULL));
    assert_false(matches("{\"$valid-against\":\"${schema}\"}", "{\"sum\":\"x\"}", &v, NULL));
    /* Paths into variables. */
    cJSON *p = json("{\"name\":\"greet\",\"arguments\":[{\"name\":\"who\"}]}");
    mcps_vars_set(&v, "prompt", p);
    mcps_json_delete(p);
    assert_string_equal(mcps_vars_get(&v, "prompt.arguments.0.name")->valuestring, "who");
    assert_null(mcps_vars_get(&v, "prompt.arguments.1.name"));
    assert_true(matches("{\"n\":\"${prompt.name}\"}", "{\"n\":\"greet\"}", &v, NULL));
    mcps_vars_free(&v);
}

static void test_undecidable_is_not_a_mismatch(void **state)
{
    (void)state;
    mcps_vars v = {0};
    cJSON *schema = json("{\"$dynamicRef\":\"#meta\"}");
    mcps_vars_set(&v, "schema", schema);
    mcps_json_delete(schema);
    cJSON *pat = json("{\"$valid-against\":\"${schema}\"}"), *val = json("1");
    mcps_match_result r;
    assert_false(mcps_match(pat, val, &v, &r));
    assert_true(r.undecidable);
    mcps_json_delete(pat);
    mcps_json_delete(val);
    mcps_vars_free(&v);
}

static void test_templates(void **state)
{
    (void)state;
    mcps_vars v = {0};
    mcps_vars_set_string(&v, "revision", "2025-03-26");
    cJSON *i = json("3");
    mcps_vars_set(&v, "i", i);
    mcps_json_delete(i);
    cJSON *t = json("{\"id\":\"page-${i}\",\"params\":{\"cursor\":\"${cursor}\",\"v\":\"${revision}"
                    "\",\"n\":\"${i}\"}}");
    char err[200] = "";
    cJSON *out = mcps_template_expand(t, &v, err, sizeof err);
    assert_non_null(out);
    char *s = mcps_json_print(out, NULL);
    assert_string_equal(s, "{\"id\":\"page-3\",\"params\":{\"v\":\"2025-03-26\",\"n\":3}}");
    free(s);
    mcps_json_delete(out);
    mcps_json_delete(t);
    t = json("{\"id\":\"x-${nope}\"}");
    assert_null(mcps_template_expand(t, &v, err, sizeof err));
    assert_non_null(strstr(err, "${nope} is not set"));
    mcps_json_delete(t);
    /* member names are templates too (prompts/hostile-arguments names a real argument) */
    t = json("{\"arguments\":{\"arg-${revision}\":\"../x\"}}");
    out = mcps_template_expand(t, &v, err, sizeof err);
    assert_non_null(out);
    s = mcps_json_print(out, NULL);
    assert_string_equal(s, "{\"arguments\":{\"arg-2025-03-26\":\"../x\"}}");
    free(s);
    mcps_json_delete(out);
    mcps_json_delete(t);
    t = json("{\"${nope}\":1}");
    assert_null(mcps_template_expand(t, &v, err, sizeof err));
    mcps_json_delete(t);
    mcps_vars_free(&v);
}

typedef struct bad_suite {
    const char *text;
    const char *error; /* expected "name:LINE: ..." prefix or fragment */
} bad_suite;

static void test_broken_suites_name_file_and_line(void **state)
{
    (void)state;
    static const bad_suite cases[] = {
        {"suite t\ntitle T\ncase a\ntitle x\nrequires PING-001\nexpect e\n--> {\"id\":1,}\n",
         "t.suite:7: invalid JSON"},
        {"suite t\ntitle T\ncase a\ntitle x\nrequires NOPE-001\n",
         "t.suite:5: unknown requirement ID 'NOPE-001'"},
        {"suite t\ntitle T\ncase a\ntitle x\nrequres PING-001\n",
         "t.suite:5: unknown directive 'requres'"},
        {"suite t\ntitle T\ncase a\ntitle x\nrequires PING-001\nexpect e\n<-- "
         "{\"a\":\"$strnig\"}\n",
         "t.suite:7: unknown matcher \"$strnig\""},
        {"suite t\ntitle T\ncase a\ntitle x\nrequires PING-001\nexpect e\n--> {\"a\":1}\ntitle "
         "late\n",
         "t.suite:8: 'title late' after the first step"},
        {"suite t\ntitle T\ncase a\ntitle x\nrequires PING-001\nexpect e\n",
         "t.suite:3: case 'a' has no steps"},
        {"suite t\ntitle T\ncase a\ntitle x\nrequires PING-001\n--> {}\n",
         "t.suite:3: case 'a' has no expect line"},
        {"suite t\ntitle T\ncase a\ntitle x\nrequires PING-001\nexpect e\n<-- else warn \"x\" {}\n",
         "t.suite:7: '<-- else' must follow an expected message"},
        {"suite t\ntitle T\ncase a\ntitle x\nrequires PING-001\nexpect e\nrepeat max 3 while "
         "${c}\n--> {}\n",
         "t.suite:7: 'repeat' without 'end'"},
        {"suite t\ntitle T\ncase a\ntitle x\nrequires PING-001\nexpect e\n<-- no response for 1 "
         "min\n",
         "t.suite:7: bad duration"},
        {"suite t\ntitle T\ncase a\ntitle x\nrequires PING-001\nexpect e\n--> {}\ncase a\n",
         "t.suite:8: case 'a' appears twice"},
        {"suite other\n", "t.suite:1: suite 'other' is in a file named for 't'"},
        {"suite t\ntitle T\ncase a\ntitle x\nrequires PING-001\nexpect e\nlet x = nosuch(${a})\n",
         "t.suite:7: unknown function 'nosuch'"},
        {"suite t\ntitle T\ncase a\ntitle x\nrequires PING-001\nexpect e\nforeach x in ${l} max "
         "2\n--> {}\n",
         "t.suite:7: 'foreach' without 'end'"},
        {"suite t\ntitle T\ncase a\ntitle x\nrequires PING-001\nexpect e\nrequire ${x}\n",
         "t.suite:7: write 'require ${VAR} else skip"},
        {"suite t\ntitle T\ncase a\ntitle x\nrequires PING-001\nexpect e\n<-- no {\"id\":1}\n",
         "t.suite:7: write '<-- no {pattern} for DURATION'"},
        {"suite t\ntitle T\ncase a\ntitle x\nrevisions 2025-13-01\n", "t.suite:5: bad revisions"},
        {"suite t\ntitle T\ncase a\ntitle x\nrequires PING-001\nexpect e\n--> {\"a\":\n  [1,\n  "
         "2,,]}\n",
         "t.suite:9: invalid JSON"},
        {"suite t\ntitle T\ncase a\ntitle x\nrequires PING-001\nexpect e\n<-- {}\n<-- else "
         "breaks RPC-RSP-003 \"x\" silence\n",
         "t.suite:8: 'breaks RPC-RSP-003': name requirements of the case's 'requires' line"},
        {"suite t\ntitle T\ncase a\ntitle x\nrequires PING-001\nexpect e\n<-- {}\n<-- else "
         "pass breaks PING-001 \"x\" silence\n",
         "t.suite:8: an alternative that breaks a requirement is not pass"},
        {"suite t\ntitle T\ncase a\ntitle x\nrequires PING-001\nexpect e\n<-- {}\n<-- else "
         "breaks \"x\" silence\n",
         "t.suite:8: 'breaks' needs the requirement IDs"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mcps_suite s;
        char err[400] = "";
        if (mcps_suite_parse("t.suite", cases[i].text, strlen(cases[i].text), &s, err, sizeof err))
            fail_msg("case %zu loaded", i);
        if (!strstr(err, cases[i].error))
            fail_msg("case %zu: got '%s', want '%s'", i, err, cases[i].error);
    }
}

static void test_good_suite(void **state)
{
    (void)state;
    const char *text = "# comment\nsuite t\ntitle T\nsection s\n\n"
                       "case a  # trailing comment\ntitle first\nrequires PING-001 RPC-RSP-003\n"
                       "revisions 2025-03-26+\ncapability tools !completions\nsession raw\n"
                       "expect one\nexpect two\n"
                       "--> {\"jsonrpc\":\"2.0\",\"id\":1,\n      \"method\":\"ping\"}\n"
                       "<-- {\"id\":1}\n<-- else warn \"why\" {\"id\":1,\"error\":\"$object\"}\n"
                       "<-- else info \"quiet\" silence\n"
                       "<-- else breaks RPC-RSP-003 PING-001 \"shape\" {\"id\":1,\"result\":[]}\n"
                       "<-- else warn breaks PING-001 \"odd\" {\"id\":1,\"result\":null}\n"
                       "--> raw {\\\"x\\\"\\x01\n"
                       "repeat max 5 while ${c}\n  --> {\"id\":\"p-${i}\"}\n  <-- "
                       "{\"nextCursor\":\"$capture?:c\"}\nend\n"
                       "close stdin\n<-- exit within 2s\n"
                       "case b\ntitle second\nrequires PING-001\nexpect e\n<-- nothing for 100ms\n";
    mcps_suite s;
    char err[400] = "";
    if (!mcps_suite_parse("t.suite", text, strlen(text), &s, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(s.ncases, 2);
    mcps_case *a = &s.cases[0];
    assert_string_equal(a->id, "t/a");
    assert_string_equal(a->requirements, "PING-001 RPC-RSP-003");
    assert_string_equal(a->expect, "one two");
    assert_string_equal(a->section, "s");
    assert_int_equal(a->revisions,
                     MCPS_REV_BIT(1) | MCPS_REV_BIT(2) | MCPS_REV_BIT(3) | MCPS_REV_BIT(4));
    assert_int_equal(a->ncapabilities, 2);
    assert_string_equal(a->capabilities[1], "!completions");
    assert_int_equal(a->session, MCPS_SESSION_RAW);
    assert_int_equal(a->nsteps, 6);
    assert_int_equal(a->steps[0].kind, MCPS_STEP_SEND);
    assert_int_equal(a->steps[0].line, 14);
    assert_int_equal(a->steps[1].nalts, 4);
    assert_null(a->steps[1].alts[1].pattern);
    assert_true(a->steps[1].alts[0].graded);
    assert_null(a->steps[1].alts[0].breaks);
    assert_false(a->steps[1].alts[2].graded); /* graded at the level of what it breaks */
    assert_string_equal(a->steps[1].alts[2].breaks, "RPC-RSP-003 PING-001");
    assert_string_equal(a->steps[1].alts[2].reason, "shape");
    assert_true(a->steps[1].alts[3].graded);
    assert_int_equal(a->steps[1].alts[3].grade, MCPS_VERDICT_WARN);
    assert_string_equal(a->steps[1].alts[3].breaks, "PING-001");
    assert_int_equal(a->steps[2].kind, MCPS_STEP_SEND_RAW);
    assert_int_equal(a->steps[2].raw_len, 5);
    assert_memory_equal(a->steps[2].raw, "{\"x\"\x01", 5);
    assert_int_equal(a->steps[3].kind, MCPS_STEP_REPEAT);
    assert_int_equal(a->steps[3].nbody, 2);
    assert_string_equal(a->steps[3].while_var, "c");
    assert_int_equal(a->steps[5].kind, MCPS_STEP_EXIT);
    assert_int_equal(s.cases[1].steps[0].kind, MCPS_STEP_NOTHING);
    mcps_suite_free(&s);
}

static void test_bundled_suites_load(void **state)
{
    (void)state;
    mcps_suite_set set;
    char err[600];
    if (!mcps_suite_load_dir(MCPS_SOURCE_DIR "/suites", &set, err, sizeof err))
        fail_msg("%s", err);
    assert_true(set.nsuites >= 5);
    mcps_suite_set_free(&set);
}

static void test_globs(void **state)
{
    (void)state;
    assert_true(mcps_glob_match("lifecycle/*", "lifecycle/initialize-result"));
    assert_true(mcps_glob_match("*version*", "lifecycle/unsupported-version-latest"));
    assert_false(mcps_glob_match("ping", "ping/empty"));
    assert_true(mcps_glob_match("p?ng/[a-e]*", "ping/empty-result"));
    assert_false(mcps_glob_match("p?ng/[!a-e]*", "ping/empty-result"));
    assert_true(mcps_glob_match("*", ""));
}

/* Which cases may share a process: what the steps prove harmless, or what the suite vouches for;
 * malformed input that names nothing state-changing on trial; `isolation fresh` and raw sessions
 * never share. */
static void test_isolation_rule(void **state)
{
    (void)state;
    static const struct {
        const char *directives, *steps;
        mcps_sharing how;
    } cases[] = {
        {"", "--> {\"jsonrpc\":\"2.0\",\"id\":\"p-${i}\",\"method\":\"tools/list\"}\n",
         MCPS_SHARE_ALWAYS},
        {"", "--> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\nwait 10ms\n",
         MCPS_SHARE_ALWAYS},
        {"isolation fresh\n", "--> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
         MCPS_SHARE_NEVER},
        {"", "--> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/setLevel\"}\n",
         MCPS_SHARE_NEVER},
        {"", "--> {\"jsonrpc\":\"2.0\",\"id\":1.0,\"method\":\"ping\"}\n", MCPS_SHARE_ON_TRIAL},
        {"", "--> {\"jsonrpc\":\"2.0\",\"id\":\"${id}\",\"method\":\"ping\"}\n",
         MCPS_SHARE_ON_TRIAL},
        {"", "--> {\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}\n", MCPS_SHARE_ON_TRIAL},
        {"", "--> [{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n", MCPS_SHARE_ON_TRIAL},
        {"", "--> raw {}\n", MCPS_SHARE_ON_TRIAL},
        {"", "<-- nothing for 10ms\n", MCPS_SHARE_NEVER},
        {"needs call_tool\n", "<-- {\"id\":1}\n", MCPS_SHARE_NEVER},
        {"client-capabilities {\"roots\":{}}\n", "<-- {\"id\":1}\n", MCPS_SHARE_NEVER},
        {"isolation shared\n", "--> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}\n",
         MCPS_SHARE_ALWAYS},
        {"isolation shared\nsession raw\n", "<-- {\"id\":1}\n", MCPS_SHARE_NEVER},
        {"",
         "foreach x in ${l} max 2\n  --> "
         "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\"}\nend\n",
         MCPS_SHARE_NEVER},
        {"", "--> raw {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n",
         MCPS_SHARE_NEVER},
        {"", "--> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}\n", MCPS_SHARE_NEVER},
        {"", "--> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"no/such\"}\n", MCPS_SHARE_ON_TRIAL},
        {"", "--> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":123}\n", MCPS_SHARE_ON_TRIAL},
        {"", "--> raw x\n<-- no {\"id\":1} for 1s\n", MCPS_SHARE_NEVER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[600];
        snprintf(text, sizeof text,
                 "suite t\ntitle T\ncase a\ntitle x\nrequires PING-001\nexpect e\n%s%s",
                 cases[i].directives, cases[i].steps);
        mcps_suite s;
        char err[400] = "";
        if (!mcps_suite_parse("t.suite", text, strlen(text), &s, err, sizeof err))
            fail_msg("case %zu: %s", i, err);
        if (mcps_case_sharing(&s.cases[0]) != cases[i].how)
            fail_msg("case %zu: sharing should be %d, not %d", i, (int)cases[i].how,
                     (int)mcps_case_sharing(&s.cases[0]));
        mcps_suite_free(&s);
    }
    mcps_suite s;
    char err[400] = "";
    const char *bad = "suite t\ntitle T\ncase a\ntitle x\nisolation some\n";
    assert_false(mcps_suite_parse("t.suite", bad, strlen(bad), &s, err, sizeof err));
    assert_non_null(strstr(err, "t.suite:5: isolation is 'fresh' or 'shared'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matchers),
        cmocka_unit_test(test_captures_and_variables),
        cmocka_unit_test(test_more_matchers),
        cmocka_unit_test(test_undecidable_is_not_a_mismatch),
        cmocka_unit_test(test_templates),
        cmocka_unit_test(test_broken_suites_name_file_and_line),
        cmocka_unit_test(test_good_suite),
        cmocka_unit_test(test_bundled_suites_load),
        cmocka_unit_test(test_globs),
        cmocka_unit_test(test_isolation_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
