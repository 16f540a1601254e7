/*
 * test_live.c - the live fuzzer's deterministic parts: the PRNG (a known
 * splitmix64 stream, bounds, per-sequence seeds), the generator (same seed and
 * dictionary, same inputs), tool arguments from an inputSchema (valid, at a
 * bound, one past it) and calls only to the consented tool, the URI attacks
 * built from listed URIs and templates, ddmin (the exact culprits, within its
 * budget), and a finding file's raw lines (any bytes survive the write and the
 * read back).
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

#include "live/args.h"
#include "live/ddmin.h"
#include "live/dict.h"
#include "live/finding.h"
#include "live/gen.h"
#include "live/rng.h"
#include "live/shrink.h"
#include "live/uris.h"

static void test_rng_known_stream(void **state)
{
    (void)state;
    mcps_live_rng r;
    mcps_live_rng_seed(&r, 0);
    /* splitmix64's published first outputs from state 0. */
    assert_true(mcps_live_rng_next(&r) == 0xe220a8397b1dcdafULL);
    assert_true(mcps_live_rng_next(&r) == 0x6e789e6aa1b965f4ULL);
    for (int i = 0; i < 1000; i++)
        assert_true(mcps_live_rng_below(&r, 7) < 7);
    assert_int_equal(mcps_live_rng_below(&r, 0), 0);
    assert_true(mcps_live_rng_derive(1, 0) != mcps_live_rng_derive(1, 1));
    assert_true(mcps_live_rng_derive(1, 5) == mcps_live_rng_derive(1, 5));
    assert_true(mcps_live_rng_derive(1, 5) != mcps_live_rng_derive(2, 5));
}

static void small_dict(mcps_live_dict *d)
{
    mcps_live_dict_init(d);
    cJSON_AddItemToArray(d->tools, cJSON_CreateString("add"));
    cJSON_AddItemToArray(d->uris, cJSON_CreateString("mem://item/001"));
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "name", "greet");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "args"), cJSON_CreateString("name"));
    cJSON_AddItemToArray(d->prompts, p);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(d->cursors, "tools/list"),
                         cJSON_CreateString("t50"));
}

static bool same_seq(const mcps_live_seq *a, const mcps_live_seq *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (a->items[i].len != b->items[i].len ||
            memcmp(a->items[i].bytes, b->items[i].bytes, a->items[i].len) != 0)
            return false;
    return true;
}

static void test_gen_is_deterministic(void **state)
{
    (void)state;
    mcps_live_dict d;
    small_dict(&d);
    size_t differ = 0;
    for (uint64_t n = 0; n < 50; n++) {
        mcps_live_seq a = {0}, b = {0}, c = {0};
        mcps_live_gen_seq(&d, mcps_live_rng_derive(9, n), 8, &a);
        mcps_live_gen_seq(&d, mcps_live_rng_derive(9, n), 8, &b);
        mcps_live_gen_seq(&d, mcps_live_rng_derive(10, n), 8, &c);
        assert_true(a.n >= 1 && a.n <= 8);
        assert_true(same_seq(&a, &b));
        differ += !same_seq(&a, &c);
        /* No consent in this dictionary: no tool is ever called. */
        for (size_t i = 0; i < a.n; i++)
            assert_null(strstr(a.items[i].bytes, "tools/call"));
        mcps_live_seq_free(&a);
        mcps_live_seq_free(&b);
        mcps_live_seq_free(&c);
    }
    assert_true(differ > 40);
    mcps_live_dict_free(&d);
}

static const char route_schema[] =
    "{\"type\":\"object\",\"properties\":{\"region\":{\"type\":\"string\"},"
    "\"shard\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":1023}},"
    "\"required\":[\"region\"],\"additionalProperties\":false}";

/* Over many draws: boundary values sit on the bounds, invalid ones break the schema, every
 * kind is made, and one past the maximum comes up. */
