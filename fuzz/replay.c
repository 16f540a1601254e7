/*
 * replay.c - plain main() that runs files through a fuzz target.
 *
 * Built with the normal compiler in every build, so CI replays each corpus
 * file as a regression test without clang or libFuzzer. Arguments are files or
 * directories (one level, in name order so runs are repeatable). With --seeds,
 * each input must also be well-formed for the target (fuzz_seed_wellformed;
 * files named seed-* are held to the handwritten conventions too) and an
 * empty corpus is an error: that is the seed test.
 *
 * usage: fuzz_replay_<target> [--seeds] PATH...
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

typedef struct replay {
    bool seeds;
    size_t files;
    size_t bad;
} replay;

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    for (size_t got; buf; n += got) {
        if (n == cap) {
            uint8_t *bigger = realloc(buf, cap *= 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
        }
        got = fread(buf + n, 1, cap - n, f);
        if (got == 0)
            break;
    }
    bool err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        return NULL;
    }
    *size = n;
    return buf;
}

static void run_file(replay *r, const char *path)
{
    size_t size = 0;
    uint8_t *data = read_file(path, &size);
    if (!data) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        r->bad++;
        return;
    }
    /* An exact-size copy so ASan sees reads past the end of the input. */
    uint8_t *exact = malloc(size ? size : 1);
    if (!exact) {
        free(data);
        r->bad++;
        return;
    }
    memcpy(exact, data, size);
    free(data);
    const char *why = NULL;
    const char *base = strrchr(path, '/');
    bool handwritten = strncmp(base ? base + 1 : path, "seed-", 5) == 0;
    if (r->seeds && !fuzz_seed_wellformed(exact, size, handwritten, &why)) {
        fprintf(stderr, "replay: %s: not a well-formed seed for this target: %s\n", path,
                why ? why : "?");
        r->bad++;
    }
    LLVMFuzzerTestOneInput(exact, size);
    free(exact);
    r->files++;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_dir(replay *r, const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        r->bad++;
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue; /* dot files, README-like notes kept out of the corpus */
        if (n == cap) {
            char **bigger = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
            if (!bigger)
                break;
            names = bigger;
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        char full[4096];
        struct stat st;
        snprintf(full, sizeof full, "%s/%s", path, names[i]);
        if (names[i] && stat(full, &st) == 0 && S_ISREG(st.st_mode))
            run_file(r, full);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    replay r = {0};
    int first = 1;
    if (argc > 1 && strcmp(argv[1], "--seeds") == 0) {
        r.seeds = true;
        first = 2;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: %s [--seeds] FILE|DIR...\n", argv[0]);
        return 2;
    }
    for (int i = first; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
            run_dir(&r, argv[i]);
        else
            run_file(&r, argv[i]);
    }
    fprintf(stderr, "replay: %zu inputs, %zu problems\n", r.files, r.bad);
    if (r.seeds && r.files == 0) {
        fprintf(stderr, "replay: no seeds found\n");
        return 1;
    }
    return r.bad ? 1 : 0;
}
