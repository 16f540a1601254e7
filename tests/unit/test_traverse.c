/*
 * test_traverse.c - the traversal judge on every decoding it models, on paths
 * that stay inside, on root-prefix confusion, and on its own probe generator
 * (every probe must be judged an escape, or the generator and judge disagree).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "uri/traverse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PCT1      MCPS_TRAVERSE_PCT1
#define PCT2      MCPS_TRAVERSE_PCT2
#define SEP       MCPS_TRAVERSE_SEP
#define OVERLONG  MCPS_TRAVERSE_OVERLONG
#define BACKSLASH MCPS_TRAVERSE_BACKSLASH
#define NUL       MCPS_TRAVERSE_NUL
#define STRIP     MCPS_TRAVERSE_STRIP
#define ABSJOIN   MCPS_TRAVERSE_ABSJOIN
#define RAW       MCPS_TRAVERSE_RAW

static mcps_traverse_result judge_n(const char *root, const char *uri, size_t uri_len)
{
    mcps_traverse_result r;
    mcps_traverse_verdict v = mcps_traverse_judge(root, strlen(root), uri, uri_len, &r);
    assert_int_equal(v, r.verdict);
    return r;
}

static void check_inside(const char *root, const char *uri, const char *path)
{
    mcps_traverse_result r = judge_n(root, uri, strlen(uri));
    if (r.verdict != MCPS_TRAVERSE_INSIDE)
        fail_msg("%s under %s: verdict %d, %s", uri, root, r.verdict, r.reason);
    if (path)
        assert_string_equal(r.path, path);
}

static void check_escape_n(const char *root, const char *uri, size_t len, unsigned decoding,
                           const char *path)
{
    mcps_traverse_result r = judge_n(root, uri, len);
    char want[96], got[96];
    if (r.verdict != MCPS_TRAVERSE_ESCAPES || r.decoding != decoding)
        fail_msg("%s under %s: verdict %d by %s (want escape by %s): %s", uri, root, r.verdict,
                 mcps_traverse_decoding_name(r.decoding, got, sizeof got),
                 mcps_traverse_decoding_name(decoding, want, sizeof want), r.reason);
    if (path)
        assert_string_equal(r.path, path);
}

static void check_escape(const char *root, const char *uri, unsigned decoding, const char *path)
{
    check_escape_n(root, uri, strlen(uri), decoding, path);
}

static void test_inside(void **state)
{
    (void)state;
    check_inside("file:///root", "file:///root/a/../b", "/root/b");
    check_inside("file:///root", "file:///root", "/root");
    check_inside("file:///root", "file:///root/", "/root");
    check_inside("file:///root/", "file:///root/x", "/root/x");
    check_inside("/root", "file:///root/a/./b/", "/root/a/b");
    check_inside("file:///root", "file://localhost/root/x", "/root/x");
    check_inside("file://LOCALHOST/root", "FILE:///root/x", "/root/x");
    check_inside("file:///root", "file:///root/a%20b", "/root/a b");
    check_inside("file:///root", "file:///root/a//b", "/root/a/b");
    check_inside("file:///root", "file:///root/....txt", "/root/....txt");
    check_inside("file:///root", "file:///root/..foo/x", "/root/..foo/x");
    check_inside("file:///root", "file:///root/a/%2e%2e/b", "/root/b");
    check_inside("file:///root", "file:///root/a/..%2fb", "/root/a/..%2fb");
    check_inside("file:///", "file:///etc/passwd", "/etc/passwd");
    check_inside("file:///root", "file:relative/x", "/root/relative/x");
    check_inside("file:///root", "file:///root/a?q=../../x#../../y", "/root/a");
}

static void test_root_spelling(void **state)
{
    (void)state;
    /* the root goes through the same decoding as the candidate */
    check_inside("/srv/my data", "file:///srv/my%20data/x", "/srv/my data/x");
    check_inside("file:///srv/my%20data", "file:///srv/my%20data/x", "/srv/my data/x");
    check_escape("/srv/my data", "file:///srv/my%20data/../x", 0, "/srv/x");
}

static void test_prefix_confusion(void **state)
{
    (void)state;
    check_escape("file:///root", "file:///rootx", 0, "/rootx");
    check_escape("file:///root", "file:///rootx/secret", 0, "/rootx/secret");
    check_escape("/root", "file:///root/../rootx", 0, "/rootx");
    check_escape("file:///root/", "file:///roo", 0, "/roo");
    check_escape("file:///root", "file:///", 0, "/");
}

