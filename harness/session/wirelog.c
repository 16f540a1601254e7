/*
 * wirelog.c - names for the wire log's directions; see wirelog.h.
 */
#include "session/wirelog.h"

const char *mcps_wire_dir_name(mcps_wire_dir d)
{
    static const char *const names[] = {"sent", "received", "stderr", "event", "http"};
    return d <= MCPS_WIRE_HTTP ? names[d] : "?";
}
