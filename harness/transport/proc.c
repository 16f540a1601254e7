/*
 * proc.c - spawn, watch, signal and reap a target; see proc.h.
 *
 * Everything that allocates (the environment, the PATH lookup) happens before
 * fork; the child only makes async-signal-safe calls, and reports a failed
 * chdir or exec through a close-on-exec status pipe, so the caller learns
 * synchronously whether the target really started.
 *
 * _GNU_SOURCE (here only): pipe2() to create close-on-exec pipes atomically -
 * with pipe()+fcntl() another thread's fork could inherit our pipe ends and
 * keep a target's stdin open - and syscall() for pidfd_open and close_range.
 */
#define _GNU_SOURCE
#include "transport/proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codec/buf.h"
#include "transport/clock.h"

extern char **environ;

#define DEFAULT_PATH     "/usr/local/bin:/usr/bin:/bin"
#define EXEC_WAIT_SECS   10.0
#define LEFTOVER_POLL_MS 5

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* What the child reports through the status pipe before _exit(127). */
enum { STAGE_SETUP = 1, STAGE_CHDIR, STAGE_EXEC };

/* Everything the child needs, computed before fork. */
typedef struct child_plan {
    const char *path; /* resolved program */
    char *const *argv;
    char **envp;
    const char *cwd;
    int in_r, out_w, err_w, status_w;
    int maxsig;
    struct sigaction dfl;
    sigset_t none;
} child_plan;

void mcps_proc_close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

void mcps_proc_close_fds(mcps_proc *p)
{
    mcps_proc_close_fd(&p->in_fd);
    mcps_proc_close_fd(&p->out_fd);
    mcps_proc_close_fd(&p->err_fd);
    mcps_proc_close_fd(&p->pidfd);
}

/* ---- environment and PATH lookup (before fork) ---- */

static size_t key_len(const char *kv)
{
    const char *eq = strchr(kv, '=');
    return eq ? (size_t)(eq - kv) : strlen(kv);
}

static bool same_key(const char *a, const char *b)
{
    size_t n = key_len(a);
    return n == key_len(b) && memcmp(a, b, n) == 0;
}

static bool in_list(const char *kv, char *const *list)
{
    for (; list && *list; list++)
        if (same_key(kv, *list))
            return true;
    return false;
}

static size_t count(char *const *v)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    return n;
}

/* Ours plus extra ("K=V" replaces K; a bare "K" removes it; the last K wins). */
static char **build_envp(char *const *extra)
{
    char **envp = malloc((count(environ) + count(extra) + 1) * sizeof *envp);
    if (!envp)
        return NULL;
    size_t k = 0;
    for (char **e = environ; e && *e; e++)
        if (!in_list(*e, extra))
            envp[k++] = *e;
    for (char *const *x = extra; x && *x; x++)
        if (strchr(*x, '=') && !in_list(*x, x + 1))
            envp[k++] = *x;
    envp[k] = NULL;
    return envp;
}

static const char *env_path(char **envp)
{
    for (; *envp; envp++)
        if (strncmp(*envp, "PATH=", 5) == 0)
            return *envp + 5;
    return DEFAULT_PATH;
}

/* 0 when path names an executable regular file (relative to cwd if given). */
static int check_exec(const char *path, const char *cwd, mcps_buf *tmp)
{
    const char *full = path;
    if (path[0] != '/' && cwd) {
        mcps_buf_clear(tmp);
        mcps_buf_printf(tmp, "%s/%s", cwd, path);
        if (tmp->oom)
            return ENOMEM;
        full = tmp->data;
    }
    struct stat st;
    if (stat(full, &st) < 0)
        return errno;
    if (!S_ISREG(st.st_mode))
        return EACCES;
    return access(full, X_OK) < 0 ? errno : 0;
}

/* Like execvp: the first executable match wins; EACCES if only unusable ones exist. */
static int search_path(const char *name, const char *path_env, const char *cwd, mcps_buf *out,
                       mcps_buf *tmp)
{
    int found = ENOENT;
    for (const char *dir = path_env;;) {
        const char *colon = strchr(dir, ':');
        size_t dlen = colon ? (size_t)(colon - dir) : strlen(dir);
        mcps_buf_clear(out);
        if (dlen)
            mcps_buf_append(out, dir, dlen);
        else
            mcps_buf_putc(out, '.');
        mcps_buf_printf(out, "/%s", name);
        int e = out->oom ? ENOMEM : check_exec(out->data, cwd, tmp);
        if (e == 0 || e == ENOMEM)
            return e;
        if (e == EACCES)
            found = EACCES;
        if (!colon)
            return found;
        dir = colon + 1;
    }
}

