/*
 * jsonschema_kwobj.c - object keywords, the combinators (allOf, anyOf, oneOf,
 * not, if/then/else) and $ref.
 *
 * Combinators run three-valued logic: a branch that cannot be checked makes
 * the result UNKNOWN only when it could change the answer. Errors found in a
 * branch that does not decide the outcome (a failing anyOf branch when another
 * passes, the condition of an if) are rolled back, so the report lists only
 * what the instance really broke. A $ref that returns to a (schema, instance)
 * pair already on the evaluation path is a loop that consumes no input.
 */
#include "schema/jsonschema_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- objects -------------------------------------------------------------------- */

static mcps_si_outcome kw_properties(mcps_si_vctx *c, const mcps_si_kw *k)
{
    KW_PATH(sp, k);
    mcps_si_outcome acc = R_OK;
    if (!cJSON_IsObject(k->kw))
        return mcps_si_bad_schema(c, k, "properties must be an object of schemas");
    if (!cJSON_IsObject(k->inst))
        return R_OK;
    size_t pos = 0;
    for (const cJSON *m = k->inst->child; m && !mcps_si_done(c, acc); m = m->next, pos++) {
        const cJSON *sub = cJSON_GetObjectItemCaseSensitive(k->kw, m->string);
        mcps_si_spend(c, 1);
        if (!sub)
            continue;
        KEY_PATH(ssp, &sp, sub->string);
        KEY_PATH(ip, k->ip, m->string);
        mcps_si_mark(c, k->inst, pos);
        acc = mcps_si_both(acc, mcps_si_apply(c, sub, m, &ssp, &ip));
    }
    return acc;
}

/*
 * A subschema applied to a property that may or may not be in its scope (the
 * regex deciding it cannot run): a failure then means "cannot tell".
 */
static mcps_si_outcome apply_maybe(mcps_si_vctx *c, bool maybe, mcps_si_rx_site at,
                                   const char *pattern, const cJSON *sub, const cJSON *m,
                                   const mcps_si_path *sp, const mcps_si_path *ip)
{
    size_t mark = c->out->nerrors;
    mcps_si_outcome r = mcps_si_apply(c, sub, m, sp, ip);
    if (!maybe || r != R_FAIL)
        return r;
    mcps_si_result_rollback(c->out, mark);
    return mcps_si_regex_unknown(c, at, pattern, "whether the property name matches");
}

static mcps_si_outcome kw_pattern_properties(mcps_si_vctx *c, const mcps_si_kw *k)
{
    KW_PATH(sp, k);
    mcps_si_outcome acc = R_OK;
    if (!cJSON_IsObject(k->kw))
        return mcps_si_bad_schema(c, k, "patternProperties must be an object of schemas");
    if (!cJSON_IsObject(k->inst))
        return R_OK;
    for (const cJSON *p = k->kw->child; p && !mcps_si_done(c, acc); p = p->next) {
        KEY_PATH(psp, &sp, p->string);
        size_t pos = 0;
        for (const cJSON *m = k->inst->child; m && !mcps_si_done(c, acc); m = m->next, pos++) {
            KEY_PATH(ip, k->ip, m->string);
            mcps_si_rx_site at = {&ip, &sp, p->string};
            int r = mcps_si_regex_test(c, at, p->string, m->string);
            if (r == -2)
                return R_ABORT;
            if (r == 1)
                mcps_si_mark(c, k->inst, pos);
            if (r != 0)
                acc = mcps_si_both(acc, apply_maybe(c, r < 0, at, p->string, p, m, &psp, &ip));
        }
    }
    return acc;
}

/* Is key matched by a patternProperties pattern? 1, 0, -1 cannot tell, -2 aborted. */
static int pattern_covers(mcps_si_vctx *c, const mcps_si_kw *k, const char *key,
                          const mcps_si_path *ip, const char **unknown_pattern)
{
    const cJSON *pats = mcps_si_sibling(k, "patternProperties");
    KEY_PATH(sp, k->sp, "patternProperties");
    int verdict = 0;
    if (!cJSON_IsObject(pats))
        return 0;
    for (const cJSON *p = pats->child; p; p = p->next) {
        int r = mcps_si_regex_test(c, (mcps_si_rx_site){ip, &sp, p->string}, p->string, key);
        if (r == 1 || r == -2)
            return r;
        if (r == -1) {
            verdict = -1;
            *unknown_pattern = p->string;
        }
    }
    return verdict;
}