static void test_plain_escapes(void **state)
{
    (void)state;
    check_escape("file:///root", "file:///root/../../etc/passwd", 0, "/etc/passwd");
    check_escape("file:///root", "file:///etc/passwd", 0, "/etc/passwd");
    check_escape("file:///root", "file:/etc/passwd", 0, "/etc/passwd");
    check_escape("file:///root", "file:////etc/passwd", 0, "/etc/passwd");
    check_escape("file:///root", "file:..", 0, "/");
}

static void test_percent_decodings(void **state)
{
    (void)state;
    check_escape("file:///root", "file:///root/%2e%2e/etc", PCT1, "/etc");
    check_escape("file:///root", "file:///root/%2E%2e/etc", PCT1, "/etc");
    check_escape("file:///root", "file:///root/.%2E/etc", PCT1, "/etc");
    check_escape("file:///root", "file:///root/..%2fetc", PCT1 | SEP, "/etc");
    check_escape("file:///root", "file:///root/%2e%2e%2Fetc", PCT1 | SEP, "/etc");
    check_escape("file:///root", "file:///root/%252e%252e/etc", PCT2, "/etc");
    check_escape("file:///root", "file:///root/%252e%252e%252fetc", PCT2 | SEP, "/etc");
    check_escape("file:///root", "file:///root/%%32%65%%32%65/etc", PCT2, "/etc");
    check_escape("file:///root", "file:///root/%c0%ae%c0%ae/etc", PCT1 | OVERLONG, "/etc");
    check_escape("file:///root", "file:///root/..%c0%afetc", PCT1 | OVERLONG, "/etc");
    check_escape("file:///root", "file:///root/%e0%80%ae%e0%80%ae/etc", PCT1 | OVERLONG, "/etc");
}

static void test_separator_decodings(void **state)
{
    (void)state;
    check_escape("file:///root", "file:///root/..\\etc", BACKSLASH, "/etc");
    check_escape("file:///root", "file:///root/..%5cetc", PCT1 | SEP | BACKSLASH, "/etc");
    check_escape("file:///root", "file:///root/%2e%2e%5Cetc", PCT1 | SEP | BACKSLASH, "/etc");
    check_escape("file:///root", "file:///root/%252e%252e%255cetc", PCT2 | SEP | BACKSLASH, "/etc");
    check_inside("file:///root", "file:///root/a%5cb\\c", "/root/a%5cb\\c");
}

static void test_nul_truncation(void **state)
{
    (void)state;
    check_escape("file:///root", "file:///root/..%00/x", PCT1 | NUL, "/");
    check_escape("file:///root", "file:///root/%252e%252e%2500.txt", PCT2 | NUL, "/");
    check_escape_n("file:///root", "file:///root/..\0/x", 18, NUL, "/");
    /* without truncation the decoded NUL is just a byte of a segment name */
    check_escape("file:///root", "file:///root/x%00/../../..", 0, "/");
}

static void test_sanitizer_and_join(void **state)
{
    (void)state;
    check_escape("file:///root", "file:///root/....//etc", STRIP, "/etc");
    check_escape("file:///root", "file:///root/..././etc", STRIP, "/etc");
    check_escape("file:///root", "file:///root/....\\\\etc", BACKSLASH | STRIP, "/etc");
    check_escape("file:///root", "file:///root//etc/passwd", ABSJOIN, "/etc/passwd");
    check_escape("file:///root", "file:///root/%2fetc/passwd", PCT1 | SEP | ABSJOIN, "/etc/passwd");
}

static void test_raw_and_hosts(void **state)
{
    (void)state;
    check_escape("file:///root", "file:///root/x?/../../etc", RAW, "/etc");
    check_escape("file:///root", "file:///root/x#/../../etc", RAW, "/etc");
    mcps_traverse_result r = judge_n("file:///root", "file://evil/root/x", 17);
    assert_int_equal(r.verdict, MCPS_TRAVERSE_ESCAPES);
    assert_int_equal(r.decoding, 0);
    assert_non_null(strstr(r.reason, "evil"));
    r = judge_n("file:///root", "file://../etc/passwd", 20);
    assert_int_equal(r.verdict, MCPS_TRAVERSE_ESCAPES);
    r = judge_n("file:///root", "http://root/x", 13);
    assert_int_equal(r.verdict, MCPS_TRAVERSE_ESCAPES);
    assert_non_null(strstr(r.reason, "scheme"));
    check_inside("file:///root", "file://%6Cocalhost/root/x", NULL);
}

