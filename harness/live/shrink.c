/*
 * shrink.c - value shrinking (shrink.h). Each candidate is one change to the
 * message's tree, printed and tested on the whole sequence; a rejected change
 * is undone by parsing the last accepted text again, so nodes are addressed
 * by their pre-order index, which survives that.
 */
#include "live/shrink.h"

#include <stdlib.h>
#include <string.h>

#define MAX_REMOVALS 8 /* children a container may lose one by one: bounded cost per node */

typedef struct shrinker {
    mcps_live_seq *q;
    size_t at; /* the message being shrunk */
    mcps_live_shrink_test test;
    void *ctx;
    size_t tests, max_tests;
    cJSON *root; /* the accepted tree of message at */
} shrinker;

/* The node at pre-order index *idx below v, or NULL (*idx counts down). */
static cJSON *nth(cJSON *v, size_t *idx)
{
    if (*idx == 0)
        return v;
    --*idx;
    for (cJSON *c = v->child; c; c = c->next) {
        cJSON *got = nth(c, idx);
        if (got)
            return got;
    }
    return NULL;
}

static cJSON *node(shrinker *s, size_t idx)
{
    return nth(s->root, &idx);
}

/* Test the tree as it is now; keep it when the failure stays, else go back to the accepted one. */
static bool try_tree(shrinker *s)
{
    if (s->tests >= s->max_tests)
        return false;
    char *text = cJSON_PrintUnformatted(s->root);
    if (!text)
        return false;
    mcps_live_input *in = &s->q->items[s->at];
    mcps_live_input old = *in;
    *in = (mcps_live_input){text, strlen(text), old.headers};
    s->tests++;
    if (s->test(s->ctx, s->q)) {
        free(old.bytes);
        return true;
    }
    *in = old;
    free(text);
    cJSON_Delete(s->root);
    s->root = cJSON_ParseWithLength(in->bytes, in->len);
    return false;
}

static bool set_string(shrinker *s, size_t idx, size_t len)
{
    cJSON *v = node(s, idx);
    char *cut = malloc(len + 1);
    if (!cut)
        return false;
    memcpy(cut, v->valuestring, len);
    cut[len] = '\0';
    bool ok = cJSON_SetValuestring(v, cut) != NULL;
    free(cut);
    return ok && try_tree(s);
}

/* "" first; else halves while they still fail. */
static void shrink_string(shrinker *s, size_t idx)
{
    size_t len = strlen(node(s, idx)->valuestring);
    if (!len || set_string(s, idx, 0))
        return;
    while (len > 1 && s->root && set_string(s, idx, len / 2))
        len /= 2;
}

static void shrink_number(shrinker *s, size_t idx)
{
    cJSON *v = node(s, idx);
    if (v->valuedouble == 0.0)
        return;
    cJSON_SetNumberValue(v, 0);
    try_tree(s);
}

static size_t children(const cJSON *v)
{
    size_t n = 0;
    for (const cJSON *c = v->child; c; c = c->next)
        n++;
    return n;
}

/* The second half of the children at once, then children one by one from the end. */
static void shrink_container(shrinker *s, size_t idx)
{
    size_t n = children(node(s, idx));
    if (n >= 4) {
        cJSON *v = node(s, idx);
        for (size_t k = n; k > n / 2; k--)
            cJSON_Delete(cJSON_DetachItemViaPointer(v, cJSON_GetArrayItem(v, (int)k - 1)));
        if (try_tree(s))
            n /= 2;
    }
    for (size_t k = n, tries = 0; k > 0 && tries < MAX_REMOVALS && s->root; k--, tries++) {
        cJSON *v = node(s, idx);
        cJSON_Delete(cJSON_DetachItemViaPointer(v, cJSON_GetArrayItem(v, (int)k - 1)));
        try_tree(s);
    }
}

static void shrink_message(shrinker *s)
{
    for (size_t idx = 0; s->root && s->tests < s->max_tests; idx++) {
        cJSON *v = node(s, idx);
        if (!v)
            break;
        if (cJSON_IsString(v))
            shrink_string(s, idx);
        else if (cJSON_IsNumber(v))
            shrink_number(s, idx);
        else if (v->child)
            shrink_container(s, idx);
    }
}

size_t mcps_live_shrink(mcps_live_seq *q, mcps_live_shrink_test test, void *ctx, size_t max_tests)
{
    shrinker s = {.q = q, .test = test, .ctx = ctx, .max_tests = max_tests};
    for (s.at = 0; s.at < q->n && s.tests < max_tests; s.at++) {
        s.root = cJSON_ParseWithLength(q->items[s.at].bytes, q->items[s.at].len);
        if (s.root)
            shrink_message(&s);
        cJSON_Delete(s.root);
    }
    return s.tests;
}
