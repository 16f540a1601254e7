/*
 * explain.c - `mcpspec explain ID`: everything about one requirement or check.
 *
 * For a requirement ID: its catalog text and level on each revision, every
 * check that cites it (suite cases, observer rules, discovery), the faults
 * that prove those checks, and its coverage (covered, or why not, from
 * suites/uncovered.tsv). For a check ID: the check, its requirements and its
 * proofs. One command instead of greps over suites, fault tables and the
 * catalog; built on the same records as `mcpspec list --json` (checks.c).
 */
#include "cli/args.h"
#include "cli/cli.h"
#include "codec/json.h"
#include "engine/catalog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The checks, the reasons for uncovered requirements, and where they come from. */
typedef struct explain_ctx {
    cJSON *checks;
    cJSON *reasons; /* ID -> {"kind", "reason", "file", "line"} */
} explain_ctx;

static bool in_array(const cJSON *a, const char *s)
{
    for (const cJSON *e = a ? a->child : NULL; e; e = e->next)
        if (cJSON_IsString(e) && strcmp(e->valuestring, s) == 0)
            return true;
    return false;
}

static cJSON *reason_row(char *line, const char *path, size_t lineno)
{
    char *kind = strchr(line, '\t');
    char *why = kind ? strchr(kind + 1, '\t') : NULL;
    if (!why)
        return NULL;
    *kind++ = '\0';
    *why++ = '\0';
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", kind);
    cJSON_AddStringToObject(o, "reason", why);
    cJSON_AddStringToObject(o, "file", mcps_cli_shown_path(path));
    cJSON_AddNumberToObject(o, "line", (double)lineno);
    return o;
}

/* suites/uncovered.tsv: ID<TAB>reason-kind<TAB>explanation (scripts/coverage checks its form). */
static cJSON *load_reasons(const char *dir)
{
    char buf[4096], path[4200], line[2048];
    snprintf(path, sizeof path, "%s/uncovered.tsv", mcps_cli_suites_dir(dir, buf, sizeof buf));
    cJSON *out = cJSON_CreateObject();
    FILE *f = fopen(path, "r");
    for (size_t n = 1; f && out && fgets(line, sizeof line, f); n++) {
        line[strcspn(line, "\r\n")] = '\0';
        cJSON *row = line[0] && line[0] != '#' ? reason_row(line, path, n) : NULL;
        if (row)
            cJSON_AddItemToObject(out, line, row);
    }
    if (f)
        fclose(f);
    return out;
}

static cJSON *level_by_revision(const mcps_req *r)
{
    cJSON *o = cJSON_CreateObject();
    for (int v = 0; o && v < MCPS_REV_COUNT; v++) {
        const char *rev = mcps_rev_name((mcps_rev)v);
        if (mcps_rev_set_has(r->revs, (mcps_rev)v))
            cJSON_AddStringToObject(o, rev, mcps_level_name(r->level));
        else
            cJSON_AddNullToObject(o, rev);
    }
    return o;
}

static const char *binds_name(mcps_binds b)
{
    return b == MCPS_BINDS_SERVER ? "server" : b == MCPS_BINDS_CLIENT ? "client" : "both";
}

/* What scripts/coverage --check counts: a server-side stdio row above MAY (HTTP rows are
 * counted apart). */
static bool counted(const mcps_req *r)
{
    static const char *const http[] = {"HTTP-", "SSE-", "HDR-", "AUTH-"};
    for (size_t i = 0; i < sizeof http / sizeof *http; i++)
        if (strncmp(r->id, http[i], strlen(http[i])) == 0)
            return false;
    return r->binds != MCPS_BINDS_CLIENT && r->level != MCPS_LEVEL_MAY && r->revs;
}

/* A check as it concerns r: the revisions on which it grades r. */
static cJSON *citing_check(const cJSON *check, const mcps_req *r)
{
    cJSON *c = cJSON_Duplicate(check, true);
    cJSON *revs = cJSON_CreateArray();
    const cJSON *own = cJSON_GetObjectItemCaseSensitive(check, "revisions");
    for (int v = 0; v < MCPS_REV_COUNT; v++)
        if (mcps_rev_set_has(r->revs, (mcps_rev)v) && in_array(own, mcps_rev_name((mcps_rev)v)))
            cJSON_AddItemToArray(revs, cJSON_CreateString(mcps_rev_name((mcps_rev)v)));
    cJSON_ReplaceItemInObjectCaseSensitive(c, "revisions", revs);
    return c;
}

