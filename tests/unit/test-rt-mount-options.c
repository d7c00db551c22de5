/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/mount/options.c without mounting anything: what each OCI mount
 * option becomes (MS_* flags set or cleared, propagation changes in the
 * order written, mount_setattr attributes, the leftover data string), the
 * options refused (empty, idmap/ridmap, a fifth propagation change), the
 * rootfsPropagation words, and the statvfs flags a bind remount must keep.
 * The integration tests see these only through real mounts as root.
 */
#include <errno.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statvfs.h>

#include "mount/options.h"
#include "tap.h"

static struct bento_err err;

#define N(v) (sizeof(v) / sizeof((v)[0]))

/* Parse the NULL-free list v into *o; the return value of the parser. */
#define PARSE(o, ...)                                                                              \
        ({                                                                                         \
                char *v_[] = {__VA_ARGS__};                                                        \
                bento_err_clear(&err);                                                             \
                rt_mount_opts_parse(v_, N(v_), (o), &err);                                         \
        })

TEST(flags_are_set_and_cleared_in_order)
{
        cleanup_rt_mount_opts struct rt_mount_opts o = {0};

        ASSERT_OK(PARSE(&o, "ro", "nosuid", "nodev", "noexec", "noatime"));
        ASSERT_EQ(o.flags, MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME);
        ASSERT_EQ(o.cleared, 0);
        ASSERT_TRUE(!o.bind && !o.recursive && !o.copyup);
        ASSERT_TRUE(o.data == NULL);
        rt_mount_opts_done(&o);

        /* a later opposite wins, and the clearing is remembered */
        ASSERT_OK(PARSE(&o, "ro", "rw", "suid", "nosuid", "exec"));
        ASSERT_EQ(o.flags, MS_NOSUID);
        ASSERT_EQ(o.cleared, MS_RDONLY | MS_NOEXEC);
        rt_mount_opts_done(&o);

        ASSERT_OK(PARSE(&o, "defaults"));
        ASSERT_EQ(o.flags, 0);
        ASSERT_EQ(o.cleared, 0);
}

TEST(bind_and_rbind)
{
        cleanup_rt_mount_opts struct rt_mount_opts o = {0};

        ASSERT_OK(PARSE(&o, "bind", "ro"));
        ASSERT_EQ(o.flags, MS_BIND | MS_RDONLY);
        ASSERT_TRUE(o.bind && !o.recursive);
        /* ro on a bind mount takes a second, remounting call */
        ASSERT_TRUE(rt_mount_opts_need_bind_remount(&o));
        rt_mount_opts_done(&o);

        ASSERT_OK(PARSE(&o, "rbind"));
        ASSERT_EQ(o.flags, MS_BIND | MS_REC);
        ASSERT_TRUE(o.bind && o.recursive);
        ASSERT_TRUE(!rt_mount_opts_need_bind_remount(&o));
}

TEST(unknown_options_become_the_data_string)
{
        cleanup_rt_mount_opts struct rt_mount_opts o = {0};

        ASSERT_OK(PARSE(&o, "nosuid", "mode=755", "size=64k", "nodev", "uid=0"));
        ASSERT_EQ(o.flags, MS_NOSUID | MS_NODEV);
        ASSERT_STREQ(o.data, "mode=755,size=64k,uid=0");
        rt_mount_opts_done(&o);
        ASSERT_TRUE(o.data == NULL);
        rt_mount_opts_done(&o); /* twice is harmless */
}

TEST(propagation_keeps_the_written_order)
{
        cleanup_rt_mount_opts struct rt_mount_opts o = {0};

        ASSERT_OK(PARSE(&o, "rbind", "rslave", "private", "runbindable"));
        ASSERT_EQ(o.n_propagation, 3);
        ASSERT_EQ(o.propagation[0], MS_SLAVE | MS_REC);
        ASSERT_EQ(o.propagation[1], MS_PRIVATE);
        ASSERT_EQ(o.propagation[2], MS_UNBINDABLE | MS_REC);
        /* propagation is never a mount(2) flag */
        ASSERT_EQ(o.flags, MS_BIND | MS_REC);
}

TEST(a_fifth_propagation_change_is_refused)
{
        struct rt_mount_opts o = {0};

        ASSERT_OK(PARSE(&o, "shared", "slave", "private", "unbindable"));
        rt_mount_opts_done(&o);
        ASSERT_EQ(PARSE(&o, "shared", "slave", "private", "unbindable", "mode=1", "rshared"),
                  -EINVAL);
        ASSERT_CONTAINS(err.msg, "options[5]");
        ASSERT_CONTAINS(err.msg, "more than 4 propagation options");
}

TEST(recursive_attributes)
{
        cleanup_rt_mount_opts struct rt_mount_opts o = {0};

        ASSERT_OK(PARSE(&o, "rbind", "rro", "rnosuid", "rnodev", "rnoexec", "rnosymfollow"));
        ASSERT_EQ(o.attr_set, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
                                  MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NOSYMFOLLOW);
        ASSERT_EQ(o.attr_clr, 0);
        /* the r* forms are attributes, not flags: no remount is needed */
        ASSERT_EQ(o.flags, MS_BIND | MS_REC);
        ASSERT_TRUE(!rt_mount_opts_need_bind_remount(&o));
        rt_mount_opts_done(&o);

        /* a later clearing form undoes a setting one */
        ASSERT_OK(PARSE(&o, "rro", "rnosuid", "rrw"));
        ASSERT_EQ(o.attr_set, MOUNT_ATTR_NOSUID);
        ASSERT_EQ(o.attr_clr, MOUNT_ATTR_RDONLY);
}

