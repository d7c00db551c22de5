/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/process/lsm.c without the kernel: whether AppArmor or SELinux counts as
 * enabled, judged on a fake sysfs/procfs tree; the text the exec attribute
 * gets; the one-write rule, on a temporary file; the mount data with an
 * SELinux context.  The real attribute write (procfs only) is exercised by
 * the integration tests where an LSM runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "process/lsm.h"
#include "tap.h"

static char root[] = "/tmp/bento-lsm-XXXXXX";

/* mkdir -p root/rel (rel starts with '/'), or rm -rf root/rel. */
static void tree(const char *verb, const char *rel)
{
        char cmd[1200];

        snprintf(cmd, sizeof(cmd), "%s '%s%s'", verb, root, rel);
        if (system(cmd) != 0)
                exit(1);
}

static void put(const char *rel, const char *text)
{
        char p[512];
        FILE *f;

        snprintf(p, sizeof(p), "%s%s", root, rel);
        *strrchr(p, '/') = '\0';
        tree("mkdir -p", p + strlen(root));
        snprintf(p, sizeof(p), "%s%s", root, rel);
        f = fopen(p, "w");
        if (!f)
                exit(1);
        fputs(text, f);
        fclose(f);
}

static void wipe(void)
{
        tree("rm -rf", "/sys");
        tree("rm -rf", "/proc");
}

TEST(apparmor_needs_the_parameter_and_securityfs)
{
        ASSERT_TRUE(mkdtemp(root) != NULL);
        ASSERT_TRUE(!rt_lsm_enabled(RT_LSM_APPARMOR, root));
        put("/sys/module/apparmor/parameters/enabled", "Y\n");
        ASSERT_TRUE(!rt_lsm_enabled(RT_LSM_APPARMOR, root)); /* no securityfs dir */
        tree("mkdir -p", "/sys/kernel/security/apparmor");
        ASSERT_TRUE(rt_lsm_enabled(RT_LSM_APPARMOR, root));
        put("/sys/module/apparmor/parameters/enabled", "N\n");
        ASSERT_TRUE(!rt_lsm_enabled(RT_LSM_APPARMOR, root));
        ASSERT_TRUE(!rt_lsm_enabled(RT_LSM_SELINUX, root));
        wipe();
}

TEST(selinux_by_enforce_file_or_mount)
{
        ASSERT_TRUE(!rt_lsm_enabled(RT_LSM_SELINUX, root));
        put("/proc/self/mountinfo", "22 1 0:20 / /proc rw - proc proc rw\n");
        ASSERT_TRUE(!rt_lsm_enabled(RT_LSM_SELINUX, root));
        put("/proc/self/mountinfo", "22 1 0:20 / /proc rw - proc proc rw\n"
                                    "30 22 0:21 / /selinux rw - selinuxfs selinuxfs rw\n");
        ASSERT_TRUE(rt_lsm_enabled(RT_LSM_SELINUX, root));
        wipe();
        put("/sys/fs/selinux/enforce", "0\n");
        ASSERT_TRUE(rt_lsm_enabled(RT_LSM_SELINUX, root));
        ASSERT_TRUE(!rt_lsm_enabled(RT_LSM_APPARMOR, root));
        wipe();
        ASSERT_CONTAINS(rt_lsm_disabled_reason(RT_LSM_APPARMOR), "parameters/enabled");
}

TEST(exec_attribute_text)
{
        char out[64], tiny[8];

        ASSERT_OK(rt_lsm_exec_value(RT_LSM_APPARMOR, "my-profile", out, sizeof(out)));
        ASSERT_STREQ(out, "exec my-profile");
        ASSERT_OK(rt_lsm_exec_value(RT_LSM_SELINUX, "system_u:system_r:container_t:s0", out,
                                    sizeof(out)));
        ASSERT_STREQ(out, "system_u:system_r:container_t:s0");
        ASSERT_EQ(rt_lsm_exec_value(RT_LSM_APPARMOR, "long-profile", tiny, sizeof(tiny)),
                  -ENAMETOOLONG);
}

TEST(attribute_written_in_one_piece)
{
        char path[600], buf[64] = "";
        struct bento_err err = {0};
        int fd;

        snprintf(path, sizeof(path), "%s/attr", root);
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        ASSERT_TRUE(fd >= 0);
        ASSERT_OK(rt_lsm_write_attr(fd, "exec my-profile", "process.apparmorProfile", &err));
        ASSERT_TRUE(pread(fd, buf, sizeof(buf) - 1, 0) == 15);
        ASSERT_STREQ(buf, "exec my-profile");
        close(fd);
        /* a descriptor the kernel refuses: the error names the property */
        fd = open(path, O_RDONLY | O_CLOEXEC);
        ASSERT_TRUE(fd >= 0);
        ASSERT_EQ(rt_lsm_write_attr(fd, "exec x", "process.apparmorProfile", &err), -EBADF);
        ASSERT_CONTAINS(err.msg, "process.apparmorProfile: the kernel refused \"exec x\"");
        close(fd);
        unlink(path);
}

TEST(mount_data_with_context)
{
        char out[128];
        const char *data = NULL;

        ASSERT_OK(rt_lsm_mount_data("tmpfs", "mode=755", "system_u:object_r:x_t:s0", out,
                                    sizeof(out), &data));
        ASSERT_STREQ(data, "mode=755,context=\"system_u:object_r:x_t:s0\"");
        ASSERT_OK(rt_lsm_mount_data("devpts", NULL, "l", out, sizeof(out), &data));
        ASSERT_STREQ(data, "context=\"l\"");
        ASSERT_OK(rt_lsm_mount_data("proc", "hidepid=2", "l", out, sizeof(out), &data));
        ASSERT_STREQ(data, "hidepid=2");
        ASSERT_OK(rt_lsm_mount_data("tmpfs", "mode=755", NULL, out, sizeof(out), &data));
        ASSERT_STREQ(data, "mode=755");
        ASSERT_EQ(rt_lsm_mount_data("tmpfs", "mode=755", "a-very-long-label", out, 16, &data),
                  -ENAMETOOLONG);
        rmdir(root);
}

TAP_MAIN()