/* Resolve argv[0] the way the child's execvp would; 0 or an errno. */
static int resolve_program(const char *name, char **envp, const char *cwd, mcps_buf *out)
{
    mcps_buf tmp = {0};
    int e;
    if (!*name) {
        e = ENOENT;
    } else if (strchr(name, '/')) {
        mcps_buf_puts(out, name);
        e = out->oom ? ENOMEM : check_exec(name, cwd, &tmp);
    } else {
        e = search_path(name, env_path(envp), cwd, out, &tmp);
    }
    mcps_buf_free(&tmp);
    return e;
}

/* ---- the child (async-signal-safe calls only) ---- */

static _Noreturn void child_fail(const child_plan *c, int stage)
{
    int msg[2] = {stage, errno};
    ssize_t ignored = write(c->status_w, msg, sizeof msg);
    (void)ignored;
    _exit(127);
}

/* Put the pipe ends on 0, 1, 2, first lifting them above 2 so none is clobbered. */
static bool child_stdio(const child_plan *c)
{
    int in = fcntl(c->in_r, F_DUPFD_CLOEXEC, 3);
    int out = fcntl(c->out_w, F_DUPFD_CLOEXEC, 3);
    int err = fcntl(c->err_w, F_DUPFD_CLOEXEC, 3);
    if (in < 0 || out < 0 || err < 0)
        return false;
    return dup2(in, 0) == 0 && dup2(out, 1) == 1 && dup2(err, 2) == 2;
}

static _Noreturn void run_child(const child_plan *c)
{
    setpgid(0, 0);
    for (int sig = 1; sig <= c->maxsig; sig++)
        sigaction(sig, &c->dfl, NULL); /* EINVAL for SIGKILL, SIGSTOP: fine */
    sigprocmask(SIG_SETMASK, &c->none, NULL);
    if (!child_stdio(c))
        child_fail(c, STAGE_SETUP);
#ifdef SYS_close_range
    /* Descriptors other code in this process opened without O_CLOEXEC stay ours. */
    syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
#endif
    if (c->cwd && chdir(c->cwd) < 0)
        child_fail(c, STAGE_CHDIR);
    execve(c->path, c->argv, c->envp);
    child_fail(c, STAGE_EXEC);
}

/* ---- the parent ---- */

typedef struct pipes {
    int in[2], out[2], err[2], status[2];
} pipes;

static void close_pipes(pipes *pp)
{
    int *all[] = {&pp->in[0],  &pp->in[1],  &pp->out[0],    &pp->out[1],
                  &pp->err[0], &pp->err[1], &pp->status[0], &pp->status[1]};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        mcps_proc_close_fd(all[i]);
}

static bool open_pipes(pipes *pp)
{
    *pp = (pipes){{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}};
    if (pipe2(pp->in, O_CLOEXEC) == 0 && pipe2(pp->out, O_CLOEXEC) == 0 &&
        pipe2(pp->err, O_CLOEXEC) == 0 && pipe2(pp->status, O_CLOEXEC) == 0)
        return true;
    int e = errno;
    close_pipes(pp);
    errno = e;
    return false;
}

/* Fork with every signal blocked, so no handler of ours runs in the child. */
static pid_t fork_child(const child_plan *c)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = fork();
    if (pid == 0)
        run_child(c);
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return pid;
}

/* Wait for exec: EOF on the status pipe means it happened. 0, or the stage that failed. */
static int exec_status(int fd, int *err)
{
    int64_t deadline = mcps_clock_deadline(EXEC_WAIT_SECS);
    int msg[2];
    size_t got = 0;
    while (got < sizeof msg) {
        struct pollfd pfd = {fd, POLLIN, 0};
        int64_t left = deadline - mcps_clock_ms();
        if (left <= 0) {
            *err = ETIMEDOUT;
            return STAGE_EXEC;
        }
        int ready = poll(&pfd, 1, (int)left);
        if (ready < 0 && errno != EINTR) {
            *err = errno;
            return STAGE_SETUP;
        }
        if (ready <= 0)
            continue;
        ssize_t n = read(fd, (char *)msg + got, sizeof msg - got);
        if (n == 0)
            return 0;
        if (n > 0)
            got += (size_t)n;
        else if (errno != EINTR && errno != EAGAIN)
            return 0;
    }
    *err = msg[1];
    return msg[0];
}

