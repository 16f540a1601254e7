/*
 * client.c - requests refserver sends to the client, made by the tools that
 * need them: ask-llm (sampling/createMessage), ask-user (a form
 * elicitation/create) and connect-account (a URL-mode one, 2025-11-25).
 *
 * The tool call is answered when the client's response arrives, matched by
 * the integer id refserver gave its request; a response nobody waits for is
 * ignored, as JSON-RPC allows. A request left unanswered is given up after a
 * deadline (LIFE-TIME-001): from 2025-03-26 with notifications/cancelled
 * naming it (LIFE-TIME-002), and the tool call ends with an isError result.
 * Requests go only to clients that declared the capability (CAP-GEN-001).
 * In 2026-07-28 the same tools send no request: they answer with an
 * InputRequiredResult holding it, and the retry brings the answer (MRTR).
 */
#include "tools.h"

#include "codec/json.h"
#include "schema/jsonschema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RS_SAMPLING_WAIT_MS    3000
#define RS_ELICITATION_WAIT_MS 30000

typedef enum rs_ask { RS_ASK_SAMPLING, RS_ASK_FORM, RS_ASK_URL } rs_ask;

struct rs_call {
    unsigned long id; /* our request's id */
    rs_ask kind;
    cJSON *call_id;   /* the tools/call to answer */
    rs_batch *batch;  /* its batch, or NULL */
    cJSON *schema;    /* RS_ASK_FORM: the requestedSchema the answer must fit */
    int64_t deadline; /* give up then; -1: never (the sampling-never-gives-up fault) */
    rs_call *next;
};

/* 2026-07-28: the tools' questions inside InputRequiredResults (below). */
static void stateless_ask_llm(rs_server *s, const rs_req *req, const cJSON *args, rs_reply *r);
static void stateless_ask_user(rs_server *s, const rs_req *req, rs_reply *r);
static void stateless_connect_account(rs_server *s, const rs_req *req, rs_reply *r);

/* ---- what the client declared ---- */

static const cJSON *client_cap(const rs_server *s, const char *name, const char *sub)
{
    const cJSON *cap = cJSON_GetObjectItemCaseSensitive(s->client_caps, name);
    if (!cJSON_IsObject(cap) || !sub)
        return cJSON_IsObject(cap) ? cap : NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cap, sub);
    return cJSON_IsObject(v) ? v : NULL;
}

/* elicitation: {} means form only; {"url": {}} alone means URL only. */
static bool client_has_form(const rs_server *s)
{
    const cJSON *e = client_cap(s, "elicitation", NULL);
    return e && (!e->child || client_cap(s, "elicitation", "form"));
}

/* ---- pending requests ---- */

static void call_free(rs_call *c)
{
    mcps_json_delete(c->call_id);
    mcps_json_delete(c->schema);
    free(c);
}

static cJSON *request_new(rs_server *s, const char *method, unsigned long *id)
{
    *id = ++s->request_seq;
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddNumberToObject(m, "id", (double)*id);
    cJSON_AddStringToObject(m, "method", method);
    return m;
}

/* Send the request and remember the tools/call it answers; r is answered later. */
static void ask(rs_server *s, const rs_req *req, rs_ask kind, cJSON *msg, unsigned long id,
                cJSON *schema, rs_reply *r)
{
    rs_call *c = calloc(1, sizeof *c);
    if (!c || !(c->call_id = cJSON_Duplicate(req->id, true))) {
        free(c);
        mcps_json_delete(msg);
        mcps_json_delete(schema);
        rs_fail(r, RS_INTERNAL_ERROR, "Out of memory");
        return;
    }
    c->id = id;
    c->kind = kind;
    c->schema = schema;
    c->batch = req->batch;
    if (c->batch)
        rs_batch_retain(c->batch);
    int64_t wait = kind == RS_ASK_SAMPLING ? RS_SAMPLING_WAIT_MS : RS_ELICITATION_WAIT_MS;
    bool forever = kind == RS_ASK_SAMPLING && rs_fault_on(s, RS_FAULT_SAMPLING_NEVER_GIVES_UP);
    c->deadline = forever ? -1 : rs_now_ms() + wait;
    c->next = s->calls;
    s->calls = c;
    rs_write_response(s, msg);
    r->handled = true;
}

static void answer_call(rs_server *s, rs_call *c, cJSON *result)
{
    rs_reply r = {0};
    rs_ok(&r, result);
    rs_answer(s, c->call_id, c->batch, &r);
    if (c->batch)
        rs_batch_release(s, c->batch);
}

