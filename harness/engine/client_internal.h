/*
 * client_internal.h - what the client engine's files share: the scenarios
 * the scripted server plays and the trace of what a client did in one.
 */
#ifndef MCPS_ENGINE_CLIENT_INTERNAL_H
#define MCPS_ENGINE_CLIENT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "engine/client.h"
#include "session/play.h"
#include "session/wirelog.h"
#include "transport/httpd.h"

/* What the scripted server does besides serving plainly. */
typedef enum mcps_client_scenario {
    MCPS_CSC_PLAIN,         /* answer initialize with the client's revision, serve tools */
    MCPS_CSC_SLOW_INIT,     /* answer initialize after a pause: does the client wait? */
    MCPS_CSC_OLDER,         /* answer with the revision before the one asked */
    MCPS_CSC_UNSUPPORTED,   /* answer with a revision nobody speaks */
    MCPS_CSC_PING,          /* ping the client while it waits on us */
    MCPS_CSC_ROOTS,         /* roots/list while it waits */
    MCPS_CSC_SAMPLING,      /* sampling/createMessage while it waits */
    MCPS_CSC_ELICIT,        /* elicitation/create (form) while it waits */
    MCPS_CSC_JUNK_ID,       /* a response to no request of its, then a ping */
    MCPS_CSC_JUNK_JSON,     /* a line that is not JSON, then a ping */
    MCPS_CSC_JUNK_NOTIF,    /* a response with a null id (as if to a notification), then a ping */
    MCPS_CSC_JUNK_DUP,      /* the initialize answer again (a duplicate response), then a ping */
    MCPS_CSC_HUGE,          /* a ping of 1 MiB (padding in its _meta) */
    MCPS_CSC_UNKNOWN,       /* a request whose method is 42, then one of a method nobody has */
    MCPS_CSC_PAGED,         /* tools/list in two pages: the second behind an opaque nextCursor */
    MCPS_CSC_CANCEL,        /* a ping, its cancellation and a malformed one, then a ping */
    MCPS_CSC_PROGRESS,      /* a ping carrying a progressToken while it waits */
    MCPS_CSC_BATCH,         /* 2025-03-26, stdio: two pings in one batch (a JSON array) */
    MCPS_CSC_SESSION_404,   /* HTTP: forget the session, answer its first request after
                               initialize 404 */
    MCPS_CSC_MODERN,        /* 2026-07-28: answer server/discover, serve stateless requests */
    MCPS_CSC_MODERN_REFUSE, /* 2026-07-28: the first modern request gets -32022 */
    MCPS_CSC_MODERN_INPUT,  /* 2026-07-28: the first tools/call gets an InputRequiredResult */
    MCPS_CSC_RESUME,        /* HTTP: the stream of its first request after initialize closes after
                               one event with an id; the answer waits for a GET resuming it */
    MCPS_CSC_MODERN_BREAK,  /* HTTP, 2026-07-28: the stream of its first request after
                               server/discover closes after one event; the request is lost */
    MCPS_CSC_MODERN_PAGED,  /* 2026-07-28: tools/list in four pages, page 2's nextCursor "",
                               page 3 empty (client_cases_modern.c) */
    MCPS_CSC_MODERN_ODD,    /* 2026-07-28: the DiscoverResult advertises an unknown extension; the
                               first tools/call gets -32001 (client_cases_modern.c) */
    MCPS_CSC_PROBE_CODE,    /* stdio: a legacy server answering a 2026-07-28 probe before
                               initialize with -32600, not -32601 (client_cases_modern.c) */
    MCPS_CSC_TASKS,         /* 2025-11-25: tasks declared, its tool's taskSupport "required";
                               the task goes working, then input_required (an elicitation on
                               tasks/result, to a client declaring it) or completed */
    MCPS_CSC_ODDITIES,      /* notifications/elicitation/complete for an unknown id, a url-mode
                               elicitation (id MCPS_CLIENT_CANCELLED_ID), then a ping carrying an
                               unknown io.modelcontextprotocol/ _meta key */
    MCPS_CSC_MODERN_DEPRECATED, /* 2026-07-28: an unknown reserved _meta key on the
                                   DiscoverResult; the first tools/call asks roots/list and
                                   sampling/createMessage inputRequests (MRTR) of a client
                                   declaring them (client_cases_modern_client.c) */
    MCPS_CSC_MODERN_SERVE,  /* stdio, 2026-07-28: tools listChanged, subscriptions/listen acked with
                               an empty filter, a tool list of 2020-12 schemas (a network $ref, a
                               deep nesting), an array structuredContent after a progress
                               notification (client_play_serve.c) */
    MCPS_CSC_MODERN_DROP,   /* stdio, 2026-07-28: the connection dropped at the client's first
                               request after server/discover and subscriptions/listen */
    MCPS_CSC_AUTH,          /* HTTP: a request without a token gets 401; the authorization
                               discovery URLs are served (mcps_play_http_auth), either era */
    MCPS_CSC_AUTH_ISSUER,   /* HTTP, 2026-07-28: the same, but the authorization server
                               metadata names another issuer than its URL's */
    MCPS_CSC_LEGACY_SERVER, /* HTTP ({url}): a 2024-11-05 HTTP+SSE server at the URL: the
                               initialize POST gets 405, a GET the SSE stream (HTTP-046) */
    MCPS_CSC_MODERN_HEADERS, /* HTTP, 2026-07-28: a tool whose name needs the base64 form in
                                Mcp-Name; its first call with a value for the x-mcp-header
                                argument changes that header's name and gets -32020
                                (client_play_headers.c) */
    MCPS_CSC_COUNT
} mcps_client_scenario;

