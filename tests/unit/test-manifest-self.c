/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for what bento asks of the kernel once and keeps
 * (translate/manifest/self.c, translate/compile/compile.c): the effective
 * uid, and bento's own program as the helpers' directory.  The first
 * question may come from any thread, and every later answer must be the
 * kernel's first one; a helper named in the environment is never taken
 * from the kept path.
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "compile/compile.h"
#include "manifest/self.h"
#include "tap.h"

#define THREADS 8

static pthread_barrier_t start;

struct answers {
        uid_t euid;
        char *helper;
};

static void *ask(void *arg)
{
        struct answers *a = arg;

        pthread_barrier_wait(&start);
        a->euid = bento_euid();
        a->helper = compile_helper_path("BENTO_TEST_SELF_UNSET", "bento-runtime");
        return NULL;
}

TEST(the_first_answers_from_many_threads_are_the_kernels)
{
        struct answers a[THREADS] = {0};
        pthread_t t[THREADS];
        char self[PATH_MAX], want[PATH_MAX + 32];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

        ASSERT_TRUE(n > 0);
        self[n] = '\0';
        *strrchr(self, '/') = '\0';
        snprintf(want, sizeof(want), "%s/bento-runtime", self);
        unsetenv("BENTO_TEST_SELF_UNSET");
        ASSERT_OK(pthread_barrier_init(&start, NULL, THREADS));
        for (int i = 0; i < THREADS; i++)
                ASSERT_OK(pthread_create(&t[i], NULL, ask, &a[i]));
        for (int i = 0; i < THREADS; i++)
                pthread_join(t[i], NULL);
        pthread_barrier_destroy(&start);
        for (int i = 0; i < THREADS; i++) {
                ASSERT_EQ(a[i].euid, geteuid());
                ASSERT_STREQ(a[i].helper, want);
                free(a[i].helper);
        }
}

TEST(later_answers_are_the_kept_ones_and_the_environment_still_wins)
{
        cleanup_free char *again = compile_helper_path("BENTO_TEST_SELF_SET", "bento-egress");
        cleanup_free char *lib = compile_library_path("BENTO_TEST_SELF_SET", "x.so");
        cleanup_free char *given = NULL;
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

        ASSERT_EQ(bento_euid(), geteuid());
        ASSERT_TRUE(n > 0 && again && lib);
        self[n] = '\0';
        *strrchr(self, '/') = '\0';
        ASSERT_TRUE(strncmp(again, self, strlen(self)) == 0);
        ASSERT_STREQ(again + strlen(self), "/bento-egress");
        /* the library directory is one level above the program's */
        *strrchr(self, '/') = '\0';
        ASSERT_TRUE(strncmp(lib, self, strlen(self)) == 0);
        ASSERT_STREQ(lib + strlen(self), "/lib/bento/x.so");
        ASSERT_OK(setenv("BENTO_TEST_SELF_SET", "/opt/elsewhere/bento-egress", 1));
        given = compile_helper_path("BENTO_TEST_SELF_SET", "bento-egress");
        unsetenv("BENTO_TEST_SELF_SET");
        ASSERT_STREQ(given, "/opt/elsewhere/bento-egress");
}

TAP_MAIN()
