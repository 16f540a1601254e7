/*
 * kind.c - the names of the transports, as suites, options and reports
 * write them; one table, so that they cannot drift apart.
 */
#include "transport/transport.h"

#include <string.h>

static const char *const NAMES[] = {"stdio", "streamable-http", "sse"};

const char *mcps_transport_kind_name(mcps_transport_kind kind)
{
    return (unsigned)kind < sizeof NAMES / sizeof *NAMES ? NAMES[kind] : "?";
}

bool mcps_transport_kind_parse(const char *name, mcps_transport_kind *out)
{
    for (unsigned k = 0; k < sizeof NAMES / sizeof *NAMES; k++)
        if (strcmp(name, NAMES[k]) == 0) {
            *out = (mcps_transport_kind)k;
            return true;
        }
    return false;
}
