/*
 * matrix.c - `mcpspec matrix FILE` and `mcpspec run --config A --config B`:
 * several targets in one invocation, one report over all of them (matrix.h).
 *
 * Each target is tested by a child `mcpspec run` (this same program, from
 * /proc/self/exe) with the target's options, the options common to all, its
 * own --out (OUT/NAME), --quiet and a share of --jobs. A child is the unit
 * that already bounds everything a target can do (deadlines, the shutdown
 * ladder, the watchdog, bounded memory), so a hostile target cannot reach
 * the other targets or the matrix. Targets run in parallel within --jobs:
 * as many at once as --jobs allows (one lane each at least), the lanes shared
 * out among them.
 *
 * The matrix as a whole is bounded like a run: --deadline covers it all, and
 * each child gets what is left of it as its own --deadline; if a child still
 * runs well past it, it is sent SIGTERM, then SIGKILL. SIGTERM or SIGINT to
 * mcpspec is passed once to every child (they sit in process groups of their
 * own, so a terminal's ^C reaches them through us, once), which stop their
 * targets and write partial reports; targets not started yet are ERROR. If
 * mcpspec dies, its children get SIGTERM (PR_SET_PDEATHSIG). Every child is
 * reaped. Then each child's report.json is read back (diff_read.c); a target
 * that has none still appears, as ERROR with the reason.
 */
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/matrix.h"
#include "base/clock.h"
#include "base/utf8.h"
#include "report/report.h"
#include "transport/guard.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define MAX_COMMON       256
#define DEFAULT_JOBS     8
#define DEFAULT_DEADLINE 600.0
#define POLL_MS          50
#define OVERRUN_MS       15000 /* past the deadline before a child is sent SIGTERM */
#define KILL_AFTER_MS    10000 /* after SIGTERM before SIGKILL */
#define REASON_MAX       600

typedef struct matrix_options {
    const char *file;                    /* mcpspec matrix FILE */
    const char *configs[MAX_COMMON + 1]; /* run --config, repeated */
    size_t nconfigs;
    const char *common[MAX_COMMON + 1]; /* run options for every target */
    size_t ncommon;
    const char *out;
    const char *formats; /* --format, for each target (json is added) */
    size_t jobs;
    double deadline;
    bool quiet;
    bool from_run; /* invoked as mcpspec run --config A --config B */
} matrix_options;

static int usage(const matrix_options *o, FILE *to, const char *why)
{
    const char *me = o->from_run ? "mcpspec run" : "mcpspec matrix";
    if (why)
        fprintf(stderr, "%s: %s\n", me, why);
    fprintf(to,
            "usage: mcpspec matrix FILE [options] [run options]\n"
            "       mcpspec run --config A.json --config B.json [options] [run options]\n"
            "  Test several servers in one invocation: each target (an entry of the matrix\n"
            "  file, or a --config) is run as `mcpspec run`, in parallel within --jobs, and\n"
            "  the matrix report shows targets x cases (docs/matrix.md).\n"
            "  FILE                 a matrix file: {\"targets\": [{\"name\": N, \"config\": F |\n"
            "                       \"server\": CMD | \"url\": URL, ...}]} (servers only: test\n"
            "                       clients with mcpspec run --client)\n"
            "  --out DIR            the matrix report: DIR/index.html, matrix.json, summary.md,\n"
            "                       and each target's reports in DIR/NAME/ (default\n"
            "                       reports/matrix)\n"
            "  --jobs N             cases run at once, over all targets (default 8): up to N\n"
            "                       targets at once, the N lanes shared out among them\n"
            "  --deadline S         the whole matrix ends by then; each target gets what is\n"
            "                       left as its own --deadline (default 600; 0: none)\n"
            "  --format LIST        the formats of each target's reports (report.json always)\n"
            "  --quiet              no progress output\n"
            "  Any other `mcpspec run` option (--suite, --revision, --timeout, --strict, ...)\n"
            "  applies to every target, before the target's own.\n"
            "exit: the highest of the targets' exit codes (0 no FAIL, 1 FAIL, 2 usage or\n"
            "input error, 3 incomplete); 2 for a broken matrix file or configuration, before\n"
            "anything runs; 3 on SIGTERM or SIGINT\n");
    return MCPS_EXIT_USAGE;
}

/* ---- options ------------------------------------------------------------------------- */

