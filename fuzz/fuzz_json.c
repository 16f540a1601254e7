/*
 * fuzz_json.c - fuzz target for the strict JSON codec (harness/codec/json.h).
 *
 * Input: raw bytes, one candidate JSON text (no prefix, so JSONTestSuite files
 * and captured messages are seeds as they are).
 *
 * Invariants, each an abort when broken:
 *  - rejection is precise: an error and an offset within the input; the input
 *    up to that offset is itself a JSON prefix (it parses, or fails only for
 *    ending early, at that same offset); `incomplete` means the offset is the end;
 *  - acceptance implies well-formed UTF-8, and the depth and size limits are
 *    exact (one level or one byte less than the input needs fails);
 *  - print(parse(x)) is one compact line (no control bytes, valid UTF-8, never
 *    longer than x) that parses back to an equal tree and prints identically;
 *  - number nodes keep their text, and their double is strtod of that text;
 *  - differential against cJSON_ParseWithLength: on input both accept, the
 *    trees are equal modulo the differences in fuzz/README.md; input only we
 *    accept must be explained by one of those documented rules; and cJSON's
 *    tree, when it has numbers (it keeps them without text, so our printer
 *    formats the doubles), prints as JSON we parse back to the same values.
 * Runs on text derived from the input (a prefix, the printed form, the input
 * under a tighter limit) use the uninstrumented copy in oracle.h, so coverage
 * and libFuzzer's bookkeeping follow the input alone.
 */
#include "fuzz.h"
#include "oracle.h"

#include "codec/json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#define JSON_MAX_LEN 4096 /* keep in step with -max_len in fuzz/json.options */

/*
 * The prefix check re-parses a rejected input's prefix, which doubles the
 * cost of the commonest case (most mutants are rejected); it runs on a fixed
 * one in PREFIX_SAMPLE of them, chosen by a hash of the input so a replay
 * repeats it. It runs on the oracle copy, so the sampling adds no coverage
 * features that come and go with the hash.
 */
#define PREFIX_SAMPLE 4

/* cJSON copies at most this many characters of a number before strtod. */
#define CJSON_NUMBER_CHARS 63

bool fuzz_seed_wellformed(const uint8_t *data, size_t size, bool handwritten, const char **why)
{
    (void)data;
    (void)handwritten; /* any bytes are this target's format */
    if (size > JSON_MAX_LEN) {
        *why = "longer than -max_len in fuzz/json.options: the fuzzer would cut it";
        return false;
    }
    return true;
}

/* ---- facts about an accepted tree ------------------------------------------ */

typedef struct facts {
    size_t depth;     /* deepest container nesting; 0 for a scalar */
    size_t widest;    /* most members of one object */
    size_t numbers;   /* number nodes seen */
    bool long_number; /* a number cJSON cannot read whole */
} facts;

/*
 * mcps_json_equal pairs object members by name in quadratic time, so wide
 * objects would dominate the run time (a 300-member object costs 100x a
 * small message); past this width the identical second printing, which
 * implies equality, is the check.
 */
#define EQUAL_MAX_WIDTH 64

/* Re-parsing a number's text costs a parse; the first few per input are enough. */
#define RECHECKED_NUMBERS 4

static void check_number(const cJSON *n, size_t index)
{
    const char *text = mcps_json_number_text(n);
    FUZZ_CHECK(text != NULL);
    FUZZ_CHECK(mcps_json_number_is_integer(n) == (strpbrk(text, ".eE") == NULL));
    double want = strtod(text, NULL);
    FUZZ_CHECK(n->valuedouble == want || (want != want && n->valuedouble != n->valuedouble));
    if (index >= RECHECKED_NUMBERS)
        return;
    cJSON *again = mcps_json_create_number_text(text);
    FUZZ_CHECK(again && mcps_json_equal(again, n));
    mcps_json_delete(again);
}

/* Walk the tree (depth is bounded by the parser's limit, so recursion is fine). */
static void gather(const cJSON *item, size_t depth, facts *f)
{
    for (; item; item = item->next) {
        int type = item->type & 0xFF;
        if (type == cJSON_Number) {
            check_number(item, f->numbers++);
            if (strlen(mcps_json_number_text(item)) > CJSON_NUMBER_CHARS)
                f->long_number = true;
        } else if (type == cJSON_String) {
            FUZZ_CHECK(item->valuestring != NULL);
        }
        if (type == cJSON_Object) {
            size_t n = 0;
            for (const cJSON *c = item->child; c; c = c->next)
                n++;
            if (n > f->widest)
                f->widest = n;
        }
        if (type == cJSON_Array || type == cJSON_Object) {
            if (depth + 1 > f->depth)
                f->depth = depth + 1;
            gather(item->child, depth + 1, f);
        }
        if (depth == 0)
            break; /* the root has no siblings */
    }
}

