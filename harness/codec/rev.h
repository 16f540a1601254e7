/*
 * rev.h - MCP protocol revisions, the axis every check is graded along.
 *
 * The four handshake-era revisions negotiate with `initialize`; 2026-07-28 is
 * stateless and has no handshake. Sets of revisions are bit masks so suites
 * and requirements can say "2025-03-26+" cheaply.
 */
#ifndef MCPS_CODEC_REV_H
#define MCPS_CODEC_REV_H

#include <stdbool.h>

typedef enum mcps_rev {
    MCPS_REV_NONE = -1, /* unknown or not negotiated */
    MCPS_REV_2024_11_05 = 0,
    MCPS_REV_2025_03_26,
    MCPS_REV_2025_06_18,
    MCPS_REV_2025_11_25,
    MCPS_REV_2026_07_28,
    MCPS_REV_COUNT
} mcps_rev;

typedef unsigned mcps_rev_set; /* bit (1u << rev) per revision */

#define MCPS_REV_BIT(r)        (1u << (unsigned)(r))
#define MCPS_REV_ALL           ((1u << MCPS_REV_COUNT) - 1)
#define MCPS_REV_HANDSHAKE_ERA (MCPS_REV_ALL & ~MCPS_REV_BIT(MCPS_REV_2026_07_28))

/* "2025-06-18" for MCPS_REV_2025_06_18; "none" for MCPS_REV_NONE. */
const char *mcps_rev_name(mcps_rev rev);
/* The revision named by s, or MCPS_REV_NONE. */
mcps_rev mcps_rev_parse(const char *s);
bool mcps_rev_is_handshake(mcps_rev rev);
/*
 * Parse the catalog's version notation: "all", "X+", "X..Y", or a comma list
 * ("2024-11-05, 2025-03-26"). Returns false on anything else.
 */
bool mcps_rev_set_parse(const char *s, mcps_rev_set *out);
bool mcps_rev_set_has(mcps_rev_set set, mcps_rev rev);

#endif
