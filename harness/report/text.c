/*
 * text.c - the report writers' shared text handling; see report_internal.h.
 *
 * Wire bytes are whatever a peer chose to send: invalid UTF-8, NUL, escape
 * sequences, "</script>", "]]>". Every writer goes through here so that the
 * decoding and the replacement rules are the same in all five formats.
 */
#include "report/report_internal.h"
#include "report/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"
#include "engine/catalog.h"

/* ---- tallies ------------------------------------------------------------------- */

mcps_verdict mcps_report_verdict(const mcps_case_result *c)
{
    return c->verdict < MCPS_VERDICT_COUNT ? c->verdict : MCPS_VERDICT_ERROR;
}

bool mcps_report_baselined(const mcps_case_result *c)
{
    return c->baseline != NULL;
}

void mcps_report_tally_run(const mcps_run_result *run, mcps_report_tally *t)
{
    mcps_run_result copy = *run;
    t->baselined = 0;
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
        copy.counts[v] = copy.baselined[v] = 0;
    for (size_t i = 0; i < run->ncases; i++) {
        mcps_verdict v = mcps_report_verdict(&run->cases[i]);
        copy.counts[v]++;
        copy.baselined[v] += mcps_report_baselined(&run->cases[i]);
        t->baselined += mcps_report_baselined(&run->cases[i]);
    }
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
        t->counts[v] = copy.counts[v];
    t->total = run->ncases;
    t->stale = run->baseline ? run->baseline->nstale : 0;
    t->exit_code = mcps_run_result_exit_code(&copy);
    t->meaning = mcps_report_exit_meaning(t->exit_code);
    copy.baseline = NULL;
    if (t->exit_code == 1 && mcps_run_result_exit_code(&copy) != 1)
        t->meaning = "the baseline has stale or expired entries: what they list no longer fails, "
                     "or their date passed";
}

void mcps_report_tally_rev(const mcps_run_result *run, mcps_rev rev, size_t *counts)
{
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
        counts[v] = 0;
    for (size_t i = 0; i < run->ncases; i++)
        if (run->cases[i].revision == rev)
            counts[mcps_report_verdict(&run->cases[i])]++;
}

bool mcps_report_has_rev(const mcps_run_result *run, mcps_rev rev)
{
    for (size_t i = 0; i < run->ncases; i++)
        if (run->cases[i].revision == rev)
            return true;
    return false;
}

const char *mcps_report_outcome(int exit_code)
{
    return exit_code == 0 ? "pass" : exit_code == 1 ? "fail" : "incomplete";
}

const char *mcps_report_exit_meaning(int exit_code)
{
    switch (exit_code) {
    case 0:
        return "conformant: no requirement broken that fails the run";
    case 1:
        return "not conformant: a MUST requirement is broken (or a SHOULD, under --strict)";
    case 2:
        return "usage or input error";
    case 3:
        return "incomplete: the run could not proceed or a check could not be judged";
    default:
        return "unknown exit code";
    }
}

/* ---- UTF-8 --------------------------------------------------------------------- */

uint32_t mcps_report_next_cp(const char *s, size_t n, size_t *i)
{
    uint32_t cp = 0xFFFD;
    size_t len = mcps_utf8_decode((const unsigned char *)s + *i, n - *i, &cp, NULL);
    *i += len ? len : 1;
    return len ? cp : 0xFFFD;
}

void mcps_report_put_cp(mcps_buf *b, uint32_t cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp, n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6)), u[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12)), u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
    } else {
        u[0] = (char)(0xF0 | (cp >> 18)), u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), u[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    }
    mcps_buf_append(b, u, n);
}

size_t mcps_report_clip(const char *s, size_t n, size_t max)
{
    if (n <= max)
        return n;
    size_t k = max;
    for (int back = 0; back < 3 && k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80; back++)
        k--;
    return k;
}

size_t mcps_report_complete_len(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t back = 1; back <= 3 && back <= n; back++) {
        unsigned char c = u[n - back];
        if ((c & 0xC0) == 0x80)
            continue;
        size_t need = c >= 0xF0 && c <= 0xF4 ? 4 : (c & 0xF0) == 0xE0 ? 3 : c >= 0xC2 ? 2 : 1;
        return need > back ? n - back : n;
    }
    return n;
}

