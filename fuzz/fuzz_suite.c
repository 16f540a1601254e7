/*
 * fuzz_suite.c - fuzz target for the suite-file loader (harness/engine/suite.h).
 *
 * Input: the text of one suite file, as written under suites/. No header:
 * suite seeds are text, and the loader must take any bytes a user's editor
 * (or a bad merge) could leave in a file. The file is named after its first
 * "suite NAME" line (the loader insists the two agree), else fuzz.suite.
 *
 * Invariants, each an abort when broken:
 *  - a rejected file gets one error, "NAME.suite:LINE: what", whose LINE is a
 *    line of the input (users are told the line to fix, never line 0 or a line
 *    past the end) and whose text is non-empty;
 *  - an accepted file gives cases that each have an id "suite/name", a line
 *    inside the input, at least one revision, and steps whose lines (nested
 *    bodies included) are inside the input and never before their case;
 *  - case ids within one file are unique;
 *  - loading is deterministic: a second parse gives the same verdict, error
 *    text and case ids;
 *  - nothing leaks (ASan's leak check) and nothing reads past the input.
 */
#include "fuzz.h"

#include "engine/suite.h"

#include <ctype.h>
#include <string.h>

#define SUITE_MAX_LEN 16384 /* keep in step with -max_len in fuzz/suite.options */
#define NAME_MAX_LEN  64

bool fuzz_seed_wellformed(const uint8_t *data, size_t size, bool handwritten, const char **why)
{
    if (size > SUITE_MAX_LEN) {
        *why = "longer than -max_len in fuzz/suite.options: the fuzzer would cut it";
        return false;
    }
    if (handwritten && (size == 0 || memchr(data, '\n', size) == NULL)) {
        *why = "a hand-written suite seed has at least one full line";
        return false;
    }
    return true;
}

static size_t count_lines(const uint8_t *data, size_t size)
{
    size_t lines = 1;
    for (size_t i = 0; i < size; i++)
        if (data[i] == '\n')
            lines++;
    return lines;
}

/* The file name the input declares on its first line starting "suite ". */
static void file_name(const uint8_t *data, size_t size, char *name, size_t cap)
{
    snprintf(name, cap, "fuzz.suite");
    for (size_t i = 0; i + 6 < size; i++) {
        if ((i == 0 || data[i - 1] == '\n') && memcmp(data + i, "suite ", 6) == 0) {
            size_t n = 0;
            while (i + 6 + n < size && n < NAME_MAX_LEN &&
                   (isalnum(data[i + 6 + n]) || data[i + 6 + n] == '-' || data[i + 6 + n] == '_'))
                n++;
            if (n)
                snprintf(name, cap, "%.*s.suite", (int)n, (const char *)data + i + 6);
            return;
        }
    }
}

/* "NAME.suite:LINE: text" with 1 <= LINE <= lines. */
static void check_error(const char *err, const char *name, size_t lines)
{
    size_t prefix = strlen(name);
    FUZZ_CHECK(strncmp(err, name, prefix) == 0 && err[prefix] == ':');
    prefix++;
    char *end = NULL;
    unsigned long long line = strtoull(err + prefix, &end, 10);
    FUZZ_CHECK(end != err + prefix);
    FUZZ_CHECK(line >= 1 && line <= lines);
    FUZZ_CHECK(end[0] == ':' && end[1] == ' ' && end[2] != '\0');
}

static void check_steps(const mcps_step *steps, size_t n, size_t from, size_t lines)
{
    for (size_t i = 0; i < n; i++) {
        const mcps_step *s = &steps[i];
        FUZZ_CHECK(s->line >= from && s->line <= lines);
        for (size_t a = 0; a < s->nalts; a++)
            FUZZ_CHECK(s->alts[a].line >= from && s->alts[a].line <= lines);
        FUZZ_CHECK(s->nbody == 0 || s->body != NULL);
        check_steps(s->body, s->nbody, s->line, lines);
    }
}

static void check_cases(const mcps_suite *s, size_t lines)
{
    size_t stem = strlen(s->name);
    for (size_t i = 0; i < s->ncases; i++) {
        const mcps_case *c = &s->cases[i];
        FUZZ_CHECK(c->id && c->name);
        FUZZ_CHECK(strncmp(c->id, s->name, stem) == 0 && c->id[stem] == '/');
        FUZZ_CHECK(strcmp(c->id + stem + 1, c->name) == 0);
        FUZZ_CHECK(c->line >= 1 && c->line <= lines);
        FUZZ_CHECK(c->revisions != 0);
        check_steps(c->steps, c->nsteps, c->line, lines);
        for (size_t k = 0; k < i; k++)
            FUZZ_CHECK(strcmp(s->cases[k].id, c->id) != 0);
    }
}

static void check_same(const mcps_suite *a, const mcps_suite *b)
{
    FUZZ_CHECK(a->ncases == b->ncases);
    for (size_t i = 0; i < a->ncases; i++)
        FUZZ_CHECK(strcmp(a->cases[i].id, b->cases[i].id) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > SUITE_MAX_LEN)
        return -1;
    size_t lines = count_lines(data, size);
    char name[NAME_MAX_LEN + 8];
    file_name(data, size, name, sizeof name);
    mcps_suite first = {0}, second = {0};
    char err1[512] = "", err2[512] = "";
    bool ok1 = mcps_suite_parse(name, (const char *)data, size, &first, err1, sizeof err1);
    bool ok2 = mcps_suite_parse(name, (const char *)data, size, &second, err2, sizeof err2);
    FUZZ_CHECK(ok1 == ok2);
    if (ok1) {
        check_cases(&first, lines);
        check_same(&first, &second);
    } else {
        check_error(err1, name, lines);
        FUZZ_CHECK(strcmp(err1, err2) == 0);
    }
    mcps_suite_free(&first);
    mcps_suite_free(&second);
    return 0;
}
