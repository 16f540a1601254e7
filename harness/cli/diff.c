/*
 * diff.c - `mcpspec diff OLD NEW`: what changed between two runs, to gate a pull request.
 *
 * A CI job that runs mcpspec on the base branch and on the pull request needs
 * the news, not two full reports: the cases that now fail and did not (these
 * set the exit code), the fixes, the other changed verdicts, the cases that
 * appeared or went, the revisions discovery gained or lost, and whether the
 * run itself now stops early (`fatal`). Cases are matched by revision and case
 * id, which a report holds once each.
 *
 * A verdict fails the gate as it fails `mcpspec run`: FAIL and ERROR always,
 * WARN only under --strict (given here, or recorded by the new run). Without
 * it, a case that newly WARNs is listed apart, so the list and the exit code
 * never disagree.
 *
 * Reports are read with the strict codec, one at a time, and boiled down
 * (diff.h) before the next is read, so memory is one input at a time plus a
 * little per case. This file reads and compares; diff_render.c shows.
 */
#include "base/array.h"
#include "base/buf.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/diff.h"
#include "codec/json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DIFF_MAX_FILE MCPS_JSON_DEFAULT_MAX_BYTES /* what the codec parses at most */
#define DIFF_KEEP     ((size_t)1024)              /* bytes kept of an observation or detail */
#define ELLIPSIS      "\xE2\x80\xA6"

/* ---- reading a report ------------------------------------------------------------- */

static void report_free(mcps_diff_report *r)
{
    for (size_t i = 0; i < r->ncases; i++) {
        free(r->cases[i].rev);
        free(r->cases[i].id);
        free(r->cases[i].broken);
        free(r->cases[i].detail);
    }
    for (size_t i = 0; i < r->nrevs; i++) {
        free(r->revs[i].name);
        free(r->revs[i].detail);
    }
    free(r->cases);
    free(r->revs);
    free(r->target);
    free(r->started_at);
    free(r->tool_version);
    free(r->fatal);
}

