/*
 * guard.c - the run's deadline, stop switch, wire budget and watchdog; see
 * guard.h.
 *
 * _GNU_SOURCE (here only) for closefrom(), so the watchdog holds nothing of
 * ours but its pipe.
 */
#define _GNU_SOURCE
#include "transport/guard.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/array.h"
#include "base/clock.h"

bool mcps_guard_init(mcps_guard *g)
{
    *g = (mcps_guard){.fd = {-1, -1},
                      .wire_budget = MCPS_GUARD_WIRE_BUDGET,
                      .big_budget = MCPS_GUARD_BIG_BUDGET,
                      .watchdog_fd = -1};
    atomic_init(&g->wire_used, 0);
    atomic_init(&g->big_used, 0);
    return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, g->fd) == 0;
}

void mcps_guard_free(mcps_guard *g)
{
    int *fds[] = {&g->fd[0], &g->fd[1], &g->watchdog_fd};
    for (size_t i = 0; i < sizeof fds / sizeof *fds; i++) {
        if (*fds[i] >= 0)
            close(*fds[i]);
        *fds[i] = -1;
    }
}

void mcps_guard_stop(const mcps_guard *g, char why)
{
    if (!g || g->fd[1] < 0)
        return;
    int saved = errno; /* a signal handler must leave errno alone */
    ssize_t n;
    do
        n = write(g->fd[1], &why, 1);
    while (n < 0 && errno == EINTR);
    errno = saved;
}

char mcps_guard_stopped(const mcps_guard *g)
{
    if (!g)
        return MCPS_STOP_NONE;
    char why = MCPS_STOP_NONE;
    if (g->fd[0] >= 0 && recv(g->fd[0], &why, 1, MSG_PEEK | MSG_DONTWAIT) == 1 && why)
        return why;
    if (g->deadline_ms && mcps_clock_ms() >= g->deadline_ms)
        return MCPS_STOP_DEADLINE;
    return MCPS_STOP_NONE;
}

const char *mcps_guard_reason(char why)
{
    switch (why) {
    case MCPS_STOP_DEADLINE:
        return "the run deadline passed";
    case MCPS_STOP_SIGTERM:
        return "mcpspec was interrupted (SIGTERM)";
    case MCPS_STOP_SIGINT:
        return "mcpspec was interrupted (SIGINT)";
    case MCPS_STOP_UNRESPONSIVE:
        return "the target stopped responding";
    case MCPS_STOP_NONE:
        return "the run goes on";
    default:
        return "the run was stopped";
    }
}

int64_t mcps_guard_clamp(const mcps_guard *g, int64_t deadline_ms)
{
    if (g && g->deadline_ms && g->deadline_ms < deadline_ms)
        return g->deadline_ms;
    return deadline_ms;
}

int mcps_guard_fd(const mcps_guard *g)
{
    return g ? g->fd[0] : -1;
}

bool mcps_guard_take_wire(mcps_guard *g, size_t n)
{
    if (!g || !g->wire_budget)
        return true;
    size_t used = atomic_load(&g->wire_used);
    do
        if (used + n > g->wire_budget)
            return false;
    while (!atomic_compare_exchange_weak(&g->wire_used, &used, used + n));
    return true;
}

bool mcps_guard_take_big(mcps_guard *g, size_t n)
{
    if (!g || !g->big_budget)
        return true;
    size_t used = atomic_load(&g->big_used);
    do
        if (used && used + n > g->big_budget)
            return false;
    while (!atomic_compare_exchange_weak(&g->big_used, &used, used + n));
    return true;
}

void mcps_guard_give_big(mcps_guard *g, size_t n)
{
    if (g && g->big_budget && n)
        atomic_fetch_sub(&g->big_used, n);
}

/* ---- the watchdog ---- */

typedef struct groups {
    int32_t *pgid;
    size_t n, cap;
} groups;

static void groups_add(groups *gs, int32_t pgid)
{
    if (!mcps_array_reserve(&gs->pgid, &gs->cap, gs->n + 1, sizeof *gs->pgid, 64))
        return;
    gs->pgid[gs->n++] = pgid;
}