static void test_args_from_schema(void **state)
{
    (void)state;
    cJSON *schema = cJSON_Parse(route_schema);
    cJSON *conf = cJSON_Parse("{\"region\":\"us\",\"shard\":42}");
    mcps_live_rng rng;
    mcps_live_rng_seed(&rng, 1);
    bool seen[MCPS_LIVE_ARGS_INVALID + 1] = {false}, past_max = false;
    for (int i = 0; i < 200; i++) {
        mcps_live_args_kind kind = (mcps_live_args_kind)(i % 4), made;
        cJSON *args = mcps_live_args_make(schema, conf, kind, &rng, &made);
        assert_true(cJSON_IsObject(args));
        seen[made] = true;
        const cJSON *shard = cJSON_GetObjectItemCaseSensitive(args, "shard");
        if (made == MCPS_LIVE_ARGS_BOUNDARY)
            assert_true(cJSON_IsNumber(shard) &&
                        (shard->valuedouble == 0 || shard->valuedouble == 1023));
        past_max |=
            made == MCPS_LIVE_ARGS_INVALID && cJSON_IsNumber(shard) && shard->valuedouble == 1024;
        if (made == MCPS_LIVE_ARGS_CONFIGURED)
            assert_true(cJSON_Compare(args, conf, true));
        cJSON_Delete(args);
    }
    for (int k = 0; k <= MCPS_LIVE_ARGS_INVALID; k++)
        assert_true(seen[k]);
    assert_true(past_max);
    /* No schema: the configured arguments, whatever the kind asked. */
    mcps_live_args_kind made;
    cJSON *args = mcps_live_args_make(NULL, conf, MCPS_LIVE_ARGS_INVALID, &rng, &made);
    assert_int_equal(made, MCPS_LIVE_ARGS_CONFIGURED);
    assert_true(cJSON_Compare(args, conf, true));
    cJSON_Delete(args);
    cJSON_Delete(conf);
    cJSON_Delete(schema);
}

static bool has_string(const cJSON *list, const char *s)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, list) if (strcmp(v->valuestring, s) == 0) return true;
    return false;
}

/* Probes anchored at each listed directory and at a template's, the template expanded with
 * climbing values; the same lists give the same attacks. */
static void test_uri_attacks(void **state)
{
    (void)state;
    cJSON *uris = cJSON_Parse("[\"file:///README.txt\",\"file:///docs/notes.md\","
                              "\"file:///docs/other.md\",\"mem://item/001\"]");
    cJSON *templates = cJSON_Parse("[\"file:///{+path}\",\"mem://item/{id}\"]");
    cJSON *a = cJSON_CreateArray(), *b = cJSON_CreateArray();
    mcps_live_uri_attacks(uris, templates, a);
    mcps_live_uri_attacks(uris, templates, b);
    assert_true(cJSON_Compare(a, b, true));
    int n = cJSON_GetArraySize(a);
    assert_true(n > 60 && n <= MCPS_LIVE_MAX_ATTACKS);
    assert_true(has_string(a, "file:///%2e%2e/etc/passwd") ||
                has_string(a, "file:///%2e%2e/%2e%2e/etc/passwd"));
    bool docs = false, climbing = false, mem = false;
    const cJSON *v;
    cJSON_ArrayForEach(v, a)
    {
        docs |= strncmp(v->valuestring, "file:///docs/", 13) == 0;
        mem |= strncmp(v->valuestring, "mem://item/", 11) == 0;
        climbing |= strcmp(v->valuestring, "file:///%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/"
                                           "etc/passwd") == 0;
    }
    assert_true(docs && mem && climbing);
    cJSON_Delete(a);
    cJSON_Delete(b);
    cJSON_Delete(uris);
    cJSON_Delete(templates);
}

/* Whether every tools/call in the input (a batch's too) that names a tool names route; an
 * input that does not parse (a raw mutated value) names route wherever it names a tool. */