static rs_call *take_call(rs_server *s, unsigned long id)
{
    for (rs_call **link = &s->calls; *link; link = &(*link)->next) {
        if ((*link)->id == id) {
            rs_call *c = *link;
            *link = c->next;
            return c;
        }
    }
    return NULL;
}

/* ---- sampling ---- */

static cJSON *text_block(const char *type, const char *text)
{
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "type", type);
    cJSON_AddStringToObject(c, "text", text);
    return c;
}

static void add_message(cJSON *messages, const char *role, cJSON *content)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "role", role);
    cJSON_AddItemToObject(m, "content", content);
    cJSON_AddItemToArray(messages, m);
}

static cJSON *model_preferences(const rs_server *s)
{
    cJSON *p = cJSON_CreateObject();
    cJSON *hint = cJSON_CreateObject();
    cJSON_AddStringToObject(hint, "name", "small");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "hints"), hint);
    cJSON_AddNumberToObject(p, "costPriority",
                            rs_fault_on(s, RS_FAULT_SAMPLING_PRIORITY_RANGE) ? 1.5 : 0.8);
    cJSON_AddNumberToObject(p, "speedPriority", 0.5);
    cJSON_AddNumberToObject(p, "intelligencePriority", 0.2);
    return p;
}

/* In 2025-11-25, to a client with sampling.tools: one tool the model may use (SAMP-008). */
static void add_tools(const rs_server *s, cJSON *params)
{
    bool declared = client_cap(s, "sampling", "tools") != NULL;
    if (!rs_rev_at_least(s, MCPS_REV_2025_11_25) ||
        (!declared && !rs_fault_on(s, RS_FAULT_SAMPLING_TOOLS_UNDECLARED)))
        return;
    cJSON *tool = cJSON_CreateObject();
    cJSON_AddStringToObject(tool, "name", "lookup");
    cJSON_AddStringToObject(tool, "description", "Looks a word up in a dictionary.");
    cJSON *schema = cJSON_AddObjectToObject(tool, "inputSchema");
    cJSON_AddStringToObject(schema, "type", "object");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(params, "tools"), tool);
    bool bad = rs_fault_on(s, RS_FAULT_SAMPLING_BAD_TOOL_CHOICE);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(params, "toolChoice"), "mode",
                            bad ? "always" : "auto");
}

static cJSON *sampling_params(const rs_server *s, const char *question)
{
    cJSON *params = cJSON_CreateObject();
    cJSON *messages = cJSON_AddArrayToObject(params, "messages");
    add_message(messages, "user", text_block("text", question));
    if (rs_fault_on(s, RS_FAULT_SAMPLING_AUDIO_EARLY) && !rs_rev_at_least(s, MCPS_REV_2025_03_26)) {
        cJSON *audio = cJSON_CreateObject();
        cJSON_AddStringToObject(audio, "type", "audio");
        cJSON_AddStringToObject(audio, "data", "UklGRgAAAAA=");
        cJSON_AddStringToObject(audio, "mimeType", "audio/wav");
        add_message(messages, "user", audio);
    }
    cJSON_AddItemToObject(params, "modelPreferences", model_preferences(s));
    cJSON_AddStringToObject(params, "systemPrompt", "Answer in one short sentence.");
    cJSON_AddStringToObject(params, "includeContext", "none");
    if (!rs_fault_on(s, RS_FAULT_SAMPLING_NO_MAX_TOKENS))
        cJSON_AddNumberToObject(params, "maxTokens", 100);
    if (rs_fault_on(s, RS_FAULT_SERVER_REQUEST_BAD_TOKEN))
        cJSON_AddNumberToObject(cJSON_AddObjectToObject(params, "_meta"), "progressToken", 1.5);
    add_tools(s, params);
    return params;
}

void rs_tool_ask_llm(rs_server *s, const rs_req *req, const cJSON *args, rs_reply *r)
{
    if (rs_stateless(s)) {
        stateless_ask_llm(s, req, args, r);
        return;
    }
    if (!client_cap(s, "sampling", NULL) || req->task_id) {
        rs_ok(r,
              rs_tool_result("The client offers no sampling, so there is no model to ask.", true));
        return;
    }
    const char *question = cJSON_GetObjectItemCaseSensitive(args, "question")->valuestring;
    unsigned long id;
    cJSON *msg = request_new(s, "sampling/createMessage", &id);
    cJSON_AddItemToObject(msg, "params", sampling_params(s, question));
    ask(s, req, RS_ASK_SAMPLING, msg, id, NULL, r);
}