static void groups_remove(groups *gs, int32_t pgid)
{
    for (size_t i = 0; i < gs->n; i++)
        if (gs->pgid[i] == pgid) {
            gs->pgid[i] = gs->pgid[--gs->n];
            return;
        }
}

/* Whether process pid's environment holds mark ("K=V"); a NUL ends each entry. */
static bool marked(const char *pid, const char *mark)
{
    char path[64], env[65536];
    snprintf(path, sizeof path, "/proc/%s/environ", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, env, sizeof env - 1);
    close(fd);
    if (n <= 0)
        return false;
    env[n] = '\0';
    size_t len = strlen(mark) + 1; /* its NUL too, so pid 12 is not pid 123 */
    for (ssize_t at = 0; at + (ssize_t)len <= n; at += (ssize_t)strlen(env + at) + 1)
        if (memcmp(env + at, mark, len) == 0)
            return true;
    return false;
}

/* Kill, with their groups, the processes marked as this run's targets; how many. */
static int kill_marked(const char *mark)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int killed = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9' || !marked(e->d_name, mark))
            continue;
        pid_t pid = (pid_t)atoi(e->d_name);
        if (getpgid(pid) == pid) /* a target leads its own group; others may have joined ours */
            kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        killed++;
    }
    closedir(d);
    return killed;
}

/* The watchdog's whole life: follow the registrations until our end closes, then kill. */
static _Noreturn void watchdog_main(int rfd, const char *mark)
{
    int null = open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3 && null >= 0; fd++)
        dup2(null, fd); /* so whoever reads our stdout sees its end when we exit */
    if (rfd != 3) {
        dup2(rfd, 3);
        rfd = 3;
    }
    closefrom(4);
    /* Out of mcpspec's process group, so a CI runner that kills that group (SIGKILL included)
     * leaves the watchdog to see the pipe close and kill the targets' groups. */
    setpgid(0, 0);
    /* Ctrl-C and a terminal hang-up reach our process group: mcpspec cleans up itself then. */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    groups gs = {0};
    int32_t rec;
    for (;;) {
        ssize_t n = read(rfd, &rec, sizeof rec);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof rec)
            break;
        if (rec > 0)
            groups_add(&gs, rec);
        else if (rec < 0)
            groups_remove(&gs, -rec);
    }
    for (size_t i = 0; i < gs.n; i++)
        kill(-(pid_t)gs.pgid[i], SIGKILL);
    /* A target started just before mcpspec died may not be registered yet; a few rounds catch
     * one still forking. */
    for (int round = 0; round < 3 && kill_marked(mark) > 0; round++)
        ;
    _exit(0);
}

bool mcps_guard_start_watchdog(mcps_guard *g)
{
    int p[2];
    if (g->watchdog_fd >= 0 || pipe2(p, O_CLOEXEC) != 0)
        return g->watchdog_fd >= 0;
    /* The mark names our pid and the time, so no other run's targets carry it. */
    char mark[sizeof g->mark];
    snprintf(mark, sizeof mark, "%s=%ld.%lld", MCPS_GUARD_MARK, (long)getpid(),
             (long long)mcps_clock_ms());
    pid_t pid = fork();
    if (pid == 0) {
        close(p[1]);
        watchdog_main(p[0], mark);
    }
    close(p[0]);
    if (pid < 0) {
        close(p[1]);
        return false;
    }
    g->watchdog_fd = p[1];
    memcpy(g->mark, mark, sizeof mark);
    return true;
}

void mcps_guard_watch(const mcps_guard *g, pid_t pgid, bool add)
{
    if (!g || g->watchdog_fd < 0 || pgid <= 0)
        return;
    int32_t rec = add ? (int32_t)pgid : -(int32_t)pgid;
    ssize_t n;
    do
        n = write(g->watchdog_fd, &rec, sizeof rec);
    while (n < 0 && errno == EINTR);
}