static mcps_si_outcome kw_additional_properties(mcps_si_vctx *c, const mcps_si_kw *k)
{
    KW_PATH(sp, k);
    const cJSON *props = mcps_si_sibling(k, "properties");
    mcps_si_outcome acc = R_OK;
    if (!mcps_si_is_schema(k->kw))
        return mcps_si_bad_schema(c, k, "additionalProperties must be a schema");
    if (!cJSON_IsObject(k->inst))
        return R_OK;
    size_t pos = 0;
    for (const cJSON *m = k->inst->child; m && !mcps_si_done(c, acc); m = m->next, pos++) {
        const char *unknown = NULL;
        mcps_si_spend(c, 1);
        if (cJSON_IsObject(props) && cJSON_GetObjectItemCaseSensitive(props, m->string))
            continue;
        mcps_si_mark(c, k->inst, pos);
        KEY_PATH(ip, k->ip, m->string);
        int covered = pattern_covers(c, k, m->string, &ip, &unknown);
        if (covered == 1)
            continue;
        if (covered == -2)
            return R_ABORT;
        KEY_PATH(psp, k->sp, "patternProperties");
        mcps_si_rx_site at = {&ip, &psp, unknown};
        if (cJSON_IsFalse(k->kw) && covered == 0)
            acc = mcps_si_both(acc, mcps_si_fail(c, k, &ip,
                                                 "property \"%.80s\" is not allowed "
                                                 "(%s is false)",
                                                 m->string, k->kw->string));
        else
            acc = mcps_si_both(acc, apply_maybe(c, covered < 0, at, unknown, k->kw, m, &sp, &ip));
    }
    return acc;
}

static mcps_si_outcome kw_property_names(mcps_si_vctx *c, const mcps_si_kw *k)
{
    KW_PATH(sp, k);
    mcps_si_outcome acc = R_OK;
    if (!mcps_si_is_schema(k->kw))
        return mcps_si_bad_schema(c, k, "propertyNames must be a schema");
    if (!cJSON_IsObject(k->inst))
        return R_OK;
    for (const cJSON *m = k->inst->child; m && !mcps_si_done(c, acc); m = m->next) {
        cJSON name = {0};
        name.type = cJSON_String;
        name.valuestring = m->string;
        KEY_PATH(ip, k->ip, m->string);
        acc = mcps_si_both(acc, mcps_si_apply(c, k->kw, &name, &sp, &ip));
    }
    return acc;
}

static mcps_si_outcome kw_max_properties(mcps_si_vctx *c, const mcps_si_kw *k)
{
    return mcps_si_count_bound(c, k, cJSON_IsObject(k->inst), (size_t)cJSON_GetArraySize(k->inst),
                               true);
}

static mcps_si_outcome kw_min_properties(mcps_si_vctx *c, const mcps_si_kw *k)
{
    return mcps_si_count_bound(c, k, cJSON_IsObject(k->inst), (size_t)cJSON_GetArraySize(k->inst),
                               false);
}

static bool string_array(const cJSON *v)
{
    if (!cJSON_IsArray(v))
        return false;
    for (const cJSON *e = v->child; e; e = e->next)
        if (!cJSON_IsString(e))
            return false;
    return true;
}

static bool has_member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key) != NULL;
}

static mcps_si_outcome kw_required(mcps_si_vctx *c, const mcps_si_kw *k)
{
    mcps_si_outcome acc = R_OK;
    if (!string_array(k->kw))
        return mcps_si_bad_schema(c, k, "required must be an array of strings");
    if (!cJSON_IsObject(k->inst))
        return R_OK;
    for (const cJSON *e = k->kw->child; e && !mcps_si_done(c, acc); e = e->next)
        if (!has_member(k->inst, e->valuestring))
            acc = mcps_si_fail(c, k, k->ip, "missing required property \"%.80s\"", e->valuestring);
    return acc;
}

/* Properties that must be present because trigger is. */
static mcps_si_outcome require_all(mcps_si_vctx *c, const mcps_si_kw *k, const char *trigger,
                                   const cJSON *names)
{
    mcps_si_outcome acc = R_OK;
    for (const cJSON *e = names->child; e && !mcps_si_done(c, acc); e = e->next)
        if (!has_member(k->inst, e->valuestring))
            acc = mcps_si_fail(c, k, k->ip, "property \"%.60s\" requires property \"%.60s\"",
                               trigger, e->valuestring);
    return acc;
}