/* The sampling scenario's further requests, each sent once the one before is answered (the
 * first being MCPS_CLIENT_INJECT_ID's), while the client's first request after initialize is
 * held; only to a client declaring sampling (client_play_sampling.c, client_cases_sampling.c). */
typedef enum mcps_client_sampling_step {
    MCPS_CSS_NO_MESSAGES, /* without messages: -32602 due (RPC-ERR-006) */
    MCPS_CSS_TOOLS,       /* 2025-11-25: carrying tools and toolChoice: refused without
                             sampling.tools (SAMP-009), tool_use blocks well formed with (SAMP-014) */
    MCPS_CSS_MIXED,       /* 2025-11-25, sampling.tools declared: a user message mixing text and
                             tool_result: -32602 due (SAMP-012) */
    MCPS_CSS_COUNT
} mcps_client_sampling_step;
/* Step k's request id is "mcpspec-sp<k+1>". */
#define MCPS_CLIENT_SAMPLING_STEP_ID "mcpspec-sp%d"

/* One message the client sent. */
typedef struct mcps_client_msg {
    cJSON *json;        /* NULL: the line was not JSON (raw below) */
    char *raw;          /* the line, when not JSON */
    unsigned conn;      /* 1 for the first connection */
    bool before_answer; /* sent before we answered initialize on its connection */
    int64_t at_ms;      /* when it was read (mcps_clock_ms) */
} mcps_client_msg;

