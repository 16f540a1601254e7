/*
 * baseline.c - `mcpspec baseline --from report.json --out FILE`: a baseline of
 * a report's failures, to start gating a server that does not pass yet.
 *
 * One entry per case and revision whose verdict is asked for (--verdicts, FAIL
 * by default), excusing exactly that verdict, with a placeholder reason the
 * user is told to replace: a baseline is a list of decisions, and the reason
 * is the decision. Running the same target again with the file exits 0. The
 * file format is engine/baseline.h's (docs/baseline.md).
 */
#include "cli/args.h"
#include "cli/cli.h"
#include "base/array.h"
#include "base/file.h"
#include "codec/json.h"
#include "engine/baseline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REASON_FINDING_MAX 120 /* bytes of the observed text in a placeholder reason */

typedef struct baseline_options {
    const char *from;
    const char *out;
    unsigned verdicts;
} baseline_options;

static int usage(const char *why)
{
    if (why)
        fprintf(stderr, "mcpspec baseline: %s\n", why);
    fprintf(
        stderr,
        "usage: mcpspec baseline --from REPORT.json --out FILE [--verdicts LIST]\n"
        "  --from FILE      a report.json written by mcpspec run\n"
        "  --out FILE       the baseline to write (- for standard output)\n"
        "  --verdicts LIST  the verdicts to list: FAIL (default), WARN, ERROR, comma-separated\n"
        "Writes one entry per failing case and revision, with a placeholder reason to\n"
        "replace with why the failure is accepted; then: mcpspec run --baseline FILE ...\n"
        "(docs/baseline.md). exit: 0 written, 2 usage or input error\n");
    return MCPS_EXIT_USAGE;
}

static bool parse_verdicts(const char *list, unsigned *out)
{
    unsigned set = 0;
    while (*list) {
        size_t n = strcspn(list, ",");
        if (n == 4 && strncmp(list, "FAIL", 4) == 0)
            set |= MCPS_BASELINE_VERDICT(MCPS_VERDICT_FAIL);
        else if (n == 4 && strncmp(list, "WARN", 4) == 0)
            set |= MCPS_BASELINE_VERDICT(MCPS_VERDICT_WARN);
        else if (n == 5 && strncmp(list, "ERROR", 5) == 0)
            set |= MCPS_BASELINE_VERDICT(MCPS_VERDICT_ERROR);
        else
            return false;
        list += n + (list[n] == ',');
    }
    *out = set;
    return set != 0;
}

/* -1 when all options were read, else the exit code. */
static int parse_options(int argc, char **argv, baseline_options *o)
{
    mcps_args a;
    mcps_args_init(&a, argc, argv);
    while (mcps_args_more(&a)) {
        if (mcps_args_option(&a, "--from"))
            o->from = a.value;
        else if (mcps_args_option(&a, "--out"))
            o->out = a.value;
        else if (mcps_args_option(&a, "--verdicts")) {
            if (!parse_verdicts(a.value, &o->verdicts))
                return usage("--verdicts is a list of FAIL, WARN, ERROR");
        } else if (mcps_args_flag(&a, "--help")) {
            usage(NULL);
            return MCPS_EXIT_OK;
        } else {
            char why[300];
            snprintf(why, sizeof why, "%s '%s'", a.error[0] ? a.error : "unknown argument",
                     argv[a.i < argc ? a.i : argc - 1]);
            return usage(why);
        }
    }
    if (!o->from || !o->out)
        return usage("--from and --out are required");
    return -1;
}

/* ---- reading the report -------------------------------------------------------------- */

static char *read_report(const char *path, size_t *len)
{
    mcps_buf b = {0};
    int err = mcps_file_read(&b, path, MCPS_JSON_DEFAULT_MAX_BYTES);
    if (err) {
        fprintf(stderr, "mcpspec baseline: %s: %s%s\n", path, err == EFBIG ? "" : "cannot open: ",
                err == EFBIG ? "larger than a report mcpspec writes" : strerror(err));
        mcps_buf_free(&b);
        return NULL;
    }
    *len = b.len;
    return mcps_buf_take(&b);
}

