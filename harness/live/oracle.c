/*
 * oracle.c - from what one execution showed to one outcome and its
 * deduplication signature (oracle, signal or status, sanitizer kind and first
 * frame, observer rule, or the file disclosed): two findings with the same
 * signature are the same bug as far as the fuzzer can tell.
 */
#include "live/oracle.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Observer rules that say a response (or line) from the target is malformed. */
static bool malformed(mcps_finding_kind kind)
{
    switch (mcps_finding_kind_rule(kind)) {
    case MCPS_RULE_JSON_TEXT:
    case MCPS_RULE_UTF8:
    case MCPS_RULE_NO_EMBEDDED_NEWLINE:
    case MCPS_RULE_ENVELOPE:
    case MCPS_RULE_RESULT_XOR_ERROR:
    case MCPS_RULE_ERROR_SHAPE:
    case MCPS_RULE_ERROR_MESSAGE:
        return true;
    default:
        return false;
    }
}

void mcps_live_judge_init(mcps_live_judge *j, mcps_live_outcome *out)
{
    *j = (mcps_live_judge){.out = out};
    *out = (mcps_live_outcome){.oracle = MCPS_LIVE_NONE};
}

void mcps_live_judge_exit(mcps_live_judge *j, const mcps_session *s, size_t at)
{
    mcps_live_judge_exit_status(j, s->exit_code, s->term_signal, at);
}

void mcps_live_judge_exit_status(mcps_live_judge *j, int code, int sig, size_t at)
{
    j->exited = true;
    j->exit_at = at;
    j->exit_code = code;
    j->term_signal = sig;
}

void mcps_live_judge_dropped(mcps_live_judge *j, size_t at, const char *why)
{
    j->dropped = true;
    j->drop_at = at;
    snprintf(j->drop_why, sizeof j->drop_why, "%s", why);
}

void mcps_live_judge_hang(mcps_live_judge *j, size_t at, double seconds)
{
    j->hung = true;
    j->hang_at = at;
    j->hang_seconds = seconds;
}

void mcps_live_judge_server_error(mcps_live_judge *j, size_t at, int status)
{
    if (j->contract)
        return;
    j->contract = true;
    snprintf(j->contract_kind, sizeof j->contract_kind, "http %d", status);
    snprintf(j->contract_msg, sizeof j->contract_msg,
             "input %zu was answered HTTP %d: the server failed while handling it", at + 1, status);
}

void mcps_live_judge_growth(mcps_live_judge *j, const char *kind, size_t at, long from, long to,
                            size_t inputs)
{
    j->growth = true;
    j->growth_kind = kind;
    j->growth_at = at;
    j->growth_from = from;
    j->growth_to = to;
    j->growth_inputs = inputs;
}

/* Add the IDs of reqs to the outcome's list, once each. */
static void add_reqs(mcps_live_outcome *out, const char *reqs)
{
    char word[40];
    for (const char *p = reqs; p && *p;) {
        size_t n = strcspn(p, " ");
        if (n && n < sizeof word) {
            memcpy(word, p, n);
            word[n] = '\0';
            size_t have = strlen(out->reqs);
            bool dup = false;
            for (const char *q = strstr(out->reqs, word); q && !dup; q = strstr(q + 1, word))
                dup = (q == out->reqs || q[-1] == ' ') && (q[n] == ' ' || q[n] == '\0');
            if (!dup && have + n + 2 < sizeof out->reqs)
                snprintf(out->reqs + have, sizeof out->reqs - have, "%s%s", have ? " " : "", word);
        }
        p += n;
        p += strspn(p, " ");
    }
}

void mcps_live_judge_finding(void *ctx, const mcps_finding *f, const char *excerpt)
{
    (void)excerpt;
    mcps_live_judge *j = ctx;
    if (f->dir != MCPS_DIR_FROM_SERVER || !f->reqs)
        return; /* what we sent is malformed on purpose */
    add_reqs(j->out, f->reqs);
    if (!j->contract && malformed(f->kind)) {
        j->contract = true;
        snprintf(j->contract_kind, sizeof j->contract_kind, "%s", mcps_finding_kind_name(f->kind));
        snprintf(j->contract_msg, sizeof j->contract_msg, "%s", f->message);
    }
}

