/*
 * afl_main.c - AFL++ persistent-mode driver for a fuzz target.
 *
 * Built only with afl-clang-fast (scripts/fuzz --engine afl), which defines
 * the __AFL_* macros: the test case arrives in shared memory and one process
 * runs up to 100000 cases before AFL++ restarts it, which is what makes AFL++
 * fast on a parser. Each case is copied into an exact-size heap buffer so an
 * ASan build catches reads past its end, which the shared map would hide.
 * Without AFL++ around, the macros fall back to reading one case from stdin,
 * so afl-cmin, afl-tmin and a plain `afl_<target> < file` work too.
 */
#include "fuzz.h"

#include <string.h>
#include <unistd.h> /* read(), which the stdin fallback of __AFL_FUZZ_TESTCASE_LEN calls */

#ifndef __AFL_FUZZ_TESTCASE_LEN
#error "afl_main.c needs afl-clang-fast (it defines __AFL_FUZZ_INIT and __AFL_LOOP)"
#endif

__AFL_FUZZ_INIT();

int main(void)
{
#ifdef __AFL_HAVE_MANUAL_CONTROL
    __AFL_INIT();
#endif
    const unsigned char *shared = __AFL_FUZZ_TESTCASE_BUF;
    while (__AFL_LOOP(100000)) {
        size_t len = (size_t)__AFL_FUZZ_TESTCASE_LEN;
        uint8_t *copy = malloc(len ? len : 1);
        if (!copy)
            abort();
        memcpy(copy, shared, len);
        LLVMFuzzerTestOneInput(copy, len);
        free(copy);
    }
    return 0;
}
