/*
 * test_uritemplate.c - RFC 6570 parse, expand (the RFC's own level tables and
 * section 3.2 examples), ambiguity and matching, including a deterministic
 * round-trip check of the guarantee the fuzz target will assert.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "uri/uritemplate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* RFC 6570 section 3.2 variables (1.2 uses the same names and values). */
static const char *const rfc_vars =
    "{\"count\":[\"one\",\"two\",\"three\"],\"dom\":[\"example\",\"com\"],\"dub\":\"me/too\","
    "\"hello\":\"Hello World!\",\"half\":\"50%\",\"var\":\"value\",\"who\":\"fred\","
    "\"base\":\"http://example.com/home/\",\"path\":\"/foo/bar\","
    "\"list\":[\"red\",\"green\",\"blue\"],"
    "\"keys\":{\"semi\":\";\",\"dot\":\".\",\"comma\":\",\"},\"v\":\"6\",\"x\":\"1024\","
    "\"y\":\"768\",\"empty\":\"\",\"empty_keys\":[],\"undef\":null}";

typedef struct example {
    const char *tmpl, *want;
} example;

static char *expand_with(const char *tmpl, const cJSON *vars, mcps_tmpl_error *err)
{
    mcps_tmpl *t = mcps_tmpl_parse(tmpl, strlen(tmpl), err);
    if (!t)
        fail_msg("parse(%s): %s at %zu", tmpl, err->reason, err->offset);
    size_t n = 0;
    char *got = mcps_tmpl_expand(t, vars, &n, err);
    if (got)
        assert_int_equal(n, strlen(got));
    mcps_tmpl_free(t);
    return got;
}

static void check_examples(const example *ex, size_t count, const char *vars_json)
{
    cJSON *vars = cJSON_Parse(vars_json);
    assert_non_null(vars);
    for (size_t i = 0; i < count; i++) {
        mcps_tmpl_error err;
        char *got = expand_with(ex[i].tmpl, vars, &err);
        if (!got)
            fail_msg("expand(%s): %s", ex[i].tmpl, err.reason);
        if (strcmp(got, ex[i].want) != 0)
            fail_msg("expand(%s) = %s, want %s", ex[i].tmpl, got, ex[i].want);
        free(got);
    }
    cJSON_Delete(vars);
}

#define CHECK_EXAMPLES(arr) check_examples(arr, sizeof arr / sizeof arr[0], rfc_vars)

static void check_level(const char *tmpl, int level)
{
    mcps_tmpl *t = mcps_tmpl_parse(tmpl, strlen(tmpl), NULL);
    assert_non_null(t);
    if (mcps_tmpl_level(t) != level)
        fail_msg("level(%s) = %d, want %d", tmpl, mcps_tmpl_level(t), level);
    mcps_tmpl_free(t);
}