char *mcps_report_json_text(const char *s, size_t n, size_t max, bool *lossless)
{
    mcps_buf b = {0};
    size_t keep = mcps_report_clip(s, n, max);
    *lossless = true;
    mcps_buf_reserve(&b, keep + 8);
    for (size_t i = 0; i < keep;) {
        size_t at = i;
        uint32_t cp = mcps_report_next_cp(s, keep, &i);
        if (cp == 0) {
            mcps_buf_append(&b, "\xC0\x80", 2);
        } else if (cp == 0xFFFD && i - at == 1) {
            *lossless = false;
            mcps_report_put_cp(&b, 0xFFFD);
        } else {
            mcps_buf_append(&b, s + at, i - at);
        }
    }
    if (keep < n)
        mcps_report_put_cp(&b, 0x2026);
    mcps_buf_append(&b, "", 0); /* terminated even when empty */
    return mcps_buf_take(&b);
}

void mcps_report_base64(mcps_buf *b, const void *data, size_t n)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = data;
    if (!mcps_buf_reserve(b, (n + 2) / 3 * 4))
        return;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        char q[4] = {digits[v >> 18], digits[(v >> 12) & 63], digits[(v >> 6) & 63],
                     digits[v & 63]};
        if (i + 1 >= n)
            q[2] = '=';
        if (i + 2 >= n)
            q[3] = '=';
        mcps_buf_append(b, q, 4);
    }
}

/* ---- escaping ------------------------------------------------------------------ */

static bool put_js(mcps_buf *b, uint32_t cp, unsigned how)
{
    if (!(how & MCPS_ESC_JS))
        return false;
    bool lines = how & MCPS_ESC_LINES;
    if (cp == '"' || cp == '\\') {
        mcps_buf_putc(b, '\\');
        mcps_buf_putc(b, (char)cp);
    } else if (cp == '\n' || cp == '\t') {
        mcps_buf_puts(b, !lines ? " " : cp == '\n' ? "\\n" : "\\t");
    } else if (cp == '<' || cp == '>' || cp == '&' || cp == 0x2028 || cp == 0x2029) {
        mcps_buf_printf(b, "\\u%04x", (unsigned)cp);
    } else {
        return false;
    }
    return true;
}

static bool put_space(mcps_buf *b, uint32_t cp, unsigned how)
{
    if (cp != '\n' && cp != '\t')
        return false;
    if (!(how & MCPS_ESC_LINES))
        mcps_buf_putc(b, ' ');
    else if (how & MCPS_ESC_ATTR)
        mcps_buf_puts(b, cp == '\n' ? "&#10;" : "&#9;");
    else if ((how & MCPS_ESC_MD) && cp == '\n')
        mcps_buf_puts(b, "<br>");
    else
        mcps_buf_putc(b, (char)cp);
    return true;
}

static bool put_entity(mcps_buf *b, uint32_t cp, unsigned how)
{
    if (!(how & (MCPS_ESC_XML | MCPS_ESC_ATTR | MCPS_ESC_MD)))
        return false;
    const char *e = cp == '&' ? "&amp;" : cp == '<' ? "&lt;" : cp == '>' ? "&gt;" : NULL;
    if (!e && (how & MCPS_ESC_ATTR))
        e = cp == '"' ? "&quot;" : cp == '\'' ? "&#39;" : NULL;
    if (!e)
        return false;
    mcps_buf_puts(b, e);
    return true;
}

void mcps_report_escape(mcps_buf *b, const char *s, size_t n, unsigned how)
{
    for (size_t i = 0; i < n;) {
        uint32_t cp = mcps_report_next_cp(s, n, &i);
        if (put_js(b, cp, how) || put_space(b, cp, how) || put_entity(b, cp, how))
            continue;
        cp = mcps_utf8_visible(cp);
        if ((how & MCPS_ESC_MD) && cp < 0x80 && strchr("\\`*_[]|~#$", (int)cp))
            mcps_buf_putc(b, '\\');
        mcps_report_put_cp(b, cp);
    }
}

