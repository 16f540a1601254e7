/*
 * uritemplate.c - RFC 6570 URI templates: parse, expand, judge ambiguity and
 * match; see uritemplate.h for the matching semantics and its guarantee.
 *
 * A parsed template is flat: an array of parts (literal or expression), an
 * array of variables, and one pool holding the literals already in expanded
 * form (non-ASCII percent-encoded) and the NUL-terminated variable names.
 * The matcher is an explicit-stack backtracking search over part boundaries
 * with a work budget, so no input can recurse deeply or run unbounded.
 */
#include "uri/uritemplate.h"

#include "base/buf.h"
#include "base/array.h"
#include "base/hex.h"
#include "base/utf8.h"
#include "uri/uri.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* RFC 6570 appendix A, one row per operator. */
typedef struct op_info {
    char op;
    char first; /* prefix before the first defined value, or 0 */
    char sep;
    bool named;
    bool ifemp_eq; /* an empty named value is written "name=" (else "name") */
    bool reserved; /* U+R: reserved characters and %HH pass through */
} op_info;

static const op_info op_table[] = {
    {'\0', 0, ',', false, false, false},  {'+', 0, ',', false, false, true},
    {'#', '#', ',', false, false, true},  {'.', '.', '.', false, false, false},
    {'/', '/', '/', false, false, false}, {';', ';', ';', true, false, false},
    {'?', '?', '&', true, true, false},   {'&', '&', '&', true, true, false},
};

typedef struct tvar {
    size_t name_off; /* NUL-terminated name in the pool */
    size_t name_len;
    size_t offset; /* in the template source, for errors */
    unsigned prefix;
    bool explode;
    size_t id; /* index among the distinct names */
} tvar;

typedef struct tpart {
    const op_info *op; /* NULL for a literal */
    size_t off, len;   /* literal: expanded text in the pool */
    size_t var0, nvars;
    size_t offset; /* in the template source */
    bool any_explode;
} tpart;

struct mcps_tmpl {
    tpart *parts;
    size_t nparts;
    tvar *vars;
    size_t nvars;
    char *pool;
    const char **names; /* distinct names, first appearance first */
    size_t ndistinct;
    size_t max_expr_vars;
    int level;
};

/* ---- small helpers ---- */

static void set_err(mcps_tmpl_error *err, size_t off, const char *reason)
{
    if (!err)
        return;
    err->offset = off;
    snprintf(err->reason, sizeof err->reason, "%s", reason);
}

