/* check.h — the tests' tiny harness: every CHECK prints one TAP-like line
 * ("ok - ..." / "not ok - ..."), tests/run.sh counts them over all programs.
 * Random tests take their seed from the environment (NBODY6C_TEST_SEED) and
 * print it, so a failure can be replayed. */
#ifndef NBODY6C_CHECK_H
#define NBODY6C_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>

static int check_npass, check_nfail;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (cond) {                                                        \
            check_npass++;                                                 \
            printf("ok - ");                                               \
        } else {                                                           \
            check_nfail++;                                                 \
            printf("not ok - %s:%d: ", __FILE__, __LINE__);                \
        }                                                                  \
        printf(__VA_ARGS__);                                               \
        printf("\n");                                                      \
        fflush(stdout);                                                    \
    } while (0)

#define SKIP(...)                                                          \
    do {                                                                   \
        printf("skip - ");                                                 \
        printf(__VA_ARGS__);                                               \
        printf("\n");                                                      \
    } while (0)

static inline uint64_t check_seed(void)
{
    const char *s = getenv("NBODY6C_TEST_SEED");
    uint64_t seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 20);
    printf("# seed %llu (replay: NBODY6C_TEST_SEED=%llu)\n", (unsigned long long)seed,
           (unsigned long long)seed);
    return seed;
}

static inline int check_done(void)
{
    printf("# %d passed, %d failed\n", check_npass, check_nfail);
    return check_nfail ? 1 : 0;
}

#endif