static bool names_only_route(const char *in)
{
    cJSON *msg = cJSON_Parse(in);
    if (!msg)
        return !strstr(in, "\"name\":\"") || strstr(in, "\"name\":\"route\"");
    bool ok = true;
    cJSON *batch = cJSON_IsArray(msg) ? msg : NULL, *one = msg;
    for (cJSON *m = batch ? batch->child : one; m; m = batch ? m->next : NULL) {
        const cJSON *method = cJSON_GetObjectItemCaseSensitive(m, "method");
        const cJSON *name =
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m, "params"), "name");
        if (cJSON_IsString(method) && strcmp(method->valuestring, "tools/call") == 0 && name &&
            !(cJSON_IsString(name) && strcmp(name->valuestring, "route") == 0))
            ok = false;
    }
    cJSON_Delete(msg);
    return ok;
}

/* With a consented call and its schema: calls name that tool only, and its arguments vary;
 * resources/read gets attacks. */
static void test_gen_consented_schema_calls(void **state)
{
    (void)state;
    mcps_live_dict d;
    small_dict(&d);
    cJSON_AddItemToObject(d.schemas, "route", cJSON_Parse(route_schema));
    cJSON_AddItemToArray(d.attacks, cJSON_CreateString("file:///%2e%2e/etc/passwd"));
    cJSON *conf = cJSON_Parse("{\"region\":\"us\",\"shard\":42}");
    mcps_live_dict_consent(&d, "route", conf);
    cJSON_Delete(conf);
    size_t calls = 0, shard_1024 = 0, attacks = 0;
    for (uint64_t n = 0; n < 300; n++) {
        mcps_live_seq a = {0}, b = {0};
        mcps_live_gen_seq(&d, mcps_live_rng_derive(1, n), 8, &a);
        mcps_live_gen_seq(&d, mcps_live_rng_derive(1, n), 8, &b);
        assert_true(same_seq(&a, &b));
        for (size_t i = 0; i < a.n; i++) {
            const char *in = a.items[i].bytes;
            attacks += strstr(in, "%2e%2e") != NULL;
            if (!strstr(in, "\"tools/call\""))
                continue;
            calls++;
            assert_true(names_only_route(in));
            shard_1024 += strstr(in, "\"shard\":1024") != NULL;
        }
        mcps_live_seq_free(&a);
        mcps_live_seq_free(&b);
    }
    assert_true(calls > 20);
    assert_true(shard_1024 > 0);
    assert_true(attacks > 0);
    mcps_live_dict_free(&d);
}

typedef struct culprits {
    size_t a, b, tests;
} culprits;

/* Fails while both culprits are kept. */
static bool needs_both(void *ctx, const bool *keep, size_t n)
{
    culprits *c = ctx;
    c->tests++;
    return c->a < n && c->b < n && keep[c->a] && keep[c->b];
}

static void test_ddmin_finds_the_culprits(void **state)
{
    (void)state;
    bool keep[20];
    for (size_t a = 0; a < 20; a += 3) {
        for (size_t b = a; b < 20; b += 5) {
            for (size_t i = 0; i < 20; i++)
                keep[i] = true;
            culprits c = {a, b, 0};
            size_t ran = mcps_live_ddmin(keep, 20, needs_both, &c, 1000);
            assert_int_equal(ran, c.tests);
            for (size_t i = 0; i < 20; i++)
                assert_int_equal(keep[i], i == a || i == b);
        }
    }
    /* The budget is a bound: with 3 tests it stops, keeping a failing set. */
    for (size_t i = 0; i < 20; i++)
        keep[i] = true;
    culprits c = {4, 17, 0};
    assert_true(mcps_live_ddmin(keep, 20, needs_both, &c, 3) <= 3);
    assert_true(keep[4] && keep[17]);
}

/* The failure of the shrink test: the second message's "x" holds 10 bytes or more, and the
 * first message is there, unchanged (it is not JSON). */