static cJSON *coverage(const mcps_req *r, const cJSON *citing, const explain_ctx *x)
{
    cJSON *o = cJSON_CreateObject();
    /* "partial": checked on some of the row's revisions only (e.g. not yet on 2026-07-28). */
    mcps_rev_set on = 0;
    for (const cJSON *c = citing->child; c; c = c->next) {
        const cJSON *revs = cJSON_GetObjectItemCaseSensitive(c, "revisions");
        for (const cJSON *v = revs ? revs->child : NULL; v; v = v->next)
            for (int i = 0; i < MCPS_REV_COUNT; i++)
                if (cJSON_IsString(v) && strcmp(v->valuestring, mcps_rev_name((mcps_rev)i)) == 0)
                    on |= (mcps_rev_set)1 << i;
    }
    cJSON_AddStringToObject(o, "status",
                            !on                         ? "uncovered"
                            : (on & r->revs) == r->revs ? "covered"
                                                        : "partial");
    cJSON_AddBoolToObject(o, "counted", counted(r));
    const cJSON *why = cJSON_GetObjectItemCaseSensitive(x->reasons, r->id);
    if (why)
        cJSON_AddItemToObject(o, "uncovered", cJSON_Duplicate(why, true));
    return o;
}

static cJSON *explain_requirement(const mcps_req *r, const explain_ctx *x)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", r->id);
    cJSON_AddStringToObject(o, "kind", "requirement");
    cJSON_AddStringToObject(o, "text", r->text);
    cJSON_AddStringToObject(o, "source", r->source);
    cJSON_AddStringToObject(o, "binds", binds_name(r->binds));
    cJSON_AddItemToObject(o, "levels", level_by_revision(r));
    cJSON *citing = cJSON_AddArrayToObject(o, "checks");
    for (const cJSON *c = x->checks->child; c; c = c->next)
        if (in_array(cJSON_GetObjectItemCaseSensitive(c, "requirements"), r->id))
            cJSON_AddItemToArray(citing, citing_check(c, r));
    cJSON_AddItemToObject(o, "coverage", coverage(r, citing, x));
    return o;
}

static cJSON *explain_check(const cJSON *check, const explain_ctx *x)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", cJSON_GetObjectItemCaseSensitive(check, "id")->valuestring);
    cJSON_AddStringToObject(o, "kind", "check");
    cJSON_AddItemToObject(o, "check", cJSON_Duplicate(check, true));
    cJSON *reqs = cJSON_AddArrayToObject(o, "requirements");
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(check, "requirements");
    for (const cJSON *id = ids ? ids->child : NULL; id; id = id->next) {
        const mcps_req *r = mcps_catalog_find(id->valuestring);
        if (r)
            cJSON_AddItemToArray(reqs, explain_requirement(r, x));
    }
    return o;
}

static cJSON *explain_id(const char *id, const explain_ctx *x)
{
    const mcps_req *r = mcps_catalog_find(id);
    if (r)
        return explain_requirement(r, x);
    for (const cJSON *c = x->checks->child; c; c = c->next)
        if (strcmp(cJSON_GetObjectItemCaseSensitive(c, "id")->valuestring, id) == 0)
            return explain_check(c, x);
    return NULL;
}

/* ---- plain text ---------------------------------------------------------------------- */

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static void print_words(const char *label, const cJSON *a)
{
    printf("%s", label);
    for (const cJSON *e = a ? a->child : NULL; e; e = e->next)
        printf("%s%s", e == a->child ? "" : " ", e->valuestring);
    if (!a || !a->child)
        printf("none");
    printf("\n");
}

static void print_proofs(const cJSON *check, const char *indent)
{
    const cJSON *proofs = cJSON_GetObjectItemCaseSensitive(check, "proofs");
    if (!cJSON_GetArraySize(proofs))
        printf("%sproven by: NO FAULT (a check that is never shown to fail)\n", indent);
    for (const cJSON *p = proofs ? proofs->child : NULL; p; p = p->next) {
        printf("%sproven by: refserver --fault %s -> %s (suites:", indent, str(p, "fault"),
               str(p, "verdict"));
        const cJSON *suites = cJSON_GetObjectItemCaseSensitive(p, "suites");
        for (const cJSON *s = suites ? suites->child : NULL; s; s = s->next)
            printf(" %s", s->valuestring);
        printf(")  %s:%d\n", str(p, "file"),
               (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(p, "line")));
    }
}

static void print_check(const cJSON *c, const char *indent)
{
    printf("%s%s (%s): %s\n", indent, str(c, "id"), str(c, "kind"), str(c, "title"));
    char sub[32];
    snprintf(sub, sizeof sub, "%s  ", indent);
    if (*str(c, "file"))
        printf("%sdefined at %s:%d\n", sub, str(c, "file"),
               (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(c, "line")));
    printf("%s", sub);
    print_words("requirements: ", cJSON_GetObjectItemCaseSensitive(c, "requirements"));
    printf("%s", sub);
    print_words("revisions: ", cJSON_GetObjectItemCaseSensitive(c, "revisions"));
    print_proofs(c, sub);
}

static void print_coverage(const cJSON *cov)
{
    const cJSON *why = cJSON_GetObjectItemCaseSensitive(cov, "uncovered");
    bool is_counted = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cov, "counted"));
    printf("coverage: %s", str(cov, "status"));
    if (why)
        printf(" (%s: %s; %s:%d)", str(why, "kind"), str(why, "reason"), str(why, "file"),
               (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(why, "line")));
    else if (strcmp(str(cov, "status"), "covered") != 0)
        printf(is_counted ? " (no reason recorded in suites/uncovered.tsv)"
                          : " (not counted: client-side, Streamable HTTP or MAY)");
    printf("\n");
}