typedef struct mcps_client_trace {
    mcps_client_scenario scenario;
    mcps_client_msg *msgs;
    size_t nmsgs, cap;
    size_t bytes; /* their size on the wire */
    unsigned connections;
    char asked[64];    /* protocolVersion of the first initialize ("" when none) */
    char answered[64]; /* what we answered with ("" when we did not) */
    char modern[64];   /* 2026-07-28: the _meta protocolVersion of the first request carrying one */
    bool discovered;   /* server/discover was answered with a DiscoverResult */
    bool refused;      /* MODERN_REFUSE: a request was answered -32022 */
    bool input_asked;  /* MODERN_INPUT: a tools/call was answered with an InputRequiredResult */
    const char *skip_all;     /* the scenario was not played: every check SKIPs with this */
    const cJSON *init_params; /* of the first initialize (inside msgs) */
    unsigned init_conn;       /* its connection: 2 when a dual-era client probed with
                                 server/discover on 1 and restarted its server to initialize */
    bool injected;            /* the scenario's server request was sent */
    size_t inject_at;         /* how many messages the client had sent by then */
    const char *inject_method;
    cJSON *inject_answer; /* the client's response to it (owned), or NULL */
    bool waited;          /* the client sent a request after initialize (it waited on us) */
    bool closed;          /* the client ended a connection */
    bool peer_gone;       /* ...by stopping the server process rather than closing its stdin */
    double closed_after;  /* seconds from our initialize answer to the end of the connection */
    bool exited;          /* the client process exited by itself during the case */
    int exit_code, term_signal;
    bool stopped;    /* the run was stopped */
    bool stays;      /* the configuration says the client keeps running once done */
    char error[300]; /* not observable: why ("" when fine) */
    bool http;       /* over Streamable HTTP: the requests below, and connections count
                        sessions (each initialize starts one) */
    bool sse;        /* ...over 2024-11-05's HTTP+SSE, the same */
    mcps_http_seen *http_reqs;
    size_t nhttp;
    mcps_http_seen *auth_reqs; /* AUTH: the requests to the discovery URLs, apart */
    size_t nauth;
    bool deleted;      /* the client ended its session with DELETE */
    int64_t broke_ms;  /* RESUME, MODERN_BREAK: when the stream was broken (mcps_clock_ms) */
    char broke_id[64]; /* ...the id of the request it carried, as text */
    char broke_method[48];
    mcps_wire_log log;
    double seconds;
    size_t sent, received;
    /* TASKS: what the scripted server offered and did */
    bool tasks_offered;       /* 2025-11-25 negotiated: tasks declared, the tool requires them */
    bool task_created;        /* a task-augmented tools/call got a CreateTaskResult */
    size_t task_created_at;   /* how many messages the client had sent by then */
    int64_t task_created_ms;  /* when the CreateTaskResult went (mcps_clock_ms) */
    char task_call_id[64];    /* the id of that tools/call, as text */
    bool task_input_required; /* a tasks/get answer said input_required */
    bool task_input_asked;    /* ...and the client's tasks/result drew the task's elicitation */
    /* TASKS, the client as a receiver: the request type it declared tasks for, one it serves
     * without (TASK-007; NULL when none), and its answers to each step (owned; NULL: none) */
    const char *task_kind, *task_plain_kind;
    cJSON *task_steps[16];
    /* MODERN_SERVE and MODERN_DROP (client_play_serve.c): what the scripted server did */
    bool acked;         /* a subscriptions/listen got its acknowledgment */
    size_t acked_at;    /* how many messages the client had sent by the first */
    bool notified;      /* a notification (acknowledgment, progress) went to the client */
    size_t notified_at; /* ...by the first */
    bool listed;        /* the tool list of 2020-12 schemas went */
    size_t listed_at;   /* ...after this many messages */
    bool called;        /* a tools/call got the array structuredContent */
    size_t called_at;   /* ...after this many messages */
    cJSON *echo_schema; /* the inputSchema the called tool was served with (owned) */
    char fetch_url[96]; /* the network $ref's target: a loopback listener of the run's */
    char fetched[160];  /* the first request that reached it ("" none) */
    bool dropped;       /* MODERN_DROP: the connection was dropped mid-request */
    size_t dropped_at;  /* ...after this many messages */
    unsigned drop_conn; /* ...which connection */
    /* SAMPLING: the further requests (client_play_sampling.c), whether each went, the answers */
    bool sampling_sent[MCPS_CSS_COUNT];
    cJSON *sampling_steps[MCPS_CSS_COUNT]; /* owned; NULL: none */
    /* MODERN_HEADERS (client_play_headers.c): the tool's x-mcp-header was changed and the call
     * refused with -32020, after this many messages */
    bool header_changed;
    size_t header_changed_at;
} mcps_client_trace;

/* "plain", "slow-init", ...: for a person. */
const char *mcps_client_scenario_name(mcps_client_scenario sc);

/* Play scenario sc against a fresh start of the client; fills t (free with
 * mcps_client_trace_free). */
void mcps_client_play(const mcps_client_config *cfg, mcps_client_scenario sc, mcps_client_trace *t);
void mcps_client_trace_free(mcps_client_trace *t);

/* The id the scripted server gives its own request in a scenario. */
#define MCPS_CLIENT_INJECT_ID "mcpspec-s1"
/* The cancel scenario's ping, cancelled right after it is sent (and the unknown scenario's
 * request whose method is 42); the batch's second ping. */
#define MCPS_CLIENT_CANCELLED_ID "mcpspec-c1"
#define MCPS_CLIENT_BATCH_ID2    "mcpspec-s2"
/* The size of the huge scenario's ping. */
#define MCPS_CLIENT_HUGE_BYTES ((size_t)1024 * 1024)
/* The progress scenario's progressToken. */
#define MCPS_CLIENT_PROGRESS_TOKEN "mcpspec-p1"
/* The paged scenario's nextCursor: opaque, with what a careless client would decode or
 * re-encode (+ / = and JSON-like text), and never to be parsed. */
#define MCPS_CLIENT_CURSOR "eyJwIjoyfQ==+/{\"page\": 2, \"of\": \"tools\"}"
/* Page 2 is empty but not the last (PAGE-003: no fixed page size); its nextCursor leads to
 * page 3, the last. */
#define MCPS_CLIENT_CURSOR2 "eyJwIjozfQ==/+{\"page\": 3}"

/* The modern-paged scenario's cursors: page 2's, opaque like MCPS_CLIENT_CURSOR; page 3's is
 * "" (a real cursor, PAGE-008); page 4's, the last. */