static bool push(const char **list, size_t *n, const char *v)
{
    if (*n >= MAX_COMMON)
        return false;
    list[(*n)++] = v;
    list[*n] = NULL;
    return true;
}

/* `mcpspec run`'s flags: every other run option takes a value (or is --name=value). */
static bool run_flag(const char *arg)
{
    return strcmp(arg, "--strict") == 0 || strcmp(arg, "--quiet") == 0 ||
           strcmp(arg, "--help") == 0;
}

/* An option the matrix does not take itself goes to every target, with its value. */
static int forward(mcps_args *a, matrix_options *o)
{
    const char *arg = a->argv[a->i++];
    if (strcmp(arg, "--server") == 0 || strcmp(arg, "--url") == 0 ||
        strncmp(arg, "--server=", 9) == 0 || strncmp(arg, "--url=", 6) == 0)
        return usage(o, stderr,
                     "--server and --url belong to a target: put them in a matrix file entry "
                     "(or in each --config)");
    bool ok = push(o->common, &o->ncommon, arg);
    if (ok && !run_flag(arg) && !strchr(arg, '=') && a->i < a->argc)
        ok = push(o->common, &o->ncommon, a->argv[a->i++]);
    return ok ? -1 : usage(o, stderr, "too many options");
}

static int bad_value(const matrix_options *o, const char *option, const char *value)
{
    char why[300];
    snprintf(why, sizeof why, "bad value for %s: '%.200s'", option, value);
    return usage(o, stderr, why);
}

/* One argument; -1 when consumed, else an exit code. */
static int parse_one(mcps_args *a, matrix_options *o)
{
    if (mcps_args_flag(a, "--help"))
        return usage(o, stdout, NULL), MCPS_EXIT_OK;
    if (mcps_args_flag(a, "--quiet"))
        o->quiet = true;
    else if (mcps_args_option(a, "--out"))
        o->out = a->value;
    else if (mcps_args_option(a, "--format")) {
        unsigned bits;
        if (!mcps_report_parse_formats(a->value, &bits))
            return bad_value(o, "--format", a->value);
        o->formats = a->value;
    } else if (mcps_args_option(a, "--jobs")) {
        if (!mcps_args_size(a->value, &o->jobs) || o->jobs < 1 || o->jobs > 64)
            return bad_value(o, "--jobs", a->value);
    } else if (mcps_args_option(a, "--deadline")) {
        if (!mcps_args_seconds(a->value, &o->deadline))
            return bad_value(o, "--deadline", a->value);
    } else if (mcps_args_option(a, "--config")) {
        if (!push(o->configs, &o->nconfigs, a->value))
            return usage(o, stderr, "too many --config");
    } else if (a->error[0])
        return usage(o, stderr, a->error);
    else if (mcps_args_is_option(a))
        return forward(a, o);
    else if (o->from_run || o->file)
        return usage(o, stderr, "unexpected argument");
    else
        o->file = mcps_args_positional(a);
    return -1;
}

static int parse_options(int argc, char **argv, matrix_options *o)
{
    mcps_args a;
    mcps_args_init(&a, argc, argv);
    while (mcps_args_more(&a)) {
        int rc = parse_one(&a, o);
        if (rc >= 0)
            return rc;
    }
    if (!o->from_run && !o->file)
        return usage(o, stderr, "name a matrix file");
    if (!o->from_run && o->nconfigs)
        return usage(o, stderr, "--config goes in the matrix file (\"config\": FILE)");
    return -1;
}

/* ---- one child ------------------------------------------------------------------------ */

typedef struct slot {
    pid_t pid; /* 0: free */
    size_t target;
    int jobs;
    int64_t started_ms;
    bool termed, killed;
} slot;

typedef struct runner {
    mcps_matrix *m;
    const matrix_options *o;
    char exe[4096];
    slot *slots;
    size_t nslots, next, running;
    int stop[2];         /* the signal handler's pipe */
    char stop_why;       /* 'T', 'I' once a signal came */
    int64_t deadline_ms; /* 0: none */
    int64_t term_at_ms, kill_at_ms;
} runner;

static char *target_dir(const runner *r, const mcps_matrix_target *t)
{
    mcps_buf b = {0};
    mcps_buf_printf(&b, "%s/%s", r->o->out, t->name);
    return b.oom ? NULL : mcps_buf_take(&b);
}

