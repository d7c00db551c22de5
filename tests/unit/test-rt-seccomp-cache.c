/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The seccomp program cache against what someone else may have left in it
 * (runtime/seccomp/cache-dir.c and bpf.c): a directory reached through a
 * symlink, or that others can write, is not used, and nothing is made
 * through a symlink on the way to it; an entry with a changed key, a
 * wrong size, a symlink, a fifo, or one others can write or another user
 * owns is a miss, compiled again and written anew.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "json.h"
#include "oci-config.h"
#include "seccomp/seccomp.h"
#include "tap.h"

static const char profile[] =
    "{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"rootfs\"},\"linux\":{\"seccomp\":"
    "{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"architectures\":[\"SCMP_ARCH_X86_64\"],"
    "\"syscalls\":[{\"names\":[\"getppid\"],\"action\":\"SCMP_ACT_ERRNO\",\"errnoRet\":99}]}}}";

static char top[] = "/tmp/bento-rt-seccomp-cache-XXXXXX";

/* Compile the profile with the cache in dir: 1 from the cache, 0
 * compiled, -1 on failure; *insns gets the program's length. */
static int compile_with(int dir, unsigned long long *insns)
{
        cleanup_oci_config struct oci_config *cfg = NULL;
        cleanup_bento_json struct bento_json *d = NULL;
        struct rt_seccomp *s = NULL;
        struct bento_err err = {0};
        char warn[256];
        const struct bento_json *cached, *n;

        if (oci_config_parse(profile, strlen(profile), &cfg, &err) < 0 ||
            rt_seccomp_compile_cached(cfg, NULL, dir, &s, warn, sizeof(warn), &err) < 0)
                return -1;
        d = rt_seccomp_describe(s);
        rt_seccomp_free(s);
        cached = d ? bento_json_get(d, "cached") : NULL;
        n = d ? bento_json_get(d, "bpfInstructions") : NULL;
        if (!cached || !n)
                return -1;
        *insns = n->u.number.u;
        return cached->u.boolean ? 1 : 0;
}

/* The one entry in the cache directory, as a path. */
static int entry_path(const char *dir, char *out, size_t size)
{
        cleanup_dir DIR *d = opendir(dir);
        struct dirent *e;
        int n = 0;

        while (d && (e = readdir(d)))
                if (e->d_name[0] != '.') {
                        snprintf(out, size, "%s/%s", dir, e->d_name);
                        n++;
                }
        return n == 1 ? 0 : -1;
}

/* A fresh cache directory holding the profile's entry. */
static int fresh_cache(const char *name, char *dir, size_t size, char *entry, size_t esize)
{
        cleanup_close int fd = -1;
        unsigned long long insns;

        snprintf(dir, size, "%s/%s/cache", top, name);
        fd = rt_seccomp_cache_open(dir);
        if (fd < 0 || compile_with(fd, &insns) != 0 || compile_with(fd, &insns) != 1)
                return -1;
        return entry_path(dir, entry, esize);
}

/* After damage to the entry: a miss giving the same program, and a hit
 * again once it has been written anew. */
static int miss_then_hit(const char *dir)
{
        cleanup_close int fd = rt_seccomp_cache_open(dir);
        unsigned long long clean = 0, first = 0, again = 0;

        if (fd < 0 || compile_with(fd, &first) != 0 || compile_with(fd, &again) != 1 ||
            compile_with(-1, &clean) != 0)
                return 0;
        return first == clean && again == clean;
}

TEST(missing_directories_are_made_private)
{
        char dir[256];
        cleanup_close int fd = -1;
        struct stat st;

        snprintf(dir, sizeof(dir), "%s/made/a/b", top);
        fd = rt_seccomp_cache_open(dir);
        ASSERT_TRUE(fd >= 0);
        ASSERT_OK(stat(dir, &st));
        ASSERT_EQ(st.st_mode & 07777, 0700);
        ASSERT_EQ(rt_seccomp_cache_open("relative/cache"), -1);
}

