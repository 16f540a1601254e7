/*
 * host.h - a server process mcpspec starts and the HTTP transport then talks
 * to (`--server CMD --url URL`): run like a stdio target (its own process
 * group, known to the guard's watchdog, stopped with SIGTERM then SIGKILL and
 * reaped, leftovers killed), but nobody speaks over its pipes. Its stdin is
 * closed at once; a thread drains its stdout and stderr continuously and
 * keeps only their last 16 KiB, so a server that floods its output neither
 * blocks nor grows our memory, and the tail is there for the report when the
 * server dies.
 */
#ifndef MCPS_TRANSPORT_HOST_H
#define MCPS_TRANSPORT_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "transport/transport.h"

#define MCPS_HOST_KEEP (16 * 1024) /* output bytes kept */

typedef struct mcps_host mcps_host;

/* Start cfg->argv (cwd, env_extra, guard, term_grace as for stdio); NULL with err filled. */
mcps_host *mcps_host_start(const mcps_target_config *cfg, char *err, size_t errlen);
/* Start it and wait, in short slices until probe_timeout, until cfg->url accepts connections;
 * NULL with why filled (how it ended, or that it did not listen, and its last output). */
mcps_host *mcps_host_start_listening(const mcps_target_config *cfg, double probe_timeout, char *why,
                                     size_t n);
/* Whether the server is still running (reaps it when it has exited). */
bool mcps_host_alive(mcps_host *h);
/* Its process id (and group), or -1. */
pid_t mcps_host_pid(const mcps_host *h);
/*
 * The last MCPS_HOST_KEEP bytes of its stdout and stderr, interleaved as they
 * were read, NUL-terminated, malloc'd (the caller frees it; NULL when out of
 * memory). Preceded by a note when earlier bytes were dropped.
 */
char *mcps_host_output(mcps_host *h);
/* Once it has exited (reaped): true, with its exit status or the signal that killed it. */
bool mcps_host_exit_fields(mcps_host *h, int *code, int *sig);
/* A sentence on how it ended ("exited with status 1"), once it has. */
void mcps_host_describe_exit(mcps_host *h, char *out, size_t n);
/*
 * Stop it: SIGTERM its group, wait term_grace (0.1 s once the run is
 * stopped), SIGKILL, reap, kill leftovers of its group. how is
 * MCPS_SHUT_EXITED_BEFORE when it had exited already. Idempotent.
 */
void mcps_host_stop(mcps_host *h, mcps_shutdown_report *report);
/* Stops it first if needed. */
void mcps_host_free(mcps_host *h);

#endif
