/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/seccomp/ without a container: an OCI linux.seccomp section is
 * compiled into a program, what `state` says of it is checked (rules
 * counted, names skipped, flags), the program is loaded in a forked child
 * to see that it denies what the rules say and allows the rest, and every
 * kind of mistake (unknown action, architecture, operator, flag; an errno
 * where none is taken; a notify rule without a listener) is refused with
 * its JSON path.  The compile cache is checked to give the same program.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "json.h"
#include "oci-config.h"
#include "seccomp/seccomp.h"
#include "tap.h"

static struct bento_err err;
static char warn[1024];

#define CONFIG(seccomp)                                                                            \
        "{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"rootfs\"},\"linux\":{\"seccomp\":" seccomp \
        "}}"

/* A default-allow profile: getppid fails with errno 99; dup(100) with 98,
 * dup of any other fd works; a name libseccomp does not know is skipped. */
static const char allow_profile[] =
    CONFIG("{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"architectures\":[\"SCMP_ARCH_X86_64\"],"
           "\"flags\":[\"SECCOMP_FILTER_FLAG_SPEC_ALLOW\"],"
           "\"syscalls\":[{\"names\":[\"getppid\",\"bento_no_such_call\"],"
           "\"action\":\"SCMP_ACT_ERRNO\",\"errnoRet\":99},"
           "{\"names\":[\"dup\"],\"action\":\"SCMP_ACT_ERRNO\",\"errnoRet\":98,"
           "\"args\":[{\"index\":0,\"value\":100,\"op\":\"SCMP_CMP_EQ\"}]},"
           "{\"names\":[\"getpid\"],\"action\":\"SCMP_ACT_ALLOW\"}]}");

static int compile(const char *doc, int cache_fd, struct oci_config **cfg, struct rt_seccomp **ret)
{
        int r;

        bento_err_clear(&err);
        r = oci_config_parse(doc, strlen(doc), cfg, &err);
        if (r < 0)
                return r;
        return rt_seccomp_compile_cached(*cfg, NULL, cache_fd, ret, warn, sizeof(warn), &err);
}

/* Compiling doc must fail, with a message containing want. */
static int refuses(const char *doc, const char *want)
{
        cleanup_oci_config struct oci_config *cfg = NULL;
        struct rt_seccomp *s = NULL;
        int r = compile(doc, -1, &cfg, &s);

        rt_seccomp_free(s);
        if (r >= 0 || s) {
                printf("#   accepted: %s\n", doc);
                return 0;
        }
        if (!strstr(err.msg, want)) {
                printf("#   \"%s\" lacks \"%s\"\n", err.msg, want);
                return 0;
        }
        return 1;
}

static const struct bento_json *member(const struct bento_json *o, const char *key)
{
        const struct bento_json *v = bento_json_get(o, key);
        static const struct bento_json none = {.type = BENTO_JSON_NULL};

        return v ? v : &none;
}

TEST(no_section_no_filter)
{
        static const char doc[] = "{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"rootfs\"}}";
        cleanup_oci_config struct oci_config *cfg = NULL;
        struct rt_seccomp *s = (struct rt_seccomp *) 1;

        ASSERT_OK(compile(doc, -1, &cfg, &s));
        ASSERT_TRUE(s == NULL);
        ASSERT_STREQ(warn, "");
}

TEST(rules_skipped_names_and_flags_are_described)
{
        cleanup_oci_config struct oci_config *cfg = NULL;
        cleanup_bento_json struct bento_json *d = NULL;
        struct rt_seccomp *s = NULL;

        ASSERT_OK(compile(allow_profile, -1, &cfg, &s));
        ASSERT_TRUE(s != NULL);
        ASSERT_CONTAINS(warn, "unknown system call \"bento_no_such_call\" skipped");
        ASSERT_CONTAINS(warn, "linux.seccomp.syscalls[0]");
        d = rt_seccomp_describe(s);
        ASSERT_TRUE(d != NULL);
        ASSERT_STREQ(member(d, "defaultAction")->u.string.s, "SCMP_ACT_ALLOW");
        /* getppid and dup; the getpid rule is the default action: dropped */
        ASSERT_EQ(member(d, "rules")->u.number.u, 2);
        ASSERT_EQ(member(d, "skipped")->u.array.n, 1);
        ASSERT_STREQ(member(d, "skipped")->u.array.items[0]->u.string.s, "bento_no_such_call");
        ASSERT_STREQ(member(d, "flags")->u.array.items[0]->u.string.s,
                     "SECCOMP_FILTER_FLAG_SPEC_ALLOW");
        ASSERT_TRUE(member(d, "bpfInstructions")->u.number.u > 4);
        ASSERT_TRUE(!member(d, "cached")->u.boolean);
        ASSERT_TRUE(member(d, "listenerPath")->type == BENTO_JSON_NULL);
        ASSERT_TRUE(!rt_seccomp_has_listener(s));
        rt_seccomp_free(s);
}

/* In a child: load s, then 0 when every call did what the profile says,
 * or the number of the first check that failed. */