void mcps_report_escape_str(mcps_buf *b, const char *s, unsigned how)
{
    if (s)
        mcps_report_escape(b, s, strlen(s), how);
}

/* ---- requirements -------------------------------------------------------------- */

bool mcps_report_next_id(const char **ids, char *id, size_t idlen)
{
    const char *p = *ids;
    if (!p)
        return false;
    for (;;) {
        p += strspn(p, " ,\t\n");
        if (!*p) {
            *ids = p;
            return false;
        }
        size_t n = strcspn(p, " ,\t\n");
        const char *at = p;
        p += n;
        if (n < idlen) {
            memcpy(id, at, n);
            id[n] = '\0';
            *ids = p;
            return true;
        }
    }
}

bool mcps_report_primary_id(const mcps_case_result *c, char *id, size_t idlen)
{
    const char *broken = c->broken; /* the engine knows which one the observation broke */
    if (mcps_report_next_id(&broken, id, idlen))
        return true;
    const char *ids = c->requirements;
    char cur[64];
    bool have_first = false;
    while (mcps_report_next_id(&ids, cur, sizeof cur)) {
        const mcps_req *r = mcps_catalog_find(cur);
        bool applies =
            r && (c->revision == MCPS_REV_NONE || mcps_rev_set_has(r->revs, c->revision));
        if (applies && mcps_verdict_for_level(r->level) == c->verdict) {
            snprintf(id, idlen, "%s", cur);
            return true;
        }
        if (!have_first)
            snprintf(id, idlen, "%s", cur);
        have_first = true;
    }
    return have_first;
}

size_t mcps_report_wire_shown(const mcps_case_result *c)
{
    size_t bytes = 0, i = 0;
    for (; i < c->nwire && i < MCPS_REPORT_WIRE_ENTRIES_MAX; i++) {
        size_t n = c->wire[i].len < MCPS_REPORT_WIRE_ENTRY_MAX ? c->wire[i].len
                                                               : MCPS_REPORT_WIRE_ENTRY_MAX;
        if (bytes + n > MCPS_REPORT_CASE_WIRE_MAX)
            break;
        bytes += n;
    }
    return i;
}

/* ---- times --------------------------------------------------------------------- */

void mcps_report_put_time(mcps_buf *b, int64_t t_us)
{
    uint64_t mag = t_us < 0 ? (uint64_t)0 - (uint64_t)t_us : (uint64_t)t_us;
    mcps_buf_printf(b, "%c%" PRIu64 ".%06" PRIu64, t_us < 0 ? '-' : '+', mag / 1000000,
                    mag % 1000000);
}

void mcps_report_put_seconds(mcps_buf *b, double seconds)
{
    if (!isfinite(seconds) || seconds < 0)
        seconds = 0;
    if (seconds > 1e12)
        seconds = 1e12;
    mcps_buf_printf(b, "%.6f", seconds);
}

void mcps_report_put_duration(mcps_buf *b, double seconds)
{
    if (!isfinite(seconds) || seconds < 0)
        seconds = 0;
    mcps_buf_printf(b, "%.3f s", seconds < 1e12 ? seconds : 1e12);
}

/* ---- plain-text rendering ------------------------------------------------------ */

const char *mcps_report_finding(const mcps_case_result *c)
{
    if (c->observed && *c->observed)
        return c->observed;
    return c->reason ? c->reason : "";
}

/* Append text, indenting every line after the first so it reads as one field. */
static void put_indented(mcps_buf *b, const char *s, size_t n, const char *indent)
{
    for (size_t i = 0; i < n; i++) {
        mcps_buf_putc(b, s[i]);
        if (s[i] == '\n' && i + 1 < n)
            mcps_buf_puts(b, indent);
    }
}

static void put_field(mcps_buf *b, const char *label, const char *value)
{
    if (!value || !*value)
        return;
    mcps_buf tmp = {0};
    mcps_report_escape(&tmp, value, mcps_report_clip(value, strlen(value), MCPS_REPORT_TEXT_MAX),
                       MCPS_ESC_LINES);
    mcps_buf_printf(b, "%s: ", label);
    put_indented(b, tmp.data ? tmp.data : "", tmp.len, "  ");
    mcps_buf_putc(b, '\n');
    mcps_buf_free(&tmp);
}