static bool is_alnum(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool is_triplet(const char *s, size_t i, size_t n)
{
    return n - i >= 3 && s[i] == '%' && mcps_hex_byte(s + i + 1) >= 0;
}

/* ---- parser ---- */

typedef struct parser {
    const char *s;
    size_t len, i;
    mcps_tmpl *t;
    mcps_buf pool;
    size_t cap_parts, cap_vars;
    mcps_tmpl_error *err;
} parser;

static bool oom(parser *p)
{
    set_err(p->err, p->i, "out of memory");
    return false;
}

static tpart *new_part(parser *p)
{
    mcps_tmpl *t = p->t;
    if (!mcps_array_reserve(&t->parts, &p->cap_parts, t->nparts + 1, sizeof *t->parts, 8))
        return NULL;
    tpart *part = &t->parts[t->nparts++];
    *part = (tpart){.offset = p->i, .off = p->pool.len, .var0 = t->nvars};
    return part;
}

/* RFC 6570 ucschar / iprivate: the non-ASCII characters a literal may hold. */
static bool ucs_allowed(uint32_t cp)
{
    if (cp >= 0x10000)
        return (cp & 0xFFFF) <= 0xFFFD && !(cp >= 0xE0000 && cp <= 0xE0FFF);
    return (cp >= 0xA0 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFDCF) ||
           (cp >= 0xFDF0 && cp <= 0xFFEF);
}

static bool literal_char_ok(unsigned char c)
{
    return c > 0x20 && c < 0x7f && !strchr("\"'<>\\^`{|}%", c);
}

/* One literal character at p->i, appended to the pool in expanded form. */
static bool parse_literal_char(parser *p)
{
    const unsigned char *c = (const unsigned char *)p->s + p->i;
    size_t rest = p->len - p->i;
    if (c[0] == '%') {
        if (!is_triplet(p->s, p->i, p->len)) {
            set_err(p->err, p->i, "'%' not followed by two hex digits");
            return false;
        }
        mcps_buf_append(&p->pool, c, 3);
        p->i += 3;
        return true;
    }
    if (c[0] < 0x80) {
        if (!literal_char_ok(c[0])) {
            char why[64];
            snprintf(why, sizeof why,
                     c[0] == '}' ? "'}' outside an expression"
                                 : "character 0x%02X not allowed in a literal",
                     c[0]);
            set_err(p->err, p->i, why);
            return false;
        }
        mcps_buf_putc(&p->pool, (char)c[0]);
        p->i++;
        return true;
    }
    uint32_t cp;
    size_t n = mcps_utf8_decode(c, rest, &cp, NULL);
    if (!n || !ucs_allowed(cp)) {
        set_err(p->err, p->i, n ? "character not allowed in a literal" : "invalid UTF-8");
        return false;
    }
    for (size_t k = 0; k < n; k++)
        mcps_buf_printf(&p->pool, "%%%02X", c[k]);
    p->i += n;
    return true;
}

static bool parse_literal(parser *p)
{
    tpart *part = new_part(p);
    if (!part)
        return oom(p);
    while (p->i < p->len && p->s[p->i] != '{')
        if (!parse_literal_char(p))
            return false;
    part = &p->t->parts[p->t->nparts - 1];
    part->len = p->pool.len - part->off;
    return true;
}

static bool varchar_at(parser *p)
{
    unsigned char c = (unsigned char)p->s[p->i];
    if (is_alnum(c) || c == '_') {
        p->i++;
        return true;
    }
    if (is_triplet(p->s, p->i, p->len)) {
        p->i += 3;
        return true;
    }
    return false;
}

static bool parse_varname(parser *p, size_t *b, size_t *e)
{
    *b = p->i;
    if (p->i >= p->len || !varchar_at(p)) {
        set_err(p->err, p->i,
                p->i < p->len && p->s[p->i] == '}' ? "empty variable name"
                                                   : "expected a variable name");
        return false;
    }
    while (p->i < p->len) {
        if (p->s[p->i] == '.') {
            p->i++;
            if (p->i >= p->len || !varchar_at(p)) {
                set_err(p->err, p->i,
                        "'.' in a variable name must be followed by a name character");
                return false;
            }
        } else if (!varchar_at(p)) {
            break;
        }
    }
    *e = p->i;
    return true;
}

static bool parse_prefix(parser *p, unsigned *out)
{
    size_t b = p->i;
    unsigned v = 0;
    while (p->i < p->len && p->s[p->i] >= '0' && p->s[p->i] <= '9' && p->i - b < 5)
        v = v * 10 + (unsigned)(p->s[p->i++] - '0');
    if (p->i == b || p->s[b] == '0' || v > 9999) {
        set_err(p->err, b, "prefix length must be 1-9999 without leading zeros");
        return false;
    }
    *out = v;
    return true;
}

static bool parse_modifier(parser *p, tvar *v)
{
    if (p->i < p->len && p->s[p->i] == ':') {
        p->i++;
        return parse_prefix(p, &v->prefix);
    }
    if (p->i < p->len && p->s[p->i] == '*') {
        p->i++;
        v->explode = true;
    }
    return true;
}

static bool parse_varspec(parser *p, tpart *part)
{
    mcps_tmpl *t = p->t;
    size_t b, e;
    if (!parse_varname(p, &b, &e))
        return false;
    if (!mcps_array_reserve(&t->vars, &p->cap_vars, t->nvars + 1, sizeof *t->vars, 8))
        return oom(p);
    tvar *v = &t->vars[t->nvars++];
    *v = (tvar){.name_off = p->pool.len, .name_len = e - b, .offset = b};
    mcps_buf_append(&p->pool, p->s + b, e - b);
    mcps_buf_putc(&p->pool, '\0');
    if (!parse_modifier(p, v))
        return false;
    part->nvars++;
    part->any_explode |= v->explode;
    return true;
}

static const op_info *operator_at(parser *p)
{
    char c = p->i < p->len ? p->s[p->i] : '\0';
    for (size_t k = 1; k < sizeof op_table / sizeof op_table[0]; k++) {
        if (c == op_table[k].op) {
            p->i++;
            return &op_table[k];
        }
    }
    return &op_table[0];
}

static bool parse_expression(parser *p)
{
    size_t open = p->i++;
    tpart *part = new_part(p);
    if (!part)
        return oom(p);
    part->offset = open;
    if (p->i < p->len && strchr("=,!@|", p->s[p->i]) && p->s[p->i]) {
        set_err(p->err, p->i, "operator reserved for future extensions (= , ! @ |)");
        return false;
    }
    part->op = operator_at(p);
    size_t k = p->t->nparts - 1;
    for (;;) {
        if (!parse_varspec(p, &p->t->parts[k]))
            return false;
        if (p->i >= p->len) {
            set_err(p->err, open, "expression not closed with '}'");
            return false;
        }
        char c = p->s[p->i++];
        if (c == '}')
            return true;
        if (c != ',') {
            set_err(p->err, p->i - 1, "unexpected character in expression");
            return false;
        }
    }
}

typedef struct name_ref {
    const char *name;
    size_t idx;
} name_ref;

static int name_ref_cmp(const void *a, const void *b)
{
    const name_ref *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Give every variable the id of its name, numbered by first appearance. */
static bool number_names(mcps_tmpl *t)
{
    name_ref *refs = malloc((t->nvars ? t->nvars : 1) * sizeof *refs);
    t->names = malloc((t->nvars ? t->nvars : 1) * sizeof *t->names);
    if (!refs || !t->names) {
        free(refs);
        return false;
    }
    for (size_t i = 0; i < t->nvars; i++)
        refs[i] = (name_ref){t->pool + t->vars[i].name_off, i};
    qsort(refs, t->nvars, sizeof *refs, name_ref_cmp);
    for (size_t i = 0; i < t->nvars; i++) {
        bool leader = i == 0 || strcmp(refs[i].name, refs[i - 1].name) != 0;
        t->vars[refs[i].idx].id = leader ? refs[i].idx : t->vars[refs[i - 1].idx].id;
    }
    free(refs);
    for (size_t i = 0; i < t->nvars; i++) {
        tvar *v = &t->vars[i];
        if (v->id == i) {
            t->names[t->ndistinct] = t->pool + v->name_off;
            v->id = t->ndistinct++;
        } else {
            v->id = t->vars[v->id].id;
        }
    }
    return true;
}

static int part_level(const tpart *p, const tvar *vars)
{
    for (size_t i = 0; i < p->nvars; i++)
        if (vars[p->var0 + i].prefix || vars[p->var0 + i].explode)
            return 4;
    bool simple_op = p->op->op == '\0' || p->op->op == '+' || p->op->op == '#';
    if (p->nvars > 1 || !simple_op)
        return 3;
    return p->op->op == '\0' ? 1 : 2;
}

static void finish(mcps_tmpl *t)
{
    t->level = 1;
    for (size_t k = 0; k < t->nparts; k++) {
        tpart *p = &t->parts[k];
        if (!p->op)
            continue;
        int l = part_level(p, t->vars);
        t->level = l > t->level ? l : t->level;
        t->max_expr_vars = p->nvars > t->max_expr_vars ? p->nvars : t->max_expr_vars;
    }
}

static bool parse_all(parser *p)
{
    while (p->i < p->len) {
        bool ok = p->s[p->i] == '{' ? parse_expression(p) : parse_literal(p);
        if (!ok)
            return false;
    }
    if (p->pool.oom)
        return oom(p);
    p->t->pool = mcps_buf_take(&p->pool);
    if (!p->t->pool || !number_names(p->t))
        return oom(p);
    finish(p->t);
    return true;
}

mcps_tmpl *mcps_tmpl_parse(const char *s, size_t len, mcps_tmpl_error *err)
{
    if (err)
        *err = (mcps_tmpl_error){0};
    mcps_tmpl *t = calloc(1, sizeof *t);
    if (!t) {
        set_err(err, 0, "out of memory");
        return NULL;
    }
    parser p = {.s = s, .len = len, .t = t, .err = err};
    if (parse_all(&p))
        return t;
    mcps_buf_free(&p.pool);
    mcps_tmpl_free(t);
    return NULL;
}

void mcps_tmpl_free(mcps_tmpl *t)
{
    if (!t)
        return;
    free(t->parts);
    free(t->vars);
    free(t->pool);
    free(t->names);
    free(t);
}

bool mcps_tmpl_validate(const char *s, size_t len, mcps_tmpl_error *err)
{
    mcps_tmpl *t = mcps_tmpl_parse(s, len, err);
    mcps_tmpl_free(t);
    return t != NULL;
}

int mcps_tmpl_level(const mcps_tmpl *t)
{
    return t->level;
}

size_t mcps_tmpl_var_count(const mcps_tmpl *t)
{
    return t->ndistinct;
}

const char *mcps_tmpl_var_name(const mcps_tmpl *t, size_t i)
{
    return i < t->ndistinct ? t->names[i] : NULL;
}

static const char *var_name(const mcps_tmpl *t, const tvar *v)
{
    return t->pool + v->name_off;
}

/* ---- expander ---- */

typedef enum vkind { V_UNDEF, V_STR, V_LIST, V_ASSOC, V_BAD } vkind;

typedef struct expander {
    const mcps_tmpl *t;
    mcps_buf out;
    mcps_tmpl_error *err;
    char num[32]; /* text of a number value */
} expander;

static bool scalar(const cJSON *v)
{
    return cJSON_IsString(v) || cJSON_IsNumber(v);
}

static vkind kind_of(const cJSON *v)
{
    if (!v || cJSON_IsNull(v))
        return V_UNDEF;
    if (scalar(v))
        return V_STR;
    if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
        return V_BAD;
    if (!v->child)
        return V_UNDEF;
    for (const cJSON *c = v->child; c; c = c->next)
        if (!scalar(c))
            return V_BAD;
    return cJSON_IsArray(v) ? V_LIST : V_ASSOC;
}

/* A scalar's text: the string, or a number's exact text when the parser kept it. */
static const char *scalar_text(expander *x, const cJSON *v)
{
    if (cJSON_IsString(v))
        return v->valuestring ? v->valuestring : "";
    if (v->valuestring)
        return v->valuestring;
    double d = v->valuedouble;
    if (d > -9007199254740992.0 && d < 9007199254740992.0 && d == (double)(long long)d)
        snprintf(x->num, sizeof x->num, "%lld", (long long)d);
    else
        snprintf(x->num, sizeof x->num, "%.17g", d);
    return x->num;
}

static void put_encoded(mcps_buf *b, const char *s, size_t n, bool reserved)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (mcps_uri_is_unreserved(c) || (reserved && mcps_uri_is_reserved(c))) {
            mcps_buf_putc(b, (char)c);
        } else if (reserved && is_triplet(s, i, n)) {
            mcps_buf_append(b, s + i, 3);
            i += 2;
        } else {
            mcps_buf_printf(b, "%%%02X", c);
        }
    }
}