static int filtered_child(const struct rt_seccomp *s, const struct oci_config *cfg)
{
        struct bento_err e = {0};
        int fd;

        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return 10;
        if (rt_seccomp_install(s, -1, cfg, "hygiene-seccomp", "/nonexistent", getpid(), &e) < 0)
                return 11;
        /* through syscall(2): glibc's getppid() never sets errno */
        if (syscall(SYS_getppid) != -1 || errno != 99)
                return 1; /* denied, with the errno of the rule */
        if (dup(100) != -1 || errno != 98)
                return 2; /* the condition matches */
        fd = dup(0);
        if (fd < 0)
                return 3; /* ... and only it */
        close(fd);
        if (getpid() <= 0)
                return 4; /* the rest is allowed */
        return 0;
}

TEST(the_program_denies_what_the_rules_say_and_nothing_else)
{
        cleanup_oci_config struct oci_config *cfg = NULL;
        struct rt_seccomp *s = NULL;
        int status = 0;
        pid_t pid;

        ASSERT_OK(compile(allow_profile, -1, &cfg, &s));
        /* control: unfiltered, the calls the filter denies work */
        ASSERT_TRUE(getppid() > 0);
        fflush(stdout);
        pid = fork();
        ASSERT_TRUE(pid >= 0);
        if (pid == 0)
                _exit(filtered_child(s, cfg));
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        rt_seccomp_free(s);
        ASSERT_TRUE(WIFEXITED(status));
        ASSERT_EQ(WEXITSTATUS(status), 0);
}

TEST(a_repeated_argument_becomes_one_rule_per_condition)
{
        cleanup_oci_config struct oci_config *cfg = NULL;
        cleanup_bento_json struct bento_json *d = NULL;
        struct rt_seccomp *s = NULL;

        ASSERT_OK(compile(CONFIG("{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[{"
                                 "\"names\":[\"personality\"],\"action\":\"SCMP_ACT_ALLOW\","
                                 "\"args\":[{\"index\":0,\"value\":0,\"op\":\"SCMP_CMP_EQ\"},"
                                 "{\"index\":0,\"value\":8,\"op\":\"SCMP_CMP_EQ\"}]}]}"),
                          -1, &cfg, &s));
        d = rt_seccomp_describe(s);
        ASSERT_EQ(member(d, "rules")->u.number.u, 2);
        ASSERT_STREQ(warn, "");
        rt_seccomp_free(s);
}

TEST(the_cache_gives_the_same_program)
{
        char dir[] = "/tmp/bento-rt-seccomp-XXXXXX";
        cleanup_oci_config struct oci_config *c1 = NULL, *c2 = NULL;
        cleanup_bento_json struct bento_json *d1 = NULL, *d2 = NULL;
        struct rt_seccomp *s1 = NULL, *s2 = NULL;
        cleanup_close int cache = -1;
        char cmd[128], path[64];

        ASSERT_TRUE(mkdtemp(dir) != NULL);
        snprintf(path, sizeof(path), "%s/.cache/seccomp", dir);
        cache = rt_seccomp_cache_open(path);
        ASSERT_TRUE(cache >= 0);
        ASSERT_OK(compile(allow_profile, cache, &c1, &s1));
        ASSERT_OK(compile(allow_profile, cache, &c2, &s2));
        d1 = rt_seccomp_describe(s1);
        d2 = rt_seccomp_describe(s2);
        rt_seccomp_free(s1);
        rt_seccomp_free(s2);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        ASSERT_EQ(system(cmd), 0);
        ASSERT_TRUE(!member(d1, "cached")->u.boolean);
        ASSERT_TRUE(member(d2, "cached")->u.boolean);
        ASSERT_EQ(member(d1, "bpfInstructions")->u.number.u,
                  member(d2, "bpfInstructions")->u.number.u);
        ASSERT_EQ(member(d2, "rules")->u.number.u, 2);
        /* the skipped names are the profile's, not the cache's */
        ASSERT_EQ(member(d2, "skipped")->u.array.n, 1);
}

