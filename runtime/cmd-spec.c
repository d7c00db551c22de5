/* SPDX-License-Identifier: Apache-2.0 */
/*
 * spec: write a starting config.json (busybox-style shell, like runc's);
 * features: what this build implements, in runtime-spec features.md shape.
 * Both texts are written by hand so that they say exactly what the code does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "caps.h"
#include "cleanup.h"
#include "commands.h"
#include "landlock.h"
#include "log.h"
#include "mount-options.h"
#include "seccomp.h"
#include "state.h"

static const char spec_head[] =
    "{\n"
    "  \"ociVersion\": \"" BENTO_OCI_VERSION "\",\n"
    "  \"process\": {\n"
    "    \"terminal\": false,\n"
    "    \"user\": {\"uid\": 0, \"gid\": 0},\n"
    "    \"args\": [\"sh\"],\n"
    "    \"env\": [\"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\", "
    "\"TERM=xterm\"],\n"
    "    \"cwd\": \"/\",\n"
    "    \"capabilities\": {\n"
    "      \"bounding\": [\"CAP_AUDIT_WRITE\", \"CAP_KILL\", \"CAP_NET_BIND_SERVICE\"],\n"
    "      \"effective\": [\"CAP_AUDIT_WRITE\", \"CAP_KILL\", \"CAP_NET_BIND_SERVICE\"],\n"
    "      \"permitted\": [\"CAP_AUDIT_WRITE\", \"CAP_KILL\", \"CAP_NET_BIND_SERVICE\"]\n"
    "    },\n"
    "    \"rlimits\": [{\"type\": \"RLIMIT_NOFILE\", \"hard\": 1024, \"soft\": 1024}],\n"
    "    \"noNewPrivileges\": true\n"
    "  },\n"
    "  \"root\": {\"path\": \"rootfs\", \"readonly\": true},\n"
    "  \"hostname\": \"bento\",\n"
    "  \"mounts\": [\n"
    "    {\"destination\": \"/proc\", \"type\": \"proc\", \"source\": \"proc\"},\n"
    "    {\"destination\": \"/dev\", \"type\": \"tmpfs\", \"source\": \"tmpfs\",\n"
    "     \"options\": [\"nosuid\", \"strictatime\", \"mode=755\", \"size=65536k\"]},\n"
    "    {\"destination\": \"/dev/pts\", \"type\": \"devpts\", \"source\": \"devpts\",\n"
    "     \"options\": [\"nosuid\", \"noexec\", \"newinstance\", \"ptmxmode=0666\", "
    "\"mode=0620\"%s]},\n"
    "    {\"destination\": \"/dev/shm\", \"type\": \"tmpfs\", \"source\": \"shm\",\n"
    "     \"options\": [\"nosuid\", \"noexec\", \"nodev\", \"mode=1777\", \"size=65536k\"]},\n"
    "    {\"destination\": \"/dev/mqueue\", \"type\": \"mqueue\", \"source\": \"mqueue\",\n"
    "     \"options\": [\"nosuid\", \"noexec\", \"nodev\"]},\n"
    "    {\"destination\": \"/sys\", \"type\": \"%s\", \"source\": \"%s\",\n"
    "     \"options\": [\"nosuid\", \"noexec\", \"nodev\", \"ro\"%s]}\n"
    "  ],\n"
    "  \"linux\": {\n";

static const char spec_tail[] =
    "    \"maskedPaths\": [\"/proc/acpi\", \"/proc/asound\", \"/proc/kcore\", \"/proc/keys\",\n"
    "      \"/proc/latency_stats\", \"/proc/timer_list\", \"/proc/timer_stats\",\n"
    "      \"/proc/sched_debug\", \"/sys/firmware\", \"/proc/scsi\"],\n"
    "    \"readonlyPaths\": [\"/proc/bus\", \"/proc/fs\", \"/proc/irq\", \"/proc/sys\",\n"
    "      \"/proc/sysrq-trigger\"]\n"
    "  }\n"
    "}\n";

static int write_spec(const char *dir, bool rootless, struct bento_err *err)
{
        cleanup_close int dfd = -1;
        cleanup_fclose FILE *f = NULL;
        int fd;

        dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return bento_err_set(err, errno, "--bundle '%s'", dir);
        fd = openat(dfd, "config.json", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0) {
                if (errno == EEXIST)
                        return bento_err_setx(err, EEXIST,
                                              "%s/config.json already exists; "
                                              "remove it first",
                                              dir);
                return bento_err_set(err, errno, "cannot create %s/config.json", dir);
        }
        f = fdopen(fd, "w");
        if (!f) {
                close(fd);
                return bento_err_set(err, errno, "config.json");
        }
        /* without root a new sysfs needs a network namespace we own, and
         * devpts cannot use gid 5 unless it is mapped: bind /sys instead */
        fprintf(f, spec_head, rootless ? "" : ", \"gid=5\"", rootless ? "bind" : "sysfs",
                rootless ? "/sys" : "sysfs", rootless ? ", \"rbind\"" : "");
        if (rootless)
                fprintf(
                    f,
                    "    \"uidMappings\": [{\"containerID\": 0, \"hostID\": %u, \"size\": 1}],\n"
                    "    \"gidMappings\": [{\"containerID\": 0, \"hostID\": %u, \"size\": 1}],\n",
                    (unsigned) geteuid(), (unsigned) getegid());
        fprintf(f,
                "    \"namespaces\": [{\"type\": \"pid\"}, {\"type\": \"network\"}, "
                "{\"type\": \"ipc\"}, {\"type\": \"uts\"}, {\"type\": \"mount\"}, "
                "{\"type\": \"cgroup\"}%s],\n",
                rootless ? ", {\"type\": \"user\"}" : "");
        fputs(spec_tail, f);
        if (fflush(f) != 0)
                return bento_err_set(err, errno, "cannot write %s/config.json", dir);
        return 0;
}

