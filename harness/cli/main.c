/*
 * main.c - the mcpspec command line: one sub-command per file in cli/.
 */
#include "cli/cli.h"

#include <signal.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"run", mcps_cli_run, "run the conformance suites against a target"},
    {"list", mcps_cli_list, "list the cases and the requirements they test"},
    {"lint", mcps_cli_lint, "judge a captured stdio transcript"},
    {"explain", mcps_cli_explain, "a requirement or check: catalog text, checks, faults, coverage"},
    {"diff", mcps_cli_diff, "compare two report.json files: new failures, fixes, changes"},
    {"baseline", mcps_cli_baseline, "write a baseline of known failures from a report.json"},
    {"matrix", mcps_cli_matrix, "run several targets at once: one targets x cases report"},
    {"serve", mcps_cli_serve, "the relay a client under test runs as its server (run --client)"},
    {"fuzz", mcps_cli_fuzz, "fuzz a live server: crashes, hangs, sanitizer reports, minimized"},
    {"replay", mcps_cli_replay, "replay a finding of mcpspec fuzz: exit 1 when it reproduces"},
};

#ifdef MCPS_JEMALLOC
/* Read by jemalloc (CMakeLists.txt links it where it is installed), as glibc's threshold in
 * main: a buffer of 256 KiB or more goes back to the system when freed, so --jobs arenas do
 * not each keep a flood's grown buffers (the hostile tests' 64 MiB bound held at 55 MiB). */
const char *const malloc_conf = "oversize_threshold:262144";
#endif

/* The program's one mutable global: where a stop signal writes its byte (the run's
 * guard switch, transport/guard.h), or -1. */
static volatile sig_atomic_t stop_switch = -1;

static void on_stop_signal(int sig)
{
    char why = sig == SIGINT ? 'I' : 'T'; /* MCPS_STOP_SIGINT, MCPS_STOP_SIGTERM */
    int fd = stop_switch;
    if (fd >= 0 && write(fd, &why, 1) < 0)
        return; /* nothing to do about it in a handler */
}

void mcps_cli_catch_stop_signals(int fd)
{
    struct sigaction sa = {0};
    sigemptyset(&sa.sa_mask);
    stop_switch = fd;
    /* A second signal finds the default action again: a user can always insist. */
    sa.sa_handler = fd >= 0 ? on_stop_signal : SIG_DFL;
    sa.sa_flags = fd >= 0 ? SA_RESTART | SA_RESETHAND : 0;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
}

static int usage(FILE *out)
{
    fprintf(out, "usage: mcpspec COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n  mcpspec COMMAND --help for its options; mcpspec --version\n");
    return MCPS_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    /* A target that closes its stdin must turn our writes into EPIPE, not kill us. */
    signal(SIGPIPE, SIG_IGN);
#ifdef __GLIBC__
    /* Large buffers (a message up to --max-message, per session) are mmapped and given back
     * when freed. Left to itself, glibc raises this threshold after the first such free, and
     * later ones stay in each thread's arena: --jobs arenas holding a cut 4 MiB event each. */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
#ifdef __linux__
    /* Orphans of a target's process group come back to us, so shutdown can reap
     * them even where PID 1 does not (containers). */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
    if (strcmp(argv[1], "--version") == 0) {
        /* Which suites a run would load: an installed copy and a build tree differ. */
        char buf[4096];
        printf("mcpspec %s\nsuites: %s\n", MCPS_VERSION,
               mcps_cli_suites_dir(NULL, buf, sizeof buf));
        return MCPS_EXIT_OK;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return MCPS_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 2, argv + 2);
    fprintf(stderr, "mcpspec: unknown command '%s'\n", argv[1]);
    return usage(stderr);
}