static const char *member_text(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The report's cases, once it is known to be an mcpspec report this mcpspec reads. */
static const cJSON *report_cases(const char *path, const cJSON *root)
{
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(root, "schema_version");
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
    const char *schema = member_text(root, "schema");
    if (!schema || strcmp(schema, "mcpspec-report") != 0)
        fprintf(stderr, "mcpspec baseline: %s: not an mcpspec report.json\n", path);
    else if (!cJSON_IsNumber(version) || version->valuedouble > MCPS_REPORT_SCHEMA_VERSION)
        fprintf(stderr,
                "mcpspec baseline: %s: report schema_version %s is newer than this "
                "mcpspec reads (%d)\n",
                path, cJSON_IsNumber(version) ? mcps_json_number_text(version) : "?",
                MCPS_REPORT_SCHEMA_VERSION);
    else if (!cJSON_IsArray(cases))
        fprintf(stderr, "mcpspec baseline: %s: the report has no cases array\n", path);
    else
        return cases;
    return NULL;
}

/* ---- entries ------------------------------------------------------------------------- */

typedef struct entry_list {
    mcps_baseline_entry *items;
    size_t n, cap;
} entry_list;

static mcps_verdict verdict_named(const char *s)
{
    for (int v = 0; s && v < MCPS_VERDICT_COUNT; v++)
        if (strcmp(s, mcps_verdict_name((mcps_verdict)v)) == 0)
            return (mcps_verdict)v;
    return MCPS_VERDICT_COUNT;
}

/* "known failure as of DATE: FINDING", the finding on one line and cut at a character. */
static char *placeholder_reason(const char *date, const char *finding)
{
    mcps_buf b = {0};
    mcps_buf_printf(&b, "known failure as of %s: ", date);
    size_t n = strlen(finding), keep = n > REASON_FINDING_MAX ? REASON_FINDING_MAX : n;
    while (keep < n && keep > 0 && ((unsigned char)finding[keep] & 0xC0) == 0x80)
        keep--;
    for (size_t i = 0; i < keep; i++)
        mcps_buf_putc(&b, (unsigned char)finding[i] < ' ' ? ' ' : finding[i]);
    if (keep < n)
        mcps_buf_puts(&b, "\xE2\x80\xA6");
    if (!n)
        mcps_buf_puts(&b, "(nothing observed)");
    return mcps_buf_take(&b);
}

static bool listed(const entry_list *l, const char *id, mcps_rev rev)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->items[i].revision == rev && strcmp(l->items[i].match, id) == 0)
            return true;
    return false;
}

/* One entry for a case the options ask for; false when memory ran out. */
static bool add_case(entry_list *l, const cJSON *c, unsigned verdicts, const char *date)
{
    const char *id = member_text(c, "id"), *rev_text = member_text(c, "revision");
    mcps_verdict v = verdict_named(member_text(c, "verdict"));
    if (!id || !rev_text || v == MCPS_VERDICT_COUNT || !(verdicts & MCPS_BASELINE_VERDICT(v)))
        return true;
    mcps_rev rev = mcps_rev_parse(rev_text); /* "none": the entry says "all" */
    if (listed(l, id, rev))
        return true;
    if (!mcps_array_reserve(&l->items, &l->cap, l->n + 1, sizeof *l->items, 32))
        return false;
    const char *finding = member_text(c, "observed");
    if (!finding || !*finding)
        finding = member_text(c, "reason");
    mcps_baseline_entry *e = &l->items[l->n++];
    *e = (mcps_baseline_entry){.match = strdup(id),
                               .revision = rev,
                               .verdicts = MCPS_BASELINE_VERDICT(v),
                               .reason = placeholder_reason(date, finding ? finding : "")};
    return e->match && e->reason;
}

static void free_entries(entry_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->items[i].match);
        free(l->items[i].reason);
    }
    free(l->items);
}

/* The day the report's run started, else today. */
static void report_date(const cJSON *root, char out[11])
{
    const char *started = member_text(root, "started_at");
    mcps_baseline_today(out);
    if (started && strlen(started) >= 10 && started[4] == '-' && started[7] == '-')
        snprintf(out, 11, "%.10s", started);
}