#define MCPS_CLIENT_MODERN_CURSOR  "eyJwIjoyfQ==/+{\"era\": \"2026\"}"
#define MCPS_CLIENT_MODERN_CURSOR4 "eyJwIjo0fQ==+/{\"page\": 4}"
/* The modern-odd scenario: the extension its DiscoverResult advertises (nobody knows it), and
 * the code of the error its first tools/call gets (-32000..-32019: no meaning, RPC-CODE-003). */
#define MCPS_CLIENT_ODD_EXTENSION "dev.mcpspec/unknown-extension"
#define MCPS_CLIENT_ODD_CODE      (-32001)
/* The probe-code scenario's answer to a 2026-07-28 probe: a legacy code other than -32601. */
#define MCPS_CLIENT_PROBE_CODE (-32600)

/* 2026-07-28: the scripted tool's text argument is an x-mcp-header one, mirrored by an HTTP
 * client into Mcp-Param-Text (HDR-009). */
#define MCPS_CLIENT_PARAM_HEADER "Text"

/* The event id and `retry:` of the stream the resume scenarios break (HTTP-030, HTTP-021). */
#define MCPS_CLIENT_EVENT_ID "mcpspec-ev-1"
#define MCPS_CLIENT_RETRY_MS 400

/* 2026-07-28's _meta keys on every client request (STATE-001, STATE-003). */
#define MCPS_CLIENT_META_VERSION "io.modelcontextprotocol/protocolVersion"
#define MCPS_CLIENT_META_CAPS    "io.modelcontextprotocol/clientCapabilities"
#define MCPS_CLIENT_META_INFO    "io.modelcontextprotocol/clientInfo"
/* The only stateless revision mcpspec knows: what the scripted server supports. */
#define MCPS_CLIENT_MODERN "2026-07-28"

/* The _meta protocolVersion of request m, or NULL. */
const char *mcps_client_meta_version(const cJSON *m);

/* The modern-input scenario's InputRequiredResult: its requestState (opaque, with what a
 * careless client would decode or re-encode, and non-ASCII), and the key of its elicitation
 * inputRequest, asked (without mode: a form) only of a client declaring elicitation in that
 * request's clientCapabilities (MRTR-005). */
#define MCPS_CLIENT_REQUEST_STATE "AEAD+/==.\u00e9-\u2603 {\"s\":1}"
#define MCPS_CLIENT_INPUT_KEY     "mcpspec-elicit"
/* Whether tools/call request m gets an elicitation inputRequest: its clientCapabilities
 * declare elicitation. */
bool mcps_client_input_elicits(const cJSON *m);
/* Whether scenario sc plays a 2026-07-28 server (client_play.c serves it, client_run.c skips
 * it for a client that showed it speaks the handshake era alone). */
bool mcps_client_modern_scenario(mcps_client_scenario sc);

/* The tasks scenario (2025-11-25): the one task's id, the pollInterval its every Task names,
 * and the _meta key tying a message to it (TASK-017). */
#define MCPS_CLIENT_TASK_ID      "mcpspec-task-1"
#define MCPS_CLIENT_POLL_MS      300
#define MCPS_CLIENT_RELATED_TASK "io.modelcontextprotocol/related-task"

/* The tasks scenario's requests to a client declaring tasks for sampling or elicitation
 * (capabilities.tasks.requests), in order, each sent once the one before is answered, while
 * the client's first request after initialize is held. */
typedef enum mcps_client_task_step {
    MCPS_CTS_CREATE,      /* that request with params.task: a CreateTaskResult */
    MCPS_CTS_GET,         /* tasks/get of it, with a related-task _meta naming another task */
    MCPS_CTS_LIST,        /* tasks/list */
    MCPS_CTS_RESULT,      /* tasks/result of it */
    MCPS_CTS_CANCEL_DONE, /* tasks/cancel of it, terminal by now */
    MCPS_CTS_UNKNOWN,     /* tasks/get of a taskId nobody made */
    MCPS_CTS_CREATE2,     /* a second task */
    MCPS_CTS_CANCEL,      /* tasks/cancel of it, at once */
    MCPS_CTS_GET2,        /* tasks/get of it after that */
    MCPS_CTS_PLAIN,       /* a request type it declared no tasks for, with params.task */
    MCPS_CTS_COUNT
} mcps_client_task_step;
/* The related-task _meta of MCPS_CTS_GET, and MCPS_CTS_UNKNOWN's taskId. */
#define MCPS_CLIENT_OTHER_TASK   "mcpspec-not-this-task"
#define MCPS_CLIENT_UNKNOWN_TASK "mcpspec-no-such-task"
/* The oddities scenario's unknown reserved _meta key (GEN-META-005). */
#define MCPS_CLIENT_ODD_META "io.modelcontextprotocol/mcpspec-probe"
/* The modern-deprecated scenario's inputRequests keys: roots/list, sampling/createMessage,
 * and a sampling/createMessage carrying tools, asked of a client declaring sampling (without
 * sampling.tools it must not be fulfilled, SAMP-009; with it, its tool_use blocks are judged,
 * SAMP-014). */
