/*
 * lint.c - `mcpspec lint FILE|-`: judge a captured stdio transcript.
 *
 * A transcript is newline-delimited JSON-RPC, as a stdio peer wrote it. Lines
 * may be marked with a direction, go-ethereum style: "--> " for client to
 * server and "<-- " for server to client; with markers, responses are paired
 * with the requests of the other side. Blank lines and lines starting with
 * '#' or '//' are transcript formatting and skipped. Every violation is
 * printed with its line, byte offset, level and requirement IDs, by the same
 * observer a live run uses.
 */
#include "cli/args.h"
#include "cli/cli.h"
#include "codec/frame.h"
#include "engine/catalog.h"
#include "session/observe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINT_DEFAULT_MAX_MESSAGE ((size_t)4 * 1024 * 1024)

typedef struct lint_state {
    const char *name; /* file name for messages */
    mcps_observer obs;
    mcps_rev rev; /* from --revision, or learned from initialize */
    bool rev_fixed;
    size_t violations;
    size_t notes;
} lint_state;

static const char *dir_label(mcps_dir dir)
{
    return dir == MCPS_DIR_TO_SERVER     ? " (client -> server)"
           : dir == MCPS_DIR_FROM_SERVER ? " (server -> client)"
                                         : "";
}

static void print_finding(void *ctx, const mcps_finding *f)
{
    lint_state *st = ctx;
    mcps_level level;
    if (!f->reqs) {
        st->notes++;
        printf("%s:%zu: byte %llu: NOTE: %s%s\n", st->name, f->line, (unsigned long long)f->offset,
               f->message, dir_label(f->dir));
        return;
    }
    const char *lvl =
        mcps_catalog_level_of(f->reqs, st->rev, &level) ? mcps_level_name(level) : "NOTE";
    st->violations++;
    printf("%s:%zu: byte %llu: %s %s: %s%s\n", st->name, f->line, (unsigned long long)f->offset,
           lvl, f->reqs, f->message, dir_label(f->dir));
}

/* Strip a direction marker; returns how many bytes it took. */
static size_t direction_prefix(const char *s, size_t n, mcps_dir *dir)
{
    *dir = MCPS_DIR_UNKNOWN;
    if (n >= 3 && memcmp(s, "-->", 3) == 0)
        *dir = MCPS_DIR_TO_SERVER;
    else if (n >= 3 && memcmp(s, "<--", 3) == 0)
        *dir = MCPS_DIR_FROM_SERVER;
    else
        return 0;
    return n > 3 && s[3] == ' ' ? 4 : 3;
}

static bool is_formatting(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
        i++;
    return i == n || s[i] == '#' || (n - i >= 2 && s[i] == '/' && s[i + 1] == '/');
}

/* Learn the revision from an initialize result, unless --revision fixed it. */
static void learn_revision(lint_state *st, const mcps_observed *m)
{
    if (st->rev_fixed || m->info.kind != MCPS_RPC_RESULT)
        return;
    mcps_dir asker = m->dir == MCPS_DIR_FROM_SERVER ? MCPS_DIR_TO_SERVER
                     : m->dir == MCPS_DIR_TO_SERVER ? MCPS_DIR_FROM_SERVER
                                                    : MCPS_DIR_UNKNOWN;
    const mcps_tracked_request *req = mcps_observer_request_for(&st->obs, m->info.id, asker);
    if (!req || strcmp(req->method, "initialize") != 0)
        return;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m->info.result, "protocolVersion");
    mcps_rev rev = cJSON_IsString(v) ? mcps_rev_parse(v->valuestring) : MCPS_REV_NONE;
    if (rev != MCPS_REV_NONE) {
        st->rev = rev;
        mcps_observer_set_rev(&st->obs, rev);
    }
}

static void lint_frame(lint_state *st, const mcps_frame *fr, size_t line)
{
    if (fr->oversize) {
        mcps_observer_oversize(&st->obs, MCPS_DIR_UNKNOWN, fr->len, fr->offset, line);
        return;
    }
    if (is_formatting(fr->data, fr->len))
        return;
    mcps_dir dir;
    size_t skip = direction_prefix(fr->data, fr->len, &dir);
    mcps_observed m;
    if (mcps_observer_line(&st->obs, dir, fr->data + skip, fr->len - skip, fr->offset + skip, line,
                           &m)) {
        learn_revision(st, &m);
        mcps_json_delete(m.msg);
    }
}