static void test_other_schemes(void **state)
{
    (void)state;
    check_inside("mem://host/docs", "mem://HOST/docs/a", "/docs/a");
    check_inside("MEM://host/docs/", "mem://host/docs/a/../b", "/docs/b");
    check_escape("mem://host/docs", "mem://host/docs/../secret", 0, "/secret");
    check_escape("mem://host/docs", "mem://host/docs/%2e%2e/secret", PCT1, "/secret");
    mcps_traverse_result r = judge_n("mem://host/docs", "mem://other/docs/a", 18);
    assert_int_equal(r.verdict, MCPS_TRAVERSE_ESCAPES);
}

static void test_invalid_and_validity(void **state)
{
    (void)state;
    mcps_traverse_result r = judge_n("file:///root", "", 0);
    assert_int_equal(r.verdict, MCPS_TRAVERSE_INVALID);
    r = judge_n("file:///root", "/etc/passwd", 11);
    assert_int_equal(r.verdict, MCPS_TRAVERSE_INVALID);
    assert_non_null(strstr(r.reason, "scheme"));
    r = judge_n("relative/root", "file:///x", 9);
    assert_int_equal(r.verdict, MCPS_TRAVERSE_INVALID);
    assert_non_null(strstr(r.reason, "root"));
    r = judge_n("mem:foo", "mem:foo/x", 9);
    assert_int_equal(r.verdict, MCPS_TRAVERSE_INVALID);
    r = judge_n("file:///root", "file:///root/x", 14);
    assert_true(r.rfc3986_valid);
    r = judge_n("file:///root", "file:///root/..\\x", 17);
    assert_false(r.rfc3986_valid);
    r = judge_n("file:///root", "file:///root/a\x01/../../x", 23);
    assert_int_equal(r.verdict, MCPS_TRAVERSE_ESCAPES);
    r = judge_n("file:///root", "file:///root/../\x01x", 18);
    assert_int_equal(r.verdict, MCPS_TRAVERSE_ESCAPES);
    assert_string_equal(r.path, "/%01x");
}

static void test_decoding_names(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(mcps_traverse_decoding_name(0, buf, sizeof buf), "none");
    assert_string_equal(mcps_traverse_decoding_name(PCT1 | SEP | NUL, buf, sizeof buf),
                        "pct1+sep+nul");
    assert_string_equal(mcps_traverse_decoding_name(0x1ff, buf, sizeof buf),
                        "pct1+pct2+sep+overlong+backslash+nul+strip+absjoin+raw");
    char small[8];
    mcps_traverse_decoding_name(PCT1 | PCT2 | SEP, small, sizeof small);
    assert_string_equal(small, "pct1");
}

static void check_probes_escape(const char *anchor, const char *root, size_t want_count)
{
    mcps_traverse_probes p, again;
    mcps_uri_error err;
    assert_true(mcps_traverse_make_probes(anchor, strlen(anchor), &p, &err));
    assert_true(mcps_traverse_make_probes(anchor, strlen(anchor), &again, &err));
    assert_int_equal(p.count, want_count);
    assert_int_equal(again.count, p.count);
    for (size_t i = 0; i < p.count; i++) {
        assert_string_equal(p.items[i].uri, again.items[i].uri);
        assert_string_equal(p.items[i].trick, again.items[i].trick);
        assert_int_equal(strlen(p.items[i].uri), p.items[i].len);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(p.items[i].trick, p.items[j].trick);
        mcps_traverse_result r = judge_n(root, p.items[i].uri, p.items[i].len);
        if (r.verdict != MCPS_TRAVERSE_ESCAPES)
            fail_msg("probe %s (%s) judged %d: %s", p.items[i].trick, p.items[i].uri, r.verdict,
                     r.reason);
    }
    mcps_traverse_probes_free(&p);
    mcps_traverse_probes_free(&again);
}

static const char *probe_uri(const mcps_traverse_probes *p, const char *trick)
{
    for (size_t i = 0; i < p->count; i++)
        if (strcmp(p->items[i].trick, trick) == 0)
            return p->items[i].uri;
    fail_msg("no probe %s", trick);
    return NULL;
}