static void exec_error(const mcps_target_config *cfg, int stage, int e, char *err, size_t errlen)
{
    const char *name = cfg->argv[0];
    if (stage == STAGE_CHDIR)
        snprintf(err, errlen, "cannot run '%s': cannot change to directory '%s': %s", name,
                 cfg->cwd, strerror(e));
    else if (stage == STAGE_SETUP)
        snprintf(err, errlen, "cannot run '%s': cannot set up its stdio: %s", name, strerror(e));
    else if (e == ETIMEDOUT)
        snprintf(err, errlen, "cannot run '%s': exec did not complete within %.0f s", name,
                 EXEC_WAIT_SECS);
    else if (e == ENOENT)
        snprintf(err, errlen, "cannot run '%s': %s (is its #! interpreter missing?)", name,
                 strerror(e));
    else
        snprintf(err, errlen, "cannot run '%s': %s", name, strerror(e));
}

static void set_nonblocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* The parent's side once fork succeeded: learn whether exec did, keep our ends. */
static bool adopt_child(mcps_proc *p, pipes *pp, const mcps_target_config *cfg, char *err,
                        size_t errlen)
{
    setpgid(p->pid, p->pid); /* also done by the child; whoever is first wins the race */
    int *child_ends[] = {&pp->in[0], &pp->out[1], &pp->err[1], &pp->status[1]};
    for (size_t i = 0; i < 4; i++)
        mcps_proc_close_fd(child_ends[i]);
    int e = 0, stage = exec_status(pp->status[0], &e);
    mcps_proc_close_fd(&pp->status[0]);
    if (stage) {
        kill(p->pid, SIGKILL); /* only matters if exec hung */
        while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        exec_error(cfg, stage, e, err, errlen);
        close_pipes(pp);
        return false;
    }
    p->in_fd = pp->in[1];
    p->out_fd = pp->out[0];
    p->err_fd = pp->err[0];
    set_nonblocking(p->in_fd);
    set_nonblocking(p->out_fd);
    set_nonblocking(p->err_fd);
#if defined(SYS_pidfd_open) && !defined(MCPS_NO_PIDFD)  /* the latter tests the fallback */
    p->pidfd = (int)syscall(SYS_pidfd_open, p->pid, 0); /* always close-on-exec */
    if (p->pidfd < 0)
        p->pidfd = -1;
#endif
    return true;
}

static bool plan_child(child_plan *c, const mcps_target_config *cfg, mcps_buf *path, char *err,
                       size_t errlen)
{
    const char *name = cfg->argv[0];
    c->envp = build_envp(cfg->env_extra);
    int e = c->envp ? resolve_program(name, c->envp, cfg->cwd, path) : ENOMEM;
    if (e) {
        snprintf(err, errlen, "cannot run '%s': %s", name, strerror(e));
        return false;
    }
    c->path = path->data;
    c->argv = cfg->argv;
    c->cwd = cfg->cwd;
    c->maxsig = SIGRTMAX;
    c->dfl.sa_handler = SIG_DFL;
    sigemptyset(&c->dfl.sa_mask);
    sigemptyset(&c->none);
    return true;
}

/* Pipes, fork, and the exec verdict; false with err filled. */
static bool start_child(mcps_proc *p, child_plan *c, const mcps_target_config *cfg, char *err,
                        size_t errlen)
{
    pipes pp;
    if (!open_pipes(&pp)) {
        snprintf(err, errlen, "cannot run '%s': cannot create pipes: %s", cfg->argv[0],
                 strerror(errno));
        return false;
    }
    c->in_r = pp.in[0];
    c->out_w = pp.out[1];
    c->err_w = pp.err[1];
    c->status_w = pp.status[1];
    p->pid = fork_child(c);
    if (p->pid < 0) {
        snprintf(err, errlen, "cannot run '%s': fork failed: %s", cfg->argv[0], strerror(errno));
        close_pipes(&pp);
        return false;
    }
    return adopt_child(p, &pp, cfg, err, errlen);
}

