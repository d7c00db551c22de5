/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for translate/manifest/trust.c: the flaws of docs/approve.md, "What approve does, in
 * order" on a real directory tree (file and directory modes, sticky exemption, foreign owners,
 * foreign symlinks in open directories), private groups read from fake passwd/group files,
 * non-regular files refused, and the loader that inspects and parses the same descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "manifest/trust.h"
#include "tap.h"

static struct bento_err err;
static char dir[] = "/tmp/bento-trust-XXXXXX";

static const char *at(const char *name)
{
        static char buf[4][256];
        static int which;

        which = (which + 1) % 4;
        snprintf(buf[which], sizeof(buf[which]), "%s/%s", dir, name);
        return buf[which];
}

static int put(const char *path, const char *text, mode_t mode)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        ssize_t n;

        if (fd < 0)
                return -errno;
        n = write(fd, text, strlen(text));
        close(fd);
        return n == (ssize_t) strlen(text) && chmod(path, mode) == 0 ? 0 : -EIO;
}

static const char manifest[] = "entrypoint: ./x\n";
static char passwd_path[256], group_path[256];

static void setup(void)
{
        static bool done;

        if (done)
                return;
        done = true;
        if (!mkdtemp(dir))
                exit(1);
        snprintf(passwd_path, sizeof(passwd_path), "%s/passwd", dir);
        snprintf(group_path, sizeof(group_path), "%s/group", dir);
        /* uid 0 and 1000 have private groups; group 50 has two members */
        put(passwd_path,
            "root:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/home/a:/bin/sh\n"
            "bob:x:1001:1001::/home/b:/bin/sh\n",
            0644);
        put(group_path, "root:x:0:\nalice:x:1000:\nbob:x:1001:\nstaff:x:50:alice,bob\n", 0644);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
        (void) st, (void) flag, (void) ftw;
        return remove(p);
}