/* ---- the differential oracle ----------------------------------------------- */

/* Ours stores U+0000 as C0 80; cJSON writes a real NUL, which ends its C string. */
static bool strings_agree(const char *ours, const char *theirs)
{
    if (!ours || !theirs)
        return ours == theirs;
    const char *nul = strstr(ours, "\xC0\x80");
    size_t n = nul ? (size_t)(nul - ours) : strlen(ours);
    return strlen(theirs) == n && memcmp(ours, theirs, n) == 0;
}

static bool agree_with_cjson(const cJSON *a, const cJSON *b)
{
    int type = a->type & 0xFF;
    if (type != (b->type & 0xFF))
        return false;
    switch (type) {
    case cJSON_Number: {
        const char *text = mcps_json_number_text(a);
        if (strlen(text) > CJSON_NUMBER_CHARS)
            return true; /* cJSON read only a prefix of it (README: long numbers) */
        return strtod(text, NULL) == b->valuedouble;
    }
    case cJSON_String:
        return strings_agree(a->valuestring, b->valuestring);
    case cJSON_Array:
    case cJSON_Object: {
        const cJSON *x = a->child, *y = b->child;
        for (; x && y; x = x->next, y = y->next) {
            if (type == cJSON_Object && !strings_agree(x->string, y->string))
                return false;
            if (!agree_with_cjson(x, y))
                return false;
        }
        return !x && !y; /* both keep duplicate keys, in order */
    }
    default:
        return true;
    }
}

static size_t count_kind(const mcps_json_result *r, mcps_json_finding_kind kind)
{
    size_t n = 0,
           kept = r->nfindings < MCPS_JSON_MAX_FINDINGS ? r->nfindings : MCPS_JSON_MAX_FINDINGS;
    for (size_t i = 0; i < kept; i++)
        n += r->findings[i].kind == kind;
    return n;
}

/* Numbers without text: is_integer goes by the double. False when one is not finite. */
static bool foreign_numbers_finite(const cJSON *item)
{
    bool finite = true;
    for (; item; item = item->next) {
        if (cJSON_IsNumber(item)) {
            double d = item->valuedouble;
            FUZZ_CHECK(mcps_json_number_is_integer(item) == (isfinite(d) && d == floor(d)));
            finite = finite && isfinite(d);
        }
        if (item->child && !foreign_numbers_finite(item->child))
            finite = false;
    }
    return finite;
}

/*
 * A tree built elsewhere (cJSON's: numbers without exact text) must print as
 * JSON our parser accepts, numbers round-tripping by value (%.17g at worst);
 * non-finite doubles print as null, so such trees are only printed.
 */
static void print_foreign_tree(const cJSON *theirs)
{
    bool finite = foreign_numbers_finite(theirs);
    size_t n = 0;
    char *text = mcps_json_print(theirs, &n);
    FUZZ_CHECK(text != NULL);
    mcps_json_result back;
    FUZZ_CHECK(oracle_mcps_json_parse(text, n, NULL, &back));
    if (finite)
        FUZZ_CHECK(agree_with_cjson(back.root, theirs));
    oracle_mcps_json_delete(back.root);
    free(text);
}

/* Only for input we accept: where we reject and cJSON accepts, we are the stricter (README). */
static void differential(const uint8_t *data, size_t size, const cJSON *ours,
                         const mcps_json_result *r, const facts *f)
{
    cJSON *theirs = cJSON_ParseWithLength((const char *)data, size);
    if (!theirs) {
        /* We accept, cJSON rejects: only for the documented reasons. */
        bool surrogate =
            count_kind(r, MCPS_JSON_LONE_SURROGATE) > 0 || r->nfindings > MCPS_JSON_MAX_FINDINGS;
        if (!surrogate && !f->long_number) {
            fprintf(stderr,
                    "fuzz_json: we accept, cJSON rejects, and no documented rule says why\n");
            abort();
        }
        return;
    }
    FUZZ_CHECK(count_kind(r, MCPS_JSON_LONE_SURROGATE) == 0); /* cJSON rejects those */
    FUZZ_CHECK(agree_with_cjson(ours, theirs));
    if (f->numbers > 0) /* otherwise it prints as ours did in the round trip */
        print_foreign_tree(theirs);
    cJSON_Delete(theirs);
}

