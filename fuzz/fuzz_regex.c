/*
 * fuzz_regex.c - fuzz target for the ECMA-262 regex engine behind JSON Schema's
 * "pattern" and suites' $regex: (harness/schema/jsonschema.h), with PCRE2 as a
 * differential oracle on the subset where the two dialects agree.
 *
 * Input: "PATTERN\nSUBJECT" (split at the first newline; a pattern writes a
 * newline as \n), or just PATTERN, which is then matched against "".
 *
 * Invariants, each an abort when broken:
 *  - compile never reads outside the pattern; a status other than OK leaves
 *    no program and names a reason;
 *  - search answers 1, 0 or -1 (budget), the same twice, and spends at most
 *    (instructions + 1) x (code points + 1) steps, the Pike VM's bound: no
 *    pattern makes the engine super-linear;
 *  - wrapping the pattern in a non-capturing group, or adding an alternative
 *    that can never match, changes nothing;
 *  - a search with a budget too small ends in -1 and never in a wrong answer;
 *  - PCRE2 (when built with it: MCPS_FUZZ_PCRE2) finds a match exactly when we
 *    do, for patterns and subjects inside the common subset fuzz/README.md
 *    documents (in_subset below); PCRE2's own match limit ending its search is
 *    no verdict.
 */
#include "fuzz.h"

#include "schema/jsonschema.h"
#include "schema/jsonschema_internal.h"

#include <ctype.h>
#include <string.h>

#ifdef MCPS_FUZZ_PCRE2
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#endif

#define REGEX_MAX_LEN 4096 /* keep in step with -max_len in fuzz/regex.options */

bool fuzz_seed_wellformed(const uint8_t *data, size_t size, bool handwritten, const char **why)
{
    (void)data;
    (void)handwritten;
    if (size > REGEX_MAX_LEN) {
        *why = "longer than -max_len in fuzz/regex.options: the fuzzer would cut it";
        return false;
    }
    return true;
}

/* ---- our engine ------------------------------------------------------------------- */

static size_t code_points(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; k++) {
        uint32_t cp;
        i += mcps_si_utf8_next((const unsigned char *)s + i, n - i, &cp);
    }
    return k;
}

/* Compile and search; returns the status, *match the answer when OK. */
static mcps_schema_regex_status run(const char *pat, size_t plen, const char *subj, size_t slen,
                                    int *match)
{
    char why[96];
    mcps_schema_regex *re = NULL;
    mcps_schema_regex_status st = mcps_schema_regex_compile(pat, plen, &re, why, sizeof why);
    FUZZ_CHECK((st == MCPS_SCHEMA_REGEX_OK) == (re != NULL));
    FUZZ_CHECK(st == MCPS_SCHEMA_REGEX_OK || why[0] != '\0');
    if (!re)
        return st;
    size_t bound = (re->n + 1) * (code_points(subj, slen) + 1);
    size_t budget = bound, again = bound;
    *match = mcps_schema_regex_search(re, subj, slen, &budget);
    FUZZ_CHECK(*match == 0 || *match == 1);
    FUZZ_CHECK(mcps_schema_regex_search(re, subj, slen, &again) == *match && again == budget);
    size_t used = bound - budget;
    if (used > 1) { /* one step short of what it needed: no answer, never a wrong one */
        size_t small = used - 1;
        int r = mcps_schema_regex_search(re, subj, slen, &small);
        FUZZ_CHECK(r == -1 || r == *match);
    }
    mcps_schema_regex_free(re);
    return st;
}

/* The same pattern in a wrapper; must give the same status class and answer. */
static void check_wrapped(const char *pat, size_t plen, const char *subj, size_t slen, int match,
                          const char *pre, const char *post)
{
    size_t n = strlen(pre) + plen + strlen(post);
    char *w = malloc(n + 1);
    FUZZ_CHECK(w != NULL);
    memcpy(w, pre, strlen(pre));
    memcpy(w + strlen(pre), pat, plen);
    memcpy(w + strlen(pre) + plen, post, strlen(post) + 1);
    int m = -2;
    mcps_schema_regex_status st = run(w, n, subj, slen, &m);
    /* Nesting one level deeper may cross the group-depth or size cap: only TOO_BIG may differ. */
    FUZZ_CHECK(st == MCPS_SCHEMA_REGEX_OK || st == MCPS_SCHEMA_REGEX_TOO_BIG);
    FUZZ_CHECK(st != MCPS_SCHEMA_REGEX_OK || m == match);
    free(w);
}

/* ---- PCRE2 on the common subset -------------------------------------------------- */

#ifdef MCPS_FUZZ_PCRE2
/* An escape both dialects read the same way: class escapes, control escapes, punctuation.
 * Not \v: VT alone in ECMA-262, any vertical white space (LF, CR, ...) in PCRE2. */