static mcps_si_outcome kw_dependent_required(mcps_si_vctx *c, const mcps_si_kw *k)
{
    mcps_si_outcome acc = R_OK;
    if (!cJSON_IsObject(k->kw))
        return mcps_si_bad_schema(c, k, "dependentRequired must be an object of string arrays");
    for (const cJSON *d = k->kw->child; d; d = d->next)
        if (!string_array(d))
            return mcps_si_bad_schema(c, k, "dependentRequired must be an object of string arrays");
    if (!cJSON_IsObject(k->inst))
        return R_OK;
    for (const cJSON *d = k->kw->child; d && !mcps_si_done(c, acc); d = d->next)
        if (has_member(k->inst, d->string))
            acc = mcps_si_both(acc, require_all(c, k, d->string, d));
    return acc;
}

/* dependentSchemas, and draft-07 dependencies whose values are schemas or name arrays. */
static mcps_si_outcome dependencies(mcps_si_vctx *c, const mcps_si_kw *k, bool allow_names)
{
    KW_PATH(sp, k);
    mcps_si_outcome acc = R_OK;
    if (!cJSON_IsObject(k->kw))
        return mcps_si_bad_schema(c, k, "must be an object");
    for (const cJSON *d = k->kw->child; d; d = d->next)
        if (!mcps_si_is_schema(d) && !(allow_names && string_array(d)))
            return mcps_si_bad_schema(c, k,
                                      allow_names ? "values must be schemas or arrays of strings"
                                                  : "values must be schemas");
    if (!cJSON_IsObject(k->inst))
        return R_OK;
    for (const cJSON *d = k->kw->child; d && !mcps_si_done(c, acc); d = d->next) {
        if (!has_member(k->inst, d->string))
            continue;
        KEY_PATH(dsp, &sp, d->string);
        acc = mcps_si_both(acc, cJSON_IsArray(d) ? require_all(c, k, d->string, d)
                                                 : mcps_si_apply(c, d, k->inst, &dsp, k->ip));
    }
    return acc;
}

static mcps_si_outcome kw_dependent_schemas(mcps_si_vctx *c, const mcps_si_kw *k)
{
    return dependencies(c, k, false);
}

static mcps_si_outcome kw_dependencies(mcps_si_vctx *c, const mcps_si_kw *k)
{
    return dependencies(c, k, true);
}

/* ---- combinators ---------------------------------------------------------------- */

static bool schema_list(const cJSON *v)
{
    if (!cJSON_IsArray(v) || !v->child)
        return false;
    for (const cJSON *e = v->child; e; e = e->next)
        if (!mcps_si_is_schema(e))
            return false;
    return true;
}

static mcps_si_outcome kw_all_of(mcps_si_vctx *c, const mcps_si_kw *k)
{
    KW_PATH(sp, k);
    mcps_si_outcome acc = R_OK;
    size_t i = 0;
    if (!schema_list(k->kw))
        return mcps_si_bad_schema(c, k, "allOf must be a non-empty array of schemas");
    for (const cJSON *sub = k->kw->child; sub && !mcps_si_done(c, acc); sub = sub->next, i++) {
        INDEX_PATH(ssp, &sp, i);
        acc = mcps_si_both(acc, mcps_si_apply(c, sub, k->inst, &ssp, k->ip));
    }
    return acc;
}

static mcps_si_outcome kw_any_of(mcps_si_vctx *c, const mcps_si_kw *k)
{
    KW_PATH(sp, k);
    size_t i = 0, mark = c->out->nerrors;
    bool unknown = false;
    if (!schema_list(k->kw))
        return mcps_si_bad_schema(c, k, "anyOf must be a non-empty array of schemas");
    bool passed = false, all = mcps_si_collecting(c, k->inst); /* every passing branch annotates */
    for (const cJSON *sub = k->kw->child; sub && !(passed && !all); sub = sub->next, i++) {
        INDEX_PATH(ssp, &sp, i);
        mcps_si_outcome r = mcps_si_apply(c, sub, k->inst, &ssp, k->ip);
        if (r == R_ABORT)
            return r;
        passed |= r == R_OK;
        unknown |= r == R_UNKNOWN;
    }
    if (passed) {
        mcps_si_result_rollback(c->out, mark);
        return R_OK;
    }
    if (unknown)
        return R_UNKNOWN;
    return mcps_si_fail(c, k, k->ip, "value matches none of the %zu anyOf alternatives", i);
}