#define MCPS_CLIENT_ROOTS_KEY    "mcpspec-roots"
#define MCPS_CLIENT_SAMPLING_KEY "mcpspec-sampling"
#define MCPS_CLIENT_TOOLS_KEY    "mcpspec-sampling-tools"
/* What request m declares in its _meta clientCapabilities under name
 * (roots, sampling, ...), or NULL. */
const cJSON *mcps_client_declared_cap(const cJSON *m, const char *name);

/* The sampling scenario's step k for the client of t (its request, id
 * MCPS_CLIENT_SAMPLING_STEP_ID), or NULL when it is not asked of it: no sampling declared, not
 * 2025-11-25, no sampling.tools (client_play_sampling.c). */
cJSON *mcps_client_sampling_step_request(const mcps_client_trace *t, int k);

/* MCPS_CTS_CREATE's _meta.progressToken (PROG-010). */
#define MCPS_CLIENT_TASK_TOKEN "mcpspec-tp"

/* client_play_serve.c: MODERN_SERVE and MODERN_DROP's requests. The scripted tool's name
 * (its inputSchema uses 2020-12 keywords; its outputSchema is an array) and the other tool's
 * (a network $ref and a deeply nested schema, never meant to be called), the depth of that
 * nesting, and the structuredContent of the call. */
#define MCPS_CLIENT_SERVE_TOOL  "echo"
#define MCPS_CLIENT_PROBE_TOOL  "schema-probe"
#define MCPS_CLIENT_DEEP_LEVELS 400
#define MCPS_CLIENT_META_SUB    "io.modelcontextprotocol/subscriptionId"
/* Whether the scripted server declares tools.listChanged in scenario sc (so that a client may
 * listen). */
bool mcps_client_serve_list_changed(mcps_client_scenario sc);
/* A 2026-07-28 request of MODERN_SERVE or MODERN_DROP answered (or dropped) here: true when
 * done, false for answer_modern's plain answer. */
bool mcps_client_serve_request(mcps_play *play, mcps_client_trace *t, const cJSON *req,
                               const char *method);
/* MODERN_SERVE's network $ref points at a loopback listener of the run's (GEN-JSCH-004):
 * opened into t->fetch_url, then polled without waiting; a request noted in t->fetched. */
bool mcps_client_fetch_open(mcps_httpd *h, const mcps_guard *guard, mcps_client_trace *t);
void mcps_client_fetch_poll(mcps_httpd *h, mcps_play *play, mcps_client_trace *t);
/* The oddities scenario's tool list on 2025-11-25: MODERN_SERVE's 2020-12 tool alone, without
 * its outputSchema (GEN-JSCH-001); sets t->echo_schema. */
cJSON *mcps_client_schema_tool_list(mcps_client_trace *t);
/* client_play_headers.c: MODERN_HEADERS' tool, named with what Mcp-Name carries only as
 * =?base64?...?= (HDR-007: non-ASCII), and the header name its text argument's x-mcp-header
 * takes after the change (MCPS_CLIENT_PARAM_HEADER before; HDR-014). */
#define MCPS_CLIENT_NAMED_TOOL "echo-\xe4\xb8\x96\xe7\x95\x8c" /* echo-, then U+4E16 U+754C */
#define MCPS_CLIENT_NEW_HEADER "Word"
/* A 2026-07-28 request of MODERN_HEADERS answered here (tools/list, tools/call): true when
 * done, false for answer_modern's plain answer. */
bool mcps_client_headers_request(mcps_play *play, mcps_client_trace *t, const cJSON *req,
                                 const char *method);
/* What every 2026-07-28 result carries (client_play.c): resultType and serverInfo. */
cJSON *mcps_client_stamp(cJSON *result);
/* ...and a cacheable one's hints, ttlMs and cacheScope (CACHE-001), stamped too. */
cJSON *mcps_client_cacheable(cJSON *result, int ttl_ms);
/* The scripted server's one-tool list (client_play.c): a tool named name that takes a string
 * "text", whose x-mcp-header is header (NULL: none). */
cJSON *mcps_client_echo_tool_list(const char *name, const char *header);
/* The scripted server's answer to a tools/call: one text block, "ok" (client_play.c). */
cJSON *mcps_client_tool_result(void);

#endif
