/*
 * uri.h - strict RFC 3986 URI references: parse, validate, normalize, resolve,
 * recompose, and map RFC 8089 file URIs to local paths and back.
 *
 * Every URI a target server names (resource lists, reads, templates) is judged
 * here, so the parser accepts exactly the RFC 3986 grammar and nothing more:
 * no spaces, no raw non-ASCII (IRIs are not URIs), '%' only as %HH, ports only
 * digits, IP literals only as IPv6 or IPvFuture (no RFC 6874 zone ids).
 *
 * All functions take (pointer, length), need no NUL terminator, make a single
 * pass without recursion and never read outside the given bytes. Errors carry
 * the byte offset where the input stopped being acceptable and a reason.
 */
#ifndef MCPS_URI_URI_H
#define MCPS_URI_URI_H

#include <stdbool.h>
#include <stddef.h>

/* A component viewed in place; ptr is NULL when the component is absent,
 * which differs from present-but-empty ("http://a?" has an empty query). */
typedef struct mcps_uri_part {
    const char *ptr;
    size_t len;
} mcps_uri_part;

typedef enum mcps_uri_host_kind {
    MCPS_URI_HOST_NONE,      /* no authority */
    MCPS_URI_HOST_REG_NAME,  /* registered name, possibly empty */
    MCPS_URI_HOST_IPV4,      /* dotted decimal, no leading zeros */
    MCPS_URI_HOST_IPV6,      /* "[...]"; host excludes the brackets */
    MCPS_URI_HOST_IPVFUTURE, /* "[v1.x]"; host excludes the brackets */
} mcps_uri_host_kind;

/* A parsed URI reference. All parts point into the parsed input, which must
 * outlive this struct. authority covers userinfo, host and port together;
 * recomposition uses authority, the split parts are for callers. */
typedef struct mcps_uri {
    mcps_uri_part scheme;
    mcps_uri_part authority;
    mcps_uri_part userinfo;
    mcps_uri_part host;
    mcps_uri_part port;
    mcps_uri_host_kind host_kind;
    mcps_uri_part path; /* never absent, may be empty */
    mcps_uri_part query;
    mcps_uri_part fragment;
} mcps_uri;

typedef struct mcps_uri_error {
    size_t offset;   /* byte offset into the offending input */
    char reason[96]; /* for a person; empty on success */
} mcps_uri_error;

/* Normalization flag (RFC 3986 section 6.2.3): for http, https, ws and wss,
 * drop an empty or default port and turn an empty path into "/". */
#define MCPS_URI_NORM_SCHEME_BASED 1u

/* Parse a URI-reference (absolute URI or relative reference). err may be NULL. */
bool mcps_uri_parse(const char *s, size_t len, mcps_uri *out, mcps_uri_error *err);

/*
 * The first index from i (up to len) holding one of the bytes in stops: the
 * component boundaries of RFC 3986 appendix B ("/?#" ends an authority, "?#"
 * a path). A NUL byte is an ordinary byte, not the end.
 */
size_t mcps_uri_scan_until(const char *s, size_t i, size_t len, const char *stops);

/* True when s is a URI in the RFC sense: a reference that has a scheme. */
bool mcps_uri_validate(const char *s, size_t len, mcps_uri_error *err);

/* Character classes of RFC 3986 section 2.2 and 2.3. */
bool mcps_uri_is_unreserved(unsigned char c);
bool mcps_uri_is_reserved(unsigned char c);

/*
 * Section 5.3: join the parts back into a reference. Paths that would change
 * meaning are guarded: without an authority a path starting with "//" gets a
 * "/." prefix, and a relative path whose first segment holds ':' gets "./".
 * Returns a malloc'd NUL-terminated string (caller frees), NULL on allocation
 * failure; *out_len (may be NULL) receives the length.
 */
char *mcps_uri_recompose(const mcps_uri *u, size_t *out_len);

/*
 * Section 6.2.2 syntax-based normalization: lowercase scheme and host,
 * uppercase the hex of percent-encodings, decode percent-encoded unreserved
 * characters, and (for references with a scheme) remove dot segments; a
 * relative reference keeps its dot segments, which mean something until it is
 * resolved. flags may add MCPS_URI_NORM_SCHEME_BASED. Returns a malloc'd
 * string, or NULL with err set when s is not a URI reference.
 */
char *mcps_uri_normalize(const char *s, size_t len, unsigned flags, size_t *out_len,
                         mcps_uri_error *err);

/*
 * Section 5.2 strict reference resolution of ref against base. base must have
 * a scheme (its fragment is ignored). Returns a malloc'd string, or NULL with
 * err set (err->offset then refers to whichever input was rejected, named in
 * the reason).
 */
char *mcps_uri_resolve(const char *base, size_t base_len, const char *ref, size_t ref_len,
                       size_t *out_len, mcps_uri_error *err);

/* Section 5.2.4 remove_dot_segments on a path. Returns a malloc'd string, NULL on oom. */
char *mcps_uri_remove_dot_segments(const char *path, size_t len, size_t *out_len);

/*
 * RFC 8089 file URI to absolute local path: accepts file:///p, file://localhost/p
 * and file:/p (scheme and host case-insensitive), percent-decodes the path and
 * drops a fragment. Rejects other hosts, userinfo, ports, queries, relative
 * paths, a decoded NUL (%00) and an encoded '/' (%2F) inside a segment. The
 * result may contain any byte but NUL. Returns a malloc'd string or NULL with err.
 */
char *mcps_uri_file_to_path(const char *s, size_t len, size_t *out_len, mcps_uri_error *err);

/*
 * Absolute local path to "file:///..." URI: keeps unreserved, sub-delims, ':',
 * '@' and '/', percent-encodes every other byte. Rejects relative paths and
 * NUL bytes. Returns a malloc'd string or NULL with err.
 */
char *mcps_uri_file_from_path(const char *path, size_t len, size_t *out_len, mcps_uri_error *err);

#endif
