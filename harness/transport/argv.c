/*
 * argv.c - split a --target command line into argv words; see transport.h.
 *
 * Targets are started with fork+exec, never through a shell, so the quoting a
 * user types must be undone here: a small state machine over the string,
 * building one word at a time.
 */
#include "transport/transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

typedef struct splitter {
    const char *p;
    mcps_buf word;
    bool in_word; /* a word has started (it may still be empty: '' or "") */
    char **argv;
    size_t argc;
    bool oom;
} splitter;

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static void end_word(splitter *s)
{
    if (!s->in_word)
        return;
    char **grown = realloc(s->argv, (s->argc + 2) * sizeof *grown);
    if (grown) {
        s->argv = grown;
        s->argv[s->argc] = NULL; /* mcps_argv_free must find the end even on failure */
    }
    char *w = mcps_buf_take(&s->word);
    if (!grown || !w) {
        free(w);
        s->oom = true;
        return;
    }
    s->argv[s->argc++] = w;
    s->argv[s->argc] = NULL;
    s->in_word = false;
}

/* After an opening quote; false when the closing one is missing. */
static bool quoted(splitter *s, char quote)
{
    for (;;) {
        char c = *s->p;
        if (c == '\0')
            return false; /* stay on the NUL: the caller stops there */
        s->p++;
        if (c == quote)
            return true;
        if (quote == '"' && c == '\\' && (*s->p == '"' || *s->p == '\\'))
            c = *s->p++;
        mcps_buf_putc(&s->word, c);
    }
}

char **mcps_argv_split(const char *cmdline, char *err, size_t errlen)
{
    splitter s = {.p = cmdline ? cmdline : ""};
    const char *problem = NULL;
    while (!problem && !s.oom && *s.p) {
        char c = *s.p++;
        if (is_space(c)) {
            end_word(&s);
            continue;
        }
        s.in_word = true;
        if (c == '\'' || c == '"') {
            if (!quoted(&s, c))
                problem = c == '\'' ? "unterminated single quote" : "unterminated double quote";
        } else if (c == '\\' && *s.p) {
            mcps_buf_putc(&s.word, *s.p++);
        } else {
            mcps_buf_putc(&s.word, c);
        }
    }
    if (!problem && !s.oom)
        end_word(&s);
    if (!problem && (s.oom || s.word.oom))
        problem = "out of memory";
    if (!problem && s.argc == 0)
        problem = "empty command";
    if (problem) {
        snprintf(err, errlen, "cannot split command line: %s", problem);
        mcps_buf_free(&s.word);
        mcps_argv_free(s.argv);
        return NULL;
    }
    return s.argv;
}

void mcps_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);
}