static bool invalid(mcps_diff_report *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static bool invalid(mcps_diff_report *r, const char *fmt, ...)
{
    char why[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(r->err, sizeof r->err, "%s: not an mcpspec report: %s", r->path, why);
    return false;
}

static bool out_of_memory(mcps_diff_report *r)
{
    snprintf(r->err, sizeof r->err, "%s: out of memory", r->path);
    return false;
}

/* A copy of s (NULL stays NULL), cut to max bytes at a code point with an ellipsis. */
static char *keep(mcps_diff_report *r, const char *s, size_t max)
{
    if (!s)
        return NULL;
    size_t n = strlen(s), cut = n;
    if (n > max) {
        cut = max; /* back to the start of a character (the codec's C0 80 stays whole too) */
        while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
            cut--;
    }
    char *c = malloc(cut + sizeof ELLIPSIS);
    if (!c) {
        r->oom = true;
        return NULL;
    }
    memcpy(c, s, cut);
    strcpy(c + cut, cut < n ? ELLIPSIS : "");
    return c;
}

static const char *str_member(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A report folder (mcpspec run --out DIR) stands for the report.json in it. */
static void set_path(mcps_diff_report *r, const char *given)
{
    struct stat st;
    r->path = given;
    if (stat(given, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(r->pathbuf, sizeof r->pathbuf, "%s/report.json", given);
        r->path = r->pathbuf;
    }
}

/* The file's bytes: at most DIFF_MAX_FILE of them, since a report is parsed whole. */
static bool read_all(mcps_diff_report *r, mcps_buf *text)
{
    FILE *f = fopen(r->path, "rb");
    if (!f) {
        snprintf(r->err, sizeof r->err, "%s: cannot open: %s", r->path, strerror(errno));
        return false;
    }
    char chunk[65536];
    size_t got;
    while (text->len <= DIFF_MAX_FILE && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
        mcps_buf_append(text, chunk, got);
    int err = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (err)
        snprintf(r->err, sizeof r->err, "%s: cannot read: %s", r->path, strerror(err));
    else if (text->len > DIFF_MAX_FILE)
        snprintf(r->err, sizeof r->err, "%s: larger than %zu MiB: not a report mcpspec writes",
                 r->path, DIFF_MAX_FILE >> 20);
    else if (text->oom)
        return out_of_memory(r);
    return !err && text->len <= DIFF_MAX_FILE;
}

static size_t line_of(const char *s, size_t offset, size_t *column)
{
    size_t line = 1, start = 0;
    for (size_t i = 0; i < offset; i++)
        if (s[i] == '\n') {
            line++;
            start = i + 1;
        }
    *column = offset - start + 1;
    return line;
}

static cJSON *parse(mcps_diff_report *r, const mcps_buf *text)
{
    const char *s = text->data ? text->data : "";
    mcps_json_result res;
    if (mcps_json_parse(s, text->len, NULL, &res))
        return res.root;
    size_t column, at = res.error_offset < text->len ? res.error_offset : text->len;
    size_t line = line_of(s, at, &column);
    snprintf(r->err, sizeof r->err, "%s:%zu: invalid JSON (column %zu): %s", r->path, line, column,
             res.error);
    return NULL;
}

static bool load_header(mcps_diff_report *r, const cJSON *root)
{
    const char *schema = str_member(root, "schema");
    if (!schema || strcmp(schema, "mcpspec-report") != 0)
        return invalid(r, "no \"schema\": \"mcpspec-report\"");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "schema_version");
    if (!cJSON_IsNumber(v) || !mcps_json_number_is_integer(v))
        return invalid(r, "no integer \"schema_version\"");
    if (v->valuedouble != MCPS_REPORT_SCHEMA_VERSION)
        return invalid(r, "schema_version %g, and this mcpspec reads version %d", v->valuedouble,
                       MCPS_REPORT_SCHEMA_VERSION);
    const cJSON *fatal = cJSON_GetObjectItemCaseSensitive(root, "fatal");
    const cJSON *strict = cJSON_GetObjectItemCaseSensitive(root, "strict");
    if (!cJSON_IsNull(fatal) && !cJSON_IsString(fatal))
        return invalid(r, "\"fatal\" is neither a string nor null");
    if (strict && !cJSON_IsBool(strict))
        return invalid(r, "\"strict\" is not a boolean");
    r->strict = cJSON_IsTrue(strict);
    r->fatal = keep(r, str_member(root, "fatal"), DIFF_KEEP);
    r->target = keep(r, str_member(root, "target"), DIFF_KEEP);
    r->started_at = keep(r, str_member(root, "started_at"), 64);
    r->tool_version = keep(r, str_member(root, "tool_version"), 64);
    return !r->oom || out_of_memory(r);
}

static bool load_revision(mcps_diff_report *r, const cJSON *e, size_t i)
{
    const char *name = str_member(e, "revision");
    const cJSON *probed = cJSON_GetObjectItemCaseSensitive(e, "probed");
    const cJSON *supported = cJSON_GetObjectItemCaseSensitive(e, "supported");
    if (!name || !cJSON_IsBool(probed) || !cJSON_IsBool(supported))
        return invalid(r, "revisions[%zu] needs \"revision\", \"probed\" and \"supported\"", i);
    if (!mcps_array_reserve(&r->revs, &r->revs_cap, r->nrevs + 1, sizeof *r->revs, 8))
        return out_of_memory(r);
    r->revs[r->nrevs++] = (mcps_diff_rev){
        .name = keep(r, name, SIZE_MAX),
        .status = cJSON_IsTrue(supported) ? MCPS_DIFF_SUPPORTED
                  : cJSON_IsTrue(probed)  ? MCPS_DIFF_UNSUPPORTED
                                          : MCPS_DIFF_NOT_PROBED,
        .detail = keep(r, str_member(e, "detail"), DIFF_KEEP),
    };
    return !r->oom || out_of_memory(r);
}

static bool parse_verdict(const char *s, mcps_verdict *v)
{
    for (int i = 0; s && i < MCPS_VERDICT_COUNT; i++)
        if (strcmp(s, mcps_verdict_name((mcps_verdict)i)) == 0) {
            *v = (mcps_verdict)i;
            return true;
        }
    return false;
}

/* What a line shows of a case: for SKIP and ERROR why it did not run, else what was observed. */
static const char *case_detail(const cJSON *e, mcps_verdict v)
{
    const char *observed = str_member(e, "observed"), *reason = str_member(e, "reason");
    bool why_first = v == MCPS_VERDICT_SKIP || v == MCPS_VERDICT_ERROR;
    const char *first = why_first ? reason : observed;
    return first ? first : why_first ? observed : reason;
}

static char *broken_ids(mcps_diff_report *r, const cJSON *e)
{
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(e, "broken");
    mcps_buf b = {0};
    for (const cJSON *id = cJSON_IsArray(ids) ? ids->child : NULL; id; id = id->next)
        if (cJSON_IsString(id))
            mcps_buf_printf(&b, "%s%s", b.len ? " " : "", id->valuestring);
    char *s = b.len || b.oom ? keep(r, b.data, 200) : NULL;
    r->oom |= b.oom;
    mcps_buf_free(&b);
    return s;
}

static bool load_case(mcps_diff_report *r, const cJSON *e, size_t i)
{
    const char *id = str_member(e, "id"), *rev = str_member(e, "revision");
    mcps_verdict v;
    if (!id || !rev || !parse_verdict(str_member(e, "verdict"), &v))
        return invalid(r,
                       "cases[%zu] needs \"id\", \"revision\" and a \"verdict\" (PASS, FAIL, "
                       "WARN, INFO, SKIP or ERROR)",
                       i);
    if (!mcps_array_reserve(&r->cases, &r->cases_cap, r->ncases + 1, sizeof *r->cases, 64))
        return out_of_memory(r);
    r->cases[r->ncases++] = (mcps_diff_case){
        .rev = keep(r, rev, SIZE_MAX),
        .id = keep(r, id, SIZE_MAX),
        .verdict = v,
        .broken = broken_ids(r, e),
        .detail = keep(r, case_detail(e, v), DIFF_KEEP),
    };
    return !r->oom || out_of_memory(r);
}

static bool load_lists(mcps_diff_report *r, const cJSON *root)
{
    const cJSON *revs = cJSON_GetObjectItemCaseSensitive(root, "revisions");
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
    if (!cJSON_IsArray(revs) || !cJSON_IsArray(cases))
        return invalid(r, "no \"revisions\" and \"cases\" arrays");
    size_t i = 0;
    for (const cJSON *e = revs->child; e; e = e->next, i++)
        if (!load_revision(r, e, i))
            return false;
    i = 0;
    for (const cJSON *e = cases->child; e; e = e->next, i++)
        if (!load_case(r, e, i))
            return false;
    return true;
}

static int case_order(const void *a, const void *b)
{
    const mcps_diff_case *x = a, *y = b;
    int c = strcmp(x->rev, y->rev);
    return c ? c : strcmp(x->id, y->id);
}

/* Sorted by revision and id, so two reports are compared in one walk. */
static bool sort_cases(mcps_diff_report *r)
{
    if (r->ncases)
        qsort(r->cases, r->ncases, sizeof *r->cases, case_order);
    for (size_t i = 1; i < r->ncases; i++)
        if (case_order(&r->cases[i - 1], &r->cases[i]) == 0)
            return invalid(r, "case %.200s appears twice on revision %.40s", r->cases[i].id,
                           r->cases[i].rev);
    return true;
}

static bool report_load(mcps_diff_report *r, const char *given)
{
    set_path(r, given);
    mcps_buf text = {0};
    cJSON *root = read_all(r, &text) ? parse(r, &text) : NULL;
    mcps_buf_free(&text);
    bool ok = root && (cJSON_IsObject(root) || invalid(r, "not a JSON object")) &&
              load_header(r, root) && load_lists(r, root) && sort_cases(r);
    mcps_json_delete(root);
    return ok;
}

static mcps_diff_status status_of(const mcps_diff_report *r, const char *rev)
{
    for (size_t i = 0; i < r->nrevs; i++)
        if (strcmp(r->revs[i].name, rev) == 0)
            return r->revs[i].status;
    return MCPS_DIFF_ABSENT;
}

static const char *detail_of(const mcps_diff_report *r, const char *rev)
{
    for (size_t i = 0; i < r->nrevs; i++)
        if (strcmp(r->revs[i].name, rev) == 0)
            return r->revs[i].detail;
    return NULL;
}

/* ---- comparing ---------------------------------------------------------------------- */

/* Why a removed case went, when discovery says: its revision is no longer supported. */
static const char *removed_because(const mcps_diff *d, const mcps_diff_case *was)
{
    if (status_of(d->old, was->rev) != MCPS_DIFF_SUPPORTED)
        return NULL;
    switch (status_of(d->new, was->rev)) {
    case MCPS_DIFF_UNSUPPORTED:
        return "its revision is no longer supported";
    case MCPS_DIFF_NOT_PROBED:
        return "its revision was not probed";
    case MCPS_DIFF_ABSENT:
        return "its revision is not in the new report";
    default:
        return NULL;
    }
}

static bool gating(mcps_verdict v, bool strict)
{
    return v == MCPS_VERDICT_FAIL || v == MCPS_VERDICT_ERROR || (strict && v == MCPS_VERDICT_WARN);
}

static bool is_finding(mcps_verdict v)
{
    return gating(v, true);
}

/* The change from was to now (either may be NULL); MCPS_DIFF_KINDS when there is none. */
static mcps_diff_kind classify(const mcps_diff_case *was, const mcps_diff_case *now, bool strict)
{
    if (!now)
        return MCPS_DIFF_REMOVED;
    if (gating(now->verdict, strict) && !(was && gating(was->verdict, strict)))
        return MCPS_DIFF_FAILURE;
    if (now->verdict == MCPS_VERDICT_WARN && !(was && is_finding(was->verdict)))
        return MCPS_DIFF_WARNING;
    if (!was)
        return MCPS_DIFF_ADDED;
    if (is_finding(was->verdict) && now->verdict == MCPS_VERDICT_PASS)
        return MCPS_DIFF_FIX;
    return was->verdict != now->verdict ? MCPS_DIFF_CHANGED : MCPS_DIFF_KINDS;
}

static bool add_change(mcps_diff *d, const mcps_diff_case *was, const mcps_diff_case *now)
{
    mcps_diff_kind k = classify(was, now, d->strict);
    if (k == MCPS_DIFF_KINDS) {
        d->unchanged++;
        return true;
    }
    if (!mcps_array_reserve(&d->changes, &d->changes_cap, d->nchanges + 1, sizeof *d->changes, 64))
        return false;
    const char *why = k == MCPS_DIFF_REMOVED ? removed_because(d, was) : NULL;
    d->changes[d->nchanges++] = (mcps_diff_change){k, was, now, why};
    d->count[k]++;
    return true;
}

/* One walk over both sorted case lists. */
static bool compare_cases(mcps_diff *d)
{
    size_t i = 0, j = 0;
    while (i < d->old->ncases || j < d->new->ncases) {
        const mcps_diff_case *was = i < d->old->ncases ? &d->old->cases[i] : NULL;
        const mcps_diff_case *now = j < d->new->ncases ? &d->new->cases[j] : NULL;
        int order = !was ? 1 : !now ? -1 : case_order(was, now);
        if (order > 0)
            was = NULL;
        else
            i++;
        if (order < 0)
            now = NULL;
        else
            j++;
        if (!add_change(d, was, now))
            return false;
    }
    return true;
}

static bool add_rev_change(mcps_diff *d, const char *name)
{
    mcps_diff_status was = status_of(d->old, name), now = status_of(d->new, name);
    if ((was == MCPS_DIFF_SUPPORTED) == (now == MCPS_DIFF_SUPPORTED))
        return true; /* only support matters: "not probed" and "absent" are not news */
    if (!mcps_array_reserve(&d->revs, &d->revs_cap, d->nrevs + 1, sizeof *d->revs, 8))
        return false;
    const char *detail = detail_of(d->new, name);
    d->revs[d->nrevs++] =
        (mcps_diff_rev_change){name, was, now, detail ? detail : detail_of(d->old, name)};
    if (now == MCPS_DIFF_SUPPORTED)
        d->revs_gained++;
    else
        d->revs_lost++;
    return true;
}

static int rev_change_order(const void *a, const void *b)
{
    return strcmp(((const mcps_diff_rev_change *)a)->name, ((const mcps_diff_rev_change *)b)->name);
}

static bool compare_revisions(mcps_diff *d)
{
    for (size_t i = 0; i < d->old->nrevs; i++)
        if (!add_rev_change(d, d->old->revs[i].name))
            return false;
    for (size_t i = 0; i < d->new->nrevs; i++)
        if (status_of(d->old, d->new->revs[i].name) == MCPS_DIFF_ABSENT &&
            !add_rev_change(d, d->new->revs[i].name))
            return false;
    if (d->nrevs)
        qsort(d->revs, d->nrevs, sizeof *d->revs, rev_change_order);
    return true;
}

static void compare_fatal(mcps_diff *d)
{
    const char *was = d->old->fatal, *now = d->new->fatal;
    d->fatal_changed = (!was != !now) || (was && strcmp(was, now) != 0);
    d->newly_fatal = !was && now;
}

static bool compare(mcps_diff *d)
{
    if (!compare_cases(d) || !compare_revisions(d))
        return false;
    compare_fatal(d);
    /* A run that now stops early fails the gate, whatever its cases say. */
    d->exit_code = d->count[MCPS_DIFF_FAILURE] || d->newly_fatal ? MCPS_EXIT_FAIL : MCPS_EXIT_OK;
    return true;
}

/* ---- the command ------------------------------------------------------------------------ */

typedef struct diff_options {
    const char *paths[2];
    size_t npaths;
    const char *out;
    bool markdown;
    bool strict;
} diff_options;

static int usage(FILE *to, const char *why)
{
    if (why)
        fprintf(stderr, "mcpspec diff: %s\n", why);
    fprintf(to, "usage: mcpspec diff [--format text|markdown] [--out FILE] [--strict] OLD NEW\n"
                "  Compare two report.json files written by mcpspec run (or the --out folders\n"
                "  holding them), case by case (revision and case id): new failures, fixes,\n"
                "  other changed verdicts, new and removed cases, revisions discovery newly\n"
                "  supports or no longer supports, and a changed fatal (the run stopped early).\n"
                "  --format F   text (default, for a terminal) or markdown (for a pull-request\n"
                "               comment: counts, then a table per kind, long lists collapsed,\n"
                "               under GitHub's 65536-character limit)\n"
                "  --out FILE   write the diff to FILE instead of stdout\n"
                "  --strict     a new WARN is a new failure, as under mcpspec run --strict\n"
                "               (implied when NEW was run with --strict)\n"
                "  A new failure is a case now FAIL or ERROR (or WARN under --strict) that was\n"
                "  not, or was absent; a fix was FAIL, WARN or ERROR and is now PASS.\n"
                "  exit: 0 no new failure, 1 new failures (or the new run stopped early and the\n"
                "        old one did not), 2 usage error or a report that cannot be read or is\n"
                "        not valid\n");
    return MCPS_EXIT_USAGE;
}

static int unknown_option(const char *arg)
{
    char why[200];
    snprintf(why, sizeof why, "unknown option '%.150s'", arg);
    return usage(stderr, why);
}

/* NULL (a "--" at the end) takes nothing; a third path is refused. */
static bool take_path(diff_options *o, const char *path)
{
    if (path && o->npaths == 2)
        return false;
    if (path)
        o->paths[o->npaths++] = path;
    return true;
}

/* Returns -1 when the options are good, else the exit code. */
static int parse_options(int argc, char **argv, diff_options *o)
{
    mcps_args a;
    mcps_args_init(&a, argc, argv);
    while (mcps_args_more(&a)) {
        if (mcps_args_flag(&a, "--help"))
            return usage(stdout, NULL), MCPS_EXIT_OK;
        if (mcps_args_flag(&a, "--strict"))
            o->strict = true;
        else if (mcps_args_option(&a, "--out"))
            o->out = a.value;
        else if (mcps_args_option(&a, "--format")) {
            if (strcmp(a.value, "text") != 0 && strcmp(a.value, "markdown") != 0)
                return usage(stderr, "--format is text or markdown");
            o->markdown = strcmp(a.value, "markdown") == 0;
        } else if (a.error[0])
            return usage(stderr, a.error);
        else if (mcps_args_is_option(&a))
            return unknown_option(a.argv[a.i]);
        else if (!take_path(o, mcps_args_positional(&a)))
            return usage(stderr, "two reports only: OLD and NEW");
    }
    if (a.error[0])
        return usage(stderr, a.error);
    return o->npaths == 2 ? -1 : usage(stderr, "name two reports: OLD and NEW");
}

static bool write_output(const char *path, const mcps_buf *doc)
{
    FILE *f = path ? fopen(path, "wb") : stdout;
    bool ok = f && fwrite(doc->data, 1, doc->len, f) == doc->len;
    if (f && f != stdout)
        ok = fclose(f) == 0 && ok;
    else if (f)
        ok = fflush(f) == 0 && ok;
    if (!ok)
        fprintf(stderr, "mcpspec diff: cannot write %s: %s\n", path ? path : "to stdout",
                strerror(errno));
    return ok;
}

static int diff_reports(const diff_options *o, const mcps_diff_report *old,
                        const mcps_diff_report *new)
{
    mcps_diff d = {.old = old, .new = new, .strict = o->strict || new->strict};
    mcps_buf doc = {0};
    bool ok = compare(&d);
    if (ok && o->markdown)
        mcps_cli_diff_markdown(&doc, &d);
    else if (ok)
        mcps_cli_diff_text(&doc, &d);
    int rc = !ok || doc.oom ? MCPS_EXIT_INCOMPLETE : d.exit_code;
    if (rc == MCPS_EXIT_INCOMPLETE)
        fprintf(stderr, "mcpspec diff: out of memory\n");
    else if (!write_output(o->out, &doc))
        rc = MCPS_EXIT_USAGE;
    else if (o->out)
        fprintf(stderr, "mcpspec diff: wrote %s (exit %d)\n", o->out, rc);
    mcps_buf_free(&doc);
    free(d.changes);
    free(d.revs);
    return rc;
}

int mcps_cli_diff(int argc, char **argv)
{
    diff_options o = {0};
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0)
        return rc;
    mcps_diff_report *old = calloc(1, sizeof *old), *new = calloc(1, sizeof *new);
    if (!old || !new) {
        fprintf(stderr, "mcpspec diff: out of memory\n");
        rc = MCPS_EXIT_INCOMPLETE;
    } else {
        /* Both are read, so one run shows what is wrong with each. */
        bool old_ok = report_load(old, o.paths[0]);
        bool new_ok = report_load(new, o.paths[1]);
        if (!old_ok)
            fprintf(stderr, "mcpspec diff: %s\n", old->err);
        if (!new_ok)
            fprintf(stderr, "mcpspec diff: %s\n", new->err);
        rc = old_ok && new_ok ? diff_reports(&o, old, new) : MCPS_EXIT_USAGE;
    }
    if (old)
        report_free(old);
    if (new)
        report_free(new);
    free(old);
    free(new);
    return rc;
}
