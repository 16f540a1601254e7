/*
 * test_uri.c - RFC 3986 parse, normalize, resolve and RFC 8089 file URI tests.
 *
 * The resolution and normalization vectors are the RFC's own examples, so a
 * failure here means we disagree with the RFC, not with ourselves.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "uri/uri.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_resolve(const char *base, const char *ref, const char *want)
{
    mcps_uri_error err;
    size_t n = 0;
    char *got = mcps_uri_resolve(base, strlen(base), ref, strlen(ref), &n, &err);
    if (!got)
        fail_msg("resolve(%s, %s): %s at %zu", base, ref, err.reason, err.offset);
    if (strcmp(got, want) != 0)
        fail_msg("resolve(%s, \"%s\") = %s, want %s", base, ref, got, want);
    assert_int_equal(n, strlen(want));
    free(got);
}

static const char *const rfc_base = "http://a/b/c/d;p?q";

static void test_resolve_normal(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"g:h", "g:h"},
        {"g", "http://a/b/c/g"},
        {"./g", "http://a/b/c/g"},
        {"g/", "http://a/b/c/g/"},
        {"/g", "http://a/g"},
        {"//g", "http://g"},
        {"?y", "http://a/b/c/d;p?y"},
        {"g?y", "http://a/b/c/g?y"},
        {"#s", "http://a/b/c/d;p?q#s"},
        {"g#s", "http://a/b/c/g#s"},
        {"g?y#s", "http://a/b/c/g?y#s"},
        {";x", "http://a/b/c/;x"},
        {"g;x", "http://a/b/c/g;x"},
        {"g;x?y#s", "http://a/b/c/g;x?y#s"},
        {"", "http://a/b/c/d;p?q"},
        {".", "http://a/b/c/"},
        {"./", "http://a/b/c/"},
        {"..", "http://a/b/"},
        {"../", "http://a/b/"},
        {"../g", "http://a/b/g"},
        {"../..", "http://a/"},
        {"../../", "http://a/"},
        {"../../g", "http://a/g"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_resolve(rfc_base, cases[i][0], cases[i][1]);
}

static void test_resolve_abnormal(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"../../../g", "http://a/g"},
        {"../../../../g", "http://a/g"},
        {"/./g", "http://a/g"},
        {"/../g", "http://a/g"},
        {"g.", "http://a/b/c/g."},
        {".g", "http://a/b/c/.g"},
        {"g..", "http://a/b/c/g.."},
        {"..g", "http://a/b/c/..g"},
        {"./../g", "http://a/b/g"},
        {"./g/.", "http://a/b/c/g/"},
        {"g/./h", "http://a/b/c/g/h"},
        {"g/../h", "http://a/b/c/h"},
        {"g;x=1/./y", "http://a/b/c/g;x=1/y"},
        {"g;x=1/../y", "http://a/b/c/y"},
        {"g?y/./x", "http://a/b/c/g?y/./x"},
        {"g?y/../x", "http://a/b/c/g?y/../x"},
        {"g#s/./x", "http://a/b/c/g#s/./x"},
        {"g#s/../x", "http://a/b/c/g#s/../x"},
        {"http:g", "http:g"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_resolve(rfc_base, cases[i][0], cases[i][1]);
}

static void test_resolve_edges(void **state)
{
    (void)state;
    check_resolve("http://a", "g", "http://a/g");
    check_resolve("http://a/b#frag", "#x", "http://a/b#x");
    /* a path that would read as an authority keeps a "/." guard */
    check_resolve("a:/b", "..//g", "a:/.//g");
    mcps_uri_error err;
    assert_null(mcps_uri_resolve("b/c", 3, "g", 1, NULL, &err));
    assert_non_null(strstr(err.reason, "no scheme"));
    assert_null(mcps_uri_resolve("http://a/", 9, "g h", 3, NULL, &err));
    assert_int_equal(err.offset, 1);
    assert_non_null(strstr(err.reason, "ref"));
}

