/*
 * fuzz_rpc.c - fuzz target for JSON-RPC classification and serialization
 * (harness/codec/rpc.h).
 *
 * Input: one JSON text (no prefix). Inputs our codec rejects never reach the
 * classifier, so the seed check insists that seeds parse. Each message is
 * classified under every revision (and MCPS_REV_NONE): revision rules are
 * exercised without spending input bytes on choosing one.
 *
 * Invariants, each an abort when broken:
 *  - classification never crashes, and its kind matches the message's shape
 *    (a request has its method and id, a result its result, an array is a batch...);
 *  - every violation has a message and non-empty requirement IDs, each of which
 *    exists in the catalog (mcps_catalog_find);
 *  - revision-specific rules stay out of MCPS_REV_NONE;
 *  - mcps_rpc_line gives exactly one newline, at the end, and the line parses
 *    back to an equal tree that classifies the same way;
 *  - a request rebuilt with mcps_rpc_request from its own id, method and params
 *    classifies as the same request.
 */
#include "fuzz.h"

#include "codec/json.h"
#include "codec/rev.h"
#include "codec/rpc.h"
#include "engine/catalog.h"

#include <string.h>

#define RPC_MAX_LEN 4096 /* keep in step with -max_len in fuzz/rpc.options */

bool fuzz_seed_wellformed(const uint8_t *data, size_t size, bool handwritten, const char **why)
{
    (void)handwritten; /* the same rules for every input: it must parse */
    if (size > RPC_MAX_LEN) {
        *why = "longer than -max_len in fuzz/rpc.options: the fuzzer would cut it";
        return false;
    }
    cJSON *msg = mcps_json_parse_simple((const char *)data, size);
    if (!msg) {
        *why =
            "not JSON our codec accepts: it never reaches the classifier (seed fuzz_json instead)";
        return false;
    }
    mcps_json_delete(msg);
    return true;
}

