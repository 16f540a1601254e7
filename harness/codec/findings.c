/*
 * findings.c - the finding kinds as data; see findings.h.
 */
#include "codec/findings.h"

#include <stddef.h>

typedef struct kind_row {
    const char *name;
    mcps_rule rule;
    const char *reqs;
} kind_row;

#define MCPS_FINDING_ROW_(kind, rule, reqs) [MCPS_FINDING_##kind] = {#kind, MCPS_RULE_##rule, reqs},
static const kind_row kinds[MCPS_FINDING_KIND_COUNT] = {
    [MCPS_FINDING_NOTE] = {"NOTE", MCPS_RULE_COUNT, NULL}, MCPS_FINDING_KINDS(MCPS_FINDING_ROW_)};
#undef MCPS_FINDING_ROW_

static const kind_row *row(mcps_finding_kind kind)
{
    return (unsigned)kind < MCPS_FINDING_KIND_COUNT ? &kinds[kind] : NULL;
}

const char *mcps_finding_kind_reqs(mcps_finding_kind kind)
{
    return row(kind) ? row(kind)->reqs : NULL;
}

mcps_rule mcps_finding_kind_rule(mcps_finding_kind kind)
{
    return row(kind) ? row(kind)->rule : MCPS_RULE_COUNT;
}

const char *mcps_finding_kind_name(mcps_finding_kind kind)
{
    return row(kind) ? row(kind)->name : "?";
}
