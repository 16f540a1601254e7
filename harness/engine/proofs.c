/*
 * proofs.c - `proven-by` lines and suites/builtin.proofs; see proofs.h.
 */
#include "engine/proofs.h"

#include "engine/catalog.h"
#include "engine/run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool fault_name_ok(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
            return false;
    return true;
}

static bool parse_verdict(const char *word, mcps_verdict *out)
{
    static const mcps_verdict allowed[] = {MCPS_VERDICT_FAIL, MCPS_VERDICT_WARN, MCPS_VERDICT_INFO};
    for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++)
        if (strcasecmp(word, mcps_verdict_name(allowed[i])) == 0) {
            *out = allowed[i];
            return true;
        }
    return false;
}

static bool add_suite(mcps_proof *p, const char *name)
{
    char **grown = realloc(p->suites, (p->nsuites + 1) * sizeof *grown);
    if (!grown)
        return false;
    p->suites = grown;
    return (p->suites[p->nsuites] = strdup(name)) != NULL && ++p->nsuites;
}

bool mcps_proof_parse(char *text, size_t line, mcps_proof *out, char *why, size_t n)
{
    *out = (mcps_proof){.line = line};
    char *fault = strtok(text, " \t");
    char *verdict = fault ? strtok(NULL, " \t") : NULL;
    if (!fault || !verdict) {
        snprintf(why, n, "write proven-by FAULT VERDICT [SUITES...]");
        return false;
    }
    if (!fault_name_ok(fault)) {
        snprintf(why, n, "fault name '%s': lowercase letters, digits and '-'", fault);
        return false;
    }
    if (!parse_verdict(verdict, &out->verdict)) {
        snprintf(why, n, "proof verdict '%s': FAIL, WARN or INFO (what the fault earns)", verdict);
        return false;
    }
    if (!(out->fault = strdup(fault))) {
        snprintf(why, n, "out of memory");
        return false;
    }
    for (char *s = strtok(NULL, " \t,"); s; s = strtok(NULL, " \t,"))
        if (!add_suite(out, s)) {
            mcps_proof_free(out);
            snprintf(why, n, "out of memory");
            return false;
        }
    return true;
}

void mcps_proof_free(mcps_proof *p)
{
    free(p->fault);
    for (size_t i = 0; i < p->nsuites; i++)
        free(p->suites[i]);
    free(p->suites);
    *p = (mcps_proof){0};
}

/* ---- suites/builtin.proofs ---------------------------------------------------------- */

/* The requirement IDs of a built-in check, or NULL when check is none. */
static const char *builtin_reqs(const char *check)
{
    const char *id, *title, *reqs;
    mcps_rev_set revs;
    for (size_t i = 0; mcps_run_discovery_check(i, &id, &title, &reqs, &revs); i++)
        if (strcmp(check, id) == 0)
            return reqs;
    if (strncmp(check, "observe/", 8) != 0)
        return NULL;
    for (size_t i = 0; mcps_run_observer_rule(i, &id, &title, &reqs); i++)
        if (strcmp(check + 8, id) == 0)
            return reqs;
    return NULL;
}

static bool has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

static bool load_fail(char *err, size_t errlen, const char *path, size_t line, const char *why)
{
    snprintf(err, errlen, "%s:%zu: %s", path, line, why);
    return false;
}

/* The IDs between CHECK and proven-by: each in the catalog and among the check's own. */
static bool parse_breaks(const char *reqs, char *ids, char *why, size_t n)
{
    if (!*ids) {
        snprintf(why, n, "name the requirement IDs the fault breaks: CHECK ID... proven-by ...");
        return false;
    }
    for (char *save = NULL, *id = strtok_r(ids, " \t", &save); id;
         id = strtok_r(NULL, " \t", &save))
        if (!mcps_catalog_find(id) || !has_word(reqs, id)) {
            snprintf(why, n, "'%s' is not %s", id,
                     mcps_catalog_find(id) ? "a requirement of that check" : "a catalog ID");
            return false;
        }
    return true;
}

/* "CHECK ID... proven-by FAULT VERDICT [SUITES...]" */
static bool parse_builtin_line(const char *path, size_t lineno, char *text,
                               mcps_builtin_proofs *out, char *err, size_t errlen)
{
    char why[200];
    char *mark = strstr(text, " proven-by ");
    if (!mark)
        return load_fail(err, errlen, path, lineno,
                         "write CHECK ID... proven-by FAULT VERDICT [SUITES...]");
    *mark = '\0';
    char *rest = mark + strlen(" proven-by ");
    char *check = text;
    char *ids = check + strcspn(check, " \t");
    if (*ids)
        *ids++ = '\0';
    const char *reqs = builtin_reqs(check);
    if (!reqs) {
        snprintf(why, sizeof why,
                 "'%s' is no built-in check (observe/RULE or discovery/...; cases say "
                 "proven-by in their suite)",
                 check);
        return load_fail(err, errlen, path, lineno, why);
    }
    char *breaks = strdup(ids);
    if (!breaks || !parse_breaks(reqs, ids, why, sizeof why)) {
        free(breaks);
        return load_fail(err, errlen, path, lineno, breaks ? why : "out of memory");
    }
    mcps_builtin_proof *grown = realloc(out->items, (out->n + 1) * sizeof *grown);
    if (!grown)
        return load_fail(err, errlen, path, lineno, "out of memory");
    out->items = grown;
    mcps_builtin_proof *p = &out->items[out->n];
    *p = (mcps_builtin_proof){.breaks = breaks};
    if (!mcps_proof_parse(rest, lineno, &p->proof, why, sizeof why)) {
        free(breaks);
        return load_fail(err, errlen, path, lineno, why);
    }
    if (!(p->check = strdup(check))) {
        mcps_proof_free(&p->proof);
        free(breaks);
        return load_fail(err, errlen, path, lineno, "out of memory");
    }
    out->n++;
    if (strncmp(check, "observe/", 8) == 0 && !p->proof.nsuites)
        return load_fail(err, errlen, path, lineno,
                         "an observer proof names the suites whose traffic feeds it");
    return true;
}

bool mcps_builtin_proofs_load(const char *path, mcps_builtin_proofs *out, char *err, size_t errlen)
{
    *out = (mcps_builtin_proofs){0};
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return true;
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        return false;
    }
    out->file = strdup(path);
    char line[1024];
    size_t lineno = 0;
    bool ok = out->file != NULL;
    while (ok && fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        char *t = line + strspn(line, " \t");
        char *hash = strstr(t, " #");
        if (hash)
            *hash = '\0';
        if (*t && *t != '#')
            ok = parse_builtin_line(path, lineno, t, out, err, errlen);
    }
    fclose(f);
    if (!ok)
        mcps_builtin_proofs_free(out);
    return ok;
}

void mcps_builtin_proofs_free(mcps_builtin_proofs *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->items[i].check);
        free(p->items[i].breaks);
        mcps_proof_free(&p->items[i].proof);
    }
    free(p->items);
    free(p->file);
    *p = (mcps_builtin_proofs){0};
}