static bool cites(const mcps_rpc_info *info, const char *id)
{
    size_t kept =
        info->nviolations < MCPS_RPC_MAX_VIOLATIONS ? info->nviolations : MCPS_RPC_MAX_VIOLATIONS;
    for (size_t i = 0; i < kept; i++) {
        const char *s = info->violations[i].reqs;
        size_t n = strlen(id);
        for (const char *p = strstr(s, id); p; p = strstr(p + 1, id))
            if ((p == s || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
                return true;
    }
    return false;
}

static void check_reqs(const char *reqs)
{
    FUZZ_CHECK(reqs != NULL && reqs[0] != '\0');
    for (const char *p = reqs; *p;) {
        size_t n = strcspn(p, " ");
        char id[64];
        FUZZ_CHECK(n > 0 && n < sizeof id);
        memcpy(id, p, n);
        id[n] = '\0';
        if (!mcps_catalog_find(id)) {
            fprintf(stderr, "fuzz_rpc: violation cites \"%s\", which the catalog does not have\n",
                    id);
            abort();
        }
        p += n;
        if (*p == ' ') {
            p++;
            FUZZ_CHECK(*p != '\0' && *p != ' '); /* single spaces between IDs */
        }
    }
}

static void check_info(const cJSON *msg, const mcps_rpc_info *info, mcps_rev rev, bool item)
{
    size_t kept =
        info->nviolations < MCPS_RPC_MAX_VIOLATIONS ? info->nviolations : MCPS_RPC_MAX_VIOLATIONS;
    for (size_t i = 0; i < kept; i++) {
        check_reqs(info->violations[i].reqs);
        const char *m = info->violations[i].message;
        FUZZ_CHECK(m[0] != '\0' && memchr(m, '\0', sizeof info->violations[i].message));
    }
    if (rev == MCPS_REV_NONE)
        FUZZ_CHECK(!cites(info, "BATCH-005") && !cites(info, "BATCH-006") &&
                   !cites(info, "RPC-RT-001"));
    if (cJSON_IsArray(msg)) {
        FUZZ_CHECK(info->kind == (item ? MCPS_RPC_INVALID : MCPS_RPC_BATCH));
        return;
    }
    if (!cJSON_IsObject(msg)) {
        FUZZ_CHECK(info->kind == MCPS_RPC_INVALID && info->nviolations > 0);
        return;
    }
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    FUZZ_CHECK(info->id == cJSON_GetObjectItemCaseSensitive(msg, "id"));
    FUZZ_CHECK(info->params == cJSON_GetObjectItemCaseSensitive(msg, "params"));
    if (cites(info, "RPC-MSG-001"))
        FUZZ_CHECK(info->kind == MCPS_RPC_INVALID); /* a broken envelope is invalid */
    switch (info->kind) {
    case MCPS_RPC_INVALID:
        FUZZ_CHECK(info->nviolations > 0);
        break;
    case MCPS_RPC_REQUEST:
    case MCPS_RPC_NOTIFICATION:
        FUZZ_CHECK(cJSON_IsString(method) && info->method == method->valuestring);
        FUZZ_CHECK((info->kind == MCPS_RPC_REQUEST) == (info->id != NULL));
        FUZZ_CHECK(!info->result && !info->error);
        break;
    case MCPS_RPC_RESULT:
        FUZZ_CHECK(!method && info->result && !info->error);
        FUZZ_CHECK(info->result == cJSON_GetObjectItemCaseSensitive(msg, "result"));
        break;
    case MCPS_RPC_ERROR:
        FUZZ_CHECK(!method && info->error && !info->result);
        FUZZ_CHECK(info->error == cJSON_GetObjectItemCaseSensitive(msg, "error"));
        break;
    default:
        FUZZ_CHECK(!"a kind outside the enum, or a batch that is not an array");
    }
    char none[16];
    mcps_rpc_id_text(NULL, none, sizeof none);
    FUZZ_CHECK(strcmp(none, "(none)") == 0 && !mcps_rpc_id_equal(NULL, info->id ? info->id : msg));
    if (info->id) {
        char text[40];
        mcps_rpc_id_text(info->id, text, sizeof text);
        FUZZ_CHECK(memchr(text, '\0', sizeof text) != NULL);
        FUZZ_CHECK(mcps_rpc_id_equal(info->id, info->id));
    }
}

/* Same classification: kind and the violations' requirement IDs, in order. */
static bool same_verdict(const mcps_rpc_info *a, const mcps_rpc_info *b)
{
    if (a->kind != b->kind || a->nviolations != b->nviolations)
        return false;
    for (size_t i = 0; i < a->nviolations && i < MCPS_RPC_MAX_VIOLATIONS; i++)
        if (strcmp(a->violations[i].reqs, b->violations[i].reqs) != 0)
            return false;
    return true;
}

static void classify_all(const cJSON *msg, mcps_rev rev)
{
    mcps_rpc_info info;
    mcps_rpc_classify(msg, rev, &info);
    check_info(msg, &info, rev, false);
    const char *kind = mcps_rpc_kind_name(info.kind);
    FUZZ_CHECK(kind && kind[0]);
    if (info.kind == MCPS_RPC_BATCH) {
        for (const cJSON *item = msg->child; item; item = item->next) {
            mcps_rpc_info it;
            mcps_rpc_classify_batch_item(item, rev, &it);
            check_info(item, &it, rev, true);
        }
    }
}

static void check_line(const cJSON *msg)
{
    size_t len = 0;
    char *line = mcps_rpc_line(msg, &len);
    FUZZ_CHECK(line != NULL && len >= 2);
    FUZZ_CHECK(strlen(line) == len);
    FUZZ_CHECK(line[len - 1] == '\n' && memchr(line, '\n', len - 1) == NULL);
    cJSON *back = mcps_json_parse_simple(line, len - 1);
    FUZZ_CHECK(back != NULL && mcps_json_equal(msg, back));
    mcps_rpc_info a, b;
    mcps_rpc_classify(msg, MCPS_REV_2025_03_26, &a);
    mcps_rpc_classify(back, MCPS_REV_2025_03_26, &b);
    FUZZ_CHECK(same_verdict(&a, &b));
    mcps_json_delete(back);
    free(line);
}

/* Rebuild a well-formed request from its parts: the builder must say the same. */
/* A deep copy that keeps exact number text; NULL stays NULL. */
static cJSON *copy_of(const cJSON *item)
{
    if (!item)
        return NULL;
    char *text = mcps_json_print(item, NULL);
    FUZZ_CHECK(text != NULL);
    cJSON *copy = mcps_json_parse_simple(text, strlen(text));
    FUZZ_CHECK(copy != NULL);
    free(text);
    return copy;
}

static void check_notification_builder(const mcps_rpc_info *info)
{
    cJSON *built = mcps_rpc_notification(info->method, copy_of(info->params));
    FUZZ_CHECK(built != NULL);
    mcps_rpc_info again;
    mcps_rpc_classify(built, MCPS_REV_NONE, &again);
    FUZZ_CHECK(again.kind == MCPS_RPC_NOTIFICATION && strcmp(again.method, info->method) == 0);
    FUZZ_CHECK(again.nviolations == info->nviolations);
    mcps_json_delete(built);
}

static void check_builder(const cJSON *msg)
{
    mcps_rpc_info info;
    mcps_rpc_classify(msg, MCPS_REV_NONE, &info);
    if (info.kind == MCPS_RPC_NOTIFICATION)
        check_notification_builder(&info);
    if (info.kind != MCPS_RPC_REQUEST || !mcps_rpc_id_valid(info.id))
        return;
    char *id = mcps_json_print(info.id, NULL);
    FUZZ_CHECK(id != NULL);
    cJSON *built = mcps_rpc_request(id, info.method, copy_of(info.params));
    FUZZ_CHECK(built != NULL);
    mcps_rpc_info again;
    mcps_rpc_classify(built, MCPS_REV_NONE, &again);
    FUZZ_CHECK(again.kind == MCPS_RPC_REQUEST);
    FUZZ_CHECK(strcmp(again.method, info.method) == 0);
    FUZZ_CHECK(mcps_rpc_id_equal(again.id, info.id));
    FUZZ_CHECK(again.nviolations == info.nviolations);
    mcps_json_delete(built);
    free(id);
}

/* Revision names met in the message: the name table must round-trip. */
static void check_revision_names(const cJSON *msg)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(msg, "result");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(params ? params : result, "protocolVersion");
    if (!cJSON_IsString(v))
        return;
    mcps_rev rev = mcps_rev_parse(v->valuestring);
    if (rev != MCPS_REV_NONE)
        FUZZ_CHECK(strcmp(mcps_rev_name(rev), v->valuestring) == 0);
    mcps_rev_set set;
    if (mcps_rev_set_parse(v->valuestring, &set)) {
        FUZZ_CHECK(set != 0 && (set & ~(mcps_rev_set)MCPS_REV_ALL) == 0);
        for (int r = -1; r <= MCPS_REV_COUNT; r++) {
            bool in = r >= 0 && r < MCPS_REV_COUNT && (set & MCPS_REV_BIT(r));
            FUZZ_CHECK(mcps_rev_set_has(set, (mcps_rev)r) == in);
            FUZZ_CHECK(
                mcps_rev_is_handshake((mcps_rev)r) ==
                (r >= 0 && r < MCPS_REV_COUNT && (MCPS_REV_HANDSHAKE_ERA & MCPS_REV_BIT(r))));
        }
    }
    FUZZ_CHECK(strcmp(mcps_rev_name(MCPS_REV_NONE), "none") == 0);
    if (rev != MCPS_REV_NONE)
        FUZZ_CHECK(mcps_rev_set_parse(v->valuestring, &set) && set == MCPS_REV_BIT(rev));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > RPC_MAX_LEN)
        return 0;
    cJSON *msg = mcps_json_parse_simple((const char *)data, size);
    if (!msg)
        return 0;
    classify_all(msg, MCPS_REV_NONE);
    for (int r = 0; r < MCPS_REV_COUNT; r++)
        classify_all(msg, (mcps_rev)r);
    check_line(msg);
    if (cJSON_IsObject(msg)) {
        check_builder(msg);
        check_revision_names(msg);
    }
    mcps_json_delete(msg);
    return 0;
}
