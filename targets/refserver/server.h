/*
 * server.h - refserver's session state and the seams between its files.
 *
 * One process is one MCP session over stdio. All state lives in rs_server,
 * passed to every function; there are no mutable globals. Requests reach a
 * handler as rs_req and the handler fills an rs_reply, which dispatch turns
 * into the response (or the handler answers later: the slow tool, a held
 * tasks/result).
 */
#ifndef RS_SERVER_H
#define RS_SERVER_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/frame.h"
#include "codec/rev.h"
#include "faults.h"

#define RS_NAME       "mcpspec-refserver"
#define RS_MAX_LINE   ((size_t)16 * 1024 * 1024)
#define RS_PAGE_SIZE  50
#define RS_ITEM_COUNT 120 /* item-NNN tools and mem://item/NNN resources */
#define RS_MAX_VALUES 100 /* completion values per answer (COMP-002) */

enum {
    RS_PARSE_ERROR = -32700,
    RS_INVALID_REQUEST = -32600,
    RS_METHOD_NOT_FOUND = -32601,
    RS_INVALID_PARAMS = -32602,
    RS_INTERNAL_ERROR = -32603,
    RS_RESOURCE_NOT_FOUND = -32002,
    RS_URL_ELICITATION_REQUIRED = -32042,
    RS_MISSING_CAPABILITY = -32021,           /* 2026-07-28 */
    RS_UNSUPPORTED_PROTOCOL_VERSION = -32022, /* 2026-07-28 */
};

/* RFC 5424 severities, least severe first, so "at or above" is >=. */
typedef enum rs_level {
    RS_LOG_DEBUG,
    RS_LOG_INFO,
    RS_LOG_NOTICE,
    RS_LOG_WARNING,
    RS_LOG_ERROR,
    RS_LOG_CRITICAL,
    RS_LOG_ALERT,
    RS_LOG_EMERGENCY,
    RS_LOG_COUNT
} rs_level;

/* The lists whose membership the toggle tool changes (list_changed). */
typedef enum rs_list { RS_LIST_TOOLS, RS_LIST_RESOURCES, RS_LIST_PROMPTS, RS_LIST_COUNT } rs_list;

/* Server capabilities that --without can take away. */
typedef enum rs_cap {
    RS_CAP_TOOLS,
    RS_CAP_RESOURCES,
    RS_CAP_PROMPTS,
    RS_CAP_LOGGING,
    RS_CAP_COMPLETIONS,
    RS_CAP_TASKS,
    RS_CAP_COUNT
} rs_cap;

typedef struct rs_batch rs_batch;
typedef struct rs_job rs_job;
typedef struct rs_task rs_task;
typedef struct rs_call rs_call;
typedef struct rs_listen rs_listen;

typedef struct rs_server {
    /* configuration */
    bool faults[RS_FAULT_COUNT];
    char *root; /* canonical --root directory; NULL: no file:// resources */
    bool verbose;
    bool modern_only;           /* --modern-only: 2026-07-28 alone, no initialize (stateless.c) */
    bool refused[RS_CAP_COUNT]; /* --without: its methods are unknown, its notifications unsent */
    int in_fd, out_fd;
    /* lifecycle */
    bool initialized;   /* initialize was answered with a result */
    bool client_ready;  /* notifications/initialized arrived */
    mcps_rev rev;       /* negotiated revision: shapes every answer */
    char *announced;    /* the protocolVersion string the server answered */
    cJSON *client_caps; /* the client's capabilities from initialize (owned), or NULL */
    /* features */
    rs_level log_level;
    unsigned item_rev[RS_ITEM_COUNT]; /* bumped by the touch tool */
    bool extra[RS_LIST_COUNT];        /* toggled extra entry present */
    char **subs;                      /* subscribed resource URIs */
    size_t nsubs, cap_subs;
    rs_job *jobs;              /* running slow tool calls */
    rs_call *calls;            /* requests sent to the client, awaiting their response */
    unsigned long request_seq; /* id of the newest request sent to the client */
    rs_task *tasks;            /* tasks (2025-11-25), oldest first */
    size_t ntasks;             /* how many are stored */
    size_t task_seq;           /* creation number of the newest task: tasks/list cursors */
    unsigned long notify_id;   /* ids for the notification-with-id fault */
    unsigned long listings;    /* tools/list answers, for the tools-order-unstable fault */
    uint64_t state_key;        /* 2026-07-28: keys requestState (stateless.c), set at first use */
    rs_listen *listens;        /* 2026-07-28: open subscriptions/listen streams (listen.c) */
    bool fuzz_armed;           /* fuzz-sequence-crash, fuzz-afl-magic: the arming prompt answered */
    void *fuzz_hoard;          /* fuzz-leak: the blocks kept so far, each pointing to the last */
    /* input and output */
    mcps_framer framer;
    bool eof;  /* stdin reached end of file */
    bool done; /* stop: EOF handled or stdout is gone */
} rs_server;