TEST(a_directory_others_can_write_is_not_used)
{
        char dir[256];
        cleanup_close int fd = -1;

        snprintf(dir, sizeof(dir), "%s/open", top);
        ASSERT_OK(mkdir(dir, 0700));
        ASSERT_OK(chmod(dir, 0770));
        ASSERT_EQ(rt_seccomp_cache_open(dir), -1);
        ASSERT_OK(chmod(dir, 0702));
        ASSERT_EQ(rt_seccomp_cache_open(dir), -1);
        ASSERT_OK(chmod(dir, 0700));
        fd = rt_seccomp_cache_open(dir);
        ASSERT_TRUE(fd >= 0);
}

TEST(no_symlink_on_the_way_and_nothing_made_through_one)
{
        char real[256], link[256], dir[300], through[300];
        struct stat st;

        snprintf(real, sizeof(real), "%s/real", top);
        snprintf(link, sizeof(link), "%s/link", top);
        ASSERT_OK(mkdir(real, 0700));
        ASSERT_OK(symlink(real, link));
        /* the directory itself a link */
        ASSERT_EQ(rt_seccomp_cache_open(link), -1);
        /* a link above it: refused, and no directory made in its target */
        snprintf(dir, sizeof(dir), "%s/sub/cache", link);
        ASSERT_EQ(rt_seccomp_cache_open(dir), -1);
        snprintf(through, sizeof(through), "%s/sub", real);
        ASSERT_EQ(stat(through, &st), -1);
        ASSERT_EQ(errno, ENOENT);
}

/* damage(entry, dir) on the entry of a fresh cache, then a miss giving
 * the right program and a hit once it is written anew: 1, else 0. */
static int survives(const char *name, int (*damage)(const char *entry, const char *dir))
{
        char dir[256], entry[512];

        if (fresh_cache(name, dir, sizeof(dir), entry, sizeof(entry)) < 0 || damage(entry, dir) < 0)
                return 0;
        return miss_then_hit(dir);
}

/* past the 16-byte head: the key's first bytes */
static int flip_key_byte(const char *entry, const char *dir)
{
        cleanup_close int fd = open(entry, O_RDWR | O_CLOEXEC);
        unsigned char b;

        (void) dir;
        if (fd < 0 || pread(fd, &b, 1, 20) != 1)
                return -1;
        b ^= 0xff;
        return pwrite(fd, &b, 1, 20) == 1 ? 0 : -1;
}

static int cut_short(const char *entry, const char *dir)
{
        (void) dir;
        return truncate(entry, 100);
}

static int append(const char *entry, const char *dir)
{
        cleanup_close int fd = open(entry, O_WRONLY | O_APPEND | O_CLOEXEC);

        (void) dir;
        return fd >= 0 && write(fd, "more", 4) == 4 ? 0 : -1;
}

/* a link to a good entry, moved beside the directory, is not followed */
static int link_to_good(const char *entry, const char *dir)
{
        char good[600];

        snprintf(good, sizeof(good), "%s/../good", dir);
        return rename(entry, good) < 0 ? -1 : symlink(good, entry);
}

/* a fifo: the open must not wait for a writer */
static int fifo(const char *entry, const char *dir)
{
        (void) dir;
        return unlink(entry) < 0 ? -1 : mkfifo(entry, 0600);
}

static int group_writable(const char *entry, const char *dir)
{
        (void) dir;
        return chmod(entry, 0620);
}

static int other_owner(const char *entry, const char *dir)
{
        (void) dir;
        return chown(entry, 65534, 65534);
}

TEST(a_changed_key_or_size_is_a_miss)
{
        ASSERT_TRUE(survives("key", flip_key_byte));
        ASSERT_TRUE(survives("short", cut_short));
        ASSERT_TRUE(survives("long", append));
}

TEST(a_symlink_or_fifo_entry_is_a_miss)
{
        ASSERT_TRUE(survives("entrylink", link_to_good));
        ASSERT_TRUE(survives("fifo", fifo));
}

TEST(an_entry_others_can_write_or_own_is_a_miss)
{
        ASSERT_TRUE(survives("mode", group_writable));
        if (geteuid() != 0)
                return; /* chown to another user needs root */
        ASSERT_TRUE(survives("owner", other_owner));
}

static void remove_top(void)
{
        char cmd[128];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
        if (system(cmd) != 0)
                printf("# could not remove %s\n", top);
}

__attribute__((constructor)) static void make_top(void)
{
        if (!mkdtemp(top)) {
                printf("Bail out! mkdtemp %s\n", top);
                exit(1);
        }
        atexit(remove_top);
}

TAP_MAIN()