/* Bytes of the first max characters (UTF-8 lead bytes start characters). */
static size_t prefix_bytes(const char *s, size_t n, unsigned max)
{
    size_t chars = 0;
    for (size_t i = 0; i < n; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80 && chars++ == max)
            return i;
    }
    return n;
}

static void put_text(expander *x, const char *s, const tpart *p)
{
    put_encoded(&x->out, s, strlen(s), p->op->reserved);
}

static void put_named_value(expander *x, const char *name, const char *value, const tpart *p,
                            size_t n)
{
    mcps_buf_puts(&x->out, name);
    if (n == 0) {
        if (p->op->ifemp_eq)
            mcps_buf_putc(&x->out, '=');
        return;
    }
    mcps_buf_putc(&x->out, '=');
    put_encoded(&x->out, value, n, p->op->reserved);
}

static void expand_string(expander *x, const tpart *p, const tvar *v, const char *s)
{
    size_t n = strlen(s);
    if (v->prefix)
        n = prefix_bytes(s, n, v->prefix);
    if (p->op->named)
        put_named_value(x, var_name(x->t, v), s, p, n);
    else
        put_encoded(&x->out, s, n, p->op->reserved);
}

/* Unexploded composite: name=a,b,c or k1,v1,k2,v2. */
static void expand_joined(expander *x, const tpart *p, const tvar *v, const cJSON *val)
{
    if (p->op->named) {
        mcps_buf_puts(&x->out, var_name(x->t, v));
        mcps_buf_putc(&x->out, '=');
    }
    for (const cJSON *c = val->child; c; c = c->next) {
        if (c != val->child)
            mcps_buf_putc(&x->out, ',');
        if (cJSON_IsObject(val)) {
            put_text(x, c->string, p);
            mcps_buf_putc(&x->out, ',');
        }
        put_text(x, scalar_text(x, c), p);
    }
}

