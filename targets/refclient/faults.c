/*
 * faults.c - refclient's fault table as data: lookup by name and --list-faults.
 */
#include "faults.h"

#include <string.h>

typedef struct rc_fault_info {
    const char *name, *reqs, *check, *description;
} rc_fault_info;

#define RC_FAULT_ROW(suffix, name, reqs, check, desc) {name, reqs, check, desc},
static const rc_fault_info rc_faults[RC_FAULT_COUNT] = {RC_FAULT_TABLE(RC_FAULT_ROW)};
#undef RC_FAULT_ROW

bool rc_fault_lookup(const char *name, rc_fault *out)
{
    for (int i = 0; i < RC_FAULT_COUNT; i++)
        if (strcmp(rc_faults[i].name, name) == 0) {
            *out = (rc_fault)i;
            return true;
        }
    return false;
}

void rc_fault_list(FILE *out)
{
    for (int i = 0; i < RC_FAULT_COUNT; i++)
        fprintf(out, "%s\t%s\t%s\t%s\n", rc_faults[i].name, rc_faults[i].reqs, rc_faults[i].check,
                rc_faults[i].description);
}