static void test_probes(void **state)
{
    (void)state;
    check_probes_escape("file:///srv/data/", "file:///srv/data", 31);
    check_probes_escape("file:///srv/data/notes/a.txt", "/srv/data/notes", 31);
    check_probes_escape("file://localhost/srv/", "/srv", 31);
    check_probes_escape("mem://h/docs/x", "mem://h/docs", 30);

    mcps_traverse_probes p;
    assert_true(mcps_traverse_make_probes("file:///srv/data/", 17, &p, NULL));
    assert_string_equal(probe_uri(&p, "dotdot"), "file:///srv/data/../../../etc/passwd");
    assert_string_equal(probe_uri(&p, "pct-all"),
                        "file:///srv/data/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc/passwd");
    assert_string_equal(probe_uri(&p, "double-pct-all"),
                        "file:///srv/data/%252e%252e%252f%252e%252e%252f%252e%252e%252fetc/passwd");
    assert_string_equal(probe_uri(&p, "backslash"), "file:///srv/data/..\\..\\..\\etc\\passwd");
    assert_string_equal(probe_uri(&p, "strip-bypass"),
                        "file:///srv/data/....//....//....//etc/passwd");
    assert_string_equal(probe_uri(&p, "nul-dotdot"), "file:///srv/data/..%00/etc/passwd");
    assert_string_equal(probe_uri(&p, "abs-join"), "file:///srv/data//etc/passwd");
    assert_string_equal(probe_uri(&p, "abs-path"), "file:///etc/passwd");
    assert_string_equal(probe_uri(&p, "authority-dotdot"), "file://../../../../etc/passwd");
    mcps_traverse_probes_free(&p);

    /* the probes that need exactly one trick are judged by that trick */
    const char *root = "file:///srv/data";
    const char *cases[][2] = {
        {"nul-dotdot", "pct1+nul"},        {"strip-bypass", "strip"},  {"raw-query", "raw"},
        {"abs-join", "absjoin"},           {"double-pct-dot", "pct2"}, {"pct-slash", "pct1+sep"},
        {"overlong-dot", "pct1+overlong"}, {"backslash", "backslash"}};
    assert_true(mcps_traverse_make_probes("file:///srv/data/", 17, &p, NULL));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *u = probe_uri(&p, cases[i][0]);
        mcps_traverse_result r = judge_n(root, u, strlen(u));
        char name[96];
        assert_string_equal(mcps_traverse_decoding_name(r.decoding, name, sizeof name),
                            cases[i][1]);
    }
    mcps_traverse_probes_free(&p);
}

static void test_probe_errors(void **state)
{
    (void)state;
    mcps_traverse_probes p;
    mcps_uri_error err;
    assert_false(mcps_traverse_make_probes("mem:foo", 7, &p, &err));
    assert_non_null(strstr(err.reason, "absolute path"));
    assert_false(mcps_traverse_make_probes("not a uri", 9, &p, &err));
    assert_int_equal(p.count, 0);
    /* deep anchors cap the ".." chain */
    char deep[400] = "file://";
    for (int i = 0; i < 60; i++)
        strcat(deep, "/d");
    strcat(deep, "/");
    assert_true(mcps_traverse_make_probes(deep, strlen(deep), &p, &err));
    const char *u = probe_uri(&p, "dotdot");
    size_t ups = 0;
    for (const char *q = u; (q = strstr(q, "../")) != NULL; q += 3)
        ups++;
    assert_int_equal(ups, MCPS_TRAVERSE_MAX_UPS);
    mcps_traverse_probes_free(&p);
}

static void test_long_inputs(void **state)
{
    (void)state;
    size_t n = 64 * 1024;
    char *u = malloc(n);
    memcpy(u, "file:///root/", 13);
    const char *pat = "a%2e%c0%ae\\%252f%00//";
    for (size_t i = 13; i < n; i++)
        u[i] = pat[(i - 13) % strlen(pat)];
    clock_t t0 = clock();
    mcps_traverse_result r = judge_n("file:///root", u, n);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    assert_int_not_equal(r.verdict, MCPS_TRAVERSE_INVALID);
    assert_true(secs < 5.0);
    assert_true(strlen(r.path) < MCPS_TRAVERSE_PATH_MAX);
    free(u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inside),
        cmocka_unit_test(test_root_spelling),
        cmocka_unit_test(test_prefix_confusion),
        cmocka_unit_test(test_plain_escapes),
        cmocka_unit_test(test_percent_decodings),
        cmocka_unit_test(test_separator_decodings),
        cmocka_unit_test(test_nul_truncation),
        cmocka_unit_test(test_sanitizer_and_join),
        cmocka_unit_test(test_raw_and_hosts),
        cmocka_unit_test(test_other_schemes),
        cmocka_unit_test(test_invalid_and_validity),
        cmocka_unit_test(test_decoding_names),
        cmocka_unit_test(test_probes),
        cmocka_unit_test(test_probe_errors),
        cmocka_unit_test(test_long_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