static void test_rfc_levels(void **state)
{
    (void)state;
    static const example l1[] = {{"{var}", "value"}, {"{hello}", "Hello%20World%21"}};
    static const example l2[] = {
        {"{+var}", "value"},
        {"{+hello}", "Hello%20World!"},
        {"{+path}/here", "/foo/bar/here"},
        {"here?ref={+path}", "here?ref=/foo/bar"},
        {"X{#var}", "X#value"},
        {"X{#hello}", "X#Hello%20World!"},
    };
    static const example l3[] = {
        {"map?{x,y}", "map?1024,768"},
        {"{x,hello,y}", "1024,Hello%20World%21,768"},
        {"{+x,hello,y}", "1024,Hello%20World!,768"},
        {"{+path,x}/here", "/foo/bar,1024/here"},
        {"{#x,hello,y}", "#1024,Hello%20World!,768"},
        {"{#path,x}/here", "#/foo/bar,1024/here"},
        {"X{.var}", "X.value"},
        {"X{.x,y}", "X.1024.768"},
        {"{/var}", "/value"},
        {"{/var,x}/here", "/value/1024/here"},
        {"{;x,y}", ";x=1024;y=768"},
        {"{;x,y,empty}", ";x=1024;y=768;empty"},
        {"{?x,y}", "?x=1024&y=768"},
        {"{?x,y,empty}", "?x=1024&y=768&empty="},
        {"?fixed=yes{&x}", "?fixed=yes&x=1024"},
        {"{&x,y,empty}", "&x=1024&y=768&empty="},
    };
    static const example l4[] = {
        {"{var:3}", "val"},
        {"{var:30}", "value"},
        {"{list}", "red,green,blue"},
        {"{list*}", "red,green,blue"},
        {"{keys}", "semi,%3B,dot,.,comma,%2C"},
        {"{keys*}", "semi=%3B,dot=.,comma=%2C"},
        {"{+path:6}/here", "/foo/b/here"},
        {"{+list}", "red,green,blue"},
        {"{+list*}", "red,green,blue"},
        {"{+keys}", "semi,;,dot,.,comma,,"},
        {"{+keys*}", "semi=;,dot=.,comma=,"},
        {"{#path:6}/here", "#/foo/b/here"},
        {"{#list}", "#red,green,blue"},
        {"{#list*}", "#red,green,blue"},
        {"{#keys}", "#semi,;,dot,.,comma,,"},
        {"{#keys*}", "#semi=;,dot=.,comma=,"},
        {"X{.var:3}", "X.val"},
        {"X{.list}", "X.red,green,blue"},
        {"X{.list*}", "X.red.green.blue"},
        {"X{.keys}", "X.semi,%3B,dot,.,comma,%2C"},
        {"X{.keys*}", "X.semi=%3B.dot=..comma=%2C"},
        {"{/var:1,var}", "/v/value"},
        {"{/list}", "/red,green,blue"},
        {"{/list*}", "/red/green/blue"},
        {"{/list*,path:4}", "/red/green/blue/%2Ffoo"},
        {"{/keys}", "/semi,%3B,dot,.,comma,%2C"},
        {"{/keys*}", "/semi=%3B/dot=./comma=%2C"},
        {"{;hello:5}", ";hello=Hello"},
        {"{;list}", ";list=red,green,blue"},
        {"{;list*}", ";list=red;list=green;list=blue"},
        {"{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"},
        {"{;keys*}", ";semi=%3B;dot=.;comma=%2C"},
        {"{?var:3}", "?var=val"},
        {"{?list}", "?list=red,green,blue"},
        {"{?list*}", "?list=red&list=green&list=blue"},
        {"{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"},
        {"{?keys*}", "?semi=%3B&dot=.&comma=%2C"},
        {"{&var:3}", "&var=val"},
        {"{&list}", "&list=red,green,blue"},
        {"{&list*}", "&list=red&list=green&list=blue"},
        {"{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"},
        {"{&keys*}", "&semi=%3B&dot=.&comma=%2C"},
    };
    CHECK_EXAMPLES(l1);
    CHECK_EXAMPLES(l2);
    CHECK_EXAMPLES(l3);
    CHECK_EXAMPLES(l4);
    for (size_t i = 0; i < sizeof l1 / sizeof l1[0]; i++)
        check_level(l1[i].tmpl, 1);
    for (size_t i = 0; i < sizeof l2 / sizeof l2[0]; i++)
        check_level(l2[i].tmpl, 2);
    for (size_t i = 0; i < sizeof l3 / sizeof l3[0]; i++)
        check_level(l3[i].tmpl, 3);
    /* level is syntactic: the RFC lists {list} at level 4 only for its value */
    check_level("{var:3}", 4);
    check_level("{list*}", 4);
    check_level("{list}", 1);
    check_level("{+keys}", 2);
    check_level("X{.list}", 3);
    check_level("plain", 1);
}

