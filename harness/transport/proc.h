/*
 * proc.h - start, watch, signal and reap one target process (stdio transport).
 *
 * The process runs in its own process group (pgid == pid) so that shutdown can
 * signal everything it started. Exit is watched through a pidfd when the
 * kernel has one, otherwise by polling waitpid(WNOHANG); there is no SIGCHLD
 * handler and no global state, so any number of targets can run in one
 * process, on any threads.
 */
#ifndef MCPS_TRANSPORT_PROC_H
#define MCPS_TRANSPORT_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "transport/transport.h"

typedef struct mcps_proc {
    pid_t pid;  /* also its process group id */
    int pidfd;  /* readable once it exits; -1 when unavailable or after reaping */
    int in_fd;  /* our ends of its stdin, stdout and stderr: non-blocking, close-on-exec; */
    int out_fd; /* -1 once closed */
    int err_fd;
    bool reaped;
    bool status_lost; /* reaped, but by someone else (SIGCHLD ignored): status unknown */
    int status;       /* waitpid status, when reaped and not lost */
    int64_t reaped_ms;
} mcps_proc;

/* Start cfg->argv; false with err filled ("cannot run 'foo': ...") on failure. */
bool mcps_proc_spawn(mcps_proc *p, const mcps_target_config *cfg, char *err, size_t errlen);
/* Collect its exit status without blocking; true once it has been reaped. */
bool mcps_proc_try_reap(mcps_proc *p);
/* Signal its whole process group. */
void mcps_proc_signal_group(const mcps_proc *p, int sig);
/*
 * After the leader is gone: reap group members that became our children (when
 * we are a subreaper), SIGKILL whatever is still alive, and wait until
 * deadline_ms for the group to disappear. True when something was killed.
 */
bool mcps_proc_kill_leftovers(mcps_proc *p, int64_t deadline_ms);
/* Its exit status, once reaped: code (-1 when killed or unknown) and signal (0 when none). */
void mcps_proc_exit_fields(const mcps_proc *p, int *code, int *sig);
/* "WHO exited with status 1", "WHO killed by signal 9 (Killed)", ... */
void mcps_proc_describe_exit(const mcps_proc *p, const char *who, char *out, size_t n);
/*
 * The end of a shutdown that began at start_ms and ended the way how says:
 * how long it took, the rest of the group killed, the watchdog told, the
 * exit status; filled into report.
 */
void mcps_proc_finish_shutdown(mcps_proc *p, const mcps_guard *guard, int64_t start_ms,
                               mcps_shutdown_how how, mcps_shutdown_report *report);

/* Close every descriptor still open. */
void mcps_proc_close_fds(mcps_proc *p);
void mcps_proc_close_fd(int *fd);

#endif
