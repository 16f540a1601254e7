/*
 * proofs.h - the faults that prove each check, written beside the check.
 *
 * Every check is proven twice: the reference server passes it, and a named
 * fault (`refserver --fault NAME`) makes it fail. A suite case says which
 * with `proven-by FAULT VERDICT [SUITES...]` lines; the checks built into
 * mcpspec (observe/... rules, discovery/initialize) say it in
 * suites/builtin.proofs, one `CHECK ID... proven-by FAULT VERDICT [SUITES...]`
 * per line, where the IDs are the check's requirements the fault breaks (a
 * case's are on its own `requires` line). `mcpspec list --json` publishes both, and the fault
 * tests, the refserver README's fault table and the orphan test are built from that.
 */
#ifndef MCPS_ENGINE_PROOFS_H
#define MCPS_ENGINE_PROOFS_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/result.h"

typedef struct mcps_proof {
    char *fault;          /* refserver --fault NAME */
    mcps_verdict verdict; /* what the fault earns the check: FAIL, WARN or INFO */
    char **suites;        /* suites to run for it; none: the check's own suite */
    size_t nsuites;
    size_t line; /* where it is written */
} mcps_proof;

/* Parse "FAULT VERDICT [SUITES...]" (text is changed); false with why on bad input. */
bool mcps_proof_parse(char *text, size_t line, mcps_proof *out, char *why, size_t n);
void mcps_proof_free(mcps_proof *p);

/* One line of suites/builtin.proofs. */
typedef struct mcps_builtin_proof {
    char *check;  /* "observe/json-text", "discovery/initialize" */
    char *breaks; /* the check's requirement IDs the fault breaks, space-separated */
    mcps_proof proof;
} mcps_builtin_proof;

typedef struct mcps_builtin_proofs {
    char *file;
    mcps_builtin_proof *items;
    size_t n;
} mcps_builtin_proofs;

/*
 * Load a builtin.proofs file; a missing file is an empty list. Each line must
 * name a built-in check, catalog IDs among its requirements, and for an
 * observe/ line the suites that feed it; on
 * failure err holds "FILE:LINE: what is wrong".
 */
bool mcps_builtin_proofs_load(const char *path, mcps_builtin_proofs *out, char *err, size_t errlen);
void mcps_builtin_proofs_free(mcps_builtin_proofs *p);

#endif