static cJSON *sampled(const cJSON *result)
{
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(result, "content");
    if (cJSON_IsArray(content))
        content = content->child;
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(content, "text");
    char buf[512];
    snprintf(buf, sizeof buf, "The model answered: %.400s",
             cJSON_IsString(text) ? text->valuestring : "(no text)");
    return rs_tool_result(buf, false);
}

/* ---- elicitation ---- */

static cJSON *property(cJSON *props, const char *name, const char *type, const char *description)
{
    cJSON *p = cJSON_AddObjectToObject(props, name);
    cJSON_AddStringToObject(p, "type", type);
    cJSON_AddStringToObject(p, "description", description);
    return p;
}

/* A flat schema of primitives (ELIC-002), asking for nothing sensitive (ELIC-004/005). */
static cJSON *contact_schema(const rs_server *s)
{
    cJSON *schema = cJSON_CreateObject();
    cJSON_AddStringToObject(schema, "type", "object");
    cJSON *props = cJSON_AddObjectToObject(schema, "properties");
    cJSON_AddNumberToObject(property(props, "name", "string", "Your name"), "minLength", 1);
    cJSON *age = property(props, "age", "integer", "Your age in years");
    cJSON_AddNumberToObject(age, "minimum", 0);
    cJSON_AddNumberToObject(age, "maximum", 150);
    property(props, "newsletter", "boolean", "Send me the newsletter");
    cJSON *color = property(props, "color", "string", "Favourite colour");
    cJSON *choices = cJSON_AddArrayToObject(color, "enum");
    for (const char *const *c = (const char *const[]){"red", "green", "blue", NULL}; *c; c++)
        cJSON_AddItemToArray(choices, cJSON_CreateString(*c));
    if (rs_fault_on(s, RS_FAULT_ELICIT_NESTED)) {
        cJSON *address = property(props, "address", "object", "Your postal address");
        property(cJSON_AddObjectToObject(address, "properties"), "city", "string", "City");
    }
    if (rs_fault_on(s, RS_FAULT_ELICIT_ASKS_PASSWORD))
        property(props, "password", "string", "The password of your account");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(schema, "required"), cJSON_CreateString("name"));
    cJSON_AddBoolToObject(schema, "additionalProperties", false);
    return schema;
}

void rs_tool_ask_user(rs_server *s, const rs_req *req, const cJSON *args, rs_reply *r)
{
    (void)args;
    if (rs_stateless(s)) {
        stateless_ask_user(s, req, r);
        return;
    }
    if (!rs_rev_at_least(s, MCPS_REV_2025_06_18) || !client_has_form(s) || req->task_id) {
        rs_ok(r,
              rs_tool_result("The client offers no form elicitation to ask the user with.", true));
        return;
    }
    unsigned long id;
    cJSON *msg = request_new(s, "elicitation/create", &id);
    cJSON *params = cJSON_AddObjectToObject(msg, "params");
    if (rs_rev_at_least(s, MCPS_REV_2025_11_25))
        cJSON_AddStringToObject(params, "mode", "form");
    if (!rs_fault_on(s, RS_FAULT_ELICIT_NO_MESSAGE))
        cJSON_AddStringToObject(params, "message", "Please share your contact details.");
    cJSON *schema = contact_schema(s);
    cJSON_AddItemToObject(params, "requestedSchema", cJSON_Duplicate(schema, true));
    ask(s, req, RS_ASK_FORM, msg, id, schema, r);
}

/* ELIC-018: accepted content must fit the requested schema before it is used. */
static cJSON *form_answered(const rs_server *s, const cJSON *schema, const cJSON *result)
{
    const cJSON *action = cJSON_GetObjectItemCaseSensitive(result, "action");
    const char *a = cJSON_IsString(action) ? action->valuestring : "";
    if (strcmp(a, "accept") != 0)
        return rs_tool_result(strcmp(a, "decline") == 0 ? "The user declined to answer."
                                                        : "The user cancelled the question.",
                              false);
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(result, "content");
    mcps_schema_result check;
    bool fits = cJSON_IsObject(content) &&
                mcps_schema_validate(schema, content, NULL, &check) == MCPS_SCHEMA_VALID;
    if (cJSON_IsObject(content))
        mcps_schema_result_free(&check);
    if (!fits && !rs_fault_on(s, RS_FAULT_ELICIT_TRUSTS_ANSWER))
        return rs_tool_result("The answer does not match the requested form; nothing was used.",
                              true);
    return rs_tool_result("Thank you: your details were recorded.", false);
}

