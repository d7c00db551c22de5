/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The git settings that make git run a command (the auto-exec report's
 * view of .git/config): core.fsmonitor, core.hooksPath, core.sshCommand,
 * core.pager, diff.external, filter drivers, includes and the like.  A run
 * that adds or changes one of them has planted something the next
 * `git status` or `git diff` on the host runs, so the report names the key,
 * not only the file.
 *
 * This is not git's parser and need not be: the file is hostile, and the
 * report errs on the side of naming too much.  Sections, subsections and
 * keys are read the way git writes them ([section "sub"] key = value, and
 * the old [section.sub] form), case-folded where git folds them; anything
 * this reader cannot place still shows up as "the file changed".
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
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

static void lower(char *s)
{
        for (; *s; s++)
                *s = (char) tolower((unsigned char) *s);
}

struct cfg_pos {
        char section[128];
        char sub[256];
        bool has_sub;
};

/* "[section]", "[section "sub"]" or "[section.sub]"; false when the line
 * is not one this reader understands (the position is then unknown). */
static bool parse_header(const char *line, struct cfg_pos *pos)
{
        const char *end = strchr(line, ']');
        const char *quote = strchr(line, '"');
        size_t n;

        *pos = (struct cfg_pos){0};
        if (!end)
                return false;
        if (quote && quote < end) {
                const char *close = strrchr(line, '"');

                n = (size_t) (quote - line - 1);
                while (n && isspace((unsigned char) line[n]))
                        n--;
                if (close <= quote || n + 1 >= sizeof(pos->section) ||
                    (size_t) (close - quote - 1) >= sizeof(pos->sub))
                        return false;
                memcpy(pos->section, line + 1, n);
                memcpy(pos->sub, quote + 1, (size_t) (close - quote - 1));
                pos->has_sub = true;
        } else {
                const char *dot = memchr(line, '.', (size_t) (end - line));

                n = (size_t) ((dot ? dot : end) - line - 1);
                if (n >= sizeof(pos->section) ||
                    (dot && (size_t) (end - dot - 1) >= sizeof(pos->sub)))
                        return false;
                memcpy(pos->section, line + 1, n);
                if (dot)
                        memcpy(pos->sub, dot + 1, (size_t) (end - dot - 1));
                pos->has_sub = dot != NULL;
        }
        pos->section[strcspn(pos->section, " \t")] = '\0';
        lower(pos->section);
        return pos->section[0] != '\0';
}

static int push_setting(char ***v, size_t *n, const struct cfg_pos *pos, const char *key,
                        const char *value)
{
        char **nv = reallocarray(*v, *n + 2, sizeof(char *));
        char *s = NULL;

        if (!nv)
                return -ENOMEM;
        *v = nv;
        if (asprintf(&s, "%s%s%s.%s=%s", pos->section, pos->has_sub ? "." : "", pos->sub, key,
                     value) < 0)
                return -ENOMEM;
        nv[(*n)++] = s;
        nv[*n] = NULL;
        return 0;
}

/* One "key = value" line inside a known section. */
static int parse_setting(char *line, const struct cfg_pos *pos, char ***v, size_t *n)
{
        char *eq = strchr(line, '=');
        char *key = line, *value = eq ? eq + 1 : (char *) "";
        size_t klen;

        if (eq)
                *eq = '\0';
        klen = strcspn(key, " \t#;");
        key[klen] = '\0';
        lower(key);
        while (isspace((unsigned char) *value))
                value++;
        value[strcspn(value, "\r")] = '\0';
        if (!key[0])
                return 0;
        /* A remote URL of the ext:: transport is a command line. */
        if (!runs_code(pos->section, pos->has_sub, key) &&
            !((strcmp(key, "url") == 0 || strcmp(key, "pushurl") == 0) &&
              strncmp(value, "ext::", 5) == 0))
                return 0;
        return push_setting(v, n, pos, key, value);
}

int run_git_settings(const char *text, char ***ret, size_t *ret_n)
{
        cleanup_free char *copy = strdup(text);
        cleanup_strv char **v = calloc(1, sizeof(char *));
        struct cfg_pos pos = {0};
        bool known = false;
        size_t n = 0;
        char *save = NULL;
        int r = 0;

        if (!copy || !v)
                return -ENOMEM;
        for (char *line = strtok_r(copy, "\n", &save); line && r >= 0;
             line = strtok_r(NULL, "\n", &save)) {
                while (isspace((unsigned char) *line))
                        line++;
                if (*line == '#' || *line == ';' || *line == '\0')
                        continue;
                if (*line == '[') {
                        known = parse_header(line, &pos);
                        /* "[core] fsmonitor = x" on one line is valid git. */
                        line = strchr(line, ']');
                        line = line ? line + 1 : (char *) "";
                        while (isspace((unsigned char) *line))
                                line++;
                        if (!*line)
                                continue;
                }
                if (known)
                        r = parse_setting(line, &pos, &v, &n);
        }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(v);
        *ret_n = n;
        return 0;
}