TEST(atime_attributes_replace_each_other)
{
        cleanup_rt_mount_opts struct rt_mount_opts o = {0};

        /* one field in the kernel: the last one written counts, and the
         * whole atime mask is cleared so that the kernel takes it */
        ASSERT_OK(PARSE(&o, "rnoatime", "rstrictatime"));
        ASSERT_EQ(o.attr_set, MOUNT_ATTR_STRICTATIME);
        ASSERT_EQ(o.attr_clr, MOUNT_ATTR__ATIME);
        rt_mount_opts_done(&o);

        ASSERT_OK(PARSE(&o, "rro", "rstrictatime", "rrelatime"));
        ASSERT_EQ(o.attr_set, MOUNT_ATTR_RDONLY | MOUNT_ATTR_RELATIME);
        ASSERT_EQ(o.attr_clr, MOUNT_ATTR__ATIME);
}

TEST(tmpcopyup)
{
        cleanup_rt_mount_opts struct rt_mount_opts o = {0};

        ASSERT_OK(PARSE(&o, "tmpcopyup", "mode=1777"));
        ASSERT_TRUE(o.copyup);
        ASSERT_STREQ(o.data, "mode=1777");
        ASSERT_EQ(o.flags, 0);
}

TEST(idmap_and_ridmap_are_refused_not_passed_on)
{
        struct rt_mount_opts o = {0};

        ASSERT_EQ(PARSE(&o, "rbind", "idmap"), -EOPNOTSUPP);
        ASSERT_CONTAINS(err.msg, "options[1]: \"idmap\" is not supported");
        ASSERT_TRUE(o.data == NULL);
        ASSERT_EQ(PARSE(&o, "ridmap"), -EOPNOTSUPP);
        ASSERT_CONTAINS(err.msg, "options[0]: \"ridmap\"");
        /* and `features` does not offer them */
        for (size_t i = 0; rt_mount_option_name(i); i++) {
                ASSERT_TRUE(strcmp(rt_mount_option_name(i), "idmap") != 0);
                ASSERT_TRUE(strcmp(rt_mount_option_name(i), "ridmap") != 0);
        }
}

TEST(an_empty_option_is_refused_and_nothing_leaks)
{
        struct rt_mount_opts o = {0};
        char *with_null[] = {"mode=755", NULL};

        /* the data gathered before the bad option is freed (ASan checks) */
        ASSERT_EQ(PARSE(&o, "mode=755", "nosuid", ""), -EINVAL);
        ASSERT_CONTAINS(err.msg, "options[2]: empty option");
        ASSERT_TRUE(o.data == NULL);
        bento_err_clear(&err);
        ASSERT_EQ(rt_mount_opts_parse(with_null, 2, &o, &err), -EINVAL);
        ASSERT_CONTAINS(err.msg, "options[1]: empty option");
}

TEST(option_names_for_features)
{
        size_t n = 0;
        bool rro = false, bind = false;

        for (; rt_mount_option_name(n); n++) {
                rro = rro || strcmp(rt_mount_option_name(n), "rro") == 0;
                bind = bind || strcmp(rt_mount_option_name(n), "bind") == 0;
        }
        ASSERT_TRUE(rro && bind);
        ASSERT_TRUE(n > 50);
        ASSERT_TRUE(rt_mount_option_name(n + 1) == NULL);
}

TEST(rootfs_propagation_words)
{
        unsigned long v = 0;

        ASSERT_OK(rt_propagation_parse("rslave", &v));
        ASSERT_EQ(v, MS_SLAVE | MS_REC);
        ASSERT_OK(rt_propagation_parse("private", &v));
        ASSERT_EQ(v, MS_PRIVATE);
        ASSERT_OK(rt_propagation_parse("runbindable", &v));
        ASSERT_EQ(v, MS_UNBINDABLE | MS_REC);
        v = 7;
        ASSERT_EQ(rt_propagation_parse("ro", &v), -EINVAL); /* an option, not a propagation */
        ASSERT_EQ(rt_propagation_parse("RSLAVE", &v), -EINVAL);
        ASSERT_EQ(rt_propagation_parse("", &v), -EINVAL);
        ASSERT_EQ(rt_propagation_parse(NULL, &v), -EINVAL);
        ASSERT_EQ(v, 7);
}

TEST(statvfs_flags_a_remount_keeps)
{
        ASSERT_EQ(rt_statvfs_to_ms(0), 0);
        ASSERT_EQ(rt_statvfs_to_ms(ST_RDONLY | ST_NOSUID), MS_RDONLY | MS_NOSUID);
        ASSERT_EQ(rt_statvfs_to_ms(ST_NODEV | ST_NOEXEC | ST_NOATIME),
                  MS_NODEV | MS_NOEXEC | MS_NOATIME);
        ASSERT_EQ(rt_statvfs_to_ms(ST_NODIRATIME | ST_RELATIME), MS_NODIRATIME | MS_RELATIME);
        /* ST_NOSYMFOLLOW (0x2000) is not MS_NOSYMFOLLOW (0x100) */
        ASSERT_EQ(rt_statvfs_to_ms(0x2000), MS_NOSYMFOLLOW);
        /* what a remount need not repeat is dropped (ST_SYNCHRONOUS, ST_MANDLOCK) */
        ASSERT_EQ(rt_statvfs_to_ms(ST_SYNCHRONOUS | ST_MANDLOCK), 0);
}

TAP_MAIN()
