/*
 * traverse.h - the traversal judge: does a URI reach outside a root directory
 * under any way a server might plausibly turn it into a path? Plus a generator
 * of labelled probe URIs that try to.
 *
 * MCP servers that serve file:// resources must keep reads inside their scope
 * (RES-010, RES-017). Servers differ in how they map a URI to a path, so the
 * judge tries every "decoding" below, alone and combined, and reports the
 * simplest one that escapes. It is purely lexical: it never touches the
 * filesystem, so symlinks, bind mounts and case-insensitive filesystems are
 * out of its sight; ".." is resolved by name, as POSIX does for "/..".
 *
 * Model, for each decoding D: take the URI's path (or, with RAW, its whole
 * text), apply D, split on '/', resolve "." and ".." lexically (".." at "/"
 * stays at "/"; empty segments vanish), and join a relative result to the
 * root; when the root's own text reads as relative under D (RAW on a
 * "file://host/..." root), both are resolved from the same base instead.
 * The root URI's path goes through the same D, so a root written with %20 is
 * compared with candidates as that server would see both. A candidate escapes
 * under D when its result is neither the root nor below it; "/rootx" is not
 * below "/root". A candidate with another scheme, or another host (file:
 * treats "" and "localhost" as the same), escapes under every D.
 */
#ifndef MCPS_URI_TRAVERSE_H
#define MCPS_URI_TRAVERSE_H

#include "uri/uri.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum mcps_traverse_verdict {
    MCPS_TRAVERSE_INSIDE,  /* no decoding leaves the root */
    MCPS_TRAVERSE_ESCAPES, /* some decoding leaves the root */
    MCPS_TRAVERSE_INVALID, /* root or candidate unusable (reason says why) */
} mcps_traverse_verdict;

/* Decodings, combined with |. 0 takes the URI path bytes as the file path.
 * Hex digits are case-insensitive in every decoding, so %2E%2e is covered by
 * PCT1; invalid '%' sequences are left as they are (lenient, as servers are). */
#define MCPS_TRAVERSE_PCT1      0x001u /* percent-decode once; %2F and %5C stay as text */
#define MCPS_TRAVERSE_PCT2      0x002u /* percent-decode twice (%252e -> %2e -> .) */
#define MCPS_TRAVERSE_SEP       0x004u /* with PCT1/PCT2: %2F and %5C decode to '/' and '\' */
#define MCPS_TRAVERSE_OVERLONG  0x008u /* after any decoding, overlong UTF-8 (C0 AE) is ASCII */
#define MCPS_TRAVERSE_BACKSLASH 0x010u /* '\' separates segments, as on Windows */
#define MCPS_TRAVERSE_NUL       0x020u /* the path ends at the first NUL, as in C */
#define MCPS_TRAVERSE_STRIP     0x040u /* a naive sanitizer deletes "../" once, left to right */
#define MCPS_TRAVERSE_ABSJOIN   0x080u /* root + "//x" is "/x": os.path.join(root, "/x") */
/* No URI parsing: all text after "file://" (or after the authority) is the
 * path, '?' and '#' included, as in uri.removeprefix("file://"). */
#define MCPS_TRAVERSE_RAW 0x100u

/* Longest resolved path kept in a result; longer ones end in "...". */
#define MCPS_TRAVERSE_PATH_MAX 512

typedef struct mcps_traverse_result {
    mcps_traverse_verdict verdict;
    unsigned decoding;   /* ESCAPES: the simplest decoding that escaped (0 = none) */
    bool rfc3986_valid;  /* the candidate is a valid RFC 3986 URI */
    size_t error_offset; /* INVALID: byte offset in the rejected input */
    /* The resolved path under `decoding` (ESCAPES) or one percent-decode
     * (INSIDE); control bytes shown as %HH. Empty for INVALID. */
    char path[MCPS_TRAVERSE_PATH_MAX];
    char reason[256]; /* one sentence for the report */
} mcps_traverse_result;

/*
 * Judge uri against root. root is a URI with an absolute path (file:///srv/data,
 * or another scheme such as mem://host/docs) or an absolute local path
 * (/srv/data). The candidate need not be valid RFC 3986 (raw '\' or spaces are
 * judged too; see rfc3986_valid) but must start with a scheme. Always fills out.
 */
mcps_traverse_verdict mcps_traverse_judge(const char *root, size_t root_len, const char *uri,
                                          size_t uri_len, mcps_traverse_result *out);

/* Names a decoding for reports, e.g. "pct1+sep+nul" or "none"; returns buf. */
const char *mcps_traverse_decoding_name(unsigned decoding, char *buf, size_t size);

typedef struct mcps_traverse_probe {
    char *uri; /* malloc'd, NUL-terminated; owned by the list */
    size_t len;
    const char *trick; /* static label such as "double-pct-all" */
} mcps_traverse_probe;

typedef struct mcps_traverse_probes {
    mcps_traverse_probe *items;
    size_t count;
} mcps_traverse_probes;

/* Most ".." repetitions a probe uses; deeper anchors still escape their own directory. */
#define MCPS_TRAVERSE_MAX_UPS 32

/*
 * Deterministic probes that try to leave the anchor's directory: the anchor's
 * path if it ends in '/', otherwise the path without its last segment (so pass
 * a root as "file:///srv/data/", or any listed resource URI). Each probe aims
 * at /etc/passwd (at /proc/version when the directory is under /etc/) with
 * enough ".." to reach "/", and is labelled with its trick.
 * The anchor must be a valid URI with an absolute path; its query and fragment
 * are dropped. Fills out (free with mcps_traverse_probes_free); false with err
 * on a bad anchor or allocation failure.
 */
bool mcps_traverse_make_probes(const char *anchor, size_t len, mcps_traverse_probes *out,
                               mcps_uri_error *err);
void mcps_traverse_probes_free(mcps_traverse_probes *p);

#endif