void mcps_report_wire_text(mcps_buf *b, const mcps_wire_entry *w, size_t entry_max, unsigned how)
{
    const char *s = w->bytes ? w->bytes : "";
    size_t n = w->bytes ? w->len : 0;
    size_t keep = mcps_report_clip(s, n, entry_max);
    size_t shown = keep;
    if (shown == n && shown && s[shown - 1] == '\n')
        shown -= shown > 1 && s[shown - 2] == '\r' ? 2 : 1;
    mcps_report_escape(b, s, shown, how);
    size_t total = w->wire_len > n ? w->wire_len : n;
    if (keep < total)
        mcps_buf_printf(b, " \xE2\x80\xA6 [%zu of %zu bytes]", keep, total);
}

static void put_requirements(mcps_buf *b, const mcps_case_result *c)
{
    const char *ids = c->requirements;
    char id[64];
    bool any = false;
    while (mcps_report_next_id(&ids, id, sizeof id)) {
        const mcps_req *r = mcps_catalog_find(id);
        if (!any)
            mcps_buf_puts(b, "Requirements:\n");
        any = true;
        mcps_buf_printf(b, "  %s (%s): ", id, r ? mcps_level_name(r->level) : "not in catalog");
        mcps_report_escape_str(b, r ? r->text : "", 0);
        mcps_buf_putc(b, '\n');
    }
}

static void put_notes(mcps_buf *b, const mcps_case_result *c)
{
    if (c->nnotes)
        mcps_buf_puts(b, "Notes:\n");
    for (size_t i = 0; i < c->nnotes; i++) {
        mcps_buf_puts(b, "  - ");
        if (c->notes[i].reqs) {
            mcps_buf_putc(b, '[');
            mcps_report_escape_str(b, c->notes[i].reqs, 0);
            mcps_buf_puts(b, "] ");
        }
        const char *m = c->notes[i].message ? c->notes[i].message : "";
        mcps_report_escape(b, m, mcps_report_clip(m, strlen(m), MCPS_REPORT_TEXT_MAX), 0);
        mcps_buf_putc(b, '\n');
    }
}

static void put_wire_log(mcps_buf *b, const mcps_case_result *c, size_t entry_max)
{
    size_t shown = mcps_report_wire_shown(c);
    size_t dropped = c->wire_dropped + (c->nwire - shown);
    if (!c->nwire && !dropped)
        return;
    mcps_buf_printf(b, "Wire log (%zu entries", shown);
    if (dropped)
        mcps_buf_printf(b, ", %zu more not kept", dropped);
    mcps_buf_puts(b, "):\n");
    for (size_t i = 0; i < shown; i++) {
        const mcps_wire_entry *w = &c->wire[i];
        mcps_buf line = {0};
        mcps_buf_puts(b, "  ");
        mcps_report_put_time(b, w->t_us);
        mcps_buf_printf(b, " %-8s ", mcps_wire_dir_name(w->dir));
        mcps_report_wire_text(&line, w, entry_max, MCPS_ESC_LINES);
        put_indented(b, line.data ? line.data : "", line.len, "                             ");
        mcps_buf_putc(b, '\n');
        mcps_buf_free(&line);
    }
}

void mcps_report_case_text(mcps_buf *b, const mcps_case_result *c, size_t entry_max)
{
    mcps_report_escape_str(b, c->id, 0);
    mcps_buf_printf(b, " @ %s: ", mcps_rev_name(c->revision));
    mcps_report_escape_str(b, c->title, 0);
    mcps_buf_printf(b, "\nVerdict: %s (%s)\n", mcps_verdict_name(mcps_report_verdict(c)),
                    mcps_level_name(c->level));
    put_field(b, "Section", c->section);
    put_requirements(b, c);
    put_field(b, "Expected", c->expected);
    put_field(b, "Observed", c->observed);
    put_field(b, "Reason", c->reason);
    put_notes(b, c);
    put_wire_log(b, c, entry_max);
}