__attribute__((destructor)) static void teardown(void)
{
        if (dir[strlen(dir) - 1] != 'X')
                nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static struct trust_host host(uid_t euid)
{
        setup();
        return (struct trust_host){euid, true, passwd_path, group_path};
}

/* Inspect path as root; returns the number of flaws, -1 on error. */
static int inspect(const char *path, struct trust_report *rep)
{
        struct trust_host h = host(0);
        cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

        if (fd < 0 || trust_inspect_fd(fd, path, &h, rep, &err) < 0)
                return -1;
        return (int) rep->n_flaws;
}

TEST(private_groups_come_from_the_files)
{
        struct trust_host alice = host(1000), bob = host(1001), root = host(0);

        setup();
        ASSERT_TRUE(trust_group_private(&alice, 1000));
        ASSERT_TRUE(!trust_group_private(&bob, 1000));
        ASSERT_TRUE(!trust_group_private(&alice, 50));
        ASSERT_TRUE(trust_group_private(&root, 0));
        ASSERT_TRUE(!trust_group_private(&root, 4242)); /* unknown group */
}

TEST(a_private_manifest_has_no_flaws)
{
        cleanup_trust_report struct trust_report rep = {0};

        setup();
        ASSERT_OK(mkdir(at("ok"), 0700));
        ASSERT_OK(put(at("ok/m.yaml"), manifest, 0644));
        ASSERT_EQ(inspect(at("ok/m.yaml"), &rep), 0);
        ASSERT_STREQ(rep.real_path, at("ok/m.yaml"));
}

TEST(world_writable_manifest_is_a_warning)
{
        cleanup_trust_report struct trust_report rep = {0};

        setup();
        ASSERT_OK(mkdir(at("ww-file"), 0700));
        ASSERT_OK(put(at("ww-file/m.yaml"), manifest, 0666));
        ASSERT_EQ(inspect(at("ww-file/m.yaml"), &rep), 1);
        ASSERT_EQ(rep.flaws[0].kind, TRUST_FILE_SHARED_WRITE);
        ASSERT_TRUE(!rep.flaws[0].fatal);
        ASSERT_CONTAINS(rep.flaws[0].reason, "world-writable (mode 0666)");
        ASSERT_TRUE(trust_first_fatal(&rep) == NULL);
}

TEST(group_writable_manifest_with_shared_group_is_a_warning)
{
        cleanup_trust_report struct trust_report rep = {0}, priv = {0};

        setup();
        ASSERT_OK(mkdir(at("gw"), 0700));
        ASSERT_OK(put(at("gw/m.yaml"), manifest, 0664));
        ASSERT_OK(chown(at("gw/m.yaml"), 0, 50));
        ASSERT_EQ(inspect(at("gw/m.yaml"), &rep), 1);
        ASSERT_CONTAINS(rep.flaws[0].reason, "writable by its group 50");
        /* the caller's own private group does not count */
        ASSERT_OK(chown(at("gw/m.yaml"), 0, 0));
        ASSERT_EQ(inspect(at("gw/m.yaml"), &priv), 0);
}

TEST(world_writable_directory_is_fatal_unless_sticky)
{
        cleanup_trust_report struct trust_report rep = {0}, sticky = {0};
        cleanup_free char *warn = NULL;

        setup();
        ASSERT_OK(mkdir(at("wwd"), 0700));
        ASSERT_OK(chmod(at("wwd"), 0777));
        ASSERT_OK(put(at("wwd/m.yaml"), manifest, 0644));
        ASSERT_EQ(inspect(at("wwd/m.yaml"), &rep), 1);
        ASSERT_EQ(rep.flaws[0].kind, TRUST_DIR_WORLD_WRITABLE);
        ASSERT_TRUE(trust_first_fatal(&rep) == &rep.flaws[0]);
        ASSERT_CONTAINS(rep.flaws[0].reason, "is world-writable");
        warn = trust_render_warnings(&rep);
        ASSERT_CONTAINS(warn, " - its approval stamp attests only what whoever can write it "
                              "leaves there.\n");
        ASSERT_OK(chmod(at("wwd"), 01777));
        ASSERT_EQ(inspect(at("wwd/m.yaml"), &sticky), 0);
}

TEST(group_writable_directory_private_warns_shared_refuses)
{
        cleanup_trust_report struct trust_report priv = {0}, shared = {0}, setgid = {0};

        setup();
        ASSERT_OK(mkdir(at("gwd"), 0700));
        ASSERT_OK(chmod(at("gwd"), 0770));
        ASSERT_OK(put(at("gwd/m.yaml"), manifest, 0644));
        ASSERT_EQ(inspect(at("gwd/m.yaml"), &priv), 1);
        ASSERT_EQ(priv.flaws[0].kind, TRUST_DIR_GROUP_PRIVATE);
        ASSERT_TRUE(!priv.flaws[0].fatal);
        ASSERT_CONTAINS(priv.flaws[0].hint, "chmod g-w");
        ASSERT_OK(chown(at("gwd"), 0, 50));
        ASSERT_EQ(inspect(at("gwd/m.yaml"), &shared), 1);
        ASSERT_EQ(shared.flaws[0].kind, TRUST_DIR_GROUP_SHARED);
        ASSERT_TRUE(shared.flaws[0].fatal);
        ASSERT_OK(chown(at("gwd"), 0, 0));
        ASSERT_OK(chmod(at("gwd"), 02770));
        ASSERT_EQ(inspect(at("gwd/m.yaml"), &setgid), 1);
        ASSERT_EQ(setgid.flaws[0].kind, TRUST_DIR_GROUP_SHARED);
        ASSERT_CONTAINS(setgid.flaws[0].reason, "set-group-ID");
}

TEST(foreign_owners_are_fatal)
{
        cleanup_trust_report struct trust_report file = {0}, d = {0};

        setup();
        if (geteuid() != 0)
                return; /* chown needs root */
        ASSERT_OK(mkdir(at("fo"), 0700));
        ASSERT_OK(put(at("fo/m.yaml"), manifest, 0644));
        ASSERT_OK(chown(at("fo/m.yaml"), 12345, 0));
        ASSERT_EQ(inspect(at("fo/m.yaml"), &file), 1);
        ASSERT_EQ(file.flaws[0].kind, TRUST_FILE_FOREIGN_OWNER);
        ASSERT_TRUE(file.flaws[0].fatal);
        ASSERT_CONTAINS(file.flaws[0].hint, "chown 0");
        ASSERT_OK(chown(at("fo/m.yaml"), 0, 0));
        ASSERT_OK(chown(at("fo"), 12345, 0));
        ASSERT_EQ(inspect(at("fo/m.yaml"), &d), 1);
        ASSERT_EQ(d.flaws[0].kind, TRUST_DIR_FOREIGN_OWNER);
}

TEST(foreign_symlink_in_an_open_directory_is_fatal)
{
        cleanup_trust_report struct trust_report rep = {0}, mine = {0};

        setup();
        if (geteuid() != 0)
                return;
        ASSERT_OK(mkdir(at("real"), 0700));
        ASSERT_OK(put(at("real/m.yaml"), manifest, 0644));
        ASSERT_OK(mkdir(at("links"), 0700));
        ASSERT_OK(chmod(at("links"), 01777));
        ASSERT_OK(symlink(at("real/m.yaml"), at("links/m.yaml")));
        ASSERT_EQ(inspect(at("links/m.yaml"), &mine), 0);
        ASSERT_STREQ(mine.real_path, at("real/m.yaml"));
        ASSERT_OK(lchown(at("links/m.yaml"), 12345, 0));
        ASSERT_EQ(inspect(at("links/m.yaml"), &rep), 1);
        ASSERT_EQ(rep.flaws[0].kind, TRUST_SYMLINK_FOREIGN);
        ASSERT_CONTAINS(rep.flaws[0].reason, "symbolic link");
}

/* The directories judged are the real path's; the walk of the name as
 * given steps through a link to one of them.  One inspection asks each
 * name once (the path memo), yet what changes between two inspections is
 * seen by the second. */
TEST(a_directory_reached_through_a_link_is_judged_where_it_is)
{
        cleanup_trust_report struct trust_report open_dir = {0}, closed = {0};

        setup();
        ASSERT_OK(mkdir(at("wreal"), 0700));
        ASSERT_OK(put(at("wreal/m.yaml"), manifest, 0644));
        ASSERT_OK(symlink("wreal", at("wlink")));
        ASSERT_OK(chmod(at("wreal"), 0777));
        ASSERT_EQ(inspect(at("wlink/m.yaml"), &open_dir), 1);
        ASSERT_STREQ(open_dir.real_path, at("wreal/m.yaml"));
        ASSERT_EQ(open_dir.flaws[0].kind, TRUST_DIR_WORLD_WRITABLE);
        ASSERT_CONTAINS(open_dir.flaws[0].reason, at("wreal"));
        ASSERT_OK(chmod(at("wreal"), 0700));
        ASSERT_EQ(inspect(at("wlink/m.yaml"), &closed), 0);
        ASSERT_STREQ(closed.real_path, at("wreal/m.yaml"));
}

TEST(non_regular_files_are_refused)
{
        cleanup_trust_report struct trust_report rep = {0};
        struct trust_host h = host(0);
        cleanup_close int fd = -1;

        setup();
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ASSERT_TRUE(fd >= 0);
        ASSERT_EQ(trust_inspect_fd(fd, dir, &h, &rep, &err), -EINVAL);
        ASSERT_CONTAINS(err.msg, "is not a regular file, so there is nothing to vouch for its "
                                 "permissions");
}

TEST(loader_inspects_and_parses_the_same_file)
{
        cleanup_trust_loaded struct trust_loaded l = {0};
        struct trust_host h = host(0);
        struct manifest_problems problems = {0};

        setup();
        ASSERT_OK(mkdir(at("load"), 0700));
        ASSERT_OK(put(at("load/m.yaml"), "# c\nentrypoint: ./x\n", 0666));
        ASSERT_OK(trust_load_manifest(at("load/m.yaml"), &h, &l, &problems, &err));
        ASSERT_STREQ(l.m->entrypoint, "./x");
        ASSERT_STREQ(l.data, "# c\nentrypoint: ./x\n");
        ASSERT_EQ(l.trust.n_flaws, 1);
        ASSERT_OK(put(at("load/bad.yaml"), "entrypoint: ./x\nnope: 1\n", 0644));
        ASSERT_EQ(trust_load_manifest(at("load/bad.yaml"), &h, &l, &problems, &err), -EINVAL);
        ASSERT_EQ(problems.n, 1);
        ASSERT_CONTAINS(problems.items[0], "unknown field");
        manifest_problems_done(&problems);
}

TAP_MAIN()