typedef struct rs_req {
    const char *method;
    const cJSON *id;     /* NULL for a notification */
    const cJSON *params; /* NULL or an object */
    rs_batch *batch;     /* the batch it came in, or NULL */
    const char *task_id; /* tools/call run as this task (2025-11-25), or NULL */
} rs_req;

typedef struct rs_reply {
    cJSON *result; /* success: the result (owned) */
    int code;      /* nonzero: an error with this code */
    char message[160];
    cJSON *data;  /* optional error data (owned) */
    bool handled; /* the handler answered itself, answers later, or never */
} rs_reply;

static inline bool rs_fault_on(const rs_server *s, rs_fault f)
{
    return s->faults[f];
}

/* revision helpers */
static inline bool rs_rev_at_least(const rs_server *s, mcps_rev rev)
{
    return s->rev >= rev;
}

/* ---- fuzz_faults.c: the fuzz-* faults, around each request's handler ---- */
void rs_fuzz_before(rs_server *s, const rs_req *req);
void rs_fuzz_after(rs_server *s, const rs_req *req, const rs_reply *r);
/* ---- afl_faults.c: fuzz-afl-magic, called by rs_fuzz_after ---- */
void rs_afl_after(rs_server *s, const rs_req *req, const rs_reply *r);

/* ---- util.c ---- */
int64_t rs_now_ms(void);
int64_t rs_wall_ms(void); /* milliseconds since the epoch, for timestamps on the wire */
char *rs_base64(const unsigned char *data, size_t len);
void rs_debug(const rs_server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool rs_streq(const char *a, const char *b);

/* ---- reply.c: replies, params and pagination ---- */
void rs_fail(rs_reply *r, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A params member missing or of the wrong JSON type (RPC-ERR-006). */
void rs_fail_params(const rs_server *s, rs_reply *r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void rs_ok(rs_reply *r, cJSON *result);
const char *rs_param_string(const rs_server *s, const cJSON *params, const char *key, bool required,
                            rs_reply *r);
const cJSON *rs_param_object(const rs_server *s, const cJSON *params, const char *key,
                             bool required, rs_reply *r);
/* Opaque cursors "<kind><value>-<check>": the list kind and a position. */
void rs_cursor_make(char *out, size_t n, char kind, size_t value);
bool rs_cursor_read(const char *cursor, char kind, size_t *value);
bool rs_page_start(const rs_server *s, const rs_req *req, rs_reply *r, char kind, size_t total,
                   size_t *start);
void rs_page_next(const rs_server *s, cJSON *result, char kind, size_t start, size_t total);
size_t rs_page_size(char kind);
cJSON *rs_text_content(const char *text);

/* ---- output.c: everything written to stdout ---- */
rs_batch *rs_batch_new(void);
void rs_batch_retain(rs_batch *b);
void rs_batch_release(rs_server *s, rs_batch *b);
void rs_batch_abandon(rs_batch *b);
cJSON *rs_response_new(const rs_server *s, const cJSON *id);
cJSON *rs_error_object(const rs_server *s, int code, const char *message, cJSON *data);
void rs_emit_response(rs_server *s, rs_batch *batch, cJSON *msg);
void rs_answer(rs_server *s, const cJSON *id, rs_batch *batch, rs_reply *r);
void rs_answer_error(rs_server *s, const cJSON *id, rs_batch *batch, int code, const char *msg);
void rs_reply_free(rs_reply *r);
void rs_notify(rs_server *s, const char *method, cJSON *params);
void rs_write_response(rs_server *s, cJSON *msg);
void rs_write_text(rs_server *s, const char *text);

/* ---- client.c: requests refserver sends to the client (sampling, elicitation) ---- */
/* A response from the client: matched to the request it answers, else ignored. */
void rs_on_response(rs_server *s, const cJSON *msg);
int64_t rs_calls_timeout(const rs_server *s);
void rs_calls_expire(rs_server *s);
void rs_calls_free(rs_server *s);
void rs_ask_roots_early(rs_server *s);

/* ---- stateless.c: 2026-07-28 ---- */
typedef void rs_handler(rs_server *s, const rs_req *req, rs_reply *r);
typedef rs_handler *rs_method_finder(const rs_server *s, const char *name);
/* Serving 2026-07-28: no handshake on this process, and a 2026-07-28 request came. */
bool rs_stateless(const rs_server *s);
/* Handle req the 2026-07-28 way if it is such a request (true: answered). */
bool rs_stateless_request(rs_server *s, const rs_req *req, rs_method_finder *find);
/* A response about to be written: resultType and serverInfo on a 2026-07-28 result. */
void rs_stateless_result(const rs_server *s, cJSON *msg);
/* May this notification be sent? In 2026-07-28 only request-scoped progress. */
bool rs_stateless_notification_ok(const rs_server *s, const char *method);
/* A tool that asks the client for cap (.sub): in 2026-07-28 answers r itself (true). */
bool rs_stateless_ask_client(rs_server *s, const char *cap, const char *sub, rs_reply *r);
/* 2026-07-28 multi round-trip: the retry's answer to inputRequests[key], or NULL with r
 * answered (an InputRequiredResult asking input_request, or -32602). Takes input_request. */
const cJSON *rs_mrtr_answer(rs_server *s, const rs_req *req, const char *key, cJSON *input_request,
                            bool (*well_formed)(const cJSON *answer), rs_reply *r);

/* ---- listen.c: subscriptions/listen (2026-07-28) ---- */
void rs_listen_open(rs_server *s, const rs_req *req, rs_reply *r);
/* Is method a change notification that 2026-07-28 sends only on listen streams? */
bool rs_listen_routed(const char *method);
/* Send it, tagged, on every open stream that opted into it. */
void rs_listen_deliver(rs_server *s, const char *method, const cJSON *params);
/* The listen-carries-progress fault: tag a progress notification with a stream's id. */
void rs_listen_misroute(const rs_server *s, const char *method, cJSON *params);
/* notifications/cancelled from the client for an open listen: end it silently (true). */
bool rs_listen_cancel(rs_server *s, const cJSON *id);
/* End of input: answer every open listen with its closing result (SUB-009), and forget them. */
void rs_listen_close_all(rs_server *s);
void rs_listen_free(rs_server *s);

/* ---- dispatch.c ---- */
void rs_handle_line(rs_server *s, const char *line, size_t len, bool oversize);

/* ---- loop.c ---- */
int rs_run(rs_server *s);
/* Handle bytes as the whole of the input: its lines, then end of input (no timers run). */
void rs_play(rs_server *s, const char *bytes, size_t len);

/* ---- setup.c: shared by main.c and afl_main.c ---- */
enum { RS_EXIT_OK = 0, RS_EXIT_FAIL = 1, RS_EXIT_USAGE = 2 };
#define RS_OPTION_OTHER (-2)
/* The session option at argv[*i] (*i moved past its value): -1 when taken, RS_OPTION_OTHER
 * when it is not one, else the exit status of a bad value (said on stderr). */
int rs_option(rs_server *s, int argc, char **argv, int *i);
void rs_server_init(rs_server *s);
void rs_server_free(rs_server *s);

/* ---- lifecycle.c ---- */
void rs_initialize(rs_server *s, const rs_req *req, rs_reply *r);
/* The server's capabilities in the revision it serves (initialize, server/discover). */
cJSON *rs_capabilities(const rs_server *s);
/* Tasks are a 2025-11-25 utility (an extension from 2026-07-28 on, which refserver lacks). */
bool rs_tasks_era(const rs_server *s);
void rs_ping(rs_server *s, const rs_req *req, rs_reply *r);
void rs_on_initialized(rs_server *s, const rs_req *req);
/* The capability called name ("tools", "completions", ...); false when there is none. */
bool rs_cap_parse(const char *name, rs_cap *out);
/* The capability a method or notification belongs to; RS_CAP_COUNT for none. */
rs_cap rs_cap_of(const char *method);

/* ---- tools.c / jobs.c ---- */
void rs_tools_list(rs_server *s, const rs_req *req, rs_reply *r);
void rs_tools_call(rs_server *s, const rs_req *req, rs_reply *r);
int64_t rs_jobs_timeout(const rs_server *s);
void rs_jobs_run_due(rs_server *s);
void rs_on_cancelled(rs_server *s, const rs_req *req);
void rs_jobs_free(rs_server *s);
void rs_jobs_stop_task(rs_server *s, const char *task_id);

/* ---- tasks.c: the tasks utility (2025-11-25 only) ---- */
void rs_tasks_get(rs_server *s, const rs_req *req, rs_reply *r);
void rs_tasks_result(rs_server *s, const rs_req *req, rs_reply *r);
void rs_tasks_list(rs_server *s, const rs_req *req, rs_reply *r);
void rs_tasks_cancel(rs_server *s, const rs_req *req, rs_reply *r);
/* A new working task from params.task ({ttl?}); its id (owned by the task), or NULL with r failed.
 */
const char *rs_task_create(rs_server *s, const cJSON *task, rs_reply *r);
/* The CreateTaskResult of a task just created. */
cJSON *rs_task_created_result(const rs_server *s, const char *task_id);
/* The work's outcome (what the plain call would have answered): completed or failed. Takes it. */
void rs_task_finish(rs_server *s, const char *task_id, rs_reply *outcome);
/* {"io.modelcontextprotocol/related-task": {"taskId": ...}} */
cJSON *rs_related_task_meta(const char *task_id);
int64_t rs_tasks_timeout(const rs_server *s);
void rs_tasks_expire(rs_server *s);
void rs_tasks_free(rs_server *s);

/* ---- resources.c / fileroot.c ---- */
void rs_resources_list(rs_server *s, const rs_req *req, rs_reply *r);
void rs_resources_read(rs_server *s, const rs_req *req, rs_reply *r);
void rs_resources_templates(rs_server *s, const rs_req *req, rs_reply *r);
void rs_resources_subscribe(rs_server *s, const rs_req *req, rs_reply *r);
void rs_resources_unsubscribe(rs_server *s, const rs_req *req, rs_reply *r);
bool rs_resource_touch(rs_server *s, const char *uri);
void rs_subs_free(rs_server *s);
cJSON *rs_mem_contents(const rs_server *s, const char *uri);
cJSON *rs_file_contents(const rs_server *s, const char *uri, rs_reply *r);
/* Paths of the regular files under the root (two levels deep, sorted), relative to it. */
size_t rs_root_files(const rs_server *s, char **out, size_t max);
/* The read tool: a canonical file path under the root, or NULL; its text, or NULL. */
char *rs_tool_path(const rs_server *s, const char *path);
char *rs_tool_read(const char *path);

/* ---- prompts.c ---- */
void rs_prompts_list(rs_server *s, const rs_req *req, rs_reply *r);
void rs_prompts_get(rs_server *s, const rs_req *req, rs_reply *r);
/* Whether the prompt exists (1), exists and has the argument (2), or neither (0). */
int rs_prompt_arg_known(const rs_server *s, const char *prompt, const char *arg);

/* ---- logging.c ---- */
extern const char *const rs_level_list[RS_LOG_COUNT + 1]; /* names by rs_level, NULL-terminated */
void rs_logging_set_level(rs_server *s, const rs_req *req, rs_reply *r);
bool rs_level_parse(const char *name, rs_level *out);
const char *rs_level_name(rs_level level);
void rs_log(rs_server *s, rs_level level, cJSON *data);

/* ---- completion.c ---- */
void rs_complete(rs_server *s, const rs_req *req, rs_reply *r);

#endif
