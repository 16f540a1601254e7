/*
 * jsonschema_rxvm.c - runs compiled "pattern" regexes: a Pike VM, and a random walk.
 *
 * The VM keeps at most one thread per instruction and advances all of them
 * together over the input, one code point at a time, so a hostile pattern such
 * as ^(a+)+$ costs (instructions x input length) at worst instead of the
 * exponential time of a backtracking matcher; a caller budget caps even that.
 * Only "is there a match anywhere?" is answered, so no captures are tracked.
 *
 * The random walk runs the same program forwards to invent matching strings for
 * the value generator. UTF-8 helpers live here because both directions need them.
 */
#include "schema/jsonschema_internal.h"

#include "base/utf8.h"

#include <stdlib.h>

/* ---- UTF-8 (base/utf8.h decides; these add the codec's C0 80 and U+FFFD) ---- */

size_t mcps_si_utf8_next(const unsigned char *s, size_t len, uint32_t *cp)
{
    if (len >= 2 && s[0] == 0xC0 && s[1] == 0x80) {
        *cp = 0;
        return 2;
    }
    size_t n = mcps_utf8_decode(s, len, cp, NULL);
    if (n)
        return n;
    *cp = 0xFFFD;
    return 1;
}

size_t mcps_si_utf8_count(const char *s)
{
    return mcps_utf8_count(s);
}

void mcps_si_utf8_put(mcps_buf *b, uint32_t cp)
{
    unsigned char t[4];
    mcps_buf_append(b, t, mcps_utf8_encode(cp, t));
}

/* ---- matching ------------------------------------------------------------------- */

static bool class_has(const mcps_schema_regex *re, uint32_t k, uint32_t cp)
{
    const mcps_si_rx_class *c = &re->classes[k];
    bool in = false;
    for (uint32_t i = 0; i < c->count && !in; i++) {
        const mcps_si_rx_range *r = &re->ranges[c->first + i];
        in = cp >= r->lo && cp <= r->hi;
    }
    return in != c->negated;
}

static bool is_line_end(uint32_t cp)
{
    return cp == '\n' || cp == '\r' || cp == 0x2028 || cp == 0x2029;
}

static bool is_word(uint32_t cp)
{
    return cp != RX_NONE &&
           ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z' ? true
                                                     : (cp >= '0' && cp <= '9') || cp == '_');
}

static bool consumes(const mcps_schema_regex *re, const mcps_si_rx_inst *in, uint32_t cp)
{
    switch (in->op) {
    case RX_CHAR:
        return cp == in->x;
    case RX_ANY:
        return !is_line_end(cp);
    case RX_CLASS:
        return class_has(re, in->x, cp);
    default:
        return false;
    }
}

/* Where the VM stands between two characters; RX_NONE at either end. */
typedef struct rx_here {
    uint32_t before, after;
} rx_here;

typedef struct rx_vm {
    const mcps_schema_regex *re;
    size_t *mark; /* generation that last visited each pc */
    uint32_t *stack;
    size_t *budget;
    bool out_of_budget;
} rx_vm;

typedef struct rx_list {
    uint32_t *pc;
    size_t n;
    size_t gen;
} rx_list;

static bool assertion_holds(mcps_si_rx_op op, rx_here h)
{
    switch (op) {
    case RX_BOL:
        return h.before == RX_NONE;
    case RX_EOL:
        return h.after == RX_NONE;
    case RX_WORDB:
        return is_word(h.before) != is_word(h.after);
    default:
        return is_word(h.before) == is_word(h.after);
    }
}

static void push(rx_vm *vm, size_t *top, const rx_list *l, uint32_t pc)
{
    if (vm->mark[pc] != l->gen) {
        vm->mark[pc] = l->gen;
        vm->stack[(*top)++] = pc;
    }
}

/* Follow the epsilon moves from pc; true when MATCH is reachable here. */
static bool add_thread(rx_vm *vm, rx_list *l, uint32_t pc, rx_here h)
{
    size_t top = 0;
    push(vm, &top, l, pc);
    while (top) {
        if (*vm->budget == 0)
            return vm->out_of_budget = true, false;
        (*vm->budget)--;
        const mcps_si_rx_inst *in = &vm->re->prog[vm->stack[--top]];
        uint32_t at_pc = (uint32_t)(in - vm->re->prog);
        switch (in->op) {
        case RX_MATCH:
            return true;
        case RX_JMP:
            push(vm, &top, l, in->x);
            break;
        case RX_SPLIT:
            push(vm, &top, l, in->y);
            push(vm, &top, l, in->x);
            break;
        case RX_BOL:
        case RX_EOL:
        case RX_WORDB:
        case RX_NWORDB:
            if (assertion_holds(in->op, h))
                push(vm, &top, l, at_pc + 1);
            break;
        default:
            l->pc[l->n++] = at_pc;
        }
    }
    return false;
}

static uint32_t cp_at(const unsigned char *s, size_t len, size_t pos, size_t *adv)
{
    uint32_t cp;
    if (pos >= len) {
        *adv = 0;
        return RX_NONE;
    }
    *adv = mcps_si_utf8_next(s + pos, len - pos, &cp);
    return cp;
}

