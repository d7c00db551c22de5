/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The table of bento's verbs and the usage-error rendering they share.  A
 * new verb joins by adding a row here and a cmd-<verb>.c; main.c needs no
 * change.  Kept out of main.c so the verbs link into the unit tests and the
 * fuzz targets, which bring their own main().
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"

const struct bento_verb bento_verbs[] = {
    {"run", cmd_run,
     "bento run <manifest> [--strict|--allow-degraded] [--allow-unapproved] [--env NAME=VALUE]... "
     "[--accept-alias TREE]... [--run-id ID] [--record-exec] [--network-gate SOCKET "
     "[--network-gate-timeout SECONDS]] [--json]",
     "run the manifest's entrypoint in a sandbox under exactly the permissions it grants",
     cmd_run_opts},
    {"profile", cmd_profile,
     "bento profile <script> [--interpreter X] [--out MANIFEST] [--allow-network] "
     "[--accept-alias TREE]... [--json] [-- ARGS...]",
     "run a script in the sandbox under an observer and draft the manifest it needs",
     cmd_profile_opts},
    {"translate", cmd_translate,
     "bento translate <manifest> -o <dir> [--json] [--env NAME=VALUE]...",
     "compile a manifest into an OCI bundle (config.json and rootfs/)", cmd_translate_opts},
    {"validate", cmd_validate, "bento validate <manifest> [--json] [--strict] [--relocatable]",
     "show what a manifest grants on this host and everything a run here would refuse",
     cmd_validate_opts},
    {"inspect", cmd_inspect, "bento inspect <bundle-dir> [--json]",
     "show the policy a bundle's config.json enforces and flag what no manifest produces",
     cmd_inspect_opts},
    {"approve", cmd_approve, "bento approve <manifest> [--yes]",
     "review a manifest's permissions and stamp them as approved", cmd_approve_opts},
    {"doctor", cmd_doctor, "bento doctor [--json]",
     "report which sandbox layers this host enforces and what each shortfall means for a run",
     cmd_doctor_opts},
    {"version", cmd_version, "bento version", "print the version and the platform",
     cmd_version_opts},
    {"completion", cmd_completion, "bento completion <bash|zsh|fish>",
     "print a shell completion script for bento's commands and their flags", cmd_completion_opts},
};

const struct bento_opt bento_global_opts[] = {
    {"help", 'h', BENTO_OPT_FLAG, BENTO_GLOBAL_HELP, NULL, NULL},
    {"version", 0, BENTO_OPT_FLAG, BENTO_GLOBAL_VERSION, NULL, NULL},
    {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL},
};

const size_t bento_n_verbs = sizeof(bento_verbs) / sizeof(bento_verbs[0]);

const struct bento_verb *bento_find_verb(const char *name)
{
        for (size_t i = 0; i < bento_n_verbs; i++)
                if (strcmp(bento_verbs[i].name, name) == 0)
                        return &bento_verbs[i];
        return NULL;
}

int bento_usage_error(const char *verb, const char *fmt, ...)
{
        const struct bento_verb *v = bento_find_verb(verb);
        va_list ap;

        fputs("bento: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        if (v)
                fprintf(stderr,
                        "usage: %s\nRun `bento %s --help` for what it does and the flags "
                        "it takes.\n",
                        v->use, v->name);
        return BENTO_EXIT_REFUSED;
}
