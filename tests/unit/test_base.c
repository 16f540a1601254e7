/*
 * test_base.c - the shared text primitives every layer decodes through: the
 * one UTF-8 decoder (Unicode table 3-7 boundaries, each rejection's reason),
 * the one hex decoder, and array growth.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/hex.h"
#include "base/utf8.h"

typedef struct utf8_case {
    const char *bytes;
    size_t len;      /* expected sequence length, 0 when rejected */
    uint32_t cp;     /* when accepted */
    const char *why; /* when rejected: a word of the reason */
} utf8_case;

static const utf8_case utf8_cases[] = {
    {"A", 1, 0x41, NULL},
    {"\xC2\x80", 2, 0x80, NULL},
    {"\xDF\xBF", 2, 0x7FF, NULL},
    {"\xE0\xA0\x80", 3, 0x800, NULL},
    {"\xED\x9F\xBF", 3, 0xD7FF, NULL},
    {"\xEE\x80\x80", 3, 0xE000, NULL},
    {"\xEF\xBF\xBF", 3, 0xFFFF, NULL},
    {"\xF0\x90\x80\x80", 4, 0x10000, NULL},
    {"\xF4\x8F\xBF\xBF", 4, 0x10FFFF, NULL},
    {"\x80", 0, 0, "continuation"},
    {"\xC0\x80", 0, 0, "overlong"},
    {"\xC1\xBF", 0, 0, "overlong"},
    {"\xE0\x9F\xBF", 0, 0, "overlong"},
    {"\xF0\x8F\xBF\xBF", 0, 0, "overlong"},
    {"\xED\xA0\x80", 0, 0, "surrogate"},
    {"\xED\xBF\xBF", 0, 0, "surrogate"},
    {"\xF4\x90\x80\x80", 0, 0, "U+10FFFF"},
    {"\xF5\x80\x80\x80", 0, 0, "U+10FFFF"},
    {"\xFF", 0, 0, "never"},
    {"\xE2\x82", 0, 0, "truncated"},
    {"\xE2\x28\xA1", 0, 0, "truncated"},
    {"\xF0\x90\x80\x28", 0, 0, "truncated"},
};

static void test_utf8_table_3_7(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof utf8_cases / sizeof utf8_cases[0]; i++) {
        const utf8_case *c = &utf8_cases[i];
        uint32_t cp = 0xDEAD;
        const char *why = NULL;
        size_t n = mcps_utf8_decode((const unsigned char *)c->bytes, strlen(c->bytes), &cp, &why);
        assert_int_equal(n, c->len);
        if (n) {
            assert_int_equal(cp, c->cp);
            unsigned char back[4];
            if (cp)
                assert_memory_equal(back, c->bytes, mcps_utf8_encode(cp, back));
        } else {
            assert_non_null(why);
            assert_non_null(strstr(why, c->why));
        }
    }
    size_t bad = 0;
    assert_true(mcps_utf8_valid("a\xC3\xA9z", 4, &bad));
    assert_false(mcps_utf8_valid("ab\xC3", 3, &bad));
    assert_int_equal(bad, 2);
    assert_int_equal(mcps_utf8_count("a\xC3\xA9\xF0\x9F\x98\x80"), 3);
    unsigned char nul[4];
    assert_int_equal(mcps_utf8_encode(0, nul), 2); /* C0 80, as the codec stores U+0000 */
    assert_int_equal(nul[0], 0xC0);
}

static void test_hex(void **state)
{
    (void)state;
    const char *digits = "0123456789abcdefABCDEF";
    for (int c = -1; c < 256; c++) {
        const char *at = c > 0 ? strchr(digits, c) : NULL;
        int want = at ? (int)(at - digits) - ((at - digits) >= 16 ? 6 : 0) : -1;
        assert_int_equal(mcps_hex_value(c), want);
    }
    assert_int_equal(mcps_hex_byte("7e"), 0x7E);
    assert_int_equal(mcps_hex_byte("Ff"), 0xFF);
    assert_int_equal(mcps_hex_byte("g0"), -1);
    assert_int_equal(mcps_hex_byte("0"), -1); /* stops at the NUL */
}

static void test_array_grow(void **state)
{
    (void)state;
    size_t cap = 0;
    int *a = NULL;
    assert_true(mcps_array_reserve(&a, &cap, 1, sizeof *a, 8));
    assert_non_null(a);
    assert_int_equal(cap, 8);
    int *was = a;
    assert_true(mcps_array_reserve(&a, &cap, 8, sizeof *a, 8));
    assert_ptr_equal(a, was);
    assert_true(mcps_array_reserve(&a, &cap, 9, sizeof *a, 8));
    assert_int_equal(cap, 16);
    a[15] = 1;
    was = a;
    assert_false(mcps_array_reserve(&a, &cap, SIZE_MAX / 2, sizeof *a, 8));
    assert_int_equal(cap, 16);
    assert_ptr_equal(a, was);
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_utf8_table_3_7),
        cmocka_unit_test(test_hex),
        cmocka_unit_test(test_array_grow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