static void test_rfc_section3(void **state)
{
    (void)state;
    static const example s321[] = {
        {"{count}", "one,two,three"},
        {"{count*}", "one,two,three"},
        {"{/count}", "/one,two,three"},
        {"{/count*}", "/one/two/three"},
        {"{;count}", ";count=one,two,three"},
        {"{;count*}", ";count=one;count=two;count=three"},
        {"{?count}", "?count=one,two,three"},
        {"{?count*}", "?count=one&count=two&count=three"},
        {"{&count*}", "&count=one&count=two&count=three"},
    };
    static const example s322[] = {
        {"{var}", "value"},
        {"{hello}", "Hello%20World%21"},
        {"{half}", "50%25"},
        {"O{empty}X", "OX"},
        {"O{undef}X", "OX"},
        {"{x,y}", "1024,768"},
        {"{x,hello,y}", "1024,Hello%20World%21,768"},
        {"?{x,empty}", "?1024,"},
        {"?{x,undef}", "?1024"},
        {"?{undef,y}", "?768"},
        {"{var:3}", "val"},
        {"{var:30}", "value"},
        {"{list}", "red,green,blue"},
        {"{list*}", "red,green,blue"},
        {"{keys}", "semi,%3B,dot,.,comma,%2C"},
        {"{keys*}", "semi=%3B,dot=.,comma=%2C"},
    };
    static const example s323[] = {
        {"{+var}", "value"},
        {"{+hello}", "Hello%20World!"},
        {"{+half}", "50%25"},
        {"{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"},
        {"{+base}index", "http://example.com/home/index"},
        {"O{+empty}X", "OX"},
        {"O{+undef}X", "OX"},
        {"{+path}/here", "/foo/bar/here"},
        {"here?ref={+path}", "here?ref=/foo/bar"},
        {"up{+path}{var}/here", "up/foo/barvalue/here"},
        {"{+x,hello,y}", "1024,Hello%20World!,768"},
        {"{+path,x}/here", "/foo/bar,1024/here"},
        {"{+path:6}/here", "/foo/b/here"},
        {"{+list}", "red,green,blue"},
        {"{+list*}", "red,green,blue"},
        {"{+keys}", "semi,;,dot,.,comma,,"},
        {"{+keys*}", "semi=;,dot=.,comma=,"},
    };
    static const example s324[] = {
        {"{#var}", "#value"},
        {"{#hello}", "#Hello%20World!"},
        {"{#half}", "#50%25"},
        {"foo{#empty}", "foo#"},
        {"foo{#undef}", "foo"},
        {"{#x,hello,y}", "#1024,Hello%20World!,768"},
        {"{#path,x}/here", "#/foo/bar,1024/here"},
        {"{#path:6}/here", "#/foo/b/here"},
        {"{#list}", "#red,green,blue"},
        {"{#list*}", "#red,green,blue"},
        {"{#keys}", "#semi,;,dot,.,comma,,"},
        {"{#keys*}", "#semi=;,dot=.,comma=,"},
    };
    static const example s325[] = {
        {"{.who}", ".fred"},
        {"{.who,who}", ".fred.fred"},
        {"{.half,who}", ".50%25.fred"},
        {"www{.dom*}", "www.example.com"},
        {"X{.var}", "X.value"},
        {"X{.empty}", "X."},
        {"X{.undef}", "X"},
        {"X{.var:3}", "X.val"},
        {"X{.list}", "X.red,green,blue"},
        {"X{.list*}", "X.red.green.blue"},
        {"X{.keys}", "X.semi,%3B,dot,.,comma,%2C"},
        {"X{.keys*}", "X.semi=%3B.dot=..comma=%2C"},
        {"X{.empty_keys}", "X"},
        {"X{.empty_keys*}", "X"},
    };
    static const example s326[] = {
        {"{/who}", "/fred"},
        {"{/who,who}", "/fred/fred"},
        {"{/half,who}", "/50%25/fred"},
        {"{/who,dub}", "/fred/me%2Ftoo"},
        {"{/var}", "/value"},
        {"{/var,empty}", "/value/"},
        {"{/var,undef}", "/value"},
        {"{/var,x}/here", "/value/1024/here"},
        {"{/var:1,var}", "/v/value"},
        {"{/list}", "/red,green,blue"},
        {"{/list*}", "/red/green/blue"},
        {"{/list*,path:4}", "/red/green/blue/%2Ffoo"},
        {"{/keys}", "/semi,%3B,dot,.,comma,%2C"},
        {"{/keys*}", "/semi=%3B/dot=./comma=%2C"},
    };
    static const example s327[] = {
        {"{;who}", ";who=fred"},
        {"{;half}", ";half=50%25"},
        {"{;empty}", ";empty"},
        {"{;v,empty,who}", ";v=6;empty;who=fred"},
        {"{;v,bar,who}", ";v=6;who=fred"},
        {"{;x,y}", ";x=1024;y=768"},
        {"{;x,y,empty}", ";x=1024;y=768;empty"},
        {"{;x,y,undef}", ";x=1024;y=768"},
        {"{;hello:5}", ";hello=Hello"},
        {"{;list}", ";list=red,green,blue"},
        {"{;list*}", ";list=red;list=green;list=blue"},
        {"{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"},
        {"{;keys*}", ";semi=%3B;dot=.;comma=%2C"},
    };
    static const example s328[] = {
        {"{?who}", "?who=fred"},
        {"{?half}", "?half=50%25"},
        {"{?x,y}", "?x=1024&y=768"},
        {"{?x,y,empty}", "?x=1024&y=768&empty="},
        {"{?x,y,undef}", "?x=1024&y=768"},
        {"{?var:3}", "?var=val"},
        {"{?list}", "?list=red,green,blue"},
        {"{?list*}", "?list=red&list=green&list=blue"},
        {"{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"},
        {"{?keys*}", "?semi=%3B&dot=.&comma=%2C"},
    };
    static const example s329[] = {
        {"{&who}", "&who=fred"},
        {"{&half}", "&half=50%25"},
        {"?fixed=yes{&x}", "?fixed=yes&x=1024"},
        {"{&x,y,empty}", "&x=1024&y=768&empty="},
        {"{&var:3}", "&var=val"},
        {"{&list}", "&list=red,green,blue"},
        {"{&list*}", "&list=red&list=green&list=blue"},
        {"{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"},
        {"{&keys*}", "&semi=%3B&dot=.&comma=%2C"},
    };
    CHECK_EXAMPLES(s321);
    CHECK_EXAMPLES(s322);
    CHECK_EXAMPLES(s323);
    CHECK_EXAMPLES(s324);
    CHECK_EXAMPLES(s325);
    CHECK_EXAMPLES(s326);
    CHECK_EXAMPLES(s327);
    CHECK_EXAMPLES(s328);
    CHECK_EXAMPLES(s329);
}

