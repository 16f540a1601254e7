/*
 * finding.c - finding files: written so the suite loader accepts them as
 * they are, read back by `mcpspec replay` from their `--> raw` lines alone.
 */
#include "live/finding.h"

#include "base/buf.h"
#include "base/file.h"
#include "base/hex.h"
#include "live/exec.h"
#include "live/growth.h"
#include "live/minimize.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FINDING_FILE ((size_t)64 * 1024 * 1024)

/* Bytes as a `--> raw` line spells them: printable ASCII as is, but '\' and '$' (a
 * variable), edge spaces (trimmed by the loader) and every other byte as \xHH. */
static void escape_raw(mcps_buf *b, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        bool edge = c == ' ' && (i == 0 || i + 1 == len);
        if (c == '\\')
            mcps_buf_puts(b, "\\\\");
        else if (c < 0x20 || c >= 0x7f || c == '$' || edge)
            mcps_buf_printf(b, "\\x%02x", c);
        else
            mcps_buf_putc(b, (char)c);
    }
}

/* The header: how it was found, in comments. */
static void header(mcps_buf *b, const mcps_live_finding *f, const mcps_live_finding_meta *m)
{
    const mcps_live_outcome *o = &f->outcome;
    mcps_buf_printf(b, "# mcpspec fuzz finding %s: %s\n", f->name, o->evidence);
    mcps_buf_printf(b, "# oracle: %s\n# signature: %s\n", mcps_live_oracle_name(o->oracle),
                    o->signature);
    mcps_buf_printf(b, "# seed: %llu\n# sequence: %llu\n", (unsigned long long)f->seed,
                    (unsigned long long)f->sequence);
    mcps_buf_printf(b, "# revision: %s\n# command: %s\n", m->revision, m->command);
    mcps_buf_printf(b, "# inputs: %zu (minimized from %zu%s)\n", f->inputs.n, f->original,
                    f->reproduced ? ""
                                  : "; not reproduced on a fresh process, or no time left to try");
    if (f->history_inputs)
        mcps_buf_printf(b,
                        "# history: it reproduced from %zu inputs of its process's history, over "
                        "the\n# %u MiB a finding keeps: these are its own sequence's; the seed "
                        "and command\n# above make the history again.\n",
                        f->history_inputs, MCPS_LIVE_KEEP_BYTES >> 20);
    if (o->reqs[0])
        mcps_buf_printf(b, "# observer: %s\n", o->reqs);
    if (o->oracle == MCPS_LIVE_GROWTH)
        mcps_buf_printf(b,
                        "# growth: replay plays these inputs %zu times on a fresh process (the "
                        "first\n# pass warms up, the growth is measured over the others); as a "
                        "suite case\n# they run once, which shows no growth.\n",
                        mcps_live_growth_reps(&f->inputs));
    if (o->oracle == MCPS_LIVE_DISCLOSURE)
        mcps_buf_puts(b, "# disclosure: replay judges the target's answers; as a suite case the "
                         "inputs\n# pass (the case judges liveness only).\n");
    mcps_buf_puts(b, "# Replay: mcpspec replay FILE --server CMD, or --url URL [--server CMD] "
                     "(exit 1: it reproduces).\n"
                     "# To keep it as a regression case, move it into a suites folder and add a\n"
                     "# proven-by line (suites/README.md).\n");
}

