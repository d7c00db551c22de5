/* SPDX-License-Identifier: Apache-2.0 */
/*
 * spec: write a starting config.json (busybox-style shell, like runc's);
 * features: what this build implements (features.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "cleanup.h"
#include "commands.h"
#include "base/log.h"
#include "features.h"
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
        static const struct bento_opt opts[] = {
            {"bundle", 'b', BENTO_OPT_VALUE, 'b', "DIR",
             "where to write config.json (default: here)"},
            {"rootless", 0, BENTO_OPT_FLAG, 'r', NULL, "a config for a runtime without root"},
            {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL}};
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
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

int cmd_features(const struct rt_global *g, int argc, char **argv)
{
        static const struct bento_opt none[] = {{NULL, 0, BENTO_OPT_FLAG, 0}};
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
        struct bento_err err = {0};
        const char *value = NULL;
        int id, r;

        (void) g;
        r = rt_args_next(&a, none, &id, &value, &err);
        if (r >= 0 && a.i != argc)
                r = bento_err_setx(&err, EINVAL, "features takes no arguments");
        if (r < 0)
                return rt_log_err(&err);
        rt_features_print();
        return 0;
}