static bool common_escape(unsigned char c)
{
    return strchr("dDwWsSbBnrtf", c) ||
           (c >= 0x21 && c <= 0x7E && !((c | 0x20) >= 'a' && (c | 0x20) <= 'z') &&
            !(c >= '0' && c <= '9'));
}

/*
 * ASCII patterns of literals, ".", "^", "$", classes, groups ((...), (?:...),
 * (?<name>...)), alternation and quantifiers, and the escapes above. Left out
 * because the dialects differ there: letters escaped otherwise (\a is "a" in
 * ECMA-262's Annex B, BEL in PCRE2), digits escaped (backreferences, octal),
 * every other "(?" and "(*" construct, "{," (a quantifier in newer PCRE2),
 * "[]" and "[^]" (empty class in ECMA-262, "]" literal in PCRE2), "[:", "[.",
 * "[=" inside a class (POSIX classes in PCRE2), and "\Q", "\E" with them.
 */
static bool in_subset(const char *p, size_t n)
{
    bool in_class = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == 0 || c >= 0x80 || c == '\r')
            return false;
        if (c == '\\') {
            if (i + 1 >= n || !common_escape((unsigned char)p[i + 1]))
                return false;
            i++;
            continue;
        }
        if (in_class) {
            if (c == '[' && i + 1 < n && strchr(":.=", p[i + 1]))
                return false;
            in_class = c != ']';
            continue;
        }
        if (c == '[') {
            size_t j = i + 1 + (i + 1 < n && p[i + 1] == '^');
            if (j < n && p[j] == ']')
                return false;
            in_class = true;
            i = j - 1;
        } else if (c == '(' && i + 1 < n && p[i + 1] == '*') {
            return false;
        } else if (c == '(' && i + 1 < n && p[i + 1] == '?') {
            bool named = i + 3 < n && p[i + 2] == '<' &&
                         (isalpha((unsigned char)p[i + 3]) || p[i + 3] == '_');
            if (!(i + 2 < n && p[i + 2] == ':') && !named)
                return false;
        } else if (c == '{' && i + 1 < n && p[i + 1] == ',') {
            return false;
        }
    }
    return true;
}

/* ASCII without CR: "." excludes \n in both, CR only in ECMA-262; \s, \w, \b agree on ASCII. */
static bool subject_in_subset(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80 || s[i] == '\r')
            return false;
    return true;
}

/* 1 or 0; -1 when PCRE2 rejects the pattern or gives up (match limit). */
static int pcre2_answer(const char *pat, size_t plen, const char *subj, size_t slen)
{
    int err;
    PCRE2_SIZE off;
    pcre2_code *code =
        pcre2_compile((PCRE2_SPTR)pat, plen,
                      PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_NEVER_BACKSLASH_C, &err, &off, NULL);
    if (!code)
        return -1;
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    FUZZ_CHECK(mc && md);
    pcre2_set_match_limit(mc, 100000);
    pcre2_set_depth_limit(mc, 1000);
    int rc = pcre2_match(code, (PCRE2_SPTR)subj, slen, 0, 0, md, mc);
    pcre2_match_data_free(md);
    pcre2_match_context_free(mc);
    pcre2_code_free(code);
    return rc >= 0 ? 1 : rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
}

static void differential(const char *pat, size_t plen, const char *subj, size_t slen, int ours)
{
    if (!in_subset(pat, plen) || !subject_in_subset(subj, slen))
        return;
    int theirs = pcre2_answer(pat, plen, subj, slen);
    if (theirs < 0 || theirs == ours)
        return;
    fprintf(stderr, "regex /%.*s/ on \"%.*s\": ours %s, PCRE2 %s\n", (int)plen, pat, (int)slen,
            subj, ours ? "match" : "no match", theirs ? "match" : "no match");
    FUZZ_CHECK(theirs == ours);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > REGEX_MAX_LEN)
        return 0;
    const char *in = (const char *)data;
    const char *nl = memchr(in, '\n', size);
    size_t plen = nl ? (size_t)(nl - in) : size;
    const char *subj = nl ? nl + 1 : "";
    size_t slen = nl ? size - plen - 1 : 0;
    int match = -2;
    if (run(in, plen, subj, slen, &match) != MCPS_SCHEMA_REGEX_OK)
        return 0;
    check_wrapped(in, plen, subj, slen, match, "(?:", ")");
    check_wrapped(in, plen, subj, slen, match, "", "|[^\\s\\S]");
#ifdef MCPS_FUZZ_PCRE2
    differential(in, plen, subj, slen, match);
#endif
    return 0;
}
