/*
 * afl_run.c - start, bound and reap afl-fuzz (afl_run.h). AFL's own -V stops
 * it after the fuzzing time, but only once its start-up (calibration of
 * every seed) is done, so the deadline here is the one that holds.
 */
#define _XOPEN_SOURCE 700 /* putenv */

#include "live/afl_run.h"

#include "base/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

bool mcps_live_afl_available(void)
{
    const char *path = getenv("PATH");
    char dir[4096];
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        if (n && n < sizeof dir - 16) {
            snprintf(dir, sizeof dir, "%.*s/afl-fuzz", (int)n, p);
            if (access(dir, X_OK) == 0)
                return true;
        }
        p += n;
        p += *p == ':';
    }
    return false;
}

/* In the child: its own process group, output to the log, no stdin, the environment. */
static void child(char *const *argv, const mcps_live_afl_child *c)
{
    setpgid(0, 0);
    int in = open("/dev/null", O_RDONLY);
    int log = open(c->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || log < 0 || dup2(in, 0) < 0 || dup2(log, 1) < 0 || dup2(log, 2) < 0)
        _exit(127);
    if (c->cwd && chdir(c->cwd) != 0)
        _exit(127);
    for (char *const *e = c->env; e && *e; e++)
        putenv(*e);
    for (char *const *e = c->env_extra; e && *e; e++)
        putenv(*e);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    execvp(argv[0], argv);
    _exit(127);
}

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Wait for pid until deadline_ms (or a stop, when g is given); true once reaped. */
static bool wait_until(pid_t pid, int *status, int64_t deadline_ms, const mcps_guard *g)
{
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR))
            return true;
        if (mcps_clock_ms() >= deadline_ms || (g && mcps_guard_stopped(g) != MCPS_STOP_NONE))
            return false;
        nap_ms(50);
    }
}

int mcps_live_afl_exec(char *const *argv, const mcps_live_afl_child *c, const mcps_guard *g,
                       double seconds, char *err, size_t errlen)
{
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot start afl-fuzz: %s", strerror(errno));
        return -1;
    }
    if (pid == 0)
        child(argv, c);
    setpgid(pid, pid); /* also here: no window where a kill of the group misses it */
    if (g)
        mcps_guard_watch(g, pid, true);
    int status = 0;
    int64_t t0 = mcps_clock_ms();
    bool reaped = wait_until(pid, &status, t0 + (int64_t)(seconds * 1000), g);
    if (!reaped) { /* the time is up: AFL saves its state on SIGINT */
        kill(-pid, SIGINT);
        reaped =
            wait_until(pid, &status, mcps_clock_ms() + (int64_t)(MCPS_LIVE_AFL_GRACE * 1000), NULL);
    }
    if (!reaped) {
        kill(-pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    kill(-pid, SIGKILL); /* whatever AFL left in its group (a forkserver child) */
    if (g)
        mcps_guard_watch(g, pid, false);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        snprintf(err, errlen, "cannot run afl-fuzz (see %s)", c->log_path);
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 0;
}

void mcps_live_afl_stats_read(const char *path, mcps_live_afl_stats *st)
{
    *st = (mcps_live_afl_stats){0};
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    st->found = true;
    char line[512], key[64];
    double v;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%63s : %lf", key, &v) != 2)
            continue;
        if (strcmp(key, "execs_done") == 0)
            st->execs_done = v;
        else if (strcmp(key, "execs_per_sec") == 0)
            st->execs_per_sec = v;
        else if (strcmp(key, "run_time") == 0)
            st->run_time = v;
    }
    fclose(f);
}
