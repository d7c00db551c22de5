/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `features` and the feature line of --version (see features.h).  The
 * document is printed member by member from tables, so that a new entry
 * (a namespace, a linux.* member such as memoryPolicy) is one line here;
 * lists that other modules own (mount options, capabilities, seccomp
 * names) are read from those modules, so they say what the code accepts.
 */
#include "features.h"

#include <seccomp.h>
#include <stdio.h>

#include "process/caps.h"
#include "process/landlock.h"
#include "mount/options.h"
#include "oci-config.h"
#include "seccomp/seccomp.h"
#include "state.h"

/* --version's tags, in crun's order where crun has the same tag. */
static const struct {
        const char *tag;
        bool built;
} tags[] = {
    /* the systemd cgroup driver (cgroup/systemd.c) and NOTIFY_SOCKET */
    {"SYSTEMD", true},
    {"SELINUX", RT_HAVE_SELINUX},
    {"APPARMOR", RT_HAVE_APPARMOR},
    /* capabilities (process/caps.c) */
    {"CAP", true},
    /* linux.seccomp, with libseccomp */
    {"SECCOMP", true},
    /* cgroup v2 device rules as a BPF program (cgroup/devices-bpf.c) */
    {"EBPF", true},
    /* checkpoint/restore: not built */
    {"CRIU", false},
    /* the JSON parser */
    {"YAJL", true},
    /* process.landlock (bento's extension) */
    {"LANDLOCK", true},
};

void rt_features_print_tags(FILE *out)
{
        bool first = true;

        for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
                if (tags[i].built) {
                        fprintf(out, "%s+%s", first ? "" : " ", tags[i].tag);
                        first = false;
                }
}

/* Namespaces a config may list (the time namespace is refused). */
static const char *const namespaces[] = {"cgroup", "ipc", "mount", "network", "pid", "user", "uts"};

/* The items of a list, one a line, and its closing bracket. */
static void print_names(const char *(*name)(size_t), const char *indent, const char *close)
{
        for (size_t i = 0; name(i); i++)
                printf("%s%s\"%s\"", i ? ",\n" : "\n", indent, name(i));
        printf("\n%s]", close);
}

static const char *namespace_name(size_t i)
{
        return i < sizeof(namespaces) / sizeof(namespaces[0]) ? namespaces[i] : NULL;
}

static const char *cap_name(size_t i)
{
        return i <= RT_CAP_LAST ? rt_cap_to_name((int) i) : NULL;
}

static void print_list(const char *(*name)(size_t))
{
        printf("[");
        print_names(name, "      ", "    ");
}

static void print_namespaces(void)
{
        print_list(namespace_name);
}

static void print_caps(void)
{
        print_list(cap_name);
}

static void print_cgroup(void)
{
        /* v1 and v2 with the cgroupfs driver, systemd scopes on the
         * system and the user bus; rdma limits are refused */
        printf("{\"v1\": true, \"v2\": true, \"systemd\": true, \"systemdUser\": true, "
               "\"rdma\": false}");
}

/* linux.seccomp: what libseccomp and this build accept; supportedFlags is
 * what the running kernel takes. */
static void print_seccomp(void)
{
        static const char *const keys[] = {"actions", "operators", "archs", "knownFlags",
                                           "supportedFlags"};

        printf("{\n      \"enabled\": true");
        for (int l = 0; l < _RT_SECCOMP_LIST_MAX; l++) {
                printf(",\n      \"%s\": [", keys[l]);
                for (size_t i = 0; rt_seccomp_list_name(l, i); i++)
                        printf("%s\"%s\"", i ? ", " : "", rt_seccomp_list_name(l, i));
                printf("]");
        }
        printf("\n    }");
}

static void print_mount_extensions(void)
{
        printf("{\"idmap\": {\"enabled\": %s}}", RT_HAVE_IDMAP_MOUNTS ? "true" : "false");
}

/* The members of "linux": a printer for the value, or (print NULL) an
 * object {"enabled": enabled}. */
static const struct {
        const char *name;
        void (*print)(void);
        bool enabled;
} linux_members[] = {
    {"namespaces", print_namespaces, false},
    {"capabilities", print_caps, false},
    {"cgroup", print_cgroup, false},
    {"seccomp", print_seccomp, false},
    {"apparmor", NULL, RT_HAVE_APPARMOR},
    {"selinux", NULL, RT_HAVE_SELINUX},
    {"intelRdt", NULL, false},
    {"mountExtensions", print_mount_extensions, false},
    {"netDevices", NULL, false},
};

static const char *hook_name(size_t i)
{
        return i < _OCI_HOOK_KIND_MAX ? oci_hook_kind_to_string((enum oci_hook_kind) i) : NULL;
}

static void print_linux(void)
{
        printf("  \"linux\": {");
        for (size_t i = 0; i < sizeof(linux_members) / sizeof(linux_members[0]); i++) {
                printf("%s\n    \"%s\": ", i ? "," : "", linux_members[i].name);
                if (linux_members[i].print)
                        linux_members[i].print();
                else
                        printf("{\"enabled\": %s}", linux_members[i].enabled ? "true" : "false");
        }
        printf("\n  },\n");
}

void rt_features_print(void)
{
        const struct scmp_version *sv = seccomp_version();

        printf("{\n  \"ociVersionMin\": \"1.0.0\",\n  \"ociVersionMax\": \"%s\",\n",
               BENTO_OCI_VERSION);
        printf("  \"hooks\": [");
        for (size_t i = 0; hook_name(i); i++)
                printf("%s\"%s\"", i ? ", " : "", hook_name(i));
        printf("],\n  \"mountOptions\": [");
        print_names(rt_mount_option_name, "    ", "  ");
        printf(",\n");
        print_linux();
        /* no annotation changes what bento-runtime does */
        printf("  \"potentiallyUnsafeConfigAnnotations\": [],\n");
        printf("  \"annotations\": {\n"
               "    \"io.github.seccomp.libseccomp.version\": \"%u.%u.%u\",\n"
               "    \"org.bento.runtime.version\": \"%s\",\n"
               "    \"org.bento.runtime.commit\": \"%s\",\n"
               "    \"org.bento.landlock.abi\": \"%d\"\n"
               "  }\n}\n",
               sv ? sv->major : 0, sv ? sv->minor : 0, sv ? sv->micro : 0, BENTO_VERSION,
               BENTO_COMMIT, rt_landlock_abi());
}