static void test_expand_values(void **state)
{
    (void)state;
    static const example ex[] = {
        {"{n}/{f}/{neg}", "42/1.5/-7"}, {"\xc3\xa9{s}", "%C3%A9%C3%A9%20x"},
        {"{+pct}", "%41%25zz"},         {"{s:1}", "%C3%A9"},
        {"{none}{?none}", ""},
    };
    cJSON *vars =
        cJSON_Parse("{\"n\":42,\"f\":1.5,\"neg\":-7,\"s\":\"\xc3\xa9 x\",\"pct\":\"%41%zz\"}");
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        mcps_tmpl_error err;
        char *got = expand_with(ex[i].tmpl, vars, &err);
        assert_non_null(got);
        assert_string_equal(got, ex[i].want);
        free(got);
    }
    cJSON_Delete(vars);
    mcps_tmpl *t = mcps_tmpl_parse("{x}", 3, NULL);
    char *got = mcps_tmpl_expand(t, NULL, NULL, NULL);
    assert_string_equal(got, "");
    free(got);
    mcps_tmpl_free(t);
}

static void check_value_error(const char *tmpl, const char *vars_json, const char *reason_part)
{
    cJSON *vars = cJSON_Parse(vars_json);
    assert_non_null(vars);
    mcps_tmpl *t = mcps_tmpl_parse(tmpl, strlen(tmpl), NULL);
    assert_non_null(t);
    mcps_tmpl_error err;
    char *got = mcps_tmpl_expand(t, vars, NULL, &err);
    if (got)
        fail_msg("expand(%s, %s) = %s, want an error", tmpl, vars_json, got);
    if (!strstr(err.reason, reason_part))
        fail_msg("expand(%s): %s", tmpl, err.reason);
    mcps_tmpl_free(t);
    cJSON_Delete(vars);
}

static void test_expand_errors(void **state)
{
    (void)state;
    check_value_error("{x}", "{\"x\":true}", "'x'");
    check_value_error("{x}", "{\"x\":[[\"a\"]]}", "must be");
    check_value_error("{x}", "{\"x\":{\"k\":{}}}", "must be");
    check_value_error("{a}{x:2}", "{\"x\":[\"ab\"]}", "prefix");
    check_value_error("{x:2}", "{\"x\":{\"k\":\"v\"}}", "prefix");
}