/* Text only those files hold: the traversal probes aim at them, and no input holds it. */
static const struct {
    const char *marker, *file;
} disclosed_files[] = {
    {"root:x:0:0:", "/etc/passwd"},
    {"root:*:0:0:", "/etc/passwd"},
    {"Linux version ", "/proc/version"},
};

#define DISCLOSURE_DEPTH 8 /* result.contents[i].text, with room for a tool's content */

/* The file whose contents some string in v (down to depth) holds, or NULL. */
static const char *disclosed(const cJSON *v, int depth)
{
    if (cJSON_IsString(v)) {
        for (size_t i = 0; i < sizeof disclosed_files / sizeof *disclosed_files; i++)
            if (strstr(v->valuestring, disclosed_files[i].marker))
                return disclosed_files[i].file;
        return NULL;
    }
    const cJSON *child;
    const char *file = NULL;
    if (depth > 0)
        cJSON_ArrayForEach(child, v) if (!file) file = disclosed(child, depth - 1);
    return file;
}

void mcps_live_judge_inbox(mcps_live_judge *j, const mcps_session *s)
{
    mcps_live_judge_inbox_n(j, s, s->ninbox);
}

void mcps_live_judge_inbox_n(mcps_live_judge *j, const mcps_session *s, size_t n)
{
    for (size_t i = 0; i < n && i < s->ninbox && !j->disclosure; i++) {
        if (s->inbox[i].shape != MCPS_SHAPE_RESPONSE)
            continue;
        const cJSON *msg = s->inbox[i].msg;
        const char *file =
            disclosed(cJSON_GetObjectItemCaseSensitive(msg, "result"), DISCLOSURE_DEPTH);
        if (!file)
            continue;
        j->disclosure = true;
        j->disclosed_file = file;
        char *id = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(msg, "id"));
        snprintf(j->disclosure_id, sizeof j->disclosure_id, "%s", id ? id : "null");
        free(id);
    }
}

static const char *const san_headers[] = {
    "ERROR: AddressSanitizer", "ERROR: MemorySanitizer",   "WARNING: MemorySanitizer",
    "ERROR: ThreadSanitizer",  "WARNING: ThreadSanitizer", "ERROR: LeakSanitizer",
    "runtime error:", /* UBSan: "file.c:12:3: runtime error: ..." */
};

/* The function of a stack frame line "    #0 0x4f2a in func file.c:1:2", or NULL. */
static bool frame_function(const char *line, char *out, size_t n)
{
    const char *p = line + strspn(line, " ");
    if (p[0] != '#' || p[1] < '0' || p[1] > '9')
        return false;
    const char *in = strstr(p, " in ");
    if (!in)
        return false;
    in += 4;
    snprintf(out, n, "%.*s", (int)strcspn(in, " "), in);
    return true;
}

static void sanitizer_line(mcps_live_judge *j, const char *line)
{
    if (j->sanitizer) {
        if (!j->san_frame[0])
            frame_function(line, j->san_frame, sizeof j->san_frame);
        return;
    }
    for (size_t i = 0; i < sizeof san_headers / sizeof *san_headers; i++) {
        const char *h = strstr(line, san_headers[i]);
        if (!h)
            continue;
        j->sanitizer = true;
        /* From the header on, without the "==PID==" before it or the addresses after. */
        const char *addr = strstr(h, " 0x");
        snprintf(j->san_header, sizeof j->san_header, "%.*s",
                 (int)(addr ? (size_t)(addr - h) : strlen(h)), h);
        size_t len = strlen(j->san_header);
        static const char tail[] = " on address"; /* "... on address 0x..." without the address */
        if (len >= sizeof tail - 1 && strcmp(j->san_header + len - (sizeof tail - 1), tail) == 0)
            j->san_header[len -= sizeof tail - 1] = '\0';
        while (len && (j->san_header[len - 1] == ' ' || j->san_header[len - 1] == ':'))
            j->san_header[--len] = '\0';
        return;
    }
}

void mcps_live_judge_stderr(mcps_live_judge *j, const mcps_session *s)
{
    for (size_t i = 0; i < s->nwire; i++)
        if (s->wire[i].dir == MCPS_WIRE_STDERR && s->wire[i].bytes)
            sanitizer_line(j, s->wire[i].bytes);
}

