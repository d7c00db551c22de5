/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The OCI seccomp vocabulary (actions, operators, architectures, flags) and
 * the life of a compiled filter object outside of compiling and installing
 * it: freeing, describing it for `state`, and the lists `features` prints.
 * Compiling is in compile.c, installing in install.c.
 */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"

#define ACT_ERRNO_BASE 0x00050000U
#define ACT_TRACE_BASE 0x7ff00000U

const struct rt_seccomp_name rt_seccomp_actions[] = {
    {"SCMP_ACT_KILL", SCMP_ACT_KILL},
    {"SCMP_ACT_KILL_PROCESS", SCMP_ACT_KILL_PROCESS},
    {"SCMP_ACT_KILL_THREAD", SCMP_ACT_KILL_THREAD},
    {"SCMP_ACT_TRAP", SCMP_ACT_TRAP},
    {"SCMP_ACT_ERRNO", ACT_ERRNO_BASE},
    {"SCMP_ACT_TRACE", ACT_TRACE_BASE},
    {"SCMP_ACT_ALLOW", SCMP_ACT_ALLOW},
    {"SCMP_ACT_LOG", SCMP_ACT_LOG},
    {"SCMP_ACT_NOTIFY", SCMP_ACT_NOTIFY},
    {NULL, 0},
};