static bool long_x(void *ctx, const mcps_live_seq *q)
{
    (*(size_t *)ctx)++;
    if (q->n != 2 || strcmp(q->items[0].bytes, "{cut") != 0)
        return false;
    cJSON *v = cJSON_ParseWithLength(q->items[1].bytes, q->items[1].len);
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(v, "x");
    bool fails = cJSON_IsString(x) && strlen(x->valuestring) >= 10;
    cJSON_Delete(v);
    return fails;
}

static void test_shrink_values(void **state)
{
    (void)state;
    mcps_live_seq q = {0};
    mcps_live_seq_push(&q, "{cut", 4);
    const char *msg = "{\"a\":[1,2,3,4,5,6],\"x\":\"0123456789012345678901234567890123456789\","
                      "\"n\":123456,\"o\":{\"k\":\"v\"}}";
    mcps_live_seq_push(&q, msg, strlen(msg));
    size_t calls = 0;
    size_t tests = mcps_live_shrink(&q, long_x, &calls, 100);
    assert_int_equal(tests, calls);
    assert_string_equal(q.items[0].bytes, "{cut");
    assert_string_equal(q.items[1].bytes, "{\"x\":\"0123456789\"}"); /* 40, 20, 10: not 5 */
    assert_int_equal(q.items[1].len, strlen(q.items[1].bytes));
    /* The budget is kept to. */
    mcps_live_seq_free(&q);
    mcps_live_seq_push(&q, "{cut", 4);
    mcps_live_seq_push(&q, msg, strlen(msg));
    calls = 0;
    assert_int_equal(mcps_live_shrink(&q, long_x, &calls, 3), 3);
    assert_int_equal(calls, 3);
    mcps_live_seq_free(&q);
}

static void test_finding_raw_lines_round_trip(void **state)
{
    (void)state;
    static const char odd[] = " {\"a\":\"\\\\ ${x} \xff\xfe\t\r\x01\" }  ";
    char bytes[sizeof odd + 2];
    memcpy(bytes, odd, sizeof odd - 1);
    bytes[sizeof odd - 1] = '\0'; /* an embedded NUL too */
    size_t len = sizeof odd;
    mcps_live_finding f = {.name = "crash-1", .outcome = {.oracle = MCPS_LIVE_CRASH}};
    snprintf(f.outcome.signature, sizeof f.outcome.signature, "crash signal 6");
    mcps_live_seq_push(&f.inputs, bytes, len);
    mcps_live_seq_push(&f.inputs, "{}", 2);
    char dir[] = "/tmp/mcpspec-test-live-XXXXXX";
    assert_non_null(mkdtemp(dir));
    mcps_live_finding_meta meta = {"2025-06-18", "mcpspec fuzz --server x"};
    char err[300];
    assert_true(mcps_live_finding_write(&f, dir, &meta, err, sizeof err));
    mcps_live_seq back = {0};
    mcps_live_finding_head head;
    assert_true(mcps_live_finding_read(f.path, &back, &head, err, sizeof err));
    assert_true(same_seq(&f.inputs, &back));
    assert_int_equal(head.oracle, MCPS_LIVE_CRASH);
    assert_string_equal(head.revision, "2025-06-18");
    assert_string_equal(head.signature, f.outcome.signature);
    unlink(f.path);
    rmdir(dir);
    mcps_live_seq_free(&back);
    mcps_live_seq_free(&f.inputs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rng_known_stream),
        cmocka_unit_test(test_gen_is_deterministic),
        cmocka_unit_test(test_args_from_schema),
        cmocka_unit_test(test_uri_attacks),
        cmocka_unit_test(test_gen_consented_schema_calls),
        cmocka_unit_test(test_ddmin_finds_the_culprits),
        cmocka_unit_test(test_finding_raw_lines_round_trip),
        cmocka_unit_test(test_shrink_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