static mcps_si_outcome kw_one_of(mcps_si_vctx *c, const mcps_si_kw *k)
{
    KW_PATH(sp, k);
    size_t i = 0, passes = 0, unknowns = 0, first = 0, mark = c->out->nerrors;
    if (!schema_list(k->kw))
        return mcps_si_bad_schema(c, k, "oneOf must be a non-empty array of schemas");
    for (const cJSON *sub = k->kw->child; sub && passes < 2; sub = sub->next, i++) {
        INDEX_PATH(ssp, &sp, i);
        mcps_si_outcome r = mcps_si_apply(c, sub, k->inst, &ssp, k->ip);
        if (r == R_ABORT)
            return r;
        if (r == R_OK && passes++ == 0)
            first = i;
        unknowns += r == R_UNKNOWN;
    }
    if (passes >= 2) {
        mcps_si_result_rollback(c->out, mark);
        return mcps_si_fail(c, k, k->ip,
                            "value matches more than one oneOf alternative (%zu and %zu)", first,
                            i - 1);
    }
    if (passes == 1 && unknowns == 0) {
        mcps_si_result_rollback(c->out, mark);
        return R_OK;
    }
    if (passes + unknowns > 0)
        return R_UNKNOWN;
    return mcps_si_fail(c, k, k->ip, "value matches none of the %zu oneOf alternatives", i);
}

/* Evaluate a subschema only for its pass/fail, discarding its errors. */
static mcps_si_outcome probe(mcps_si_vctx *c, const cJSON *sub, const cJSON *inst,
                             const mcps_si_path *sp, const mcps_si_path *ip)
{
    size_t mark = c->out->nerrors;
    c->quiet++;
    mcps_si_outcome r = mcps_si_apply(c, sub, inst, sp, ip);
    c->quiet--;
    if (r == R_OK || r == R_FAIL)
        mcps_si_result_rollback(c->out, mark);
    return r;
}

static mcps_si_outcome kw_not(mcps_si_vctx *c, const mcps_si_kw *k)
{
    KW_PATH(sp, k);
    if (!mcps_si_is_schema(k->kw))
        return mcps_si_bad_schema(c, k, "not must be a schema");
    mcps_si_ann *ann = c->ann; /* what passes inside not annotates nothing */
    c->ann = NULL;
    mcps_si_outcome r = probe(c, k->kw, k->inst, &sp, k->ip);
    c->ann = ann;
    if (r == R_OK)
        return mcps_si_fail(c, k, k->ip, "value must not match the \"not\" schema");
    return r == R_FAIL ? R_OK : r;
}

/* then or else, when present. */
static mcps_si_outcome branch(mcps_si_vctx *c, const mcps_si_kw *k, const char *name)
{
    const cJSON *sub = mcps_si_sibling(k, name);
    KEY_PATH(sp, k->sp, name);
    return sub ? mcps_si_apply(c, sub, k->inst, &sp, k->ip) : R_OK;
}

static mcps_si_outcome kw_if(mcps_si_vctx *c, const mcps_si_kw *k)
{
    KW_PATH(sp, k);
    size_t mark = c->out->nerrors;
    if (!mcps_si_is_schema(k->kw))
        return mcps_si_bad_schema(c, k, "if must be a schema");
    mcps_si_outcome cond = probe(c, k->kw, k->inst, &sp, k->ip);
    if (cond == R_OK)
        return branch(c, k, "then");
    if (cond == R_FAIL)
        return branch(c, k, "else");
    if (cond == R_ABORT)
        return cond;
    mcps_si_outcome t = branch(c, k, "then");
    mcps_si_outcome e = t == R_ABORT ? t : branch(c, k, "else");
    if (t == R_OK && e == R_OK)
        mcps_si_result_rollback(c->out, mark);
    return t == e || e == R_ABORT ? e : R_UNKNOWN;
}

/* ---- references ----------------------------------------------------------------- */

/* A reference that lands where it was already evaluating the same value never ends. */
static mcps_si_outcome follow(mcps_si_vctx *c, const mcps_si_kw *k, const mcps_si_target *t)
{
    char msg[220];
    for (size_t i = 0; i < c->nrefs; i++) {
        if (c->refs[i].schema == t->node && c->refs[i].instance == k->inst) {
            snprintf(msg, sizeof msg,
                     "%s \"%.80s\" leads back to itself without consuming any of the value",
                     k->kw->string, k->kw->valuestring);
            return mcps_si_bad_schema(c, k, msg);
        }
    }
    if (c->nrefs >= c->opt.max_depth)
        return mcps_si_out_of_budget(c, k);
    c->refs[c->nrefs++] = (mcps_si_ref_frame){t->node, k->inst};
    mcps_si_path base = {NULL, NULL, 0, k->kw->valuestring};
    mcps_si_outcome r = mcps_si_apply_target(c, t, k->inst, &base, k->ip);
    c->nrefs--;
    return r;
}