static void expand_exploded(expander *x, const tpart *p, const tvar *v, const cJSON *val)
{
    bool assoc = cJSON_IsObject(val);
    for (const cJSON *c = val->child; c; c = c->next) {
        if (c != val->child)
            mcps_buf_putc(&x->out, p->op->sep);
        const char *s = scalar_text(x, c);
        if (!assoc && !p->op->named) {
            put_text(x, s, p);
            continue;
        }
        if (assoc && !p->op->named) {
            put_text(x, c->string, p);
            mcps_buf_putc(&x->out, '=');
            put_text(x, s, p);
            continue;
        }
        if (assoc)
            put_text(x, c->string, p);
        else
            mcps_buf_puts(&x->out, var_name(x->t, v));
        put_named_value(x, "", s, p, strlen(s));
    }
}

static bool value_error(expander *x, const tvar *v, const char *what)
{
    if (x->err) {
        x->err->offset = v->offset;
        snprintf(x->err->reason, sizeof x->err->reason, "variable '%.24s': %.50s",
                 var_name(x->t, v), what);
    }
    return false;
}

static bool expand_var(expander *x, const tpart *p, const tvar *v, const cJSON *val, bool *first)
{
    vkind k = kind_of(val);
    if (k == V_UNDEF)
        return true;
    if (k == V_BAD)
        return value_error(x, v, "must be a string, number, or list/object of those");
    if (k != V_STR && v->prefix)
        return value_error(x, v, "prefix modifier on a list or object");
    char lead = *first ? p->op->first : p->op->sep;
    if (lead)
        mcps_buf_putc(&x->out, lead);
    *first = false;
    if (k == V_STR)
        expand_string(x, p, v, scalar_text(x, val));
    else if (v->explode)
        expand_exploded(x, p, v, val);
    else
        expand_joined(x, p, v, val);
    return true;
}

static bool expand_part(expander *x, const tpart *p, const cJSON *values)
{
    if (!p->op) {
        mcps_buf_append(&x->out, x->t->pool + p->off, p->len);
        return true;
    }
    bool first = true;
    for (size_t i = 0; i < p->nvars; i++) {
        const tvar *v = &x->t->vars[p->var0 + i];
        const cJSON *val = cJSON_IsObject(values)
                               ? cJSON_GetObjectItemCaseSensitive(values, var_name(x->t, v))
                               : NULL;
        if (!expand_var(x, p, v, val, &first))
            return false;
    }
    return true;
}

char *mcps_tmpl_expand(const mcps_tmpl *t, const cJSON *values, size_t *out_len,
                       mcps_tmpl_error *err)
{
    expander x = {.t = t, .err = err};
    if (err)
        *err = (mcps_tmpl_error){0};
    for (size_t k = 0; k < t->nparts; k++) {
        if (!expand_part(&x, &t->parts[k], values)) {
            mcps_buf_free(&x.out);
            return NULL;
        }
    }
    size_t n = x.out.len;
    char *s = mcps_buf_take(&x.out);
    if (!s)
        set_err(err, 0, "out of memory");
    else if (out_len)
        *out_len = n;
    return s;
}

/* ---- ambiguity ---- */

/* Characters the matcher lets expression p produce after its prefix. */
static bool in_class(const tpart *p, unsigned char c)
{
    if (mcps_uri_is_unreserved(c) || c == '%' || c == ',')
        return true;
    if (p->op->reserved && mcps_uri_is_reserved(c))
        return true;
    if ((p->nvars > 1 || p->any_explode) && c == p->op->sep)
        return true;
    return (p->op->named || p->any_explode) && c == '=';
}

static bool ambiguous_at(mcps_tmpl_error *why, size_t off, const char *reason)
{
    set_err(why, off, reason);
    return true;
}

static bool vars_ambiguous(const mcps_tmpl *t, const tpart *p, mcps_tmpl_error *why)
{
    for (size_t i = 0; i < p->nvars; i++) {
        const tvar *v = &t->vars[p->var0 + i];
        if (v->prefix)
            return ambiguous_at(why, v->offset, "prefix modifier truncates the value");
        if (v->explode)
            return ambiguous_at(why, v->offset,
                                "explode: list and object shapes are not recoverable");
    }
    char op = p->op->op;
    if (p->nvars > 1 && (op == '+' || op == '#' || op == '.'))
        return ambiguous_at(why, p->offset,
                            "several variables whose separator can occur in values");
    return false;
}

