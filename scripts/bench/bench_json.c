/*
 * bench_json.c - throughput of our strict codec against cJSON_Parse on the
 * same MCP-shaped inputs, in one process, so the ratio is fair.
 *
 * Inputs are generated here (deterministically) rather than read from files:
 * small messages like those of a live session, and large results like a long
 * tools/list or a big resources/read. Each parser runs in alternating rounds;
 * the best round of each is reported, which is the figure least disturbed by
 * other load on the machine.
 */
#include "base/buf.h"
#include "codec/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct input {
    const char *name;
    char *text;
    size_t len;
} input;

static void tool_json(mcps_buf *b, int i)
{
    mcps_buf_printf(b,
                    "{\"name\":\"tool_%d\",\"title\":\"Tool number %d\",\"description\":\"Fetches "
                    "the record %d from the store and returns it as text; results are "
                    "paginated.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"id\":{"
                    "\"type\":\"integer\",\"minimum\":0},\"query\":{\"type\":\"string\","
                    "\"description\":\"Free text, \\\"quoted\\\" phrases allowed\"},\"limit\":{"
                    "\"type\":\"number\",\"default\":25.5}},\"required\":[\"id\"],"
                    "\"additionalProperties\":false},\"annotations\":{\"readOnlyHint\":true,"
                    "\"openWorldHint\":false}}",
                    i, i, i);
}

static input make_tools_list(int ntools)
{
    mcps_buf b = {0};
    mcps_buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"tools\":[");
    for (int i = 0; i < ntools; i++) {
        if (i)
            mcps_buf_putc(&b, ',');
        tool_json(&b, i);
    }
    mcps_buf_puts(&b, "],\"nextCursor\":\"eyJvZmZzZXQiOjUwMH0=\"}}");
    return (input){"tools/list result, large", b.data, b.len};
}

static input make_resource_read(size_t text_bytes)
{
    mcps_buf b = {0};
    mcps_buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":\"r-1\",\"result\":{\"contents\":[{\"uri\":"
                      "\"file:///project/src/main.c\",\"mimeType\":\"text/x-c\",\"text\":\"");
    static const char line[] = "    for (size_t i = 0; i < n; i++) total += item[i].weight; "
                               "/* caf\xc3\xa9 \xe2\x9c\x93 */\\n";
    while (b.len < text_bytes)
        mcps_buf_puts(&b, line);
    mcps_buf_puts(&b, "\"}]}}");
    return (input){"resources/read result, large text", b.data, b.len};
}

static input make_small_session(void)
{
    static const char *msgs[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\","
        "\"capabilities\":{\"tools\":{\"listChanged\":true},\"resources\":{\"subscribe\":true},"
        "\"logging\":{}},\"serverInfo\":{\"name\":\"example-server\",\"version\":\"1.4.2\"}}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{"
        "\"progressToken\":\"tok-42\",\"progress\":37,\"total\":100,\"message\":\"indexing\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":12,\"result\":{\"content\":[{\"type\":\"text\",\"text\":"
        "\"The weather in Z\\u00fcrich is 12.5 \\u00b0C and cloudy.\"}],\"isError\":false}}",
        "{\"jsonrpc\":\"2.0\",\"id\":\"call-9\",\"error\":{\"code\":-32602,\"message\":\"Unknown "
        "tool: frobnicate\"}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":"
        "\"info\",\"logger\":\"db\",\"data\":{\"rows\":1024,\"elapsedMs\":3.25}}}",
    };
    mcps_buf b = {0};
    for (int rep = 0; rep < 2000; rep++)
        for (size_t i = 0; i < sizeof msgs / sizeof *msgs; i++) {
            mcps_buf_puts(&b, msgs[i]);
            mcps_buf_putc(&b, '\n');
        }
    return (input){"small session messages", b.data, b.len};
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Parse every newline-separated message of in (or the whole, if none) once. */
static double run_once(const input *in, bool ours)
{
    double t0 = now_seconds();
    const char *p = in->text, *end = in->text + in->len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        cJSON *root;
        if (ours) {
            mcps_json_result r;
            mcps_json_parse(p, n, NULL, &r);
            root = r.root;
        } else {
            root = cJSON_ParseWithLength(p, n);
        }
        if (!root) {
            fprintf(stderr, "bench input rejected by %s\n", ours ? "mcps_json" : "cJSON");
            exit(1);
        }
        cJSON_Delete(root);
        p += n + 1;
    }
    return now_seconds() - t0;
}

static void bench(const input *in, int rounds, int reps)
{
    double best[2] = {1e9, 1e9};
    for (int r = 0; r < rounds; r++)
        for (int which = 0; which < 2; which++) {
            double t = 0;
            for (int k = 0; k < reps; k++)
                t += run_once(in, which == 0);
            if (t < best[which])
                best[which] = t;
        }
    double mb = (double)in->len * reps / 1e6;
    printf("%-36s %9.2f MB  strict %8.1f MB/s  cJSON_Parse %8.1f MB/s  ratio %.2fx\n", in->name,
           (double)in->len / 1e6, mb / best[0], mb / best[1], best[1] / best[0]);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 7;
    input inputs[] = {make_small_session(), make_tools_list(500), make_resource_read(600000)};
    printf("mcpspec JSON codec benchmark: best of %d rounds, same process\n", rounds);
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        bench(&inputs[i], rounds, 5);
        free(inputs[i].text);
    }
    return 0;
}