/* ---- invariants ------------------------------------------------------------- */

static bool sampled(const uint8_t *data, size_t size)
{
    uint32_t h = 2166136261u ^ (uint32_t)size;
    for (size_t i = 0; i < size && i < 16; i++)
        h = (h ^ data[i]) * 16777619u;
    return h % PREFIX_SAMPLE == 0;
}

static void check_rejection(const uint8_t *data, size_t size, const mcps_json_result *r)
{
    FUZZ_CHECK(r->root == NULL);
    FUZZ_CHECK(r->error[0] != '\0');
    FUZZ_CHECK(r->error_offset <= size);
    if (r->incomplete) {
        FUZZ_CHECK(r->error_offset == size);
        return;
    }
    if (!sampled(data, size))
        return;
    /* Everything before the error offset was JSON so far. */
    mcps_json_result prefix;
    if (oracle_mcps_json_parse((const char *)data, r->error_offset, NULL, &prefix)) {
        oracle_mcps_json_delete(prefix.root);
        return;
    }
    FUZZ_CHECK(prefix.incomplete);
    FUZZ_CHECK(prefix.error_offset == r->error_offset);
}

/* The main parse ran with the defaults; one less depth or byte than the input needs must fail. */
static void check_limits(const uint8_t *data, size_t size, const facts *f)
{
    mcps_json_result r;
    if (f->depth > 0) {
        mcps_json_limits shallow = {f->depth - 1, size};
        FUZZ_CHECK(!oracle_mcps_json_parse((const char *)data, size, &shallow, &r));
        FUZZ_CHECK(!r.incomplete);
    }
    if (size > 0) {
        mcps_json_limits small = {f->depth, size - 1};
        FUZZ_CHECK(!oracle_mcps_json_parse((const char *)data, size, &small, &r));
    }
}

static void check_round_trip(size_t size, const cJSON *root, const mcps_json_result *r,
                             const facts *f)
{
    size_t n1 = 0;
    char *s1 = mcps_json_print(root, &n1);
    FUZZ_CHECK(s1 != NULL);
    FUZZ_CHECK(strlen(s1) == n1);
    FUZZ_CHECK(n1 <= size); /* compact: every token prints no longer than its source */
    for (size_t i = 0; i < n1; i++)
        FUZZ_CHECK((unsigned char)s1[i] >= 0x20);
    FUZZ_CHECK(mcps_json_utf8_valid(s1, n1, NULL));

    mcps_json_result r2;
    FUZZ_CHECK(oracle_mcps_json_parse(s1, n1, NULL, &r2));
    if (f->widest <= EQUAL_MAX_WIDTH)
        FUZZ_CHECK(mcps_json_equal(root, r2.root));
    FUZZ_CHECK(count_kind(&r2, MCPS_JSON_LONE_SURROGATE) == 0); /* now U+FFFD */
    if (r->nfindings <= MCPS_JSON_MAX_FINDINGS && r2.nfindings <= MCPS_JSON_MAX_FINDINGS)
        FUZZ_CHECK(count_kind(&r2, MCPS_JSON_DUPLICATE_KEY) ==
                   count_kind(r, MCPS_JSON_DUPLICATE_KEY));

    size_t n2 = 0;
    char *s2 = oracle_mcps_json_print(r2.root, &n2);
    FUZZ_CHECK(s2 && n2 == n1 && memcmp(s1, s2, n1) == 0);
    free(s2);
    free(s1);
    oracle_mcps_json_delete(r2.root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > JSON_MAX_LEN)
        return 0;
    mcps_json_result r;
    bool ok = mcps_json_parse((const char *)data, size, NULL, &r);
    for (size_t i = 0; i < r.nfindings && i < MCPS_JSON_MAX_FINDINGS; i++)
        FUZZ_CHECK(r.findings[i].offset < size);
    facts f = {0};
    if (!ok) {
        FUZZ_CHECK(r.root == NULL && r.error[0] != '\0' && r.error_offset <= size);
        check_rejection(data, size, &r);
    } else {
        FUZZ_CHECK(r.root != NULL && r.error[0] == '\0');
        FUZZ_CHECK(mcps_json_utf8_valid((const char *)data, size, NULL));
        gather(r.root, 0, &f);
        check_limits(data, size, &f);
        check_round_trip(size, r.root, &r, &f);
        differential(data, size, r.root, &r, &f);
    }
    mcps_json_delete(r.root);
    return 0;
}