/* The child's argv: run, the common options, the target's, then the matrix's own. */
static char **child_argv(const runner *r, const mcps_matrix_target *t, const char *dir, int jobs,
                         char *nums)
{
    size_t n = 0, cap = 2 + r->o->ncommon + t->nargs + 12;
    const char **v = calloc(cap, sizeof *v);
    if (!v)
        return NULL;
    v[n++] = r->exe;
    v[n++] = "run";
    for (size_t i = 0; i < r->o->ncommon; i++)
        v[n++] = r->o->common[i];
    for (size_t i = 0; i < t->nargs; i++)
        v[n++] = t->args[i];
    double left = r->deadline_ms ? (double)(r->deadline_ms - mcps_clock_ms()) / 1000.0 : 0;
    snprintf(nums, 64, "%d", jobs);
    snprintf(nums + 64, 64, "%.1f", left < 1 ? (r->deadline_ms ? 1.0 : 0.0) : left);
    snprintf(nums + 128, 256, "json%s%s", r->o->formats ? "," : "",
             r->o->formats ? r->o->formats : ",junit,markdown,html,sarif");
    const char *tail[] = {"--out",      dir,       "--quiet",  "--jobs",  nums,
                          "--deadline", nums + 64, "--format", nums + 128};
    for (size_t i = 0; i < sizeof tail / sizeof *tail; i++)
        v[n++] = tail[i];
    v[n] = NULL;
    return (char **)v;
}

/* In the child, between fork and exec: nothing but async-signal-safe calls. */
static void exec_child(char **argv, int log_fd, pid_t parent)
{
    setpgid(0, 0);
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
    if (getppid() != parent)
        _exit(MCPS_EXIT_INCOMPLETE);
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0)
        dup2(null_fd, 0);
    dup2(log_fd, 1);
    dup2(log_fd, 2);
    execv(argv[0], argv);
    static const char msg[] = "mcpspec matrix: cannot start mcpspec run\n";
    if (write(2, msg, sizeof msg - 1) < 0) { /* nowhere else to say it */
    }
    _exit(127);
}

