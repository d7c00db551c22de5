/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The run directory and the host paths a run creates (docs/cli/bento-run.md, "FILES",
 * docs/manifest.md, "CREDENTIAL SHIELDS").  The directory is private (0700) and holds the bundle,
 * the runtime's state and the hooks' reports; it goes away after the run, also after Ctrl-C.  It is
 * /dev/shm/bento-XXXXXX when /dev/shm is a tmpfs, else $TMPDIR/bento-run-XXXXXX (the Landlock-only
 * tier makes the second one too, for the target's scratch directory). Shield
 * mount points on the host (a shielded path inside a write grant that did not exist yet) are made
 * by bento before the run and removed after it, the very objects it made and only while they are
 * empty, by the last run using their directory (policy/mount-points.h, policy/point-locks.h).
 * Removal of the run directory never follows a symlink and never leaves the run directory's file
 * system.  Its directories are claimed before they are made (claim.h): a bento killed with SIGKILL
 * leaves them to the next run, which removes them once nothing holds the claim any more.
 *
 * The directories must be out of the sandbox's reach: a TMPDIR inside a
 * grant is bind-mounted into the sandbox with it, and the program could
 * then rewrite the runtime's log, bento's report or the runtime's state
 * (its copy of config.json, whose hooks the runtime runs on the host when
 * it deletes the sandbox), or connect to the exec gate's socket.  Such a
 * TMPDIR is passed over for /tmp, with a note.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cleanup.h"
#include "manifest/path.h"
#include "run.h"

/* The longest path below the run directory that must fit a unix socket
 * address (struct sockaddr_un.sun_path, 108 bytes with its NUL). */
#define RUN_DIR_SOCKET_TAIL "/bento-run-XXXXXX/exec-gate.sock"
#define RUN_DIR_SUN_PATH    108

/* The grant through which the sandbox would see the resolved path dir, or
 * NULL.  Of the grants and the file systems the sandbox mounts fresh over
 * the host's (/proc, /dev and what is below it, /tmp), the deepest one
 * holding dir is what the sandbox shows there. */
const struct policy_path *run_visible_through(const struct policy *p, const char *dir)
{
        static const char *const fresh[] = {"/proc", "/dev", "/tmp"};
        const struct policy_path *seen = NULL;
        size_t depth = 0;

        for (size_t i = 0; i < sizeof(fresh) / sizeof(fresh[0]); i++)
                if (path_within(fresh[i], dir) && strlen(fresh[i]) > depth)
                        depth = strlen(fresh[i]);
        for (size_t i = 0; p && i < p->n_reads + p->n_writes; i++) {
                const struct policy_path *g =
                    i < p->n_reads ? &p->reads[i] : &p->writes[i - p->n_reads];

                if (g->real && path_within(g->real, dir) && strlen(g->real) > depth) {
                        depth = strlen(g->real);
                        seen = g;
                }
        }
        return seen;
}

/* Where the run directory goes: TMPDIR (when it is absolute and shallow
 * enough for the gate's socket address) unless the sandbox would see it,
 * then /tmp.  NULL (err set) when neither will do, or out of memory. */
static const char *run_dir_parent(const struct policy *p, struct bento_err *err)
{
        const char *tmp = getenv("TMPDIR");
        cleanup_free char *real = NULL;
        const struct policy_path *g;

        /* A TMPDIR too deep for the exec gate's socket address would make
         * every exec-blocked run fail: use /tmp then. */
        if (!tmp || tmp[0] != '/' || strlen(tmp) + strlen(RUN_DIR_SOCKET_TAIL) >= RUN_DIR_SUN_PATH)
                tmp = "/tmp";
        if (path_resolve(tmp, &real) < 0)
                return bento_err_set(err, ENOMEM, "run directory"), NULL;
        g = run_visible_through(p, real);
        if (!g)
                return tmp;
        if (strcmp(tmp, "/tmp") != 0) {
                fprintf(stderr,
                        "[bento] note: TMPDIR \"%s\" lies inside the grant \"%s\", where the "
                        "sandboxed program could reach bento's run directory; it goes in /tmp "
                        "instead.\n",
                        tmp, g->expanded);
                free(real);
                real = NULL;
                if (path_resolve("/tmp", &real) < 0)
                        return bento_err_set(err, ENOMEM, "run directory"), NULL;
                if (!run_visible_through(p, real))
                        return "/tmp";
        }
        bento_err_setx(err, EPERM,
                       "the run directory would lie inside the grant \"%s\", where the sandboxed "
                       "program could reach bento's own files; set TMPDIR to a directory outside "
                       "the grants",
                       g->expanded);
        return NULL;
}

/* Where the bundle, the sandbox's root filesystem, the runtime's state, log
 * and report live.  The rootfs holds only the mount points the runtime
 * makes (a dozen directories and files, more for grants outside /tmp) and
 * the merged-/usr symlinks; the rest are a few small files for the run's
 * length.  On a disk file system each is a journaled mkdir or write on the
 * critical path and an unlink (with a discard) afterwards, 2-4 ms a run on
 * the CI machine's ext4; so when /dev/shm is a tmpfs bento keeps them
 * there, in a private (0700) directory of its own, and otherwise in the run
 * directory.  NULL when /dev/shm cannot be used. */
static char *tmpfs_dir(struct run_dir *d, const struct policy *p)
{
        cleanup_free char *real = NULL;
        struct bento_err ignored = {0};
        struct statfs sfs;
        char *dir = NULL;

        if (statfs("/dev/shm", &sfs) < 0 || sfs.f_type != TMPFS_MAGIC ||
            path_resolve("/dev/shm", &real) < 0 || run_visible_through(p, real) ||
            run_claim_mkdir(&d->claim, "/dev/shm", "bento-", &dir, &ignored) < 0)
                return NULL;
        return dir;
}

/* The directory in TMPDIR (or /tmp): made only when the files of the run
 * cannot go on /dev/shm, or when the caller needs room on disk (the
 * Landlock-only tier's scratch).  On a disk file system its mkdir is a
 * journaled block and its rmdir a discard (1-2 ms each on the CI machine's
 * ext4 under load), so a run that keeps everything on /dev/shm skips it. */
static int disk_dir(struct run_dir *d, const struct policy *p, struct bento_err *err)
{
        const char *tmp = run_dir_parent(p, err);

        if (!tmp)
                return -err->code;
        return run_claim_mkdir(&d->claim, tmp, "bento-run-", &d->path, err) < 0 ? -err->code : 0;
}

int run_dir_make(struct run_dir *d, const struct policy *p, bool on_disk, struct bento_err *err)
{
        const char *files;

        /* claimed before they exist, so that a kill at any moment leaves
         * them to the next run's sweep (claim.h) */
        if (!d->claim.held && run_claim_take(&d->claim, err) < 0)
                return -err->code;
        d->shm = tmpfs_dir(d, p);
        if ((!d->shm || on_disk) && disk_dir(d, p, err) < 0)
                return -err->code;
        if (d->shm) {
                d->rootfs = path_join(d->shm, "rootfs");
                if (!d->rootfs || mkdir(d->rootfs, 0755) < 0)
                        return bento_err_set(err, d->rootfs ? errno : ENOMEM,
                                             "cannot create the root filesystem in \"%s\"", d->shm);
        }
        /* The files of the run go where the rootfs is: on the tmpfs when
         * there is one.  The gate's socket beside the bundle, not in it:
         * the gate is up before the bundle is written, and a bundle
         * directory holds only a bundle. */
        files = d->shm ? d->shm : d->path;
        d->bundle = path_join(files, "bundle");
        d->state = path_join(files, "state");
        d->gate_socket = path_join(files, "exec-gate.sock");
        d->egress_log = path_join(files, "egress.jsonl");
        d->exec_record = path_join(files, "exec-record.jsonl");
        d->runtime_log = path_join(files, "runtime.log");
        d->hooks_log = path_join(files, "hooks.log");
        if (!d->bundle || !d->state || !d->gate_socket || !d->egress_log || !d->exec_record ||
            !d->runtime_log || !d->hooks_log)
                return bento_err_set(err, ENOMEM, "run directory");
        return 0;
}

const char *run_dir_suffix(const struct run_dir *d)
{
        const char *dir = d->shm ? d->shm : d->path;

        return dir ? strrchr(dir, '-') + 1 : "";
}

int run_dir_make_mount_points(struct run_dir *d, const struct policy *p, struct bento_err *err)
{
        /* Held before the listing: a point another run made and this one
         * finds stays there until this run lets go. */
        int r = mount_points_hold(p, &d->locks, false, err);

        if (r >= 0)
                r = mount_points_list(p, &d->points, err);
        if (r >= 0)
                r = mount_points_make(&d->points, &d->locks, err);
        return r < 0 ? r : mount_points_hold(p, &d->locks, true, err);
}

void run_remove_mount_points(struct run_dir *d)
{
        point_locks_release(&d->locks);
}

static void remove_tree_below(int dirfd, dev_t dev, unsigned depth);

/* One entry of a directory being emptied.  The entry type getdents gave
 * spares a stat for what is not a directory (unlinkat never follows a
 * symlink).  A directory is first simply removed: most of a run
 * directory's are empty mount points, and rmdir(2) takes only an empty
 * directory, never follows a symlink and refuses a mount point (EBUSY),
 * so one call does what opening, listing and closing it did in five.  One
 * it did not take (not empty, or a mount point) is opened without following
 * a symlink, and left alone when it is on another device (a mount that
 * outlived the sandbox). */
static void remove_entry(int dirfd, const char *name, unsigned char type, dev_t dev, unsigned depth)
{
        cleanup_close int sub = -1;
        struct stat st;

        if (type == DT_UNKNOWN) {
                if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        return;
                type = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
        }
        if (type != DT_DIR) {
                (void) unlinkat(dirfd, name, 0);
                return;
        }
        if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT || depth > 64)
                return;
        sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0 && (fstat(sub, &st) < 0 || st.st_dev != dev))
                return;
        if (sub >= 0)
                remove_tree_below(sub, dev, depth + 1);
        (void) unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* rm -r below dirfd, staying on dev and never following a symlink.  The
 * entries are read with getdents64 on dirfd itself: a DIR stream would
 * cost a dup, a stat and two fcntls per directory, and a run directory
 * is mostly directories. */
