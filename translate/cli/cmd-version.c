/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento version / bento --version (docs/cli/bento-version.md): the build (version,
 * commit and build date, all from the Makefile; the date is the commit's
 * own, so the same tree builds the same binary) and the platform: the
 * architecture it was built for, whether that one is verified (docs/cli/bento-version.md,
 * "DESCRIPTION": only linux/amd64 is), and the kernel it runs on.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "cli.h"
#include "commands.h"

#ifndef BENTO_VERSION
#define BENTO_VERSION "dev"
#endif

#if defined(__x86_64__)
#define PLATFORM_ARCH "amd64"
#elif defined(__aarch64__)
#define PLATFORM_ARCH "arm64"
#elif defined(__i386__)
#define PLATFORM_ARCH "386"
#elif defined(__riscv) && __riscv_xlen == 64
#define PLATFORM_ARCH "riscv64"
#else
#define PLATFORM_ARCH "unknown"
#endif

static void print_build(void)
{
#if defined(BENTO_COMMIT) && defined(BENTO_BUILD_DATE)
        printf("bento %s (commit: %s, built: %s)\n", BENTO_VERSION, BENTO_COMMIT, BENTO_BUILD_DATE);
#elif defined(BENTO_COMMIT)
        printf("bento %s (commit: %s)\n", BENTO_VERSION, BENTO_COMMIT);
#else
        printf("bento %s\n", BENTO_VERSION);
#endif
}

/* No flags of its own: --help (answered by main.c) and "--". */
const struct bento_opt cmd_version_opts[] = {
    {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL},
};

int cmd_version(int argc, char **argv)
{
        struct utsname u;
        bool verified = strcmp(PLATFORM_ARCH, "amd64") == 0;
        struct bento_argv a;
        struct bento_argv_hit h;
        struct bento_err err = {0};
        int npos = 0, r;

        cli_argv_init(&a, argc, argv);
        while ((r = bento_argv_next(&a, cmd_version_opts, &h, &err)) > 0)
                npos++;
        if (r < 0)
                return cli_usage_problem("version", &a, &err);
        if (npos > 0)
                return bento_usage_error("version", "version takes no arguments, but got %d", npos);
        print_build();
        printf("Platform: linux/%s (%s)\n", PLATFORM_ARCH, verified ? "verified" : "not verified");
        /* Only amd64 has been verified (docs/cli/bento-version.md, "DESCRIPTION"); say so instead
         * of implying it. */
        if (!verified)
                printf("  Support for linux/%s is planned, not verified: bento builds and probes "
                       "here,\n  but its filters and tests are only checked on linux/amd64.\n",
                       PLATFORM_ARCH);
        if (uname(&u) == 0)
                printf("Kernel: %s %s (%s)\n", u.sysname, u.release, u.machine);
        /* docs/cli/bento-version.md: the passwd lookup for the shields parses /etc/passwd itself
         * (shields/shields.h), so no NSS module can steer it and there is no caveat
         * to print. */
        return 0;
}