static int lint_stream(lint_state *st, FILE *in, size_t max_message)
{
    mcps_framer fr;
    mcps_framer_init(&fr, max_message);
    char chunk[65536];
    size_t got, line = 0;
    mcps_frame f;
    while ((got = fread(chunk, 1, sizeof chunk, in)) > 0) {
        if (!mcps_framer_feed(&fr, chunk, got)) {
            fprintf(stderr, "mcpspec lint: %s: out of memory\n", st->name);
            mcps_framer_free(&fr);
            return MCPS_EXIT_INCOMPLETE;
        }
        while (mcps_framer_next(&fr, &f))
            lint_frame(st, &f, ++line); /* one frame per line, over-long ones too */
    }
    int err = ferror(in);
    if (mcps_framer_finish(&fr, &f))
        lint_frame(st, &f, ++line);
    mcps_observer_finish(&st->obs);
    mcps_framer_free(&fr);
    if (err) {
        fprintf(stderr, "mcpspec lint: %s: read error: %s\n", st->name, strerror(errno));
        return MCPS_EXIT_USAGE;
    }
    return MCPS_EXIT_OK;
}

static int usage(const char *why)
{
    if (why)
        fprintf(stderr, "mcpspec lint: %s\n", why);
    fprintf(stderr,
            "usage: mcpspec lint [--revision REV] [--max-message SIZE] FILE|-\n"
            "  Judge a captured stdio transcript: one JSON-RPC message per line, optionally\n"
            "  prefixed \"--> \" (client to server) or \"<-- \" (server to client).\n"
            "  --revision REV      grade as this protocol revision (default: learned from an\n"
            "                      initialize exchange in the transcript)\n"
            "  --max-message SIZE  longest message judged (default 4M)\n"
            "  exit: 0 clean, 1 violations, 2 usage error\n");
    return MCPS_EXIT_USAGE;
}

int mcps_cli_lint(int argc, char **argv)
{
    mcps_args a;
    mcps_args_init(&a, argc, argv);
    lint_state st = {.rev = MCPS_REV_NONE};
    size_t max_message = LINT_DEFAULT_MAX_MESSAGE;
    const char *path = NULL;
    char why[200];
    while (mcps_args_more(&a)) {
        if (mcps_args_option(&a, "--revision")) {
            st.rev = mcps_rev_parse(a.value);
            st.rev_fixed = true;
            if (st.rev == MCPS_REV_NONE) {
                snprintf(why, sizeof why, "unknown revision '%s'", a.value);
                return usage(why);
            }
        } else if (mcps_args_option(&a, "--max-message")) {
            if (!mcps_args_size(a.value, &max_message) || max_message == 0) {
                snprintf(why, sizeof why, "bad --max-message '%s'", a.value);
                return usage(why);
            }
        } else if (mcps_args_flag(&a, "--help")) {
            usage(NULL);
            return MCPS_EXIT_OK;
        } else if (a.error[0]) {
            return usage(a.error);
        } else if (mcps_args_is_option(&a)) {
            snprintf(why, sizeof why, "unknown option '%s'", a.argv[a.i]);
            return usage(why);
        } else if (path) {
            return usage("one transcript at a time");
        } else {
            path = mcps_args_positional(&a);
        }
    }
    if (a.error[0])
        return usage(a.error);
    if (!path)
        return usage("no transcript given");
    FILE *in = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!in) {
        fprintf(stderr, "mcpspec lint: cannot open %s: %s\n", path, strerror(errno));
        return MCPS_EXIT_USAGE;
    }
    st.name = strcmp(path, "-") == 0 ? "<stdin>" : path;
    mcps_observer_init(&st.obs, st.rev, max_message, print_finding, &st);
    int rc = lint_stream(&st, in, max_message);
    mcps_observer_free(&st.obs);
    if (in != stdin)
        fclose(in);
    if (rc != MCPS_EXIT_OK)
        return rc;
    fprintf(stderr, "%s: %zu violation%s%s\n", st.name, st.violations,
            st.violations == 1 ? "" : "s", st.notes ? " (and notes)" : "");
    return st.violations ? MCPS_EXIT_FAIL : MCPS_EXIT_OK;
}
