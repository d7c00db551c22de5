/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for translate/run/gitconfig.c: the auto-exec report names the
 * git settings that make git run a command, in every spelling git reads
 * (subsections, the old [section.sub] form, a key on the header's line,
 * mixed case), and leaves ordinary settings out.
 */
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "run/run.h"
#include "tap.h"

static bool has(char *const *v, size_t n, const char *want)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(v[i], want) == 0)
                        return true;
        return false;
}

TEST(settings_that_run_code_are_named)
{
        static const char text[] = "[core]\n"
                                   "\trepositoryformatversion = 0\n"
                                   "\tFSMonitor = /tmp/x.sh\n"
                                   "\thooksPath=/tmp/hooks\n"
                                   "[diff \"img\"]\n"
                                   "\ttextconv = exiftool\n"
                                   "[filter \"lfs\"]\n"
                                   "\tsmudge = git-lfs smudge %f\n"
                                   "[include]\n"
                                   "\tpath = ../evil.cfg\n"
                                   "[includeIf \"gitdir:/x/\"]\n"
                                   "\tpath = ../evil2.cfg\n"
                                   "[alias]\n"
                                   "\tst = !sh -c id\n"
                                   "[remote \"origin\"]\n"
                                   "\turl = ext::sh -c id\n"
                                   "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
                                   "[core] sshCommand = ssh -oProxyCommand=id\n"
                                   "[credential.https://example.com]\n"
                                   "\thelper = !id\n";
        cleanup_strv char **v = NULL;
        size_t n = 0;

        ASSERT_EQ(run_git_settings(text, sizeof(text) - 1, &v, &n), 0);
        ASSERT_TRUE(has(v, n, "core.fsmonitor=/tmp/x.sh"));
        ASSERT_TRUE(has(v, n, "core.hookspath=/tmp/hooks"));
        ASSERT_TRUE(has(v, n, "diff.img.textconv=exiftool"));
        ASSERT_TRUE(has(v, n, "filter.lfs.smudge=git-lfs smudge %f"));
        ASSERT_TRUE(has(v, n, "include.path=../evil.cfg"));
        ASSERT_TRUE(has(v, n, "includeif.gitdir:/x/.path=../evil2.cfg"));
        ASSERT_TRUE(has(v, n, "alias.st=!sh -c id"));
        ASSERT_TRUE(has(v, n, "remote.origin.url=ext::sh -c id"));
        ASSERT_TRUE(has(v, n, "core.sshcommand=ssh -oProxyCommand=id"));
        ASSERT_TRUE(has(v, n, "credential.https://example.com.helper=!id"));
        ASSERT_EQ(n, 10);
        /* Ordinary settings are not named. */
        for (size_t i = 0; i < n; i++) {
                ASSERT_TRUE(strstr(v[i], "repositoryformatversion") == NULL);
                ASSERT_TRUE(strstr(v[i], "fetch=") == NULL);
        }
}

TEST(a_plain_config_names_nothing)
{
        static const char text[] =
            "[core]\n\tbare = false\n\tfilemode = true\n# core.fsmonitor = x\n"
            "; core.pager = y\n[user]\n\tname = A\n";
        cleanup_strv char **v = NULL;
        size_t n = 99;

        ASSERT_EQ(run_git_settings(text, sizeof(text) - 1, &v, &n), 0);
        ASSERT_EQ(n, 0);
}

TEST(garbage_is_not_a_crash)
{
        static const char text[] = "[\n]]]\n[\"\n=\n[core \"\n fsmonitor\n\xff\xfe = \n[";
        cleanup_strv char **v = NULL;
        size_t n = 0;

        ASSERT_EQ(run_git_settings(text, sizeof(text) - 1, &v, &n), 0);
}

TAP_MAIN()
