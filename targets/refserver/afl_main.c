/*
 * afl_main.c - refserver-afl, refserver's entry for AFL++ (`mcpspec fuzz
 * --afl --afl-target`): AFL's input is the requests alone, one JSON-RPC
 * message per line; the session prefix (initialize for --revision, then
 * notifications/initialized) is played by the program itself, its answers
 * discarded, so every mutation lands on a byte that matters; for 2026-07-28,
 * which has no handshake, there is no prefix to play and the input's
 * requests carry their own _meta (mcpspec's seeds do). Built with
 * afl-clang-fast (scripts/afl-build) and run by afl-fuzz, it is persistent
 * (__AFL_LOOP, the input in shared memory): thousands of inputs per process,
 * each on a session state built afresh from the arguments and freed after,
 * so nothing of one input reaches the next and a finding replays on its own.
 * Anywhere else (a plain build, or the AFL build outside afl-fuzz) it reads
 * one input from stdin, plays it once with the answers on stdout, and exits.
 */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RS_AFL_MAX_INPUT ((size_t)1024 * 1024) /* AFL's own largest input */
#define RS_AFL_LOOP      1000                  /* inputs per forked process */

#ifdef __AFL_FUZZ_TESTCASE_LEN
__AFL_FUZZ_INIT(); /* AFL's input buffer in shared memory: its globals, not ours */
#endif

typedef struct rs_afl_args {
    int argc;
    char **argv;
    const char *revision;
    char prefix[512]; /* initialize and notifications/initialized, a line each; "" stateless */
    int devnull;      /* where the prefix's answers go */
} rs_afl_args;

static void usage(FILE *out)
{
    fprintf(out, "usage: refserver-afl [--revision R] [--fault NAME]... [--without CAP]...\n"
                 "                     [--root DIR] [--verbose]\n"
                 "       refserver-afl --help\n\n"
                 "refserver for afl-fuzz: plays initialize for R (default 2025-11-25) and\n"
                 "notifications/initialized itself, answers discarded (2026-07-28: nothing, it\n"
                 "has no handshake), then the requests of its input (one JSON-RPC message per\n"
                 "line, no prefix), answers on stdout. Under\n"
                 "afl-fuzz (built by scripts/afl-build) it runs persistently, a fresh session per\n"
                 "input; otherwise it plays stdin once and exits.\n");
}

/* A fresh session from the arguments, as a process start would make it: -1, or the exit
 * status of a bad argument (s then freed). */
static int session_new(const rs_afl_args *a, rs_server *s)
{
    rs_server_init(s);
    for (int i = 1; i < a->argc; i++) {
        if (strcmp(a->argv[i], "--revision") == 0) {
            i++;
            continue;
        }
        int status = rs_option(s, a->argc, a->argv, &i);
        if (status == RS_OPTION_OTHER) {
            fprintf(stderr, "refserver-afl: bad argument '%s'\n", a->argv[i]);
            usage(stderr);
            status = RS_EXIT_USAGE;
        }
        if (status >= 0) {
            rs_server_free(s);
            return status;
        }
    }
    return -1;
}

/* One input on one fresh session: the prefix answered into /dev/null, then the input. */
static int play(const rs_afl_args *a, const char *input, size_t len)
{
    rs_server s;
    int status = session_new(a, &s);
    if (status >= 0)
        return status;
    s.out_fd = a->devnull;
    for (const char *line = a->prefix; *line; line += strcspn(line, "\n") + 1)
        rs_handle_line(&s, line, strcspn(line, "\n"), false);
    s.out_fd = 1;
    if (!s.done)
        rs_play(&s, input, len);
    rs_server_free(&s);
    return RS_EXIT_OK;
}

/* Outside afl-fuzz: stdin whole (up to AFL's maximum), played once. */
static int play_stdin(const rs_afl_args *a)
{
    char *buf = malloc(RS_AFL_MAX_INPUT);
    size_t len = 0;
    ssize_t n = 1;
    while (buf && len < RS_AFL_MAX_INPUT && (n > 0 || (n < 0 && errno == EINTR))) {
        n = read(0, buf + len, RS_AFL_MAX_INPUT - len);
        len += n > 0 ? (size_t)n : 0;
    }
    int status = buf ? play(a, buf, len) : RS_EXIT_FAIL;
    free(buf);
    return status;
}

#ifdef __AFL_FUZZ_TESTCASE_LEN
static int run(const rs_afl_args *a)
{
    if (!getenv("__AFL_SHM_ID"))
        return play_stdin(a); /* the AFL build run by hand: a finding checked */
    __AFL_INIT();
    const unsigned char *buf = __AFL_FUZZ_TESTCASE_BUF;
    int status = RS_EXIT_OK;
    while (status == RS_EXIT_OK && __AFL_LOOP(RS_AFL_LOOP))
        status = play(a, (const char *)buf, (size_t)__AFL_FUZZ_TESTCASE_LEN);
    return status;
}
#else
static int run(const rs_afl_args *a)
{
    return play_stdin(a);
}
#endif

/* --revision and the first check of the other options; -1 to run, else the exit status. */
static int parse(rs_afl_args *a)
{
    a->revision = "2025-11-25";
    for (int i = 1; i < a->argc; i++) {
        if (strcmp(a->argv[i], "--help") == 0 || strcmp(a->argv[i], "-h") == 0) {
            usage(stdout);
            return RS_EXIT_OK;
        }
        if (strcmp(a->argv[i], "--revision") != 0)
            continue;
        if (i + 1 == a->argc) {
            fprintf(stderr, "refserver-afl: --revision needs a value\n");
            return RS_EXIT_USAGE;
        }
        a->revision = a->argv[++i];
    }
    mcps_rev rev = mcps_rev_parse(a->revision);
    if (rev == MCPS_REV_NONE) {
        fprintf(stderr, "refserver-afl: --revision %s: unknown revision\n", a->revision);
        return RS_EXIT_USAGE;
    }
    rs_server probe;
    int status = session_new(a, &probe);
    if (status < 0)
        rs_server_free(&probe);
    if (!mcps_rev_is_handshake(rev))
        return status; /* stateless: each request names its revision in its _meta */
    snprintf(a->prefix, sizeof a->prefix,
             "{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":"
             "{\"protocolVersion\":\"%s\",\"capabilities\":{},\"clientInfo\":"
             "{\"name\":\"mcpspec-fuzz\",\"version\":\"%s\"}}}\n"
             "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
             a->revision, MCPS_VERSION);
    return status;
}

int main(int argc, char **argv)
{
    rs_afl_args a = {.argc = argc, .argv = argv};
    int status = parse(&a);
    if (status >= 0)
        return status;
    /* A vanished reader of stdout is a clean end, as in refserver. */
    struct sigaction ignore = {.sa_handler = SIG_IGN};
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, NULL);
    a.devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (a.devnull < 0) {
        perror("refserver-afl: /dev/null");
        return RS_EXIT_FAIL;
    }
    status = run(&a);
    close(a.devnull);
    return status;
}