const struct rt_seccomp_name rt_seccomp_operators[] = {
    {"SCMP_CMP_NE", SCMP_CMP_NE},
    {"SCMP_CMP_LT", SCMP_CMP_LT},
    {"SCMP_CMP_LE", SCMP_CMP_LE},
    {"SCMP_CMP_EQ", SCMP_CMP_EQ},
    {"SCMP_CMP_GE", SCMP_CMP_GE},
    {"SCMP_CMP_GT", SCMP_CMP_GT},
    {"SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ},
    {NULL, 0},
};

/* bento-runtime loads the program itself with seccomp(2), so every flag
 * the kernel has can be passed, whatever libseccomp's version knows. */
const struct rt_seccomp_name rt_seccomp_flags[] = {
    {"SECCOMP_FILTER_FLAG_TSYNC", SECCOMP_FILTER_FLAG_TSYNC},
    {"SECCOMP_FILTER_FLAG_LOG", SECCOMP_FILTER_FLAG_LOG},
    {"SECCOMP_FILTER_FLAG_SPEC_ALLOW", SECCOMP_FILTER_FLAG_SPEC_ALLOW},
    {"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV},
    {NULL, 0},
};

const char *const rt_seccomp_arch_names[] = {
    "SCMP_ARCH_X86",     "SCMP_ARCH_X86_64",   "SCMP_ARCH_X32",         "SCMP_ARCH_ARM",
    "SCMP_ARCH_AARCH64", "SCMP_ARCH_MIPS",     "SCMP_ARCH_MIPS64",      "SCMP_ARCH_MIPS64N32",
    "SCMP_ARCH_MIPSEL",  "SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PPC",
    "SCMP_ARCH_PPC64",   "SCMP_ARCH_PPC64LE",  "SCMP_ARCH_S390",        "SCMP_ARCH_S390X",
    "SCMP_ARCH_PARISC",  "SCMP_ARCH_PARISC64", "SCMP_ARCH_RISCV64",     "SCMP_ARCH_LOONGARCH64",
    "SCMP_ARCH_M68K",    "SCMP_ARCH_SH",       "SCMP_ARCH_SHEB",        NULL,
};

int64_t rt_seccomp_lookup(const struct rt_seccomp_name *table, const char *name)
{
        for (size_t i = 0; table[i].name; i++)
                if (strcmp(table[i].name, name) == 0)
                        return table[i].value;
        return -1;
}

uint32_t rt_seccomp_arch_token(const char *name)
{
        char lower[32];
        size_t i;

        if (strncmp(name, "SCMP_ARCH_", 10) != 0)
                return 0;
        name += 10;
        /* libseccomp spells architectures in lower case ("x86_64") */
        for (i = 0; name[i] && i + 1 < sizeof(lower); i++)
                lower[i] = (char) tolower((unsigned char) name[i]);
        if (name[i] || i == 0)
                return 0;
        lower[i] = '\0';
        return seccomp_arch_resolve_name(lower);
}

bool rt_seccomp_action_takes_errno(uint32_t action)
{
        uint32_t base = action & 0xffff0000U;

        return base == ACT_ERRNO_BASE || base == ACT_TRACE_BASE;
}

static void strv_free_n(char **v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}

struct rt_seccomp *rt_seccomp_free(struct rt_seccomp *s)
{
        if (!s)
                return NULL;
        free(s->prog.filter);
        free(s->default_action);
        strv_free_n(s->archs, s->n_archs);
        strv_free_n(s->flag_names, s->n_flags);
        strv_free_n(s->skipped, s->n_skipped);
        free(s->listener_path);
        free(s->listener_metadata);
        free(s);
        return NULL;
}

bool rt_seccomp_has_listener(const struct rt_seccomp *s)
{
        return s && s->notify && s->listener_path;
}

const char *rt_seccomp_listener_path(const struct rt_seccomp *s)
{
        return s ? s->listener_path : NULL;
}

int rt_seccomp_set_listener_path(struct rt_seccomp *s, char *path, struct bento_err *err)
{
        if (strlen(path) > RT_SECCOMP_LISTENER_MAX) {
                int r = bento_err_setx(err, ENAMETOOLONG,
                                       "linux.seccomp.listenerPath: longer than a unix socket "
                                       "address can be (%zu bytes): \"%.200s\"",
                                       RT_SECCOMP_LISTENER_MAX, path);

                free(path);
                return r;
        }
        free(s->listener_path);
        s->listener_path = path;
        return 0;
}

const char *rt_seccomp_listener_metadata(const struct rt_seccomp *s)
{
        return s ? s->listener_metadata : NULL;
}

static struct bento_json *string_array(char *const *v, size_t n)
{
        struct bento_json *arr = bento_json_new_array();

        for (size_t i = 0; arr && i < n; i++)
                if (bento_json_array_append(arr, bento_json_new_string(v[i])) < 0)
                        return bento_json_free(arr);
        return arr;
}

struct bento_json *rt_seccomp_describe(const struct rt_seccomp *s)
{
        cleanup_bento_json struct bento_json *o = bento_json_new_object();
        int r = o ? 0 : -ENOMEM;

        if (r >= 0)
                r = bento_json_object_set(o, "defaultAction",
                                          bento_json_new_string(s->default_action));
        if (r >= 0)
                r = bento_json_object_set(o, "architectures", string_array(s->archs, s->n_archs));
        if (r >= 0)
                r = bento_json_object_set(o, "flags", string_array(s->flag_names, s->n_flags));
        if (r >= 0)
                r = bento_json_object_set(o, "rules", bento_json_new_uint(s->n_rules));
        if (r >= 0)
                r = bento_json_object_set(o, "skipped", string_array(s->skipped, s->n_skipped));
        if (r >= 0)
                r = bento_json_object_set(o, "bpfInstructions", bento_json_new_uint(s->prog.len));
        if (r >= 0)
                r = bento_json_object_set(o, "cached", bento_json_new_bool(s->cached));
        if (r >= 0 && rt_seccomp_has_listener(s))
                r = bento_json_object_set(o, "listenerPath",
                                          bento_json_new_string(s->listener_path));
        if (r < 0)
                return NULL;
        return TAKE_PTR(o);
}

/* The kernel checks the flags before it reads the program, so a NULL
 * program answers EFAULT exactly when the flags are accepted. */
static bool kernel_takes_flag(uint32_t flag)
{
        /* WAIT_KILLABLE_RECV is only valid together with a listener */
        if (flag == SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)
                flag |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
        return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flag, NULL) < 0 && errno == EFAULT;
}

static bool action_available(uint32_t action)
{
        unsigned int api = seccomp_api_get();

        if (action == SCMP_ACT_NOTIFY)
                return api >= 5;
        if (action == SCMP_ACT_LOG || action == SCMP_ACT_KILL_PROCESS)
                return api >= 3;
        return true;
}

static bool list_has(enum rt_seccomp_list list, size_t k, const char **ret)
{
        switch (list) {
        case RT_SECCOMP_ACTIONS:
                *ret = rt_seccomp_actions[k].name;
                return *ret && action_available(rt_seccomp_actions[k].value);
        case RT_SECCOMP_OPERATORS:
                *ret = rt_seccomp_operators[k].name;
                return *ret != NULL;
        case RT_SECCOMP_ARCHS:
                *ret = rt_seccomp_arch_names[k];
                return *ret && rt_seccomp_arch_token(*ret) != 0;
        case RT_SECCOMP_KNOWN_FLAGS:
                *ret = rt_seccomp_flags[k].name;
                return *ret != NULL;
        case RT_SECCOMP_SUPPORTED_FLAGS:
                *ret = rt_seccomp_flags[k].name;
                return *ret && kernel_takes_flag(rt_seccomp_flags[k].value);
        case _RT_SECCOMP_LIST_MAX:
                break;
        }
        *ret = NULL;
        return false;
}

const char *rt_seccomp_list_name(enum rt_seccomp_list list, size_t i)
{
        const char *name = NULL;

        /* walk the table, counting only the entries that are available */
        for (size_t k = 0;; k++) {
                bool ok = list_has(list, k, &name);

                if (!name)
                        return NULL;
                if (ok && i-- == 0)
                        return name;
        }
}