/* Is expression k delimited by what follows it? A lone final literal fixes its end. */
static bool boundary_ambiguous(const mcps_tmpl *t, size_t k, mcps_tmpl_error *why)
{
    if (k + 1 == t->nparts || (k + 2 == t->nparts && !t->parts[k + 1].op))
        return false;
    const tpart *p = &t->parts[k], *next = &t->parts[k + 1];
    unsigned char d;
    if (!next->op)
        d = (unsigned char)t->pool[next->off];
    else if (next->op->first)
        d = (unsigned char)next->op->first;
    else
        return ambiguous_at(why, next->offset, "two expressions with nothing between them");
    if (!in_class(p, d))
        return false;
    char reason[80];
    snprintf(reason, sizeof reason, "'%c' after the expression can also occur inside it", d);
    return ambiguous_at(why, next->offset, reason);
}

bool mcps_tmpl_is_ambiguous(const mcps_tmpl *t, mcps_tmpl_error *why)
{
    if (why)
        *why = (mcps_tmpl_error){0};
    for (size_t k = 0; k < t->nparts; k++) {
        const tpart *p = &t->parts[k];
        if (p->op && (vars_ambiguous(t, p, why) || boundary_ambiguous(t, k, why)))
            return true;
    }
    return false;
}

/* ---- matcher: binding one expression's text to its variables ---- */

typedef enum bkind { B_UNDEF, B_STR, B_LIST, B_ASSOC } bkind;

/* A variable's value as a view of the URI; lists and objects split on `split`. */
typedef struct binding {
    bkind kind;
    const char *s;
    size_t n;
    char split;
    bool strip_names; /* exploded named list: items are name=value */
} binding;

typedef struct matcher {
    const mcps_tmpl *t;
    const char *u;
    size_t len;
    size_t work, budget;
    size_t *start, *next;
    bool *more;
    unsigned char *memo; /* failed (part, pos) bits, or NULL */
    binding *bind;
} matcher;

static size_t count_char(const char *s, size_t n, char c)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += s[i] == c;
    return k;
}

/* Characters of a value as its author wrote them (a triplet decodes to one byte). */
static size_t value_chars(const char *s, size_t n, bool decode)
{
    size_t chars = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (decode && is_triplet(s, i, n)) {
            c = (unsigned char)mcps_hex_byte(s + i + 1);
            i += 2;
        }
        chars += (c & 0xC0) != 0x80;
    }
    return chars;
}

/* An unexploded value: a string, or for simple operators a list when ',' occurs. */
static bool bind_single(const tpart *p, const tvar *v, const char *s, size_t n, binding *b)
{
    bool list = !p->op->reserved && memchr(s, ',', n) != NULL;
    *b = (binding){list ? B_LIST : B_STR, s, n, ',', false};
    if (!v->prefix)
        return true;
    return !list && value_chars(s, n, !p->op->reserved) <= v->prefix;
}

/* Exploded items s[0..n) separated by sep: all k=v makes an object, none a list. */
static bool bind_exploded(const char *s, size_t n, char sep, binding *b)
{
    size_t items = count_char(s, n, sep) + 1, pairs = 0;
    bool in_item_eq = false;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == sep) {
            pairs += in_item_eq;
            in_item_eq = false;
        } else if (s[i] == '=') {
            in_item_eq = true;
        }
    }
    if (pairs != 0 && pairs != items)
        return false;
    *b = (binding){pairs ? B_ASSOC : B_LIST, s, n, sep, false};
    return true;
}

/* End of the item starting at i (the next sep or n). */
static size_t item_end(const char *s, size_t i, size_t n, char sep)
{
    const char *e = memchr(s + i, sep, n - i);
    return e ? (size_t)(e - s) : n;
}

/* Skip `count` items from i; returns the end of the last one. */
static size_t skip_items(const char *s, size_t i, size_t n, char sep, size_t count)
{
    size_t e = i;
    for (size_t k = 0; k < count; k++) {
        e = item_end(s, i, n, sep);
        i = e + 1;
    }
    return e;
}

/* Items taken by variable v (of nv) when `left` items remain, per the header's rules. */
static size_t items_taken(const tpart *p, const tvar *v, size_t idx, size_t left)
{
    size_t after = p->nvars - idx - 1;
    if (v->explode)
        return left > after ? left - after : 1;
    if (idx + 1 == p->nvars && p->op->sep == ',')
        return left;
    return 1;
}

static bool bind_items(const tpart *p, const tvar *v, const char *s, size_t n, size_t take,
                       binding *b)
{
    if (v->explode)
        return bind_exploded(s, n, p->op->sep, b);
    if (take == 1)
        return bind_single(p, v, s, n, b);
    *b = (binding){B_LIST, s, n, ',', false};
    return !v->prefix;
}

static bool bind_positional(const mcps_tmpl *t, const tpart *p, const char *s, size_t n,
                            binding *out)
{
    char sep = p->op->sep;
    size_t left = count_char(s, n, sep) + 1, i = 0;
    for (size_t k = 0; k < p->nvars && left; k++) {
        const tvar *v = &t->vars[p->var0 + k];
        size_t take = items_taken(p, v, k, left);
        size_t e = skip_items(s, i, n, sep, take);
        if (!bind_items(p, v, s + i, e - i, take, &out[k]))
            return false;
        left -= take;
        i = e + 1;
    }
    return left == 0;
}

