/*
 * growth.h - the resource-growth oracle of a local target: its resident
 * memory (VmRSS in /proc/PID/status) and its open descriptors (the entries of
 * /proc/PID/fd), sampled every MCPS_LIVE_GROWTH_EVERY inputs over the life of
 * one target process (the fuzz loop's, runner.c) or over a finding played
 * again and again on a fresh one (exec.c, for ddmin and `mcpspec replay`).
 *
 * The thresholds, and why a clean refserver never reaches them: its
 * descriptors do not change at all once it answers (stdin, stdout, stderr),
 * and its resident memory moves by well under 1 MiB over a window once
 * malloc's arenas are warm (the largest input the generator makes is 70 kB;
 * every input up to a sample is answered before it is taken, and one
 * sequence, --max-len inputs, is in flight behind it: runner.c). A window's growth
 * of MCPS_LIVE_GROWTH_FDS descriptors or MCPS_LIVE_GROWTH_RSS_KIB of memory
 * is therefore a leak, not noise; the report's "growth" object gives the
 * largest growth a run saw, which for a clean target says how far below them
 * it stayed. A garbage-collected runtime lets its heap grow in proportion to
 * its size before it collects (V8; Go's default GOGC lets it double): the
 * clean server-everything (node, 70 MiB resident) grows by up to 10.7 MiB
 * over a window. So the memory
 * threshold is the larger of 4 MiB and half the baseline; --growth off when
 * a runtime still goes past it, --growth fds (descriptors only) for an ASan
 * build, whose quarantine holds freed memory.
 *
 * A server mcpspec launched for --url (--server CMD --url URL) is watched
 * as its process tree: the server and every descendant (refserver --http
 * runs each session in a child, which is where a leak of the session's
 * requests lives), summed, sockets left out of the descriptors. The sockets
 * are mcpspec's own connections, whose number moves with how the HTTP layer
 * opens and reuses them, not with what the server keeps; every other
 * descriptor and the memory are held steady across samples because a
 * sample is taken only once every exchange of the batch has ended (as over
 * stdio, nothing is in flight). A socket the server leaks is not seen over
 * HTTP (it is over stdio). A server reached by --url alone has no process
 * mcpspec can see: no growth oracle there.
 */
#ifndef MCPS_LIVE_GROWTH_H
#define MCPS_LIVE_GROWTH_H

#include "live/live.h"
#include "live/oracle.h"

#define MCPS_LIVE_GROWTH_WARMUP  64   /* inputs on a process before its baseline sample */
#define MCPS_LIVE_GROWTH_EVERY   32   /* inputs between two samples: the oracle's cost */
#define MCPS_LIVE_GROWTH_RSS_KIB 4096 /* resident memory grown over the window, at least */
#define MCPS_LIVE_GROWTH_FDS     8    /* descriptors opened and kept over the window */
/* A window's inputs, after which the fuzz loop takes a new baseline: a process may live for
 * thousands of inputs (runner.h), and the replay below must still see a leak it saw. */
#define MCPS_LIVE_GROWTH_SPAN 512
/* Inputs a finding is played for (repeated) after its warm-up pass: twice the fuzz loop's
 * longest window (MCPS_LIVE_GROWTH_SPAN), so a leak the loop saw passes the threshold
 * again, with room, on a fresh process. Play stops at the sample that passes it. */
#define MCPS_LIVE_GROWTH_WINDOW 1024

typedef struct mcps_live_usage {
    long rss_kib, fds;
} mcps_live_usage;

/* The memory growth that is a finding over a window whose baseline is base_kib. */
long mcps_live_growth_rss_threshold(long base_kib);

/* Read the usage of process pid; false when /proc does not say (gone, not Linux). */
bool mcps_live_usage_read(int pid, mcps_live_usage *u);
/* The same summed over pid and its descendants (zombies left out), sockets not counted. */
bool mcps_live_usage_read_tree(int pid, mcps_live_usage *u);

typedef struct mcps_live_growth {
    int pid;
    size_t inputs, next_sample; /* on this process */
    bool have_base, rss;        /* rss: memory is judged too, not only descriptors */
    bool tree;                  /* a launched HTTP server: its process tree, no sockets */
    mcps_live_usage base;
    long peak_rss_kib, peak_fds; /* the largest growth seen, over every process */
    size_t samples;
} mcps_live_growth;

/* A new process pid of target t: a new window (the peaks are kept); t->growth says what is
 * judged, t->server whether pid is a launched HTTP server (watched as its tree). */
void mcps_live_growth_start(mcps_live_growth *g, int pid, const mcps_live_target *t);
/* What to watch to see a growth finding of this signature again ("growth fds": descriptors). */
mcps_live_watch mcps_live_growth_watch(const char *signature);
/* n more inputs were played and answered, the last being input at: sample when one is due
 * (the first after the warm-up is the baseline) and tell j when a threshold is passed. */
void mcps_live_growth_after(mcps_live_growth *g, size_t n, size_t at, mcps_live_judge *j);
/* Take the baseline now. */
void mcps_live_growth_base(mcps_live_growth *g);
/* Sample now and judge the growth since the baseline (input at the last one played). */
void mcps_live_growth_check(mcps_live_growth *g, size_t at, mcps_live_judge *j);

/* How a finding q is played to show growth: once to warm up, then in blocks of *per_block
 * copies of q (at least MCPS_LIVE_GROWTH_EVERY inputs, pipelined: one round trip per block,
 * not per copy) until about MCPS_LIVE_GROWTH_WINDOW inputs are measured, within 32 MiB sent.
 * Returns the number of blocks; q is played 1 + blocks * per_block times in all. */
size_t mcps_live_growth_plan(const mcps_live_seq *q, size_t *per_block);
/* 1 + blocks * per_block: the most times q is played. */
size_t mcps_live_growth_reps(const mcps_live_seq *q);

#endif
