/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento version (spec/bento.md §3.7): the build (version and commit, both
 * from the Makefile) and the platform it was built for.
 */
#include <stdio.h>
#include <string.h>

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

int cmd_version(int argc, char **argv)
{
        if (argc > 1)
                return bento_usage_error("version", "version takes no arguments, but got %d",
                                         argc - 1);
        (void) argv;
#ifdef BENTO_COMMIT
        printf("bento %s (commit: %s)\n", BENTO_VERSION, BENTO_COMMIT);
#else
        printf("bento %s\n", BENTO_VERSION);
#endif
        printf("Platform: linux/%s\n", PLATFORM_ARCH);
        /* Only amd64 has been verified (§0); say so instead of implying it. */
        if (strcmp(PLATFORM_ARCH, "amd64") != 0)
                printf("  Support for linux/%s is planned, not verified.\n", PLATFORM_ARCH);
        return 0;
}