static bool name_is(const mcps_tmpl *t, const tvar *v, const char *s, size_t n)
{
    return v->name_len == n && memcmp(var_name(t, v), s, n) == 0;
}

/* Length of the name part of the item s[i..e): up to '=' or e. */
static size_t item_name_len(const char *s, size_t i, size_t e)
{
    const char *eq = memchr(s + i, '=', e - i);
    return eq ? (size_t)(eq - (s + i)) : e - i;
}

/* Does the item at i name an unexploded variable after position k? */
static bool names_later_var(matcher *m, const tpart *p, size_t k, const char *s, size_t i, size_t e)
{
    size_t nl = item_name_len(s, i, e);
    for (size_t j = k + 1; j < p->nvars; j++) {
        m->work++;
        const tvar *w = &m->t->vars[p->var0 + j];
        if (!w->explode && name_is(m->t, w, s + i, nl))
            return true;
    }
    return false;
}

/* Exploded named variable k takes items from *i until one names a later variable. */
static void bind_named_explode(matcher *m, const tpart *p, size_t k, const char *s, size_t n,
                               size_t *i, binding *b)
{
    const tvar *v = &m->t->vars[p->var0 + k];
    size_t b0 = *i, e = *i;
    bool all_own = true;
    while (*i < n) {
        size_t ie = item_end(s, *i, n, p->op->sep);
        if (names_later_var(m, p, k, s, *i, ie))
            break;
        all_own &= name_is(m->t, v, s + *i, item_name_len(s, *i, ie));
        e = ie;
        *i = ie + 1;
    }
    if (e == b0)
        *b = (binding){.kind = B_UNDEF};
    else
        *b = (binding){all_own ? B_LIST : B_ASSOC, s + b0, e - b0, p->op->sep, all_own};
}

static bool bind_named_one(matcher *m, const tpart *p, size_t k, const char *s, size_t n, size_t *i,
                           binding *b)
{
    const tvar *v = &m->t->vars[p->var0 + k];
    size_t ie = item_end(s, *i, n, p->op->sep);
    size_t nl = item_name_len(s, *i, ie);
    if (!name_is(m->t, v, s + *i, nl)) {
        *b = (binding){.kind = B_UNDEF};
        return true;
    }
    size_t vb = *i + nl + (*i + nl < ie);
    *i = ie + 1;
    return bind_single(p, v, s + vb, ie - vb, b);
}

static bool bind_named(matcher *m, const tpart *p, const char *s, size_t n, binding *out)
{
    size_t i = 0;
    for (size_t k = 0; k < p->nvars; k++) {
        if (i > n) {
            out[k] = (binding){.kind = B_UNDEF};
            continue;
        }
        if (m->t->vars[p->var0 + k].explode)
            bind_named_explode(m, p, k, s, n, &i, &out[k]);
        else if (!bind_named_one(m, p, k, s, n, &i, &out[k]))
            return false;
    }
    return i > n;
}

/* Binds expression p to s[0..n) of the URI; false when p cannot produce it. */
static bool bind_expr(matcher *m, const tpart *p, const char *s, size_t n)
{
    m->work += n;
    for (size_t k = 0; k < p->nvars; k++)
        m->bind[k] = (binding){.kind = B_UNDEF};
    if (n == 0) {
        if (!p->op->first)
            m->bind[0] = (binding){B_STR, s, 0, ',', false};
        return true;
    }
    if (p->op->first) {
        s++;
        n--;
    }
    const tvar *v0 = &m->t->vars[p->var0];
    if (p->op->named)
        return bind_named(m, p, s, n, m->bind);
    if (p->nvars == 1 && !v0->explode)
        return bind_single(p, v0, s, n, m->bind);
    return bind_positional(m->t, p, s, n, m->bind);
}

/* ---- matcher: turning bindings into cJSON and merging repeats ---- */

typedef struct slot {
    int state; /* 0 unseen, 1 undefined, 2 value, 3 prefix of the value */
    cJSON *val;
} slot;

static cJSON *text_value(const char *s, size_t n, bool decode, mcps_buf *tmp)
{
    mcps_buf_clear(tmp);
    for (size_t i = 0; i < n; i++) {
        if (decode && is_triplet(s, i, n) && !(s[i + 1] == '0' && s[i + 2] == '0')) {
            mcps_buf_putc(tmp, (char)mcps_hex_byte(s + i + 1));
            i += 2;
        } else {
            mcps_buf_putc(tmp, s[i]);
        }
    }
    if (tmp->oom)
        return NULL;
    return cJSON_CreateString(tmp->data ? tmp->data : "");
}

static bool add_item(cJSON *container, const binding *b, const char *s, size_t n, bool decode,
                     mcps_buf *tmp)
{
    size_t nl = item_name_len(s, 0, n);
    size_t vb = nl + (nl < n);
    if (b->kind == B_LIST) {
        size_t from = b->strip_names ? vb : 0;
        cJSON *item = text_value(s + from, n - from, decode, tmp);
        if (item && cJSON_AddItemToArray(container, item))
            return true;
        cJSON_Delete(item);
        return false;
    }
    cJSON *val = text_value(s + vb, n - vb, decode, tmp);
    cJSON *key = text_value(s, nl, decode, tmp);
    bool ok = val && key && cJSON_AddItemToObject(container, key->valuestring, val);
    if (!ok)
        cJSON_Delete(val);
    cJSON_Delete(key);
    return ok;
}

