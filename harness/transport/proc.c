/*
 * proc.c - spawn, watch, signal and reap a target; see proc.h.
 *
 * Targets start with posix_spawn: glibc runs the child on a vfork-like clone
 * that makes only raw system calls before exec, so it is safe while other
 * threads run cases (a fork()ed child of a threaded, sanitized process can
 * deadlock on a lock another thread held), it does not copy our page tables,
 * and exec failures come back as its return value. Everything that allocates
 * (the environment, the PATH lookup) happens before.
 *
 * _GNU_SOURCE (here only): pipe2() to create close-on-exec pipes atomically -
 * with pipe()+fcntl() another thread's spawn could inherit our pipe ends and
 * keep a target's stdin open -, posix_spawn's chdir and closefrom actions,
 * syscall() for pidfd_open, and F_SETPIPE_SZ.
 */
#define _GNU_SOURCE
#include "transport/proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"

extern char **environ;

#define DEFAULT_PATH     "/usr/local/bin:/usr/bin:/bin"
#define LEFTOVER_POLL_MS 5
#define PIPE_BYTES       (256 * 1024) /* a target's stdin and stdout: see widen() */

/* Everything the child needs, computed before spawning. */
typedef struct child_plan {
    const char *path; /* resolved program */
    char *const *argv;
    char **envp;
    const char *cwd;
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

/* Ours plus extra ("K=V" replaces K; a bare "K" removes it; the last K wins), then the
 * watchdog's mark (replacing an outer run's), when there is one. */
static char **build_envp(char *const *extra, const char *mark)
{
    char **envp = malloc((count(environ) + count(extra) + 2) * sizeof *envp);
    if (!envp)
        return NULL;
    size_t k = 0;
    for (char **e = environ; e && *e; e++)
        if (!in_list(*e, extra) && !same_key(*e, MCPS_GUARD_MARK))
            envp[k++] = *e;
    for (char *const *x = extra; x && *x; x++)
        if (strchr(*x, '=') && !in_list(*x, x + 1) && !same_key(*x, MCPS_GUARD_MARK))
            envp[k++] = *x;
    if (mark && mark[0])
        envp[k++] = (char *)mark;
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

/* ---- the parent ---- */

typedef struct pipes {
    int in[2], out[2], err[2];
} pipes;

static void close_pipes(pipes *pp)
{
    int *all[] = {&pp->in[0], &pp->in[1], &pp->out[0], &pp->out[1], &pp->err[0], &pp->err[1]};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        mcps_proc_close_fd(all[i]);
}

/* Keep every end above 2, so the child's dup2 onto 0..2 never meets itself
 * (which would leave the descriptor close-on-exec) when our stdio is closed. */
static bool lift_above_stdio(int *fd)
{
    if (*fd > 2)
        return true;
    int high = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
    if (high < 0)
        return false;
    close(*fd);
    *fd = high;
    return true;
}

/* A target's stdin and stdout hold PIPE_BYTES, not the kernel's 64 KiB: a fuzz
 * sequence with a 70 KB string filled one, and each side then waited on the other (against
 * refserver, a third of mcpspec's writes met a full pipe). Best effort: a user past the
 * kernel's pipe budget (pipe-user-pages-soft) keeps the default. */
static void widen(int fd)
{
    (void)fcntl(fd, F_SETPIPE_SZ, PIPE_BYTES);
}

static bool open_pipes(pipes *pp)
{
    *pp = (pipes){{-1, -1}, {-1, -1}, {-1, -1}};
    bool ok = pipe2(pp->in, O_CLOEXEC) == 0 && pipe2(pp->out, O_CLOEXEC) == 0 &&
              pipe2(pp->err, O_CLOEXEC) == 0;
    int *all[] = {&pp->in[0], &pp->in[1], &pp->out[0], &pp->out[1], &pp->err[0], &pp->err[1]};
    for (size_t i = 0; ok && i < sizeof all / sizeof *all; i++)
        ok = lift_above_stdio(all[i]);
    if (ok) {
        widen(pp->in[1]);
        widen(pp->out[0]);
        return true;
    }
    int e = errno;
    close_pipes(pp);
    errno = e;
    return false;
}

static void spawn_error(const mcps_target_config *cfg, int e, char *err, size_t errlen)
{
    const char *name = cfg->argv[0];
    struct stat st;
    if (cfg->cwd && (stat(cfg->cwd, &st) < 0 || !S_ISDIR(st.st_mode)))
        snprintf(err, errlen, "cannot run '%s': cannot change to directory '%s': %s", name,
                 cfg->cwd, strerror(errno ? errno : ENOTDIR));
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

/* The spawn's file actions: pipes on 0..2, the working folder, nothing else inherited. */
static bool file_actions(posix_spawn_file_actions_t *fa, const child_plan *c, const pipes *pp)
{
    bool ok = posix_spawn_file_actions_adddup2(fa, pp->in[0], 0) == 0 &&
              posix_spawn_file_actions_adddup2(fa, pp->out[1], 1) == 0 &&
              posix_spawn_file_actions_adddup2(fa, pp->err[1], 2) == 0;
    if (ok && c->cwd)
        ok = posix_spawn_file_actions_addchdir_np(fa, c->cwd) == 0;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
    /* Descriptors other code in this process opened without O_CLOEXEC stay ours. */
    if (ok)
        ok = posix_spawn_file_actions_addclosefrom_np(fa, 3) == 0;
#endif
    return ok;
}

/* Its own process group, default signal dispositions, nothing blocked. */
static bool spawn_attributes(posix_spawnattr_t *at)
{
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    return posix_spawnattr_setpgroup(at, 0) == 0 && posix_spawnattr_setsigmask(at, &none) == 0 &&
           posix_spawnattr_setsigdefault(at, &all) == 0 &&
           posix_spawnattr_setflags(at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                            POSIX_SPAWN_SETSIGDEF) == 0;
}

static int spawn(mcps_proc *p, const child_plan *c, const pipes *pp)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return ENOMEM;
    if (posix_spawnattr_init(&at) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        return ENOMEM;
    }
    int rc = file_actions(&fa, c, pp) && spawn_attributes(&at)
                 ? posix_spawn(&p->pid, c->path, &fa, &at, c->argv, c->envp)
                 : ENOMEM;
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    return rc;
}

/* Our ends of the pipes, non-blocking, and a pidfd to poll for the exit. */
static void adopt_child(mcps_proc *p, pipes *pp)
{
    int *child_ends[] = {&pp->in[0], &pp->out[1], &pp->err[1]};
    for (size_t i = 0; i < 3; i++)
        mcps_proc_close_fd(child_ends[i]);
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
}

static bool plan_child(child_plan *c, const mcps_target_config *cfg, mcps_buf *path, char *err,
                       size_t errlen)
{
    const char *name = cfg->argv[0];
    c->envp = build_envp(cfg->env_extra, cfg->guard ? cfg->guard->mark : NULL);
    int e = c->envp ? resolve_program(name, c->envp, cfg->cwd, path) : ENOMEM;
    if (e) {
        snprintf(err, errlen, "cannot run '%s': %s", name, strerror(e));
        return false;
    }
    c->path = path->data;
    c->argv = cfg->argv;
    c->cwd = cfg->cwd;
    return true;
}

/* Pipes, spawn, and the exec verdict; false with err filled. */
static bool start_child(mcps_proc *p, child_plan *c, const mcps_target_config *cfg, char *err,
                        size_t errlen)
{
    pipes pp;
    if (!open_pipes(&pp)) {
        snprintf(err, errlen, "cannot run '%s': cannot create pipes: %s", cfg->argv[0],
                 strerror(errno));
        return false;
    }
    int e = spawn(p, c, &pp);
    if (e) {
        errno = 0;
        spawn_error(cfg, e, err, errlen);
        close_pipes(&pp);
        return false;
    }
    adopt_child(p, &pp);
    mcps_guard_watch(cfg->guard, p->pid, true);
    return true;
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

void mcps_proc_exit_fields(const mcps_proc *p, int *code, int *sig)
{
    *code = -1;
    *sig = 0;
    if (!p->reaped || p->status_lost)
        return;
    if (WIFEXITED(p->status))
        *code = WEXITSTATUS(p->status);
    else if (WIFSIGNALED(p->status))
        *sig = WTERMSIG(p->status);
}

void mcps_proc_describe_exit(const mcps_proc *p, const char *who, char *out, size_t n)
{
    int code, sig;
    mcps_proc_exit_fields(p, &code, &sig);
    if (!p->reaped)
        snprintf(out, n, "%s did not exit even after SIGKILL and could not be reaped", who);
    else if (p->status_lost)
        snprintf(out, n, "%s exited; its status is unknown (SIGCHLD is ignored)", who);
    else if (sig)
        snprintf(out, n, "%s killed by signal %d (%s)", who, sig, strsignal(sig));
    else
        snprintf(out, n, "%s exited with status %d", who, code);
}

#define LEFTOVER_WAIT_SECS 1.0

void mcps_proc_finish_shutdown(mcps_proc *p, const mcps_guard *guard, int64_t start_ms,
                               mcps_shutdown_how how, mcps_shutdown_report *report)
{
    int64_t end = p->reaped ? p->reaped_ms : mcps_clock_ms();
    report->how = how;
    report->seconds = how == MCPS_SHUT_EXITED_BEFORE ? 0.0 : (double)(end - start_ms) / 1000.0;
    report->killed_leftovers = mcps_proc_kill_leftovers(p, mcps_clock_deadline(LEFTOVER_WAIT_SECS));
    mcps_guard_watch(guard, p->pid, false);
    mcps_proc_exit_fields(p, &report->exit_code, &report->term_signal);
}
