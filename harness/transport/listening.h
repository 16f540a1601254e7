/*
 * listening.h - the TCP addresses a process group listens on, read from
 * /proc (Linux): what a server mcpspec starts exposes, which no client sees on
 * the wire (HTTP-004, SSE-006: a local server binds to loopback only).
 */
#ifndef MCPS_TRANSPORT_LISTENING_H
#define MCPS_TRANSPORT_LISTENING_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define MCPS_LISTEN_MAX 16

typedef struct mcps_listening {
    char addr[MCPS_LISTEN_MAX][64]; /* "127.0.0.1:3001", "[::]:3001" */
    bool loopback[MCPS_LISTEN_MAX];
    size_t n; /* kept; more are counted in dropped */
    size_t dropped;
} mcps_listening;

/* Every listening TCP socket of the processes in group pgid; false when /proc
 * cannot be read (then out says nothing). */
bool mcps_listening_scan(pid_t pgid, mcps_listening *out);

/* Whether any address is not loopback (0.0.0.0, ::, or an interface's). */
bool mcps_listening_exposed(const mcps_listening *l);

#endif
