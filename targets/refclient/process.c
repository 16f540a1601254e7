/*
 * process.c - refclient's server process: start it on two pipes, frame its
 * stdout, and stop it the way the spec asks a stdio client to (close its
 * stdin, wait, SIGTERM, wait, SIGKILL: LIFE-SHUT-001). Every wait is bounded.
 */
#include "refclient.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GRACE_MS 2000

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool rc_on(const rc_client *c, rc_fault f)
{
    return c->faults[f];
}

bool rc_start_server(rc_client *c, char **argv)
{
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) {
        perror("refclient: pipe");
        return false;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("refclient: fork");
        return false;
    }
    if (pid == 0) {
        dup2(in[0], STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "refclient: cannot run '%s': %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    fcntl(in[1], F_SETFD, FD_CLOEXEC);
    fcntl(out[0], F_SETFD, FD_CLOEXEC);
    c->server = pid;
    c->to_server = in[1];
    c->from_server = out[0];
    return true;
}

/* Wait for the server to exit until ms passes; true once reaped. */
static bool reap_within(rc_client *c, long long ms)
{
    long long end = now_ms() + ms;
    do {
        if (waitpid(c->server, NULL, WNOHANG) == c->server)
            return true;
        struct timespec nap = {0, 10 * 1000 * 1000};
        nanosleep(&nap, NULL);
    } while (now_ms() < end);
    return false;
}

void rc_stop_server(rc_client *c)
{
    if (c->server <= 0)
        return;
    if (rc_on(c, RC_FAULT_KILL_SERVER)) {
        kill(c->server, SIGKILL);
        reap_within(c, GRACE_MS);
    } else {
        close(c->to_server);
        c->to_server = -1;
        if (!reap_within(c, GRACE_MS)) {
            kill(c->server, SIGTERM);
            if (!reap_within(c, GRACE_MS)) {
                kill(c->server, SIGKILL);
                reap_within(c, GRACE_MS);
            }
        }
    }
    if (c->to_server >= 0)
        close(c->to_server);
    if (c->from_server >= 0)
        close(c->from_server);
    c->to_server = c->from_server = -1;
    c->server = 0;
    c->inlen = 0; /* what a dead server left unframed is not the next one's */
    c->server_gone = false;
}

bool rc_write_line(rc_client *c, const char *line)
{
    if (c->verbose)
        fprintf(stderr, "refclient -> %s\n", line);
    if (c->url)
        return rc_http_post(c, line);
    size_t n = strlen(line);
    const char *p = line;
    while (c->to_server >= 0 && n) {
        ssize_t w = write(c->to_server, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return c->to_server >= 0 && write(c->to_server, "\n", 1) == 1;
}

/* A line already buffered, cut out; NULL when none. */
static char *take_line(rc_client *c)
{
    char *nl = c->inlen ? memchr(c->inbuf, '\n', c->inlen) : NULL;
    if (!nl)
        return NULL;
    size_t n = (size_t)(nl - c->inbuf);
    char *line = malloc(n + 1);
    if (!line)
        return NULL;
    memcpy(line, c->inbuf, n);
    line[n] = '\0';
    memmove(c->inbuf, nl + 1, c->inlen - n - 1);
    c->inlen -= n + 1;
    return line;
}

char *rc_read_line(rc_client *c)
{
    if (c->url) {
        char *m = rc_http_read(c);
        if (m && c->verbose)
            fprintf(stderr, "refclient <- %s\n", m);
        return m;
    }
    long long end = now_ms() + (long long)(c->timeout * 1000);
    for (;;) {
        char *line = take_line(c);
        if (line) {
            if (c->verbose)
                fprintf(stderr, "refclient <- %s\n", line);
            return line;
        }
        long long left = end - now_ms();
        struct pollfd p = {.fd = c->from_server, .events = POLLIN};
        if (left <= 0 || c->from_server < 0 || poll(&p, 1, (int)left) <= 0)
            return NULL;
        char chunk[65536];
        ssize_t n = read(c->from_server, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            c->server_gone = n == 0;
            return NULL;
        }
        char *grown = realloc(c->inbuf, c->inlen + (size_t)n + 1);
        if (!grown)
            return NULL;
        c->inbuf = grown;
        memcpy(c->inbuf + c->inlen, chunk, (size_t)n);
        c->inlen += (size_t)n;
    }
}
