/*
 * faults.h - the fault switches of refserver (--fault NAME), one row each.
 *
 * Every mcpspec check is proven against refserver twice: clean, it passes;
 * with the check's fault switched on, it fails. So each fault breaks one
 * requirement (the first ID; further IDs are ones the same wire bytes
 * necessarily break too) and leaves everything else conformant. Adding a
 * fault is one row in its area's faults_<area>.h plus the code that consults
 * rs_fault_on().
 */
#ifndef RS_FAULTS_H
#define RS_FAULTS_H

#include <stdbool.h>
#include <stdio.h>

/* One table from the areas' files, so each area's faults live beside each other. */
#include "faults_afl.h"
#include "faults_content.h"
#include "faults_fuzz.h"
#include "faults_http.h"
#include "faults_session.h"
#include "faults_stateless.h"
#include "faults_stateless_http.h"
#include "faults_tasks.h"
#include "faults_tools.h"
#include "faults_wire.h"

#define RS_FAULT_TABLE(X)                                                                          \
    RS_FAULTS_WIRE(X)                                                                              \
    RS_FAULTS_SESSION(X)                                                                           \
    RS_FAULTS_TASKS(X)                                                                             \
    RS_FAULTS_TOOLS(X)                                                                             \
    RS_FAULTS_CONTENT(X)                                                                           \
    RS_FAULTS_HTTP(X)                                                                              \
    RS_FAULTS_STATELESS(X)                                                                         \
    RS_FAULTS_STATELESS_HTTP(X)                                                                    \
    RS_FAULTS_FUZZ(X)                                                                              \
    RS_FAULTS_AFL(X)

#define RS_FAULT_ENUM(suffix, name, reqs, desc) RS_FAULT_##suffix,
typedef enum rs_fault { RS_FAULT_TABLE(RS_FAULT_ENUM) RS_FAULT_COUNT } rs_fault;
#undef RS_FAULT_ENUM

typedef struct rs_fault_info {
    const char *name;
    const char *reqs; /* space-separated requirement IDs */
    const char *description;
} rs_fault_info;

/* The row of fault f. */
const rs_fault_info *rs_fault_get(rs_fault f);
/* The fault called name; false when there is none. */
bool rs_fault_lookup(const char *name, rs_fault *out);
/* One line per fault: NAME<TAB>REQUIREMENT-IDS<TAB>description. */
void rs_fault_list(FILE *out);

#endif