/* 2025-11-25: the -32042 error that tells a client without URL mode what it needs (ELIC-014). */
static void url_required(rs_server *s, rs_reply *r, const char *url, const char *elicitation_id)
{
    rs_fail(r, RS_URL_ELICITATION_REQUIRED, "URL elicitation required");
    if (rs_fault_on(s, RS_FAULT_URL_ELICIT_BARE_ERROR))
        return;
    r->data = cJSON_CreateObject();
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "mode", "url");
    cJSON_AddStringToObject(e, "elicitationId", elicitation_id);
    cJSON_AddStringToObject(e, "url", url);
    cJSON_AddStringToObject(e, "message", "Open the page to connect your account.");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(r->data, "elicitations"), e);
}

void rs_tool_connect_account(rs_server *s, const rs_req *req, const cJSON *args, rs_reply *r)
{
    (void)args;
    if (rs_stateless(s)) {
        stateless_connect_account(s, req, r);
        return;
    }
    if (!rs_rev_at_least(s, MCPS_REV_2025_11_25) || req->task_id) {
        rs_ok(r, rs_tool_result("URL elicitation needs protocol revision 2025-11-25.", true));
        return;
    }
    char url[128], elicitation_id[48];
    unsigned long n = s->request_seq + 1;
    snprintf(elicitation_id, sizeof elicitation_id, "connect-%lu", n);
    snprintf(url, sizeof url, "%s://accounts.example.com/connect?request=%lu%s",
             rs_fault_on(s, RS_FAULT_URL_ELICIT_HTTP) ? "http" : "https", n,
             rs_fault_on(s, RS_FAULT_URL_ELICIT_TOKEN) ? "&access_token=s3cr3t" : "");
    if (!client_cap(s, "elicitation", "url") || rs_fault_on(s, RS_FAULT_URL_ELICIT_BARE_ERROR)) {
        url_required(s, r, url, elicitation_id);
        return;
    }
    unsigned long id;
    cJSON *msg = request_new(s, "elicitation/create", &id);
    cJSON *params = cJSON_AddObjectToObject(msg, "params");
    cJSON_AddStringToObject(params, "mode", "url");
    cJSON_AddStringToObject(params, "message", "Open the page to connect your account.");
    cJSON_AddStringToObject(params, "elicitationId", elicitation_id);
    cJSON_AddStringToObject(params, "url", url);
    ask(s, req, RS_ASK_URL, msg, id, NULL, r);
}

static cJSON *url_answered(const cJSON *result)
{
    const cJSON *action = cJSON_GetObjectItemCaseSensitive(result, "action");
    bool accepted = cJSON_IsString(action) && strcmp(action->valuestring, "accept") == 0;
    return rs_tool_result(accepted ? "Finish connecting your account in the browser."
                                   : "The account was not connected.",
                          false);
}

/* ---- 2026-07-28: the same questions inside InputRequiredResults ---- */

static cJSON *input_request(const char *method, cJSON *params)
{
    cJSON *q = cJSON_CreateObject();
    cJSON_AddStringToObject(q, "method", method);
    cJSON_AddItemToObject(q, "params", params);
    return q;
}

/* A CreateMessageResult: a role and content. */
static bool sampling_answer_ok(const cJSON *a)
{
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(a, "content");
    return cJSON_IsObject(a) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(a, "role")) &&
           (cJSON_IsObject(content) || cJSON_IsArray(content));
}

/* An ElicitResult: an action of the three, content an object if present. */
static bool elicit_answer_ok(const cJSON *a)
{
    const cJSON *action = cJSON_GetObjectItemCaseSensitive(a, "action");
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(a, "content");
    return cJSON_IsObject(a) && cJSON_IsString(action) &&
           (strcmp(action->valuestring, "accept") == 0 ||
            strcmp(action->valuestring, "decline") == 0 ||
            strcmp(action->valuestring, "cancel") == 0) &&
           (!content || cJSON_IsObject(content));
}

/* The decline-unanswered fault: a declined or cancelled question leaves the call hanging. */
static bool hangs_on(const rs_server *s, const cJSON *answer, rs_reply *r)
{
    const cJSON *action = cJSON_GetObjectItemCaseSensitive(answer, "action");
    if (!rs_fault_on(s, RS_FAULT_DECLINE_UNANSWERED) || strcmp(action->valuestring, "accept") == 0)
        return false;
    r->handled = true;
    return true;
}

static void stateless_ask_llm(rs_server *s, const rs_req *req, const cJSON *args, rs_reply *r)
{
    if (rs_stateless_ask_client(s, "sampling", NULL, r))
        return;
    const char *question = cJSON_GetObjectItemCaseSensitive(args, "question")->valuestring;
    cJSON *q = input_request("sampling/createMessage", sampling_params(s, question));
    const cJSON *answer = rs_mrtr_answer(s, req, "llm", q, sampling_answer_ok, r);
    if (answer)
        rs_ok(r, sampled(answer));
}

