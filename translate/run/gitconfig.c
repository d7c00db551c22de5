/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The git settings that make git run a command (the auto-exec report's
 * view of .git/config): core.fsmonitor, core.hooksPath, core.sshCommand,
 * core.pager, diff.external, filter drivers, includes and the like.  A run
 * that adds or changes one of them has planted something the next
 * `git status` or `git diff` on the host runs, so the report names the key,
 * not only the file.
 *
 * The file is read with git's syntax (gitconfig-parse.c) in its lenient
 * mode: the file is hostile, and the report errs on the side of naming too
 * much, so a line git would refuse is skipped rather than ending the list,
 * and anything this reader cannot place still shows up as "the file
 * changed".
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "gitconfig-parse.h"
#include "run.h"

/* Whole keys (section.key), then keys of any subsection (section.*.key). */
static const char *const exact_keys[] = {
    "core.fsmonitor",
    "core.hookspath",
    "core.sshcommand",
    "core.pager",
    "core.editor",
    "core.askpass",
    "core.gitproxy",
    "core.alternaterefscommand",
    "diff.external",
    "include.path",
    "credential.helper",
    "gpg.program",
    "sequence.editor",
    "uploadpack.packobjectshook",
    "interactive.difffilter",
    "web.browser",
    "sendemail.smtpserver",
};
static const char *const sub_keys[] = {
    "diff.command",     "diff.textconv",     "merge.driver",       "filter.clean",
    "filter.smudge",    "filter.process",    "includeif.path",     "credential.helper",
    "gpg.program",      "remote.uploadpack", "remote.receivepack", "remote.proxy",
    "difftool.cmd",     "mergetool.cmd",     "browser.cmd",        "man.cmd",
    "submodule.update",
};
/* Whole sections where every key runs something (pager.log, alias.x = !cmd). */
static const char *const any_key_sections[] = {"pager", "alias"};

static bool listed(const char *const *v, size_t n, const char *s)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(v[i], s) == 0)
                        return true;
        return false;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static bool runs_code(const char *section, bool has_sub, const char *key)
{
        char name[256];

        if (listed(any_key_sections, N(any_key_sections), section))
                return true;
        if (snprintf(name, sizeof(name), "%s.%s", section, key) >= (int) sizeof(name))
                return true; /* too long to be a key git knows: name it anyway */
        return listed(has_sub ? sub_keys : exact_keys, has_sub ? N(sub_keys) : N(exact_keys), name);
}

struct settings {
        char **v;
        size_t n;
};

static int add_setting(const char *key, const char *value, void *data)
{
        struct settings *s = data;
        char section[128], name_buf[128];
        const char *sub, *name;
        size_t section_len, sub_len, name_len;
        char **nv;
        char *line = NULL;

        gitcfg_split(key, &section_len, &sub, &sub_len, &name);
        if (!value)
                value = "";
        name_len = strlen(name);
        if (section_len >= sizeof(section) || name_len >= sizeof(name_buf))
                return 0; /* longer than any key git knows */
        memcpy(section, key, section_len);
        section[section_len] = '\0';
        memcpy(name_buf, name, name_len + 1);
        /* A remote URL of the ext:: transport is a command line. */
        if (!runs_code(section, sub != NULL, name_buf) &&
            !((strcmp(name_buf, "url") == 0 || strcmp(name_buf, "pushurl") == 0) &&
              strncmp(value, "ext::", 5) == 0))
                return 0;
        nv = reallocarray(s->v, s->n + 2, sizeof(char *));
        if (!nv)
                return -ENOMEM;
        s->v = nv;
        if (asprintf(&line, "%s=%s", key, value) < 0)
                return -ENOMEM;
        nv[s->n++] = line;
        nv[s->n] = NULL;
        return 0;
}

int run_git_settings(const char *text, size_t len, char ***ret, size_t *ret_n)
{
        struct settings s = {.v = calloc(1, sizeof(char *))};
        int r = s.v ? gitcfg_parse(text, len, true, add_setting, &s) : -ENOMEM;

        if (r < 0) {
                strv_free(s.v);
                return r;
        }
        *ret = s.v;
        *ret_n = s.n;
        return 0;
}
