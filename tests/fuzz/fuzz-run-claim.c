/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for translate/run/claim.c's reader: a run's claim is a
 * file in bento's private directory that names directories the next run
 * removes, so it is read as hostile.  Besides "no crash, no leak, no
 * undefined behaviour": at most max directories come back, each an
 * absolute path spelled as path_clean() spells it, whose last component
 * is a name bento gives its run directories, and nothing comes back from
 * a text without the header.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "manifest/path.h"
#include "run/claim.h"

static int bento_named(const char *name)
{
        const char *tail = strncmp(name, "bento-run-", 10) == 0 ? name + 10
                           : strncmp(name, "bento-", 6) == 0    ? name + 6
                                                                : NULL;
        static const char alnum[] =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

        return tail && strlen(tail) == 6 && strspn(tail, alnum) == 6;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct run_claimed v[RUN_CLAIM_DIRS];
        const char *header = "bento-run-claim 1\n";
        size_t n;

        if (size > FUZZ_MAX_BYTES)
                return 0;
        n = run_claim_parse((const char *) data, size, v, RUN_CLAIM_DIRS);
        must(n <= RUN_CLAIM_DIRS, "at most max directories");
        must(n == 0 || (size >= strlen(header) && memcmp(data, header, strlen(header)) == 0),
             "no directory without the header");
        for (size_t i = 0; i < n; i++) {
                char *clean = path_clean(v[i].path);

                must(v[i].path[0] == '/', "an absolute path");
                must(clean && strcmp(clean, v[i].path) == 0, "a clean path");
                must(bento_named(strrchr(v[i].path, '/') + 1), "a name bento gives");
                free(clean);
                free(v[i].path);
        }
        return 0;
}