static void check_dots(const char *in, const char *want)
{
    size_t n;
    char *got = mcps_uri_remove_dot_segments(in, strlen(in), &n);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void test_remove_dot_segments(void **state)
{
    (void)state;
    check_dots("/a/b/c/./../../g", "/a/g");
    check_dots("mid/content=5/../6", "mid/6");
    check_dots("/..", "/");
    check_dots("/.", "/");
    check_dots("..", "");
    check_dots("../../x", "x");
    check_dots("/a/..", "/");
    check_dots("", "");
}

static void check_norm(const char *in, unsigned flags, const char *want)
{
    mcps_uri_error err;
    char *got = mcps_uri_normalize(in, strlen(in), flags, NULL, &err);
    if (!got)
        fail_msg("normalize(%s): %s at %zu", in, err.reason, err.offset);
    if (strcmp(got, want) != 0)
        fail_msg("normalize(%s) = %s, want %s", in, got, want);
    free(got);
}

static void test_normalize_rfc6(void **state)
{
    (void)state;
    /* 6.2.2: both spellings normalize to the same URI */
    check_norm("example://a/b/c/%7Bfoo%7D", 0, "example://a/b/c/%7Bfoo%7D");
    check_norm("eXAMPLE://a/./b/../b/%63/%7bfoo%7d", 0, "example://a/b/c/%7Bfoo%7D");
    /* 6.2.2.1 case */
    check_norm("HTTP://www.EXAMPLE.com/", 0, "http://www.example.com/");
    /* 6.2.2.2 percent-encoding */
    check_norm("http://example.com/%7Euser/%3a%2f", 0, "http://example.com/~user/%3A%2F");
    check_norm("http://%41%62c.example/", 0, "http://abc.example/");
    /* 6.2.2.3 dot segments, even when spelled with %2E */
    check_norm("http://a/b/%2E%2E/c", 0, "http://a/c");
    check_norm("../a/./b", 0, "../a/./b");
    /* 6.2.3 scheme-based, only with the flag */
    const char *same[] = {"http://example.com", "http://example.com/", "http://example.com:/",
                          "http://example.com:80/", "HTTP://Example.COM:0080"};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
        check_norm(same[i], MCPS_URI_NORM_SCHEME_BASED, "http://example.com/");
    check_norm("http://example.com:80", 0, "http://example.com:80");
    check_norm("https://example.com:443/x", MCPS_URI_NORM_SCHEME_BASED, "https://example.com/x");
    check_norm("https://example.com:80/x", MCPS_URI_NORM_SCHEME_BASED, "https://example.com:80/x");
    check_norm("foo://example.com:80", MCPS_URI_NORM_SCHEME_BASED, "foo://example.com:80");
    check_norm("http://[2001:DB8::A]/", 0, "http://[2001:db8::a]/");
    check_norm("http://u%7e@h/?%7e#%7e", 0, "http://u~@h/?~#~");
}

static void check_valid(const char *s)
{
    mcps_uri u;
    mcps_uri_error err;
    if (!mcps_uri_parse(s, strlen(s), &u, &err))
        fail_msg("parse(%s) failed: %s at %zu", s, err.reason, err.offset);
}

static void check_invalid(const char *s, size_t len, size_t offset, const char *reason_part)
{
    mcps_uri u;
    mcps_uri_error err;
    if (mcps_uri_parse(s, len, &u, &err))
        fail_msg("parse(%s) accepted", s);
    if (err.offset != offset || !strstr(err.reason, reason_part))
        fail_msg("parse(%s): %s at %zu, want '%s' at %zu", s, err.reason, err.offset, reason_part,
                 offset);
}

static void test_parse_components(void **state)
{
    (void)state;
    const char *s = "foo://user:pw@example.com:8042/over/there?name=ferret#nose";
    mcps_uri u;
    assert_true(mcps_uri_parse(s, strlen(s), &u, NULL));
    assert_int_equal(u.scheme.len, 3);
    assert_memory_equal(u.authority.ptr, "user:pw@example.com:8042", u.authority.len);
    assert_memory_equal(u.userinfo.ptr, "user:pw", u.userinfo.len);
    assert_memory_equal(u.host.ptr, "example.com", u.host.len);
    assert_int_equal(u.host_kind, MCPS_URI_HOST_REG_NAME);
    assert_memory_equal(u.port.ptr, "8042", u.port.len);
    assert_memory_equal(u.path.ptr, "/over/there", u.path.len);
    assert_memory_equal(u.query.ptr, "name=ferret", u.query.len);
    assert_memory_equal(u.fragment.ptr, "nose", u.fragment.len);

    assert_true(mcps_uri_parse("urn:example:animal:ferret:nose", 30, &u, NULL));
    assert_null(u.authority.ptr);
    assert_int_equal(u.path.len, 26);

    assert_true(mcps_uri_parse("http://a?", 9, &u, NULL));
    assert_non_null(u.query.ptr);
    assert_int_equal(u.query.len, 0);
    assert_null(u.fragment.ptr);

    assert_true(mcps_uri_parse("http://[::1]:80/", 16, &u, NULL));
    assert_int_equal(u.host_kind, MCPS_URI_HOST_IPV6);
    assert_memory_equal(u.host.ptr, "::1", 3);
    assert_true(mcps_uri_parse("http://192.0.2.1/", 17, &u, NULL));
    assert_int_equal(u.host_kind, MCPS_URI_HOST_IPV4);
    assert_true(mcps_uri_parse("http://192.0.2.01/", 18, &u, NULL));
    assert_int_equal(u.host_kind, MCPS_URI_HOST_REG_NAME);
    assert_true(mcps_uri_parse("http://[v7.a:b]/", 16, &u, NULL));
    assert_int_equal(u.host_kind, MCPS_URI_HOST_IPVFUTURE);

    char *back = mcps_uri_recompose(&u, NULL);
    assert_string_equal(back, "http://[v7.a:b]/");
    free(back);
}

static void test_parse_valid(void **state)
{
    (void)state;
    const char *ok[] = {
        "file:///etc/passwd",
        "file:/x",
        "mailto:John.Doe@example.com",
        "news:comp.infosystems.www.servers.unix",
        "tel:+1-816-555-1212",
        "ldap://[2001:db8::7]/c=GB?objectClass?one",
        "urn:oasis:names:specification:docbook:dtd:xml:4.1.2",
        "http://[::]/",
        "http://[1:2:3:4:5:6:7:8]/",
        "http://[::ffff:192.0.2.128]/",
        "http://[1::]/",
        "http://[1:2:3:4:5:6::8]/",
        "http://a:/",
        "http://:80/",
        "http://a/%00",
        "a+b.c-d:x",
        "//host/only",
        "relative/path?q#f",
        "",
        "#",
        "?",
        "x:/a//b?c?d/#e?/",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        check_valid(ok[i]);
}

static void test_parse_invalid(void **state)
{
    (void)state;
    check_invalid("http://a/b c", 12, 10, "space");
    check_invalid("http://a/%2", 11, 9, "%HH");
    check_invalid("http://a/%zz", 12, 9, "%HH");
    check_invalid("http://a/%", 10, 9, "%HH");
    check_invalid("http://a:8x/", 12, 10, "port");
    check_invalid("http://a:-1/", 12, 9, "port");
    check_invalid("http://a:80:80/", 15, 11, "port");
    check_invalid("http://[::1/", 12, 7, "never closed");
    check_invalid("http://[1:2:3:4:5:6:7:8:9]/", 27, 24, "IPv6");
    check_invalid("http://[1::2::3]/", 17, 11, "IPv6");
    check_invalid("http://[:1]/", 12, 8, "IPv6");
    check_invalid("http://[1:]/", 12, 10, "IPv6");
    check_invalid("http://[12345::]/", 17, 8, "IPv6");
    check_invalid("http://[::1.2.3.256]/", 21, 10, "IPv6");
    check_invalid("http://[1:2:3:4:5:6:7::8]/", 26, 24, "IPv6");
    check_invalid("http://[]/", 10, 8, "IPv6");
    check_invalid("http://[fe80::1%25eth0]/", 24, 15, "zone");
    check_invalid("http://[v.x]/", 13, 8, "IPvFuture");
    check_invalid("http://[::1]x/", 14, 12, "after ']'");
    check_invalid("http://a\tb/", 11, 8, "control");
    check_invalid("http://a/\x7f", 10, 9, "control");
    check_invalid("http://a/\xc3\xa9", 11, 9, "non-ASCII");
    check_invalid("http://a@b@c/", 13, 10, "'@'");
    check_invalid("http://a/b#c#d", 14, 12, "'#'");
    check_invalid("http://a/b[1]", 13, 10, "'['");
    check_invalid("1http:x", 7, 5, "first segment");
    check_invalid(":x", 2, 0, "first segment");
    check_invalid("http://a\\b/", 11, 8, "'\\'");
    check_invalid("http://a/\0b", 11, 9, "control");
    mcps_uri_error err;
    assert_false(mcps_uri_validate("a/b", 3, &err));
    assert_non_null(strstr(err.reason, "no scheme"));
    assert_true(mcps_uri_validate("a:b", 3, &err));
}

static void check_file(const char *uri, const char *path)
{
    mcps_uri_error err;
    size_t n;
    char *got = mcps_uri_file_to_path(uri, strlen(uri), &n, &err);
    if (!got)
        fail_msg("file_to_path(%s): %s at %zu", uri, err.reason, err.offset);
    assert_string_equal(got, path);
    assert_int_equal(n, strlen(path));
    free(got);
}

static void check_file_bad(const char *uri, size_t offset, const char *reason_part)
{
    mcps_uri_error err;
    char *got = mcps_uri_file_to_path(uri, strlen(uri), NULL, &err);
    if (got)
        fail_msg("file_to_path(%s) accepted: %s", uri, got);
    if (err.offset != offset || !strstr(err.reason, reason_part))
        fail_msg("file_to_path(%s): %s at %zu", uri, err.reason, err.offset);
}

static void test_file_to_path(void **state)
{
    (void)state;
    check_file("file:///abs/path", "/abs/path");
    check_file("file://localhost/abs", "/abs");
    check_file("FILE://LocalHost/abs", "/abs");
    check_file("file:/abs", "/abs");
    check_file("file:///a%20b/%C3%A9", "/a b/\xc3\xa9");
    check_file("file:///x#frag", "/x");
    check_file("file:///a/../b", "/a/../b");
    check_file_bad("file:///a%00b", 9, "NUL");
    check_file_bad("file:///a%2fb", 9, "%2F");
    check_file_bad("file://host/x", 7, "remote host");
    check_file_bad("file://u@localhost/x", 7, "userinfo");
    check_file_bad("file:///x?q", 9, "query");
    check_file_bad("file:x", 5, "not absolute");
    check_file_bad("file://", 7, "not absolute");
    check_file_bad("http:///x", 0, "not a file");
    check_file_bad("file:///a b", 9, "space");
}

static void check_round_trip(const char *path, size_t len, const char *want_uri)
{
    mcps_uri_error err;
    size_t ulen, plen;
    char *uri = mcps_uri_file_from_path(path, len, &ulen, &err);
    if (!uri)
        fail_msg("file_from_path: %s", err.reason);
    if (want_uri)
        assert_string_equal(uri, want_uri);
    assert_true(mcps_uri_validate(uri, ulen, NULL));
    char *back = mcps_uri_file_to_path(uri, ulen, &plen, &err);
    if (!back)
        fail_msg("file_to_path(%s): %s", uri, err.reason);
    assert_int_equal(plen, len);
    assert_memory_equal(back, path, len);
    free(uri);
    free(back);
}

static void test_file_round_trip(void **state)
{
    (void)state;
    check_round_trip("/abs/path", 9, "file:///abs/path");
    check_round_trip("/a b/c%d#e?f", 12, "file:///a%20b/c%25d%23e%3Ff");
    check_round_trip("/\xc3\xa9t\xc3\xa9", 6, "file:///%C3%A9t%C3%A9");
    check_round_trip("//net/share", 11, "file:////net/share");
    check_round_trip("/", 1, "file:///");
    check_round_trip("/semi;colon:at@x=1", 18, NULL);
    char all[256];
    all[0] = '/';
    for (int i = 1; i < 256; i++)
        all[i] = (char)(i == '/' ? 'x' : i);
    check_round_trip(all, sizeof all, NULL);
    mcps_uri_error err;
    assert_null(mcps_uri_file_from_path("rel", 3, NULL, &err));
    assert_null(mcps_uri_file_from_path("/a\0b", 4, NULL, &err));
    assert_int_equal(err.offset, 2);
}

static void test_long_input_linear(void **state)
{
    (void)state;
    size_t n = 1u << 20;
    char *s = malloc(n + 8);
    memcpy(s, "http://a", 8);
    for (size_t i = 8; i < n + 8; i += 3)
        memcpy(s + i, "/..", (n + 8 - i) < 3 ? (n + 8 - i) : 3);
    char *out = mcps_uri_normalize(s, n + 8, 0, NULL, NULL);
    assert_non_null(out);
    free(out);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolve_normal),    cmocka_unit_test(test_resolve_abnormal),
        cmocka_unit_test(test_resolve_edges),     cmocka_unit_test(test_remove_dot_segments),
        cmocka_unit_test(test_normalize_rfc6),    cmocka_unit_test(test_parse_components),
        cmocka_unit_test(test_parse_valid),       cmocka_unit_test(test_parse_invalid),
        cmocka_unit_test(test_file_to_path),      cmocka_unit_test(test_file_round_trip),
        cmocka_unit_test(test_long_input_linear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
