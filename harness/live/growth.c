/*
 * growth.c - samples of a process's resident memory and descriptors from
 * /proc, and the growth oracle's judgement over a window (growth.h).
 */
#include "live/growth.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#define REPLAY_BYTES ((size_t)32 * 1024 * 1024)

static long rss_kib(int pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    long kib = -1;
    while (f && kib < 0 && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0 && sscanf(line + 6, "%ld", &kib) != 1)
            kib = -1;
    if (f)
        fclose(f);
    return kib;
}

static long open_fds(int pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    long n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

bool mcps_live_usage_read(int pid, mcps_live_usage *u)
{
    if (pid <= 0)
        return false;
    u->rss_kib = rss_kib(pid);
    u->fds = open_fds(pid);
    return u->rss_kib >= 0 && u->fds >= 0;
}

long mcps_live_growth_rss_threshold(long base_kib)
{
    return base_kib / 2 > MCPS_LIVE_GROWTH_RSS_KIB ? base_kib / 2 : MCPS_LIVE_GROWTH_RSS_KIB;
}

void mcps_live_growth_start(mcps_live_growth *g, int pid, mcps_live_watch watch)
{
    g->pid = pid;
    g->rss = watch == MCPS_LIVE_WATCH_ALL;
    g->inputs = 0;
    g->next_sample = MCPS_LIVE_GROWTH_WARMUP;
    g->have_base = false;
}

void mcps_live_growth_base(mcps_live_growth *g)
{
    g->have_base = mcps_live_usage_read(g->pid, &g->base);
    g->samples += g->have_base;
    g->inputs = 0; /* the window starts here */
    g->next_sample = MCPS_LIVE_GROWTH_EVERY;
}

void mcps_live_growth_check(mcps_live_growth *g, size_t at, mcps_live_judge *j)
{
    mcps_live_usage now;
    if (!g->have_base || !mcps_live_usage_read(g->pid, &now))
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