int cmd_spec(const struct rt_global *g, int argc, char **argv)
{
        static const struct rt_opt opts[] = {
            {"bundle", 'b', true, 'b'}, {"rootless", 0, false, 'r'}, {NULL, 0, false, 0}};
        struct rt_args a = {.argc = argc, .argv = argv, .i = 1};
        struct bento_err err = {0};
        const char *value = NULL, *dir = ".";
        bool rootless = false;
        int id, r;

        (void) g;
        while ((r = rt_args_next(&a, opts, &id, &value, &err)) > 0) {
                if (id == 'b')
                        dir = value;
                else
                        rootless = true;
        }
        if (r >= 0 && a.i != argc)
                r = bento_err_setx(&err, EINVAL, "spec takes no arguments");
        if (r >= 0)
                r = write_spec(dir, rootless, &err);
        return r < 0 ? rt_log_err(&err) : 0;
}

static void print_string_list(const char *const *items, size_t n, const char *indent)
{
        for (size_t i = 0; i < n; i++)
                printf("%s\"%s\"%s\n", indent, items[i], i + 1 < n ? "," : "");
}

static void print_caps(void)
{
        printf("    \"capabilities\": [\n");
        for (int c = 0; c <= RT_CAP_LAST; c++)
                printf("      \"%s\"%s\n", rt_cap_to_name(c), c < RT_CAP_LAST ? "," : "");
        printf("    ],\n");
}

/* linux.seccomp: what libseccomp and this build accept; supportedFlags is
 * what the running kernel takes. */
static void print_seccomp(void)
{
        static const char *const keys[] = {"actions", "operators", "archs", "knownFlags",
                                           "supportedFlags"};

        printf("    \"seccomp\": {\n      \"enabled\": true");
        for (int l = 0; l < _RT_SECCOMP_LIST_MAX; l++) {
                printf(",\n      \"%s\": [", keys[l]);
                for (size_t i = 0; rt_seccomp_list_name(l, i); i++)
                        printf("%s\"%s\"", i ? ", " : "", rt_seccomp_list_name(l, i));
                printf("]");
        }
        printf("\n    },\n");
}

int cmd_features(const struct rt_global *g, int argc, char **argv)
{
        static const char *const namespaces[] = {"cgroup", "ipc",  "mount", "network",
                                                 "pid",    "user", "uts"};

        (void) g;
        (void) argv;
        if (argc != 1) {
                rt_log_error("features takes no arguments");
                return 1;
        }
        printf("{\n  \"ociVersionMin\": \"1.0.0\",\n  \"ociVersionMax\": \"%s\",\n",
               BENTO_OCI_VERSION);
        printf("  \"hooks\": [");
        for (int k = 0; k < _OCI_HOOK_KIND_MAX; k++)
                printf("%s\"%s\"", k ? ", " : "", oci_hook_kind_to_string((enum oci_hook_kind) k));
        printf("],\n  \"mountOptions\": [\n");
        for (size_t i = 0; rt_mount_option_name(i); i++)
                printf("    \"%s\"%s\n", rt_mount_option_name(i),
                       rt_mount_option_name(i + 1) ? "," : "");
        printf("  ],\n  \"linux\": {\n    \"namespaces\": [\n");
        print_string_list(namespaces, sizeof(namespaces) / sizeof(namespaces[0]), "      ");
        printf("    ],\n");
        print_caps();
        printf("    \"cgroup\": {\"v1\": true, \"v2\": true, \"systemd\": true, "
               "\"systemdUser\": true, \"rdma\": false},\n");
        print_seccomp();
        printf("    \"apparmor\": {\"enabled\": false},\n"
               "    \"selinux\": {\"enabled\": false},\n"
               "    \"intelRdt\": {\"enabled\": false},\n"
               "    \"mountExtensions\": {\"idmap\": {\"enabled\": false}}\n"
               "  },\n"
               "  \"annotations\": {\n"
               "    \"org.bento.runtime.version\": \"%s\",\n"
               "    \"org.bento.runtime.commit\": \"%s\",\n"
               "    \"org.bento.landlock.abi\": \"%d\"\n"
               "  }\n}\n",
               BENTO_VERSION, BENTO_COMMIT, rt_landlock_abi());
        return 0;
}
