/*
 * test_config.c - the target configuration file: what it sets, and errors
 * that name the file (and line, for JSON errors).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/config.h"

static char *write_temp(const char *text)
{
    char *path = strdup("/tmp/mcpspec-config-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        fail_msg("cannot write a temp file");
    close(fd);
    return path;
}

static void test_full_configuration(void **state)
{
    (void)state;
    char *path = write_temp(
        "{\"description\":\"x\",\n"
        " \"server\":{\"command\":\"node s.js\",\"cwd\":\"sub\",\"env\":{\"A\":\"1\"}},\n"
        " \"calls\":{\"tool\":{\"name\":\"echo\",\"arguments\":{\"m\":\"hi\"}},\n"
        "   \"slow_tool\":{\"name\":\"slow\"},\n"
        "   "
        "\"read_tool\":{\"name\":\"read\",\"arguments\":{\"path\":\"/etc/"
        "hostname\"},\"path_argument\":\"path\"}},\n"
        " \"resources\":{\"failing_uri\":\"mem://broken\"},\n"
        " \"secrets\":{\"env\":[\"API_KEY\"]}}\n");
    mcps_target_file f;
    char err[400];
    if (!mcps_target_file_load(path, &f, err, sizeof err))
        fail_msg("%s", err);
    assert_string_equal(f.command, "node s.js");
    assert_string_equal(f.cwd, "/tmp/sub");
    assert_string_equal(f.env[0], "A=1");
    assert_true(strncmp(f.env[1], "API_KEY=mcpspec-canary-", 23) == 0);
    assert_null(f.env[2]);
    assert_string_equal(mcps_vars_get(&f.vars, "call_tool")->valuestring, "echo");
    assert_string_equal(mcps_vars_get(&f.vars, "call_arguments.m")->valuestring, "hi");
    assert_true(cJSON_IsObject(mcps_vars_get(&f.vars, "slow_arguments")));
    assert_string_equal(mcps_vars_get(&f.vars, "read_path_argument")->valuestring, "path");
    assert_string_equal(mcps_vars_get(&f.vars, "failing_uri")->valuestring, "mem://broken");
    assert_int_equal(cJSON_GetArraySize(mcps_vars_get(&f.vars, "canaries")), 1);
    mcps_target_file_free(&f);
    unlink(path);
    free(path);
}

typedef struct bad {
    const char *text;
    const char *error;
} bad;

static void test_errors_name_the_file(void **state)
{
    (void)state;
    static const bad cases[] = {
        {"{\"server\":\"x\",\n\"calls\":{\"tool\":{\"name\":\"a\"}}\n", ":3: invalid JSON"},
        {"{\"sever\":\"x\"}", "unknown member \"sever\" in the configuration"},
        {"{\"calls\":{\"tol\":{\"name\":\"a\"}}}", "unknown member \"tol\" in calls"},
        {"{\"calls\":{\"tool\":{\"arguments\":{}}}}", "calls.tool.name is the tool's name"},
        {"{\"calls\":{\"tool\":{\"name\":\"a\",\"arguments\":[1]}}}",
         "calls.tool.arguments is an object"},
        {"{\"calls\":{\"read_tool\":{\"name\":\"r\",\"arguments\":{}}}}", "path_argument names"},
        {"{\"server\":{\"cwd\":\".\"}}", "server.command is required"},
        {"[1]", "the configuration is a JSON object"},
        /* Semantic errors name the line of the member at fault. */
        {"{\n\"calls\": {\n \"tool\": {\n  \"name\": 7}}}", ":4: calls.tool.name"},
        {"{\n\"calls\": {\n \"tool\": {\"name\": \"a\",\n  \"argumentz\": 1}}}",
         ":4: unknown member \"argumentz\" in calls.tool"},
        {"{\"server\": \"x\",\n\n \"secrets\": {\"env\": [1]}}", ":3: secrets.env holds"},
        /* The line is the member's own, not that of its name written inside a string, and a
         * name in the path may hold dots. */
        {"{\"description\": \"\\\"calls\\\": {\\\"tool\\\":\",\n\"calls\": {\n\"tool\": 3}}",
         ":3: calls.tool is"},
        {"{\"server\": {\"command\": \"x\",\n\"env\": {\"A\": \"1\",\n\"B.C\": 2}}}",
         ":3: server.env.B.C is not a string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *path = write_temp(cases[i].text);
        mcps_target_file f;
        char err[400] = "";
        if (mcps_target_file_load(path, &f, err, sizeof err))
            fail_msg("case %zu loaded", i);
        if (strncmp(err, path, strlen(path)) != 0 || !strstr(err, cases[i].error))
            fail_msg("case %zu: got '%s', want '%s'", i, err, cases[i].error);
        unlink(path);
        free(path);
    }
    mcps_target_file f;
    char err[400];
    assert_false(mcps_target_file_load("/nonexistent/mcpspec.json", &f, err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent/mcpspec.json: cannot open"));
    /* Past the bound, the file is refused whole, not read in part. */
    size_t big = 1024 * 1024 + 2;
    char *text = malloc(big + 1);
    assert_non_null(text);
    memset(text, ' ', big);
    text[0] = '{';
    text[big - 1] = '}';
    text[big] = '\0';
    char *path = write_temp(text);
    free(text);
    assert_false(mcps_target_file_load(path, &f, err, sizeof err));
    assert_non_null(strstr(err, "larger than 1 MiB"));
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_configuration),
        cmocka_unit_test(test_errors_name_the_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
