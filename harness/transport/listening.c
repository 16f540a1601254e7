/*
 * listening.c - which TCP addresses a process group listens on; see
 * listening.h.
 *
 * Two passes over /proc: the socket inodes open in the group's processes
 * (/proc/PID/fd links "socket:[INODE]"), then the LISTEN rows of
 * /proc/net/tcp and tcp6 with those inodes. Both are bounded, so a server
 * with many descriptors costs a bounded scan.
 */
#include "transport/listening.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_INODES 4096
#define TCP_LISTEN 0x0A /* the state column of /proc/net/tcp */

typedef struct inode_set {
    unsigned long v[MAX_INODES];
    size_t n;
} inode_set;

static bool in_group(const char *pid, pid_t pgid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *after = strrchr(buf, ')'); /* the command name may hold anything */
    long group;
    return after && sscanf(after + 1, " %*c %*d %ld", &group) == 1 && group == (long)pgid;
}

static void add_sockets(const char *pid, inode_set *s)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%s/fd", pid);
    DIR *d = opendir(path);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d)) && s->n < MAX_INODES;) {
        char link[sizeof path + sizeof e->d_name + 2], target[64];
        snprintf(link, sizeof link, "%s/%s", path, e->d_name);
        ssize_t len = readlink(link, target, sizeof target - 1);
        if (len <= 0)
            continue;
        target[len] = '\0';
        unsigned long inode;
        if (sscanf(target, "socket:[%lu]", &inode) == 1)
            s->v[s->n++] = inode;
    }
    closedir(d);
}

static bool collect_inodes(pid_t pgid, inode_set *s)
{
    DIR *d = opendir("/proc");
    if (!d)
        return false;
    for (struct dirent *e; (e = readdir(d));)
        if (isdigit((unsigned char)e->d_name[0]) && in_group(e->d_name, pgid))
            add_sockets(e->d_name, s);
    closedir(d);
    return true;
}

static bool has_inode(const inode_set *s, unsigned long inode)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] == inode)
            return true;
    return false;
}

/* /proc prints each 32-bit word of the address in host order, as 8 hex digits. */
static bool decode(const char *hex, bool v6, unsigned port, char *out, size_t n, bool *loopback)
{
    unsigned char raw[16];
    size_t words = v6 ? 4 : 1;
    if (strlen(hex) != words * 8)
        return false;
    for (size_t w = 0; w < words; w++) {
        char part[9];
        memcpy(part, hex + 8 * w, 8);
        part[8] = '\0';
        uint32_t word = (uint32_t)strtoul(part, NULL, 16);
        memcpy(raw + 4 * w, &word, 4);
    }
    char text[INET6_ADDRSTRLEN];
    if (!inet_ntop(v6 ? AF_INET6 : AF_INET, raw, text, sizeof text))
        return false;
    static const unsigned char v6_loop[16] = {[15] = 1};
    static const unsigned char mapped[12] = {[10] = 0xff, [11] = 0xff};
    *loopback =
        v6 ? memcmp(raw, v6_loop, 16) == 0 || (memcmp(raw, mapped, 12) == 0 && raw[12] == 127)
           : raw[0] == 127;
    snprintf(out, n, v6 ? "[%s]:%u" : "%s:%u", text, port);
    return true;
}

static void scan_table(const char *path, bool v6, const inode_set *s, mcps_listening *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512];
    if (!fgets(line, sizeof line, f)) { /* the header */
        fclose(f);
        return;
    }
    while (fgets(line, sizeof line, f)) {
        char hex[40];
        unsigned port, state;
        unsigned long inode;
        if (sscanf(line, " %*d: %39[0-9A-Fa-f]:%x %*s %x %*s %*s %*s %*d %*d %lu", hex, &port,
                   &state, &inode) != 4 ||
            state != TCP_LISTEN || !has_inode(s, inode))
            continue;
        if (out->n == MCPS_LISTEN_MAX) {
            out->dropped++;
            continue;
        }
        if (decode(hex, v6, port, out->addr[out->n], sizeof out->addr[0], &out->loopback[out->n]))
            out->n++;
    }
    fclose(f);
}

bool mcps_listening_scan(pid_t pgid, mcps_listening *out)
{
    *out = (mcps_listening){0};
    inode_set *s = calloc(1, sizeof *s);
    bool ok = s && pgid > 0 && collect_inodes(pgid, s);
    if (ok) {
        scan_table("/proc/net/tcp", false, s, out);
        scan_table("/proc/net/tcp6", true, s, out);
    }
    free(s);
    return ok;
}

bool mcps_listening_exposed(const mcps_listening *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (!l->loopback[i])
            return true;
    return false;
}