static void set_reason(mcps_matrix_target *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void set_reason(mcps_matrix_target *t, const char *fmt, ...)
{
    char why[REASON_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    /* A child's last words may hold a target's bytes, or be cut inside a character. */
    for (size_t i = 0, n = strlen(why), len; i < n; i += len) {
        uint32_t cp;
        len = mcps_utf8_decode((const unsigned char *)why + i, n - i, &cp, NULL);
        if (!len) {
            why[i] = '?';
            len = 1;
        }
    }
    free(t->reason);
    t->reason = strdup(why);
}

static bool launch(runner *r, slot *s, size_t ti)
{
    mcps_matrix_target *t = &r->m->targets[ti];
    char err[400], nums[400];
    char *dir = target_dir(r, t), *log = NULL;
    mcps_buf b = {0};
    mcps_buf_printf(&b, "%s/run.log", dir ? dir : "");
    log = b.oom ? NULL : mcps_buf_take(&b);
    char **argv = dir ? child_argv(r, t, dir, s->jobs, nums) : NULL;
    int fd = -1;
    bool ok = false;
    t->started = true;
    t->jobs = s->jobs;
    if (!dir || !log || !argv)
        set_reason(t, "out of memory starting it");
    else if (!mcps_report_make_dirs(dir, err, sizeof err))
        set_reason(t, "%s", err);
    else if ((fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
        set_reason(t, "cannot create %s: %s", log, strerror(errno));
    else {
        mcps_buf old = {0}; /* a report left from an earlier matrix must not stand for this one */
        mcps_buf_printf(&old, "%s/report.json", dir);
        if (!old.oom)
            unlink(old.data);
        mcps_buf_free(&old);
        pid_t parent = getpid(), pid = fork();
        if (pid == 0)
            exec_child(argv, fd, parent);
        if (pid < 0)
            set_reason(t, "cannot start mcpspec run: %s", strerror(errno));
        else {
            *s = (slot){.pid = pid, .target = ti, .jobs = s->jobs, .started_ms = mcps_clock_ms()};
            r->running++;
            ok = true;
        }
    }
    if (fd >= 0)
        close(fd);
    if (!ok) {
        t->exit_code = MCPS_EXIT_INCOMPLETE;
        fprintf(stderr, "mcpspec matrix: %s: not run: %s\n", t->name, t->reason);
    }
    if (ok && !r->o->quiet)
        printf("matrix: %s started (--jobs %d)\n", t->name, s->jobs);
    free(argv);
    free(log);
    free(dir);
    return ok;
}

/* ---- after a child -------------------------------------------------------------------- */

/* The last line the child wrote (its run.log holds its stdout and stderr): why it
 * stopped, when it says. */
static bool last_log_line(const runner *r, const mcps_matrix_target *t, char *out, size_t n)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s/run.log", r->o->out, t->name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    char tail[2048];
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    size_t from = size > (long)sizeof tail - 1 ? (size_t)size - (sizeof tail - 1) : 0;
    size_t got = fseek(f, (long)from, SEEK_SET) == 0 ? fread(tail, 1, sizeof tail - 1, f) : 0;
    fclose(f);
    while (got && (tail[got - 1] == '\n' || tail[got - 1] == '\r'))
        got--;
    tail[got] = '\0';
    const char *line = strrchr(tail, '\n');
    line = line ? line + 1 : tail;
    if (!*line)
        return false;
    size_t len = strlen(line) < n - 1 ? strlen(line) : n - 1;
    memcpy(out, line, len);
    out[len] = '\0';
    return true;
}

/* A run.log with nothing in it says nothing: it goes. */
static void drop_empty_log(const runner *r, const mcps_matrix_target *t)
{
    char path[4300];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s/run.log", r->o->out, t->name);
    if (stat(path, &st) == 0 && st.st_size == 0)
        unlink(path);
}

static void read_report(runner *r, mcps_matrix_target *t, int status)
{
    char line[REASON_MAX], path[4300];
    snprintf(path, sizeof path, "%s/%s", r->o->out, t->name);
    t->report = calloc(1, sizeof *t->report);
    bool loaded = t->report && mcps_diff_report_load(t->report, path);
    bool said = last_log_line(r, t, line, sizeof line);
    if (!loaded) {
        if (WIFSIGNALED(status))
            set_reason(t, "mcpspec run was killed by signal %d; no report", WTERMSIG(status));
        else if (said)
            set_reason(t, "%s", line);
        else
            set_reason(t, "%s", t->report ? t->report->err : "out of memory");
        if (t->report)
            mcps_diff_report_free(t->report);
        free(t->report);
        t->report = NULL;
        if (t->exit_code < MCPS_EXIT_USAGE)
            t->exit_code = MCPS_EXIT_INCOMPLETE;
    } else if (t->report->fatal)
        set_reason(t, "%s", t->report->fatal);
    drop_empty_log(r, t);
}

static void finished(runner *r, slot *s, int status)
{
    mcps_matrix_target *t = &r->m->targets[s->target];
    t->seconds = (double)(mcps_clock_ms() - s->started_ms) / 1000.0;
    t->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : MCPS_EXIT_INCOMPLETE;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        t->exit_code = MCPS_EXIT_INCOMPLETE;
    read_report(r, t, status);
    s->pid = 0;
    r->running--;
    if (r->o->quiet)
        return;
    printf("matrix: %s finished: exit %d (%s), %.1f s", t->name, t->exit_code,
           mcps_report_exit_meaning(t->exit_code), t->seconds);
    if (t->reason)
        printf("\n  %s: %.300s", t->report ? "stopped" : "no report", t->reason);
    printf("\n");
    fflush(stdout);
}

/* Every child that ended, and any orphan of theirs handed to us (we are a subreaper). */
static void reap(runner *r)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
        for (size_t i = 0; i < r->nslots; i++)
            if (r->slots[i].pid == pid)
                finished(r, &r->slots[i], status);
    if (pid < 0 && errno == ECHILD && r->running) /* cannot happen: none is ours anymore */
        for (size_t i = 0; i < r->nslots; i++)
            if (r->slots[i].pid)
                finished(r, &r->slots[i], MCPS_EXIT_INCOMPLETE << 8);
}

/* ---- the loop --------------------------------------------------------------------------- */

static void signal_children(runner *r, int sig)
{
    for (size_t i = 0; i < r->nslots; i++) {
        slot *s = &r->slots[i];
        if (!s->pid || (sig == SIGTERM && s->termed) || (sig == SIGKILL && s->killed))
            continue;
        kill(s->pid, sig);
        s->termed = true;
        s->killed |= sig == SIGKILL;
    }
}

static void not_run(mcps_matrix_target *t, const char *why)
{
    t->exit_code = MCPS_EXIT_INCOMPLETE;
    set_reason(t, "not run: %s before it started", why);
}

static bool past(int64_t at)
{
    return at && mcps_clock_ms() >= at;
}

/* Start targets into free slots while nothing says stop. */
static void fill_slots(runner *r)
{
    for (size_t i = 0; i < r->nslots && r->next < r->m->ntargets; i++) {
        if (r->slots[i].pid)
            continue;
        if (r->stop_why || past(r->deadline_ms))
            break;
        launch(r, &r->slots[i], r->next++);
    }
    const char *why = r->stop_why            ? mcps_guard_reason(r->stop_why)
                      : past(r->deadline_ms) ? "the matrix deadline passed"
                                             : NULL;
    while (why && r->next < r->m->ntargets)
        not_run(&r->m->targets[r->next++], why);
}

static void watch(runner *r)
{
    struct pollfd p = {.fd = r->stop[0], .events = POLLIN};
    char why;
    if (poll(&p, 1, POLL_MS) > 0 && read(r->stop[0], &why, 1) == 1 && !r->stop_why) {
        r->stop_why = why;
        signal_children(r, SIGTERM);
        r->kill_at_ms = mcps_clock_ms() + OVERRUN_MS + KILL_AFTER_MS;
    }
    if (r->deadline_ms && !r->term_at_ms) {
        r->term_at_ms = r->deadline_ms + OVERRUN_MS;
        r->kill_at_ms = r->term_at_ms + KILL_AFTER_MS;
    }
    if (past(r->term_at_ms))
        signal_children(r, SIGTERM);
    if (past(r->kill_at_ms))
        signal_children(r, SIGKILL);
}

/* The lanes shared out: as many slots as targets, up to --jobs, the rest spread over them. */
static bool make_slots(runner *r)
{
    size_t n = r->m->ntargets < r->o->jobs ? r->m->ntargets : r->o->jobs;
    r->slots = calloc(n, sizeof *r->slots);
    if (!r->slots)
        return false;
    r->nslots = n;
    for (size_t i = 0; i < n; i++)
        r->slots[i].jobs = (int)(r->o->jobs / n + (i < r->o->jobs % n));
    return true;
}

static bool open_stop_pipe(runner *r)
{
    if (pipe(r->stop) != 0)
        return false;
    for (int i = 0; i < 2; i++)
        fcntl(r->stop[i], F_SETFD, FD_CLOEXEC);
    fcntl(r->stop[1], F_SETFL, O_NONBLOCK);
    mcps_cli_catch_stop_signals(r->stop[1]);
    return true;
}

static bool run_targets(runner *r)
{
    ssize_t n = readlink("/proc/self/exe", r->exe, sizeof r->exe - 1);
    if (n <= 0 || (size_t)n >= sizeof r->exe - 1) {
        fprintf(stderr, "mcpspec matrix: cannot find its own program (/proc/self/exe)\n");
        return false;
    }
    r->exe[n] = '\0';
    if (!make_slots(r) || !open_stop_pipe(r)) {
        fprintf(stderr, "mcpspec matrix: cannot set up: %s\n", strerror(errno));
        return false;
    }
    fflush(stdout); /* a child must not inherit unwritten output */
    while (r->next < r->m->ntargets || r->running) {
        fill_slots(r);
        fflush(stdout);
        if (!r->running)
            continue; /* every launch failed: the next targets, or the end */
        watch(r);
        reap(r);
    }
    mcps_cli_catch_stop_signals(-1);
    close(r->stop[0]);
    close(r->stop[1]);
    return true;
}

/* ---- the command ------------------------------------------------------------------------- */

/* The options every target shares, and each target's own, as `mcpspec run` would take them:
 * checked before anything runs, so that a typo is one message, not one per target. */
static bool check_run_options(const matrix_options *o, const mcps_matrix *m)
{
    if (!mcps_cli_run_options_ok((int)o->ncommon, (char **)o->common)) {
        fprintf(stderr, "mcpspec matrix: the run options given for every target are not valid\n");
        return false;
    }
    for (size_t i = 0; i < m->ntargets; i++) {
        const mcps_matrix_target *t = &m->targets[i];
        size_t n = 0;
        char **v = calloc(o->ncommon + t->nargs + 1, sizeof *v);
        if (!v)
            return false;
        for (size_t k = 0; k < o->ncommon; k++)
            v[n++] = (char *)o->common[k];
        for (size_t k = 0; k < t->nargs; k++)
            v[n++] = t->args[k];
        bool ok = mcps_cli_run_options_ok((int)n, v);
        free(v);
        if (!ok) {
            fprintf(stderr, "mcpspec matrix: the options of target \"%s\" (%s) are not valid\n",
                    t->name, t->origin);
            return false;
        }
    }
    return true;
}

static bool load_targets(const matrix_options *o, mcps_matrix *m)
{
    if (o->file)
        return mcps_matrix_load_file(m, o->file);
    for (size_t i = 0; i < o->nconfigs; i++)
        if (!mcps_matrix_add_config(m, o->configs[i]))
            return false;
    return true;
}

static int worst_exit(const mcps_matrix *m)
{
    int rc = MCPS_EXIT_OK;
    for (size_t i = 0; i < m->ntargets; i++)
        if (m->targets[i].exit_code > rc)
            rc = m->targets[i].exit_code;
    return m->stopped ? MCPS_EXIT_INCOMPLETE : rc;
}

static bool write_matrix(const mcps_matrix *m, const char *out)
{
    static const struct {
        const char *name;
        bool (*render)(const mcps_matrix *, mcps_buf *);
    } files[] = {{"matrix.json", mcps_matrix_json},
                 {"summary.md", mcps_matrix_markdown},
                 {"index.html", mcps_matrix_html}};
    char err[600];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        mcps_buf b = {0};
        bool ok = files[i].render(m, &b) && !b.oom;
        if (!ok)
            snprintf(err, sizeof err, "out of memory rendering %s", files[i].name);
        ok = ok && mcps_report_write_file(out, files[i].name, &b, err, sizeof err);
        mcps_buf_free(&b);
        if (!ok) {
            fprintf(stderr, "mcpspec matrix: cannot write the matrix report: %s\n", err);
            return false;
        }
    }
    return true;
}

static void utc_now(char *buf, size_t n)
{
    time_t now = time(NULL);
    struct tm tm;
    if (!gmtime_r(&now, &tm) || !strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(buf, n, "unknown");
}

static int execute(matrix_options *o)
{
    mcps_matrix m = {.source = o->file, .out = o->out ? o->out : "reports/matrix"};
    o->out = m.out;
    unsigned formats = MCPS_REPORT_ALL;
    if (o->formats)
        mcps_report_parse_formats(o->formats, &formats);
    m.html = (formats & MCPS_REPORT_HTML) != 0;
    if (!load_targets(o, &m) || !check_run_options(o, &m)) {
        mcps_matrix_free(&m);
        return MCPS_EXIT_USAGE;
    }
    utc_now(m.started_at, sizeof m.started_at);
    int64_t t0 = mcps_clock_ms();
    runner r = {.m = &m, .o = o, .stop = {-1, -1}};
    if (o->deadline > 0)
        r.deadline_ms = mcps_clock_deadline(o->deadline);
    bool ran = run_targets(&r);
    m.stopped = r.stop_why ? mcps_guard_reason(r.stop_why) : NULL;
    m.seconds = (double)(mcps_clock_ms() - t0) / 1000.0;
    for (size_t i = 0; !ran && i < m.ntargets; i++)
        if (!m.targets[i].started)
            not_run(&m.targets[i], "mcpspec matrix could not start its targets");
    m.exit_code = ran ? worst_exit(&m) : MCPS_EXIT_INCOMPLETE;
    if (!mcps_matrix_build_rows(&m) || !write_matrix(&m, m.out))
        m.exit_code = MCPS_EXIT_INCOMPLETE;
    else if (!o->quiet)
        printf("matrix: %zu targets, %zu cases, %zu differ; report: %s/index.html (exit %d)\n",
               m.ntargets, m.nrows, m.ndiffer, m.out, m.exit_code);
    if (m.stopped)
        fprintf(stderr, "mcpspec matrix: %s: partial reports written\n", m.stopped);
    int rc = m.exit_code;
    free(r.slots);
    mcps_matrix_free(&m);
    return rc;
}

int mcps_cli_matrix(int argc, char **argv)
{
    matrix_options o = {.jobs = DEFAULT_JOBS, .deadline = DEFAULT_DEADLINE};
    int rc = parse_options(argc, argv, &o);
    return rc >= 0 ? rc : execute(&o);
}

int mcps_cli_matrix_configs(int argc, char **argv)
{
    matrix_options o = {.jobs = DEFAULT_JOBS, .deadline = DEFAULT_DEADLINE, .from_run = true};
    int rc = parse_options(argc, argv, &o);
    return rc >= 0 ? rc : execute(&o);
}