static void check_parse_error(const char *tmpl, size_t len, size_t offset, const char *reason_part)
{
    mcps_tmpl_error err;
    if (mcps_tmpl_validate(tmpl, len, &err))
        fail_msg("validate(%s) accepted", tmpl);
    if (err.offset != offset || !strstr(err.reason, reason_part))
        fail_msg("validate(%s): %s at %zu, want '%s' at %zu", tmpl, err.reason, err.offset,
                 reason_part, offset);
}

static void test_parse_errors(void **state)
{
    (void)state;
    check_parse_error("{", 1, 1, "variable name");
    check_parse_error("a{x", 3, 1, "not closed");
    check_parse_error("a}", 2, 1, "'}'");
    check_parse_error("{}", 2, 1, "empty");
    check_parse_error("{=x}", 4, 1, "reserved");
    check_parse_error("{|x}", 4, 1, "reserved");
    check_parse_error("{x:0}", 5, 3, "1-9999");
    check_parse_error("{x:01}", 6, 3, "1-9999");
    check_parse_error("{x:10000}", 9, 3, "1-9999");
    check_parse_error("{x:}", 4, 3, "1-9999");
    check_parse_error("{x*:3}", 6, 3, "unexpected");
    check_parse_error("{x.}", 4, 3, "'.'");
    check_parse_error("{x..y}", 6, 3, "'.'");
    check_parse_error("{.x.}", 5, 4, "'.'");
    check_parse_error("{x y}", 5, 2, "unexpected");
    check_parse_error("{x,}", 4, 3, "empty");
    check_parse_error("{x-y}", 5, 2, "unexpected");
    check_parse_error("{%zz}", 5, 1, "variable name");
    check_parse_error("{{x}}", 5, 1, "variable name");
    check_parse_error("a b", 3, 1, "0x20");
    check_parse_error("a\"b", 3, 1, "0x22");
    check_parse_error("a<b", 3, 1, "0x3C");
    check_parse_error("a%zz", 4, 1, "'%'");
    check_parse_error("a%2", 3, 1, "'%'");
    check_parse_error("\xff", 1, 0, "UTF-8");
    check_parse_error("a\xc3", 2, 1, "UTF-8");
    check_parse_error("\xc0\xaf", 2, 0, "UTF-8");
    check_parse_error("\xc2\x80", 2, 0, "not allowed");
    check_parse_error("{x}\x01", 4, 3, "0x01");
    check_parse_error("{x}\0", 4, 3, "0x00");
    const char *ok[] = {"",
                        "plain",
                        "{x}",
                        "{x_1.y%41}",
                        "{x:9999}",
                        "{+a,b*,c:3}",
                        "http://h/{+p}{?q*}#{f}",
                        "\xc3\xa9{x}\xef\x80\x80",
                        "%2F{/x}"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        mcps_tmpl_error err;
        if (!mcps_tmpl_validate(ok[i], strlen(ok[i]), &err))
            fail_msg("validate(%s): %s at %zu", ok[i], err.reason, err.offset);
    }
}

static void test_var_names(void **state)
{
    (void)state;
    const char *s = "{b}/{a,b}{?c,a}";
    mcps_tmpl *t = mcps_tmpl_parse(s, strlen(s), NULL);
    assert_int_equal(mcps_tmpl_var_count(t), 3);
    assert_string_equal(mcps_tmpl_var_name(t, 0), "b");
    assert_string_equal(mcps_tmpl_var_name(t, 1), "a");
    assert_string_equal(mcps_tmpl_var_name(t, 2), "c");
    assert_null(mcps_tmpl_var_name(t, 3));
    mcps_tmpl_free(t);
}

static void check_ambiguous(const char *tmpl, bool want)
{
    mcps_tmpl *t = mcps_tmpl_parse(tmpl, strlen(tmpl), NULL);
    assert_non_null(t);
    mcps_tmpl_error why;
    bool got = mcps_tmpl_is_ambiguous(t, &why);
    if (got != want)
        fail_msg("is_ambiguous(%s) = %d (%s)", tmpl, got, why.reason);
    if (got)
        assert_true(why.reason[0] != '\0');
    mcps_tmpl_free(t);
}

