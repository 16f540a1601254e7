/*
 * faults.c - the fault table as data: lookup by name and --list-faults.
 */
#include "faults.h"

#include <string.h>

#define RS_FAULT_ROW(suffix, name, reqs, desc) {name, reqs, desc},
static const rs_fault_info rs_faults[RS_FAULT_COUNT] = {RS_FAULT_TABLE(RS_FAULT_ROW)};
#undef RS_FAULT_ROW

const rs_fault_info *rs_fault_get(rs_fault f)
{
    return &rs_faults[f];
}

bool rs_fault_lookup(const char *name, rs_fault *out)
{
    for (int i = 0; i < RS_FAULT_COUNT; i++) {
        if (strcmp(rs_faults[i].name, name) == 0) {
            *out = (rs_fault)i;
            return true;
        }
    }
    return false;
}

void rs_fault_list(FILE *out)
{
    for (int i = 0; i < RS_FAULT_COUNT; i++)
        fprintf(out, "%s\t%s\t%s\n", rs_faults[i].name, rs_faults[i].reqs,
                rs_faults[i].description);
}
