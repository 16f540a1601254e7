/*
 * growth.c - samples of a process's resident memory and descriptors from
 * /proc, and the growth oracle's judgement over a window (growth.h). A
 * launched HTTP server is sampled as its process tree, sockets left out
 * (growth.h says why).
 */
#define _XOPEN_SOURCE 700 /* readlink */

#include "live/growth.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REPLAY_BYTES ((size_t)32 * 1024 * 1024)

/* VmRSS, from /proc/PID/statm (its second field, in pages: the same count /proc/PID/status
 * gives, which costs the kernel a page of text to write, at every sample). */
static long rss_kib(int pid)
{
    char path[64], text[128];
    snprintf(path, sizeof path, "/proc/%d/statm", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    long size, pages;
    if (n <= 0)
        return -1;
    text[n] = '\0';
    if (sscanf(text, "%ld %ld", &size, &pages) != 2)
        return -1;
    return pages * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Whether descriptor fd of pid is a socket: a connection of ours, over HTTP. */
static bool is_socket(int pid, const char *fd)
{
    char path[96], target[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%.16s", pid, fd);
    ssize_t n = readlink(path, target, sizeof target - 1);
    return n > 7 && strncmp(target, "socket:", 7) == 0;
}

static long open_fds(int pid, bool sockets)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    long n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.' && (sockets || !is_socket(pid, e->d_name));
    closedir(d);
    return n;
}

bool mcps_live_usage_read(int pid, mcps_live_usage *u)
{
    if (pid <= 0)
        return false;
    u->rss_kib = rss_kib(pid);
    u->fds = open_fds(pid, true);
    return u->rss_kib >= 0 && u->fds >= 0;
}

/* pid's parent and whether it is a zombie, from /proc/PID/stat; false when gone. */
static bool stat_of(int pid, int *ppid, bool *zombie)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    bool ok = f && fgets(line, sizeof line, f);
    if (f)
        fclose(f);
    const char *end = ok ? strrchr(line, ')') : NULL; /* the name may hold anything */
    char state = 0;
    ok = end && sscanf(end + 1, " %c %d", &state, ppid) == 2;
    *zombie = state == 'Z';
    return ok;
}

typedef struct proc_list {
    int *pid, *ppid;
    size_t n, cap;
} proc_list;

static void procs_read(proc_list *l)
{
    DIR *d = opendir("/proc");
    for (struct dirent *e; d && (e = readdir(d));) {
        int pid = atoi(e->d_name), ppid;
        bool zombie;
        if (pid <= 0 || !stat_of(pid, &ppid, &zombie) || zombie)
            continue;
        if (l->n == l->cap) {
            size_t cap = l->cap ? l->cap * 2 : 256;
            int *a = realloc(l->pid, cap * sizeof *a),
                *b = a ? realloc(l->ppid, cap * sizeof *b) : NULL;
            if (a)
                l->pid = a;
            if (!b)
                break;
            l->ppid = b;
            l->cap = cap;
        }
        l->pid[l->n] = pid;
        l->ppid[l->n++] = ppid;
    }
    if (d)
        closedir(d);
}

bool mcps_live_usage_read_tree(int pid, mcps_live_usage *u)
{
    if (!mcps_live_usage_read(pid, u))
        return false;
    u->fds = open_fds(pid, false);
    proc_list l = {0};
    procs_read(&l);
    /* The tree, grown a generation at a time: in[] marks the members found so far. */
    bool *in = calloc(l.n ? l.n : 1, sizeof *in);
    for (bool grew = in != NULL; grew;) {
        grew = false;
        for (size_t i = 0; i < l.n; i++) {
            if (in[i])
                continue;
            bool child = l.ppid[i] == pid;
            for (size_t k = 0; !child && k < l.n; k++)
                child = in[k] && l.pid[k] == l.ppid[i];
            if (child) {
                in[i] = grew = true;
                long kib = rss_kib(l.pid[i]), fds = open_fds(l.pid[i], false);
                u->rss_kib += kib > 0 ? kib : 0; /* one that ended meanwhile counts nothing */
                u->fds += fds > 0 ? fds : 0;
            }
        }
    }
    free(in);
    free(l.pid);
    free(l.ppid);
    return true;
}

static bool usage_of(const mcps_live_growth *g, mcps_live_usage *u)
{
    return g->tree ? mcps_live_usage_read_tree(g->pid, u) : mcps_live_usage_read(g->pid, u);
}

long mcps_live_growth_rss_threshold(long base_kib)
{
    return base_kib / 2 > MCPS_LIVE_GROWTH_RSS_KIB ? base_kib / 2 : MCPS_LIVE_GROWTH_RSS_KIB;
}

void mcps_live_growth_start(mcps_live_growth *g, int pid, const mcps_live_target *t)
{
    g->pid = pid;
    g->rss = t->growth == MCPS_LIVE_WATCH_ALL;
    g->tree = t->server != NULL;
    g->inputs = 0;
    g->next_sample = MCPS_LIVE_GROWTH_WARMUP;
    g->have_base = false;
}

void mcps_live_growth_base(mcps_live_growth *g)
{
    g->have_base = usage_of(g, &g->base);
    g->samples += g->have_base;
    g->inputs = 0; /* the window starts here */
    g->next_sample = MCPS_LIVE_GROWTH_EVERY;
}

void mcps_live_growth_check(mcps_live_growth *g, size_t at, mcps_live_judge *j)
{
    mcps_live_usage now;
    if (!g->have_base || !usage_of(g, &now))
        return;
    g->samples++;
    long rss = now.rss_kib - g->base.rss_kib, fds = now.fds - g->base.fds;
    if (rss > g->peak_rss_kib)
        g->peak_rss_kib = rss;
    if (fds > g->peak_fds)
        g->peak_fds = fds;
    /* Descriptors first: a count is exact, where memory is an allocator's estimate. */
    if (fds >= MCPS_LIVE_GROWTH_FDS)
        mcps_live_judge_growth(j, "fds", at, g->base.fds, now.fds, g->inputs);
    else if (g->rss && rss >= mcps_live_growth_rss_threshold(g->base.rss_kib))
        mcps_live_judge_growth(j, "rss", at, g->base.rss_kib, now.rss_kib, g->inputs);
}

void mcps_live_growth_after(mcps_live_growth *g, size_t n, size_t at, mcps_live_judge *j)
{
    g->inputs += n;
    if (g->inputs < g->next_sample)
        return;
    g->next_sample = g->inputs + MCPS_LIVE_GROWTH_EVERY;
    if (!g->have_base) {
        mcps_live_growth_base(g);
        return;
    }
    mcps_live_growth_check(g, at, j);
    if (g->inputs >= MCPS_LIVE_GROWTH_SPAN && !j->growth)
        mcps_live_growth_base(g); /* the next window */
}

mcps_live_watch mcps_live_growth_watch(const char *signature)
{
    return strcmp(signature, "growth fds") == 0 ? MCPS_LIVE_WATCH_FDS : MCPS_LIVE_WATCH_ALL;
}

size_t mcps_live_growth_plan(const mcps_live_seq *q, size_t *per_block)
{
    size_t bytes = 0;
    for (size_t i = 0; i < q->n; i++)
        bytes += q->items[i].len + 64; /* and its ping */
    *per_block = q->n ? (MCPS_LIVE_GROWTH_EVERY + q->n - 1) / q->n : 0;
    if (!q->n)
        return 0;
    size_t block = *per_block * q->n;
    size_t blocks = (MCPS_LIVE_GROWTH_WINDOW + block - 1) / block;
    size_t fit = REPLAY_BYTES / (bytes * *per_block);
    return blocks > fit ? (fit ? fit : 1) : blocks;
}

size_t mcps_live_growth_reps(const mcps_live_seq *q)
{
    size_t per_block, blocks = mcps_live_growth_plan(q, &per_block);
    return q->n ? 1 + blocks * per_block : 0;
}