static const char *const unambiguous[] = {
    "",
    "static",
    "{x}",
    "{x}/{y}",
    "/users/{id}/posts{?page,limit}",
    "{+path}/here",
    "{#frag}",
    "{/a}{/b}",
    "{;x,y}",
    "{?x}{&z}",
    "{x,y}",
    "{/a,b}",
    "foo{.ext}",
    "{x}/{+rest}",
    "{.x}/y",
    "file:///{+path}",
    "{x}/{x}",
    "mem://{host}/{+path}",
    "{a}?{b}#{c}",
};

static void test_ambiguity(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof unambiguous / sizeof unambiguous[0]; i++)
        check_ambiguous(unambiguous[i], false);
    const char *amb[] = {"{x}{y}",     "{x}.{y}",  "{x:3}",       "{list*}",
                         "{+a,b}",     "{.a,b}",   "{+a}/{+b}",   "{x},{y}",
                         "{?x,y}{&z}", "{#a}{#b}", "{x}-{y}.txt", "{a}{/b*}"};
    for (size_t i = 0; i < sizeof amb / sizeof amb[0]; i++)
        check_ambiguous(amb[i], true);
}

static void check_match(const char *tmpl, const char *uri, const char *want_json)
{
    mcps_tmpl *t = mcps_tmpl_parse(tmpl, strlen(tmpl), NULL);
    assert_non_null(t);
    cJSON *got = NULL;
    mcps_tmpl_match_result r = mcps_tmpl_match(t, uri, strlen(uri), &got);
    if (!want_json) {
        if (r != MCPS_TMPL_NO_MATCH)
            fail_msg("match(%s, %s) = %d, want no match", tmpl, uri, r);
        assert_null(got);
        mcps_tmpl_free(t);
        return;
    }
    if (r != MCPS_TMPL_MATCH)
        fail_msg("match(%s, %s) = %d, want %s", tmpl, uri, r, want_json);
    cJSON *want = cJSON_Parse(want_json);
    assert_non_null(want);
    if (!cJSON_Compare(got, want, true)) {
        char *g = cJSON_PrintUnformatted(got);
        fail_msg("match(%s, %s) = %s, want %s", tmpl, uri, g, want_json);
    }
    assert_int_equal(mcps_tmpl_match(t, uri, strlen(uri), NULL), MCPS_TMPL_MATCH);
    cJSON_Delete(want);
    cJSON_Delete(got);
    mcps_tmpl_free(t);
}

static void test_match_basic(void **state)
{
    (void)state;
    check_match("/users/{id}/posts{?page,limit}", "/users/42/posts?page=2&limit=10",
                "{\"id\":\"42\",\"page\":\"2\",\"limit\":\"10\"}");
    check_match("/users/{id}/posts{?page,limit}", "/users/42/posts", "{\"id\":\"42\"}");
    check_match("/users/{id}/posts{?page,limit}", "/users/42/posts?limit=10",
                "{\"id\":\"42\",\"limit\":\"10\"}");
    check_match("/users/{id}/posts{?page,limit}", "/users/42/posts?other=1", NULL);
    check_match("/users/{id}/posts{?page,limit}", "/users/4/2/posts", NULL);
    check_match("file:///{+path}", "file:///a/b%20c", "{\"path\":\"a/b%20c\"}");
    check_match("file:///{path}", "file:///a/b", NULL);
    check_match("file:///{path}", "file:///a%2Fb", "{\"path\":\"a/b\"}");
    check_match("{hello}", "Hello%20World%21", "{\"hello\":\"Hello World!\"}");
    check_match("{x}", "a%00b", "{\"x\":\"a%00b\"}");
    check_match("{x}", "a b", NULL);
    check_match("{x}", "", "{\"x\":\"\"}");
    check_match("{x}", "a%2", NULL);
    check_match("static", "static", "{}");
    check_match("static", "statics", NULL);
    check_match("", "", "{}");
    check_match("", "x", NULL);
    check_match("X{.var}", "X", "{}");
    check_match("X{.var}", "X.", "{\"var\":\"\"}");
    check_match("{+path}/here", "/foo/bar/here", "{\"path\":\"/foo/bar\"}");
    check_match("{x}.{y}", "a.b.c", "{\"x\":\"a.b\",\"y\":\"c\"}");
    check_match("{x,y}", "1024,768", "{\"x\":\"1024\",\"y\":\"768\"}");
    check_match("{x,y}", "1024", "{\"x\":\"1024\"}");
    check_match("{;x,y,empty}", ";x=1024;y=768;empty",
                "{\"x\":\"1024\",\"y\":\"768\",\"empty\":\"\"}");
    check_match("{?x,y,empty}",
                "?x=1024&y=768&empty=", "{\"x\":\"1024\",\"y\":\"768\",\"empty\":\"\"}");
    check_match("{#x,hello,y}", "#1024,Hello%20World!,768",
                "{\"x\":\"1024\",\"hello\":\"Hello%20World!\",\"y\":\"768\"}");
    check_match("é{x}", "%C3%A9v", "{\"x\":\"v\"}");
}