/* ---- writing --------------------------------------------------------------------------- */

/* Through a temporary file renamed into place: an interrupted write leaves the old file. */
static bool write_file(const char *path, const mcps_buf *text)
{
    if (strcmp(path, "-") == 0)
        return fwrite(text->data, 1, text->len, stdout) == text->len && fflush(stdout) == 0;
    mcps_buf tmp = {0};
    mcps_buf_printf(&tmp, "%s.XXXXXX", path);
    int fd = tmp.oom ? -1 : mkstemp(tmp.data);
    FILE *f = fd >= 0 && fchmod(fd, 0644) == 0 ? fdopen(fd, "w") : NULL;
    bool ok = f && fwrite(text->data, 1, text->len, f) == text->len;
    ok = f ? (fclose(f) == 0) && ok : false;
    if (fd >= 0 && !f)
        close(fd);
    ok = ok && rename(tmp.data, path) == 0;
    int saved = errno;
    if (!ok && fd >= 0)
        unlink(tmp.data);
    if (!ok)
        fprintf(stderr, "mcpspec baseline: cannot write %s: %s\n", path, strerror(saved));
    mcps_buf_free(&tmp);
    return ok;
}

static void tell(const baseline_options *o, size_t n, const cJSON *root)
{
    const cJSON *fatal = cJSON_GetObjectItemCaseSensitive(root, "fatal");
    if (cJSON_IsString(fatal))
        fprintf(stderr,
                "mcpspec baseline: the report's run did not complete (%.200s): what it "
                "could not judge is not listed\n",
                fatal->valuestring);
    fprintf(stderr,
            "mcpspec baseline: %zu entries written to %s. Replace each placeholder \"reason\" "
            "with why the failure is accepted (a link to the issue tracking it), and consider an "
            "\"expires\" date; then: mcpspec run --baseline %s ... (docs/baseline.md)\n",
            n, strcmp(o->out, "-") == 0 ? "standard output" : o->out, o->out);
}

static int make_baseline(const baseline_options *o, const cJSON *root, const cJSON *cases)
{
    entry_list l = {0};
    char date[11];
    report_date(root, date);
    bool ok = true;
    for (const cJSON *c = cases->child; c && ok; c = c->next)
        ok = add_case(&l, c, o->verdicts, date);
    mcps_buf text = {0};
    if (ok && mcps_baseline_is_yaml_name(o->out))
        mcps_baseline_render_yaml(l.items, l.n, &text);
    else if (ok)
        mcps_baseline_render(l.items, l.n, &text);
    if (!ok || text.oom) {
        fprintf(stderr, "mcpspec baseline: out of memory\n");
        ok = false;
    } else if ((ok = write_file(o->out, &text))) {
        tell(o, l.n, root);
    }
    mcps_buf_free(&text);
    free_entries(&l);
    return ok ? MCPS_EXIT_OK : MCPS_EXIT_USAGE;
}

int mcps_cli_baseline(int argc, char **argv)
{
    baseline_options o = {.verdicts = MCPS_BASELINE_VERDICT(MCPS_VERDICT_FAIL)};
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0)
        return rc;
    size_t len = 0;
    char *text = read_report(o.from, &len);
    if (!text)
        return MCPS_EXIT_USAGE;
    mcps_json_result r;
    rc = MCPS_EXIT_USAGE;
    if (!mcps_json_parse(text, len, NULL, &r))
        fprintf(stderr, "mcpspec baseline: %s: invalid JSON at byte %zu: %s\n", o.from,
                r.error_offset, r.error);
    else if (!cJSON_IsObject(r.root))
        fprintf(stderr, "mcpspec baseline: %s: not an mcpspec report.json\n", o.from);
    else {
        const cJSON *cases = report_cases(o.from, r.root);
        if (cases)
            rc = make_baseline(&o, r.root, cases);
    }
    mcps_json_delete(r.root);
    free(text);
    return rc;
}