void mcps_live_judge_output(mcps_live_judge *j, const char *text)
{
    char line[512];
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        sanitizer_line(j, line);
        p += n;
        p += *p == '\n';
    }
}

static void set(mcps_live_outcome *o, mcps_live_oracle oracle, size_t at)
{
    o->oracle = oracle;
    o->at = at;
}

static void exit_words(const mcps_live_judge *j, char *out, size_t n)
{
    if (j->term_signal)
        snprintf(out, n, "was killed by signal %d (%s)", j->term_signal, strsignal(j->term_signal));
    else
        snprintf(out, n, "exited with status %d", j->exit_code);
}

void mcps_live_judge_done(mcps_live_judge *j)
{
    mcps_live_outcome *o = j->out;
    char how[120];
    exit_words(j, how, sizeof how);
    if (j->sanitizer) {
        set(o, MCPS_LIVE_SANITIZER, j->exited ? j->exit_at : 0);
        snprintf(o->evidence, sizeof o->evidence, "%.180s%s%.100s", j->san_header,
                 j->san_frame[0] ? " in " : "", j->san_frame);
        snprintf(o->signature, sizeof o->signature, "sanitizer %.120s %.60s", j->san_header,
                 j->san_frame);
    } else if (j->exited) {
        set(o, MCPS_LIVE_CRASH, j->exit_at);
        snprintf(o->evidence, sizeof o->evidence, "the target %s after input %zu", how,
                 j->exit_at + 1);
        snprintf(o->signature, sizeof o->signature, "crash %s %d",
                 j->term_signal ? "signal" : "status",
                 j->term_signal ? j->term_signal : j->exit_code);
    } else if (j->dropped) {
        set(o, MCPS_LIVE_CRASH, j->drop_at);
        snprintf(o->evidence, sizeof o->evidence,
                 "the server dropped the ping after input %zu: %.200s", j->drop_at + 1,
                 j->drop_why);
        /* Whether the answer was a 404 or a stream cut short depends on timing: not part of it. */
        snprintf(o->signature, sizeof o->signature, "crash http dropped");
    } else if (j->hung) {
        set(o, MCPS_LIVE_HANG, j->hang_at);
        snprintf(o->evidence, sizeof o->evidence,
                 "the target did not answer the ping after input %zu within %g s", j->hang_at + 1,
                 j->hang_seconds);
        snprintf(o->signature, sizeof o->signature, "hang");
    } else if (j->disclosure) {
        set(o, MCPS_LIVE_DISCLOSURE, j->disclosure_at);
        snprintf(o->evidence, sizeof o->evidence,
                 "the answer to input %zu holds the contents of %s (a path traversal)",
                 j->disclosure_at + 1, j->disclosed_file);
        snprintf(o->signature, sizeof o->signature, "disclosure %s", j->disclosed_file);
    } else if (j->contract) {
        set(o, MCPS_LIVE_CONTRACT, 0);
        snprintf(o->evidence, sizeof o->evidence, "%s", j->contract_msg);
        snprintf(o->signature, sizeof o->signature, "contract %s", j->contract_kind);
    } else if (j->growth) {
        set(o, MCPS_LIVE_GROWTH, j->growth_at);
        bool fds = strcmp(j->growth_kind, "fds") == 0;
        snprintf(o->evidence, sizeof o->evidence,
                 fds ? "open descriptors grew from %ld to %ld over %zu inputs"
                     : "resident memory grew from %ld KiB to %ld KiB over %zu inputs",
                 j->growth_from, j->growth_to, j->growth_inputs);
        snprintf(o->signature, sizeof o->signature, "growth %s", j->growth_kind);
    }
}

const char *mcps_live_oracle_name(mcps_live_oracle o)
{
    static const char *const names[] = {"none",     "crash",  "hang",      "sanitizer",
                                        "contract", "growth", "disclosure"};
    return o >= MCPS_LIVE_NONE && o <= MCPS_LIVE_DISCLOSURE ? names[o] : "none";
}

mcps_live_oracle mcps_live_oracle_parse(const char *name)
{
    for (int o = MCPS_LIVE_CRASH; o <= MCPS_LIVE_DISCLOSURE; o++)
        if (name && strcmp(name, mcps_live_oracle_name((mcps_live_oracle)o)) == 0)
            return (mcps_live_oracle)o;
    return MCPS_LIVE_NONE;
}