static void stateless_ask_user(rs_server *s, const rs_req *req, rs_reply *r)
{
    if (rs_stateless_ask_client(s, "elicitation", NULL, r))
        return;
    cJSON *params = cJSON_CreateObject();
    cJSON_AddStringToObject(params, "mode", "form");
    if (!rs_fault_on(s, RS_FAULT_ELICIT_NO_MESSAGE))
        cJSON_AddStringToObject(params, "message", "Please share your contact details.");
    cJSON *schema = contact_schema(s);
    cJSON_AddItemToObject(params, "requestedSchema", cJSON_Duplicate(schema, true));
    cJSON *q = input_request("elicitation/create", params);
    const cJSON *answer = rs_mrtr_answer(s, req, "contact", q, elicit_answer_ok, r);
    if (answer && !hangs_on(s, answer, r))
        rs_ok(r, form_answered(s, schema, answer));
    mcps_json_delete(schema);
}

/* URL mode without elicitationId (ELIC-019): the retry's requestState correlates. */
static void stateless_connect_account(rs_server *s, const rs_req *req, rs_reply *r)
{
    if (rs_stateless_ask_client(s, "elicitation", "url", r))
        return;
    char url[128];
    snprintf(url, sizeof url, "%s://accounts.example.com/connect%s",
             rs_fault_on(s, RS_FAULT_URL_ELICIT_HTTP) ? "http" : "https",
             rs_fault_on(s, RS_FAULT_URL_ELICIT_TOKEN) ? "?access_token=s3cr3t" : "");
    cJSON *params = cJSON_CreateObject();
    cJSON_AddStringToObject(params, "mode", "url");
    cJSON_AddStringToObject(params, "message", "Open the page to connect your account.");
    cJSON_AddStringToObject(params, "url", url);
    const cJSON *answer = rs_mrtr_answer(
        s, req, "account", input_request("elicitation/create", params), elicit_answer_ok, r);
    if (answer && !hangs_on(s, answer, r))
        rs_ok(r, url_answered(answer));
}

/* ---- responses and deadlines ---- */

void rs_on_response(rs_server *s, const cJSON *msg)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    rs_call *c = cJSON_IsNumber(id) && id->valuedouble >= 1
                     ? take_call(s, (unsigned long)id->valuedouble)
                     : NULL;
    if (!c) {
        rs_debug(s, "ignoring a response to no pending request");
        return;
    }
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(msg, "result");
    cJSON *answer;
    if (!cJSON_IsObject(result))
        answer = rs_tool_result("The client refused the request.", true);
    else if (c->kind == RS_ASK_SAMPLING)
        answer = sampled(result);
    else if (c->kind == RS_ASK_FORM)
        answer = form_answered(s, c->schema, result);
    else
        answer = url_answered(result);
    answer_call(s, c, answer);
    call_free(c);
}

int64_t rs_calls_timeout(const rs_server *s)
{
    int64_t next = -1;
    for (const rs_call *c = s->calls; c; c = c->next)
        if (c->deadline >= 0 && (next < 0 || c->deadline < next))
            next = c->deadline;
    if (next < 0)
        return -1;
    int64_t wait = next - rs_now_ms();
    return wait < 0 ? 0 : wait;
}

static void give_up(rs_server *s, rs_call *c)
{
    if (rs_rev_at_least(s, MCPS_REV_2025_03_26)) {
        cJSON *params = cJSON_CreateObject();
        cJSON_AddNumberToObject(params, "requestId", (double)c->id);
        cJSON_AddStringToObject(params, "reason", "No answer in time");
        rs_notify(s, "notifications/cancelled", params);
    }
    answer_call(s, c, rs_tool_result("The client did not answer in time.", true));
}

void rs_calls_expire(rs_server *s)
{
    int64_t now = rs_now_ms();
    for (rs_call **link = &s->calls; *link && !s->done;) {
        rs_call *c = *link;
        if (c->deadline < 0 || c->deadline > now) {
            link = &c->next;
            continue;
        }
        *link = c->next;
        give_up(s, c);
        call_free(c);
    }
}

void rs_calls_free(rs_server *s)
{
    while (s->calls) {
        rs_call *c = s->calls;
        s->calls = c->next;
        if (c->batch)
            rs_batch_abandon(c->batch);
        call_free(c);
    }
}

/* The request-before-initialized fault: ask for roots before notifications/initialized. */
void rs_ask_roots_early(rs_server *s)
{
    unsigned long id;
    cJSON *msg = request_new(s, "roots/list", &id);
    rs_write_response(s, msg);
}
