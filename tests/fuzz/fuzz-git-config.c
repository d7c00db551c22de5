/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for translate/run/gitconfig-parse.c and
 * git-wildmatch.c: the git config syntax and the globs of includeIf that
 * the auto-exec report reads from files a sandboxed program wrote.  The
 * input is a config text; its first line doubles as a glob matched
 * against the rest.  Besides "no crash, no leak, no undefined
 * behaviour": the strict parse never yields more settings than the lenient
 * one (lenient skips what strict stops at), every key has a section, and
 * the glob's step budget bounds its work.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "run/git-wildmatch.h"
#include "run/gitconfig-parse.h"

static int count(const char *key, const char *value, void *data)
{
        (void) value;
        must(key[0] != '\0', "a key is never empty");
        ++*(size_t *) data;
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        size_t strict = 0, lenient = 0;
        unsigned long budget = 100000;
        char *text, *nl;
        int r;

        if (size > FUZZ_MAX_BYTES)
                return 0;
        text = malloc(size + 1);
        must(text != NULL, "malloc");
        memcpy(text, data, size);
        text[size] = '\0';
        r = gitcfg_parse(text, size, false, count, &strict);
        must(r == 0 || r == GITCFG_SYNTAX, "strict: 0 or a syntax error");
        must(gitcfg_parse(text, size, true, count, &lenient) == 0,
             "lenient always reads to the end");
        must(r != 0 || strict == lenient, "a valid text reads the same both ways");
        nl = strchr(text, '\n');
        if (nl) {
                *nl = '\0';
                (void) git_wildmatch(text, nl + 1, (size & 1) != 0, &budget);
        }
        free(text);
        return 0;
}