static cJSON *binding_value(const binding *b, bool decode, mcps_buf *tmp)
{
    if (b->kind == B_STR)
        return text_value(b->s, b->n, decode, tmp);
    cJSON *c = b->kind == B_LIST ? cJSON_CreateArray() : cJSON_CreateObject();
    for (size_t i = 0; c && i <= b->n;) {
        size_t e = item_end(b->s, i, b->n, b->split);
        if (!add_item(c, b, b->s + i, e - i, decode, tmp)) {
            cJSON_Delete(c);
            return NULL;
        }
        i = e + 1;
    }
    return c;
}

static bool starts_with(const cJSON *full, const cJSON *pre)
{
    if (!cJSON_IsString(full))
        return false;
    size_t n = strlen(pre->valuestring);
    return strncmp(full->valuestring, pre->valuestring, n) == 0;
}

/* 0: conflict, 1: consistent (keep the slot), 2: consistent (keep the new value). */
static int merge_rule(const slot *s, int state, const cJSON *val)
{
    if (s->state == 0)
        return 2;
    if (s->state == 1 || state == 1)
        return s->state == state;
    if (s->state == 2 && state == 2)
        return cJSON_Compare(s->val, val, true) ? 1 : 0;
    if (s->state == 2)
        return starts_with(s->val, val);
    if (starts_with(val, s->val))
        return 2;
    return state == 3 && starts_with(s->val, val);
}

/* Merge one occurrence (state 1 undefined, 2 value, 3 prefix) into its slot; owns val. */
static bool merge(slot *s, cJSON *val, int state)
{
    int r = merge_rule(s, state, val);
    if (r == 2) {
        cJSON_Delete(s->val);
        s->val = val;
        s->state = state;
    } else {
        cJSON_Delete(val);
    }
    return r != 0;
}

static mcps_tmpl_match_result merge_expr(matcher *m, const tpart *p, slot *slots, mcps_buf *tmp)
{
    for (size_t i = 0; i < p->nvars; i++) {
        const tvar *v = &m->t->vars[p->var0 + i];
        const binding *b = &m->bind[i];
        cJSON *val = NULL;
        int state = 1;
        if (b->kind != B_UNDEF) {
            val = binding_value(b, !p->op->reserved, tmp);
            if (!val)
                return MCPS_TMPL_MATCH_OOM;
            state = v->prefix ? 3 : 2;
        }
        if (!merge(&slots[v->id], val, state))
            return MCPS_TMPL_NO_MATCH;
    }
    return MCPS_TMPL_MATCH;
}

/* Values of every expression at the current boundaries, merged per variable. */
static mcps_tmpl_match_result merge_all(matcher *m, slot *slots)
{
    mcps_buf tmp = {0};
    mcps_tmpl_match_result r = MCPS_TMPL_MATCH;
    for (size_t k = 0; k < m->t->nparts && r == MCPS_TMPL_MATCH; k++) {
        const tpart *p = &m->t->parts[k];
        if (!p->op)
            continue;
        bind_expr(m, p, m->u + m->start[k], m->start[k + 1] - m->start[k]);
        r = merge_expr(m, p, slots, &tmp);
    }
    mcps_buf_free(&tmp);
    return r;
}

static mcps_tmpl_match_result build_object(const mcps_tmpl *t, slot *slots, cJSON **values)
{
    cJSON *obj = cJSON_CreateObject();
    if (!obj)
        return MCPS_TMPL_MATCH_OOM;
    for (size_t id = 0; id < t->ndistinct; id++) {
        if (slots[id].state < 2)
            continue;
        if (!cJSON_AddItemToObject(obj, t->names[id], slots[id].val)) {
            cJSON_Delete(obj);
            return MCPS_TMPL_MATCH_OOM;
        }
        slots[id].val = NULL;
    }
    *values = obj;
    return MCPS_TMPL_MATCH;
}

/* A full split was found: check repeated variables agree and collect values. */
static mcps_tmpl_match_result finalize(matcher *m, cJSON **values)
{
    const mcps_tmpl *t = m->t;
    if (!values && t->ndistinct == t->nvars)
        return MCPS_TMPL_MATCH;
    m->work += m->len;
    slot *slots = calloc(t->ndistinct ? t->ndistinct : 1, sizeof *slots);
    if (!slots)
        return MCPS_TMPL_MATCH_OOM;
    mcps_tmpl_match_result r = merge_all(m, slots);
    if (r == MCPS_TMPL_MATCH && values)
        r = build_object(t, slots, values);
    for (size_t id = 0; id < t->ndistinct; id++)
        cJSON_Delete(slots[id].val);
    free(slots);
    return r;
}

/* ---- matcher: the search ---- */

static bool memo_bit(const matcher *m, size_t k, size_t pos, bool set)
{
    if (!m->memo)
        return false;
    size_t bit = k * (m->len + 1) + pos;
    unsigned char mask = (unsigned char)(1u << (bit & 7));
    if (set)
        m->memo[bit >> 3] |= mask;
    return (m->memo[bit >> 3] & mask) != 0;
}

/* End of the longest run at pos that expression p's characters allow. */
static size_t scan_end(matcher *m, const tpart *p, size_t pos)
{
    size_t i = pos;
    if (p->op->first) {
        if (i >= m->len || m->u[i] != p->op->first)
            return pos;
        i++;
    }
    while (i < m->len) {
        unsigned char c = (unsigned char)m->u[i];
        if (c == '%' && is_triplet(m->u, i, m->len))
            i += 3;
        else if (c != '%' && in_class(p, c))
            i++;
        else
            break;
    }
    m->work += i - pos + 1;
    return i;
}

