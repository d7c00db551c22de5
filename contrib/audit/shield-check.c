/* SPDX-License-Identifier: Apache-2.0 */
/*
 * shield-check: which credential shield (translate/shields) covers each
 * path read from stdin, one absolute path a line, for `make audit`
 * (contrib/audit/firejail-audit.py).  It builds the shield set exactly as a
 * run does, from this process's HOME, XDG_RUNTIME_DIR, the relocating
 * variables and the password database, and prints per path
 * "hidden", "read-only" or "none", a tab, and the path.  It only reads:
 * nothing on the host is touched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "shields/shields.h"

static const char *verdict(const struct shield_set *s, const char *path)
{
        const struct shield_rule *r = shields_covering(s, path);

        if (!r)
                return "none";
        return r->deny == SHIELD_DENY_ALL ? "hidden" : "read-only";
}

int main(void)
{
        struct shield_env env = {.uid = getuid()};
        struct shield_set *s = NULL;
        struct bento_err err = {0};
        cleanup_free char *line = NULL;
        size_t cap = 0;
        ssize_t n;

        if (shields_build(&env, &s, &err) < 0) {
                fprintf(stderr, "shield-check: %s\n", err.msg);
                return 2;
        }
        while ((n = getline(&line, &cap, stdin)) > 0) {
                if (line[n - 1] == '\n')
                        line[n - 1] = '\0';
                if (line[0] != '/')
                        continue;
                printf("%s\t%s\n", verdict(s, line), line);
        }
        shield_set_free(s);
        return fflush(stdout) == 0 ? 0 : 2;
}