/* As exec.c plays it: initialize, or in 2026-07-28 server/discover (the run stamps its _meta). */
static void prefix(mcps_buf *b, const char *revision)
{
    if (!mcps_rev_is_handshake(mcps_rev_parse(revision))) {
        mcps_buf_puts(
            b, "--> {\"jsonrpc\":\"2.0\",\"id\":\"live-init\",\"method\":\"server/discover\"}\n"
               "<-- {\"id\":\"live-init\",\"result\":\"$object\"}\n");
        return;
    }
    mcps_buf_printf(b,
                    "--> {\"jsonrpc\":\"2.0\",\"id\":\"live-init\",\"method\":\"initialize\","
                    "\"params\":{\"protocolVersion\":\"%s\",\"capabilities\":{},"
                    "\"clientInfo\":{\"name\":\"mcpspec-fuzz\",\"version\":\"%s\"}}}\n",
                    revision, MCPS_VERSION);
    mcps_buf_puts(b, "<-- {\"id\":\"live-init\",\"result\":\"$object\"}\n");
    mcps_buf_puts(b, "--> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
}

/* An input: `--> raw BYTES`, or with headers of its own the `--> http` step that sends it
 * (headers.h keeps such bodies to UTF-8 a JSON string can hold). */
static void input_line(mcps_buf *b, const mcps_live_input *in)
{
    if (!in->headers) {
        mcps_buf_puts(b, "--> raw ");
        escape_raw(b, in->bytes, in->len);
        return;
    }
    cJSON *step = cJSON_CreateObject();
    cJSON_AddItemToObject(step, "headers", cJSON_Parse(in->headers));
    cJSON_AddItemToObject(step, "body", cJSON_CreateString(in->bytes));
    char *text = cJSON_PrintUnformatted(step);
    mcps_buf_printf(b, "--> http %s", text ? text : "{}");
    free(text);
    cJSON_Delete(step);
}

static void body(mcps_buf *b, const mcps_live_finding *f, const mcps_live_finding_meta *m)
{
    mcps_buf_printf(b, "suite %s\ntitle mcpspec fuzz finding %s\nsection basic/lifecycle\n\n",
                    f->name, f->name);
    mcps_buf_puts(b, "case replay\ntitle the target survives the inputs of a fuzz finding\n");
    mcps_buf_printf(b, "requires RPC-RSP-004\nrevisions %s\nsession raw\ntimeout 5s\n",
                    m->revision);
    mcps_buf_puts(b, "expect After each input the target is still running and answers ping.\n");
    prefix(b, m->revision);
    for (size_t i = 0; i < f->inputs.n; i++) {
        input_line(b, &f->inputs.items[i]);
        mcps_buf_printf(b,
                        "\n--> {\"jsonrpc\":\"2.0\",\"id\":\"live-ping-%zu\",\"method\":\"%s\"}\n"
                        "<-- {\"id\":\"live-ping-%zu\",\"result\":\"$object\"}\n",
                        i + 1, mcps_live_liveness_method(m->revision), i + 1);
    }
}

bool mcps_live_finding_write(mcps_live_finding *f, const char *dir,
                             const mcps_live_finding_meta *meta, char *err, size_t errlen)
{
    mcps_buf b = {0};
    header(&b, f, meta);
    body(&b, f, meta);
    snprintf(f->path, sizeof f->path, "%s/%s.suite", dir, f->name);
    FILE *out = fopen(f->path, "wb");
    bool ok = out && fwrite(b.data, 1, b.len, out) == b.len;
    if (out && fclose(out) != 0)
        ok = false;
    if (!ok)
        snprintf(err, errlen, "%s: %s", f->path, strerror(errno));
    mcps_buf_free(&b);
    return ok;
}

/* Decode a raw line's escapes (as the suite loader does); false on a bad escape. */
static bool unescape_raw(const char *s, mcps_buf *out)
{
    for (; *s; s++) {
        if (*s != '\\') {
            mcps_buf_putc(out, *s);
            continue;
        }
        char c = *++s;
        if (c == 'x' && mcps_hex_byte(s + 1) >= 0) {
            mcps_buf_putc(out, (char)mcps_hex_byte(s + 1));
            s += 2;
        } else if (c && strchr("nrt\\\"0", c)) {
            mcps_buf_putc(out, c == 'n'   ? '\n'
                               : c == 'r' ? '\r'
                               : c == 't' ? '\t'
                               : c == '0' ? '\0'
                                          : c);
        } else {
            return false;
        }
    }
    return true;
}

static void header_value(const char *line, const char *key, char *out, size_t n)
{
    size_t k = strlen(key);
    if (strncmp(line, key, k) == 0)
        snprintf(out, n, "%s", line + k);
}

/* A `--> http` step input_line wrote: its body and its headers. */
static bool read_http(const char *text, mcps_live_seq *inputs)
{
    cJSON *step = cJSON_Parse(text);
    const cJSON *body = cJSON_GetObjectItemCaseSensitive(step, "body");
    const cJSON *headers = cJSON_GetObjectItemCaseSensitive(step, "headers");
    bool ok = cJSON_IsString(body) && cJSON_IsObject(headers);
    if (ok) {
        char *h = cJSON_PrintUnformatted(headers);
        mcps_live_input in = {body->valuestring, strlen(body->valuestring), h};
        mcps_live_seq_push_input(inputs, &in);
        free(h);
    }
    cJSON_Delete(step);
    return ok;
}

/* One line of a finding file into the results. */
static bool read_line(char *line, mcps_live_seq *inputs, char *oracle, size_t olen,
                      mcps_live_finding_head *head)
{
    size_t len = strlen(line);
    while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
        line[--len] = '\0';
    header_value(line, "# oracle: ", oracle, olen);
    header_value(line, "# revision: ", head->revision, sizeof head->revision);
    header_value(line, "# signature: ", head->signature, sizeof head->signature);
    if (strncmp(line, "--> http ", 9) == 0)
        return read_http(line + 9, inputs);
    if (strncmp(line, "--> raw", 7) != 0)
        return true;
    const char *text = line + 7;
    text += strspn(text, " ");
    mcps_buf b = {0};
    bool ok = unescape_raw(text, &b);
    if (ok)
        mcps_live_seq_push(inputs, b.data ? b.data : "", b.len);
    mcps_buf_free(&b);
    return ok;
}

bool mcps_live_finding_read(const char *path, mcps_live_seq *inputs, mcps_live_finding_head *head,
                            char *err, size_t errlen)
{
    *head = (mcps_live_finding_head){.oracle = MCPS_LIVE_NONE};
    mcps_buf file = {0};
    int rc = mcps_file_read(&file, path, MAX_FINDING_FILE);
    if (rc != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(rc > 0 ? rc : EFBIG));
        mcps_buf_free(&file);
        return false;
    }
    char oracle_name[32] = "";
    size_t lineno = 0;
    bool ok = true;
    for (char *p = file.data; p && *p && ok; lineno++) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        ok = read_line(p, inputs, oracle_name, sizeof oracle_name, head);
        if (!ok)
            snprintf(err, errlen,
                     "%s:%zu: bad escape in a --> raw line, or a --> http line "
                     "without a string body and a headers object",
                     path, lineno + 1);
        p = nl ? nl + 1 : NULL;
    }
    mcps_buf_free(&file);
    if (ok && !inputs->n) {
        snprintf(err, errlen,
                 "%s: no '--> raw' or '--> http' inputs: not a finding file of "
                 "mcpspec fuzz",
                 path);
        ok = false;
    }
    head->oracle = mcps_live_oracle_parse(oracle_name);
    return ok;
}
