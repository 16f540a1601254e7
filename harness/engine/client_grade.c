/*
 * client_grade.c - how a client check says its verdict (client_internal.h):
 * PASS, INFO or SKIP with what it saw, or a broken requirement graded by the
 * level the catalog gives it in the revision judged. One copy for every
 * table of client checks (client_cases*.c).
 */
#include "engine/client_cases.h"

#include <stdarg.h>

static void say(mcps_client_grade *g, mcps_verdict v, mcps_buf *into, const char *fmt, va_list ap)
{
    g->verdict = v;
    mcps_buf_clear(into);
    mcps_buf_vprintf(into, fmt, ap);
}

int mcps_client_pass(mcps_client_grade *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(g, MCPS_VERDICT_PASS, &g->observed, fmt, ap);
    va_end(ap);
    return 0;
}

int mcps_client_info(mcps_client_grade *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(g, MCPS_VERDICT_INFO, &g->observed, fmt, ap);
    va_end(ap);
    return 0;
}

int mcps_client_skip(mcps_client_grade *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(g, MCPS_VERDICT_SKIP, &g->reason, fmt, ap);
    va_end(ap);
    return 0;
}

int mcps_client_broke(mcps_client_grade *g, const char *ids, const char *fmt, ...)
{
    va_list ap;
    mcps_level level = MCPS_LEVEL_MUST;
    mcps_catalog_level_of(ids, g->rev, &level);
    g->broken = ids;
    va_start(ap, fmt);
    say(g, mcps_verdict_for_level(level), &g->observed, fmt, ap);
    va_end(ap);
    return 0;
}