static void remove_tree_below(int dirfd, dev_t dev, unsigned depth)
{
        char buf[4096] __attribute__((aligned(8)));
        ssize_t n;

        while ((n = getdents64(dirfd, buf, sizeof(buf))) > 0)
                for (ssize_t off = 0; off < n;) {
                        const struct dirent64 *de = (const void *) (buf + off);

                        off += de->d_reclen;
                        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
                                remove_entry(dirfd, de->d_name, de->d_type, dev, depth);
                }
}

void run_remove_tree_at(int dirfd, dev_t dev)
{
        remove_tree_below(dirfd, dev, 0);
}

/* rm -r dir, staying on its file system. */
static void remove_tree(const char *dir)
{
        cleanup_close int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;

        if (fd >= 0 && fstat(fd, &st) == 0)
                run_remove_tree_at(fd, st.st_dev);
        (void) rmdir(dir);
}

void run_dir_cleanup(struct run_dir *d)
{
        run_remove_mount_points(d);
        mount_points_done(&d->points);
        if (d->shm)
                remove_tree(d->shm);
        if (d->path)
                remove_tree(d->path);
        /* only once what it names is gone */
        run_claim_drop(&d->claim);
        free(d->shm);
        free(d->rootfs);
        free(d->path);
        free(d->bundle);
        free(d->state);
        free(d->gate_socket);
        free(d->egress_log);
        free(d->exec_record);
        free(d->runtime_log);
        free(d->hooks_log);
        *d = (struct run_dir){0};
}