static void print_requirement(const cJSON *o)
{
    printf("%s (binds %s): %s\n  source: %s\n  level per revision:", str(o, "id"), str(o, "binds"),
           str(o, "text"), str(o, "source"));
    const cJSON *levels = cJSON_GetObjectItemCaseSensitive(o, "levels");
    for (const cJSON *l = levels->child; l; l = l->next)
        printf(" %s=%s", l->string, cJSON_IsString(l) ? l->valuestring : "-");
    const cJSON *checks = cJSON_GetObjectItemCaseSensitive(o, "checks");
    printf("\nchecks citing it: %d\n", cJSON_GetArraySize(checks));
    for (const cJSON *c = checks->child; c; c = c->next)
        print_check(c, "  ");
    print_coverage(cJSON_GetObjectItemCaseSensitive(o, "coverage"));
}

static void print_text(const cJSON *o)
{
    if (strcmp(str(o, "kind"), "requirement") == 0) {
        print_requirement(o);
        return;
    }
    print_check(cJSON_GetObjectItemCaseSensitive(o, "check"), "");
    const cJSON *reqs = cJSON_GetObjectItemCaseSensitive(o, "requirements");
    for (const cJSON *r = reqs->child; r; r = r->next) {
        printf("\n");
        print_requirement(r);
    }
}

/* ---- the command ------------------------------------------------------------------------ */

static int usage(FILE *out, const char *why)
{
    if (why)
        fprintf(stderr, "mcpspec explain: %s\n", why);
    fprintf(out, "usage: mcpspec explain [--json] [--suites DIR] ID...   (a requirement ID "
                 "such as PAGE-006, or a check such as ping/empty-result)\n"
                 "       mcpspec explain --all --json   (every catalog requirement)\n");
    return MCPS_EXIT_USAGE;
}

static int emit(cJSON *results, bool json)
{
    if (json) {
        char *text = mcps_json_print(results, NULL);
        if (!text)
            return MCPS_EXIT_INCOMPLETE;
        puts(text);
        free(text);
        return MCPS_EXIT_OK;
    }
    for (const cJSON *o = results->child; o; o = o->next) {
        if (o != results->child)
            printf("\n");
        print_text(o);
    }
    return MCPS_EXIT_OK;
}

static int explain(const char **ids, size_t n, bool all, bool json, const explain_ctx *x)
{
    cJSON *results = cJSON_CreateArray();
    for (size_t i = 0; all && results && i < mcps_catalog_count(); i++)
        cJSON_AddItemToArray(results, explain_requirement(mcps_catalog_at(i), x));
    for (size_t i = 0; results && i < n; i++) {
        cJSON *o = explain_id(ids[i], x);
        if (!o) {
            fprintf(stderr,
                    "mcpspec explain: unknown ID '%s': neither a catalog requirement nor a check "
                    "(mcpspec list shows the checks)\n",
                    ids[i]);
            mcps_json_delete(results);
            return MCPS_EXIT_USAGE;
        }
        cJSON_AddItemToArray(results, o);
    }
    int rc = results ? emit(results, json) : MCPS_EXIT_INCOMPLETE;
    mcps_json_delete(results);
    return rc;
}

int mcps_cli_explain(int argc, char **argv)
{
    const char *ids[64], *dir = NULL;
    size_t n = 0;
    bool json = false, all = false;
    mcps_args a;
    mcps_args_init(&a, argc, argv);
    while (mcps_args_more(&a)) {
        if (mcps_args_flag(&a, "--help"))
            return usage(stdout, NULL), MCPS_EXIT_OK;
        if (mcps_args_flag(&a, "--json"))
            json = true;
        else if (mcps_args_flag(&a, "--all"))
            all = true;
        else if (mcps_args_option(&a, "--suites"))
            dir = a.value;
        else if (!mcps_args_is_option(&a) && n < 64)
            ids[n++] = mcps_args_positional(&a);
        else
            return usage(stderr, a.error[0] ? a.error : "unknown argument (at most 64 IDs)");
    }
    if (!n && !all)
        return usage(stderr, "name an ID");
    mcps_suite_set set;
    if (!mcps_cli_load_suites(dir, &set))
        return MCPS_EXIT_USAGE;
    mcps_builtin_proofs bp;
    if (!mcps_cli_load_builtin_proofs(dir, &bp)) {
        mcps_suite_set_free(&set);
        return MCPS_EXIT_USAGE;
    }
    explain_ctx x = {mcps_cli_checks_json(&set, &bp, NULL), load_reasons(dir)};
    int rc = x.checks && x.reasons ? explain(ids, n, all, json, &x) : MCPS_EXIT_INCOMPLETE;
    cJSON_Delete(x.checks);
    cJSON_Delete(x.reasons);
    mcps_builtin_proofs_free(&bp);
    mcps_suite_set_free(&set);
    return rc;
}