static void test_match_composites(void **state)
{
    (void)state;
    check_match("{list}", "red,green,blue", "{\"list\":[\"red\",\"green\",\"blue\"]}");
    check_match("{/list*}", "/red/green/blue", "{\"list\":[\"red\",\"green\",\"blue\"]}");
    check_match("X{.list*}", "X.red.green.blue", "{\"list\":[\"red\",\"green\",\"blue\"]}");
    check_match("{;list*}", ";list=red;list=green;list=blue",
                "{\"list\":[\"red\",\"green\",\"blue\"]}");
    check_match("{?list*}", "?list=red&list=green", "{\"list\":[\"red\",\"green\"]}");
    check_match("{?keys*}", "?semi=%3B&dot=.&comma=%2C",
                "{\"keys\":{\"semi\":\";\",\"dot\":\".\",\"comma\":\",\"}}");
    check_match("{keys*}", "semi=%3B,dot=.,comma=%2C",
                "{\"keys\":{\"semi\":\";\",\"dot\":\".\",\"comma\":\",\"}}");
    check_match("{/keys*}", "/semi=%3B/dot=./comma=%2C",
                "{\"keys\":{\"semi\":\";\",\"dot\":\".\",\"comma\":\",\"}}");
    check_match("{keys*}", "semi=%3B,dot", NULL);
    check_match("{/list*,path:4}", "/red/green/blue/%2Ffoo",
                "{\"list\":[\"red\",\"green\",\"blue\"],\"path\":\"/foo\"}");
    check_match("{?list*,x}", "?list=a&list=b&x=1", "{\"list\":[\"a\",\"b\"],\"x\":\"1\"}");
    check_match("{x,list*}", "1,a,b", "{\"x\":\"1\",\"list\":[\"a\",\"b\"]}");
    check_match("{/a,b}", "/x/y/z", NULL);
}

static void test_match_repeats_and_prefix(void **state)
{
    (void)state;
    check_match("{x}/{x}", "a/a", "{\"x\":\"a\"}");
    check_match("{x}/{x}", "a/b", NULL);
    check_match("{var:3}/{var}", "val/value", "{\"var\":\"value\"}");
    check_match("{var}/{var:3}", "value/val", "{\"var\":\"value\"}");
    check_match("{var:3}/{var}", "vax/value", NULL);
    check_match("{var:3}", "valu", NULL);
    check_match("{var:3}", "va", "{\"var\":\"va\"}");
    check_match("{x:1}{x:3}", "aabc", "{\"x\":\"abc\"}");
    check_match("{x}{?x}", "a?x=a", "{\"x\":\"a\"}");
    check_match("{x}{?x}", "a", NULL);
    check_match("{x}/{x}/{y}", "a/a/b", "{\"x\":\"a\",\"y\":\"b\"}");
}