static mcps_si_outcome reference(mcps_si_vctx *c, const mcps_si_kw *k, bool dynamic)
{
    char msg[220];
    mcps_si_target target;
    if (!cJSON_IsString(k->kw))
        return mcps_si_bad_schema(c, k, "a reference must be a string");
    const char *ref = k->kw->valuestring;
    mcps_si_ref_status st =
        dynamic ? mcps_si_index_resolve(c, ref, true, &target) : mcps_si_resolve(c, ref, &target);
    if (st == MCPS_SI_REF_BROKEN) {
        snprintf(msg, sizeof msg, "%s \"%.80s\" does not resolve within this schema", k->kw->string,
                 ref);
        return mcps_si_bad_schema(c, k, msg);
    }
    if (st == MCPS_SI_REF_EXTERNAL) {
        snprintf(msg, sizeof msg,
                 "cannot check: %s \"%.80s\" names a document we do not have, and references "
                 "are never fetched",
                 k->kw->string, ref);
        return mcps_si_unsupported(c, k, msg);
    }
    return follow(c, k, &target);
}

mcps_si_outcome mcps_si_kw_ref(mcps_si_vctx *c, const mcps_si_kw *k)
{
    return reference(c, k, false);
}

static mcps_si_outcome kw_dynamic_ref(mcps_si_vctx *c, const mcps_si_kw *k)
{
    return reference(c, k, true);
}

/*
 * unevaluatedProperties: applies to the members no keyword of this schema
 * object, nor of a passing subschema applied in place, has evaluated (the
 * annotations eval_object collects), and then counts them as evaluated too.
 */
static mcps_si_outcome kw_unevaluated_properties(mcps_si_vctx *c, const mcps_si_kw *k)
{
    KW_PATH(sp, k);
    mcps_si_outcome acc = R_OK;
    if (!mcps_si_is_schema(k->kw))
        return mcps_si_bad_schema(c, k, "must be a schema");
    if (!cJSON_IsObject(k->inst))
        return R_OK;
    size_t pos = 0;
    for (const cJSON *m = k->inst->child; m && !mcps_si_done(c, acc); m = m->next, pos++) {
        mcps_si_spend(c, 1);
        if (mcps_si_marked(c, pos))
            continue;
        KEY_PATH(ip, k->ip, m->string);
        mcps_si_outcome r = cJSON_IsFalse(k->kw)
                                ? mcps_si_fail(c, k, &ip,
                                               "property \"%.80s\" is not allowed (it is "
                                               "unevaluated and unevaluatedProperties is false)",
                                               m->string)
                                : mcps_si_apply(c, k->kw, m, &sp, &ip);
        acc = mcps_si_both(acc, r);
    }
    if (acc == R_OK)
        mcps_si_mark_from(c, k->inst, 0);
    return acc;
}

/* ---- table ---------------------------------------------------------------------- */

static const mcps_si_keyword KEYWORDS[] = {
    /* sorted by strcmp: looked up with bsearch */
    {"$dynamicRef", D20, kw_dynamic_ref},
    {"$ref", DALL, mcps_si_kw_ref},
    {"additionalProperties", DALL, kw_additional_properties},
    {"allOf", DALL, kw_all_of},
    {"anyOf", DALL, kw_any_of},
    {"dependencies", DALL, kw_dependencies}, /* 2020-12's meta-schema keeps it */
    {"dependentRequired", D20, kw_dependent_required},
    {"dependentSchemas", D20, kw_dependent_schemas},
    {"if", DALL, kw_if},
    {"maxProperties", DALL, kw_max_properties},
    {"minProperties", DALL, kw_min_properties},
    {"not", DALL, kw_not},
    {"oneOf", DALL, kw_one_of},
    {"patternProperties", DALL, kw_pattern_properties},
    {"properties", DALL, kw_properties},
    {"propertyNames", DALL, kw_property_names},
    {"required", DALL, kw_required},
    {"unevaluatedProperties", D20, kw_unevaluated_properties},
};

mcps_si_kw_fn mcps_si_object_keyword(const char *name, bool draft07)
{
    return mcps_si_find_keyword(KEYWORDS, sizeof KEYWORDS / sizeof *KEYWORDS, name, draft07);
}