TEST(mistakes_are_refused_with_their_path)
{
        ASSERT_TRUE(refuses(CONFIG("{\"defaultAction\":\"SCMP_ACT_MAYBE\"}"),
                            "linux.seccomp.defaultAction: unknown action \"SCMP_ACT_MAYBE\""));
        ASSERT_TRUE(refuses(CONFIG("{\"syscalls\":[]}"), "defaultAction"));
        ASSERT_TRUE(refuses(CONFIG("{\"defaultAction\":\"SCMP_ACT_ALLOW\","
                                   "\"architectures\":[\"SCMP_ARCH_X86_64\",\"SCMP_ARCH_Z80\"]}"),
                            "linux.seccomp.architectures[1]: unknown architecture "
                            "\"SCMP_ARCH_Z80\""));
        ASSERT_TRUE(refuses(CONFIG("{\"defaultAction\":\"SCMP_ACT_ALLOW\","
                                   "\"flags\":[\"SECCOMP_FILTER_FLAG_FAST\"]}"),
                            "linux.seccomp.flags[0]: unknown flag"));
        ASSERT_TRUE(refuses(CONFIG("{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{"
                                   "\"names\":[\"read\"],\"action\":\"SCMP_ACT_NOPE\"}]}"),
                            "linux.seccomp.syscalls[0].action: unknown action"));
        ASSERT_TRUE(refuses(CONFIG("{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{"
                                   "\"names\":[\"read\"],\"action\":\"SCMP_ACT_KILL\","
                                   "\"args\":[{\"index\":0,\"value\":1,\"op\":\"SCMP_CMP_ABOUT\"}]"
                                   "}]}"),
                            "linux.seccomp.syscalls[0].args[0].op: unknown operator"));
        ASSERT_TRUE(refuses(CONFIG("{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{"
                                   "\"names\":[\"read\"],\"action\":\"SCMP_ACT_KILL\","
                                   "\"args\":[{\"index\":6,\"value\":1,\"op\":\"SCMP_CMP_EQ\"}]"
                                   "}]}"),
                            "linux.seccomp.syscalls[0].args[0].index"));
        ASSERT_TRUE(refuses(CONFIG("{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{"
                                   "\"names\":[],\"action\":\"SCMP_ACT_KILL\"}]}"),
                            "linux.seccomp.syscalls[0].names: must name at least one"));
        ASSERT_TRUE(refuses(CONFIG("{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{"
                                   "\"names\":[\"read\",7],\"action\":\"SCMP_ACT_KILL\"}]}"),
                            "linux.seccomp.syscalls[0].names[1]"));
        ASSERT_TRUE(refuses(CONFIG("{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{"
                                   "\"names\":[\"read\"],\"action\":\"SCMP_ACT_KILL\","
                                   "\"errnoRet\":1}]}"),
                            "linux.seccomp.syscalls[0].errnoRet: only SCMP_ACT_ERRNO and "
                            "SCMP_ACT_TRACE take an errno"));
}

TEST(notify_needs_a_listener_and_never_covers_sendmsg)
{
        ASSERT_TRUE(refuses(CONFIG("{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{"
                                   "\"names\":[\"mkdir\"],\"action\":\"SCMP_ACT_NOTIFY\"}]}"),
                            "SCMP_ACT_NOTIFY needs linux.seccomp.listenerPath"));
        ASSERT_TRUE(refuses(CONFIG("{\"defaultAction\":\"SCMP_ACT_NOTIFY\","
                                   "\"listenerPath\":\"/run/agent.sock\"}"),
                            "SCMP_ACT_NOTIFY cannot be the default action"));
        ASSERT_TRUE(refuses(CONFIG("{\"defaultAction\":\"SCMP_ACT_ALLOW\","
                                   "\"listenerPath\":\"/run/agent.sock\",\"syscalls\":[{"
                                   "\"names\":[\"mkdir\",\"sendmsg\"],"
                                   "\"action\":\"SCMP_ACT_NOTIFY\"}]}"),
                            "linux.seccomp.syscalls[0].names[1]: SCMP_ACT_NOTIFY on sendmsg"));
        ASSERT_TRUE(refuses(CONFIG("{\"defaultAction\":\"SCMP_ACT_ALLOW\","
                                   "\"listenerPath\":\"relative.sock\"}"),
                            "linux.seccomp.listenerPath"));
}

TEST(a_listener_is_described)
{
        cleanup_oci_config struct oci_config *cfg = NULL;
        cleanup_bento_json struct bento_json *d = NULL;
        struct rt_seccomp *s = NULL;

        ASSERT_OK(compile(CONFIG("{\"defaultAction\":\"SCMP_ACT_ALLOW\","
                                 "\"listenerPath\":\"/run/agent.sock\",\"syscalls\":[{"
                                 "\"names\":[\"mkdir\"],\"action\":\"SCMP_ACT_NOTIFY\"}]}"),
                          -1, &cfg, &s));
        ASSERT_TRUE(rt_seccomp_has_listener(s));
        d = rt_seccomp_describe(s);
        ASSERT_STREQ(member(d, "listenerPath")->u.string.s, "/run/agent.sock");
        ASSERT_EQ(member(d, "rules")->u.number.u, 1);
        rt_seccomp_free(s);
}

TEST(lists_for_features)
{
        bool errno_action = false, eq = false, x86_64 = false;

        for (size_t i = 0; rt_seccomp_list_name(RT_SECCOMP_ACTIONS, i); i++)
                errno_action |=
                    !strcmp(rt_seccomp_list_name(RT_SECCOMP_ACTIONS, i), "SCMP_ACT_ERRNO");
        for (size_t i = 0; rt_seccomp_list_name(RT_SECCOMP_OPERATORS, i); i++)
                eq |= !strcmp(rt_seccomp_list_name(RT_SECCOMP_OPERATORS, i), "SCMP_CMP_EQ");
        for (size_t i = 0; rt_seccomp_list_name(RT_SECCOMP_ARCHS, i); i++)
                x86_64 |= !strcmp(rt_seccomp_list_name(RT_SECCOMP_ARCHS, i), "SCMP_ARCH_X86_64");
        ASSERT_TRUE(errno_action && eq && x86_64);
        ASSERT_TRUE(rt_seccomp_list_name(_RT_SECCOMP_LIST_MAX, 0) == NULL);
}

TAP_MAIN()