static void test_match_bounded(void **state)
{
    (void)state;
    const char *tmpl = "{a}{b}{a}{b}{a}{b}-{c}";
    mcps_tmpl *t = mcps_tmpl_parse(tmpl, strlen(tmpl), NULL);
    size_t n = 3000;
    char *u = malloc(n + 5);
    memset(u, 'a', n);
    memcpy(u + n, "-%zz", 4);
    clock_t t0 = clock();
    assert_int_equal(mcps_tmpl_match(t, u, n + 4, NULL), MCPS_TMPL_MATCH_TOO_COMPLEX);
    assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 2.0);
    mcps_tmpl_free(t);

    /* no repeats: the failure memo keeps short inputs exact */
    tmpl = "{a}{b}{c}-{d}";
    t = mcps_tmpl_parse(tmpl, strlen(tmpl), NULL);
    assert_int_equal(mcps_tmpl_match(t, u, 60, NULL), MCPS_TMPL_NO_MATCH);
    mcps_tmpl_free(t);

    /* long matching input on an unambiguous template is linear */
    tmpl = "file:///{path}{?q}";
    t = mcps_tmpl_parse(tmpl, strlen(tmpl), NULL);
    size_t big = 1 << 20;
    char *v = malloc(big + 16);
    memcpy(v, "file:///", 8);
    memset(v + 8, 'p', big);
    memcpy(v + 8 + big, "?q=1", 4);
    cJSON *got = NULL;
    assert_int_equal(mcps_tmpl_match(t, v, big + 12, &got), MCPS_TMPL_MATCH);
    assert_string_equal(cJSON_GetObjectItem(got, "q")->valuestring, "1");
    cJSON_Delete(got);
    mcps_tmpl_free(t);
    free(v);
    free(u);
}

/* Deterministic xorshift so the round trip covers the same values every run. */
static uint32_t next_rand(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* True when every occurrence of name is under '+' or '#' (one variable per expression here). */
static bool var_in_reserved_only(const char *tmpl, const char *name)
{
    char brace[64];
    snprintf(brace, sizeof brace, "%s}", name);
    for (const char *p = tmpl; (p = strstr(p, brace)) != NULL; p++) {
        const char *open = p;
        while (open > tmpl && *open != '{')
            open--;
        if (open[1] != '+' && open[1] != '#')
            return false;
    }
    return true;
}

static cJSON *random_values(const mcps_tmpl *t, const char *tmpl, uint32_t *seed)
{
    static const char unres[] = "ABCXYZabcxyz0189-._~";
    static const char resv[] = "ABCabc019-._~:/?#[]@!$&'()*+,;=";
    cJSON *vals = cJSON_CreateObject();
    for (size_t i = 0; i < mcps_tmpl_var_count(t); i++) {
        const char *name = mcps_tmpl_var_name(t, i);
        const char *alpha = var_in_reserved_only(tmpl, name) ? resv : unres;
        size_t alen = strlen(alpha), n = next_rand(seed) % 9;
        char buf[16];
        for (size_t k = 0; k < n; k++)
            buf[k] = alpha[next_rand(seed) % alen];
        buf[n] = '\0';
        cJSON_AddStringToObject(vals, name, buf);
    }
    return vals;
}

static void test_match_round_trip(void **state)
{
    (void)state;
    uint32_t seed = 0x9e3779b9u;
    for (size_t i = 0; i < sizeof unambiguous / sizeof unambiguous[0]; i++) {
        const char *tmpl = unambiguous[i];
        mcps_tmpl *t = mcps_tmpl_parse(tmpl, strlen(tmpl), NULL);
        for (int round = 0; round < 300; round++) {
            cJSON *vals = random_values(t, tmpl, &seed);
            size_t n;
            char *uri = mcps_tmpl_expand(t, vals, &n, NULL);
            assert_non_null(uri);
            cJSON *got = NULL;
            mcps_tmpl_match_result r = mcps_tmpl_match(t, uri, n, &got);
            if (r != MCPS_TMPL_MATCH || !cJSON_Compare(got, vals, true)) {
                char *w = cJSON_PrintUnformatted(vals);
                char *g = got ? cJSON_PrintUnformatted(got) : NULL;
                fail_msg("round trip %s via %s: %d, got %s, want %s", tmpl, uri, r, g ? g : "-", w);
            }
            cJSON_Delete(got);
            cJSON_Delete(vals);
            free(uri);
        }
        mcps_tmpl_free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc_levels),       cmocka_unit_test(test_rfc_section3),
        cmocka_unit_test(test_expand_values),    cmocka_unit_test(test_expand_errors),
        cmocka_unit_test(test_parse_errors),     cmocka_unit_test(test_var_names),
        cmocka_unit_test(test_ambiguity),        cmocka_unit_test(test_match_basic),
        cmocka_unit_test(test_match_composites), cmocka_unit_test(test_match_repeats_and_prefix),
        cmocka_unit_test(test_match_bounded),    cmocka_unit_test(test_match_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