bool mcps_proc_spawn(mcps_proc *p, const mcps_target_config *cfg, char *err, size_t errlen)
{
    *p = (mcps_proc){.pid = -1, .pidfd = -1, .in_fd = -1, .out_fd = -1, .err_fd = -1};
    if (!cfg || !cfg->argv || !cfg->argv[0]) {
        snprintf(err, errlen, "no command to run");
        return false;
    }
    child_plan c = {0};
    mcps_buf path = {0};
    bool ok = plan_child(&c, cfg, &path, err, errlen) && start_child(p, &c, cfg, err, errlen);
    free(c.envp);
    mcps_buf_free(&path);
    if (!ok)
        p->pid = -1;
    return ok;
}

bool mcps_proc_try_reap(mcps_proc *p)
{
    if (p->reaped || p->pid <= 0)
        return p->reaped;
    int status = 0;
    pid_t r;
    do
        r = waitpid(p->pid, &status, WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == 0 || (r < 0 && errno != ECHILD))
        return false;
    p->reaped = true;
    p->status_lost = r < 0; /* ECHILD: SIGCHLD is ignored, the kernel reaped it */
    p->status = status;
    p->reaped_ms = mcps_clock_ms();
    mcps_proc_close_fd(&p->pidfd);
    return true;
}

void mcps_proc_signal_group(const mcps_proc *p, int sig)
{
    if (p->pid <= 0)
        return;
    if (kill(-p->pid, sig) < 0 && !p->reaped)
        kill(p->pid, sig);
}

/* Reap members of the group that are our children (possible when we are a subreaper). */
static void reap_group(mcps_proc *p)
{
    int status;
    pid_t r;
    while ((r = waitpid(-p->pid, &status, WNOHANG)) > 0 || (r < 0 && errno == EINTR)) {
        if (r == p->pid && !p->reaped) {
            p->reaped = true;
            p->status = status;
            p->reaped_ms = mcps_clock_ms();
            mcps_proc_close_fd(&p->pidfd);
        }
    }
}

/* Whether /proc/<name> is a live (not zombie) member of group pgid. */
static bool live_member(const char *name, pid_t pgid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%s/stat", name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, line, sizeof line - 1);
    close(fd);
    if (n <= 0)
        return false;
    line[n] = '\0';
    const char *after_comm = strrchr(line, ')'); /* comm may hold spaces and parentheses */
    char state;
    int ppid, pgrp;
    if (!after_comm || sscanf(after_comm + 1, " %c %d %d", &state, &ppid, &pgrp) != 3)
        return false;
    return pgrp == pgid && state != 'Z' && state != 'X';
}

/* /proc describes our own pid namespace (so its pids are ours). */
static bool proc_usable(void)
{
    char path[32];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)getpid());
    return access(path, F_OK) == 0;
}

/*
 * Whether any process of the group is alive. kill(-pgid, 0) also counts
 * zombies, which linger where no one reaps orphans (PID 1 in some containers)
 * and need no killing; /proc tells them apart. Without /proc, any member counts.
 */
static bool group_alive(pid_t pgid)
{
    if (kill(-pgid, 0) < 0 && errno == ESRCH)
        return false;
    DIR *d = proc_usable() ? opendir("/proc") : NULL;
    if (!d)
        return true;
    bool live = false;
    struct dirent *e;
    while (!live && (e = readdir(d)))
        live = e->d_name[0] >= '1' && e->d_name[0] <= '9' && live_member(e->d_name, pgid);
    closedir(d);
    return live;
}

bool mcps_proc_kill_leftovers(mcps_proc *p, int64_t deadline_ms)
{
    if (p->pid <= 0)
        return false;
    reap_group(p);
    if (kill(-p->pid, 0) < 0)
        return false; /* ESRCH: none left; EPERM: not ours to kill */
    bool live = group_alive(p->pid);
    kill(-p->pid, SIGKILL); /* harmless when only zombies remain */
    if (!live)
        return false;
    while (group_alive(p->pid) && mcps_clock_ms() < deadline_ms) {
        poll(NULL, 0, LEFTOVER_POLL_MS);
        reap_group(p);
    }
    reap_group(p); /* those that just turned into zombies */
    return true;
}