static bool end_viable(const matcher *m, size_t k, size_t e)
{
    size_t pos = m->start[k];
    if ((e >= pos + 1 && m->u[e - 1] == '%') || (e >= pos + 2 && m->u[e - 2] == '%'))
        return false;
    if (k + 1 == m->t->nparts)
        return e == m->len;
    const tpart *next = &m->t->parts[k + 1];
    return next->op || (e < m->len && m->u[e] == m->t->pool[next->off]);
}

static void enter(matcher *m, size_t k)
{
    const tpart *p = &m->t->parts[k];
    m->more[k] = !memo_bit(m, k, m->start[k], false);
    if (!p->op || !m->more[k])
        return;
    m->next[k] = scan_end(m, p, m->start[k]);
    if (k + 1 == m->t->nparts && m->next[k] != m->len)
        m->more[k] = false;
}

static bool advance_literal(matcher *m, size_t k)
{
    const tpart *p = &m->t->parts[k];
    size_t pos = m->start[k];
    m->more[k] = false;
    m->work += p->len;
    if (m->len - pos < p->len || memcmp(m->u + pos, m->t->pool + p->off, p->len) != 0)
        return false;
    m->start[k + 1] = pos + p->len;
    return true;
}

/* Next end for expression k, longest first; the last part may only end at len. */
static bool advance_expr(matcher *m, size_t k)
{
    const tpart *p = &m->t->parts[k];
    size_t pos = m->start[k];
    bool last = k + 1 == m->t->nparts;
    while (m->more[k] && m->work <= m->budget) {
        size_t e = m->next[k];
        m->more[k] = e > pos && !last;
        m->next[k] = e - (e > pos);
        m->work++;
        if (end_viable(m, k, e) && bind_expr(m, p, m->u + pos, e - pos)) {
            m->start[k + 1] = e;
            return true;
        }
    }
    return false;
}

/* A template that starts or ends with a literal needs the URI to as well. */
static bool outer_literals_fit(const matcher *m)
{
    const tpart *first = &m->t->parts[0], *last = &m->t->parts[m->t->nparts - 1];
    const char *pool = m->t->pool;
    if (!first->op && (m->len < first->len || memcmp(m->u, pool + first->off, first->len)))
        return false;
    return last->op ||
           (m->len >= last->len && !memcmp(m->u + m->len - last->len, pool + last->off, last->len));
}

static mcps_tmpl_match_result search(matcher *m, cJSON **values)
{
    size_t n = m->t->nparts, k = 0;
    if (n == 0)
        return m->len == 0 ? finalize(m, values) : MCPS_TMPL_NO_MATCH;
    if (!outer_literals_fit(m))
        return MCPS_TMPL_NO_MATCH;
    m->start[0] = 0;
    enter(m, 0);
    for (;;) {
        const tpart *p = &m->t->parts[k];
        bool ok = m->more[k] && (p->op ? advance_expr(m, k) : advance_literal(m, k));
        if (m->work > m->budget)
            return MCPS_TMPL_MATCH_TOO_COMPLEX;
        if (!ok) {
            memo_bit(m, k, m->start[k], true);
            if (k == 0)
                return MCPS_TMPL_NO_MATCH;
            k--;
        } else if (k + 1 < n) {
            enter(m, ++k);
        } else if (m->start[n] == m->len) {
            mcps_tmpl_match_result r = finalize(m, values);
            if (r != MCPS_TMPL_NO_MATCH)
                return r;
        }
    }
}

/* Failure memo for templates whose variables never repeat, when it is small. */
static unsigned char *make_memo(const mcps_tmpl *t, size_t len)
{
    size_t exprs = 0;
    for (size_t k = 0; k < t->nparts; k++)
        exprs += t->parts[k].op != NULL;
    if (exprs < 2 || t->ndistinct != t->nvars || len >= ((size_t)1 << 23))
        return NULL;
    size_t bits = t->nparts * (len + 1);
    if (bits / (len + 1) != t->nparts || bits > ((size_t)1 << 23))
        return NULL;
    return calloc(bits / 8 + 1, 1);
}

static size_t work_budget(size_t len)
{
    size_t per = MCPS_TMPL_MATCH_WORK_PER_BYTE;
    if (len >= (SIZE_MAX - MCPS_TMPL_MATCH_WORK_BASE) / per - 1)
        return SIZE_MAX;
    return per * (len + 1) + MCPS_TMPL_MATCH_WORK_BASE;
}

mcps_tmpl_match_result mcps_tmpl_match(const mcps_tmpl *t, const char *uri, size_t len,
                                       cJSON **values)
{
    if (values)
        *values = NULL;
    size_t n = t->nparts;
    matcher m = {.t = t, .u = uri, .len = len, .budget = work_budget(len)};
    m.start = malloc((n + 1) * sizeof *m.start);
    m.next = malloc((n + 1) * sizeof *m.next);
    m.more = malloc((n + 1) * sizeof *m.more);
    m.bind = malloc((t->max_expr_vars + 1) * sizeof *m.bind);
    m.memo = make_memo(t, len);
    mcps_tmpl_match_result r = MCPS_TMPL_MATCH_OOM;
    if (m.start && m.next && m.more && m.bind)
        r = search(&m, values);
    free(m.start);
    free(m.next);
    free(m.more);
    free(m.bind);
    free(m.memo);
    return r;
}