/* Advance every thread of cur over cp into nxt; true on a match. */
static bool step(rx_vm *vm, const rx_list *cur, rx_list *nxt, uint32_t cp, rx_here h)
{
    for (size_t i = 0; i < cur->n && !vm->out_of_budget; i++) {
        const mcps_si_rx_inst *in = &vm->re->prog[cur->pc[i]];
        if (consumes(vm->re, in, cp) && add_thread(vm, nxt, cur->pc[i] + 1, h))
            return true;
    }
    return false;
}

static int run(rx_vm *vm, rx_list *cur, rx_list *nxt, const unsigned char *s, size_t len)
{
    size_t pos = 0, adv, gen = 1;
    uint32_t before = RX_NONE, cp = cp_at(s, len, 0, &adv);
    cur->gen = gen;
    for (;;) {
        rx_here h = {before, cp};
        if ((!vm->re->anchored || pos == 0) && add_thread(vm, cur, 0, h))
            return 1;
        if (vm->out_of_budget)
            return -1;
        if (pos >= len || (vm->re->anchored && cur->n == 0))
            return 0;
        size_t next_adv;
        uint32_t after = cp_at(s, len, pos + adv, &next_adv);
        nxt->n = 0;
        nxt->gen = ++gen;
        if (step(vm, cur, nxt, cp, (rx_here){cp, after}))
            return 1;
        if (vm->out_of_budget)
            return -1;
        rx_list t = *cur;
        *cur = *nxt;
        *nxt = t;
        pos += adv;
        adv = next_adv;
        before = cp;
        cp = after;
    }
}

int mcps_schema_regex_search(const mcps_schema_regex *re, const char *text, size_t len,
                             size_t *budget)
{
    size_t n = re->n;
    rx_vm vm = {re, calloc(n, sizeof(size_t)), malloc(n * sizeof(uint32_t)), budget, false};
    rx_list a = {malloc(n * sizeof(uint32_t)), 0, 0};
    rx_list b = {malloc(n * sizeof(uint32_t)), 0, 0};
    int r = -1; /* out of memory reads as out of budget: no verdict */
    if (vm.mark && vm.stack && a.pc && b.pc)
        r = run(&vm, &a, &b, (const unsigned char *)text, len);
    free(vm.mark);
    free(vm.stack);
    free(a.pc);
    free(b.pc);
    return r;
}

/* ---- generation ----------------------------------------------------------------- */

static bool usable_cp(uint32_t cp)
{
    return cp != 0 && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
}

/* A code point from class k, preferring printable ASCII for negated classes. */
static bool pick_from_class(const mcps_schema_regex *re, uint32_t k, mcps_schema_prng *prng,
                            uint32_t *cp)
{
    const mcps_si_rx_class *c = &re->classes[k];
    for (int tries = 0; tries < 32; tries++) {
        if (c->negated || c->count == 0) {
            *cp = 0x20 + (uint32_t)mcps_schema_prng_below(prng, 0x5F);
        } else {
            const mcps_si_rx_range *r =
                &re->ranges[c->first + mcps_schema_prng_below(prng, c->count)];
            *cp = r->lo + (uint32_t)mcps_schema_prng_below(prng, (uint64_t)r->hi - r->lo + 1);
        }
        if (usable_cp(*cp) && class_has(re, k, *cp))
            return true;
    }
    return false;
}

/* Take a quantifier's body? Likely while short of the target, unlikely after. */
static bool take_body(mcps_schema_prng *prng, size_t emitted, size_t target)
{
    return mcps_schema_prng_below(prng, 8) < (emitted < target ? 6u : 1u);
}

bool mcps_si_regex_generate(const mcps_schema_regex *re, mcps_schema_prng *prng, size_t target,
                            mcps_buf *out)
{
    size_t pc = 0, emitted = 0;
    bool ended = false;
    for (int steps = 0; steps < 20000; steps++) {
        const mcps_si_rx_inst *in = &re->prog[pc];
        uint32_t cp = 0;
        switch (in->op) {
        case RX_MATCH:
            return true;
        case RX_JMP:
            pc = in->x;
            continue;
        case RX_SPLIT:
            if (in->optional)
                pc = take_body(prng, emitted, target) ? in->x : in->y;
            else
                pc = mcps_schema_prng_below(prng, 2) ? in->x : in->y;
            continue;
        case RX_BOL:
            if (emitted)
                return false;
            pc++;
            continue;
        case RX_EOL:
            ended = true;
            pc++;
            continue;
        case RX_WORDB:
        case RX_NWORDB:
            pc++; /* the caller's check rejects a walk that broke these */
            continue;
        case RX_CHAR:
            cp = in->x;
            break;
        case RX_ANY:
            cp = 'a' + (uint32_t)mcps_schema_prng_below(prng, 26);
            break;
        default:
            if (!pick_from_class(re, in->x, prng, &cp))
                return false;
        }
        if (ended)
            return false;
        mcps_si_utf8_put(out, cp);
        emitted++;
        pc++;
    }
    return false;
}
