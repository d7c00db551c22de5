/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A minimal TAP producer for the unit tests.  TEST(name) { ... } defines a
 * test that registers itself; TAP_MAIN() runs them all in source order and
 * prints "1..N" and one "ok"/"not ok" line each.  A failed ASSERT_* prints a
 * diagnostic and returns from the test (cleanup attributes still run).
 * SKIP_ALL(reason) skips the whole program: "1..0 # SKIP reason" and exit
 * 77 (automake's skip code), or exit 0 under prove, which counts 77 as a
 * failure (it sets HARNESS_ACTIVE).
 */
#ifndef BENTO_TAP_H
#define BENTO_TAP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tap_test {
        const char *name;
        void (*fn)(void);
        int line;
};
static struct tap_test tap_tests[256];
static int tap_count, tap_failed_now;

#define TEST(name)                                                                                 \
        static void test_##name(void);                                                             \
        __attribute__((constructor)) static void tap_reg_##name(void)                              \
        {                                                                                          \
                if (tap_count == 256) {                                                            \
                        printf("Bail out! more than 256 tests\n");                                 \
                        exit(1);                                                                   \
                }                                                                                  \
                tap_tests[tap_count++] = (struct tap_test){#name, test_##name, __LINE__};          \
        }                                                                                          \
        static void test_##name(void)

#define TAP_FAIL(...)                                                                              \
        do {                                                                                       \
                printf("#   %s:%d: ", __FILE__, __LINE__);                                         \
                printf(__VA_ARGS__);                                                               \
                printf("\n");                                                                      \
                tap_failed_now = 1;                                                                \
                return;                                                                            \
        } while (0)

#define ASSERT_TRUE(c)                                                                             \
        do {                                                                                       \
                if (!(c))                                                                          \
                        TAP_FAIL("expected true: %s", #c);                                         \
        } while (0)
#define ASSERT_EQ(a, b)                                                                            \
        do {                                                                                       \
                long long a_ = (long long) (a), b_ = (long long) (b);                              \
                if (a_ != b_)                                                                      \
                        TAP_FAIL("%s == %s: %lld != %lld", #a, #b, a_, b_);                        \
        } while (0)
#define ASSERT_OK(e)                                                                               \
        do {                                                                                       \
                long long r_ = (long long) (e);                                                    \
                if (r_ < 0)                                                                        \
                        TAP_FAIL("%s failed: %lld", #e, r_);                                       \
        } while (0)
#define ASSERT_STREQ(a, b)                                                                         \
        do {                                                                                       \
                const char *a_ = (a), *b_ = (b);                                                   \
                if (!a_ || !b_ || strcmp(a_, b_) != 0)                                             \
                        TAP_FAIL("%s == %s: \"%s\" != \"%s\"", #a, #b, a_ ? a_ : "(null)",         \
                                 b_ ? b_ : "(null)");                                              \
        } while (0)
#define ASSERT_CONTAINS(h, n)                                                                      \
        do {                                                                                       \
                const char *h_ = (h), *n_ = (n);                                                   \
                if (!h_ || !strstr(h_, n_))                                                        \
                        TAP_FAIL("\"%s\" lacks \"%s\"", h_ ? h_ : "(null)", n_);                   \
        } while (0)

#define SKIP_ALL(reason)                                                                           \
        do {                                                                                       \
                printf("1..0 # SKIP %s\n", reason);                                                \
                exit(getenv("HARNESS_ACTIVE") ? 0 : 77);                                           \
        } while (0)

static int tap_cmp(const void *a, const void *b)
{
        return ((const struct tap_test *) a)->line - ((const struct tap_test *) b)->line;
}

#define TAP_MAIN()                                                                                 \
        int main(void)                                                                             \
        {                                                                                          \
                int failed = 0;                                                                    \
                qsort(tap_tests, (size_t) tap_count, sizeof(tap_tests[0]), tap_cmp);               \
                printf("1..%d\n", tap_count);                                                      \
                for (int i = 0; i < tap_count; i++) {                                              \
                        tap_failed_now = 0;                                                        \
                        tap_tests[i].fn();                                                         \
                        fflush(stdout);                                                            \
                        printf("%sok %d - %s\n", tap_failed_now ? "not " : "", i + 1,              \
                               tap_tests[i].name);                                                 \
                        failed += tap_failed_now;                                                  \
                }                                                                                  \
                return failed ? 1 : 0;                                                             \
        }

#endif
